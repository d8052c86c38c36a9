/* kmrun_run: the public C API's runs (include/kmrun.h) — a program loaded,
 * run and read back exactly as `kmrun run` does it, over the same library
 * calls: km_session_open and km_session_load through the cache, the run
 * record begun before the build (km_run_record.h), km_session_run with the
 * same timeouts, the regions read after the stop, the run JSON and the run
 * folder written by the one writer `kmrun run` uses.  What it adds is the
 * order: nothing of a run can be read before its stop, a session has one
 * run at a time, and every refusal names what it refuses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <stdio.h>

#include "api_internal.h"
#include "km_fs.h"
#include "km_plan.h"
#include "km_prints.h"
#include "km_run_json.h"
#include "km_suggest.h"
#include "km_timeline.h"
#include "ks_text.h"

static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

/* ---- The callbacks -------------------------------------------------------- */

static void on_build_output(const char *line, void *ctx)
{
    const kmrun_run *r = ctx;
    r->callbacks.build_output(line, r->callbacks.ctx);
}

static void on_build_diagnostic(const km_diag *d, void *ctx)
{
    const kmrun_run *r = ctx;
    r->diagnostic((const kmrun_diagnostic *)d, r->callbacks.ctx);
}

static void on_warning(const char *message, void *ctx)
{
    const kmrun_run *r = ctx;
    r->callbacks.warning(message, r->callbacks.ctx);
}

static double ticks_us(uint64_t ticks)
{
    return (double)ticks * 1e6 / (double)BH_TICKS_PER_SECOND;
}

static void on_progress(int cluster, uint32_t where, uint64_t ticks, void *ctx)
{
    const kmrun_run *r = ctx;
    r->callbacks.progress(cluster, where, ticks_us(ticks), r->callbacks.ctx);
}

static void on_print(const km_print_line *p, void *ctx)
{
    const kmrun_run *r = ctx;
    if (r->callbacks.print) {
        char core[32];
        km_print_core_name(p, core, sizeof core);
        r->callbacks.print(core, p->text, (double)p->ps / (double)BH_PS_PER_US,
                           r->callbacks.ctx);
    }
    if (r->callbacks.print_line) {
        char line[1200];
        km_print_line_text(p, line, sizeof line);
        r->callbacks.print_line(line, r->callbacks.ctx);
    }
}

/* ---- The instruction trace and the timeline ------------------------------ */

/* The timeline into its file, after the run. */
static void write_timeline(kmrun_run *r)
{
    const char *path = r->timeline_path;
    FILE *f = fopen(path, "w");
    if (!f) {
        r->timeline_rc = km_fail_errno(&r->timeline_err, KM_EXIT_SYSTEM,
                                       "the timeline was not written: cannot create '%s'", path);
        return;
    }
    r->timeline_rc = km_timeline_write(r->timeline, f, path, &r->timeline_err);
    if (fclose(f) != 0 && r->timeline_rc == KM_OK)
        r->timeline_rc = km_fail_errno(&r->timeline_err, KM_EXIT_SYSTEM,
                                       "the timeline was not written in full: '%s'", path);
}

/* The profile into the run folder being written, its folded file's path
 * as it will be once the folder is committed. */
static int write_profile(kmrun_run *r, km_error *e)
{
    int rc = km_session_write_profile(r->s, km_rundir_writing(r->rec.w), e);
    if (rc == KM_OK &&
        !(r->profile_file = ks_strf("%s/%s/profile.folded", r->rec.runs, r->rec.id))) {
        rc = km_fail(e, KM_EXIT_SYSTEM, "out of memory for the profile's name");
    }
    return rc;
}

const char *kmrun_run_profile_file(const kmrun_run *r)
{
    return r && r->stopped && r->rec.dir ? r->profile_file : NULL;
}

const char *kmrun_run_trace_error(const kmrun_run *r)
{
    return r && r->stopped && r->trace_rc != KM_OK ? r->trace_err.message : NULL;
}

const char *kmrun_run_timeline_error(const kmrun_run *r)
{
    return r && r->stopped && r->timeline_rc != KM_OK ? r->timeline_err.message : NULL;
}

