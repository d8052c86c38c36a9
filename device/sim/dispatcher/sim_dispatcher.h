/* sim_dispatcher: the model of cluster 0's persistent kernel — the host
 * ring and one command ring per work cluster, in the spec's protocol
 * ("The command ring"; kmx_layout.h section 3 is the binary contract), a
 * job queue, and a grid it feeds through a small job interface
 * (sim_job_ops) so that the Tensix grid plugs in without this file
 * knowing it.
 *
 * Memory.  The dispatcher never owns ring memory: each ring half is
 * reached through byte-addressed accessors (sim_ring_mem), so one code
 * path serves a ring in the dispatcher's LIM, in a work cluster's LIM or in
 * host memory.  A ring has two halves, possibly in different memories:
 * the command lines and the read line (the reader of events writes it;
 * the kernel reads both) and the counts line and the events (the kernel
 * writes both).
 *
 * Time.  One modeled clock in picoseconds (sim_clock.h).  Passes run back
 * to back; each costs its base plus what its ring accesses and grid calls
 * cost, from one table (SIM_DISPATCH_TIMING_TABLE; device/sim/README.md,
 * "The dispatcher", says how it was chosen).  sim_dispatcher_step runs
 * every pass that starts at or before `until_ps`; how a caller cuts a run
 * into steps never changes it.  Nothing depends on the host: a run is
 * deterministic.
 *
 * The host side (sim_ring_host) is the writer and reader of one ring as
 * the protocol wants them: the session feeds host-fed programs with it,
 * and the tests play the thread with it. */
#ifndef SIM_DISPATCHER_H
#define SIM_DISPATCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kmx_layout.h"
#include "sim_card.h" /* sim_card_moment */

/* ---- memory accessors ---------------------------------------------------- */

/* Byte-addressed memory: read or write `bytes` at `address`, in one piece
 * (the caller's unit of atomicity: a 16-byte write lands whole).  The
 * address space is the accessor's own. */
typedef struct sim_ring_mem {
    void *ctx;
    void (*read)(void *ctx, uint64_t address, void *out, size_t bytes);
    void (*write)(void *ctx, uint64_t address, const void *in, size_t bytes);
} sim_ring_mem;

/* A flat buffer of `size` bytes that answers at `base`.. (host memory,
 * tests).  Out-of-range accesses read zeroes and write nothing. */
typedef struct sim_ring_buffer {
    uint8_t *bytes;
    uint64_t base;
    size_t size;
} sim_ring_buffer;
sim_ring_mem sim_ring_buffer_mem(sim_ring_buffer *buffer);

/* A tile's memory through the card's NoC (sim_noc): a cluster's LIM or a
 * DRAM bank, around every cache, as the kernel's NoC reads and writes
 * reach a thread's ring.  An access no target answers reads zeroes and
 * writes nothing. */
struct sim_noc;
typedef struct sim_ring_noc {
    struct sim_noc *noc;
    unsigned x, y;
} sim_ring_noc;
sim_ring_mem sim_ring_noc_mem(sim_ring_noc *port);

/* ---- the job interface (the grid) ---------------------------------------- */

/* What the dispatcher asks of the grid.  `job` ids are the dispatcher's
 * (small integers, reused once the job's event is written).  All calls are
 * made during a pass at modeled time `now_ps`. */
typedef struct sim_job_ops {
    void *ctx;
    /* Is `handler` (1..255) a handler of this program or a built-in? */
    bool (*handler_known)(void *ctx, uint32_t handler);
    /* Can the grid start a job on cores first..first+count-1 now? */
    bool (*can_take)(void *ctx, uint32_t first, uint32_t count, bool exclusive);
    /* Start `command` as job `job`. */
    void (*submit)(void *ctx, uint32_t job, const km_command_t *command, uint64_t now_ps);
    /* One job that has ended by `now_ps`, if any: its leader's result word,
     * whether it timed out on the grid's side, when it ended, and where its
     * first X280 port wait gave up (KM_WHERE_*: the event's reason).
     * Returns false when no job has ended. */
    bool (*poll_done)(void *ctx, uint64_t now_ps, uint32_t *job, uint32_t *result,
                      bool *timed_out, uint64_t *end_ps, uint16_t *where);
    /* Optional: the dispatcher gave up on `job` (its time limit passed):
     * raise its stop flag.  The grid reports nothing more about it, and
     * the id may be given to a new job once its event is written.  Returns
     * where the job's first X280 port wait gave up, or where a core of it
     * still waited (KM_WHERE_*: the TIMEOUT event's reason). */
    uint16_t (*cancel)(void *ctx, uint32_t job, uint64_t now_ps);
} sim_job_ops;

