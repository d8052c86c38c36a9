/* rundir_names: the names inside a runs folder, shared by the writer
 * (rundir_write.c) and the reader (km_rundir.c); not part of the
 * library's interface. */
#ifndef KM_RUNDIR_NAMES_H
#define KM_RUNDIR_NAMES_H

#include <stdbool.h>

#define KM_RUNDIR_LATEST "latest"

/* A run id or region name is a plain name: it can never climb out. */
bool km_rundir_plain_name(const char *s);

/* "regions/cluster<N>/<name>.bin", allocated; NULL when memory ran out. */
char *km_rundir_region_file(int cluster, const char *name);

/* When `entry` is a writer's folder, .writing.<id>.<suffix>, copies <id>
 * (KM_RUN_ID_BYTES at most) and returns true. */
bool km_rundir_writing_id(const char *entry, char *id);

#endif
