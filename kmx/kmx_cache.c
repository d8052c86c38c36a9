/* kmx_cache.c: regions changing hands (kmx_invalidate, kmx_flush and their
 * _at forms) and the end-of-run flush.  Each is a sweep of the L3
 * controller's FLUSH64 register over the range's 64-byte lines: the line
 * is written back if dirty and dropped, which serves both directions.
 *
 * On core 0 outside kmx_parallel's function, a sweep of at least
 * KMX_SPREAD_MIN_LINES lines is spread over the four cores when cores 1-3
 * are idle (through their spawn mailboxes, KMX_CALL_SWEEP); a share a core
 * could not take (it left its loop after a stop, or trapped) is swept by
 * core 0 itself, so a sweep always covers its whole range.  Elsewhere the
 * calling core sweeps alone. */
#include "kmx_internal.h"

void kmx__sweep_lines(uint64_t begin, uint64_t end) {
    volatile uint64_t *flush64 = (volatile uint64_t *)(uintptr_t)BH_FLUSH64;
    kmx__fence(); /* this core's stores reach the cache before their flush */
    for (uint64_t line = begin; line < end; line += BH_LINE_BYTES) {
        *flush64 = line;
    }
    kmx__fence(); /* no load after the sweep sees a line it dropped */
}

static int spreadable(uint64_t lines) {
    if (lines < KMX_SPREAD_MIN_LINES || kmx__hart() != 0 || KMX_PRIVATE->in_parallel ||
        kmx__stop_status() != KMX_OK) {
        return 0;
    }
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
        if (!mb->alive || mb->halted || kmx__busy(core)) {
            return 0;
        }
    }
    return 1;
}

/* noipa: gcc would otherwise split off a void part of it, and the region
 * calls below would call that instead of ending in this (a frame again). */
__attribute__((noipa)) int kmx__sweep(uint64_t begin, uint64_t end) {
    if (end <= begin) {
        return KMX_OK;
    }
    uint64_t lines = (end - begin) / BH_LINE_BYTES;
    if (!spreadable(lines)) {
        kmx__sweep_lines(begin, end);
        return KMX_OK;
    }
    volatile kmx_private *p = KMX_PRIVATE;
    uint64_t share = lines / BH_CLUSTER_CORES * BH_LINE_BYTES;
    uint32_t posted[BH_CLUSTER_CORES];
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        p->sweep_begin[core] = begin + (uint64_t)core * share;
        p->sweep_end[core] = core == (int)BH_CLUSTER_CORES - 1 ? end : begin + (uint64_t)(core + 1) * share;
        posted[core] = kmx__post(core, KMX_MAILBOX(core)->done, KMX_CALL_SWEEP, 0, 0);
    }
    kmx__sweep_lines(begin, begin + share);
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
        /* Bounded: an alive core finishes a posted sweep before it looks at
         * the stop again; one that left or trapped is swept for here. */
        while (mb->done != posted[core] && mb->alive && !mb->halted) {
        }
        if (mb->done != posted[core]) {
            kmx__sweep_lines(p->sweep_begin[core], p->sweep_end[core]);
        }
    }
    kmx__acquire();
    return KMX_OK;
}

/* The cached range of [offset, offset + bytes) of region id (the whole
 * region if `whole`), widened to whole lines, swept; KMX_BAD if it is not
 * inside the region.  Inline, reading the argument block's entry itself
 * (three loads of local memory, nothing through the stack): the calls
 * below are then leaves that end in kmx__sweep, and a flush or invalidate
 * of a line, as a wake through a shared region makes two of a round,
 * costs that line's FLUSH64 and a few loads, not a frame of spills in
 * local memory (30 cycles each). */
static inline __attribute__((always_inline)) int sweep_region(uint32_t id, uint64_t offset,
                                                              uint64_t bytes, int whole) {
    const volatile kmx_args *a = KMX_ARGS;
    if (KMX_REGION_UNKNOWN(a, id)) {
        return KMX_BAD;
    }
    uint64_t size = a->regions[id].bytes;
    if (whole) {
        offset = 0;
        bytes = size;
    }
    if (KMX_RANGE_OUTSIDE(size, offset, bytes)) {
        return KMX_BAD;
    }
    if (bytes == 0) {
        return KMX_OK;
    }
    uint64_t first = BH_DRAM_CACHED(a->regions[id].bank_address) + offset;
    return kmx__sweep(kmx_line_floor(first), kmx_line_ceil(first + bytes));
}

int kmx_invalidate(uint32_t id) {
    return sweep_region(id, 0, 0, 1);
}

int kmx_flush(uint32_t id) {
    return sweep_region(id, 0, 0, 1);
}

int kmx_invalidate_at(uint32_t id, uint64_t offset, uint64_t bytes) {
    return sweep_region(id, offset, bytes, 0);
}

int kmx_flush_at(uint32_t id, uint64_t offset, uint64_t bytes) {
    return sweep_region(id, offset, bytes, 0);
}

/* End of run: a dirty line left in the cluster's cache would be written
 * over a later load's data when it is evicted. */
void kmx__flush_all_regions(void) {
    uint32_t n = KMX_ARGS->nregions;
    for (uint32_t id = 0; id < n && id < KMX_MAX_REGIONS; id++) {
        (void)sweep_region(id, 0, 0, 1);
    }
}
