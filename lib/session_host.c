/* session_host: the `host` backend — each thread's host fallback
 * (kmx/host/kmx_host.h) run natively beside the simulated card's kernel
 * side: the same grid, dispatcher, DRAM and placement as the `sim`
 * backend, without the X280 clusters.
 *
 * Load: a fresh card (sim_dram) with the regions' initial contents, the
 * kernel side (session_feed.c) and, per thread, its ring — ring `cluster`
 * of the dispatcher, in host memory, so the kernel serves it exactly as it
 * serves the card thread's ring (the same passes, the same wakes; the host
 * ring stays the manifest's commands').  Each thread's regions get a host
 * copy (what its cluster's cache would hold) and a base copy (DRAM as the
 * copy last saw it): kmx_flush writes the lines where the two differ,
 * whole, to DRAM (a dirty line's write-back, stale bytes and all);
 * kmx_invalidate does that and then reloads every line of the range.  One
 * copy of the fallback's shared object is loaded per cluster (a copy of
 * the file: dlopen of one path gives one set of globals).  The clusters of
 * one image talk through kmrun's cluster bus (twelve cores: who serves, the
 * lead's call lines, the done lines; a function crosses it as an offset
 * from its copy's base), under a lock of its own; kmx_push writes DRAM.
 *
 * Run: each thread's kmx_host_run on a thread of its own; the kernel moves
 * one pass per `step` its ring calls make (so the grid and the dispatcher
 * advance in modeled time only while a thread waits), and a pass per look
 * of the session while host-fed commands are pending; all of it under one
 * lock.  The timeout and the grace are the
 * host's wall clock; the JSON says `times: host`.  A thread that does not
 * end within the grace after its stop word is stuck: its host thread is
 * left running (it cannot be killed) and its memory is never freed. */
#include "session_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "km_fs.h"
#include "kmx.h"
#include "kmx_host.h"
#include "sim_clock.h"
#include "sim_dispatcher.h"
#include "sim_dram.h"

typedef int (*host_run_fn)(kmx_host_ctx *ctx);

typedef struct host_thread {
    struct host_backend *b;
    const km_cluster_plan *cp;
    void *so;
    host_run_fn run;
    kmx_args args;
    kmx_result_block result;
    volatile uint32_t stop;
    kmx_host_ctx ctx;
    uint8_t *copy[KMX_MAX_REGIONS]; /* what the thread sees */
    uint8_t *base[KMX_MAX_REGIONS]; /* DRAM as the copy last saw it */
    sim_ring_host *ring;
    pthread_t tid;
    bool started, joined, final, stuck, stop_asked;
    double stop_at;
    double stop_due; /* > 0: ask the stop then (told to end: the lead's END) */
    uint32_t seen_where;
    uint64_t seen_where_ticks;
    char unsupported[64]; /* the first call the fallback could not honour */
    uint32_t trap_claim;  /* atomic: the first trap is recorded */
} host_thread;

/* One cluster's lines on the cluster bus (twelve cores), as its LIM and
 * the lead's hold them on the card. */
typedef struct host_bus {
    bool serving;       /* its kmx_serve began */
    kmx_host_call call; /* the lead's last call line to it */
    uint32_t done;      /* its done line: the last sequence it finished */
    int status;         /* and that call's status */
} host_bus;

typedef struct host_backend {
    sim_dram dram;
    km_feed *feed;
    pthread_mutex_t lock; /* the card's side: DRAM, the kernel, the rings */
    host_thread threads[KMX_WORK_CLUSTERS];
    unsigned nthreads;
    bool leak; /* a stuck thread still runs: nothing may be freed */
    /* The cluster bus: its own lock, never held with `lock`, so that a
     * cluster waiting on it keeps no other from the card's side. */
    pthread_mutex_t bus_lock;
    pthread_cond_t bus_cond; /* any line changed */
    host_bus bus[KMX_WORK_CLUSTERS + 1]; /* [cluster], [0] unused */
} host_backend;

/* ---- the callbacks (kmx_host.h), under the lock ---------------------------- */

static void line_range(const host_thread *t, uint32_t id, uint64_t offset, uint64_t bytes,
                       uint64_t *begin, uint64_t *end)
{
    uint64_t size = t->cp->regions[id].region->size;
    *begin = offset / KMX_LINE_BYTES * KMX_LINE_BYTES;
    *end = offset + bytes > size ? size : offset + bytes;
}

