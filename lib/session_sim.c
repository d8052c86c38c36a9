/* session_sim: the `sim` backend — a program's threads on the simulated
 * Blackhole (device/sim/).  The choices it makes (slices, grace, fresh
 * card, the test-only faults) are in device/sim/README.md, "Load and run".
 *
 * Load: one fresh card (sim_dram, every byte zero) and one sim_cluster per
 * thread cluster at the program's clock; per cluster the host steps a-f of
 * kmx_layout.h — the image's PT_LOAD segments into LIM, the host-zero area,
 * the result block (zero but the nonce), the bank check line into DRAM
 * (a host write: it bypasses the cache), the regions' initial contents
 * into DRAM, the argument block with its seal line last — then the four
 * harts reset at KMX_LIM_IMAGE.
 *
 * Run: every cluster steps to the same modeled time, one slice
 * (SLICE_PS) at a time; between slices the host looks at each result
 * block, as a card's host polls it.  A slice is whole quanta of every
 * cluster, so the run is deterministic: the same program gives the same
 * results, times and instruction counts whatever the host.
 *
 * The kernel side (session_feed.c): every program gets the Tensix grid,
 * the dispatcher, the host ring and each thread's ring at load.  Cluster
 * 0 is there as memory only — its LIM holds the threads' command lines
 * (KMX_DISPATCH_RING_AREA) and answers on the NoC; its cores are the
 * dispatcher model, so they never run.  Each slice first runs the
 * dispatcher's passes up to its end; before a pass looks at the rings
 * (sync_clusters) the threads' clusters run up to that time, so each side
 * sees what the other wrote before it.  The run goes on until every
 * command has its event too (or the timeout). */
#include "session_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elf_read.h"
#include "km_fs.h"
#include "sim_clock.h"
#include "sim_cluster.h"
#include "sim_exec.h"
#include "sim_noc.h"

/* How often the host looks: 1 us of modeled time (1,000 cycles at the
 * session's clock, 15 or so quanta).  Progress markers closer than this
 * are seen as the newest one. */
#define SLICE_PS SIM_PS_PER_US

typedef struct sim_thread {
    const km_cluster_plan *cp;
    sim_cluster *c;
    bool final;      /* the result block holds a final state */
    bool stuck;
    bool stop_asked;
    uint64_t stop_ps; /* when the stop word was written */
    uint32_t seen_where;
    uint64_t seen_where_ticks;
    kmx_result_block block;
} sim_thread;

typedef struct sim_backend {
    sim_dram dram;
    sim_noc noc; /* the clusters' NoC windows reach the banks and each other's LIM */
    sim_thread threads[KMX_WORK_CLUSTERS];
    unsigned nthreads;
    sim_cluster *dispatcher_lim; /* cluster 0: the remote halves of the rings */
    unsigned mhz;                /* the clusters' clock */
    km_feed *feed;               /* the grid, the dispatcher, the host ring, the threads' rings */
} sim_backend;

/* ---- Load ------------------------------------------------------------------ */

/* Step a: the image's loadable segments, where they ask, inside the image
 * area (the image checker made sure; a damaged cache entry is caught here). */
static int load_image(sim_cluster *c, const char *path, int cluster, km_error *err)
{
    km_elf e;
    char subject[64];
    snprintf(subject, sizeof subject, "the image of cluster %d", cluster);
    int rc = km_elf_open(&e, path, subject, err);
    if (rc != KM_OK)
        return rc;
    for (size_t i = 0; rc == KM_OK && i < e.phnum; i++) {
        const Elf64_Phdr *ph = &e.ph[i];
        if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
            continue;
        if (ph->p_vaddr < KMX_LIM_IMAGE || ph->p_memsz > KMX_IMAGE_MAX_BYTES ||
            ph->p_vaddr - KMX_LIM_IMAGE > KMX_IMAGE_MAX_BYTES - ph->p_memsz ||
            ph->p_filesz > ph->p_memsz) {
            rc = km_fail(err, KM_EXIT_BUILD,
                         "%s '%s': a segment at 0x%llx of %llu bytes is outside the image area",
                         subject, path, (unsigned long long)ph->p_vaddr,
                         (unsigned long long)ph->p_memsz);
            break;
        }
        rc = sim_cluster_write_lim(c, ph->p_vaddr, e.data + ph->p_offset, ph->p_filesz, err);
        if (rc == KM_OK && ph->p_memsz > ph->p_filesz) {
            uint64_t n = ph->p_memsz - ph->p_filesz;
            void *zeros = calloc(1, n);
            rc = zeros ? sim_cluster_write_lim(c, ph->p_vaddr + ph->p_filesz, zeros, n, err)
                       : km_fail(err, KM_EXIT_SYSTEM, "out of memory loading %s", subject);
            free(zeros);
        }
    }
    km_elf_close(&e);
    return rc;
}

