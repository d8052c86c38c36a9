/* sim_dram.c: sparse banks (sim_dram.h). */
#include "sim_dram.h"

#include <stdlib.h>
#include <string.h>

#include "ks_mem.h"

#define CHUNK_BYTES ((size_t)SIM_DRAM_CHUNK_PAGES * SIM_DRAM_PAGE_BYTES)

_Static_assert(SIM_DRAM_PAGE_BYTES % BH_LINE_BYTES == 0, "a line never spans two pages");
_Static_assert(BH_BANK_BYTES % SIM_DRAM_PAGE_BYTES == 0, "a bank is whole pages");

void sim_dram_init(sim_dram *d)
{
    memset(d, 0, sizeof *d);
}

void sim_dram_free(sim_dram *d)
{
    for (unsigned b = 0; b < BH_DRAM_BANKS; b++) {
        if (d->pages[b] == NULL) {
            continue;
        }
        free(d->pages[b]);
    }
    for (size_t i = 0; i < d->nchunks; i++)
        ks_mem_free(d->chunks[i], CHUNK_BYTES);
    free(d->chunks);
    memset(d, 0, sizeof *d);
}

/* The page holding addr, or NULL when it was never written. */
static const uint8_t *page_or_null(const sim_dram *d, unsigned bank, uint64_t addr)
{
    uint8_t **table = d->pages[bank];
    return table != NULL ? table[addr / SIM_DRAM_PAGE_BYTES] : NULL;
}

/* The page holding addr, allocated (zeroed) if needed; NULL when out of
 * memory. */
/* A zero page, the next of the last chunk (a new chunk when it has none
 * left); NULL when out of memory. */
static uint8_t *new_page(sim_dram *d)
{
    if (d->chunk_left == 0) {
        if (d->nchunks == d->chunks_cap) {
            size_t cap = d->chunks_cap ? 2 * d->chunks_cap : 16;
            uint8_t **more = realloc(d->chunks, cap * sizeof *more);
            if (more == NULL) {
                return NULL;
            }
            d->chunks = more;
            d->chunks_cap = cap;
        }
        uint8_t *chunk = ks_mem_alloc(CHUNK_BYTES);
        if (chunk == NULL) {
            return NULL;
        }
        d->chunks[d->nchunks++] = chunk;
        d->chunk_left = SIM_DRAM_CHUNK_PAGES;
    }
    return d->chunks[d->nchunks - 1] +
           (size_t)(SIM_DRAM_CHUNK_PAGES - d->chunk_left--) * SIM_DRAM_PAGE_BYTES;
}

static uint8_t *page_for_write(sim_dram *d, unsigned bank, uint64_t addr)
{
    if (d->pages[bank] == NULL) {
        d->pages[bank] = calloc(SIM_DRAM_PAGES_PER_BANK, sizeof *d->pages[bank]);
        if (d->pages[bank] == NULL) {
            return NULL;
        }
    }
    uint8_t **slot = &d->pages[bank][addr / SIM_DRAM_PAGE_BYTES];
    if (*slot == NULL) {
        *slot = new_page(d);
        if (*slot == NULL) {
            return NULL;
        }
        d->pages_allocated++;
    }
    return *slot;
}

static int check_range(unsigned bank, uint64_t addr, uint64_t n, const char *what,
                       ks_error *err)
{
    if (bank >= BH_DRAM_BANKS || addr > BH_BANK_BYTES || n > BH_BANK_BYTES - addr) {
        return ks_fail(err, KS_ERR_BUG,
                       "DRAM %s of %llu bytes at bank %u address 0x%llx: outside the "
                       "card's %u banks of 4 GiB",
                       what, (unsigned long long)n, bank, (unsigned long long)addr,
                       BH_DRAM_BANKS);
    }
    return KS_OK;
}

int sim_dram_read(const sim_dram *d, unsigned bank, uint64_t addr, void *dst, uint64_t n,
                  ks_error *err)
{
    int status = check_range(bank, addr, n, "read", err);
    if (status != KS_OK) {
        return status;
    }
    uint8_t *out = dst;
    while (n > 0) {
        uint64_t in_page = addr % SIM_DRAM_PAGE_BYTES;
        uint64_t chunk = SIM_DRAM_PAGE_BYTES - in_page;
        if (chunk > n) {
            chunk = n;
        }
        const uint8_t *page = page_or_null(d, bank, addr);
        if (page != NULL) {
            memcpy(out, page + in_page, chunk);
        } else {
            memset(out, 0, chunk);
        }
        out += chunk;
        addr += chunk;
        n -= chunk;
    }
    return KS_OK;
}

