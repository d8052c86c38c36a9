/* km_symbols: many addresses at once say what one at a time says, an
 * inlined function's own line included, and what cannot be said stays
 * unknown. */
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
    km_source_lookup_many(image, at, N, many);
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
    km_source_lookup_many("/nonexistent/image.elf", at, 3, out);
    for (unsigned i = 0; i < 3; i++)
        assert_false(out[i].known);
    km_source_lookup_many(NULL, at, 3, out);
    assert_false(out[0].known);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_say_what_one_says),
        cmocka_unit_test(unknown_image_leaves_every_source_unknown),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
