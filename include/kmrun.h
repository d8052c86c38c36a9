/* kmrun.h: the kmrun library's public API — a program's host side in C.
 *
 * A program (a manifest, kmrun-program(5), or one built in code with the
 * same rules; a thread's host fallback may be a function of the host's) is
 * loaded into a session on a backend (the simulated Blackhole, or the host
 * fallback); loading builds its thread images through kmrun's build
 * cache, places the regions, writes the card and starts the threads.
 * While the run goes the host steers it — commands to the Tensix grid
 * through the host ring, waited for or polled, a thread's result — until
 * it stops it (or one wait runs it all, as `kmrun run` does); then the
 * results, the run JSON (the document `kmrun run` prints) and the regions
 * can be read, and the run folder is written as `kmrun run` writes it, so
 * `kmrun read-region` works after a library run.
 *
 * The promise:
 *   - every name here begins kmrun_ or KMRUN_, and this header is the whole
 *     of what the library exports (libkmrun.so exports nothing else but the
 *     Tensix handlers' API of km_device.h, which kernels call);
 *   - handles are opaque and owned by the caller, freed by their _free or
 *     _close function (NULL is accepted and ignored);
 *   - a function that can fail returns a kmrun_status: KMRUN_OK, or the
 *     exit code `kmrun` would exit with for the same failure; when `err` is
 *     not NULL it then sets *err to a message object the caller frees with
 *     kmrun_error_free (on success *err is left NULL);
 *   - the library never prints, never exits and never changes the
 *     process's signal dispositions beyond what a run needs while it runs;
 *   - one session may be used by one thread at a time; different sessions
 *     may run on different threads at once.
 *
 * kmrun(1) is written on this header and kmrun_tools.h alone: everything
 * the command does with the library, a program may do too.  kmrun_tools.h
 * holds what tools built like kmrun(1) need beyond a program's host side
 * (run folders, the build cache and builds, a bare ELF, a new program,
 * kmrun's text).
 *
 * man 3 kmrun has a complete example. */
#ifndef KMRUN_H
#define KMRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* This header's version: a program built against it may check
 * kmrun_api_version() at run time.  Raised with VERSION's minor (and so
 * the SONAME, libkmrun.so.0.<minor>) whenever a structure's layout or a
 * function's meaning changes: 2 when kmrun_session_opts and
 * kmrun_build_opts grew their diagnostic and color fields (an _init of
 * this library writes the whole structure, so a caller built against a
 * smaller one must not load it; the kmrun package checks this number);
 * 3 when they grew their debug profile fields (debug_build, debug) and
 * kmrun_tools.h's kmrun_cache_stats and kmrun_test_case their remote and
 * reuse counts. */
#define KMRUN_API_VERSION 3

/* ---- Status and errors ---------------------------------------------------- */

/* The exit codes of kmrun(1). */
typedef enum kmrun_status {
    KMRUN_OK = 0,
    KMRUN_FAILED = 1,   /* a thread failed */
    KMRUN_USAGE = 2,    /* a bad argument, a bad manifest, a call out of order */
    KMRUN_BUILD = 3,    /* a source did not compile, or an image was rejected */
    KMRUN_SYSTEM = 4,   /* I/O, a missing tool, an unusable cache, no memory */
    KMRUN_INTERNAL = 5, /* a bug in kmrun */
} kmrun_status;

/* One failure: its status and its message (lowercase, what failed first,
 * the subject quoted; a manifest's errors as `file:line:col: message`,
 * one a line), and its findings as diagnostics (kmrun_error_diagnostics). */
typedef struct kmrun_error kmrun_error;

/* A finding with its place, as a tool reads it ("Diagnostics" below). */
typedef struct kmrun_diagnostic kmrun_diagnostic;

/* The compilers' colours (-fdiagnostics-color) in the text they write. */
typedef enum kmrun_color {
    KMRUN_COLOR_DEFAULT = 0, /* no flag: the compiler's own choice (none: it writes to a pipe) */
    KMRUN_COLOR_ALWAYS = 1,
    KMRUN_COLOR_NEVER = 2,
} kmrun_color;

/* e NULL (no error): KMRUN_OK and "". */
kmrun_status kmrun_error_status(const kmrun_error *e);
const char *kmrun_error_message(const kmrun_error *e);
void kmrun_error_free(kmrun_error *e);
/* The message as kmrun(1) prints it: a manifest's errors each followed by
 * its source line and a caret under its column, with a newline after the
 * last; a failed build's, when its options asked the compilers for
 * colours (KMRUN_COLOR_ALWAYS), the message with their colour sequences
 * (ESC [ ... m) in it, no other control byte; NULL when there is nothing
 * more (then the message is all there is).  The error's own, valid until
 * kmrun_error_free. */
const char *kmrun_error_detail(const kmrun_error *e);

/* The library's version (as `kmrun --version` gives it, VERSION: "0.3.0") and
 * KMRUN_API_VERSION as it was built. */
const char *kmrun_version(void);
int kmrun_api_version(void);
/* The toolchain thread images are built for: its target
 * ("riscv64-unknown-elf") and the architecture flags every image is
 * compiled with ("-march=... -mabi=lp64d"), as `kmrun version` prints
 * them. */
const char *kmrun_image_target(void);
const char *kmrun_image_arch(void);

/* ---- Programs ------------------------------------------------------------- */

typedef struct kmrun_program kmrun_program;

/* Reads and checks the manifest at `path` (kmrun-program(5)); relative
 * paths in it are taken from its folder.  KMRUN_USAGE with every error
 * the manifest has, KMRUN_SYSTEM when it cannot be read. */
kmrun_status kmrun_program_load(const char *path, kmrun_program **out, kmrun_error **err);
void kmrun_program_free(kmrun_program *p);

const char *kmrun_program_name(const kmrun_program *p);
/* The clusters the program's threads run on, ascending (a thread on
 * several clusters counts once for each): the order of the run's results. */
size_t kmrun_program_clusters(const kmrun_program *p);
int kmrun_program_cluster(const kmrun_program *p, size_t i);

/* A program built in code: the spec's Program(name, kernels=...),
 * Program.region and Program.thread, and every other part a manifest has.
 * Each part is checked when it is added, by the manifest's own rules
 * (kmrun-program(5)), with the parts added before it: KMRUN_USAGE with
 * every error, each naming the part ("thread 2: cluster 1 already runs
 * thread 1 (expected one thread per cluster)"), and a refused part is
 * not added (the program stays as it was, and usable).  The rules of a
 * whole program (something to run, each bank's room) are checked by
 * kmrun_program_check and at the first kmrun_session_load, after which
 * the program cannot change (KMRUN_USAGE).  A program read by
 * kmrun_program_load cannot change either.
 *
 * Relative paths (sources, kernels) are taken from the program's root:
 * the process's current folder when kmrun_program_new is called, or the
 * folder kmrun_program_set_root names, at the time each part is added.
 * Given the manifest's folder as its root, the same parts make the same
 * program as the manifest: the same images, the same run JSON. */
