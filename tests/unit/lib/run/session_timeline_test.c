/* Tests for lib/run/session_timeline_kernel.c: the card's moments into the
 * grid's and the dispatcher's spans, and the commands' flows drawn only
 * with both ends.  (The X280 side, which needs a running card, is tested
 * end to end in tests/cli/timeline.bats.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km_timeline.h"
#include "session_internal.h"

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

static void hear(km_tl_kernel *k, sim_card_moment m)
{
    km_tl_kernel_moment(k, &m);
}

static unsigned count(const char *s, const char *what)
{
    unsigned n = 0;
    for (const char *p = s; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static void a_command_from_submit_to_event(void **state)
{
    (void)state;
    km_timeline *t = km_timeline_new();
    km_tl_kernel *k = km_tl_kernel_new(t, NULL);
    km_tl_kernel_submit(k, 1, 1, 1, 0, 10000000); /* cluster 1's core 0 at 10 us */
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_TAKEN, .ring = 1, .handle = 1,
                              .begin_ps = 55000000});
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_STARTED, .ring = 1, .handle = 1, .job = 0,
                              .begin_ps = 58000000});
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_PASS, .begin_ps = 50000000,
                              .end_ps = 60000000});
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_HANDLER, .job = 0, .core = 3, .leader = true,
                              .handler = KM_HANDLER_NOP, .begin_ps = 100000000,
                              .end_ps = 200000000});
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_HANDLER, .job = 0, .core = 4,
                              .handler = KM_HANDLER_NOP, .begin_ps = 100000000,
                              .end_ps = 190000000});
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_EVENT, .ring = 1, .handle = 1,
                              .event = KM_EVENT_DONE, .begin_ps = 255000000});
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_PASS, .begin_ps = 250000000,
                              .end_ps = 260000000});
    /* a second command taken but never answered: no event flow */
    km_tl_kernel_submit(k, 1, 2, 1, 0, 300000000);
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_TAKEN, .ring = 1, .handle = 2,
                              .begin_ps = 305000000});
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_PASS, .begin_ps = 301000000,
                              .end_ps = 310000000});
    km_tl_kernel_finish(k);
    char *s = written(t);
    /* handler spans named after the handler, with the command's handle */
    assert_non_null(strstr(s, "{\"ph\":\"X\",\"pid\":4,\"tid\":4004,\"name\":\"nop\",\"cat\":"
                              "\"handler\",\"ts\":100.000000,\"dur\":100.000000,\"args\":"
                              "{\"handle\":1}}"));
    assert_int_equal(count(s, "\"name\":\"pass\""), 3);
    /* command: submit -> the leader's start; event: its end -> the pass */
    uint64_t id = ((uint64_t)1 << 32 | 1) << 1;
    char want[200];
    snprintf(want, sizeof want, "\"pid\":1,\"tid\":1001,\"name\":\"command\",\"cat\":\"flow\","
                                "\"ts\":10.000000,\"id\":%llu}", (unsigned long long)id);
    assert_non_null(strstr(s, want));
    snprintf(want, sizeof want, "\"pid\":4,\"tid\":4004,\"name\":\"command\",\"cat\":\"flow\","
                                "\"ts\":100.000000,\"id\":%llu,\"bp\":\"e\"}",
             (unsigned long long)id);
    assert_non_null(strstr(s, want));
    snprintf(want, sizeof want, "\"pid\":4,\"tid\":4004,\"name\":\"event\",\"cat\":\"flow\","
                                "\"ts\":199.999999,\"id\":%llu}", (unsigned long long)(id | 1));
    assert_non_null(strstr(s, want));
    snprintf(want, sizeof want, "\"pid\":5,\"tid\":5001,\"name\":\"event\",\"cat\":\"flow\","
                                "\"ts\":255.000000,\"id\":%llu,\"bp\":\"e\"}",
             (unsigned long long)(id | 1));
    assert_non_null(strstr(s, want));
    /* the second: its command reached the taking pass; no event, no arrow */
    assert_int_equal(count(s, "\"ph\":\"s\""), 3);
    assert_int_equal(count(s, "\"ph\":\"f\""), 3);
    free(s);
    km_tl_kernel_free(k);
    km_timeline_free(t);
}

static void a_cores_spans_never_overlap(void **state)
{
    (void)state;
    km_timeline *t = km_timeline_new();
    km_tl_kernel *k = km_tl_kernel_new(t, NULL);
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_HANDLER, .job = 0, .core = 7, .leader = true,
                              .handler = KM_HANDLER_NOP, .begin_ps = 1000000,
                              .end_ps = 2000000});
    /* the next job started at the dispatcher's time, before the grid's end */
    hear(k, (sim_card_moment){.kind = SIM_MOMENT_HANDLER, .job = 1, .core = 7, .leader = true,
                              .handler = KM_HANDLER_NOP, .begin_ps = 1500000,
                              .end_ps = 1800000});
    km_tl_kernel_finish(k);
    char *s = written(t);
    assert_non_null(strstr(s, "\"ts\":1.000000,\"dur\":1.000000}"));
    assert_non_null(strstr(s, "\"ts\":2.000000,\"dur\":0.000000}"));
    free(s);
    km_tl_kernel_free(k);
    km_timeline_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_command_from_submit_to_event),
        cmocka_unit_test(a_cores_spans_never_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