static void notify(const sim_dram *d, unsigned bank, uint64_t addr, uint64_t n,
                   const void *writer)
{
    for (unsigned i = 0; i < d->nwatchers; i++) {
        const sim_dram_watcher *w = &d->watchers[i];
        if (w->bank == bank) {
            w->fn(w->ctx, bank, addr, n, writer);
        }
    }
}

int sim_dram_write_as(sim_dram *d, unsigned bank, uint64_t addr, const void *src, uint64_t n,
                      const void *writer, ks_error *err)
{
    int status = check_range(bank, addr, n, "write", err);
    if (status != KS_OK) {
        return status;
    }
    /* A core's word (uncached or NoC stores: 1 to 8 bytes, aligned, so
     * inside one page) into a page that exists: fixed-size copies, not a
     * memcpy of a variable size. */
    uint8_t **table = d->pages[bank];
    uint8_t *word_page = table != NULL ? table[addr / SIM_DRAM_PAGE_BYTES] : NULL;
    if (word_page != NULL && n != 0 && n <= 8 && (n & (n - 1)) == 0 && (addr & (n - 1)) == 0) {
        uint8_t *p = word_page + addr % SIM_DRAM_PAGE_BYTES;
        switch (n) {
        case 1: memcpy(p, src, 1); break;
        case 2: memcpy(p, src, 2); break;
        case 4: memcpy(p, src, 4); break;
        default: memcpy(p, src, 8); break;
        }
        notify(d, bank, addr, n, writer);
        return KS_OK;
    }
    const uint8_t *in = src;
    uint64_t start = addr, done = 0;
    while (done < n) {
        uint64_t in_page = addr % SIM_DRAM_PAGE_BYTES;
        uint64_t chunk = SIM_DRAM_PAGE_BYTES - in_page;
        if (chunk > n - done) {
            chunk = n - done;
        }
        uint8_t *page = page_for_write(d, bank, addr);
        if (page == NULL) {
            /* What landed so far is real: say so before failing. */
            if (done > 0) {
                notify(d, bank, start, done, writer);
            }
            return ks_fail(err, KS_ERR_SYSTEM,
                           "out of memory for a 64 KiB page of DRAM bank %u at 0x%llx", bank,
                           (unsigned long long)(addr - in_page));
        }
        memcpy(page + in_page, in + done, chunk);
        addr += chunk;
        done += chunk;
    }
    if (n > 0) {
        notify(d, bank, start, n, writer);
    }
    return KS_OK;
}

int sim_dram_write(sim_dram *d, unsigned bank, uint64_t addr, const void *src, uint64_t n,
                   ks_error *err)
{
    return sim_dram_write_as(d, bank, addr, src, n, NULL, err);
}

void sim_dram_read_line(const sim_dram *d, unsigned bank, uint64_t addr, void *dst)
{
    const uint8_t *page = page_or_null(d, bank, addr);
    if (page != NULL) {
        memcpy(dst, page + addr % SIM_DRAM_PAGE_BYTES, BH_LINE_BYTES);
    } else {
        memset(dst, 0, BH_LINE_BYTES);
    }
}

int sim_dram_write_line(sim_dram *d, unsigned bank, uint64_t addr, const void *src)
{
    uint8_t *page = page_for_write(d, bank, addr);
    if (page == NULL) {
        return -1;
    }
    memcpy(page + addr % SIM_DRAM_PAGE_BYTES, src, BH_LINE_BYTES);
    return 0;
}

int sim_dram_watch(sim_dram *d, unsigned bank, sim_dram_watch_fn fn, void *ctx)
{
    if (d->nwatchers == SIM_DRAM_MAX_WATCHERS) {
        return -1;
    }
    d->watchers[d->nwatchers++] = (sim_dram_watcher){.bank = bank, .fn = fn, .ctx = ctx};
    return 0;
}

void sim_dram_unwatch(sim_dram *d, sim_dram_watch_fn fn, void *ctx)
{
    unsigned kept = 0;
    for (unsigned i = 0; i < d->nwatchers; i++) {
        if (d->watchers[i].fn != fn || d->watchers[i].ctx != ctx) {
            d->watchers[kept++] = d->watchers[i];
        }
    }
    d->nwatchers = kept;
}
