/* sim_cache.c: the miss, flush and inspection paths of a cluster's cache
 * (sim_cache.h; the hit path is inline there). */
#include "sim_cache.h"

_Static_assert(BH_DRAM_CACHED_BASE % BH_L3_WAY_BYTES == 0,
               "a cached-window address and its bank address pick the same line");

void sim_cache_init(sim_cache *c, sim_dram *dram, unsigned bank)
{
    memset(c, 0, sizeof *c);
    c->dram = dram;
    c->bank = bank;
}

void sim_cache_reset(sim_cache *c)
{
    memset(c->tag, 0, sizeof c->tag);
}

unsigned sim_cache_fill(sim_cache *c, uint64_t addr)
{
    unsigned i = sim_cache_index(addr), did = SIM_CACHE_MISSED;
    uint64_t tag = c->tag[i];
    if ((tag & (SIM_CACHE_VALID | SIM_CACHE_DIRTY)) == (SIM_CACHE_VALID | SIM_CACHE_DIRTY)) {
        if (sim_dram_write_line(c->dram, c->bank, tag & ~(uint64_t)SIM_CACHE_STATE_BITS,
                                c->data[i]) != 0) {
            return SIM_CACHE_FAILED;
        }
        c->stats.evictions++;
        did |= SIM_CACHE_WROTE_BACK;
    }
    uint64_t line = sim_cache_line_of(addr);
    sim_dram_read_line(c->dram, c->bank, line, c->data[i]);
    c->tag[i] = line | SIM_CACHE_VALID;
    c->stats.misses++;
    return did;
}

unsigned sim_cache_flush(sim_cache *c, uint64_t addr)
{
    unsigned i = sim_cache_index(addr), did = 0;
    c->stats.flushes++;
    if (!sim_cache_holds(c, i, addr)) {
        return 0;
    }
    if (c->tag[i] & SIM_CACHE_DIRTY) {
        if (sim_dram_write_line(c->dram, c->bank, sim_cache_line_of(addr), c->data[i]) != 0) {
            return SIM_CACHE_FAILED;
        }
        c->stats.flushed_dirty++;
        did |= SIM_CACHE_WROTE_BACK;
    }
    c->tag[i] = 0;
    return did | SIM_CACHE_DROPPED;
}

unsigned sim_cache_state(const sim_cache *c, uint64_t addr)
{
    unsigned i = sim_cache_index(addr);
    if (!sim_cache_holds(c, i, addr)) {
        return 0;
    }
    return (unsigned)(c->tag[i] & (SIM_CACHE_VALID | SIM_CACHE_DIRTY));
}

bool sim_cache_peek(const sim_cache *c, uint64_t addr, void *dst, unsigned n)
{
    unsigned i = sim_cache_index(addr);
    if (!sim_cache_holds(c, i, addr) || addr % BH_LINE_BYTES + n > BH_LINE_BYTES) {
        return false;
    }
    memcpy(dst, &c->data[i][addr % BH_LINE_BYTES], n);
    return true;
}
