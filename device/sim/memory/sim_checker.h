/* sim_checker: the hand-over checker (sim_card_params.check_handover) —
 * for every line a cluster's cache holds, the load that filled it, its
 * dirty bytes and the store that dirtied them, and whether (and by whom)
 * its DRAM copy was written since; and the reads and write-backs a
 * missing kmx_invalidate or kmx_flush makes wrong (sim_card.h: sim_site,
 * sim_handover).  A write marks the copies at once (a direct-mapped
 * place in each cache that may hold the line), so a hit costs a test.
 *
 * Who tells it what:
 *   - the site of the access in progress (sim_checker_at): a cluster for
 *     its core's access (cluster, core, pc, time), the grid for a
 *     handler's NoC read or write, the card for the host's writes; none
 *     between accesses (the dispatcher's ring writes);
 *   - every DRAM write that bypasses the caches, through its watch of the
 *     banks: the copies other caches hold are marked written, by the
 *     current site;
 *   - a cluster's cache (its owner, sim_cluster_mem): a fill, a store, a
 *     hit's load, and a dirty line about to be written back;
 *   - a read of DRAM around the caches (a handler's, an uncached or NoC
 *     load, another cluster's fill): sim_checker_read.
 *
 * What it reports, each once per kind, line and site pc, contiguous lines
 * of one hazard as one finding (sim_card.h):
 *   - stale read: a load hits a line whose DRAM copy someone else wrote
 *     after the fill, and the bytes it reads differ from DRAM's;
 *   - lost write: a dirty line is written back over bytes someone else
 *     wrote after the fill (its own dirty bytes only when that write came
 *     after its last store);
 *   - unflushed read: DRAM bytes are read while a cluster holds them dirty
 *     with other values;
 *   - latent read: a cached load of bytes someone else wrote since the
 *     cluster last swept their line (kmx_invalidate, kmx_flush), which
 *     read right only because the cache did not hold the old line (a card
 *     whose cache held it, from before the write, reads it stale); once
 *     per cluster and line, and not with a stale read of the same access.
 *     Per bank, the bytes written since each cluster's sweep are ranges
 *     (sim_marks.h), so a region written whole costs one range.
 * A byte-level compare decides, so a line shared only by its bytes (one
 * side's words next to the other's) is not a hazard.  Nothing here
 * changes memory or time. */
#ifndef SIM_CHECKER_H
#define SIM_CHECKER_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_cache.h"
#include "sim_card.h"
#include "sim_dram.h"

#define SIM_CHECKER_MAX 256u /* findings kept */

typedef struct sim_checker sim_checker;

/* A checker watching every bank of `dram` (NULL when memory runs out). */
sim_checker *sim_checker_create(sim_dram *dram);
void sim_checker_free(sim_checker *ck);

/* Cluster `cluster`'s cache, for its fills and the dirty lines others'
 * reads look for; false when memory ran out for its records (then the
 * cluster is not watched: the caller must not run it so). */
bool sim_checker_add_cache(sim_checker *ck, unsigned cluster, const sim_cache *cache);

/* The access in progress (NULL: none); no checker (ck NULL): nothing. */
void sim_checker_at(sim_checker *ck, const sim_site *site);

/* The cache of `cluster`, at place i (sim_cache_index): */
/* ... filled with the line of bank address `line` (after the fill); */
void sim_checker_filled(sim_checker *ck, unsigned cluster, unsigned i, uint64_t line);
/* ... a store of `size` bytes at bank address `addr` (after it); */
void sim_checker_stored(sim_checker *ck, unsigned cluster, unsigned i, uint64_t addr,
                        unsigned size);
/* ... a load that hit, of `size` bytes at `addr` (the cached bytes are
 * the cache's); */
void sim_checker_hit(sim_checker *ck, unsigned cluster, unsigned i, uint64_t addr, unsigned size);
/* ... its dirty line at place i about to be written back (evicted or
 * flushed). */
void sim_checker_write_back(sim_checker *ck, unsigned cluster, unsigned i);

/* ... a load of `size` bytes at `addr` that was served (a hit or a fill),
 * after sim_checker_hit or sim_checker_filled: a latent read when someone
 * else wrote those bytes since the cluster last swept the line; */
void sim_checker_loaded(sim_checker *ck, unsigned cluster, uint64_t addr, unsigned size);
/* ... a sweep of the line at bank address `line` (FLUSH64: written back
 * if dirty, after sim_checker_write_back, and dropped). */
void sim_checker_swept(sim_checker *ck, unsigned cluster, uint64_t line);

/* n bytes at `addr` of `bank` read around the caches by the current site
 * (`except`: the reading cluster's own cache, or 0). */
void sim_checker_read(sim_checker *ck, unsigned bank, uint64_t addr, uint64_t n,
                      unsigned except);

/* The findings, in order; *n how many. */
const sim_handover *sim_checker_found(const sim_checker *ck, unsigned *n);

#endif
