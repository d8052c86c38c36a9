/* Tests for the host fallback runtime (kmx/host/, libkmx_host.a) over the
 * fake ctx of kmx_host_fake.h: kmx_main bodies, one per case, chosen
 * through a function pointer.  The runtime's agreement with the card's
 * (issue 27) is tested in kmx_host_twin_test.c. */
#include "kmx_host_fake.h"

/* ---- start and end -------------------------------------------------------- */

static void ctx_checked(void **state) {
    (void)state;
    assert_int_equal(kmx_host_run(NULL), -1);
    ctx.abi = KMX_HOST_ABI + 1;
    assert_int_equal(kmx_host_run(&ctx), -1);
    ctx.abi = KMX_HOST_ABI;
    ctx.step = NULL;
    assert_int_equal(kmx_host_run(&ctx), -1);
    ctx.step = fake_step;
    ctx.region[1] = NULL;
    assert_int_equal(kmx_host_run(&ctx), -1);
    ctx.region[1] = region_mem[1];
    ctx.result = NULL;
    assert_int_equal(kmx_host_run(&ctx), -1);
    ctx.result = &result;
    ctx.push = NULL;
    assert_int_equal(kmx_host_run(&ctx), -1);
    ctx.push = fake_push;
    assert_int_equal(main_calls, 0);
    assert_int_equal(result.state, KMX_STATE_NONE);
    assert_int_equal(f.ncalls, 0);
}

static void bad_args_fail(void **state) {
    (void)state;
    args.seal.seal = 0;
    assert_int_equal(kmx_host_run(&ctx), 0);
    assert_int_equal(main_calls, 0);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_ARGS);
    assert_int_equal(f.ncalls, 0); /* nothing flushed */
}

static void bad_region_fails(void **state) {
    (void)state;
    args.regions[1].bytes = 0;
    assert_int_equal(kmx_host_run(&ctx), 0);
    assert_int_equal(main_calls, 0);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_REGION);
    assert_int_equal(result.error_detail, 1);

    setup(NULL);
    args.regions[2].bank = 7;
    assert_int_equal(kmx_host_run(&ctx), 0);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_BANK);
    assert_int_equal(result.error_detail, 2);

    setup(NULL);
    args.ring.kind = 9;
    assert_int_equal(kmx_host_run(&ctx), 0);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_RING);
}

static int body_basics(int core) {
    EXPECT(core == 0);
    for (uint32_t id = 0; id < REGIONS; id++) {
        uint64_t bytes = 1;
        EXPECT(kmx_region(id, &bytes) == region_mem[id]);
        EXPECT(bytes == (id == 2 ? 100u : REGION_BYTES));
    }
    EXPECT(kmx_region(0, NULL) == region_mem[0]);
    uint64_t bytes = 1;
    EXPECT(kmx_region(REGIONS, &bytes) == NULL && bytes == 0);
    bytes = 1;
    EXPECT(kmx_region(KMX_MAX_REGIONS, &bytes) == NULL && bytes == 0);
    EXPECT(kmx_region(0xFFFFFFFFu, NULL) == NULL);
    uint32_t n = 0;
    const uint32_t *words = kmx_args_get(&n);
    EXPECT(n == 2 && words[0] == 7 && words[1] == 6);
    EXPECT(kmx_args_get(NULL) == words);
    EXPECT(kmx_cluster() == 1 && kmx_clusters() == 2u && kmx_lead() == 1);
    EXPECT(!kmx_stop_requested());
    uint64_t t0 = kmx_time();
    sleep_ms(20);
    uint64_t t1 = kmx_time();
    /* 20 ms at 50 MHz: 1,000,000 ticks (a slow machine sleeps longer) */
    EXPECT(t1 - t0 >= 900000u && t1 - t0 < 50000000u);
    ((uint32_t *)region_mem[0])[0] = 99;
    return 3;
}

static void basics_and_done(void **state) {
    (void)state;
    run(body_basics);
    assert_int_equal(main_calls, 1);
    assert_int_equal(result.state, KMX_STATE_DONE);
    assert_int_equal(result.error, KMX_ERROR_NONE);
    assert_int_equal(result.code, 3);
    assert_int_equal(result.prefetch, KMX_PREFETCH_SET | KMX_PREFETCH_NOT_WRITTEN);
    assert_true(result.end_ticks >= result.start_ticks + 900000u);
    assert_true(result.nonce == NONCE);
    /* the end flushes every region, whole lines */
    assert_int_equal(f.ncalls, REGIONS);
    for (int i = 0; i < REGIONS; i++) {
        assert_int_equal(f.calls[i].invalidate, 0);
        assert_int_equal(f.calls[i].id, i);
        assert_int_equal(f.calls[i].offset, 0);
        assert_int_equal(f.calls[i].bytes, i == 2 ? 128 : REGION_BYTES);
    }
}

static int body_progress(int core) {
    kmx_progress(42);
    uint32_t w[3] = {1, 2, 3};
    EXPECT(kmx_result(0, w, 3) == KMX_OK);
    EXPECT(kmx_result(10, w, 2) == KMX_OK);
    EXPECT(kmx_result(46, w, 3) == KMX_BAD);
    EXPECT(kmx_result(49, w, 0) == KMX_BAD);
    EXPECT(kmx_result(5, NULL, 1) == KMX_BAD);
    EXPECT(kmx_result(47, w, 1) == KMX_OK);
    return -5;
}

