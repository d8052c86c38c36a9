/* Tests for the run driver (lib/run/km_driver.c) with a fake backend, the way
 * ninja tests its builder with a fake command runner: each fake thread
 * follows a script on modeled time (progress markers, an end, how it
 * answers a stop), and the tests check what the driver makes of it —
 * states, stops asked and when, stuck and its message, the wall timeout,
 * progress reports, host-fed commands that keep the run going, a kernel
 * fault that stops it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "blackhole.h"
#include "km_driver.h"

#define US BH_PS_PER_US
#define PS_PER_TICK (BH_PS_PER_SECOND / BH_TICKS_PER_SECOND)
#define NEVER UINT64_MAX

typedef struct fake_thread {
    /* The script. */
    uint64_t end_ps;     /* ends by itself then (NEVER: runs on) */
    uint32_t end_state;  /* KMX_STATE_* it ends in */
    bool honours_stop;   /* a stop ends it, stop_lag_ps later, stopped */
    uint64_t stop_lag_ps;
    uint64_t marker_ps[4]; /* progress marker k + 1 at marker_ps[k] (0: none) */
    uint64_t delay_ps;   /* the backend's stop delay after another's failure */
    uint64_t end_late_ps; /* its end is written this much after the look that sees it */
    uint64_t call_end_ps[4]; /* core k (1-3) runs a call until then (0: none; NEVER) */
    /* What the driver did to it. */
    bool stop_asked;
    uint64_t stop_asked_ps;
    unsigned described, retired;
    bool retired_stuck;
    kmx_result_block block;
} fake_thread;

typedef struct fake {
    uint64_t now;
    fake_thread t[3];
    unsigned n;
    unsigned pending_commands_until_us; /* commands_pending until then */
    uint64_t kernel_fault_ps; /* a handler is taken out then (0: never) */
    uint64_t fault_wait_ps;   /* the look that finds it waits this long (own clock) */
    bool kernel_stopped;
    uint64_t kernel_stopped_ps;
    /* Progress reports seen. */
    unsigned nprogress;
    uint32_t progress_where[16];
    uint64_t progress_ticks[16];
} fake;

static void settle(fake *f, fake_thread *t)
{
    kmx_result_block *b = &t->block;
    if (KMX_STATE_FINAL(b->state))
        return;
    b->state = KMX_STATE_RUNNING;
    for (unsigned k = 0; k < 4; k++) {
        if (t->marker_ps[k] && t->marker_ps[k] <= f->now) {
            b->where = k + 1;
            b->where_ticks = t->marker_ps[k] / PS_PER_TICK;
        }
    }
    uint64_t end = t->end_ps;
    uint32_t state = t->end_state;
    if (t->stop_asked && t->honours_stop && t->stop_asked_ps + t->stop_lag_ps < end) {
        end = t->stop_asked_ps + t->stop_lag_ps;
        state = KMX_STATE_STOPPED;
    }
    if (end <= f->now) {
        b->state = state;
        b->end_ticks = (end + t->end_late_ps) / PS_PER_TICK;
        b->code = 7;
    }
}

static void advance(void *ctx, uint64_t until_ps)
{
    fake *f = ctx;
    f->now = until_ps;
    for (unsigned i = 0; i < f->n; i++)
        settle(f, &f->t[i]);
}

static bool busy(void *ctx)
{
    fake *f = ctx;
    for (unsigned i = 0; i < f->n; i++) {
        if (!KMX_STATE_FINAL(f->t[i].block.state) && f->t[i].end_ps != NEVER)
            return true;
        for (unsigned k = 1; k < 4; k++) /* a call that will return */
            if (f->t[i].call_end_ps[k] > f->now && f->t[i].call_end_ps[k] != NEVER)
                return true;
    }
    return false;
}

static bool commands_pending(void *ctx)
{
    fake *f = ctx;
    return f->now < f->pending_commands_until_us * US;
}

static void stop_kernel(void *ctx)
{
    fake *f = ctx;
    if (!f->kernel_stopped)
        f->kernel_stopped_ps = f->now;
    f->kernel_stopped = true;
}

static unsigned kernel_faults(void *ctx)
{
    fake *f = ctx;
    if (f->fault_wait_ps && f->now + f->fault_wait_ps >= f->kernel_fault_ps) {
        /* The host backend's look waits on its lock while the handler
         * spins, until the watchdog takes the core out. */
        f->now = f->kernel_fault_ps;
        f->fault_wait_ps = 0;
        for (unsigned i = 0; i < f->n; i++)
            settle(f, &f->t[i]);
    }
    return f->kernel_fault_ps && f->now >= f->kernel_fault_ps ? 1u : 0u;
}

