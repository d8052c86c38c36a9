/* Tests for device/sim/cluster/sim_cluster_mem.c: a cluster's memory map
 * (LIM, the cached and uncached windows of its bank, FLUSH64, CLINT mtime,
 * the NoC window registers, faults) and what its accesses cost.
 *
 * The tests call the sim_mem callbacks directly with fake harts (zeroed
 * sim_hart structs whose cycle counts the test sets), so they need no
 * hart code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_fixture.h"
#include "test_random.h"

/* ---- The map ---------------------------------------------------------------- */

static void create_checks_cluster_and_clock(void **state)
{
    (void)state;
    sim_dram dram;
    sim_dram_init(&dram);
    sim_cluster *c = NULL;
    ks_error err = {0};
    assert_int_equal(sim_cluster_create(&c, &dram, 4, SIM_MHZ_DEFAULT, &err), KS_ERR_BUG);
    assert_null(c);
    assert_non_null(strstr(err.message, "cluster 4"));
    assert_int_equal(sim_cluster_create(&c, &dram, 1, 1500, &err), KS_ERR_BUG);
    assert_non_null(strstr(err.message, "1500 MHz"));
    for (unsigned k = 0; k < BH_CLUSTERS; k++) {
        assert_int_equal(sim_cluster_create(&c, &dram, k, SIM_MHZ_FAST, &err), KS_OK);
        assert_int_equal(c->m.bank, BH_CLUSTER_BANK(k));
        assert_true(sim_cluster_now_ps(c) == 0);
        assert_false(sim_cluster_busy(c));
        sim_cluster_destroy(c);
    }
    assert_int_equal(dram.nwatchers, 0);
    sim_dram_free(&dram);
}

static void lim_is_ram_at_30_cycles(void **state)
{
    fixture *f = *state;
    const sim_ram *r = &f->cm->mem.ram[0];
    assert_int_equal(f->cm->mem.nram, 1);
    assert_true(r->base == BH_LIM_BASE && r->size == BH_LIM_BYTES);
    assert_int_equal(r->latency, 30);

    uint64_t word = 0x0102030405060708ull, back = 0;
    ks_error err = {0};
    assert_int_equal(sim_cluster_mem_write_lim(f->cm, KMX_LIM_ARGS, &word, 8, &err), KS_OK);
    assert_true(memcmp(r->host + (KMX_LIM_ARGS - BH_LIM_BASE), &word, 8) == 0);
    assert_int_equal(sim_cluster_mem_read_lim(f->cm, BH_LIM_END - 8, &back, 8, &err), KS_OK);
    /* The callbacks answer LIM too (a hart normally takes the RAM range). */
    assert_true(ld(f, 0, KMX_LIM_ARGS + 4, 4) == 0x01020304);
    assert_true(f->fake[0].cycle == 30);
    st(f, 0, BH_LIM_END - 1, 1, 0xAB);
    assert_int_equal(sim_cluster_mem_read_lim(f->cm, BH_LIM_END - 1, &back, 1, &err), KS_OK);
    assert_true((back & 0xFF) == 0xAB);
    assert_int_equal(sim_cluster_mem_write_lim(f->cm, BH_LIM_END - 4, &word, 8, &err),
                     KS_ERR_BUG);
    assert_non_null(strstr(err.message, "outside local memory"));
    assert_int_equal(sim_cluster_mem_read_lim(f->cm, BH_LIM_BASE - 1, &back, 1, &err),
                     KS_ERR_BUG);
}

static void cached_window_goes_through_the_cache(void **state)
{
    fixture *f = *state;
    host64(f, 6, 0x1000, 0xA);
    assert_true(ld(f, 0, BH_DRAM_CACHED(0x1000), 8) == 0xA);
    host64(f, 6, 0x1000, 0xB); /* behind the cache */
    assert_true(ld(f, 1, BH_DRAM_CACHED(0x1000), 8) == 0xA); /* every core sees the line */
    assert_true(ld(f, 0, BH_DRAM_UNCACHED(0x1000), 8) == 0xB); /* around it: DRAM */

    st(f, 2, BH_DRAM_CACHED(0x1008), 4, 0xC);
    assert_true(ld(f, 3, BH_DRAM_CACHED(0x1008), 4) == 0xC);
    assert_true(ld(f, 0, BH_DRAM_UNCACHED(0x1008), 8) == 0); /* not in DRAM yet */
    assert_int_equal(sim_cache_state(&f->cm->cache, 0x1000), SIM_CACHE_VALID | SIM_CACHE_DIRTY);

    st(f, 0, BH_FLUSH64, 8, BH_DRAM_CACHED(0x1000)); /* as kmx_flush writes it */
    assert_true(dram64(f, 6, 0x1008) == 0xC);
    assert_true(dram64(f, 6, 0x1000) == 0xA); /* the whole line went back: stale 0xA over 0xB */
    assert_int_equal(sim_cache_state(&f->cm->cache, 0x1000), 0);
}

