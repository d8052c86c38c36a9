/* Tests for lib/build/km_depfile.c: gcc's dependency files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "km_depfile.h"

static void expect_paths(const char *text, const char *const *want, size_t nwant)
{
    char **paths;
    size_t n;
    assert_int_equal(km_depfile_parse(text, &paths, &n), 0);
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(paths[i], want[i]);
    km_depfile_free(paths, n);
}

static void one_line(void **state)
{
    (void)state;
    const char *want[] = {"a.c", "b.h"};
    expect_paths("out.o: a.c b.h\n", want, 2);
}

static void continued_lines(void **state)
{
    (void)state;
    const char *want[] = {"thread/main.c", "/usr/include/x.h", "k.h"};
    expect_paths("/w/t0/main.o: thread/main.c \\\n /usr/include/x.h \\\n  k.h\n", want, 3);
}

static void escaped_space_and_dollar(void **state)
{
    (void)state;
    const char *want[] = {"my dir/a.c", "p$q.h"};
    expect_paths("o.o: my\\ dir/a.c p$$q.h\n", want, 2);
}

static void phony_rules_add_nothing(void **state)
{
    (void)state;
    const char *want[] = {"a.c", "b.h"};
    expect_paths("o.o: a.c b.h\n\nb.h:\n", want, 2);
}

static void not_a_depfile(void **state)
{
    (void)state;
    char **paths;
    size_t n;
    assert_int_equal(km_depfile_parse("hello world\n", &paths, &n), -1);
    assert_null(paths);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_line),
        cmocka_unit_test(continued_lines),
        cmocka_unit_test(escaped_space_and_dollar),
        cmocka_unit_test(phony_rules_add_nothing),
        cmocka_unit_test(not_a_depfile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
