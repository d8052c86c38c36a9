/* 11_pull's thread: the spec's pull over uneven units (units.h), pass
 * after pass, every unit checked to have run exactly once.
 *
 * Words: [per, small, passes...]: `per` units a range, small units (1 us)
 * or the uneven ones, then the passes to run in order (units.h: 0 equal
 * ranges, 1 COUNT, 2 LOG, 3 REPLAY of that log, 4 COUNT with a pick by
 * cost).  The lead (the lowest cluster) submits each pass's command to
 * the 120 Tensix cores: an equal pass with kmx_submit, a pulled one with
 * kmx_pull_run; any other cluster builds the same pick table and serves
 * (kmx_serve).
 *
 * Before each pass it zeroes region `out`; after it, it checks it (every
 * unit's word set: ran; the cores' unit counts adding up to the units:
 * none ran twice).  After a REPLAY it checks that every core got the ranges
 * the LOG pass gave it, in order (region `replayed` against `log`).
 *
 * Result words, four a pass: the pass's time in us (the command's), the
 * slowest core's busy time over the mean core's (x 1000), the mean wait
 * of a pull in ns, the ranges handed out.  Code 0, or the enum below. */
#include "kmx.h"
#include "kmrun_handlers.h"
#include "../units.h"

enum { OUT, CORES, LOG, REPLAYED };
enum { OK, BAD_WORDS, BAD_REGION, RUN_FAILED, NOT_DONE, UNIT_MISSED, UNIT_TWICE, REPLAY_DIFFERS };

#define MAX_PASSES 10u
#define WAIT_TICKS (KMX_TICKS_PER_SECOND / 10u)

/* The pick by cost: the ranges in decreasing cost, dealt to the cores in
 * snake order (0..119, 119..0, ...); each cluster builds its own copy. */
#define PICK_MAX 24u
static uint16_t pick_range[PULL_CORES][PICK_MAX] __attribute__((section(".data")));
static uint8_t pick_count[PULL_CORES] __attribute__((section(".data")));
static uint16_t by_cost[(PULL_UNITS + 15u) / 16u] __attribute__((section(".data")));
static uint16_t bucket[512] __attribute__((section(".data")));

static void build_pick(uint32_t per, int small)
{
    uint32_t ranges = (PULL_UNITS + per - 1u) / per;
    if (per != 16u || small)
        return; /* the example picks for its own ranges only */
    for (uint32_t i = 0; i < 512u; i++)
        bucket[i] = 0;
    /* Counting sort by cost in us (a range costs at most 16 * 27). */
    for (uint32_t r = 0; r < ranges; r++) {
        uint32_t us = 0;
        for (uint32_t u = r * per; u < r * per + per && u < PULL_UNITS; u++)
            us += pull_unit_ns(u, 0) / 1000u;
        by_cost[r] = (uint16_t)(us > 511u ? 511u : us);
    }
    for (uint32_t r = 0; r < ranges; r++)
        bucket[by_cost[r]]++;
    uint32_t at = 0;
    for (int c = 511; c >= 0; c--) { /* starts of each cost, most costly first */
        uint32_t n = bucket[c];
        bucket[c] = (uint16_t)at;
        at += n;
    }
    static uint16_t order[(PULL_UNITS + 15u) / 16u] __attribute__((section(".data")));
    for (uint32_t r = 0; r < ranges; r++)
        order[bucket[by_cost[r]]++] = (uint16_t)r;
    for (uint32_t c = 0; c < PULL_CORES; c++)
        pick_count[c] = 0;
    for (uint32_t i = 0; i < ranges; i++) {
        uint32_t lap = i / PULL_CORES, k = i % PULL_CORES;
        uint32_t core = lap % 2u == 0 ? k : PULL_CORES - 1u - k;
        if (pick_count[core] < PICK_MAX)
            pick_range[core][pick_count[core]++] = order[i];
    }
}

static uint32_t pick(int core, uint32_t index, uint64_t arg)
{
    (void)arg;
    return index < pick_count[core] ? pick_range[core][index] : KMX_PULL_NONE;
}

typedef struct pass_stats {
    uint32_t us, slowest_over_mean, wait_ns, ranges;
} pass_stats;

