/* Tests for device/sim/memory/sim_noc.c and the NoC windows of
 * sim_cluster_mem.c: a store through a window lands in another cluster's
 * LIM or in a DRAM bank (around every cache), loads come back, closed
 * windows and unknown tiles fault, `mode` written last takes effect,
 * stores end the target's LR/SC reservations, and the costs are charged.
 *
 * Two clusters' memories (1 and 2) on one card and one router; fake harts
 * (zeroed sim_hart structs) call the callbacks directly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sim_clock.h"
#include "sim_cluster.h"
#include "sim_noc.h"

typedef struct fixture {
    sim_dram dram;
    sim_noc noc;
    sim_cluster_mem cm[2]; /* clusters 1 and 2 */
    sim_hart fake[2][BH_CLUSTER_CORES];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    ks_error err = {0};
    sim_dram_init(&f->dram);
    sim_noc_init(&f->noc, &f->dram);
    for (unsigned k = 0; k < 2; k++) {
        assert_int_equal(sim_cluster_mem_init(&f->cm[k], &f->dram, k + 1u, SIM_MHZ_DEFAULT, &err),
                         KS_OK);
        assert_int_equal(sim_cluster_mem_attach_noc(&f->cm[k], &f->noc, &err), KS_OK);
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
            f->fake[k][i].hartid = i;
            f->fake[k][i].mem = &f->cm[k].mem;
            f->fake[k][i].state = SIM_HART_RUNNING;
            f->cm[k].mem.harts[i] = &f->fake[k][i];
        }
        f->cm[k].mem.nharts = BH_CLUSTER_CORES;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    for (unsigned k = 0; k < 2; k++) {
        sim_cluster_mem_free(&f->cm[k]);
    }
    sim_dram_free(&f->dram);
    free(f);
    return 0;
}

static int st(sim_cluster_mem *cm, sim_hart *h, uint64_t addr, unsigned size, uint64_t v)
{
    return sim_cluster_mem_store(&cm->mem, h, addr, size, v);
}

static int ld(sim_cluster_mem *cm, sim_hart *h, uint64_t addr, unsigned size, uint64_t *v)
{
    return sim_cluster_mem_load(&cm->mem, h, addr, size, v);
}

/* Opens window w of cm as a core would: address, x, y, then mode. */
static void open_window(sim_cluster_mem *cm, unsigned w, unsigned x, unsigned y,
                        uint64_t address, uint32_t mode)
{
    uint64_t r = BH_NOC_WINDOW_REG(w);
    assert_int_equal(st(cm, NULL, r + offsetof(bh_noc_window_reg, address), 8, address), 0);
    assert_int_equal(st(cm, NULL, r + offsetof(bh_noc_window_reg, x), 2, x), 0);
    assert_int_equal(st(cm, NULL, r + offsetof(bh_noc_window_reg, y), 2, y), 0);
    assert_int_equal(st(cm, NULL, r + offsetof(bh_noc_window_reg, mode), 4, mode), 0);
}

/* Flights land in the order sent, each once its time has come; a load
 * through a window lands what was sent before it; with SIM_NOC_FLIGHTS
 * in flight the oldest lands early to make room. */
static void flights_in_order(void **state)
{
    fixture *f = *state;
    sim_hart *h = &f->fake[0][0];
    uint64_t at = BH_LIM_BASE + 0x2000u, got = 0;
    open_window(&f->cm[0], 1, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u),
                BH_NOC_LIM_BASE + 0x2000u, BH_NOC_POSTED);
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(1), 8, 1), 0);
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(1), 8, 2), 0);
    assert_int_equal(sim_noc_in_flight(&f->noc), 2);
    /* the load's request arrives behind both */
    assert_int_equal(ld(&f->cm[0], h, BH_NOC_WINDOW(1), 8, &got), 0);
    assert_int_equal(got, 2);
    assert_int_equal(sim_noc_in_flight(&f->noc), 0);
    /* a full queue: the oldest lands at once */
    uint64_t v = 0x77;
    for (unsigned i = 0; i < SIM_NOC_FLIGHTS; i++)
        assert_int_equal(sim_noc_post(&f->noc, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u),
                                      BH_NOC_LIM_BASE + 0x2000u + 8u * i, &v, 8, UINT64_MAX),
                         0);
    assert_int_equal(sim_noc_in_flight(&f->noc), SIM_NOC_FLIGHTS);
    assert_int_equal(sim_noc_post(&f->noc, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u),
                                  BH_NOC_LIM_BASE + 0x3000u, &v, 8, UINT64_MAX),
                     0);
    assert_int_equal(sim_noc_in_flight(&f->noc), SIM_NOC_FLIGHTS);
    assert_int_equal(sim_cluster_mem_read_lim(&f->cm[1], at, &got, 8, NULL), KS_OK);
    assert_int_equal(got, 0x77);
    assert_int_equal(sim_cluster_mem_read_lim(&f->cm[1], at + 8u, &got, 8, NULL), KS_OK);
    assert_int_equal(got, 0);
    /* not a LIM, not inside it, too long: refused */
    assert_int_equal(sim_noc_post(&f->noc, BH_BANK_TILE_X(5u), BH_BANK_TILE_Y(5u), 0, &v, 8, 0), -1);
    assert_int_equal(sim_noc_post(&f->noc, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u),
                                  BH_NOC_LIM_BASE + BH_LIM_BYTES, &v, 8, 0),
                     -1);
    uint8_t big[SIM_NOC_FLIGHT_BYTES + 1] = {0};
    assert_int_equal(sim_noc_post(&f->noc, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u),
                                  BH_NOC_LIM_BASE, big, sizeof big, 0),
                     -1);
    sim_noc_land(&f->noc, UINT64_MAX);
    assert_int_equal(sim_noc_in_flight(&f->noc), 0);
}