kmrun_status kmrun_program_new(const char *name, kmrun_program **out, kmrun_error **err);
kmrun_status kmrun_program_set_root(kmrun_program *p, const char *folder, kmrun_error **err);

/* The Tensix handlers (the manifest's `kernels:`): their C sources (a
 * folder stands for its *.c files, in name order), their names (each
 * HANDLER_<NAME>), extra compiler flags.  Again: replaces them. */
kmrun_status kmrun_program_kernels(kmrun_program *p, const char *const *sources, size_t nsources,
                                   const char *const *handlers, size_t nhandlers,
                                   const char *const *cflags, size_t ncflags, kmrun_error **err);

/* A region: `size` bytes; with `bytes`, its first `nbytes` are those
 * (copied), the rest zeros, and a size of 0 is nbytes (then a multiple
 * of 4).  In kmrun_program_region a program region, which threads name
 * in `shared` (declare it before them); in a thread spec one of its own. */
typedef struct kmrun_region_spec {
    const char *name;  /* a C identifier, at most 64 characters */
    uint64_t size;     /* a multiple of 4, at most 4 GiB */
    const void *bytes; /* NULL: zeros */
    size_t nbytes;
} kmrun_region_spec;

kmrun_status kmrun_program_region(kmrun_program *p, const char *name, uint64_t size,
                                  const void *bytes, size_t nbytes, kmrun_error **err);

typedef enum kmrun_compiler {
    KMRUN_COMPILER_GCC = 0,   /* riscv64-unknown-elf-gcc (the default) */
    KMRUN_COMPILER_CLANG = 1, /* clang-19: the RVV intrinsics and auto-vectoriser */
} kmrun_compiler;

typedef enum kmrun_prefetch {
    KMRUN_PREFETCH_DEFAULT = 0, /* the values the chip's documentation recommends */
    KMRUN_PREFETCH_KEEP = 1,    /* the prefetcher registers left as they are */
} kmrun_prefetch;

typedef enum kmrun_ring {
    KMRUN_RING_REMOTE = 0, /* command lines in the dispatcher's LIM (the default) */
    KMRUN_RING_CACHED = 1, /* both halves in cached lines of the thread's bank */
} kmrun_ring;

/* A thread (the manifest's `threads:` entry); an array NULL with its count
 * 0 is empty. */
typedef struct kmrun_thread_spec {
    /* sizeof(kmrun_thread_spec), so that the struct can grow: set it
     * (kmrun_thread_spec_init does). */
    size_t size;
    const int *clusters;          /* 1, 2 or 3; several: the same thread on each */
    size_t nclusters;
    const char *const *sources;   /* C sources, at least one */
    size_t nsources;
    const kmrun_region_spec *regions; /* its own regions: ids 0.. in this order */
    size_t nregions;
    const char *const *shared;    /* program regions; ids after its own */
    size_t nshared;
    const uint32_t *words;        /* at most 64 */
    size_t nwords;
    double deadline_seconds;      /* 0: none; rounded to the microsecond */
    kmrun_prefetch prefetch;
    kmrun_ring ring;
    kmrun_compiler compiler;
    const char *const *cflags;    /* extra compiler flags for its sources */
    size_t ncflags;
} kmrun_thread_spec;

/* All empty, the defaults, its size set. */
void kmrun_thread_spec_init(kmrun_thread_spec *t);
kmrun_status kmrun_program_thread(kmrun_program *p, const kmrun_thread_spec *t,
                                  kmrun_error **err);

/* X280 ports (the manifest's `ports:`): nserve 0, the default dealing;
 * else the Tensix cores each served by an X280 core of a thread's
 * cluster.  Add them after the threads they name.  Again: replaces them. */
typedef struct kmrun_serve {
    int core;      /* a Tensix core, 0 to 119 */
    int cluster;   /* a cluster that runs a thread */
    int x280_core; /* 0 to 3 */
} kmrun_serve;
kmrun_status kmrun_program_ports(kmrun_program *p, const kmrun_serve *serve, size_t nserve,
                                 kmrun_error **err);

/* The pull (the manifest's `pull:`; without ports, the default dealing):
 * `units` handed out `per` at a time; log and replay name the region
 * (every thread's, own or shared) to log into or replay from, count none.
 * After the threads.  Again: replaces it. */
typedef enum kmrun_pull_mode {
    KMRUN_PULL_COUNT = 0,
    KMRUN_PULL_LOG = 1,
    KMRUN_PULL_REPLAY = 2,
} kmrun_pull_mode;
kmrun_status kmrun_program_pull(kmrun_program *p, uint32_t units, uint32_t per,
                                kmrun_pull_mode mode, const char *log, kmrun_error **err);

/* A host-fed command (the manifest's `commands:` entry), fed in the order
 * added. */
typedef struct kmrun_command_spec {
    /* sizeof(kmrun_command_spec): set it (kmrun_command_spec_init does). */
    size_t size;
    const char *handler;   /* a handler of the kernels (add them first) or a built-in */
    uint32_t first, count; /* the group; kmrun_command_spec_init: 0 and 120, the grid */
    const uint32_t *args;  /* a0.. a9: at most 10 */
    size_t nargs;
    bool result, exclusive;
    bool wait;             /* its event before the next command (init: true) */
} kmrun_command_spec;
void kmrun_command_spec_init(kmrun_command_spec *c);
kmrun_status kmrun_program_command(kmrun_program *p, const kmrun_command_spec *c,
                                   kmrun_error **err);

/* The X280 clock, 1000 (the default) or 1750 MHz; the hand-over checker
 * for every run of the program (the manifest's check_handover). */
kmrun_status kmrun_program_set_x280_mhz(kmrun_program *p, unsigned mhz, kmrun_error **err);
kmrun_status kmrun_program_set_check_handover(kmrun_program *p, bool on, kmrun_error **err);

/* The rules of a whole program, as kmrun_session_load checks them
 * first: KMRUN_USAGE with every error.  A manifest's: KMRUN_OK. */
kmrun_status kmrun_program_check(kmrun_program *p, kmrun_error **err);