static uint64_t own_now(void *ctx)
{
    fake *f = ctx;
    return f->now;
}

static int read_block(void *ctx, unsigned i, kmx_result_block *out, km_error *err)
{
    fake *f = ctx;
    (void)err;
    *out = f->t[i].block;
    return KM_OK;
}

static void ask_stop(void *ctx, unsigned i)
{
    fake *f = ctx;
    assert_false(f->t[i].stop_asked); /* the driver asks once */
    f->t[i].stop_asked = true;
    f->t[i].stop_asked_ps = f->now;
}

static uint64_t stop_delay_ps(void *ctx, unsigned i)
{
    fake *f = ctx;
    return f->t[i].delay_ps;
}

static void describe(void *ctx, unsigned i, km_thread_result *r)
{
    fake *f = ctx;
    f->t[i].described++;
    (void)r;
}

static void locate(void *ctx, unsigned i, km_driver_where *w)
{
    (void)ctx;
    (void)i;
    w->core = 2;
    w->pc_known = true;
    w->pc = 0x8000123;
    w->running = true;
    w->source.known = true;
    snprintf(w->source.file, sizeof w->source.file, "thread/spin.c");
    w->source.line = 12;
}

static bool in_call(void *ctx, unsigned i, unsigned core)
{
    fake *f = ctx;
    assert_true(core >= 1 && core < 4);
    return f->t[i].call_end_ps[core] > f->now;
}

static void locate_core(void *ctx, unsigned i, unsigned core, km_driver_where *w)
{
    (void)ctx;
    (void)i;
    w->core = core;
    w->pc_known = true;
    w->pc = 0x8000100 + core;
    w->running = true;
    w->source.known = true;
    snprintf(w->source.file, sizeof w->source.file, "thread/core%u.c", core);
    w->source.line = 10 + core;
}

static void retire(void *ctx, unsigned i, bool stuck)
{
    fake *f = ctx;
    f->t[i].retired++;
    f->t[i].retired_stuck = stuck;
}

static void finish(void *ctx, km_run_result *r)
{
    (void)ctx;
    r->instructions = 99;
}

static void on_progress(int cluster, uint32_t where, uint64_t ticks, void *ctx)
{
    fake *f = ctx;
    (void)cluster;
    if (f->nprogress < 16) {
        f->progress_where[f->nprogress] = where;
        f->progress_ticks[f->nprogress] = ticks;
    }
    f->nprogress++;
}

static km_driver_hooks hooks(fake *f)
{
    return (km_driver_hooks){
        .ctx = f,
        .modeled = true,
        .slice_ps = US,
        .advance = advance,
        .busy = busy,
        .commands_pending = commands_pending,
        .stop_kernel = stop_kernel,
        .read_block = read_block,
        .ask_stop = ask_stop,
        .stop_delay_ps = stop_delay_ps,
        .describe = describe,
        .locate = locate,
        .retire = retire,
        .kernel_faults = kernel_faults,
        .finish = finish,
    };
}

static const int clusters[3] = {1, 2, 3};

static int drive(fake *f, const km_run_opts *o, uint64_t timeout_ps, km_run_result *r,
                 km_error *err)
{
    km_driver_hooks h = hooks(f);
    memset(r, 0, sizeof *r);
    return km_drive(&h, clusters, f->n, o, timeout_ps, 1000000 * US, r, err);
}

static fake_thread ends(uint64_t at_ps, uint32_t state)
{
    return (fake_thread){.end_ps = at_ps, .end_state = state, .honours_stop = true,
                         .stop_lag_ps = 2 * US};
}

