/* Tests for device/sim/memory/sim_bank.c: a DRAM bank's queue of line
 * slots, and the page rule of an interleaved tensor (km_card_io.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "km_card_io.h"
#include "sim_bank.h"
#include "sim_dram.h"

static sim_bank bank;

static void lines_are_the_64_byte_lines_touched(void **state)
{
    (void)state;
    assert_int_equal(sim_bank_lines(0, 4), 1);
    assert_int_equal(sim_bank_lines(60, 8), 2);
    assert_int_equal(sim_bank_lines(0, 4096), 64);
    assert_int_equal(sim_bank_lines(32, 4096), 65);
    assert_int_equal(sim_bank_lines(128, 0), 1);
}

static void alone_a_request_takes_its_lines(void **state)
{
    (void)state;
    sim_bank_init(&bank);
    /* At a slot's start: 64 lines, 64 ns. */
    assert_int_equal(sim_bank_serve(&bank, 5000000, 64), 5000000 + 64 * SIM_BANK_LINE_PS);
    /* Much later, inside a free slot: that slot counts, it ends sooner. */
    assert_int_equal(sim_bank_serve(&bank, 9000500, 1), 9001000);
    assert_int_equal(bank.waited_ps, 0);
    assert_int_equal(bank.lines, 65);
}

static void requesters_at_once_queue_in_turn(void **state)
{
    (void)state;
    sim_bank_init(&bank);
    /* Eight cores ask for 4 KiB each at the same moment: the last is
     * served 8 x 64 ns later, and every one after the one before. */
    uint64_t last = 0;
    for (unsigned i = 0; i < 8; i++) {
        uint64_t end = sim_bank_serve(&bank, 1000000, 64);
        assert_int_equal(end, 1000000 + (i + 1) * 64 * SIM_BANK_LINE_PS);
        assert_true(end > last);
        last = end;
    }
    assert_int_equal(bank.waited_ps, (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7) * 64 * SIM_BANK_LINE_PS);
}

static void an_earlier_requester_takes_the_gaps_left_free(void **state)
{
    (void)state;
    sim_bank_init(&bank);
    /* Booked by the requester's time, not by who asks first: a request
     * made later for an earlier moment takes the free slots before it. */
    assert_int_equal(sim_bank_serve(&bank, 100000, 2), 102000);
    assert_int_equal(sim_bank_serve(&bank, 90000, 3), 93000);
    /* One at 101 ns finds 100..101 taken: slots 102, 103. */
    assert_int_equal(sim_bank_serve(&bank, 101000, 2), 104000);
}

static void the_calendar_slides_and_stays_deterministic(void **state)
{
    (void)state;
    /* A queue deeper than the calendar's reach, twice: the same ends. */
    uint64_t ends[2][96];
    for (int run = 0; run < 2; run++) {
        sim_bank_init(&bank);
        for (unsigned i = 0; i < 96; i++)
            ends[run][i] = sim_bank_serve(&bank, (uint64_t)i * 3000, 1000);
    }
    assert_memory_equal(ends[0], ends[1], sizeof ends[0]);
    /* Within the reach, back to back: 64,000 lines from time 0. */
    assert_int_equal(ends[0][63], 64000ull * SIM_BANK_LINE_PS);
    /* Past it the calendar slid: the queue never shrinks, and a request
     * still ends after it started. */
    for (unsigned i = 64; i < 96; i++)
        assert_true(ends[0][i] >= (uint64_t)i * 3000 + SIM_BANK_LINE_PS);
}

static void a_requester_far_behind_meets_no_queue(void **state)
{
    (void)state;
    sim_bank_init(&bank);
    /* Someone booked 100 us ahead; a line wanted at 1 us, long before the
     * calendar's reach, is served at once, not after all of that. */
    assert_int_equal(sim_bank_serve(&bank, 100000000, 64), 100064000);
    assert_int_equal(sim_bank_serve(&bank, 1000000, 1), 1001000);
    /* One inside the reach still queues. */
    assert_int_equal(sim_bank_serve(&bank, 100000000, 1), 100065000);
}

static void the_card_keeps_one_queue_a_bank(void **state)
{
    (void)state;
    static sim_dram d;
    sim_dram_init(&d);
    assert_int_equal(sim_dram_bank(&d, 6, 0, 4096, 0), 64 * SIM_BANK_LINE_PS);
    assert_int_equal(sim_dram_bank(&d, 6, 4096, 4096, 0), 128 * SIM_BANK_LINE_PS);
    /* Another bank is idle. */
    assert_int_equal(sim_dram_bank(&d, 2, 0, 4096, 0), 64 * SIM_BANK_LINE_PS);
    sim_dram_free(&d);
}

static void interleaved_pages_go_round_the_banks(void **state)
{
    (void)state;
    unsigned b;
    uint64_t at;
    /* Page p in bank p % 8 at base + (p / 8) * page_size. */
    assert_int_equal(km_interleaved_at(0x1000000, 4096, 0, &b, &at), 4096);
    assert_int_equal(b, 0);
    assert_int_equal(at, 0x1000000);
    assert_int_equal(km_interleaved_at(0x1000000, 4096, 4096 * 6 + 100, &b, &at), 4096 - 100);
    assert_int_equal(b, 6);
    assert_int_equal(at, 0x1000000 + 100);
    assert_int_equal(km_interleaved_at(0x1000000, 2048, 2048 * 17 + 2047, &b, &at), 1);
    assert_int_equal(b, 1);
    assert_int_equal(at, 0x1000000 + 2 * 2048 + 2047);
    /* What a tensor takes in each bank: whole pages, its first bank's. */
    assert_int_equal(km_interleaved_bank_bytes(4096, 119 * 4096), 15 * 4096);
    assert_int_equal(km_interleaved_bank_bytes(2048, 1), 2048);
    assert_int_equal(km_interleaved_bank_bytes(2048, 8 * 2048), 2048);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lines_are_the_64_byte_lines_touched),
        cmocka_unit_test(alone_a_request_takes_its_lines),
        cmocka_unit_test(requesters_at_once_queue_in_turn),
        cmocka_unit_test(an_earlier_requester_takes_the_gaps_left_free),
        cmocka_unit_test(the_calendar_slides_and_stays_deterministic),
        cmocka_unit_test(a_requester_far_behind_meets_no_queue),
        cmocka_unit_test(the_card_keeps_one_queue_a_bank),
        cmocka_unit_test(interleaved_pages_go_round_the_banks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
