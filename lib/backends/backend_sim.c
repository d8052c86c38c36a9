/* backend_sim: the `sim` backend — a program's threads on the simulated
 * Blackhole (device/sim/, through sim_card.h).  The choices it makes
 * (slices, grace, fresh card, the test-only faults) are in
 * device/sim/README.md, "Load and run".
 *
 * Load: one fresh card with a work cluster per thread at the program's
 * clock; per cluster the host steps a-f of kmx_layout.h — the image's
 * PT_LOAD segments into LIM, the host-zero area, the result block (zero
 * but the nonce), the bank check line into DRAM (a host write: it
 * bypasses the cache), the regions' initial contents into DRAM, the
 * argument block with its seal line last — then every cluster's cores
 * leave reset together.  Each thread's ring is attached as its argument
 * block describes it.
 *
 * Run: the run driver (km_driver.h) on modeled time: the card steps one
 * slice (SLICE_PS) at a time and between slices the host reads each
 * result block, as a card's host polls it.  A slice is whole quanta of
 * every cluster, so the run is deterministic: the same program gives the
 * same results, times and instruction counts whatever the host. */
#include "session_internal.h"

#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "km_driver.h"
#include "km_ports.h"
#include "sim_card.h"
#include "sim_card_debug.h"
#include "sim_exec.h" /* sim_cause_name */

/* How often the host looks: 1 us of modeled time (1,000 cycles at the
 * session's clock, 15 or so quanta).  Progress markers closer than this
 * are seen as the newest one. */
#define SLICE_PS BH_PS_PER_US

