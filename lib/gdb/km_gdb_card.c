/* km_gdb_card: the GDB target of `kmrun run --gdb` (km_gdb_card.h).
 *
 * Two threads share this state under one lock: the GDB thread (the
 * server calls the ops) and the run's thread (the card calls on_event).
 * `running` says who may touch the card: while it is false the run's
 * thread waits (at the start, or inside an event) and the GDB thread
 * reads and changes the card; while it is true only the run's thread
 * does, and the GDB thread waits for a stop, asking for a pause when the
 * client sends Ctrl-C. */
#include "km_gdb_card.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gdb_sim.h"
#include "sim_card_debug.h"

#define MAX_THREADS (BH_WORK_CLUSTERS * BH_CLUSTER_CORES)

struct km_gdb_card {
    km_gdb_sim_regs regs; /* first: gdb_sim.h reads it through the context */
    sim_card *card;
    unsigned nthreads;
    unsigned cluster_of[MAX_THREADS], core_of[MAX_THREADS];
    bool debugged[BH_CLUSTERS]; /* by cluster: its image is GDB's */
    km_gdb_points points;
    km_gdb_lookup lookup; /* for the monitor's sources (NULL: none) */
    void *lookup_ctx;

    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool running;   /* the run may go on (else it waits) */
    bool released;  /* nobody debugs any more: never stop */
    bool let_go;    /* and the card knows it (let_go) */
    bool ended;     /* the run is over */
    int exit_code;
    km_gdb_resume how; /* the last resume */
    bool has_stop;
    km_gdb_stop stop;
};

static int get(void *ctx, int thread, sim_reg_file file, unsigned num, uint64_t *value);
static int set(void *ctx, int thread, sim_reg_file file, unsigned num, uint64_t value);

static int thread_of(const km_gdb_card *t, unsigned cluster, unsigned core)
{
    for (unsigned i = 0; i < t->nthreads; i++)
        if (t->cluster_of[i] == cluster && t->core_of[i] == core)
            return (int)i;
    return -1;
}

km_gdb_card *km_gdb_card_new(sim_card *card, const unsigned *clusters, const bool *debugged,
                             unsigned n)
{
    km_gdb_card *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->card = card;
    t->regs = (km_gdb_sim_regs){get, set};
    for (unsigned i = 0; i < n && i < BH_WORK_CLUSTERS; i++) {
        t->debugged[clusters[i]] = debugged[i];
        for (unsigned k = 0; k < BH_CLUSTER_CORES; k++) {
            t->cluster_of[t->nthreads] = clusters[i];
            t->core_of[t->nthreads++] = k;
        }
    }
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->changed, NULL);
    t->how = (km_gdb_resume){.thread = -1, .others = true};
    return t;
}

void km_gdb_card_free(km_gdb_card *t)
{
    if (!t)
        return;
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->changed);
    free(t);
}

/* ---- the run's thread ------------------------------------------------------ */

static void let_go(km_gdb_card *t);

static const km_gdb_target_ops ops;

/* Whether an event stops the run, as the last resume asked; a
 * breakpoint's conditions are evaluated here, on the run's thread with
 * the card held, so that a false one costs no stop (km_gdb_card.h). */
static bool stops(km_gdb_card *t, int thread, const sim_card_event *ev)
{
    if (t->released || thread < 0)
        return false;
    switch (ev->kind) {
    case SIM_CARD_AT_STEP: return thread == t->how.thread && t->how.step;
    case SIM_CARD_AT_PROBE:
        return (t->how.others || thread == t->how.thread) &&
               km_gdb_points_break_stops(&t->points, ev->pc, &ops, t, thread);
    case SIM_CARD_AT_WATCH: return t->how.others || thread == t->how.thread;
    case SIM_CARD_AT_TRAP:
    case SIM_CARD_AT_PAUSE:
    case SIM_CARD_AT_STUCK: return true;
    }
    return false;
}

static void stop_of(km_gdb_card *t, int thread, const sim_card_event *ev, km_gdb_stop *s)
{
    memset(s, 0, sizeof *s);
    s->thread = thread;
    switch (ev->kind) {
    case SIM_CARD_AT_STEP: s->reason = KM_GDB_STOP_STEP; break;
    case SIM_CARD_AT_PROBE: km_gdb_points_break_stop(&t->points, ev->pc, s); break;
    case SIM_CARD_AT_WATCH: km_gdb_points_watch_stop(&t->points, ev->watch, ev->store, s); break;
    case SIM_CARD_AT_TRAP:
        s->reason = KM_GDB_STOP_TRAP;
        s->cause = ev->cause;
        break;
    case SIM_CARD_AT_PAUSE: s->reason = KM_GDB_STOP_INTERRUPT; break;
    case SIM_CARD_AT_STUCK: s->reason = KM_GDB_STOP_STUCK; break;
    }
}

