/* sim_cache: a cluster's cache of its DRAM bank — the values, not the time.
 *
 * What it models.  On the card a cluster's cores reach their bank through
 * L1D (32 KiB, per core), L2 (128 KiB, per core) and the shared L3, of
 * which the runtime leaves one 128 KiB way as cache (BH_L3_WAY_BYTES; the
 * other fifteen are LIM).  The four cores are coherent with each other, so
 * what a core reads is the cluster's newest value whichever level holds
 * it; what the rest of the card sees is DRAM, which changes only when a
 * line leaves the cluster.  One cache per cluster therefore gives the
 * values of the whole hierarchy, as long as it holds every line the
 * cluster holds: this one is that last level, inclusive of the per-core
 * levels (not modeled separately; their speed is in the hit latency).
 *
 * Geometry: 2048 lines of 64 bytes (BH_L3_WAY_BYTES / BH_LINE_BYTES),
 * direct-mapped on bank address bits 16..6.  One way of a 16-way L3 with
 * 2048 sets *is* a direct-mapped cache: two lines 128 KiB apart (the
 * spec's "arrays placed off each other's 128 KiB cache way") take the
 * same place and evict each other.  BH_DRAM_CACHED_BASE is a multiple of
 * the way, so the core's address and the bank address pick the same line.
 *
 * Policy: write-allocate, write-back.  A miss writes the line it replaces
 * back first if dirty, then fills from DRAM; a store marks the line
 * dirty.  DRAM sees a store only when its line is written back: by an
 * eviction or by sim_cache_flush (the FLUSH64 register: write back if
 * dirty, then drop).  Writes that bypass the cache (sim_dram_write) do
 * not touch it, so a cached line keeps serving old bytes until dropped,
 * and a dirty line written back later overwrites newer DRAM bytes — the
 * card's hazards, on purpose.
 *
 * Addresses are bank addresses (0 .. BH_BANK_BYTES); accesses are 1, 2,
 * 4 or 8 bytes, naturally aligned (never across a line). */
#ifndef SIM_CACHE_H
#define SIM_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "blackhole.h"
#include "sim_dram.h"
#include "sim_mem.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sim_cache copies little-endian values as the host holds them"
#endif

#define SIM_CACHE_LINES (BH_L3_WAY_BYTES / BH_LINE_BYTES)
_Static_assert(SIM_CACHE_LINES == 2048u, "the 128 KiB way holds 2048 lines");
_Static_assert((SIM_CACHE_LINES & (SIM_CACHE_LINES - 1u)) == 0, "index by a mask");

/* A line's state, in the low bits of its tag (line addresses are
 * multiples of 64, so those bits are free). */
#define SIM_CACHE_VALID 1u
#define SIM_CACHE_DIRTY 2u
#define SIM_CACHE_STATE_BITS (BH_LINE_BYTES - 1u)

/* What an access did (or'ed; 0: a hit). */
#define SIM_CACHE_MISSED 1u     /* the line was filled from DRAM */
#define SIM_CACHE_WROTE_BACK 2u /* a dirty line was written to DRAM */
#define SIM_CACHE_DROPPED 4u    /* flush: the line was cached and is gone */
#define SIM_CACHE_FAILED 8u     /* a write-back could not allocate host memory:
                                   nothing changed */

typedef struct sim_cache_stats {
    uint64_t hits, misses;
    uint64_t evictions;  /* dirty lines written back to make room */
    uint64_t flushes;    /* sim_cache_flush calls */
    uint64_t flushed_dirty;
} sim_cache_stats;

typedef struct sim_cache {
    sim_dram *dram;
    unsigned bank;
    /* tag[i]: bank address of the line in place i | SIM_CACHE_VALID |
     * SIM_CACHE_DIRTY; 0 when empty. */
    uint64_t tag[SIM_CACHE_LINES];
    uint8_t data[SIM_CACHE_LINES][BH_LINE_BYTES];
    sim_cache_stats stats;
} sim_cache;

/* An empty cache of `bank` of `dram`. */
void sim_cache_init(sim_cache *c, sim_dram *dram, unsigned bank);

/* Drops every line without writing anything back (a card reset: dirty
 * data is lost, as on the card). */
void sim_cache_reset(sim_cache *c);

static inline unsigned sim_cache_index(uint64_t addr)
{
    return (unsigned)(addr / BH_LINE_BYTES) & (SIM_CACHE_LINES - 1u);
}

static inline uint64_t sim_cache_line_of(uint64_t addr)
{
    return addr & ~(uint64_t)(BH_LINE_BYTES - 1u);
}

/* Whether place i holds the line of addr (valid, dirty or not): one
 * compare on the hit path. */
static inline bool sim_cache_holds(const sim_cache *c, unsigned i, uint64_t addr)
{
    return (c->tag[i] | SIM_CACHE_DIRTY) ==
           (sim_cache_line_of(addr) | SIM_CACHE_VALID | SIM_CACHE_DIRTY);
}

/* The miss path (sim_cache.c): makes place i hold the line of addr,
 * writing back what it held if dirty.  Returns SIM_CACHE_MISSED |
 * SIM_CACHE_WROTE_BACK, or SIM_CACHE_FAILED. */
unsigned sim_cache_fill(sim_cache *c, uint64_t addr);

/* A load of `size` bytes at addr, zero-extended into *value. */
static inline unsigned sim_cache_load(sim_cache *c, uint64_t addr, unsigned size,
                                      uint64_t *value)
{
    unsigned i = sim_cache_index(addr), did = 0;
    if (!sim_cache_holds(c, i, addr)) {
        did = sim_cache_fill(c, addr);
        if (did & SIM_CACHE_FAILED) {
            return did;
        }
    } else {
        c->stats.hits++;
    }
    *value = sim_mem_get(&c->data[i][addr % BH_LINE_BYTES], size);
    return did;
}

/* A store of the low `size` bytes of value at addr. */
static inline unsigned sim_cache_store(sim_cache *c, uint64_t addr, unsigned size,
                                       uint64_t value)
{
    unsigned i = sim_cache_index(addr), did = 0;
    if (!sim_cache_holds(c, i, addr)) {
        did = sim_cache_fill(c, addr);
        if (did & SIM_CACHE_FAILED) {
            return did;
        }
    } else {
        c->stats.hits++;
    }
    sim_mem_put(&c->data[i][addr % BH_LINE_BYTES], size, value);
    c->tag[i] |= SIM_CACHE_DIRTY;
    return did;
}

/* FLUSH64 on the line of addr: if cached and dirty, write it back; then
 * drop it.  Returns 0 (not cached), SIM_CACHE_DROPPED, SIM_CACHE_DROPPED |
 * SIM_CACHE_WROTE_BACK, or SIM_CACHE_FAILED (the line stays). */
unsigned sim_cache_flush(sim_cache *c, uint64_t addr);

/* The state of the line of addr: 0, SIM_CACHE_VALID, or SIM_CACHE_VALID |
 * SIM_CACHE_DIRTY. */
unsigned sim_cache_state(const sim_cache *c, uint64_t addr);

/* Copies n bytes at addr from the cache (not crossing its line) into dst
 * and returns true when the line is cached; false and nothing copied
 * otherwise.  For tests and diagnostics: it changes nothing. */
bool sim_cache_peek(const sim_cache *c, uint64_t addr, void *dst, unsigned n);

#endif