static void uncached_window_is_dram(void **state)
{
    fixture *f = *state;
    st(f, 0, BH_DRAM_UNCACHED(0x2000), 8, 0x55);
    assert_true(dram64(f, 6, 0x2000) == 0x55);
    assert_int_equal(sim_cache_state(&f->cm->cache, 0x2000), 0); /* nothing was cached */
    assert_true(ld(f, 0, BH_DRAM_UNCACHED(0x2000), 2) == 0x55);
    assert_true(ld(f, 0, BH_DRAM_CACHED(0x2000), 8) == 0x55);
    /* Once cached, the two windows disagree until the line is dropped. */
    st(f, 0, BH_DRAM_UNCACHED(0x2000), 8, 0x66);
    assert_true(ld(f, 0, BH_DRAM_CACHED(0x2000), 8) == 0x55);
    st(f, 0, BH_FLUSH64, 8, BH_DRAM_CACHED(0x2000));
    assert_true(ld(f, 0, BH_DRAM_CACHED(0x2000), 8) == 0x66);
    assert_true(f->cm->stats.uncached_loads == 1 && f->cm->stats.uncached_stores == 2);
    /* The last bytes of the windows are the last bytes of the bank. */
    st(f, 0, BH_DRAM_UNCACHED(BH_BANK_BYTES - 8), 8, 0x77);
    assert_true(ld(f, 0, BH_DRAM_CACHED(BH_BANK_BYTES - 8), 8) == 0x77);
}

static void flush64_takes_both_address_forms(void **state)
{
    fixture *f = *state;
    st(f, 0, BH_DRAM_CACHED(0x3000), 8, 1);
    st(f, 0, BH_FLUSH64, 8, 0x3000 + 24); /* a bank address, inside the line */
    assert_true(dram64(f, 6, 0x3000) == 1);
    assert_int_equal(sim_cache_state(&f->cm->cache, 0x3000), 0);

    st(f, 0, BH_DRAM_CACHED(0x3040), 8, 2);
    /* Values that name no cached line cost the store and do nothing. */
    st(f, 0, BH_FLUSH64, 8, BH_LIM_BASE + BH_BANK_BYTES);
    st(f, 0, BH_FLUSH64, 8, BH_DRAM_CACHED(BH_BANK_BYTES));
    assert_int_equal(sim_cache_state(&f->cm->cache, 0x3040), SIM_CACHE_VALID | SIM_CACHE_DIRTY);
    st(f, 0, BH_FLUSH64, 8, BH_DRAM_CACHED(0x3040));
    assert_true(dram64(f, 6, 0x3040) == 2);
    assert_true(f->cm->stats.flush64 == 4);

    /* It is a 64-bit register: narrower stores fault; loads give 0. */
    assert_int_equal(sim_cluster_mem_store(&f->cm->mem, &f->fake[0], BH_FLUSH64, 4, 0x3040),
                     SIM_CAUSE_STORE_ACCESS);
    assert_true(ld(f, 0, BH_FLUSH64, 8) == 0);
}

static void mtime_counts_modeled_time_at_50_mhz(void **state)
{
    fixture *f = *state;
    sim_hart *h = &f->fake[2];
    assert_true(sim_cluster_mem_mtime(&f->cm->mem, h) == 0);
    h->cycle = 19; /* 19 ns: not yet a tick of 20 ns */
    assert_true(sim_cluster_mem_mtime(&f->cm->mem, h) == 0);
    h->cycle = 20;
    assert_true(sim_cluster_mem_mtime(&f->cm->mem, h) == 1);
    h->cycle = 1000000; /* 1 ms */
    assert_true(sim_cluster_mem_mtime(&f->cm->mem, h) == BH_TICKS_PER_SECOND / 1000);
    /* A hart's clock is its cycles plus the time it spent waiting. */
    f->cm->offset[2] = 1000000;
    assert_true(ld(f, 2, BH_MTIME, 8) == 2 * BH_TICKS_PER_SECOND / 1000);
    assert_true(h->cycle == 1000000 + 20); /* the read cost SIM_T_MMIO */
    /* 32-bit halves, as an RV32 would read it. */
    h->cycle = 0;
    f->cm->offset[2] = 100ull * SIM_MHZ_DEFAULT * 1000000; /* 100 s: mtime above 2^32 */
    uint64_t mtime = 100ull * BH_TICKS_PER_SECOND;
    assert_true(mtime > UINT32_MAX);
    assert_true(ld(f, 2, BH_MTIME, 4) == (uint32_t)mtime);
    assert_true(ld(f, 2, BH_MTIME + 4, 4) == mtime >> 32);
    /* Read-only; no other widths. */
    uint64_t v;
    assert_int_equal(sim_cluster_mem_store(&f->cm->mem, h, BH_MTIME, 8, 0),
                     SIM_CAUSE_STORE_ACCESS);
    assert_int_equal(sim_cluster_mem_load(&f->cm->mem, h, BH_MTIME, 2, &v),
                     SIM_CAUSE_LOAD_ACCESS);
    /* Without a hart: the cluster's own time. */
    f->cm->now = 40;
    assert_true(sim_cluster_mem_mtime(&f->cm->mem, NULL) == 2);
}

