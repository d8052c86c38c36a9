/* Tests for support/ks_mem.c: big buffers come zeroed, page-aligned and
 * whole (every byte writable), small and huge sizes alike, and go back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "ks_mem.h"

static void check(size_t n)
{
    uint8_t *p = ks_mem_alloc(n);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 4096u, 0);
    size_t len = n ? n : 1;
    for (size_t i = 0; i < len; i += 4093)
        assert_int_equal(p[i], 0);
    assert_int_equal(p[len - 1], 0);
    memset(p, 0xa5, len); /* all of it is there */
    assert_int_equal(p[len - 1], 0xa5);
    ks_mem_free(p, n);
}

static void test_sizes_come_zeroed_and_whole(void **state)
{
    (void)state;
    check(0);
    check(1);
    check(64u * 1024u);
    check((size_t)2 << 20);             /* a huge page */
    check(((size_t)2 << 20) + 12345u);  /* past one: rounded up inside */
    check((size_t)4224u * 1024u);       /* a region of 4,224 KiB */
}

static void test_null_goes_back_as_nothing(void **state)
{
    (void)state;
    ks_mem_free(NULL, 123);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_come_zeroed_and_whole),
        cmocka_unit_test(test_null_goes_back_as_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
