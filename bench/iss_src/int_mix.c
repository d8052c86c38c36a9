/* bench/iss: the integer mix — a PRNG and hash loop: xorshift64 steps,
 * a 64-bit multiply, rotates, adds and xors, and two data-dependent
 * branches (one taken at random half the time), ROUNDS times; about 24
 * instructions a round on the hart.  The checksum is the hash. */
#include "bench.h"

#ifndef ROUNDS
#define ROUNDS 22700000
#endif

static volatile uint64_t seed = 0x9e3779b97f4a7c15ull;
static volatile uint64_t rounds = ROUNDS;

static inline uint64_t rotl(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static uint64_t work(void)
{
    uint64_t x = seed, h = 0xcbf29ce484222325ull, odd = 0;
    const uint64_t n = rounds;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13; /* xorshift64 */
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t y = x * 0x2545f4914f6cdd1dull;
        if (y >> 63)
            h = rotl(h ^ y, 23) + i;
        else
            h = (h + (y >> 11)) ^ rotl(h, 41);
        if ((y & 7) == 0)
            odd += y >> 60;
        h ^= h >> 29;
    }
    return h ^ odd;
}

BENCH_MAIN
