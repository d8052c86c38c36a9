/* Tests of the host fallback runtime where it must end as the card's does
 * (issue 27; tests/cli/host_agrees.bats runs the same on both backends),
 * over the fake ctx of kmx_host_fake.h.  The last test leaves this copy of
 * the runtime unusable (a core left running): it stays last. */
#include "kmx_host_fake.h"

/* ---- a misaligned access -------------------------------------------------- */

/* What the compiler's alignment check hands the runtime's handler
 * (kmx_host_align.c). */
typedef struct mismatch {
    const char *file;
    uint32_t line, column;
    const void *type;
    unsigned char log_alignment, type_check_kind;
} mismatch;
_Noreturn void __ubsan_handle_type_mismatch_v1_abort(mismatch *data, uintptr_t pointer);
void __ubsan_handle_type_mismatch_v1(mismatch *data, uintptr_t pointer);

static mismatch load8 = {"t.c", 1, 1, NULL, 3, 0};
static mismatch store4 = {"t.c", 2, 1, NULL, 2, 1};
static volatile int after_check = -1;

static void misaligned_store_on_core2(int core, void *arg) {
    (void)arg;
    if (core == 2) {
        __ubsan_handle_type_mismatch_v1_abort(&store4, 0x1002);
    }
}

static int body_misaligned(int core) {
    (void)core;
    /* a pointer that meets its alignment: no trap (the recoverable one) */
    __ubsan_handle_type_mismatch_v1(&load8, 0x1008);
    after_check = kmx_parallel(misaligned_store_on_core2, NULL);
    EXPECT(after_check == KMX_OK || after_check == KMX_STOPPED);
    __ubsan_handle_type_mismatch_v1_abort(&load8, 0x1004);
    after_check = 99; /* never: core 0 left its code */
    return 1;
}

static void misaligned_access_is_the_cards_trap(void **state) {
    (void)state;
    after_check = -1;
    run(body_misaligned);
    assert_int_not_equal(after_check, 99);
    assert_int_equal(result.state, KMX_STATE_TRAPPED);
    assert_int_equal(result.error, KMX_ERROR_TRAP);
    /* the first: core 2's store, cause 6, its address */
    assert_int_equal(result.trap_core, 2);
    assert_int_equal(result.trap_mcause, 6);
    assert_int_equal(result.trap_mtval, 0x1002);
    assert_true(result.trap_mepc != 0);
    assert_int_equal(result.error_detail, 6);
}

/* ---- the thread's clock and the timeout ----------------------------------- */

static volatile uint64_t stop_tick;
static volatile int stop_status = -1;

static int body_poll_stop(int core) {
    (void)core;
    while (!kmx_stop_requested()) {
    }
    stop_tick = kmx_time();
    return 0;
}

/* The stop word is never written: the timeout's time alone stops it, on
 * the thread's own clock. */
static void timeout_stops_on_the_threads_clock(void **state) {
    (void)state;
    ctx.timeout_ns = 20000000u; /* 20 ms */
    run(body_poll_stop);
    assert_int_equal(stop_word, 0);
    assert_int_equal(result.state, KMX_STATE_STOPPED);
    assert_true(stop_tick >= BH_TICKS_PER_SECOND / 50u);
    assert_true(stop_tick < BH_TICKS_PER_SECOND * 5u);
}

/* kmrun's timeout word, written on kmrun's clock (which started first),
 * is not seen before the thread's own timeout; any other stop at once. */
static void timeout_word_waits_for_the_threads_clock(void **state) {
    (void)state;
    ctx.timeout_ns = 30000000u; /* 30 ms */
    stop_word = KMX_HOST_STOP_TIMEOUT;
    run(body_poll_stop);
    assert_int_equal(result.state, KMX_STATE_STOPPED);
    assert_true(stop_tick >= BH_TICKS_PER_SECOND / 1000u * 30u);

    setup(NULL);
    ctx.timeout_ns = 30000000u;
    stop_word = KMX_HOST_STOP_ASKED;
    run(body_poll_stop);
    assert_int_equal(result.state, KMX_STATE_STOPPED);
    assert_true(stop_tick < BH_TICKS_PER_SECOND / 1000u * 30u);

    setup(NULL); /* no timeout known: the word is a stop */
    stop_word = KMX_HOST_STOP_TIMEOUT;
    run(body_poll_stop);
    assert_int_equal(result.state, KMX_STATE_STOPPED);
    assert_true(stop_tick < BH_TICKS_PER_SECOND / 1000u * 30u);
}

/* ---- a line of the cluster bus written after the deadline ------------------ */

static void two_clusters(uint32_t self) {
    args.cluster = self;
    ctx.cluster = self;
    args.clusters = (1u << 1) | (1u << 2);
    args.bank = self == 1 ? 6u : 7u;
    for (uint32_t i = 0; i < REGIONS; i++) {
        args.regions[i].bank = args.bank;
    }
    args.peers[0].present = 1;
    args.peers[1].present = 1;
    args.deadline = BH_TICKS_PER_SECOND / 10u; /* 100 ms */
}

