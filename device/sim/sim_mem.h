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

struct sim_hart;

#define SIM_MEM_MAX_RAM 8
#define SIM_MEM_MAX_HARTS 4

typedef struct sim_ram {
    uint64_t base, size;
    uint8_t *host;    /* base maps to host[0] */
    uint32_t latency; /* cycles per access (LIM: about 30 per word) */
} sim_ram;

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
    /* CLINT mtime now, for the `time` CSR (50 MHz ticks of modeled time). */
    uint64_t (*mtime)(struct sim_mem *m, struct sim_hart *h);
    void *ctx;
    /* The harts sharing this memory, so that a store clears the LR/SC
     * reservations other harts hold on its 64-byte line. */
    struct sim_hart *harts[SIM_MEM_MAX_HARTS];
    unsigned nharts;
} sim_mem;

#endif