/* A store from cluster 1 through a window flies SIM_NOC_FLIGHT_PS and
 * takes a LIM access, then lands in cluster 2's LIM; a load reads it back through the window; the
 * target's reservation ends when it lands. */
static void store_lands_in_other_lim(void **state)
{
    fixture *f = *state;
    sim_hart *h = &f->fake[0][0];
    sim_hart *other = &f->fake[1][2];
    uint64_t flag = BH_LIM_BASE + 0x1000u;
    open_window(&f->cm[0], 1, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u),
                BH_NOC_LIM_BASE + 0x1000u, BH_NOC_NONPOSTED);
    other->reserved = true;
    other->reservation = flag;
    h->cycle = 1000; /* 1 us */
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(1) + 8u, 8, 0x1122334455667788ull), 0);
    uint64_t got = 0;
    ks_error err = {0};
    /* In flight: not there yet, the reservation holds. */
    assert_int_equal(sim_noc_in_flight(&f->noc), 1);
    assert_int_equal(sim_cluster_mem_read_lim(&f->cm[1], flag + 8u, &got, 8, &err), KS_OK);
    assert_int_equal(got, 0);
    assert_true(other->reserved);
    /* the store's time (its write-path slot free), the flight, then the
     * target's LIM access (30 cycles at 1000 MHz) */
    uint64_t lands = 1000000u + SIM_NOC_FLIGHT_PS + 30000u;
    sim_noc_land(&f->noc, lands - 1u);
    assert_int_equal(sim_noc_in_flight(&f->noc), 1);
    sim_noc_land(&f->noc, lands);
    assert_int_equal(sim_noc_in_flight(&f->noc), 0);
    assert_int_equal(sim_cluster_mem_read_lim(&f->cm[1], flag + 8u, &got, 8, &err), KS_OK);
    assert_int_equal(got, 0x1122334455667788ull);
    assert_false(other->reserved);
    /* Nothing landed in cluster 1's own LIM. */
    assert_int_equal(sim_cluster_mem_read_lim(&f->cm[0], flag + 8u, &got, 8, &err), KS_OK);
    assert_int_equal(got, 0);
    /* A load through the window. */
    uint64_t v = 0;
    assert_int_equal(ld(&f->cm[0], h, BH_NOC_WINDOW(1) + 12u, 4, &v), 0);
    assert_int_equal(v, 0x11223344u);
    assert_int_equal(f->cm[0].stats.noc_nonposted, 1);
    assert_int_equal(f->cm[0].stats.noc_loads, 1);
}

/* A store through a window to a bank lands in DRAM and in no cache: a line
 * cluster 2 has cached keeps its old bytes. */
