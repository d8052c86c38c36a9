/* bench/iss: the frame of the four C programs (int_mix.c, sort.c,
 * mem_walk.c, fp.c).  Each defines `static uint64_t work(void)` and ends
 * with BENCH_MAIN.  The same file is built twice:
 *   - for the hart (riscv64-unknown-elf-gcc, with crt.S): main returns
 *     the checksum folded to 7 bits, which crt.S writes to tohost, so the
 *     checksum is the exit code under `kmrun exec` and under QEMU's spike
 *     machine alike;
 *   - natively (cc -O2 -DNATIVE): main times work() and prints
 *     "NANOSECONDS CHECKSUM", the baseline bench/iss sets the hart against.
 * Every input comes through `volatile` so that neither compiler can fold
 * the work away, and every type has a fixed width so that both builds
 * compute the same checksum. */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>

/* The checksum folded to 7 bits: an exit code both HTIF hosts keep. */
static inline unsigned bench_fold(uint64_t s)
{
    s ^= s >> 32;
    s ^= s >> 16;
    s ^= s >> 8;
    return (unsigned)(s & 0x7f);
}

#ifdef NATIVE
#include <stdio.h>
#include <time.h>
#define BENCH_MAIN                                                           \
    int main(void)                                                           \
    {                                                                        \
        struct timespec t0, t1;                                              \
        clock_gettime(CLOCK_MONOTONIC, &t0);                                 \
        uint64_t s = work();                                                 \
        clock_gettime(CLOCK_MONOTONIC, &t1);                                 \
        printf("%lld %u\n",                                                  \
               (long long)((t1.tv_sec - t0.tv_sec) * 1000000000LL +          \
                           (t1.tv_nsec - t0.tv_nsec)),                       \
               bench_fold(s));                                               \
        return 0;                                                            \
    }
#else
#define BENCH_MAIN                                                           \
    int main(void) { return (int)bench_fold(work()); }
#endif

#endif