static void write_back(host_thread *t, uint32_t id, uint64_t begin, uint64_t end)
{
    const km_placed *pl = &t->cp->regions[id];
    for (uint64_t at = begin; at < end; at += KMX_LINE_BYTES) {
        uint64_t n = end - at < KMX_LINE_BYTES ? end - at : KMX_LINE_BYTES;
        if (memcmp(t->copy[id] + at, t->base[id] + at, n) == 0)
            continue;
        /* The whole line, as a cache writes a dirty line back. */
        uint64_t line_end = at + KMX_LINE_BYTES > pl->region->size ? pl->region->size
                                                                   : at + KMX_LINE_BYTES;
        sim_dram_write(&t->b->dram, pl->bank, pl->bank_address + at, t->copy[id] + at,
                       line_end - at, NULL);
        memcpy(t->base[id] + at, t->copy[id] + at, line_end - at);
    }
}

static void cb_flush(void *ops, uint32_t id, uint64_t offset, uint64_t bytes)
{
    host_thread *t = ops;
    if (id >= t->cp->nregions)
        return;
    uint64_t begin, end;
    line_range(t, id, offset, bytes, &begin, &end);
    pthread_mutex_lock(&t->b->lock);
    write_back(t, id, begin, end);
    pthread_mutex_unlock(&t->b->lock);
}

static void cb_invalidate(void *ops, uint32_t id, uint64_t offset, uint64_t bytes)
{
    host_thread *t = ops;
    if (id >= t->cp->nregions)
        return;
    const km_placed *pl = &t->cp->regions[id];
    uint64_t begin, end;
    line_range(t, id, offset, bytes, &begin, &end);
    pthread_mutex_lock(&t->b->lock);
    write_back(t, id, begin, end);
    uint64_t line_end = (end + KMX_LINE_BYTES - 1) / KMX_LINE_BYTES * KMX_LINE_BYTES;
    if (line_end > pl->region->size)
        line_end = pl->region->size;
    if (begin < line_end) {
        sim_dram_read(&t->b->dram, pl->bank, pl->bank_address + begin, t->base[id] + begin,
                      line_end - begin, NULL);
        memcpy(t->copy[id] + begin, t->base[id] + begin, line_end - begin);
    }
    pthread_mutex_unlock(&t->b->lock);
}

static int cb_submit(void *ops, const km_command_t *command, uint32_t *handle)
{
    host_thread *t = ops;
    pthread_mutex_lock(&t->b->lock);
    int rc = sim_ring_host_submit(t->ring, command, handle);
    pthread_mutex_unlock(&t->b->lock);
    return rc == SIM_RING_OK ? KMX_OK : KMX_FULL;
}

static int cb_poll(void *ops, km_event_t *event)
{
    host_thread *t = ops;
    pthread_mutex_lock(&t->b->lock);
    int rc = sim_ring_host_poll(t->ring, event);
    pthread_mutex_unlock(&t->b->lock);
    return rc == SIM_RING_OK ? KMX_OK : KMX_EMPTY;
}

static void cb_step(void *ops)
{
    host_thread *t = ops;
    pthread_mutex_lock(&t->b->lock);
    km_feed_pass(t->b->feed);
    pthread_mutex_unlock(&t->b->lock);
}

static void cb_unsupported(void *ops, const char *call)
{
    host_thread *t = ops;
    pthread_mutex_lock(&t->b->lock);
    if (!t->unsupported[0])
        snprintf(t->unsupported, sizeof t->unsupported, "%s", call ? call : "?");
    pthread_mutex_unlock(&t->b->lock);
}

/* ---- the cluster bus (twelve cores), under bus_lock ---------------------------
 * The runtime keeps the card's rules (kmx/host/kmx_host_twelve.c); kmrun
 * keeps the lines.  A wait is one timed wait of at most BUS_WAIT_NS: the
 * runtime looks at the stop and its deadline between them. */

#define BUS_WAIT_NS 1000000L

static bool bus_cluster_ok(uint32_t cluster)
{
    return cluster >= 1 && cluster <= KMX_WORK_CLUSTERS;
}

static void bus_wait(host_backend *b)
{
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    at.tv_nsec += BUS_WAIT_NS;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&b->bus_cond, &b->bus_lock, &at);
}

