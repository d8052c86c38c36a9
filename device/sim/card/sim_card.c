/* sim_card: the simulated Blackhole, wired (sim_card.h).
 *
 * Who owns what: the card owns the banks (sim_dram) and the NoC router;
 * cluster 0 and the work clusters sit on the NoC at their tiles; the
 * kernel side (sim_kernel.c) owns the grid, the dispatcher and the rings.
 * The dispatcher's sync is this file's step_clusters: before a pass looks
 * at the rings, the work clusters run up to its time, so each side sees
 * what the other wrote before it. */
#include "sim_card_internal.h"

#include <stdlib.h>
#include <string.h>

#include "ks_elf.h"
#include "sim_checker.h"
#include "sim_cluster.h"
#include "sim_kernel.h"
#include "sim_noc.h"
#include "sim_print.h"


static bool work_cluster(unsigned cluster)
{
    return cluster >= 1 && cluster <= BH_WORK_CLUSTERS;
}

/* A cluster the host may step and look at. */
static bool live(const sim_card *card, unsigned cluster)
{
    return card->clusters[cluster] && !card->parked[cluster];
}

/* The Tensix cores' port messages that have landed by up_to_ps, into
 * their X280 cores' mailbox lines (a parked cluster's are dropped). */
static void land_messages(sim_card *card, uint64_t up_to_ps)
{
    sim_grid_landing l;
    while (card->ports && sim_grid_next_landing(sim_kernel_grid(card->kernel), up_to_ps, &l))
        if (work_cluster(l.cluster) && live(card, l.cluster))
            (void)sim_cluster_write_lim(card->clusters[l.cluster], l.lim_address, &l.message,
                                        sizeof l.message, NULL);
}

/* Every live cluster up to until_ps.  With more than one, they go forward
 * together one quantum at a time, so a store made in quantum q is seen
 * from quantum q + 1 on, whichever cluster made it.  Alone, a cluster
 * takes the whole span in one step (the same quanta, so the same
 * results).  Port messages and the clusters' writes into another's LIM
 * (sim_noc_land) that landed by a step's start are in LIM before it (at
 * most a quantum late, never early); the ones due by until_ps land after
 * it (the dispatcher's LIM, which its pass reads then). */
static void step_clusters(sim_card *card, uint64_t until_ps)
{
    /* Nothing inside a step parks or adds a cluster: the live ones are
     * listed once, and each target is turned into cycles once for all
     * (one clock). */
    sim_cluster *live_clusters[BH_CLUSTERS];
    unsigned nlive = 0;
    uint64_t from = UINT64_MAX;
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++) {
        if (!live(card, c))
            continue;
        live_clusters[nlive++] = card->clusters[c];
        uint64_t at = sim_cluster_now_ps(card->clusters[c]);
        if (at < from)
            from = at;
    }
    if (nlive > 1) {
        /* A cluster whose quanta pass parked (sim_cluster_parked_to) is
         * left until one would not, or the loop ends, and then brought
         * to the end of the last one left (left_at, 0: none): the same
         * state, without a call a quantum. */
        uint64_t parked_to[BH_CLUSTERS] = {0}, left_at[BH_CLUSTERS] = {0};
        uint64_t quantum_ps = sim_cycles_to_ps(SIM_CLUSTER_QUANTUM, card->mhz);
        /* A quantum a whole number of picoseconds (1000 MHz): each t's
         * cycle is the last one's plus a quantum, no division. */
        bool whole = sim_ps_to_cycles(quantum_ps, card->mhz) == SIM_CLUSTER_QUANTUM &&
                     sim_cycles_to_ps(SIM_CLUSTER_QUANTUM, card->mhz) * card->mhz ==
                         (uint64_t)SIM_CLUSTER_QUANTUM * BH_PS_PER_US;
        uint64_t cycle = 0;
        for (uint64_t t = from + quantum_ps; t < until_ps; t += quantum_ps) {
            land_messages(card, t - quantum_ps);
            sim_noc_land(&card->noc, t - quantum_ps); /* (sets idle_unsure where it lands) */
            cycle = whole && cycle ? cycle + SIM_CLUSTER_QUANTUM
                                   : sim_ps_to_cycles_ceil(t, card->mhz);
            uint64_t end = (cycle + SIM_CLUSTER_QUANTUM - 1u) / SIM_CLUSTER_QUANTUM *
                           SIM_CLUSTER_QUANTUM; /* as the cluster rounds it */
            for (unsigned k = 0; k < nlive; k++) {
                sim_cluster *c = live_clusters[k];
                if (end <= parked_to[k] && !c->idle_unsure) {
                    left_at[k] = end;
                    continue;
                }
                if (left_at[k]) {
                    sim_cluster_pass_parked(c, left_at[k]);
                    left_at[k] = 0;
                }
                sim_cluster_step_cycles(c, cycle);
                parked_to[k] = sim_cluster_parked_to(c);
            }
            from = t;
        }
        for (unsigned k = 0; k < nlive; k++)
            if (left_at[k])
                sim_cluster_pass_parked(live_clusters[k], left_at[k]);
    }
    land_messages(card, from);
    sim_noc_land(&card->noc, from);
    for (unsigned k = 0; k < nlive; k++)
        sim_cluster_step(live_clusters[k], until_ps);
    sim_noc_land(&card->noc, until_ps);
}

