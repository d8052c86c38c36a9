/* kmx_core.c: the calls any core may make (the argument block, regions,
 * clusters, the timer, the stop), the result block, and the library's
 * error and stop bookkeeping. */
#include "kmx_internal.h"

const uint32_t *kmx_args_get(uint32_t *nwords) {
    uint32_t n = KMX_ARGS->nwords;
    if (nwords != 0) {
        *nwords = kmx_args_words(n);
    }
    return (const uint32_t *)(uintptr_t)(KMX_LIM_ARGS + offsetof(kmx_args, words));
}

void *kmx_region(uint32_t id, uint64_t *bytes) {
    const volatile kmx_args *a = KMX_ARGS;
    if (!kmx_region_size(a, id, bytes)) {
        return 0;
    }
    return (void *)(uintptr_t)BH_DRAM_CACHED(a->regions[id].bank_address);
}

int kmx_region_address(uint32_t id, uint32_t *bank, uint64_t *bank_address) {
    return kmx_region_where(KMX_ARGS, id, bank, bank_address);
}

int kmx_cluster(void) {
    return (int)KMX_ARGS->cluster;
}

uint32_t kmx_clusters(void) {
    return KMX_ARGS->clusters;
}

int kmx_lead(void) {
    return (int)KMX_ARGS->lead;
}

uint64_t kmx_time(void) {
    return *(volatile uint64_t *)(uintptr_t)BH_MTIME;
}

int kmx_stop_requested(void) {
    return kmx__stop_status() != KMX_OK;
}

/* Records the first library error, with the call and its caller for a
 * `parallel` error (else 0, 0), and stops the run. */
static void error_at(uint32_t error, uint32_t detail, uint32_t call, uint64_t pc) {
    volatile kmx_private *p = KMX_PRIVATE;
    if (__atomic_exchange_n(&p->error_claim, 1u, __ATOMIC_SEQ_CST) == 0) {
        volatile kmx_result_block *r = KMX_RESULT;
        KMX_ERROR_PUT(r, (uint32_t)kmx__hart(), error, detail, call, pc, kmx__fence);
    }
    p->stop = KMX_STOPPED;
    kmx__fence();
}

void kmx__error(uint32_t error, uint32_t detail) {
    error_at(error, detail, KMX_API_NONE, 0);
}

int kmx__not_core0(uint32_t call, uint64_t pc) {
    error_at(KMX_ERROR_PARALLEL, (uint32_t)kmx__hart(), call, pc);
    return KMX_STOPPED;
}

int kmx__args_valid(void) {
    return kmx_args_sealed(KMX_ARGS, KMX_RESULT);
}

void kmx_progress(uint32_t where) {
    uint64_t now = kmx_time();
    kmx_progress_put(KMX_RESULT, where, now, kmx__fence);
}

int kmx_result(uint32_t first, const uint32_t *words, uint32_t count) {
    return kmx_result_put(KMX_RESULT, first, words, count);
}