static void mtime_at_1750_mhz(void **state)
{
    (void)state;
    fixture *f = make(2, SIM_MHZ_FAST);
    f->fake[0].cycle = 1750000; /* 1 ms */
    assert_true(ld(f, 0, BH_MTIME, 8) == BH_TICKS_PER_SECOND / 1000);
    f->fake[0].cycle = 34; /* 19.43 ns */
    assert_true(ld(f, 0, BH_MTIME, 8) == 0);
    f->fake[0].cycle = 35; /* 20 ns */
    assert_true(ld(f, 0, BH_MTIME, 8) == 1);
    unmake(f);
}

static void nothing_else_answers(void **state)
{
    fixture *f = *state;
    const uint64_t nowhere[] = {
        0,
        BH_LIM_BASE - 8,
        BH_LIM_END,
        BH_CLINT,                 /* msip: interrupts are not modeled */
        BH_MTIME - 8,             /* mtimecmp's neighbourhood */
        BH_L3_CONTROL,            /* the other L3 registers: the way stays as set */
        BH_FLUSH64 + 8,
        BH_L2PF(0),               /* the prefetcher registers are 32-bit */
        BH_L2PF(0) + 8,           /* a hart's block beyond its two registers */
        BH_L2PF(BH_CLUSTER_CORES), /* past the fourth hart's */
        BH_NOC_WINDOW_REGS - 8,
        BH_NOC_WINDOW_REG(BH_NOC_WINDOWS),
        BH_NOC_WINDOW(0),         /* the windows themselves: the NoC comes later */
        BH_DRAM_UNCACHED(BH_BANK_BYTES),
        BH_DRAM_CACHED(BH_BANK_BYTES), /* past the bank */
        BH_DRAM_CACHED_BASE - 8,
        0x8000000000000000ull,
    };
    for (size_t i = 0; i < sizeof nowhere / sizeof nowhere[0]; i++) {
        uint64_t v;
        assert_int_equal(sim_cluster_mem_load(&f->cm->mem, &f->fake[0], nowhere[i], 8, &v),
                         SIM_CAUSE_LOAD_ACCESS);
        assert_int_equal(sim_cluster_mem_store(&f->cm->mem, &f->fake[0], nowhere[i], 8, 0),
                         SIM_CAUSE_STORE_ACCESS);
    }
    assert_true(f->cm->stats.faults == 2 * sizeof nowhere / sizeof nowhere[0]);
}

/* The windows reach only the cluster's own bank: what the host put in
 * another bank is not there (the start-up bank check then fails). */
static void each_cluster_reaches_its_own_bank(void **state)
{
    (void)state;
    sim_dram card;
    sim_dram_init(&card);
    fixture *zero = make_on(&card, 0, SIM_MHZ_DEFAULT);
    fixture *one = make_on(&card, 1, SIM_MHZ_DEFAULT);
    fixture *two = make_on(&card, 2, SIM_MHZ_DEFAULT);
    fixture *three = make_on(&card, 3, SIM_MHZ_DEFAULT);

    uint64_t check = 0x40;
    host64(one, 7, check, 0xC4EC); /* cluster 1's check line, written to bank 7 */
    assert_true(ld(one, 0, BH_DRAM_CACHED(check), 8) == 0);
    assert_true(ld(one, 0, BH_DRAM_UNCACHED(check), 8) == 0);
    assert_true(ld(two, 0, BH_DRAM_CACHED(check), 8) == 0xC4EC);
    assert_true(ld(zero, 0, BH_DRAM_CACHED(check), 8) == 0);
    host64(one, 5, check, 5);
    assert_true(ld(zero, 0, BH_DRAM_UNCACHED(check), 8) == 5);

    /* Clusters 2 and 3 share bank 7, each through its own cache. */
    st(two, 0, BH_DRAM_CACHED(0x80), 8, 23);
    assert_true(ld(three, 0, BH_DRAM_CACHED(0x80), 8) == 0); /* still dirty in 2's cache */
    st(two, 0, BH_FLUSH64, 8, BH_DRAM_CACHED(0x80));
    assert_true(ld(three, 0, BH_DRAM_CACHED(0x80), 8) == 0); /* 3 cached the old line */
    st(three, 0, BH_FLUSH64, 8, BH_DRAM_CACHED(0x80));
    assert_true(ld(three, 0, BH_DRAM_CACHED(0x80), 8) == 23);

    unmake(three);
    unmake(two);
    unmake(one);
    unmake(zero);
    assert_int_equal(card.nwatchers, 0);
    sim_dram_free(&card);
}

