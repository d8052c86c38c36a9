/* cmd_run: one run of a program on a backend, as `kmrun run` and `kmrun
 * check` both do it, over the public API — a session opened with what the
 * command line asked, the program loaded (its build's compiler messages,
 * its prints and the cache's warnings on stderr), the run waited for (or
 * held for gdb-multiarch), and what went wrong with its folder, its
 * instruction trace or its timeline said after the results. */
#ifndef KM_CMD_RUN_H
#define KM_CMD_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kmrun.h"

/* The most --trace-pc and --trace-function options, together. */
#define CMD_TRACE_FILTERS 64

/* What a run is asked for beyond running. */
typedef struct cmd_run_wants {
    kmrun_backend backend;
    bool check_handover; /* --check-handover (the program's key turns it on too) */
    /* --trace-instructions C.K and --trace-cores: the traced cores (bit
     * (C - 1) * 4 + K; KMRUN_TRACE_ALL_CORES; 0: none), each core's trace
     * into the run folder; --trace-pc's ranges (pairs, the end excluded),
     * --trace-function's names, --trace-limit (0: the default) */
    uint32_t trace_cores;
    uint64_t trace_ranges[2 * CMD_TRACE_FILTERS];
    size_t ntrace_ranges;
    const char *trace_functions[CMD_TRACE_FILTERS];
    size_t ntrace_functions;
    uint64_t trace_limit;
    /* --gdb PORT: the run held for gdb-multiarch on gdb_port (0: any free one) */
    bool gdb;
    int gdb_port;
    const char *timeline;  /* --timeline FILE, or NULL */
    bool profile;          /* --profile */
    const char *run_dir;   /* --run-dir DIR, or NULL: the default */
    int jobs;              /* -j N; 0: Ninja's */
    double timeout_s;      /* --timeout; 0: the default */
    double wall_timeout_s; /* --wall-timeout; 0: none */
    bool progress;         /* --progress: each marker a JSON line on stderr */
    bool debug_build;      /* --debug: the debug build profile */
} cmd_run_wants;

typedef struct cmd_run_outcome {
    kmrun_session *s; /* open until cmd_run_outcome_free */
    kmrun_run *r;     /* stopped, when cmd_run_program returned KMRUN_OK */
} cmd_run_outcome;

/* A plain decimal number of seconds, more than 0, for `command`'s option. */
int cmd_parse_seconds(const char *command, const char *option, const char *text, double *out);

/* Loads p on wants->backend and runs it to its stop (with wants->gdb,
 * under the debugger).  KMRUN_OK with out->r stopped whatever the threads
 * did; else the failure's status, with its message in msg (n bytes).  The
 * debugger's kill ends the process here, with KMRUN_FAILED: the run is
 * held for good. */
int cmd_run_program(kmrun_program *p, const cmd_run_wants *wants, cmd_run_outcome *out,
                    char *msg, size_t n);

/* After the results are printed: why the run folder, the instruction
 * trace or the timeline was not written, if so, into *rc and msg (a
 * system error outranks a thread's failure). */
void cmd_run_outcome_folder(const cmd_run_outcome *o, int *rc, char *msg, size_t n);

/* Every finding of the run, one diagnostic line each on stderr: the
 * hand-over checker's and the wild writes, each the first
 * CMD_HANDOVER_LINES, then how many more the JSON lists, and the Tensix
 * handlers the card took out; returns how many there are (any fails the
 * run). */
#define CMD_HANDOVER_LINES 100u
uint64_t cmd_run_outcome_findings(const cmd_run_outcome *o);

/* The note `kmrun run --thread host` prints once when the checker was
 * asked for (by the flag or the manifest). */
void cmd_note_host_handover(void);

/* The real time from an earlier cmd_wall_now(), in seconds. */
double cmd_wall_now(void);

void cmd_run_outcome_free(cmd_run_outcome *o);

/* The run's summary: the few lines a person reads after `kmrun run` or
 * `kmrun check` on a terminal (issue 14, "a run a person can read"; the
 * words are kmrun_run_summary's) — on stderr; stdout stays the one JSON
 * document.  Nothing when stderr is not a terminal or with
 * --message-format=json; colours as cmd_diag_color() says (--color,
 * NO_COLOR, CLICOLOR_FORCE, a terminal, TERM=dumb). */
/* Whether a summary goes to stderr (a terminal), and whether in colour. */
bool cmd_summary_wanted(bool *color);

/* The summary of a run cmd_run_program made, headed by `title` when not
 * NULL, to f. */
void cmd_summary_outcome(FILE *f, bool color, const char *title, const cmd_run_outcome *o,
                         double wall_seconds);

#endif
