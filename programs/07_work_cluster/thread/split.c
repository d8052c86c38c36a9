/* split.c: the cost split of 07_work_cluster (split.h).  Plain C: it
 * includes nothing but stdint.h, so the same file builds for the card
 * (riscv64, freestanding) and for the host fallback. */
#include "split.h"

uint64_t split_costs(const uint32_t *cost, uint32_t n,
                     uint32_t bound[SPLIT_PARTS + 1u])
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += cost[i];

    /* b walks forward once over all three bounds; prefix is the cost of
     * items 0 .. b-1.  Compared in units of total/SPLIT_PARTS, scaled up
     * by SPLIT_PARTS so that nothing is rounded. */
    uint32_t b = 0;
    uint64_t prefix = 0;
    bound[0] = 0;
    for (uint32_t p = 1; p < SPLIT_PARTS; p++) {
        uint64_t target = total * p;
        for (; b < n && SPLIT_PARTS * prefix < target; b++)
            prefix += cost[b];
        /* b: the first boundary at or past the target (or n).  The one
         * before it may be nearer. */
        uint32_t pick = b;
        if (b > bound[p - 1u] && SPLIT_PARTS * prefix > target) {
            uint64_t before = prefix - cost[b - 1u];
            if (target - SPLIT_PARTS * before <= SPLIT_PARTS * prefix - target)
                pick = b - 1u;
        }
        bound[p] = pick;
    }
    bound[SPLIT_PARTS] = n;
    return total;
}