static void noc_window_registers_are_recorded(void **state)
{
    fixture *f = *state;
    uint64_t reg = BH_NOC_WINDOW_REG(KMX_WINDOW_PUSH(2));
    st(f, 0, reg + offsetof(bh_noc_window_reg, address), 8, 0x400030001000ull);
    st(f, 0, reg + offsetof(bh_noc_window_reg, x), 2, 8);
    st(f, 0, reg + offsetof(bh_noc_window_reg, y), 2, 9);
    const bh_noc_window_reg *target = &f->cm->noc_target[KMX_WINDOW_PUSH(2)];
    assert_true(target->address == 0 && target->mode == BH_NOC_OFF); /* not taken yet */
    assert_true(ld(f, 0, reg, 8) == 0x400030001000ull);
    st(f, 0, reg + offsetof(bh_noc_window_reg, mode), 4, BH_NOC_POSTED);
    assert_true(target->address == 0x400030001000ull);
    assert_true(target->x == 8 && target->y == 9 && target->mode == BH_NOC_POSTED);
    assert_true(ld(f, 0, reg + 8, 8) == (8ull | 9ull << 16 | (uint64_t)BH_NOC_POSTED << 32));
    /* The last register. */
    st(f, 0, BH_NOC_WINDOW_REG(BH_NOC_WINDOWS - 1) + 8, 8, (uint64_t)BH_NOC_NONPOSTED << 32);
    assert_true(f->cm->noc_target[BH_NOC_WINDOWS - 1].mode == BH_NOC_NONPOSTED);
    assert_true(f->cm->stats.noc_reg_writes == 5);
}

/* LR/SC: a store by another core, a host or NoC write, a write through
 * the uncached window, each ends the reservations on its line. */
static void writes_end_reservations(void **state)
{
    fixture *f = *state;
    sim_hart *h1 = &f->fake[1], *h2 = &f->fake[2];
    uint64_t line = BH_DRAM_CACHED(0x5000);

    h1->reserved = true;
    h1->reservation = line;
    st(f, 1, line + 8, 8, 1); /* its own store keeps it */
    assert_true(h1->reserved);
    st(f, 0, line + 16, 8, 1);
    assert_false(h1->reserved);

    h1->reserved = true;
    host64(f, 6, 0x5000 + 56, 7); /* the host, behind the cache */
    assert_false(h1->reserved);

    h1->reserved = true;
    h2->reserved = true;
    h2->reservation = BH_DRAM_UNCACHED(0x5000);
    st(f, 1, BH_DRAM_UNCACHED(0x5000 + 32), 4, 3); /* hart 1 writes around the cache */
    assert_true(h1->reserved);                      /* its own */
    assert_false(h2->reserved);

    h1->reserved = true;
    host64(f, 6, 0x5040, 7); /* the next line: no effect */
    host64(f, 7, 0x5000, 7); /* another bank: no effect */
    assert_true(h1->reserved);

    h1->reservation = KMX_LIM_PULL;
    uint32_t one = 1;
    assert_int_equal(sim_cluster_mem_write_lim(f->cm, KMX_LIM_PULL + 60, &one, 4, NULL), KS_OK);
    assert_false(h1->reserved);
}

/* The inline path a hart may take for cached hits (sim_mem.h, mem.cached)
 * does what the callbacks do for a hit — the bytes, the dirty bit, the
 * hit count — and nothing for a miss or under the checker. */
static void inline_hits_match_the_callbacks(void **state)
{
    fixture *f = *state;
    sim_mem *m = &f->cm->mem;
    const sim_cache_stats *cs = &f->cm->cache.stats;
    uint64_t a = BH_DRAM_CACHED(0x7000);
    assert_true(m->cached.latency == f->cm->cost[SIM_T_HIT]);
    assert_null(sim_mem_cached_hit(m, a, false)); /* not cached: the callback fills */
    assert_null(sim_mem_cached_hit(m, BH_DRAM_UNCACHED(0x7000), false));
    assert_null(sim_mem_cached_hit(m, BH_LIM_BASE, false));
    st(f, 0, a + 8, 8, 0x1122334455667788ull);
    assert_int_equal(sim_cache_state(&f->cm->cache, 0x7000), SIM_CACHE_VALID | SIM_CACHE_DIRTY);
    st(f, 0, BH_FLUSH64, 8, a); /* written back, dropped */
    assert_int_equal(ld(f, 0, a, 8), 0); /* filled again, clean */
    uint64_t hits = cs->hits, misses = cs->misses;

    uint8_t *p = sim_mem_cached_hit(m, a + 12, false);
    assert_non_null(p);
    uint32_t w;
    memcpy(&w, p, 4);
    assert_true(w == 0x11223344u && ld(f, 0, a + 12, 4) == w);
    assert_true(cs->hits == hits + 2 && cs->misses == misses);
    assert_int_equal(sim_cache_state(&f->cm->cache, 0x7000), SIM_CACHE_VALID); /* a load: clean */

    p = sim_mem_cached_hit(m, a + 62, true);
    assert_non_null(p);
    uint16_t h16 = 0xBEEF;
    memcpy(p, &h16, 2);
    assert_int_equal(sim_cache_state(&f->cm->cache, 0x7000), SIM_CACHE_VALID | SIM_CACHE_DIRTY);
    assert_true(ld(f, 1, a + 62, 2) == 0xBEEF && cs->hits == hits + 4);

    /* Another line in the same place, or the checker on: the callbacks. */
    assert_null(sim_mem_cached_hit(m, a + 128 * KIB, false));
    sim_checker *ck = sim_checker_create(f->dram);
    assert_non_null(ck);
    sim_cluster_mem_set_checker(f->cm, ck);
    assert_null(sim_mem_cached_hit(m, a, false));
    sim_cluster_mem_set_checker(f->cm, NULL);
    assert_non_null(sim_mem_cached_hit(m, a, false));
    sim_checker_free(ck);
}

