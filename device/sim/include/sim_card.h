/* sim_card: the simulated Blackhole as one thing — the API through which
 * kmrun's backends load and run a program on it.  Nothing above device/sim/
 * reaches a part of the card (a cluster, the NoC, the grid, the
 * dispatcher) but through these functions.
 *
 * A card owns its DRAM banks (every byte zero at creation), the NoC,
 * cluster 0 (the dispatcher's: its local memory holds the threads'
 * command lines and answers on the NoC; its cores are the dispatcher
 * model, so they never run), the work clusters a program adds, the Tensix
 * grid with the program's handlers, the dispatcher, the host ring with
 * its feeder (the manifest's host-fed commands) and every thread's ring.
 *
 *   sim_card_create(&card, &params, &err)      the kernel side runs from here
 *   sim_card_add_cluster(card, 1, &err)        per thread: a work cluster,
 *   sim_card_load_image / write_lim / write_dram   its image, blocks, regions,
 *   sim_card_attach_ring(card, 1, &desc, &err)     its ring,
 *   sim_card_start(card, &err)                 then every cluster's cores at once
 *   sim_card_step(card, until_ps) ...          modeled time goes forward
 *   sim_card_read_lim / read_dram              the host looks, as on a card
 *   sim_card_stats_get(card, &stats)           what the parts counted ("counters")
 *   sim_card_free(card)
 *
 * The host fallback uses the card without work clusters: its threads run
 * on the host and reach the dispatcher through rings in host memory
 * (sim_card_attach_host_ring), and the kernel side goes forward one pass
 * at a time (sim_card_pass).
 *
 * Time is modeled picoseconds from the card's start (sim_clock.h).
 * Every function is deterministic: the same calls give the same memory,
 * the same results and the same times, whatever the host.  Not
 * thread-safe: one owner calls everything (the host fallback serialises
 * its threads' calls under a lock of its own). */
#ifndef SIM_CARD_H
#define SIM_CARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_card_io.h"
#include "km_device.h"
#include "kmx_layout.h"
#include "ks_error.h"
#include "sim_clock.h"
#include "sim_profile.h"
#include "sim_trace.h"

typedef struct sim_card sim_card;

/* A host-fed command as the feeder submits it: after the previous one has
 * its event when that one `wait`s, else at once. */
typedef struct sim_card_command {
    km_command_t command;
    bool wait;   /* the next command waits for this one's event */
    bool result; /* KM_FLAG_RESULT: the event carries the leader's word */
} sim_card_command;

typedef struct sim_card_params {
    unsigned mhz; /* the X280 clock: SIM_MHZ_DEFAULT or SIM_MHZ_FAST */
    /* The program's Tensix handlers: names[i] is handler id
     * KM_HANDLER_FIRST_PROGRAM + i (NULL kernels_so: built-ins only). */
    const char *kernels_so;
    const char *const *handlers;
    unsigned nhandlers;
    /* The host-fed commands, in order (copied). */
    const sim_card_command *commands;
    size_t ncommands;
    /* Every region copy of the program (copied; the names must outlive
     * the card). */
    const km_region_place *regions;
    unsigned nregions;
    /* The X280 ports' dealing (copied), or NULL when the program has no
     * ports: the grid's cores store into their X280 cores' mailboxes, and
     * the clusters' NoC windows reach the Tensix tiles' control blocks.
     * The host writes each serving cluster's table itself (kmx_ports_area). */
    const km_port_dealing *ports;
    /* The hand-over checker (sim_card_handovers): the card keeps, for
     * each line a cluster caches, what filled and dirtied it and who wrote
     * its DRAM copy since, and reports the reads and write-backs that a
     * missing kmx_invalidate or kmx_flush makes wrong.  Off: nothing is
     * kept, nothing costs. */
    bool check_handover;
    /* The X280 cores' instruction traces: every instruction each core of
     * trace_cores (bit (cluster - 1) * 4 + core, work clusters 1..3)
     * retires goes to trace (sim_trace.h), in order, its cycle the
     * cluster's clock; a traced core runs an instruction at a time, with
     * the same results and times, until trace returns false for it.
     * trace NULL or trace_cores 0: none. */
    uint32_t trace_cores;
    sim_trace_fn trace;
    void *trace_ctx;
    /* A handler that runs this long in real time (ms) without giving way
     * (a call that spends modeled time) is taken out as endless
     * (sim_card_handler_faults); 0: never. */
    unsigned handler_spin_ms;
    /* Every X280 core's exact profile (sim_profile.h; sim_card_profile):
     * each runs an instruction at a time, with the same results and
     * times.  Off: nothing is kept, nothing costs. */
    bool profile;
    /* The program's interleaved tensors (copied; the names must outlive
     * the card): what km_tensor_of answers. */
    const km_tensor_place *tensors;
    unsigned ntensors;
} sim_card_params;