/* With X280 ports the Tensix cores and the X280 cores talk without the
 * dispatcher: a quantum at a time up to until_ps, the kernel side's passes
 * that start by the quantum's end (`passes`: not from inside a pass's
 * own sync), then the grid up to it, then the clusters.  A message lands
 * SIM_NOC_LAND_PS after its store, more than a quantum, so neither side
 * can miss what the other stored before it looks. */
static void lockstep(sim_card *card, uint64_t until_ps, bool passes)
{
    uint64_t quantum_ps = sim_cycles_to_ps(SIM_CLUSTER_QUANTUM, card->mhz);
    _Static_assert(SIM_NOC_LAND_PS > (uint64_t)SIM_CLUSTER_QUANTUM * BH_PS_PER_US / SIM_MHZ_DEFAULT,
                   "a landing outlasts a quantum");
    _Static_assert(SIM_NOC_FLIGHT_PS > (uint64_t)SIM_CLUSTER_QUANTUM * BH_PS_PER_US / SIM_MHZ_DEFAULT,
                   "a flight outlasts a quantum");
    for (uint64_t t = card->lock_ps; t < until_ps;) {
        t = (t / quantum_ps + 1u) * quantum_ps;
        if (t > until_ps)
            t = until_ps;
        if (passes)
            sim_kernel_step(card->kernel, t); /* its syncs come here, passes false */
        if (t > card->lock_ps) {
            sim_kernel_step_grid(card->kernel, t);
            step_clusters(card, t);
            card->lock_ps = t;
        }
    }
}

/* The dispatcher's pass looks at the rings at now_ps: the clusters (and,
 * with ports, the grid beside them) come up to it first. */
static void sync_clusters(void *ctx, uint64_t now_ps)
{
    sim_card *card = ctx;
    if (card->ports)
        lockstep(card, now_ps, false);
    else
        step_clusters(card, now_ps);
}

int sim_card_create(sim_card **out, const sim_card_params *params, ks_error *err)
{
    *out = NULL;
    if (!sim_mhz_valid(params->mhz))
        return ks_fail(err, KS_ERR_INPUT, "X280 clock %u MHz (expected %u or %u)", params->mhz,
                       SIM_MHZ_DEFAULT, SIM_MHZ_FAST);
    sim_card *card = calloc(1, sizeof *card);
    if (!card)
        return ks_fail(err, KS_ERR_SYSTEM, "out of memory for the simulated card");
    sim_dram_init(&card->dram);
    sim_noc_init(&card->noc, &card->dram);
    card->mhz = params->mhz;
    card->trace_cores = params->trace_cores;
    card->trace = params->trace;
    card->profile = params->profile;
    card->trace_ctx = params->trace_ctx;
    int rc = sim_cluster_create(&card->dispatcher_lim, &card->dram, 0, params->mhz, err);
    if (rc == KS_OK)
        rc = sim_cluster_attach_noc(card->dispatcher_lim, &card->noc, err);
    if (rc == KS_OK)
        rc = sim_kernel_create(&card->kernel, params, &card->dram, sync_clusters, card, err);
    if (rc != KS_OK) {
        sim_card_free(card);
        return rc;
    }
    if (params->check_handover) {
        card->checker = sim_checker_create(&card->dram);
        if (!card->checker) {
            sim_card_free(card);
            return ks_fail(err, KS_ERR_SYSTEM, "out of memory for the hand-over checker");
        }
        sim_grid_set_checker(sim_kernel_grid(card->kernel), card->checker);
    }
    if (params->ports) {
        card->ports = true;
        sim_noc_add_tensix(&card->noc, &(sim_noc_tile_ops){sim_kernel_grid(card->kernel),
                                                            sim_grid_tile_load,
                                                            sim_grid_tile_store});
    }
    *out = card;
    return KS_OK;
}