static void progress_and_result(void **state) {
    (void)state;
    run(body_progress);
    assert_int_equal(result.state, KMX_STATE_DONE);
    assert_int_equal(result.code, -5);
    assert_int_equal(result.where, 42);
    assert_true(result.where_ticks != 0);
    assert_int_equal(result.nwords, 48);
    assert_int_equal(result.words[0], 1);
    assert_int_equal(result.words[2], 3);
    assert_int_equal(result.words[10], 1);
    assert_int_equal(result.words[11], 2);
    assert_int_equal(result.words[47], 1);
}

/* ---- spawn, join, parallel ------------------------------------------------ */

static volatile uint32_t seen[4];
static volatile uint32_t release_flag;

static void note_core(int core, void *arg) {
    uint32_t *out = arg;
    __atomic_store_n(&out[core], (uint32_t)core + 100u, __ATOMIC_SEQ_CST);
    seen[core]++;
}

/* Until released (a bound of 60 s keeps a broken test finite).  It
 * yields: under valgrind, which runs one thread at a time, a spinning
 * thread could keep core 0 from seeing its deadline for seconds. */
static void hold(int core, void *arg) {
    (void)arg;
    uint64_t until = kmx_time() + BH_TICKS_PER_SECOND * 60ull;
    while (!__atomic_load_n(&release_flag, __ATOMIC_SEQ_CST) && kmx_time() < until) {
        sched_yield();
    }
    seen[core]++;
}

static int body_spawn(int core) {
    uint32_t *out = kmx_region(0, NULL);
    for (int c = 1; c <= 3; c++) {
        EXPECT(kmx_spawn(c, note_core, out) == KMX_OK);
    }
    for (int c = 1; c <= 3; c++) {
        EXPECT(kmx_join(c) == KMX_OK);
        EXPECT(out[c] == (uint32_t)c + 100u);
    }
    EXPECT(kmx_join(2) == KMX_OK); /* idle */
    EXPECT(kmx_spawn(0, note_core, out) == KMX_BAD);
    EXPECT(kmx_spawn(4, note_core, out) == KMX_BAD);
    EXPECT(kmx_spawn(-1, note_core, out) == KMX_BAD);
    EXPECT(kmx_spawn(1, NULL, out) == KMX_BAD);
    EXPECT(kmx_join(0) == KMX_BAD);
    EXPECT(kmx_join(4) == KMX_BAD);
    EXPECT(kmx_parallel(NULL, out) == KMX_BAD);

    /* busy: another spawn and kmx_parallel are KMX_FULL, nothing started */
    release_flag = 0;
    EXPECT(kmx_spawn(2, hold, NULL) == KMX_OK);
    EXPECT(kmx_spawn(2, note_core, out) == KMX_FULL);
    uint32_t before[4] = {seen[0], seen[1], seen[2], seen[3]};
    EXPECT(kmx_parallel(note_core, out) == KMX_FULL);
    EXPECT(seen[0] == before[0] && seen[1] == before[1] && seen[3] == before[3]);
    __atomic_store_n(&release_flag, 1u, __ATOMIC_SEQ_CST);
    EXPECT(kmx_join(2) == KMX_OK);
    EXPECT(kmx_spawn(2, note_core, out) == KMX_OK);
    EXPECT(kmx_join(2) == KMX_OK);

    for (int c = 0; c < 4; c++) {
        out[c] = 0;
    }
    EXPECT(kmx_parallel(note_core, out) == KMX_OK);
    for (int c = 0; c < 4; c++) {
        EXPECT(out[c] == (uint32_t)c + 100u);
    }
    return 0;
}

static void spawn_join_parallel(void **state) {
    (void)state;
    memset((void *)seen, 0, sizeof seen);
    run(body_spawn);
    assert_int_equal(result.state, KMX_STATE_DONE);
    assert_int_equal(result.error, KMX_ERROR_NONE);
    assert_int_equal(seen[0], 1);
    assert_int_equal(seen[1], 2);
    assert_int_equal(seen[2], 4);
    assert_int_equal(seen[3], 2);
}

static volatile int nested_status = -1;

static void spawn_from_worker(int core, void *arg) {
    (void)arg;
    nested_status = kmx_spawn(3, note_core, NULL);
}

static int body_spawn_from_core1(int core) {
    EXPECT(kmx_spawn(1, spawn_from_worker, NULL) == KMX_OK);
    int s = kmx_join(1); /* after the error: KMX_STOPPED (kmx_joined) */
    EXPECT(s == KMX_STOPPED);
    wait_set(&nested_status);
    EXPECT(nested_status == KMX_STOPPED);
    EXPECT(kmx_stop_requested());
    EXPECT(kmx_spawn(2, note_core, NULL) == KMX_STOPPED); /* the run is stopping */
    return 0;
}

