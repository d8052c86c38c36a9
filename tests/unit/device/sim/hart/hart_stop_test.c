/* Tests for how a hart's run stops (device/sim/hart/sim_hart.c,
 * hart_idle.c): exactly at its limits, at probes and watches (which may
 * change registers), with values forwarded across stops, and idle loops
 * skipped exactly or refused (hart_program.h's harness). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hart_program.h"

typedef struct point {
    uint64_t pc, cycle, instret;
} point;

/* The reference: ref run an instruction a call (each costs at least a
 * cycle), with where it was before each; returns how many points. */
static size_t reference_trace(rig *ref, point **out)
{
    size_t cap = 1 << 14, n = 0;
    point *trace = malloc(cap * sizeof *trace);
    assert_non_null(trace);
    trace[n++] = (point){ref->h.pc, ref->h.cycle, ref->h.instret};
    while (sim_hart_run(&ref->h, ref->h.cycle + 1) == SIM_HART_RUNNING) {
        assert_true(n < cap);
        trace[n++] = (point){ref->h.pc, ref->h.cycle, ref->h.instret};
    }
    *out = trace;
    return n;
}

static void stops_exactly_at_limits(void **state)
{
    (void)state;
    rig *ref = rig_new(exact_program);
    point *trace;
    size_t n = reference_trace(ref, &trace);
    assert_int_equal(ref->h.x[8], 40); /* s0: every iteration ran */
    assert_true(ref->h.traps >= 5);

    static const unsigned quanta[] = {2, 3, 5, 7, 13, 29, 64, 100};
    for (size_t q = 0; q < sizeof quanta / sizeof quanta[0]; q++) {
        rig *r = rig_new(exact_program);
        uint64_t limit = 0;
        size_t at = 0;
        for (;;) {
            limit += quanta[q];
            if (sim_hart_run(&r->h, limit) != SIM_HART_RUNNING)
                break;
            while (at < n && trace[at].cycle < limit)
                at++;
            assert_true(at < n);
            if (r->h.pc != trace[at].pc || r->h.cycle != trace[at].cycle ||
                r->h.instret != trace[at].instret)
                print_message("quantum %u, limit %llu: at pc 0x%llx cycle %llu instret %llu, "
                              "expected pc 0x%llx cycle %llu instret %llu\n",
                              quanta[q], (unsigned long long)limit,
                              (unsigned long long)r->h.pc, (unsigned long long)r->h.cycle,
                              (unsigned long long)r->h.instret,
                              (unsigned long long)trace[at].pc,
                              (unsigned long long)trace[at].cycle,
                              (unsigned long long)trace[at].instret);
            assert_int_equal(r->h.pc, trace[at].pc);
            assert_int_equal(r->h.cycle, trace[at].cycle);
            assert_int_equal(r->h.instret, trace[at].instret);
        }
        assert_int_equal(r->h.cycle, ref->h.cycle);
        assert_int_equal(r->h.instret, ref->h.instret);
        assert_int_equal(r->h.mem_cycles, ref->h.mem_cycles);
        assert_int_equal(r->h.traps, ref->h.traps);
        assert_memory_equal(r->h.x, ref->h.x, sizeof r->h.x);
        rig_free(r);
    }
    free(trace);
    rig_free(ref);
}

/* Probes: called before each instruction at a probed pc, with the hart
 * as of its start, however it is reached (a jump, a fall from the
 * instruction before, a run's limit cutting just before it); they cost no
 * modeled time and may change registers. */
typedef struct probe_log {
    unsigned n;
    point at[256];
    uint64_t a0[256];
} probe_log;

static bool record_probe(void *ctx, sim_hart *h)
{
    probe_log *log = ctx;
    if (log->n < 256) {
        log->at[log->n] = (point){h->pc, h->cycle, h->instret};
        log->a0[log->n] = h->x[A0];
        log->n++;
    }
    return false;
}