void sim_card_free(sim_card *card)
{
    if (!card)
        return;
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++)
        sim_cluster_destroy(card->clusters[c]);
    sim_kernel_free(card->kernel);
    sim_cluster_destroy(card->dispatcher_lim);
    sim_checker_free(card->checker);
    sim_card_debug_free(card);
    sim_print_queue_free(&card->prints);
    for (unsigned c = 0; c < BH_CLUSTERS; c++)
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++)
            free(card->host_prints[c][i]);
    sim_dram_free(&card->dram);
    free(card);
}

/* ---- loading ------------------------------------------------------------- */

static int no_cluster(unsigned cluster, ks_error *err)
{
    return ks_fail(err, KS_ERR_BUG, "no work cluster %u on the simulated card", cluster);
}

int sim_card_add_cluster(sim_card *card, unsigned cluster, ks_error *err)
{
    if (!work_cluster(cluster) || card->clusters[cluster])
        return ks_fail(err, KS_ERR_BUG, "work cluster %u cannot be added (the card has 1 to %u)",
                       cluster, BH_WORK_CLUSTERS);
    int rc = sim_cluster_create(&card->clusters[cluster], &card->dram, cluster, card->mhz, err);
    if (rc == KS_OK)
        rc = sim_cluster_attach_noc(card->clusters[cluster], &card->noc, err);
    unsigned traced = (card->trace_cores >> ((cluster - 1) * BH_CLUSTER_CORES)) &
                      ((1u << BH_CLUSTER_CORES) - 1);
    if (rc == KS_OK && card->profile)
        rc = sim_cluster_profile(card->clusters[cluster], err);
    if (rc == KS_OK && card->trace && traced)
        sim_cluster_trace(card->clusters[cluster], traced, card->trace, card->trace_ctx);
    if (rc == KS_OK && card->checker) {
        sim_cluster_mem *m = &card->clusters[cluster]->m;
        sim_cluster_mem_set_checker(m, card->checker);
        if (!sim_checker_add_cache(card->checker, cluster, &m->cache))
            rc = ks_fail(err, KS_ERR_SYSTEM,
                         "out of memory for the hand-over checker's records of cluster %u",
                         cluster);
    }
    if (rc == KS_OK)
        sim_card_debug_adopt(card, cluster);
    return rc;
}

int sim_card_prefetch_get(const sim_card *card, unsigned cluster,
                          uint32_t regs[BH_CLUSTER_CORES][2], ks_error *err)
{
    if (!work_cluster(cluster) || !card->clusters[cluster])
        return no_cluster(cluster, err);
    sim_cluster_mem_prefetch_get(&card->clusters[cluster]->m, regs);
    return KS_OK;
}

int sim_card_prefetch_set(sim_card *card, unsigned cluster,
                          const uint32_t regs[BH_CLUSTER_CORES][2], ks_error *err)
{
    if (!work_cluster(cluster) || !card->clusters[cluster])
        return no_cluster(cluster, err);
    sim_cluster_mem_prefetch_set(&card->clusters[cluster]->m, regs);
    return KS_OK;
}