/* A fresh card.  KS_OK; KS_ERR_IMAGE when the kernels cannot be loaded,
 * KS_ERR_INPUT for a clock the card does not have or too many handlers,
 * KS_ERR_SYSTEM when memory runs out.  *out is NULL on failure. */
int sim_card_create(sim_card **out, const sim_card_params *params, ks_error *err);
void sim_card_free(sim_card *card); /* NULL is fine */

/* ---- loading a work cluster (1..3), before sim_card_start ---------------- */

/* Work cluster `cluster` comes to life: local memory zero, cache empty,
 * cores not started, on the NoC. */
int sim_card_add_cluster(sim_card *card, unsigned cluster, ks_error *err);

/* Work cluster `cluster`'s L2 prefetcher registers, {basicCtrl,
 * additionalCtrl} for each of its cores (blackhole.h, BH_L2PF): get reads
 * them as the cores left them; set gives a just-added cluster those a
 * previous image on that cluster left (they keep their values until a
 * card reset; a new cluster has the reset values). */
int sim_card_prefetch_get(const sim_card *card, unsigned cluster,
                          uint32_t regs[BH_CLUSTER_CORES][2], ks_error *err);
int sim_card_prefetch_set(sim_card *card, unsigned cluster,
                          const uint32_t regs[BH_CLUSTER_CORES][2], ks_error *err);

/* The image's loadable segments into the cluster's image area, where they
 * ask (memsz past filesz zeroed).  KS_ERR_IMAGE for a segment outside
 * the BH_IMAGE_MAX_BYTES the cluster fetches from; `subject` names the
 * image in messages. */
int sim_card_load_image(sim_card *card, unsigned cluster, const char *path, const char *subject,
                        ks_error *err);

/* The host's accesses to a cluster's local memory (KMX_LIM_* addresses). */
int sim_card_write_lim(sim_card *card, unsigned cluster, uint64_t addr, const void *src,
                       uint64_t n, ks_error *err);
int sim_card_read_lim(sim_card *card, unsigned cluster, uint64_t addr, void *dst, uint64_t n,
                      ks_error *err);

/* The thread on `cluster`'s ring, where its argument block's descriptor
 * puts it (nothing for KMX_RING_NONE): the dispatcher reaches it over the
 * NoC. */
int sim_card_attach_ring(sim_card *card, unsigned cluster, const kmx_ring_descriptor *desc,
                         ks_error *err);

/* Every added cluster's cores leave reset at KMX_LIM_IMAGE together. */
int sim_card_start(sim_card *card, ks_error *err);

/* ---- DRAM, as the host reaches it (never through a cache) ---------------- */

int sim_card_write_dram(sim_card *card, unsigned bank, uint64_t bank_address, const void *src,
                        uint64_t n, ks_error *err);
int sim_card_read_dram(sim_card *card, unsigned bank, uint64_t bank_address, void *dst,
                       uint64_t n, ks_error *err);
/* A stopped card's bytes [bank_address, + n) of `bank` copied into dst
 * (n bytes of zeros the caller owns), touching only what the card wrote;
 * with `lend`, dst holds them from then on (the caller keeps it until
 * sim_card_free): sim_dram_move (memory/sim_dram.h) says how.  `data`
 * (may be NULL) gets a bit for each 1 << shift bytes of dst that may not
 * be zero. */
