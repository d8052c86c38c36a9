/* km_run_record: a run kept as `kmrun run` keeps it, and judged
 * (km_run_record.h). */
#include "km_run_record.h"

#include <stdlib.h>
#include <string.h>

#include "km_fs.h"
#include "km_prints.h"
#include "km_run_json.h"

void km_run_record_begin(km_run_record *r, const char *run_dir, bool folder, double started)
{
    memset(r, 0, sizeof *r);
    r->started = started;
    r->folder = folder;
    km_run_id(r->id);
    r->runs = km_runs_root(run_dir);
    if (!r->runs)
        r->folder_rc = km_fail(&r->folder_err, KM_EXIT_SYSTEM, "out of memory for the run folder");
    else if (folder)
        r->folder_rc = km_rundir_begin(r->runs, r->id, &r->w, &r->folder_err);
}

void km_run_record_abort(km_run_record *r)
{
    km_rundir_abort(r->w);
    r->w = NULL;
}

int km_run_record_finish(km_run_record *r, const km_program *p, const km_session *s,
                         const km_run_result *res, const km_region_copy *copies, size_t ncopies,
                         km_error *err)
{
    char *dir = r->runs ? km_path_join(r->runs, r->id) : NULL;
    if (r->runs && !dir) {
        km_run_record_abort(r);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the run's JSON");
    }
    km_run_info info = {
        .run_id = r->id,
        .run_dir = dir ? dir : "",
        .wall_seconds = km_wall_now() - r->started,
        .backend = km_session_backend(s),
        .build = km_session_build(s),
    };
    r->json = km_run_json(p, km_session_plan(s), res, &info);
    if (!r->json) {
        free(dir);
        km_run_record_abort(r);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the run's JSON");
    }
    if (r->w) {
        char *prints = km_prints_text(res->prints, res->nprints);
        if (!prints)
            r->folder_rc = km_fail(&r->folder_err, KM_EXIT_SYSTEM, "out of memory for prints.txt");
        else
            r->folder_rc = km_rundir_put_text(r->w, "prints.txt", prints, &r->folder_err);
        free(prints);
        if (r->folder_rc != KM_OK)
            km_run_record_abort(r);
    }
    if (r->w) {
        r->folder_rc = km_rundir_commit(r->w, r->json, copies, ncopies, NULL, &r->folder_err);
        r->w = NULL; /* freed by the commit, whatever its outcome */
        if (r->folder_rc == KM_OK) {
            r->dir = dir;
            dir = NULL;
        }
    }
    free(dir);
    return KM_OK;
}

void km_run_record_free(km_run_record *r)
{
    km_run_record_abort(r);
    free(r->runs);
    free(r->json);
    free(r->dir);
    memset(r, 0, sizeof *r);
}

bool km_run_ok(const km_run_result *r)
{
    for (size_t i = 0; i < r->ncommands; i++)
        if (!r->commands[i].ended || r->commands[i].event != KM_EVENT_DONE)
            return false;
    return km_run_all_returned(r);
}

unsigned km_run_findings(const km_run_result *r)
{
    return r->nhandovers + r->nwild_writes + r->nkernel_faults + r->kernel_faults_more;
}
