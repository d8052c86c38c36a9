/* sim_clock: the simulated card's one time base.
 *
 * Modeled time is a count of picoseconds from the card's start (uint64_t:
 * about 213 days).  The X280 cores count cycles of one PLL that clocks
 * all four clusters, at SIM_MHZ_DEFAULT or SIM_MHZ_FAST (the manifest's
 * x280_mhz); cycle k of a cluster begins at sim_cycles_to_ps(k).  The
 * CLINT's mtime counts BH_TICKS_PER_SECOND from the same start.
 *
 * The conversions are exact floors (1750 MHz is not a whole number of
 * picoseconds a cycle) and split so that nothing overflows: a run is the
 * same on every host, every time. */
#ifndef SIM_CLOCK_H
#define SIM_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "blackhole.h"

#define SIM_MHZ_DEFAULT 1000u /* the session's X280 clock */
#define SIM_MHZ_FAST 1750u    /* the opt-in */

/* One mtime tick, in picoseconds (20,000 at 50 MHz). */
#define SIM_PS_PER_TICK (BH_PS_PER_SECOND / BH_TICKS_PER_SECOND)
_Static_assert(BH_PS_PER_SECOND % BH_TICKS_PER_SECOND == 0,
               "an mtime tick is a whole number of picoseconds");

static inline bool sim_mhz_valid(unsigned mhz)
{
    return mhz == SIM_MHZ_DEFAULT || mhz == SIM_MHZ_FAST;
}

static inline uint64_t sim_cycles_to_ps_at(uint64_t cycles, unsigned mhz)
{
    return cycles / mhz * BH_PS_PER_US + cycles % mhz * BH_PS_PER_US / mhz;
}

static inline uint64_t sim_ps_to_cycles_at(uint64_t ps, unsigned mhz)
{
    return ps / BH_PS_PER_US * mhz + ps % BH_PS_PER_US * mhz / BH_PS_PER_US;
}

/* The start of cycle `cycles`: floor(cycles * 1e6 / mhz) picoseconds.
 * (The two clocks are spelled out so that their divisions are by
 * constants: multiplications, not divide instructions; same values.) */
static inline uint64_t sim_cycles_to_ps(uint64_t cycles, unsigned mhz)
{
    if (mhz == SIM_MHZ_DEFAULT)
        return sim_cycles_to_ps_at(cycles, SIM_MHZ_DEFAULT);
    if (mhz == SIM_MHZ_FAST)
        return sim_cycles_to_ps_at(cycles, SIM_MHZ_FAST);
    return sim_cycles_to_ps_at(cycles, mhz);
}

/* The cycle running at `ps`: floor(ps * mhz / 1e6). */
static inline uint64_t sim_ps_to_cycles(uint64_t ps, unsigned mhz)
{
    if (mhz == SIM_MHZ_DEFAULT)
        return sim_ps_to_cycles_at(ps, SIM_MHZ_DEFAULT);
    if (mhz == SIM_MHZ_FAST)
        return sim_ps_to_cycles_at(ps, SIM_MHZ_FAST);
    return sim_ps_to_cycles_at(ps, mhz);
}

/* The first cycle that begins at or after `ps`. */
static inline uint64_t sim_ps_to_cycles_ceil(uint64_t ps, unsigned mhz)
{
    uint64_t c = sim_ps_to_cycles(ps, mhz);
    return sim_cycles_to_ps(c, mhz) < ps ? c + 1 : c;
}

/* CLINT mtime at `ps`. */
static inline uint64_t sim_ps_to_mtime(uint64_t ps)
{
    return ps / SIM_PS_PER_TICK;
}

#endif
