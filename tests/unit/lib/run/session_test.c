/* Tests for the session's pure parts: a result block into a thread's
 * result (lib/run/session_result.c), the default timeout (lib/run/km_session.c) and
 * the run JSON's exact numbers (lib/run/km_run_json.c).  Loading and running on
 * the simulated card are tested end to end in tests/cli/run.bats and
 * hazards.bats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km_run_json.h"
#include "km_session.h"
#include "session_internal.h"

static void ticks_and_picoseconds_print_exactly(void **state)
{
    (void)state;
    char s[40];
    km_ticks_us(0, s, sizeof s);
    assert_string_equal(s, "0");
    km_ticks_us(1, s, sizeof s);
    assert_string_equal(s, "0.02");
    km_ticks_us(50, s, sizeof s);
    assert_string_equal(s, "1");
    km_ticks_us(1075, s, sizeof s);
    assert_string_equal(s, "21.5");
    km_ticks_us(UINT64_MAX, s, sizeof s);
    assert_string_equal(s, "368934881474191032.3");
    km_ps_us(1001000000000ull, s, sizeof s);
    assert_string_equal(s, "1001000");
    km_ps_us(1, s, sizeof s);
    assert_string_equal(s, "0.000001");
    km_ps_us(1500000, s, sizeof s);
    assert_string_equal(s, "1.5");
}

static kmx_result_block block(uint32_t state, uint32_t error)
{
    kmx_result_block b;
    memset(&b, 0, sizeof b);
    b.state = state;
    b.error = error;
    b.start_ticks = 100;
    b.end_ticks = 1100;
    b.code = 5;
    return b;
}

static void result_blocks_map_to_states(void **state)
{
    (void)state;
    km_thread_result t;
    kmx_result_block b = block(KMX_STATE_DONE, KMX_ERROR_NONE);
    b.nwords = 2;
    b.words[0] = 42;
    b.words[1] = 7;
    b.where = 3;
    b.where_ticks = 600;
    km_result_from_block(&b, 1, &t);
    assert_int_equal(t.state, KM_STATE_RETURNED);
    assert_true(t.has_code);
    assert_int_equal(t.code, 5);
    assert_int_equal(t.nwords, 2);
    assert_int_equal(t.words[1], 7);
    assert_true(t.has_where_ticks);
    assert_int_equal(t.where_ticks, 500);
    assert_true(t.has_ticks);
    assert_int_equal(t.ticks, 1000);

    static const struct {
        uint32_t state, error;
        km_state expected;
        bool code;
    } cases[] = {
        {KMX_STATE_LATE, KMX_ERROR_NONE, KM_STATE_LATE, true},
        {KMX_STATE_STOPPED, KMX_ERROR_NONE, KM_STATE_STOPPED, true},
        {KMX_STATE_FAILED, KMX_ERROR_ARGS, KM_STATE_ARGS, false},
        {KMX_STATE_FAILED, KMX_ERROR_BANK, KM_STATE_BANK, false},
        {KMX_STATE_FAILED, KMX_ERROR_REGION, KM_STATE_REGION, false},
        {KMX_STATE_FAILED, KMX_ERROR_PARALLEL, KM_STATE_FAILED, true},
        {KMX_STATE_RUNNING, KMX_ERROR_NONE, KM_STATE_STUCK, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        b = block(cases[i].state, cases[i].error);
        km_result_from_block(&b, 2, &t);
        assert_int_equal(t.state, cases[i].expected);
        assert_int_equal(t.has_code, cases[i].code);
        assert_int_equal(t.has_ticks, KMX_STATE_FINAL(cases[i].state));
    }

    /* A trap: code only when one core other than core 0 trapped. */
    b = block(KMX_STATE_TRAPPED, KMX_ERROR_TRAP);
    b.traps = 1;
    b.trap_core = 2;
    b.trap_mcause = 6;
    b.trap_mtval = UINT64_MAX;
    km_result_from_block(&b, 1, &t);
    assert_int_equal(t.state, KM_STATE_TRAPPED);
    assert_true(t.has_code);
    assert_true(t.trapped);
    assert_int_equal(t.trap.core, 2);
    b.trap_core = 0;
    km_result_from_block(&b, 1, &t);
    assert_false(t.has_code);
    b.trap_core = 2;
    b.traps = 2;
    km_result_from_block(&b, 1, &t);
    assert_false(t.has_code);

    /* where_ticks 0: no marker yet, or one being written. */
    b = block(KMX_STATE_DONE, KMX_ERROR_NONE);
    b.where = 9;
    km_result_from_block(&b, 1, &t);
    assert_false(t.has_where_ticks);
    assert_int_equal(t.where, 9);
}

/* A `parallel` error's message: the call, the core, the caller's line
 * (the backend looked it up), one text for both backends. */
