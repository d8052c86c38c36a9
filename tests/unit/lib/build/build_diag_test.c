/* Tests for lib/build/build_diag.c: a file shown from the working folder
 * as gcc and cargo show one, a compiler's text with its locations shown so
 * (colours kept), and its findings read — gcc's JSON, either compiler's
 * text — into km_diag, fed what gcc 12 and clang 19 really write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_internal.h"
#include "km_fs.h"

static char top[64]; /* /tmp/.../ with work/here and work/prog/thread/a.c */
static char prog[128], here[128];

static int setup(void **state)
{
    (void)state;
    strcpy(top, "/tmp/kmrun-diag-test.XXXXXX");
    if (!mkdtemp(top))
        return -1;
    snprintf(prog, sizeof prog, "%s/prog", top);
    snprintf(here, sizeof here, "%s/here", top);
    char path[256];
    snprintf(path, sizeof path, "%s/thread", prog);
    km_error e = {0};
    if (km_mkdir_p(path, &e) != KM_OK || km_mkdir_p(here, &e) != KM_OK)
        return -1;
    snprintf(path, sizeof path, "%s/thread/a.c", prog);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("int kmx_main(int core)\n{\n    retur 1;\n}\n", f);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    return system(cmd) == 0 ? 0 : -1;
}

static void expect_path(const char *path, const char *base, const char *cwd, const char *want)
{
    char *got = km_diag_path(path, base, cwd);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void paths_as_a_person_in_the_working_folder_reads_them(void **state)
{
    (void)state;
    /* under the working folder: relative, folded */
    expect_path("thread/a.c", "/w/prog", "/w/prog", "thread/a.c");
    expect_path("./thread/../thread/a.c", "/w/prog", "/w/prog", "thread/a.c");
    expect_path("thread/a.c", "/w/prog", "/w", "prog/thread/a.c");
    expect_path("/w/prog/thread/a.c", NULL, "/w", "prog/thread/a.c");
    /* the program's, beside the working folder: with ".." */
    expect_path("thread/a.c", "/w/prog", "/w/here", "../prog/thread/a.c");
    expect_path("thread/a.c", "/w/x/prog", "/w/y/z", "../../x/prog/thread/a.c");
    /* the program's, far away (no first folder shared): absolute */
    expect_path("thread/a.c", "/tmp/prog", "/home/me", "/tmp/prog/thread/a.c");
    expect_path("thread/a.c", "/tmp/prog", "/", "/tmp/prog/thread/a.c");
    /* not the program's (a system header, the runtime's): absolute */
    expect_path("/usr/lib/gcc/x/include/stdint.h", "/w/prog", "/w/here",
                "/usr/lib/gcc/x/include/stdint.h");
    /* no working folder: as the compiler's folder makes it */
    expect_path("thread/a.c", "/w/prog", NULL, "/w/prog/thread/a.c");
}

static void a_compilers_text_names_its_files_from_the_working_folder(void **state)
{
    (void)state;
    const char *text = "thread/a.c: In function 'kmx_main':\n"
                       "thread/a.c:3:5: error: 'retur' undeclared\n"
                       "    3 |     retur 1;\n"
                       "      |     ^~~~~\n"
                       "In file included from thread/a.c:1:\n"
                       "                 from thread/a.c:2,\n"
                       "\033[01m\033[Kthread/a.c:3:5:\033[m\033[K warning: x\n"
                       "cc1: error: thread/nothere.c: no such file\n"
                       "compilation terminated.\n";
    char *got = km_diag_rewrite(text, prog, here);
    assert_string_equal(got, "../prog/thread/a.c: In function 'kmx_main':\n"
                             "../prog/thread/a.c:3:5: error: 'retur' undeclared\n"
                             "    3 |     retur 1;\n"
                             "      |     ^~~~~\n"
                             "In file included from ../prog/thread/a.c:1:\n"
                             "                 from ../prog/thread/a.c:2,\n"
                             "\033[01m\033[K../prog/thread/a.c:3:5:\033[m\033[K warning: x\n"
                             "cc1: error: thread/nothere.c: no such file\n"
                             "compilation terminated.\n");
    free(got);
    char *bare = km_diag_plain("\033[01;31m\033[Kerror: \033[m\033[Kx");
    assert_string_equal(bare, "error: x");
    free(bare);
    /* colours kept, every other control byte shown escaped */
    char *safe = km_diag_safe("\033[01mbold\033[m \001 \033]0;title\007\n");
    assert_string_equal(safe, "\033[01mbold\033[m \\001 \\033]0;title\\007\n");
    free(safe);
}

/* What gcc 12 writes with -fdiagnostics-format=json (one line), then the
 * text it adds after a fatal error. */
static const char gcc_json[] =
    "[{\"kind\": \"error\", \"column-origin\": 1, \"children\": [{\"kind\": \"note\", "
    "\"locations\": [{\"caret\": {\"line\": 3, \"file\": \"thread/a.c\", \"column\": 5}}], "
    "\"message\": \"each undeclared identifier is reported only once\"}], \"locations\": "
    "[{\"finish\": {\"line\": 3, \"file\": \"thread/a.c\", \"column\": 9}, \"caret\": "
    "{\"line\": 3, \"file\": \"thread/a.c\", \"column\": 5}}], \"message\": \"'retur' "
    "undeclared (first use in this function)\"}, {\"kind\": \"warning\", \"locations\": "
    "[{\"caret\": {\"line\": 1, \"file\": \"thread/a.c\", \"column\": 12}}], \"option\": "
    "\"-Wunused-function\", \"message\": \"'f' defined but not used\", \"children\": []}, "
    "{\"kind\": \"fatal error\", \"locations\": [{\"caret\": {\"line\": 2, \"file\": "
    "\"/usr/include/x.h\", \"column\": 10}}], \"message\": \"y.h: No such file\"}]\n"
    "compilation terminated.\n";

static void gccs_json_is_read_into_findings(void **state)
{
    (void)state;
    km_diags d = {.limit = SIZE_MAX};
    km_diag_parse(gcc_json, prog, here, &d);
    assert_int_equal(d.count, 3);
    const km_diag *g = &d.items[0];
    assert_int_equal(g->severity, KM_SEVERITY_ERROR);
    assert_string_equal(g->code, KM_CODE_COMPILE);
    assert_string_equal(g->file, "../prog/thread/a.c");
    assert_int_equal(g->line, 3);
    assert_int_equal(g->col, 5);
    assert_int_equal(g->end_col, 9);
    assert_true(g->label);
    assert_string_equal(g->message, "'retur' undeclared (first use in this function)");
    assert_int_equal(g->nchildren, 1);
    assert_int_equal(g->children[0].severity, KM_SEVERITY_NOTE);
    assert_string_equal(g->children[0].file, "../prog/thread/a.c");
    g = &d.items[1];
    assert_int_equal(g->severity, KM_SEVERITY_WARNING);
    assert_string_equal(g->option, "-Wunused-function");
    assert_int_equal(g->col, 12);
    g = &d.items[2];
    assert_int_equal(g->severity, KM_SEVERITY_ERROR);
    assert_string_equal(g->file, "/usr/include/x.h");
    /* shown for a person: the compiler's words */
    char *text = km_diags_text(&d);
    assert_string_equal(text, "../prog/thread/a.c:3:5: error: 'retur' undeclared (first use in "
                              "this function)\n"
                              "../prog/thread/a.c:3:5: note: each undeclared identifier is "
                              "reported only once\n"
                              "../prog/thread/a.c:1:12: warning: 'f' defined but not used "
                              "[-Wunused-function]\n"
                              "/usr/include/x.h:2:10: error: y.h: No such file");
    free(text);
    km_diags_free(&d);
}

/* What clang 19 writes (it has no JSON), painted as with
 * -fdiagnostics-color=always. */
static const char clang_text[] =
    "\033[1mthread/a.c:3:5: \033[0m\033[0;1;31merror: \033[0m\033[1muse of undeclared "
    "identifier 'retur'\033[0m\n"
    "    3 |     retur 1;\n"
    "      |     ^\n"
    "thread/a.c:1:12: warning: unused function 'f' [-Wunused-function]\n"
    "    1 | static int f(void) { return 1; }\n"
    "      |            ^\n"
    "thread/a.c:2:1: note: declared here\n"
    "ld.lld: something the linker said\n"
    "1 warning and 1 error generated.\n";

static void either_compilers_text_is_read_into_findings(void **state)
{
    (void)state;
    km_diags d = {.limit = SIZE_MAX};
    km_diag_parse(clang_text, prog, here, &d);
    assert_int_equal(d.count, 3);
    const km_diag *g = &d.items[0];
    assert_int_equal(g->severity, KM_SEVERITY_ERROR);
    assert_string_equal(g->file, "../prog/thread/a.c");
    assert_int_equal(g->line, 3);
    assert_int_equal(g->col, 5);
    assert_string_equal(g->message, "use of undeclared identifier 'retur'");
    g = &d.items[1];
    assert_int_equal(g->severity, KM_SEVERITY_WARNING);
    assert_string_equal(g->message, "unused function 'f'");
    assert_string_equal(g->option, "-Wunused-function");
    assert_int_equal(g->nchildren, 1); /* the note after it */
    assert_string_equal(g->children[0].message, "declared here");
    /* a line that is no finding is kept, as kmrun's note */
    g = &d.items[2];
    assert_int_equal(g->severity, KM_SEVERITY_NOTE);
    assert_string_equal(g->code, KM_CODE_OUTPUT);
    assert_string_equal(g->message, "ld.lld: something the linker said");
    km_diags_free(&d);
    /* gcc's own text reads the same way; "cc1:" is no file */
    km_diag_parse("cc1: error: bad option '-mfoo'\n", prog, here, &d);
    assert_int_equal(d.count, 1);
    assert_null(d.items[0].file);
    assert_string_equal(d.items[0].message, "bad option '-mfoo'");
    km_diags_free(&d);
}

static void the_flags_follow_the_compiler(void **state)
{
    (void)state;
    km_tool gcc = {.version = "riscv64-unknown-elf-gcc (12.2.0-14) 12.2.0"};
    km_tool clang = {.version = "Debian clang version 19.1.4"};
    assert_false(km_tool_is_clang(&gcc));
    assert_true(km_tool_is_clang(&clang));
    assert_string_equal(km_diag_flags(&gcc, true, KM_COLOR_ALWAYS),
                        "-fdiagnostics-format=json -fdiagnostics-color=never");
    assert_string_equal(km_diag_flags(&clang, true, KM_COLOR_ALWAYS),
                        "-fdiagnostics-color=never");
    assert_string_equal(km_diag_flags(&gcc, false, KM_COLOR_ALWAYS),
                        "-fdiagnostics-color=always");
    assert_string_equal(km_diag_flags(&clang, false, KM_COLOR_NEVER),
                        "-fdiagnostics-color=never");
    assert_string_equal(km_diag_flags(&gcc, false, KM_COLOR_DEFAULT), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paths_as_a_person_in_the_working_folder_reads_them),
        cmocka_unit_test(a_compilers_text_names_its_files_from_the_working_folder),
        cmocka_unit_test(gccs_json_is_read_into_findings),
        cmocka_unit_test(either_compilers_text_is_read_into_findings),
        cmocka_unit_test(the_flags_follow_the_compiler),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