static void on_event(void *ctx, const sim_card_event *ev)
{
    km_gdb_card *t = ctx;
    pthread_mutex_lock(&t->lock);
    int thread = thread_of(t, ev->cluster, ev->core);
    if (stops(t, thread, ev)) {
        stop_of(t, thread, ev, &t->stop);
        t->has_stop = true;
        t->running = false;
        pthread_cond_broadcast(&t->changed);
        while (!t->running)
            pthread_cond_wait(&t->changed, &t->lock);
    }
    if (t->released)
        let_go(t);
    pthread_mutex_unlock(&t->lock);
}

void km_gdb_card_wait_start(km_gdb_card *t)
{
    sim_card_debug_observe(t->card, SIM_CARD_DEBUGGER, on_event, t);
    sim_card_debug_catch_traps(t->card, true);
    pthread_mutex_lock(&t->lock);
    while (!t->running)
        pthread_cond_wait(&t->changed, &t->lock);
    if (t->released)
        let_go(t);
    pthread_mutex_unlock(&t->lock);
}

void km_gdb_card_ended(km_gdb_card *t, int exit_code)
{
    pthread_mutex_lock(&t->lock);
    t->ended = true;
    t->exit_code = exit_code;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
}

/* ---- the GDB thread ------------------------------------------------------- */

void km_gdb_card_release(km_gdb_card *t)
{
    pthread_mutex_lock(&t->lock);
    t->released = true;
    t->running = true;
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
}

static int thread_count(void *ctx)
{
    return (int)((km_gdb_card *)ctx)->nthreads;
}

static int thread_name(void *ctx, int thread, char *name, size_t size)
{
    km_gdb_card *t = ctx;
    snprintf(name, size, "c%u.%u", t->cluster_of[thread], t->core_of[thread]);
    return 0;
}

static int get(void *ctx, int thread, sim_reg_file file, unsigned num, uint64_t *value)
{
    km_gdb_card *t = ctx;
    return sim_card_debug_get_reg(t->card, t->cluster_of[thread], t->core_of[thread], file, num,
                                  value);
}

static int set(void *ctx, int thread, sim_reg_file file, unsigned num, uint64_t value)
{
    km_gdb_card *t = ctx;
    return sim_card_debug_set_reg(t->card, t->cluster_of[thread], t->core_of[thread], file, num,
                                  value);
}

static int read_mem(void *ctx, int thread, uint64_t addr, uint8_t *buf, size_t n)
{
    km_gdb_card *t = ctx;
    return sim_card_debug_read(t->card, t->cluster_of[thread], t->core_of[thread], addr, buf, n);
}

static int write_mem(void *ctx, int thread, uint64_t addr, const uint8_t *buf, size_t n)
{
    km_gdb_card *t = ctx;
    return sim_card_debug_write(t->card, t->cluster_of[thread], t->core_of[thread], addr, buf, n);
}

/* The card's probes and watches from the points, on every debugged
 * cluster. */
static int apply_points(km_gdb_card *t)
{
    uint64_t breaks[KM_GDB_MAX_POINTS];
    sim_card_watch watches[KM_GDB_MAX_POINTS];
    unsigned nb = km_gdb_points_breaks(&t->points, breaks);
    unsigned nw = 0;
    for (const km_gdb_point_set *p; (p = km_gdb_points_watch(&t->points, nw)) != NULL;) {
        bool execute, load, store;
        km_gdb_point_access(p->type, &execute, &load, &store);
        watches[nw++] = (sim_card_watch){p->addr, p->len ? p->len : 1, load, store};
    }
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++) {
        if (!t->debugged[c])
            continue;
        if (sim_card_debug_probes(t->card, SIM_CARD_DEBUGGER, c, breaks, nb, NULL) != KS_OK ||
            sim_card_debug_watch(t->card, c, watches, nw, NULL) != KS_OK)
            return -1;
    }
    return 0;
}

/* A hardware point's triggers on every debugged cluster's cores (as on an
 * X280, each has four; a software breakpoint takes none). */
static void release_triggers(km_gdb_card *t, km_gdb_point type, uint64_t addr)
{
    bool x, l, s;
    km_gdb_point_access(type, &x, &l, &s);
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS && type != KM_GDB_SW_BREAK; c++)
        if (t->debugged[c])
            sim_card_debug_release_trigger(t->card, c, x, l, s, addr);
}

static int claim_triggers(km_gdb_card *t, km_gdb_point type, uint64_t addr)
{
    bool x, l, s;
    km_gdb_point_access(type, &x, &l, &s);
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS && type != KM_GDB_SW_BREAK; c++) {
        if (t->debugged[c] && sim_card_debug_claim_trigger(t->card, c, x, l, s, addr) != 0) {
            release_triggers(t, type, addr);
            return -1;
        }
    }
    return 0;
}

static int insert_point(void *ctx, km_gdb_point type, uint64_t addr, uint64_t kind)
{
    km_gdb_card *t = ctx;
    if (km_gdb_points_find(&t->points, type, addr))
        return 0;
    if (claim_triggers(t, type, addr) != 0)
        return -1;
    if (km_gdb_points_insert(&t->points, type, addr, kind) != 0 || apply_points(t) != 0) {
        release_triggers(t, type, addr);
        (void)km_gdb_points_remove(&t->points, type, addr);
        (void)apply_points(t);
        return -1;
    }
    return 0;
}