static void probes_see_every_arrival(void **state)
{
    (void)state;
    rig *ref = rig_new(exact_program);
    point *trace;
    size_t n = reference_trace(ref, &trace);
    /* probe the loop's head (a jump target), the div (reached by falling
     * through) and the handler's mret */
    uint64_t pcs[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        uint32_t w;
        uint64_t off = trace[i].pc - RIG_CODE_BASE;
        memcpy(&w, ref->code + off, 4);
        if ((w & 0xfe00707f) == 0x02004033 && !pcs[1]) /* div */
            pcs[1] = trace[i].pc;
        if (w == 0x30200073) /* mret */
            pcs[2] = trace[i].pc;
    }
    pcs[0] = trace[10].pc; /* inside the first iteration: ld a0, 0(s10) */
    assert_true(pcs[1] && pcs[2]);

    static const unsigned quanta[] = {1000000, 3, 7, 64};
    for (size_t q = 0; q < sizeof quanta / sizeof quanta[0]; q++) {
        rig *r = rig_new(exact_program);
        probe_log log = {0};
        r->h.probe = record_probe;
        r->h.probe_ctx = &log;
        assert_int_equal(sim_hart_set_probes(&r->h, pcs, 3), 0);
        uint64_t limit = 0;
        do
            limit += quanta[q];
        while (sim_hart_run(&r->h, limit) == SIM_HART_RUNNING);
        /* the same run as without probes ... */
        assert_int_equal(r->h.cycle, ref->h.cycle);
        assert_int_equal(r->h.instret, ref->h.instret);
        assert_memory_equal(r->h.x, ref->h.x, sizeof r->h.x);
        /* ... and a probe exactly where the reference was at a probed pc */
        unsigned k = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            if (trace[i].pc != pcs[0] && trace[i].pc != pcs[1] && trace[i].pc != pcs[2])
                continue;
            assert_true(k < log.n);
            assert_int_equal(log.at[k].pc, trace[i].pc);
            assert_int_equal(log.at[k].cycle, trace[i].cycle);
            assert_int_equal(log.at[k].instret, trace[i].instret);
            k++;
        }
        assert_int_equal(k, log.n);
        assert_true(k > 40);
        rig_free(r);
    }
    free(trace);
    rig_free(ref);
}

static bool set_a0(void *ctx, sim_hart *h)
{
    (void)ctx;
    h->x[A0] = 77;
    return false;
}

static void probes_may_change_registers(void **state)
{
    (void)state;
    rig *r = rig_new("li a0, 1\n1: addi a1, a0, 1\nwfi");
    uint64_t at = 0;
    /* the addi: OP-IMM with rd = a1 */
    for (uint64_t off = 0; off < 64; off += 2) {
        uint32_t w;
        memcpy(&w, r->code + off, 4);
        if ((w & 0x7f) == 0x13 && ((w >> 7) & 31) == A1) {
            at = RIG_CODE_BASE + off;
            break;
        }
    }
    assert_true(at != 0);
    r->h.probe = set_a0;
    assert_int_equal(sim_hart_set_probes(&r->h, &at, 1), 0);
    run_hart(&r->h);
    assert_int_equal(r->h.x[A1], 78);
    rig_free(r);
}

/* Watches: called before each load or store that meets a watched range,
 * however it is reached (the RAM fast path included), with the hart at
 * that instruction; the run is the same as without. */
#define WATCH_LOG 128
typedef struct watch_log {
    unsigned n;
    uint64_t pc[WATCH_LOG];
    bool store[WATCH_LOG];
    uint64_t before[WATCH_LOG]; /* the watched word as the access found it */
    rig *r;
} watch_log;

static bool record_watch(void *ctx, sim_hart *h, unsigned index, bool store)
{
    watch_log *log = ctx;
    assert_int_equal(index, 0);
    if (log->n < WATCH_LOG) {
        log->pc[log->n] = h->pc;
        log->store[log->n] = store;
        log->before[log->n] = data64(log->r, SCRATCH);
        log->n++;
    }
    return false;
}

static void watches_see_every_access(void **state)
{
    (void)state;
    rig *ref = rig_new(exact_program);
    run_hart(&ref->h);
    rig *r = rig_new(exact_program);
    watch_log log = {.r = r};
    sim_watch w = {SCRATCH, 8, true, true};
    r->h.watches = &w;
    r->h.nwatches = 1;
    r->h.watch = record_watch;
    r->h.watch_ctx = &log;
    uint64_t limit = 0;
    do
        limit += 13;
    while (sim_hart_run(&r->h, limit) == SIM_HART_RUNNING);
    assert_int_equal(r->h.cycle, ref->h.cycle);
    assert_int_equal(r->h.instret, ref->h.instret);
    /* 40 iterations of ld then sd of the scratch word (s10) */
    assert_int_equal(log.n, 80);
    for (unsigned i = 0; i < 80; i += 2) {
        assert_false(log.store[i]);
        assert_true(log.store[i + 1]);
        assert_int_equal(log.before[i], 3ull * (i / 2));     /* before the load */
        assert_int_equal(log.before[i + 1], 3ull * (i / 2)); /* before the store lands */
        assert_true(log.pc[i + 1] > log.pc[i]);
    }
    rig_free(r);
    rig_free(ref);
}

