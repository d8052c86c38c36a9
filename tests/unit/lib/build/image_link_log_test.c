/* Tests for lib/build/image_link_log.c: a real failed link (a struct assignment
 * without libc, linked with the RISC-V toolchain at test time), the forms of
 * GNU ld's and lld's logs, and the explanations of known symbols. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "km_image.h"

#define FIXTURES "tests/fixtures/images"
#define RV_FLAGS                                                            \
    "-march=rv64gc_zba_zbb -mabi=lp64d -mcmodel=medany -nostdlib "           \
    "-nostartfiles -ffreestanding -Wl,--no-warn-rwx-segments -T "            \
    FIXTURES "/image.ld"

#define assert_contains(haystack, needle)                                    \
    do {                                                                     \
        if (!strstr((haystack), (needle)))                                   \
            fail_msg("expected \"%s\" in:\n%s", (needle), (haystack));       \
    } while (0)

static const char *rv_cc(void)
{
    const char *cc = getenv("RV_CC");
    return cc && *cc ? cc : "riscv64-unknown-elf-gcc";
}

/* Links fixture memset.c with `flags` in C locale (so that ld's quotes are
 * the plain ones) and returns its output, allocated. */
static char *failed_link(const char *flags)
{
    char dir[] = "/tmp/kmrun-link-test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "LC_ALL=C %s " RV_FLAGS " %s " FIXTURES "/memset.c -o %s/memset.elf "
             ">%s/log 2>&1", rv_cc(), flags, dir, dir);
    int rc = system(cmd);
    assert_true(rc != 0); /* it must not link */
    char path[128];
    snprintf(path, sizeof path, "%s/log", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *log = calloc(1, 65536);
    assert_non_null(log);
    size_t n = fread(log, 1, 65535, f);
    log[n] = 0;
    fclose(f);
    remove(path);
    rmdir(dir);
    return log;
}

/* The lines of fixture memset.c where GCC may place the call: the zeroed
 * local's initialiser and the assignment. */
static void memset_lines(int *init, int *assign)
{
    FILE *f = fopen(FIXTURES "/memset.c", "r");
    assert_non_null(f);
    char line[256];
    *init = *assign = 0;
    for (int n = 1; fgets(line, sizeof line, f); n++) {
        if (strstr(line, "fresh = {{0}}"))
            *init = n;
        if (strstr(line, "saved = fresh"))
            *assign = n;
    }
    fclose(f);
    assert_true(*init > 0 && *assign > 0);
}

static void real_memset_link_failure_names_the_line(void **state)
{
    char *log = failed_link("-O2 -g");
    assert_contains(log, "undefined reference to `memset'");
    km_error err = {0};
    assert_int_equal(km_link_log_explain(log, "worker", &err), KM_EXIT_BUILD);
    assert_int_equal(err.status, KM_EXIT_BUILD);

    int init, assign;
    memset_lines(&init, &assign);
    char at_init[64], at_assign[64];
    snprintf(at_init, sizeof at_init, "memset.c:%d, in function '_start': ", init);
    snprintf(at_assign, sizeof at_assign, "memset.c:%d, in function '_start': ", assign);
    if (!strstr(err.message, at_init) && !strstr(err.message, at_assign))
        fail_msg("expected memset.c:%d or :%d in:\n%s", init, assign, err.message);
    assert_true(strncmp(err.message, "image 'worker' does not link: undefined "
                                     "symbol 'memset'\n  ", 49) == 0);
    assert_contains(err.message, "/" FIXTURES "/memset.c:"); /* the full path */
    assert_contains(err.message, ": a struct assignment, a zero-initialised local "
                                 "array or a large initialiser became a call to "
                                 "'memset', which the image cannot have: there is "
                                 "no libc (write the loop yourself, or initialise "
                                 "the fields one by one)");
    /* The linker's own lines are not repeated. */
    assert_null(strstr(err.message, "collect2"));
    assert_null(strstr(err.message, "bin/ld"));
    free(log);
}

static void real_link_without_debug_information(void **state)
{
    char *log = failed_link("-O0");
    km_error err = {0};
    assert_int_equal(km_link_log_explain(log, "worker", &err), KM_EXIT_BUILD);
    /* No line number without -g: the source file and the function. */
    assert_contains(err.message, "\n  memset.c, in function '_start': a struct "
                                 "assignment");
    free(log);
}