static host_bus *own_bus(host_thread *t)
{
    return &t->b->bus[t->cp->cluster];
}

static void cb_serve_begin(void *ops)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    pthread_mutex_lock(&b->bus_lock);
    own_bus(t)->serving = true;
    pthread_cond_broadcast(&b->bus_cond);
    pthread_mutex_unlock(&b->bus_lock);
}

static int cb_serve_next(void *ops, uint32_t seen, kmx_host_call *call)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    host_bus *bus = own_bus(t);
    pthread_mutex_lock(&b->bus_lock);
    if (bus->call.sequence == seen)
        bus_wait(b);
    int found = bus->call.sequence != seen;
    if (found)
        *call = bus->call;
    pthread_mutex_unlock(&b->bus_lock);
    return found;
}

static void cb_serve_done(void *ops, uint32_t sequence, int status)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    pthread_mutex_lock(&b->bus_lock);
    own_bus(t)->status = status;
    own_bus(t)->done = sequence;
    pthread_cond_broadcast(&b->bus_cond);
    pthread_mutex_unlock(&b->bus_lock);
}

static int cb_serving(void *ops, uint32_t cluster)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    if (!bus_cluster_ok(cluster))
        return 0;
    pthread_mutex_lock(&b->bus_lock);
    if (!b->bus[cluster].serving)
        bus_wait(b);
    int serving = b->bus[cluster].serving;
    pthread_mutex_unlock(&b->bus_lock);
    return serving;
}

static void cb_post(void *ops, uint32_t cluster, const kmx_host_call *call)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    if (!bus_cluster_ok(cluster))
        return;
    pthread_mutex_lock(&b->bus_lock);
    b->bus[cluster].call = *call;
    pthread_cond_broadcast(&b->bus_cond);
    pthread_mutex_unlock(&b->bus_lock);
}

static int cb_done(void *ops, uint32_t cluster, uint32_t sequence, int *status)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    if (!bus_cluster_ok(cluster))
        return 0;
    host_bus *bus = &b->bus[cluster];
    pthread_mutex_lock(&b->bus_lock);
    if (bus->done != sequence)
        bus_wait(b);
    int done = bus->done == sequence;
    if (done)
        *status = bus->status;
    pthread_mutex_unlock(&b->bus_lock);
    return done;
}

/* kmx_push: straight into the target cluster's region in DRAM, around its
 * copy (which it invalidates before reading, as on the card). */
static int cb_push(void *ops, uint32_t cluster, uint32_t id, uint64_t offset, const void *source,
                   uint64_t bytes)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    const host_thread *to = NULL;
    for (unsigned i = 0; i < b->nthreads; i++)
        if ((uint32_t)b->threads[i].cp->cluster == cluster)
            to = &b->threads[i];
    if (!to || id >= to->cp->nregions)
        return KMX_BAD;
    const km_placed *pl = &to->cp->regions[id];
    if (offset > pl->region->size || bytes > pl->region->size - offset)
        return KMX_BAD;
    pthread_mutex_lock(&b->lock);
    int rc = sim_dram_write(&b->dram, pl->bank, pl->bank_address + offset, source, bytes, NULL);
    pthread_mutex_unlock(&b->lock);
    return rc == KM_OK ? KMX_OK : KMX_BAD;
}

/* ---- traps --------------------------------------------------------------------
 * One process-wide handler for the faults a card would trap on.  A host
 * thread of a fallback arms it (kmx_host.h, trap_arm) while it runs thread
 * code; the handler records the first trap in that thread's result block,
 * as the card runtime's trap handler does, and jumps back into the runtime.
 * A fault anywhere else is kmrun's own: the default action, a crash. */

typedef struct armed_trap {
    sigjmp_buf *jmp;
    host_thread *t;
    uint32_t core;
} armed_trap;

static __thread armed_trap armed;

static const int trap_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

