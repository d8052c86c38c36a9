/* 11_pull's units, shared by the thread and the kernels: how many, what
 * each costs, and the passes the thread runs.
 *
 * The uneven units (the spec's "The pull"): 31,000 of 15 to 27 us.  Unit u
 * costs 15 us + 12 us * x^4, x a fixed pseudo-random fraction of u (a hash:
 * the same every run), 17.4 us on average; the 259 units of core 37's
 * equal share (units 9,583 to 9,841) cost 27 us each.  So with equal
 * ranges one core has 6.99 ms of work and the mean core 4.5 ms: the
 * slowest over the mean is 1.54, as the spec's example.  The small units
 * cost 1 us each. */
#ifndef PULL_UNITS_H
#define PULL_UNITS_H

#include <stdint.h>

#define PULL_UNITS 31000u
#define PULL_CORES 120u
#define PULL_SHARE ((PULL_UNITS + PULL_CORES - 1u) / PULL_CORES) /* 259 */
#define PULL_HOT_CORE 37u
#define PULL_SMALL_NS 1000u

/* Passes (the command's a0, the thread's words). */
enum {
    PASS_EQUAL,   /* equal ranges: each core its share, no pull */
    PASS_COUNT,   /* pulled, KMX_PULL_COUNT with the counter */
    PASS_LOG,     /* pulled, KMX_PULL_LOG */
    PASS_REPLAY,  /* pulled, KMX_PULL_REPLAY of the log */
    PASS_PICK,    /* pulled, COUNT with a pick by cost */
};

/* The cost of unit u in ns (small: every unit 1 us). */
static inline uint32_t pull_unit_ns(uint32_t u, int small)
{
    if (small)
        return PULL_SMALL_NS;
    if (u - PULL_HOT_CORE * PULL_SHARE < PULL_SHARE)
        return 27000u;
    uint32_t x = u * 2654435761u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    uint64_t f = x >> 16, f2 = f * f >> 16, f4 = f2 * f2 >> 16;
    return 15000u + (uint32_t)(12000u * f4 >> 16);
}

/* What a core reports of a pass, in region `cores` (one slot a core). */
typedef struct pull_slot {
    uint32_t units;   /* units it ran */
    uint32_t ranges;  /* ranges it got */
    uint32_t busy_ns; /* from its start to the end of its last unit */
    uint32_t wait_ns; /* in km_port_next, waiting for ranges */
} pull_slot;

#endif