/* ---- the time table ---------------------------------------------------------
 * Each entry: X280 cycles of cluster 0 (faster at 1750 MHz) plus
 * picoseconds (NoC time, the same at any clock).
 *
 *   name           cycles  ps     what */
#define SIM_DISPATCH_TIMING_TABLE(X)                                                            \
    X(PASS,           500,       0, "a pass's own work: the loop, the job table, the queue's "  \
                                    "head (with the rings' looks: most of a round's ~7000 "     \
                                    "cycles, the spec's 53 vs 50 us)")                          \
    X(GRID_POLL,        0, 5050000, "reading the grid's done lines: non-posted NoC reads of "   \
                                    "the groups' leaders, round trips across the grid; most "   \
                                    "of a pass, set so a round of two is 53 us (bench/ring)")  \
    X(LINE_LOOK,      120,       0, "reading a command line's last 16 bytes in own LIM "       \
                                    "(4 words at 30 cycles)")                                   \
    X(LINE_TAKE,      360,       0, "reading a taken line's 48 bytes of words (12 words)")     \
    X(READ_LINE,       30,       0, "reading a ring's read line (`taken`) in own LIM")         \
    X(NOC_WRITE,       40,  600000, "a posted NoC write into a thread's LIM (counts, an "      \
                                    "event): issue, then its flight")                           \
    X(GRID_SUBMIT,    200, 1000000, "handing a job to the grid: the command to the group's "   \
                                    "cores over the NoC")                                       \
    X(GRID_DONE,      100,       0, "collecting one finished job")

typedef enum sim_dispatch_cost {
#define SIM_DISPATCH_COST_ENUM(name, cycles, ps, what) SIM_DISPATCH_##name,
    SIM_DISPATCH_TIMING_TABLE(SIM_DISPATCH_COST_ENUM)
#undef SIM_DISPATCH_COST_ENUM
    SIM_DISPATCH_COSTS
} sim_dispatch_cost;

typedef struct sim_dispatch_timing {
    uint32_t cycles[SIM_DISPATCH_COSTS];
    uint64_t ps[SIM_DISPATCH_COSTS];
} sim_dispatch_timing;

/* ---- the dispatcher ---------------------------------------------------------- */

#define SIM_DISPATCH_RINGS 4u        /* 0: the host ring; 1..3: the work clusters' */
#define SIM_DISPATCH_JOBS_MAX 64u    /* job slots (accepted until the event is written) */
#define SIM_DISPATCH_HELD_EXTRA 4u   /* per ring: rejections and a wake beyond the jobs */

typedef struct sim_dispatcher_params {
    unsigned mhz;               /* cluster 0's clock: SIM_MHZ_DEFAULT or SIM_MHZ_FAST */
    uint32_t job_slots;         /* 1..SIM_DISPATCH_JOBS_MAX: commands accepted and not yet
                                   returned as events */
    uint32_t queue_depth;       /* 1..job_slots: accepted commands waiting for the grid */
    uint64_t time_limit_ps;     /* a command running longer ends KM_EVENT_TIMEOUT */
    uint32_t takes_per_look;    /* commands taken from a ring per look, at most */
    sim_dispatch_timing timing; /* the table, at this clock */
    sim_job_ops jobs;
    /* Optional: called once a pass, at the modeled time its rings are
     * looked at, before any ring access — the session runs the threads'
     * clusters up to that time, so the kernel sees what they wrote by then
     * and they see its writes after it. */
    void (*sync)(void *ctx, uint64_t now_ps);
    void *sync_ctx;
} sim_dispatcher_params;

/* Defaults: 1000 MHz, 16 slots, a queue of 8, a limit of 1 s, 4 takes a
 * look, the table above; jobs left zero (the caller's). */
void sim_dispatcher_params_default(sim_dispatcher_params *params);

