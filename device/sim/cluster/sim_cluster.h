/* sim_cluster: one X280 cluster of the simulated card — four harts, their
 * memory map (sim_cluster_mem.h: LIM, the cache of the cluster's bank,
 * the two DRAM windows, CLINT, FLUSH64, the NoC window registers) and the
 * clock that steps them.
 *
 * Scheduling.  The harts share one clock (the card's PLL, SIM_MHZ_DEFAULT
 * or SIM_MHZ_FAST).  The cluster advances in quanta of
 * SIM_CLUSTER_QUANTUM cycles, aligned to multiples of it from the card's
 * start; in each, harts 0, 1, 2, 3 in that order run until their clock
 * reaches the quantum's end (a hart may end a little past it, by the
 * cost of its last access, and then sits out until time catches up).  A
 * hart in wfi or halted does not run and its cycle count stands still,
 * but its clock (and its mtime) keeps up with the cluster's.  Nothing
 * depends on the host — not the wall clock, not addresses, not how a
 * caller splits a run into steps (sim_cluster_step runs whole quanta
 * only) — so the same inputs give the same values and the same modeled
 * times every time.
 *
 * Why 64 cycles: one hart sees what another stored only once that one's
 * turn in the quantum has run, so a hand-over through memory (a spawn
 * mailbox, a flag) is early or late by up to a quantum.  The spec's
 * cross-core figures are a few hundred cycles (0.71 us for an empty
 * kmx_parallel, 0.66 us for a wake through LIM), so the error must be a
 * small part of that; below 64 the cost of switching harts starts to
 * show in the simulator's speed.
 *
 * Lifecycle: create (LIM zero, cache empty, harts not started) ->
 * write the image and the argument block into LIM -> reset_harts(pc) ->
 * step ... -> read the result block.  The cache and DRAM outlive a
 * reset_harts, as on the card: a dirty line a run leaves behind is
 * written back whenever it is evicted. */
#ifndef SIM_CLUSTER_H
#define SIM_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "ks_error.h"
#include "sim_card.h"
#include "sim_card_debug.h"
#include "sim_cluster_mem.h"
#include "sim_dram.h"
#include "sim_hart.h"

#define SIM_CLUSTER_QUANTUM 64u /* cycles */

/* The card's observers' hold on a cluster (sim_card_debug.h), kept by
 * the card and read by the cluster (sim_cluster_debug.c). */
typedef struct sim_cluster_hooks {
    uint64_t *probes[SIM_CARD_OBSERVERS]; /* sorted, each observer's */
    unsigned nprobes[SIM_CARD_OBSERVERS];
    sim_watch *watches; /* the debugger's */
    unsigned nwatches;
    sim_watch *installed_watches; /* what the cores check until the next install */
    unsigned stepping; /* a bit per core: it runs an instruction at a time */
    bool catch_traps;
    /* Something changed: a core's run ends before its next instruction
     * so that it takes effect (the watches, stepping, trap catching are
     * installed again; with probes_dirty the probes too, which drops the
     * decoded code). */
    bool dirty, probes_dirty;
    /* Nobody observes any more: the cluster lets the hooks go at its next
     * install (sim_card_debug_adopt), never under a run's feet. */
    bool leave;
    /* The card's dispatch: an event of observer `who`. */
    void (*event)(void *ctx, sim_card_observer who, const sim_card_event *ev);
    void *ctx;
    /* Set by another thread to ask for an AT_PAUSE event. */
    _Atomic bool *pause;
    /* What ended a core's run so that the changes an event made are
     * installed: reported once, not again when the core meets it anew. */
    struct sim_cluster_skip {
        uint64_t pc, instret;
        bool probe, watch;
    } skip[BH_CLUSTER_CORES];
    /* A pc an observer wrote at a probe or a watch (a debugger's jump):
     * the core's run ends before the instruction, which puts the hart's
     * own pc back, and then goes on from this one. */
    struct sim_cluster_moved {
        bool set;
        uint64_t pc;
    } moved[BH_CLUSTER_CORES];
} sim_cluster_hooks;