int sim_card_move_dram(sim_card *card, unsigned bank, uint64_t bank_address, void *dst,
                       uint64_t n, bool lend, uint64_t *data, unsigned shift, ks_error *err);
/* Before the range is written: dst (n bytes of zeros the caller keeps
 * until sim_card_free) is where the card keeps those bytes (sim_dram_back),
 * so that the move into dst after the stop copies nothing.  false when
 * too many ranges are backed (nothing lost but the saving). */
bool sim_card_back_dram(sim_card *card, unsigned bank, uint64_t bank_address, void *dst,
                        uint64_t n);

/* ---- running --------------------------------------------------------------- */

/* Runs the card up to until_ps: the kernel side's passes that start by
 * then (while host-fed commands are pending or a work cluster runs), and
 * every work cluster that is not parked.  Clusters that run together go
 * forward one quantum at a time, so a store one makes into another's
 * memory is seen from the next quantum on; a pass that looks at the rings
 * first brings the clusters up to its time. */
void sim_card_step(sim_card *card, uint64_t until_ps);

/* The host is done with a cluster (its thread ended, or is stuck and the
 * runtime would mark the cluster unhealthy): its cores halt and it is no
 * longer stepped. */
void sim_card_park(sim_card *card, unsigned cluster);

/* Whether a core of a cluster that is not parked can run (not all in wfi
 * or halted): when none can, nothing changes until an outside event. */
bool sim_card_busy(const sim_card *card);

/* The stop word of a cluster, as the host writes it. */
void sim_card_request_stop(sim_card *card, unsigned cluster);

/* A failure inside a cluster's model (KS_ERR_SYSTEM: its memory could not
 * grow) or the Tensix grid's (KS_ERR_SYSTEM: no memory for a job's core
 * stacks, the job refused; KS_ERR_BUG: a core could not be entered),
 * once; false while there is none. */
bool sim_card_failed(const sim_card *card, unsigned cluster, ks_error *err);

/* Where a cluster's core is: its pc, and whether it runs (not in wfi, not
 * halted); trap_loop: it runs in a trap loop that only a reset ends (what
 * is at pc, which is mtvec, traps with mcause trap_cause and comes back
 * there: sim_hart_trap_loop). */
typedef struct sim_card_core {
    uint64_t pc;
    bool running;
    bool trap_loop;
    uint64_t trap_cause;
} sim_card_core;
void sim_card_core_at(const sim_card *card, unsigned cluster, unsigned core, sim_card_core *out);

/* Core `core` of work cluster `cluster`'s profile (sim_card_params'
 * profile), or NULL: not profiled, no such core. */
const sim_profile *sim_card_profile(const sim_card *card, unsigned cluster, unsigned core);

/* Instructions retired by every core of the work clusters. */
uint64_t sim_card_instructions(const sim_card *card);

/* ---- counters ----------------------------------------------------------------
 *
 * What the run did, as the parts count it (the run JSON's `stats`).  Each
 * figure is exact, counted where it happens, and none changes a modeled
 * time.  Only the work clusters added (present) and Tensix cores that ran
 * a handler (handlers > 0) have figures; the rest are zero.
 *
 *   x280 core        instructions (retired; their sum over every core is
 *                    sim_card_instructions), cycles (the cycles it ran:
 *                    none while halted or in wfi), memory_stall_cycles (of
 *                    those, what its memory accesses added: each load's,
 *                    store's, AMO's latency beyond the one cycle every
 *                    instruction costs; the rest are that cycle, the
 *                    multiply/divide/FP extras and traps)
 *   cluster          its cache's hits, misses (each a line filled from
 *                    its bank) and write-backs (dirty lines written to its
 *                    bank: evictions and FLUSH64); bank_read/bank_written,
 *                    by bank: the fills and write-backs (64 bytes each)
 *                    plus its cores' uncached and NoC-window bytes
 *   noc_bytes        by route, both directions: X280 windows to a bank, to
 *                    another cluster's LIM, to a Tensix tile; Tensix
 *                    km_noc_read/km_noc_write; Tensix port messages into
 *                    X280 mailboxes (16 bytes each).  Not the dispatcher's
 *                    own ring traffic.
 *   tensix core      busy_ps: the modeled time its handlers spent (launch,
 *                    km_compute, km_spend_ns, NoC calls, port looks and
 *                    sends), never the time it waited (port waits, a
 *                    leader waiting for its group); handlers: how many ran
 *   dispatcher       passes; commands taken from every ring (host-fed and
 *                    the threads') */