/* A probe or a watch that asks to stop ends the run before the
 * instruction, nothing of it done; the next run meets the probe again
 * (so an owner steps past it with the probe gone), and a run stopped and
 * resumed so is the plain run. */
static bool stop_always(void *ctx, sim_hart *h)
{
    (void)h;
    (*(unsigned *)ctx)++;
    return true;
}

static bool stop_on_store(void *ctx, sim_hart *h, unsigned index, bool store)
{
    (void)h;
    (void)index;
    if (store)
        (*(unsigned *)ctx)++;
    return store;
}

static void probes_and_watches_stop(void **state)
{
    (void)state;
    rig *ref = rig_new(exact_program);
    run_hart(&ref->h);

    rig *r = rig_new(exact_program);
    unsigned probes = 0, stores = 0;
    uint64_t at = 0; /* the div */
    for (uint64_t off = 0; off < 256 && !at; off += 2) {
        uint32_t w;
        memcpy(&w, r->code + off, 4);
        if ((w & 0xfe00707f) == 0x02004033)
            at = RIG_CODE_BASE + off;
    }
    assert_true(at != 0);
    r->h.probe = stop_always;
    r->h.probe_ctx = &probes;
    assert_int_equal(sim_hart_set_probes(&r->h, &at, 1), 0);
    sim_watch w = {SCRATCH, 8, false, true};
    r->h.watch = stop_on_store;
    r->h.watch_ctx = &stores;
    unsigned stops = 0;
    for (;;) {
        sim_hart_state st = sim_hart_run(&r->h, r->h.cycle + 1000000);
        if (st != SIM_HART_RUNNING)
            break;
        stops++;
        /* stopped before the div or the watched store: step it alone,
         * with the probe and the watch out of the way */
        assert_true(r->h.pc == at || r->h.nwatches == 1);
        r->h.nwatches = 0;
        assert_int_equal(sim_hart_set_probes(&r->h, NULL, 0), 0);
        sim_hart_run(&r->h, r->h.cycle + 1);
        assert_int_equal(sim_hart_set_probes(&r->h, &at, 1), 0);
        r->h.watches = &w;
        r->h.nwatches = 1;
    }
    assert_int_equal(probes, 40);
    assert_int_equal(stores, 39); /* the first runs before the watch is set */
    assert_int_equal(stops, 79);
    assert_int_equal(r->h.cycle, ref->h.cycle);
    assert_int_equal(r->h.instret, ref->h.instret);
    assert_memory_equal(r->h.x, ref->h.x, sizeof r->h.x);
    rig_free(r);
    rig_free(ref);
}

/* The forwarded value (sim_hart.c): an entry whose source is the rd of
 * the instruction before it reads that result from a host register.
 * Every form kind here — an ALU op with one source and with two, a
 * branch, a load's base, a store's base and value, a load that went the
 * slow path (the device, and the data RAM's first access) — must give
 * the register file's answer; and entering a block at such an entry (a
 * jr to 2: after its block was decoded from 1:) must take the value
 * from x[], not whatever the last handler left.  The same program run in
 * small quanta (blocks cut at every place) ends the same. */
static const char forward_program[] =
    "li s2, 0x10000000; li s3, 0; li a1, 10; la s4, 2f\n"
    "1: addi a1, a1, 1\n"
    "2: add a2, a1, a1; sub a3, a2, a1; slli a4, a3, 3; sd a4, 0(s10)\n"
    "addi t0, s10, 8; sd a3, 0(t0); addi t1, a3, 0; sd t1, 16(s10)\n"
    "addi t2, s10, 16; ld a5, 0(t2); lw a6, 0(s2); addi a7, a6, 1\n"
    "ld t3, 0(s11); xor t4, a7, t3; beq t4, a7, 3f; li a0, -1\n"
    "3: bnez s3, 4f; li s3, 1; li a1, 1000; li t5, 7; jr s4\n"
    "4: wfi";

static void forward_check(const sim_hart *h)
{
    assert_int_equal(h->x[A2], 2000); /* 2: entered mid-block, a1 from x[] */
    assert_int_equal(h->x[13], 1000);    /* a3 = a2 - a1 */
    assert_int_equal(h->x[14], 8000);    /* a4 = a3 << 3 */
    assert_int_equal(h->x[15], 1000);    /* a5: stored through a forwarded base */
    assert_int_equal(h->x[16], 0x55);    /* a6: the device's word */
    assert_int_equal(h->x[17], 0x56);    /* a7 = a6 + 1, after the slow path */
    assert_int_equal(h->x[A0], 0);       /* the branch on t4 (t3 is 0) was taken */
}