/* ---- Costs --------------------------------------------------------------- */

static void costs_at_1000_mhz(void **state)
{
    fixture *f = *state;
    sim_hart *h = &f->fake[0];
    const uint32_t *cost = f->cm->cost;
    assert_int_equal(cost[SIM_T_LIM], 30);
    assert_int_equal(cost[SIM_T_HIT], 2);
    assert_int_equal(cost[SIM_T_MISS], 250);
    assert_int_equal(cost[SIM_T_MISS_STREAM], 40);
    assert_int_equal(cost[SIM_T_PORT_LINE], 53);
    assert_int_equal(cost[SIM_T_UNCACHED_LOAD], 250);

    assert_int_equal(cost[SIM_T_MISS_NEXT], 60);

    /* The prefetcher at its reset values (off): a walk's next lines come
     * from the bank's stream, MISS_NEXT. */
    ld(f, 0, BH_DRAM_CACHED(0x10000), 8); /* a first miss: a round trip */
    assert_true(h->cycle == 250);
    ld(f, 0, BH_DRAM_CACHED(0x10008), 8);
    assert_true(h->cycle == 252);
    ld(f, 0, BH_DRAM_CACHED(0x10040), 8); /* the next line: streamed */
    assert_true(h->cycle == 312);
    ld(f, 0, BH_DRAM_CACHED(0x10100), 8); /* three lines on: still the stream */
    assert_true(h->cycle == 372);
    ld(f, 0, BH_DRAM_CACHED(0x90000), 8); /* elsewhere: a round trip again */
    assert_true(h->cycle == 622);
    ld(f, 0, BH_DRAM_CACHED(0x10140), 8); /* the first stream is remembered */
    assert_true(h->cycle == 682);
    assert_true(f->cm->stats.next_misses == 3 && f->cm->stats.other_misses == 2 &&
                f->cm->stats.stream_misses == 0);

    /* Stores: a dirty victim adds its hand-over to the write buffer. */
    st(f, 0, BH_DRAM_CACHED(0x10180), 8, 1); /* stream */
    assert_true(h->cycle == 742);
    st(f, 0, BH_DRAM_CACHED(0x10180 + BH_L3_WAY_BYTES), 8, 1); /* evicts it */
    assert_true(h->cycle == 742 + 250 + 4);

    /* FLUSH64: clean, dirty, nothing there. */
    h->cycle = 0;
    st(f, 0, BH_FLUSH64, 8, BH_DRAM_CACHED(0x10000));
    assert_true(h->cycle == 55);
    st(f, 0, BH_FLUSH64, 8, BH_DRAM_CACHED(0x10180 + BH_L3_WAY_BYTES));
    assert_true(h->cycle == 55 + 55 + 35);
    st(f, 0, BH_FLUSH64, 8, BH_DRAM_CACHED(0x10180 + BH_L3_WAY_BYTES));
    assert_true(h->cycle == 55 + 55 + 35 + 55);

    /* Uncached: a round trip to load, posted to store. */
    h->cycle = 0;
    ld(f, 0, BH_DRAM_UNCACHED(0), 8);
    st(f, 0, BH_DRAM_UNCACHED(0), 8, 0);
    assert_true(h->cycle == 250 + 20);
}

/* The recommended values into hart i's prefetcher registers. */
static void recommend(fixture *f, unsigned i)
{
    st(f, i, BH_L2PF(i) + BH_L2PF_BASIC, 4, BH_L2PF_BASIC_RECOMMENDED);
    st(f, i, BH_L2PF(i) + BH_L2PF_ADDITIONAL, 4, BH_L2PF_ADDITIONAL_RECOMMENDED);
}

/* The registers: per hart, reset values, 20 cycles an access, kept across
 * a get and set (what a later image on the cluster inherits). */
static void prefetcher_registers(void **state)
{
    fixture *f = *state;
    assert_true(ld(f, 2, BH_L2PF(1) + BH_L2PF_BASIC, 4) == BH_L2PF_BASIC_RESET);
    assert_true(ld(f, 2, BH_L2PF(1) + BH_L2PF_ADDITIONAL, 4) == BH_L2PF_ADDITIONAL_RESET);
    assert_true(f->fake[2].cycle == 2 * 20);
    recommend(f, 1);
    assert_true(ld(f, 0, BH_L2PF(1) + BH_L2PF_ADDITIONAL, 4) == BH_L2PF_ADDITIONAL_RECOMMENDED);
    assert_true(ld(f, 0, BH_L2PF(0) + BH_L2PF_BASIC, 4) == BH_L2PF_BASIC_RESET);
    uint32_t regs[BH_CLUSTER_CORES][2];
    sim_cluster_mem_prefetch_get(f->cm, regs);
    assert_true(regs[1][0] == BH_L2PF_BASIC_RECOMMENDED && regs[3][1] == BH_L2PF_ADDITIONAL_RESET);
    fixture *g = make(2, SIM_MHZ_DEFAULT);
    sim_cluster_mem_prefetch_set(g->cm, regs);
    assert_true(ld(g, 0, BH_L2PF(1) + BH_L2PF_BASIC, 4) == BH_L2PF_BASIC_RECOMMENDED);
    unmake(g);
}

