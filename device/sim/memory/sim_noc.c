/* sim_noc.c: the card's NoC router (sim_noc.h). */
#include "sim_noc.h"


#include <string.h>

_Static_assert(SIM_NOC_MAX_TARGETS < INT16_MAX, "target indices fit the tile table");

/* The tile table again, after the targets changed. */
static void index_tiles(sim_noc *n)
{
    memset(n->at, 0xFF, sizeof n->at);
    for (unsigned i = 0; i < n->ntargets; i++) {
        const sim_noc_target *t = &n->targets[i];
        if (t->x < SIM_NOC_COLUMNS && t->y < SIM_NOC_ROWS) {
            n->at[t->x][t->y] = (int16_t)i;
        }
    }
}

void sim_noc_init(sim_noc *n, sim_dram *dram)
{
    memset(n, 0, sizeof *n);
    n->dram = dram;
    n->ntargets = 0;
    /* A bank's three ports each answer for the whole bank. */
    for (unsigned b = 0; b < BH_DRAM_BANKS; b++) {
        for (unsigned p = 0; p < BH_BANK_PORTS; p++) {
            n->targets[n->ntargets++] =
                (sim_noc_target){.x = BH_BANK_PORT_X(b, p), .y = BH_BANK_PORT_Y(b, p),
                                 .kind = SIM_NOC_BANK, .bank = b};
        }
    }
    index_tiles(n);
}

void sim_noc_add_tensix(sim_noc *n, const sim_noc_tile_ops *ops)
{
    n->tensix = *ops;
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        unsigned x = BH_TENSIX_TILE_X(i), y = BH_TENSIX_TILE_Y(i);
        if (sim_noc_find(n, x, y) == NULL && n->ntargets < SIM_NOC_MAX_TARGETS) {
            n->targets[n->ntargets++] =
                (sim_noc_target){.x = x, .y = y, .kind = SIM_NOC_TENSIX, .core = i};
        }
    }
    index_tiles(n);
}

const sim_noc_target *sim_noc_find(const sim_noc *n, unsigned x, unsigned y)
{
    if (x >= SIM_NOC_COLUMNS || y >= SIM_NOC_ROWS || n->at[x][y] < 0) {
        return NULL;
    }
    return &n->targets[n->at[x][y]];
}

int sim_noc_add_lim(sim_noc *n, unsigned cluster, const sim_noc_lim_ops *ops, ks_error *err)
{
    unsigned x = BH_CLUSTER_TILE_X(cluster), y = BH_CLUSTER_TILE_Y(cluster);
    sim_noc_target *t = (sim_noc_target *)sim_noc_find(n, x, y);
    if (t == NULL) {
        if (n->ntargets == SIM_NOC_MAX_TARGETS) {
            return ks_fail(err, KS_ERR_BUG, "the NoC's target table is full");
        }
        t = &n->targets[n->ntargets++];
    }
    *t = (sim_noc_target){.x = x, .y = y, .kind = SIM_NOC_LIM, .cluster = cluster, .lim = *ops};
    index_tiles(n);
    return KS_OK;
}

void sim_noc_remove_lim(sim_noc *n, const void *ctx)
{
    unsigned j = 0;
    for (unsigned i = 0; i < n->ntargets; i++) {
        if (!(n->targets[i].kind == SIM_NOC_LIM && n->targets[i].lim.ctx == ctx)) {
            n->targets[j++] = n->targets[i];
        }
    }
    n->ntargets = j;
    index_tiles(n);
}

static bool in_lim(uint64_t addr, uint64_t size)
{
    return addr - BH_NOC_LIM_BASE < BH_LIM_BYTES && size <= BH_LIM_BYTES - (addr - BH_NOC_LIM_BASE);
}

int sim_noc_load(sim_noc *n, unsigned x, unsigned y, uint64_t addr, unsigned size,
                 uint64_t *value, uint64_t at_ps)
{
    const sim_noc_target *t = sim_noc_find(n, x, y);
    uint64_t v = 0;
    if (t == NULL) {
        return -1;
    }
    if (t->kind == SIM_NOC_TENSIX) {
        if (n->tensix.ctx == NULL || n->tensix.load(n->tensix.ctx, t->core, addr, size, &v, at_ps) != 0) {
            return -1;
        }
    } else if (t->kind == SIM_NOC_LIM) {
        if (!in_lim(addr, size) ||
            t->lim.read(t->lim.ctx, addr - BH_NOC_LIM_BASE + BH_LIM_BASE, &v, size) != KS_OK) {
            return -1;
        }
    } else if (addr >= BH_BANK_BYTES || size > BH_BANK_BYTES - addr ||
               sim_dram_read(n->dram, t->bank, addr, &v, size, NULL) != KS_OK) {
        return -1;
    }
    *value = v;
    return 0;
}

