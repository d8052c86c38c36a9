/* grid_internal.h: what the grid (sim_grid.c) shares with its built-in
 * handlers (builtins.c) and nothing else. */
#ifndef GRID_INTERNAL_H
#define GRID_INTERNAL_H

#include "km_device.h"

/* The built-in handlers, indexed by id (NULL where none). */
extern const km_handler_fn sim_grid_builtins[KM_HANDLER_FIRST_PROGRAM];

/* The job's scratch: one 64-bit word per core of the group, by group
 * index, zero at the start; how a group's cores share partial results. */
uint64_t *sim_grid_scratch(km_core *core);

/* The leader waits until every other core of its group has returned from
 * its handler; its time becomes the latest of theirs if that is later.
 * Does nothing on another core (they would wait for the leader forever). */
void sim_grid_wait_members(km_core *core);

#endif
