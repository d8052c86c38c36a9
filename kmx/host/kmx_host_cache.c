/* kmx_host_cache.c: regions changing hands on the host (the card's
 * kmx_cache.c).  The card sweeps the range's 64-byte lines; here the same
 * lines go to kmrun as one call: ctx->flush writes the copy's changed
 * lines to the card's DRAM, ctx->invalidate does that and reloads them.
 * Offsets are from the region's start, which is a whole line on the card
 * (start-up checks it), so the lines are the card's: the range widened
 * outwards to multiples of 64 (which may pass the end of a region whose
 * size is not a multiple of 64, as the card's last line does).  An empty
 * range calls nothing; a bad id or a range leaving the region is KMX_BAD
 * and calls nothing.  Any core may call them. */
#include "kmx_host_internal.h"

static int sweep_region(uint32_t id, uint64_t offset, uint64_t bytes, int whole, int invalidate) {
    uint64_t size;
    if (kmx_region(id, &size) == NULL) {
        return KMX_BAD;
    }
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
    uint64_t begin = kmx_line_floor(offset);
    uint64_t end = kmx_line_ceil(offset + bytes);
    const kmx_host_ctx *ctx = kmx_host.ctx;
    if (invalidate) {
        ctx->invalidate(ctx->ops, id, begin, end - begin);
    } else {
        ctx->flush(ctx->ops, id, begin, end - begin);
    }
    return KMX_OK;
}

int kmx_invalidate(uint32_t id) {
    return sweep_region(id, 0, 0, 1, 1);
}

int kmx_flush(uint32_t id) {
    return sweep_region(id, 0, 0, 1, 0);
}

int kmx_invalidate_at(uint32_t id, uint64_t offset, uint64_t bytes) {
    return sweep_region(id, offset, bytes, 0, 1);
}

int kmx_flush_at(uint32_t id, uint64_t offset, uint64_t bytes) {
    return sweep_region(id, offset, bytes, 0, 0);
}

/* The end of the run: every region, as the card's start.c does (a dirty
 * line left in the copy would otherwise never reach the card's DRAM). */
void kmx_host_flush_all_regions(void) {
    uint32_t n = kmx_host.ctx->args->nregions;
    for (uint32_t id = 0; id < n && id < KMX_MAX_REGIONS; id++) {
        (void)sweep_region(id, 0, 0, 1, 0);
    }
}
