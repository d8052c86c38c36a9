/* km_plan: where a program's regions go in the banks, and the argument
 * block each thread starts with — pure functions of the program model and
 * this run's nonce, shared by every backend.
 *
 * Placement (the spec: "pages of one DRAM tensor per bank"): every bank in
 * use holds one tensor from KM_TENSOR_BASE.  It starts with one bank check
 * line per cluster on that bank, the halves of each cached ring on it, then the program regions that threads on
 * the bank name (once: clusters 2 and 3 share them), then each cluster's
 * own regions, clusters ascending, regions in manifest order; every region
 * 64-byte aligned.  Then the interleaved program regions (`placement:
 * interleaved`), in manifest order, each an interleaved tensor at one base
 * address in every bank, past everything else in every bank
 * (km_card_io.h's km_interleaved_at deals its pages), whether or not a
 * thread runs.  Same program, same addresses, every run. */
#ifndef KM_PLAN_H
#define KM_PLAN_H

#include <stdint.h>

#include "km_card_io.h"
#include "km_program.h"
#include "kmx_layout.h"

/* Bank address of the first tensor byte: below it the bank is the card's
 * (the simulator leaves it unused; on a card it is the allocator's). */
#define KM_TENSOR_BASE 0x01000000ull

typedef struct km_placed {
    const km_region *region; /* its declaration */
    uint32_t id;             /* region id in the thread: own first, then shared */
    uint32_t bank;
    uint64_t bank_address;
    bool shared;
} km_placed;

typedef struct km_cluster_plan {
    int cluster;             /* 1..3 */
    const km_thread *thread;
    uint32_t bank;
    uint64_t check_address;  /* its bank check line */
    /* ring: cached — its two halves' bank addresses (whole lines after the
     * check lines): the read line and the command lines, then the counts
     * line and the events.  0 for a remote ring. */
    uint64_t ring_commands_half, ring_events_half;
    km_placed regions[KMX_MAX_REGIONS];
    uint32_t nregions;
    /* Its argument block's ports settings (km_ports.h); zero without
     * ports. */
    kmx_ports_settings ports;
} km_cluster_plan;

typedef struct km_plan {
    km_cluster_plan clusters[BH_WORK_CLUSTERS]; /* those with a thread, ascending */
    unsigned nclusters;
    uint64_t tensor_bytes[8]; /* per bank: what the tensor takes */
    /* The first region, in placement order, that ends past its bank
     * (BH_BANK_BYTES), and that bank; NULL when everything fits. */
    const km_region *over;
    uint32_t over_bank;
    /* The X280 ports' dealing (km_ports.h), when the program has ports
     * (`ports:`, or `pull:`); all cluster 0 when not. */
    bool has_ports;
    km_port_dealing ports;
    /* The interleaved tensors, in manifest order: their places (names the
     * program's) and declarations. */
    km_tensor_place tensors[KM_MAX_TENSORS];
    const km_region *tensor_regions[KM_MAX_TENSORS];
    unsigned ntensors;
} km_plan;

/* KM_OK, or KM_EXIT_USAGE when a bank's tensor ends past the bank (with
 * plan->over), the program has more than KM_MAX_TENSORS interleaved
 * regions or a cluster would serve more Tensix cores than it has port
 * windows (km_ports_settings_of; no dealing of today's grid does).  This is the one rule for a bank's room: `validate` asks it
 * too (lib/manifest/manifest.c), so that what validates also places. */
int km_plan_make(const km_program *p, km_plan *plan, km_error *err);

/* The plan of `cluster`, or NULL. */
const km_cluster_plan *km_plan_cluster(const km_plan *plan, int cluster);

/* The value of the bank check line of a run: derived from the nonce and
 * the cluster, never zero, never the same for two runs. */
uint64_t km_plan_check_value(uint64_t nonce, int cluster);

/* Bytes of each half of a ring at the session's depths: the read line and
 * the command lines; the counts line and the events. */
#define KM_RING_COMMANDS_HALF (64u + KMX_RING_COMMAND_DEPTH * (uint32_t)sizeof(km_command_line))
#define KM_RING_EVENTS_HALF (64u + KMX_RING_EVENT_DEPTH * (uint32_t)sizeof(km_event_t))

/* Fills the argument block of `cluster` (zeroed first; the seal set), its
 * ring line included (kmx_layout.h, KMX_DISPATCH_RING_AREA), and its ports
 * settings (the plan's). */
void km_plan_args(const km_program *p, const km_plan *plan, int cluster, uint64_t nonce,
                  kmx_args *args);

#endif
