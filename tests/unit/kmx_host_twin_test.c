/* Tests of the host fallback runtime where it must end as the card's does
 * (issue 27; tests/cli/host_agrees.bats runs the same on both backends),
 * over the fake ctx of kmx_host_fake.h.  The last test leaves this copy of
 * the runtime unusable (a core left running): it stays last. */
#include "kmx_host_fake.h"

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
    /* the join ends at the deadline, the settle 0.1 s later */
    assert_int_equal(parallel_status, KMX_LATE);
    assert_int_equal(result.state, KMX_STATE_LATE);
    assert_int_equal(result.code, 5);
    assert_true(took >= 100000000u && took < 5000000000u);
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
        cmocka_unit_test_setup_teardown(worker_that_never_returns_is_left_running, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
