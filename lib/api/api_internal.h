/* api_internal: what lib/api/'s files share — the handles behind
 * include/kmrun.h's opaque types, and the one way a failure becomes a
 * kmrun_error.  Nothing here is exported: it is lib/api/'s own. */
#ifndef KM_API_INTERNAL_H
#define KM_API_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "blackhole.h"
#include "km_cache.h"
#include "km_driver.h"
#include "km_error.h"
#include "km_gdb.h"
#include "km_program.h"
#include "km_program_code.h"
#include "km_run_record.h"
#include "km_session.h"
#include "kmrun.h"
#include "kmrun_tools.h"

struct kmrun_error {
    kmrun_status status;
    char *message;
    char *detail; /* kmrun_error_detail's; NULL: none */
    km_diags diags; /* kmrun_error_diagnostics' (kmrun_diag.c) */
};

/* A diagnostic of the API is the library's own (kmrun_diag.c): an error's
 * are its km_diags' items, a note one of their children. */
struct kmrun_diagnostic {
    km_diag g;
};

/* A thread's host fallback given as a function (kmrun_fallback.c). */
typedef struct km_api_fallback {
    const struct kmrun_program *program;
    kmrun_host_fallback fn;
    void *ctx;
} km_api_fallback;

struct kmrun_program {
    km_program *p; /* the model: a manifest's, or code.p */
    km_api_fallback fallbacks[BH_WORK_CLUSTERS]; /* by thread index */
    int clusters[BH_WORK_CLUSTERS]; /* every thread's clusters, ascending */
    size_t nclusters;
    /* Built in code (kmrun_program_new): its document (km_program_code.h);
     * code.doc NULL for a manifest's.  `in_use`: loaded once, so checked
     * whole and no longer changed. */
    km_code code;
    bool in_use;
};

/* Before a load of p: a program built in code checked whole (as
 * kmrun_program_check) and from then on unchanged; a manifest's: nothing
 * to do.  KMRUN_USAGE with the program's errors. */
kmrun_status km_api_program_ready(kmrun_program *p, kmrun_error **err);

struct kmrun_session {
    km_backend backend;
    char *cache_root; /* the cache's folder, chosen at the open */
    char *runs;       /* where run folders go, chosen at the open */
    bool run_folder, check_handover;
    double wall_timeout_s;
    kmrun_callbacks callbacks;
    int jobs;
    bool trace;
    unsigned trace_cluster, trace_core;
    struct km_api_trace_opts *trace_opts; /* kmrun_session_set_trace's; NULL: none */
    bool profile; /* kmrun_session_profile */
    char *timeline;                /* the timeline's file; NULL: none */
    struct kmrun_run *run; /* its one run, until kmrun_run_free */
    /* kmrun_session_opts' diagnostic and color, for each load's build */
    void (*diagnostic)(const kmrun_diagnostic *d, void *ctx);
    kmrun_color color;
    bool debug_build; /* kmrun_session_opts' */
    km_card_memory card; /* what its card keeps from load to load (the prefetchers) */
};

struct kmrun_run {
    kmrun_session *owner; /* NULL once the session is closed */
    const kmrun_program *program;
    kmrun_callbacks callbacks;
    void (*diagnostic)(const kmrun_diagnostic *d, void *ctx); /* the session's */
    double wall_timeout_s;
    km_cache cache; /* open for the run: the images it loaded stay pinned */
    km_session *s;
    km_run_record rec;
    bool begun;   /* the threads were started (at the first call that moves time) */
    bool stopped;
    /* A wait that failed: the status and message it said, said again by
     * the next (the session cannot run again). */
    int failed;
    km_error fail_err;
    km_run_result result;
    const km_region_copy *copies; /* the session's */
    size_t ncopies;
    /* The instruction traces being written into the run folder (NULL:
     * none; kmrun_trace.c), and why one was not written (trace_rc). */
    struct km_api_traces *traces;
    /* The profile's folded file once written (kmrun_session_profile). */
    char *profile_file;
    int trace_rc;
    km_error trace_err;
    /* The timeline being recorded (NULL: none), its file, and why it was
     * not written (timeline_rc). */
    struct km_timeline *timeline;
    char *timeline_path;
    int timeline_rc;
    km_error timeline_err;
};

/* ---- Instruction traces (kmrun_trace.c) ----------------------------------
 * The session's trace options (trace_instructions' core and
 * kmrun_session_set_trace's), turned on for each run: after
 * km_session_open, the cores (km_api_traces_attach); after the load, each
 * traced cluster's filter and image (km_api_traces_loaded: a function no
 * traced image has is KMRUN_USAGE); each core's file opened at its first
 * instruction; closed, with their end records, before the run folder is
 * committed (km_api_traces_close; a failure is r->trace_rc's). */