static void store_to_bank_bypasses_caches(void **state)
{
    fixture *f = *state;
    sim_hart *h = &f->fake[0][0];
    sim_cluster_mem *c2 = &f->cm[1];
    unsigned bank = BH_CLUSTER_BANK(2u);
    uint64_t a = 0x40000u;
    uint64_t v = 0;
    /* Cluster 2 caches the line (reads 0). */
    assert_int_equal(ld(c2, &f->fake[1][0], BH_DRAM_CACHED(a), 8, &v), 0);
    assert_int_equal(v, 0);
    f->fake[1][1].reserved = true;
    f->fake[1][1].reservation = BH_DRAM_CACHED(a);
    open_window(&f->cm[0], 5, BH_BANK_TILE_X(bank), BH_BANK_TILE_Y(bank), a, BH_NOC_POSTED);
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(5), 8, 0xabcdull), 0);
    uint64_t got = 0;
    assert_int_equal(sim_dram_read(&f->dram, bank, a, &got, 8, NULL), KS_OK);
    assert_int_equal(got, 0xabcd);
    assert_int_equal(ld(c2, &f->fake[1][0], BH_DRAM_CACHED(a), 8, &v), 0);
    assert_int_equal(v, 0); /* the stale cached copy */
    assert_false(f->fake[1][1].reserved);
    /* Cluster 1's own cache holds nothing of it either (its bank is 6). */
    assert_int_equal(ld(&f->cm[0], h, BH_NOC_WINDOW(5), 8, &v), 0);
    assert_int_equal(v, 0xabcd);
    assert_int_equal(f->cm[0].stats.noc_posted, 1);
}

/* Wild writes (sim_wild.h): a core's window store into another cluster's
 * LIM outside the lines the contract shares is noted, once per core, pc
 * and target, its span growing; the shared lines, the host's stores and a
 * cluster's own LIM are not.  The dispatcher's LIM: only the writer's own
 * ring area. */
static void wild_writes(void **state)
{
    fixture *f = *state;
    sim_hart *h = &f->fake[0][1];
    open_window(&f->cm[0], 2, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u), BH_NOC_LIM_BASE,
                BH_NOC_POSTED);
    open_window(&f->cm[0], 3, BH_CLUSTER_TILE_X(1u), BH_CLUSTER_TILE_Y(1u), BH_NOC_LIM_BASE,
                BH_NOC_POSTED);
    uint64_t lines = KMX_LIM_CLUSTER_LINES - BH_LIM_BASE, pull = KMX_LIM_PULL - BH_LIM_BASE;
    h->pc = 0x8000100u;
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(2) + lines, 8, 1), 0);
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(2) + pull + 8u, 8, 1), 0);
    assert_int_equal(st(&f->cm[0], NULL, BH_NOC_WINDOW(2) + 0x40u, 8, 1), 0); /* the host */
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(3) + 0x40u, 8, 1), 0);    /* its own */
    assert_int_equal(f->noc.wild.n, 0);
    /* Twice from one pc, once from another. */
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(2) + 0x48u, 8, 7), 0);
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(2) + 0x40u, 4, 7), 0);
    h->pc = 0x8000200u;
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(2) + lines - 8u, 8, 7), 0);
    assert_int_equal(f->noc.wild.n, 2);
    const sim_wild_write *w = &f->noc.wild.w[0];
    assert_int_equal(w->cluster, 1);
    assert_int_equal(w->core, 1);
    assert_int_equal(w->target, 2);
    assert_int_equal(w->x, BH_CLUSTER_TILE_X(2u));
    assert_int_equal(w->y, BH_CLUSTER_TILE_Y(2u));
    assert_int_equal(w->pc, 0x8000100u);
    assert_int_equal(w->first, BH_LIM_BASE + 0x40u);
    assert_int_equal(w->end, BH_LIM_BASE + 0x50u);
    assert_int_equal(w->bytes, 12);
    assert_int_equal(w->stores, 2);
    assert_int_equal(f->noc.wild.w[1].first, KMX_LIM_CLUSTER_LINES - 8u);
    /* The bytes landed all the same. */
    sim_noc_land(&f->noc, UINT64_MAX);
    uint64_t got = 0;
    assert_int_equal(sim_cluster_mem_read_lim(&f->cm[1], BH_LIM_BASE + 0x48u, &got, 8, NULL), KS_OK);
    assert_int_equal(got, 7);
    /* The dispatcher's LIM: the writer's ring area, nothing else. */
    assert_true(sim_wild_allowed(1, 0, KMX_DISPATCH_RING_AREA(1), 64));
    assert_true(sim_wild_allowed(3, 0, KMX_DISPATCH_RING_AREA(3) + KMX_DISPATCH_RING_AREA_BYTES - 8u, 8));
    assert_false(sim_wild_allowed(1, 0, KMX_DISPATCH_RING_AREA(2), 8));
    assert_false(sim_wild_allowed(1, 0, KMX_DISPATCH_RING_AREA(1) - 8u, 16));
    assert_false(sim_wild_allowed(2, 0, BH_LIM_BASE, 8));
    assert_true(sim_wild_allowed(2, 1, KMX_LIM_PORTS, 8));
    assert_false(sim_wild_allowed(2, 1, KMX_LIM_PORTS + 64u, 8)); /* its table */
}

