/* Tests for lib/manifest/km_handlers.c: built-in and program handler ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "km_handlers.h"
#include "kmx_layout.h"

static void builtins(void **state)
{
    (void)state;
    assert_int_equal(km_handler_id(NULL, "nop"), KM_HANDLER_NOP);
    assert_int_equal(km_handler_id(NULL, "fill"), KM_HANDLER_FILL);
    assert_int_equal(km_handler_id(NULL, "copy"), KM_HANDLER_COPY);
    assert_int_equal(km_handler_id(NULL, "sum"), KM_HANDLER_SUM);
    assert_int_equal(km_handler_id(NULL, "spend"), KM_HANDLER_SPEND);
    assert_int_equal(km_handler_id(NULL, "Fill"), -1);
    assert_int_equal(km_handler_id(NULL, "double"), -1);
    assert_int_equal(km_handler_count(NULL), 5);
    assert_true(km_handler_is_builtin("SPEND"));
    assert_false(km_handler_is_builtin("spent"));
}

static void program_handlers(void **state)
{
    (void)state;
    char *names[] = {"double", "scan"};
    km_program p = {0};
    p.kernels.handlers = names;
    p.kernels.nhandlers = 2;
    assert_int_equal(km_handler_id(&p, "double"), KM_HANDLER_FIRST_PROGRAM);
    assert_int_equal(km_handler_id(&p, "scan"), KM_HANDLER_FIRST_PROGRAM + 1);
    assert_int_equal(km_handler_id(&p, "sum"), KM_HANDLER_SUM);
    assert_int_equal(km_handler_id(&p, "scans"), -1);
    assert_int_equal(km_handler_count(&p), 7);
    km_handler h = km_handler_at(&p, 0);
    assert_string_equal(h.name, "nop");
    assert_int_equal(h.id, KM_HANDLER_NOP);
    h = km_handler_at(&p, 6);
    assert_string_equal(h.name, "scan");
    assert_int_equal(h.id, KM_HANDLER_FIRST_PROGRAM + 1);
    const char *all[8];
    assert_int_equal(km_handler_names(&p, all, 8), 7);
    assert_string_equal(all[4], "spend");
    assert_string_equal(all[5], "double");
    const char *few[2];
    assert_int_equal(km_handler_names(&p, few, 2), 7); /* the count, always */
    assert_string_equal(few[1], "fill");
}

static void macro_names(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(km_handler_macro("scan_2", buf, sizeof buf), "HANDLER_SCAN_2");
    assert_string_equal(km_handler_macro("nop", buf, sizeof buf), "HANDLER_NOP");
    assert_null(km_handler_macro("a_name_too_long_for_it", buf, 16));
    assert_non_null(km_handler_macro("abcdefg", buf, 16)); /* 15 + NUL */
    assert_null(km_handler_macro("abcdefgh", buf, 16));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtins),
        cmocka_unit_test(program_handlers),
        cmocka_unit_test(macro_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
