/* test_random: the one pseudo-random sequence the unit tests draw from —
 * Marsaglia's xorshift64 (shifts 13, 7, 17) over a state the caller owns
 * and seeds, so that a test gives the same sequence on every run and
 * machine, and two tests never share a state. */
#ifndef TEST_RANDOM_H
#define TEST_RANDOM_H

#include <stdint.h>

/* The next number of the sequence in *state (which must not be 0). */
static inline uint64_t test_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
