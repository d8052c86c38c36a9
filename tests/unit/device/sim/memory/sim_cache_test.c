/* Tests for device/sim/memory/sim_cache.c: a cluster's cache of its bank — hits,
 * misses, write-back on eviction and on FLUSH64, the 128 KiB conflict,
 * and the card's hazards (stale lines, dirty lines over newer data). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sim_cache.h"

#define BANK 6u

static sim_dram dram;
static sim_cache cache;

static int setup(void **state)
{
    (void)state;
    sim_dram_init(&dram);
    sim_cache_init(&cache, &dram, BANK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sim_dram_free(&dram);
    return 0;
}

static uint64_t dram64(uint64_t addr)
{
    uint64_t v = 0;
    assert_int_equal(sim_dram_read(&dram, BANK, addr, &v, 8, NULL), KS_OK);
    return v;
}

static void host_write64(uint64_t addr, uint64_t v)
{
    assert_int_equal(sim_dram_write(&dram, BANK, addr, &v, 8, NULL), KS_OK);
}

static uint64_t load64(uint64_t addr, unsigned *did)
{
    uint64_t v = 0;
    *did = sim_cache_load(&cache, addr, 8, &v);
    return v;
}

static void hits_and_misses(void **state)
{
    (void)state;
    unsigned did;
    host_write64(0x2000, 0x1122334455667788ull);
    assert_true(load64(0x2000, &did) == 0x1122334455667788ull);
    assert_int_equal(did, SIM_CACHE_MISSED);
    assert_int_equal(sim_cache_state(&cache, 0x2000), SIM_CACHE_VALID);
    /* The rest of the line is there now. */
    assert_true(load64(0x2038, &did) == 0);
    assert_int_equal(did, 0);
    uint64_t v = 0;
    assert_int_equal(sim_cache_load(&cache, 0x2002, 2, &v), 0);
    assert_true(v == 0x5566);
    assert_int_equal(sim_cache_load(&cache, 0x2007, 1, &v), 0);
    assert_true(v == 0x11);
    assert_true(cache.stats.hits == 3 && cache.stats.misses == 1);
    /* The next line is another miss. */
    load64(0x2040, &did);
    assert_int_equal(did, SIM_CACHE_MISSED);
    assert_true(cache.stats.misses == 2);
}

static void a_dirty_line_is_not_in_dram_until_flushed(void **state)
{
    (void)state;
    unsigned did;
    host_write64(0x4000, 1);
    assert_int_equal(sim_cache_store(&cache, 0x4000, 8, 2), SIM_CACHE_MISSED);
    assert_int_equal(sim_cache_store(&cache, 0x4008, 4, 0xFFFFFFFF00000003ull), 0);
    assert_int_equal(sim_cache_state(&cache, 0x4000), SIM_CACHE_VALID | SIM_CACHE_DIRTY);
    assert_true(load64(0x4000, &did) == 2);
    assert_true(load64(0x4008, &did) == 3); /* only the low 4 bytes were stored */
    assert_true(dram64(0x4000) == 1);       /* DRAM has not seen it */
    assert_true(dram64(0x4008) == 0);

    assert_int_equal(sim_cache_flush(&cache, 0x4010), SIM_CACHE_DROPPED | SIM_CACHE_WROTE_BACK);
    assert_true(dram64(0x4000) == 2);
    assert_true(dram64(0x4008) == 3);
    assert_int_equal(sim_cache_state(&cache, 0x4000), 0);
    assert_true(cache.stats.flushed_dirty == 1);
    /* A second flush finds nothing; a clean line is dropped, not written. */
    assert_int_equal(sim_cache_flush(&cache, 0x4000), 0);
    load64(0x4000, &did);
    host_write64(0x4000, 9);
    assert_int_equal(sim_cache_flush(&cache, 0x4000), SIM_CACHE_DROPPED);
    assert_true(dram64(0x4000) == 9);
}

static void the_128_kib_conflict_evicts_and_writes_back(void **state)
{
    (void)state;
    unsigned did;
    uint64_t a = 0x10040, b = a + BH_L3_WAY_BYTES, c = a + 4 * BH_L3_WAY_BYTES;
    assert_int_equal(sim_cache_index(a), sim_cache_index(b));
    assert_int_equal(sim_cache_store(&cache, a, 8, 0xA), SIM_CACHE_MISSED);
    host_write64(b, 0xB);
    /* b takes a's place: a is written back on the way out. */
    assert_true(load64(b, &did) == 0xB);
    assert_int_equal(did, SIM_CACHE_MISSED | SIM_CACHE_WROTE_BACK);
    assert_true(dram64(a) == 0xA);
    assert_int_equal(sim_cache_state(&cache, a), 0);
    assert_int_equal(sim_cache_state(&cache, b), SIM_CACHE_VALID);
    assert_true(cache.stats.evictions == 1);
    /* A clean victim leaves quietly. */
    load64(c, &did);
    assert_int_equal(did, SIM_CACHE_MISSED);
    assert_true(cache.stats.evictions == 1);
    /* Lines off each other's way by one line live side by side. */
    load64(a + 64, &did);
    load64(b + 64 + 64, &did);
    assert_int_equal(sim_cache_state(&cache, c), SIM_CACHE_VALID);
    assert_int_equal(sim_cache_state(&cache, a + 64), SIM_CACHE_VALID);
    /* The whole way holds 128 KiB of consecutive lines, no more. */
    for (uint64_t x = 0; x < BH_L3_WAY_BYTES; x += BH_LINE_BYTES) {
        load64(0x800000 + x, &did);
    }
    for (uint64_t x = 0; x < BH_L3_WAY_BYTES; x += BH_LINE_BYTES) {
        assert_int_equal(sim_cache_state(&cache, 0x800000 + x), SIM_CACHE_VALID);
    }
    assert_int_equal(sim_cache_state(&cache, c), 0);
}