static void symbols_once_each_in_log_order(void **state)
{
    const char *log =
        "/usr/lib/gcc/riscv64-unknown-elf/12.2.0/../../../riscv64-unknown-elf/bin/ld: "
        "/tmp/ccgk16ir.o: in function `f':\n"
        "/src/thread/m2.c:8: undefined reference to `memset'\n"
        "/usr/bin/riscv64-unknown-elf-ld: /tmp/ccgk16ir.o: in function `_start':\n"
        "/src/thread/m2.c:15: undefined reference to `strlen'\n"
        "/usr/bin/riscv64-unknown-elf-ld: /src/thread/m2.c:15: undefined reference to `helper'\n"
        "/usr/bin/riscv64-unknown-elf-ld: /src/thread/m2.c:17: undefined reference to `memset'\n"
        "/usr/bin/riscv64-unknown-elf-ld: /tmp/ccgk16ir.o:/src/thread/m2.c:4: "
        "undefined reference to `helper'\n"
        "collect2: error: ld returned 1 exit status\n";
    km_error err = {0};
    assert_int_equal(km_link_log_explain(log, "worker", &err), KM_EXIT_BUILD);
    char want[2048];
    char memset_why[512], strlen_why[512], helper_why[512];
    assert_int_equal(km_image_explain_symbol("memset", memset_why, sizeof memset_why), 1);
    assert_int_equal(km_image_explain_symbol("strlen", strlen_why, sizeof strlen_why), 1);
    assert_int_equal(km_image_explain_symbol("helper", helper_why, sizeof helper_why), 0);
    snprintf(want, sizeof want,
             "image 'worker' does not link: undefined symbols 'memset', 'strlen' "
             "and 'helper'\n"
             "  /src/thread/m2.c:8, in function 'f': %s\n"
             "  /src/thread/m2.c:15, in function '_start': %s\n"
             "  /src/thread/m2.c:15, in function '_start': %s",
             memset_why, strlen_why, helper_why);
    assert_string_equal(err.message, want);
    assert_contains(strlen_why, "'strlen' is a C library function");
    assert_contains(helper_why, "'helper' is used but nothing defines it");
}

static void reference_from_a_variable(void **state)
{
    const char *log =
        "/usr/bin/ld: /tmp/x.o:(.sdata+0x8): undefined reference to `handler_table_entry'\n"
        "collect2: error: ld returned 1 exit status\n";
    km_error err = {0};
    assert_int_equal(km_link_log_explain(log, "t", &err), KM_EXIT_BUILD);
    assert_contains(err.message, "\n  /tmp/x.o, in a variable's initialiser "
                                 "(.sdata): 'handler_table_entry' is used");
    /* With debug information, the variable's line. */
    const char *log2 =
        "/usr/bin/ld: /tmp/ccA.o: in function `run':\n"
        "/src/a.c:3: undefined reference to `memcpy'\n"
        "/usr/bin/ld: /tmp/ccA.o:/src/a.c:40: undefined reference to `cb'\n";
    assert_int_equal(km_link_log_explain(log2, "t", &err), KM_EXIT_BUILD);
    assert_contains(err.message, "\n  /src/a.c:3, in function 'run': a struct "
                                 "assignment, a struct passed or returned by value");
    assert_contains(err.message, "\n  /src/a.c:40: 'cb' is used");
}

