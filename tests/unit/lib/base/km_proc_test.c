/* km_proc: a tool's output and exit status come back whole; input given
 * in memory reaches its stdin, bytes for bytes, however large; a tool
 * that is not there is an error, not a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "km_proc.h"

static void output_and_status_come_back(void **state)
{
    (void)state;
    char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    char *out = NULL;
    int status = -1;
    km_error err = {0};
    assert_int_equal(km_proc_run(argv, NULL, &out, &status, NULL, NULL, &err), KM_OK);
    assert_int_equal(status, 3);
    assert_non_null(strstr(out, "out\n"));
    assert_non_null(strstr(out, "err\n"));
    free(out);
}

static void input_reaches_stdin_whole(void **state)
{
    (void)state;
    /* more than a pipe holds (64 KiB): it comes back through one while
     * the tool is still reading */
    size_t n = 300000;
    char *input = malloc(n);
    assert_non_null(input);
    for (size_t i = 0; i < n; i++)
        input[i] = (char)('a' + i % 26);
    char *argv[] = {"cat", NULL};
    char *out = NULL;
    int status = -1;
    km_error err = {0};
    assert_int_equal(km_proc_run_input(argv, input, n, &out, &status, &err), KM_OK);
    assert_int_equal(status, 0);
    assert_int_equal(strlen(out), n);
    assert_memory_equal(out, input, n);
    free(out);
    /* none at all: an empty stdin */
    char *wc[] = {"wc", "-c", NULL};
    assert_int_equal(km_proc_run_input(wc, "", 0, &out, &status, &err), KM_OK);
    assert_int_equal(atoi(out), 0);
    free(out);
    free(input);
}

static void a_missing_tool_is_an_error(void **state)
{
    (void)state;
    char *argv[] = {"kmrun-no-such-tool", NULL};
    char *out = NULL;
    int status = 0;
    km_error err = {0};
    int rc = km_proc_run_input(argv, "x", 1, &out, &status, &err);
    /* posix_spawnp reports it, or the child exits 127 */
    assert_true(rc == KM_EXIT_SYSTEM || status == 127);
    if (rc == KM_EXIT_SYSTEM)
        assert_non_null(strstr(err.message, "kmrun-no-such-tool"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_and_status_come_back),
        cmocka_unit_test(input_reaches_stdin_whole),
        cmocka_unit_test(a_missing_tool_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
