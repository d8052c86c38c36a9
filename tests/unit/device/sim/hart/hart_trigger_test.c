/* Tests for the hart's trigger module (device/sim/hart/hart_trigger.c): the
 * CSRs' legal values (write any, read legal), machine mode against a
 * debugger's (dmode) trigger, and the triggers in a run — execute, load,
 * store, before the instruction, with the modeled time a trap costs and
 * the same at any run limit, one hart's triggers not another's in shared
 * code, a trigger armed by the instruction before the one it matches, the
 * owner's probe before a trigger on the same pc.  Programs are a few
 * hand-encoded instructions at CODE_BASE; mtvec points at a `wfi`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "hart_internal.h"
#include "sim_hart.h"
#include "sim_mem.h"

#define CODE_BASE 0x80000000ull
#define CODE_SIZE 0x1000u
#define TRAP_STUB 0x800u
#define DATA_BASE 0x80100000ull
#define DATA_SIZE 0x100u
#define DEV_BASE 0x10000000ull

enum { T0 = 5, T1 = 6, A0 = 10, A1 = 11, S0 = 8 };
enum { TSELECT = 0x7a0, TDATA1 = 0x7a1, TDATA2 = 0x7a2, TDATA3 = 0x7a3, TINFO = 0x7a4 };

#define WFI 0x10500073u

/* The encodings the programs use (constant expressions, for tables). */
#define ADDI(rd, rs1, imm) (((uint32_t)(imm) << 20) | ((rs1) << 15) | ((rd) << 7) | 0x13u)
#define LW(rd, rs1, imm) (((uint32_t)(imm) << 20) | ((rs1) << 15) | (2u << 12) | ((rd) << 7) | 0x03u)
#define SW(rs2, rs1, imm)                                                                      \
    ((((uint32_t)(imm) >> 5) << 25) | ((rs2) << 20) | ((rs1) << 15) | (2u << 12) |             \
     (((uint32_t)(imm) & 31) << 7) | 0x23u)
#define CSRW(csr, rs1) (((uint32_t)(csr) << 20) | ((rs1) << 15) | (1u << 12) | 0x73u)

typedef struct rig {
    sim_mem mem;
    sim_hart h;
    uint8_t code[CODE_SIZE];
    uint8_t data[DATA_SIZE];
    unsigned dev_stores;
} rig;

static int dev_load(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size, uint64_t *value)
{
    (void)m, (void)h, (void)addr, (void)size;
    *value = 0;
    return 0;
}

static int dev_store(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size, uint64_t value)
{
    rig *r = m->ctx;
    (void)h, (void)addr, (void)size, (void)value;
    r->dev_stores++;
    return 0;
}

/* A rig running `n` instructions at CODE_BASE (then whatever follows:
 * zeros, illegal), a wfi at TRAP_STUB that mtvec points at; s0 =
 * DATA_BASE. */
static rig *rig_new(const uint32_t *prog, unsigned n)
{
    rig *r = test_calloc(1, sizeof *r);
    memcpy(r->code, prog, n * sizeof *prog);
    uint32_t wfi = WFI;
    memcpy(r->code + TRAP_STUB, &wfi, 4);
    r->mem.ram[0] = (sim_ram){CODE_BASE, CODE_SIZE, r->code, 0};
    r->mem.ram[1] = (sim_ram){DATA_BASE, DATA_SIZE, r->data, 5};
    r->mem.nram = 2;
    r->mem.load = dev_load;
    r->mem.store = dev_store;
    r->mem.ctx = r;
    assert_int_equal(sim_hart_init(&r->h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE), 0);
    r->h.mtvec = CODE_BASE + TRAP_STUB;
    r->h.x[S0] = DATA_BASE;
    return r;
}

static void rig_free(rig *r)
{
    sim_hart_free(&r->h);
    test_free(r);
}

static uint64_t csr(sim_hart *h, unsigned num)
{
    uint64_t v = 0;
    assert_true(sim_hart_csr_read(h, num, &v));
    return v;
}

/* Machine mode's write: selects trigger i, writes tdata2 then tdata1. */
static void arm(sim_hart *h, unsigned i, uint64_t tdata1, uint64_t tdata2)
{
    sim_trigger_csr_write(h, TSELECT, i);
    sim_trigger_csr_write(h, TDATA2, tdata2);
    sim_trigger_csr_write(h, TDATA1, tdata1);
}

