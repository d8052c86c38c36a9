/* km_json: a cJSON allocation that fails is seen by every watch begun
 * before it on the same thread, never by one begun after it; a document
 * built while memory lasts is watched to no failure, bytes unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "km_json.h"
#include "test_memory.h"

static void a_whole_document_is_not_short(void **state)
{
    (void)state;
    km_json_mark m = km_json_watch();
    cJSON *o = cJSON_CreateObject();
    assert_non_null(cJSON_AddStringToObject(o, "a", "b"));
    assert_non_null(cJSON_AddNumberToObject(o, "n", 3));
    char *text = cJSON_PrintUnformatted(o);
    assert_string_equal(text, "{\"a\":\"b\",\"n\":3}");
    assert_false(km_json_ran_out(m));
    free(text);
    cJSON_Delete(o);
}

/* A string cJSON cannot copy (64 MiB, in a child whose address space may
 * grow by 16 MiB): the adder says NULL, the watch saw it, a watch begun
 * after it did not, and nesting keeps the outer watch's view. */
static void a_failed_copy_is_seen(void **state)
{
    (void)state;
    TEST_SKIP_UNLESS_LIMITABLE();
    size_t big = (size_t)64 << 20;
    char *s = malloc(big + 1);
    assert_non_null(s);
    memset(s, 'x', big);
    s[big] = 0;
    uint64_t now = test_mapped_bytes();
    assert_true(now > 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        km_json_mark outer = km_json_watch();
        cJSON *o = cJSON_CreateObject();
        if (!o || km_json_ran_out(outer))
            _exit(10);
        struct rlimit r = {now + (16u << 20), now + (16u << 20)};
        if (setrlimit(RLIMIT_AS, &r) != 0)
            _exit(11);
        km_json_mark inner = km_json_watch();
        if (cJSON_AddStringToObject(o, "big", s) != NULL)
            _exit(12);
        if (!km_json_ran_out(outer) || !km_json_ran_out(inner))
            _exit(13);
        km_json_mark after = km_json_watch();
        if (!cJSON_AddStringToObject(o, "small", "y") || km_json_ran_out(after))
            _exit(14);
        if (!km_json_ran_out(outer))
            _exit(15);
        cJSON_Delete(o);
        _exit(0);
    }
    free(s);
    test_child_ok(pid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_whole_document_is_not_short),
        cmocka_unit_test(a_failed_copy_is_seen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
