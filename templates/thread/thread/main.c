/* A thread to start from (kmrun new, template "thread"; after
 * programs/01_hello).  Core 0 reads the program's two words a and b; the
 * four cores each fill a quarter of region 0 (`out`) with a * i; the
 * thread prints a * b and returns it as its first result word. */
#include "kmx.h"

typedef struct job {
    uint32_t *out;
    uint32_t words; /* 32-bit words in `out` */
    uint32_t a;
} job;

/* Run on each of the cluster's four cores by kmx_parallel. */
static void fill(int core, void *arg)
{
    /* Copied into locals (registers): `j` lives on core 0's stack, in
     * local memory, at about 30 cycles a word. */
    const job *j = arg;
    uint32_t *out = j->out, a = j->a, quarter = j->words / BH_CLUSTER_CORES;
    /* Bounded by the count: every loop in a thread terminates. */
    for (uint32_t i = (uint32_t)core * quarter; i < (uint32_t)(core + 1) * quarter; i++)
        out[i] = a * i;
}

int kmx_main(int core)
{
    (void)core;
    uint32_t nwords = 0;
    const uint32_t *words = kmx_args_get(&nwords);
    if (nwords < 2)
        return 1;
    uint64_t bytes = 0;
    job j;
    j.out = kmx_region(0, &bytes);
    j.words = (uint32_t)(bytes / 4);
    j.a = words[0];
    kmx_progress(1);
    if (kmx_parallel(fill, &j) != KMX_OK)
        return 2;
    kmx_flush(0); /* what the host reads after the stop is in DRAM */
    kmx_progress(2);
    uint32_t product = words[0] * words[1];
    kmx_print("%u * %u = %u", words[0], words[1], product);
    kmx_result(0, &product, 1);
    return 0;
}
