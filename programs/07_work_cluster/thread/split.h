/* split.h: the decision of 07_work_cluster, a plain-C file both builds
 * share.  The card's thread and its host fallback compile the same
 * split.c (kmrun builds every source of the thread both ways), so the
 * partition they use is the same function of the same costs. */
#ifndef WORK_SPLIT_H
#define WORK_SPLIT_H

#include <stdint.h>

#define SPLIT_PARTS 4u

/* Splits items 0 .. n-1, item i costing cost[i], into SPLIT_PARTS
 * contiguous partitions of near-equal total cost: partition p is items
 * bound[p] .. bound[p+1]-1, with bound[0] = 0 and bound[SPLIT_PARTS] = n.
 * Each inner bound is the item boundary whose cost prefix is nearest to
 * p/SPLIT_PARTS of the total (the lower one on a tie), never below the
 * bound before it.  Returns the total cost.
 *
 * Pure: no globals, no libc, no allocation; one pass over the costs plus
 * the sum, every loop bounded by n.  Safe freestanding. */
uint64_t split_costs(const uint32_t *cost, uint32_t n,
                     uint32_t bound[SPLIT_PARTS + 1u]);

#endif
