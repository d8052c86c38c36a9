/* run_backend: one run of a program on a backend (cmd_run.h), over the
 * public API: kmrun_session_open, kmrun_session_load, kmrun_run_wait or
 * kmrun_run_debug; and its summary for a person: the library's words
 * (kmrun_run_summary), painted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_diag.h"
#include "cmd_run.h"
#include "cmd_stderr.h"

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

/* A compiler's line, with its colours when painting (cmd_diag.h). */
static void on_build_line(const char *line, void *ctx)
{
    (void)ctx;
    cmd_diag_compiler_line(line);
    fflush(stderr);
}

/* --message-format=json: a compiler's finding, a print. */
static void on_diagnostic(const kmrun_diagnostic *d, void *ctx)
{
    (void)ctx;
    cmd_diag_print(d);
}

static void on_print(const char *core, const char *text, double microseconds, void *ctx)
{
    (void)ctx;
    cmd_diag_print_line(core, text, microseconds, NULL);
}

/* --progress: each new marker a JSON line (the run JSON's decimals). */
static void on_progress(int cluster, uint32_t where, double microseconds, void *ctx)
{
    (void)ctx;
    cmd_diag_progress(cluster, where, microseconds);
}

static void on_gdb_waiting(int port, const char *command, void *ctx)
{
    (void)ctx;
    cmd_say(CMD_INFO, "run.gdb", "waiting for GDB on port %d: %s", port, command);
}

/* A failure's status, its message into msg; the error kept for
 * cmd_diag_fail (its findings, in JSON). */
static int failed(kmrun_error *e, char *msg, size_t n)
{
    int rc = kmrun_error_status(e);
    snprintf(msg, n, "%s", kmrun_error_message(e));
    cmd_diag_keep(e);
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
    o.debug_build = wants->debug_build;
    o.wall_timeout_seconds = wants->wall_timeout_s;
    o.callbacks.build_output = on_build_line;
    o.callbacks.print_line = on_line;
    o.callbacks.warning = cmd_warn;
    /* how the findings are told (cmd_diag.h) */
    o.color = cmd_diag_compiler_color();
    if (cmd_diag_json()) {
        o.diagnostic = on_diagnostic;
        o.callbacks.print_line = NULL;
        o.callbacks.print = on_print;
    }
    if (wants->progress)
        o.callbacks.progress = on_progress;
    o.jobs = wants->jobs;
    o.timeline = wants->timeline;
    kmrun_error *e = NULL;
    if (kmrun_session_open(&o, &out->s, &e) != KMRUN_OK)
        return failed(e, msg, n);
    if (wants->trace_cores) {
        kmrun_trace_opts t;
        kmrun_trace_opts_init(&t);
        t.cores = wants->trace_cores;
        t.pc_ranges = wants->trace_ranges;
        t.npc_ranges = wants->ntrace_ranges;
        t.functions = wants->trace_functions;
        t.nfunctions = wants->ntrace_functions;
        t.limit = wants->trace_limit;
        if (kmrun_session_set_trace(out->s, &t, &e) != KMRUN_OK)
            return failed(e, msg, n);
    }
    if (wants->profile && kmrun_session_profile(out->s, true, &e) != KMRUN_OK)
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
        cmd_diag_fail(rc, msg);
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
    for (size_t i = 0; i < count && i < shown; i++) {
        /* a diagnostic in JSON or painted; else its line, as it was */
        kmrun_diagnostic *d = cmd_diag_json() || cmd_diag_color()
                                  ? kmrun_run_finding_diagnostic(r, kind, i)
                                  : NULL;
        if (d)
            cmd_diag_print(d);
        else
            fprintf(stderr, "%s\n", kmrun_run_finding(r, kind, i, text, sizeof text));
        kmrun_diagnostic_free(d);
    }
    if (count > shown)
        cmd_say(CMD_INFO, "run.more", "%zu more %s in the run's JSON (%s)", count - shown, what,
                key);
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
        cmd_say(CMD_INFO, "run.more", "and %llu more stores of wild writes past the %zu kept",
                (unsigned long long)more, kmrun_run_findings(r, KMRUN_FINDING_WILD_WRITE, NULL));
    /* The card keeps few: every one kept is shown. */
    found += print_findings(r, KMRUN_FINDING_KERNEL_FAULT, SIZE_MAX, "", "", &more);
    if (more)
        cmd_say(CMD_INFO, "run.more", "and %llu more Tensix handlers taken out past the %zu kept",
                (unsigned long long)more, kmrun_run_findings(r, KMRUN_FINDING_KERNEL_FAULT, NULL));
    fflush(stderr);
    return found;
}

void cmd_note_host_handover(void)
{
    cmd_say(CMD_NOTE, "run.host-handover",
            "the host fallback does not check hand-overs (its cache copies are emulated but "
            "not tracked line by line); run on the simulated card (--thread sim) to check "
            "them");
}

void cmd_run_outcome_free(cmd_run_outcome *o)
{
    kmrun_run_free(o->r);
    kmrun_session_close(o->s);
    memset(o, 0, sizeof *o);
}

/* ---- the summary ---------------------------------------------------------- */

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define PLAIN "\033[0m"

bool cmd_summary_wanted(bool *color)
{
    /* a person's: on a terminal, and not among JSON lines */
    if (!isatty(STDERR_FILENO) || cmd_diag_json())
        return false;
    *color = cmd_diag_color(); /* --color, NO_COLOR, CLICOLOR_FORCE (cmd_diag.h) */
    return true;
}

typedef struct painter {
    FILE *f;
    bool color;
} painter;

/* A piece of the summary; a colour is terminal control of kmrun's own,
 * past the stderr filter. */
static void put(const char *text, kmrun_style style, void *ctx)
{
    const painter *p = ctx;
    static const char *const colors[] = {
        [KMRUN_STYLE_TITLE] = BOLD,
        [KMRUN_STYLE_GOOD] = GREEN,
        [KMRUN_STYLE_BAD] = RED,
        [KMRUN_STYLE_WARN] = YELLOW,
    };
    const char *color = (unsigned)style < sizeof colors / sizeof colors[0] ? colors[style] : NULL;
    if (p->color && color)
        cmd_stderr_control(p->f, color);
    fputs(text, p->f);
    if (p->color && color)
        cmd_stderr_control(p->f, PLAIN);
}

void cmd_summary_outcome(FILE *f, bool color, const char *title, const cmd_run_outcome *o,
                         double wall_seconds)
{
    if (title)
        fprintf(f, "%s:\n", title);
    painter p = {f, color};
    kmrun_run_summary(o->r, wall_seconds, put, &p);
}
