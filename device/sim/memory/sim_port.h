/* sim_port: how long a cluster's cache fills take — the read port it
 * shares among its four cores, and each core's prefetch streams; the
 * same calendar also serves as the cluster's NoC write path
 * (sim_cluster_mem.c noc_out: a slot of SIM_T_NOC_LINE per line of a
 * NoC write, the X280 cluster's one way onto the NoC).
 *
 * The port.  The spec measures each cluster reading its bank at about
 * 1.2 GB/s with four cores "alone or with the others": a limit per
 * cluster, not per bank, and well above what one core gets.  Modeled as
 * a calendar of slots of SIM_T_PORT_LINE cycles, one line fill per slot:
 * a fill at cycle t takes the first free slot that has not ended by t and
 * waits for it to begin.  Booking by the requester's own cycle (not by
 * who asks first) matters because the cluster runs its harts one after
 * another over the same quantum of time: hart 1's early fills find the
 * slots hart 0 left free earlier in the quantum, as on the card, instead
 * of queueing behind everything hart 0 did.  Write-backs and uncached
 * accesses take no slot (they are posted, or too rare to matter).
 *
 * The streams: what the bank streams to a core walking up through
 * memory, with or without its L2 prefetcher (sim_prefetch.h): such a
 * miss costs SIM_T_MISS_NEXT, any other SIM_T_MISS (a round trip).  Each
 * core follows SIM_PORT_STREAMS ascending streams (a map reads one array
 * and writes another: two streams); a miss within SIM_PORT_STREAM_REACH
 * lines past a stream's last miss continues it, any other miss replaces
 * the least recently used stream.
 *
 * Times are cluster cycles (all four cores share one clock).  Everything
 * is a pure function of the order of calls: runs are deterministic. */
#ifndef SIM_PORT_H
#define SIM_PORT_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_PORT_SLOTS 4096u /* the calendar's reach, in slots (about 0.2 ms) */
#define SIM_PORT_STREAMS 4u
#define SIM_PORT_STREAM_REACH 4u

typedef struct sim_port {
    uint64_t slot_cycles; /* a slot's length */
    uint64_t base;        /* the oldest slot the calendar still holds */
    uint64_t busy[SIM_PORT_SLOTS / 64u]; /* slot s at bit s % SIM_PORT_SLOTS */
    uint64_t booked, waited; /* slots booked, and cycles spent waiting for them */
} sim_port;

void sim_port_init(sim_port *p, uint64_t slot_cycles);

/* Books the first free slot that has not ended at cycle `now`; returns
 * the cycles from now until it begins (0 when one is free now). */
uint64_t sim_port_book(sim_port *p, uint64_t now);

typedef struct sim_streams {
    /* The line number each stream expects next (0: none), most recently
     * used first. */
    uint64_t next[SIM_PORT_STREAMS];
} sim_streams;

void sim_streams_init(sim_streams *s);

/* A miss on line number `line` (address / 64): true when it continues a
 * stream (the prefetcher had it coming).  Either way, records it. */
bool sim_streams_miss(sim_streams *s, uint64_t line);

#endif