static void a_thread_that_returns_is_returned_and_covered_by_device_time(void **state)
{
    (void)state;
    fake f = {.n = 1};
    f.t[0] = ends(5 * US + 500000, KMX_STATE_DONE);
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, NULL, 100 * US, &r, &err), KM_OK);
    assert_int_equal(r.nthreads, 1);
    assert_int_equal(r.threads[0].state, KM_STATE_RETURNED);
    assert_int_equal(r.threads[0].cluster, 1);
    assert_true(r.threads[0].has_code);
    assert_int_equal(r.threads[0].code, 7);
    /* Seen at the first look after its end: the slice boundary 6 us. */
    assert_int_equal(r.device_ps, 6 * US);
    assert_true(r.device_ps >= r.threads[0].ticks * PS_PER_TICK);
    assert_false(f.t[0].stop_asked);
    assert_int_equal(f.t[0].described, 1);
    assert_int_equal(f.t[0].retired, 1);
    assert_false(f.t[0].retired_stuck);
    assert_int_equal(r.instructions, 99);
    assert_false(r.host_times);
    assert_true(f.kernel_stopped); /* the run's end stops the kernel */
}

/* A backend whose look comes before a core's end (it ran a little past
 * the look): the device time still covers the thread's. */
static void device_time_covers_an_end_past_the_last_look(void **state)
{
    (void)state;
    fake f = {.n = 1};
    f.t[0] = ends(3 * US, KMX_STATE_DONE);
    km_run_result r;
    km_error err = {0};
    f.t[0].end_late_ps = 700000;
    assert_int_equal(drive(&f, NULL, 100 * US, &r, &err), KM_OK);
    assert_true(r.device_ps >= 3 * US + 700000);
}

static void a_thread_running_at_the_timeout_is_asked_to_stop(void **state)
{
    (void)state;
    fake f = {.n = 1};
    f.t[0] = ends(NEVER, KMX_STATE_DONE);
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, NULL, 40 * US, &r, &err), KM_OK);
    assert_true(f.t[0].stop_asked);
    /* Nothing can change before the timeout: time jumps to it. */
    assert_int_equal(f.t[0].stop_asked_ps, 40 * US);
    assert_int_equal(f.kernel_stopped_ps, 40 * US);
    assert_int_equal(r.threads[0].state, KM_STATE_STOPPED);
}

static void a_thread_that_ignores_the_stop_is_stuck_with_its_line(void **state)
{
    (void)state;
    fake f = {.n = 2};
    f.t[0] = ends(NEVER, KMX_STATE_DONE);
    f.t[0].honours_stop = false;
    f.t[1] = ends(NEVER, KMX_STATE_DONE);
    f.t[1].stop_lag_ps = 5 * US;
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, NULL, 10 * US, &r, &err), KM_OK);
    const km_thread_result *t = &r.threads[0];
    assert_int_equal(t->state, KM_STATE_STUCK);
    assert_true(t->stuck);
    assert_false(t->has_code);
    assert_int_equal(t->stuck_info.core, 2);
    assert_int_equal(t->stuck_info.pc, 0x8000123);
    assert_string_equal(t->stuck_info.detail,
                        "core 2 did not return within 1 s of the stop flag: it still runs at pc "
                        "0x8000123 (thread/spin.c:12), in a loop that never polls the stop "
                        "(kmx_stop_requested); the cluster needs a reset");
    assert_true(f.t[0].retired_stuck);
    /* The grace is counted from the stop: stuck 1 s after the timeout. */
    assert_int_equal(r.device_ps, 10 * US + BH_PS_PER_SECOND);
    assert_int_equal(r.threads[1].state, KM_STATE_STOPPED);
}

/* Where each core is, and which still run a call (km_driver.h, "Stopped"). */
static int drive_cores(fake *f, uint64_t timeout_ps, km_run_result *r, km_error *err)
{
    km_driver_hooks h = hooks(f);
    h.locate = NULL;
    h.in_call = in_call;
    h.locate_core = locate_core;
    memset(r, 0, sizeof *r);
    return km_drive(&h, clusters, f->n, NULL, timeout_ps, 1000000 * US, r, err);
}

/* Core 0 gives up on a worker at the deadline and writes `late`: the
 * worker still runs, so the thread is asked to stop and, a grace later,
 * is stuck, naming that core. */