/* Closed windows, unknown tiles, addresses nothing holds, no router. */
static void faults(void **state)
{
    fixture *f = *state;
    sim_cluster_mem *c1 = &f->cm[0];
    uint64_t v = 0;
    uint64_t faults0 = c1->stats.faults;
    assert_int_equal(ld(c1, NULL, BH_NOC_WINDOW(3), 8, &v), SIM_CAUSE_LOAD_ACCESS);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(3), 8, 1), SIM_CAUSE_STORE_ACCESS);
    open_window(c1, 3, 4, 4, 0, BH_NOC_POSTED); /* no target at (4, 4) */
    assert_int_equal(ld(c1, NULL, BH_NOC_WINDOW(3), 8, &v), SIM_CAUSE_LOAD_ACCESS);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(3), 8, 1), SIM_CAUSE_STORE_ACCESS);
    /* A LIM tile, outside its LIM. */
    open_window(c1, 3, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u), 0, BH_NOC_POSTED);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(3), 8, 1), SIM_CAUSE_STORE_ACCESS);
    /* A bank, past its end. */
    open_window(c1, 3, BH_BANK_TILE_X(0u), BH_BANK_TILE_Y(0u), BH_BANK_BYTES - 4u,
                BH_NOC_POSTED);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(3), 8, 1), SIM_CAUSE_STORE_ACCESS);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(3), 4, 1), 0);
    /* Closed again. */
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW_REG(3) + offsetof(bh_noc_window_reg, mode), 4,
                        BH_NOC_OFF),
                     0);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(3), 4, 1), SIM_CAUSE_STORE_ACCESS);
    assert_int_equal(c1->stats.faults - faults0, 7);
    /* Without a router, even an open window faults. */
    ks_error err = {0};
    open_window(c1, 3, BH_BANK_TILE_X(0u), BH_BANK_TILE_Y(0u), 0, BH_NOC_POSTED);
    assert_int_equal(sim_cluster_mem_attach_noc(c1, NULL, &err), KS_OK);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(3), 4, 1), SIM_CAUSE_STORE_ACCESS);
    assert_int_equal(sim_cluster_mem_attach_noc(c1, &f->noc, &err), KS_OK);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(3), 4, 1), 0);
    /* Cluster 1 detached from the router was no target meanwhile; back now. */
    assert_non_null(sim_noc_find(&f->noc, BH_CLUSTER_TILE_X(1u), BH_CLUSTER_TILE_Y(1u)));
    assert_null(sim_noc_find(&f->noc, BH_CLUSTER_TILE_X(3u), BH_CLUSTER_TILE_Y(3u)));
}

/* Each of a bank's three ports reaches the same bank; no two banks share
 * a tile. */
static void every_bank_port_reaches_its_bank(void **state)
{
    fixture *f = *state;
    for (unsigned b = 0; b < BH_DRAM_BANKS; b++) {
        for (unsigned p = 0; p < BH_BANK_PORTS; p++) {
            uint64_t at = 0x1000u * (b + 1u) + 8u * p, got = 0;
            assert_int_equal(sim_noc_store(&f->noc, BH_BANK_PORT_X(b, p), BH_BANK_PORT_Y(b, p),
                                           at, 8, 0xB0 + 16u * b + p, 0),
                             0);
            assert_int_equal(sim_dram_read(&f->dram, b, at, &got, 8, NULL), KS_OK);
            assert_int_equal(got, 0xB0 + 16u * b + p);
            const sim_noc_target *tg =
                sim_noc_find(&f->noc, BH_BANK_PORT_X(b, p), BH_BANK_PORT_Y(b, p));
            assert_non_null(tg);
            assert_int_equal(tg->kind, SIM_NOC_BANK);
            assert_int_equal(tg->bank, b);
        }
    }
}