/* The test-only faults (session_internal.h) on the argument block. */
static void damage_args(km_fault fault, kmx_args *a)
{
    switch (fault) {
    case KM_FAULT_ARGS:
        a->seal.nonce ^= 1;
        break;
    case KM_FAULT_REGION:
        if (a->nregions > 0)
            a->regions[0].bytes = KMX_BANK_BYTES;
        break;
    case KM_FAULT_BANK:
        if (a->nregions > 0)
            a->regions[0].bank = a->bank == 6 ? 7 : 6;
        break;
    case KM_FAULT_RING:
        a->ring.command_depth = 3;
        break;
    default:
        break;
    }
}

/* Steps b to e for one cluster (the image is step a); the dispatcher gets
 * the ring the argument block describes. */
static int write_cluster(km_session *s, sim_backend *b, unsigned index, km_error *err)
{
    const km_cluster_plan *cp = &s->plan.clusters[index];
    sim_cluster *c = b->threads[index].c;
    int rc;

    /* b: ring counts and events, stop line, spawn mailboxes, cluster
     * lines, ports area, pull counters; no ports yet, so no table. */
    void *zeros = calloc(1, KMX_LIM_HOST_ZERO_BYTES);
    if (!zeros)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory loading cluster %d", cp->cluster);
    rc = sim_cluster_write_lim(c, KMX_LIM_HOST_ZERO, zeros, KMX_LIM_HOST_ZERO_BYTES, err);
    free(zeros);
    if (rc != KM_OK)
        return rc;

    /* c: the result block, zero but this run's nonce. */
    kmx_result_block result;
    memset(&result, 0, sizeof result);
    result.nonce = s->nonce;
    rc = sim_cluster_write_lim(c, KMX_LIM_RESULT, &result, sizeof result, err);
    if (rc != KM_OK)
        return rc;

    /* d: the bank check line, straight into DRAM. */
    uint64_t line[KMX_LINE_BYTES / 8];
    uint64_t value = km_plan_check_value(s->nonce, cp->cluster);
    if (s->fault == KM_FAULT_CHECK)
        value = ~value;
    for (unsigned i = 0; i < KMX_LINE_BYTES / 8; i++)
        line[i] = value;
    rc = sim_dram_write(&b->dram, cp->bank, cp->check_address, line, sizeof line, err);
    if (rc != KM_OK)
        return rc;

    /* The regions' initial contents. */
    for (uint32_t k = 0; k < cp->nregions; k++) {
        const km_placed *pl = &cp->regions[k];
        if (pl->shared && km_region_written_before(&s->plan, index, pl))
            continue;
        rc = km_dram_write_region(&b->dram, pl, err);
        if (rc != KM_OK)
            return rc;
    }

    /* e: the argument block, its seal line last. */
    kmx_args args;
    km_plan_args(s->p, &s->plan, cp->cluster, s->nonce, &args);
    rc = km_feed_attach_thread(b->feed, &b->noc, cp->cluster, &args.ring, err);
    damage_args(s->fault, &args); /* the thread's copy only: the kernel's is sound */
    if (rc == KM_OK)
        rc = sim_cluster_write_lim(c, KMX_LIM_ARGS, &args, offsetof(kmx_args, seal), err);
    if (rc == KM_OK)
        rc = sim_cluster_write_lim(c, KMX_LIM_ARGS + offsetof(kmx_args, seal), &args.seal,
                                   sizeof args.seal, err);
    return rc;
}

