/* 07_work_cluster: one thread on work cluster 1 transforms 64 items of
 * 64 words each on its four cores, item i costing cost[i] rounds of a
 * mixing function a word.  How the items are dealt to the cores is
 * decided by split.c, a plain-C file the host fallback compiles too:
 * `kmrun check` runs both and compares every result word and region byte.
 *
 * Regions: 0 `costs` (one 32-bit cost an item, 1..MAX_COST), 1 `data`
 * (ITEM_WORDS input words an item), 2 `out` (as large as data).
 *
 * What it shows:
 *   - kmx_invalidate of what the host wrote before reading it, kmx_flush
 *     of what the thread wrote once it is written;
 *   - the decision in a file of its own, pure C (split.h): core 0 calls
 *     it, then kmx_parallel gives core c the items bound[c] .. bound[c+1]-1;
 *   - items of whole cache lines (256 bytes), so no two cores write the
 *     same line of `out`;
 *   - every loop bounded: by n, ITEM_WORDS and a cost checked against
 *     MAX_COST first.
 *
 * Result words: n, bound[1], bound[2], bound[3], the four partitions'
 * total costs, and the checksum sum(out[k] * (k + 1)) mod 2^32. */
#include "kmx.h"
#include "split.h"

#define COSTS 0u
#define DATA 1u
#define OUT 2u
#define ITEM_WORDS 64u /* 256 bytes: four whole cache lines */
#define MAX_COST 64u

_Static_assert(SPLIT_PARTS == BH_CLUSTER_CORES, "one partition a core");

typedef struct job {
    const uint32_t *cost;
    const uint32_t *data;
    uint32_t *out;
    uint32_t bound[SPLIT_PARTS + 1u];
    uint32_t checksum[BH_CLUSTER_CORES];
} job;

/* One round of the transform: a 32-bit integer mix (xor-shift-multiply). */
static inline uint32_t mix(uint32_t v)
{
    v ^= v >> 16;
    v *= 0x7feb352du;
    v ^= v >> 15;
    v *= 0x846ca68bu;
    v ^= v >> 16;
    return v;
}

/* Core `core`: items bound[core] .. bound[core+1]-1, word k of the region
 * becoming mix^cost(data[k] ^ k).  Locals only in the loops (the job is
 * on core 0's stack, slow local memory). */
static void work_part(int core, void *arg)
{
    job *j = arg;
    const uint32_t *cost = j->cost, *data = j->data;
    uint32_t *out = j->out;
    uint32_t first = j->bound[core], end = j->bound[core + 1];
    uint32_t checksum = 0;
    for (uint32_t item = first; item < end; item++) {
        uint32_t rounds = cost[item];
        uint32_t k0 = item * ITEM_WORDS;
        for (uint32_t k = k0; k < k0 + ITEM_WORDS; k++) {
            uint32_t v = data[k] ^ k;
            for (uint32_t r = 0; r < rounds; r++)
                v = mix(v);
            out[k] = v;
            checksum += v * (k + 1u);
        }
    }
    j->checksum[core] = checksum;
}

int kmx_main(int core)
{
    (void)core;
    uint64_t cost_bytes = 0, data_bytes = 0, out_bytes = 0;
    job j;
    j.cost = kmx_region(COSTS, &cost_bytes);
    j.data = kmx_region(DATA, &data_bytes);
    j.out = kmx_region(OUT, &out_bytes);
    uint32_t n = (uint32_t)(cost_bytes / 4u);
    if (!j.cost || !j.data || !j.out || n == 0 ||
        data_bytes < (uint64_t)n * ITEM_WORDS * 4u || out_bytes < data_bytes)
        return 2;

    kmx_invalidate(COSTS); /* read what the host wrote, not stale lines */
    kmx_invalidate(DATA);
    kmx_progress(1);
    for (uint32_t i = 0; i < n; i++)
        if (j.cost[i] == 0 || j.cost[i] > MAX_COST)
            return 3;

    split_costs(j.cost, n, j.bound); /* the decision: split.c */
    kmx_progress(2);

    if (kmx_parallel(work_part, &j) != KMX_OK)
        return 4;
    kmx_progress(3);
    kmx_flush(OUT); /* the host reads `out` after the stop */
    kmx_progress(4);

    uint32_t words[9];
    uint32_t checksum = 0;
    words[0] = n;
    for (uint32_t p = 1; p < SPLIT_PARTS; p++)
        words[p] = j.bound[p];
    for (uint32_t p = 0; p < SPLIT_PARTS; p++) {
        uint32_t part = 0;
        for (uint32_t i = j.bound[p]; i < j.bound[p + 1u]; i++)
            part += j.cost[i];
        words[4u + p] = part;
        checksum += j.checksum[p];
    }
    words[8] = checksum;
    kmx_result(0, words, 9);
    return 0;
}
