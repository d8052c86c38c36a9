/* Tests for lib/expect/yaml_edit.c: values rewritten in place, every
 * other byte kept; refusals leave nothing half done. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "yaml_edit.h"

#define V(k, l, ...) \
    ((km_yaml_value){.kind = (k), .list = (l), \
                     .items = (const char *const[]){__VA_ARGS__}, \
                     .n = sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *)})
#define NONE(k) ((km_yaml_value){.kind = (k), .list = true, .items = NULL, .n = 0})

static char *edit(const char *text, const km_yaml_edit *edits, size_t n, int want)
{
    char *out = NULL;
    size_t len = 0;
    km_error e = {0};
    int rc = km_yaml_edit_text("t.yaml", text, strlen(text), edits, n, &out, &len, &e);
    if (rc != want)
        fail_msg("status %d (%s), expected %d", rc, e.message, want);
    if (rc != KM_OK) {
        assert_null(out);
        assert_true(strstr(e.message, "t.yaml") != NULL);
        return NULL;
    }
    assert_int_equal(strlen(out), len);
    return out;
}

static void scalars_keep_everything_else(void **state)
{
    (void)state;
    const char *text = "# top\n"
                       "expect:\n"
                       "  threads:\n"
                       "    - cluster: 1   # the one\n"
                       "      code: 7      # seven\n"
                       "      state: trapped\n"
                       "  regions:\n"
                       "    - {name: out, sha256: 'ABCD'}  # hash\n";
    km_yaml_edit edits[] = {
        {5, 13, V(KM_YAML_VALUE_INT, false, "7"), V(KM_YAML_VALUE_INT, false, "-12")},
        {6, 14, V(KM_YAML_VALUE_TEXT, false, "trapped"), V(KM_YAML_VALUE_TEXT, false, "stuck")},
        {8, 27, V(KM_YAML_VALUE_HEX, false, "abcd"), V(KM_YAML_VALUE_HEX, false, "0123")},
    };
    char *out = edit(text, edits, 3, KM_OK);
    assert_string_equal(out, "# top\n"
                             "expect:\n"
                             "  threads:\n"
                             "    - cluster: 1   # the one\n"
                             "      code: -12      # seven\n"
                             "      state: stuck\n"
                             "  regions:\n"
                             "    - {name: out, sha256: '0123'}  # hash\n");
    free(out);
}

static void an_unchanged_value_keeps_its_spelling(void **state)
{
    (void)state;
    const char *text = "w: [0x10, 2]\n";
    km_yaml_edit x = {1, 4, V(KM_YAML_VALUE_INT, true, "16", "2"),
                      V(KM_YAML_VALUE_INT, true, "16", "3")};
    char *out = edit(text, &x, 1, KM_OK);
    assert_string_equal(out, "w: [0x10, 3]\n");
    free(out);
}

static void flow_lists_grow_and_shrink(void **state)
{
    (void)state;
    km_yaml_edit grow = {1, 8, V(KM_YAML_VALUE_INT, true, "1", "2"),
                         V(KM_YAML_VALUE_INT, true, "1", "5", "6", "7")};
    char *out = edit("words: [1, 2]  # c\n", &grow, 1, KM_OK);
    assert_string_equal(out, "words: [1, 5, 6, 7]  # c\n");
    free(out);
    km_yaml_edit shrink = {1, 8, V(KM_YAML_VALUE_INT, true, "1", "2", "3"),
                           V(KM_YAML_VALUE_INT, true, "1")};
    out = edit("words: [1, 2, 3]\n", &shrink, 1, KM_OK);
    assert_string_equal(out, "words: [1]\n");
    free(out);
    km_yaml_edit empty = {1, 8, V(KM_YAML_VALUE_INT, true, "1", "2"), NONE(KM_YAML_VALUE_INT)};
    out = edit("words: [1, 2]\n", &empty, 1, KM_OK);
    assert_string_equal(out, "words: []\n");
    free(out);
    km_yaml_edit from_empty = {1, 9, NONE(KM_YAML_VALUE_TEXT),
                               V(KM_YAML_VALUE_TEXT, true, "hi there", "a: b")};
    out = edit("prints: []\n", &from_empty, 1, KM_OK);
    assert_string_equal(out, "prints: [hi there, \"a: b\"]\n");
    free(out);
}

static void block_lists_grow_and_shrink(void **state)
{
    (void)state;
    const char *text = "t:\n"
                       "  prints:\n"
                       "    - 'one'   # first\n"
                       "    # between\n"
                       "    -   two   # second\n"
                       "  code: 0\n";
    km_yaml_edit grow = {3, 5, V(KM_YAML_VALUE_TEXT, true, "one", "two"),
                         V(KM_YAML_VALUE_TEXT, true, "one", "2", "it's", "x\ty")};
    char *out = edit(text, &grow, 1, KM_OK);
    assert_string_equal(out, "t:\n"
                             "  prints:\n"
                             "    - 'one'   # first\n"
                             "    # between\n"
                             "    -   2   # second\n"
                             "    -   \"it's\"\n"
                             "    -   \"x\\ty\"\n"
                             "  code: 0\n");
    free(out);
    km_yaml_edit shrink = {3, 5, V(KM_YAML_VALUE_TEXT, true, "one", "two"),
                           V(KM_YAML_VALUE_TEXT, true, "uno")};
    out = edit(text, &shrink, 1, KM_OK);
    assert_string_equal(out, "t:\n"
                             "  prints:\n"
                             "    - 'uno'   # first\n"
                             "    # between\n"
                             "  code: 0\n");
    free(out);
    km_yaml_edit empty = {3, 5, V(KM_YAML_VALUE_TEXT, true, "one", "two"),
                          NONE(KM_YAML_VALUE_TEXT)};
    out = edit(text, &empty, 1, KM_OK);
    assert_string_equal(out, "t:\n"
                             "  prints: []\n"
                             "    # between\n"
                             "  code: 0\n");
    free(out);
}

static void crlf_and_the_last_line(void **state)
{
    (void)state;
    km_yaml_edit grow = {2, 1, V(KM_YAML_VALUE_INT, true, "1"),
                         V(KM_YAML_VALUE_INT, true, "1", "2")};
    char *out = edit("w:\r\n- 1\r\n", &grow, 1, KM_OK);
    assert_string_equal(out, "w:\r\n- 1\r\n- 2\r\n");
    free(out);
    km_yaml_edit shrink = {2, 1, V(KM_YAML_VALUE_INT, true, "1", "2"),
                           V(KM_YAML_VALUE_INT, true, "1")};
    out = edit("w:\n- 1\n- 2", &shrink, 1, KM_OK);
    assert_string_equal(out, "w:\n- 1");
    free(out);
}

static void null_and_utf8_columns(void **state)
{
    (void)state;
    /* Columns count characters: "é" is two bytes, one column. */
    const char *text = "c: {p: 'é', result: null}\n";
    km_yaml_edit x = {1, 21, V(KM_YAML_VALUE_NULL, false, "null"),
                      V(KM_YAML_VALUE_INT, false, "42")};
    char *out = edit(text, &x, 1, KM_OK);
    assert_string_equal(out, "c: {p: 'é', result: 42}\n");
    free(out);
    km_yaml_edit back = {1, 21, V(KM_YAML_VALUE_INT, false, "42"),
                         V(KM_YAML_VALUE_NULL, false, "null")};
    out = edit("c: {p: 'é', result: 42}\n", &back, 1, KM_OK);
    assert_string_equal(out, text);
    free(out);
}