static void sim_free(km_session *s)
{
    sim_backend *b = s->backend;
    if (!b)
        return;
    for (unsigned i = 0; i < b->nthreads; i++)
        sim_cluster_destroy(b->threads[i].c);
    km_feed_free(b->feed);
    sim_cluster_destroy(b->dispatcher_lim);
    sim_dram_free(&b->dram);
    free(b);
    s->backend = NULL;
}

static bool thread_done(const sim_thread *t);

/* Every cluster still running up to until_ps.  Clusters that talk to each
 * other (twelve cores: stores into another cluster's LIM and bank) must
 * not run far apart: with more than one, they go forward together one
 * quantum at a time, so a store made in quantum q is seen from quantum
 * q + 1 on, whichever cluster made it.  Alone, a cluster takes the whole
 * span in one step (the same quanta, so the same results). */
static void step_clusters(sim_backend *b, uint64_t until_ps)
{
    unsigned live = 0;
    for (unsigned i = 0; i < b->nthreads; i++)
        live += !thread_done(&b->threads[i]);
    if (live > 1) {
        uint64_t quantum_ps = sim_cycles_to_ps(SIM_CLUSTER_QUANTUM, b->mhz);
        uint64_t from = UINT64_MAX;
        for (unsigned i = 0; i < b->nthreads; i++)
            if (!thread_done(&b->threads[i]) && sim_cluster_now_ps(b->threads[i].c) < from)
                from = sim_cluster_now_ps(b->threads[i].c);
        for (uint64_t t = from + quantum_ps; t < until_ps; t += quantum_ps)
            for (unsigned i = 0; i < b->nthreads; i++)
                if (!thread_done(&b->threads[i]))
                    sim_cluster_step(b->threads[i].c, t);
    }
    for (unsigned i = 0; i < b->nthreads; i++)
        if (!thread_done(&b->threads[i]))
            sim_cluster_step(b->threads[i].c, until_ps);
}

/* The dispatcher's sync: every thread still running catches up with the
 * pass about to look at the rings. */
static void sync_clusters(void *ctx, uint64_t now_ps)
{
    step_clusters(ctx, now_ps);
}

static int sim_load(km_session *s, km_error *err)
{
    sim_backend *b = calloc(1, sizeof *b);
    if (!b)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the simulated card");
    sim_dram_init(&b->dram);
    sim_noc_init(&b->noc, &b->dram);
    b->mhz = s->p->x280_mhz;
    s->backend = b;
    /* The kernel side first: the grid, the dispatcher and cluster 0's LIM,
     * so each thread's ring can be attached as its cluster is written;
     * host-fed commands go into the host ring now. */
    int rc = sim_cluster_create(&b->dispatcher_lim, &b->dram, 0, s->p->x280_mhz, err);
    if (rc == KM_OK)
        rc = sim_cluster_attach_noc(b->dispatcher_lim, &b->noc, err);
    if (rc == KM_OK)
        rc = km_feed_create(&b->feed, s->p, &b->dram,
                            s->build.has_kernels ? s->build.kernels.path : NULL, sync_clusters, b,
                            err);
    if (rc == KM_OK)
        km_feed_set_regions(b->feed, &s->plan);
    for (unsigned i = 0; rc == KM_OK && i < s->plan.nclusters; i++) {
        const km_cluster_plan *cp = &s->plan.clusters[i];
        sim_thread *t = &b->threads[i];
        t->cp = cp;
        rc = sim_cluster_create(&t->c, &b->dram, (unsigned)cp->cluster, s->p->x280_mhz, err);
        if (rc != KM_OK)
            break;
        b->nthreads++;
        rc = sim_cluster_attach_noc(t->c, &b->noc, err);
        if (rc != KM_OK)
            break;
        const char *image = km_session_image(s, cp);
        rc = image ? load_image(t->c, image, cp->cluster, err)
                   : km_fail(err, KM_EXIT_INTERNAL, "no image for cluster %d", cp->cluster);
        if (rc == KM_OK)
            rc = write_cluster(s, b, i, err);
    }
    /* f: every cluster's cores start together, at the same modeled time. */
    for (unsigned i = 0; rc == KM_OK && i < b->nthreads; i++)
        rc = sim_cluster_reset_harts(b->threads[i].c, KMX_LIM_IMAGE, err);
    return rc;
}

