/* run_backend: one run of a program on a backend (cmd_run.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_run.h"
#include "km_fs.h"
#include "km_handover.h"
#include "km_kernel_fault.h"
#include "km_wild.h"
#include "km_prints.h"
#include "km_run_json.h"
#include "km_rundir.h"
#include "km_timeline.h"

int cmd_parse_seconds(const char *command, const char *option, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !km_seconds_valid(v))
        return cmd_usage_error(command, "invalid %s '%s' (expected seconds, such as 2 or 0.5)",
                              option, text);
    *out = v;
    return KM_OK;
}

static void on_compiler_output(const char *line, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

/* km_session_trace_instructions' receiver: a line into the trace file. */
static void on_trace_line(void *ctx, const char *text)
{
    cmd_run_outcome *out = ctx;
    if (out->trace) {
        fputs(text, out->trace);
        putc('\n', out->trace);
    }
}

/* The trace file in the folder being written. */
static void open_trace(cmd_run_outcome *out, const cmd_run_wants *wants, km_rundir_writer *w)
{
    if (!w) {
        out->trace_rc = km_fail(&out->trace_err, KM_EXIT_SYSTEM,
                                "the instruction trace was not written: the run folder could "
                                "not be begun");
        return;
    }
    char name[64];
    snprintf(name, sizeof name, CMD_TRACE_NAME, wants->trace_cluster, wants->trace_core);
    char *path = km_path_join(km_rundir_writing(w), name);
    out->trace = path ? fopen(path, "w") : NULL;
    if (!out->trace)
        out->trace_rc = km_fail(&out->trace_err, KM_EXIT_SYSTEM,
                                "the instruction trace was not written: cannot create '%s'",
                                path ? path : name);
    free(path);
}

/* Closes the trace before the folder is committed: the last lines in. */
static void close_trace(cmd_run_outcome *out)
{
    if (out->trace && fclose(out->trace) != 0 && out->trace_rc == KM_OK)
        out->trace_rc = km_fail(&out->trace_err, KM_EXIT_SYSTEM,
                                "the instruction trace was not written in full");
    out->trace = NULL;
}

/* The timeline into its file (wants->timeline), after the run. */
static void write_timeline(cmd_run_outcome *out, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        out->timeline_rc = km_fail_errno(&out->timeline_err, KM_EXIT_SYSTEM,
                                         "the timeline was not written: cannot create '%s'", path);
        return;
    }
    out->timeline_rc = km_timeline_write(out->timeline, f, path, &out->timeline_err);
    if (fclose(f) != 0 && out->timeline_rc == KM_OK)
        out->timeline_rc = km_fail_errno(&out->timeline_err, KM_EXIT_SYSTEM,
                                         "the timeline was not written in full: '%s'", path);
}