int sim_card_load_image(sim_card *card, unsigned cluster, const char *path, const char *subject,
                        ks_error *err)
{
    if (!work_cluster(cluster) || !card->clusters[cluster])
        return no_cluster(cluster, err);
    sim_cluster *c = card->clusters[cluster];
    ks_elf e;
    int rc = ks_elf_open(&e, path, subject, err);
    if (rc != KS_OK)
        return rc;
    /* The image checker made sure every segment fits; a damaged cache
     * entry is caught here. */
    for (size_t i = 0; rc == KS_OK && i < e.phnum; i++) {
        const Elf64_Phdr *ph = &e.ph[i];
        if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
            continue;
        if (ph->p_vaddr < KMX_LIM_IMAGE || ph->p_memsz > BH_IMAGE_MAX_BYTES ||
            ph->p_vaddr - KMX_LIM_IMAGE > BH_IMAGE_MAX_BYTES - ph->p_memsz ||
            ph->p_filesz > ph->p_memsz) {
            rc = ks_fail(err, KS_ERR_IMAGE,
                         "%s '%s': a segment at 0x%llx of %llu bytes is outside the image area",
                         subject, path, (unsigned long long)ph->p_vaddr,
                         (unsigned long long)ph->p_memsz);
            break;
        }
        rc = sim_cluster_write_lim(c, ph->p_vaddr, e.data + ph->p_offset, ph->p_filesz, err);
        if (rc == KS_OK && ph->p_memsz > ph->p_filesz) {
            uint64_t n = ph->p_memsz - ph->p_filesz;
            void *zeros = calloc(1, n);
            rc = zeros ? sim_cluster_write_lim(c, ph->p_vaddr + ph->p_filesz, zeros, n, err)
                       : ks_fail(err, KS_ERR_SYSTEM, "out of memory loading %s", subject);
            free(zeros);
        }
    }
    ks_elf_close(&e);
    return rc;
}

int sim_card_write_lim(sim_card *card, unsigned cluster, uint64_t addr, const void *src,
                       uint64_t n, ks_error *err)
{
    if (!work_cluster(cluster) || !card->clusters[cluster])
        return no_cluster(cluster, err);
    return sim_cluster_write_lim(card->clusters[cluster], addr, src, n, err);
}

int sim_card_read_lim(sim_card *card, unsigned cluster, uint64_t addr, void *dst, uint64_t n,
                      ks_error *err)
{
    if (!work_cluster(cluster) || !card->clusters[cluster])
        return no_cluster(cluster, err);
    return sim_cluster_read_lim(card->clusters[cluster], addr, dst, n, err);
}

int sim_card_attach_ring(sim_card *card, unsigned cluster, const kmx_ring_descriptor *desc,
                         ks_error *err)
{
    if (!work_cluster(cluster))
        return no_cluster(cluster, err);
    return sim_kernel_attach_thread(card->kernel, &card->noc, cluster, desc, err);
}

int sim_card_start(sim_card *card, ks_error *err)
{
    int rc = KS_OK;
    for (unsigned c = 1; rc == KS_OK && c <= BH_WORK_CLUSTERS; c++)
        if (card->clusters[c])
            rc = sim_cluster_reset_harts(card->clusters[c], KMX_LIM_IMAGE, err);
    /* new harts, new decoded code: observers' sets go in anew */
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++)
        card->hooks[c].dirty = card->hooks[c].probes_dirty = true;
    return rc;
}

int sim_card_write_dram(sim_card *card, unsigned bank, uint64_t bank_address, const void *src,
                        uint64_t n, ks_error *err)
{
    sim_checker_at(card->checker, &(sim_site){.kind = SIM_SITE_HOST});
    int rc = sim_dram_write(&card->dram, bank, bank_address, src, n, err);
    sim_checker_at(card->checker, NULL);
    return rc;
}

int sim_card_read_dram(sim_card *card, unsigned bank, uint64_t bank_address, void *dst,
                       uint64_t n, ks_error *err)
{
    return sim_dram_read(&card->dram, bank, bank_address, dst, n, err);
}

