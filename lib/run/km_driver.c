/* km_driver: one run's policy over a backend's hooks (km_driver.h). */
#include "km_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blackhole.h"
#include "session_internal.h"

typedef struct drive_thread {
    bool final;       /* its block holds a final state: the result is built */
    bool lingers;     /* final, but a core still runs a call (km_driver.h, "Stopped") */
    bool overwritten; /* its block is not this run's: nothing in it is believed */
    bool stuck;
    bool stop_asked;
    uint64_t stop_ps; /* when the stop word was written */
    uint64_t stop_due_ps; /* > 0: ask the stop then (another's failure, delayed) */
    uint64_t timeout_ps;  /* ask the stop then, if it still runs (km_drive_timeout) */
    uint32_t seen_where;
    uint64_t seen_where_ticks;
    kmx_result_block block;
} drive_thread;

struct km_steer {
    const km_driver_hooks *h;
    bool kernel_failed;  /* a handler was taken out: the kernel stops, the threads too */
    bool kernel_stopped; /* stop_kernel was called */
    uint64_t kernel_stop_ps; /* the kernel stops then (km_drive_kernel_stop) */
    uint64_t grace_ps;
    km_run_result *r;
    uint64_t next_drain; /* modeled: the next drain of the prints */
    km_run_opts o;
    int clusters[BH_WORK_CLUSTERS];
    drive_thread t[BH_WORK_CLUSTERS];
    unsigned n;
    uint64_t now;
    bool ended;
};

typedef struct km_steer drive;

double km_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool done(const drive_thread *t)
{
    return (t->final && !t->lingers) || t->stuck;
}

/* Whether core `core` of thread i has not stopped (km_driver.h,
 * "Stopped"): core 0 until the block holds a final state, cores 1-3 while
 * the backend says they run a call. */
static bool core_unstopped(const drive *d, unsigned i, unsigned core)
{
    if (core == 0)
        return !d->t[i].final;
    return d->h->in_call && d->h->in_call(d->h->ctx, i, core);
}

static bool any_core_in_call(const drive *d, unsigned i)
{
    for (unsigned k = 1; k < BH_CLUSTER_CORES; k++)
        if (core_unstopped(d, i, k))
            return true;
    return false;
}

/* The grace counts from the stop word's write.  On a backend with a
 * clock of its own (the host's) that is read again here: the look that
 * led to the stop may have waited on the backend (a handler spinning
 * under its lock for the watchdog's second), and the grace counted from
 * before that wait would be spent before the thread could see the word. */
static void ask_stop(drive *d, unsigned i)
{
    drive_thread *t = &d->t[i];
    if (!t->stop_asked && !done(t)) {
        d->h->ask_stop(d->h->ctx, i);
        t->stop_asked = true;
        if (d->h->now) {
            uint64_t now = d->h->now(d->h->ctx);
            if (now > d->now)
                d->now = now;
        }
        t->stop_ps = d->now;
    }
}

static void stop_all(drive *d)
{
    for (unsigned k = 0; k < d->n; k++)
        ask_stop(d, k);
}

/* A thread failed: the others are asked to stop — at once, or when the
 * backend says a thread should first be let end on its own. */
static void stop_others(drive *d)
{
    for (unsigned k = 0; k < d->n; k++) {
        drive_thread *t = &d->t[k];
        if (done(t) || t->stop_asked)
            continue;
        uint64_t delay = d->h->stop_delay_ps ? d->h->stop_delay_ps(d->h->ctx, k) : 0;
        if (delay == 0)
            ask_stop(d, k);
        else if (t->stop_due_ps == 0)
            t->stop_due_ps = d->now + delay;
    }
}

