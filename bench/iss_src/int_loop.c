/* bench/iss: the integer loop of int_loop.S in C, the native baseline.
 * Prints the nanoseconds the loop took and the checksum (& 0x7f). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000;
    /* volatile start values: nothing is known at compile time */
    volatile uint64_t v0 = 1, v1 = 2, v2 = 3;
    uint64_t a0 = v0, a1 = v1, a2 = v2;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t i = n; i != 0; i--) {
        a0 += a1;
        a1 ^= a2;
        uint64_t a3 = a0 << 3;
        uint64_t a4 = a1 >> 5;
        a2 += a3;
        a0 ^= a4;
        a1 += 7;
        a2 -= a0;
        __asm__ volatile("" : "+r"(a0), "+r"(a1), "+r"(a2)); /* one iteration at a time */
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%lld %llu\n",
           (long long)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)),
           (unsigned long long)((a0 ^ a1 ^ a2) & 0x7f));
    return 0;
}