int sim_card_move_dram(sim_card *card, unsigned bank, uint64_t bank_address, void *dst,
                       uint64_t n, bool lend, uint64_t *data, unsigned shift, ks_error *err)
{
    return sim_dram_move(&card->dram, bank, bank_address, n, dst, lend, data, shift, err);
}

bool sim_card_back_dram(sim_card *card, unsigned bank, uint64_t bank_address, void *dst,
                        uint64_t n)
{
    return sim_dram_back(&card->dram, bank, bank_address, n, dst) == 0;
}

/* ---- running --------------------------------------------------------------- */

static bool any_live(const sim_card *card)
{
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++)
        if (live(card, c))
            return true;
    return false;
}

void sim_card_step(sim_card *card, uint64_t until_ps)
{
    /* a debugger's pause, even while every core waits */
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++)
        if (live(card, c) && card->clusters[c]->hooks) {
            sim_cluster_observe_pause(card->clusters[c]);
            break;
        }
    /* Threads still running may use their rings: the kernel runs. */
    bool feeding = !card->kernel_stopped && !sim_kernel_done(card->kernel);
    if (card->ports && any_live(card)) {
        lockstep(card, until_ps, true);
        return;
    }
    if (feeding || any_live(card))
        sim_kernel_step(card->kernel, until_ps);
    step_clusters(card, until_ps);
}

void sim_card_park(sim_card *card, unsigned cluster)
{
    if (!work_cluster(cluster) || !card->clusters[cluster])
        return;
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++)
        sim_hart_halt(sim_cluster_hart(card->clusters[cluster], i));
    card->parked[cluster] = true;
}

bool sim_card_busy(const sim_card *card)
{
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++)
        if (live(card, c) && sim_cluster_busy(card->clusters[c]))
            return true;
    return false;
}

void sim_card_request_stop(sim_card *card, unsigned cluster)
{
    if (work_cluster(cluster) && card->clusters[cluster])
        sim_cluster_request_stop(card->clusters[cluster]);
}

bool sim_card_failed(const sim_card *card, unsigned cluster, ks_error *err)
{
    if (work_cluster(cluster) && card->clusters[cluster] &&
        sim_cluster_failed(card->clusters[cluster], err))
        return true;
    /* the grid serves every cluster: its failure is each one's */
    return card->kernel && sim_kernel_failed(card->kernel, err);
}

void sim_card_core_at(const sim_card *card, unsigned cluster, unsigned core, sim_card_core *out)
{
    memset(out, 0, sizeof *out);
    if (!work_cluster(cluster) || !card->clusters[cluster] || core >= BH_CLUSTER_CORES)
        return;
    const sim_hart *h = sim_cluster_hart(card->clusters[cluster], core);
    out->pc = h->pc;
    out->running = h->state == SIM_HART_RUNNING;
    out->trap_loop = sim_hart_trap_loop(h, &out->trap_cause);
}

uint64_t sim_card_instructions(const sim_card *card)
{
    uint64_t n = 0;
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++)
        if (card->clusters[c])
            for (unsigned i = 0; i < BH_CLUSTER_CORES; i++)
                n += sim_cluster_hart(card->clusters[c], i)->instret;
    return n;
}

void sim_card_stats_get(const sim_card *card, sim_card_stats *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++) {
        sim_cluster *cl = card->clusters[c];
        if (!cl)
            continue;
        uint64_t noc[SIM_NOC_TENSIX + 1];
        sim_cluster_get_stats(cl, &out->clusters[c], noc);
        out->noc_bytes[SIM_CARD_ROUTE_X280_TO_BANK] += noc[SIM_NOC_BANK];
        out->noc_bytes[SIM_CARD_ROUTE_X280_TO_LIM] += noc[SIM_NOC_LIM];
        out->noc_bytes[SIM_CARD_ROUTE_X280_TO_TENSIX] += noc[SIM_NOC_TENSIX];
    }
    sim_grid_stats g;
    sim_grid_get_stats(sim_kernel_grid(card->kernel), &g);
    memcpy(out->tensix_busy_ps, g.busy_ps, sizeof g.busy_ps);
    memcpy(out->tensix_handlers, g.handlers, sizeof g.handlers);
    out->noc_bytes[SIM_CARD_ROUTE_TENSIX_TO_BANK] = g.bank_bytes;
    out->noc_bytes[SIM_CARD_ROUTE_TENSIX_TO_X280] = g.mailbox_bytes;
    sim_dispatcher_stats d;
    sim_kernel_dispatcher_stats(card->kernel, &d);
    out->dispatcher_passes = d.passes;
    for (unsigned r = 0; r < SIM_DISPATCH_RINGS; r++)
        out->dispatcher_commands += d.taken[r];
}