static void refusals_change_nothing(void **state)
{
    (void)state;
    /* Not the value read: the file changed since. */
    km_yaml_edit stale = {1, 7, V(KM_YAML_VALUE_INT, false, "5"), V(KM_YAML_VALUE_INT, false, "6")};
    assert_null(edit("code: 4\n", &stale, 1, KM_EXIT_USAGE));
    /* No value there, or not of that kind. */
    km_yaml_edit nowhere = {1, 2, V(KM_YAML_VALUE_INT, false, "4"), V(KM_YAML_VALUE_INT, false, "6")};
    assert_null(edit("code: 4\n", &nowhere, 1, KM_EXIT_USAGE));
    km_yaml_edit kind = {1, 7, V(KM_YAML_VALUE_INT, true, "4"), V(KM_YAML_VALUE_INT, true, "6")};
    assert_null(edit("code: 4\n", &kind, 1, KM_EXIT_USAGE));
    /* A block scalar; an empty one. */
    km_yaml_edit block = {1, 4, V(KM_YAML_VALUE_HEX, false, "ab\n"), V(KM_YAML_VALUE_HEX, false, "cd")};
    assert_null(edit("s: |\n  ab\nt: 1\n", &block, 1, KM_EXIT_USAGE));
    /* One good edit and one bad: nothing at all. */
    km_yaml_edit two[] = {
        {1, 4, V(KM_YAML_VALUE_INT, false, "1"), V(KM_YAML_VALUE_INT, false, "2")},
        {2, 4, V(KM_YAML_VALUE_INT, false, "9"), V(KM_YAML_VALUE_INT, false, "3")},
    };
    assert_null(edit("a: 1\nb: 2\n", two, 2, KM_EXIT_USAGE));
    assert_null(edit("a: [1\n", &stale, 1, KM_EXIT_USAGE));
}

static void plain_or_quoted(void **state)
{
    (void)state;
    assert_true(km_yaml_plain_ok("sum is 42"));
    assert_true(km_yaml_plain_ok("42"));
    assert_false(km_yaml_plain_ok("true"));
    assert_false(km_yaml_plain_ok("null"));
    assert_false(km_yaml_plain_ok(""));
    assert_false(km_yaml_plain_ok("a: b"));
    assert_false(km_yaml_plain_ok("-x"));
    assert_false(km_yaml_plain_ok("x "));
    assert_false(km_yaml_plain_ok("a, b"));
    assert_false(km_yaml_plain_ok("# no"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalars_keep_everything_else),
        cmocka_unit_test(an_unchanged_value_keeps_its_spelling),
        cmocka_unit_test(flow_lists_grow_and_shrink),
        cmocka_unit_test(block_lists_grow_and_shrink),
        cmocka_unit_test(crlf_and_the_last_line),
        cmocka_unit_test(null_and_utf8_columns),
        cmocka_unit_test(refusals_change_nothing),
        cmocka_unit_test(plain_or_quoted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
