/* Tests for the public C API's host side while the threads run
 * (include/kmrun.h, "The host's side while the threads run";
 * lib/api/kmrun_steer.c): commands submitted while a thread runs, their
 * events waited for and polled, the program's own commands reached by
 * their handles, a wait that times out and a poll loop that then sees the
 * event, a thread's result before the stop with the run going on, the
 * stop that stops a thread still running, and every refusal — an unknown
 * handler (with the nearest name), a group outside the grid, too many
 * args, a bad size, bad timeouts, an unknown handle, a submit after the
 * stop.  Runs from the top of the tree (tests/run does). */
#include "api_fixture.h"

#include <cjson/cJSON.h>
#include <math.h>

#define HELLO "programs/01_hello/program.yaml"
#define HOST_FED "programs/04_host_fed/program.yaml"
#define LOOP "programs/12_host_loop/program.yaml"

static kmrun_run *load(kmrun_session *s, kmrun_program *p)
{
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    if (kmrun_session_load(s, p, &r, &e) != KMRUN_OK)
        fail_msg("kmrun_session_load: %s", kmrun_error_message(e));
    return r;
}

static kmrun_command collatz(uint32_t n)
{
    kmrun_command c;
    kmrun_command_init(&c, "collatz");
    c.count = 1;
    c.args[0] = n;
    c.nargs = 1;
    c.result = true;
    return c;
}

static void ok(kmrun_status st, kmrun_error **ep)
{
    if (st != KMRUN_OK)
        fail_msg("%s", kmrun_error_message(*ep));
    assert_null(*ep);
}

/* The loop of 12_host_loop from C, on `backend`: 111 commands, the
 * thread's count the same; the run JSON lists them. */
static void host_loop(kmrun_backend backend)
{
    kmrun_session *s = open_session(backend, false);
    kmrun_program *p = load_program(LOOP);
    kmrun_run *r = load(s, p);
    kmrun_error *e = NULL;
    uint32_t n = 27, steps = 0;
    while (n != 1) {
        kmrun_command c = collatz(n);
        uint64_t h = 0;
        kmrun_command_result got;
        ok(kmrun_run_submit(r, &c, &h, &e), &e);
        assert_int_equal(h, steps + 1);
        ok(kmrun_run_wait_command(r, h, 1.0, &got, &e), &e);
        assert_true(got.ended);
        assert_string_equal(got.event, "done");
        assert_true(got.has_result);
        assert_true(got.microseconds > 0);
        assert_int_equal(got.result, n % 2 ? 3 * n + 1 : n / 2);
        n = got.result;
        steps++;
    }
    assert_int_equal(steps, 111);
    kmrun_thread_result t;
    ok(kmrun_run_thread_result(r, 0, 0, &t, &e), &e);
    assert_string_equal(t.state, "returned");
    assert_int_equal(t.words[0], 111);
    assert_false(kmrun_run_stopped(r));
    ok(kmrun_run_stop(r, 0, &e), &e);
    assert_true(kmrun_run_ok(r));
    const char *json = kmrun_run_json(r);
    assert_non_null(json);
    cJSON *doc = cJSON_Parse(json);
    assert_non_null(doc);
    const cJSON *commands = cJSON_GetObjectItemCaseSensitive(doc, "commands");
    assert_int_equal(cJSON_GetArraySize(commands), 111);
    const cJSON *last = cJSON_GetArrayItem(commands, 110);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(last, "handle")->valueint, 111);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(last, "result")->valueint, 1);
    cJSON_Delete(doc);
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
}

static void a_host_loop_on_the_simulated_card(void **state)
{
    (void)state;
    host_loop(KMRUN_BACKEND_SIM);
}

static void a_host_loop_on_the_host_fallback(void **state)
{
    (void)state;
    host_loop(KMRUN_BACKEND_HOST);
}

/* Two runs steered alike give the same modeled times: the host's own
 * pace between calls does not move modeled time. */