typedef struct sim_cluster {
    sim_cluster_mem m;
    sim_hart harts[BH_CLUSTER_CORES];
    bool started[BH_CLUSTER_CORES]; /* sim_hart_init done */
    /* sim_cluster_trace: the cores whose instructions are recorded (bit
     * i: core i; a core whose trace stopped leaves it), and where to. */
    unsigned trace_cores;
    sim_trace_fn trace;
    void *trace_ctx;
    /* sim_cluster_profile: each core's profile (sim_profile.h), or NULL. */
    struct sim_profile *profile[BH_CLUSTER_CORES];
    /* The card's observers, or NULL when nobody observes. */
    sim_cluster_hooks *hooks;
    /* Idle parking (sim_cluster.c), by hart: parked, its proof, the
     * cluster times its proof ends at and it was parked at; the time of
     * its next try and the
     * quanta to wait after one that failed.  Unsure: a hart ran, or LIM
     * was written from outside, since every parked hart last checked.
     * The hart-quanta passed parked so far (inspection). */
    bool idle_parked[BH_CLUSTER_CORES];
    sim_idle idle_proof[BH_CLUSTER_CORES];
    uint64_t idle_horizon[BH_CLUSTER_CORES], idle_since[BH_CLUSTER_CORES];
    uint64_t idle_retry[BH_CLUSTER_CORES], idle_backoff[BH_CLUSTER_CORES];
    bool idle_unsure;
    uint64_t idle_quanta;
} sim_cluster;

/* Cluster `cluster` (0..3) of the card whose banks are `dram` (which must
 * outlive it), at `mhz`.  KS_OK, or KS_ERR_BUG / KS_ERR_SYSTEM
 * with err set and *out NULL. */
int sim_cluster_create(sim_cluster **out, sim_dram *dram, unsigned cluster, unsigned mhz,
                       ks_error *err);
void sim_cluster_destroy(sim_cluster *c);

/* Gives the cluster the card's NoC router (sim_noc.h; it must outlive the
 * cluster, or be detached with NULL): its NoC windows reach through it
 * and its LIM becomes the router's target at its tile.  Without one the
 * windows fault.  KS_OK or KS_ERR_BUG (router full). */
struct sim_noc;
int sim_cluster_attach_noc(sim_cluster *c, struct sim_noc *noc, ks_error *err);

/* Host access to LIM at core addresses (KMX_LIM_IMAGE, KMX_LIM_ARGS,
 * KMX_LIM_RESULT, ...).  Write the image before sim_cluster_reset_harts:
 * a hart decodes its code once. */
int sim_cluster_write_lim(sim_cluster *c, uint64_t addr, const void *src, uint64_t n,
                          ks_error *err);
int sim_cluster_read_lim(const sim_cluster *c, uint64_t addr, void *dst, uint64_t n,
                         ks_error *err);

/* Asks every core to stop: KMX_STOP_HOST into the stop line. */
void sim_cluster_request_stop(sim_cluster *c);

/* Resets all four harts at the cluster's current time: registers zero,
 * pc, mhartid 0..3, code fetched from the image area
 * (KMX_LIM_IMAGE, BH_IMAGE_MAX_BYTES), every one running.  KS_OK or
 * KS_ERR_SYSTEM. */
int sim_cluster_reset_harts(sim_cluster *c, uint64_t pc, ks_error *err);

/* From now on, every instruction each core of `cores` (bit i: core i)
 * retires also goes to fn (sim_trace.h), in order, its cycle the
 * cluster's clock; such a core runs an instruction at a time, with the
 * same results and times, until fn returns false for it.  cores 0 or fn
 * NULL: none. */
void sim_cluster_trace(sim_cluster *c, unsigned cores, sim_trace_fn fn, void *ctx);

/* For run_quantum and sim_cluster_run_observed: traced core `core` up to
 * until_cycle (its own cycles), each instruction recorded. */
void sim_cluster_run_traced(sim_cluster *c, unsigned core, uint64_t until_cycle);

