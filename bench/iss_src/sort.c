/* bench/iss: the sort — ROUNDS times, KEYS 32-bit keys (800 KiB) from a
 * xorshift32 generator sorted in place by a quicksort (median of three,
 * Hoare partition, the smaller side first so the stack stays shallow,
 * insertion sort under 16 keys); then every key is folded into the
 * checksum, which also records any key out of order. */
#include "bench.h"

#ifndef KEYS
#define KEYS 200000
#endif
#ifndef ROUNDS
#define ROUNDS 10
#endif

static volatile uint32_t seed = 2463534242u;
static volatile uint32_t rounds = ROUNDS;
static uint32_t key[KEYS];

static void insertion(uint32_t *a, long n)
{
    for (long i = 1; i < n; i++) {
        uint32_t v = a[i];
        long j = i;
        for (; j > 0 && a[j - 1] > v; j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

static void quick(uint32_t *a, long n)
{
    while (n > 16) {
        uint32_t x = a[0], y = a[n / 2], z = a[n - 1], p;
        if (x < y)
            p = y < z ? y : (x < z ? z : x);
        else
            p = x < z ? x : (y < z ? z : y);
        long i = -1, j = n;
        for (;;) {
            do
                i++;
            while (a[i] < p);
            do
                j--;
            while (a[j] > p);
            if (i >= j)
                break;
            uint32_t t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        /* a[0..j] <= p <= a[j+1..n-1] */
        long left = j + 1;
        if (left < n - left) {
            quick(a, left);
            a += left;
            n -= left;
        } else {
            quick(a + left, n - left);
            n = left;
        }
    }
    insertion(a, n);
}

static uint64_t work(void)
{
    uint32_t x = seed;
    uint64_t sum = 0;
    for (uint32_t r = rounds; r != 0; r--) {
        for (long i = 0; i < KEYS; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            key[i] = x;
        }
        quick(key, KEYS);
        for (long i = 0; i < KEYS; i++) {
            sum = sum * 31 + key[i];
            if (i > 0 && key[i - 1] > key[i])
                sum ^= 0x5555;
        }
    }
    return sum;
}

BENCH_MAIN
