/* cmd_run: one run of a program on a backend, as `kmrun run` and `kmrun
 * check` both do it — load, run, read the regions back, write the run
 * folder — with the JSON kept for the caller to print or compare. */
#ifndef KM_CMD_RUN_H
#define KM_CMD_RUN_H

#include <stdio.h>

#include "km_build.h"
#include "km_cache.h"
#include "km_run_record.h"
#include "km_session.h"

/* What a run is asked for beyond running. */
typedef struct cmd_run_wants {
    bool check_handover; /* km_session_check_handover (the program's key turns it on too) */
    /* --trace-instructions C.K: that core's commit log, into the run
     * folder as trace-cC.K.log (CMD_TRACE_NAME) */
    bool trace;
    unsigned trace_cluster, trace_core;
    /* --gdb PORT: the run held for gdb-multiarch on gdb_port (0: any free one) */
    bool gdb;
    int gdb_port;
    /* --timeline FILE: the run's timeline (km_timeline.h) written there */
    const char *timeline;
} cmd_run_wants;

#define CMD_TRACE_NAME "trace-c%u.%u.log"

typedef struct cmd_run_outcome {
    km_session *s;              /* open until cmd_run_outcome_free */
    km_run_result result;
    const km_region_copy *copies; /* the session's */
    size_t ncopies;
    /* The run's id, its JSON (schemas/run.schema.json) and its folder,
     * or why that was not written (km_run_record.h) */
    km_run_record rec;
    FILE *trace;                /* the instruction trace being written, or NULL */
    int trace_rc;               /* KM_OK, or why it was not (trace_err) */
    km_error trace_err;
    struct km_timeline *timeline; /* being recorded, or NULL */
    int timeline_rc;            /* KM_OK, or why it was not written (timeline_err) */
    km_error timeline_err;
} cmd_run_outcome;

/* A print, shown on stderr as it is drained: `[c1.2 104.22µs] text`
 * (km_prints.h); km_run_opts.print for run and check. */
void cmd_on_print(const km_print_line *p, void *ctx);

/* A plain decimal number of seconds, more than 0, for `command`'s option. */
int cmd_parse_seconds(const char *command, const char *option, const char *text, double *out);

/* Builds (compiler messages to stderr), loads and runs p on backend b,
 * then writes the run folder under run_dir (NULL: the default).  KM_OK
 * with *out filled whatever the threads did; else the error's status.
 * A run folder that cannot be written does not lose the run: KM_OK, the
 * JSON in out->rec.json, and the folder's error in out->rec.folder_rc/_err for
 * the caller to report after the results; so does an instruction trace
 * (out->trace_rc/_err) and a timeline (out->timeline_rc/_err). */
int cmd_run_backend(const km_program *p, km_backend b, km_cache *cache, const km_build_opts *bo,
                   const km_run_opts *ro, const cmd_run_wants *wants, const char *run_dir,
                   double started, cmd_run_outcome *out, km_error *err);

/* km_session_run under gdb-multiarch on 127.0.0.1:port (0: any free
 * one), the run halted until the debugger resumes it (run_gdb.c).  As
 * km_session_run; KM_EXIT_FAILED when the debugger killed the program
 * (its run thread is left held: the caller ends the process without a
 * result). */
int cmd_run_debugged(const km_program *p, km_session *s, const km_run_opts *ro, int port,
                     cmd_run_outcome *out, km_error *err);

/* After the results are printed: the run folder's error, if any, into
 * *rc and *err (a system error outranks a thread's failure); the same for
 * the instruction trace and the timeline. */
void cmd_run_outcome_folder(const cmd_run_outcome *o, int *rc, km_error *err);

/* Every finding of the run, one diagnostic line each on stderr: the
 * hand-over checker's (km_handover.h) and the wild writes (km_wild.h),
 * each the first CMD_HANDOVER_LINES, then how many more the JSON lists,
 * and the Tensix handlers the card took out (km_kernel_fault.h); returns
 * how many there are (km_run_findings: any fails the run). */
#define CMD_HANDOVER_LINES 100u
unsigned cmd_run_outcome_findings(const cmd_run_outcome *o);

/* The note `kmrun run --thread host` prints once when the checker was
 * asked for (by the flag or the manifest). */
void cmd_note_host_handover(void);

void cmd_run_outcome_free(cmd_run_outcome *o);

#endif
