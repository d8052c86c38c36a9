/* Tests for device/sim/memory/sim_dram.c: sparse banks, host access, watchers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/mman.h>

#include "sim_dram.h"

static sim_dram dram;

static int setup(void **state)
{
    (void)state;
    sim_dram_init(&dram);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sim_dram_free(&dram);
    return 0;
}

static void untouched_reads_zero_and_allocate_nothing(void **state)
{
    (void)state;
    uint8_t buf[256];
    memset(buf, 0xAA, sizeof buf);
    assert_int_equal(sim_dram_read(&dram, 6, BH_BANK_BYTES - sizeof buf, buf, sizeof buf, NULL),
                     KS_OK);
    for (size_t i = 0; i < sizeof buf; i++) {
        assert_int_equal(buf[i], 0);
    }
    uint8_t line[BH_LINE_BYTES];
    memset(line, 0xAA, sizeof line);
    sim_dram_read_line(&dram, 7, 0x12340, line);
    assert_int_equal(line[0], 0);
    assert_int_equal(line[63], 0);
    assert_true(dram.pages_allocated == 0);
    assert_null(dram.pages[6]);
}

static void a_write_allocates_only_the_pages_it_touches(void **state)
{
    (void)state;
    /* 16 bytes across the boundary of two pages near the top of bank 6. */
    uint64_t at = 3ull * 1024 * 1024 * 1024 + SIM_DRAM_PAGE_BYTES - 8;
    uint8_t in[16], out[16];
    for (int i = 0; i < 16; i++) {
        in[i] = (uint8_t)(i + 1);
    }
    assert_int_equal(sim_dram_write(&dram, 6, at, in, sizeof in, NULL), KS_OK);
    assert_true(dram.pages_allocated == 2);
    assert_int_equal(sim_dram_read(&dram, 6, at, out, sizeof out, NULL), KS_OK);
    assert_memory_equal(in, out, sizeof in);
    /* The same addresses of another bank are still zero. */
    assert_int_equal(sim_dram_read(&dram, 7, at, out, sizeof out, NULL), KS_OK);
    for (int i = 0; i < 16; i++) {
        assert_int_equal(out[i], 0);
    }
    assert_true(dram.pages_allocated == 2);
    /* Rewriting touched pages allocates nothing more. */
    assert_int_equal(sim_dram_write(&dram, 6, at + 4, in, 4, NULL), KS_OK);
    assert_true(dram.pages_allocated == 2);
}

static void lines_round_trip(void **state)
{
    (void)state;
    uint8_t in[BH_LINE_BYTES], out[BH_LINE_BYTES];
    for (unsigned i = 0; i < BH_LINE_BYTES; i++) {
        in[i] = (uint8_t)(0xF0 ^ i);
    }
    assert_int_equal(sim_dram_write_line(&dram, 5, 0x1000, in), 0);
    sim_dram_read_line(&dram, 5, 0x1000, out);
    assert_memory_equal(in, out, sizeof in);
    uint8_t word[4];
    assert_int_equal(sim_dram_read(&dram, 5, 0x1000 + 60, word, 4, NULL), KS_OK);
    assert_memory_equal(word, in + 60, 4);
}

static void out_of_range_is_an_error(void **state)
{
    (void)state;
    uint8_t buf[8] = {0};
    ks_error err = {0};
    assert_int_equal(sim_dram_read(&dram, 8, 0, buf, 1, &err), KS_ERR_BUG);
    assert_non_null(strstr(err.message, "bank 8"));
    assert_int_equal(sim_dram_write(&dram, 6, BH_BANK_BYTES - 4, buf, 8, &err),
                     KS_ERR_BUG);
    assert_non_null(strstr(err.message, "0xfffffffc"));
    assert_int_equal(sim_dram_read(&dram, 6, UINT64_MAX, buf, 2, NULL), KS_ERR_BUG);
    assert_true(dram.pages_allocated == 0);
    /* The last byte of a bank is in range; zero bytes at its end too. */
    assert_int_equal(sim_dram_write(&dram, 6, BH_BANK_BYTES - 1, buf, 1, NULL), KS_OK);
    assert_int_equal(sim_dram_read(&dram, 6, BH_BANK_BYTES, buf, 0, NULL), KS_OK);
}

struct seen {
    unsigned calls, bank;
    uint64_t addr, n;
    const void *writer;
};

static void watch(void *ctx, unsigned bank, uint64_t addr, uint64_t n, const void *writer)
{
    struct seen *s = ctx;
    s->calls++;
    s->bank = bank;
    s->addr = addr;
    s->n = n;
    s->writer = writer;
}

