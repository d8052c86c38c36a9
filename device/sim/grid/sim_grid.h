/* sim_grid: the simulated card's Tensix grid, 120 worker cores in grid
 * order (BH_GRID_CORES), running commands' handlers as coroutines
 * (km_device.h is the handlers' side).
 *
 * A job is one command run on every core of its group; its owner (the
 * dispatcher) submits it, steps the grid through modeled time and polls
 * for finished jobs:
 *
 *     sim_grid *g = sim_grid_create(&dram, SIM_GRID_MHZ);
 *     sim_grid_load_kernels(g, "kernels.so", names, n, &err); // optional
 *     if (sim_grid_submit(g, id, &command, limit_ps, now_ps) == KM_REASON_NONE)
 *         ...
 *     sim_grid_step(g, until_ps);
 *     while (sim_grid_poll_done(g, &done)) ...
 *
 * Time: every core has its own modeled time (picoseconds, sim_clock.h); a
 * job's cores start at the submit's now_ps.  sim_grid_step runs, again and
 * again, the ready core that is furthest behind (lowest index on a tie)
 * until it next spends time, so memory effects happen in modeled-time
 * order and a run is the same every time.  A NoC read takes its bytes, and
 * a write lands, at the end of its modeled cost.
 *
 * Finished jobs come out of sim_grid_poll_done in the order of their end
 * times (job id on a tie), each with end_ps < the until_ps of the step that
 * finished it.  A job with a time limit that has not finished by
 * now_ps + limit ends at exactly that time, timed out: its cores are cut
 * off where they were (their writes not yet landed never land) and are
 * free again.
 *
 * A program's handler that faults or never gives way is taken out of its
 * core, which halts for good (sim_grid_faults; grid_trap.c keeps a
 * watchdog thread of its own for that while kernels are loaded).
 *
 * Not thread-safe: one owner calls everything (from any one thread at a
 * time). */
#ifndef SIM_GRID_H
#define SIM_GRID_H

#include <stdbool.h>
#include <stdint.h>

#include "km_card_io.h"
#include "km_device.h"
#include "ks_error.h"
#include "kmx_layout.h"
#include "sim_card.h"
#include "sim_dram.h"

/* The one table of the grid's modeled costs (README, "The Tensix grid").
 * Cycles are of the Tensix clock; ps the same at any clock. */
#define SIM_GRID_MHZ 1350u               /* Tensix clock */
#define SIM_GRID_LAUNCH_CYCLES 100u      /* a core starting its handler */
#define SIM_GRID_NOC_READ_PS 600000u     /* a NoC read's round trip to a bank */
#define SIM_GRID_NOC_WRITE_PS 300000u    /* a NoC write until acknowledged */
#define SIM_GRID_NOC_BYTES_PER_CYCLE 32u /* then this many bytes a cycle */
#define SIM_GRID_SUM_CYCLES_PER_WORD 1u  /* built-in sum: adding a word */
#define SIM_GRID_COMBINE_CYCLES 20u      /* built-in sum: the leader takes one share */
#define SIM_GRID_CHUNK_BYTES 4096u       /* fill/copy/sum move this much a NoC call */
#define SIM_GRID_STACK_BYTES SIM_HANDLER_STACK_BYTES /* each core's coroutine stack */
#define SIM_GRID_PORT_LOOK_CYCLES 8u     /* a look at a slot of its control block */
#define SIM_GRID_PORT_SEND_PS 500000u    /* a send into an X280 LIM until acknowledged */

typedef struct sim_grid sim_grid;

/* A finished job. */
typedef struct sim_grid_done {
    uint32_t job_id;  /* as submitted */
    uint32_t result;  /* the leader's result word (0 when timed out) */
    uint64_t end_ps;  /* modeled time it ended (the deadline when timed out) */
    bool timed_out;   /* it outlived its time limit */
    uint16_t where;   /* KM_WHERE_* of its first X280 port wait that gave up */
} sim_grid_done;

/* A port message from a Tensix core, landing in its X280 core's mailbox
 * line: 16 bytes at `lim_address` of work cluster `cluster`'s LIM at
 * land_ps (sim_grid_next_landing). */
