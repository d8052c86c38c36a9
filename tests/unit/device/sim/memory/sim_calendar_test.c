/* Tests for device/sim/memory/sim_calendar.c: a request takes the first
 * free slot at or after its own; the window moves as its rule says and
 * forgets what it leaves; a slot older than the window is taken or served
 * unbooked as the rule says; a run of busy words is passed at once with
 * the same result as slot by slot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim_calendar.h"

#define SLOTS 256u

static const sim_calendar_rule exact = {SLOTS, false, true};
static const sim_calendar_rule ahead = {SLOTS, true, false};

static void first_free_at_or_after(void **state)
{
    (void)state;
    uint64_t base = 0, busy[SLOTS / 64] = {0};
    assert_int_equal(sim_calendar_take(&exact, &base, busy, 10), 10);
    assert_int_equal(sim_calendar_take(&exact, &base, busy, 10), 11);
    assert_int_equal(sim_calendar_take(&exact, &base, busy, 9), 9);
    assert_int_equal(sim_calendar_take(&exact, &base, busy, 9), 12);
    assert_int_equal(base, 0);
}

static void moving_forgets_what_it_leaves(void **state)
{
    (void)state;
    uint64_t base = 0, busy[SLOTS / 64] = {0};
    for (uint64_t s = 0; s < 8; s++)
        sim_calendar_take(&exact, &base, busy, s);
    /* slot SLOTS + 3 shares slot 3's bit: the window moves just far enough
     * (base 4), and the old slot 3 is forgotten, not taken */
    assert_int_equal(sim_calendar_take(&exact, &base, busy, SLOTS + 3), SLOTS + 3);
    assert_int_equal(base, 4);
    /* slots 4 to 7 are still held: SLOTS + 4 is free (another bit), 4 taken */
    assert_int_equal(sim_calendar_take(&exact, &base, busy, 4), 8);
    /* by words, a quarter ahead */
    uint64_t b2 = 0, busy2[SLOTS / 64] = {0};
    sim_calendar_take(&ahead, &b2, busy2, 5);
    assert_int_equal(sim_calendar_take(&ahead, &b2, busy2, SLOTS + 5), SLOTS + 5);
    assert_int_equal(b2 % 64, 0);
    assert_true(b2 >= 6 + SLOTS / 4 - 64 && b2 <= SLOTS + 5);
}

static void the_past_is_taken_or_unbooked(void **state)
{
    (void)state;
    uint64_t base = 0, busy[SLOTS / 64] = {0};
    sim_calendar_take(&exact, &base, busy, 10 * SLOTS);
    uint64_t at = base;
    /* taken: the request waits for the window's oldest slot */
    assert_int_equal(sim_calendar_take(&exact, &base, busy, 5), at);
    assert_int_equal(sim_calendar_take(&exact, &base, busy, 5), at + 1);
    uint64_t b2 = 0, busy2[SLOTS / 64] = {0};
    sim_calendar_take(&ahead, &b2, busy2, 10 * SLOTS);
    /* unbooked: served at once, again and again */
    assert_int_equal(sim_calendar_take(&ahead, &b2, busy2, 5), 5);
    assert_int_equal(sim_calendar_take(&ahead, &b2, busy2, 5), 5);
}

static void busy_words_passed_at_once(void **state)
{
    (void)state;
    /* ahead's word skip against the same rule taken slot by slot: fill
     * three words and some, then ask from their start */
    uint64_t b1 = 0, w1[SLOTS / 64] = {0};
    for (uint64_t s = 64; s < 64 + 3 * 64 + 5; s++)
        assert_int_equal(sim_calendar_take(&ahead, &b1, w1, s), s);
    assert_int_equal(sim_calendar_take(&ahead, &b1, w1, 64), 64 + 3 * 64 + 5);
    /* and across the window's end: the answer moves the window */
    uint64_t b2 = 0, w2[SLOTS / 64] = {0};
    for (uint64_t s = 0; s < SLOTS; s++)
        sim_calendar_take(&ahead, &b2, w2, s);
    assert_int_equal(sim_calendar_take(&ahead, &b2, w2, 0), SLOTS);
    assert_true(b2 > 0 && b2 % 64 == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_free_at_or_after),
        cmocka_unit_test(moving_forgets_what_it_leaves),
        cmocka_unit_test(the_past_is_taken_or_unbooked),
        cmocka_unit_test(busy_words_passed_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