/* ---- the kernel side ------------------------------------------------------- */

bool sim_card_commands_done(const sim_card *card)
{
    return sim_kernel_done(card->kernel);
}

const km_command_result *sim_card_command_results(const sim_card *card)
{
    return sim_kernel_results(card->kernel);
}

int sim_card_feed(sim_card *card, const sim_card_command *command, size_t *index, ks_error *err)
{
    return sim_kernel_feed(card->kernel, command, index, err);
}

size_t sim_card_ncommands(const sim_card *card)
{
    return sim_kernel_ncommands(card->kernel);
}

void sim_card_record(sim_card *card, sim_card_moment_fn fn, void *ctx)
{
    sim_kernel_record(card->kernel, fn, ctx);
}

void sim_card_stop_kernel(sim_card *card)
{
    sim_kernel_stop(card->kernel);
    card->kernel_stopped = true;
}

int sim_card_attach_host_ring(sim_card *card, unsigned cluster, ks_error *err)
{
    if (!work_cluster(cluster))
        return no_cluster(cluster, err);
    card->host_rings[cluster] = sim_kernel_attach_host_ring(card->kernel, cluster, err);
    return card->host_rings[cluster] ? KS_OK : KS_ERR_BUG;
}

bool sim_card_host_submit(sim_card *card, unsigned cluster, const km_command_t *command,
                          uint32_t *handle)
{
    sim_ring_host *ring = work_cluster(cluster) ? card->host_rings[cluster] : NULL;
    return ring && sim_ring_host_submit(ring, command, handle) == SIM_RING_OK;
}

bool sim_card_host_poll(sim_card *card, unsigned cluster, km_event_t *event)
{
    sim_ring_host *ring = work_cluster(cluster) ? card->host_rings[cluster] : NULL;
    return ring && sim_ring_host_poll(ring, event) == SIM_RING_OK;
}

void sim_card_pass(sim_card *card)
{
    sim_kernel_pass(card->kernel);
}

const km_port_gave_up *sim_card_port_waits(const sim_card *card, unsigned *n)
{
    return sim_grid_port_waits(sim_kernel_grid(card->kernel), n);
}

const sim_handover *sim_card_handovers(const sim_card *card, unsigned *n)
{
    if (!card->checker) {
        *n = 0;
        return NULL;
    }
    return sim_checker_found(card->checker, n);
}

const sim_handler_fault *sim_card_handler_faults(const sim_card *card, unsigned *n,
                                                 unsigned *more)
{
    return sim_kernel_faults(card->kernel, n, more);
}

const sim_wild_write *sim_card_wild_writes(const sim_card *card, unsigned *n, uint64_t *more)
{
    *n = card->noc.wild.n;
    if (more)
        *more = card->noc.wild.more;
    return card->noc.wild.w;
}

/* ---- prints ------------------------------------------------------------------ */

/* A format string in a cluster's LIM (the image's .rodata), read a line
 * at a time up to its NUL. */
static bool read_lim_format(void *ctx, uint64_t address, char *out, size_t cap)
{
    const sim_cluster *c = ctx;
    size_t n = 0;
    while (n + 1 < cap) {
        char chunk[64];
        size_t want = 64 - (size_t)((address + n) % 64);
        if (sim_cluster_read_lim(c, address + n, chunk, want, NULL) != KS_OK)
            return false;
        for (size_t i = 0; i < want && n + 1 < cap; i++) {
            out[n] = chunk[i];
            if (!chunk[i])
                return true;
            n++;
        }
    }
    out[n] = '\0';
    return true;
}

/* A format string in host memory (a handler's, a fallback's): the
 * writer is kmrun's own process, so the pointer is believed. */
