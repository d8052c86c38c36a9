/* Tests for cmd/cmd_diag.c: --message-format and --color taken out of a
 * command's argv (before a "--", for the commands that take them), the
 * colour decision (the option, NO_COLOR, CLICOLOR_FORCE, a terminal), and
 * kmrun's own lines as text and as JSON.  cmd/ is not in the unit tests'
 * libraries: its two sources are compiled in here, with main.c's usage
 * error stood in for.  stderr's descriptor is a file for the test's
 * length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cmd/cmd_diag.c"
#include "../../cmd/cmd_stderr.c"

static int usage_errors;

int cmd_usage_error(const char *command, const char *fmt, ...)
{
    (void)command;
    (void)fmt;
    usage_errors++;
    return KMRUN_USAGE;
}

static char path[] = "/tmp/cmd-diag-test.XXXXXX";
static int saved_fd = -1;

static int setup(void **state)
{
    (void)state;
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    fflush(stderr);
    saved_fd = dup(2);
    dup2(fd, 2);
    close(fd);
    cmd_stderr_guard();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fflush(stderr);
    dup2(saved_fd, 2);
    unlink(path);
    return 0;
}

/* What reached descriptor 2 since the last call. */
static const char *written(void)
{
    static char buf[8192];
    static long seen;
    fflush(stderr);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, seen, SEEK_SET);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    seen += (long)n;
    return buf;
}

static void reset(void)
{
    json = false;
    color_option = COLOR_AUTO;
    usage_errors = 0;
    unsetenv("NO_COLOR");
    unsetenv("CLICOLOR_FORCE");
}

static void the_options_are_taken_out_before_a_double_dash(void **state)
{
    (void)state;
    reset();
    char *argv[] = {"kmrun", "build", "--color=always", "-j", "2", "--message-format",
                    "json", "x.yaml", "--", "--color=never", NULL};
    int argc = 10;
    assert_int_equal(cmd_diag_options("build", &argc, argv, 2), KMRUN_OK);
    assert_int_equal(argc, 7);
    const char *left[] = {"kmrun", "build", "-j", "2", "x.yaml", "--", "--color=never"};
    for (int i = 0; i < argc; i++)
        assert_string_equal(argv[i], left[i]);
    assert_null(argv[argc]);
    assert_true(cmd_diag_json());
    assert_int_equal(color_option, COLOR_ALWAYS);
    /* a command that does not take them keeps them, for its own error */
    reset();
    char *cache[] = {"kmrun", "cache", "stats", "--color=always", NULL};
    argc = 4;
    assert_true(cmd_diag_takes("validate") && cmd_diag_takes("test"));
    assert_false(cmd_diag_takes("cache") || cmd_diag_takes("exec"));
    assert_int_equal(cmd_diag_options("cache", &argc, cache, 2), KMRUN_OK);
    assert_int_equal(argc, 4);
    assert_int_equal(color_option, COLOR_AUTO);
    /* a bad value, a missing one: usage errors */
    char *bad[] = {"kmrun", "run", "--color=sometimes", NULL};
    argc = 3;
    assert_int_equal(cmd_diag_options("run", &argc, bad, 2), KMRUN_USAGE);
    char *missing[] = {"kmrun", "run", "--message-format", NULL};
    argc = 3;
    assert_int_equal(cmd_diag_options("run", &argc, missing, 2), KMRUN_USAGE);
    assert_int_equal(usage_errors, 2);
    /* the last wins */
    reset();
    char *twice[] = {"kmrun", "check", "--color=always", "--color", "never", NULL};
    argc = 5;
    assert_int_equal(cmd_diag_options("check", &argc, twice, 2), KMRUN_OK);
    assert_int_equal(argc, 2);
    assert_int_equal(color_option, COLOR_NEVER);
}

static void colour_by_the_option_then_the_environment(void **state)
{
    (void)state;
    reset();
    /* stderr is a file here: auto is no colour */
    assert_false(cmd_diag_color());
    setenv("CLICOLOR_FORCE", "1", 1);
    assert_true(cmd_diag_color());
    assert_int_equal(cmd_diag_compiler_color(), KMRUN_COLOR_ALWAYS);
    setenv("CLICOLOR_FORCE", "0", 1);
    assert_false(cmd_diag_color());
    setenv("CLICOLOR_FORCE", "1", 1);
    setenv("NO_COLOR", "1", 1);
    assert_false(cmd_diag_color());
    assert_int_equal(cmd_diag_compiler_color(), KMRUN_COLOR_NEVER);
    setenv("NO_COLOR", "", 1); /* empty: not set */
    assert_true(cmd_diag_color());
    color_option = COLOR_NEVER;
    assert_false(cmd_diag_color());
    setenv("NO_COLOR", "1", 1);
    color_option = COLOR_ALWAYS;
    assert_true(cmd_diag_color());
    json = true; /* JSON is never painted */
    assert_false(cmd_diag_color());
    reset();
}

static void kmrun_lines_as_text_painted_or_not_and_as_json(void **state)
{
    (void)state;
    reset();
    written();
    cmd_say(CMD_WARNING, "cache.warning", "entry '%s' damaged", "ab\033c");
    assert_string_equal(written(), "kmrun: warning: entry 'ab\\033c' damaged\n");
    color_option = COLOR_ALWAYS;
    cmd_say(CMD_ERROR, "kmrun.usage", "bad");
    assert_string_equal(written(), "\033[1;31mkmrun:\033[0m bad\n");
    /* a compiler's colours pass when painting, nothing else does */
    cmd_diag_compiler_line("\033[01;31m\033[Kerror: \033[m\033[Kx \033]0;t\007");
    assert_string_equal(written(), "\033[01;31m\033[Kerror: \033[m\033[Kx \\033]0;t\\007\n");
    color_option = COLOR_NEVER;
    cmd_diag_compiler_line("\033[01;31m\033[Kerror: \033[m\033[Kx");
    assert_string_equal(written(), "error: x\n");
    json = true;
    cmd_say(CMD_INFO, "run.trace", "core %d's trace: %s", 1, "t\001.log");
    cJSON *j = cJSON_Parse(written());
    assert_non_null(j);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "type")), "diagnostic");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "severity")), "note");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "code")), "run.trace");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "message")),
                        "core 1's trace: t\\001.log");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "file")));
    cJSON_Delete(j);
    cmd_diag_print_line("c1.2", "hi", 104.5, "[c1.2 104.5µs] hi");
    assert_string_equal(written(),
                        "{\"type\":\"print\",\"core\":\"c1.2\",\"microseconds\":104.5,\"text\":\"hi\"}\n");
    cmd_diag_progress(1, 2, 12.5);
    assert_string_equal(written(),
                        "{\"type\":\"progress\",\"cluster\":1,\"where\":2,\"microseconds\":12.5}\n");
    json = false;
    cmd_diag_progress(1, 2, 12.5);
    assert_string_equal(written(), "{\"cluster\":1,\"where\":2,\"microseconds\":12.5}\n");
    reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_options_are_taken_out_before_a_double_dash),
        cmocka_unit_test(colour_by_the_option_then_the_environment),
        cmocka_unit_test(kmrun_lines_as_text_painted_or_not_and_as_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
