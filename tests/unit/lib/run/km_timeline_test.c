/* Tests for lib/run/km_timeline.c: the Chrome Trace Event document it writes —
 * metadata first, events in time order with a holding span before the
 * spans it holds, microseconds written exactly, names escaped, flows with
 * their ids and binding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km_timeline.h"

/* The document t writes, as a string (free()). */
static char *written(const km_timeline *t)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    km_error err = {0};
    assert_int_equal(km_timeline_write(t, f, "mem", &err), KM_OK);
    fclose(f);
    return buf;
}

static void empty_document(void **state)
{
    (void)state;
    km_timeline *t = km_timeline_new();
    char *s = written(t);
    assert_string_equal(s, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"kmrun\","
                           "\"time\":\"modeled\",\"dropped\":0},\"traceEvents\":[\n]}\n");
    free(s);
    km_timeline_free(t);
}

static void order_and_times(void **state)
{
    (void)state;
    km_timeline *t = km_timeline_new();
    /* recorded inner first (a span is recorded when it ends) */
    km_timeline_span(t, 1, 0, "inner", "wait", 2500000, 3000000, NULL, 0);
    km_timeline_span(t, 1, 0, "outer", "main", 2500000, 9000001, NULL, 0);
    km_timeline_instant(t, 1, 0, "marker 6", "marker", 2500000, "marker", 6);
    km_timeline_flow(t, 42, "command", 1, 0, 2550000, 4, 17, 2600000);
    km_timeline_track(t, 1, 0, "X280 core 0");
    km_timeline_process(t, 1, "X280 cluster 1", 1);
    assert_int_equal(km_timeline_count(t), 7);
    char *s = written(t);
    const char *want =
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"kmrun\",\"time\":\"modeled\","
        "\"dropped\":0},"
        "\"traceEvents\":[\n"
        "{\"ph\":\"M\",\"pid\":1,\"tid\":1001,\"name\":\"thread_name\",\"args\":{\"name\":\"X280 "
        "core 0\"}},\n"
        "{\"ph\":\"M\",\"pid\":1,\"tid\":1001,\"name\":\"process_name\",\"args\":{\"name\":\"X280 "
        "cluster 1\"}},\n"
        "{\"ph\":\"M\",\"pid\":1,\"tid\":1001,\"name\":\"process_sort_index\",\"args\":{\"sort_"
        "index\":1}},\n"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1001,\"name\":\"outer\",\"cat\":\"main\",\"ts\":2.500000,"
        "\"dur\":6.500001},\n"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":1001,\"name\":\"inner\",\"cat\":\"wait\",\"ts\":2.500000,"
        "\"dur\":0.500000},\n"
        "{\"ph\":\"i\",\"pid\":1,\"tid\":1001,\"name\":\"marker 6\",\"cat\":\"marker\",\"ts\":2."
        "500000,\"s\":\"t\",\"args\":{\"marker\":6}},\n"
        "{\"ph\":\"s\",\"pid\":1,\"tid\":1001,\"name\":\"command\",\"cat\":\"flow\",\"ts\":2.550000,"
        "\"id\":42},\n"
        "{\"ph\":\"f\",\"pid\":4,\"tid\":4018,\"name\":\"command\",\"cat\":\"flow\",\"ts\":2.600000,"
        "\"id\":42,\"bp\":\"e\"}\n"
        "]}\n";
    assert_string_equal(s, want);
    free(s);
    km_timeline_free(t);
}

static void escapes_and_clamps(void **state)
{
    (void)state;
    km_timeline *t = km_timeline_new();
    km_timeline_span(t, 4, 3, "a \"q\" \\ \n", "handler", 5000000, 1000000, "handler", 17);
    char *s = written(t);
    assert_non_null(strstr(s, "\"name\":\"a \\\"q\\\" \\\\ \\u000a\""));
    /* an end before the begin is the begin */
    assert_non_null(strstr(s, "\"ts\":5.000000,\"dur\":0.000000,\"args\":{\"handler\":17}"));
    free(s);
    km_timeline_free(t);
}

static void names_are_shared(void **state)
{
    (void)state;
    km_timeline *t = km_timeline_new();
    for (unsigned i = 0; i < 5000; i++)
        km_timeline_span(t, 1, i % 4, i % 2 ? "odd" : "even", "function", i * 10u, i * 10u + 5,
                         NULL, 0);
    assert_int_equal(km_timeline_count(t), 5000);
    char *s = written(t);
    unsigned spans = 0;
    for (const char *p = s; (p = strstr(p, "\"ph\":\"X\"")); p++)
        spans++;
    assert_int_equal(spans, 5000);
    free(s);
    km_timeline_free(t);
}

static void clip_at_the_stop(void **state)
{
    (void)state;
    km_timeline *t = km_timeline_new();
    km_timeline_span(t, 5, 0, "pass", "dispatcher", 90, 120, NULL, 0); /* ends after */
    km_timeline_span(t, 5, 0, "late", "dispatcher", 101, 120, NULL, 0); /* begins after */
    km_timeline_instant(t, 1, 0, "m", "marker", 101, NULL, 0);
    km_timeline_flow(t, 1, "ok", 1, 0, 10, 5, 0, 95);
    km_timeline_flow(t, 2, "cut", 1, 0, 20, 5, 0, 110);
    km_timeline_clip(t, 100);
    assert_int_equal(km_timeline_count(t), 3);
    char *s = written(t);
    assert_non_null(strstr(s, "\"name\":\"pass\",\"cat\":\"dispatcher\",\"ts\":0.000090,\"dur\":"
                              "0.000010}"));
    assert_null(strstr(s, "late"));
    assert_null(strstr(s, "cut"));
    assert_non_null(strstr(s, "\"id\":1,\"bp\":\"e\""));
    free(s);
    km_timeline_free(t);
}

static void a_cap_on_events(void **state)
{
    (void)state;
    km_timeline *t = km_timeline_new();
    for (uint64_t i = 0; i < KM_TIMELINE_MAX_EVENTS + 10; i++)
        km_timeline_instant(t, 1, 0, "m", "marker", i, NULL, 0);
    km_timeline_flow(t, 1, "f", 1, 0, 1, 1, 0, 2); /* both ends dropped */
    assert_int_equal(km_timeline_count(t), KM_TIMELINE_MAX_EVENTS);
    assert_int_equal(km_timeline_dropped(t), 12);
    km_timeline_lost(t, 3, false);
    assert_int_equal(km_timeline_dropped(t), 15);
    km_timeline_free(t);
}

static void a_recorders_failure_fails_the_write(void **state)
{
    (void)state;
    km_timeline *t = km_timeline_new();
    km_timeline_span(t, 1, 0, "a", "main", 1, 2, NULL, 0);
    km_timeline_lost(t, 0, true);
    km_error err = {0};
    FILE *f = fopen("/dev/null", "w");
    assert_int_equal(km_timeline_write(t, f, "t.json", &err), KM_EXIT_SYSTEM);
    fclose(f);
    assert_string_equal(err.message, "out of memory recording the timeline 't.json'");
    km_timeline_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_document),
        cmocka_unit_test(order_and_times),
        cmocka_unit_test(escapes_and_clamps),
        cmocka_unit_test(names_are_shared),
        cmocka_unit_test(clip_at_the_stop),
        cmocka_unit_test(a_cap_on_events),
        cmocka_unit_test(a_recorders_failure_fails_the_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
