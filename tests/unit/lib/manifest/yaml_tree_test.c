/* Tests for lib/manifest/yaml_tree.c: positions, scalar types, and what a manifest's
 * YAML may not contain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "yaml_tree.h"

static int parse(const char *text, km_yaml_node **root, km_diags *d)
{
    km_error e = {0};
    return km_yaml_load("t.yaml", text, strlen(text), root, d, &e);
}

static void positions(void **state)
{
    (void)state;
    km_yaml_node *root;
    km_diags d = {0};
    assert_int_equal(parse("# c\na: 1\nb:\n  - x\n  - {c: 'q', d: [1, 2]}\n",
                           &root, &d),
                     KM_OK);
    assert_int_equal(d.count, 0);
    assert_int_equal(root->kind, KM_YAML_MAP);
    assert_int_equal(root->line, 2);
    assert_int_equal(root->col, 1);
    assert_int_equal(root->n, 2);
    const km_yaml_node *a = km_yaml_get(root, "a");
    assert_string_equal(a->text, "1");
    assert_int_equal(a->line, 2);
    assert_int_equal(a->col, 4);
    const km_yaml_node *ka = km_yaml_key(root, "a");
    assert_int_equal(ka->line, 2);
    assert_int_equal(ka->col, 1);
    const km_yaml_node *b = km_yaml_get(root, "b");
    assert_int_equal(b->kind, KM_YAML_LIST);
    assert_int_equal(b->line, 4);
    assert_int_equal(b->col, 3);
    assert_int_equal(b->n, 2);
    assert_string_equal(b->items[0]->text, "x");
    assert_int_equal(b->items[0]->col, 5);
    const km_yaml_node *m = b->items[1];
    assert_int_equal(m->kind, KM_YAML_MAP);
    assert_int_equal(m->line, 5);
    assert_int_equal(m->col, 5);
    const km_yaml_node *c = km_yaml_get(m, "c");
    assert_true(c->quoted);
    assert_int_equal(c->col, 9);
    const km_yaml_node *list = km_yaml_get(m, "d");
    assert_int_equal(list->n, 2);
    assert_int_equal(list->items[1]->col, 21);
    assert_null(km_yaml_get(root, "zz"));
    assert_null(km_yaml_get(a, "x")); /* not a mapping */
    km_yaml_free(root);
}

static void scalar_types(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        km_yaml_type type;
        const char *describe;
    } cases[] = {
        {"x: ", KM_YAML_NULL, "nothing"},
        {"x: ~", KM_YAML_NULL, "null"},
        {"x: null", KM_YAML_NULL, "null"},
        {"x: NULL", KM_YAML_NULL, "null"},
        {"x: true", KM_YAML_BOOL, "a boolean"},
        {"x: False", KM_YAML_BOOL, "a boolean"},
        {"x: yes", KM_YAML_STR, "a string"}, /* YAML 1.2 */
        {"x: 12", KM_YAML_INT, "a number"},
        {"x: -12", KM_YAML_INT, "a number"},
        {"x: 0x1f", KM_YAML_INT, "a number"},
        {"x: 0o17", KM_YAML_INT, "a number"},
        {"x: 1.5", KM_YAML_FLOAT, "a number"},
        {"x: .5", KM_YAML_FLOAT, "a number"},
        {"x: 1e3", KM_YAML_FLOAT, "a number"},
        {"x: -.inf", KM_YAML_FLOAT, "a number"},
        {"x: .nan", KM_YAML_FLOAT, "a number"},
        {"x: 4KiB", KM_YAML_STR, "a string"},
        {"x: 1.5MiB", KM_YAML_STR, "a string"},
        {"x: -O2", KM_YAML_STR, "a string"},
        {"x: '12'", KM_YAML_STR, "a string"},
        {"x: \"true\"", KM_YAML_STR, "a string"},
        {"x: |\n  12\n", KM_YAML_STR, "a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        km_yaml_node *root;
        km_diags d = {0};
        assert_int_equal(parse(cases[i].text, &root, &d), KM_OK);
        const km_yaml_node *x = km_yaml_get(root, "x");
        if (km_yaml_scalar_type(x) != cases[i].type)
            print_message("%s\n", cases[i].text);
        assert_int_equal(km_yaml_scalar_type(x), cases[i].type);
        assert_string_equal(km_yaml_describe(x), cases[i].describe);
        km_yaml_free(root);
    }
}