static volatile int serve_status = -1;

static int body_serve(int core) {
    (void)core;
    serve_status = kmx_serve();
    return 0;
}

/* The lead's END written after this cluster's deadline: the card's
 * server meets its deadline first, whenever the host's wakes. */
static void end_after_the_deadline_is_late(void **state) {
    (void)state;
    two_clusters(2);
    /* (the deadline counts from start-up, a few ticks into the clock) */
    f.script[0] = (kmx_host_call){0, 0, 1, KMX_CLUSTER_END, args.deadline + 50000u};
    f.nscript = 1;
    run(body_serve);
    assert_int_equal(serve_status, KMX_LATE);
    assert_int_equal(result.state, KMX_STATE_LATE);
}

/* ... and one written before it is taken, also if seen after it. */
static void end_before_the_deadline_is_taken(void **state) {
    (void)state;
    two_clusters(2);
    f.script[0] = (kmx_host_call){0, 0, 1, KMX_CLUSTER_END, args.deadline - 1u};
    f.nscript = 1;
    run(body_serve);
    assert_int_equal(serve_status, KMX_OK);
    assert_int_equal(result.state, KMX_STATE_DONE);
}

static volatile int all_status = -1;

static void nothing(int cluster, int core, uint64_t arg) {
    (void)cluster, (void)core, (void)arg;
}

static int body_lead_all(int core) {
    (void)core;
    all_status = kmx_parallel_all(nothing, 0);
    return 0;
}

/* The lead: a cluster that began serving, or finished a call, after the
 * lead's deadline came too late, as on the card. */
static void serving_or_done_after_the_deadline_is_late(void **state) {
    (void)state;
    two_clusters(1);
    f.serving = 1u << 2;
    f.serving_ticks = args.deadline + 50000u;
    run(body_lead_all);
    assert_int_equal(all_status, KMX_LATE);
    assert_int_equal(result.state, KMX_STATE_LATE);
    assert_int_equal(f.nposts, 1); /* only the END: no call was posted */

    setup(NULL);
    two_clusters(1);
    f.serving = 1u << 2;
    f.done_ticks = args.deadline + 50000u;
    run(body_lead_all);
    assert_int_equal(all_status, KMX_LATE);
    assert_int_equal(result.state, KMX_STATE_LATE);

    setup(NULL);
    two_clusters(1);
    f.serving = 1u << 2;
    f.done_ticks = args.deadline - 5u;
    run(body_lead_all);
    assert_int_equal(all_status, KMX_OK);
    assert_int_equal(result.state, KMX_STATE_DONE);
}

/* ---- a core that never returns -------------------------------------------- */

static volatile uint32_t spin_release;
static volatile uint32_t spinning;
static volatile int parallel_status = -1;

/* Core 2 spins without polling the stop until the test releases it. */
static void spin_on_core2(int core, void *arg) {
    (void)arg;
    if (core != 2) {
        return;
    }
    spinning = 1;
    while (!spin_release) {
    }
    spinning = 0;
}

static int body_spin_worker(int core) {
    (void)core;
    parallel_status = kmx_parallel(spin_on_core2, NULL);
    return 5;
}

static void worker_that_never_returns_is_left_running(void **state) {
    (void)state;
    spin_release = 0;
    args.deadline = BH_TICKS_PER_SECOND / 50u; /* 20 ms */
    uint64_t t0 = now_ns();
    run(body_spin_worker);
    uint64_t took = now_ns() - t0;
    /* the join ends at the deadline and the settle waits 0.1 s more: a
     * floor.  No ceiling: how long after that a loaded host (or valgrind,
     * which runs one thread at a time) takes to return is not the test's
     * business; that it returns at all is, and the runner's timeout holds. */
    assert_int_equal(parallel_status, KMX_LATE);
    assert_int_equal(result.state, KMX_STATE_LATE);
    assert_int_equal(result.code, 5);
    assert_true(took >= 100000000u);
    assert_int_equal(ctx.left_running, 1u << 2);
    assert_int_equal(spinning, 1);
    /* this copy refuses another run while the core may still call it */
    assert_int_equal(kmx_host_run(&ctx), -1);
    spin_release = 1;
    for (int i = 0; i < 5000 && spinning; i++) {
        sleep_ms(1);
    }
    assert_int_equal(spinning, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(misaligned_access_is_the_cards_trap, setup, teardown),
        cmocka_unit_test_setup_teardown(timeout_stops_on_the_threads_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(timeout_word_waits_for_the_threads_clock, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(end_after_the_deadline_is_late, setup, teardown),
        cmocka_unit_test_setup_teardown(end_before_the_deadline_is_taken, setup, teardown),
        cmocka_unit_test_setup_teardown(serving_or_done_after_the_deadline_is_late, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(worker_that_never_returns_is_left_running, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
