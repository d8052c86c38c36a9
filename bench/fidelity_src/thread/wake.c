/* bench/fidelity's wakes (clusters 2 and 3; cluster 2 leads): one
 * cluster wakes another and gets an answer (spec "Clusters and banks":
 * 0.66 us through a flag in the other's local memory, 1.2 us through a
 * shared bank-7 region), at 1000 MHz.
 *
 * Through local memory: cluster 2's core 0 stores round r into cluster
 * 3's inbox through a NoC window; cluster 3's core 0 reads its inbox
 * until it sees r, then stores r into cluster 2's inbox the same way;
 * cluster 2 reads its own until it sees r (100 rounds inside one
 * kmx_parallel_all).  The inbox is the first word of a cluster's pull
 * counters (KMX_LIM_PULL), a line of local memory other clusters may
 * write, which this program, pulling nothing, leaves to us.  Also timed:
 * an empty kmx_parallel_all, which wakes the other the same way through
 * the library's windows and runs the function on each cluster's cores.
 *
 * Through the shared region (region 0, `flags`, named by both): cluster
 * 2's core 0 writes round r into line 0 and flushes it; cluster 3's core
 * 0 invalidates and reads line 0 until it sees r, then writes r into
 * line 1 and flushes it; cluster 2 invalidates and reads line 1 until it
 * sees r (100 rounds, inside one kmx_parallel_all).  Every wait is
 * bounded by a count and the stop.
 *
 * Result words (the lead; cluster 3: kmx_serve's status):
 *   0  100 empty kmx_parallel_all calls, ticks (20 ns)
 *   1  100 rounds through the shared region, ticks
 *   2  rounds answered (100)
 *   3  100 rounds through local memory, ticks
 *   4  rounds answered (100) */
#include "kmx.h"

#define ROUNDS 100u
#define SPINS 100000u

static uint32_t answered __attribute__((section(".data"))) = 1;
static uint32_t ticks __attribute__((section(".data"))) = 1;

#define inbox (*(volatile uint32_t *)(uintptr_t)KMX_LIM_PULL)
#define WINDOW 21u /* one the library leaves alone (kmx_layout.h) */

/* The other cluster's inbox through WINDOW, opened non-posted. */
static volatile uint32_t *their_inbox(int cluster)
{
    const volatile kmx_args *a = (const volatile kmx_args *)(uintptr_t)KMX_LIM_ARGS;
    const volatile kmx_peer *q = &a->peers[cluster - 1];
    uint64_t at = q->lim + (KMX_LIM_PULL - BH_LIM_BASE);
    uint64_t base = at & ~(uint64_t)(BH_NOC_WINDOW_BYTES - 1u);
    volatile bh_noc_window_reg *w = (volatile bh_noc_window_reg *)(uintptr_t)BH_NOC_WINDOW_REG(WINDOW);
    w->address = base;
    w->x = q->noc_x;
    w->y = q->noc_y;
    __asm__ volatile("fence" ::: "memory");
    w->mode = BH_NOC_NONPOSTED;
    __asm__ volatile("fence" ::: "memory");
    return (volatile uint32_t *)(uintptr_t)(BH_NOC_WINDOW(WINDOW) + (at - base));
}

static int look(uint32_t r)
{
    for (uint32_t s = 0; s < SPINS && !kmx_stop_requested(); s++)
        if (inbox == r)
            return 1;
    return 0;
}

static void ping_lim(int cluster, int core, uint64_t arg)
{
    (void)arg;
    if (core != 0)
        return;
    volatile uint32_t *other = their_inbox(cluster == 2 ? 3 : 2);
    if (cluster == 2) {
        uint32_t n = 0;
        uint64_t t = kmx_time();
        for (uint32_t r = 1; r <= ROUNDS; r++) {
            *other = r;
            n += (uint32_t)look(r);
        }
        ticks = (uint32_t)(kmx_time() - t);
        answered = n;
    } else {
        for (uint32_t r = 1; r <= ROUNDS; r++) {
            if (!look(r))
                return;
            *other = r;
        }
    }
}

static void nothing(int cluster, int core, uint64_t arg)
{
    if (core == 0)
        inbox = 0;
    (void)cluster;
    (void)core;
    (void)arg;
}

static int await(volatile uint32_t *line, uint32_t id, uint64_t offset, uint32_t r)
{
    for (uint32_t s = 0; s < SPINS && !kmx_stop_requested(); s++) {
        kmx_invalidate_at(id, offset, 64);
        if (*line == r)
            return 1;
    }
    return 0;
}

static void ping(int cluster, int core, uint64_t arg)
{
    (void)arg;
    if (core != 0)
        return;
    uint64_t bytes;
    volatile uint32_t *flags = kmx_region(0, &bytes);
    if (cluster == 2) {
        uint32_t n = 0;
        uint64_t t = kmx_time();
        for (uint32_t r = 1; r <= ROUNDS; r++) {
            flags[0] = r;
            kmx_flush_at(0, 0, 64);
            n += (uint32_t)await(flags + 16, 0, 64, r);
        }
        ticks = (uint32_t)(kmx_time() - t);
        answered = n;
    } else {
        for (uint32_t r = 1; r <= ROUNDS; r++) {
            if (!await(flags, 0, 0, r))
                return;
            flags[16] = r;
            kmx_flush_at(0, 64, 64);
        }
    }
}

int kmx_main(int core)
{
    (void)core;
    if (kmx_cluster() != kmx_lead()) {
        uint32_t status = (uint32_t)kmx_serve();
        kmx_result(0, &status, 1);
        return status == KMX_OK ? 0 : 2;
    }
    uint32_t words[5] = {0, 0, 0, 0, 0};
    if (kmx_parallel_all(nothing, 0) != KMX_OK) /* cluster 3 serves */
        return 2;
    uint64_t t = kmx_time();
    for (unsigned i = 0; i < 100u; i++)
        if (kmx_parallel_all(nothing, 0) != KMX_OK)
            return 2;
    words[0] = (uint32_t)(kmx_time() - t);
    kmx_invalidate(0);
    if (kmx_parallel_all(ping, 0) != KMX_OK)
        return 2;
    words[1] = ticks;
    words[2] = answered;
    inbox = 0;
    if (kmx_parallel_all(nothing, 0) != KMX_OK) /* cluster 3's inbox 0 too */
        return 2;
    if (kmx_parallel_all(ping_lim, 0) != KMX_OK)
        return 2;
    words[3] = ticks;
    words[4] = answered;
    kmx_result(0, words, 5);
    return 0;
}