uint64_t kmrun_run_timeline_dropped(const kmrun_run *r, unsigned *kept)
{
    if (kept)
        *kept = KM_TIMELINE_MAX_EVENTS;
    if (!r || !r->stopped || !r->timeline || r->timeline_rc != KM_OK)
        return 0;
    return km_timeline_dropped(r->timeline);
}

/* ---- Load and wait -------------------------------------------------------- */

/* A run's resources, whatever became of its load (NULL: nothing). */
static void run_free(kmrun_run *r)
{
    if (!r)
        return;
    km_api_traces_free(r);
    free(r->profile_file);
    km_run_record_free(&r->rec);
    km_session_close(r->s);
    km_timeline_free(r->timeline);
    free(r->timeline_path);
    if (r->cache.root)
        km_cache_close(&r->cache);
    free(r);
}

kmrun_status kmrun_session_load(kmrun_session *s, const kmrun_program *p, kmrun_run **out,
                                kmrun_error **err)
{
    clear(err);
    if (out)
        *out = NULL;
    if (!s || !p || !out)
        return km_api_usage(err, "kmrun_session_load: %s is NULL",
                            !s ? "the session" : !p ? "the program" : "out");
    if (s->run)
        return km_api_usage(err, "the session has a run already (one at a time): free it with "
                                 "kmrun_run_free before loading another");
    /* A program built in code: checked whole, and unchanged from now on. */
    kmrun_status ready = km_api_program_ready((kmrun_program *)p, err);
    if (ready != KMRUN_OK)
        return ready;
    /* A profiled core counts every instruction itself and a traced core
     * steps each into its trace: the simulator runs a core one way. */
    if (s->profile && (s->trace || (s->trace_opts && km_api_trace_opts_cores(s->trace_opts))))
        return km_api_usage(err, "a run cannot be profiled and traced at once (profile it, then "
                                 "trace the cores it names in a second run: the runs are the "
                                 "same)");
    kmrun_run *r = calloc(1, sizeof *r);
    if (!r)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a run");
    r->owner = s;
    r->program = p;
    r->callbacks = s->callbacks;
    r->wall_timeout_s = s->wall_timeout_s;
    km_error e = {0};
    int rc = km_session_open(&r->s, p->p, s->backend, &e);
    if (rc == KM_OK) {
        km_session_check_handover(r->s, s->check_handover);
        km_session_card_memory(r->s, &s->card);
    }
    if (rc == KM_OK)
        rc = km_api_traces_attach(r, &e);
    if (rc == KM_OK && s->profile)
        rc = km_session_profile(r->s, &e);
    if (rc == KM_OK && s->timeline) {
        r->timeline = km_timeline_new();
        r->timeline_path = strdup(s->timeline);
        rc = r->timeline && r->timeline_path
                 ? km_session_timeline(r->s, r->timeline, &e)
                 : km_fail(&e, KM_EXIT_SYSTEM, "out of memory for the timeline");
    }
    if (rc == KM_OK)
        rc = km_cache_open(&r->cache, s->cache_root, &e);
    if (rc == KM_OK && r->callbacks.warning) {
        r->cache.warn = on_warning;
        r->cache.warn_ctx = r;
    }
    if (rc != KM_OK) {
        run_free(r);
        return km_api_fail(err, rc, &e);
    }
    /* As `kmrun run`: the folder begun before the build, so that a process
     * killed at any point leaves a run that says it was interrupted. */
    km_run_record_begin(&r->rec, s->runs, s->run_folder, km_wall_now());
    km_diags found = {.limit = SIZE_MAX};
    char *painted = NULL; /* the failure's message in the compilers' colours */
    km_build_opts bo = {.jobs = s->jobs,
                        .color = (int)s->color,
                        .debug = s->debug_build,
                        .failure = &found,
                        .painted = &painted,
                        .ctx = r};
    if (r->callbacks.build_output)
        bo.output = on_build_output;
    r->diagnostic = s->diagnostic;
    if (s->diagnostic)
        bo.diagnostic = on_build_diagnostic;
    rc = km_session_load(r->s, &r->cache, &bo, &e);
    if (rc == KM_OK)
        rc = km_api_traces_loaded(r, &e);
    if (rc != KM_OK) {
        km_run_record_abort(&r->rec); /* it failed, and said so: not an interrupted run */
        run_free(r);
        rc = km_api_error_found(err, rc, e.message, painted, &found, e.code);
        free(painted);
        return (kmrun_status)rc;
    }
    km_diags_free(&found);
    s->run = r;
    *out = r;
    return KMRUN_OK;
}