/* Rewriting address, x or y changes nothing until mode is written. */
static void mode_written_last(void **state)
{
    fixture *f = *state;
    sim_cluster_mem *c1 = &f->cm[0];
    unsigned b = BH_CLUSTER_BANK(1u);
    open_window(c1, 7, BH_BANK_TILE_X(b), BH_BANK_TILE_Y(b), 0x100u, BH_NOC_POSTED);
    uint64_t r = BH_NOC_WINDOW_REG(7);
    assert_int_equal(st(c1, NULL, r + offsetof(bh_noc_window_reg, address), 8, 0x200u), 0);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(7), 8, 7), 0);
    uint64_t got = 0;
    assert_int_equal(sim_dram_read(&f->dram, b, 0x100u, &got, 8, NULL), KS_OK);
    assert_int_equal(got, 7);
    assert_int_equal(st(c1, NULL, r + offsetof(bh_noc_window_reg, mode), 4, BH_NOC_POSTED), 0);
    assert_int_equal(st(c1, NULL, BH_NOC_WINDOW(7), 8, 9), 0);
    assert_int_equal(sim_dram_read(&f->dram, b, 0x200u, &got, 8, NULL), KS_OK);
    assert_int_equal(got, 9);
    assert_int_equal(sim_dram_read(&f->dram, b, 0x100u, &got, 8, NULL), KS_OK);
    assert_int_equal(got, 7);
}

/* Posted, non-posted and load costs; a wake and its answer, each a
 * non-posted store, take the spec's 0.66 us. */
static void costs(void **state)
{
    fixture *f = *state;
    sim_cluster_mem *c1 = &f->cm[0];
    sim_hart *h = &f->fake[0][1];
    uint32_t cost[SIM_T_COUNT];
    sim_timing_cycles(SIM_MHZ_DEFAULT, cost);
    open_window(c1, 1, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u), BH_NOC_LIM_BASE,
                BH_NOC_POSTED);
    open_window(c1, 2, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u), BH_NOC_LIM_BASE,
                BH_NOC_NONPOSTED);
    uint64_t v, t0 = h->cycle;
    /* one after another: the write path is free for each (time moves on) */
    assert_int_equal(st(c1, h, BH_NOC_WINDOW(1), 8, 1), 0);
    assert_int_equal(h->cycle - t0, cost[SIM_T_NOC_POSTED]);
    t0 = h->cycle;
    assert_int_equal(st(c1, h, BH_NOC_WINDOW(2), 8, 1), 0);
    assert_int_equal(h->cycle - t0, cost[SIM_T_NOC_NONPOSTED]);
    t0 = h->cycle;
    assert_int_equal(ld(c1, h, BH_NOC_WINDOW(2), 8, &v), 0);
    assert_int_equal(h->cycle - t0, cost[SIM_T_NOC_LOAD]);
    assert_true(cost[SIM_T_NOC_POSTED] < cost[SIM_T_NOC_NONPOSTED]);
    assert_int_equal(2u * cost[SIM_T_NOC_NONPOSTED], 660u); /* ns at 1000 MHz */
    assert_int_equal(cost[SIM_T_NOC_LOAD], 330u); /* 8 bytes per 330 ns: 0.024 GB/s */
}

/* mem.store_bytes (a vector store's bytes): one write into a window's
 * bank or LIM, counted once, costing NOC_POSTED or NOC_NONPOSTED and
 * NOC_LINE for each further line; it lands before a later store to the
 * same place (into a bank at once; into another cluster's LIM a flight
 * later).  A range that leaves its window,
 * runs past the target's memory or reaches a Tensix tile or a closed
 * window is not one write: nothing written, the element path decides. */