static void a_steered_run_is_deterministic(void **state)
{
    (void)state;
    double first[3] = {0}, total[2] = {0};
    for (int k = 0; k < 2; k++) {
        kmrun_session *s = open_session(KMRUN_BACKEND_SIM, false);
        kmrun_program *p = load_program(LOOP);
        kmrun_run *r = load(s, p);
        kmrun_error *e = NULL;
        kmrun_command c = collatz(27);
        uint64_t h;
        kmrun_command_result got;
        ok(kmrun_run_submit(r, &c, &h, &e), &e);
        if (k == 1)
            usleep(50000); /* the host dawdles: nothing moves */
        ok(kmrun_run_wait_command(r, h, 1.0, &got, &e), &e);
        if (k == 0)
            first[0] = got.microseconds;
        else
            assert_true(got.microseconds == first[0]);
        kmrun_thread_result t;
        ok(kmrun_run_thread_result(r, 0, 0, &t, &e), &e);
        ok(kmrun_run_stop(r, 0, &e), &e);
        total[k] = t.microseconds;
        kmrun_run_free(r);
        kmrun_session_close(s);
        kmrun_program_free(p);
    }
    assert_true(total[0] == total[1]);
}

/* The program's own commands are handles 1 to 6; a fed one is 7. */
static void the_programs_commands_have_the_first_handles(void **state)
{
    (void)state;
    kmrun_session *s = open_session(KMRUN_BACKEND_SIM, false);
    kmrun_program *p = load_program(HOST_FED);
    kmrun_run *r = load(s, p);
    kmrun_error *e = NULL;
    kmrun_command_result got;
    ok(kmrun_run_wait_command(r, 2, 1.0, &got, &e), &e);
    assert_true(got.ended && got.has_result);
    assert_int_equal(got.result, 3072);
    ok(kmrun_run_wait_command(r, 6, 1.0, &got, &e), &e);
    assert_int_equal(got.result, 1574400);
    kmrun_command c;
    kmrun_command_init(&c, "weigh");
    c.count = 1;
    c.args[0] = 0;
    c.args[1] = 65536;
    c.args[3] = 1024;
    c.nargs = 4;
    c.result = true;
    uint64_t h;
    ok(kmrun_run_submit(r, &c, &h, &e), &e);
    assert_int_equal(h, 7);
    ok(kmrun_run_wait_command(r, h, 1.0, &got, &e), &e);
    assert_int_equal(got.result, 1574400);
    expect_error(kmrun_run_wait_command(r, 8, 1.0, &got, &e), &e, KMRUN_USAGE,
                 "no command 8 in this run (it has 7");
    expect_error(kmrun_run_poll(r, 0, &got, &e), &e, KMRUN_USAGE, "no command 0");
    ok(kmrun_run_stop(r, 0, &e), &e);
    assert_true(kmrun_run_ok(r));
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
}

/* A wait shorter than the command: not ended, the run goes on; polls see
 * the event later. */
static void a_wait_that_times_out_then_polls(void **state)
{
    (void)state;
    kmrun_session *s = open_session(KMRUN_BACKEND_SIM, false);
    kmrun_program *p = load_program(HOST_FED);
    kmrun_run *r = load(s, p);
    kmrun_error *e = NULL;
    kmrun_command c;
    kmrun_command_init(&c, "spend");
    c.first = 100;
    c.count = 4;
    c.args[0] = 200000; /* 200 us of modeled compute */
    c.nargs = 1;
    uint64_t h;
    kmrun_command_result got;
    ok(kmrun_run_submit(r, &c, &h, &e), &e);
    ok(kmrun_run_wait_command(r, h, 50e-6, &got, &e), &e);
    assert_false(got.ended);
    assert_null(got.event);
    assert_true(got.microseconds < 0);
    unsigned polls = 0;
    do {
        ok(kmrun_run_poll(r, h, &got, &e), &e);
        polls++;
    } while (!got.ended && polls < 100000);
    assert_true(got.ended);
    assert_string_equal(got.event, "done");
    assert_false(got.has_result);
    assert_true(polls > 100); /* a poll is one look: 1 us */
    ok(kmrun_run_stop(r, 0, &e), &e);
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
}

