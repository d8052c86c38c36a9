/* kmx_core.c: the calls any core may make (the argument block, regions,
 * clusters, the timer, the stop), the result block, and the library's
 * error and stop bookkeeping. */
#include "kmx_internal.h"

const uint32_t *kmx_args_get(uint32_t *nwords) {
    uint32_t n = KMX_ARGS->nwords;
    if (nwords != 0) {
        *nwords = n <= KMX_MAX_WORDS ? n : KMX_MAX_WORDS;
    }
    return (const uint32_t *)(uintptr_t)(KMX_LIM_ARGS + offsetof(kmx_args, words));
}

void *kmx_region(uint32_t id, uint64_t *bytes) {
    const volatile kmx_args *a = KMX_ARGS;
    if (id >= a->nregions || id >= KMX_MAX_REGIONS) {
        if (bytes != 0) {
            *bytes = 0;
        }
        return 0;
    }
    if (bytes != 0) {
        *bytes = a->regions[id].bytes;
    }
    return (void *)(uintptr_t)KMX_DRAM_CACHED(a->regions[id].bank_address);
}

int kmx_region_address(uint32_t id, uint32_t *bank, uint64_t *bank_address) {
    const volatile kmx_args *a = KMX_ARGS;
    if (id >= a->nregions || id >= KMX_MAX_REGIONS) {
        return KMX_BAD;
    }
    if (bank != 0) {
        *bank = a->regions[id].bank;
    }
    if (bank_address != 0) {
        *bank_address = a->regions[id].bank_address;
    }
    return KMX_OK;
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
    return *(volatile uint64_t *)(uintptr_t)KMX_MTIME;
}

int kmx_stop_requested(void) {
    return kmx__stop_status() != KMX_OK;
}

void kmx__error(uint32_t error, uint32_t detail) {
    volatile kmx_private *p = KMX_PRIVATE;
    if (__atomic_exchange_n(&p->error_claim, 1u, __ATOMIC_SEQ_CST) == 0) {
        volatile kmx_result_block *r = KMX_RESULT;
        r->error_core = (uint32_t)kmx__hart();
        r->error_detail = detail;
        kmx__fence();
        r->error = error;
    }
    p->stop = KMX_STOPPED;
    kmx__fence();
}

int kmx__not_core0(void) {
    kmx__error(KMX_ERROR_PARALLEL, (uint32_t)kmx__hart());
    return KMX_STOPPED;
}

int kmx__args_valid(void) {
    const volatile kmx_args *a = KMX_ARGS;
    uint64_t nonce = a->nonce;
    return a->magic == KMX_ARGS_MAGIC && a->version == KMX_LAYOUT_VERSION &&
           a->seal.seal == KMX_ARGS_SEAL && a->seal.nonce == nonce &&
           KMX_RESULT->nonce == nonce && a->cluster >= 1 &&
           a->cluster <= KMX_WORK_CLUSTERS &&
           (a->clusters & ~0xEu) == 0 && (a->clusters & (1u << a->cluster)) != 0 &&
           a->lead >= 1 && a->lead <= a->cluster &&
           (a->clusters & (1u << a->lead)) != 0 &&
           (a->clusters & ((1u << a->lead) - 1u)) == 0 &&
           a->nregions <= KMX_MAX_REGIONS && a->nwords <= KMX_MAX_WORDS;
}

/* A reader (the host, between its looks) may see the block at any store:
 * where_ticks is 0 while the marker changes, so that it never pairs a new
 * time with the old marker or the reverse (kmx_layout.h). */
void kmx_progress(uint32_t where) {
    volatile kmx_result_block *r = KMX_RESULT;
    uint64_t now = kmx_time();
    r->where_ticks = 0;
    kmx__fence();
    r->where = where;
    kmx__fence();
    r->where_ticks = now != 0 ? now : 1;
}

int kmx_result(uint32_t first, const uint32_t *words, uint32_t count) {
    volatile kmx_result_block *r = KMX_RESULT;
    if (first > KMX_MAX_RESULT_WORDS || count > KMX_MAX_RESULT_WORDS - first ||
        (count != 0 && words == 0)) {
        return KMX_BAD;
    }
    for (uint32_t i = 0; i < count; i++) {
        r->words[first + i] = words[i];
    }
    if (first + count > r->nwords) {
        r->nwords = first + count;
    }
    return KMX_OK;
}
