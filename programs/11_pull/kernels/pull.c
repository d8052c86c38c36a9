/* 11_pull's kernel: one handler, `work` (spec "The pull").
 *
 * Arguments: a0 the pass (units.h), a1 small units (1 us each) or not,
 * a2 units, a3 the range of an equal pass (units a core).
 *
 * An equal pass runs core i's share [i * a3, (i + 1) * a3); a pulled pass
 * runs the ranges km_port_next gives until it gives 0.  Each unit costs
 * its modeled time (km_spend_ns); then the range's output goes to region
 * `out` of the thread on cluster 1: one word a unit, core + 1 (the thread
 * checks that every unit ran exactly once), and, on a REPLAY pass, the
 * ranges' first units in order to region `replayed` (slot of per_core
 * words a core, a4 of them).  Last, its pull_slot into region `cores`. */
#include "km_device.h"
#include "kmrun_handlers.h"
#include "../units.h"

#define RANGE_MAX 1024u /* units a range may have */

typedef struct place {
    unsigned bank;
    uint64_t at, bytes;
} place;

static bool region(km_core *core, const char *name, place *p)
{
    return km_region_address(core, 1, name, &p->bank, &p->at, &p->bytes) == 0;
}

/* Runs units [first, first + count) and writes their output words. */
static bool run(km_core *core, const place *out, uint32_t first, uint32_t count, int small)
{
    uint32_t words[RANGE_MAX];
    if (count > RANGE_MAX || (uint64_t)(first + count) * 4u > out->bytes)
        return false;
    for (uint32_t u = first; u < first + count; u++) {
        km_spend_ns(core, pull_unit_ns(u, small));
        words[u - first] = km_core_id(core) + 1u;
    }
    return km_noc_write(core, out->bank, out->at + 4u * (uint64_t)first, words, 4u * count) == 0;
}

KM_HANDLER(work)
{
    uint32_t pass = command->a0, units = command->a2, share = command->a3;
    uint32_t per_core = command->a4, id = km_core_id(core);
    int small = command->a1 != 0;
    uint64_t start = km_time_ps(core), waited = 0, busy = 0;
    pull_slot slot = {0, 0, 0, 0};
    place out, cores, replayed;
    if (!region(core, "out", &out) || !region(core, "cores", &cores))
        return;
    bool ok = true;
    if (pass == PASS_EQUAL) {
        uint64_t first = (uint64_t)id * share;
        uint32_t count = first >= units ? 0 : (uint32_t)(units - first < share ? units - first : share);
        for (uint32_t done = 0; ok && done < count; done += RANGE_MAX) {
            uint32_t n = count - done < RANGE_MAX ? count - done : RANGE_MAX;
            ok = run(core, &out, (uint32_t)first + done, n, small);
        }
        slot.units = count;
        slot.ranges = count > 0;
        busy = km_time_ps(core) - start;
    } else {
        km_port *port = km_port_of(core, KM_KERNEL_READER);
        bool log = pass == PASS_REPLAY && region(core, "replayed", &replayed);
        uint32_t first, count;
        for (;;) {
            uint64_t before = km_time_ps(core);
            count = km_port_next(port, &first);
            waited += km_time_ps(core) - before;
            if (count == 0)
                break;
            if (log && slot.ranges < per_core)
                (void)km_noc_write(core, replayed.bank,
                                   replayed.at + 4u * ((uint64_t)id * per_core + slot.ranges),
                                   &first, 4u);
            ok = ok && run(core, &out, first, count, small);
            slot.units += count;
            slot.ranges++;
            busy = km_time_ps(core) - start;
        }
    }
    slot.busy_ns = (uint32_t)(busy / 1000u);
    slot.wait_ns = (uint32_t)(waited / 1000u);
    if (!ok)
        slot.units = 0xFFFFFFFFu; /* the thread sees it */
    (void)km_noc_write(core, cores.bank, cores.at + sizeof slot * (uint64_t)id, &slot, sizeof slot);
}
