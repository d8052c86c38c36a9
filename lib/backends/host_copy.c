/* host_copy: a host fallback's regions as its cluster's cache would hold
 * them (host_internal.h).  Each region has a copy (what the thread sees)
 * and a base (DRAM as the copy last saw it): kmx_flush writes the lines
 * where the two differ, whole, to DRAM (a dirty line's write-back, stale
 * bytes and all); kmx_invalidate does that and then reloads every line of
 * the range.  kmx_push writes DRAM around the target's copy, which it
 * invalidates before reading, as on the card.
 *
 * The copy is thread code's memory inside kmrun: from the heap, a store
 * past or before it would corrupt kmrun's own heap.  Each copy is mapped
 * on its own between PROT_NONE guards, its end against the upper guard
 * (to the line: the copy starts 64-byte aligned, as the region does on the
 * card), so a store past the end, or before a region whose size is a whole
 * number of pages, faults: a trap, as the card's access fault would be. */
#include "host_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kmx.h"
#include "sim_card.h"

/* Wide enough that a store a few KiB out still lands on it. */
#define GUARD_BYTES (64u * 1024u)

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* `size` bytes between guards, the end against the upper one; NULL when
 * there is no memory.  *mapping and *mapping_bytes are what to unmap. */
static uint8_t *guarded_copy(size_t size, void **mapping, size_t *mapping_bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t guard = round_up(GUARD_BYTES, page);
    size_t usable = round_up(size ? size : 1, page);
    size_t total = guard + usable + guard;
    uint8_t *m = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (mprotect(m + guard, usable, PROT_READ | PROT_WRITE) != 0) {
        munmap(m, total);
        return NULL;
    }
    *mapping = m;
    *mapping_bytes = total;
    return m + guard + (usable - size) / BH_LINE_BYTES * BH_LINE_BYTES;
}

int host_copy_init(host_thread *t, km_error *err)
{
    const km_cluster_plan *cp = t->cp;
    for (uint32_t k = 0; k < cp->nregions; k++) {
        const km_placed *pl = &cp->regions[k];
        uint64_t size = pl->region->size;
        t->copy[k] = guarded_copy(size, &t->copy_mapping[k], &t->copy_mapping_bytes[k]);
        /* Zeros both (a large calloc is fresh pages, untouched), then
         * what the card wrote: pages nobody wrote cost nothing. */
        t->base[k] = calloc(size ? size : 1, 1);
        if (!t->copy[k] || !t->base[k])
            return km_fail(err, KM_EXIT_SYSTEM,
                           "out of memory for the host copy of region '%s' (%llu bytes)",
                           pl->region->name, (unsigned long long)size);
        int rc = km_card_copy_dram(t->b->s, pl->bank, pl->bank_address, t->base[k], size, NULL,
                                   err);
        if (rc == KM_OK)
            rc = km_card_copy_dram(t->b->s, pl->bank, pl->bank_address, t->copy[k], size, NULL,
                                   err);
        if (rc != KM_OK)
            return rc;
    }
    return KM_OK;
}

void host_copy_free(host_thread *t)
{
    for (uint32_t k = 0; k < KMX_MAX_REGIONS; k++) {
        if (t->copy_mapping[k])
            munmap(t->copy_mapping[k], t->copy_mapping_bytes[k]);
        free(t->base[k]);
    }
}

static void line_range(const host_thread *t, uint32_t id, uint64_t offset, uint64_t bytes,
                       uint64_t *begin, uint64_t *end)
{
    uint64_t size = t->cp->regions[id].region->size;
    *begin = offset / BH_LINE_BYTES * BH_LINE_BYTES;
    *end = offset + bytes > size ? size : offset + bytes;
}

/* Under the lock. */
static void write_back(host_thread *t, uint32_t id, uint64_t begin, uint64_t end)
{
    const km_placed *pl = &t->cp->regions[id];
    for (uint64_t at = begin; at < end; at += BH_LINE_BYTES) {
        uint64_t n = end - at < BH_LINE_BYTES ? end - at : BH_LINE_BYTES;
        if (memcmp(t->copy[id] + at, t->base[id] + at, n) == 0)
            continue;
        /* The whole line, as a cache writes a dirty line back. */
        uint64_t line_end = at + BH_LINE_BYTES > pl->region->size ? pl->region->size
                                                                   : at + BH_LINE_BYTES;
        sim_card_write_dram(t->b->s->card, pl->bank, pl->bank_address + at, t->copy[id] + at,
                            line_end - at, NULL);
        memcpy(t->base[id] + at, t->copy[id] + at, line_end - at);
    }
}

void host_cb_flush(void *ops, uint32_t id, uint64_t offset, uint64_t bytes)
{
    host_thread *t = ops;
    if (id >= t->cp->nregions)
        return;
    uint64_t begin, end;
    line_range(t, id, offset, bytes, &begin, &end);
    pthread_mutex_lock(&t->b->lock);
    write_back(t, id, begin, end);
    pthread_mutex_unlock(&t->b->lock);
}

void host_cb_invalidate(void *ops, uint32_t id, uint64_t offset, uint64_t bytes)
{
    host_thread *t = ops;
    if (id >= t->cp->nregions)
        return;
    const km_placed *pl = &t->cp->regions[id];
    uint64_t begin, end;
    line_range(t, id, offset, bytes, &begin, &end);
    pthread_mutex_lock(&t->b->lock);
    write_back(t, id, begin, end);
    uint64_t line_end = (end + BH_LINE_BYTES - 1) / BH_LINE_BYTES * BH_LINE_BYTES;
    if (line_end > pl->region->size)
        line_end = pl->region->size;
    if (begin < line_end) {
        sim_card_read_dram(t->b->s->card, pl->bank, pl->bank_address + begin,
                           t->base[id] + begin, line_end - begin, NULL);
        memcpy(t->copy[id] + begin, t->base[id] + begin, line_end - begin);
    }
    pthread_mutex_unlock(&t->b->lock);
}

int host_cb_push(void *ops, uint32_t cluster, uint32_t id, uint64_t offset, const void *source,
                 uint64_t bytes)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    const host_thread *to = NULL;
    for (unsigned i = 0; i < b->nthreads; i++)
        if ((uint32_t)b->threads[i].cp->cluster == cluster)
            to = &b->threads[i];
    if (!to || id >= to->cp->nregions)
        return KMX_BAD;
    const km_placed *pl = &to->cp->regions[id];
    if (offset > pl->region->size || bytes > pl->region->size - offset)
        return KMX_BAD;
    pthread_mutex_lock(&b->lock);
    int rc = sim_card_write_dram(b->s->card, pl->bank, pl->bank_address + offset, source, bytes,
                                 NULL);
    pthread_mutex_unlock(&b->lock);
    return rc == KS_OK ? KMX_OK : KMX_BAD;
}