static void watchers_see_writes_that_bypass_caches(void **state)
{
    (void)state;
    struct seen six = {0}, seven = {0};
    uint8_t buf[100] = {1};
    int writer;
    assert_int_equal(sim_dram_watch(&dram, 6, watch, &six), 0);
    assert_int_equal(sim_dram_watch(&dram, 7, watch, &seven), 0);

    assert_int_equal(sim_dram_write(&dram, 6, 0x100, buf, sizeof buf, NULL), KS_OK);
    assert_int_equal(six.calls, 1);
    assert_int_equal(six.bank, 6);
    assert_true(six.addr == 0x100 && six.n == sizeof buf);
    assert_null(six.writer);
    assert_int_equal(seven.calls, 0);

    assert_int_equal(sim_dram_write_as(&dram, 7, 0x200, buf, 8, &writer, NULL), KS_OK);
    assert_int_equal(seven.calls, 1);
    assert_ptr_equal(seven.writer, &writer);

    /* A cache's write-back is no news: the line was the cache's own. */
    assert_int_equal(sim_dram_write_line(&dram, 6, 0x1000, buf), 0);
    assert_int_equal(six.calls, 1);

    sim_dram_unwatch(&dram, watch, &six);
    assert_int_equal(sim_dram_write(&dram, 6, 0, buf, 1, NULL), KS_OK);
    assert_int_equal(six.calls, 1);
    assert_int_equal(dram.nwatchers, 1);
}

/* n bytes of fresh zeros, as a session's copy is. */
static uint8_t *fresh(size_t n)
{
    void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    return m;
}

static void a_move_lends_whole_pages_and_copies_cut_ones(void **state)
{
    (void)state;
    /* A range from 64 bytes into page 1 to 64 bytes into page 4: page 1
     * and page 4 are cut, pages 2 and 3 wholly inside; page 3 never written. */
    uint64_t addr = SIM_DRAM_PAGE_BYTES + 64, n = 3 * SIM_DRAM_PAGE_BYTES;
    uint8_t a = 0x11, b = 0x22, c = 0x33;
    assert_int_equal(sim_dram_write(&dram, 5, addr, &a, 1, NULL), KS_OK);
    assert_int_equal(sim_dram_write(&dram, 5, 2 * SIM_DRAM_PAGE_BYTES + 8, &b, 1, NULL), KS_OK);
    assert_int_equal(sim_dram_write(&dram, 5, addr + n - 1, &c, 1, NULL), KS_OK);
    assert_true(dram.pages_allocated == 3);
    uint8_t *dst = fresh(n);
    uint64_t data[1] = {0};
    assert_int_equal(sim_dram_move(&dram, 5, addr, n, dst, true, data, 12, NULL), KS_OK);
    assert_int_equal(dst[0], 0x11);
    assert_int_equal(dst[2 * SIM_DRAM_PAGE_BYTES + 8 - addr], 0x22);
    assert_int_equal(dst[n - 1], 0x33);
    /* Page 2 lives in dst now: one page fewer of the card's own. */
    assert_true(dram.pages_allocated == 2);
    /* The data map: the 4 KiB units of pages 1, 2 and 4, not page 3's. */
    uint64_t units_of_page = SIM_DRAM_PAGE_BYTES >> 12;
    assert_true(data[0] & 1u);
    assert_true(data[0] >> (2 * units_of_page - 1) & 1u);
    assert_false(data[0] >> (2 * units_of_page + 1) & 1u);
    assert_true(data[0] >> (n - 1) / 4096 & 1u);
    /* The card reads and writes the lent page in dst. */
    uint8_t d = 0x44, back = 0;
    assert_int_equal(sim_dram_write(&dram, 5, 2 * SIM_DRAM_PAGE_BYTES + 9, &d, 1, NULL), KS_OK);
    assert_int_equal(dst[2 * SIM_DRAM_PAGE_BYTES + 9 - addr], 0x44);
    assert_int_equal(sim_dram_read(&dram, 5, 2 * SIM_DRAM_PAGE_BYTES + 8, &back, 1, NULL), KS_OK);
    assert_int_equal(back, 0x22);
    /* A second copy of the same range (a shared region) copies the lent page. */
    uint8_t *again = fresh(n);
    assert_int_equal(sim_dram_move(&dram, 5, addr, n, again, true, NULL, 0, NULL), KS_OK);
    assert_int_equal(again[2 * SIM_DRAM_PAGE_BYTES + 9 - addr], 0x44);
    assert_int_equal(dst[2 * SIM_DRAM_PAGE_BYTES + 9 - addr], 0x44);
    sim_dram_free(&dram); /* frees the card's own pages, not dst's */
    munmap(again, n);
    munmap(dst, n);
}

