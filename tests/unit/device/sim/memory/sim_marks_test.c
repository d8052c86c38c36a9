/* sim_marks: ranges stay sorted, disjoint and joined, a change splits only
 * what it covers, and a random sequence of changes agrees with a byte map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim_marks.h"

static const sim_site at5 = {.kind = SIM_SITE_HOST, .ps = 5};
static const sim_site at9 = {.kind = SIM_SITE_HANDLER, .core = 3, .ps = 9};

static void a_region_written_whole_is_one_range(void **state)
{
    (void)state;
    sim_marks m = {0};
    for (uint64_t a = 0; a < 4096; a += 32) /* as a handler writes it, 32 bytes at a time */
        assert_int_equal(sim_marks_change(&m, 0x1000 + a, 0x1000 + a + 32, 0x0e, 0, &at5), 0);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.v[0].from, 0x1000);
    assert_int_equal(m.v[0].to, 0x2000);
    assert_int_equal(m.v[0].mask, 0x0e);
    sim_marks_free(&m);
}

static void a_sweep_splits_and_the_rest_stays(void **state)
{
    (void)state;
    sim_marks m = {0};
    /* a sweep of nothing marked: still nothing (and no copy of no ranges) */
    assert_int_equal(sim_marks_change(&m, 256, 320, 0, 0x02, &at9), 0);
    assert_int_equal(m.n, 0);
    sim_marks_change(&m, 0, 1024, 0x0e, 0, &at5);
    sim_marks_change(&m, 256, 320, 0, 0x02, &at9); /* cluster 1 swept a line */
    assert_int_equal(m.n, 3);
    assert_int_equal(m.v[1].from, 256);
    assert_int_equal(m.v[1].to, 320);
    assert_int_equal(m.v[1].mask, 0x0c);
    assert_int_equal(m.v[1].writer.ps, 5); /* a clear does not write */
    assert_null(sim_marks_find(&m, 256, 320, 0x02));
    assert_non_null(sim_marks_find(&m, 250, 260, 0x02));
    assert_non_null(sim_marks_find(&m, 300, 310, 0x04));
    /* every cluster sweeps it: the middle goes, the two sides stay apart */
    sim_marks_change(&m, 256, 320, 0, 0x0c, &at9);
    assert_int_equal(m.n, 2);
    assert_null(sim_marks_find(&m, 256, 320, 0xff));
    /* written again: one range, the later writer */
    sim_marks_change(&m, 256, 320, 0x0e, 0, &at9);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.v[0].writer.ps, 9);
    sim_marks_free(&m);
}

/* A random sequence against a byte map of masks. */
static void agrees_with_a_byte_map(void **state)
{
    (void)state;
    enum { SIZE = 2048 };
    static uint8_t map[SIZE];
    memset(map, 0, sizeof map);
    sim_marks m = {0};
    srand(7);
    for (int step = 0; step < 4000; step++) {
        uint64_t a = (uint64_t)(rand() % SIZE), b = a + 1 + (uint64_t)(rand() % 200);
        if (b > SIZE)
            b = SIZE;
        uint8_t set = rand() % 2 ? (uint8_t)(rand() & 0x0e) : 0;
        uint8_t clear = rand() % 2 ? (uint8_t)(rand() & 0x0e) : 0;
        assert_int_equal(sim_marks_change(&m, a, b, set, clear, &at5), 0);
        for (uint64_t k = a; k < b; k++)
            map[k] = (uint8_t)((map[k] | set) & ~clear);
        /* sorted, disjoint, not empty, no 0 mask, neighbours differ */
        for (size_t i = 0; i < m.n; i++) {
            assert_true(m.v[i].from < m.v[i].to);
            assert_int_not_equal(m.v[i].mask, 0);
            if (i > 0) {
                assert_true(m.v[i - 1].to <= m.v[i].from);
                assert_false(m.v[i - 1].to == m.v[i].from && m.v[i - 1].mask == m.v[i].mask);
            }
        }
        for (uint64_t k = 0; k < SIZE; k++) {
            const sim_mark *r = sim_marks_find(&m, k, k + 1, 0xff);
            assert_int_equal(r ? r->mask : 0, map[k]);
        }
    }
    sim_marks_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_region_written_whole_is_one_range),
        cmocka_unit_test(a_sweep_splits_and_the_rest_stays),
        cmocka_unit_test(agrees_with_a_byte_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