/* The program model as one JSON document (as `kmrun validate --json`
 * prints it): its manifest's path as given (null: built in code), name,
 * X280 clock, kernels, regions, threads, ports with their dealing, pull
 * and commands.  Into *json, allocated: the caller frees it with free(). */
kmrun_status kmrun_program_json(const kmrun_program *p, char **json, kmrun_error **err);

/* ---- Sessions ------------------------------------------------------------- */

typedef enum kmrun_backend {
    KMRUN_BACKEND_SIM = 0,  /* the simulated Blackhole (the default) */
    KMRUN_BACKEND_HOST = 1, /* the spec's host fallback */
    KMRUN_BACKEND_CARD = 2, /* a real card: not in this kmrun (refused) */
} kmrun_backend;

/* What a session tells as it goes; each may be NULL.  They are called on
 * the thread that called kmrun_session_load or kmrun_run_wait. */
typedef struct kmrun_callbacks {
    /* A line a compiler wrote while the images were built. */
    void (*build_output)(const char *line, void *ctx);
    /* A print of a core ("c1.2": cluster 1, core 2; "t17": Tensix core
     * 17), as soon as the run drains it; `microseconds` from the card's
     * start (the host fallback's X280 prints: from the run's start). */
    void (*print)(const char *core, const char *text, double microseconds, void *ctx);
    /* A new progress marker of a thread, `microseconds` from its start
     * (a whole number of 20 ns ticks: printed with 15 significant digits,
     * "%.15g", it is the run JSON's decimal). */
    void (*progress)(int cluster, uint32_t marker, double microseconds, void *ctx);
    /* The same print as kmrun(1) shows it and prints.txt keeps it:
     * "[c1.2 104.22µs] text". */
    void (*print_line)(const char *line, void *ctx);
    /* A warning of the build cache: a damaged entry found, removed and
     * built again. */
    void (*warning)(const char *message, void *ctx);
    void *ctx;
} kmrun_callbacks;

typedef struct kmrun_session_opts {
    /* sizeof(kmrun_session_opts), so that the struct can grow: set it
     * (kmrun_session_opts_init does). */
    size_t size;
    kmrun_backend backend;
    /* The build cache's folder; NULL: $KMRUN_CACHE, else the user's cache
     * folder, as kmrun(1) says. */
    const char *cache_dir;
    /* Where run folders are written; NULL: $KMRUN_RUNS, else kmrun(1)'s
     * default.  no_run_folder: none is written. */
    const char *runs_dir;
    bool no_run_folder;
    /* The hand-over checker (kmrun(1), --check-handover) on. */
    bool check_handover;
    /* Real seconds a run may take before it is cut short (KMRUN_SYSTEM, as
     * `kmrun run --wall-timeout`): each call that moves the run's time (a
     * wait, a poll, the stop), not the host's own time between calls; <= 0:
     * no limit; not a number, not finite or over 1e6: KMRUN_USAGE at the
     * open. */
    double wall_timeout_seconds;
    kmrun_callbacks callbacks;
    /* Compiles at once when a load builds (kmrun_build_opts' jobs), 1 to
     * 1024; 0: Ninja's default. */
    int jobs;
    /* trace_instructions: core trace_core (0 to 3) of cluster
     * trace_cluster (1 to 3, one a thread runs on) traced, each
     * instruction it retires recorded into the run folder as
     * trace-cC.K.kmt (`kmrun run --trace-instructions C.K`; trace_cores
     * below traces more).  The simulated card only; KMRUN_USAGE at the
     * load otherwise, or for a core that is not there. */
    bool trace_instructions;
    unsigned trace_cluster, trace_core;
    /* The run's timeline, written to this file after the stop in the
     * Chrome Trace Event format (`kmrun run --timeline`); NULL: none.  The
     * simulated card only (KMRUN_USAGE at the load otherwise). */
    const char *timeline;
    /* Set: each finding of the build a load makes (a compiler's warning)
     * comes here, read, with callbacks.ctx, instead of build_output, and
     * the compilers report structured (kmrun_build_opts' diagnostic). */
    void (*diagnostic)(const kmrun_diagnostic *d, void *ctx);
    /* The compilers' colours in build_output (kmrun_build_opts' color). */
    kmrun_color color;
    /* A load builds in the debug profile (kmrun_build_opts' debug:
     * `kmrun run --debug`), whatever the manifest's `build:` says. */
    bool debug_build;
} kmrun_session_opts;


/* The defaults: the simulated card, the default folders, no callbacks. */
void kmrun_session_opts_init(kmrun_session_opts *o);

typedef struct kmrun_session kmrun_session;

/* A session on o->backend (o NULL: the defaults).  KMRUN_USAGE for the
 * card backend, which this kmrun does not have, or a bad `size`;
 * KMRUN_SYSTEM when the cache cannot be used.  The folders are chosen
 * here: the environment is read now, not at each load. */
kmrun_status kmrun_session_open(const kmrun_session_opts *o, kmrun_session **out,
                                kmrun_error **err);
/* Frees the session; a run of it not freed yet stays usable, and is freed
 * by kmrun_run_free. */
void kmrun_session_close(kmrun_session *s);

/* More of the sessions' instruction traces than trace_instructions' one
 * core (`kmrun run --trace-cores`, --trace-pc, --trace-function,
 * --trace-limit), for the loads that follow kmrun_session_set_trace. */
typedef struct kmrun_trace_opts {
    /* sizeof(kmrun_trace_opts): set it (kmrun_trace_opts_init does). */
    size_t size;
    /* The traced cores, beside trace_instructions': bit (C - 1) * 4 + K
     * for core C.K; KMRUN_TRACE_ALL_CORES: every core of every cluster a
     * thread runs on.  Each traced core's trace goes into the run folder
     * as trace-cC.K.kmt (kmrun(1), FILES; kmrun_trace_open reads it). */
    uint32_t cores;
    /* Only instructions inside these are recorded (the others run,
     * unrecorded): the pc ranges pc_ranges[2i] up to pc_ranges[2i + 1]
     * (excluded), and every function named in functions, from the symbols
     * of the image the core runs.  Neither: every instruction.  A
     * function no traced image has: KMRUN_USAGE at the load. */
    const uint64_t *pc_ranges;
    size_t npc_ranges;
    const char *const *functions;
    size_t nfunctions;
    /* The most bytes a traced core's file takes (0: 64 MiB; at least 4
     * KiB): the trace stops there, and says it was cut
     * (kmrun_run_trace_info, the file's end record). */
    uint64_t limit;
} kmrun_trace_opts;
#define KMRUN_TRACE_ALL_CORES UINT32_MAX