static void run_to_wfi(sim_hart *h)
{
    assert_int_equal(sim_hart_run(h, h->cycle + 100000), SIM_HART_WFI);
}

/* h anew (registers zero, triggers off), on the rig's program. */
static void restart(rig *r)
{
    assert_int_equal(sim_hart_init(&r->h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE), 0);
    r->h.mtvec = CODE_BASE + TRAP_STUB;
    r->h.x[S0] = DATA_BASE;
    r->h.x[T1] = DEV_BASE;
    r->h.x[A0] = 0x55;
    r->h.x[A1] = 77;
}


#define T2 SIM_MC_TYPE2
#define MATCH(m) ((uint64_t)(m) << SIM_MC_MATCH_SHIFT)
#define ACTION(a) ((uint64_t)(a) << SIM_MC_ACTION_SHIFT)

static void csrs_at_reset(void **state)
{
    (void)state;
    uint32_t prog[] = {WFI};
    rig *r = rig_new(prog, 1);
    for (unsigned i = 0; i < SIM_HART_TRIGGERS; i++) {
        sim_trigger_csr_write(&r->h, TSELECT, i);
        assert_int_equal(csr(&r->h, TSELECT), i);
        assert_int_equal(csr(&r->h, TDATA1), T2);
        assert_int_equal(csr(&r->h, TDATA2), 0);
        assert_int_equal(csr(&r->h, TDATA3), 0);
        assert_int_equal(csr(&r->h, TINFO), 4);
    }
    /* past the last trigger: ignored, so reading back tells */
    sim_trigger_csr_write(&r->h, TSELECT, SIM_HART_TRIGGERS);
    assert_int_equal(csr(&r->h, TSELECT), SIM_HART_TRIGGERS - 1);
    sim_trigger_csr_write(&r->h, TSELECT, UINT64_MAX);
    assert_int_equal(csr(&r->h, TSELECT), SIM_HART_TRIGGERS - 1);
    /* tcontrol (0x7a5) is not there */
    uint64_t v;
    assert_false(sim_hart_csr_read(&r->h, 0x7a5, &v));
    rig_free(r);
}

static void tdata1_write_any_read_legal(void **state)
{
    (void)state;
    static const struct {
        uint64_t write, read;
    } t[] = {
        {0, T2},
        {UINT64_MAX, T2 | SIM_MC_HIT | SIM_MC_M | SIM_MC_EXECUTE | SIM_MC_STORE | SIM_MC_LOAD},
        {T2 | SIM_MC_M | SIM_MC_EXECUTE, T2 | SIM_MC_M | SIM_MC_EXECUTE},
        {(3ull << 60) | SIM_MC_LOAD, T2 | SIM_MC_LOAD}, /* type: 2 whatever is written */
        {SIM_MC_DMODE | ACTION(1) | SIM_MC_LOAD, T2 | SIM_MC_LOAD}, /* machine mode: no dmode */
        {ACTION(2) | SIM_MC_LOAD, T2 | SIM_MC_LOAD},
        {MATCH(2) | SIM_MC_STORE, T2 | MATCH(2) | SIM_MC_STORE},
        {MATCH(3) | SIM_MC_STORE, T2 | MATCH(3) | SIM_MC_STORE},
        {MATCH(1) | SIM_MC_STORE, T2 | SIM_MC_STORE}, /* NAPOT: no */
        {MATCH(4) | SIM_MC_STORE, T2 | SIM_MC_STORE},
        {(1ull << 11) | (1ull << 18) | (1ull << 19) | (3ull << 16) | (3ull << 21) | (0x3full << 53) |
             (1ull << 3) | (1ull << 4) | (1ull << 5),
         T2}, /* chain, timing, select, size, maskmax, u, s, h */
    };
    uint32_t prog[] = {WFI};
    rig *r = rig_new(prog, 1);
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        sim_trigger_csr_write(&r->h, TDATA1, t[i].write);
        if (csr(&r->h, TDATA1) != t[i].read)
            print_message("write 0x%llx: read 0x%llx, want 0x%llx\n",
                          (unsigned long long)t[i].write,
                          (unsigned long long)csr(&r->h, TDATA1), (unsigned long long)t[i].read);
        assert_int_equal(csr(&r->h, TDATA1), t[i].read);
    }
    sim_trigger_csr_write(&r->h, TDATA2, 0x123456789abcdef0ull);
    assert_int_equal(csr(&r->h, TDATA2), 0x123456789abcdef0ull);
    sim_trigger_csr_write(&r->h, TDATA3, 5);
    sim_trigger_csr_write(&r->h, TINFO, 5);
    assert_int_equal(csr(&r->h, TDATA3), 0);
    assert_int_equal(csr(&r->h, TINFO), 4);
    rig_free(r);
}