kmrun_status km_api_begin(kmrun_run *r, uint64_t timeout_ps, kmrun_error **err)
{
    if (r->begun)
        return KMRUN_OK;
    km_run_opts ro = {
        .wall_timeout_s = r->wall_timeout_s,
        .progress = r->callbacks.progress ? on_progress : NULL,
        .print = r->callbacks.print || r->callbacks.print_line ? on_print : NULL,
        .ctx = r,
    };
    km_error e = {0};
    int rc = km_session_begin(r->s, &ro, timeout_ps, &r->result, &e);
    if (rc != KM_OK) {
        km_run_record_abort(&r->rec);
        r->failed = rc;
        r->fail_err = e;
        return km_api_fail(err, rc, &e);
    }
    r->begun = true;
    return KMRUN_OK;
}

kmrun_status km_api_drive(kmrun_run *r, km_drive_goal goal, void *ctx, uint64_t until_ps,
                          kmrun_error **err)
{
    km_error e = {0};
    int rc = km_drive_until(km_session_steer(r->s), goal, ctx, until_ps, &e);
    if (rc != KM_OK) {
        km_error ignored = {0};
        (void)km_session_end(r->s, &r->result, &ignored); /* what ran is the session's */
        km_run_record_abort(&r->rec);
        r->failed = rc;
        r->fail_err = e;
        return km_api_fail(err, rc, &e);
    }
    return KMRUN_OK;
}

kmrun_status km_api_stop(kmrun_run *r, kmrun_error **err)
{
    km_error e = {0};
    int rc = km_session_end(r->s, &r->result, &e);
    km_api_traces_close(r);
    if (rc == KM_OK && r->timeline)
        write_timeline(r);
    if (rc == KM_OK)
        rc = km_session_regions(r->s, &r->copies, &r->ncopies, &e);
    if (rc == KM_OK && r->owner->profile && r->rec.w)
        rc = write_profile(r, &e);
    if (rc == KM_OK)
        rc = km_run_record_finish(&r->rec, r->program->p, r->s, &r->result, r->copies,
                                  r->ncopies, &e);
    else
        km_run_record_abort(&r->rec);
    if (rc != KM_OK) {
        r->failed = rc;
        r->fail_err = e;
        return km_api_fail(err, rc, &e);
    }
    r->stopped = true;
    return KMRUN_OK;
}

kmrun_status km_api_timeout(double seconds, uint64_t dflt, uint64_t *ps, kmrun_error **err)
{
    if (seconds == 0) {
        *ps = dflt;
        return KMRUN_OK;
    }
    /* --timeout's rule (km_seconds_valid). */
    if (!km_seconds_valid(seconds))
        return km_api_usage(err,
                            "invalid timeout %g seconds (expected more than 0 and at most %g, "
                            "or 0 for the default)",
                            seconds, KM_SECONDS_MAX);
    double v = seconds * (double)BH_PS_PER_SECOND;
    *ps = (uint64_t)llround(v);
    return KMRUN_OK;
}

kmrun_status kmrun_run_wait(kmrun_run *r, double timeout_seconds, kmrun_error **err)
{
    clear(err);
    if (!r)
        return km_api_usage(err, "kmrun_run_wait: the run is NULL");
    if (r->stopped)
        return KMRUN_OK;
    if (r->failed)
        return km_api_fail(err, r->failed, &r->fail_err);
    uint64_t timeout_ps = 0;
    kmrun_status rc = km_api_timeout(
        timeout_seconds, km_default_timeout_us(r->program->p) * BH_PS_PER_US, &timeout_ps, err);
    if (rc == KMRUN_OK)
        rc = km_api_begin(r, timeout_ps, err);
    if (rc != KMRUN_OK)
        return rc;
    /* As `kmrun run --timeout`: from the run's start, the threads and the
     * kernel alike. */
    km_steer *d = km_session_steer(r->s);
    km_drive_timeout(d, KM_DRIVE_ALL, timeout_ps);
    km_drive_kernel_stop(d, timeout_ps);
    rc = km_api_drive(r, km_drive_settled, NULL, UINT64_MAX, err);
    return rc == KMRUN_OK ? km_api_stop(r, err) : rc;
}