/* No core, no filter, the default limit, its size set. */
void kmrun_trace_opts_init(kmrun_trace_opts *o);
/* o (copied) for the session's next loads; NULL: back to
 * trace_instructions' alone.  KMRUN_USAGE for a bad size, a core that is
 * not there (clusters 1 to 3, cores 0 to 3), an empty range, more than 64
 * ranges and functions, or a limit under 4 KiB. */
kmrun_status kmrun_session_set_trace(kmrun_session *s, const kmrun_trace_opts *o,
                                     kmrun_error **err);

/* Profiles the session's next runs (`kmrun run --profile`): every X280
 * core's cycles, instructions, memory stall cycles and traps, exactly,
 * by function, source line and call stack, into the run folder as
 * profile.folded and profile.json as the run stops (kmrun(1), FILES;
 * `kmrun profile` and kmrun_tools.h's kmrun_profile_* read them).  A
 * profiled run takes up to about twice the CPU time (bench/profile), with
 * the same results and modeled times.  KMRUN_USAGE on the host fallback.  (A
 * function rather than a kmrun_session_opts field: the options structure
 * keeps its size.) */
kmrun_status kmrun_session_profile(kmrun_session *s, bool on, kmrun_error **err);

/* ---- Runs ----------------------------------------------------------------- */

typedef struct kmrun_run kmrun_run;

/* Builds p's images through the cache (KMRUN_BUILD with the compiler's
 * message), places its regions, writes the card and starts the threads.
 * p must outlive the run; a session has one run at a time (KMRUN_USAGE
 * while another is not freed). */
kmrun_status kmrun_session_load(kmrun_session *s, const kmrun_program *p, kmrun_run **out,
                                kmrun_error **err);

/* Runs the threads until each has a final state; a thread still running
 * `timeout_seconds` after its start (modeled time on the simulated card,
 * the host's on the host fallback) is asked to stop, and one that does
 * not stop within the stop's grace is `stuck` — as `kmrun run --timeout`.
 * timeout_seconds 0: the default (the largest deadline and 1 s, or 10 s);
 * a negative or not-finite timeout, or one over 1e6 s (as --timeout), is
 * KMRUN_USAGE.  Then the run has
 * stopped: its results, JSON and regions can be read, and its run folder
 * is written.  KMRUN_OK when the run ran, whatever its threads did (see
 * kmrun_run_ok); called again, it returns KMRUN_OK and does nothing.  A
 * run that failed (the wall timeout: KMRUN_SYSTEM) has not stopped, and
 * cannot run again: a call again gives the same failure. */
kmrun_status kmrun_run_wait(kmrun_run *r, double timeout_seconds, kmrun_error **err);

/* Whether the run has stopped (kmrun_run_wait or kmrun_run_stop returned
 * KMRUN_OK). */
bool kmrun_run_stopped(const kmrun_run *r);
/* Whether every thread returned, every command was done and the card
 * found nothing (no hand-over, wild write or Tensix handler taken out):
 * what makes `kmrun run` exit 0. */
bool kmrun_run_ok(const kmrun_run *r);

/* A thread's result on one cluster: the spec's ThreadResult. */
typedef struct kmrun_thread_result {
    int cluster;
    bool ran;              /* kmx_main returned in time: state "returned" (the run JSON's) */
    const char *state;     /* "returned", "late", "trapped", "stuck", ... (the run JSON's) */
    const char *error;     /* the kmx library's first error ("bank", ...), NULL: none */
    bool has_code;         /* kmx_main returned */
    int32_t code;
    uint32_t words[48];    /* the result words it set */
    unsigned nwords;
    uint32_t where;        /* the last progress marker, 0: none */
    double where_microseconds; /* its time from the thread's start, < 0: none */
    double microseconds;       /* start to end, < 0: not known */
    /* kmrun's word on how it ended: a stuck thread's detail (where each
     * core is), else the run JSON's `message`; NULL: none.  The run's,
     * valid until kmrun_run_free. */
    const char *message;
} kmrun_thread_result;

/* The result on the i-th cluster of kmrun_program_clusters' order.
 * KMRUN_USAGE while that thread has no final state (before the stop, or
 * kmrun_run_thread_result) or for an i past the last. */
kmrun_status kmrun_run_result(const kmrun_run *r, size_t i, kmrun_thread_result *out,
                              kmrun_error **err);

/* The run JSON, as `kmrun run` prints it (the run's own, valid until
 * kmrun_run_free); NULL before the stop. */
const char *kmrun_run_json(const kmrun_run *r);
/* The run's id (NULL before the stop), and its folder (NULL when none was
 * written, and before the stop); kmrun_run_folder_error says why none was
 * when one was asked for (NULL: it was written, or not asked for, and
 * before the stop). */
const char *kmrun_run_id(const kmrun_run *r);
const char *kmrun_run_folder(const kmrun_run *r);
const char *kmrun_run_folder_error(const kmrun_run *r);

/* The bytes of region `name` of the thread on `cluster` as the stop left
 * them (a shared region: the thread's copy), valid until kmrun_run_free.
 * KMRUN_USAGE before the stop, or for a cluster or region the program does
 * not have (the message names it). */
/* The instruction trace (kmrun_session_opts' trace_cluster) and the
 * timeline (its timeline) are written as the run stops; a failure to
 * write one does not lose the run (KMRUN_OK), and is said here.  The
 * trace's file in the run folder (the first traced core's:
 * kmrun_run_trace_info lists every one; NULL: none was written); why the trace
 * or the timeline was not written (NULL: it was, or was not asked for,
 * and before the stop); how many events the timeline dropped past the
 * most it keeps (*kept, may be NULL). */
const char *kmrun_run_trace_file(const kmrun_run *r);
/* The profile's folded file in the run folder (kmrun_session_profile;
 * NULL: none was written). */
const char *kmrun_run_profile_file(const kmrun_run *r);
const char *kmrun_run_trace_error(const kmrun_run *r);

/* A traced core's trace, as the run stopped (kmrun_run_traces of them,
 * by cluster and core; 0 before the stop). */
typedef struct kmrun_trace_info {
    unsigned cluster, core;
    const char *file;  /* in the run folder (NULL: no folder was written) */
    uint64_t recorded; /* instructions in the file */
    uint64_t seen;     /* retired while it recorded, filtered out ones too */
    bool cut;          /* its size bound stopped it, after `recorded` */
    uint64_t limit;    /* that bound, bytes */
} kmrun_trace_info;
size_t kmrun_run_traces(const kmrun_run *r);
/* The i-th; KMRUN_USAGE for an i past the last. */
kmrun_status kmrun_run_trace_info(const kmrun_run *r, size_t i, kmrun_trace_info *out,
                                  kmrun_error **err);