#define SIM_CARD_ROUTE_X280_TO_BANK 0u
#define SIM_CARD_ROUTE_X280_TO_LIM 1u
#define SIM_CARD_ROUTE_X280_TO_TENSIX 2u
#define SIM_CARD_ROUTE_TENSIX_TO_BANK 3u
#define SIM_CARD_ROUTE_TENSIX_TO_X280 4u
#define SIM_CARD_ROUTES 5u
typedef struct sim_card_core_stats {
    uint64_t instructions, cycles, memory_stall_cycles;
} sim_card_core_stats;
typedef struct sim_card_cluster_stats {
    bool present;
    sim_card_core_stats cores[BH_CLUSTER_CORES];
    uint64_t cache_hits, cache_misses, write_backs;
    uint64_t bank_read[BH_DRAM_BANKS], bank_written[BH_DRAM_BANKS];
} sim_card_cluster_stats;
typedef struct sim_card_stats {
    sim_card_cluster_stats clusters[BH_CLUSTERS]; /* by number; 0 never present */
    uint64_t noc_bytes[SIM_CARD_ROUTES];           /* SIM_CARD_ROUTE_* */
    uint64_t tensix_busy_ps[BH_GRID_CORES];        /* grid order */
    uint64_t tensix_handlers[BH_GRID_CORES];
    uint64_t dispatcher_passes, dispatcher_commands;
} sim_card_stats;
void sim_card_stats_get(const sim_card *card, sim_card_stats *out);

/* ---- prints (kmx_print, km_print) -----------------------------------------
 *
 * Every core prints into its own buffer (kmx_layout.h section 8): an X280
 * core into its cluster's LIM, a Tensix core into its L1 (the grid's),
 * the host fallback's cores into the card through sim_card_host_print.
 * sim_card_drain_prints takes what every buffer holds, formats it, and
 * hands each print to fn in time order (then X280 before Tensix, by
 * cluster, core, and the order each core printed); nothing is handed on
 * twice.  The host calls it when it chooses (kmrun's run driver: every
 * 500 µs of modeled time, KM_PRINT_DRAIN_PS, and after the stop); what a buffer
 * cannot hold until then is dropped and counted by its writer. */
#define SIM_PRINT_X280 0u
#define SIM_PRINT_TENSIX 1u
typedef struct sim_card_print {
    uint8_t kind;    /* SIM_PRINT_* */
    uint8_t cluster; /* X280: 1..3 */
    uint16_t core;   /* X280: 0..3; Tensix: its grid index */
    uint64_t ps;     /* modeled time from the card's start at the print (the
                        host fallback's: what sim_card_host_print was given) */
    const char *text; /* one line, no newline (valid during the call) */
} sim_card_print;
typedef void (*sim_card_print_fn)(const sim_card_print *p, void *ctx);
void sim_card_drain_prints(sim_card *card, sim_card_print_fn fn, void *ctx);

/* Prints dropped so far, by core. */
typedef struct sim_card_print_drops {
    uint32_t x280[BH_CLUSTERS][BH_CLUSTER_CORES]; /* by cluster number, core */
    uint32_t tensix[BH_GRID_CORES];
} sim_card_print_drops;
void sim_card_print_drops_get(const sim_card *card, sim_card_print_drops *out);
/* Whether the host ran out of memory for a print the card drained (or
 * for a host fallback's print buffer): one was not handed on, and no
 * drop counts it (a Tensix core's buffer that cannot be had fails the
 * grid instead: sim_card_failed). */