bool kmrun_run_stopped(const kmrun_run *r)
{
    return r && r->stopped;
}

bool kmrun_run_ok(const kmrun_run *r)
{
    return r && r->stopped && km_run_ok(&r->result) && km_run_findings(&r->result) == 0;
}

unsigned km_api_plan_index(const kmrun_run *r, size_t i)
{
    const km_plan *plan = km_session_plan(r->s);
    for (unsigned k = 0; k < plan->nclusters; k++)
        if (plan->clusters[k].cluster == r->program->clusters[i])
            return k;
    return UINT32_MAX;
}

/* ---- After the stop ------------------------------------------------------- */

/* `what` (a subject, quoted where it is a name) refused before the stop. */
static kmrun_status not_stopped(const kmrun_run *r, const char *what, kmrun_error **err)
{
    if (r->failed)
        return km_api_usage(err, "%s cannot be read: the run did not stop (%s)", what,
                            r->fail_err.message);
    return km_api_usage(err, "%s cannot be read before the run has stopped (kmrun_run_stop or kmrun_run_wait)",
                        what);
}

/* The placement of region `name` of the thread on `cluster`, or a usage
 * error naming the cluster or the region. */
static kmrun_status placed(const kmrun_run *r, int cluster, const char *name,
                           const km_placed **out, kmrun_error **err)
{
    const km_plan *plan = km_session_plan(r->s);
    const km_cluster_plan *cp = km_plan_cluster(plan, cluster);
    if (!cp) {
        char on[64] = "";
        size_t len = 0;
        for (unsigned i = 0; i < plan->nclusters && len < sizeof on; i++)
            len += (size_t)snprintf(on + len, sizeof on - len, "%s%d", i ? ", " : "",
                                    plan->clusters[i].cluster);
        return km_api_usage(err, "program %s has no thread on cluster %d (its threads are on "
                                 "cluster%s %s)",
                            KS_QUOTED(r->program->p->name), cluster,
                            plan->nclusters == 1 ? "" : "s", on);
    }
    const char *names[KMX_MAX_REGIONS];
    for (uint32_t k = 0; k < cp->nregions; k++) {
        names[k] = cp->regions[k].region->name;
        if (strcmp(names[k], name) == 0) {
            *out = &cp->regions[k];
            return KMRUN_OK;
        }
    }
    const char *near = km_suggest(name, names, cp->nregions);
    if (near)
        return km_api_usage(err, "the thread on cluster %d has no region %s (did you mean %s?)",
                            cluster, KS_QUOTED(name), KS_QUOTED(near));
    return km_api_usage(err, "the thread on cluster %d has no region %s", cluster,
                        KS_QUOTED(name));
}

