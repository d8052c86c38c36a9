/* km_driver: one run's policy over a backend's hooks (km_driver.h). */
#include "km_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blackhole.h"
#include "session_internal.h"

typedef struct drive_thread {
    bool final;
    bool overwritten; /* its block is not this run's: nothing in it is believed */
    bool stuck;
    bool stop_asked;
    uint64_t stop_ps; /* when the stop word was written */
    uint64_t stop_due_ps; /* > 0: ask the stop then (another's failure, delayed) */
    uint32_t seen_where;
    uint64_t seen_where_ticks;
    kmx_result_block block;
} drive_thread;

typedef struct drive {
    const km_driver_hooks *h;
    km_run_result *r;
    uint64_t next_drain; /* modeled: the next drain of the prints */
    const km_run_opts *o;
    const int *clusters;
    drive_thread t[BH_WORK_CLUSTERS];
    unsigned n;
    uint64_t now;
} drive;

double km_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool done(const drive_thread *t)
{
    return t->final || t->stuck;
}

static void ask_stop(drive *d, unsigned i)
{
    drive_thread *t = &d->t[i];
    if (!t->stop_asked && !done(t)) {
        d->h->ask_stop(d->h->ctx, i);
        t->stop_asked = true;
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
        if (!lines)
            return; /* out of memory: the print is lost, not the run */
        r->prints = lines;
    }
    km_print_line *l = &r->prints[r->nprints];
    l->tensix = p->kind == SIM_PRINT_TENSIX;
    l->cluster = p->cluster;
    l->core = p->core;
    l->ps = p->ps;
    l->text = strdup(p->text);
    if (!l->text)
        return;
    r->nprints++;
    if (d->o->print)
        d->o->print(l, d->o->ctx);
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
    if (d->o->progress)
        d->o->progress(d->clusters[i], b->where,
                       b->where_ticks >= b->start_ticks ? b->where_ticks - b->start_ticks : 0,
                       d->o->ctx);
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

/* Reads thread i's block: progress, and a final state becomes its result. */
static int look(drive *d, unsigned i, km_run_result *r, km_error *err)
{
    drive_thread *t = &d->t[i];
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
    d->h->retire(d->h->ctx, i, false);
    if (km_state_stops_others(r->threads[i].state))
        stop_others(d);
    return KM_OK;
}

static void mark_stuck(drive *d, unsigned i, uint64_t grace_ps, km_thread_result *r)
{
    drive_thread *t = &d->t[i];
    km_result_from_block(&t->block, d->clusters[i], r);
    d->h->describe(d->h->ctx, i, r);
    km_result_explain(r);
    km_driver_where w;
    memset(&w, 0, sizeof w);
    d->h->locate(d->h->ctx, i, &w);
    r->state = KM_STATE_STUCK;
    r->has_code = false;
    r->has_ticks = false;
    r->stuck = true;
    r->stuck_info.core = w.core;
    r->stuck_info.pc = w.pc;
    r->stuck_info.source = w.source;
    char where[700] = "";
    if (w.source.known)
        snprintf(where, sizeof where, " (%.400s:%u%s%.200s)", w.source.file, w.source.line,
                 w.source.has_function ? " in " : "",
                 w.source.has_function ? w.source.function : "");
    char at[800] = "";
    if (w.pc_known)
        snprintf(at, sizeof at, " at pc 0x%llx%s", (unsigned long long)w.pc, where);
    double grace_s = (double)grace_ps / (double)BH_PS_PER_SECOND;
    if (w.running)
        snprintf(r->stuck_info.detail, sizeof r->stuck_info.detail,
                 "core %u did not return within %g s of the stop flag: it still runs%s, in a "
                 "loop that never polls the stop (kmx_stop_requested); the cluster needs a "
                 "reset",
                 w.core, grace_s, at);
    else
        snprintf(r->stuck_info.detail, sizeof r->stuck_info.detail,
                 "the thread did not end within %g s of the stop flag: every core waits in wfi "
                 "or is halted (core %u%s) and none wrote a final state; the cluster needs a "
                 "reset",
                 grace_s, w.core, at);
    t->stuck = true;
    d->h->retire(d->h->ctx, i, true);
    stop_all(d);
}

/* The next time to look: a slice on, or — when nothing can change on its
 * own (modeled time only) — straight to the next timeout or grace. */
static uint64_t next_look(const drive *d, bool pending, uint64_t timeout_ps, uint64_t grace_ps)
{
    uint64_t slice = d->h->slice_ps;
    uint64_t next = d->now + slice;
    if (!d->h->modeled || pending || d->h->busy(d->h->ctx))
        return next;
    uint64_t event = UINT64_MAX;
    for (unsigned i = 0; i < d->n; i++) {
        const drive_thread *t = &d->t[i];
        if (done(t))
            continue;
        uint64_t e = t->stop_asked ? t->stop_ps + grace_ps : timeout_ps;
        if (t->stop_due_ps && t->stop_due_ps < e)
            e = t->stop_due_ps;
        if (e < event)
            event = e;
    }
    if (event > next && event != UINT64_MAX)
        next = (event + slice - 1) / slice * slice;
    return next;
}

static uint64_t ticks_to_ps(uint64_t ticks)
{
    return ticks * (BH_PS_PER_SECOND / BH_TICKS_PER_SECOND);
}

int km_drive(const km_driver_hooks *h, const int *clusters, unsigned n, const km_run_opts *o,
             uint64_t timeout_ps, uint64_t grace_ps, km_run_result *r, km_error *err)
{
    static const km_run_opts none = {0};
    drive d = {.h = h, .o = o ? o : &none, .clusters = clusters, .n = n, .r = r,
               .next_drain = KM_PRINT_DRAIN_PS};
    if (n > BH_WORK_CLUSTERS)
        return km_fail(err, KM_EXIT_INTERNAL, "%u threads in one run (at most %u)", n,
                       BH_WORK_CLUSTERS);
    r->nthreads = n;
    r->host_times = !h->modeled;
    double wall_start = km_wall_now();
    if (h->start) {
        int rc = h->start(h->ctx, timeout_ps, err);
        if (rc != KM_OK)
            return rc;
    }
    for (;;) {
        bool all_done = true;
        for (unsigned i = 0; i < n; i++)
            all_done &= done(&d.t[i]);
        bool pending = d.now < timeout_ps && h->commands_pending(h->ctx);
        if (all_done && !pending)
            break;
        uint64_t next = next_look(&d, pending, timeout_ps, grace_ps);
        h->advance(h->ctx, next);
        d.now = h->now ? h->now(h->ctx) : next;
        drain(&d, false);
        if (d.now >= timeout_ps)
            h->stop_kernel(h->ctx);
        for (unsigned i = 0; i < n; i++) {
            if (done(&d.t[i]))
                continue;
            int rc = look(&d, i, r, err);
            if (rc != KM_OK)
                return rc;
        }
        for (unsigned i = 0; i < n; i++) {
            drive_thread *t = &d.t[i];
            if (done(t))
                continue;
            if (d.now >= timeout_ps || (t->stop_due_ps && d.now >= t->stop_due_ps))
                ask_stop(&d, i);
            if (t->stop_asked && d.now >= t->stop_ps + grace_ps)
                mark_stuck(&d, i, grace_ps, &r->threads[i]);
        }
        if (o && o->wall_timeout_s > 0 && km_wall_now() - wall_start > o->wall_timeout_s) {
            stop_all(&d);
            char reached[96] = "";
            if (h->modeled)
                snprintf(reached, sizeof reached,
                         "; the simulated card had reached %.3f ms of modeled time",
                         (double)d.now / 1e9);
            return km_fail(err, KM_EXIT_SYSTEM,
                           "the run took more than %g s of real time (--wall-timeout)%s",
                           o->wall_timeout_s, reached);
        }
    }
    h->stop_kernel(h->ctx);
    drain(&d, true);
    /* The device ran at least until the last thread's end was written
     * (a core may end a little past the look that saw it). */
    r->device_ps = d.now;
    for (unsigned i = 0; i < n; i++) {
        const kmx_result_block *b = &d.t[i].block;
        if (d.t[i].final && !d.t[i].overwritten && ticks_to_ps(b->end_ticks) > r->device_ps)
            r->device_ps = ticks_to_ps(b->end_ticks);
    }
    if (h->finish)
        h->finish(h->ctx, r);
    return KM_OK;
}
