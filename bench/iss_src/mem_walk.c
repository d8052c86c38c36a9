/* bench/iss: the memory walk — a 4 MiB array written once and then walked
 * PASSES times a 64-byte line at a time (each pass one word of every line,
 * a different word each pass), and a pointer chase: a 256 KiB ring of
 * 32-bit links made one random cycle (Sattolo's shuffle) and followed for
 * STEPS steps, every load's address the previous load's value.  The
 * checksum is the sum of what was read.
 *
 * Why the chase is over 256 KiB, not the 4 MiB: QEMU's TCG looks up each
 * access's page in a software TLB of 256 entries (1 MiB) that it grows only
 * when it flushes, which a bare-metal M-mode program never makes it do; a
 * random chase over 4 MiB measures QEMU's TLB refills (it then runs slower
 * than kmrun), not the interpreter.  Links are indexes, not pointers, so
 * that the hart (RV64) and the native build (x86-64) read the same bytes. */
#include "bench.h"

#ifndef WORDS
#define WORDS (1u << 20) /* 4 MiB */
#endif
#ifndef PASSES
#define PASSES 16
#endif
#ifndef RING
#define RING (1u << 16) /* 256 KiB */
#endif
#ifndef STEPS
#define STEPS 7000000
#endif

static volatile uint32_t seed = 2463534242u;
static volatile uint32_t steps = STEPS;
static uint32_t data[WORDS];
static uint32_t ring[RING];

static uint64_t work(void)
{
    uint32_t x = seed;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < WORDS; i++)
        data[i] = i * 2654435761u ^ x;
    for (uint32_t pass = 0; pass < PASSES; pass++)
        for (uint32_t i = pass & 15; i < WORDS; i += 16)
            sum += data[i];

    for (uint32_t i = 0; i < RING; i++)
        ring[i] = i;
    for (uint32_t i = RING - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        uint32_t j = (uint32_t)(((uint64_t)x * i) >> 32); /* 0 .. i-1 */
        uint32_t t = ring[i];
        ring[i] = ring[j];
        ring[j] = t;
    }
    uint32_t p = 0;
    for (uint32_t k = steps; k != 0; k--) {
        p = ring[p];
        sum += p;
    }
    return sum;
}

BENCH_MAIN
