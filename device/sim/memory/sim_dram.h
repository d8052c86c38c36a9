/* sim_dram: the card's eight GDDR6 banks of 4 GiB (BH_DRAM_BANKS,
 * BH_BANK_BYTES), sparse.
 *
 * A bank is a table of 64 KiB pages allocated on the first write that
 * touches them; reading a page never written returns zeros and allocates
 * nothing, so a card costs host memory only for what a run wrote.
 *
 * Who writes here, and what it does to the clusters:
 *   - sim_dram_write: the host (the loader, initial region contents) and
 *     NoC writes.  It reaches DRAM without passing through any cluster's
 *     cache: a line a cluster has cached keeps its old bytes until the
 *     cluster drops it (FLUSH64), and a dirty cached line written back
 *     later overwrites these bytes.  Every watcher of the bank is told
 *     (sim_dram_watch), so that a cluster clears its cores' LR/SC
 *     reservations on those lines.
 *   - sim_dram_write_as: the same for a core's store through its
 *     cluster's uncached window (`writer` keeps its own reservation).
 *   - sim_dram_read_line / sim_dram_write_line: a cluster cache's fills
 *     and write-backs.  They touch no reservation: the lines they move
 *     are the cache's own.
 * The bytes take no time here; what a request waits for its bank is the
 * bank's queue (sim_bank.h), one per bank, kept here so that every
 * requester on the card books the same one (sim_dram_bank). */
#ifndef SIM_DRAM_H
#define SIM_DRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ks_error.h"
#include "blackhole.h"
#include "sim_bank.h"

#define SIM_DRAM_PAGE_BYTES (64u * 1024u)
#define SIM_DRAM_PAGES_PER_BANK (BH_BANK_BYTES / SIM_DRAM_PAGE_BYTES)
#define SIM_DRAM_MAX_BACKINGS 64 /* KMX_MAX_REGIONS a cluster, the four */
#define SIM_DRAM_MAX_WATCHERS 16 /* a cluster each (four), the checker's eight */

/* Called after bytes [addr, addr + n) of `bank` changed by a write that
 * bypassed the caches; `writer` is the core that stored (a struct
 * sim_hart *), NULL for the host and the NoC. */
typedef void (*sim_dram_watch_fn)(void *ctx, unsigned bank, uint64_t addr, uint64_t n,
                                  const void *writer);

typedef struct sim_dram_watcher {
    unsigned bank;
    sim_dram_watch_fn fn;
    void *ctx;
} sim_dram_watcher;

/* Host memory that holds a range of a bank (sim_dram_back). */
typedef struct sim_dram_backing {
    unsigned bank;
    uint64_t addr, n;
    uint8_t *dst;
} sim_dram_backing;

typedef struct sim_dram {
    /* pages[bank]: NULL until the bank's first write, then
     * SIM_DRAM_PAGES_PER_BANK page pointers, each NULL until written. */
    uint8_t **pages[BH_DRAM_BANKS];
    /* lent[bank]: with pages[bank], a bit a page, set when the page's
     * bytes live in memory sim_dram_move gave it (not the card's to free). */
    uint64_t *lent[BH_DRAM_BANKS];
    uint64_t pages_allocated; /* over all banks: the card's own, lent ones not */
    sim_dram_backing backings[SIM_DRAM_MAX_BACKINGS];
    unsigned nbackings;
    sim_dram_watcher watchers[SIM_DRAM_MAX_WATCHERS];
    unsigned nwatchers;
    sim_bank queues[BH_DRAM_BANKS]; /* each bank's service queue */
} sim_dram;

/* An empty card: every byte zero, nothing allocated, every bank idle. */
void sim_dram_init(sim_dram *d);
void sim_dram_free(sim_dram *d);

/* Host reads and writes of n bytes at `addr` of `bank`, any alignment.
 * KS_OK; KS_ERR_BUG when the range is not inside a bank (a caller's
 * bug: the message names bank, address and length); KS_ERR_SYSTEM when a
 * page cannot be allocated (what was written before it stays). */
int sim_dram_read(const sim_dram *d, unsigned bank, uint64_t addr, void *dst, uint64_t n,
                  ks_error *err);
int sim_dram_write(sim_dram *d, unsigned bank, uint64_t addr, const void *src, uint64_t n,
                   ks_error *err);
int sim_dram_write_as(sim_dram *d, unsigned bank, uint64_t addr, const void *src, uint64_t n,
                      const void *writer, ks_error *err);

/* One 64-byte line (addr a multiple of BH_LINE_BYTES inside the bank:
 * the caller guarantees it).  write_line returns 0, or -1 when the page
 * cannot be allocated. */
void sim_dram_read_line(const sim_dram *d, unsigned bank, uint64_t addr, void *dst);
int sim_dram_write_line(sim_dram *d, unsigned bank, uint64_t addr, const void *src);

/* Copies bytes [addr, addr + n) of `bank` into dst, n bytes of zeros the
 * caller owns (fresh anonymous memory, whose pages cost nothing until
 * written), touching only what the card wrote.  With `lend`, dst holds
 * them from then on, so that a stopped card's region is in host memory
 * once:
 *   - a written page wholly inside the range is copied into dst and
 *     freed; the card reads and writes its bytes in dst after (a page
 *     already lent by an earlier move is copied and lent to dst instead);
 *   - a written page the range cuts is copied, and stays the card's;
 *   - a page never written is not touched, here or in dst.
 * dst must outlive the card's use of those bytes (sim_dram_free never
 * frees it).  When `data` is not NULL, bit k of it (the caller cleared
 * it) is set when dst's bytes [k << shift, (k + 1) << shift) may hold a
 * byte other than zero: the pages copied.  KS_ERR_BUG for a range outside
 * the bank; KS_ERR_SYSTEM when the lent-page table cannot be allocated. */
int sim_dram_move(sim_dram *d, unsigned bank, uint64_t addr, uint64_t n, uint8_t *dst,
                  bool lend, uint64_t *data, unsigned shift, ks_error *err);

/* Gives the bank's bytes [addr, addr + n) a home before they are written:
 * dst, n bytes of zeros the caller owns (fresh anonymous memory) and keeps
 * until sim_dram_free.  A page wholly inside the range is, from its first
 * write on, its bytes in dst (lent, as sim_dram_move lends it), so that
 * sim_dram_move into the same dst later copies nothing.  Pages written
 * before keep their own memory.  0, or -1 when SIM_DRAM_MAX_BACKINGS
 * ranges are backed (the range is then not: nothing is lost but the
 * saving). */
int sim_dram_back(sim_dram *d, unsigned bank, uint64_t addr, uint64_t n, uint8_t *dst);

/* Tells fn about every write to `bank` that bypasses the caches.  0, or -1
 * when SIM_DRAM_MAX_WATCHERS are registered.  unwatch removes the
 * registration with the same fn and ctx. */
int sim_dram_watch(sim_dram *d, unsigned bank, sim_dram_watch_fn fn, void *ctx);
void sim_dram_unwatch(sim_dram *d, sim_dram_watch_fn fn, void *ctx);

/* A request of `bytes` at `address` of `bank` (< BH_DRAM_BANKS: the
 * caller checks) reaching the bank at now_ps: the time the bank has served
 * it (sim_bank_serve). */
static inline uint64_t sim_dram_bank(sim_dram *d, unsigned bank, uint64_t address,
                                     uint64_t bytes, uint64_t now_ps)
{
    return sim_bank_serve(&d->queues[bank], now_ps, sim_bank_lines(address, bytes));
}

#endif