bool sim_card_prints_lost(const sim_card *card);

/* The host fallback's print from core `core` of `cluster`: a record of n
 * slots as kmx_print_encode writes it, its `when` in picoseconds, into
 * that core's buffer in the card.  False when it had no room (dropped and
 * counted) or the record makes no sense. */
bool sim_card_host_print(sim_card *card, unsigned cluster, unsigned core, const uint64_t *rec,
                         unsigned n);

/* ---- the kernel side ------------------------------------------------------- */

/* Whether every host-fed command has its event. */
bool sim_card_commands_done(const sim_card *card);
/* One per command (the params', then the fed ones), in order; the card's,
 * valid until it is freed or the next sim_card_feed. */
const km_command_result *sim_card_command_results(const sim_card *card);
/* A host-fed command after the ones the card has (the host's control
 * loop: it decides the next command from the last one's event): the
 * feeder submits it at the end of the next dispatcher pass, once the
 * command before it lets it (that one's `wait`).  *index: its place in
 * sim_card_command_results.  KS_ERR_SYSTEM when memory runs out. */
int sim_card_feed(sim_card *card, const sim_card_command *command, size_t *index, ks_error *err);
/* How many commands the card has (the params' and the fed ones). */
size_t sim_card_ncommands(const sim_card *card);

/* ---- the hand-over checker (params.check_handover) -------------------------
 *
 * Who touched a DRAM line: an X280 core (cluster, core, the pc of its load
 * or of the store that dirtied the line), a Tensix handler (its core, its
 * handler id, and the return address of its km_noc_read/km_noc_write
 * call as an offset in the kernels' object), or the host (the initial
 * contents). */
#define SIM_SITE_NONE 0u
#define SIM_SITE_X280 1u
#define SIM_SITE_HANDLER 2u
#define SIM_SITE_HOST 3u
typedef struct sim_site {
    uint8_t kind;    /* SIM_SITE_* */
    uint8_t cluster; /* X280: 1..3 */
    uint16_t core;   /* X280: 0..3; handler: the Tensix core 0..119 */
    uint32_t handler; /* handler: its id */
    uint64_t pc;     /* X280: the instruction's address in the image;
                        handler: the call's return address, from the
                        kernels' object's start */
    uint64_t ps;     /* modeled time */
    uint64_t caller; /* X280: its return address register at the access — for
                        an access inside the runtime (kmx_push's stores), the
                        thread's call */
} sim_site;

/* What the checker reports.  One finding is one hazard over a run of
 * contiguous lines: the same kind, cluster and core, instruction (pc) and
 * writer, on lines next to each other (a loop over a region that was not
 * flushed is one finding, its byte range and its count of lines); a line
 * is reported once per kind and pc. */
#define SIM_HANDOVER_STALE_READ 1u     /* a cached line read after someone else
                                          wrote its DRAM copy: kmx_invalidate missing */
#define SIM_HANDOVER_LOST_WRITE 2u     /* a dirty line written back over bytes someone
                                          else wrote after the fill: kmx_flush missing
                                          before the hand-over */
#define SIM_HANDOVER_UNFLUSHED_READ 3u /* DRAM bytes read while a cluster holds them
                                          dirty: kmx_flush missing before the read */
#define SIM_HANDOVER_LATENT_READ 4u    /* a cached load of a line someone else wrote
                                          since the cluster last swept it (FLUSH64),
                                          its bytes right only because the cache did
                                          not hold the old line this time:
                                          kmx_invalidate missing; once per cluster
                                          and line */