typedef struct sim_grid_landing {
    unsigned cluster;
    uint64_t lim_address;
    km_x280_msg_t message;
    uint64_t land_ps;
} sim_grid_landing;

/* A grid on `dram` (not owned) with its Tensix clock at `mhz` (normally
 * SIM_GRID_MHZ).  NULL when memory runs out.  Only the built-in handlers
 * until sim_grid_load_kernels. */
sim_grid *sim_grid_create(sim_dram *dram, unsigned mhz);
void sim_grid_free(sim_grid *grid); /* NULL is fine; unloads the kernels */

/* The regions km_region_address knows: `table` (not copied: it must outlive the
 * grid, or the next call). */
void sim_grid_set_regions(sim_grid *grid, const km_region_place *table, unsigned n);

/* The interleaved tensors km_tensor_of knows (grid_tensor.c): the same
 * terms. */
void sim_grid_set_tensors(sim_grid *grid, const km_tensor_place *table, unsigned n);

/* Loads the program's handlers from the kernels' shared object: names[i]
 * becomes handler id KM_HANDLER_FIRST_PROGRAM + i, its function the
 * exported km_handler_<names[i]>.  Replaces handlers loaded before.
 * KS_OK; KS_ERR_IMAGE when the object cannot be loaded or lacks a
 * handler, KS_ERR_INPUT for too many names, KS_ERR_BUG while jobs
 * run (nothing changes on failure).  The host program must export the
 * km_device.h functions to the object (link with -rdynamic). */
int sim_grid_load_kernels(sim_grid *grid, const char *so_path, const char *const names[],
                          unsigned n, ks_error *err);

/* Whether handler id `handler` (0..255) has a handler: a built-in or a
 * loaded program's. */
bool sim_grid_handler_known(const sim_grid *grid, uint32_t handler);

/* True when any core of first .. first + count - 1 runs a job (cores
 * outside the grid count as free). */
bool sim_grid_busy(const sim_grid *grid, unsigned first, unsigned count);

/* Starts job `job_id` (the owner's number, any value) at now_ps.
 * time_limit_ps: 0 for none.  KM_REASON_NONE, or why not (nothing
 * started): KM_REASON_HANDLER (no such handler), KM_REASON_GROUP (count 0
 * or past the grid), KM_REASON_FLAGS (unknown flag bits or bits 16..31 of
 * hdr set), KM_REASON_BUSY (a core of the group runs a job),
 * KM_REASON_STOPPING (the host ran out of memory for a core's stack or
 * the job's report: sim_grid_failed says so, and the run must end). */
uint32_t sim_grid_submit(sim_grid *grid, uint32_t job_id, const km_command_t *command,
                         uint64_t time_limit_ps, uint64_t now_ps);

/* Runs the cores until every one is idle, blocked, or at until_ps or
 * later; ends timed-out jobs whose deadline is at or before until_ps. */
void sim_grid_step(sim_grid *grid, uint64_t until_ps);

/* The earliest modeled time at which stepping can change anything (a
 * ready core's time or a deadline); UINT64_MAX when no job runs. */
uint64_t sim_grid_next_ps(const sim_grid *grid);

/* Ends running job `job_id` at once (its owner gave up on it, e.g. its
 * own time limit passed): its cores are cut off where they are and free,
 * and nothing is reported for it but *where (may be NULL): where its
 * first X280 port wait gave up or, when none did, where the first of its
 * cores still waiting waits — a wait the command's limit cut short, also
 * listed as given up at the limit.  False when no such job runs. */
bool sim_grid_cancel(sim_grid *grid, uint32_t job_id, uint16_t *where);

/* A failure of the grid's own model, the first, into *err (may be NULL):
 * KS_ERR_SYSTEM (out of memory: a job was refused) or KS_ERR_BUG (a core
 * could not be entered, or a count broke); false while there is none.
 * The run that meets one cannot be trusted and fails with it. */
bool sim_grid_failed(const sim_grid *grid, ks_error *err);

