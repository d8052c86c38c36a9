/* km_profile: rows merge by stack, the folded text and the JSON read back
 * as written (the JSON preferred), a damaged file is an error, a run with
 * neither has no profile; frames taken apart; the top table's order and
 * sums, annotated source and the SVG's escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "km_fs.h"
#include "km_profile.h"

static km_profile sample(void)
{
    km_profile p = {0};
    km_error err = {0};
    assert_int_equal(km_profile_add(&p, "1.0;main (a.c:9);f (a.c:3)", 50, 20, 10, 0, &err), KM_OK);
    assert_int_equal(km_profile_add(&p, "1.1;main (a.c:9);f (a.c:3)", 30, 10, 0, 0, &err), KM_OK);
    assert_int_equal(km_profile_add(&p, "1.0;main (a.c:10)", 15, 15, 0, 1, &err), KM_OK);
    assert_int_equal(km_profile_add(&p, "1.0;main (a.c:9);f (a.c:3)", 5, 2, 1, 0, &err), KM_OK);
    assert_int_equal(km_profile_add(&p, "1.0;0x80000010", 0, 0, 0, 0, &err), KM_OK);
    km_profile_sort(&p);
    return p;
}

static void rows_merge_and_sort(void **state)
{
    (void)state;
    km_profile p = sample();
    assert_int_equal(p.n, 4);
    assert_string_equal(p.rows[0].stack, "1.0;0x80000010");
    assert_string_equal(p.rows[2].stack, "1.0;main (a.c:9);f (a.c:3)");
    assert_int_equal(p.rows[2].cycles, 55);
    assert_int_equal(p.rows[2].instructions, 22);
    assert_int_equal(p.rows[2].memory_stall_cycles, 11);
    km_profile_free(&p);
    assert_int_equal(p.n, 0);
}

static void frames_apart(void **state)
{
    (void)state;
    const char *s;
    size_t n;
    km_profile_core_of("2.3;a;b (x.c:1)", &s, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(s, "2.3", 3);
    km_profile_leaf_of("2.3;a;b (x.c:1)", &s, &n);
    assert_string_equal(s, "b (x.c:1)");
    km_profile_row r = {.stack = "2.3;a"};
    assert_true(km_profile_on_core(&r, "2.3"));
    assert_true(km_profile_on_core(&r, NULL));
    assert_false(km_profile_on_core(&r, "2.30"));
    assert_false(km_profile_on_core(&r, "2."));
}

static char dir[64];

static char *path_in(const char *name)
{
    return km_path_join(dir, name);
}

static void files_read_back(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/km-profile-XXXXXX");
    assert_non_null(mkdtemp(dir));
    km_profile p = sample(), q = {0};
    km_error err = {0};
    /* neither file: no profile */
    assert_int_equal(km_profile_read(&q, dir, &err), KM_EXIT_USAGE);
    assert_non_null(strstr(err.message, "has no profile"));
    /* the folded file alone: cycles, the zero rows left out */
    char *folded = path_in("profile.folded"), *json = path_in("profile.json");
    FILE *f = fopen(folded, "w");
    assert_int_equal(km_profile_write_folded(&p, f), 0);
    fclose(f);
    assert_int_equal(km_profile_read(&q, dir, &err), KM_OK);
    assert_int_equal(q.n, 3);
    for (size_t i = 0; i < q.n; i++) {
        assert_string_equal(q.rows[i].stack, p.rows[i + 1].stack);
        assert_int_equal(q.rows[i].cycles, p.rows[i + 1].cycles);
        assert_int_equal(q.rows[i].instructions, 0);
    }
    km_profile_free(&q);
    /* with the JSON: every counter */
    char *text = km_profile_json(&p);
    assert_int_equal(km_write_file_atomic(json, text, strlen(text), &err), KM_OK);
    free(text);
    assert_int_equal(km_profile_read(&q, dir, &err), KM_OK);
    assert_int_equal(q.n, p.n);
    for (size_t i = 0; i < q.n; i++) {
        assert_string_equal(q.rows[i].stack, p.rows[i].stack);
        assert_int_equal(q.rows[i].cycles, p.rows[i].cycles);
        assert_int_equal(q.rows[i].instructions, p.rows[i].instructions);
        assert_int_equal(q.rows[i].memory_stall_cycles, p.rows[i].memory_stall_cycles);
        assert_int_equal(q.rows[i].traps, p.rows[i].traps);
    }
    km_profile_free(&q);
    /* damaged */
    assert_int_equal(km_write_file_atomic(json, "{\"stacks\": [{\"stack\": \"x\"}]}", 29, &err),
                     KM_OK);
    assert_int_equal(km_profile_read(&q, dir, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "lacks its counts"));
    km_profile_free(&q);
    assert_int_equal(km_profile_parse_folded(&q, "a;b 12\nno count here\n", &err),
                     KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "line 2"));
    km_profile_free(&q);
    assert_int_equal(km_profile_parse_folded(&q, "a;b c (x.c:1) 12\n\na 3", &err), KM_OK);
    assert_int_equal(q.n, 2);
    assert_string_equal(q.rows[0].stack, "a;b c (x.c:1)");
    assert_int_equal(q.rows[1].cycles, 3);
    km_profile_free(&q);
    unlink(folded);
    unlink(json);
    free(folded);
    free(json);
    rmdir(dir);
    km_profile_free(&p);
}

