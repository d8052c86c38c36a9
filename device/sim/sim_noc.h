/* sim_noc: the card's NoC router, as the clusters' NoC windows use it — a
 * table of targets by tile (x, y): an X280 cluster's LIM at
 * BH_NOC_LIM_BASE, and the DRAM banks at each of their ports'
 * BH_BANK_PORT_X/Y(b, p) with NoC
 * address = bank address (kmx_layout.h; device/sim/README.md, "The NoC").
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

struct sim_cluster_mem;

#define SIM_NOC_MAX_TARGETS (BH_DRAM_BANKS * BH_BANK_PORTS + BH_CLUSTERS)

typedef enum sim_noc_kind { SIM_NOC_BANK = 1, SIM_NOC_LIM = 2 } sim_noc_kind;

typedef struct sim_noc_target {
    unsigned x, y;
    sim_noc_kind kind;
    unsigned bank;              /* SIM_NOC_BANK */
    struct sim_cluster_mem *cm; /* SIM_NOC_LIM */
} sim_noc_target;

typedef struct sim_noc {
    sim_dram *dram;
    sim_noc_target targets[SIM_NOC_MAX_TARGETS];
    unsigned ntargets;
} sim_noc;

/* A router for the card whose banks are `dram` (which must outlive it):
 * the eight banks registered at their tiles, no cluster yet. */
void sim_noc_init(sim_noc *n, sim_dram *dram);

/* Registers cluster cm->cluster's LIM at its tile (replacing an earlier
 * registration of that tile).  KS_OK or KS_ERR_BUG (table full). */
int sim_noc_add_lim(sim_noc *n, struct sim_cluster_mem *cm, ks_error *err);
/* Removes every target that is cm (a cluster going away). */
void sim_noc_remove_lim(sim_noc *n, const struct sim_cluster_mem *cm);

/* The target at (x, y), or NULL. */
const sim_noc_target *sim_noc_find(const sim_noc *n, unsigned x, unsigned y);

/* size bytes (1, 2, 4, 8) at NoC address addr of tile (x, y).  0, or -1
 * when no target answers there (unknown tile, address outside the LIM or
 * the bank, host memory exhausted on a bank write). */
int sim_noc_load(sim_noc *n, unsigned x, unsigned y, uint64_t addr, unsigned size,
                 uint64_t *value);
int sim_noc_store(sim_noc *n, unsigned x, unsigned y, uint64_t addr, unsigned size,
                  uint64_t value);

#endif