static void spawn_from_core1_is_parallel_error(void **state) {
    (void)state;
    nested_status = -1;
    run(body_spawn_from_core1);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_PARALLEL);
    assert_int_equal(result.error_core, 1);
    assert_int_equal(result.error_call, KMX_API_SPAWN);
    assert_true(result.error_pc > (uint64_t)(uintptr_t)spawn_from_worker &&
                result.error_pc < (uint64_t)(uintptr_t)spawn_from_worker + 256u);
}

static void spawn_inside_parallel(int core, void *arg) {
    (void)arg;
    if (core == 0) {
        nested_status = kmx_join(1);
    }
}

static int body_core0_inside_parallel(int core) {
    int s = kmx_parallel(spawn_inside_parallel, NULL);
    EXPECT(s == KMX_STOPPED); /* after the error, whatever cores 1-3 did */
    EXPECT(nested_status == KMX_STOPPED);
    return 0;
}

static void core0_call_inside_parallel_is_parallel_error(void **state) {
    (void)state;
    nested_status = -1;
    run(body_core0_inside_parallel);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_PARALLEL);
    assert_int_equal(result.error_core, 0);
    /* the call and where it returns to, in spawn_inside_parallel */
    assert_int_equal(result.error_call, KMX_API_JOIN);
    assert_true(result.error_pc > (uint64_t)(uintptr_t)spawn_inside_parallel &&
                result.error_pc < (uint64_t)(uintptr_t)spawn_inside_parallel + 256u);
}

static void until_stop(int core, void *arg) {
    (void)arg;
    uint64_t until = kmx_time() + BH_TICKS_PER_SECOND * 5ull;
    while (!kmx_stop_requested() && kmx_time() < until) {
        sched_yield();
    }
}

static int body_join_stopped(int core) {
    EXPECT(kmx_spawn(1, until_stop, NULL) == KMX_OK);
    stop_word = 1; /* the host asks */
    int s = kmx_join(1);
    EXPECT(s == KMX_STOPPED || s == KMX_OK);
    EXPECT(kmx_spawn(2, note_core, NULL) == KMX_STOPPED);
    EXPECT(kmx_parallel(note_core, NULL) == KMX_STOPPED);
    return 0;
}

static void join_ends_at_stop(void **state) {
    (void)state;
    run(body_join_stopped);
    assert_int_equal(result.state, KMX_STATE_STOPPED);
    assert_int_equal(result.error, KMX_ERROR_NONE);
}

static volatile int join_status = -1;

static int body_join_late(int core) {
    EXPECT(kmx_spawn(3, hold, NULL) == KMX_OK); /* never released */
    join_status = kmx_join(3);
    EXPECT(join_status == KMX_LATE);
    EXPECT(kmx_stop_requested());
    __atomic_store_n(&release_flag, 1u, __ATOMIC_SEQ_CST);
    return 0;
}

static void join_ends_at_deadline(void **state) {
    (void)state;
    release_flag = 0;
    args.deadline = BH_TICKS_PER_SECOND / 20u; /* 50 ms */
    run(body_join_late);
    assert_int_equal(result.state, KMX_STATE_LATE);
    assert_true(result.end_ticks >= BH_TICKS_PER_SECOND / 20u);
}

/* ---- flush and invalidate ------------------------------------------------- */

static void flush_on_worker(int core, void *arg) {
    (void)arg;
    EXPECT(kmx_flush_at(1, 128, 64) == KMX_OK);
}

static int body_cache(int core) {
    EXPECT(kmx_flush(0) == KMX_OK);                    /* 0: 0, 4096 */
    EXPECT(kmx_invalidate(1) == KMX_OK);               /* 1: 0, 4096 */
    EXPECT(kmx_flush_at(0, 70, 10) == KMX_OK);         /* 2: 64, 64 */
    EXPECT(kmx_invalidate_at(0, 60, 10) == KMX_OK);    /* 3: 0, 128 */
    EXPECT(kmx_invalidate_at(1, 4090, 6) == KMX_OK);   /* 4: 4032, 64 */
    EXPECT(kmx_flush_at(2, 0, 100) == KMX_OK);         /* 5: 0, 128 */
    EXPECT(kmx_flush_at(0, 128, 0) == KMX_OK);         /* nothing */
    EXPECT(kmx_flush_at(0, 4000, 200) == KMX_BAD);
    EXPECT(kmx_flush_at(0, 4097, 0) == KMX_BAD);
    EXPECT(kmx_invalidate_at(2, 64, 37) == KMX_BAD);
    EXPECT(kmx_flush_at(0, UINT64_MAX, 2) == KMX_BAD);
    EXPECT(kmx_flush(3) == KMX_BAD);
    EXPECT(kmx_invalidate(KMX_MAX_REGIONS) == KMX_BAD);
    EXPECT(kmx_invalidate_at(7, 0, 1) == KMX_BAD);
    EXPECT(kmx_spawn(2, flush_on_worker, NULL) == KMX_OK); /* 6: 128, 64 */
    EXPECT(kmx_join(2) == KMX_OK);
    return 0;
}