static void debuggers_triggers(void **state)
{
    (void)state;
    uint32_t prog[] = {WFI};
    rig *r = rig_new(prog, 1);
    uint64_t t1, t2;
    /* debug mode may set dmode and action 1 (with dmode only) */
    uint64_t mine = T2 | SIM_MC_DMODE | ACTION(1) | SIM_MC_M | SIM_MC_EXECUTE;
    assert_int_equal(sim_hart_trigger_set(&r->h, 2, mine, 0x80000010), 0);
    assert_int_equal(sim_hart_trigger_get(&r->h, 2, &t1, &t2), 0);
    assert_int_equal(t1, mine);
    assert_int_equal(t2, 0x80000010);
    /* action 1 is not armed: the owner's probes stand for it */
    assert_int_equal(r->h.trig_exec, 0);
    assert_int_equal(r->h.icache->ntexec, 0);
    /* machine mode sees it, and cannot write it */
    sim_trigger_csr_write(&r->h, TSELECT, 2);
    assert_int_equal(csr(&r->h, TDATA1), mine);
    sim_trigger_csr_write(&r->h, TDATA1, 0);
    sim_trigger_csr_write(&r->h, TDATA2, 0);
    assert_int_equal(csr(&r->h, TDATA1), mine);
    assert_int_equal(csr(&r->h, TDATA2), 0x80000010);
    /* action 1 without dmode is not legal, even from debug mode */
    assert_int_equal(sim_hart_trigger_set(&r->h, 1, ACTION(1) | SIM_MC_LOAD, 0), 0);
    assert_int_equal(sim_hart_trigger_get(&r->h, 1, &t1, &t2), 0);
    assert_int_equal(t1, T2 | SIM_MC_LOAD);
    /* released: machine mode's again */
    assert_int_equal(sim_hart_trigger_set(&r->h, 2, 0, 0), 0);
    sim_trigger_csr_write(&r->h, TDATA1, SIM_MC_M | SIM_MC_STORE);
    assert_int_equal(csr(&r->h, TDATA1), T2 | SIM_MC_M | SIM_MC_STORE);
    assert_int_equal(r->h.trig_mem, 1);
    /* no such trigger */
    assert_int_equal(sim_hart_trigger_set(&r->h, SIM_HART_TRIGGERS, 0, 0), -1);
    assert_int_equal(sim_hart_trigger_get(&r->h, SIM_HART_TRIGGERS, &t1, &t2), -1);
    rig_free(r);
}

/* addi a0 += 1 three times, the second one at CODE_BASE + 4; wfi. */
static const uint32_t three_adds[] = {ADDI(A0, A0, 1), ADDI(A0, A0, 1), ADDI(A0, A0, 1), WFI};

static void execute_fires_before(void **state)
{
    (void)state;
    rig *r = rig_new(three_adds, 4);
    arm(&r->h, 0, SIM_MC_M | SIM_MC_EXECUTE, CODE_BASE + 4);
    run_to_wfi(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mcause, SIM_CAUSE_BREAKPOINT);
    assert_int_equal(r->h.mepc, CODE_BASE + 4);
    assert_int_equal(r->h.mtval, CODE_BASE + 4);
    assert_int_equal(r->h.x[A0], 1); /* the second add never ran */
    /* one add and the stub's wfi retired; the trap cost its cycle */
    assert_int_equal(r->h.instret, 2);
    assert_int_equal(r->h.cycle, 3);
    assert_int_equal(csr(&r->h, TDATA1), T2 | SIM_MC_HIT | SIM_MC_M | SIM_MC_EXECUTE);

    /* m clear: not armed, the adds all run */
    sim_hart_init(&r->h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE);
    r->h.mtvec = CODE_BASE + TRAP_STUB;
    arm(&r->h, 0, SIM_MC_EXECUTE, CODE_BASE + 4);
    run_to_wfi(&r->h);
    assert_false(r->h.trapped);
    assert_int_equal(r->h.x[A0], 3);
    rig_free(r);
}