/* Every refusal names what it refuses. */
static void bad_commands_and_timeouts_are_refused(void **state)
{
    (void)state;
    kmrun_session *s = open_session(KMRUN_BACKEND_SIM, false);
    kmrun_program *p = load_program(LOOP);
    kmrun_run *r = load(s, p);
    kmrun_error *e = NULL;
    uint64_t h = 99;
    kmrun_command c = collatz(5);
    c.handler = "colatz";
    expect_error(kmrun_run_submit(r, &c, &h, &e), &e, KMRUN_USAGE,
                 "unknown handler 'colatz' (did you mean 'collatz'?)");
    assert_int_equal(h, 0);
    c = collatz(5);
    c.first = 119;
    c.count = 2;
    expect_error(kmrun_run_submit(r, &c, &h, &e), &e, KMRUN_USAGE, "bad group: first 119, count 2");
    c.first = 0;
    c.count = 0;
    expect_error(kmrun_run_submit(r, &c, &h, &e), &e, KMRUN_USAGE, "bad group");
    c = collatz(5);
    c.nargs = 11;
    expect_error(kmrun_run_submit(r, &c, &h, &e), &e, KMRUN_USAGE, "11 args (expected at most 10");
    c = collatz(5);
    c.size = 8;
    expect_error(kmrun_run_submit(r, &c, &h, &e), &e, KMRUN_USAGE, "kmrun_command_init");
    c = collatz(5);
    c.handler = NULL;
    expect_error(kmrun_run_submit(r, &c, &h, &e), &e, KMRUN_USAGE, "names no handler");
    expect_error(kmrun_run_submit(r, NULL, &h, &e), &e, KMRUN_USAGE, "the command is NULL");
    c = collatz(5);
    ok(kmrun_run_submit(r, &c, &h, &e), &e);
    kmrun_command_result got;
    expect_error(kmrun_run_wait_command(r, h, 0, &got, &e), &e, KMRUN_USAGE, "invalid timeout");
    expect_error(kmrun_run_wait_command(r, h, -1, &got, &e), &e, KMRUN_USAGE, "invalid timeout");
    expect_error(kmrun_run_wait_command(r, h, 1e7, &got, &e), &e, KMRUN_USAGE, "invalid timeout");
    expect_error(kmrun_run_wait_command(r, h, NAN, &got, &e), &e, KMRUN_USAGE, "invalid timeout");
    kmrun_thread_result t;
    expect_error(kmrun_run_thread_result(r, 0, -2, &t, &e), &e, KMRUN_USAGE, "invalid timeout");
    expect_error(kmrun_run_thread_result(r, 1, 0, &t, &e), &e, KMRUN_USAGE, "no result 1");
    expect_error(kmrun_run_thread_results(r, INFINITY, &e), &e, KMRUN_USAGE, "invalid timeout");
    expect_error(kmrun_run_stop(r, -1, &e), &e, KMRUN_USAGE, "invalid timeout");
    ok(kmrun_run_stop(r, 0, &e), &e);
    ok(kmrun_run_stop(r, 0, &e), &e); /* again: nothing */
    uint64_t late = 99;
    expect_error(kmrun_run_submit(r, &c, &late, &e), &e, KMRUN_USAGE,
                 "a command cannot be submitted after the run has stopped");
    assert_int_equal(late, 0);
    /* After the stop a wait gives the command's fate as the stop left it. */
    ok(kmrun_run_wait_command(r, h, 1.0, &got, &e), &e);
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
}

/* The stop right after the load stops a thread that has not returned:
 * state "stopped", its result readable, the run not ok. */
static void the_stop_stops_a_running_thread(void **state)
{
    (void)state;
    kmrun_session *s = open_session(KMRUN_BACKEND_SIM, false);
    kmrun_program *p = load_program(HELLO);
    kmrun_run *r = load(s, p);
    kmrun_error *e = NULL;
    kmrun_thread_result t;
    expect_error(kmrun_run_result(r, 0, &t, &e), &e, KMRUN_USAGE, "has no result yet");
    ok(kmrun_run_stop(r, 0, &e), &e);
    ok(kmrun_run_result(r, 0, &t, &e), &e);
    assert_string_equal(t.state, "stopped");
    assert_false(t.ran);
    assert_false(kmrun_run_ok(r));
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_host_loop_on_the_simulated_card),
        cmocka_unit_test(a_host_loop_on_the_host_fallback),
        cmocka_unit_test(a_steered_run_is_deterministic),
        cmocka_unit_test(the_programs_commands_have_the_first_handles),
        cmocka_unit_test(a_wait_that_times_out_then_polls),
        cmocka_unit_test(bad_commands_and_timeouts_are_refused),
        cmocka_unit_test(the_stop_stops_a_running_thread),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
