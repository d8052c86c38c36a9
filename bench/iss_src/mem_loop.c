/* bench/iss: the memory-bound loop of mem_loop.S in C, the native
 * baseline.  Prints the nanoseconds the loop took and the checksum
 * folded to 7 bits. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WORDS 8192

static uint64_t array[WORDS];

int main(int argc, char **argv)
{
    uint64_t passes = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000;
    volatile uint64_t start = 0x9e3779b97f4a7c15ull;
    uint64_t sum = 0, add = start;
    for (uint64_t i = 0; i < WORDS; i++)
        array[i] = i * 0x100000001ull + 12345;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t p = passes; p != 0; p--) {
        for (uint64_t *q = array; q != array + WORDS; q++) {
            uint64_t v = *q + add;
            *q = v;
            sum ^= v;
        }
        add++;
        __asm__ volatile("" ::: "memory");
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    sum ^= sum >> 32;
    sum ^= sum >> 16;
    sum ^= sum >> 8;
    printf("%lld %llu\n",
           (long long)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)),
           (unsigned long long)(sum & 0x7f));
    return 0;
}
