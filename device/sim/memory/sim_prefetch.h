/* sim_prefetch: one X280 hart's L2 stride prefetcher as modeled time —
 * its two registers (blackhole.h, BH_L2PF: reset values at a card reset,
 * whatever a core last wrote after that) and the streams they drive.
 *
 * What the SiFive documentation describes, and what is modeled of it:
 *   - A hart's prefetcher follows up to SIM_PF_STREAMS streams (SiFive:
 *     eight a hart); a stream is a line and a stride in lines, ascending
 *     or descending.  A miss one stride past a trained stream's last miss
 *     continues it; otherwise a miss less than `window` lines from an
 *     untrained stream's line trains it (that stride), and any other
 *     starts a new stream in place of the least recently used.
 *   - Training issues `initialDist` prefetches ahead; each miss that
 *     continues the stream issues up to `distance` lines ahead again.
 *     A demand that finds its line's prefetch still in flight counts; at
 *     `hitMSHRThrd` of those the distance grows, by one below
 *     `linToExpThrd` and doubling from there, up to `maxAllowedDist`.
 *   - Each access kind takes part only with its enable: scalar loads
 *     (basicCtrl bit 0), scalar stores, vector loads, vector stores
 *     (additionalCtrl bits 19..21).  All off at reset.
 *   Not modeled: qFullnessThrd (MSHR fullness), hitCacheThrd (retiring a
 *   stream on cache hits), forgiveThrd, crossPageEn (streams cross 4 KiB
 *   pages freely).
 *
 * The prefetch itself fills nothing here: a line stays out of the cache
 * until its demand miss (so what a core sees of memory never depends on
 * the prefetcher).  The demand miss is then charged what the prefetch
 * left of the line's fetch: sim_prefetch_miss says how long it still
 * takes.  A fetch takes `near` cycles on a stream that ascends at most
 * `reach` lines a step (what the bank streams: sim_port.h), `far` on any
 * other (sim_prefetch_timing).  Everything is a pure function of the
 * order of calls. */
#ifndef SIM_PREFETCH_H
#define SIM_PREFETCH_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_PF_STREAMS 8u
#define SIM_PF_RING 64u /* distances are 6-bit fields: at most 63 lines ahead */

typedef enum sim_pf_kind {
    SIM_PF_SCALAR_LOAD,
    SIM_PF_SCALAR_STORE,
    SIM_PF_VECTOR_LOAD,
    SIM_PF_VECTOR_STORE,
} sim_pf_kind;

typedef struct sim_pf_stream {
    uint64_t line;    /* the line of its last miss; 0: the entry is free */
    int64_t stride;   /* lines; 0: not trained yet */
    uint32_t dist;    /* lines ahead it prefetches */
    uint32_t in_flight; /* demands that found their prefetch in flight */
    uint64_t k, front; /* the last demand's index along the stream, the furthest prefetched */
    uint64_t issued[SIM_PF_RING]; /* cycle the prefetch of index i was issued, at i % RING */
} sim_pf_stream;

typedef struct sim_prefetch {
    uint32_t basic, additional; /* the registers */
    uint64_t near, far;         /* a fetch's cycles (sim_prefetch_timing) */
    uint32_t reach;
    sim_pf_stream s[SIM_PF_STREAMS];
    uint8_t order[SIM_PF_STREAMS]; /* stream indices, most recently used first */
    uint64_t issued, covered;      /* prefetches issued; demand misses they covered */
} sim_prefetch;

/* Registers to their reset values, no streams (a card reset); the
 * timing as sim_prefetch_timing gives it. */
void sim_prefetch_reset(sim_prefetch *p, uint64_t near, uint64_t far, uint32_t reach);

/* No streams; the registers keep their values (a core's reset). */
void sim_prefetch_forget(sim_prefetch *p);

/* Register access at `offset` from the hart's BH_L2PF base (BH_L2PF_BASIC
 * or BH_L2PF_ADDITIONAL; false for any other).  A write keeps the
 * read-only bits 0. */
bool sim_prefetch_read(const sim_prefetch *p, uint32_t offset, uint32_t *value);
bool sim_prefetch_write(sim_prefetch *p, uint32_t offset, uint32_t value);

/* A demand miss of kind `kind` on line `line` (bank address / 64) at
 * cycle `now`.  True when the prefetcher had issued the line's fetch:
 * *wait is then the cycles that fetch still takes (0: it has arrived).
 * Either way the streams learn from it (when the kind is enabled). */
bool sim_prefetch_miss(sim_prefetch *p, sim_pf_kind kind, uint64_t line, uint64_t now,
                       uint64_t *wait);

#endif