/* Takes the next finished job: true and *done filled, or false. */
bool sim_grid_poll_done(sim_grid *grid, sim_grid_done *done);

/* Jobs running (submitted, not yet finished). */
unsigned sim_grid_jobs(const sim_grid *grid);

/* The stop flag every handler sees through km_stop_requested; a port
 * wait gives up at once (at the last step's time). */
void sim_grid_set_stop(sim_grid *grid, bool stop);

/* The hand-over checker (sim_checker.h) the handlers' NoC reads and
 * writes report to (NULL: none). */
struct sim_checker;
void sim_grid_set_checker(sim_grid *grid, struct sim_checker *checker);

/* The program's handlers contained (grid_trap.c; sim_card.h,
 * sim_card_handler_faults): a handler that faults, or that runs `ms` of
 * real time without giving way (0: never checked), is taken out: its
 * core halts for good (busy to every later submit), its job never ends
 * (its owner's cancel releases the other cores).  The built-ins are
 * trusted: only with kernels loaded. */
void sim_grid_set_spin_limit(sim_grid *grid, unsigned ms);
const sim_handler_fault *sim_grid_faults(const sim_grid *grid, unsigned *n, unsigned *more);

/* Each core's part of each job, as the job ends (SIM_MOMENT_HANDLER, to
 * fn; NULL: none).  Costs no modeled time. */
void sim_grid_record(sim_grid *grid, sim_card_moment_fn fn, void *ctx);

/* ---- X280 ports (grid_port.c; km_device.h's port calls) ----
 *
 * The dealing (copied; NULL: no ports, every core's port refuses).  A
 * Tensix core's messages go to its X280 core's mailbox line as landings
 * the owner takes in time order and writes into the cluster's LIM; the
 * X280 cores' NoC windows reach the cores' control blocks through
 * sim_grid_tile_load/store (a NoC target at each Tensix tile): a message
 * slot takes its two 8-byte halves, low first, and lands both at
 * at_ps + SIM_NOC_LAND_PS.  Only KM_CONTROL_X280's two slots answer. */
void sim_grid_set_ports(sim_grid *grid, const km_port_dealing *dealing);
int sim_grid_tile_load(void *grid, unsigned core, uint64_t addr, unsigned size,
                       uint64_t *value, uint64_t at_ps);
int sim_grid_tile_store(void *grid, unsigned core, uint64_t addr, unsigned size,
                        uint64_t value, uint64_t at_ps);

/* The earliest message in flight, when it lands at or before up_to_ps:
 * true and *out, taken; else false.  They come in the order they were
 * sent, which is the order they land. */
bool sim_grid_next_landing(sim_grid *grid, uint64_t up_to_ps, sim_grid_landing *out);

/* What the grid did (the run JSON's stats).  busy_ps: each core's time
 * that handlers spent (grid_spend_ps: the launch, km_compute, km_spend_ns,
 * NoC calls, port looks and sends), never the time it waited (a port
 * wait, a leader waiting for its group); handlers: the handlers it
 * started.  bank_bytes: bytes km_noc_read/km_noc_write moved (both ways);
 * mailbox_bytes: the port messages sent to X280 mailboxes. */
typedef struct sim_grid_stats {
    uint64_t busy_ps[BH_GRID_CORES];
    uint64_t handlers[BH_GRID_CORES];
    uint64_t bank_bytes, mailbox_bytes;
} sim_grid_stats;
void sim_grid_get_stats(const sim_grid *grid, sim_grid_stats *out);

/* Port waits that gave up and sends refused, in order (the first
 * KM_PORT_WAITS_KEPT); *n how many. */
const km_port_gave_up *sim_grid_port_waits(const sim_grid *grid, unsigned *n);

/* Tensix core `core`'s print buffer (km_print, kmx_layout.h section 8:
 * `when` in picoseconds, `format` a pointer into the kernels' object),
 * or NULL while it never printed.  The grid's: the drain moves its tail. */
kmx_print_buffer *sim_grid_print_buffer(sim_grid *grid, unsigned core);

#endif