static void kinds_described(void **state)
{
    (void)state;
    km_yaml_node *root;
    km_diags d = {0};
    assert_int_equal(parse("a: {}\nb: []\n", &root, &d), KM_OK);
    assert_string_equal(km_yaml_describe(root), "a mapping");
    assert_string_equal(km_yaml_describe(km_yaml_get(root, "b")), "a list");
    km_yaml_free(root);
}

/* Each refused construct: one diagnostic at its spot, and the tree still
 * given back when it is whole. */
static void refused(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int line, col;
        const char *message;
        bool whole;
    } cases[] = {
        {"a: 1\nb: 2\na: 3\n", 3, 1, "duplicate key 'a' (first at line 1)", true},
        {"a: &x 1\nb: *x\n", 2, 4,
         "unsupported alias '*x' (expected the value written out)", true},
        {"a: &x 1\n*x : 2\n", 2, 1,
         "unsupported alias '*x' (expected the value written out)", true},
        {"a: !!str 1\n", 1, 4, "unsupported tag '!!str' (expected an untagged value)",
         true},
        {"a: !local [1]\n", 1, 4,
         "unsupported tag '!local' (expected an untagged value)", true},
        {"a: 1\n---\nb: 2\n", 2, 1, "a second YAML document (expected one document)",
         true},
        {"? {a: 1}\n: 2\n", 1, 3, "a mapping as a mapping key (expected a plain key)",
         true},
        {"a: \"x\\0y\"\n", 1, 4, "a string with a NUL character (expected text)", true},
        {"a: [1, 2\n", 2, 1,
         "yaml syntax error: did not find expected ',' or ']' (while parsing a "
         "flow sequence at line 1)",
         false},
        {"a: 1\n b: 2\n", 2, 3,
         "yaml syntax error: mapping values are not allowed in this context", false},
        {"a: \"x\n", 2, 1,
         "yaml syntax error: found unexpected end of stream (while scanning a "
         "quoted scalar at line 1)",
         false},
        {"a:\tb\n\tc: 1\n", 2, 1,
         "yaml syntax error: found a tab character that violates indentation "
         "(while scanning a plain scalar at line 1)",
         false},
        {"a: \xff\n", 1, 4,
         "yaml syntax error: invalid leading UTF-8 octet (expected UTF-8 text)",
         false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        km_yaml_node *root = NULL;
        km_diags d = {0};
        int rc = parse(cases[i].text, &root, &d);
        if (d.count != 1 || d.items[0].line != cases[i].line ||
            d.items[0].col != cases[i].col ||
            strcmp(d.items[0].message, cases[i].message) != 0) {
            print_message("case %zu:\n", i);
            km_diags_print(&d, stdout);
        }
        assert_int_equal(rc, KM_EXIT_USAGE);
        assert_int_equal(d.count, 1);
        assert_int_equal(d.items[0].line, cases[i].line);
        assert_int_equal(d.items[0].col, cases[i].col);
        assert_string_equal(d.items[0].message, cases[i].message);
        assert_string_equal(d.items[0].file, "t.yaml");
        assert_int_equal(root != NULL, cases[i].whole);
        km_yaml_free(root);
        km_diags_free(&d);
    }
}

static void duplicate_keeps_first(void **state)
{
    (void)state;
    km_yaml_node *root;
    km_diags d = {0};
    assert_int_equal(parse("a: 1\na: 2\nb: *z\n", &root, &d), KM_EXIT_USAGE);
    assert_int_equal(root->n, 2);
    assert_string_equal(km_yaml_get(root, "a")->text, "1");
    assert_true(km_yaml_get(root, "b")->reported); /* the alias stands in */
    km_yaml_free(root);
    km_diags_free(&d);
}