/* With the recommended values, a scalar walk's third line on was
 * prefetched at its second miss: MISS_STREAM once it has arrived. */
static void a_prefetched_walk(void **state)
{
    fixture *f = *state;
    sim_hart *h = &f->fake[0];
    recommend(f, 0);
    h->cycle = 0;
    ld(f, 0, BH_DRAM_CACHED(0x20000), 8); /* a round trip */
    ld(f, 0, BH_DRAM_CACHED(0x20040), 8); /* streamed; trains the prefetcher */
    assert_true(h->cycle == 250 + 60);
    ld(f, 0, BH_DRAM_CACHED(0x20080), 8); /* issued at 250, arrived at 310 */
    assert_true(h->cycle == 250 + 60 + 40);
    ld(f, 0, BH_DRAM_CACHED(0x200c0), 8);
    assert_true(h->cycle == 250 + 60 + 40 + 40);
    assert_true(f->cm->stats.stream_misses == 2 && f->cm->stats.next_misses == 1);
    /* Descending by two lines (the bank streams only up): prefetched too. */
    ld(f, 0, BH_DRAM_CACHED(0x60000), 8);
    ld(f, 0, BH_DRAM_CACHED(0x60000 - 128), 8); /* trains, a round trip */
    uint64_t t = h->cycle;
    h->cycle += 300; /* work: the prefetch (250) has arrived */
    ld(f, 0, BH_DRAM_CACHED(0x60000 - 256), 8);
    assert_true(h->cycle == t + 300 + 40);
}

/* Vector misses: MISS_VLOAD for a load's fill, prefetched or not (the
 * vector unit's fills overlap already); a store's write-allocate fill
 * MISS_VLOAD too, but MISS_VSTORE when the prefetcher is fetching its
 * line (vectorStoreSupportEn: the store waits behind that read). */
static void vector_misses(void **state)
{
    fixture *f = *state;
    sim_hart *h = &f->fake[0];
    const uint32_t *cost = f->cm->cost;
    assert_int_equal(cost[SIM_T_MISS_VLOAD], 67);
    assert_int_equal(cost[SIM_T_MISS_VSTORE], 88);
    /* At the reset values. */
    h->vmem = SIM_MEM_VSTORE;
    for (uint64_t a = 0x38000; a < 0x38100; a += 64) /* off the lines below */
        st(f, 0, BH_DRAM_CACHED(a), 8, 1);
    assert_true(h->cycle == 4 * 67);
    /* Recommended. */
    h->vmem = 0;
    recommend(f, 0);
    h->cycle = 10000;
    h->vmem = SIM_MEM_VLOAD;
    ld(f, 0, BH_DRAM_CACHED(0x10000), 8);
    ld(f, 0, BH_DRAM_CACHED(0x10040), 8); /* trains */
    ld(f, 0, BH_DRAM_CACHED(0x10048), 8); /* a hit is a hit */
    ld(f, 0, BH_DRAM_CACHED(0x10080), 8); /* prefetched: no gain */
    assert_true(h->cycle == 10000 + 3 * 67 + 2);
    h->vmem = SIM_MEM_VSTORE;
    st(f, 0, BH_DRAM_CACHED(0x100c0), 8, 1); /* the stream's: behind its read */
    assert_true(h->cycle == 10000 + 3 * 67 + 2 + 88);
    h->vmem = 0;
    ld(f, 0, BH_DRAM_CACHED(0x10100), 8); /* scalar: the stream's, arrived */
    assert_true(h->cycle == 10000 + 3 * 67 + 2 + 88 + 40);
    assert_true(f->cm->stats.vector_misses == 8 && f->cm->stats.stream_misses == 1);
}

static void costs_at_1750_mhz(void **state)
{
    (void)state;
    fixture *f = make(3, SIM_MHZ_FAST);
    const uint32_t *cost = f->cm->cost;
    assert_int_equal(cost[SIM_T_LIM], 30);
    assert_int_equal(cost[SIM_T_HIT], 2);
    assert_int_equal(cost[SIM_T_MISS], 438); /* 250 ns */
    assert_int_equal(cost[SIM_T_MISS_STREAM], 40);
    assert_int_equal(cost[SIM_T_PORT_LINE], 86); /* 9 cycles + 44 ns */
    assert_int_equal(f->cm->mem.ram[0].latency, 30);
    ld(f, 1, BH_DRAM_CACHED(0), 8);
    assert_true(f->fake[1].cycle == 438);
    unmake(f);
}

/* The port: one fill per slot for the whole cluster, booked by each
 * core's own time. */