static void forwarded_values(void **state)
{
    (void)state;
    rig *r = rig_new(forward_program);
    r->dev[0] = 0x55;
    run_hart(&r->h);
    assert_false(r->h.trapped);
    forward_check(&r->h);
    uint64_t at = r->h.x[20]; /* s4: the pc of 2: */
    const sim_insn *e = r->h.icache->map[(at - RIG_CODE_BASE) / 2];
    assert_non_null(e);
    assert_int_equal(e->fwd[0], A1); /* entering it loads a1 into f0 */

    static const unsigned quanta[] = {1, 2, 3, 5, 7};
    for (size_t q = 0; q < sizeof quanta / sizeof quanta[0]; q++) {
        rig *c = rig_new(forward_program);
        c->dev[0] = 0x55;
        run_in_quanta(&c->h, quanta[q]);
        forward_check(&c->h);
        assert_same_run(&c->h, &r->h);
        rig_free(c);
    }
    rig_free(r);
}

/* The harts of one memory share decoded code, and fence.i on one of them
 * makes new code the one every hart runs. */
/* ---- Idle loops (hart_idle.c) ---------------------------------------------
 * A proven wait loop skipped ahead ends exactly where running it would:
 * the same pc, cycle, instret, memory cycles and registers, for limits
 * that cut it anywhere, entered mid-way. */
#define IDLE_FLAG (RIG_DATA_BASE + 0x100)

/* kmx's shape (kmx/start.c's worker): a turn counter, the flag every
 * turn, and every 8th turn more loads (a deadline that has not come). */
static const char idle_turns[] =
    "li s1, 0x80100100; li a3, 0\n"
    "1: andi a4, a5, 7; bnez a4, 2f\n"
    "lw a4, 8(s1); bnez a4, 3f; ld a4, 16(s1); beqz a4, 2f; ld a2, 24(s1); bgeu a2, a4, 3f\n"
    "2: addiw a5, a5, 1; zext.w t1, a5; slli t2, a5, 3; lw a4, 0(s1); sext.w s0, a4\n"
    "beq a4, a3, 1b\n"
    "3: wfi";

/* The same with the deadline against mtime (10 cycles a tick from 1000),
 * as kmx's waits with a deadline: it comes at cycle 3000, inside the
 * limits below, and the loop leaves. */
static const char idle_deadline[] =
    "li s1, 0x80100100; li s2, 0x10000030; li a3, 0\n"
    "1: andi a4, a5, 7; bnez a4, 2f\n"
    "lw a4, 8(s1); bnez a4, 3f; li a4, 1300; ld a2, 0(s2); bgeu a2, a4, 3f\n"
    "2: addiw a5, a5, 1; lw a4, 0(s1); beq a4, a3, 1b\n"
    "3: ld a2, 0(s2); wfi";

/* A fresh hart on a copy of t's code, a5 set, and the deadline words. */
static rig *idle_rig(const rig *t, uint64_t a5)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    memcpy(r->code, t->code, sizeof r->code);
    rig_init_mem(r, DEV_SIZE, true);
    hart_start(r, &r->h, 0, RIG_CODE_BASE);
    r->h.x[15] = a5;
    uint64_t deadline = 1000, now = 5;
    memcpy(r->data + (IDLE_FLAG + 16 - RIG_DATA_BASE), &deadline, 8);
    memcpy(r->data + (IDLE_FLAG + 24 - RIG_DATA_BASE), &now, 8);
    return r;
}

/* Limits 200 to 4400 (every cycle of a stretch, so that some cut a turn
 * where a register a skip got wrong has not been written again yet). */