/* From now on, every core's cycles, instructions and stalls are profiled
 * (sim_profile.h): each core runs an instruction at a time, with the same
 * results and times, and is never parked in an idle proof.  KS_OK or
 * KS_ERR_SYSTEM.  sim_cluster_profile_of: core `core`'s profile, or NULL. */
int sim_cluster_profile(sim_cluster *c, ks_error *err);
const struct sim_profile *sim_cluster_profile_of(const sim_cluster *c, unsigned core);

/* Observed (c->hooks set): the hooks' probes, watches and trap catching
 * on every core now; what sim_card_debug does when they change. */
void sim_cluster_hooks_install(sim_cluster *c);

/* For run_quantum (sim_cluster_debug.c): core `core` of an observed
 * cluster up to until_cycle (its own cycles), an instruction at a time
 * while it is stepped, installing what the events changed; and the
 * pause, when one was asked for, before a quantum. */
void sim_cluster_run_observed(sim_cluster *c, unsigned core, uint64_t until_cycle);
void sim_cluster_observe_pause(sim_cluster *c);
/* An event of `kind` on the cluster's first running core (core 0 when
 * none runs), for the debugger. */
void sim_cluster_observe_core(sim_cluster *c, sim_card_event_kind kind);

/* Runs whole quanta until the cluster's time is at or past until_ps (a
 * no-op if it already is). */
void sim_cluster_step(sim_cluster *c, uint64_t until_ps);

/* The same with the time in the cluster's cycles: whole quanta until its
 * time is at or past until_cycle, rounded up to a quantum boundary.
 * sim_cluster_step(c, ps) is sim_cluster_step_cycles(c,
 * sim_ps_to_cycles_ceil(ps, mhz)); a caller stepping several clusters of
 * one clock converts once. */
void sim_cluster_step_cycles(sim_cluster *c, uint64_t until_cycle);

/* For a caller stepping several clusters a quantum at a time (the card):
 * the cluster cycle (a quantum's end) up to which each of the cluster's
 * quanta would pass with every running hart parked, as things stand — so
 * long as its idle_unsure stays false (nothing writes its LIM from
 * outside) — or 0 when its next quantum runs a hart, or an observer
 * holds it.  Such a quantum changes nothing anyone else sees: the caller
 * may leave it for later and, when the cluster's next quantum is to run
 * or the step ends, bring it to `to` with sim_cluster_pass_parked, which
 * does for all those quanta at once what they would have done (the
 * parked harts' quanta counted, waiting harts' clocks kept up): the same
 * state as stepping them.  `to` is a quantum's end at most what
 * sim_cluster_parked_to said, with idle_unsure false at each quantum
 * left. */
uint64_t sim_cluster_parked_to(const sim_cluster *c);
void sim_cluster_pass_parked(sim_cluster *c, uint64_t to);

/* The cluster's time: picoseconds from the card's start, and mtime. */
uint64_t sim_cluster_now_ps(const sim_cluster *c);
uint64_t sim_cluster_mtime(const sim_cluster *c);

/* Core `core` (0..3): its registers, state, cycle and instruction
 * counts, last trap; NULL for a bad core.  Halting or waking it goes
 * through sim_hart_halt / sim_hart_wake.  Read the harts through this
 * (not c->harts): harts waiting in a parked cluster are brought up to
 * date here. */
sim_hart *sim_cluster_hart(sim_cluster *c, unsigned core);

/* Whether any hart is running (not in wfi, not halted, started). */
bool sim_cluster_busy(const sim_cluster *c);

/* The cluster's cache (inspection), and whether host memory ran out
 * during the run (then err says so; the run cannot be trusted). */
sim_cache *sim_cluster_cache(sim_cluster *c);
/* Its figures for the run's stats (sim_card.h, "counters"): its cores',
 * its cache's, its bank bytes; noc[kind] its windows' bytes by
 * sim_noc_kind. */
void sim_cluster_get_stats(sim_cluster *c, sim_card_cluster_stats *out,
                           uint64_t noc[SIM_NOC_TENSIX + 1]);
bool sim_cluster_failed(const sim_cluster *c, ks_error *err);

#endif