static void top_table(void **state)
{
    (void)state;
    km_profile p = sample();
    char *t = km_profile_top_text(&p, NULL, 0);
    assert_non_null(t);
    /* f (a.c:3): 85 of 100 cycles, both cores; then main (a.c:10) */
    assert_non_null(strstr(t, "every core: 100 cycles\n"));
    char *f = strstr(t, "85  85.00%"), *m = strstr(t, "15  15.00%");
    assert_non_null(f);
    assert_non_null(m);
    assert_true(f < m);
    assert_non_null(strstr(f, "f (a.c:3)\n"));
    free(t);
    t = km_profile_top_text(&p, "1.1", 1);
    assert_non_null(strstr(t, "1.1: 30 cycles\n"));
    assert_null(strstr(t, "main (a.c:10)"));
    free(t);
    t = km_profile_top_text(&p, NULL, 1);
    assert_non_null(strstr(t, "(2 more lines: --limit 0 shows them all)"));
    free(t);
    t = km_profile_top_json(&p, "1.0", 0);
    assert_non_null(strstr(t, "\"function\":\t\"f\""));
    assert_non_null(strstr(t, "\"file\":\t\"a.c\""));
    assert_non_null(strstr(t, "\"line\":\t3"));
    free(t);
    km_profile_free(&p);
}

static void annotated(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/km-profile-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char *src = path_in("a.c");
    km_error err = {0};
    char lines[400] = "";
    for (int i = 1; i <= 10; i++)
        snprintf(lines + strlen(lines), sizeof lines - strlen(lines), "line%d\n", i);
    assert_int_equal(km_write_file_atomic(src, lines, strlen(lines), &err), KM_OK);
    km_profile p = sample();
    char *t = NULL;
    assert_int_equal(km_profile_annotate(&p, NULL, src, &t, &err), KM_OK);
    /* line 3: self 85; line 9: self 0, total 85 (it called f); line 10: 15 */
    assert_non_null(strstr(t, "85  85.00%              85      3  line3\n"));
    assert_non_null(strstr(t, " 0   0.00%              85      9  line9\n"));
    assert_non_null(strstr(t, "15  15.00%              15     10  line10\n"));
    free(t);
    assert_int_equal(km_profile_annotate(&p, NULL, "/no/such/b.c", &t, &err), KM_EXIT_USAGE);
    free(src);
    src = path_in("b.c");
    assert_int_equal(km_write_file_atomic(src, "x\n", 2, &err), KM_OK);
    assert_int_equal(km_profile_annotate(&p, NULL, src, &t, &err), KM_EXIT_USAGE);
    assert_non_null(strstr(err.message, "names no line of"));
    unlink(src);
    free(src);
    src = path_in("a.c");
    unlink(src);
    free(src);
    rmdir(dir);
    km_profile_free(&p);
}

static void svg_escapes(void **state)
{
    (void)state;
    km_profile p = {0};
    km_error err = {0};
    assert_int_equal(km_profile_add(&p, "1.0;operator<]]> (a&b.c:1)", 7, 1, 0, 0, &err), KM_OK);
    char *svg = km_profile_svg(&p, NULL, "t <&> \"x\"");
    assert_non_null(svg);
    assert_non_null(strstr(svg, "t &lt;&amp;&gt; &quot;x&quot;"));
    /* the frame in the script's data, '<' and '>' escaped: one "]]>" only */
    assert_non_null(strstr(svg, "operator\\u003c]]\\u003e (a&b.c:1)"));
    char *cdata_end = strstr(svg, "]]>");
    assert_non_null(cdata_end);
    assert_null(strstr(cdata_end + 3, "]]>"));
    assert_non_null(strstr(svg, "data-ready=\"0\""));
    free(svg);
    km_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_merge_and_sort), cmocka_unit_test(frames_apart),
        cmocka_unit_test(files_read_back),     cmocka_unit_test(top_table),
        cmocka_unit_test(annotated),           cmocka_unit_test(svg_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