static void flush_invalidate_lines(void **state) {
    (void)state;
    run(body_cache);
    assert_int_equal(result.state, KMX_STATE_DONE);
    static const call want[] = {
        {0, 0, 0, 4096}, {1, 1, 0, 4096}, {0, 0, 64, 64},   {1, 0, 0, 128},
        {1, 1, 4032, 64}, {0, 2, 0, 128}, {0, 1, 128, 64},
        /* the end */
        {0, 0, 0, 4096}, {0, 1, 0, 4096}, {0, 2, 0, 128},
    };
    assert_int_equal(f.ncalls, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(f.calls[i].invalidate, want[i].invalidate);
        assert_int_equal(f.calls[i].id, want[i].id);
        assert_int_equal(f.calls[i].offset, want[i].offset);
        assert_int_equal(f.calls[i].bytes, want[i].bytes);
    }
}

/* ---- the ring ------------------------------------------------------------- */

static uint32_t submit(uint32_t result_word, uint32_t steps, uint32_t wake) {
    km_command_t c;
    memset(&c, 0, sizeof c);
    c.hdr = KM_HDR(KM_HANDLER_NOP, KM_FLAG_RESULT);
    c.group = KM_GROUP(0, 1);
    c.a0 = result_word;
    c.a1 = steps;
    c.a2 = wake;
    uint32_t handle = 0;
    int status = kmx_submit(&c, &handle);
    EXPECT(status == KMX_OK);
    return status == KMX_OK ? handle : 0;
}

static int body_ring_keeps(int core) {
    uint32_t h1 = submit(111, 5, 0), h2 = submit(222, 1, 0), h3 = submit(333, 3, 0);
    EXPECT(h1 == 1 && h2 == 2 && h3 == 3);
    kmx_event e;
    EXPECT(kmx_wait(h1, 0, &e) == KMX_OK);
    EXPECT(e.kind == KM_EVENT_DONE && e.handle == h1 && e.ticks == 111);
    EXPECT(kmx_poll(&e) == KMX_OK && e.handle == h2 && e.ticks == 222);
    EXPECT(kmx_poll(&e) == KMX_OK && e.handle == h3 && e.ticks == 333);
    EXPECT(kmx_poll(&e) == KMX_EMPTY);

    /* a kept event is returned by a later wait for its handle */
    uint32_t h4 = submit(444, 1, 0), h5 = submit(555, 3, 0), h6 = submit(666, 2, 0);
    EXPECT(kmx_wait(h5, 0, &e) == KMX_OK && e.ticks == 555);
    EXPECT(kmx_wait(h6, 0, &e) == KMX_OK && e.ticks == 666);
    EXPECT(kmx_poll(&e) == KMX_OK && e.handle == h4);
    EXPECT(kmx_poll(&e) == KMX_EMPTY);

    EXPECT(kmx_wait(0, 0, &e) == KMX_BAD);
    EXPECT(kmx_wait(99, 0, &e) == KMX_BAD);
    EXPECT(kmx_wait(h1, 0, NULL) == KMX_BAD);
    EXPECT(kmx_poll(NULL) == KMX_BAD);
    EXPECT(kmx_submit(NULL, &h1) == KMX_BAD);
    return 0;
}

static void ring_wait_keeps_others_for_poll(void **state) {
    (void)state;
    run(body_ring_keeps);
    assert_int_equal(result.state, KMX_STATE_DONE);
    assert_int_equal(result.error, KMX_ERROR_NONE);
}

static int body_ring_full_keep(int core) {
    for (uint32_t i = 1; i <= 33; i++) {
        EXPECT(submit(1000 + i, 1, 0) == i);
    }
    uint32_t last = submit(9999, 5, 0);
    EXPECT(last == 34);
    kmx_event e;
    EXPECT(kmx_wait(last, 0, &e) == KMX_FULL); /* 32 kept, the 33rd is another's */
    EXPECT(kmx_wait(last, 0, &e) == KMX_FULL);
    for (uint32_t i = 1; i <= 33; i++) { /* 32 kept, then the one left in the ring */
        EXPECT(kmx_poll(&e) == KMX_OK && e.handle == i && e.ticks == 1000 + i);
    }
    EXPECT(kmx_wait(last, 0, &e) == KMX_OK && e.handle == last && e.ticks == 9999);
    EXPECT(kmx_poll(&e) == KMX_EMPTY);
    return 0;
}

static void ring_keep_full(void **state) {
    (void)state;
    run(body_ring_full_keep);
    assert_int_equal(result.state, KMX_STATE_DONE);
}

static int body_ring_wake(int core) {
    uint32_t h1 = submit(7, 2, 1); /* a wake comes just before its DONE */
    kmx_event e;
    EXPECT(kmx_wait(h1, 0, &e) == KMX_OK && e.kind == KM_EVENT_DONE && e.ticks == 7);
    EXPECT(kmx_poll(&e) == KMX_OK && e.kind == KMX_EVENT_WAKE && e.handle == 0 &&
           e.ticks == 0 && e.reason == KM_REASON_NONE);
    EXPECT(kmx_poll(&e) == KMX_EMPTY);

    /* kept events come before the wake, the wake before the ring's next */
    uint32_t h2 = submit(8, 1, 0), h3 = submit(9, 2, 1), h4 = submit(10, 4, 0);
    EXPECT(kmx_wait(h3, 0, &e) == KMX_OK && e.ticks == 9); /* keeps h2, passes the wake */
    EXPECT(kmx_poll(&e) == KMX_OK && e.handle == h2);
    EXPECT(kmx_poll(&e) == KMX_OK && e.kind == KMX_EVENT_WAKE);
    int got = 0;
    for (int i = 0; i < 20 && !got; i++) {
        int s = kmx_poll(&e);
        if (s == KMX_OK) {
            EXPECT(e.handle == h4 && e.ticks == 10);
            got = 1;
        } else {
            EXPECT(s == KMX_EMPTY);
        }
    }
    EXPECT(got);
    return 0;
}