static void parallel_error_message_names_the_call_and_line(void **state)
{
    (void)state;
    kmx_result_block b = block(KMX_STATE_FAILED, KMX_ERROR_PARALLEL);
    b.error_core = 1;
    b.error_detail = 1;
    b.error_call = KMX_API_PARALLEL;
    b.error_pc = 0x1234;
    km_thread_result t;
    km_result_from_block(&b, 1, &t);
    assert_int_equal(t.error_call, KMX_API_PARALLEL);
    assert_int_equal(t.error_pc, 0x1234);
    t.error_source.known = true;
    snprintf(t.error_source.file, sizeof t.error_source.file, "thread/work.c");
    t.error_source.line = 12;
    t.error_source.has_function = true;
    snprintf(t.error_source.function, sizeof t.error_source.function, "step");
    km_result_explain(&t);
    assert_string_equal(t.message, "kmx_parallel was called on core 1 (thread/work.c:12 in step): "
                                   "a core-0 call (kmx(3)); it returned KMX_STOPPED and the run "
                                   "stopped");
    /* core 0: inside a function; no line: the pc */
    b.error_core = 0;
    b.error_call = KMX_API_JOIN;
    km_result_from_block(&b, 1, &t);
    km_result_explain(&t);
    assert_string_equal(t.message, "kmx_join was called on core 0 inside a function kmx_parallel "
                                   "or kmx_parallel_all runs (returning to pc 0x1234): a core-0 "
                                   "call (kmx(3)); it returned KMX_STOPPED and the run stopped");
    /* a backend's own message stays; other errors and an unknown call get none */
    snprintf(t.message, sizeof t.message, "the backend's");
    km_result_explain(&t);
    assert_string_equal(t.message, "the backend's");
    b.error_call = KMX_API_COUNT;
    km_result_from_block(&b, 1, &t);
    km_result_explain(&t);
    assert_string_equal(t.message, "");
    b = block(KMX_STATE_FAILED, KMX_ERROR_RING);
    b.error_call = KMX_API_JOIN;
    km_result_from_block(&b, 1, &t);
    km_result_explain(&t);
    assert_string_equal(t.message, "");
}

static void names(void **state)
{
    (void)state;
    assert_string_equal(km_state_name(KM_STATE_RETURNED), "returned");
    assert_string_equal(km_state_name(KM_STATE_STUCK), "stuck");
    assert_string_equal(km_state_name(KM_STATE_FAILED), "failed");
    assert_string_equal(km_kmx_error_name(KMX_ERROR_PARALLEL), "parallel");
    assert_string_equal(km_kmx_error_name(KMX_ERROR_COUNT), "unknown");
    assert_string_equal(km_backend_name(KM_BACKEND_SIM), "sim");
    assert_true(km_state_stops_others(KM_STATE_TRAPPED));
    assert_false(km_state_stops_others(KM_STATE_LATE));
}

static void default_timeout_follows_the_deadlines(void **state)
{
    (void)state;
    km_thread threads[2];
    memset(threads, 0, sizeof threads);
    km_program p;
    memset(&p, 0, sizeof p);
    p.threads = threads;
    p.nthreads = 2;
    assert_int_equal(km_default_timeout_us(&p), 10000000u);
    threads[1].deadline_us = 250000;
    assert_int_equal(km_default_timeout_us(&p), 1250000u);
    threads[0].deadline_us = 3000000;
    assert_int_equal(km_default_timeout_us(&p), 4000000u);
}

/* 64-bit values survive the JSON exactly (a double would round them). */
static void json_keeps_64_bit_values_exact(void **state)
{
    (void)state;
    km_region region = {.name = "data", .size = 4096};
    km_thread thread = {.clusters = {1}, .nclusters = 1};
    km_program p = {.name = "t", .threads = &thread, .nthreads = 1, .x280_mhz = 1000};
    km_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.nclusters = 1;
    plan.clusters[0].cluster = 1;
    plan.clusters[0].thread = &thread;
    plan.clusters[0].bank = 6;
    plan.clusters[0].nregions = 1;
    plan.clusters[0].regions[0] = (km_placed){.region = &region, .bank = 6,
                                              .bank_address = 0xFFFFFFFFFFC0ull};
    km_run_result r;
    memset(&r, 0, sizeof r);
    r.nthreads = 1;
    r.device_ps = 1234567;
    r.instructions = 9007199254740993ull; /* 2^53 + 1 */
    km_thread_result *t = &r.threads[0];
    t->cluster = 1;
    t->state = KM_STATE_TRAPPED;
    t->error = KMX_ERROR_TRAP;
    t->trapped = true;
    t->trap.mcause = 4;
    t->trap.mtval = UINT64_MAX;
    strcpy(t->trap.name, "load address misaligned");
    km_run_info info = {.run_id = "id", .run_dir = "dir", .wall_seconds = 0.5};
    char *text = km_run_json(&p, &plan, &r, &info);
    assert_non_null(strstr(text, "\"mtval\":\t18446744073709551615"));
    assert_non_null(strstr(text, "\"instructions\":\t9007199254740993"));
    assert_non_null(strstr(text, "\"device_microseconds\":\t1.234567"));
    assert_non_null(strstr(text, "\"bank_address\":\t281474976710592"));
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "backend")->valuestring, "sim");
    cJSON *th = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "threads"), 0);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(th, "ran")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(th, "code")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(th, "stuck")));
    assert_true(cJSON_IsNull(
        cJSON_GetObjectItem(cJSON_GetObjectItem(th, "trap"), "source")));
    cJSON_Delete(doc);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ticks_and_picoseconds_print_exactly),
        cmocka_unit_test(result_blocks_map_to_states),
        cmocka_unit_test(parallel_error_message_names_the_call_and_line),
        cmocka_unit_test(names),
        cmocka_unit_test(default_timeout_follows_the_deadlines),
        cmocka_unit_test(json_keeps_64_bit_values_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