static void fills_share_the_port(void **state)
{
    fixture *f = *state;
    /* Four cores miss at cycle 0: slots 0, 1, 2, 3. */
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        ld(f, i, BH_DRAM_CACHED(0x100000 + i * 0x1000), 8);
        assert_true(f->fake[i].cycle == 250 + 53 * i);
    }
    /* A core that comes later finds the slot of its own time free, even
     * though others booked later slots already. */
    f->fake[0].cycle = 5 * 53 + 10;
    ld(f, 0, BH_DRAM_CACHED(0x200000), 8);
    assert_true(f->fake[0].cycle == 5 * 53 + 10 + 250);
    f->fake[1].cycle = 3 * 53 + 1; /* slot 3 is taken, 4 is free */
    ld(f, 1, BH_DRAM_CACHED(0x300000), 8);
    assert_true(f->fake[1].cycle == 3 * 53 + 1 + (53 - 1) + 250);
    assert_true(f->cm->port.booked == 6);
    /* Waiting hart clocks count: offset moves the request in time. */
    f->fake[2].cycle = 0;
    f->cm->offset[2] = 10 * 53;
    ld(f, 2, BH_DRAM_CACHED(0x400000), 8);
    assert_true(f->fake[2].cycle == 250);
}

/* A fill also takes a line of its bank (sim_bank.h): alone it never
 * waits, behind others' lines (the grid's) it waits until the bank
 * serves it. */
static void fills_wait_for_a_busy_bank(void **state)
{
    fixture *f = *state;
    /* Someone's 1,000 lines at time 0: the bank is busy for 1 us. */
    assert_int_equal(sim_dram_bank(f->dram, f->cm->bank, 0x800000, 64000, 0), 1000000);
    ld(f, 0, BH_DRAM_CACHED(0x100000), 8);
    assert_true(f->fake[0].cycle == 1000 + 250);
    /* Later, the queue gone: a miss costs what it did. */
    f->fake[1].cycle = 5000;
    ld(f, 1, BH_DRAM_CACHED(0x200000), 8);
    assert_true(f->fake[1].cycle == 5000 + 250);
    /* Another bank's queue is not this cluster's. */
    unsigned other = f->cm->bank == 6 ? 5 : 6;
    sim_dram_bank(f->dram, other, 0, 64000, 6000000);
    f->fake[2].cycle = 6000;
    ld(f, 2, BH_DRAM_CACHED(0x300000), 8);
    assert_true(f->fake[2].cycle == 6000 + 250);
}

/* Fake cores streaming reads through the callbacks in the cluster's
 * quanta, each word costing the loop's 3 instructions plus the load's
 * own: the bandwidth the table is calibrated for, without a hart. */
static double stream_gbps(fixture *f, unsigned cores, uint64_t bytes_each, bool prefetch)
{
    uint64_t pos[BH_CLUSTER_CORES], end[BH_CLUSTER_CORES];
    for (unsigned i = 0; i < cores; i++) {
        if (prefetch)
            recommend(f, i); /* as start-up does */
        /* 160 KiB apart: off each other's place in the 128 KiB way */
        pos[i] = BH_DRAM_CACHED(0x1000000 + i * 160u * 1024u);
        end[i] = pos[i] + bytes_each;
        f->fake[i].cycle = 0;
    }
    uint64_t now = 0, done = 0, last = 0;
    while (done < cores) {
        now += SIM_CLUSTER_QUANTUM;
        for (unsigned i = 0; i < cores; i++) {
            while (pos[i] < end[i] && f->fake[i].cycle < now) {
                f->fake[i].cycle += 4; /* ld, add, addi, bltu */
                ld(f, i, pos[i], 8);
                pos[i] += 8;
                if (pos[i] == end[i]) {
                    done++;
                    last = f->fake[i].cycle > last ? f->fake[i].cycle : last;
                }
            }
        }
    }
    return (double)(cores * bytes_each) / (double)sim_cycles_to_ps(last, f->cm->mhz) * 1000.0;
}

static void four_cores_stream_about_1_2_gbps(void **state)
{
    fixture *f = *state;
    double four = stream_gbps(f, 4, 128 * 1024, true);
    print_message("# four fake cores: %.3f GB/s\n", four);
    assert_true(four > 1.1 && four < 1.3);
}

/* The spec: scalar code that walks memory runs about 20 % faster with the
 * recommended prefetcher values than with the reset values. */
static void one_core_without_the_prefetcher(void **state)
{
    fixture *f = *state;
    double off = stream_gbps(f, 1, 128 * 1024, false);
    fixture *g = make(2, SIM_MHZ_DEFAULT);
    double on = stream_gbps(g, 1, 128 * 1024, true);
    unmake(g);
    print_message("# one fake core: %.3f GB/s at reset, %.3f recommended (%.2fx)\n", off, on,
                  on / off);
    assert_true(on / off > 1.15 && on / off < 1.3);
}

static void one_core_streams_about_0_74_gbps(void **state)
{
    fixture *f = *state;
    double one = stream_gbps(f, 1, 128 * 1024, true);
    print_message("# one fake core: %.3f GB/s\n", one);
    assert_true(one > 0.65 && one < 0.8);
}