static void one_write(void **state)
{
    fixture *f = *state;
    sim_cluster_mem *c1 = &f->cm[0];
    sim_hart *h = &f->fake[0][1];
    uint32_t cost[SIM_T_COUNT];
    sim_timing_cycles(SIM_MHZ_DEFAULT, cost);
    uint8_t src[512], got[512];
    for (unsigned i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 7u + 1u);
    open_window(c1, 4, BH_BANK_PORT_X(5u, 0u), BH_BANK_PORT_Y(5u, 0u), 0x10000, BH_NOC_POSTED);
    h->cycle = 0;
    uint64_t posted = c1->stats.noc_posted;
    assert_int_equal(c1->mem.store_bytes(&c1->mem, h, BH_NOC_WINDOW(4) + 64, src, 512), 0);
    assert_int_equal(c1->stats.noc_posted, posted + 1);
    assert_int_equal(c1->stats.bank_written[5], 512);
    assert_int_equal(h->cycle, cost[SIM_T_NOC_POSTED] + 7u * cost[SIM_T_NOC_LINE]);
    /* 512 bytes at 1000 MHz in 20 + 7 * 20 cycles: 3.2 GB/s of writes */
    assert_int_equal(cost[SIM_T_NOC_POSTED] + 7u * cost[SIM_T_NOC_LINE], 160u);
    assert_int_equal(sim_dram_read(&f->dram, 5, 0x10040, got, 512, NULL), KS_OK);
    assert_memory_equal(got, src, 512);
    /* a later scalar store over its first word wins */
    assert_int_equal(st(c1, h, BH_NOC_WINDOW(4) + 64, 8, 0xabc), 0);
    assert_int_equal(sim_dram_read(&f->dram, 5, 0x10040, got, 8, NULL), KS_OK);
    assert_int_equal(got[0], 0xbc);
    assert_int_equal(got[8], src[8]);

    /* non-posted, one line: NOC_NONPOSTED alone, into cluster 2's LIM */
    open_window(c1, 5, BH_CLUSTER_TILE_X(2u), BH_CLUSTER_TILE_Y(2u), BH_NOC_LIM_BASE,
                BH_NOC_NONPOSTED);
    uint64_t t0 = h->cycle;
    assert_int_equal(c1->mem.store_bytes(&c1->mem, h, BH_NOC_WINDOW(5) + 128, src, 64), 0);
    assert_int_equal(h->cycle - t0, cost[SIM_T_NOC_NONPOSTED]);
    /* it lands a flight and a LIM access after the store, by then
     * acknowledged */
    uint64_t lands = sim_cycles_to_ps(t0 + cost[SIM_T_LIM], SIM_MHZ_DEFAULT) + SIM_NOC_FLIGHT_PS;
    sim_noc_land(&f->noc, lands - 1u);
    assert_int_equal(sim_noc_in_flight(&f->noc), 1);
    sim_noc_land(&f->noc, lands);
    assert_int_equal(sim_noc_in_flight(&f->noc), 0);
    assert_true(lands < sim_cycles_to_ps(t0 + cost[SIM_T_NOC_NONPOSTED], SIM_MHZ_DEFAULT));
    assert_int_equal(sim_cluster_mem_read_lim(&f->cm[1], BH_LIM_BASE + 128, got, 64, NULL),
                     KS_OK);
    assert_memory_equal(got, src, 64);

    /* not one write: past the LIM's end, across two windows, a closed
     * window, cached memory, LIM; nothing written, nothing charged */
    t0 = h->cycle;
    uint64_t end = BH_NOC_WINDOW(5) + BH_LIM_BYTES - 64;
    assert_int_equal(c1->mem.store_bytes(&c1->mem, h, end, src, 128), SIM_MEM_NOT_ONE);
    assert_int_equal(sim_cluster_mem_read_lim(&f->cm[1], BH_LIM_BASE + BH_LIM_BYTES - 64, got,
                                              64, NULL),
                     KS_OK);
    assert_int_equal(got[0], 0);
    assert_int_equal(c1->mem.store_bytes(&c1->mem, h, BH_NOC_WINDOW(5) - 64, src, 128),
                     SIM_MEM_NOT_ONE);
    assert_int_equal(c1->mem.store_bytes(&c1->mem, h, BH_NOC_WINDOW(9), src, 64),
                     SIM_MEM_NOT_ONE);
    assert_int_equal(c1->mem.store_bytes(&c1->mem, h, BH_DRAM_CACHED(0), src, 64),
                     SIM_MEM_NOT_ONE);
    assert_int_equal(c1->mem.store_bytes(&c1->mem, h, BH_LIM_BASE, src, 64), SIM_MEM_NOT_ONE);
    assert_int_equal(h->cycle, t0);
    assert_int_equal(c1->stats.noc_posted, posted + 2); /* the vector's and the sd's */
}

/* The cluster's NoC write path: every line of every NoC write of its four
 * cores takes a slot of NOC_LINE, booked at the writer's own time.  One
 * core's writes one after another never wait (its 3.2 GB/s); four at
 * once share the path's 3.2 GB/s; a core earlier in time than what was
 * booked first takes the free slots before it; a scalar store takes a
 * slot too; another cluster's path is its own. */
