/* km_card_io: what a host hands a Blackhole card and gets back from it,
 * whichever card it is (the simulated one, a real one through its
 * driver): where a thread's region lies (what km_region_address answers a
 * Tensix handler), where an interleaved tensor's pages lie (km_tensor_of,
 * and the one page rule every reader and writer of one applies,
 * km_interleaved_at) and what came back for a host-fed command. */
#ifndef KM_CARD_IO_H
#define KM_CARD_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "blackhole.h"

/* A region copy of a thread. */
typedef struct km_region_place {
    int cluster; /* 1..3 */
    const char *name;
    unsigned bank;
    uint64_t bank_address;
    uint64_t bytes;
} km_region_place;

/* An interleaved tensor (the manifest's `placement: interleaved`): page p
 * of its bytes is in bank p % 8 at base + (p / 8) * page_size — the
 * round robin of tt-metal's interleaved DRAM buffers (InterleavedAddrGen:
 * bank id % NUM_DRAM_BANKS, offset id / NUM_DRAM_BANKS pages), with the
 * same base in every bank. */
typedef struct km_tensor_place {
    const char *name;
    uint64_t base;      /* bank address of its first page in every bank */
    uint32_t page_size; /* a multiple of 64 bytes */
    uint64_t bytes;
} km_tensor_place;
#define KM_MAX_TENSORS 16u

/* Byte `offset` of an interleaved tensor: its bank and bank address;
 * returns the bytes from there to the end of its page. */
static inline uint64_t km_interleaved_at(uint64_t base, uint32_t page_size, uint64_t offset,
                                         unsigned *bank, uint64_t *bank_address)
{
    uint64_t page = offset / page_size, in = offset % page_size;
    *bank = (unsigned)(page % BH_DRAM_BANKS);
    *bank_address = base + (page / BH_DRAM_BANKS) * page_size + in;
    return page_size - in;
}

/* The bytes an interleaved tensor of `bytes` takes in each bank: whole
 * pages, as many as its first bank holds. */
static inline uint64_t km_interleaved_bank_bytes(uint32_t page_size, uint64_t bytes)
{
    uint64_t pages = (bytes + page_size - 1u) / page_size;
    return (pages + BH_DRAM_BANKS - 1u) / BH_DRAM_BANKS * page_size;
}

/* A host-fed command (the manifest's `commands`, in order): what came
 * back through the host ring. */
typedef struct km_command_result {
    bool submitted;  /* it went into the ring (handle valid) */
    uint32_t handle; /* its number in the host ring (the last one, when resubmitted) */
    uint32_t busy;   /* times it was rejected KM_REASON_BUSY and submitted again */
    bool ended;      /* it has its event */
    uint16_t event;  /* KM_EVENT_DONE, KM_EVENT_TIMEOUT, KM_EVENT_REJECTED */
    uint16_t reason; /* KM_REASON_* of a rejection, else 0 */
    bool has_result; /* done with `result: true`: the leader's result word */
    uint32_t result;
    uint64_t ps;     /* modeled time from its submission to its event */
} km_command_result;

/* The X280 ports' dealing (spec "X280 ports"): which X280 core serves
 * each Tensix core, by grid index.  cluster 0: the core has none. */
typedef struct km_port_dealing {
    uint8_t cluster[BH_GRID_CORES];   /* 1..3, or 0 */
    uint8_t x280_core[BH_GRID_CORES]; /* 0..3 */
} km_port_dealing;

/* A Tensix core's X280 port wait that gave up, or a send refused: what
 * the run reports of it (the first KM_PORT_WAITS_KEPT of a run). */
#define KM_PORT_GAVE_UP_LIMIT 1u   /* the wait limit, or the command's own, passed */
#define KM_PORT_GAVE_UP_STOP 2u    /* the kernel stopped */
#define KM_PORT_GAVE_UP_REFUSED 3u /* no X280 core, or not the sending kernel */
#define KM_PORT_WAITS_KEPT 64u
typedef struct km_port_gave_up {
    unsigned core;    /* the Tensix core, 0..119 */
    uint32_t handler; /* the command's handler id */
    uint16_t where;   /* KM_WHERE_* (kmx_layout.h) */
    uint16_t why;     /* KM_PORT_GAVE_UP_* */
    uint64_t ps;      /* modeled time it gave up */
} km_port_gave_up;

#endif