kmrun_status kmrun_run_result(const kmrun_run *r, size_t i, kmrun_thread_result *out,
                              kmrun_error **err)
{
    clear(err);
    if (!r || !out)
        return km_api_usage(err, "kmrun_run_result: %s is NULL", !r ? "the run" : "out");
    const kmrun_program *p = r->program;
    if (i >= p->nclusters)
        return km_api_usage(err, "no result %zu: program %s has %zu (0 to %zu)", i,
                            KS_QUOTED(p->p->name), p->nclusters,
                            p->nclusters ? p->nclusters - 1 : 0);
    if (!r->stopped && !(r->begun && !r->failed &&
                         km_drive_thread_done(km_session_steer(r->s), km_api_plan_index(r, i)))) {
        if (r->failed)
            return not_stopped(r, "the run's results", err);
        return km_api_usage(err,
                            "the thread on cluster %d has no result yet: it has no final state "
                            "before kmrun_run_thread_result, kmrun_run_thread_results or the stop",
                            p->clusters[i]);
    }
    const km_thread_result *t = NULL;
    for (unsigned k = 0; k < r->result.nthreads; k++)
        if (r->result.threads[k].cluster == p->clusters[i])
            t = &r->result.threads[k];
    if (!t)
        return km_api_error(err, KMRUN_INTERNAL, "the run has no result for its cluster");
    memset(out, 0, sizeof *out);
    out->cluster = t->cluster;
    /* As the run JSON's (km_run_json.c): `ran` is returned in time. */
    out->ran = t->state == KM_STATE_RETURNED;
    out->state = km_state_name(t->state);
    out->error = t->error == KMX_ERROR_NONE ? NULL : km_kmx_error_name(t->error);
    out->has_code = t->has_code;
    out->code = t->has_code ? t->code : 0;
    out->nwords = t->nwords < 48 ? t->nwords : 48;
    memcpy(out->words, t->words, out->nwords * sizeof out->words[0]);
    out->where = t->where;
    out->where_microseconds = t->has_where_ticks ? ticks_us(t->where_ticks) : -1;
    out->microseconds = t->has_ticks ? ticks_us(t->ticks) : -1;
    out->message = t->stuck && t->stuck_info.detail[0] ? t->stuck_info.detail
                   : t->message[0]                     ? t->message
                                                       : NULL;
    return KMRUN_OK;
}

const char *kmrun_run_json(const kmrun_run *r)
{
    return r && r->stopped ? r->rec.json : NULL;
}

const char *kmrun_run_id(const kmrun_run *r)
{
    return r && r->stopped ? r->rec.id : NULL;
}

const char *kmrun_run_folder(const kmrun_run *r)
{
    return r && r->stopped ? r->rec.dir : NULL;
}

const char *kmrun_run_folder_error(const kmrun_run *r)
{
    if (!r || !r->stopped || !r->rec.folder || r->rec.folder_rc == KM_OK)
        return NULL;
    return r->rec.folder_err.message;
}

kmrun_status kmrun_run_read(const kmrun_run *r, int cluster, const char *name,
                            const void **data, size_t *bytes, kmrun_error **err)
{
    clear(err);
    if (data)
        *data = NULL;
    if (bytes)
        *bytes = 0;
    if (!r || !name || !data || !bytes)
        return km_api_usage(err, "kmrun_run_read: %s is NULL",
                            !r ? "the run" : !name ? "the region's name" : !data ? "data" : "bytes");
    if (!r->stopped) {
        char what[KS_QUOTE_BYTES + 16];
        snprintf(what, sizeof what, "region %s", KS_QUOTED(name));
        return not_stopped(r, what, err);
    }
    const km_placed *pl;
    kmrun_status rc = placed(r, cluster, name, &pl, err);
    if (rc != KMRUN_OK)
        return rc;
    for (size_t i = 0; i < r->ncopies; i++) {
        const km_region_copy *c = &r->copies[i];
        if (c->cluster == cluster && strcmp(c->name, name) == 0) {
            *data = c->bytes;
            *bytes = (size_t)c->size;
            return KMRUN_OK;
        }
    }
    return km_api_error(err, KMRUN_INTERNAL, "a placed region has no copy after the stop");
}

kmrun_status kmrun_run_region_address(const kmrun_run *r, int cluster, const char *name,
                                      unsigned *bank, uint64_t *address, kmrun_error **err)
{
    clear(err);
    if (!r || !name || !bank || !address)
        return km_api_usage(err, "kmrun_run_region_address: %s is NULL",
                            !r      ? "the run"
                            : !name ? "the region's name"
                            : !bank ? "bank"
                                    : "address");
    const km_placed *pl;
    kmrun_status rc = placed(r, cluster, name, &pl, err);
    if (rc != KMRUN_OK)
        return rc;
    *bank = pl->bank;
    *address = pl->bank_address;
    return KMRUN_OK;
}

void kmrun_run_free(kmrun_run *r)
{
    if (!r)
        return;
    if (r->owner)
        r->owner->run = NULL;
    run_free(r);
}
