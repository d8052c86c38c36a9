/* builtins: the grid's built-in handlers (ids KM_HANDLER_* in
 * kmx_layout.h, arguments in km_device.h and km_device(3)).  They use
 * only the handlers' API, plus the job's scratch to combine a group's
 * shares, so they cost modeled time the way a program's kernel would. */
#include <string.h>

#include "grid_internal.h"
#include "sim_grid.h"

/* This core's share [*start, *start + *n) of `units` units: contiguous,
 * in group order, `unit` aligned so that shares do not split lines. */
static void share(const km_core *core, uint64_t units, uint64_t unit, uint64_t *start,
                  uint64_t *n)
{
    uint64_t count = km_group_count(core), index = km_group_index(core);
    uint64_t per = (units + count - 1) / count;
    per = (per + unit - 1) / unit * unit;
    uint64_t s = per * index;
    *start = s < units ? s : units;
    *n = s < units ? (units - s < per ? units - s : per) : 0;
}

/* The leader adds up the group's scratch words (after the others are
 * done) and makes the total its result. */
static void combine(km_core *core, uint64_t own)
{
    uint64_t *scratch = sim_grid_scratch(core);
    scratch[km_group_index(core)] = own;
    if (!km_is_leader(core))
        return;
    sim_grid_wait_members(core);
    uint64_t total = 0;
    for (unsigned i = 0; i < km_group_count(core); i++)
        total += scratch[i];
    km_compute(core, (uint64_t)SIM_GRID_COMBINE_CYCLES * (km_group_count(core) - 1));
    km_set_result(core, (uint32_t)total);
}

static void nop(km_core *core, const km_command_t *command)
{
    km_set_result(core, 0);
}

static void fill(km_core *core, const km_command_t *c)
{
    uint64_t base = KM_ARG_ADDRESS(c->a1, c->a2), start, n;
    share(core, c->a3, BH_LINE_BYTES, &start, &n);
    uint8_t chunk[SIM_GRID_CHUNK_BYTES];
    /* Byte i of the range is pattern byte i % 4 whatever the share. */
    for (size_t i = 0; i < sizeof chunk; i++)
        chunk[i] = (uint8_t)(c->a4 >> 8 * ((start + i) % 4));
    uint64_t failed = 0;
    for (uint64_t done = 0; done < n && !failed;) {
        uint64_t k = n - done < sizeof chunk ? n - done : sizeof chunk;
        failed = km_noc_write(core, c->a0, base + start + done, chunk, k) != 0;
        done += k; /* chunk is a multiple of 4: the phase stays */
    }
    combine(core, failed);
}

static void copy(km_core *core, const km_command_t *c)
{
    uint64_t from = KM_ARG_ADDRESS(c->a1, c->a2), to = KM_ARG_ADDRESS(c->a4, c->a5), start, n;
    share(core, c->a6, BH_LINE_BYTES, &start, &n);
    uint8_t chunk[SIM_GRID_CHUNK_BYTES];
    uint64_t failed = 0;
    for (uint64_t done = 0; done < n && !failed;) {
        uint64_t k = n - done < sizeof chunk ? n - done : sizeof chunk;
        failed = km_noc_read(core, c->a0, from + start + done, chunk, k) != 0 ||
                 km_noc_write(core, c->a3, to + start + done, chunk, k) != 0;
        done += k;
    }
    combine(core, failed);
}

static void sum(km_core *core, const km_command_t *c)
{
    uint64_t base = KM_ARG_ADDRESS(c->a1, c->a2), start, n;
    share(core, c->a3, BH_LINE_BYTES / 4, &start, &n);
    uint32_t chunk[SIM_GRID_CHUNK_BYTES / 4];
    uint32_t total = 0;
    for (uint64_t done = 0; done < n;) {
        uint64_t k = n - done < SIM_GRID_CHUNK_BYTES / 4 ? n - done : SIM_GRID_CHUNK_BYTES / 4;
        if (km_noc_read(core, c->a0, base + 4 * (start + done), chunk, 4 * k) != 0) {
            total = 0; /* a share outside a bank counts 0 */
            break;
        }
        for (uint64_t i = 0; i < k; i++)
            total += chunk[i];
        km_compute(core, (uint64_t)SIM_GRID_SUM_CYCLES_PER_WORD * k);
        done += k;
    }
    combine(core, total);
}

/* In slices of at most 1 µs, so that a stop ends it soon. */
static void spend(km_core *core, const km_command_t *c)
{
    for (uint64_t left = c->a0; left > 0 && !km_stop_requested(core);) {
        uint64_t k = left < 1000u ? left : 1000u;
        km_spend_ns(core, k);
        left -= k;
    }
    km_set_result(core, 0);
}

const km_handler_fn sim_grid_builtins[KM_HANDLER_FIRST_PROGRAM] = {
    [KM_HANDLER_NOP] = nop,
    [KM_HANDLER_FILL] = fill,
    [KM_HANDLER_COPY] = copy,
    [KM_HANDLER_SUM] = sum,
    [KM_HANDLER_SPEND] = spend,
};