static void ring_wake_passed_over_and_polled(void **state) {
    (void)state;
    run(body_ring_wake);
    assert_int_equal(result.state, KMX_STATE_DONE);
}

static volatile int wait_status = -1;

static int body_ring_late(int core) {
    uint32_t h = submit(1, NEVER, 0);
    kmx_event e;
    uint64_t start = kmx_time();
    wait_status = kmx_wait(h, start + BH_TICKS_PER_SECOND / 50u, &e); /* 20 ms */
    EXPECT(wait_status == KMX_LATE);
    EXPECT(kmx_time() - start >= BH_TICKS_PER_SECOND / 50u);
    EXPECT(!kmx_stop_requested()); /* the call's deadline, not the thread's */
    return 0;
}

static void ring_wait_deadline_is_late(void **state) {
    (void)state;
    run(body_ring_late);
    assert_int_equal(result.state, KMX_STATE_LATE);
    assert_true(f.steps > 0);
}

static int body_ring_thread_deadline(int core) {
    uint32_t h = submit(1, NEVER, 0);
    kmx_event e;
    EXPECT(kmx_wait(h, 0, &e) == KMX_LATE); /* 0: the thread's deadline only */
    EXPECT(kmx_submit(&(km_command_t){.hdr = 1, .group = KM_GROUP(0, 1)}, &h) == KMX_LATE);
    return 0;
}

static void ring_wait_thread_deadline(void **state) {
    (void)state;
    args.deadline = BH_TICKS_PER_SECOND / 50u;
    run(body_ring_thread_deadline);
    assert_int_equal(result.state, KMX_STATE_LATE);
}

static int body_ring_stop(int core) {
    uint32_t h = submit(1, NEVER, 0);
    kmx_event e;
    EXPECT(kmx_wait(h, 0, &e) == KMX_STOPPED);
    EXPECT(f.steps == 10);
    EXPECT(kmx_stop_requested());
    km_command_t c = {.hdr = KM_HANDLER_NOP, .group = KM_GROUP(0, 1)};
    EXPECT(kmx_submit(&c, &h) == KMX_STOPPED);
    return 0;
}

static void ring_wait_stop_is_stopped(void **state) {
    (void)state;
    f.stop_at_step = 10;
    run(body_ring_stop);
    assert_int_equal(result.state, KMX_STATE_STOPPED);
    assert_int_equal(result.error, KMX_ERROR_NONE);
}

static int body_ring_submit_full(int core) {
    km_command_t c = {.hdr = KM_HANDLER_NOP, .group = KM_GROUP(0, 1), .a1 = 2};
    uint32_t h = 0;
    EXPECT(kmx_submit(&c, &h) == KMX_OK && h == 1);
    EXPECT(kmx_submit(&c, &h) == KMX_OK && h == 2);
    uint32_t steps = f.steps;
    EXPECT(kmx_submit(&c, &h) == KMX_FULL);
    EXPECT(f.steps == steps + 1); /* the kernel moved on */
    int tries = 0;
    while (kmx_submit(&c, &h) == KMX_FULL && tries < 100) {
        tries++;
    }
    EXPECT(h == 3 && tries < 100);
    return 0;
}

static void ring_submit_full_steps(void **state) {
    (void)state;
    f.capacity = 2;
    run(body_ring_submit_full);
    assert_int_equal(result.state, KMX_STATE_DONE);
}

static volatile int worker_ring[4];

static void ring_from_worker(int core, void *arg) {
    (void)arg;
    kmx_event e;
    uint32_t h;
    km_command_t c = {.hdr = KM_HANDLER_NOP, .group = KM_GROUP(0, 1)};
    worker_ring[0] = kmx_submit(&c, &h);
    worker_ring[1] = kmx_poll(&e);
    worker_ring[2] = kmx_wait(1, 0, &e);
    worker_ring[3] = 0;
}

static int body_ring_core1(int core) {
    EXPECT(kmx_spawn(1, ring_from_worker, NULL) == KMX_OK);
    int s = kmx_join(1);
    EXPECT(s == KMX_OK || s == KMX_STOPPED);
    wait_set(&worker_ring[3]);
    EXPECT(worker_ring[0] == KMX_STOPPED && worker_ring[1] == KMX_STOPPED &&
           worker_ring[2] == KMX_STOPPED);
    return 0;
}

