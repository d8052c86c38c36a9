/* 12_host_loop's thread: the number of Collatz steps from its word to 1
 * (3n + 1 when odd, n / 2 when even), counted on core 0 while the host
 * walks the same sequence on the Tensix grid, one command a step.  The
 * count is its first result word, the highest number its second. */
#include "kmx.h"

int kmx_main(int core)
{
    (void)core;
    uint32_t nwords = 0;
    const uint32_t *words = kmx_args_get(&nwords);
    if (nwords < 1 || words[0] == 0)
        return 1;
    uint32_t n = words[0], steps = 0, highest = n;
    /* Bounded by the count: every loop in a thread terminates (a 32-bit
     * start reaches 1 in far fewer steps). */
    while (n != 1 && steps < 100000u) {
        n = n % 2u == 0 ? n / 2u : 3u * n + 1u;
        highest = n > highest ? n : highest;
        steps++;
    }
    kmx_progress(steps);
    uint32_t result[2] = {steps, highest};
    kmx_result(0, result, 2);
    return n == 1 ? 0 : 2;
}