static void a_final_state_with_a_core_still_in_its_call_is_stuck_naming_that_core(void **state)
{
    (void)state;
    fake f = {.n = 2};
    f.t[0] = ends(100 * US, KMX_STATE_LATE);
    f.t[0].call_end_ps[2] = NEVER;
    f.t[1] = ends(NEVER, KMX_STATE_DONE);
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive_cores(&f, 10 * BH_PS_PER_SECOND, &r, &err), KM_OK);
    const km_thread_result *t = &r.threads[0];
    /* Asked to stop when its final state was seen, stuck a grace later. */
    assert_true(f.t[0].stop_asked);
    assert_int_equal(f.t[0].stop_asked_ps, 100 * US);
    assert_int_equal(t->state, KM_STATE_STUCK);
    assert_false(t->has_code);
    assert_false(t->has_ticks);
    assert_int_equal(t->stuck_info.core, 2);
    assert_int_equal(t->stuck_info.pc, 0x8000102);
    assert_int_equal(t->stuck_info.ncores, 1);
    assert_int_equal(t->stuck_info.cores[0].core, 2);
    assert_string_equal(t->stuck_info.detail,
                        "core 2 did not return within 1 s of the stop flag: it still runs at pc "
                        "0x8000102 (thread/core2.c:12), in a loop that never polls the stop "
                        "(kmx_stop_requested); the cluster needs a reset");
    /* Retired once, stuck: not when its final state was seen. */
    assert_int_equal(f.t[0].retired, 1);
    assert_true(f.t[0].retired_stuck);
    /* A late thread does not stop the others; a stuck one does, when it
     * is found stuck. */
    assert_int_equal(f.t[1].stop_asked_ps, 100 * US + BH_PS_PER_SECOND);
    assert_int_equal(r.threads[1].state, KM_STATE_STOPPED);
}

/* A worker that returns within the grace: the final state stands, and
 * the thread is retired once its cores have stopped. */
static void a_core_that_returns_within_the_grace_leaves_the_final_state(void **state)
{
    (void)state;
    fake f = {.n = 1};
    f.t[0] = ends(100 * US, KMX_STATE_LATE);
    f.t[0].call_end_ps[1] = 300 * US;
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive_cores(&f, 10 * BH_PS_PER_SECOND, &r, &err), KM_OK);
    assert_int_equal(r.threads[0].state, KM_STATE_LATE);
    assert_true(r.threads[0].has_code);
    assert_false(r.threads[0].stuck);
    assert_int_equal(f.t[0].retired, 1);
    assert_false(f.t[0].retired_stuck);
    assert_int_equal(r.device_ps, 300 * US);
}

/* Core 0 and two workers never return: every core is listed, core 0
 * named; the others follow in the sentence. */
static void every_core_that_did_not_stop_is_listed_core_0_named(void **state)
{
    (void)state;
    fake f = {.n = 1};
    f.t[0] = ends(NEVER, KMX_STATE_DONE);
    f.t[0].honours_stop = false;
    f.t[0].call_end_ps[1] = NEVER;
    f.t[0].call_end_ps[3] = NEVER;
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive_cores(&f, 10 * US, &r, &err), KM_OK);
    const km_stuck_info *s = &r.threads[0].stuck_info;
    assert_int_equal(r.threads[0].state, KM_STATE_STUCK);
    assert_int_equal(s->core, 0);
    assert_int_equal(s->ncores, 3);
    assert_int_equal(s->cores[0].core, 0);
    assert_int_equal(s->cores[1].core, 1);
    assert_int_equal(s->cores[2].core, 3);
    assert_int_equal(s->cores[2].source.line, 13);
    assert_string_equal(s->detail,
                        "core 0 did not return within 1 s of the stop flag: it still runs at pc "
                        "0x8000100 (thread/core0.c:10), in a loop that never polls the stop "
                        "(kmx_stop_requested); core 1 did not return either: it still runs at "
                        "pc 0x8000101 (thread/core1.c:11); core 3 did not return either: it "
                        "still runs at pc 0x8000103 (thread/core3.c:13); the cluster needs a "
                        "reset");
}

static void a_failure_stops_the_others_at_once(void **state)
{
    (void)state;
    fake f = {.n = 3};
    f.t[0] = ends(NEVER, KMX_STATE_DONE);
    f.t[1] = ends(3 * US, KMX_STATE_TRAPPED);
    f.t[2] = ends(2 * US, KMX_STATE_DONE);
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, NULL, 1000 * US, &r, &err), KM_OK);
    assert_int_equal(r.threads[1].state, KM_STATE_TRAPPED);
    assert_true(f.t[0].stop_asked);
    assert_int_equal(f.t[0].stop_asked_ps, 3 * US);
    assert_int_equal(r.threads[0].state, KM_STATE_STOPPED);
    /* One that had already returned is left alone. */
    assert_false(f.t[2].stop_asked);
    assert_int_equal(r.threads[2].state, KM_STATE_RETURNED);
}

