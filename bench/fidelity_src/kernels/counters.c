/* bench/fidelity's Tensix-only pages (spec "Where data lives": the
 * rasterizer's counters, 247 us in bank 6): handler `count` (a0: rounds).
 * Each core of the group owns one 4 KiB page of 1,024 counters in region
 * `counters` of the thread on cluster 1 (bank 6), page km_core_id; a
 * round reads the page over the NoC, adds this round's counts (1,024
 * additions on the core) and writes it back.  The leader's result word:
 * pages that failed to move (0). */
#include "km_device.h"
#include "kmrun_handlers.h"

#define COUNTERS 1024u
#define PAGE (COUNTERS * 4u)

KM_HANDLER(count)
{
    unsigned bank;
    uint64_t at, bytes, id = km_core_id(core);
    uint32_t page[COUNTERS];
    uint32_t failed = 0;
    if (km_region_address(core, 1, "counters", &bank, &at, &bytes) != 0 || (id + 1u) * PAGE > bytes) {
        km_set_result(core, 1);
        return;
    }
    at += id * PAGE;
    for (uint32_t r = 0; r < command->a0; r++) {
        failed += km_noc_read(core, bank, at, page, PAGE) != 0;
        for (uint32_t i = 0; i < COUNTERS; i++)
            page[i] += (uint32_t)(id + i + r) & 7u;
        km_compute(core, COUNTERS);
        failed += km_noc_write(core, bank, at, page, PAGE) != 0;
    }
    if (km_is_leader(core))
        km_set_result(core, failed);
}
