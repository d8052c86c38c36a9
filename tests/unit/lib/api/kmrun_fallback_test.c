/* Tests for host fallbacks given as functions (include/kmrun.h, "Host
 * fallbacks given as functions"; lib/api/kmrun_fallback.c): 01_hello's
 * thread as a C function gives the card's result and region bit for bit;
 * 12_host_loop's thread as a function walks the sequence through the
 * thread's own ring (submit, wait, poll); the refusals (no such cluster,
 * a handle never given, a zero timeout, an unknown handler) name what
 * they refuse; NULL puts the sources back.  Runs from the top of the tree
 * (tests/run does). */
#include "api_fixture.h"

#define HELLO "programs/01_hello/program.yaml"
#define LOOP "programs/12_host_loop/program.yaml"

/* 01_hello's thread: out[i] = a * i; result a * b. */
static int32_t hello(const kmrun_fallback_args *a, uint32_t *words, unsigned *nwords, void *ctx)
{
    int *calls = ctx;
    (*calls)++;
    if (a->nwords < 2 || a->nregions != 1 || strcmp(a->region_names[0], "out") != 0)
        return 1;
    uint32_t *out = a->regions[0];
    for (size_t i = 0; i < a->region_bytes[0] / 4; i++)
        out[i] = a->words[0] * (uint32_t)i;
    words[0] = a->words[0] * a->words[1];
    *nwords = 1;
    return 0;
}

/* The run of `p` on `backend` to its stop: the thread's result words and
 * a copy of region `name` (NULL: none). */
static kmrun_thread_result run_to_stop(kmrun_program *p, kmrun_backend backend, const char *name,
                                       void **bytes, size_t *n)
{
    kmrun_session *s = open_session(backend, false);
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    if (kmrun_session_load(s, p, &r, &e) != KMRUN_OK || kmrun_run_wait(r, 0, &e) != KMRUN_OK)
        fail_msg("%s", kmrun_error_message(e));
    kmrun_thread_result t;
    assert_int_equal(kmrun_run_result(r, 0, &t, &e), KMRUN_OK);
    static char state[32];
    snprintf(state, sizeof state, "%s", t.state);
    t.state = state;
    t.error = NULL;
    t.message = NULL;
    if (name) {
        const void *data;
        assert_int_equal(kmrun_run_read(r, 1, name, &data, n, &e), KMRUN_OK);
        *bytes = malloc(*n);
        memcpy(*bytes, data, *n);
    }
    kmrun_run_free(r);
    kmrun_session_close(s);
    return t;
}

static void a_function_gives_the_cards_result_bit_for_bit(void **state)
{
    (void)state;
    kmrun_program *p = load_program(HELLO);
    void *card, *host;
    size_t ncard, nhost;
    kmrun_thread_result c = run_to_stop(p, KMRUN_BACKEND_SIM, "out", &card, &ncard);
    int calls = 0;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_program_host_fallback(p, 1, hello, &calls, &e), KMRUN_OK);
    kmrun_thread_result h = run_to_stop(p, KMRUN_BACKEND_HOST, "out", &host, &nhost);
    assert_int_equal(calls, 1);
    assert_string_equal(h.state, "returned");
    assert_int_equal(h.nwords, 1);
    assert_int_equal(h.words[0], 42);
    assert_int_equal(c.words[0], h.words[0]);
    assert_int_equal(ncard, nhost);
    assert_memory_equal(card, host, ncard);
    /* On the card the function is not used. */
    kmrun_thread_result again = run_to_stop(p, KMRUN_BACKEND_SIM, NULL, NULL, NULL);
    assert_int_equal(calls, 1);
    assert_int_equal(again.words[0], 42);
    /* NULL: the sources again (the natively built thread). */
    assert_int_equal(kmrun_program_host_fallback(p, 1, NULL, NULL, &e), KMRUN_OK);
    kmrun_thread_result native = run_to_stop(p, KMRUN_BACKEND_HOST, NULL, NULL, NULL);
    assert_int_equal(calls, 1);
    assert_int_equal(native.words[0], 42);
    expect_error(kmrun_program_host_fallback(p, 2, hello, &calls, &e), &e, KMRUN_USAGE,
                 "program 'hello' has no thread on cluster 2");
    free(card);
    free(host);
    kmrun_program_free(p);
}

/* 12_host_loop's thread as a function that walks the sequence itself,
 * through the thread's ring. */
static int32_t walker(const kmrun_fallback_args *a, uint32_t *words, unsigned *nwords, void *ctx)
{
    int *failures = ctx;
    kmrun_error *e = NULL;
    kmrun_command_result got;
    uint32_t n = a->words[0], steps = 0, highest = n;
    /* The refusals first: each names what it refuses. */
    kmrun_command c;
    kmrun_command_init(&c, "colatz");
    uint64_t h;
    if (kmrun_fallback_submit(a->run, &c, &h, &e) != KMRUN_USAGE ||
        !strstr(kmrun_error_message(e), "did you mean 'collatz'"))
        (*failures)++;
    kmrun_error_free(e);
    e = NULL;
    if (kmrun_fallback_wait(a->run, 5, 1.0, &got, &e) != KMRUN_USAGE ||
        !strstr(kmrun_error_message(e), "no command 5"))
        (*failures)++;
    kmrun_error_free(e);
    e = NULL;
    while (n != 1 && steps < 1000) {
        kmrun_command_init(&c, "collatz");
        c.count = 1;
        c.args[0] = n;
        c.nargs = 1;
        c.result = true;
        if (kmrun_fallback_submit(a->run, &c, &h, &e) != KMRUN_OK)
            return 10;
        if (steps == 0) {
            if (kmrun_fallback_wait(a->run, h, 0, &got, &e) != KMRUN_USAGE)
                (*failures)++;
            kmrun_error_free(e);
            e = NULL;
            /* Polled until it comes. */
            do {
                if (kmrun_fallback_poll(a->run, h, &got, &e) != KMRUN_OK)
                    return 11;
            } while (!got.ended);
        } else if (kmrun_fallback_wait(a->run, h, 1.0, &got, &e) != KMRUN_OK || !got.ended) {
            return 12;
        }
        if (!got.has_result || strcmp(got.event, "done") != 0)
            return 13;
        n = got.result;
        highest = n > highest ? n : highest;
        steps++;
    }
    if (kmrun_fallback_stop_requested(a->run))
        (*failures)++;
    words[0] = steps;
    words[1] = highest;
    *nwords = 2;
    return 0;
}

static void a_function_submits_through_the_threads_ring(void **state)
{
    (void)state;
    kmrun_program *p = load_program(LOOP);
    int failures = 0;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_program_host_fallback(p, 1, walker, &failures, &e), KMRUN_OK);
    kmrun_thread_result t = run_to_stop(p, KMRUN_BACKEND_HOST, NULL, NULL, NULL);
    assert_int_equal(failures, 0);
    assert_string_equal(t.state, "returned");
    assert_int_equal(t.code, 0);
    assert_int_equal(t.words[0], 111);
    assert_int_equal(t.words[1], 9232);
    kmrun_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_function_gives_the_cards_result_bit_for_bit),
        cmocka_unit_test(a_function_submits_through_the_threads_ring),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