static void ring_from_core1_is_parallel_error(void **state) {
    (void)state;
    worker_ring[3] = -1;
    run(body_ring_core1);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_PARALLEL);
    assert_int_equal(result.error_core, 1);
    assert_int_equal(f.submitted, 0);
}

static int body_no_ring(int core) {
    km_command_t c = {.hdr = KM_HANDLER_NOP, .group = KM_GROUP(0, 1)};
    uint32_t h;
    kmx_event e;
    EXPECT(kmx_submit(&c, &h) == KMX_BAD);
    EXPECT(kmx_wait(1, 0, &e) == KMX_BAD);
    EXPECT(kmx_poll(&e) == KMX_BAD);
    return 0;
}

static void no_ring_is_bad(void **state) {
    (void)state;
    args.ring.kind = KMX_RING_NONE;
    run(body_no_ring);
    assert_int_equal(result.state, KMX_STATE_DONE);
    assert_int_equal(f.submitted, 0);
}

/* ---- what the fallback cannot honour -------------------------------------- */

static int body_unsupported(int core) {
    EXPECT(kmx_port_open() == 0);
    EXPECT(kmx_stop_requested());
    EXPECT(kmx_port_cores() == 0);
    EXPECT(kmx_port_owner(3) == -1);
    EXPECT(kmx_port_tell(0, 1, 2, 3) == KMX_STOPPED);
    EXPECT(kmx_pull_run(NULL, NULL, NULL) == KMX_STOPPED);
    EXPECT(kmx_spawn(1, note_core, NULL) == KMX_STOPPED);
    return 0;
}

static void unsupported_call_is_host_error(void **state) {
    (void)state;
    run(body_unsupported);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_HOST);
    assert_int_equal(result.error_core, 0);
    assert_int_equal(f.unsupported_calls, 1);
    assert_string_equal(f.unsupported_name, "kmx_port_open");
}

static void pull_from_worker(int core, void *arg) {
    (void)arg;
    nested_status = kmx_pull_run(NULL, NULL, NULL);
}

static int body_unsupported_core1(int core) {
    EXPECT(kmx_spawn(2, pull_from_worker, NULL) == KMX_OK);
    int s = kmx_join(2);
    EXPECT(s == KMX_OK || s == KMX_STOPPED);
    wait_set(&nested_status);
    EXPECT(nested_status == KMX_STOPPED);
    return 0;
}

static void unsupported_core0_call_from_core2_is_parallel_error(void **state) {
    (void)state;
    nested_status = -1;
    run(body_unsupported_core1);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_PARALLEL);
    assert_int_equal(result.error_core, 2);
    assert_int_equal(f.unsupported_calls, 0);
}

static int body_every_unsupported(int core) {
    kmx_message m;
    EXPECT(kmx_port_tell(0, 1, 2, 3) == KMX_STOPPED);
    EXPECT(kmx_port_asked(0, &m) == KMX_STOPPED);
    EXPECT(kmx_port_answer(0, 1, 2, 3, 4) == KMX_STOPPED);
    EXPECT(kmx_port_told(0, &m, 0) == KMX_STOPPED);
    EXPECT(kmx_port_run(NULL, NULL, 0, NULL) == KMX_STOPPED);
    EXPECT(kmx_pull_run(NULL, NULL, NULL) == KMX_STOPPED);
    return 0;
}

static void every_unsupported_call(void **state) {
    (void)state;
    run(body_every_unsupported);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_HOST);
    assert_int_equal(f.unsupported_calls, 1);
    assert_string_equal(f.unsupported_name, "kmx_port_tell");
}

/* ---- twelve cores, against the fake bus ----------------------------------- */

static uint32_t marks[BH_CLUSTER_CORES];
static volatile int ran_all;

/* A function's offset from the object's base, as it crosses the bus. */
static uint64_t offset_of(void *function) {
    Dl_info info;
    if (dladdr(function, &info) == 0 || info.dli_fbase == NULL) {
        return 0;
    }
    return (uint64_t)((uintptr_t)function - (uintptr_t)info.dli_fbase);
}

static void mark_all(int cluster, int core, uint64_t arg) {
    marks[core] = (uint32_t)arg * 100u + (uint32_t)cluster * 10u + (uint32_t)core;
    ran_all = 1;
}

/* Clusters 1-3 run the image; this one is `self`, the lead 1. */
static void three_clusters(uint32_t self) {
    args.cluster = self;
    ctx.cluster = self;
    args.clusters = (1u << 1) | (1u << 2) | (1u << 3);
    args.bank = self == 1 ? 6u : 7u;
    for (uint32_t i = 0; i < REGIONS; i++) {
        args.regions[i].bank = args.bank;
    }
    for (uint32_t c = 0; c < BH_WORK_CLUSTERS; c++) {
        args.peers[c].present = 1;
    }
    memset(marks, 0, sizeof marks);
    ran_all = 0;
}

static int body_lead(int core) {
    EXPECT(kmx_serve() == KMX_BAD);
    EXPECT(kmx_parallel_all(NULL, 0) == KMX_BAD);
    EXPECT(kmx_parallel_all(mark_all, 4) == KMX_OK);
    for (uint32_t c = 0; c < BH_CLUSTER_CORES; c++) {
        EXPECT(marks[c] == 410u + c);
    }
    pthread_mutex_lock(&f.lock);
    f.done_status = KMX_FULL; /* another cluster's cores were busy */
    pthread_mutex_unlock(&f.lock);
    EXPECT(kmx_parallel_all(mark_all, 5) == KMX_FULL);
    EXPECT(marks[3] == 513u);
    return 0;
}