static uint64_t fault_pc(const void *uctx)
{
#if defined(__x86_64__)
    return (uint64_t)((const ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uint64_t)((const ucontext_t *)uctx)->uc_mcontext.pc;
#else
    (void)uctx;
    return 0;
#endif
}

static void on_trap(int sig, siginfo_t *info, void *uctx)
{
    sigjmp_buf *jmp = armed.jmp;
    host_thread *t = armed.t;
    if (!jmp || !t) {
        signal(sig, SIG_DFL); /* not a fallback's: kmrun's own crash */
        raise(sig);
        return;
    }
    armed.jmp = NULL; /* a fault while the runtime recovers is a crash */
    if (__atomic_exchange_n(&t->trap_claim, 1u, __ATOMIC_SEQ_CST) == 0) {
        t->result.trap_mcause = KMX_HOST_TRAP_CAUSE(sig);
        t->result.trap_mepc = fault_pc(uctx);
        t->result.trap_mtval = (uint64_t)(uintptr_t)info->si_addr;
        t->result.trap_core = armed.core;
    }
    __atomic_fetch_add(&t->result.traps, 1u, __ATOMIC_SEQ_CST);
    siglongjmp(*jmp, 1);
}

static void install_trap_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof trap_signals / sizeof trap_signals[0]; i++)
        sigaction(trap_signals[i], &sa, NULL);
}

static void cb_trap_arm(void *ops, uint32_t core, sigjmp_buf *jmp)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_trap_handler);
    armed.t = jmp ? ops : NULL;
    armed.core = core;
    armed.jmp = jmp;
}

/* Where core 0 of a stuck fallback is: a signal of its own stops its
 * thread for a moment and takes the pc from the interrupted context. */
#define SAMPLE_SIGNAL (SIGRTMIN + 1)
static volatile uint64_t sampled_pc;
static volatile sig_atomic_t sampled;

static void on_sample(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)info;
    sampled_pc = fault_pc(uctx);
    sampled = 1;
}

/* The pc core 0 of `t` runs at, or 0 when it cannot be had within 100 ms. */
static uint64_t sample_pc(host_thread *t)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SAMPLE_SIGNAL, &sa, NULL);
    sampled = 0;
    if (pthread_kill(t->tid, SAMPLE_SIGNAL) != 0)
        return 0;
    for (int i = 0; i < 1000 && !sampled; i++) {
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
    return sampled ? sampled_pc : 0;
}

/* Where a trap's pc is: the fallback's object (its cached copy: the file
 * that was loaded is gone) and the offset in it, for addr2line. */
static uint64_t trap_source(const km_session *s, const host_thread *t, uint64_t pc,
                            km_source *src);

/* ---- load -------------------------------------------------------------------- */

static const char *host_object(const km_session *s, const km_cluster_plan *cp)
{
    size_t i = (size_t)(cp->thread - s->p->threads);
    return s->build.has_hosts && i < s->build.nthreads ? s->build.hosts[i].path : NULL;
}

/* dlopen of one path gives one set of globals; each cluster loads its own
 * copy of the file (removed once loaded). */
static int load_object(host_thread *t, const char *path, km_error *err)
{
    char *data = NULL;
    size_t n = 0;
    int rc = km_read_file(path, &data, &n, err);
    if (rc != KM_OK)
        return rc;
    char tmpl[] = "/tmp/kmrun-host-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0 || write(fd, data, n) != (ssize_t)n)
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot make a copy of '%s' in /tmp", path);
    if (fd >= 0)
        close(fd);
    free(data);
    if (rc == KM_OK) {
        t->so = dlopen(tmpl, RTLD_NOW | RTLD_LOCAL);
        if (!t->so)
            rc = km_fail(err, KM_EXIT_BUILD, "cannot load the host fallback '%s': %s", path,
                         dlerror());
    }
    unlink(tmpl);
    if (rc == KM_OK) {
        t->run = (host_run_fn)(uintptr_t)dlsym(t->so, "kmx_host_run");
        if (!t->run)
            rc = km_fail(err, KM_EXIT_BUILD,
                         "the host fallback '%s' has no kmx_host_run (not linked with kmx/host)",
                         path);
    }
    return rc;
}

static void host_free(km_session *s);