typedef struct sim_handover {
    uint16_t kind;        /* SIM_HANDOVER_* */
    uint16_t bytes;       /* the first access's bytes within its line */
    unsigned bank;
    uint64_t bank_address; /* the first byte the access wrongly read or overwrote */
    uint64_t end_address;  /* one past the last such byte, on the last line */
    uint32_t lines;        /* the contiguous lines of the finding, 1 or more */
    sim_site at;     /* the read (stale, unflushed, latent) or the write-back
                        (lost), on the first line */
    sim_site writer; /* stale, lost, latent: who wrote DRAM after the fill
                        (latent: after the sweep); unflushed: the store that
                        dirtied the line */
    sim_site fill;   /* stale, lost: the load that filled the cached line */
} sim_handover;

/* What the checker found, in the order it happened; *n how many (0 with
 * the checker off).  The card's, until it is freed. */
const sim_handover *sim_card_handovers(const sim_card *card, unsigned *n);

/* ---- wild writes (always watched) -----------------------------------------
 *
 * An X280 core's store through a NoC window into memory that is not its
 * cluster's to write: another work cluster's local memory outside the
 * lines kmx_layout.h lets other clusters write there (its cluster lines,
 * its ports line, its pull counters: kmx_parallel_all, kmx_serve, the
 * ports, the pull), or the dispatcher's local memory (cluster 0's)
 * outside the writer's own ring area (KMX_DISPATCH_RING_AREA).  On a card
 * such a write silently overwrites the target's code, stacks, result
 * block or runtime lines, or the dispatcher's own memory.  The bytes land
 * here as on a card (the simulated dispatcher, a model, reads only the
 * ring areas of its memory); each writer core, store pc and target is
 * listed once (device/sim/README.md, "Wild writes"). */
#define SIM_WILD_WRITES_KEPT 64u
typedef struct sim_wild_write {
    uint8_t cluster, core; /* the writer: its work cluster and core */
    uint8_t target;        /* whose memory: 0 the dispatcher's, else that work cluster's */
    uint8_t x, y;          /* the target's tile */
    uint64_t pc;           /* the store's address in the writer's image */
    uint64_t caller;       /* the writer's return address register at the first store */
    uint64_t first, end;   /* the local-memory addresses its stores covered, [first, end)
                              (NoC addresses of the tile: the same) */
    uint64_t bytes;        /* bytes stored (the sum of its stores' sizes) */
    uint32_t stores;
    uint64_t first_ps, last_ps; /* modeled time of its first and last store */
} sim_wild_write;

/* The wild writes so far, in the order of their first store; *n how many
 * (at most SIM_WILD_WRITES_KEPT), *more the stores of others not kept
 * (may be NULL).  The card's, until it is freed. */
const sim_wild_write *sim_card_wild_writes(const sim_card *card, unsigned *n, uint64_t *more);

/* ---- the program's handlers, contained ---------------------------------------
 *
 * A Tensix handler runs natively in kmrun's process.  One that faults (a
 * bad pointer, a stack overflow, abort) or never gives way (a loop that
 * calls nothing that spends modeled time, for params.handler_spin_ms of
 * real time) is taken out of its core: the core halts for good, its
 * command never ends (as on a card, where such a core hangs the
 * dispatcher's wait for it), and the card lists it here.  The rest of the
 * card runs on (device/sim/README.md, "Faults and endless handlers"). */
#define SIM_HANDLER_FAULT 1u /* its code faulted: a signal */
#define SIM_HANDLER_SPIN 2u  /* it never gave way */
#define SIM_HANDLER_FAULTS_KEPT 16u
#define SIM_HANDLER_STACK_BYTES (256u * 1024u) /* each Tensix core's stack */
typedef struct sim_handler_fault {
    uint8_t kind;      /* SIM_HANDLER_* */
    bool in_kernels;   /* pc is in the kernels' object */
    bool stack_overflow; /* FAULT: the address is the guard below the core's stack */
    uint16_t core;     /* the Tensix core, grid order */
    uint32_t handler;  /* its id */
    uint32_t job;      /* the dispatcher's job slot */
    unsigned ring;     /* the command's ring: 0 host-fed, else the cluster whose thread sent it */
    uint32_t handle;   /* its handle in that ring (0: not known) */
    int signal;        /* FAULT: the signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) */
    uint64_t address;  /* FAULT: the faulting address (0 for SIGABRT) */
    uint64_t pc;       /* in_kernels: an offset in the object; else the address */
    char symbol[64];   /* !in_kernels: the function pc is in, as dladdr names it, else
                          its object's file name ("" unknown) */
    uint64_t call;     /* !in_kernels: the handler's call it faulted inside — into the
                          card's API (km_noc_write with a bad pointer), as that call
                          noted it, else the innermost return address into the object
                          on the core's stack (libc's abort, memcpy) — as an offset in
                          the object; 0 when none is known */
    uint64_t ps;       /* the core's modeled time then */
} sim_handler_fault;

