/* blackhole.h: the facts of the card kmrun models (Blackhole p150a, public
 * facts; ../shared/DESIGN.md, "The device we model") — the cluster's
 * memory map and registers, the banks, the caches, the NoC's windows and
 * tiles, the time base — in one place.  The thread runtime (through
 * kmx_layout.h, the binary contract), the simulator and the host library
 * all read them here; freestanding C11 for both compilers, every layout
 * asserted.  Where a fact is not public the simulator's choice is here too,
 * and device/sim/README.md says so.
 *
 * Time: every figure a run reports is a count of picoseconds from the
 * card's start (the simulator's modeled time; the host fallback's wall
 * time), shown in microseconds. */
#ifndef BLACKHOLE_H
#define BLACKHOLE_H

#include <stddef.h>
#include <stdint.h>

/* Static checks, on both compilers (and from C++, where the keyword is
 * static_assert). */
#ifdef __cplusplus
#define BH_STATIC_ASSERT(e, message) static_assert(e, message)
#else
#define BH_STATIC_ASSERT(e, message) _Static_assert(e, message)
#endif
#define BH_AT(type, field, offset)                                           \
    BH_STATIC_ASSERT(offsetof(type, field) == (offset),                      \
                     #type "." #field " must be at " #offset)
#define BH_SIZE(type, bytes)                                                 \
    BH_STATIC_ASSERT(sizeof(type) == (bytes), #type " must be " #bytes " bytes")

/* The time base of every figure a run reports. */
#define BH_PS_PER_SECOND 1000000000000ull
#define BH_PS_PER_US 1000000ull

#define BH_LIM_BASE 0x08000000u       /* local memory of a cluster */
#define BH_LIM_BYTES (1920u * 1024u)  /* 1.875 MiB */
#define BH_IMAGE_MAX_BYTES 126976u    /* instructions are fetched from here */
#define BH_TICKS_PER_SECOND 50000000u /* CLINT mtime, 50 MHz */

#define BH_GRID_CORES 120u   /* Tensix worker cores, grid order 0..119 */
#define BH_CLUSTER_CORES 4u  /* harts per cluster */
#define BH_WORK_CLUSTERS 3u

#define BH_LIM_END (BH_LIM_BASE + BH_LIM_BYTES) /* 0x081E0000 */
#define BH_LINE_BYTES 64u                       /* cache line; FLUSH64 granule */

/* The cluster's own DRAM bank, 4 GiB, through the cache and around it. */
#define BH_BANK_BYTES 0x100000000ull
#define BH_DRAM_CACHED_BASE 0x400030000000ull   /* + bank address */
#define BH_DRAM_UNCACHED_BASE 0x000030000000ull /* + bank address */
#define BH_DRAM_CACHED(bank_address) (BH_DRAM_CACHED_BASE + (uint64_t)(bank_address))
#define BH_DRAM_UNCACHED(bank_address) (BH_DRAM_UNCACHED_BASE + (uint64_t)(bank_address))

/* The card's DRAM banks, and the one bank each cluster's two windows
 * reach (DESIGN.md): 0 (the dispatcher's) -> 5, 1 -> 6, 2 and 3 -> 7. */
#define BH_DRAM_BANKS 8u
#define BH_CLUSTERS (BH_WORK_CLUSTERS + 1u) /* cluster 0 and the work clusters */
#define BH_CLUSTER_BANK(cluster) ((cluster) == 0u ? 5u : (cluster) == 1u ? 6u : 7u)
BH_STATIC_ASSERT(BH_CLUSTERS == 4u, "clusters 0 to 3");
BH_STATIC_ASSERT(BH_CLUSTER_BANK(0u) == 5u && BH_CLUSTER_BANK(1u) == 6u &&
                      BH_CLUSTER_BANK(2u) == 7u && BH_CLUSTER_BANK(3u) == 7u,
                  "cluster 0 -> bank 5, 1 -> 6, 2 and 3 -> 7");
BH_STATIC_ASSERT(BH_CLUSTER_BANK(0u) < BH_DRAM_BANKS && BH_CLUSTER_BANK(3u) < BH_DRAM_BANKS,
                  "the clusters' banks exist");

/* L3 cache controller.  A 64-bit store of a line's address (as the core
 * addresses it: BH_DRAM_CACHED(bank address)) to FLUSH64 writes the line
 * back if dirty and drops it.  kmx_flush and kmx_invalidate are sweeps. */
#define BH_L3_CONTROL 0x02010000u
#define BH_FLUSH64 0x02010200u

/* The L3's one cache way (the other fifteen are LIM): 128 KiB, so lines
 * whose addresses differ by a multiple of it compete for one place (spec:
 * "arrays placed off each other's 128 KiB cache way"). */
#define BH_L3_WAY_BYTES (128u * 1024u)
BH_STATIC_ASSERT(BH_L3_WAY_BYTES % BH_LINE_BYTES == 0 &&
                      BH_DRAM_CACHED_BASE % BH_L3_WAY_BYTES == 0,
                  "the way holds whole lines; a bank address and its cached "
                  "address fall in the same place");

/* The X280's per-hart L2 stride prefetchers (SiFive "L2 prefetcher":
 * SiFive's freedom-metal sifive_l2pf1 driver gives the fields, and
 * Tenstorrent's Blackhole L2CPU tools the base 0x02030000, a hart every
 * 0x2000 — hart = the core's number in its cluster).  Two 32-bit
 * registers each:
 *   basicCtrl (+0): bit 0 scalarLoadSupportEn, 7:2 initialDist, 13:8
 *     maxAllowedDist, 19:14 linToExpThrd, 28 crossPageEn, 30:29
 *     forgiveThrd (bits 1, 27:20, 31 read 0);
 *   additionalCtrl (+4): 3:0 qFullnessThrd, 8:4 hitCacheThrd, 12:9
 *     hitMSHRThrd, 18:13 window (lines), 19 scalarStoreSupportEn, 20
 *     vectorLoadSupportEn, 21 vectorStoreSupportEn (31:22 read 0).
 * Reset values: every enable off.  The recommended values (SiFive's
 * driver's initial configuration, the one Tenstorrent's tools call
 * "recommended") turn all four kinds on, distance 4 growing to 24. */
#define BH_L2PF_BASE 0x02030000u
#define BH_L2PF_STRIDE 0x2000u
#define BH_L2PF(core) (BH_L2PF_BASE + (uint32_t)(core) * BH_L2PF_STRIDE)
#define BH_L2PF_BASIC 0x0u
#define BH_L2PF_ADDITIONAL 0x4u
#define BH_L2PF_BASIC_MASK 0x700FFFFDu      /* the writable bits */
#define BH_L2PF_ADDITIONAL_MASK 0x003FFFFFu
#define BH_L2PF_BASIC_RESET 0x00014A0Cu
#define BH_L2PF_ADDITIONAL_RESET 0x0000C45Eu
#define BH_L2PF_BASIC_RECOMMENDED 0x00015811u
#define BH_L2PF_ADDITIONAL_RECOMMENDED 0x0038C84Eu
#define BH_L2PF_SCALAR_LOADS(basic) ((basic) & 1u)
#define BH_L2PF_INITIAL_DIST(basic) (((basic) >> 2) & 0x3Fu)
#define BH_L2PF_MAX_DIST(basic) (((basic) >> 8) & 0x3Fu)
#define BH_L2PF_LIN_TO_EXP(basic) (((basic) >> 14) & 0x3Fu)
#define BH_L2PF_HIT_MSHR(add) (((add) >> 9) & 0xFu)
#define BH_L2PF_WINDOW(add) (((add) >> 13) & 0x3Fu)
#define BH_L2PF_SCALAR_STORES(add) (((add) >> 19) & 1u)
#define BH_L2PF_VECTOR_LOADS(add) (((add) >> 20) & 1u)
#define BH_L2PF_VECTOR_STORES(add) (((add) >> 21) & 1u)
BH_STATIC_ASSERT(BH_L2PF_INITIAL_DIST(BH_L2PF_BASIC_RECOMMENDED) == 4u &&
                      BH_L2PF_MAX_DIST(BH_L2PF_BASIC_RECOMMENDED) == 24u &&
                      BH_L2PF_WINDOW(BH_L2PF_ADDITIONAL_RECOMMENDED) == 6u &&
                      BH_L2PF_VECTOR_STORES(BH_L2PF_ADDITIONAL_RECOMMENDED) == 1u &&
                      BH_L2PF_SCALAR_LOADS(BH_L2PF_BASIC_RESET) == 0u &&
                      (BH_L2PF_ADDITIONAL_RESET & 0x380000u) == 0u,
                  "the documented fields of the recommended and reset values");

/* CLINT: mtime, 64 bits, counts at BH_TICKS_PER_SECOND. */
#define BH_CLINT 0x02000000u
#define BH_MTIME 0x0200BFF8u

/* NoC windows: window i maps 2 MiB of a tile's address space at
 * BH_NOC_WINDOW(i), uncached; its 16-byte register bh_noc_window_reg at
 * BH_NOC_WINDOW_REG(i) says where.  Write address, x and y first and
 * `mode` last: the write of `mode` makes the window take the new target. */
#define BH_NOC_WINDOWS 224u
#define BH_NOC_WINDOW_BYTES 0x200000u
#define BH_NOC_WINDOW_BASE 0x000430000000ull
#define BH_NOC_WINDOW(i) (BH_NOC_WINDOW_BASE + (uint64_t)(i) * BH_NOC_WINDOW_BYTES)
#define BH_NOC_WINDOW_REGS 0x2FF00000u
#define BH_NOC_WINDOW_REG(i) (BH_NOC_WINDOW_REGS + (uint32_t)(i) * 16u)

#define BH_NOC_OFF 0u       /* mode: window closed, accesses fault */
#define BH_NOC_POSTED 1u    /* mode: stores are posted */
#define BH_NOC_NONPOSTED 2u /* mode: a store returns once acknowledged */

typedef struct bh_noc_window_reg {
    uint64_t address; /* target address of the window's first byte */
    uint16_t x, y;    /* target tile */
    uint32_t mode;    /* BH_NOC_*; written last */
} bh_noc_window_reg;
BH_SIZE(bh_noc_window_reg, 16);
BH_AT(bh_noc_window_reg, address, 0);
BH_AT(bh_noc_window_reg, x, 8);
BH_AT(bh_noc_window_reg, y, 10);
BH_AT(bh_noc_window_reg, mode, 12);

/* NoC tiles (NOC0 coordinates, as Tenstorrent's UMD lists them for
 * Blackhole: L2CPU tile index -> tile, and DRAM_CORES_NOC0) and the
 * NoC-side addresses behind them (device/sim/README.md, "The NoC").
 * Cluster c's tile is (8, 3), (8, 9), (8, 5), (8, 7) for c = 0..3
 * (DESIGN.md); its LIM is at BH_NOC_LIM_BASE on that tile, the same
 * addresses its cores use (the simulator's choice: not public).  DRAM bank
 * b has BH_BANK_PORTS tiles, each answering for the whole bank (NoC
 * address = bank address): banks 0..3 in column 0, 4..7 in column 9, rows
 * {0, 1, 11}, {2, 10, 3}, {9, 4, 8}, {5, 7, 6}; BH_BANK_TILE_X/Y is the
 * first port, the one kmrun's own windows use. */
#define BH_CLUSTER_TILE_X(c) 8u /* every cluster sits in column 8 */
#define BH_CLUSTER_TILE_Y(c) ((c) == 0u ? 3u : (c) == 1u ? 9u : (c) == 2u ? 5u : 7u)
#define BH_NOC_LIM_BASE BH_LIM_BASE
#define BH_BANK_PORTS 3u
#define BH_BANK_PORT_ROWS 0x6758493a2b10ull /* a nibble a port: rows of bank % 4, port */
#define BH_BANK_PORT_X(b, p) ((b) < 4u ? 0u : 9u)
#define BH_BANK_PORT_Y(b, p) \
    ((uint32_t)(BH_BANK_PORT_ROWS >> (4u * (3u * ((b) % 4u) + (p)))) & 0xFu)
#define BH_BANK_TILE_X(b) BH_BANK_PORT_X(b, 0u)
#define BH_BANK_TILE_Y(b) BH_BANK_PORT_Y(b, 0u)
BH_STATIC_ASSERT(BH_BANK_PORT_Y(0u, 2u) == 11u && BH_BANK_PORT_Y(1u, 1u) == 10u &&
                      BH_BANK_PORT_Y(6u, 0u) == 9u && BH_BANK_PORT_Y(7u, 2u) == 6u,
                  "the bank port rows as UMD lists them");

/* The Tensix worker tiles.  Blackhole's Tensix columns are x = 1..7 and
 * 10..16, rows y = 2..11; a p150a gives 120 worker cores, 12 columns of
 * 10.  Which columns are the workers is the simulator's choice (a card's
 * harvesting decides it; not public): the first twelve, 1..7 and
 * 10..14.  Grid order is row by row: core i is column i % 12 of row
 * i / 12.  A core's L1 is at NoC address 0 of its tile. */
#define BH_TENSIX_COLUMNS 12u
#define BH_TENSIX_ROWS 10u
#define BH_TENSIX_TILE_X(i) ((i) % BH_TENSIX_COLUMNS < 7u ? 1u + (i) % BH_TENSIX_COLUMNS \
                                                         : 3u + (i) % BH_TENSIX_COLUMNS)
#define BH_TENSIX_TILE_Y(i) (2u + (i) / BH_TENSIX_COLUMNS)
#define BH_TENSIX_L1_BYTES 0x180000u /* 1.5 MiB */
BH_STATIC_ASSERT(BH_TENSIX_COLUMNS * BH_TENSIX_ROWS == BH_GRID_CORES, "the grid is 12 x 10");
BH_STATIC_ASSERT(BH_TENSIX_TILE_X(6u) == 7u && BH_TENSIX_TILE_X(7u) == 10u &&
                     BH_TENSIX_TILE_X(11u) == 14u && BH_TENSIX_TILE_Y(119u) == 11u,
                 "Tensix columns skip the DRAM column 9 and the L2CPU column 8");

#endif