typedef struct km_api_trace_opts km_api_trace_opts;
void km_api_trace_opts_free(km_api_trace_opts *o);
/* The cores o traces (bit (C - 1) * 4 + K), 0 for none. */
uint32_t km_api_trace_opts_cores(const km_api_trace_opts *o);
int km_api_traces_attach(kmrun_run *r, km_error *e);
int km_api_traces_loaded(kmrun_run *r, km_error *e);
void km_api_traces_close(kmrun_run *r);
void km_api_traces_free(kmrun_run *r);

/* ---- The run's life (kmrun_run.c) ----------------------------------------
 * A run's drive begins at the first call that needs time to move (the
 * threads' stop asked at timeout_ps: kmrun_run_wait's, or never until the
 * host says); km_api_drive moves time until a goal (km_driver.h) or a
 * horizon; km_api_stop ends the run and reads it back (regions, run
 * JSON, run folder).  A failure of either (the wall timeout, a backend's
 * own) leaves the run failed: every later call says it again. */
kmrun_status km_api_begin(kmrun_run *r, uint64_t timeout_ps, kmrun_error **err);
kmrun_status km_api_drive(kmrun_run *r, km_drive_goal goal, void *ctx, uint64_t until_ps,
                          kmrun_error **err);
kmrun_status km_api_stop(kmrun_run *r, kmrun_error **err);
/* A run that can still move: not stopped, not failed (KMRUN_USAGE naming
 * `what` otherwise). */
kmrun_status km_api_going(kmrun_run *r, const char *what, kmrun_error **err);
/* Seconds of a timeout as the API takes them (0: `dflt` picoseconds),
 * picoseconds into *ps; KMRUN_USAGE naming the value otherwise. */
kmrun_status km_api_timeout(double seconds, uint64_t dflt, uint64_t *ps, kmrun_error **err);
/* A debugger's connection (kmrun_debug.c): a socket listening on `port`
 * (0: any free one), `waiting` told the port it got and the command line
 * that connects (gdb-multiarch -q, gdb_args, then target remote), then
 * the debugger that connects, *fd; KMRUN_SYSTEM naming the port and the
 * reason. */
kmrun_status km_api_gdb_connect(int port, const char *gdb_args,
                                void (*waiting)(int port, const char *command, void *ctx),
                                void *ctx, int *fd, kmrun_error **err);
/* Where pc is in `image` for the debugger's monitor commands (kmrun_debug.c):
 * its function and line from the DWARF (addr2line), else its function
 * from the ELF's symbols; 0, or -1 when neither says. */
int km_api_gdb_lookup(const char *image, uint64_t pc, km_gdb_source *out);

/* The host fallbacks given as functions, onto p's model's threads. */
void km_api_fallbacks_apply(kmrun_program *p);

/* c as the program model has it, its handler resolved (the host decides
 * when it waits: `wait` false); KMRUN_USAGE naming what is wrong. */
kmrun_status km_api_command(const km_program *p, const kmrun_command *c, km_host_command *out,
                            kmrun_error **err);
/* The plan index of the thread on the program's i-th cluster. */
unsigned km_api_plan_index(const kmrun_run *r, size_t i);

/* Sets *err (when err is not NULL) to a new error of `status` with
 * `message` (copied); returns the status.  Out of memory for it: a shared
 * error of KMRUN_SYSTEM, which kmrun_error_free leaves. */
kmrun_status km_api_error(kmrun_error **err, int status, const char *message);

/* The same with kmrun_error_detail's text (copied; NULL: none). */
kmrun_status km_api_error_detail(kmrun_error **err, int status, const char *message,
                                 const char *detail);

/* The same from a failure of the library: its status and km_error. */
kmrun_status km_api_fail(kmrun_error **err, int status, const km_error *e);

/* The same with the failure's findings: `found`'s diagnostics are moved
 * into the error (each without a code coded `code`, each source line read
 * now, the count of those dropped a note), `found` left empty; none: one
 * made of the message, coded `code` (NULL: by the status). */
kmrun_status km_api_error_found(kmrun_error **err, int status, const char *message,
                                const char *detail, km_diags *found, const char *code);

/* The code of a failure that says nothing more precise: by its status
 * (kmrun.usage, build.failed, kmrun.system, ...). */
const char *km_api_status_code(int status);

/* The caller's options *src (its `size` field first) copied into dst
 * (`newest` bytes, zeroed first): a caller built before the structure grew
 * (size `oldest`) gets the new fields zero; any other size, or a colour
 * that is not a kmrun_color (at `color_at` in the structure), is a usage
 * error naming the structure `name` and its _init. */
kmrun_status km_api_opts_copy(void *dst, const void *src, size_t oldest, size_t newest,
                              size_t color_at, const char *name, kmrun_error **err);

/* The same with a message made as km_fail makes it (names KS_QUOTED). */
kmrun_status km_api_usage(kmrun_error **err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A finding's line (kmrun_diag.c) with every file of the program it
 * names ("thread/a.c:12") shown from the working folder, in place (n
 * bytes). */
void km_api_finding_line(const kmrun_run *r, char *line, size_t n);

/* The library's cache behind a kmrun_cache (kmrun_folders.c). */
km_cache *km_api_cache(kmrun_cache *c);

#endif
