/* sim_card_internal: the card's parts, for the files that wire them
 * (sim_card.c: loading, stepping, the kernel side; sim_card_debug.c: its
 * observers).  Nothing outside device/sim/ sees it. */
#ifndef SIM_CARD_INTERNAL_H
#define SIM_CARD_INTERNAL_H

#include <stdatomic.h>

#include "sim_card.h"
#include "sim_card_debug.h"
#include "sim_checker.h"
#include "sim_cluster.h"
#include "sim_dram.h"
#include "sim_kernel.h"
#include "sim_noc.h"
#include "sim_print.h"

struct sim_card {
    sim_dram dram;
    sim_noc noc;      /* the clusters' NoC windows reach the banks and each other's LIM */
    unsigned mhz;     /* the X280 clusters' clock */
    sim_cluster *dispatcher_lim; /* cluster 0: the remote halves of the rings */
    /* The work clusters, by number (index 0 unused); NULL when not added. */
    sim_cluster *clusters[BH_CLUSTERS];
    bool parked[BH_CLUSTERS];
    sim_kernel *kernel;
    bool kernel_stopped;
    sim_ring_host *host_rings[BH_CLUSTERS]; /* the host fallback's */
    /* X280 ports: the grid and the clusters go forward together a quantum
     * at a time from lock_ps (see sim_card_step). */
    bool ports;
    uint64_t lock_ps;
    sim_checker *checker; /* params.check_handover, else NULL */
    /* params.trace_*: the traced cores, given to their cluster when added */
    uint32_t trace_cores;
    sim_trace_fn trace;
    bool profile; /* sim_card_params.profile */
    void *trace_ctx;
    /* Prints: what a drain took, until it hands it on; the host
     * fallback's cores' buffers (allocated at their first print). */
    sim_print_queue prints;
    kmx_print_buffer *host_prints[BH_CLUSTERS][BH_CLUSTER_CORES];
    /* Observers (sim_card_debug.c): each one's function, the clusters'
     * hooks (given to a cluster while anyone observes), and the pause
     * another thread may ask for. */
    sim_card_observe_fn observe[SIM_CARD_OBSERVERS];
    void *observe_ctx[SIM_CARD_OBSERVERS];
    sim_cluster_hooks hooks[BH_CLUSTERS];
    _Atomic bool pause;
};

/* Gives an added cluster the card's hooks when anyone observes. */
void sim_card_debug_adopt(sim_card *card, unsigned cluster);
/* What the observers' sets hold, freed with the card. */
void sim_card_debug_free(sim_card *card);

#endif