static void lld_and_other_wordings(void **state)
{
    const char *lld =
        "ld.lld: error: undefined symbol: memset\n"
        ">>> referenced by main.c:12 (thread/main.c:12)\n"
        ">>>               main.o:(work)\n"
        ">>> referenced by main.c:30\n"
        ">>>               main.o:(other)\n"
        "\n"
        "ld.lld: error: undefined symbol: sqrt\n"
        ">>> referenced by calc.c:7\n"
        ">>>               calc.o:(function norm: .text+0x10)\n";
    km_error err = {0};
    assert_int_equal(km_link_log_explain(lld, "t", &err), KM_EXIT_BUILD);
    assert_contains(err.message, "undefined symbols 'memset' and 'sqrt'\n");
    assert_contains(err.message, "\n  thread/main.c:12, in function 'work': a struct assignment");
    assert_contains(err.message, "\n  calc.c:7, in function 'norm': 'sqrt' is a C "
                                 "maths library function");
    assert_contains(err.message, "__builtin_sqrt");

    /* A UTF-8 locale's quotes, and a warning instead of an error. */
    const char *utf8 =
        "/usr/bin/ld: a.o: in function \xe2\x80\x98go\xe2\x80\x99:\n"
        "/src/a.c:9: warning: undefined reference to \xe2\x80\x98printf\xe2\x80\x99\n";
    /* Older binutils, and the function on the reference's own line. */
    const char *old_ld =
        "main.o: In function `loop':\n"
        "main.c:(.text+0x8): undefined reference to `puts'\n"
        "ld: other.o: in function `tick': other.c:5: undefined reference to `malloc'\n";
    assert_int_equal(km_link_log_explain(old_ld, "t", &err), KM_EXIT_BUILD);
    assert_contains(err.message, "\n  main.c, in function 'loop': 'puts' prints");
    assert_contains(err.message, "\n  other.c:5, in function 'tick': 'malloc' allocates");

    assert_int_equal(km_link_log_explain(utf8, "t", &err), KM_EXIT_BUILD);
    assert_string_equal(err.message,
                        "image 't' does not link: undefined symbol 'printf'\n"
                        "  /src/a.c:9, in function 'go': 'printf' prints, and the "
                        "image has no libc and no console: report values with "
                        "kmx_result and where the thread is with kmx_progress");
}

static void image_region_overflow(void **state)
{
    const char *log =
        "/usr/bin/riscv64-unknown-elf-ld: /tmp/t0/image.elf section `.rodata' "
        "will not fit in region `IMAGE'\n"
        "/usr/bin/riscv64-unknown-elf-ld: region `IMAGE' overflowed by 6340 bytes\n"
        "collect2: error: ld returned 1 exit status\n";
    km_error err = {0};
    assert_int_equal(km_link_log_explain(log, "worker", &err), KM_EXIT_BUILD);
    assert_string_equal(err.message,
                        "image 'worker' does not link: it is 6,340 bytes over the "
                        "126,976 bytes of the cluster's instruction memory "
                        "('.rodata' does not fit)\n"
                        "  globals and constants count: move large tables into a "
                        "region (its initial contents given in the manifest, read "
                        "with kmx_region), or build with -Os");
    /* Another region is named as it is; undefined symbols follow. */
    const char *both =
        "ld: a.elf section `.data' will not fit in region `STACKS'\n"
        "ld: a.elf section `.sdata' will not fit in region `STACKS'\n"
        "ld: region `STACKS' overflowed by 12 bytes\n"
        "a.c:3: undefined reference to `memset'\n";
    assert_int_equal(km_link_log_explain(both, "w", &err), KM_EXIT_BUILD);
    assert_contains(err.message, "image 'w' does not link: it is 12 bytes over the "
                                 "linker script's region 'STACKS' ('.data', "
                                 "'.sdata' do not fit)\n");
    assert_contains(err.message, "\nimage 'w' does not link: undefined symbol "
                                 "'memset'\n  a.c:3: a struct assignment");
}

/* What kmx.ld does with an image too large, for real: the same message. */
static void real_region_overflow(void **state)
{
    char dir[] = "/tmp/kmrun-link-test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "printf 'MEMORY { IMAGE (rwx) : ORIGIN = 0x08000000, LENGTH = 126976 }\n"
             "SECTIONS { .text : { *(.text.start) *(.text*) } > IMAGE "
             ".rodata : { *(.rodata*) } > IMAGE .data : { *(.data*) } > IMAGE }\n' "
             ">%s/region.ld && LC_ALL=C %s -march=rv64gc_zba_zbb -mabi=lp64d "
             "-mcmodel=medany -nostdlib -nostartfiles -ffreestanding -O2 "
             "-Wl,--no-warn-rwx-segments -T %s/region.ld " FIXTURES "/big_table.c "
             "-o %s/big.elf >%s/log 2>&1",
             dir, rv_cc(), dir, dir, dir);
    assert_true(system(cmd) != 0);
    char path[128];
    snprintf(path, sizeof path, "%s/log", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char log[8192];
    size_t n = fread(log, 1, sizeof log - 1, f);
    log[n] = 0;
    fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    km_error err = {0};
    assert_int_equal(km_link_log_explain(log, "big", &err), KM_EXIT_BUILD);
    assert_contains(err.message, "image 'big' does not link: it is ");
    assert_contains(err.message, " bytes over the 126,976 bytes of the cluster's "
                                 "instruction memory ('.rodata' does not fit)");
}

