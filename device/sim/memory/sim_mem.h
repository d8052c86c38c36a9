/* sim_mem: what a hart's fetches, loads and stores reach — the memory map
 * of one hart, TinyEMU-style.  Plain memory (local memory, a test's RAM)
 * is a list of ranges the hart reads and writes through direct pointers:
 * the fast path.  Everything else (the cluster cache in front of DRAM,
 * the uncached DRAM window, CLINT, the flush register, NoC windows) is a
 * device behind the load/store callbacks: the slow path.
 *
 * Modeled time: every access adds its latency in cycles to the hart's
 * cycle count (h->cycle); a RAM range has a fixed latency per access, a
 * device adds its own inside its callback. */
#ifndef SIM_MEM_H
#define SIM_MEM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct sim_hart;

/* The `size` bytes (1, 2, 4 or 8) of memory at p as an access reads them
 * (little-endian, zero-extended), and a store of value's low `size` bytes
 * there: the one copy the hart, its slow paths and the cluster cache use.
 * Fixed-size copies: a memcpy of a variable size would be a call into the
 * C library on every access. */
static inline uint64_t sim_mem_get(const uint8_t *p, unsigned size)
{
    switch (size) {
    case 1: return *p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static inline void sim_mem_put(uint8_t *p, unsigned size, uint64_t value)
{
    switch (size) {
    case 1: *p = (uint8_t)value; break;
    case 2: {
        uint16_t v = (uint16_t)value;
        memcpy(p, &v, 2);
        break;
    }
    case 4: {
        uint32_t v = (uint32_t)value;
        memcpy(p, &v, 4);
        break;
    }
    default: memcpy(p, &value, 8); break;
    }
}

#define SIM_MEM_MAX_RAM 8
#define SIM_MEM_NOT_ONE (-1) /* store_bytes: take the element path */
/* h->vmem while a vector load or store makes its accesses through the
 * callbacks: a device may charge them as the vector unit's (the cluster
 * cache's misses: sim_timing.h MISS_VLOAD, MISS_VSTORE). */
#define SIM_MEM_VLOAD 1u
#define SIM_MEM_VSTORE 2u
#define SIM_MEM_MAX_HARTS 4

typedef struct sim_ram {
    uint64_t base, size;
    uint8_t *host;    /* base maps to host[0] */
    uint32_t latency; /* cycles per access (LIM: about 30 per word) */
} sim_ram;

/* A cached window a hart may serve inline on a hit, instead of calling
 * load/store (optional: a hart that ignores it gets the same values, the
 * same cycles and the same counts from the callbacks).  The cluster fills
 * it (sim_cluster_mem.c) while no hand-over checker is on; size 0 means
 * "no inline path": every access takes the callbacks.
 *
 * For an aligned access of 1, 2, 4 or 8 bytes at addr, a = addr - base:
 * it is an inline hit exactly when a < size and line i = (a >> 6) & mask
 * has (tag[i] | SIM_MEM_LINE_DIRTY) == ((a & ~63) | SIM_MEM_LINE_VALID |
 * SIM_MEM_LINE_DIRTY).  A hit must then do what the callback would:
 *   - load: the value is the `size` bytes at data + i * 64 + (a & 63),
 *     little-endian, zero-extended (the hart extends it as for the
 *     callback's value);
 *   - store: those bytes take the value's low `size` bytes, and
 *     tag[i] |= SIM_MEM_LINE_DIRTY;
 *   - both: ++*hits, and `latency` cycles added to h->cycle (they are
 *     memory cycles: h->mem_cycles too, as the callback's are);
 *   - a store also ends the other harts' reservations on the line
 *     (sim_mem_note_store(m, h, addr)), as after any callback store.
 * Anything else (a < size but another line there, or a >= size) takes
 * the callback, which also counts the hit or miss, fills, charges the
 * port and the streams.  sim_mem_cached_hit below is the test and the
 * bookkeeping in one; the hart adds the latency and does the reservation
 * part itself. */
#define SIM_MEM_LINE_VALID 1u
#define SIM_MEM_LINE_DIRTY 2u

typedef struct sim_mem_cached {
    uint64_t base, size;  /* core addresses [base, base + size); size 0: off */
    uint64_t *tag;        /* tag[i]: line address (a & ~63) | VALID | DIRTY, 0 when empty */
    uint8_t *data;        /* line i's 64 bytes at data + i * 64 */
    uint64_t *hits;       /* the hit counter of the run's stats, which the
                             callbacks count in too (a vector access takes
                             back the hits of its later elements within one
                             line: vec_mem.c) */
    uint32_t mask;        /* lines - 1 (a power of two) */
    uint32_t latency;     /* cycles of a hit */
} sim_mem_cached;

typedef struct sim_mem {
    sim_ram ram[SIM_MEM_MAX_RAM];
    unsigned nram;
    /* Anything that is not RAM.  Return 0, or the trap cause to raise:
     * 5 (load access fault) / 7 (store/AMO access fault) when nothing
     * answers at addr.  Sizes are 1, 2, 4 or 8 and addr is aligned (the
     * hart traps misaligned accesses itself). */
    int (*load)(struct sim_mem *m, struct sim_hart *h, uint64_t addr, unsigned size,
                uint64_t *value);
    int (*store)(struct sim_mem *m, struct sim_hart *h, uint64_t addr, unsigned size,
                 uint64_t value);
    /* Optional (NULL: none): the n contiguous bytes at src stored at addr
     * as ONE device write — what a unit-stride vector store into a NoC
     * window is on the card (one posted write of its bytes, not one a
     * element).  The device charges its own cost (one table,
     * sim_timing.h) and counts one access.  Returns 0 (done), or
     * SIM_MEM_NOT_ONE when it takes no such write at addr (not a device
     * that does, or some part of it would fault): nothing was written, and
     * the caller stores element by element through `store`, which finds
     * the faulting element.  n is at most 8 * 64 (a register group). */
    int (*store_bytes)(struct sim_mem *m, struct sim_hart *h, uint64_t addr, const uint8_t *src,
                       uint64_t n);
    /* CLINT mtime now, for the `time` CSR (50 MHz ticks of modeled time). */
    uint64_t (*mtime)(struct sim_mem *m, struct sim_hart *h);
    /* Where a load reads the same (optional; 0: nowhere): an 8-byte load at
     * mtime_addr returns mtime(m, h) as of the load's start, costs
     * mtime_latency cycles and does nothing else (no counter, no state).
     * The idle-loop prover (hart_idle.c) relies on exactly that. */
    uint64_t mtime_addr;
    uint32_t mtime_latency;
    void *ctx;
    /* The harts sharing this memory, so that a store clears the LR/SC
     * reservations other harts hold on its 64-byte line. */
    struct sim_hart *harts[SIM_MEM_MAX_HARTS];
    unsigned nharts;
    /* Some of them may hold a reservation: set by each LR (whatever sets
     * a hart's `reserved` sets this too), cleared by
     * sim_mem_others_reserved when it finds none; never false while one
     * is held.  The hot loop asks, once a run, whether its stores need
     * sim_mem_note_store at all. */
    bool reserved_any;
    /* The inline path for cached-window hits (above); zeroed: off. */
    sim_mem_cached cached;
} sim_mem;

/* The index of the RAM range holding all of [addr, addr + size), or -1
 * (hart_mem.c): the hart's slow paths, its decoder and a debugger's
 * reads ask it. */
int sim_mem_find_ram(const sim_mem *m, uint64_t addr, uint64_t size);

/* The host bytes of an inline hit at addr (aligned, 1, 2, 4 or 8 bytes),
 * counted as a hit and, for a store, with its line marked dirty; NULL when
 * the access must take the callback.  The caller copies the bytes, adds
 * m->cached.latency to the hart's cycle and memory cycles and, for a
 * store, calls sim_mem_note_store. */
static inline uint8_t *sim_mem_cached_hit(const sim_mem *m, uint64_t addr, bool store)
{
    const sim_mem_cached *c = &m->cached;
    uint64_t a = addr - c->base;
    if (a >= c->size)
        return 0;
    uint32_t i = (uint32_t)(a >> 6) & c->mask;
    if ((c->tag[i] | SIM_MEM_LINE_DIRTY) !=
        ((a & ~(uint64_t)63) | SIM_MEM_LINE_VALID | SIM_MEM_LINE_DIRTY))
        return 0;
    ++*c->hits;
    if (store)
        c->tag[i] |= SIM_MEM_LINE_DIRTY;
    return c->data + (uint64_t)i * 64u + (a & 63u);
}

#endif
