/* sim_wild: which local memory an X280 cluster may write through its NoC
 * windows, and the list of the stores that wrote elsewhere (sim_card.h,
 * "wild writes"; the router keeps the list, sim_noc.h).
 *
 * A cluster may write its own local memory; another work cluster's only
 * in the lines kmx_layout.h gives the other clusters of an image
 * (KMX_LIM_CLUSTER_LINES, the ports line at KMX_LIM_PORTS, KMX_LIM_PULL);
 * the dispatcher's (cluster 0's) only in its own ring area
 * (KMX_DISPATCH_RING_AREA: its read line and command lines). */
#ifndef SIM_WILD_H
#define SIM_WILD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_card.h"

typedef struct sim_wild_list {
    sim_wild_write w[SIM_WILD_WRITES_KEPT];
    unsigned n;
    uint64_t more; /* stores of writes not kept */
} sim_wild_list;

/* Whether cluster `writer`'s store of n bytes at local-memory address
 * `addr` of cluster `target`'s memory is one the contract allows. */
bool sim_wild_allowed(unsigned writer, unsigned target, uint64_t addr, uint64_t n);

/* One store that was not (w: its writer, target, pc, caller, first =
 * its address, end = first + its size, bytes, stores = 1, first_ps =
 * last_ps = its time): joins the entry of the same writer core, pc and
 * target (the span grows to cover it), else a new one. */
void sim_wild_note(sim_wild_list *l, const sim_wild_write *w);

#endif