static void parallel_all_posts_runs_here_and_ends(void **state) {
    (void)state;
    three_clusters(1);
    f.serving = (1u << 2) | (1u << 3);
    run(body_lead);
    assert_int_equal(result.state, KMX_STATE_DONE);
    assert_int_equal(f.nposts, 6);
    uint64_t offset = offset_of((void *)mark_all);
    assert_true(offset != 0);
    for (int i = 0; i < 6; i++) {
        const kmx_host_call *c = &f.posts[i].call;
        assert_int_equal(f.posts[i].cluster, 2u + (uint32_t)(i % 2));
        assert_int_equal(c->sequence, 1u + (uint32_t)(i / 2));
        if (i < 4) {
            assert_int_equal(c->op, KMX_CLUSTER_CALL);
            assert_true(c->function == offset);
            assert_true(c->arg == 4u + (uint64_t)(i / 2));
        } else {
            assert_int_equal(c->op, KMX_CLUSTER_END); /* kmx_main returned */
        }
    }
}

static int body_lead_late(int core) {
    EXPECT(kmx_parallel_all(mark_all, 1) == KMX_LATE);
    EXPECT(ran_all == 0);
    EXPECT(kmx_push(3, 0, 0, region_mem[0], 64) == KMX_LATE); /* 3 never serves */
    return 0;
}

static void parallel_all_waits_for_serving_until_deadline(void **state) {
    (void)state;
    three_clusters(1);
    f.serving = 1u << 2;
    args.deadline = BH_TICKS_PER_SECOND / 100u; /* 10 ms */
    run(body_lead_late);
    assert_int_equal(result.state, KMX_STATE_LATE);
    assert_int_equal(f.npushes, 0);
    assert_int_equal(f.nposts, 2); /* the END only, serving or not */
    assert_int_equal(f.posts[0].call.op, KMX_CLUSTER_END);
    assert_int_equal(f.posts[0].call.sequence, 1);
}

static void call_all_from_worker(int core, void *arg) {
    (void)arg;
    nested_status = kmx_parallel_all(mark_all, 0);
}

static int body_all_core1(int core) {
    EXPECT(kmx_spawn(1, call_all_from_worker, NULL) == KMX_OK);
    int s = kmx_join(1);
    EXPECT(s == KMX_OK || s == KMX_STOPPED);
    wait_set(&nested_status);
    EXPECT(nested_status == KMX_STOPPED);
    EXPECT(kmx_serve() == KMX_BAD); /* the lead: bad before the stop */
    return 0;
}

static void parallel_all_from_core1_is_parallel_error(void **state) {
    (void)state;
    three_clusters(1);
    f.serving = (1u << 2) | (1u << 3);
    nested_status = -1;
    run(body_all_core1);
    assert_int_equal(result.state, KMX_STATE_FAILED);
    assert_int_equal(result.error, KMX_ERROR_PARALLEL);
    assert_int_equal(result.error_core, 1);
    assert_int_equal(f.unsupported_calls, 0);
    assert_false(ran_all);
}

static void serve_fn(int cluster, int core, uint64_t arg) {
    mark_all(cluster, core, arg);
    if (core == 2) {
        nested_status = kmx_push(1, 0, 64, region_mem[0], 64); /* inside a call */
    }
}

static int body_server(int core) {
    uint32_t word = 0xABu;
    memcpy(region_mem[0], &word, sizeof word);
    EXPECT(kmx_push(1, 0, 0, region_mem[0], 64) == KMX_BAD); /* not inside a call */
    EXPECT(kmx_parallel_all(mark_all, 0) == KMX_BAD);
    EXPECT(kmx_serve() == KMX_OK);
    EXPECT(kmx_serve() == KMX_OK); /* after the END: at once */
    for (uint32_t c = 0; c < BH_CLUSTER_CORES; c++) {
        EXPECT(marks[c] == 920u + c);
    }
    EXPECT(nested_status == KMX_OK);
    EXPECT(kmx_push(1, 0, 0, region_mem[0], 64) == KMX_BAD);
    EXPECT(kmx_push(2, 0, 0, region_mem[0], 32) == KMX_BAD);
    return 0;
}

