/* Tests for cmd/cmd_stderr.c, the filter in front of stderr: what any code
 * writes there comes out as ks_text.h shows it, a UTF-8 character cut
 * between two writes comes out whole, and kmrun's own terminal control
 * goes past.  cmd/ is not in the unit tests' libraries: its one source is
 * compiled in here.  stderr's descriptor is a file for the test's length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cmd/cmd_stderr.c"

static char path[] = "/tmp/cmd-stderr-test.XXXXXX";
static int saved_fd = -1;

/* What reached descriptor 2 since the guard went up. */
static const char *written(void)
{
    static char buf[4096];
    fflush(stderr);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

static void test_what_reaches_stderr_is_escaped_and_whole(void **state)
{
    (void)state;
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    saved_fd = dup(2);
    assert_int_equal(dup2(fd, 2), 2);
    close(fd);

    cmd_stderr_guard();
    fprintf(stderr, "kmrun: no region '%s'\n", "o\001ut\033[2J");
    /* "é" (c3 a9) cut between two writes; then "日" (e6 97 a5) in three */
    fputs("caf\xc3", stderr);
    fputs("\xa9 ", stderr);
    fputc('\xe6', stderr);
    fputc('\x97', stderr);
    fputs("\xa5\tend\n", stderr);
    /* a lead byte the next write does not complete, then the control
     * kmrun means, past the filter */
    fputs("cut\xe6", stderr);
    cmd_stderr_control(stderr, "\033[1m");
    fputs("bold\xff\xc2\x9b\x7f\n", stderr);
    /* another stream is left alone */
    cmd_stderr_control(stdout, "");

    const char *got = written();
    assert_int_equal(dup2(saved_fd, 2), 2);
    close(saved_fd);
    unlink(path);
    assert_string_equal(got, "kmrun: no region 'o\\001ut\\033[2J'\n"
                             "caf\xc3\xa9 \xe6\x97\xa5\tend\n"
                             "cut\\346\033[1mbold\\377\\302\\233\\177\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_reaches_stderr_is_escaped_and_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
