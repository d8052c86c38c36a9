/* backend_host: the `host` backend — each thread's host fallback
 * (kmx/host/kmx_host.h) run natively beside the simulated card's kernel
 * side: the same grid, dispatcher, DRAM and placement as the `sim`
 * backend, without the X280 clusters (host_internal.h says which file
 * holds what).
 *
 * Load: the card (card_setup.c) with the regions' initial contents and,
 * per thread, its ring — ring `cluster` of the dispatcher, in host memory,
 * so the kernel serves it exactly as it serves the card thread's ring
 * (the same passes, the same wakes; the host ring stays the manifest's
 * commands'); the region copies (host_copy.c); the fallback's object
 * (host_object.c).
 *
 * Run: the run driver (km_driver.h) on the host's wall clock; each
 * thread's kmx_host_run on a thread of its own.  A thread whose threads
 * (its core 0's, which this file starts, or cores 1-3's, which the
 * runtime does) cannot start is the host's failure, not the thread's:
 * the run ends with a system error that names the limit.  The kernel moves one pass
 * per `step` its ring calls make (so the grid and the dispatcher advance
 * in modeled time only while a thread waits), and a pass per look of the
 * driver while host-fed commands are pending; all of it under one lock.
 * The JSON says `times: host`.  A thread that does not end within the
 * grace after its stop word is stuck: its host thread is left running (it
 * cannot be killed) and nothing of the backend is ever freed; so is a
 * thread whose core 0 ended the run while one of its cores 1-3 still
 * spun in thread code (kmx_host.h, left_running), as the card's runtime
 * ends it. */
#include "host_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "km_driver.h"
#include "kmx.h"
#include "sim_card.h"
#include "sim_exec.h" /* sim_cause_name */

/* How often the driver looks when no command is pending, as sim looks
 * once a slice. */
#define HOST_NAP_NS 200000L

/* A thread told to end by the lead's END gets this long to end on its own
 * after another's failure: on the card its kmx_serve has taken the END by
 * the time the host sees the lead's state; here its host thread may lag
 * behind (it is stopped then all the same). */
#define END_GRACE_PS (BH_PS_PER_SECOND / 10)

/* ---- the ring callbacks (kmx_host.h), under the lock ------------------------ */

static int cb_submit(void *ops, const km_command_t *command, uint32_t *handle)
{
    host_thread *t = ops;
    pthread_mutex_lock(&t->b->lock);
    bool ok = sim_card_host_submit(t->b->s->card, (unsigned)t->cp->cluster, command, handle);
    pthread_mutex_unlock(&t->b->lock);
    return ok ? KMX_OK : KMX_FULL;
}

static int cb_poll(void *ops, km_event_t *event)
{
    host_thread *t = ops;
    pthread_mutex_lock(&t->b->lock);
    bool ok = sim_card_host_poll(t->b->s->card, (unsigned)t->cp->cluster, event);
    pthread_mutex_unlock(&t->b->lock);
    return ok ? KMX_OK : KMX_EMPTY;
}

static void pass(host_backend *b)
{
    pthread_mutex_lock(&b->lock);
    sim_card_pass(b->s->card);
    pthread_mutex_unlock(&b->lock);
}

static void cb_step(void *ops)
{
    host_thread *t = ops;
    pass(t->b);
}

static void cb_unsupported(void *ops, const char *call)
{
    host_thread *t = ops;
    pthread_mutex_lock(&t->b->lock);
    if (!t->unsupported[0])
        snprintf(t->unsupported, sizeof t->unsupported, "%s", call ? call : "?");
    pthread_mutex_unlock(&t->b->lock);
}

/* kmx_print: the record into the core's buffer in the card, stamped with
 * the host's time from the run's start (the driver's clock). */
static int cb_print(void *ops, uint32_t core, uint64_t *rec, unsigned n)
{
    host_thread *t = ops;
    if (n >= KMX_PRINT_HEAD_SLOTS)
        rec[2] = (uint64_t)((km_wall_now() - t->b->start) * (double)BH_PS_PER_SECOND);
    pthread_mutex_lock(&t->b->lock);
    bool ok = sim_card_host_print(t->b->s->card, (unsigned)t->cp->cluster, core, rec, n);
    pthread_mutex_unlock(&t->b->lock);
    return ok ? KMX_OK : KMX_FULL;
}