static void empty_and_null_documents(void **state)
{
    (void)state;
    km_yaml_node *root = (km_yaml_node *)1;
    km_diags d = {0};
    assert_int_equal(parse("", &root, &d), KM_OK);
    assert_null(root);
    assert_int_equal(parse("# only a comment\n", &root, &d), KM_OK);
    assert_null(root);
    assert_int_equal(parse("---\n", &root, &d), KM_OK);
    assert_non_null(root);
    assert_int_equal(km_yaml_scalar_type(root), KM_YAML_NULL);
    km_yaml_free(root);
    assert_int_equal(d.count, 0);
}

static void nesting_limit(void **state)
{
    (void)state;
    char text[512] = "a: ";
    for (int i = 0; i < KM_YAML_MAX_DEPTH + 5; i++)
        strcat(text, "[");
    for (int i = 0; i < KM_YAML_MAX_DEPTH + 5; i++)
        strcat(text, "]");
    strcat(text, "\nb: 1\n");
    km_yaml_node *root;
    km_diags d = {0};
    assert_int_equal(parse(text, &root, &d), KM_EXIT_USAGE);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].message,
                        "nesting deeper than 64 levels (expected a manifest)");
    assert_int_equal(d.items[0].line, 1);
    assert_int_equal(d.items[0].col, 4 + KM_YAML_MAX_DEPTH - 1);
    assert_null(root);
    km_diags_free(&d);
}

/* Too deep a nesting ends the reading where it goes past the limit:
 * libyaml would take the square of the depth to go on (100,000 levels,
 * 37 s), so what follows, here a duplicate key, is not looked at. */
static void nesting_limit_ends_the_reading(void **state)
{
    (void)state;
    enum { DEEP = 100000 };
    char *text = malloc(2 * DEEP + 64);
    assert_non_null(text);
    size_t n = 0;
    n += (size_t)sprintf(text, "a: ");
    memset(text + n, '[', DEEP);
    n += DEEP;
    memset(text + n, ']', DEEP);
    n += DEEP;
    strcpy(text + n, "\na: 1\n");
    km_yaml_node *root;
    km_diags d = {0};
    assert_int_equal(parse(text, &root, &d), KM_EXIT_USAGE);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].message,
                        "nesting deeper than 64 levels (expected a manifest)");
    assert_null(root);
    km_diags_free(&d);
    free(text);
}

/* Duplicates are found by a hash of the mapping's keys; the first one's
 * line is still the one named, however many keys came between. */
static void duplicate_among_many_keys(void **state)
{
    (void)state;
    enum { KEYS = 5000 };
    char *text = malloc(KEYS * 16 + 64);
    assert_non_null(text);
    size_t n = 0;
    for (int i = 0; i < KEYS; i++)
        n += (size_t)sprintf(text + n, "k%d: %d\n", i, i);
    sprintf(text + n, "k1234: again\nk%d: new\n", KEYS);
    km_yaml_node *root;
    km_diags d = {0};
    assert_int_equal(parse(text, &root, &d), KM_EXIT_USAGE);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.items[0].message,
                        "duplicate key 'k1234' (first at line 1235)");
    assert_int_equal(d.items[0].line, KEYS + 1);
    assert_non_null(root);
    assert_int_equal(root->n, KEYS + 1);
    assert_string_equal(km_yaml_get(root, "k1234")->text, "1234");
    assert_string_equal(km_yaml_get(root, "k4999")->text, "4999");
    km_yaml_free(root);
    km_diags_free(&d);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(positions),
        cmocka_unit_test(scalar_types),
        cmocka_unit_test(kinds_described),
        cmocka_unit_test(refused),
        cmocka_unit_test(duplicate_keeps_first),
        cmocka_unit_test(empty_and_null_documents),
        cmocka_unit_test(nesting_limit),
        cmocka_unit_test(nesting_limit_ends_the_reading),
        cmocka_unit_test(duplicate_among_many_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
