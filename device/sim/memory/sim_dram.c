/* sim_dram.c: sparse banks (sim_dram.h). */
#include "sim_dram.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

_Static_assert(SIM_DRAM_PAGE_BYTES % BH_LINE_BYTES == 0, "a line never spans two pages");
_Static_assert(BH_BANK_BYTES % SIM_DRAM_PAGE_BYTES == 0, "a bank is whole pages");

void sim_dram_init(sim_dram *d)
{
    memset(d, 0, sizeof *d);
}

static bool is_lent(const sim_dram *d, unsigned bank, uint64_t page)
{
    return d->lent[bank] != NULL && (d->lent[bank][page / 64] >> (page % 64) & 1u) != 0;
}

void sim_dram_free(sim_dram *d)
{
    for (unsigned b = 0; b < BH_DRAM_BANKS; b++) {
        if (d->pages[b] == NULL) {
            continue;
        }
        for (uint64_t p = 0; p < SIM_DRAM_PAGES_PER_BANK; p++) {
            if (d->pages[b][p] != NULL && !is_lent(d, b, p)) {
                munmap(d->pages[b][p], SIM_DRAM_PAGE_BYTES);
            }
        }
        free(d->pages[b]);
        free(d->lent[b]);
    }
    memset(d, 0, sizeof *d);
}

/* The page holding addr, or NULL when it was never written. */
static const uint8_t *page_or_null(const sim_dram *d, unsigned bank, uint64_t addr)
{
    uint8_t **table = d->pages[bank];
    return table != NULL ? table[addr / SIM_DRAM_PAGE_BYTES] : NULL;
}

/* Whether page p of bank lies wholly inside a backed range: then *slot
 * is its place there, lent. */
static bool backed(sim_dram *d, unsigned bank, uint64_t p, uint8_t **slot)
{
    uint64_t from = p * SIM_DRAM_PAGE_BYTES, to = from + SIM_DRAM_PAGE_BYTES;
    for (unsigned i = 0; i < d->nbackings; i++) {
        const sim_dram_backing *b = &d->backings[i];
        if (b->bank != bank || from < b->addr || to > b->addr + b->n) {
            continue;
        }
        if (d->lent[bank] == NULL) {
            d->lent[bank] = calloc(SIM_DRAM_PAGES_PER_BANK / 64, sizeof *d->lent[bank]);
            if (d->lent[bank] == NULL) {
                return false; /* the page gets memory of its own */
            }
        }
        d->lent[bank][p / 64] |= 1ull << (p % 64);
        *slot = b->dst + (from - b->addr);
        return true;
    }
    return false;
}

/* The page holding addr, allocated (zeroed) if needed; NULL when out of
 * memory. */
static uint8_t *page_for_write(sim_dram *d, unsigned bank, uint64_t addr)
{
    if (d->pages[bank] == NULL) {
        d->pages[bank] = calloc(SIM_DRAM_PAGES_PER_BANK, sizeof *d->pages[bank]);
        if (d->pages[bank] == NULL) {
            return NULL;
        }
    }
    uint64_t p = addr / SIM_DRAM_PAGE_BYTES;
    uint8_t **slot = &d->pages[bank][p];
    if (*slot == NULL && backed(d, bank, p, slot)) {
        return *slot;
    }
    if (*slot == NULL) {
        /* Mapped, not from the heap: zeros whose host pages come on first
         * touch, and go back to the system when the page is freed or
         * moved (a freed heap block would stay in the process). */
        void *page = mmap(NULL, SIM_DRAM_PAGE_BYTES, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (page == MAP_FAILED) {
            return NULL;
        }
        *slot = page;
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

/* Sets bits [from >> shift, (to - 1) >> shift] of data. */
static void mark_data(uint64_t *data, unsigned shift, uint64_t from, uint64_t to)
{
    for (uint64_t k = from >> shift; k <= (to - 1) >> shift; k++) {
        data[k / 64] |= 1ull << (k % 64);
    }
}

int sim_dram_move(sim_dram *d, unsigned bank, uint64_t addr, uint64_t n, uint8_t *dst,
                  bool lend, uint64_t *data, unsigned shift, ks_error *err)
{
    int status = check_range(bank, addr, n, "move", err);
    if (status != KS_OK || n == 0 || d->pages[bank] == NULL) {
        return status; /* a bank never written: dst's zeros are its bytes */
    }
    if (lend && d->lent[bank] == NULL) {
        d->lent[bank] = calloc(SIM_DRAM_PAGES_PER_BANK / 64, sizeof *d->lent[bank]);
        if (d->lent[bank] == NULL) {
            return ks_fail(err, KS_ERR_SYSTEM, "out of memory for DRAM bank %u's page table",
                           bank);
        }
    }
    uint64_t end = addr + n;
    for (uint64_t p = addr / SIM_DRAM_PAGE_BYTES; p * SIM_DRAM_PAGE_BYTES < end; p++) {
        uint8_t *page = d->pages[bank][p];
        if (page == NULL) {
            continue;
        }
        uint64_t from = p * SIM_DRAM_PAGE_BYTES, to = from + SIM_DRAM_PAGE_BYTES;
        uint64_t lo = from > addr ? from : addr, hi = to < end ? to : end;
        if (data != NULL) {
            mark_data(data, shift, lo - addr, hi - addr);
        }
        bool whole = lend && lo == from && hi == to, own = !is_lent(d, bank, p);
        uint8_t *at = dst + (lo - addr);
        if (page + (lo - from) == at) {
            continue; /* backed by dst (sim_dram_back): its bytes are there */
        }
        /* The card's own page wholly inside, where dst's pages line up:
         * the host pages themselves move (no copy, nothing touched). */
        if (whole && own && (uintptr_t)at % (uintptr_t)sysconf(_SC_PAGESIZE) == 0 &&
            mremap(page, SIM_DRAM_PAGE_BYTES, SIM_DRAM_PAGE_BYTES, MREMAP_MAYMOVE | MREMAP_FIXED,
                   at) != MAP_FAILED) {
            own = false;
        } else {
            memcpy(at, page + (lo - from), hi - lo);
        }
        if (whole) { /* its bytes live in dst now */
            if (own) {
                munmap(page, SIM_DRAM_PAGE_BYTES);
            }
            if (!is_lent(d, bank, p)) {
                d->pages_allocated--;
                d->lent[bank][p / 64] |= 1ull << (p % 64);
            }
            d->pages[bank][p] = at;
        }
    }
    return KS_OK;
}

int sim_dram_back(sim_dram *d, unsigned bank, uint64_t addr, uint64_t n, uint8_t *dst)
{
    if (d->nbackings == SIM_DRAM_MAX_BACKINGS || bank >= BH_DRAM_BANKS ||
        addr > BH_BANK_BYTES || n > BH_BANK_BYTES - addr) {
        return -1;
    }
    d->backings[d->nbackings++] = (sim_dram_backing){.bank = bank, .addr = addr, .n = n, .dst = dst};
    return 0;
}
