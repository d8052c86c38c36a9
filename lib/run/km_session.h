/* km_session: load a program onto a backend and run its threads to their
 * results — the spec's `session.load(program)` and
 * `run.thread_results(timeout)`, then the regions read after the stop.
 *
 *   km_session_open(&s, program, KM_BACKEND_SIM)   pick the backend
 *   km_session_load(s, cache, build_opts)          build through the cache,
 *                                                  place, write, start
 *   km_session_run(s, run_opts, &result)           until every thread has a
 *                                                  final state, then stopped
 *   km_session_regions(s, &copies, &n)             every region copy, read
 *                                                  back after the stop
 *   km_session_close(s)
 *
 * Backends sit behind one table of functions (session_internal.h), so a
 * `card` (a real Blackhole) backend is a new file and a line in
 * lib/backends/backends.c, not a change to any caller.  `sim` and `host` exist; `card` is refused at
 * open.  What a run means (the stop, stuck, stopping the others) is the
 * run driver's (km_driver.h), the same for every backend.
 *
 * Time in results is modeled device time in mtime ticks (50 MHz); nothing
 * in a result depends on the host, the wall clock or the nonce, so the same
 * program gives the same result every run.  The host backend is the
 * exception: its times are the host's (km_run_result.host_times). */
#ifndef KM_SESSION_H
#define KM_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_build.h"
#include "km_cache.h"
#include "km_card_io.h"
#include "km_error.h"
#include "km_plan.h"
#include "km_program.h"
#include "km_rundir.h"
#include "km_symbols.h"
#include "kmx_layout.h"
#include "sim_card.h"

typedef enum km_backend {
    KM_BACKEND_SIM,  /* the simulated Blackhole (device/sim/) */
    KM_BACKEND_HOST, /* the host fallback (kmx/host/, lib/backends/backend_host.c) */
    KM_BACKEND_CARD, /* a real card (not built yet) */
} km_backend;

/* "sim", "host", "card". */
const char *km_backend_name(km_backend b);

/* How a thread ended (the run JSON's `state`). */
typedef enum km_state {
    KM_STATE_RETURNED, /* kmx_main returned in time (KMX_STATE_DONE) */
    KM_STATE_LATE,     /* it ended after its deadline */
    KM_STATE_STOPPED,  /* it ended after a stop (the timeout, another thread's failure) */
    KM_STATE_STUCK,    /* no final state within the grace after the stop word */
    KM_STATE_TRAPPED,  /* a core trapped */
    KM_STATE_ARGS,     /* start-up: the argument block is not this run's */
    KM_STATE_BANK,     /* start-up: a region in another bank, or the check line differs */
    KM_STATE_REGION,   /* start-up: a region out of range */
    KM_STATE_FAILED,   /* another library error */
} km_state;

/* "returned", "late", ... */
const char *km_state_name(km_state s);

/* The library error's name (KMX_ERROR_NAMES); "error N" past them. */
const char *km_kmx_error_name(uint32_t error);


typedef struct km_trap_info {
    unsigned core;
    uint64_t mcause, mepc, mtval;
    char name[64]; /* "load address misaligned", ... */
    km_source source; /* of mepc */
} km_trap_info;

/* A core that did not stop (km_driver.h, "Stopped"). */
typedef struct km_stuck_core {
    unsigned core;
    uint64_t pc;
    bool running;     /* it still runs (else it waits in wfi or is halted) */
    km_source source; /* of pc */
} km_stuck_core;

typedef struct km_stuck_info {
    unsigned core; /* the core named: the first of cores[] that still runs, else the first */
    uint64_t pc;
    km_source source; /* of pc */
    char detail[1024];
    unsigned ncores;  /* 1..BH_CLUSTER_CORES */
    km_stuck_core cores[BH_CLUSTER_CORES]; /* every core that did not stop, by number */
} km_stuck_info;

