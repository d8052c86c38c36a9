/* hart_rig: the bench a bare hart's tests run it on (sim_hart_test,
 * sim_vec_test): code RAM at RIG_CODE_BASE (no latency), data RAM at
 * RIG_DATA_BASE (RIG_DATA_LATENCY cycles an access), and a device at
 * RIG_DEV_BASE of `dev_size` bytes (at most RIG_DEV_MAX), every access
 * RIG_DEV_LATENCY cycles, that keeps its bytes, counts its loads and
 * stores, logs its writes in order, halts the hart on a store to
 * RIG_DEV_HALT and, when the rig has a timer, answers an 8-byte load of
 * RIG_DEV_MTIME with mtime (`mtime` + cycle / 10).  Its optional store_bytes (rig_store_bytes)
 * takes a vector store as one write, RIG_DEV_LATENCY plus RIG_DEV_LINE a
 * line after the first.  Programs are assembled at test time
 * (rv_assemble.h).  cmocka must be included first. */
#ifndef HART_RIG_H
#define HART_RIG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim_hart.h"
#include "sim_mem.h"

#define RIG_CODE_BASE 0x80000000ull
#define RIG_CODE_SIZE 0x3000u
#define RIG_DATA_BASE 0x80100000ull
#define RIG_DATA_SIZE 0x1000u
#define RIG_DATA_LATENCY 5u
#define RIG_DEV_BASE 0x10000000ull
#define RIG_DEV_MAX 128u
#define RIG_DEV_LATENCY 7u
#define RIG_DEV_LINE 3u
#define RIG_DEV_MTIME (RIG_DEV_BASE + 48)
#define RIG_DEV_HALT (RIG_DEV_BASE + 56)
#define RIG_LOG_MAX 64u
#define RIG_CACHE_LINES 2u /* a cached window's lines, for a test to map */

typedef struct rig {
    sim_mem mem;
    sim_hart h, other;
    uint8_t code[RIG_CODE_SIZE];
    uint8_t data[RIG_DATA_SIZE];
    uint8_t dev[RIG_DEV_MAX];
    unsigned dev_size;
    unsigned dev_loads, dev_stores, watch_calls;
    uint64_t mtime;
    /* A cached window a test may map over the device (sim_mem_cached):
     * its tags, lines and hit counter; with dev_hits the device's
     * accesses count a hit each there too, as a cluster's callbacks do. */
    uint64_t tag[RIG_CACHE_LINES], hits;
    uint8_t lines[RIG_CACHE_LINES][64];
    bool dev_hits;
    /* The device's writes in order: address, bytes, and whether it was
     * one store_bytes write. */
    struct {
        uint64_t addr, n;
        bool one;
    } log[RIG_LOG_MAX];
    unsigned nlog;
} rig;

static inline bool rig_dev_has(const rig *r, uint64_t addr, uint64_t n)
{
    return addr >= RIG_DEV_BASE && addr - RIG_DEV_BASE + n <= r->dev_size;
}

static inline void rig_log(rig *r, uint64_t addr, uint64_t n, bool one)
{
    if (r->nlog < RIG_LOG_MAX) {
        r->log[r->nlog].addr = addr;
        r->log[r->nlog].n = n;
        r->log[r->nlog].one = one;
    }
    r->nlog++;
}

static inline int rig_dev_load(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size,
                               uint64_t *value)
{
    rig *r = m->ctx;
    if (!rig_dev_has(r, addr, size))
        return SIM_CAUSE_LOAD_ACCESS;
    if (m->mtime && addr == RIG_DEV_MTIME && size == 8) { /* as sim_mem promises */
        *value = m->mtime(m, h);
        h->cycle += RIG_DEV_LATENCY;
        return 0;
    }
    uint64_t v = 0;
    memcpy(&v, r->dev + (addr - RIG_DEV_BASE), size);
    *value = v;
    h->cycle += RIG_DEV_LATENCY;
    r->dev_loads++;
    r->hits += r->dev_hits;
    return 0;
}

static inline int rig_dev_store(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size,
                                uint64_t value)
{
    rig *r = m->ctx;
    if (!rig_dev_has(r, addr, size))
        return SIM_CAUSE_STORE_ACCESS;
    memcpy(r->dev + (addr - RIG_DEV_BASE), &value, size);
    h->cycle += RIG_DEV_LATENCY;
    r->dev_stores++;
    r->hits += r->dev_hits;
    rig_log(r, addr, size, false);
    if (addr == RIG_DEV_HALT)
        sim_hart_halt(h);
    return 0;
}

/* store_bytes for the device: one write of all n bytes; not one
 * (SIM_MEM_NOT_ONE) past its end. */
static inline int rig_store_bytes(sim_mem *m, sim_hart *h, uint64_t addr, const uint8_t *src,
                                  uint64_t n)
{
    rig *r = m->ctx;
    if (!rig_dev_has(r, addr, n))
        return SIM_MEM_NOT_ONE;
    memcpy(r->dev + (addr - RIG_DEV_BASE), src, n);
    h->cycle += RIG_DEV_LATENCY + RIG_DEV_LINE * (((addr + n - 1) >> 6) - (addr >> 6));
    rig_log(r, addr, n, true);
    return 0;
}

static inline uint64_t rig_mtime(sim_mem *m, sim_hart *h)
{
    rig *r = m->ctx;
    return r->mtime + h->cycle / 10;
}

/* r's memory map, its device `dev_size` bytes (no store_bytes), mtime
 * at RIG_DEV_MTIME or (not `timer`) none. */
static inline void rig_init_mem(rig *r, unsigned dev_size, bool timer)
{
    memset(&r->mem, 0, sizeof r->mem);
    r->mem.ram[0] = (sim_ram){RIG_CODE_BASE, RIG_CODE_SIZE, r->code, 0};
    r->mem.ram[1] = (sim_ram){RIG_DATA_BASE, RIG_DATA_SIZE, r->data, RIG_DATA_LATENCY};
    r->mem.nram = 2;
    r->mem.load = rig_dev_load;
    r->mem.store = rig_dev_store;
    if (timer) {
        r->mem.mtime = rig_mtime;
        r->mem.mtime_addr = RIG_DEV_MTIME;
        r->mem.mtime_latency = RIG_DEV_LATENCY;
    }
    r->mem.ctx = r;
    r->dev_size = dev_size;
    r->mtime = 1000;
}

#endif