/* kmx_host.h, ready: this thread is ready (its cores' threads made);
 * then the run's start (on_host_start), or the run called off. */
static void mark_ready(host_thread *t)
{
    host_backend *b = t->b;
    if (!t->readied) {
        t->readied = true;
        b->ready++;
        pthread_cond_broadcast(&b->start_cond);
    }
}

static int cb_ready(void *ops)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    pthread_mutex_lock(&b->lock);
    mark_ready(t);
    while (!b->go)
        pthread_cond_wait(&b->start_cond, &b->lock);
    bool cancelled = b->cancelled;
    pthread_mutex_unlock(&b->lock);
    return cancelled ? ECANCELED : 0;
}

/* ---- load -------------------------------------------------------------------- */

static void fill_ctx(host_thread *t, uint64_t nonce)
{
    km_result_block_init(&t->result, nonce);
    kmx_host_ctx *c = &t->ctx;
    c->abi = KMX_HOST_ABI;
    c->cluster = (uint32_t)t->cp->cluster;
    c->args = &t->args;
    for (uint32_t k = 0; k < t->cp->nregions; k++)
        c->region[k] = t->copy[k];
    c->result = &t->result;
    c->stop = &t->stop;
    c->ops = t;
    c->ready = cb_ready;
    c->flush = host_cb_flush;
    c->invalidate = host_cb_invalidate;
    c->push = host_cb_push;
    c->submit = cb_submit;
    c->poll = cb_poll;
    c->step = cb_step;
    c->unsupported = cb_unsupported;
    c->trap_arm = host_cb_trap_arm;
    c->trap = host_cb_trap;
    c->quit = host_cb_quit;
    c->print = cb_print;
    host_bus_fill(c);
}

static int host_load(km_session *s, km_error *err)
{
    host_backend *b = calloc(1, sizeof *b);
    if (!b)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the host backend");
    b->s = s;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->start_cond, NULL);
    host_bus_init(b);
    s->backend = b;
    int rc = km_card_create(s, err);
    for (unsigned i = 0; rc == KM_OK && i < s->plan.nclusters; i++) {
        const km_cluster_plan *cp = &s->plan.clusters[i];
        host_thread *t = &b->threads[i];
        t->b = b;
        t->cp = cp;
        b->nthreads++;
        const char *path = host_object_path(s, cp);
        rc = path ? host_object_load(t, path, err)
                  : km_fail(err, KM_EXIT_INTERNAL, "no host fallback for cluster %d", cp->cluster);
        if (rc == KM_OK)
            rc = km_card_write_regions(s, i, err);
        if (rc == KM_OK) {
            ks_error e;
            if (sim_card_attach_host_ring(s->card, (unsigned)cp->cluster, &e) != KS_OK)
                rc = km_fail_from(err, &e);
        }
    }
    /* The copies start as DRAM holds the regions (shared ones included). */
    for (unsigned i = 0; rc == KM_OK && i < b->nthreads; i++) {
        host_thread *t = &b->threads[i];
        rc = host_copy_init(t, err);
        km_plan_args(s->p, &s->plan, t->cp->cluster, s->nonce, &t->args);
        fill_ctx(t, s->nonce);
    }
    return rc;
}

/* ---- the run driver's hooks ------------------------------------------------- */

static uint64_t on_host_now_ps(void *ctx)
{
    host_backend *b = ctx;
    return (uint64_t)((km_wall_now() - b->start) * (double)BH_PS_PER_SECOND);
}

