/* sim_noc: the card's NoC router, as the clusters' NoC windows use it — a
 * table of targets by tile (x, y): an X280 cluster's LIM at
 * BH_NOC_LIM_BASE, the DRAM banks at each of their ports'
 * BH_BANK_PORT_X/Y(b, p) with NoC address = bank address, and the Tensix
 * cores' tiles (BH_TENSIX_TILE_X/Y), whose control blocks the grid
 * answers for (kmx_layout.h; device/sim/README.md, "The NoC").
 *
 * A write to a bank goes around every cache (sim_dram_write, writer NULL:
 * the bank's watchers clear LR/SC reservations); a write to a LIM clears
 * the target cluster's reservations on its lines.  Data is visible at
 * once; nothing here models time (the accessing cluster charges it,
 * sim_timing.h NOC_*). */
#ifndef SIM_NOC_H
#define SIM_NOC_H

#include <stdint.h>

#include "ks_error.h"
#include "blackhole.h"
#include "sim_dram.h"
#include "sim_wild.h"

#define SIM_NOC_MAX_TARGETS (BH_DRAM_BANKS * BH_BANK_PORTS + BH_CLUSTERS + BH_GRID_CORES)
#define SIM_NOC_COLUMNS 17u /* x 0..16 */
#define SIM_NOC_ROWS 12u    /* y 0..11 */

/* A posted write's flight, from its store to its landing at a Tensix
 * core's control block or, from a Tensix core, in an X280 core's mailbox
 * line (the ports' messages; calibrated with bench/ports, device/sim/
 * README.md "X280 ports").  Longer than a cluster quantum, which the
 * card's lockstep relies on.  An X280 core's write into another cluster's
 * LIM flies SIM_NOC_FLIGHT_PS (sim_timing.h, sim_noc_post). */
#define SIM_NOC_LAND_PS 140000u

typedef enum sim_noc_kind { SIM_NOC_BANK = 1, SIM_NOC_LIM = 2, SIM_NOC_TENSIX = 3 } sim_noc_kind;

/* A Tensix tile's memory, as the grid answers for it (sim_grid_tile_*):
 * core is the grid index, at_ps the accessing core's time. */
typedef struct sim_noc_tile_ops {
    void *ctx;
    int (*load)(void *ctx, unsigned core, uint64_t addr, unsigned size, uint64_t *value,
                uint64_t at_ps);
    int (*store)(void *ctx, unsigned core, uint64_t addr, unsigned size, uint64_t value,
                 uint64_t at_ps);
} sim_noc_tile_ops;

/* An X280 cluster's local memory as the router reaches it (the cluster's
 * memory map gives these, sim_cluster_mem.c): n bytes at a core address
 * (BH_LIM_BASE + offset), KS_OK or a failure.  A write clears the
 * cluster's reservations on the lines it touches. */
typedef struct sim_noc_lim_ops {
    void *ctx;
    int (*read)(void *ctx, uint64_t addr, void *dst, uint64_t n);
    int (*write)(void *ctx, uint64_t addr, const void *src, uint64_t n);
} sim_noc_lim_ops;

typedef struct sim_noc_target {
    unsigned x, y;
    sim_noc_kind kind;
    unsigned bank;              /* SIM_NOC_BANK */
    unsigned cluster;           /* SIM_NOC_LIM */
    sim_noc_lim_ops lim;        /* SIM_NOC_LIM */
    unsigned core;              /* SIM_NOC_TENSIX */
} sim_noc_target;

/* A cluster's write into another X280 cluster's LIM in flight (sim_noc_post):
 * its bytes, where, and when it lands. */
#define SIM_NOC_FLIGHTS 64u
#define SIM_NOC_FLIGHT_BYTES 512u
typedef struct sim_noc_flight {
    uint64_t land_ps;
    uint64_t addr;
    uint32_t bytes;
    uint8_t x, y;
    uint8_t data[SIM_NOC_FLIGHT_BYTES];
} sim_noc_flight;

