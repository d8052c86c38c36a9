/* km_rundir: the run directory — what a run leaves after its stop, and how
 * `kmrun read-region` finds it again.
 *
 *   RUNS/<run id>/result.json          the run's JSON, as `kmrun run` printed it
 *   RUNS/<run id>/regions.json         every region copy: name, cluster,
 *                                      bank, bank address, bytes, file
 *   RUNS/<run id>/regions/cluster<N>/<name>.bin   sparse: zeros are holes
 *   RUNS/latest -> <run id>            the newest run
 *   RUNS/.lock                         orders sweeps against the writers
 *                                      that make folders and move latest
 *
 *   RUNS/.writing.<run id>.<suffix>    a run being written: its writer
 *                                      holds an flock on it from the run's
 *                                      start (before its build); one nobody
 *                                      holds was interrupted (killed), and
 *                                      the next run's km_rundir_begin (or
 *                                      km_rundir_sweep) removes it
 *
 * RUNS is --run-dir, else $KMRUN_RUNS, else .kmrun/runs in the current
 * folder.  A run is written under a temporary name; at its end `latest` is
 * pointed at its id, then the folder renamed to it: a reader sees an old
 * run or the new one, never a part, and a run killed at any step is seen as
 * interrupted — by its .writing folder, or, once that is removed or when it
 * died between the two renames, by a `latest` that names no folder — and
 * never read as if an older run were the last.  Region names come from
 * regions.json, never from a path the user typed, and every path below RUNS
 * is reached without following a link, so nothing outside the run is read
 * or written. */
#ifndef KM_RUNDIR_H
#define KM_RUNDIR_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "km_error.h"

typedef struct km_region_copy {
    const char *name;
    int cluster;           /* 1..3: whose copy */
    uint32_t bank;
    uint64_t bank_address;
    const void *bytes;
    uint64_t size;
    /* NULL, or bit k set when bytes [k, k + 1) * KM_REGION_UNIT may hold
     * a byte other than zero: the others are zeros nobody wrote, which a
     * reader need not touch (bytes' pages there cost nothing). */
    const uint64_t *data;
} km_region_copy;

#define KM_REGION_UNIT_SHIFT 12 /* 4 KiB: a host page, a file system block */
#define KM_REGION_UNIT (1u << KM_REGION_UNIT_SHIFT)

#define KM_RUN_ID_BYTES 32

/* RUNS as the user chose it (allocated). */
char *km_runs_root(const char *run_dir_option);

/* A new run id: UTC time and a random suffix, e.g. 20261201T201530Z-3f9a2c;
 * ids sort by time. */
void km_run_id(char out[KM_RUN_ID_BYTES]);

typedef struct km_rundir_writer km_rundir_writer;

/* Starts the run <runs>/<id> before the run itself, so that a run killed
 * at any point leaves a folder that says so: removes interrupted runs'
 * folders (never one whose writer lives), makes and locks ours. */
int km_rundir_begin(const char *runs, const char *id, km_rundir_writer **w, km_error *err);

/* Writes result.json, regions.json and every region's bytes (sparse
 * files) into w's folder, renames it to <id> and points `latest` at it.
 * *path (allocated; path may be NULL) is its folder.  Frees w, whatever
 * the outcome; on failure nothing of the run is left. */
int km_rundir_commit(km_rundir_writer *w, const char *result_json,
                     const km_region_copy *regions, size_t nregions, char **path, km_error *err);

/* The folder w is writing (it becomes <runs>/<id> at the commit): files
 * a run writes as it goes, such as an instruction trace, go there and
 * move with it. */
const char *km_rundir_writing(const km_rundir_writer *w);

/* Writes `text` as the file `name` (a plain name) into w's folder, before
 * km_rundir_commit (the run's prints.txt). */
int km_rundir_put_text(km_rundir_writer *w, const char *name, const char *text, km_error *err);

/* Drops a run that will not be written (w may be NULL). */
void km_rundir_abort(km_rundir_writer *w);

/* km_rundir_begin then km_rundir_commit. */
int km_rundir_write(const char *runs, const char *id, const char *result_json,
                    const km_region_copy *regions, size_t nregions, char **path,
                    km_error *err);

/* Removes what killed runs left under runs (their .writing and .new
 * folders); a dead run newer than `latest` leaves `latest` naming it. */
void km_rundir_sweep(const char *runs);

/* Whether an interrupted run's folder is under runs; id and *when (the
 * folder's last change) the newest's. */
int km_rundir_interrupted(const char *runs, char id[KM_RUN_ID_BYTES], struct timespec *when);

/* The folder of a run: `run` is NULL (the latest), a run id under runs,
 * or a path to a run folder.  With run NULL, a run interrupted after the
 * latest one was written (its folder changed since, and is still there),
 * or a `latest` that names no folder (its run was interrupted), is a
 * KM_EXIT_SYSTEM error: reading `latest` unasked would show an older run's
 * bytes as if they were the last.  A `latest` that is not kmrun's link to a
 * run id is refused, never followed. */
int km_rundir_find(const char *runs, const char *run, char **dir, km_error *err);

/* The bytes of region `name` of `cluster` (0: the only cluster that has
 * it, an error when several do) from the run at dir. */
int km_rundir_region(const char *dir, const char *name, int cluster, char **data,
                     size_t *n, int *cluster_out, km_error *err);
/* The same, and *map (allocated, free()) the data map of its bytes, as
 * km_region_copy.data says: the units holding the file's data, the others
 * its holes (zeros, never read, so *data's pages there cost nothing). */
int km_rundir_region_mapped(const char *dir, const char *name, int cluster, char **data,
                            size_t *n, int *cluster_out, uint64_t **map, km_error *err);

#endif