static int failed(km_error *err, const ks_error *e)
{
    return km_fail_from(err, e);
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
            a->regions[0].bytes = BH_BANK_BYTES;
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

/* Steps a to e for plan cluster `index`. */
static int write_cluster(km_session *s, unsigned index, km_error *err)
{
    const km_cluster_plan *cp = &s->plan.clusters[index];
    unsigned cluster = (unsigned)cp->cluster;
    ks_error e;

    /* a: the image. */
    const char *image = km_session_image(s, cp);
    if (!image)
        return km_fail(err, KM_EXIT_INTERNAL, "no image for cluster %u", cluster);
    char subject[64];
    snprintf(subject, sizeof subject, "the image of cluster %u", cluster);
    if (sim_card_load_image(s->card, cluster, image, subject, &e) != KS_OK)
        return failed(err, &e);

    /* b: ring counts and events, stop line, spawn mailboxes, cluster
     * lines, ports area, pull counters; then the ports area with its table
     * (km_ports.h), every entry KMX_PORT_NONE without ports: the runtime's
     * kmx_port_owner reads the table alone. */
    void *zeros = calloc(1, KMX_LIM_HOST_ZERO_BYTES > KMX_LIM_PRINT_BYTES ? KMX_LIM_HOST_ZERO_BYTES
                                                                         : KMX_LIM_PRINT_BYTES);
    if (!zeros)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory loading cluster %u", cluster);
    int rc = sim_card_write_lim(s->card, cluster, KMX_LIM_HOST_ZERO, zeros,
                                KMX_LIM_HOST_ZERO_BYTES, &e);
    /* and the print buffers (their head, tail and drops start at 0). */
    if (rc == KS_OK)
        rc = sim_card_write_lim(s->card, cluster, KMX_LIM_PRINT, zeros, KMX_LIM_PRINT_BYTES, &e);
    free(zeros);
    if (rc != KS_OK)
        return failed(err, &e);
    {
        static const km_port_dealing nobody; /* cluster 0 everywhere */
        kmx_ports_area *area = malloc(sizeof *area);
        if (!area)
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory loading cluster %u", cluster);
        km_ports_area_of(s->plan.has_ports ? &s->plan.ports : &nobody, cp->cluster, area);
        rc = sim_card_write_lim(s->card, cluster, KMX_LIM_PORTS, area, sizeof *area, &e);
        free(area);
        if (rc != KS_OK)
            return failed(err, &e);
    }

    /* c: the result block, zero but this run's nonce. */
    kmx_result_block result;
    km_result_block_init(&result, s->nonce);
    if (sim_card_write_lim(s->card, cluster, KMX_LIM_RESULT, &result, sizeof result, &e) != KS_OK)
        return failed(err, &e);

    /* d: the bank check line, straight into DRAM. */
    uint64_t line[BH_LINE_BYTES / 8];
    uint64_t value = km_plan_check_value(s->nonce, cp->cluster);
    if (s->fault == KM_FAULT_CHECK)
        value = ~value;
    for (unsigned i = 0; i < BH_LINE_BYTES / 8; i++)
        line[i] = value;
    if (sim_card_write_dram(s->card, cp->bank, cp->check_address, line, sizeof line, &e) != KS_OK)
        return failed(err, &e);

    /* The regions' initial contents. */
    rc = km_card_write_regions(s, index, err);
    if (rc != KM_OK)
        return rc;

    /* e: the argument block, its seal line last; the kernel gets the ring
     * it describes (the thread's copy alone is damaged by a fault). */
    kmx_args args;
    km_plan_args(s->p, &s->plan, cp->cluster, s->nonce, &args);
    if (sim_card_attach_ring(s->card, cluster, &args.ring, &e) != KS_OK)
        return failed(err, &e);
    damage_args(s->fault, &args);
    if (sim_card_write_lim(s->card, cluster, KMX_LIM_ARGS, &args, offsetof(kmx_args, seal),
                           &e) != KS_OK ||
        sim_card_write_lim(s->card, cluster, KMX_LIM_ARGS + offsetof(kmx_args, seal), &args.seal,
                           sizeof args.seal, &e) != KS_OK)
        return failed(err, &e);
    return KM_OK;
}

static int sim_load(km_session *s, km_error *err)
{
    int rc = km_card_create(s, err);
    if (rc == KM_OK)
        rc = km_session_back_regions(s, err);
    for (unsigned i = 0; rc == KM_OK && i < s->plan.nclusters; i++) {
        ks_error e;
        unsigned c = (unsigned)s->plan.clusters[i].cluster;
        if (sim_card_add_cluster(s->card, c, &e) != KS_OK)
            return failed(err, &e);
        /* The registers a previous image on this cluster left. */
        if (s->card_memory && c < BH_CLUSTERS && s->card_memory->set[c] &&
            sim_card_prefetch_set(s->card, c, s->card_memory->prefetch[c], &e) != KS_OK)
            return failed(err, &e);
        rc = write_cluster(s, i, err);
    }
    /* The timeline's observers, before the first instruction. */
    if (rc == KM_OK)
        rc = km_session_tl_attach(s, err);
    /* f: every cluster's cores start together, at the same modeled time. */
    if (rc == KM_OK) {
        ks_error e;
        if (sim_card_start(s->card, &e) != KS_OK)
            rc = failed(err, &e);
    }
    return rc;
}

/* ---- the run driver's hooks ------------------------------------------------- */

static unsigned cluster_of(const km_session *s, unsigned i)
{
    return (unsigned)s->plan.clusters[i].cluster;
}

static void on_card_advance(void *ctx, uint64_t until_ps)
{
    km_session *s = ctx;
    sim_card_step(s->card, until_ps);
}

static bool on_card_busy(void *ctx)
{
    km_session *s = ctx;
    return sim_card_busy(s->card);
}

static bool on_card_commands_pending(void *ctx)
{
    km_session *s = ctx;
    return !sim_card_commands_done(s->card);
}

static void on_card_stop_kernel(void *ctx)
{
    km_session *s = ctx;
    sim_card_stop_kernel(s->card);
}

static int on_card_read_block(void *ctx, unsigned i, kmx_result_block *out, km_error *err)
{
    km_session *s = ctx;
    ks_error e;
    if (sim_card_read_lim(s->card, cluster_of(s, i), KMX_LIM_RESULT, out, sizeof *out, &e) !=
            KS_OK ||
        sim_card_failed(s->card, cluster_of(s, i), &e))
        return failed(err, &e);
    return KM_OK;
}

static void on_card_ask_stop(void *ctx, unsigned i)
{
    km_session *s = ctx;
    sim_card_request_stop(s->card, cluster_of(s, i));
}

static void on_card_describe(void *ctx, unsigned i, km_thread_result *r)
{
    km_session *s = ctx;
    if (r->error_call != KMX_API_NONE && r->error_pc != 0)
        km_source_lookup(km_session_image(s, &s->plan.clusters[i]), r->error_pc - 1,
                         &r->error_source);
    if (!r->trapped)
        return;
    char buf[sizeof r->trap.name];
    const char *name = sim_cause_name(r->trap.mcause, buf, sizeof buf);
    snprintf(r->trap.name, sizeof r->trap.name, "%s", name);
    km_source_lookup(km_session_image(s, &s->plan.clusters[i]), r->trap.mepc, &r->trap.source);
}

/* Whether core `core` (1-3) still runs a call it was given: its spawn
 * mailbox (kmx_layout.h) has a call posted and not done, the runtime did
 * not mark it halted (a trap), and the core runs (the runtime's cores
 * wait only in kmx__park's wfi).  Read from LIM as a card's host would. */
static bool on_card_in_call(void *ctx, unsigned i, unsigned core)
{
    km_session *s = ctx;
    kmx_spawn_mailbox mb;
    sim_card_core at;
    ks_error e;
    if (core == 0 || core >= BH_CLUSTER_CORES ||
        sim_card_read_lim(s->card, cluster_of(s, i), KMX_LIM_SPAWN + 64u * core, &mb, sizeof mb,
                          &e) != KS_OK)
        return false;
    sim_card_core_at(s->card, cluster_of(s, i), core, &at);
    return mb.posted != mb.done && !mb.halted && at.running;
}

/* Where core `core` of a stuck thread is: its pc and source line, and
 * whether it runs, in a trap loop or not. */
static void on_card_locate_core(void *ctx, unsigned i, unsigned core, km_driver_where *w)
{
    km_session *s = ctx;
    sim_card_core at = {0};
    sim_card_core_at(s->card, cluster_of(s, i), core, &at);
    w->core = core;
    w->pc_known = true;
    w->pc = at.pc;
    w->running = at.running;
    w->trap_loop = at.trap_loop;
    if (at.trap_loop) {
        char buf[sizeof w->trap_name];
        snprintf(w->trap_name, sizeof w->trap_name, "%s",
                 sim_cause_name(at.trap_cause, buf, sizeof buf));
    }
    km_source_lookup(km_session_image(s, &s->plan.clusters[i]), at.pc, &w->source);
}

/* A thread that ended, or is stuck (the runtime would mark the cluster
 * unhealthy): nothing runs on its cluster any more. */
static void on_card_retire(void *ctx, unsigned i, bool stuck)
{
    km_session *s = ctx;
    if (stuck) /* a debugger stops there, with the core where it spins */
        sim_card_debug_stuck(s->card, cluster_of(s, i));
    sim_card_park(s->card, cluster_of(s, i));
}

static unsigned on_card_kernel_faults(void *ctx)
{
    return km_card_kernel_fault_count(ctx);
}

static void on_card_drain_prints(void *ctx, sim_card_print_fn fn, void *fn_ctx)
{
    km_session *s = ctx;
    sim_card_drain_prints(s->card, fn, fn_ctx);
}

static void on_card_finish(void *ctx, km_run_result *r)
{
    km_session *s = ctx;
    km_card_commands(s, r);
    km_card_port_waits(s, r);
    r->instructions = sim_card_instructions(s->card);
    sim_card_stats_get(s->card, &r->stats);
    r->has_stats = true;
}

static void sim_hooks(km_session *s, km_driver_hooks *h)
{
    *h = (km_driver_hooks){
        .ctx = s,
        .modeled = true,
        .slice_ps = SLICE_PS,
        .advance = on_card_advance,
        .busy = on_card_busy,
        .commands_pending = on_card_commands_pending,
        .stop_kernel = on_card_stop_kernel,
        .read_block = on_card_read_block,
        .ask_stop = on_card_ask_stop,
        .describe = on_card_describe,
        .in_call = on_card_in_call,
        .locate_core = on_card_locate_core,
        .retire = on_card_retire,
        .kernel_faults = on_card_kernel_faults,
        .drain_prints = on_card_drain_prints,
        .finish = on_card_finish,
    };
}

static void sim_free(km_session *s)
{
    (void)s; /* the card is the session's */
}

const km_backend_ops km_sim_backend = {
    .kind = KM_BACKEND_SIM,
    .load = sim_load,
    .hooks = sim_hooks,
    .read_dram = km_card_read_dram,
    .copy_dram = km_card_move_dram,
    .free = sim_free,
};