const char *kmrun_run_timeline_error(const kmrun_run *r);
uint64_t kmrun_run_timeline_dropped(const kmrun_run *r, unsigned *kept);

/* What the card found in the run (each makes kmrun_run_ok false): the
 * hand-over checker's reads of stale bytes and write-backs over newer
 * ones, the wild writes (stores outside every region), the Tensix
 * handlers it took out. */
typedef enum kmrun_finding {
    KMRUN_FINDING_HANDOVER = 0,
    KMRUN_FINDING_WILD_WRITE = 1,
    KMRUN_FINDING_KERNEL_FAULT = 2,
} kmrun_finding;
/* How many findings of `kind` the run keeps (the run JSON lists them);
 * *more (may be NULL): how many more it counted past those (wild writes:
 * stores), 0 before the stop. */
size_t kmrun_run_findings(const kmrun_run *r, kmrun_finding kind, uint64_t *more);
/* Finding i of `kind` as kmrun(1) says it on stderr, a diagnostic line
 * ("file:line: ..."), into buf (n bytes); returns buf, "" for an i past
 * the last.  Its file is shown from the working folder (as a compiler's,
 * "Diagnostics" below). */
char *kmrun_run_finding(const kmrun_run *r, kmrun_finding kind, size_t i, char *buf, size_t n);

/* The few lines a person reads after a run (kmrun(1)'s summary on a
 * terminal): the times and instructions, a line per thread and per
 * host-fed command, the card's counters, the prints, the port waits, the
 * hand-over checker, the run folder.  Given to `put` piece by piece, each
 * with how to show it (a tool may paint them, or not); `wall_seconds`:
 * the real time the caller says the run took.  Nothing before the stop. */
typedef enum kmrun_style {
    KMRUN_STYLE_PLAIN = 0,
    KMRUN_STYLE_TITLE = 1, /* the program's name */
    KMRUN_STYLE_GOOD = 2,  /* a thread returned, a command done, nothing found */
    KMRUN_STYLE_BAD = 3,   /* a thread that did not return, findings; a diagnostic's
                            * "error:" */
    KMRUN_STYLE_WARN = 4,  /* a command not done, prints dropped, port waits given up;
                            * a diagnostic's "warning:" */
    KMRUN_STYLE_LOCUS = 5, /* a diagnostic's "file:line:col:" */
    KMRUN_STYLE_NOTE = 6,  /* a diagnostic's "note:" */
    KMRUN_STYLE_CARET = 7, /* the caret under a diagnostic's column */
} kmrun_style;
void kmrun_run_summary(const kmrun_run *r, double wall_seconds,
                       void (*put)(const char *text, kmrun_style style, void *ctx), void *ctx);

/* kmrun_run_wait with the run held for gdb-multiarch (`kmrun run --gdb`):
 * listens on 127.0.0.1:port (0: any free one), calls `waiting` (may be
 * NULL) with the port and the debugger's command line, then waits for it
 * to connect and serves it: every X280 core of the program a thread,
 * halted at the start, modeled time still while halted.  When it detaches
 * or goes, the run goes on as without it; the results are the same.  The
 * session's wall timeout does not count.  The simulated card only
 * (KMRUN_USAGE); KMRUN_SYSTEM when the port cannot be had or nobody
 * connects.  KMRUN_FAILED when the debugger killed the program: the run
 * is then held for good, where the debugger left it: free neither it, its
 * session nor its program, and end the process (kmrun(1) does). */
kmrun_status kmrun_run_debug(kmrun_run *r, double timeout_seconds, int port,
                             void (*waiting)(int port, const char *command, void *ctx), void *ctx,
                             kmrun_error **err);

/* Whether `seconds` is a timeout the API takes: more than 0, finite, at
 * most KMRUN_SECONDS_MAX. */
#define KMRUN_SECONDS_MAX 1e6
bool kmrun_seconds_valid(double seconds);

/* Whether the program turns the hand-over checker on for every run (the
 * manifest's check_handover: true, kmrun_program_set_check_handover). */
bool kmrun_program_checks_handover(const kmrun_program *p);

kmrun_status kmrun_run_read(const kmrun_run *r, int cluster, const char *name,
                            const void **data, size_t *bytes, kmrun_error **err);
/* Where region `name` of the thread on `cluster` was placed: its DRAM
 * bank and the address in the bank.  Valid from the load on. */
kmrun_status kmrun_run_region_address(const kmrun_run *r, int cluster, const char *name,
                                      unsigned *bank, uint64_t *address, kmrun_error **err);

/* ---- The host's side while the threads run -------------------------------
 * A loaded run goes: the host steers it with the calls below, in any
 * order, until it stops (kmrun_run_stop, or kmrun_run_wait).  On the
 * simulated card modeled time moves only inside these calls — a wait
 * moves it until what it waits for happens, a poll by one look of the
 * host (1 us) — so a run steered the same way gives the same results and
 * times every time, whatever the host does in between; on the host
 * fallback the threads run on the host's clock.  Timeouts are seconds of
 * the backend's time from the call: more than 0, finite, at most 1e6
 * (KMRUN_USAGE otherwise); 0 where it says so takes a default. */

/* A command for the Tensix grid, fed into the host ring (the program's
 * `commands:` take it first, in order). */
typedef struct kmrun_command {
    size_t size;          /* sizeof(kmrun_command): kmrun_command_init sets it */
    const char *handler;  /* a built-in (nop, fill, copy, sum, spend) or a program handler */
    uint32_t first, count; /* the group of Tensix cores: first, how many (1..120) */
    uint32_t args[10];    /* a0..a9 of the command line */
    unsigned nargs;
    bool result;          /* KM_FLAG_RESULT: the event carries the group leader's word */
    bool exclusive;       /* KM_FLAG_EXCLUSIVE */
} kmrun_command;

/* A command on handler `handler`, core 0 alone, no arguments. */
void kmrun_command_init(kmrun_command *c, const char *handler);

/* A command's fate as it stands. */
typedef struct kmrun_command_result {
    bool ended;          /* it has its event */
    const char *event;   /* "done", "timeout" or "rejected"; NULL while it has none */
    unsigned reason;     /* a rejection's KM_REASON_*, else 0 */
    bool has_result;     /* done, submitted with `result` */
    uint32_t result;     /* the leader's result word */
    double microseconds; /* from its submission to its event; < 0 while it has none */
    unsigned busy;       /* times it was rejected busy and went in again */
} kmrun_command_result;