int sim_noc_store(sim_noc *n, unsigned x, unsigned y, uint64_t addr, unsigned size,
                  uint64_t value, uint64_t at_ps)
{
    const sim_noc_target *t = sim_noc_find(n, x, y);
    if (t == NULL) {
        return -1;
    }
    if (t->kind == SIM_NOC_TENSIX) {
        return n->tensix.ctx != NULL
                   ? n->tensix.store(n->tensix.ctx, t->core, addr, size, value, at_ps)
                   : -1;
    }
    if (t->kind == SIM_NOC_LIM) {
        /* write_lim clears the target's reservations on the lines. */
        return in_lim(addr, size) &&
                       t->lim.write(t->lim.ctx, addr - BH_NOC_LIM_BASE + BH_LIM_BASE, &value, size) ==
                           KS_OK
                   ? 0
                   : -1;
    }
    if (addr >= BH_BANK_BYTES || size > BH_BANK_BYTES - addr) {
        return -1;
    }
    /* Around every cache; the bank's watchers clear reservations. */
    return sim_dram_write(n->dram, t->bank, addr, &value, size, NULL) == KS_OK ? 0 : -1;
}

int sim_noc_write(sim_noc *n, unsigned x, unsigned y, uint64_t addr, const void *src,
                  uint64_t bytes)
{
    const sim_noc_target *t = sim_noc_find(n, x, y);
    if (t == NULL || t->kind == SIM_NOC_TENSIX) {
        return -1;
    }
    if (t->kind == SIM_NOC_LIM) {
        return in_lim(addr, bytes) &&
                       t->lim.write(t->lim.ctx, addr - BH_NOC_LIM_BASE + BH_LIM_BASE, src, bytes) ==
                           KS_OK
                   ? 0
                   : -1;
    }
    if (addr >= BH_BANK_BYTES || bytes > BH_BANK_BYTES - addr) {
        return -1;
    }
    return sim_dram_write(n->dram, t->bank, addr, src, bytes, NULL) == KS_OK ? 0 : -1;
}

static void land_one(sim_noc *n, const sim_noc_flight *f)
{
    const sim_noc_target *t = sim_noc_find(n, f->x, f->y);
    if (t != NULL && t->kind == SIM_NOC_LIM) {
        /* write_lim clears the target's reservations on the lines. */
        (void)t->lim.write(t->lim.ctx, f->addr - BH_NOC_LIM_BASE + BH_LIM_BASE, f->data, f->bytes);
    }
}

int sim_noc_post(sim_noc *n, unsigned x, unsigned y, uint64_t addr, const void *src,
                 uint64_t bytes, uint64_t land_ps)
{
    const sim_noc_target *t = sim_noc_find(n, x, y);
    if (t == NULL || t->kind != SIM_NOC_LIM || bytes == 0 || bytes > SIM_NOC_FLIGHT_BYTES ||
        !in_lim(addr, bytes)) {
        return -1;
    }
    if (n->nflights == SIM_NOC_FLIGHTS) {
        land_one(n, &n->flights[0]);
        memmove(&n->flights[0], &n->flights[1], (SIM_NOC_FLIGHTS - 1u) * sizeof n->flights[0]);
        n->nflights--;
    }
    sim_noc_flight *f = &n->flights[n->nflights++];
    f->land_ps = land_ps;
    f->addr = addr;
    f->bytes = (uint32_t)bytes;
    f->x = (uint8_t)x;
    f->y = (uint8_t)y;
    memcpy(f->data, src, bytes);
    return 0;
}

void sim_noc_land(sim_noc *n, uint64_t up_to_ps)
{
    unsigned kept = 0;
    for (unsigned i = 0; i < n->nflights; i++) {
        if (n->flights[i].land_ps <= up_to_ps) {
            land_one(n, &n->flights[i]);
        } else {
            if (kept != i) {
                n->flights[kept] = n->flights[i];
            }
            kept++;
        }
    }
    n->nflights = kept;
}

unsigned sim_noc_in_flight(const sim_noc *n)
{
    return n->nflights;
}
