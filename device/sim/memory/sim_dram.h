/* sim_dram: the card's eight GDDR6 banks of 4 GiB (BH_DRAM_BANKS,
 * BH_BANK_BYTES), sparse.
 *
 * A bank is a table of 64 KiB pages allocated on the first write that
 * touches them; reading a page never written returns zeros and allocates
 * nothing, so a card costs host memory only for what a run wrote (give or
 * take a chunk: pages are cut, in the order they are first written, from
 * chunks of SIM_DRAM_CHUNK_PAGES mapped at once, ks_mem.h, so that a run
 * filling megabytes does not take a page fault every 4 KiB).
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

#include <stddef.h>
#include <stdint.h>

#include "ks_error.h"
#include "blackhole.h"
#include "sim_bank.h"

#define SIM_DRAM_PAGE_BYTES (64u * 1024u)
#define SIM_DRAM_PAGES_PER_BANK (BH_BANK_BYTES / SIM_DRAM_PAGE_BYTES)
#define SIM_DRAM_CHUNK_PAGES 32u /* 2 MiB: pages are cut from chunks of this many */
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

typedef struct sim_dram {
    /* pages[bank]: NULL until the bank's first write, then
     * SIM_DRAM_PAGES_PER_BANK page pointers, each NULL until written. */
    uint8_t **pages[BH_DRAM_BANKS];
    uint64_t pages_allocated; /* over all banks */
    /* Where pages come from: chunks[nchunks - 1] has chunk_left pages not
     * yet given, at its end. */
    uint8_t **chunks;
    size_t nchunks, chunks_cap;
    unsigned chunk_left;
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