static bool read_host_format(void *ctx, uint64_t address, char *out, size_t cap)
{
    (void)ctx;
    const char *f = (const char *)(uintptr_t)address;
    if (!f)
        return false;
    size_t n = 0;
    while (n + 1 < cap && f[n]) {
        out[n] = f[n];
        n++;
    }
    out[n] = '\0';
    return true;
}

static void hand_on(const sim_print_item *item, void *ctx)
{
    void **pair = ctx;
    sim_card_print_fn fn = (sim_card_print_fn)(uintptr_t)pair[0];
    sim_card_print p = {item->kind, item->cluster, item->core, item->ps, item->text};
    if (fn)
        fn(&p, pair[1]);
}

void sim_card_drain_prints(sim_card *card, sim_card_print_fn fn, void *ctx)
{
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++) {
        sim_cluster *cl = card->clusters[c];
        for (unsigned i = 0; cl && i < BH_CLUSTER_CORES; i++) {
            uint64_t at = KMX_LIM_PRINT_BUFFER(i);
            kmx_print_line line;
            if (sim_cluster_read_lim(cl, at, &line, sizeof line, NULL) != KS_OK ||
                line.head == line.tail)
                continue;
            kmx_print_buffer b;
            if (sim_cluster_read_lim(cl, at, &b, sizeof b, NULL) != KS_OK)
                continue;
            sim_print_drain_buffer(&card->prints, &b, SIM_PRINT_X280, c, i, SIM_PS_PER_TICK,
                                   read_lim_format, cl);
            (void)sim_cluster_write_lim(cl, at + offsetof(kmx_print_line, tail), &b.line.tail,
                                        sizeof b.line.tail, NULL);
        }
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++)
            if (card->host_prints[c][i])
                sim_print_drain_buffer(&card->prints, card->host_prints[c][i], SIM_PRINT_X280, c,
                                       i, 1, read_host_format, NULL);
    }
    sim_grid *g = sim_kernel_grid(card->kernel);
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        kmx_print_buffer *b = sim_grid_print_buffer(g, i);
        if (b)
            sim_print_drain_buffer(&card->prints, b, SIM_PRINT_TENSIX, 0, i, 1, read_host_format,
                                   NULL);
    }
    void *pair[2] = {(void *)(uintptr_t)fn, ctx};
    sim_print_flush(&card->prints, hand_on, pair);
}

void sim_card_print_drops_get(const sim_card *card, sim_card_print_drops *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++)
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
            kmx_print_line line;
            if (card->clusters[c] &&
                sim_cluster_read_lim(card->clusters[c], KMX_LIM_PRINT_BUFFER(i), &line,
                                     sizeof line, NULL) == KS_OK)
                out->x280[c][i] += line.dropped;
            if (card->host_prints[c][i])
                out->x280[c][i] += card->host_prints[c][i]->line.dropped;
        }
    sim_grid *g = sim_kernel_grid(card->kernel);
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        const kmx_print_buffer *b = sim_grid_print_buffer(g, i);
        out->tensix[i] = b ? b->line.dropped : 0;
    }
}

bool sim_card_host_print(sim_card *card, unsigned cluster, unsigned core, const uint64_t *rec,
                         unsigned n)
{
    if (!work_cluster(cluster) || core >= BH_CLUSTER_CORES || n < KMX_PRINT_HEAD_SLOTS ||
        n > KMX_PRINT_RECORD_MAX_SLOTS)
        return false;
    kmx_print_buffer **b = &card->host_prints[cluster][core];
    if (!*b && !(*b = calloc(1, sizeof **b))) {
        card->prints.lost = true; /* not a drop the card would make: said apart */
        return false;
    }
    return sim_print_put(*b, rec, n);
}

bool sim_card_prints_lost(const sim_card *card)
{
    return card->prints.lost;
}

const sim_profile *sim_card_profile(const sim_card *card, unsigned cluster, unsigned core)
{
    return work_cluster(cluster) && card->clusters[cluster]
               ? sim_cluster_profile_of(card->clusters[cluster], core)
               : NULL;
}
