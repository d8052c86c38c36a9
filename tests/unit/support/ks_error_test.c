/* Tests for support/ks_error.c: a failure's message is safe to show
 * wherever it goes — a name put in raw comes out escaped (ks_text.h),
 * the message's lines and tabs are kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "ks_error.h"

static void test_a_name_put_in_raw_is_escaped(void **state)
{
    (void)state;
    ks_error err = {0};
    assert_int_equal(ks_fail(&err, KS_ERR_INPUT, "no region '%s' in\n\tthe run", "o\001ut\033[2J"),
                     KS_ERR_INPUT);
    assert_string_equal(err.message, "no region 'o\\001ut\\033[2J' in\n\tthe run");
}

static void test_the_system_error_follows_the_escaped_message(void **state)
{
    (void)state;
    ks_error err = {0};
    errno = ENOSPC;
    ks_fail_errno(&err, KS_ERR_SYSTEM, "cannot write '%s'", "a\xff");
    assert_string_equal(err.message, "cannot write 'a\\377': No space left on device");
}

/* A message at its size, escaped: cut between characters, still a string. */
static void test_a_long_message_stays_whole_characters(void **state)
{
    (void)state;
    static char name[KS_MESSAGE_BYTES];
    memset(name, '\001', sizeof name - 1);
    ks_error err = {0};
    ks_fail(&err, KS_ERR_INPUT, "%s", name);
    size_t len = strlen(err.message);
    assert_true(len < sizeof err.message);
    assert_string_equal(err.message + len - 3, "...");
    assert_int_equal((len - 3) % 4, 0); /* whole "\001"s */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_name_put_in_raw_is_escaped),
        cmocka_unit_test(test_the_system_error_follows_the_escaped_message),
        cmocka_unit_test(test_a_long_message_stays_whole_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
