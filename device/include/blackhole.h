/* blackhole: facts of the card kmrun models that hold whoever runs a
 * program — the simulated card, the host fallback beside it, a real card.
 *
 * Time: every figure a run reports is a count of picoseconds from the
 * card's start (the simulator's modeled time; the host fallback's wall
 * time), shown in microseconds. */
#ifndef BLACKHOLE_H
#define BLACKHOLE_H

#define BH_PS_PER_SECOND 1000000000000ull
#define BH_PS_PER_US 1000000ull

#endif