void cmd_on_print(const km_print_line *p, void *ctx)
{
    (void)ctx;
    char line[1200];
    km_print_line_text(p, line, sizeof line);
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

int cmd_run_backend(const km_program *p, km_backend b, km_cache *cache, const km_build_opts *bo,
                   const km_run_opts *ro, const cmd_run_wants *wants, const char *run_dir,
                   double started, cmd_run_outcome *out, km_error *err)
{
    memset(out, 0, sizeof *out);
    km_build_opts opts = *bo;
    opts.output = on_compiler_output;
    int rc = km_session_open(&out->s, p, b, err);
    if (rc == KM_OK)
        km_session_check_handover(out->s, wants->check_handover);
    if (rc == KM_OK && wants->trace)
        rc = km_session_trace_instructions(out->s, wants->trace_cluster, wants->trace_core,
                                           on_trace_line, out, err);
    if (rc == KM_OK && wants->timeline) {
        out->timeline = km_timeline_new();
        rc = out->timeline ? km_session_timeline(out->s, out->timeline, err)
                           : km_fail(err, KM_EXIT_SYSTEM, "out of memory for the timeline");
    }
    if (rc != KM_OK)
        return rc;
    /* The folder is begun before the build and the run, so that a run
     * killed at any point leaves its mark (read-region then says it was
     * interrupted); failing to begin it does not stop the run. */
    km_run_record_begin(&out->rec, run_dir, true, started);
    rc = km_session_load(out->s, cache, &opts, err);
    if (rc != KM_OK) {
        km_run_record_abort(&out->rec); /* it failed, and said so: not an interrupted run */
        return rc;
    }
    if (wants->trace)
        open_trace(out, wants, out->rec.w);
    if (wants->gdb)
        rc = cmd_run_debugged(p, out->s, ro, wants->gdb_port, out, err);
    else
        rc = km_session_run(out->s, ro, &out->result, err);
    close_trace(out);
    if (rc == KM_OK && out->timeline)
        write_timeline(out, wants->timeline);
    if (rc == KM_OK)
        rc = km_session_regions(out->s, &out->copies, &out->ncopies, err);
    if (rc == KM_OK)
        return km_run_record_finish(&out->rec, p, out->s, &out->result, out->copies,
                                    out->ncopies, err);
    km_run_record_abort(&out->rec);
    return rc;
}

void cmd_run_outcome_folder(const cmd_run_outcome *o, int *rc, km_error *err)
{
    if (o->trace_rc != KM_OK) {
        *rc = o->trace_rc;
        *err = o->trace_err;
    }
    if (o->timeline_rc != KM_OK) {
        *rc = o->timeline_rc;
        *err = o->timeline_err;
    }
    if (o->rec.folder_rc == KM_OK)
        return;
    *rc = o->rec.folder_rc;
    km_fail(err, o->rec.folder_rc, "the run folder was not written (the results are on stdout "
                                   "only): %s",
            o->rec.folder_err.message);
}

/* Finding i of one kind, as its stderr diagnostic. */
typedef int (*finding_line)(const km_run_result *r, unsigned i, char *out, size_t n);

static int handover_at(const km_run_result *r, unsigned i, char *out, size_t n)
{
    return km_handover_line(&r->handovers[i], out, n);
}

static int wild_at(const km_run_result *r, unsigned i, char *out, size_t n)
{
    return km_wild_line(&r->wild_writes[i], out, n);
}

static int kernel_fault_at(const km_run_result *r, unsigned i, char *out, size_t n)
{
    return km_kernel_fault_line(&r->kernel_faults[i], out, n);
}

/* The first `shown` of n findings, a line each; then, past them, how many
 * more the run JSON lists under `key` (`what`: their name). */
static void print_findings(const km_run_result *r, unsigned n, unsigned shown, finding_line line,
                           const char *what, const char *key)
{
    char text[2048];
    for (unsigned i = 0; i < n && i < shown; i++) {
        line(r, i, text, sizeof text);
        fprintf(stderr, "%s\n", text);
    }
    if (n > shown)
        fprintf(stderr, "kmrun: %u more %s in the run's JSON (%s)\n", n - shown, what, key);
}

unsigned cmd_run_outcome_findings(const cmd_run_outcome *o)
{
    const km_run_result *r = &o->result;
    print_findings(r, r->nhandovers, CMD_HANDOVER_LINES, handover_at, "hand-over findings",
                   "handover");
    print_findings(r, r->nwild_writes, CMD_HANDOVER_LINES, wild_at, "wild writes",
                   "wild_writes");
    if (r->wild_more)
        fprintf(stderr, "kmrun: and %llu more stores of wild writes past the %u kept\n",
                (unsigned long long)r->wild_more, r->nwild_writes);
    /* The card keeps few: every one kept is shown. */
    print_findings(r, r->nkernel_faults, r->nkernel_faults, kernel_fault_at, "", "");
    if (r->kernel_faults_more)
        fprintf(stderr, "kmrun: and %u more Tensix handlers taken out past the %u kept\n",
                r->kernel_faults_more, r->nkernel_faults);
    fflush(stderr);
    return km_run_findings(r);
}

void cmd_note_host_handover(void)
{
    fprintf(stderr, "kmrun: note: the host fallback does not check hand-overs (its cache "
                    "copies are emulated but not tracked line by line); run on the simulated "
                    "card (--thread sim) to check them\n");
}

void cmd_run_outcome_free(cmd_run_outcome *o)
{
    km_session_close(o->s);
    km_timeline_free(o->timeline);
    km_run_record_free(&o->rec);
    memset(o, 0, sizeof *o);
}