typedef struct km_thread_result {
    int cluster;
    km_state state;
    uint32_t error;   /* KMX_ERROR_*: the first library error */
    uint32_t error_detail;
    uint32_t error_core;
    /* A `parallel` error: the call (KMX_API_*, 0: not known), its return
     * address (as the block gives it) and the caller's line, which the
     * backend looks up (describe). */
    uint32_t error_call;
    uint64_t error_pc;
    km_source error_source;
    bool has_code;    /* kmx_main returned */
    int32_t code;
    uint32_t words[KMX_MAX_RESULT_WORDS];
    uint32_t nwords;
    uint32_t where;   /* the last progress marker, 0: none */
    bool has_where_ticks;
    uint64_t where_ticks; /* from the thread's start */
    bool has_ticks;
    uint64_t ticks;       /* start to end */
    bool trapped;
    km_trap_info trap;
    bool stuck;
    km_stuck_info stuck_info;
    char message[320]; /* what the backend adds about `error` ("" when nothing) */
} km_thread_result;

/* A print from a core (kmx_print, km_print), as the run JSON's `prints`
 * lists it. */
typedef struct km_print_line {
    bool tensix;
    int cluster;   /* X280: 1..3 */
    unsigned core; /* X280: 0..3; Tensix: its grid index */
    uint64_t ps;   /* modeled time from the card's start at the print (the host
                      fallback's X280 prints: the host's time from the run's start) */
    char *text;    /* one line */
} km_print_line;

/* The core's name: "c1.2" (cluster 1, core 2) or "t17" (Tensix core 17
 * in grid order). */
void km_print_core_name(const km_print_line *p, char *out, size_t n);

typedef struct km_run_result {
    km_thread_result threads[BH_WORK_CLUSTERS]; /* ascending clusters */
    unsigned nthreads;
    const km_command_result *commands; /* one per host-fed command: the manifest's, then
                                          the fed ones (the session's, until
                                          km_session_close); NULL when none */
    size_t ncommands;
    /* The commands the host fed while the run went (km_session_submit),
     * commands[program's ncommands + i] being fed[i]'s (the session's). */
    const km_host_command *fed;
    size_t nfed;
    /* The Tensix cores' X280 port waits that gave up and the sends refused,
     * in the order they happened (a copy of the card's first
     * KM_PORT_WAITS_KEPT); none on the host fallback. */
    km_port_gave_up port_waits[KM_PORT_WAITS_KEPT];
    unsigned nport_waits;
    /* The hand-over checker's findings (km_handover.h), in the order they
     * happened, named and with their source lines (the session's, until
     * km_session_close); handover_checked false when the checker was off
     * (or the backend cannot check: the host fallback). */
    bool handover_checked;
    const struct km_handover *handovers;
    unsigned nhandovers;
    /* The card's wild writes (km_wild.h): X280 stores through a NoC window
     * into another cluster's local memory or the dispatcher's, always
     * watched, named with their source lines (the session's, until
     * km_session_close); wild_more: stores of writes past the ones kept.
     * None on the host fallback, whose threads have no NoC windows. */
    const struct km_wild_write *wild_writes;
    unsigned nwild_writes;
    uint64_t wild_more;
    /* The Tensix handlers the card took out (km_kernel_fault.h): faulted,
     * or endless; named with their source lines (the session's, until
     * km_session_close), kernel_faults_more past the ones kept.  Any one
     * stopped the run (km_driver.h). */
    const struct km_kernel_fault *kernel_faults;
    unsigned nkernel_faults, kernel_faults_more;
    uint64_t device_ps;    /* modeled time from the start to the stop (host: wall time) */
    bool host_times;       /* the times are the host's (the host fallback), not modeled */
    uint64_t instructions; /* retired by every X280 core */
    /* The card's counters, read after the run (the run JSON's `stats`);
     * has_stats false on the host fallback. */
    bool has_stats;
    sim_card_stats stats;
    /* Every print the card drained, in the order they were handed on
     * (time order within each drain; the session's, until
     * km_session_close), and the prints each core dropped. */
    km_print_line *prints;
    size_t nprints;
    sim_card_print_drops print_drops;
    bool prints_lost; /* memory ran out keeping one: the list is short (the run fails) */
    /* The instruction traces written into the run folder, by core (the
     * caller's that traced, set before the JSON is made; none: no key). */
    const struct km_trace_summary *traces;
    size_t ntraces;
} km_run_result;

