/* km_rundir: the run directory — what a run leaves after its stop, and how
 * `kmrun read-region` finds it again.
 *
 *   RUNS/<run id>/result.json          the run's JSON, as `kmrun run` printed it
 *   RUNS/<run id>/regions.json         every region copy: name, cluster,
 *                                      bank, bank address, bytes, file
 *   RUNS/<run id>/regions/cluster<N>/<name>.bin   sparse: zeros are holes
 *   RUNS/latest -> <run id>            the newest run
 *
 * RUNS is --run-dir, else $KMRUN_RUNS, else .kmrun/runs in the current
 * folder.  A run is written under a temporary name and renamed into place
 * whole, then `latest` is replaced by a rename too: a reader sees an old
 * run or the new one, never a part.  Region names come from regions.json,
 * never from a path the user typed, so no name can reach outside the run. */
#ifndef KM_RUNDIR_H
#define KM_RUNDIR_H

#include <stddef.h>
#include <stdint.h>

#include "km_error.h"

typedef struct km_region_copy {
    const char *name;
    int cluster;           /* 1..3: whose copy */
    uint32_t bank;
    uint64_t bank_address;
    const void *bytes;
    uint64_t size;
} km_region_copy;

/* RUNS as the user chose it (allocated). */
char *km_runs_root(const char *run_dir_option);

/* A new run id: UTC time and a random suffix, e.g. 20261201T201530Z-3f9a2c. */
void km_run_id(char out[32]);

/* Writes the run <runs>/<id>: result.json, regions.json, every region's
 * bytes; then points `latest` at it.  *path (allocated) is its folder. */
int km_rundir_write(const char *runs, const char *id, const char *result_json,
                    const km_region_copy *regions, size_t nregions, char **path,
                    km_error *err);

/* The folder of a run: `run` is NULL (the latest), a run id under runs,
 * or a path to a run folder. */
int km_rundir_find(const char *runs, const char *run, char **dir, km_error *err);

/* The bytes of region `name` of `cluster` (0: the only cluster that has
 * it, an error when several do) from the run at dir. */
int km_rundir_region(const char *dir, const char *name, int cluster, char **data,
                     size_t *n, int *cluster_out, km_error *err);

#endif