/* ---- Run ------------------------------------------------------------------- */

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool thread_done(const sim_thread *t)
{
    return t->final || t->stuck;
}

/* The core a stuck report names: core 0 if it still runs (it is the one
 * that must return), else the first core that does; all four in wfi or
 * halted: core 0. */
static unsigned stuck_core(sim_cluster *c)
{
    for (unsigned i = 0; i < KMX_CORES; i++)
        if (sim_cluster_hart(c, i)->state == SIM_HART_RUNNING)
            return i;
    return 0;
}

static void mark_stuck(km_session *s, sim_thread *t, km_thread_result *r)
{
    unsigned core = stuck_core(t->c);
    sim_hart *h = sim_cluster_hart(t->c, core);
    bool running = h->state == SIM_HART_RUNNING;
    km_result_from_block(&t->block, t->cp->cluster, r);
    r->state = KM_STATE_STUCK;
    r->has_code = false;
    r->has_ticks = false;
    r->stuck = true;
    r->stuck_info.core = core;
    r->stuck_info.pc = h->pc;
    km_source_lookup(km_session_image(s, t->cp), h->pc, &r->stuck_info.source);
    const km_source *src = &r->stuck_info.source;
    char where[700] = "";
    if (src->known)
        snprintf(where, sizeof where, " (%.400s:%u%s%.200s)", src->file, src->line,
                 src->has_function ? " in " : "", src->has_function ? src->function : "");
    if (running)
        snprintf(r->stuck_info.detail, sizeof r->stuck_info.detail,
                 "core %u did not return within 1 s of the stop flag: it still runs at pc "
                 "0x%llx%s, in a loop that never polls the stop (kmx_stop_requested); the "
                 "cluster needs a reset",
                 core, (unsigned long long)h->pc, where);
    else
        snprintf(r->stuck_info.detail, sizeof r->stuck_info.detail,
                 "the thread did not end within 1 s of the stop flag: every core waits in wfi "
                 "or is halted (core %u at pc 0x%llx%s) and none wrote a final state; the "
                 "cluster needs a reset",
                 core, (unsigned long long)h->pc, where);
    /* The runtime would mark the cluster unhealthy: nothing runs on it. */
    for (unsigned i = 0; i < KMX_CORES; i++)
        sim_hart_halt(sim_cluster_hart(t->c, i));
    t->stuck = true;
}

static void finish_trap(km_session *s, const sim_thread *t, km_thread_result *r)
{
    if (!r->trapped)
        return;
    char buf[sizeof r->trap.name];
    const char *name = sim_cause_name(r->trap.mcause, buf, sizeof buf);
    snprintf(r->trap.name, sizeof r->trap.name, "%s", name);
    km_source_lookup(km_session_image(s, t->cp), r->trap.mepc, &r->trap.source);
}

static void ask_stop(sim_thread *t, uint64_t now)
{
    if (!t->stop_asked && !thread_done(t)) {
        sim_cluster_request_stop(t->c);
        t->stop_asked = true;
        t->stop_ps = now;
    }
}

/* Looks at a cluster's result block after a slice: a new progress marker,
 * a final state. */
static int look(km_session *s, sim_thread *t, const km_run_opts *o, km_thread_result *r,
                km_error *err)
{
    int rc = sim_cluster_read_lim(t->c, KMX_LIM_RESULT, &t->block, sizeof t->block, err);
    if (rc != KM_OK)
        return rc;
    if (sim_cluster_failed(t->c, err))
        return KM_EXIT_SYSTEM;
    const kmx_result_block *b = &t->block;
    if (b->where_ticks != 0 &&
        (b->where != t->seen_where || b->where_ticks != t->seen_where_ticks)) {
        t->seen_where = b->where;
        t->seen_where_ticks = b->where_ticks;
        if (o->progress)
            o->progress(t->cp->cluster, b->where,
                        b->where_ticks >= b->start_ticks ? b->where_ticks - b->start_ticks : 0,
                        o->ctx);
    }
    if (KMX_STATE_FINAL(b->state)) {
        t->final = true;
        km_result_from_block(b, t->cp->cluster, r);
        finish_trap(s, t, r);
    }
    return KM_OK;
}