static void no_undefined_reference_leaves_err_alone(void **state)
{
    km_error err = {.status = 42, .message = "untouched"};
    const char *log =
        "/usr/bin/ld: section .data LMA [0x8000,0x9000] overlaps section .text\n"
        "collect2: error: ld returned 1 exit status\n";
    assert_int_equal(km_link_log_explain(log, "t", &err), KM_OK);
    assert_int_equal(km_link_log_explain("", "t", &err), KM_OK);
    assert_int_equal(km_link_log_explain(NULL, "t", &err), KM_OK);
    /* "references" (plural) is ld's "more undefined references follow". */
    assert_int_equal(km_link_log_explain("ld: more undefined references to `x' follow\n",
                                         "t", &err), KM_OK);
    assert_int_equal(err.status, 42);
    assert_string_equal(err.message, "untouched");
}

static void many_symbols_and_long_lines_are_bounded(void **state)
{
    size_t cap = 200000;
    char *log = malloc(cap);
    assert_non_null(log);
    size_t len = 0;
    for (int i = 0; i < 60; i++)
        len += (size_t)snprintf(log + len, cap - len,
                                "/src/a.c:%d: undefined reference to `missing_%d'\n", i + 1, i);
    /* One absurdly long symbol and one line without an end. */
    len += (size_t)snprintf(log + len, cap - len, "a.c:1: undefined reference to `");
    memset(log + len, 'x', 100000);
    len += 100000;
    log[len] = 0;
    km_error err = {0};
    assert_int_equal(km_link_log_explain(log, "t", &err), KM_EXIT_BUILD);
    assert_true(strlen(err.message) < sizeof err.message);
    assert_contains(err.message, "'missing_0', 'missing_1'");
    assert_contains(err.message, " and more\n");
    free(log);
}

static void explanations(void **state)
{
    char why[512];
    struct {
        const char *symbol;
        int known;
        const char *says;
    } cases[] = {
        {"memset", 1, "became a call to 'memset'"},
        {"memcpy", 1, "became a call to 'memcpy'"},
        {"memmove", 1, "there is no libc"},
        {"memcmp", 1, "compare in a loop yourself"},
        {"strcmp", 1, "'strcmp' is a C library function"},
        {"malloc", 1, "no heap"},
        {"abort", 1, "return from the thread"},
        {"__assert_func", 1, "assert()"},
        {"__stack_chk_fail", 1, "-fno-stack-protector"},
        {"sinf", 1, "no libm"},
        {"fabs", 1, "__builtin_fabs"},
        {"__divti3", 1, "128-bit integers (__int128)"},
        {"__udivti3", 1, "__int128"},
        {"__addtf3", 1, "long double"},
        {"__extenddftf2", 1, "long double"},
        {"__floatditf", 1, "long double"},
        {"__popcountdi2", 1, "libgcc"},
        {"kmx_regoin", 0, "not a function of kmx"},
        {"my_helper", 0, "nothing defines it"},
        {"__my_private3", 0, "nothing defines it"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int known = km_image_explain_symbol(cases[i].symbol, why, sizeof why);
        if (known != cases[i].known || !strstr(why, cases[i].says))
            fail_msg("%s: %d, \"%s\" not in: %s", cases[i].symbol, known,
                     cases[i].says, why);
    }
    /* A short buffer is cut, never overrun. */
    char tiny[8];
    km_image_explain_symbol("memset", tiny, sizeof tiny);
    assert_int_equal(strlen(tiny), 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(real_memset_link_failure_names_the_line),
        cmocka_unit_test(real_link_without_debug_information),
        cmocka_unit_test(symbols_once_each_in_log_order),
        cmocka_unit_test(reference_from_a_variable),
        cmocka_unit_test(lld_and_other_wordings),
        cmocka_unit_test(image_region_overflow),
        cmocka_unit_test(real_region_overflow),
        cmocka_unit_test(no_undefined_reference_leaves_err_alone),
        cmocka_unit_test(many_symbols_and_long_lines_are_bounded),
        cmocka_unit_test(explanations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