/* Feeds c to the grid through the host ring; *handle names it for
 * kmrun_run_wait_command and kmrun_run_poll (the program's own commands
 * are handles 1 to N, in order; fed ones follow).  It goes in at the end
 * of the dispatcher's next pass (when the ring is full, as soon as a slot
 * frees).  KMRUN_USAGE for an unknown handler (the message suggests the
 * nearest), a group outside the grid, more than 10 arguments, a run that
 * has stopped or whose kernel was stopped (a Tensix handler taken out). */
kmrun_status kmrun_run_submit(kmrun_run *r, const kmrun_command *c, uint64_t *handle,
                              kmrun_error **err);
/* Runs until command `handle` has its event, for at most timeout_seconds;
 * KMRUN_OK with out->ended false when it has none by then.  KMRUN_USAGE
 * for a handle the run never gave.  After the stop: its fate at the stop. */
kmrun_status kmrun_run_wait_command(kmrun_run *r, uint64_t handle, double timeout_seconds,
                                    kmrun_command_result *out, kmrun_error **err);
/* One look of the host (1 us of modeled time on the simulated card), then
 * the command's fate as it stands. */
kmrun_status kmrun_run_poll(kmrun_run *r, uint64_t handle, kmrun_command_result *out,
                            kmrun_error **err);

/* Runs until the thread on the i-th cluster (kmrun_program_clusters'
 * order) has a final state; one still running timeout_seconds after the
 * call (0: the program's default, as kmrun_run_wait's) is asked to stop,
 * and is `stuck` if it has not stopped 1 s later.  Then its result (which
 * kmrun_run_result also gives from now on).  The others run on. */
kmrun_status kmrun_run_thread_result(kmrun_run *r, size_t i, double timeout_seconds,
                                     kmrun_thread_result *out, kmrun_error **err);
/* The same for every thread (a failure of one stops the others at once,
 * as in every run); then kmrun_run_result gives each. */
kmrun_status kmrun_run_thread_results(kmrun_run *r, double timeout_seconds, kmrun_error **err);
/* The stop: every thread still running is asked to stop now and given
 * timeout_seconds (0: 1 s, the spec's) before it is `stuck`; then the
 * kernel stops (commands not yet taken are rejected; one running never
 * ends), and the run is read back as kmrun_run_wait's is.  Called again:
 * KMRUN_OK, nothing done. */
kmrun_status kmrun_run_stop(kmrun_run *r, double timeout_seconds, kmrun_error **err);

/* ---- Host fallbacks given as functions --------------------------------------
 * The spec's host fallback as a function of the host program: on the host
 * backend (KMRUN_BACKEND_HOST) the thread runs it instead of its sources,
 * with the fallback runtime's rules (the stop, the deadline, the result
 * block): `host_fallback(regions, words, run) -> (code, words)`.  It runs
 * on a thread of the library's, core 0 of the thread's cluster, while the
 * run goes; its regions are the thread's copies (what its cluster's cache
 * would hold: written back to DRAM when it returns), its commands go
 * through the thread's own ring. */

/* The thread's side of the run, for the function's commands. */
typedef struct kmrun_fallback_run kmrun_fallback_run;

typedef struct kmrun_fallback_args {
    int cluster;
    unsigned nregions;                 /* own regions first, then shared ones: region ids */
    void *const *regions;              /* each region's bytes, writable, valid during the call */
    const size_t *region_bytes;
    const char *const *region_names;
    const unsigned *region_banks;      /* where each is in DRAM: its bank, */
    const uint64_t *region_addresses;  /* and its address in the bank */
    const uint32_t *words;             /* the program's words */
    unsigned nwords;
    kmrun_fallback_run *run;
} kmrun_fallback_args;

/* Returns the thread's code (kmx_main's); sets words[0 .. *nwords), its
 * result words (*nwords is 48 at the call, 0 if it sets none). */
typedef int32_t (*kmrun_host_fallback)(const kmrun_fallback_args *a, uint32_t *words,
                                       unsigned *nwords, void *ctx);

/* The thread on `cluster` (on every cluster it is declared on) runs fn
 * with ctx as its host fallback from the program's next load on; fn
 * NULL: its sources again.  KMRUN_USAGE for a cluster it has no thread
 * on. */
kmrun_status kmrun_program_host_fallback(kmrun_program *p, int cluster, kmrun_host_fallback fn,
                                         void *ctx, kmrun_error **err);

/* From inside the function: a command through the thread's ring (as
 * kmx_submit; KMRUN_USAGE when the ring is full: wait for one first), its
 * event (as kmx_wait, at most timeout_seconds of the thread's clock:
 * out->ended false when none came), the event of `handle` if it came
 * (without waiting), and whether the thread was asked to stop.  After a
 * stop or the thread's deadline the calls fail with KMRUN_FAILED: the
 * function should return. */
kmrun_status kmrun_fallback_submit(kmrun_fallback_run *run, const kmrun_command *c,
                                   uint64_t *handle, kmrun_error **err);
kmrun_status kmrun_fallback_wait(kmrun_fallback_run *run, uint64_t handle, double timeout_seconds,
                                 kmrun_command_result *out, kmrun_error **err);
kmrun_status kmrun_fallback_poll(kmrun_fallback_run *run, uint64_t handle,
                                 kmrun_command_result *out, kmrun_error **err);
bool kmrun_fallback_stop_requested(const kmrun_fallback_run *run);
/* The hand-overs of region `id`, as kmx_flush and kmx_invalidate: what
 * the function wrote to DRAM (before a Tensix handler reads it), and what
 * DRAM holds into the thread's copy (after one wrote it).  The copy is
 * what the thread's cache would hold: a hand-over left out here breaks as
 * it would on the card.  KMRUN_USAGE for an id the thread does not have. */
kmrun_status kmrun_fallback_flush(kmrun_fallback_run *run, unsigned id, kmrun_error **err);
kmrun_status kmrun_fallback_invalidate(kmrun_fallback_run *run, unsigned id, kmrun_error **err);

void kmrun_run_free(kmrun_run *r);

/* ---- Diagnostics ------------------------------------------------------------------
 * A finding with its place, as `kmrun --message-format=json` prints it and
 * a tool reads it: kmrun's own (a manifest's errors, an image's rejection,
 * a step that failed, a run's findings) and the compilers' (gcc's JSON,
 * clang's text, read into the same form).  A file is shown as gcc and
 * cargo show one: as it was named (a manifest), else relative to the
 * working folder when it is under it or is the program's (beside it:
 * "../x/thread/a.c"), else absolute (a system header).  The code is a
 * stable short name (kmrun(3) lists them: manifest.unknown-key,
 * build.compile, image.too-large, run.handover, ...). */

