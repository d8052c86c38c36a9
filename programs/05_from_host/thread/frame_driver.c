/* 05_from_host's thread, the spec's "frame" driver: a histogram of the
 * `counts` region (each value's bin: value % bins) into the first `bins`
 * words of `tables`, on the four cores (core k counts the bins b with
 * b % 4 == k, so no two write one word); then the histogram is handed to
 * the Tensix grid (kmx_flush) and folded there by the `fold` handler.
 * Words: cores (4), bins.  Result words: the values counted and the
 * grid's fold.  host.py gives the same thread as a Python function. */
#include "kmx.h"
#include "kmrun_handlers.h"

typedef struct frame {
    const uint32_t *counts;
    uint32_t ncounts;
    uint32_t *tables;
    uint32_t bins;
} frame;

static void histogram(int core, void *arg)
{
    const frame *f = arg;
    const uint32_t *counts = f->counts;
    uint32_t *tables = f->tables, bins = f->bins, n = f->ncounts;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = counts[i] % bins;
        if (b % BH_CLUSTER_CORES == (uint32_t)core)
            tables[b]++;
    }
}

int kmx_main(int core)
{
    (void)core;
    uint32_t nwords = 0;
    const uint32_t *words = kmx_args_get(&nwords);
    uint64_t counts_bytes = 0, tables_bytes = 0;
    frame f;
    f.counts = kmx_region(0, &counts_bytes);
    f.tables = kmx_region(1, &tables_bytes);
    if (nwords < 2 || words[0] != BH_CLUSTER_CORES || words[1] == 0 ||
        words[1] > tables_bytes / 4)
        return 1;
    f.ncounts = (uint32_t)(counts_bytes / 4);
    f.bins = words[1];
    if (kmx_parallel(histogram, &f) != KMX_OK)
        return 2;
    kmx_progress(1);
    /* The grid reads DRAM: the histogram goes there first. */
    kmx_flush(1);
    uint32_t bank = 0;
    uint64_t address = 0;
    kmx_region_address(1, &bank, &address);
    km_command_t c = {
        .hdr = KM_HDR(HANDLER_FOLD, KM_FLAG_RESULT),
        .group = KM_GROUP(0, 1),
        .a0 = bank,
        .a1 = (uint32_t)address,
        .a2 = (uint32_t)(address >> 32),
        .a3 = f.bins,
    };
    uint32_t handle;
    kmx_event e;
    if (kmx_submit(&c, &handle) != KMX_OK || kmx_wait(handle, 0, &e) != KMX_OK ||
        e.kind != KM_EVENT_DONE)
        return 3;
    kmx_progress(2);
    uint32_t result[2] = {f.ncounts, e.ticks};
    kmx_result(0, result, 2);
    return 0;
}