static void a_late_thread_does_not_stop_the_others(void **state)
{
    (void)state;
    fake f = {.n = 2};
    f.t[0] = ends(9 * US, KMX_STATE_DONE);
    f.t[1] = ends(3 * US, KMX_STATE_LATE);
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, NULL, 1000 * US, &r, &err), KM_OK);
    assert_int_equal(r.threads[1].state, KM_STATE_LATE);
    assert_false(f.t[0].stop_asked);
    assert_int_equal(r.threads[0].state, KM_STATE_RETURNED);
}

static void the_backend_may_delay_a_stop_after_another_failure(void **state)
{
    (void)state;
    fake f = {.n = 2};
    f.t[0] = ends(NEVER, KMX_STATE_DONE);
    f.t[0].delay_ps = 4 * US;
    f.t[1] = ends(3 * US, KMX_STATE_FAILED);
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, NULL, 1000 * US, &r, &err), KM_OK);
    assert_int_equal(f.t[0].stop_asked_ps, 7 * US);
}

static void progress_markers_are_reported_once_each(void **state)
{
    (void)state;
    fake f = {.n = 1};
    f.t[0] = ends(20 * US, KMX_STATE_DONE);
    f.t[0].marker_ps[0] = 2 * US + 300000;
    f.t[0].marker_ps[1] = 7 * US;
    km_run_opts o = {.progress = on_progress, .ctx = &f};
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, &o, 1000 * US, &r, &err), KM_OK);
    assert_int_equal(f.nprogress, 2);
    assert_int_equal(f.progress_where[0], 1);
    assert_int_equal(f.progress_ticks[0], (2 * US + 300000) / PS_PER_TICK);
    assert_int_equal(f.progress_where[1], 2);
    assert_int_equal(r.threads[0].where, 2);
}

static void pending_commands_keep_the_run_going_until_the_timeout(void **state)
{
    (void)state;
    fake f = {.n = 1, .pending_commands_until_us = 1000};
    f.t[0] = ends(2 * US, KMX_STATE_DONE);
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, NULL, 30 * US, &r, &err), KM_OK);
    assert_int_equal(r.device_ps, 30 * US);
    assert_int_equal(f.kernel_stopped_ps, 30 * US);
}

/* A Tensix handler taken out (a fault, an endless loop) fails the run:
 * the kernel stops and every thread still running is asked to stop at
 * once; host-fed commands are no longer waited for; a thread that had
 * returned keeps its result. */
static void a_kernel_fault_stops_the_kernel_and_every_thread(void **state)
{
    (void)state;
    fake f = {.n = 3, .pending_commands_until_us = 1000, .kernel_fault_ps = 5 * US};
    f.t[0] = ends(500 * US, KMX_STATE_DONE);
    f.t[1] = ends(600 * US, KMX_STATE_DONE);
    f.t[2] = ends(2 * US, KMX_STATE_DONE);
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, NULL, 900 * US, &r, &err), KM_OK);
    assert_true(f.kernel_stopped);
    assert_int_equal(f.kernel_stopped_ps, 5 * US);
    assert_int_equal(f.t[0].stop_asked_ps, 5 * US);
    assert_int_equal(f.t[1].stop_asked_ps, 5 * US);
    assert_false(f.t[2].stop_asked);
    assert_int_equal(r.threads[0].state, KM_STATE_STOPPED);
    assert_int_equal(r.threads[1].state, KM_STATE_STOPPED);
    assert_int_equal(r.threads[2].state, KM_STATE_RETURNED);
    /* Ended with the threads' stop, not at the timeout the commands held. */
    assert_int_equal(r.device_ps, 7 * US);
}

/* On a backend with its own clock a look may wait (the host backend's
 * lock, held by a handler spinning until the watchdog's second): the
 * stop it then asks gives the grace from the stop word's write, not from
 * before the wait (stop 36's CI: a thread blocked behind the spin was
 * called stuck 0.18 s after its stop). */