typedef enum kmrun_severity {
    KMRUN_SEVERITY_ERROR = 0,
    KMRUN_SEVERITY_WARNING = 1,
    KMRUN_SEVERITY_NOTE = 2,
} kmrun_severity;
/* "error", "warning", "note". */
const char *kmrun_severity_name(kmrun_severity s);

/* Every failure has one diagnostic at least (a failure without findings:
 * its message, coded by what failed or by its status: kmrun.usage,
 * kmrun.system, ...); a manifest's has one each error, a build's the
 * compilers' findings and kmrun's word on each step that failed.  The
 * error's own, valid until kmrun_error_free; NULL for an i past the last. */
size_t kmrun_error_diagnostics(const kmrun_error *e);
const kmrun_diagnostic *kmrun_error_diagnostic(const kmrun_error *e, size_t i);

kmrun_severity kmrun_diagnostic_severity(const kmrun_diagnostic *d);
const char *kmrun_diagnostic_code(const kmrun_diagnostic *d);
const char *kmrun_diagnostic_message(const kmrun_diagnostic *d);
/* Its file (NULL: none), line and column (1-based; 0: not known) and the
 * last column of its range on that line (0: not known). */
const char *kmrun_diagnostic_file(const kmrun_diagnostic *d);
int kmrun_diagnostic_line(const kmrun_diagnostic *d);
int kmrun_diagnostic_column(const kmrun_diagnostic *d);
int kmrun_diagnostic_end_column(const kmrun_diagnostic *d);
/* The source line it points at, as the file held it when the finding was
 * made, without its newline; NULL: none. */
const char *kmrun_diagnostic_text(const kmrun_diagnostic *d);
/* The compiler's option behind a finding ("-Wunused-function"); NULL. */
const char *kmrun_diagnostic_option(const kmrun_diagnostic *d);
/* Its notes (a compiler's "note:" lines after it), in order. */
size_t kmrun_diagnostic_children(const kmrun_diagnostic *d);
const kmrun_diagnostic *kmrun_diagnostic_child(const kmrun_diagnostic *d, size_t i);
/* As one JSON object on one line (no newline): severity, code, message,
 * file, line, column, end_column, text, option (null when unknown) and
 * children (the notes, each the same object).  Allocated: free() it;
 * NULL when memory runs out. */
char *kmrun_diagnostic_json(const kmrun_diagnostic *d);
/* As kmrun(1) shows it to a person — "file:line:col: message" (a
 * compiler's and a warning's with their word: "error:", "warning:"), its
 * source line and a caret under the column, then its notes — given to
 * `put` piece by piece, each with how to show it (KMRUN_STYLE_LOCUS, _BAD,
 * _WARN, _NOTE, _CARET, _PLAIN). */
void kmrun_diagnostic_show(const kmrun_diagnostic *d,
                           void (*put)(const char *text, kmrun_style style, void *ctx), void *ctx);
/* Finding i of `kind` of a stopped run (kmrun_run_finding's) as a
 * diagnostic: code run.handover, run.wild-write or run.kernel-fault, the
 * source line it names.  Allocated: kmrun_diagnostic_free; NULL for an i
 * past the last, or when memory runs out. */
kmrun_diagnostic *kmrun_run_finding_diagnostic(const kmrun_run *r, kmrun_finding kind, size_t i);
/* Frees a diagnostic the caller owns (kmrun_run_finding_diagnostic's);
 * never one of an error's. */
void kmrun_diagnostic_free(kmrun_diagnostic *d);

/* ---- Expected results: `expect:` and kmrun test ---------------------------------
 * A manifest's `expect:` (kmrun-program(5), Expect) says what a run of
 * the program must give; `kmrun test` runs each program on its backends
 * and holds each run to it (kmrun(1)).  The comparison is the library's:
 * a finished run, in memory or as `kmrun run` left it (its JSON and run
 * folder), against the program's expectations gives the list of
 * differences, each at the manifest's file:line:col of the expectation it
 * breaks.  Items with a `backend:` other than the run's are left out;
 * beyond them, every thread must have returned and every command be done
 * unless an item names another state or event, and the card must have
 * found nothing (no hand-over finding, wild write or handler taken
 * out).  Times are never compared. */

/* Whether the program's manifest has `expect:` (a program built in code
 * has none); the backends `kmrun test` runs it on, its `backends:`
 * (KMRUN_BACKEND_SIM alone by default), into out, their count (0 without
 * `expect:`). */
bool kmrun_program_has_expect(const kmrun_program *p);
size_t kmrun_program_expect_backends(const kmrun_program *p, kmrun_backend out[2]);

typedef struct kmrun_verdict kmrun_verdict;

/* One expectation a run breaks.  Strings are the verdict's, valid until
 * kmrun_verdict_free. */
typedef struct kmrun_mismatch {
    const char *file;     /* the manifest, as the program names it */
    int line, col;        /* the expectation's value in it */
    const char *subject;  /* "thread on cluster 1", "region 'out' of cluster 1",
                           * "command 2 ('sum')", "the run" */
    const char *expected; /* "words [42, 7]" */
    const char *got;      /* "[42]" */
    const char *text;     /* "file:line:col: subject: expected ..., got ..." */
} kmrun_mismatch;

/* Holds the stopped run r (its program p) to p's expectations, its
 * regions read from the run.  KMRUN_OK when the comparison was made,
 * whatever it found (*out says; a program without `expect:` is held to
 * what every run must give); KMRUN_USAGE before the stop; KMRUN_SYSTEM
 * when memory runs out. */
kmrun_status kmrun_expect_run(const kmrun_program *p, const kmrun_run *r, kmrun_verdict **out,
                              kmrun_error **err);
/* The same for a run `kmrun run` made: its JSON as it printed it, its
 * regions read from `folder` (NULL: the run folder the JSON names; none:
 * each region expectation is a difference).  KMRUN_USAGE when run_json is
 * not a run's JSON. */
kmrun_status kmrun_expect_json(const kmrun_program *p, const char *run_json, const char *folder,
                               kmrun_verdict **out, kmrun_error **err);
/* The run's backend ("sim", "host"); the run folder its regions were read
 * from (NULL: none); the expectations compared; the differences, and
 * difference i into *out (false for an i past the last). */