static void *thread_main(void *arg)
{
    host_thread *t = arg;
    host_backend *b = t->b;
    int rc = t->run(&t->ctx);
    /* One that never got to ready (its cores 1-3 could not start, or it
     * refused its ctx) must not hold the others' start back. */
    pthread_mutex_lock(&b->lock);
    mark_ready(t);
    bool cancelled = b->cancelled;
    pthread_mutex_unlock(&b->lock);
    if (cancelled)
        return NULL;
    if (rc > 0) {
        /* Its cores 1-3 could not start: the host's trouble, not the
         * thread's (on_host_read_block says so). */
        __atomic_store_n(&t->no_threads, rc, __ATOMIC_RELEASE);
    } else if (rc != 0) {
        /* The fallback refused its context: an ABI mismatch. */
        t->result.error = KMX_ERROR_HOST;
        __atomic_store_n(&t->result.state, KMX_STATE_FAILED, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* A thread the host could not start (pthread_create's error e), named
 * with the resource a process or memory limit takes. */
static int no_threads(km_error *err, int cluster, int e)
{
    const char *limit = e == EAGAIN   ? " (a process or memory limit: ulimit -u / -v)"
                        : e == ENOMEM ? " (a memory limit: ulimit -v)"
                                      : "";
    return km_fail(err, KM_EXIT_SYSTEM, "cannot start the host fallback's threads for cluster %d: "
                   "%s%s", cluster, strerror(e), limit);
}

/* The stop word: the timeout's from the timeout on (a thread whose clock
 * started later does not see it before its own timeout: kmx_host.h),
 * any other's before. */
static uint64_t on_host_now_ps(void *ctx);

static void on_host_ask_stop(void *ctx, unsigned i)
{
    host_backend *b = ctx;
    pthread_mutex_lock(&b->lock);
    uint64_t timeout_ps = b->threads[i].timeout_ps;
    pthread_mutex_unlock(&b->lock);
    uint32_t word = b->go && on_host_now_ps(b) >= timeout_ps ? KMX_HOST_STOP_TIMEOUT
                                                                : KMX_HOST_STOP_ASKED;
    __atomic_store_n(&b->threads[i].stop, word, __ATOMIC_RELEASE);
}

/* The start, once every thread is ready: the driver's clock starts now,
 * and each thread's when it wakes, microseconds later; each sees the
 * timeout's stop at timeout_ps on its own clock (kmx_host.h, timeout_ns)
 * even when the driver, on a busy host, writes the stop word later.
 * Under the lock. */
static void go(host_backend *b, uint64_t timeout_ps)
{
    b->start = km_wall_now();
    for (unsigned i = 0; i < b->nthreads; i++) {
        b->threads[i].timeout_ps = timeout_ps;
        b->threads[i].ctx.timeout_ns = timeout_ps / 1000u;
    }
    b->go = true;
    pthread_cond_broadcast(&b->start_cond);
}

/* Room for the threads' stacks and their thread-local data, tried
 * before any is made.  The fallback runtime's thread-local data is
 * allocated at a thread's first use of it, and the C library ends the
 * process when that allocation fails ("cannot allocate memory for
 * thread-local data"), which no error path can catch: under an
 * address-space limit (ulimit -v) that leaves room for the stacks but
 * not for that, the run is refused here, with the limit named. */
#define HOST_TLS_ROOM (4u << 20)

static int room_for_threads(const host_backend *b, km_error *err)
{
    size_t need = (size_t)b->nthreads * BH_CLUSTER_CORES *
                      (KMX_HOST_STACK_BYTES + KMX_HOST_GUARD_BYTES) +
                  HOST_TLS_ROOM;
    void *probe = mmap(NULL, need, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (probe == MAP_FAILED)
        return km_fail(err, KM_EXIT_SYSTEM,
                       "cannot start the host fallback's threads: no room for their %zu MiB of "
                       "stacks (a memory limit: ulimit -v)",
                       need >> 20);
    munmap(probe, need);
    return KM_OK;
}

/* Core 0's stack is the size kmx_host.h promises, under its guard: an
 * overflow faults there, and the trap handler runs on the thread's
 * alternate signal stack (host_trap.c).  The threads are made first and
 * make their cores 1-3's, then wait (cb_ready); the run starts once all
 * of them are there, so that none starts late by the time a busy host
 * takes to schedule a new thread and make three more (milliseconds; a
 * waiting thread wakes in tens of microseconds). */
static int on_host_start(void *ctx, uint64_t timeout_ps, km_error *err)
{
    host_backend *b = ctx;
    int rc = room_for_threads(b, err);
    if (rc != KM_OK)
        return rc;
    pthread_attr_t attr;
    int e = pthread_attr_init(&attr);
    if (e == 0 && ((e = pthread_attr_setstacksize(&attr, KMX_HOST_STACK_BYTES)) != 0 ||
                   (e = pthread_attr_setguardsize(&attr, KMX_HOST_GUARD_BYTES)) != 0))
        pthread_attr_destroy(&attr);
    if (e != 0) {
        errno = e;
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot set up the host threads' stacks");
    }
    for (unsigned i = 0; i < b->nthreads; i++) {
        host_thread *t = &b->threads[i];
        e = pthread_create(&t->tid, &attr, thread_main, t);
        if (e != 0) {
            /* The ones made leave without running anything. */
            pthread_mutex_lock(&b->lock);
            b->cancelled = true;
            b->go = true;
            pthread_cond_broadcast(&b->start_cond);
            pthread_mutex_unlock(&b->lock);
            for (unsigned k = 0; k < i; k++) {
                pthread_join(b->threads[k].tid, NULL);
                b->threads[k].joined = true;
            }
            pthread_attr_destroy(&attr);
            return no_threads(err, t->cp->cluster, e);
        }
        t->started = true;
    }
    pthread_attr_destroy(&attr);
    pthread_mutex_lock(&b->lock);
    while (b->ready < b->nthreads)
        pthread_cond_wait(&b->start_cond, &b->lock);
    go(b, timeout_ps);
    pthread_mutex_unlock(&b->lock);
    return KM_OK;
}

/* A pass while host-fed commands are pending, else a nap: the threads
 * move the kernel themselves while they wait. */
static void on_host_advance(void *ctx, uint64_t until_ps)
{
    host_backend *b = ctx;
    (void)until_ps;
    pthread_mutex_lock(&b->lock);
    bool pending = !sim_card_commands_done(b->s->card);
    pthread_mutex_unlock(&b->lock);
    if (pending) {
        pass(b);
    } else {
        struct timespec nap = {0, HOST_NAP_NS};
        nanosleep(&nap, NULL);
    }
}

static bool on_host_busy(void *ctx)
{
    (void)ctx;
    return true; /* host threads always may */
}

static bool on_host_commands_pending(void *ctx)
{
    host_backend *b = ctx;
    pthread_mutex_lock(&b->lock);
    bool pending = !sim_card_commands_done(b->s->card);
    pthread_mutex_unlock(&b->lock);
    return pending;
}

static void on_host_stop_kernel(void *ctx)
{
    host_backend *b = ctx;
    pthread_mutex_lock(&b->lock);
    sim_card_stop_kernel(b->s->card);
    pthread_mutex_unlock(&b->lock);
}

/* The runtime writes the state last, with a release: once it is final the
 * rest of the block is whole.  Before that only the progress marker is
 * read (atomically: the thread may be writing it). */
static int on_host_read_block(void *ctx, unsigned i, kmx_result_block *out, km_error *err)
{
    host_backend *b = ctx;
    host_thread *t = &b->threads[i];
    int e = __atomic_load_n(&t->no_threads, __ATOMIC_ACQUIRE);
    if (e) {
        /* Nothing of this thread ran; the others stop, the run fails. */
        for (unsigned k = 0; k < b->nthreads; k++)
            on_host_ask_stop(b, k);
        return no_threads(err, t->cp->cluster, e);
    }
    uint32_t state = __atomic_load_n(&t->result.state, __ATOMIC_ACQUIRE);
    if (KMX_STATE_FINAL(state)) {
        *out = t->result;
        return KM_OK;
    }
    out->state = state;
    out->nonce = t->result.nonce; /* the host's, never written by the thread */
    out->where = __atomic_load_n(&t->result.where, __ATOMIC_ACQUIRE);
    out->where_ticks = __atomic_load_n(&t->result.where_ticks, __ATOMIC_ACQUIRE);
    out->start_ticks = __atomic_load_n(&t->result.start_ticks, __ATOMIC_ACQUIRE);
    return KM_OK;
}

static uint64_t on_host_stop_delay_ps(void *ctx, unsigned i)
{
    host_backend *b = ctx;
    return host_bus_told_to_end(&b->threads[i]) ? END_GRACE_PS : 0;
}

static void on_host_describe(void *ctx, unsigned i, km_thread_result *r)
{
    host_backend *b = ctx;
    host_thread *t = &b->threads[i];
    if (r->error_call != KMX_API_NONE && r->error_pc != 0)
        r->error_pc = host_object_source(t, r->error_pc - 1, &r->error_source) + 1;
    if (r->trapped) {
        if (KMX_HOST_IS_TRAP_CAUSE(r->trap.mcause)) {
            int sig = KMX_HOST_TRAP_SIGNAL(r->trap.mcause);
            snprintf(r->trap.name, sizeof r->trap.name, "%s (host fallback, %s)",
                     strsignal(sig), sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
        } else {
            /* The card's cause, found by the runtime's own check (a
             * misaligned access: kmx_host_align.c), named as the card's. */
            char buf[sizeof r->trap.name];
            snprintf(r->trap.name, sizeof r->trap.name, "%s (host fallback, alignment check)",
                     sim_cause_name(r->trap.mcause, buf, sizeof buf));
        }
        /* The pc as an offset in the fallback's object: the same every
         * run, whatever address the object was loaded at. */
        r->trap.mepc = host_object_source(t, r->trap.mepc, &r->trap.source);
    }
    pthread_mutex_lock(&b->lock);
    if (t->unsupported[0])
        snprintf(r->message, sizeof r->message,
                 "%s is not available in the host fallback: a thread that uses X280 ports "
                 "or the pull runs on the card only (kmrun run without --thread host)",
                 t->unsupported);
    else if (t->called[0])
        snprintf(r->message, sizeof r->message,
                 "the thread called %s, which on the host would end kmrun: the host fallback "
                 "ended the thread instead (%s; a thread ends by returning from kmx_main)",
                 t->called, r->trapped ? "trapped, SIGABRT" : "failed");
    pthread_mutex_unlock(&b->lock);
}

/* Core 0 of a stuck fallback: a signal stops its thread for a moment and
 * the pc comes from the interrupted context. */
static void on_host_locate(void *ctx, unsigned i, km_driver_where *w)
{
    host_backend *b = ctx;
    host_thread *t = &b->threads[i];
    uint64_t pc = host_sample_pc(t);
    w->core = 0;
    w->running = true;
    w->pc_known = pc != 0;
    w->pc = pc ? host_object_source(t, pc, &w->source) : 0;
}

/* Whether core `core` (1-3) of thread i still runs a call it was given.
 * The fallback's runtime says so (kmx_host.h, left_running) once
 * kmx_host_run has returned, which it does at once after it wrote the
 * final state (the driver asks only then): waited for a little here.
 * Before that, or for a thread whose core 0 never wrote one, nothing is
 * known of its cores 1-3, and none is held to the stop. */
static bool on_host_in_call(void *ctx, unsigned i, unsigned core)
{
    host_backend *b = ctx;
    host_thread *t = &b->threads[i];
    if (core == 0 || core >= BH_CLUSTER_CORES || !t->started)
        return false;
    for (int tries = 0; !t->joined && tries < 1000; tries++) {
        if (pthread_tryjoin_np(t->tid, NULL) == 0) {
            t->joined = true;
            break;
        }
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
    return t->joined && ((t->ctx.left_running >> core) & 1u);
}

/* Where core `core` of a stuck thread is: it runs on (a host thread the
 * fallback's runtime left in thread code); its pc is not sampled, so no
 * line is given (kmx_host.h keeps the workers' threads to itself). */
static void on_host_locate_core(void *ctx, unsigned i, unsigned core, km_driver_where *w)
{
    if (core == 0) {
        on_host_locate(ctx, i, w);
        return;
    }
    memset(w, 0, sizeof *w);
    w->core = core;
    w->running = true;
}

static void on_host_retire(void *ctx, unsigned i, bool stuck)
{
    host_backend *b = ctx;
    host_thread *t = &b->threads[i];
    if (stuck) {
        b->leak = true; /* its host thread still runs */
    } else if (t->started && !t->joined) {
        pthread_join(t->tid, NULL);
        t->joined = true;
    }
}

/* The grid runs on whichever host thread steps the card, under the lock. */
static unsigned on_host_kernel_faults(void *ctx)
{
    host_backend *b = ctx;
    pthread_mutex_lock(&b->lock);
    unsigned n = km_card_kernel_fault_count(b->s);
    pthread_mutex_unlock(&b->lock);
    return n;
}

static void on_host_drain_prints(void *ctx, sim_card_print_fn fn, void *fn_ctx)
{
    host_backend *b = ctx;
    pthread_mutex_lock(&b->lock);
    sim_card_drain_prints(b->s->card, fn, fn_ctx);
    pthread_mutex_unlock(&b->lock);
}

static void on_host_finish(void *ctx, km_run_result *r)
{
    host_backend *b = ctx;
    km_card_commands(b->s, r);
}

static void on_host_timeout(void *ctx, unsigned i, uint64_t timeout_ps)
{
    host_backend *b = ctx;
    pthread_mutex_lock(&b->lock);
    b->threads[i].timeout_ps = timeout_ps;
    pthread_mutex_unlock(&b->lock);
}

static void host_hooks(km_session *s, km_driver_hooks *h)
{
    *h = (km_driver_hooks){
        .ctx = s->backend,
        .modeled = false,
        .now = on_host_now_ps,
        .slice_ps = 0,
        .start = on_host_start,
        .advance = on_host_advance,
        .busy = on_host_busy,
        .commands_pending = on_host_commands_pending,
        .stop_kernel = on_host_stop_kernel,
        .read_block = on_host_read_block,
        .ask_stop = on_host_ask_stop,
        .stop_delay_ps = on_host_stop_delay_ps,
        .describe = on_host_describe,
        .locate = on_host_locate,
        .in_call = on_host_in_call,
        .locate_core = on_host_locate_core,
        .retire = on_host_retire,
        .kernel_faults = on_host_kernel_faults,
        .drain_prints = on_host_drain_prints,
        .finish = on_host_finish,
        .timeout = on_host_timeout,
    };
}

static void host_free(km_session *s)
{
    host_backend *b = s->backend;
    if (!b)
        return;
    s->backend = NULL;
    /* A host thread that has not ended may still touch all of it, the
     * card included: core 0's (no final state), or a core the runtime
     * left running in thread code (kmx_host.h, left_running), which
     * kmx_host_run says once it returns — promptly after the final
     * state. */
    for (unsigned i = 0; i < b->nthreads; i++) {
        host_thread *t = &b->threads[i];
        /* A final state, or cores 1-3 that never started: the thread
         * leaves at once (thread_main), so it is waited for. */
        bool leaving = KMX_STATE_FINAL(__atomic_load_n(&t->result.state, __ATOMIC_ACQUIRE)) ||
                       __atomic_load_n(&t->no_threads, __ATOMIC_ACQUIRE) != 0;
        if (t->started && !t->joined &&
            (leaving ? pthread_join(t->tid, NULL) == 0
                     : pthread_tryjoin_np(t->tid, NULL) == 0)) /* ended with no state */
            t->joined = true;
        if ((t->started && !t->joined) || t->ctx.left_running != 0)
            b->leak = true;
    }
    if (b->leak) {
        /* Kept, not lost: the threads that still run use it until the
         * process exits (and a leak checker sees it reachable). */
        static host_backend *abandoned[64];
        static unsigned nabandoned;
        if (nabandoned < sizeof abandoned / sizeof *abandoned)
            abandoned[nabandoned++] = b;
        b->card = s->card; /* reachable from here, the session gone */
        s->card = NULL;
        return;
    }
    for (unsigned i = 0; i < b->nthreads; i++) {
        host_thread *t = &b->threads[i];
        if (t->started && !t->joined)
            pthread_join(t->tid, NULL);
        if (t->so)
            dlclose(t->so);
        host_copy_free(t);
    }
    pthread_cond_destroy(&b->start_cond);
    pthread_mutex_destroy(&b->lock);
    host_bus_destroy(b);
    free(b);
}

/* The card is the host threads' too: the session's own calls into it
 * (a host-fed command, its result) take their lock. */
static void host_lock(km_session *s, bool on)
{
    host_backend *b = s->backend;
    if (on)
        pthread_mutex_lock(&b->lock);
    else
        pthread_mutex_unlock(&b->lock);
}

const km_backend_ops km_host_backend = {
    .kind = KM_BACKEND_HOST,
    .load = host_load,
    .hooks = host_hooks,
    .read_dram = km_card_read_dram,
    .copy_dram = km_card_copy_dram,
    .lock = host_lock,
    .free = host_free,
};