static void the_grace_counts_from_the_stop_word_after_a_look_that_waited(void **state)
{
    (void)state;
    fake f = {.n = 2, .pending_commands_until_us = 5000000, .kernel_fault_ps = 1000000 * US,
              .fault_wait_ps = 1000000 * US};
    f.t[0] = ends(NEVER, KMX_STATE_DONE);
    f.t[1] = ends(NEVER, KMX_STATE_DONE);
    f.t[1].stop_lag_ps = 600000 * US; /* within the grace, counted from the word */
    km_driver_hooks h = hooks(&f);
    h.modeled = false;
    h.now = own_now;
    km_run_result r;
    km_error err = {0};
    memset(&r, 0, sizeof r);
    assert_int_equal(km_drive(&h, clusters, f.n, NULL, 3000000 * US, 1000000 * US, &r, &err),
                     KM_OK);
    assert_int_equal(f.t[1].stop_asked_ps, 1000000 * US);
    assert_int_equal(r.threads[0].state, KM_STATE_STOPPED);
    assert_int_equal(r.threads[1].state, KM_STATE_STOPPED);
    assert_false(r.threads[1].stuck);
}

static void the_wall_timeout_gives_up_with_the_modeled_time(void **state)
{
    (void)state;
    fake f = {.n = 1};
    f.t[0] = ends(NEVER, KMX_STATE_DONE);
    f.t[0].honours_stop = false;
    km_run_opts o = {.wall_timeout_s = 1e-9};
    km_run_result r;
    km_error err = {0};
    assert_int_equal(drive(&f, &o, BH_PS_PER_SECOND, &r, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "the run took more than 1e-09 s of real time"));
    assert_non_null(strstr(err.message, "of modeled time"));
    assert_true(f.t[0].stop_asked);
}

static void a_block_that_is_not_this_runs_fails_its_thread_at_once(void **state)
{
    (void)state;
    fake f = {.n = 2};
    f.t[0] = ends(5 * US, KMX_STATE_DONE); /* running: the driver looks each slice */
    f.t[1] = ends(NEVER, KMX_STATE_DONE);
    km_driver_hooks h = hooks(&f);
    h.nonce = 0x1234; /* thread 0's block holds 0: overwritten */
    f.t[1].block.nonce = 0x1234;
    km_run_result r;
    km_error err = {0};
    memset(&r, 0, sizeof r);
    assert_int_equal(km_drive(&h, clusters, 2, NULL, 1000 * US, 1000 * US, &r, &err), KM_OK);
    assert_int_equal(r.threads[0].state, KM_STATE_FAILED);
    assert_non_null(strstr(r.threads[0].message, "result block was overwritten"));
    assert_false(r.threads[0].has_code);
    /* A failure: the other is asked to stop at that look. */
    assert_int_equal(f.t[1].stop_asked_ps, US);
    assert_int_equal(r.threads[1].state, KM_STATE_STOPPED);
}

static void more_threads_than_work_clusters_is_a_bug(void **state)
{
    (void)state;
    fake f = {.n = 1};
    f.t[0] = ends(NEVER, KMX_STATE_DONE);
    km_driver_hooks h = hooks(&f);
    h.start = NULL;
    km_run_result r;
    km_error err = {0};
    memset(&r, 0, sizeof r);
    assert_int_equal(km_drive(&h, clusters, 4, NULL, US, US, &r, &err), KM_EXIT_INTERNAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_thread_that_returns_is_returned_and_covered_by_device_time),
        cmocka_unit_test(device_time_covers_an_end_past_the_last_look),
        cmocka_unit_test(a_thread_running_at_the_timeout_is_asked_to_stop),
        cmocka_unit_test(a_thread_that_ignores_the_stop_is_stuck_with_its_line),
        cmocka_unit_test(a_final_state_with_a_core_still_in_its_call_is_stuck_naming_that_core),
        cmocka_unit_test(a_core_that_returns_within_the_grace_leaves_the_final_state),
        cmocka_unit_test(every_core_that_did_not_stop_is_listed_core_0_named),
        cmocka_unit_test(a_failure_stops_the_others_at_once),
        cmocka_unit_test(a_late_thread_does_not_stop_the_others),
        cmocka_unit_test(the_backend_may_delay_a_stop_after_another_failure),
        cmocka_unit_test(progress_markers_are_reported_once_each),
        cmocka_unit_test(pending_commands_keep_the_run_going_until_the_timeout),
        cmocka_unit_test(a_kernel_fault_stops_the_kernel_and_every_thread),
        cmocka_unit_test(the_grace_counts_from_the_stop_word_after_a_look_that_waited),
        cmocka_unit_test(the_wall_timeout_gives_up_with_the_modeled_time),
        cmocka_unit_test(a_block_that_is_not_this_runs_fails_its_thread_at_once),
        cmocka_unit_test(more_threads_than_work_clusters_is_a_bug),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
