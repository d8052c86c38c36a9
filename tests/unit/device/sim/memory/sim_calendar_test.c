/* Tests for device/sim/memory/sim_calendar.c: a request takes the first
 * free slot at or after its own; the window moves as its rule says and
 * forgets what it leaves; a slot older than the window is taken or served
 * unbooked as the rule says; a run of busy words is passed at once with
 * the same result as slot by slot; the window's bits, moved a word's run
 * at a time, are those of a calendar kept slot by slot, for a window of a
 * power of two slots and of another multiple of 64. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

/* The reference: the same calendar with one bool a slot, its window moved
 * and forgotten a slot at a time. */
#define REF_MAX 512u
typedef struct ref {
    uint64_t base;
    bool busy[REF_MAX];
} ref;

static void ref_slide(const sim_calendar_rule *r, ref *c, uint64_t s)
{
    if (s < c->base + r->slots)
        return;
    uint64_t to = r->slide_ahead ? (s - r->slots + 1u + r->slots / 4u) & ~(uint64_t)63u
                                 : s - r->slots + 1u;
    for (uint64_t old = c->base; old < to && old < c->base + r->slots; old++)
        c->busy[old % r->slots] = false;
    c->base = to;
}

static uint64_t ref_take(const sim_calendar_rule *r, ref *c, uint64_t s)
{
    if (s < c->base) {
        if (!r->past_taken)
            return s;
        s = c->base;
    }
    ref_slide(r, c, s);
    while (c->busy[s % r->slots])
        ref_slide(r, c, ++s);
    c->busy[s % r->slots] = true;
    return s;
}

static void as_slot_by_slot(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {256u, 320u}; /* a power of two, and not */
    uint64_t x = 12345;
    for (unsigned z = 0; z < 2; z++) {
        for (unsigned rule = 0; rule < 4; rule++) {
            const sim_calendar_rule r = {sizes[z], rule & 1u, (rule & 2u) != 0};
            uint64_t base = 0, busy[REF_MAX / 64] = {0}, s = 0;
            ref c;
            memset(&c, 0, sizeof c);
            for (unsigned i = 0; i < 20000; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                unsigned k = (unsigned)(x >> 33);
                /* mostly near the last request, now and then a jump */
                s = k % 16u == 0 ? s + k % (2u * sizes[z]) : s + k % 9u - (s >= 4u ? 4u : 0u);
                assert_int_equal(sim_calendar_take(&r, &base, busy, s), ref_take(&r, &c, s));
                assert_int_equal(base, c.base);
                for (uint64_t b = 0; b < r.slots; b++)
                    assert_int_equal((busy[b / 64] >> (b % 64)) & 1u, c.busy[b]);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_free_at_or_after),
        cmocka_unit_test(moving_forgets_what_it_leaves),
        cmocka_unit_test(the_past_is_taken_or_unbooked),
        cmocka_unit_test(busy_words_passed_at_once),
        cmocka_unit_test(as_slot_by_slot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