/* Spec: kmx_invalidate before reading what the grid or the host wrote. */
static void a_cached_line_serves_old_bytes_until_dropped(void **state)
{
    (void)state;
    unsigned did;
    host_write64(0x6000, 100);
    assert_true(load64(0x6000, &did) == 100);
    host_write64(0x6000, 200); /* the host or the NoC, behind the cache */
    assert_true(load64(0x6000, &did) == 100);
    assert_int_equal(did, 0);
    uint64_t peek = 0;
    assert_true(sim_cache_peek(&cache, 0x6000, &peek, 8));
    assert_true(peek == 100);
    assert_int_equal(sim_cache_flush(&cache, 0x6000), SIM_CACHE_DROPPED);
    assert_false(sim_cache_peek(&cache, 0x6000, &peek, 8));
    assert_true(load64(0x6000, &did) == 200);
    assert_int_equal(did, SIM_CACHE_MISSED);
}

/* Spec: the receiver of a push "holds no dirty line of the range when
 * the push lands: a dirty line written back later would overwrite the
 * pushed bytes". */
static void a_dirty_line_written_back_overwrites_newer_dram(void **state)
{
    (void)state;
    unsigned did;
    assert_int_equal(sim_cache_store(&cache, 0x8008, 8, 1), SIM_CACHE_MISSED);
    uint8_t pushed[BH_LINE_BYTES];
    memset(pushed, 0x77, sizeof pushed);
    assert_int_equal(sim_dram_write(&dram, BANK, 0x8000, pushed, sizeof pushed, NULL), KS_OK);
    /* The flush (kmx_invalidate: the same sweep) writes the whole stale
     * line over the pushed one. */
    assert_int_equal(sim_cache_flush(&cache, 0x8000), SIM_CACHE_DROPPED | SIM_CACHE_WROTE_BACK);
    assert_true(dram64(0x8000) == 0); /* not 0x7777...: the line's old bytes */
    assert_true(dram64(0x8008) == 1);
    assert_true(load64(0x8030, &did) == 0);
    /* So does an eviction, later. */
    assert_int_equal(sim_cache_store(&cache, 0x9000, 8, 5), SIM_CACHE_MISSED);
    assert_int_equal(sim_dram_write(&dram, BANK, 0x9000, pushed, sizeof pushed, NULL), KS_OK);
    load64(0x9000 + BH_L3_WAY_BYTES, &did);
    assert_int_equal(did, SIM_CACHE_MISSED | SIM_CACHE_WROTE_BACK);
    assert_true(dram64(0x9000) == 5);
    assert_true(dram64(0x9008) == 0);
}

static void reset_loses_dirty_lines(void **state)
{
    (void)state;
    unsigned did;
    sim_cache_store(&cache, 0xA000, 8, 42);
    sim_cache_reset(&cache);
    assert_int_equal(sim_cache_state(&cache, 0xA000), 0);
    assert_true(load64(0xA000, &did) == 0);
    assert_true(dram64(0xA000) == 0);
}

static void the_last_line_of_the_bank(void **state)
{
    (void)state;
    unsigned did;
    uint64_t last = BH_BANK_BYTES - 8;
    assert_int_equal(sim_cache_store(&cache, last, 8, 0xE), SIM_CACHE_MISSED);
    assert_int_equal(sim_cache_flush(&cache, last), SIM_CACHE_DROPPED | SIM_CACHE_WROTE_BACK);
    assert_true(dram64(last) == 0xE);
    /* Line 0 of the bank is a real line too (tag 0 must not look empty
     * only because its address is 0). */
    assert_true(load64(0, &did) == 0);
    assert_int_equal(did, SIM_CACHE_MISSED);
    load64(8, &did);
    assert_int_equal(did, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hits_and_misses, setup, teardown),
        cmocka_unit_test_setup_teardown(a_dirty_line_is_not_in_dram_until_flushed, setup, teardown),
        cmocka_unit_test_setup_teardown(the_128_kib_conflict_evicts_and_writes_back, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_cached_line_serves_old_bytes_until_dropped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_dirty_line_written_back_overwrites_newer_dram, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(reset_loses_dirty_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(the_last_line_of_the_bank, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