static int remove_point(void *ctx, km_gdb_point type, uint64_t addr, uint64_t kind)
{
    km_gdb_card *t = ctx;
    (void)kind;
    if (km_gdb_points_remove(&t->points, type, addr) != 0)
        return -1;
    release_triggers(t, type, addr);
    return apply_points(t);
}

static int condition_point(void *ctx, km_gdb_point type, uint64_t addr, const km_gdb_conds *c)
{
    return km_gdb_points_condition(&((km_gdb_card *)ctx)->points, type, addr, c);
}

/* Only the thread singled out for a step steps. */
static void set_stepping(km_gdb_card *t, const km_gdb_resume *how)
{
    for (unsigned i = 0; i < t->nthreads; i++)
        sim_card_debug_step(t->card, t->cluster_of[i], t->core_of[i],
                            how->step && (int)i == how->thread);
}

static int resume(void *ctx, const km_gdb_resume *how, km_gdb_poll poll, void *poll_arg,
                  km_gdb_stop *stop)
{
    km_gdb_card *t = ctx;
    pthread_mutex_lock(&t->lock);
    t->how = *how;
    if (how->thread < 0)
        t->how.others = true;
    set_stepping(t, &t->how);
    t->has_stop = false;
    t->running = true;
    pthread_cond_broadcast(&t->changed);
    bool paused = false;
    while (!t->has_stop && !t->ended) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 20 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&t->changed, &t->lock, &until);
        if (!paused && !t->has_stop && poll && poll(poll_arg)) {
            sim_card_debug_pause(t->card);
            paused = true;
        }
    }
    if (t->has_stop) {
        *stop = t->stop;
    } else {
        memset(stop, 0, sizeof *stop);
        stop->reason = KM_GDB_STOP_EXITED;
        stop->exit_code = t->exit_code;
    }
    pthread_mutex_unlock(&t->lock);
    return 0;
}

/* The points and their triggers go, and stepping and trap catching:
 * while the card is held (by either thread). */
static void forget_points(km_gdb_card *t)
{
    for (unsigned i = 0; i < t->points.n; i++)
        release_triggers(t, t->points.p[i].type, t->points.p[i].addr);
    km_gdb_points_clear(&t->points);
    (void)apply_points(t);
    set_stepping(t, &(km_gdb_resume){.thread = -1});
    sim_card_debug_catch_traps(t->card, false);
}

/* D: the points go and the run goes on free. */
static void detach(void *ctx)
{
    km_gdb_card *t = ctx;
    forget_points(t);
    km_gdb_card_release(t);
}

/* The run's thread, released (detached, or the client gone), under the
 * lock: the debugger observes the card no more.  What it left goes (a
 * client that went away without D left its points), and the clusters
 * drop their hooks before their next instruction, so the rest of the run
 * is the one without the debugger, at its speed: a waiting core, or one
 * in a trap loop (a pc the debugger set wild), parks again. */
static void let_go(km_gdb_card *t)
{
    if (t->let_go)
        return;
    t->let_go = true;
    forget_points(t);
    sim_card_debug_observe(t->card, SIM_CARD_DEBUGGER, NULL, NULL);
}

static void kill_target(void *ctx)
{
    (void)ctx; /* kmrun ends without a result (cmd/run.c) */
}

static int status(void *ctx, int thread, km_gdb_status *st)
{
    km_gdb_card *t = ctx;
    sim_core_status s;
    if (sim_card_debug_status(t->card, t->cluster_of[thread], t->core_of[thread], &s) != 0)
        return -1;
    km_gdb_sim_status(&s, st);
    return 0;
}

static int source_of(void *ctx, int thread, uint64_t pc, km_gdb_source *src)
{
    km_gdb_card *t = ctx;
    return t->lookup ? t->lookup(t->lookup_ctx, t->cluster_of[thread], pc, src) : -1;
}

void km_gdb_card_lookup(km_gdb_card *t, km_gdb_lookup fn, void *ctx)
{
    t->lookup = fn;
    t->lookup_ctx = ctx;
}

static const km_gdb_target_ops ops = {
    .thread_count = thread_count,
    .thread_name = thread_name,
    .read_reg = km_gdb_sim_read_reg,
    .write_reg = km_gdb_sim_write_reg,
    .read_vreg = km_gdb_sim_read_vreg,
    .write_vreg = km_gdb_sim_write_vreg,
    .read_mem = read_mem,
    .write_mem = write_mem,
    .insert_point = insert_point,
    .remove_point = remove_point,
    .condition_point = condition_point,
    .resume = resume,
    .status = status,
    .source_of = source_of,
    .detach = detach,
    .kill = kill_target,
};

const km_gdb_target_ops *km_gdb_card_ops(void)
{
    return &ops;
}