static void write_path_shared(void **state)
{
    fixture *f = *state;
    sim_cluster_mem *c1 = &f->cm[0], *c2 = &f->cm[1];
    uint32_t cost[SIM_T_COUNT];
    sim_timing_cycles(SIM_MHZ_DEFAULT, cost);
    uint64_t line = cost[SIM_T_NOC_LINE], posted = cost[SIM_T_NOC_POSTED];
    assert_int_equal(line, 20u); /* 64 bytes in 20 ns at 1000 MHz: 3.2 GB/s */
    uint8_t src[512];
    memset(src, 0x5a, sizeof src);
    open_window(c1, 4, BH_BANK_PORT_X(6u, 0u), BH_BANK_PORT_Y(6u, 0u), 0x20000, BH_NOC_POSTED);
    open_window(c2, 4, BH_BANK_PORT_X(6u, 0u), BH_BANK_PORT_Y(6u, 0u), 0x40000, BH_NOC_POSTED);

    /* one core, four writes back to back: never waits */
    sim_hart *h = &f->fake[0][0];
    h->cycle = 0;
    for (unsigned k = 0; k < 4; k++)
        assert_int_equal(c1->mem.store_bytes(&c1->mem, h, BH_NOC_WINDOW(4) + 512u * k, src, 512), 0);
    assert_int_equal(h->cycle, 4u * (posted + 7u * line));

    /* the other three at cycle 0: slots 0 to 31 are core 0's, so each
     * waits for the one before it; the cluster moved 2 KiB + 1.5 KiB in
     * 56 slots, the path's rate */
    for (unsigned i = 1; i < BH_CLUSTER_CORES; i++) {
        sim_hart *o = &f->fake[0][i];
        o->cycle = 0;
        assert_int_equal(c1->mem.store_bytes(&c1->mem, o, BH_NOC_WINDOW(4) + 4096u * i, src, 512), 0);
        assert_int_equal(o->cycle, (32u + 8u * (i - 1u)) * line + 7u * line + posted);
    }

    /* core 1, later in time than everything booked, then core 2 at cycle
     * 2000 (slots 100 on, free): booked by time, not by who asks first */
    sim_hart *h1 = &f->fake[0][1], *h2 = &f->fake[0][2], *h3 = &f->fake[0][3];
    h1->cycle = 2040;
    assert_int_equal(c1->mem.store_bytes(&c1->mem, h1, BH_NOC_WINDOW(4), src, 512), 0);
    assert_int_equal(h1->cycle, 2040u + posted + 7u * line); /* slots 102 to 109 */
    h2->cycle = 2000;
    assert_int_equal(c1->mem.store_bytes(&c1->mem, h2, BH_NOC_WINDOW(4), src, 128), 0);
    assert_int_equal(h2->cycle, 2000u + posted + line); /* slots 100 and 101: free */

    /* a scalar store at cycle 2060 (slot 103, core 1's): the first free
     * one is 110 */
    h3->cycle = 2060;
    assert_int_equal(st(c1, h3, BH_NOC_WINDOW(4), 8, 1), 0);
    assert_int_equal(h3->cycle, 110u * line + posted);

    /* cluster 2's path is its own: free at cycle 0 */
    sim_hart *g = &f->fake[1][0];
    g->cycle = 0;
    assert_int_equal(c2->mem.store_bytes(&c2->mem, g, BH_NOC_WINDOW(4), src, 512), 0);
    assert_int_equal(g->cycle, posted + 7u * line);
}

/* The cluster API: sim_cluster_attach_noc, and a cluster created without
 * one still works (its windows fault). */
static void cluster_api(void **state)
{
    fixture *f = *state;
    sim_cluster *c = NULL;
    ks_error err = {0};
    assert_int_equal(sim_cluster_create(&c, &f->dram, 3, SIM_MHZ_DEFAULT, &err), KS_OK);
    uint64_t v = 0;
    assert_int_equal(sim_cluster_mem_load(&c->m.mem, NULL, BH_NOC_WINDOW(0), 8, &v),
                     SIM_CAUSE_LOAD_ACCESS);
    assert_int_equal(sim_cluster_attach_noc(c, &f->noc, &err), KS_OK);
    open_window(&f->cm[0], 0, BH_CLUSTER_TILE_X(3u), BH_CLUSTER_TILE_Y(3u),
                BH_NOC_LIM_BASE + 64u, BH_NOC_NONPOSTED);
    assert_int_equal(st(&f->cm[0], NULL, BH_NOC_WINDOW(0), 4, 0x5a5a), 0);
    sim_noc_land(&f->noc, UINT64_MAX);
    uint32_t got = 0;
    assert_int_equal(sim_cluster_read_lim(c, BH_LIM_BASE + 64u, &got, 4, &err), KS_OK);
    assert_int_equal(got, 0x5a5a);
    /* a write in flight to a cluster that goes away is dropped */
    assert_int_equal(st(&f->cm[0], NULL, BH_NOC_WINDOW(0), 4, 0x6b6b), 0);
    assert_int_equal(sim_noc_in_flight(&f->noc), 1);
    sim_cluster_destroy(c); /* leaves the router */
    assert_null(sim_noc_find(&f->noc, BH_CLUSTER_TILE_X(3u), BH_CLUSTER_TILE_Y(3u)));
    sim_noc_land(&f->noc, UINT64_MAX);
    assert_int_equal(sim_noc_in_flight(&f->noc), 0);
    assert_int_equal(st(&f->cm[0], NULL, BH_NOC_WINDOW(0), 4, 1), SIM_CAUSE_STORE_ACCESS);
}

