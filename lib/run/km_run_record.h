/* km_run_record: a run kept as `kmrun run` keeps it — its id, its run
 * folder (lib/rundir/km_rundir.h) with the run JSON (km_run_json.h), the
 * prints (prints.txt) and the regions' bytes — and how a run is judged;
 * one writer for the command (`kmrun run`, `kmrun check`) and the
 * library's API (lib/api/), so the two cannot keep a run differently.
 *
 *   km_run_record_begin    before the build: the run id and, when a folder
 *                          is asked for, the folder begun, so that a run
 *                          killed at any point leaves its mark
 *   km_run_record_abort    the load or the run failed (and said so): the
 *                          folder dropped, not left as interrupted
 *   km_run_record_finish   after the stop and the regions' read: the JSON,
 *                          prints.txt, the regions, the folder committed
 *   km_run_record_free
 *
 * A folder that cannot be begun or written does not lose the run: the run
 * goes on, the JSON is made, and the folder's error is kept (folder_rc,
 * folder_err) for the caller to report after the results. */
#ifndef KM_RUN_RECORD_H
#define KM_RUN_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "km_error.h"
#include "km_program.h"
#include "km_rundir.h"
#include "km_session.h"

typedef struct km_run_record {
    char id[KM_RUN_ID_BYTES]; /* the run's id (km_run_id) */
    char *runs;               /* where run folders go (km_runs_root) */
    bool folder;              /* a folder was asked for */
    km_rundir_writer *w;      /* the folder being written; NULL: none */
    double started;           /* km_wall_now() at the run's start: wall_seconds */
    char *json;               /* after the finish: the run JSON (schemas/run.schema.json) */
    char *dir;                /* after a finish that wrote the folder: <runs>/<id> */
    int folder_rc;            /* KM_OK, or why the folder was not written (folder_err) */
    km_error folder_err;
} km_run_record;

/* A new run id; with `folder`, its folder begun under run_dir (NULL:
 * $KMRUN_RUNS, else .kmrun/runs, as km_runs_root).  `started` is the
 * run's start on km_wall_now()'s clock.  Never fails: a folder that cannot
 * be begun is folder_rc's. */
void km_run_record_begin(km_run_record *r, const char *run_dir, bool folder, double started);

/* Drops the folder being written (the run failed, and said so). */
void km_run_record_abort(km_run_record *r);

/* After km_session_run and km_session_regions: the run JSON of p's run on
 * s (result res, region copies `copies`), prints.txt and the regions
 * written, the folder committed (`latest` names it).  KM_OK with r->json
 * whatever became of the folder (folder_rc); KM_EXIT_SYSTEM when memory
 * for the JSON ran out. */
int km_run_record_finish(km_run_record *r, const km_program *p, const km_session *s,
                         const km_run_result *res, const km_region_copy *copies, size_t ncopies,
                         km_error *err);

void km_run_record_free(km_run_record *r);

/* Every thread returned and every host-fed command ended done. */
bool km_run_ok(const km_run_result *r);

/* How many findings the card made in the run: the hand-overs
 * (km_handover.h), the wild writes kept (km_wild.h) and the Tensix
 * handlers it took out (km_kernel_fault.h), with those past the ones kept.
 * `kmrun run` exits 0 when km_run_ok and there are none. */
unsigned km_run_findings(const km_run_result *r);

#endif