/* A drained print: kept in the result, and shown at once. */
static void on_print(const sim_card_print *p, void *ctx)
{
    drive *d = ctx;
    km_run_result *r = d->r;
    if ((r->nprints & (r->nprints - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
        size_t cap = r->nprints ? r->nprints * 2 : 16;
        km_print_line *lines = realloc(r->prints, cap * sizeof *lines);
        if (!lines) {
            r->prints_lost = true; /* the run ends saying so (km_session_end) */
            return;
        }
        r->prints = lines;
    }
    km_print_line *l = &r->prints[r->nprints];
    l->tensix = p->kind == SIM_PRINT_TENSIX;
    l->cluster = p->cluster;
    l->core = p->core;
    l->ps = p->ps;
    l->text = strdup(p->text);
    if (!l->text) {
        r->prints_lost = true;
        return;
    }
    r->nprints++;
    if (d->o.print)
        d->o.print(l, d->o.ctx);
}

static void drain(drive *d, bool last)
{
    if (!d->h->drain_prints)
        return;
    if (!last && d->h->modeled) {
        if (d->now < d->next_drain)
            return;
        d->next_drain = (d->now / KM_PRINT_DRAIN_PS + 1) * KM_PRINT_DRAIN_PS;
    }
    d->h->drain_prints(d->h->ctx, on_print, d);
}

/* A new progress marker (where_ticks 0: none yet, or being written). */
static void progress(drive *d, unsigned i)
{
    drive_thread *t = &d->t[i];
    const kmx_result_block *b = &t->block;
    if (b->where_ticks == 0 || (b->where == t->seen_where && b->where_ticks == t->seen_where_ticks))
        return;
    t->seen_where = b->where;
    t->seen_where_ticks = b->where_ticks;
    if (d->o.progress)
        d->o.progress(d->clusters[i], b->where,
                       b->where_ticks >= b->start_ticks ? b->where_ticks - b->start_ticks : 0,
                       d->o.ctx);
}

/* A block that is not this run's any more (km_driver_hooks.nonce). */
static void overwritten(drive *d, unsigned i, km_thread_result *r)
{
    drive_thread *t = &d->t[i];
    memset(r, 0, sizeof *r);
    r->cluster = d->clusters[i];
    r->state = KM_STATE_FAILED;
    snprintf(r->message, sizeof r->message,
             "the thread's result block was overwritten (its nonce is 0x%016llx, not this "
             "run's), so nothing in it is believed: a store into local memory reached it, from "
             "a stack overflow or a wild pointer",
             (unsigned long long)t->block.nonce);
    t->final = true;
    t->overwritten = true;
    d->h->retire(d->h->ctx, i, false);
    stop_others(d);
}

/* Reads thread i's block: progress, and a final state becomes its result
 * — the thread is done then, or once no core still runs a call. */
static int look(drive *d, unsigned i, km_run_result *r, km_error *err)
{
    drive_thread *t = &d->t[i];
    if (t->lingers) { /* its result is built: only its cores are waited for */
        if (!any_core_in_call(d, i)) {
            t->lingers = false;
            d->h->retire(d->h->ctx, i, false);
        }
        return KM_OK;
    }
    int rc = d->h->read_block(d->h->ctx, i, &t->block, err);
    if (rc != KM_OK)
        return rc;
    if (t->block.nonce != d->h->nonce) {
        overwritten(d, i, &r->threads[i]);
        return KM_OK;
    }
    progress(d, i);
    if (!KMX_STATE_FINAL(t->block.state))
        return KM_OK;
    t->final = true;
    km_result_from_block(&t->block, d->clusters[i], &r->threads[i]);
    d->h->describe(d->h->ctx, i, &r->threads[i]);
    km_result_explain(&r->threads[i]);
    if (any_core_in_call(d, i)) {
        /* Core 0 gave up on a core that still runs: it has the stop's
         * grace to return, from the stop asked now (after the deadline)
         * or before. */
        t->lingers = true;
        ask_stop(d, i);
    } else {
        d->h->retire(d->h->ctx, i, false);
    }
    if (km_state_stops_others(r->threads[i].state))
        stop_others(d);
    return KM_OK;
}

/* Every core of thread i that did not stop, with where it is, by number
 * (km_driver.h, "Stopped"); how many (at least one). */
static unsigned unstopped_cores(drive *d, unsigned i, km_driver_where w[BH_CLUSTER_CORES])
{
    const km_driver_hooks *h = d->h;
    unsigned n = 0;
    if (h->locate_core) {
        for (unsigned k = 0; k < BH_CLUSTER_CORES; k++) {
            if (!core_unstopped(d, i, k))
                continue;
            memset(&w[n], 0, sizeof w[n]);
            w[n].core = k;
            h->locate_core(h->ctx, i, k, &w[n]);
            w[n].core = k;
            n++;
        }
    }
    if (n == 0) { /* the backend names the core */
        memset(&w[0], 0, sizeof w[0]);
        if (h->locate)
            h->locate(h->ctx, i, &w[0]);
        else
            h->locate_core(h->ctx, i, 0, &w[0]);
        n = 1;
    }
    return n;
}

/* " at pc 0x... (file:line in function)", or "" when the pc is unknown. */
static void where_text(const km_driver_where *w, char *out, size_t size)
{
    char where[700] = "";
    if (w->source.known)
        snprintf(where, sizeof where, " (%.400s:%u%s%.200s)", w->source.file, w->source.line,
                 w->source.has_function ? " in " : "",
                 w->source.has_function ? w->source.function : "");
    out[0] = 0;
    if (w->pc_known)
        snprintf(out, size, " at pc 0x%llx%s", (unsigned long long)w->pc, where);
}

/* The detail sentence: the named core first, then each other core that
 * did not stop, then the reset. */
static void stuck_detail(const km_driver_where *w, unsigned n, unsigned named, bool final,
                         uint64_t grace_ps, char *out, size_t size)
{
    const km_driver_where *m = &w[named];
    double grace_s = (double)grace_ps / (double)BH_PS_PER_SECOND;
    char at[800];
    where_text(m, at, sizeof at);
    int len;
    if (m->running && m->trap_loop)
        len = snprintf(out, size,
                       "core %u did not return within %g s of the stop flag: it traps%s again "
                       "and again (%.64s), its trap handler (mtvec) being where it traps",
                       m->core, grace_s, at, m->trap_name);
    else if (m->running)
        len = snprintf(out, size,
                       "core %u did not return within %g s of the stop flag: it still runs%s, "
                       "in a loop that never polls the stop (kmx_stop_requested)",
                       m->core, grace_s, at);
    else if (!final)
        len = snprintf(out, size,
                       "the thread did not end within %g s of the stop flag: every core waits "
                       "in wfi or is halted (core %u%s) and none wrote a final state",
                       grace_s, m->core, at);
    else
        len = snprintf(out, size,
                       "core %u did not return within %g s of the stop flag: it waits%s",
                       m->core, grace_s, at);
    for (unsigned k = 0; k < n && len >= 0 && (size_t)len < size; k++) {
        if (k == named)
            continue;
        where_text(&w[k], at, sizeof at);
        const char *what = !w[k].running ? "waits" : w[k].trap_loop ? "traps again and again"
                                                                     : "still runs";
        len += snprintf(out + len, size - (size_t)len, "; core %u did not return either: it %s%s",
                        w[k].core, what, at);
    }
    if (len >= 0 && (size_t)len < size)
        snprintf(out + len, size - (size_t)len, "; the cluster needs a reset");
}

static void mark_stuck(drive *d, unsigned i, uint64_t grace_ps, km_thread_result *r)
{
    drive_thread *t = &d->t[i];
    km_result_from_block(&t->block, d->clusters[i], r);
    d->h->describe(d->h->ctx, i, r);
    km_result_explain(r);
    km_driver_where w[BH_CLUSTER_CORES];
    unsigned n = unstopped_cores(d, i, w);
    unsigned named = 0;
    for (unsigned k = 0; k < n; k++)
        if (w[k].running) {
            named = k;
            break;
        }
    r->state = KM_STATE_STUCK;
    r->has_code = false;
    r->has_ticks = false;
    r->stuck = true;
    km_stuck_info *s = &r->stuck_info;
    s->core = w[named].core;
    s->pc = w[named].pc;
    s->source = w[named].source;
    s->ncores = n;
    for (unsigned k = 0; k < n; k++)
        s->cores[k] = (km_stuck_core){.core = w[k].core, .pc = w[k].pc,
                                      .running = w[k].running, .source = w[k].source};
    stuck_detail(w, n, named, t->final, grace_ps, s->detail, sizeof s->detail);
    t->stuck = true;
    d->h->retire(d->h->ctx, i, true);
    stop_all(d);
}

/* The next time to look: a slice on, or — when nothing can change on its
 * own (modeled time only) — straight to the next timeout or grace; never
 * past `until_ps` (the caller's horizon) by more than a slice's rounding. */
static uint64_t next_look(const drive *d, bool pending, uint64_t until_ps)
{
    uint64_t slice = d->h->slice_ps;
    uint64_t next = d->now + slice;
    if (!d->h->modeled || pending || d->h->busy(d->h->ctx))
        return next;
    uint64_t event = until_ps;
    for (unsigned i = 0; i < d->n; i++) {
        const drive_thread *t = &d->t[i];
        if (done(t))
            continue;
        uint64_t e = t->stop_asked ? t->stop_ps + d->grace_ps : t->timeout_ps;
        if (t->stop_due_ps && t->stop_due_ps < e)
            e = t->stop_due_ps;
        if (e < event)
            event = e;
    }
    if (event > next && event != UINT64_MAX)
        next = (event / slice + (event % slice != 0)) * slice;
    return next;
}

static uint64_t ticks_to_ps(uint64_t ticks)
{
    return ticks * (BH_PS_PER_SECOND / BH_TICKS_PER_SECOND);
}

int km_drive_begin(km_steer **out, const km_driver_hooks *h, const int *clusters, unsigned n,
                   const km_run_opts *o, uint64_t timeout_ps, uint64_t grace_ps,
                   km_run_result *r, km_error *err)
{
    *out = NULL;
    if (n > BH_WORK_CLUSTERS)
        return km_fail(err, KM_EXIT_INTERNAL, "%u threads in one run (at most %u)", n,
                       BH_WORK_CLUSTERS);
    drive *d = calloc(1, sizeof *d);
    if (!d)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for a run");
    d->h = h;
    if (o)
        d->o = *o;
    memcpy(d->clusters, clusters, n * sizeof *clusters);
    d->n = n;
    d->r = r;
    d->grace_ps = grace_ps;
    d->next_drain = KM_PRINT_DRAIN_PS;
    d->kernel_stop_ps = UINT64_MAX;
    for (unsigned i = 0; i < n; i++)
        d->t[i].timeout_ps = timeout_ps;
    r->nthreads = n;
    r->host_times = !h->modeled;
    if (h->start) {
        int rc = h->start(h->ctx, timeout_ps, err);
        if (rc != KM_OK) {
            free(d);
            return rc;
        }
    }
    *out = d;
    return KM_OK;
}

void km_drive_timeout(km_steer *d, unsigned i, uint64_t at_ps)
{
    for (unsigned k = 0; k < d->n; k++) {
        if (i != KM_DRIVE_ALL && k != i)
            continue;
        d->t[k].timeout_ps = at_ps;
        if (d->h->timeout)
            d->h->timeout(d->h->ctx, k, at_ps);
    }
}

void km_drive_kernel_stop(km_steer *d, uint64_t at_ps)
{
    d->kernel_stop_ps = at_ps;
}

void km_drive_grace(km_steer *d, uint64_t grace_ps)
{
    d->grace_ps = grace_ps;
}

uint64_t km_drive_now(const km_steer *d)
{
    return d->now;
}

bool km_drive_thread_done(const km_steer *d, unsigned i)
{
    return i < d->n && done(&d->t[i]);
}

bool km_drive_threads_done(const km_steer *d)
{
    for (unsigned i = 0; i < d->n; i++)
        if (!done(&d->t[i]))
            return false;
    return true;
}

bool km_drive_kernel_live(const km_steer *d)
{
    return !d->kernel_failed && !d->kernel_stopped && d->now < d->kernel_stop_ps;
}

bool km_drive_settled(const km_steer *d, void *ctx)
{
    (void)ctx;
    return km_drive_threads_done(d) &&
           !(km_drive_kernel_live(d) && d->h->commands_pending(d->h->ctx));
}

/* One look: time to the next, prints, the kernel, every thread's block,
 * the stops that are due. */
static int step(drive *d, uint64_t until_ps, km_error *err)
{
    const km_driver_hooks *h = d->h;
    km_run_result *r = d->r;
    /* (A command whose handler was taken out never ends.) */
    bool pending = km_drive_kernel_live(d) && h->commands_pending(h->ctx);
    uint64_t next = next_look(d, pending, until_ps);
    h->advance(h->ctx, next);
    d->now = h->now ? h->now(h->ctx) : next;
    drain(d, false);
    if (!d->kernel_failed && h->kernel_faults && h->kernel_faults(h->ctx) > 0) {
        d->kernel_failed = true;
        stop_others(d);
    }
    if (d->now >= d->kernel_stop_ps || d->kernel_failed) {
        h->stop_kernel(h->ctx);
        d->kernel_stopped = true;
    }
    for (unsigned i = 0; i < d->n; i++) {
        if (done(&d->t[i]))
            continue;
        int rc = look(d, i, r, err);
        if (rc != KM_OK)
            return rc;
    }
    for (unsigned i = 0; i < d->n; i++) {
        drive_thread *t = &d->t[i];
        if (done(t))
            continue;
        if (d->now >= t->timeout_ps || (t->stop_due_ps && d->now >= t->stop_due_ps))
            ask_stop(d, i);
        if (t->stop_asked && d->now >= t->stop_ps + d->grace_ps)
            mark_stuck(d, i, d->grace_ps, &r->threads[i]);
    }
    return KM_OK;
}

int km_drive_until(km_steer *d, km_drive_goal goal, void *ctx, uint64_t until_ps, km_error *err)
{
    if (d->ended)
        return km_fail(err, KM_EXIT_INTERNAL, "a run driven after its end");
    double wall_start = km_wall_now();
    while (!goal(d, ctx) && d->now < until_ps) {
        int rc = step(d, until_ps, err);
        if (rc != KM_OK)
            return rc;
        if (d->o.wall_timeout_s > 0 && km_wall_now() - wall_start > d->o.wall_timeout_s) {
            stop_all(d);
            char reached[96] = "";
            if (d->h->modeled)
                snprintf(reached, sizeof reached,
                         "; the simulated card had reached %.3f ms of modeled time",
                         (double)d->now / 1e9);
            return km_fail(err, KM_EXIT_SYSTEM,
                           "the run took more than %g s of real time (--wall-timeout)%s",
                           d->o.wall_timeout_s, reached);
        }
    }
    return KM_OK;
}

void km_drive_end(km_steer *d)
{
    if (d->ended)
        return;
    d->ended = true;
    const km_driver_hooks *h = d->h;
    km_run_result *r = d->r;
    h->stop_kernel(h->ctx);
    d->kernel_stopped = true;
    drain(d, true);
    /* The device ran at least until the last thread's end was written
     * (a core may end a little past the look that saw it). */
    r->device_ps = d->now;
    for (unsigned i = 0; i < d->n; i++) {
        const kmx_result_block *b = &d->t[i].block;
        if (d->t[i].final && !d->t[i].overwritten && ticks_to_ps(b->end_ticks) > r->device_ps)
            r->device_ps = ticks_to_ps(b->end_ticks);
    }
    if (h->finish)
        h->finish(h->ctx, r);
}

void km_drive_free(km_steer *d)
{
    free(d);
}

int km_drive(const km_driver_hooks *h, const int *clusters, unsigned n, const km_run_opts *o,
             uint64_t timeout_ps, uint64_t grace_ps, km_run_result *r, km_error *err)
{
    km_steer *d;
    int rc = km_drive_begin(&d, h, clusters, n, o, timeout_ps, grace_ps, r, err);
    if (rc != KM_OK)
        return rc;
    km_drive_kernel_stop(d, timeout_ps);
    rc = km_drive_until(d, km_drive_settled, NULL, UINT64_MAX, err);
    if (rc == KM_OK)
        km_drive_end(d);
    if (rc == KM_OK && r->prints_lost)
        rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory keeping the run's prints");
    km_drive_free(d);
    return rc;
}