typedef struct sim_dispatcher sim_dispatcher;

/* NULL when params are out of range or a job callback (other than cancel)
 * is missing. */
sim_dispatcher *sim_dispatcher_create(const sim_dispatcher_params *params);
void sim_dispatcher_free(sim_dispatcher *d);

/* Attach ring `ring` (0 host, 1..3 work cluster).  `commands_side` reaches
 * desc->commands and desc->read_line; `events_side` reaches desc->counts
 * and desc->events.  The ring's memory must hold zeroes in its counts,
 * read line, command lines and events (the host zeroes them before the
 * start).  Returns false for a bad ring id, a depth that is not a power of
 * two within KMX_RING_COMMANDS_MAX / KMX_RING_EVENTS_MAX, or kind
 * KMX_RING_NONE. */
bool sim_dispatcher_attach_ring(sim_dispatcher *d, unsigned ring, const sim_ring_mem *commands_side,
                                const sim_ring_mem *events_side, const kmx_ring_descriptor *desc);

/* Run every pass that starts at or before `until_ps`.  Returns the time
 * the next pass starts. */
uint64_t sim_dispatcher_step(sim_dispatcher *d, uint64_t until_ps);

/* From now on every command taken is rejected KM_REASON_STOPPING; jobs in
 * flight still end with their events. */
void sim_dispatcher_stop(sim_dispatcher *d);

/* The command job slot `job` runs for the grid: its ring and handle
 * (false when the slot runs nothing). */
bool sim_dispatcher_job_command(const sim_dispatcher *d, uint32_t job, unsigned *ring,
                                uint32_t *handle);

/* The passes that did something and what happened to each command
 * (SIM_MOMENT_PASS, _TAKEN, _STARTED, _EVENT) to fn (NULL: none).  Costs
 * no modeled time. */
void sim_dispatcher_record(sim_dispatcher *d, sim_card_moment_fn fn, void *ctx);

/* What happened, for tests, bench and the run's JSON. */
typedef struct sim_dispatcher_stats {
    uint64_t passes;
    uint64_t now_ps;                        /* when the next pass starts */
    uint64_t looks[SIM_DISPATCH_RINGS];     /* passes that looked at the ring */
    uint64_t taken[SIM_DISPATCH_RINGS];     /* commands taken (consumed) */
    uint64_t events[SIM_DISPATCH_RINGS];    /* events written */
    uint64_t held[SIM_DISPATCH_RINGS];      /* times an event waited for a free event slot */
    uint64_t rejected_busy[SIM_DISPATCH_RINGS];
    uint64_t wakes[SIM_DISPATCH_RINGS];
    uint32_t jobs_in_use;                   /* job slots in use now */
} sim_dispatcher_stats;
void sim_dispatcher_get_stats(const sim_dispatcher *d, sim_dispatcher_stats *out);

/* The work ring (1..3) pass number `pass` (from 0) looks at, or 0 for
 * none: pass k looks at the host ring and at work ring k % 4 (none when
 * that is 0), so each work ring every fourth pass. */
unsigned sim_dispatcher_work_ring_of_pass(uint64_t pass);

/* ---- the host side of one ring ---------------------------------------------- */

typedef struct sim_ring_host {
    sim_ring_mem commands_side; /* command lines, read line */
    sim_ring_mem events_side;   /* counts, events */
    kmx_ring_descriptor desc;
    uint32_t submitted; /* the last command's number */
    uint32_t taken;     /* events taken */
} sim_ring_host;

#define SIM_RING_OK 0
#define SIM_RING_FULL 1  /* the slot is not free yet: the kernel has not consumed enough */
#define SIM_RING_EMPTY 2 /* no event yet (or one being written) */

void sim_ring_host_init(sim_ring_host *h, const sim_ring_mem *commands_side,
                        const sim_ring_mem *events_side, const kmx_ring_descriptor *desc);

/* Submit: words first, then sequence and the landing words in one 16-byte
 * write.  `*handle` is the command's number. */
int sim_ring_host_submit(sim_ring_host *h, const km_command_t *command, uint32_t *handle);

/* Take the next event if it is complete: index, fields, index again; then
 * publish `taken` in the read line. */
int sim_ring_host_poll(sim_ring_host *h, km_event_t *event);

#endif