static int sim_run(km_session *s, const km_run_opts *o, uint64_t timeout_ps, uint64_t grace_ps,
                   km_run_result *r, km_error *err)
{
    sim_backend *b = s->backend;
    double wall_start = wall_now();
    uint64_t now = 0;
    r->nthreads = b->nthreads;
    for (;;) {
        bool all_done = true, any_busy = false;
        for (unsigned i = 0; i < b->nthreads; i++) {
            if (!thread_done(&b->threads[i])) {
                all_done = false;
                any_busy |= sim_cluster_busy(b->threads[i].c);
            }
        }
        bool feeding = b->feed && !km_feed_done(b->feed) && now < timeout_ps;
        if (all_done && !feeding)
            break;
        /* Threads still running may use their rings: the kernel runs. */
        bool kernel = b->feed && (feeding || !all_done);
        /* The next look: a slice on, or (when every core that matters
         * waits in wfi, which nothing wakes) straight to the next event. */
        uint64_t next = now + SLICE_PS;
        if (!any_busy && !feeding) {
            uint64_t event = UINT64_MAX;
            for (unsigned i = 0; i < b->nthreads; i++) {
                const sim_thread *t = &b->threads[i];
                if (thread_done(t))
                    continue;
                uint64_t e = t->stop_asked ? t->stop_ps + grace_ps : timeout_ps;
                if (e < event)
                    event = e;
            }
            if (event > next)
                next = (event + SLICE_PS - 1) / SLICE_PS * SLICE_PS;
        }
        if (kernel)
            km_feed_step(b->feed, next);
        step_clusters(b, next);
        now = next;
        if (b->feed && now >= timeout_ps)
            km_feed_stop(b->feed);
        for (unsigned i = 0; i < b->nthreads; i++) {
            sim_thread *t = &b->threads[i];
            if (thread_done(t))
                continue;
            int rc = look(s, t, o, &r->threads[i], err);
            if (rc != KM_OK)
                return rc;
            if (t->final && km_state_stops_others(r->threads[i].state))
                for (unsigned k = 0; k < b->nthreads; k++)
                    ask_stop(&b->threads[k], now);
        }
        for (unsigned i = 0; i < b->nthreads; i++) {
            sim_thread *t = &b->threads[i];
            if (thread_done(t))
                continue;
            if (now >= timeout_ps)
                ask_stop(t, now);
            if (t->stop_asked && now >= t->stop_ps + grace_ps) {
                mark_stuck(s, t, &r->threads[i]);
                for (unsigned k = 0; k < b->nthreads; k++)
                    ask_stop(&b->threads[k], now);
            }
        }
        if (o->wall_timeout_s > 0 && wall_now() - wall_start > o->wall_timeout_s)
            return km_fail(err, KM_EXIT_SYSTEM,
                           "the run took more than %g s of real time (--wall-timeout); the "
                           "simulated card had reached %.3f ms of modeled time",
                           o->wall_timeout_s, (double)now / 1e9);
    }
    r->device_ps = now;
    if (b->feed) {
        r->commands = km_feed_results(b->feed);
        r->ncommands = s->p->ncommands;
    }
    for (unsigned i = 0; i < b->nthreads; i++)
        for (unsigned k = 0; k < KMX_CORES; k++)
            r->instructions += sim_cluster_hart(b->threads[i].c, k)->instret;
    return KM_OK;
}

static int sim_read_dram(km_session *s, unsigned bank, uint64_t bank_address, void *dst,
                         uint64_t n, km_error *err)
{
    sim_backend *b = s->backend;
    return sim_dram_read(&b->dram, bank, bank_address, dst, n, err);
}

const km_backend_ops km_sim_backend = {
    .kind = KM_BACKEND_SIM,
    .load = sim_load,
    .run = sim_run,
    .read_dram = sim_read_dram,
    .free = sim_free,
};