/* A traced core's trace, as the run JSON's `traces` lists it. */
typedef struct km_trace_summary {
    unsigned cluster, core;
    const char *file;  /* its name in the run folder */
    uint64_t recorded; /* instructions in it */
    uint64_t retired;  /* retired while it recorded, filtered out ones too */
    bool cut;          /* its size bound stopped it */
    uint64_t limit;    /* that bound, bytes */
} km_trace_summary;

/* Seconds of the host's monotonic clock: the one wall clock of a run
 * (--wall-timeout, wall_seconds, the host fallback's times). */
double km_wall_now(void);

/* Every thread returned. */
bool km_run_all_returned(const km_run_result *r);

/* A new progress marker: cluster, marker, its time from the thread's start. */
typedef void (*km_progress_fn)(int cluster, uint32_t where, uint64_t ticks, void *ctx);

/* A print, as soon as the run drains it (the same as r->prints will hold). */
typedef void (*km_print_fn)(const km_print_line *p, void *ctx);

typedef struct km_run_opts {
    double timeout_s;      /* modeled seconds before the stop; <= 0: the default */
    double wall_timeout_s; /* real seconds the run may take; <= 0: no limit */
    km_progress_fn progress;
    km_print_fn print;
    void *ctx;             /* progress's and print's */
} km_run_opts;

/* A timeout's seconds as `--timeout` and `--wall-timeout` take them: more
 * than 0, finite and at most KM_SECONDS_MAX (the one rule for the command
 * line and the library's API). */
#define KM_SECONDS_MAX 1e6
bool km_seconds_valid(double seconds);

/* The stop, then the grace before a thread is `stuck` (spec: "does not
 * return within 1 s of the stop flag"). */
#define KM_STOP_GRACE_US 1000000ull

/* The default timeout: the largest deadline + 1 s, or 10 s when no thread
 * has a deadline. */
uint64_t km_default_timeout_us(const km_program *p);

typedef struct km_session km_session;

/* The hand-over checker on (true) for this session's runs, as the
 * program's `check_handover: true` also turns it on; before
 * km_session_load, which makes the card with it.  Only the sim backend
 * checks: on the host fallback it stays off (km_run_result.handover_checked
 * false). */
void km_session_check_handover(km_session *s, bool on);

/* What a card keeps from one load to the next until it is reset: each
 * work cluster's L2 prefetcher registers (sim_card_prefetch_get), as the
 * last image on that cluster left them (set[c]: one has run there).  A
 * session of the public API (kmrun_session) is one card: it gives each of
 * its loads its km_card_memory, zeroed at its open (a card fresh from
 * reset). */
typedef struct km_card_memory {
    bool set[BH_CLUSTERS];
    uint32_t prefetch[BH_CLUSTERS][BH_CLUSTER_CORES][2];
} km_card_memory;

/* Before km_session_load: the card starts from m (NULL: from reset), and
 * km_session_close records into m what the card's clusters hold then.
 * m must outlive the session or be detached with NULL.  Only the sim
 * backend has the registers. */
void km_session_card_memory(km_session *s, km_card_memory *m);

/* The X280 cores' instruction traces: every instruction each core of
 * `cores` (bit (cluster - 1) * 4 + core; KM_TRACE_ALL: every core of
 * every cluster a thread runs on) retires goes to fn (sim_trace.h) during
 * km_session_run, in order (such a core runs an instruction at a time:
 * the same results and modeled times, slower, until fn returns false for
 * it).  Before km_session_load, which checks that a thread runs on each
 * core's cluster (KM_EXIT_USAGE if not).  Only the sim backend runs X280
 * code on the card: KM_EXIT_USAGE on the host fallback. */
#define KM_TRACE_ALL UINT32_MAX
int km_session_trace_instructions(km_session *s, uint32_t cores, sim_trace_fn fn, void *ctx,
                                  km_error *err);

/* Every X280 core of the run profiled exactly (sim_profile.h): each runs
 * the profiled copy of the hot loop, with the same results and modeled
 * times.
 * Before km_session_load; KM_EXIT_USAGE on the host fallback.  After the
 * stop, km_session_write_profile writes profile.folded and profile.json
 * (km_profile.h) into folder `dir` (nothing when not profiled). */