/* A range whose pages line up with dst's: the host pages themselves move
 * (mremap), and the card goes on reading and writing them in dst. */
static void aligned_pages_move_without_a_copy(void **state)
{
    (void)state;
    uint64_t addr = SIM_DRAM_PAGE_BYTES, n = 2 * SIM_DRAM_PAGE_BYTES;
    uint8_t a = 0x61, b = 0x62;
    assert_int_equal(sim_dram_write(&dram, 3, addr + 5, &a, 1, NULL), KS_OK);
    assert_int_equal(sim_dram_write(&dram, 3, addr + n - 1, &b, 1, NULL), KS_OK);
    assert_true(dram.pages_allocated == 2);
    uint8_t *dst = fresh(n);
    assert_int_equal(sim_dram_move(&dram, 3, addr, n, dst, true, NULL, 0, NULL), KS_OK);
    assert_true(dram.pages_allocated == 0);
    assert_int_equal(dst[5], 0x61);
    assert_int_equal(dst[n - 1], 0x62);
    uint8_t c = 0x63, back = 0;
    assert_int_equal(sim_dram_write(&dram, 3, addr + 6, &c, 1, NULL), KS_OK);
    assert_int_equal(dst[6], 0x63);
    assert_int_equal(sim_dram_read(&dram, 3, addr + n - 1, &back, 1, NULL), KS_OK);
    assert_int_equal(back, 0x62);
    sim_dram_free(&dram);
    munmap(dst, n);
}

static void a_copy_without_lend_keeps_the_card_pages(void **state)
{
    (void)state;
    uint8_t a = 0x5a;
    assert_int_equal(sim_dram_write(&dram, 0, 3 * SIM_DRAM_PAGE_BYTES, &a, 1, NULL), KS_OK);
    uint8_t *dst = fresh(4 * SIM_DRAM_PAGE_BYTES);
    assert_int_equal(sim_dram_move(&dram, 0, 0, 4 * SIM_DRAM_PAGE_BYTES, dst, false, NULL, 0,
                                   NULL),
                     KS_OK);
    assert_int_equal(dst[3 * SIM_DRAM_PAGE_BYTES], 0x5a);
    dst[3 * SIM_DRAM_PAGE_BYTES] = 0;
    uint8_t back = 0;
    assert_int_equal(sim_dram_read(&dram, 0, 3 * SIM_DRAM_PAGE_BYTES, &back, 1, NULL), KS_OK);
    assert_int_equal(back, 0x5a);
    assert_true(dram.pages_allocated == 1);
    munmap(dst, 4 * SIM_DRAM_PAGE_BYTES);
}

static void a_backed_range_is_written_in_place(void **state)
{
    (void)state;
    uint64_t addr = 64, n = 2 * SIM_DRAM_PAGE_BYTES;
    uint8_t *dst = fresh(n);
    assert_int_equal(sim_dram_back(&dram, 1, addr, n, dst), 0);
    uint8_t a = 0x77, b = 0x88;
    /* Page 1 is wholly inside: written in dst, nothing of the card's. */
    assert_int_equal(sim_dram_write(&dram, 1, SIM_DRAM_PAGE_BYTES + 4, &a, 1, NULL), KS_OK);
    assert_true(dram.pages_allocated == 0);
    assert_int_equal(dst[SIM_DRAM_PAGE_BYTES + 4 - addr], 0x77);
    /* Page 0 is cut by the range: the card's own, copied by the move. */
    assert_int_equal(sim_dram_write(&dram, 1, addr, &b, 1, NULL), KS_OK);
    assert_true(dram.pages_allocated == 1);
    assert_int_equal(dst[0], 0);
    uint64_t data[1] = {0};
    assert_int_equal(sim_dram_move(&dram, 1, addr, n, dst, true, data, 12, NULL), KS_OK);
    assert_int_equal(dst[0], 0x88);
    assert_int_equal(dst[SIM_DRAM_PAGE_BYTES + 4 - addr], 0x77);
    assert_true(data[0] & 1u);
    sim_dram_free(&dram);
    munmap(dst, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(untouched_reads_zero_and_allocate_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(a_write_allocates_only_the_pages_it_touches, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(lines_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(out_of_range_is_an_error, setup, teardown),
        cmocka_unit_test_setup_teardown(watchers_see_writes_that_bypass_caches, setup, teardown),
        cmocka_unit_test_setup_teardown(a_move_lends_whole_pages_and_copies_cut_ones, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(aligned_pages_move_without_a_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(a_copy_without_lend_keeps_the_card_pages, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_backed_range_is_written_in_place, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