/* One pass: the command, its event, and the checks of what it wrote. */
static int run_pass(uint32_t which, uint32_t per, uint32_t small, uint32_t per_core,
                    pass_stats *st)
{
    /* Region `out` zero again after the pass before (the last pass's stays
     * for whoever reads the run folder). */
    uint32_t *zero = kmx_region(OUT, 0);
    for (uint32_t u = 0; u < PULL_UNITS; u++)
        zero[u] = 0;
    kmx_flush(OUT);
    km_command_t command = {0};
    command.hdr = KM_HDR(HANDLER_WORK, 0);
    command.group = KM_GROUP(0, PULL_CORES);
    command.a0 = which;
    command.a1 = small;
    command.a2 = PULL_UNITS;
    command.a3 = PULL_SHARE;
    command.a4 = per_core;
    kmx_event event;
    if (which == PASS_EQUAL) {
        uint32_t handle;
        if (kmx_submit(&command, &handle) != KMX_OK ||
            kmx_wait(handle, kmx_time() + WAIT_TICKS, &event) != KMX_OK)
            return RUN_FAILED;
    } else {
        kmx_pull settings = {.units = PULL_UNITS, .per = per, .mode = KMX_PULL_COUNT, .log = LOG};
        if (which == PASS_LOG)
            settings.mode = KMX_PULL_LOG;
        if (which == PASS_REPLAY)
            settings.mode = KMX_PULL_REPLAY;
        if (which == PASS_PICK)
            settings.pick = pick;
        if (kmx_pull_run(&command, &settings, &event) != KMX_OK)
            return RUN_FAILED;
    }
    if (event.kind != KM_EVENT_DONE)
        return NOT_DONE;

    /* What the handlers wrote through the NoC. */
    kmx_invalidate(OUT);
    kmx_invalidate(CORES);
    const uint32_t *out = kmx_region(OUT, 0);
    const volatile pull_slot *slots = kmx_region(CORES, 0);
    for (uint32_t u = 0; u < PULL_UNITS; u++)
        if (out[u] == 0)
            return UNIT_MISSED;
    uint64_t units = 0, busy_sum = 0, wait_sum = 0, ranges = 0;
    uint32_t busy_max = 0;
    for (uint32_t c = 0; c < PULL_CORES; c++) {
        if (slots[c].units == 0xFFFFFFFFu)
            return RUN_FAILED;
        units += slots[c].units;
        ranges += slots[c].ranges;
        busy_sum += slots[c].busy_ns;
        wait_sum += slots[c].wait_ns;
        if (slots[c].busy_ns > busy_max)
            busy_max = slots[c].busy_ns;
    }
    if (units != PULL_UNITS)
        return UNIT_TWICE; /* every unit ran, so more is twice */
    st->us = (uint32_t)((uint64_t)event.ticks * 1000000u / BH_TICKS_PER_SECOND);
    st->slowest_over_mean = busy_sum ? (uint32_t)((uint64_t)busy_max * 1000u * PULL_CORES / busy_sum) : 0;
    st->wait_ns = ranges ? (uint32_t)(wait_sum / ranges) : 0;
    st->ranges = (uint32_t)ranges;
    return OK;
}

/* Every core got, in the REPLAY pass, the ranges the LOG pass logged for it. */
static int check_replay(uint32_t per, uint32_t per_core)
{
    kmx_invalidate(REPLAYED);
    const volatile uint32_t *log = kmx_region(LOG, 0);
    const volatile uint32_t *replayed = kmx_region(REPLAYED, 0);
    for (uint32_t c = 0; c < PULL_CORES; c++) {
        uint32_t n = log[KMX_PULL_LOG_COUNT_OFFSET(c) / 4u];
        for (uint32_t i = 0; i < n && i < per_core; i++)
            if (replayed[c * per_core + i] != log[KMX_PULL_LOG_RANGE_OFFSET(per_core, c, i) / 4u] * per)
                return REPLAY_DIFFERS;
    }
    return OK;
}

int kmx_main(int core)
{
    (void)core;
    uint32_t nwords = 0;
    const uint32_t *words = kmx_args_get(&nwords);
    if (nwords < 3 || nwords > 2u + MAX_PASSES || words[0] == 0 || words[0] > 1024u)
        return BAD_WORDS;
    uint32_t per = words[0], small = words[1];
    build_pick(per, (int)small);
    if (kmx_cluster() != kmx_lead())
        return kmx_serve() == KMX_OK ? OK : RUN_FAILED;
    uint64_t out_bytes = 0, log_bytes = 0, replayed_bytes = 0;
    if (!kmx_region(OUT, &out_bytes) || out_bytes < 4u * PULL_UNITS || !kmx_region(CORES, 0) ||
        !kmx_region(LOG, &log_bytes) || !kmx_region(REPLAYED, &replayed_bytes))
        return BAD_REGION;
    uint32_t per_core = (uint32_t)((log_bytes / 4u - PULL_CORES) / PULL_CORES);
    if (replayed_bytes < 4u * (uint64_t)PULL_CORES * per_core)
        return BAD_REGION;

    uint32_t result[4u * MAX_PASSES];
    for (uint32_t i = 2; i < nwords; i++) {
        kmx_progress(i - 1u);
        pass_stats st = {0, 0, 0, 0};
        int status = run_pass(words[i], per, small, per_core, &st);
        if (status == OK && words[i] == PASS_REPLAY)
            status = check_replay(per, per_core);
        if (status != OK)
            return status;
        result[4u * (i - 2u)] = st.us;
        result[4u * (i - 2u) + 1u] = st.slowest_over_mean;
        result[4u * (i - 2u) + 2u] = st.wait_ns;
        result[4u * (i - 2u) + 3u] = st.ranges;
    }
    kmx_result(0, result, 4u * (nwords - 2u));
    return OK;
}
