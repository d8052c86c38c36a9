/* km_symbols: many addresses at once say what one at a time says, an
 * inlined function's own line included, and what cannot be said stays
 * unknown; a memo answers what it holds, learns what it does not, and one
 * that is damaged is not believed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "km_symbols.h"

static char dir[64];
static char image[128];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/km-symbols-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char src[128], cmd[1024];
    snprintf(src, sizeof src, "%s/walk.c", dir);
    FILE *f = fopen(src, "w");
    if (!f)
        return -1;
    fputs("static inline long twice(long x)\n"
          "{\n"
          "    return x * 2 + 1;\n" /* line 3 */
          "}\n"
          "long walk(const long *a, long n)\n"
          "{\n"
          "    long s = 0;\n"
          "    for (long i = 0; i < n; i++)\n"
          "        s += twice(a[i]);\n" /* line 9 */
          "    return s;\n"
          "}\n",
          f);
    fclose(f);
    const char *cc = getenv("RV_CC");
    snprintf(image, sizeof image, "%s/walk.o", dir);
    snprintf(cmd, sizeof cmd, "%s -march=rv64gc -mabi=lp64d -O2 -g -c %s -o %s",
             cc && *cc ? cc : "riscv64-unknown-elf-gcc", src, image);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void many_say_what_one_says(void **state)
{
    (void)state;
    enum { N = 24 };
    uint64_t at[N];
    for (unsigned i = 0; i < N; i++)
        at[i] = 2 * i;
    km_source many[N];
    km_source_lookup_many(image, NULL, at, N, many);
    unsigned known = 0, inlined = 0;
    for (unsigned i = 0; i < N; i++) {
        km_source one;
        km_source_lookup(image, at[i], &one);
        assert_int_equal(many[i].known, one.known);
        if (!one.known)
            continue;
        known++;
        assert_non_null(strstr(many[i].file, "walk.c"));
        assert_true(many[i].has_function);
        /* -i: the innermost frame, the inlined function's own line */
        if (strcmp(many[i].function, "twice") == 0) {
            inlined++;
            assert_int_equal(many[i].line, 3);
        } else {
            assert_string_equal(many[i].function, "walk");
            assert_int_equal(many[i].line, one.line);
        }
    }
    assert_true(known > N / 2);
    assert_true(inlined > 0);
}

static void unknown_image_leaves_every_source_unknown(void **state)
{
    (void)state;
    uint64_t at[3] = {0, 4, 8};
    km_source out[3];
    memset(out, 0xff, sizeof out);
    km_source_lookup_many("/nonexistent/image.elf", NULL, at, 3, out);
    for (unsigned i = 0; i < 3; i++)
        assert_false(out[i].known);
    km_source_lookup_many(NULL, NULL, at, 3, out);
    assert_false(out[0].known);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = calloc(1, 1 << 16);
    size_t n = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
    (void)n;
    fclose(f);
    return text;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Field by field (the structures' padding is nobody's). */
static void assert_same_sources(const km_source *a, const km_source *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a[i].known, b[i].known);
        assert_int_equal(a[i].line, b[i].line);
        assert_int_equal(a[i].has_function, b[i].has_function);
        assert_string_equal(a[i].function, b[i].function);
        assert_string_equal(a[i].file, b[i].file);
    }
}

static void memo_answers_learns_and_distrusts(void **state)
{
    (void)state;
    enum { N = 24 };
    uint64_t at[N];
    for (unsigned i = 0; i < N; i++)
        at[i] = 2 * i;
    char memo[160];
    snprintf(memo, sizeof memo, "%s/walk.o.lines", dir);
    remove(memo);
    km_source plain[N], first[N], again[N];
    km_source_lookup_many(image, NULL, at, N, plain);
    /* the first half: asked, and kept */
    km_source_lookup_many(image, memo, at, N / 2, first);
    assert_same_sources(first, plain, N / 2);
    char *text = slurp(memo);
    assert_non_null(text);
    assert_non_null(strstr(text, "kmrun addr2line memo 1\t"));
    unsigned rows = 0;
    for (const char *c = text; *c; c++)
        rows += *c == '\n';
    assert_int_equal(rows, 1 + N / 2);
    /* what the memo holds is what the next lookup says: a function
     * renamed in it comes back renamed (the tool was not asked) */
    char *walk = strstr(text, "\twalk\t");
    assert_non_null(walk);
    memcpy(walk + 1, "WALK", 4);
    spit(memo, text);
    free(text);
    km_source_lookup_many(image, memo, at, N, again);
    unsigned renamed = 0;
    for (unsigned i = 0; i < N; i++) {
        assert_int_equal(again[i].known, plain[i].known);
        assert_int_equal(again[i].line, plain[i].line);
        if (strcmp(again[i].function, plain[i].function) != 0) {
            assert_true(i < N / 2);
            assert_string_equal(again[i].function, "WALK");
            renamed++;
        }
    }
    assert_int_equal(renamed, 1);
    /* the second half was learned: every address now in it */
    text = slurp(memo);
    rows = 0;
    for (const char *c = text; *c; c++)
        rows += *c == '\n';
    assert_int_equal(rows, 1 + N);
    free(text);
    /* a memo with another header (damaged, another tool's) is not
     * believed: the tool answers, and the memo is written anew */
    spit(memo, "something else\n0\t1\tWRONG\twrong.c\n");
    km_source_lookup_many(image, memo, at, N, again);
    assert_same_sources(again, plain, N);
    /* a memo that cannot be written costs nothing but the tool */
    km_source_lookup_many(image, "/nonexistent/dir/walk.lines", at, N, again);
    assert_same_sources(again, plain, N);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_say_what_one_says),
        cmocka_unit_test(unknown_image_leaves_every_source_unknown),
        cmocka_unit_test(memo_answers_learns_and_distrusts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