const char *kmrun_verdict_backend(const kmrun_verdict *v);
const char *kmrun_verdict_folder(const kmrun_verdict *v);
size_t kmrun_verdict_checked(const kmrun_verdict *v);
size_t kmrun_verdict_mismatches(const kmrun_verdict *v);
bool kmrun_verdict_mismatch(const kmrun_verdict *v, size_t i, kmrun_mismatch *out);
/* Difference i as a diagnostic (code "test.mismatch", an error at the
 * expectation's file, line and column, its source line read now; the
 * message "subject: expected ..., got ..."), as `kmrun test
 * --message-format=json` tells it.  Allocated: kmrun_diagnostic_free;
 * NULL for an i past the last or when memory runs out. */
kmrun_diagnostic *kmrun_verdict_diagnostic(const kmrun_verdict *v, size_t i);
void kmrun_verdict_free(kmrun_verdict *v);
/* Whether difference i is only a value, one the run's could replace in
 * the manifest (`kmrun test --bless`): a thread's words, prints or code,
 * a state or event other than the normal end the item names, a region's
 * SHA-256 or first bytes, a command's result word.  Not: a thread that
 * did not return (or gave no code) when the item says it must, a command
 * not done that should be, a thread or command missing from the run, a
 * region that cannot be read, anything the card found. */
bool kmrun_verdict_blessable(const kmrun_verdict *v, size_t i);

/* Blessing (`kmrun test --bless`): a program's expect: rewritten in its
 * manifest to what its runs gave.  The runs of one program are added
 * (each backend's verdict, or a backend known to pass without one: a
 * reused result), then written together or not at all: only when every
 * difference is a value, and every item that changes applies only to
 * backends that ran and all give the same new value (an item with no
 * `backend:` that sim and host give differently, that one of them keeps,
 * or that applies to a backend that did not run is refused).  The write
 * changes only the bytes of the changed values (comments, key order,
 * indentation, flow or block style and every other byte kept), through a
 * temporary file in the manifest's folder with its mode, renamed over it;
 * nothing is written when no value changes.  The verdicts must outlive
 * the blessing. */
typedef struct kmrun_blessing kmrun_blessing;
kmrun_status kmrun_blessing_new(const kmrun_program *p, kmrun_blessing **out,
                                kmrun_error **err);
/* KMRUN_USAGE for a verdict of another program, or a backend twice. */
kmrun_status kmrun_blessing_add(kmrun_blessing *b, const kmrun_verdict *v, kmrun_error **err);
kmrun_status kmrun_blessing_passed(kmrun_blessing *b, kmrun_backend backend, kmrun_error **err);
/* KMRUN_OK: the manifest holds what the runs gave (*written, when not
 * NULL, the values changed; 0: nothing written); KMRUN_FAILED: refused,
 * err says why at the item's file:line:col; KMRUN_USAGE: it cannot be
 * rewritten in place (it changed since it was read, a block scalar, a
 * program with no manifest file); KMRUN_SYSTEM: it cannot be read or
 * written.  Whatever fails, the file is as it was. */
kmrun_status kmrun_blessing_write(kmrun_blessing *b, size_t *written, kmrun_error **err);
void kmrun_blessing_free(kmrun_blessing *b);

/* The programs `kmrun test` finds under paths[0..n): a path that is a
 * file is one, whatever its name; a folder's are, at any depth, the files
 * named program.yaml and the other *.yaml files with a line that begins
 * `expect:`, leaving out names that begin with a dot and links to
 * folders; in the order of the paths, each one's sorted bytewise, a file
 * found twice listed once.  KMRUN_USAGE for a path that is not there or
 * no program at all; KMRUN_SYSTEM for a folder that cannot be read. */
typedef struct kmrun_test_list kmrun_test_list;
kmrun_status kmrun_test_find(const char *const *paths, size_t n, kmrun_test_list **out,
                             kmrun_error **err);
size_t kmrun_test_count(const kmrun_test_list *l);
/* The i-th program's manifest path (the list's; NULL past the last). */
const char *kmrun_test_path(const kmrun_test_list *l, size_t i);
void kmrun_test_list_free(kmrun_test_list *l);

/* A shard, "I/N" (1 <= I <= N <= 1,000,000): false when text is not one.
 * The i-th program of the list (from 0) is in shard I of N when
 * (i mod N) + 1 == I: the shards are disjoint and cover the list. */
bool kmrun_test_shard_parse(const char *text, unsigned *index, unsigned *count);
bool kmrun_test_in_shard(size_t i, unsigned index, unsigned count);

typedef enum kmrun_test_outcome {
    KMRUN_TEST_PASS = 0,
    KMRUN_TEST_FAIL = 1,
    KMRUN_TEST_SKIP = 2,
    KMRUN_TEST_BLESSED = 3, /* its differences were values, rewritten in the
                             * manifest (kmrun_blessing_write): it holds now */
} kmrun_test_outcome;

/* A case: a program on a backend, as it came out. */
typedef struct kmrun_test_case {
    /* sizeof(kmrun_test_case): set it (kmrun_test_case_init does). */
    size_t size;
    const char *manifest;     /* its path, as found */
    const char *backend;      /* "sim" or "host"; NULL: nothing ran (a skip, a
                               * manifest that does not load) */
    kmrun_test_outcome outcome;
    double seconds;           /* real time */
    const char *summary;      /* a line: the first difference, or why it failed
                               * or was skipped (NULL for a pass) */
    const char *detail;       /* all of it, a line each (NULL: the summary) */
    size_t more;              /* differences past the first */
    const char *run_folder;   /* the run's folder (NULL: none) */
    bool reused;              /* a pass: a stored result of the same run stands
                               * for it (kmrun_cache_result_get), nothing ran */
} kmrun_test_case;
void kmrun_test_case_init(kmrun_test_case *c);

typedef enum kmrun_test_format {
    KMRUN_TEST_TEXT = 0, /* "ok   FILE [sim] 0.41 s", "FAIL ..." with its summary under it */
    KMRUN_TEST_TAP = 1,  /* TAP 13: "ok N - FILE [sim]", a failure's YAML block */
} kmrun_test_format;

/* The case as `kmrun test` prints it, `number` its TAP number: allocated
 * (free()), no newline at its end; NULL when memory runs out. */
char *kmrun_test_line(const kmrun_test_case *c, kmrun_test_format f, size_t number);
/* The cases as a JUnit XML report, written to `path` whole (a temporary
 * name, then renamed): one testcase per case, classname the manifest's
 * folder with dots ("programs.01_hello"), name its file and backend
 * ("program.yaml [sim]"), its seconds, a failure's summary, detail and
 * run folder.  KMRUN_SYSTEM when it cannot be written. */
kmrun_status kmrun_test_junit(const char *path, const kmrun_test_case *cases, size_t n,
                              kmrun_error **err);

#ifdef __cplusplus
}
#endif

#endif