static void serve_runs_calls_until_end(void **state) {
    (void)state;
    three_clusters(2);
    nested_status = -1;
    uint64_t offset = offset_of((void *)serve_fn);
    assert_true(offset != 0);
    f.script[0] = (kmx_host_call){offset, 9, 1, KMX_CLUSTER_CALL, 0};
    f.script[1] = (kmx_host_call){0, 0, 2, KMX_CLUSTER_CALL, 0}; /* no function */
    f.script[2] = (kmx_host_call){offset, 9, 3, 7, 0};          /* no such op */
    f.script[3] = (kmx_host_call){0, 0, 4, KMX_CLUSTER_END, 0};
    f.nscript = 4;
    run(body_server);
    assert_int_equal(result.state, KMX_STATE_DONE);
    assert_int_equal(f.serve_begins, 1);
    assert_int_equal(f.ndones, 3);
    assert_int_equal(f.dones[0].sequence, 1);
    assert_int_equal(f.dones[0].status, KMX_OK);
    assert_int_equal(f.dones[1].sequence, 2);
    assert_int_equal(f.dones[1].status, KMX_BAD);
    assert_int_equal(f.dones[2].sequence, 3);
    assert_int_equal(f.dones[2].status, KMX_BAD);
    assert_int_equal(f.npushes, 1);
    assert_int_equal(f.pushes[0].cluster, 1);
    assert_int_equal(f.pushes[0].id, 0);
    assert_int_equal(f.pushes[0].offset, 64);
    assert_int_equal(f.pushes[0].bytes, 64);
    assert_int_equal(f.pushes[0].first, 0xAB);
    assert_int_equal(f.nposts, 0); /* not the lead: no END */
}

static int body_serve_late(int core) {
    EXPECT(kmx_serve() == KMX_LATE);
    return 0;
}

static void serve_ends_at_deadline(void **state) {
    (void)state;
    three_clusters(3);
    args.deadline = BH_TICKS_PER_SECOND / 100u; /* 10 ms, and no call comes */
    run(body_serve_late);
    assert_int_equal(result.state, KMX_STATE_LATE);
    assert_int_equal(f.serve_begins, 1);
    assert_int_equal(f.ndones, 0);
}

static int body_fault_core0(int core) {
    uint64_t bytes;
    uint32_t *r0 = kmx_region(0, &bytes);
    r0[0] = 42; /* written before the fault: flushed at the end all the same */
    kmx_progress(5);
    fake_fault(0);
    return 0; /* never reached */
}

static void fault_on_core0_traps(void **state) {
    (void)state;
    run(body_fault_core0);
    assert_int_equal(result.state, KMX_STATE_TRAPPED);
    assert_int_equal(result.error, KMX_ERROR_TRAP);
    assert_int_equal(result.error_detail, KMX_HOST_TRAP_CAUSE(SIGSEGV));
    assert_int_equal(result.traps, 1);
    assert_int_equal(result.trap_core, 0);
    assert_int_equal(result.where, 5);
    assert_true(trap_arms >= 1);
}

static void fault_in_worker(int core, void *arg) {
    (void)arg;
    if (core == 2) {
        fake_fault(2);
    }
}

static int body_fault_core2(int core) {
    int s = kmx_parallel(fault_in_worker, NULL);
    EXPECT(s == KMX_OK || s == KMX_STOPPED);
    EXPECT(kmx_stop_requested());
    return 9;
}

static void fault_on_core2_traps_and_stops(void **state) {
    (void)state;
    run(body_fault_core2);
    assert_int_equal(result.state, KMX_STATE_TRAPPED);
    assert_int_equal(result.error, KMX_ERROR_TRAP);
    assert_int_equal(result.error_core, 2);
    assert_int_equal(result.trap_core, 2);
    assert_int_equal(result.code, 9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(fault_on_core0_traps, setup, teardown),
        cmocka_unit_test_setup_teardown(fault_on_core2_traps_and_stops, setup, teardown),
        cmocka_unit_test_setup_teardown(ctx_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_args_fail, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_region_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(basics_and_done, setup, teardown),
        cmocka_unit_test_setup_teardown(progress_and_result, setup, teardown),
        cmocka_unit_test_setup_teardown(spawn_join_parallel, setup, teardown),
        cmocka_unit_test_setup_teardown(spawn_from_core1_is_parallel_error, setup, teardown),
        cmocka_unit_test_setup_teardown(core0_call_inside_parallel_is_parallel_error, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(join_ends_at_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(join_ends_at_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(flush_invalidate_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(ring_wait_keeps_others_for_poll, setup, teardown),
        cmocka_unit_test_setup_teardown(ring_keep_full, setup, teardown),
        cmocka_unit_test_setup_teardown(ring_wake_passed_over_and_polled, setup, teardown),
        cmocka_unit_test_setup_teardown(ring_wait_deadline_is_late, setup, teardown),
        cmocka_unit_test_setup_teardown(ring_wait_thread_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown(ring_wait_stop_is_stopped, setup, teardown),
        cmocka_unit_test_setup_teardown(ring_submit_full_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(ring_from_core1_is_parallel_error, setup, teardown),
        cmocka_unit_test_setup_teardown(no_ring_is_bad, setup, teardown),
        cmocka_unit_test_setup_teardown(unsupported_call_is_host_error, setup, teardown),
        cmocka_unit_test_setup_teardown(unsupported_core0_call_from_core2_is_parallel_error,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(every_unsupported_call, setup, teardown),
        cmocka_unit_test_setup_teardown(parallel_all_posts_runs_here_and_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(parallel_all_waits_for_serving_until_deadline, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(parallel_all_from_core1_is_parallel_error, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(serve_runs_calls_until_end, setup, teardown),
        cmocka_unit_test_setup_teardown(serve_ends_at_deadline, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