static void idle_skip_is_exact(const char *src, uint64_t a5)
{
    rig *t = rig_new(src);
    for (uint64_t limit = 200; limit < 4400; limit += limit < 4000 ? 97 : 1) {
        rig *ref = idle_rig(t, a5), *r = idle_rig(t, a5);
        sim_hart_state st = sim_hart_run(&ref->h, limit);
        /* into the loop, cut somewhere in a turn */
        assert_int_equal(sim_hart_run(&r->h, 53), SIM_HART_RUNNING);
        sim_idle p;
        assert_true(sim_hart_idle_prove(&r->h, &p));
        uint64_t k = sim_hart_idle_skip(&r->h, &p, limit);
        if (limit > 1000)
            assert_true(k > 0);
        assert_int_equal(sim_hart_run(&r->h, limit), st);
        assert_int_equal(r->h.pc, ref->h.pc);
        assert_int_equal(r->h.cycle, ref->h.cycle);
        assert_int_equal(r->h.instret, ref->h.instret);
        assert_int_equal(r->h.mem_cycles, ref->h.mem_cycles);
        assert_memory_equal(r->h.x, ref->h.x, sizeof r->h.x);
        /* and the same afterwards: the flag set, both leave the loop */
        uint32_t one = 1;
        memcpy(r->data + (IDLE_FLAG - RIG_DATA_BASE), &one, 4);
        memcpy(ref->data + (IDLE_FLAG - RIG_DATA_BASE), &one, 4);
        run_hart(&r->h);
        run_hart(&ref->h);
        assert_int_equal(r->h.cycle, ref->h.cycle);
        assert_memory_equal(r->h.x, ref->h.x, sizeof r->h.x);
        rig_free(r);
        rig_free(ref);
    }
    rig_free(t);
}

static void idle_loops_skip_exactly(void **state)
{
    (void)state;
    /* a bare spin: lw, beqz */
    idle_skip_is_exact("li a0, 0x80100100; 1: lw t0, 0(a0); beqz t0, 1b; wfi", 0);
    /* turns counted, every 8th looking further */
    idle_skip_is_exact(idle_turns, 0);
    /* the 32-bit counter wraps inside the run: a skip stops short of it */
    idle_skip_is_exact(idle_turns, 0x7fffff80);
    /* every 8th turn, mtime against a deadline that comes */
    idle_skip_is_exact(idle_deadline, 0);
}

/* What is not a wait loop, or not one whose turns cost the same, is never
 * proven: a store, a device load, a CSR read of time, a branch on the
 * counter, a counter whose low bits the mask reads. */
static void idle_proofs_refuse(void **state)
{
    (void)state;
    static const char *const never[] = {
        "li a0, 0x80100100; 1: sw zero, 8(a0); lw t0, 0(a0); beqz t0, 1b; wfi",
        "li a0, 0x10000000; 1: lw t0, 0(a0); beqz t0, 1b; wfi",
        "li a0, 0x80100100; 1: rdtime t1; lw t0, 0(a0); beqz t0, 1b; wfi",
        /* mtime other than compared: added, or compared for equality */
        "li a0, 0x10000030; 1: ld t0, 0(a0); addi t0, t0, 1; bnez t0, 1b; wfi",
        "li a0, 0x10000030; li t1, 5000; 1: ld t0, 0(a0); bne t0, t1, 1b; wfi",
        /* read before the period writes it: last period's mtime */
        "li a0, 0x10000030; li t1, 5000; 1: bgeu t0, t1, 2f; ld t0, 0(a0); j 1b; 2: wfi",
        "li a0, 0x80100100; 1: addi a5, a5, 1; lw t0, 0(a0); bltu a5, a0, 1b; wfi",
        "li a0, 0x80100100; 1: addi a5, a5, 1; andi t1, a5, 31; lw t0, 0(a0); beqz t0, 1b; wfi",
        "li a0, 0x80100100; 1: addi a0, a0, 8; lw t0, 0(a0); beqz t0, 1b; wfi",
    };
    for (size_t i = 0; i < sizeof never / sizeof *never; i++) {
        rig *r = rig_new(never[i]);
        assert_int_equal(sim_hart_run(&r->h, 300), SIM_HART_RUNNING);
        sim_idle p;
        if (sim_hart_idle_prove(&r->h, &p))
            print_message("proven: %s\n", never[i]);
        assert_false(sim_hart_idle_prove(&r->h, &p));
        rig_free(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stops_exactly_at_limits),
        cmocka_unit_test(forwarded_values),
        cmocka_unit_test(probes_see_every_arrival),
        cmocka_unit_test(probes_may_change_registers),
        cmocka_unit_test(watches_see_every_access),
        cmocka_unit_test(probes_and_watches_stop),
        cmocka_unit_test(idle_loops_skip_exactly),
        cmocka_unit_test(idle_proofs_refuse),
    };
    /* Every test twice: the hot loop's handlers alone (the reference),
     * then with its blocks translated to host code (hart_jit.c), which
     * must not change a register, a cycle or a count. */
    setenv("KMRUN_JIT", "off", 1);
    int failed = cmocka_run_group_tests_name("interpreted", tests, NULL, NULL);
    unsetenv("KMRUN_JIT");
    return failed + cmocka_run_group_tests_name("translated", tests, NULL, NULL);
}
