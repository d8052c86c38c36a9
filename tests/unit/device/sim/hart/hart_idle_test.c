/* Tests for device/sim/hart/hart_idle.c's trap loops (sim_hart_trap_loop): a
 * hart whose trap handler is where it traps — a fetch outside the code
 * (a pc a debugger set wild, an mtvec nobody set), an illegal
 * instruction, ecall — is proven idle once a trap changes nothing but
 * time, and a skip ends exactly where running it would: the same pc,
 * cycles, traps and CSRs, for limits anywhere.  What only looks like one
 * (a handler that returns, a trap hook that sees each trap) is never
 * proven.  The wait loops' own tests are sim_hart_test.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"
#include "hart_rig.h"
#include "rv_assemble.h"
#include "sim_hart.h"
#include "sim_mem.h"

/* A hart on a fresh rig running `src` from RIG_CODE_BASE, mtvec 0. */
static rig *trap_rig(const uint8_t *code, size_t n)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    memcpy(r->code, code, n);
    rig_init_mem(r, 64, true);
    assert_int_equal(sim_hart_init(&r->h, &r->mem, 0, RIG_CODE_BASE, RIG_CODE_BASE,
                                   RIG_CODE_SIZE), 0);
    return r;
}

static void rig_free(rig *r)
{
    sim_hart_free(&r->h);
    free(r);
}

static void assert_same_hart(const sim_hart *h, const sim_hart *ref)
{
    assert_int_equal(h->state, ref->state);
    assert_int_equal(h->pc, ref->pc);
    assert_int_equal(h->cycle, ref->cycle);
    assert_int_equal(h->instret, ref->instret);
    assert_int_equal(h->traps, ref->traps);
    assert_int_equal(h->mem_cycles, ref->mem_cycles);
    assert_int_equal(h->mstatus, ref->mstatus);
    assert_int_equal(h->mepc, ref->mepc);
    assert_int_equal(h->mcause, ref->mcause);
    assert_int_equal(h->mtval, ref->mtval);
    assert_int_equal(h->trap_epc, ref->trap_epc);
    assert_memory_equal(h->x, ref->x, sizeof h->x);
}

/* `src` ends in a trap loop of cause `cause` (at mtvec): from cycle 60
 * on it is proven, and a skip to any limit, then a run to it, is the
 * run. */
static void loop_skips_exactly(const char *src, uint64_t cause)
{
    uint8_t code[512];
    size_t n = rv_assemble("", src, RIG_CODE_BASE, code, sizeof code);
    for (uint64_t limit = 61; limit < 3000; limit += limit < 200 ? 1 : 97) {
        rig *ref = trap_rig(code, n), *r = trap_rig(code, n);
        assert_int_equal(sim_hart_run(&ref->h, limit), SIM_HART_RUNNING);
        assert_int_equal(sim_hart_run(&r->h, 60), SIM_HART_RUNNING);
        uint64_t c = 0;
        assert_true(sim_hart_trap_loop(&r->h, &c));
        assert_int_equal(c, cause);
        assert_int_equal(r->h.pc, r->h.mtvec & ~(uint64_t)3);
        sim_idle p;
        assert_true(sim_hart_idle_prove(&r->h, &p));
        assert_int_equal(p.period_traps, 1);
        assert_int_equal(p.period_instret, 0);
        uint64_t traps = r->h.traps, from = r->h.cycle;
        uint64_t k = sim_hart_idle_skip(&r->h, &p, limit);
        assert_int_equal(k, (limit - from) / p.period_cycles);
        assert_int_equal(r->h.traps, traps + k);
        assert_int_equal(sim_hart_run(&r->h, limit), SIM_HART_RUNNING);
        assert_same_hart(&r->h, &ref->h);
        rig_free(r);
        rig_free(ref);
    }
}

static void trap_loops_skip_exactly(void **state)
{
    (void)state;
    /* a pc set wild, interrupts on: the fault goes to mtvec 0, outside
     * the code too, which faults again, and again (mepc and MPIE settle) */
    loop_skips_exactly("csrsi mstatus, 8; li t0, 0x90000000; jr t0", SIM_CAUSE_FETCH_ACCESS);
    /* mtvec outside the code: the handler's fetch faults */
    loop_skips_exactly("li t0, 0x80004000; csrw mtvec, t0; jr t0", SIM_CAUSE_FETCH_ACCESS);
    /* mtvec (4-aligned) at an illegal instruction (zeroed memory), at an
     * ecall */
    loop_skips_exactly("la t0, 1f; csrw mtvec, t0; jr t0; .balign 4; 1: .word 0",
                       SIM_CAUSE_ILLEGAL);
    loop_skips_exactly("la t0, 1f; csrw mtvec, t0; j 1f; .balign 4; 1: ecall",
                       SIM_CAUSE_ECALL_M);
}

/* Not trap loops: a handler that returns (the trap changes mepc, the
 * handler runs instructions), a first trap whose mepc is elsewhere, and
 * a trap loop a trap hook sees (each trap is its event). */
static bool no_hook(void *ctx, sim_hart *h, uint64_t cause, uint64_t tval)
{
    (void)ctx, (void)h, (void)cause, (void)tval;
    return false;
}

static void what_only_looks_like_one_is_not(void **state)
{
    (void)state;
    uint8_t code[512];
    size_t n = rv_assemble("", "la t0, 2f; csrw mtvec, t0; 1: ecall; j 1b\n"
                               "2: csrr t1, mepc; addi t1, t1, 4; csrw mepc, t1; mret",
                           RIG_CODE_BASE, code, sizeof code);
    rig *r = trap_rig(code, n);
    sim_idle p;
    for (unsigned i = 0; i < 300; i++) {
        assert_int_equal(sim_hart_run(&r->h, r->h.cycle + 1), SIM_HART_RUNNING);
        assert_false(sim_hart_trap_loop(&r->h, NULL));
        assert_false(sim_hart_idle_prove(&r->h, &p));
    }
    assert_true(r->h.traps > 20);
    rig_free(r);

    /* the first fault, at the wild pc: mepc is not mtvec's yet */
    n = rv_assemble("", "li t0, 0x90000000; jr t0", RIG_CODE_BASE, code, sizeof code);
    r = trap_rig(code, n);
    while (r->h.traps == 0)
        assert_int_equal(sim_hart_run(&r->h, r->h.cycle + 1), SIM_HART_RUNNING);
    assert_int_equal(r->h.mepc, 0x90000000);
    assert_false(sim_hart_trap_loop(&r->h, NULL));
    assert_int_equal(sim_hart_run(&r->h, r->h.cycle + 5), SIM_HART_RUNNING);
    assert_true(sim_hart_trap_loop(&r->h, NULL));
    assert_true(sim_hart_idle_prove(&r->h, &p));
    r->h.on_trap = no_hook; /* a debugger catching traps sees every one */
    assert_true(sim_hart_trap_loop(&r->h, NULL));
    assert_false(sim_hart_idle_prove(&r->h, &p));
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trap_loops_skip_exactly),
        cmocka_unit_test(what_only_looks_like_one_is_not),
    };
    /* Interpreted, then translated (hart_jit.c): the same either way. */
    setenv("KMRUN_JIT", "off", 1);
    int failed = cmocka_run_group_tests_name("interpreted", tests, NULL, NULL);
    unsetenv("KMRUN_JIT");
    return failed + cmocka_run_group_tests_name("translated", tests, NULL, NULL);
}
