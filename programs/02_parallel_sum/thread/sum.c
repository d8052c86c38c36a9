/* 02_parallel_sum: the four cores of cluster 1 each sum a quarter of
 * region 0 (`data`, 1 MiB of 32-bit words the host filled), and core 0
 * adds the four partial sums.
 *
 * What it shows:
 *   - kmx_invalidate before reading what the host wrote (here the cache
 *     is cold, but a thread cannot know that: the rule is the habit);
 *   - kmx_parallel: function(core, arg) on all four cores, then join;
 *   - partitions in 4 KiB chunks, interleaved over the cores (below);
 *   - each core's loop works on locals (registers), not on the job in
 *     core 0's stack: the stack is local memory, about 30 cycles a word,
 *     and a loop that reloads its bounds from there runs several times
 *     slower;
 *   - partial sums in an array that core 0 owns, written once per core.
 *
 * Result words: the sum's low and high 32 bits, and the weighted
 * checksum sum(data[i] * (i + 1)) mod 2^32, which changes if any word is
 * summed by the wrong index, twice or not at all. */
#include "kmx.h"

#define CHUNK_WORDS (4096u / 4u)

typedef struct job {
    const uint32_t *data;
    uint32_t words; /* in the region: a multiple of 4 KiB of them */
    uint64_t sum[BH_CLUSTER_CORES];
    uint32_t weighted[BH_CLUSTER_CORES];
} job;

/* Core `core` takes 4 KiB chunks core, core + 4, core + 8, ...: at any
 * moment the four cores read neighbouring chunks.  (Quarters would put
 * the cores 256 KiB apart, a multiple of the cache's one 128 KiB way, so
 * their lines would take the same places and evict each other.) */
static void sum_chunks(int core, void *arg)
{
    job *j = arg;
    const uint32_t *data = j->data;
    uint32_t chunks = j->words / CHUNK_WORDS;
    uint64_t sum = 0;
    uint32_t weighted = 0;
    /* Bounded by counts: every loop in a thread terminates. */
    for (uint32_t chunk = (uint32_t)core; chunk < chunks; chunk += BH_CLUSTER_CORES) {
        uint32_t first = chunk * CHUNK_WORDS, end = first + CHUNK_WORDS;
        for (uint32_t i = first; i < end; i++) {
            sum += data[i];
            weighted += data[i] * (i + 1u);
        }
    }
    j->sum[core] = sum;
    j->weighted[core] = weighted;
}

int kmx_main(int core)
{
    (void)core;
    uint64_t bytes = 0;
    job j;
    j.data = kmx_region(0, &bytes);
    j.words = (uint32_t)(bytes / 4u);
    kmx_progress(1);
    kmx_invalidate(0); /* read what the host wrote, not stale lines */
    kmx_progress(2);
    if (kmx_parallel(sum_chunks, &j) != KMX_OK)
        return 2;
    kmx_progress(3);
    uint64_t sum = 0;
    uint32_t weighted = 0;
    for (unsigned c = 0; c < BH_CLUSTER_CORES; c++) {
        sum += j.sum[c];
        weighted += j.weighted[c];
    }
    uint32_t words[3] = {(uint32_t)sum, (uint32_t)(sum >> 32), weighted};
    kmx_result(0, words, 3);
    return 0;
}