/* The run with a trigger, cut at every cycle, ends as the run in one go:
 * the trigger's check costs nothing and is met at any limit. */
static void execute_same_at_any_limit(void **state)
{
    (void)state;
    rig *one = rig_new(three_adds, 4);
    arm(&one->h, 0, SIM_MC_M | SIM_MC_EXECUTE, CODE_BASE + 8);
    run_to_wfi(&one->h);
    assert_int_equal(one->h.x[A0], 2);
    assert_int_equal(one->h.mepc, CODE_BASE + 8);
    rig *cut = rig_new(three_adds, 4);
    arm(&cut->h, 0, SIM_MC_M | SIM_MC_EXECUTE, CODE_BASE + 8);
    for (uint64_t c = 1; sim_hart_run(&cut->h, c) == SIM_HART_RUNNING; c++)
        assert_true(c < 100);
    assert_int_equal(cut->h.x[A0], one->h.x[A0]);
    assert_int_equal(cut->h.mepc, one->h.mepc);
    assert_int_equal(cut->h.cycle, one->h.cycle);
    assert_int_equal(cut->h.instret, one->h.instret);
    /* a range, below CODE_BASE + 4: the first add (not the stub) */
    restart(one);
    arm(&one->h, 0, SIM_MC_M | SIM_MC_EXECUTE | MATCH(3), CODE_BASE + 4);
    run_to_wfi(&one->h);
    assert_int_equal(one->h.mepc, CODE_BASE);
    assert_int_equal(one->h.x[A0], 0x55) /* restart's, untouched */;
    rig_free(one);
    rig_free(cut);
}

static void harts_sharing_code_keep_their_own(void **state)
{
    (void)state;
    rig *r = rig_new(three_adds, 4);
    sim_hart other;
    assert_int_equal(sim_hart_init(&other, &r->mem, 1, CODE_BASE, CODE_BASE, CODE_SIZE), 0);
    other.mtvec = CODE_BASE + TRAP_STUB;
    assert_ptr_equal(other.icache, r->h.icache);
    arm(&r->h, 0, SIM_MC_M | SIM_MC_EXECUTE, CODE_BASE + 4);
    assert_int_equal(r->h.icache->ntexec, 1);
    run_to_wfi(&other); /* meets the check, which is not its trigger */
    assert_false(other.trapped);
    assert_int_equal(other.x[A0], 3);
    run_to_wfi(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.x[A0], 1);
    assert_int_equal(csr(&other, TDATA1), T2);
    /* the hart that armed it leaves: the set goes with it */
    sim_hart_free(&r->h);
    assert_int_equal(other.icache->ntexec, 0);
    sim_hart_free(&other);
    test_free(r);
}

/* csrw tdata1 arms an execute trigger on the very next instruction, in
 * the same decoded block: it fires there. */
static void armed_by_the_instruction_before(void **state)
{
    (void)state;
    const uint32_t prog[] = {ADDI(A0, A0, 1), CSRW(TDATA1, T0), ADDI(A0, A0, 1), WFI};
    rig *r = rig_new(prog, 4);
    r->h.x[T0] = SIM_MC_M | SIM_MC_EXECUTE;
    sim_trigger_csr_write(&r->h, TDATA2, CODE_BASE + 8);
    run_to_wfi(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mepc, CODE_BASE + 8);
    assert_int_equal(r->h.x[A0], 1);
    assert_int_equal(r->h.instret, 3); /* add, csrw, the stub's wfi */
    assert_int_equal(r->h.cycle, 4);
    rig_free(r);
}

/* lw a1, 8(s0); sw a0, 4(s0); sw a0, 0(t1) (the device); wfi */
static const uint32_t accesses[] = {LW(A1, S0, 8), SW(A0, S0, 4), SW(A0, T1, 0), WFI};