/* The handlers taken out so far, in order (the first
 * SIM_HANDLER_FAULTS_KEPT; *more: the others).  The card's, until it is
 * freed. */
const sim_handler_fault *sim_card_handler_faults(const sim_card *card, unsigned *n,
                                                 unsigned *more);

/* The Tensix cores' X280 port waits that gave up and sends refused, in
 * the order they happened (the first KM_PORT_WAITS_KEPT); *n how many.
 * The card's, until it is freed. */
const km_port_gave_up *sim_card_port_waits(const sim_card *card, unsigned *n);

/* ---- what the kernel side did, as it happens (a timeline) -------------------
 *
 * sim_card_record(card, fn, ctx): from now on fn hears of each moment of
 * the kernel side below, in the order the card models them (not always
 * time order: the grid and the dispatcher each run ahead of the other a
 * little); fn NULL: no more.  Hearing costs no modeled time; a card with
 * no recorder pays one pointer test per moment.  Commands are known by
 * their ring (0: the host's, else the cluster whose thread submitted
 * them) and handle (the ring's command sequence number, as kmx_submit
 * returns it); a job by the dispatcher's slot while it runs. */
#define SIM_MOMENT_HANDLER 0u /* a Tensix core ran its part of job `job` (handler
                                 `handler`, `leader`: the group's first core) over
                                 [begin_ps, end_ps] (end: its return, or the job's
                                 end when cut off) */
#define SIM_MOMENT_PASS 1u    /* a dispatcher pass that did something (took a
                                 command, started a job, saw one end, wrote an
                                 event) ran over [begin_ps, end_ps] */
#define SIM_MOMENT_TAKEN 2u   /* the dispatcher took command (ring, handle) at begin_ps */
#define SIM_MOMENT_STARTED 3u /* command (ring, handle) went to the grid as job `job` */
#define SIM_MOMENT_EVENT 4u   /* its event (`event`: KM_EVENT_*) was written at begin_ps */
typedef struct sim_card_moment {
    unsigned kind; /* SIM_MOMENT_* */
    unsigned ring;
    uint32_t handle;
    uint32_t job;
    unsigned core;    /* HANDLER: the Tensix core, grid order */
    uint32_t handler; /* HANDLER: its id */
    bool leader;
    uint16_t event;
    uint64_t begin_ps, end_ps;
} sim_card_moment;
typedef void (*sim_card_moment_fn)(void *ctx, const sim_card_moment *m);
void sim_card_record(sim_card *card, sim_card_moment_fn fn, void *ctx);

/* The kernel stops: commands not yet taken are rejected, handlers see the
 * stop flag. */
void sim_card_stop_kernel(sim_card *card);

/* The host fallback's side: ring `cluster` of the dispatcher in host
 * memory, served exactly as the card thread's ring would be; a command
 * into it (false: no free slot yet) and its next event (false: none yet).
 * sim_card_pass runs the kernel side's next pass. */
int sim_card_attach_host_ring(sim_card *card, unsigned cluster, ks_error *err);
bool sim_card_host_submit(sim_card *card, unsigned cluster, const km_command_t *command,
                          uint32_t *handle);
bool sim_card_host_poll(sim_card *card, unsigned cluster, km_event_t *event);
void sim_card_pass(sim_card *card);

#endif
