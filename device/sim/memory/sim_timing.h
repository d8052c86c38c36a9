/* sim_timing: what the memory side of a cluster costs in modeled time —
 * the one table (device/sim/README.md, "Memory and the cluster", says how
 * it was calibrated; the hart's own costs are in hart_internal.h).
 *
 * Each entry is a number of X280 cycles plus a number of picoseconds: the
 * cycles are work clocked with the cores (it takes less time at 1750 MHz),
 * the picoseconds are DRAM and fabric time (the same at any clock).  A
 * cluster turns the table into cycles at its clock once
 * (sim_timing_cycles) and adds them to the accessing hart's cycle count.
 *
 * The spec's figures the table reproduces (four cores, streaming):
 *   - LIM "30 cycles a word";
 *   - a cluster reads its bank at about 1.2 GB/s at 1000 MHz and 1.3 GB/s
 *     at 1750 MHz, alone or with the others (a per-cluster limit:
 *     PORT_LINE, one line per port slot);
 *   - one core alone streams at about 0.74 GB/s (MISS_STREAM; the spec's
 *     map runs 1.74 times faster on four cores than on one, so one core
 *     is well under the cluster's limit), about 20 % slower with the L2
 *     prefetcher at its reset values (MISS_NEXT);
 *   - a FLUSH64 sweep over four cores runs at 5 to 8 GB/s of region at
 *     1750 MHz (FLUSH64, FLUSH64_DIRTY: about 7.7 GB/s clean, 4.8 dirty);
 *   - kmx_push from cached data, 512-byte posted vector stores, 2.3 GB/s
 *     on one core (NOC_POSTED once a store, NOC_LINE a further line: 3.2
 *     GB/s on the write path, the rest the store loop's own loads and
 *     beats).  The write path is one per cluster (sim_port): four cores
 *     pushing at once share its 3.2 GB/s.
 *
 *   name            cycles  ps       what */
#ifndef SIM_TIMING_H
#define SIM_TIMING_H

#include <stdint.h>

/* A NoC round trip from an X280 core, fabric time (the spec's pull through
 * NoC windows at 0.024 GB/s: 8 bytes per 20 cycles + this, 330 ns at 1000
 * MHz).  A write's one-way flight into another cluster's LIM is half of it
 * (SIM_NOC_FLIGHT_PS). */
#define SIM_NOC_ROUND_TRIP_PS 310000u
#define SIM_NOC_FLIGHT_PS (SIM_NOC_ROUND_TRIP_PS / 2u)

#define SIM_TIMING_TABLE(X)                                                                      \
    X(LIM,               30,       0, "a LIM load or store (uncached local memory)")             \
    X(HIT,                2,       0, "a cached-window access whose line is cached")            \
    X(MISS_STREAM,       40,       0, "a miss on a line the L2 prefetcher fetched ahead: "      \
                                      "its refill, when the fetch has arrived")                 \
    X(MISS_NEXT,          0,   60000, "a miss at most 4 lines past a recent miss of the core, "  \
                                      "ascending: the bank streams the walk")                   \
    X(MISS,               0,  250000, "any other miss: a round trip to the bank")               \
    X(PORT_LINE,          9,   44000, "one line on the cluster's read port (the 1.2 GB/s cap)") \
    X(MISS_VLOAD,         0,   67000, "a vector load's miss: no stream discount (the "        \
                                      "prefetcher gives vector reads nothing)")                 \
    X(MISS_VSTORE,        0,   88000, "a vector store's write-allocate miss on a line the "     \
                                      "prefetcher is fetching: 1.3 times a load's (it costs "   \
                                      "vector writes 20-40 %)")                                 \
    X(EVICT_DIRTY,        4,       0, "a miss that evicts a dirty line: handed to a write "     \
                                      "buffer, posted")                                         \
    X(UNCACHED_LOAD,      0,  250000, "a load through the uncached window: a round trip")       \
    X(UNCACHED_STORE,    20,       0, "a store through the uncached window: posted")            \
    X(FLUSH64,           55,       0, "a store to FLUSH64 (line clean or not cached)")          \
    X(FLUSH64_DIRTY,     35,       0, "extra for FLUSH64 on a dirty line: its write-back")      \
    X(MMIO,              20,       0, "a CLINT or NoC window register access")             \
    X(NOC_POSTED,        20,       0, "a posted store through a NoC window")                   \
    X(NOC_NONPOSTED,     20, SIM_NOC_ROUND_TRIP_PS, "a non-posted store through a NoC window: waits "        \
                                      "for the acknowledgement")                               \
    X(NOC_LOAD,          20, SIM_NOC_ROUND_TRIP_PS, "a load through a NoC window: a round trip")      \
    X(NOC_LINE,           0,   20000, "a slot of the cluster's NoC write path: one 64-byte " \
                                      "line of a NoC write, the four cores' lines in turn "  \
                                      "(3.2 GB/s out of a cluster)")

typedef enum sim_timing {
#define SIM_TIMING_ENUM(name, cycles, ps, what) SIM_T_##name,
    SIM_TIMING_TABLE(SIM_TIMING_ENUM)
#undef SIM_TIMING_ENUM
    SIM_T_COUNT
} sim_timing;

/* out[t] = entry t in cycles at mhz (its picoseconds rounded up to whole
 * cycles). */
void sim_timing_cycles(unsigned mhz, uint32_t out[SIM_T_COUNT]);

#endif