/* The spec's "arrays placed off each other's 128 KiB cache way": one
 * core reading a[i] and b[i] together, with b a multiple of 128 KiB after
 * a, misses on every access; 32 KiB further off, once a line per array. */
static uint64_t two_arrays(fixture *f, uint64_t apart, uint64_t *cycles)
{
    uint64_t a = BH_DRAM_CACHED(0x2000000), misses = f->cm->cache.stats.misses;
    uint64_t start = f->fake[0].cycle;
    for (uint64_t i = 0; i < 16 * KIB; i += 8) {
        f->fake[0].cycle += 6; /* ld, add, add, ld, add, addi, bltu: 7 less the loads' */
        ld(f, 0, a + i, 8);
        ld(f, 0, a + apart + i, 8);
    }
    *cycles = f->fake[0].cycle - start;
    return f->cm->cache.stats.misses - misses;
}

static void two_arrays_on_one_place_thrash(void **state)
{
    fixture *f = *state;
    uint64_t slow, fast;
    uint64_t bad = two_arrays(f, 4 * BH_L3_WAY_BYTES, &slow);
    uint64_t good = two_arrays(f, 4 * BH_L3_WAY_BYTES + 32 * KIB, &fast);
    print_message("# two arrays: %llu misses, %llu cycles on one place; %llu, %llu off it\n",
                  (unsigned long long)bad, (unsigned long long)slow, (unsigned long long)good,
                  (unsigned long long)fast);
    assert_true(bad == 2 * 16 * KIB / 8);
    assert_true(good == 2 * 16 * KIB / BH_LINE_BYTES);
    assert_true(slow > 4 * fast);
}

static void the_same_accesses_cost_the_same(void **state)
{
    (void)state;
    uint64_t cycles[2][BH_CLUSTER_CORES];
    sim_cache_stats stats[2];
    for (int run = 0; run < 2; run++) {
        fixture *f = make(2, SIM_MHZ_DEFAULT);
        uint64_t x = 12345; /* xorshift: the same sequence both runs */
        for (int k = 0; k < 20000; k++) {
            test_random(&x);
            unsigned hart = (unsigned)(x % BH_CLUSTER_CORES);
            uint64_t addr = (x >> 8) % (1u << 20) & ~7ull;
            switch ((x >> 40) % 4) {
            case 0: ld(f, hart, BH_DRAM_CACHED(addr), 8); break;
            case 1: st(f, hart, BH_DRAM_CACHED(addr), 8, x); break;
            case 2: st(f, hart, BH_FLUSH64, 8, BH_DRAM_CACHED(addr)); break;
            default: f->fake[hart].cycle += x % 100; break;
            }
        }
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
            cycles[run][i] = f->fake[i].cycle;
        }
        stats[run] = f->cm->cache.stats;
        unmake(f);
    }
    assert_memory_equal(cycles[0], cycles[1], sizeof cycles[0]);
    assert_memory_equal(&stats[0], &stats[1], sizeof stats[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_checks_cluster_and_clock),
        cmocka_unit_test_setup_teardown(lim_is_ram_at_30_cycles, setup, teardown),
        cmocka_unit_test_setup_teardown(cached_window_goes_through_the_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(uncached_window_is_dram, setup, teardown),
        cmocka_unit_test_setup_teardown(flush64_takes_both_address_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(mtime_counts_modeled_time_at_50_mhz, setup, teardown),
        cmocka_unit_test(mtime_at_1750_mhz),
        cmocka_unit_test_setup_teardown(nothing_else_answers, setup, teardown),
        cmocka_unit_test(each_cluster_reaches_its_own_bank),
        cmocka_unit_test_setup_teardown(noc_window_registers_are_recorded, setup, teardown),
        cmocka_unit_test_setup_teardown(writes_end_reservations, setup, teardown),
        cmocka_unit_test_setup_teardown(inline_hits_match_the_callbacks, setup, teardown),
        cmocka_unit_test_setup_teardown(costs_at_1000_mhz, setup, teardown),
        cmocka_unit_test(costs_at_1750_mhz),
        cmocka_unit_test_setup_teardown(prefetcher_registers, setup, teardown),
        cmocka_unit_test_setup_teardown(a_prefetched_walk, setup, teardown),
        cmocka_unit_test_setup_teardown(vector_misses, setup, teardown),
        cmocka_unit_test_setup_teardown(one_core_without_the_prefetcher, setup, teardown),
        cmocka_unit_test_setup_teardown(fills_share_the_port, setup, teardown),
        cmocka_unit_test_setup_teardown(fills_wait_for_a_busy_bank, setup, teardown),
        cmocka_unit_test_setup_teardown(four_cores_stream_about_1_2_gbps, setup, teardown),
        cmocka_unit_test_setup_teardown(one_core_streams_about_0_74_gbps, setup, teardown),
        cmocka_unit_test_setup_teardown(two_arrays_on_one_place_thrash, setup, teardown),
        cmocka_unit_test(the_same_accesses_cost_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