typedef struct sim_noc {
    sim_dram *dram;
    sim_noc_target targets[SIM_NOC_MAX_TARGETS];
    unsigned ntargets;
    int16_t at[SIM_NOC_COLUMNS][SIM_NOC_ROWS]; /* target index by tile, -1: none */
    sim_noc_tile_ops tensix;                   /* ctx NULL: no grid */
    /* The clusters' window stores into local memory that is not theirs
     * to write (sim_wild.h): each cluster notes its own here. */
    sim_wild_list wild;
    /* Writes into X280 LIMs not yet landed, in the order sent. */
    sim_noc_flight flights[SIM_NOC_FLIGHTS];
    unsigned nflights;
} sim_noc;

/* A router for the card whose banks are `dram` (which must outlive it):
 * the eight banks registered at their tiles, no cluster yet. */
void sim_noc_init(sim_noc *n, sim_dram *dram);

/* Registers cluster `cluster`'s LIM at its tile, reached through ops
 * (copied; replacing an earlier registration of that tile).  KS_OK or
 * KS_ERR_BUG (table full). */
int sim_noc_add_lim(sim_noc *n, unsigned cluster, const sim_noc_lim_ops *ops, ks_error *err);
/* Removes every LIM target whose ops.ctx is ctx (a cluster going away). */
void sim_noc_remove_lim(sim_noc *n, const void *ctx);

/* The Tensix tiles answer through ops (copied) from now on. */
void sim_noc_add_tensix(sim_noc *n, const sim_noc_tile_ops *ops);

/* The target at (x, y), or NULL. */
const sim_noc_target *sim_noc_find(const sim_noc *n, unsigned x, unsigned y);

/* size bytes (1, 2, 4, 8) at NoC address addr of tile (x, y), by an
 * accessor whose time is at_ps (only a Tensix tile needs it).  0, or -1
 * when no target answers there (unknown tile, address outside the LIM or
 * the bank or the control block's X280 area, host memory exhausted on a
 * bank write). */
int sim_noc_load(sim_noc *n, unsigned x, unsigned y, uint64_t addr, unsigned size,
                 uint64_t *value, uint64_t at_ps);
int sim_noc_store(sim_noc *n, unsigned x, unsigned y, uint64_t addr, unsigned size,
                  uint64_t value, uint64_t at_ps);

/* `bytes` bytes from src at NoC address addr of tile (x, y) as one
 * write (a vector store's, sim_mem.h store_bytes), all or nothing: 0, or
 * -1 when no bank or LIM holds all of them (a Tensix tile takes only
 * sim_noc_store's words; or host memory ran out on a bank write). */
int sim_noc_write(sim_noc *n, unsigned x, unsigned y, uint64_t addr, const void *src,
                  uint64_t bytes);

/* An X280 core's write of `bytes` bytes (1 to SIM_NOC_FLIGHT_BYTES) into
 * the X280 LIM at tile (x, y): checked now (0, or -1 when no LIM there
 * holds them all), landed by sim_noc_land once its time reaches land_ps
 * (the store's time + SIM_NOC_FLIGHT_PS + the target's LIM access: the
 * cluster's memory map sends them).  Writes land in the order sent, so one core's stores to one
 * tile arrive in order; with SIM_NOC_FLIGHTS in flight the oldest lands
 * early to make room. */
int sim_noc_post(sim_noc *n, unsigned x, unsigned y, uint64_t addr, const void *src,
                 uint64_t bytes, uint64_t land_ps);

/* Lands, in the order sent, every write in flight due by up_to_ps (one
 * whose LIM has left the router is dropped).  The card calls it at each
 * cluster quantum's start, a load through a window before it reads a LIM
 * (its request arrives behind the writes sent before it). */
void sim_noc_land(sim_noc *n, uint64_t up_to_ps);

/* Writes in flight (not landed yet). */
unsigned sim_noc_in_flight(const sim_noc *n);

#endif