int km_session_profile(km_session *s, km_error *err);
int km_session_write_profile(km_session *s, const char *dir, km_error *err);

/* The run's timeline (km_timeline.h) into t, which must outlive the
 * session: every X280 core's spans (kmx_main, the functions it spawns
 * and runs in parallel, its waits), its progress markers, the Tensix
 * cores' handlers and the dispatcher's passes, in modeled time, recorded
 * during km_session_run without changing anything the run does.  Before
 * km_session_load.  Only the sim backend runs X280 code on the card:
 * KM_EXIT_USAGE on the host fallback. */
struct km_timeline;
int km_session_timeline(km_session *s, struct km_timeline *t, km_error *err);

/* A session of program p (which must outlive it) on backend b.  KM_OK, or
 * KM_EXIT_USAGE for a backend that is not available.  Defined with the
 * backends (lib/backends/backends.c), which sit above the session. */
int km_session_open(km_session **out, const km_program *p, km_backend b, km_error *err);

/* KM_OK when km_session_open can open a session on b, else its
 * KM_EXIT_USAGE and message (with the backends, as km_session_open). */
int km_backend_available(km_backend b, km_error *err);

/* Builds the images (KM_EXIT_BUILD, KM_EXIT_SYSTEM as km_build), places
 * the regions (km_plan), writes them, the images and the argument blocks,
 * and starts every thread's cluster. */
int km_session_load(km_session *s, km_cache *c, const km_build_opts *build, km_error *err);

/* Runs until every thread has a final state; asks the ones still running
 * to stop at the timeout and gives them the grace; then everything stops.
 * KM_OK with *r filled (whatever the threads' states), KM_EXIT_SYSTEM when
 * the wall timeout passed or the backend failed. */
int km_session_run(km_session *s, const km_run_opts *o, km_run_result *r, km_error *err);

/* ---- a run the host steers -------------------------------------------------
 * km_session_run in pieces, for a host that acts while the threads run
 * (km_driver.h, "a run the host steers"): km_session_begin starts the
 * run, each thread to be asked to stop at timeout_ps (UINT64_MAX: not
 * until the host says, km_drive_timeout) and the kernel running until
 * the host stops it; km_session_steer gives the drive to move time with;
 * km_session_end ends it and names the card's findings as km_session_run
 * does.  r is filled as the run goes and must outlive it. */
struct km_steer;
int km_session_begin(km_session *s, const km_run_opts *o, uint64_t timeout_ps, km_run_result *r,
                     km_error *err);
struct km_steer *km_session_steer(km_session *s); /* NULL when no run goes */
int km_session_end(km_session *s, km_run_result *r, km_error *err);

/* A host-fed command, while the run goes: fed to the card after the ones
 * it has (sim_card_feed; c->wait says whether the next waits for it);
 * *index is its place among the run's commands (the program's first).
 * c is copied, its handler name too.  KM_EXIT_USAGE when no run goes,
 * KM_EXIT_SYSTEM when memory runs out. */
int km_session_submit(km_session *s, const km_host_command *c, size_t *index, km_error *err);
/* How many commands the run has, and command `index`'s result as it
 * stands (false for an index past the last). */
size_t km_session_ncommands(km_session *s);
bool km_session_command(km_session *s, size_t index, km_command_result *out);

/* Every region copy of every cluster, read back after the stop (own
 * regions and shared ones, per cluster, in plan order); the bytes are the
 * session's until km_session_close.  Only after km_session_run. */
int km_session_regions(km_session *s, const km_region_copy **out, size_t *n, km_error *err);

const km_plan *km_session_plan(const km_session *s);
/* The simulated card the threads run on, after km_session_load: a
 * debugger (km_gdb_card.h) or an observer (sim_card_debug.h) attaches to
 * it before km_session_run.  NULL on the host fallback (its threads run
 * on the host) and before the load. */
sim_card *km_session_card(km_session *s);
/* The image of the thread on plan cluster `index`, in the cache. */
const char *km_session_image_of(const km_session *s, unsigned index);
km_backend km_session_backend(const km_session *s);

/* What the build gave the session: each thread's image, in the cache. */
const km_build_result *km_session_build(const km_session *s);

void km_session_close(km_session *s);

#endif