/* A Tensix tile answers through the ops the grid gave, with its core's
 * grid index and the accessing hart's time; before they are given (no
 * ports) it faults. */
static struct {
    unsigned core, size;
    uint64_t addr, value, at_ps;
    int calls;
} tile;
static int tile_store(void *ctx, unsigned core, uint64_t addr, unsigned size, uint64_t value,
                      uint64_t at_ps)
{
    assert_ptr_equal(ctx, &tile);
    tile.core = core, tile.addr = addr, tile.size = size, tile.value = value, tile.at_ps = at_ps;
    tile.calls++;
    return 0;
}
static int tile_load(void *ctx, unsigned core, uint64_t addr, unsigned size, uint64_t *value,
                     uint64_t at_ps)
{
    (void)ctx, (void)addr, (void)size, (void)at_ps;
    *value = 0x40u + core;
    tile.calls++;
    return 0;
}

static void tensix_tiles(void **state)
{
    fixture *f = *state;
    sim_hart *h = &f->fake[0][1];
    unsigned core = 19; /* column 7 (x 10), row 1 (y 3) */
    assert_int_equal(BH_TENSIX_TILE_X(core), 10);
    assert_int_equal(BH_TENSIX_TILE_Y(core), 3);
    open_window(&f->cm[0], 60, 10, 3, 0, BH_NOC_POSTED);
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(60) + KM_CONTROL_X280_L1, 8, 5),
                     SIM_CAUSE_STORE_ACCESS); /* no tile there yet */
    sim_noc_add_tensix(&f->noc, &(sim_noc_tile_ops){&tile, tile_load, tile_store});
    h->cycle = 1000;
    assert_int_equal(st(&f->cm[0], h, BH_NOC_WINDOW(60) + KM_CONTROL_X280_L1 + 8, 8, 77), 0);
    assert_int_equal(tile.core, core);
    assert_int_equal(tile.addr, KM_CONTROL_X280_L1 + 8);
    assert_int_equal(tile.value, 77);
    assert_int_equal(tile.at_ps, sim_cycles_to_ps(1000u + f->cm[0].offset[1], SIM_MHZ_DEFAULT));
    uint64_t v = 0;
    assert_int_equal(ld(&f->cm[0], h, BH_NOC_WINDOW(60), 8, &v), 0);
    assert_int_equal(v, 0x40u + core);
    assert_int_equal(tile.calls, 2);
    /* Every one of the 120 has its tile; the banks and clusters keep theirs. */
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        const sim_noc_target *t = sim_noc_find(&f->noc, BH_TENSIX_TILE_X(i), BH_TENSIX_TILE_Y(i));
        assert_non_null(t);
        assert_int_equal(t->kind, SIM_NOC_TENSIX);
        assert_int_equal(t->core, i);
    }
    assert_int_equal(sim_noc_find(&f->noc, BH_CLUSTER_TILE_X(1u), BH_CLUSTER_TILE_Y(1u))->kind,
                     SIM_NOC_LIM);
    assert_int_equal(sim_noc_find(&f->noc, BH_BANK_TILE_X(7u), BH_BANK_TILE_Y(7u))->kind,
                     SIM_NOC_BANK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(store_lands_in_other_lim, setup, teardown),
        cmocka_unit_test_setup_teardown(flights_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(store_to_bank_bypasses_caches, setup, teardown),
        cmocka_unit_test_setup_teardown(wild_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(faults, setup, teardown),
        cmocka_unit_test_setup_teardown(every_bank_port_reaches_its_bank, setup, teardown),
        cmocka_unit_test_setup_teardown(mode_written_last, setup, teardown),
        cmocka_unit_test_setup_teardown(costs, setup, teardown),
        cmocka_unit_test_setup_teardown(one_write, setup, teardown),
        cmocka_unit_test_setup_teardown(write_path_shared, setup, teardown),
        cmocka_unit_test_setup_teardown(cluster_api, setup, teardown),
        cmocka_unit_test_setup_teardown(tensix_tiles, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
