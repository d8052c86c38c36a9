/* bench/fidelity's three-cluster probe (clusters 1, 2, 3; cluster 1 leads,
 * 2 and 3 serve): the spec's "Clusters and banks" rates at the session's
 * 1000 MHz.  Region 0 buf (1 MiB): what each cluster reads; region 1 dst
 * (1 MiB): what the lead pushes into cluster 2's copy.
 *
 * Result words (ticks are 20 ns):
 *   0  clusters 2 and 3 each read their 1 MiB of bank 7 on four cores
 *      (one kmx_parallel_all; the lead's cores idle), ticks
 *   1  all three clusters each read their 1 MiB the same way, ticks
 *   2  the lead's four cores push 1 MiB of its bank (buf, not cached:
 *      just invalidated) into cluster 2's dst, 4 KiB chunks dealt round
 *      (one kmx_parallel), ticks
 *   3  the lead's core 0 pulls 64 KiB of cluster 2's buf: 64-bit loads
 *      through a NoC window onto bank 7 (the other bank's data read,
 *      not pushed), ticks
 *   4  checksum of what the reads saw (every cluster's buf is zeros: 0) */
#include "kmx.h"

#define MIB (1024u * 1024u)
#define CHUNK 4096u
#define PULL (64u * 1024u)
#define PULL_WINDOW 20u /* one the library leaves alone (kmx_layout.h) */

static uint32_t seen __attribute__((section(".data"))) = 1;

static void nothing(int cluster, int core, uint64_t arg)
{
    (void)cluster;
    (void)core;
    (void)arg;
}

/* arg: a mask of clusters; bit 8 set: invalidate instead of reading. */
static void part(int cluster, int core, uint64_t arg)
{
    if (!(arg >> cluster & 1u))
        return;
    uint64_t bytes;
    volatile uint64_t *buf = kmx_region(0, &bytes);
    uint64_t sum = 0;
    for (uint64_t c = (uint64_t)core * CHUNK; c < MIB; c += 4u * CHUNK) {
        if (arg & 0x100u) {
            kmx_invalidate_at(0, c, CHUNK);
            continue;
        }
        volatile uint64_t *q = buf + c / 8u;
        for (unsigned i = 0; i < CHUNK / 8u; i++)
            sum += q[i];
    }
    if (sum != 0)
        seen = 0;
}

static void push_part(int core, void *arg)
{
    const uint8_t *src = arg;
    for (uint64_t c = (uint64_t)core * CHUNK; c < MIB; c += 4u * CHUNK)
        if (kmx_push(2, 1, c, src + c, CHUNK) != KMX_OK)
            seen = 0;
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
    uint64_t bytes, t;
    if (kmx_parallel_all(nothing, 0) != KMX_OK) /* every cluster serves */
        return 2;
    kmx_progress(1);
    if (kmx_parallel_all(part, 0x10eu) != KMX_OK)
        return 2;
    t = kmx_time();
    if (kmx_parallel_all(part, 0x0cu) != KMX_OK)
        return 2;
    words[0] = (uint32_t)(kmx_time() - t);
    if (kmx_parallel_all(part, 0x10eu) != KMX_OK)
        return 2;
    t = kmx_time();
    if (kmx_parallel_all(part, 0x0eu) != KMX_OK)
        return 2;
    words[1] = (uint32_t)(kmx_time() - t);

    kmx_progress(2);
    const void *src = kmx_region(0, &bytes);
    kmx_invalidate(0);
    t = kmx_time();
    if (kmx_parallel(push_part, (void *)src) != KMX_OK)
        return 2;
    words[2] = (uint32_t)(kmx_time() - t);

    kmx_progress(3);
    const volatile kmx_args *a = (const volatile kmx_args *)(uintptr_t)KMX_LIM_ARGS;
    const volatile kmx_peer *q = &a->peers[1];
    uint64_t at = q->bank_base + q->region_bank_address[0];
    uint64_t base = at & ~(uint64_t)(BH_NOC_WINDOW_BYTES - 1u);
    volatile bh_noc_window_reg *w = (volatile bh_noc_window_reg *)(uintptr_t)BH_NOC_WINDOW_REG(PULL_WINDOW);
    w->address = base;
    w->x = q->bank_x;
    w->y = q->bank_y;
    __asm__ volatile("fence" ::: "memory");
    w->mode = BH_NOC_NONPOSTED;
    __asm__ volatile("fence" ::: "memory");
    volatile uint64_t *from = (volatile uint64_t *)(uintptr_t)(BH_NOC_WINDOW(PULL_WINDOW) + (at - base));
    uint64_t sum = 0;
    t = kmx_time();
    for (unsigned i = 0; i < PULL / 8u; i++)
        sum += from[i];
    words[3] = (uint32_t)(kmx_time() - t);
    words[4] = (uint32_t)sum + (seen ? 0u : 1u);
    kmx_progress(4);
    kmx_result(0, words, 5);
    return 0;
}