static int host_load(km_session *s, km_error *err)
{
    host_backend *b = calloc(1, sizeof *b);
    if (!b)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the host backend");
    sim_dram_init(&b->dram);
    pthread_mutex_init(&b->lock, NULL);
    pthread_mutex_init(&b->bus_lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&b->bus_cond, &attr);
    pthread_condattr_destroy(&attr);
    s->backend = b;
    int rc = km_feed_create(&b->feed, s->p, &b->dram,
                            s->build.has_kernels ? s->build.kernels.path : NULL, NULL, NULL, err);
    if (rc == KM_OK)
        km_feed_set_regions(b->feed, &s->plan);
    for (unsigned i = 0; rc == KM_OK && i < s->plan.nclusters; i++) {
        const km_cluster_plan *cp = &s->plan.clusters[i];
        host_thread *t = &b->threads[i];
        t->b = b;
        t->cp = cp;
        b->nthreads++;
        const char *path = host_object(s, cp);
        rc = path ? load_object(t, path, err)
                  : km_fail(err, KM_EXIT_INTERNAL, "no host fallback for cluster %d", cp->cluster);
        for (uint32_t k = 0; rc == KM_OK && k < cp->nregions; k++) {
            const km_placed *pl = &cp->regions[k];
            if (!(pl->shared && km_region_written_before(&s->plan, i, pl)))
                rc = km_dram_write_region(&b->dram, pl, err);
        }
        for (uint32_t k = 0; rc == KM_OK && k < cp->nregions; k++) {
            uint64_t size = cp->regions[k].region->size;
            t->copy[k] = malloc(size);
            t->base[k] = malloc(size);
            if (!t->copy[k] || !t->base[k])
                rc = km_fail(err, KM_EXIT_SYSTEM,
                             "out of memory for the host copy of region '%s' (%llu bytes)",
                             cp->regions[k].region->name, (unsigned long long)size);
        }
        if (rc == KM_OK) {
            t->ring = km_feed_attach_host_ring(b->feed, cp->cluster, err);
            if (!t->ring)
                rc = KM_EXIT_INTERNAL;
        }
    }
    /* The copies start as DRAM holds the regions (shared ones included). */
    for (unsigned i = 0; rc == KM_OK && i < b->nthreads; i++) {
        host_thread *t = &b->threads[i];
        for (uint32_t k = 0; rc == KM_OK && k < t->cp->nregions; k++) {
            const km_placed *pl = &t->cp->regions[k];
            rc = sim_dram_read(&b->dram, pl->bank, pl->bank_address, t->base[k],
                               pl->region->size, err);
            if (rc == KM_OK)
                memcpy(t->copy[k], t->base[k], pl->region->size);
        }
        km_plan_args(s->p, &s->plan, t->cp->cluster, s->nonce, &t->args);
        memset(&t->result, 0, sizeof t->result);
        t->result.nonce = s->nonce;
        kmx_host_ctx *c = &t->ctx;
        c->abi = KMX_HOST_ABI;
        c->cluster = (uint32_t)t->cp->cluster;
        c->args = &t->args;
        for (uint32_t k = 0; k < t->cp->nregions; k++)
            c->region[k] = t->copy[k];
        c->result = &t->result;
        c->stop = &t->stop;
        c->ops = t;
        c->flush = cb_flush;
        c->invalidate = cb_invalidate;
        c->submit = cb_submit;
        c->poll = cb_poll;
        c->step = cb_step;
        c->unsupported = cb_unsupported;
        c->trap_arm = cb_trap_arm;
        c->serve_begin = cb_serve_begin;
        c->serve_next = cb_serve_next;
        c->serve_done = cb_serve_done;
        c->serving = cb_serving;
        c->post = cb_post;
        c->done = cb_done;
        c->push = cb_push;
    }
    return rc;
}

/* ---- run --------------------------------------------------------------------- */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *thread_main(void *arg)
{
    host_thread *t = arg;
    if (t->run(&t->ctx) != 0) {
        /* The fallback refused its context: an ABI mismatch. */
        t->result.error = KMX_ERROR_HOST;
        __atomic_store_n(&t->result.state, KMX_STATE_FAILED, __ATOMIC_RELEASE);
    }
    return NULL;
}

static uint32_t state_of(const host_thread *t)
{
    return __atomic_load_n(&t->result.state, __ATOMIC_ACQUIRE);
}

static void ask_stop(host_thread *t, double now)
{
    if (!t->stop_asked && !t->final) {
        __atomic_store_n(&t->stop, 1u, __ATOMIC_RELEASE);
        t->stop_asked = true;
        t->stop_at = now;
    }
}

/* Whether the lead posted the END to t's cluster (twelve cores). */
static bool told_to_end(host_thread *t)
{
    host_backend *b = t->b;
    pthread_mutex_lock(&b->bus_lock);
    bool end = own_bus(t)->call.op == KMX_CLUSTER_END;
    pthread_mutex_unlock(&b->bus_lock);
    return end;
}