static void loads_and_stores_fire_before(void **state)
{
    (void)state;
    rig *r = rig_new(accesses, 4);
    /* a load trigger on a byte inside the loaded word: before the load,
     * a1 kept, mtval the access's address */
    restart(r);
    arm(&r->h, 0, SIM_MC_M | SIM_MC_LOAD, DATA_BASE + 10);
    run_to_wfi(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mcause, SIM_CAUSE_BREAKPOINT);
    assert_int_equal(r->h.mepc, CODE_BASE);
    assert_int_equal(r->h.mtval, DATA_BASE + 8);
    assert_int_equal(r->h.x[A1], 77);
    /* a store trigger: the load passes, the store does not land */
    restart(r);
    arm(&r->h, 1, SIM_MC_M | SIM_MC_STORE, DATA_BASE + 4);
    run_to_wfi(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mepc, CODE_BASE + 4);
    assert_int_equal(r->h.mtval, DATA_BASE + 4);
    assert_int_equal(r->h.x[A1], 0);
    assert_int_equal(r->data[4], 0);
    /* below an address (match 3): the device's store never reaches it */
    restart(r);
    arm(&r->h, 3, SIM_MC_M | SIM_MC_STORE | MATCH(3), DATA_BASE);
    run_to_wfi(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mepc, CODE_BASE + 8);
    assert_int_equal(r->h.mtval, DEV_BASE);
    assert_int_equal(r->data[4], 0x55);
    assert_int_equal(r->dev_stores, 0);
    rig_free(r);
}

/* An armed load/store trigger that matches nothing sends the accesses
 * down the slow path: the same modeled time, the same result. */
static void unmatched_triggers_cost_nothing(void **state)
{
    (void)state;
    rig *r = rig_new(accesses, 4);
    restart(r);
    run_to_wfi(&r->h);
    uint64_t cycle = r->h.cycle, instret = r->h.instret, mem_cycles = r->h.mem_cycles;
    assert_int_equal(r->dev_stores, 1);
    restart(r);
    arm(&r->h, 0, SIM_MC_M | SIM_MC_LOAD | SIM_MC_STORE | SIM_MC_EXECUTE, DATA_BASE + 0x80);
    assert_int_equal(r->h.trig_mem, 1);
    assert_int_equal(r->h.trig_exec, 1);
    run_to_wfi(&r->h);
    assert_false(r->h.trapped);
    assert_int_equal(r->h.cycle, cycle);
    assert_int_equal(r->h.instret, instret);
    assert_int_equal(r->h.mem_cycles, mem_cycles);
    assert_int_equal(r->dev_stores, 2);
    rig_free(r);
}

static unsigned probed;
static bool count_probe(void *ctx, sim_hart *h)
{
    (void)ctx;
    assert_int_equal(h->pc, CODE_BASE + 4);
    probed++;
    return false;
}

/* The owner's probe on the pc an execute trigger matches is met first:
 * the debugger stops before the program's own breakpoint. */
static void probe_before_trigger(void **state)
{
    (void)state;
    rig *r = rig_new(three_adds, 4);
    uint64_t pc = CODE_BASE + 4;
    assert_int_equal(sim_hart_set_probes(&r->h, &pc, 1), 0);
    r->h.probe = count_probe;
    arm(&r->h, 0, SIM_MC_M | SIM_MC_EXECUTE, pc);
    probed = 0;
    run_to_wfi(&r->h);
    assert_int_equal(probed, 1);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mepc, pc);
    assert_int_equal(r->h.x[A0], 1);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csrs_at_reset),
        cmocka_unit_test(tdata1_write_any_read_legal),
        cmocka_unit_test(debuggers_triggers),
        cmocka_unit_test(execute_fires_before),
        cmocka_unit_test(execute_same_at_any_limit),
        cmocka_unit_test(harts_sharing_code_keep_their_own),
        cmocka_unit_test(armed_by_the_instruction_before),
        cmocka_unit_test(loads_and_stores_fire_before),
        cmocka_unit_test(unmatched_triggers_cost_nothing),
        cmocka_unit_test(probe_before_trigger),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
