/* Tests for support/ks_grow.c: room made by doubling from a small start,
 * at least what is needed, and on failure (a byte count that overflows,
 * memory that runs out) the array and its capacity left as they were. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "ks_grow.h"

/* Under AddressSanitizer (MODE=asan), an allocation too big to give
 * returns NULL, as libc's does, instead of ending the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

static void test_room_starts_small_and_doubles(void **state)
{
    (void)state;
    int *items = NULL;
    size_t cap = 0;
    assert_true(KS_GROW(items, cap, 1));
    assert_non_null(items);
    assert_int_equal(cap, KS_GROW_START);
    for (size_t i = 0; i < KS_GROW_START; i++)
        items[i] = (int)i;
    assert_true(KS_GROW(items, cap, KS_GROW_START + 1));
    assert_int_equal(cap, 2 * KS_GROW_START);
    for (size_t i = 0; i < KS_GROW_START; i++)
        assert_int_equal(items[i], (int)i); /* kept */
    free(items);
}

static void test_room_there_already_changes_nothing(void **state)
{
    (void)state;
    int *items = NULL;
    size_t cap = 0;
    assert_true(ks_grow((void **)&items, &cap, 0, sizeof *items));
    assert_null(items); /* nothing needed: nothing allocated */
    assert_int_equal(cap, 0);
    assert_true(KS_GROW(items, cap, 3));
    int *was = items;
    assert_true(KS_GROW(items, cap, cap));
    assert_ptr_equal(items, was);
    assert_int_equal(cap, KS_GROW_START);
    free(items);
}

static void test_a_need_beyond_double_is_met(void **state)
{
    (void)state;
    char *items = NULL;
    size_t cap = 0;
    assert_true(KS_GROW(items, cap, 100));
    assert_true(cap >= 100);
    items[99] = 'x';
    size_t was = cap;
    assert_true(KS_GROW(items, cap, 5 * was));
    assert_true(cap >= 5 * was);
    assert_int_equal(items[99], 'x');
    free(items);
}

static void test_a_byte_count_that_overflows_fails_untouched(void **state)
{
    (void)state;
    double *items = NULL;
    size_t cap = 0;
    assert_true(KS_GROW(items, cap, 2));
    double *was = items;
    size_t was_cap = cap;
    assert_false(KS_GROW(items, cap, SIZE_MAX / sizeof *items + 1));
    assert_ptr_equal(items, was);
    assert_int_equal(cap, was_cap);
    assert_false(ks_grow((void **)&items, &cap, SIZE_MAX, 2));
    /* Bytes that fit a size_t but pass PTRDIFF_MAX: no object is that
     * large, and the allocator is not asked. */
    assert_false(ks_grow((void **)&items, &cap, (size_t)PTRDIFF_MAX + 1u, 1));
    assert_ptr_equal(items, was);
    assert_int_equal(cap, was_cap);
    free(items);
}

static void test_memory_that_runs_out_fails_untouched(void **state)
{
    (void)state;
    /* A count whose bytes are within PTRDIFF_MAX but no allocator gives. */
    char *items = NULL;
    size_t cap = 0;
    assert_true(KS_GROW(items, cap, 1));
    char *was = items;
    assert_false(KS_GROW(items, cap, SIZE_MAX / 4));
    assert_ptr_equal(items, was);
    assert_int_equal(cap, KS_GROW_START);
    free(items);
}

static void test_doubling_past_the_limit_asks_for_the_need(void **state)
{
    (void)state;
    /* cap * 2 would not fit: the need alone is asked for, and fails here
     * as memory, not as a wrapped small size that would succeed. */
    char *items = NULL;
    size_t cap = SIZE_MAX / 2 + 1;
    assert_false(KS_GROW(items, cap, SIZE_MAX / 2 + 2));
    assert_null(items);
    assert_int_equal(cap, SIZE_MAX / 2 + 1);
}

static void test_zeroed_room_is_zero_and_the_rest_kept(void **state)
{
    (void)state;
    unsigned *items = NULL;
    size_t cap = 0;
    assert_true(KS_GROW_ZEROED(items, cap, 3));
    for (size_t i = 0; i < cap; i++)
        assert_int_equal(items[i], 0);
    for (size_t i = 0; i < cap; i++)
        items[i] = 0xdeadbeef;
    size_t was = cap;
    assert_true(KS_GROW_ZEROED(items, cap, 100));
    for (size_t i = 0; i < was; i++)
        assert_int_equal(items[i], 0xdeadbeef);
    for (size_t i = was; i < cap; i++)
        assert_int_equal(items[i], 0);
    unsigned *kept = items;
    assert_false(KS_GROW_ZEROED(items, cap, SIZE_MAX / sizeof *items + 1));
    assert_ptr_equal(items, kept);
    free(items);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_room_starts_small_and_doubles),
        cmocka_unit_test(test_room_there_already_changes_nothing),
        cmocka_unit_test(test_a_need_beyond_double_is_met),
        cmocka_unit_test(test_a_byte_count_that_overflows_fails_untouched),
        cmocka_unit_test(test_memory_that_runs_out_fails_untouched),
        cmocka_unit_test(test_doubling_past_the_limit_asks_for_the_need),
        cmocka_unit_test(test_zeroed_room_is_zero_and_the_rest_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