/* A thread ended in a state that stops the others.  One the lead's END
 * already told to end gets END_GRACE s to do so first: on the card its
 * kmx_serve has taken the END by the time the host sees the lead's state;
 * here its host thread may lag behind (it is stopped then all the same). */
#define END_GRACE 0.1
static void stop_others(host_backend *b, double now)
{
    for (unsigned k = 0; k < b->nthreads; k++) {
        host_thread *o = &b->threads[k];
        if (o->final || o->stop_asked)
            continue;
        if (told_to_end(o)) {
            if (o->stop_due == 0)
                o->stop_due = now + END_GRACE;
        } else {
            ask_stop(o, now);
        }
    }
}

static void finish(km_session *s, host_thread *t, km_thread_result *r)
{
    kmx_result_block block;
    pthread_mutex_lock(&t->b->lock);
    block = t->result;
    pthread_mutex_unlock(&t->b->lock);
    km_result_from_block(&block, t->cp->cluster, r);
    if (r->trapped && KMX_HOST_IS_TRAP_CAUSE(block.trap_mcause)) {
        int sig = KMX_HOST_TRAP_SIGNAL(block.trap_mcause);
        snprintf(r->trap.name, sizeof r->trap.name, "%s (host fallback, %s)", strsignal(sig),
                 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
        /* The pc as an offset in the fallback's object: the same every
         * run, whatever address the object was loaded at. */
        r->trap.mepc = trap_source(s, t, block.trap_mepc, &r->trap.source);
    }
    if (t->unsupported[0])
        snprintf(r->message, sizeof r->message,
                 "%s is not available in the host fallback: a thread that uses X280 ports "
                 "or the pull runs on the card only (kmrun run without --thread host)",
                 t->unsupported);
}

/* The source line of a trap's pc, and the pc as an offset in the
 * fallback's object (the pc itself when it is outside the object, e.g. in
 * libc). */
static uint64_t trap_source(const km_session *s, const host_thread *t, uint64_t pc,
                            km_source *src)
{
    memset(src, 0, sizeof *src);
    Dl_info info;
    const char *object = host_object(s, t->cp);
    if (!object || !dladdr((void *)(uintptr_t)pc, &info) || !info.dli_fbase)
        return pc;
    /* Only a pc inside this thread's own copy has a line in its object. */
    void *probe = dlsym(t->so, "kmx_host_run");
    Dl_info own;
    if (!probe || !dladdr(probe, &own) || own.dli_fbase != info.dli_fbase)
        return pc;
    uint64_t offset = pc - (uint64_t)(uintptr_t)info.dli_fbase;
    km_host_source_lookup(object, offset, src);
    return offset;
}

static void progress(host_thread *t, const km_run_opts *o)
{
    uint32_t where = __atomic_load_n(&t->result.where, __ATOMIC_ACQUIRE);
    uint64_t ticks = __atomic_load_n(&t->result.where_ticks, __ATOMIC_ACQUIRE);
    if (ticks != 0 && (where != t->seen_where || ticks != t->seen_where_ticks)) {
        t->seen_where = where;
        t->seen_where_ticks = ticks;
        uint64_t start = t->result.start_ticks;
        if (o->progress)
            o->progress(t->cp->cluster, where, ticks >= start ? ticks - start : 0, o->ctx);
    }
}

static int host_run(km_session *s, const km_run_opts *o, uint64_t timeout_ps, uint64_t grace_ps,
                    km_run_result *r, km_error *err)
{
    host_backend *b = s->backend;
    double start = wall_now();
    double timeout = (double)timeout_ps / (double)SIM_PS_PER_SECOND;
    double grace = (double)grace_ps / (double)SIM_PS_PER_SECOND;
    r->nthreads = b->nthreads;
    for (unsigned i = 0; i < b->nthreads; i++) {
        host_thread *t = &b->threads[i];
        int e = pthread_create(&t->tid, NULL, thread_main, t);
        if (e != 0) {
            errno = e;
            for (unsigned k = 0; k < i; k++)
                ask_stop(&b->threads[k], wall_now());
            b->leak = true; /* the ones started may still run */
            return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot start a host thread");
        }
        t->started = true;
    }
    for (;;) {
        bool all = true;
        double now = wall_now();
        for (unsigned i = 0; i < b->nthreads; i++) {
            host_thread *t = &b->threads[i];
            if (t->final || t->stuck)
                continue;
            progress(t, o);
            if (KMX_STATE_FINAL(state_of(t))) {
                pthread_join(t->tid, NULL);
                t->joined = true;
                t->final = true;
                finish(s, t, &r->threads[i]);
                if (km_state_stops_others(r->threads[i].state))
                    stop_others(b, now);
                continue;
            }
            all = false;
            if (now - start >= timeout || (t->stop_due > 0 && now >= t->stop_due))
                ask_stop(t, now);
            if (t->stop_asked && now - t->stop_at >= grace) {
                km_thread_result *tr = &r->threads[i];
                finish(s, t, tr);
                tr->state = KM_STATE_STUCK;
                tr->has_code = false;
                tr->stuck = true;
                km_stuck_info *si = &tr->stuck_info;
                si->core = 0;
                uint64_t pc = sample_pc(t);
                si->pc = pc ? trap_source(s, t, pc, &si->source) : 0;
                char where[700] = "";
                if (si->source.known)
                    snprintf(where, sizeof where, " (%.400s:%u%s%.200s)", si->source.file,
                             si->source.line, si->source.has_function ? " in " : "",
                             si->source.has_function ? si->source.function : "");
                snprintf(si->detail, sizeof si->detail,
                         "the host fallback did not end within %g s of the stop: core 0 still "
                         "runs%s, in a loop that never polls the stop (kmx_stop_requested); on "
                         "a card the cluster would need a reset",
                         grace, where);
                t->stuck = true;
                b->leak = true;
                for (unsigned k = 0; k < b->nthreads; k++)
                    ask_stop(&b->threads[k], now);
            }
        }
        if (o->wall_timeout_s > 0 && now - start > o->wall_timeout_s) {
            for (unsigned k = 0; k < b->nthreads; k++)
                ask_stop(&b->threads[k], now);
            b->leak = true;
            return km_fail(err, KM_EXIT_SYSTEM,
                           "the run took more than %g s of real time (--wall-timeout)",
                           o->wall_timeout_s);
        }
        if (all)
            break;
        if (!km_feed_done(b->feed)) {
            /* The manifest's host-fed commands go on beside the threads. */
            pthread_mutex_lock(&b->lock);
            km_feed_pass(b->feed);
            pthread_mutex_unlock(&b->lock);
        } else {
            struct timespec nap = {0, 200000}; /* 0.2 ms: the host looks, as sim per slice */
            nanosleep(&nap, NULL);
        }
    }
    /* What is left of them once the threads have ended. */
    while (!km_feed_done(b->feed) && wall_now() - start < timeout)
        km_feed_pass(b->feed);
    km_feed_stop(b->feed);
    r->commands = km_feed_results(b->feed);
    r->ncommands = s->p->ncommands;
    double wall = wall_now() - start;
    r->device_ps = (uint64_t)(wall * (double)SIM_PS_PER_SECOND);
    r->host_times = true;
    return KM_OK;
}

static int host_read_dram(km_session *s, unsigned bank, uint64_t bank_address, void *dst,
                          uint64_t n, km_error *err)
{
    host_backend *b = s->backend;
    return sim_dram_read(&b->dram, bank, bank_address, dst, n, err);
}

static void host_free(km_session *s)
{
    host_backend *b = s->backend;
    if (!b)
        return;
    s->backend = NULL;
    if (b->leak)
        return; /* a host thread may still touch all of it */
    for (unsigned i = 0; i < b->nthreads; i++) {
        host_thread *t = &b->threads[i];
        if (t->started && !t->joined)
            pthread_join(t->tid, NULL);
        if (t->so)
            dlclose(t->so);
        for (uint32_t k = 0; k < KMX_MAX_REGIONS; k++) {
            free(t->copy[k]);
            free(t->base[k]);
        }
    }
    km_feed_free(b->feed);
    sim_dram_free(&b->dram);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->bus_cond);
    pthread_mutex_destroy(&b->bus_lock);
    free(b);
}

const km_backend_ops km_host_backend = {
    .kind = KM_BACKEND_HOST,
    .load = host_load,
    .run = host_run,
    .read_dram = host_read_dram,
    .free = host_free,
};
