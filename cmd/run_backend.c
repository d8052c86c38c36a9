/* run_backend: one run of a program on a backend (cmd_run.h), over the
 * public API: kmrun_session_open, kmrun_session_load, kmrun_run_wait or
 * kmrun_run_debug. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_run.h"

int cmd_parse_seconds(const char *command, const char *option, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !kmrun_seconds_valid(v))
        return cmd_usage_error(command, "invalid %s '%s' (expected seconds, such as 2 or 0.5)",
                              option, text);
    *out = v;
    return KMRUN_OK;
}

double cmd_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A line of stderr, as soon as it comes: a compiler's message, a print
 * ("[c1.2 104.22µs] text"), a warning of the cache. */
static void on_line(const char *line, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

/* --progress: each new marker a JSON line (the run JSON's decimals). */
static void on_progress(int cluster, uint32_t where, double microseconds, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "{\"cluster\":%d,\"where\":%u,\"microseconds\":%.15g}\n", cluster, where,
            microseconds);
    fflush(stderr);
}

static void on_gdb_waiting(int port, const char *command, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "kmrun: waiting for GDB on port %d: %s\n", port, command);
    fflush(stderr);
}

/* A failure's status, its message into msg; the error freed. */
static int failed(kmrun_error *e, char *msg, size_t n)
{
    int rc = kmrun_error_status(e);
    snprintf(msg, n, "%s", kmrun_error_message(e));
    kmrun_error_free(e);
    return rc;
}

int cmd_run_program(kmrun_program *p, const cmd_run_wants *wants, cmd_run_outcome *out,
                    char *msg, size_t n)
{
    memset(out, 0, sizeof *out);
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.backend = wants->backend;
    o.runs_dir = wants->run_dir;
    o.check_handover = wants->check_handover;
    o.wall_timeout_seconds = wants->wall_timeout_s;
    o.callbacks.build_output = on_line;
    o.callbacks.print_line = on_line;
    o.callbacks.warning = cmd_warn;
    if (wants->progress)
        o.callbacks.progress = on_progress;
    o.jobs = wants->jobs;
    o.trace_instructions = wants->trace;
    o.trace_cluster = wants->trace_cluster;
    o.trace_core = wants->trace_core;
    o.timeline = wants->timeline;
    kmrun_error *e = NULL;
    if (kmrun_session_open(&o, &out->s, &e) != KMRUN_OK)
        return failed(e, msg, n);
    if (kmrun_session_load(out->s, p, &out->r, &e) != KMRUN_OK)
        return failed(e, msg, n);
    int rc = wants->gdb ? kmrun_run_debug(out->r, wants->timeout_s, wants->gdb_port,
                                          on_gdb_waiting, NULL, &e)
                        : kmrun_run_wait(out->r, wants->timeout_s, &e);
    if (rc == KMRUN_OK)
        return KMRUN_OK;
    rc = failed(e, msg, n);
    if (wants->gdb && rc == KMRUN_FAILED) {
        /* killed by the debugger: its run is held for good */
        fprintf(stderr, "kmrun: %s\n", msg);
        fflush(NULL);
        _exit(KMRUN_FAILED);
    }
    return rc;
}

void cmd_run_outcome_folder(const cmd_run_outcome *o, int *rc, char *msg, size_t n)
{
    const char *trace = kmrun_run_trace_error(o->r), *timeline = kmrun_run_timeline_error(o->r),
               *folder = kmrun_run_folder_error(o->r);
    if (trace) {
        *rc = KMRUN_SYSTEM;
        snprintf(msg, n, "%s", trace);
    }
    if (timeline) {
        *rc = KMRUN_SYSTEM;
        snprintf(msg, n, "%s", timeline);
    }
    if (!folder)
        return;
    *rc = KMRUN_SYSTEM;
    snprintf(msg, n, "the run folder was not written (the results are on stdout only): %s",
             folder);
}

/* The first `shown` findings of `kind`, a line each; then, past them,
 * how many more the run JSON lists under `key` (`what`: their name).
 * Returns how many there are. */
static uint64_t print_findings(const kmrun_run *r, kmrun_finding kind, size_t shown,
                               const char *what, const char *key, uint64_t *more)
{
    size_t count = kmrun_run_findings(r, kind, more);
    char text[2048];
    for (size_t i = 0; i < count && i < shown; i++)
        fprintf(stderr, "%s\n", kmrun_run_finding(r, kind, i, text, sizeof text));
    if (count > shown)
        fprintf(stderr, "kmrun: %zu more %s in the run's JSON (%s)\n", count - shown, what, key);
    return count + *more;
}

uint64_t cmd_run_outcome_findings(const cmd_run_outcome *o)
{
    const kmrun_run *r = o->r;
    uint64_t more, found;
    found = print_findings(r, KMRUN_FINDING_HANDOVER, CMD_HANDOVER_LINES, "hand-over findings",
                           "handover", &more);
    found += print_findings(r, KMRUN_FINDING_WILD_WRITE, CMD_HANDOVER_LINES, "wild writes",
                            "wild_writes", &more);
    if (more)
        fprintf(stderr, "kmrun: and %llu more stores of wild writes past the %zu kept\n",
                (unsigned long long)more, kmrun_run_findings(r, KMRUN_FINDING_WILD_WRITE, NULL));
    /* The card keeps few: every one kept is shown. */
    found += print_findings(r, KMRUN_FINDING_KERNEL_FAULT, SIZE_MAX, "", "", &more);
    if (more)
        fprintf(stderr, "kmrun: and %llu more Tensix handlers taken out past the %zu kept\n",
                (unsigned long long)more, kmrun_run_findings(r, KMRUN_FINDING_KERNEL_FAULT, NULL));
    fflush(stderr);
    return found;
}

void cmd_note_host_handover(void)
{
    fprintf(stderr, "kmrun: note: the host fallback does not check hand-overs (its cache "
                    "copies are emulated but not tracked line by line); run on the simulated "
                    "card (--thread sim) to check them\n");
}

void cmd_run_outcome_free(cmd_run_outcome *o)
{
    kmrun_run_free(o->r);
    kmrun_session_close(o->s);
    memset(o, 0, sizeof *o);
}
