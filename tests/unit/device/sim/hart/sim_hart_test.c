/* Tests for the hart (device/sim/hart*.c, hart_rvc.c): programs assembled at
 * test time (rv_assemble.h) run on hart_rig.h's bench, its device
 * DEV_SIZE bytes with a timer.  mtvec starts at a `wfi` stub, so a trap
 * ends a run as a program's final `wfi` does.
 *
 * Most checks are tables of snippets that leave a result in a0: all of a
 * table's snippets are assembled into one program that stores each a0 to
 * the next doubleword at RIG_DATA_BASE (s11 walks it), and the test
 * compares them in order.  Snippets may use any register but s10/s11; s10
 * points at a scratch doubleword-aligned area (SCRATCH). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hart_internal.h"
#include "hart_rig.h"
#include "rv_assemble.h"
#include "sim_hart.h"
#include "sim_mem.h"

#define TRAP_STUB 0x2000u /* offset of the wfi that mtvec points at */
#define SCRATCH (RIG_DATA_BASE + 0x800)
#define DEV_SIZE 64u /* the device here: a load at 64 faults */

enum { RA = 1, SP = 2, T0 = 5, T1 = 6, A0 = 10, A1 = 11, A2 = 12, T5 = 30, T6 = 31 };

/* Assembles `src` (after the harness's prologue) linked at RIG_CODE_BASE
 * and returns the bytes of .text; asserts on a toolchain failure. */
static size_t assemble(const char *src, uint8_t *out, size_t max)
{
    char prologue[128];
    snprintf(prologue, sizeof prologue, "li s11, 0x%llx\nli s10, 0x%llx\n",
             (unsigned long long)RIG_DATA_BASE, (unsigned long long)SCRATCH);
    return rv_assemble(prologue, src, RIG_CODE_BASE, out, max);
}

static void hart_start(rig *r, sim_hart *h, uint32_t id, uint64_t pc)
{
    assert_int_equal(sim_hart_init(h, &r->mem, id, pc, RIG_CODE_BASE, RIG_CODE_SIZE), 0);
    h->mtvec = RIG_CODE_BASE + TRAP_STUB;
}

static rig *rig_new(const char *src)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    size_t n = assemble(src, r->code, TRAP_STUB);
    assert_true(n > 0 && n < TRAP_STUB);
    uint32_t wfi = 0x10500073;
    memcpy(r->code + TRAP_STUB, &wfi, 4);
    rig_init_mem(r, DEV_SIZE, true);
    hart_start(r, &r->h, 0, RIG_CODE_BASE);
    return r;
}

static void rig_free(rig *r)
{
    sim_hart_free(&r->h);
    free(r);
}

/* Runs h until it waits in wfi (a program's end, or the trap stub). */
static void run_hart(sim_hart *h)
{
    sim_hart_state st = sim_hart_run(h, h->cycle + 10000000);
    assert_int_equal(st, SIM_HART_WFI);
}

/* Runs h in calls of `quantum` cycles each until it stops running. */
static void run_in_quanta(sim_hart *h, unsigned quantum)
{
    while (sim_hart_run(h, h->cycle + quantum) == SIM_HART_RUNNING)
        ;
}

/* h ran as ref did: the same time, count and registers. */
static void assert_same_run(const sim_hart *h, const sim_hart *ref)
{
    assert_int_equal(h->cycle, ref->cycle);
    assert_int_equal(h->instret, ref->instret);
    assert_memory_equal(h->x, ref->x, sizeof h->x);
}

static uint64_t data64(const rig *r, uint64_t addr)
{
    uint64_t v;
    memcpy(&v, r->data + (addr - RIG_DATA_BASE), 8);
    return v;
}

typedef struct snippet {
    const char *code;
    uint64_t want; /* a0 after the snippet */
} snippet;

/* Runs a table of snippets as one program (see the top) and checks each. */
static void run_table(const snippet *t, size_t n)
{
    size_t cap = 1 << 16, len = 0;
    char *src = malloc(cap);
    assert_non_null(src);
    src[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(src + len, cap - len, "%s\nsd a0, 0(s11)\naddi s11, s11, 8\n", t[i].code);
        assert_true(k > 0 && (size_t)k < cap - len);
        len += (size_t)k;
    }
    snprintf(src + len, cap - len, "wfi\n");
    rig *r = rig_new(src);
    free(src);
    run_hart(&r->h);
    if (r->h.trapped)
        print_message("trapped: mcause %llu mepc 0x%llx mtval 0x%llx\n",
                      (unsigned long long)r->h.mcause, (unsigned long long)r->h.mepc,
                      (unsigned long long)r->h.mtval);
    assert_false(r->h.trapped);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t got = data64(r, RIG_DATA_BASE + 8 * i);
        if (got != t[i].want) {
            print_message("snippet %zu `%s`: got 0x%llx, want 0x%llx\n", i, t[i].code,
                          (unsigned long long)got, (unsigned long long)t[i].want);
            bad++;
        }
    }
    rig_free(r);
    assert_int_equal(bad, 0);
}

#define RUN_TABLE(t) run_table(t, sizeof(t) / sizeof *(t))

static void base_integer(void **state)
{
    (void)state;
    static const snippet t[] = {
        {"li a1, 7; li a2, -3; add a0, a1, a2", 4},
        {"li a1, 7; li a2, -3; sub a0, a1, a2", 10},
        {"li a1, -1; li a2, 1; slt a0, a1, a2", 1},
        {"li a1, -1; li a2, 1; sltu a0, a1, a2", 0},
        {"li a1, -5; slti a0, a1, -4", 1},
        {"li a1, 5; sltiu a0, a1, -1", 1},
        {"li a1, 0xf0; xori a0, a1, -1", 0xffffffffffffff0full},
        {"li a1, 0xf0; ori a0, a1, 0x0f", 0xff},
        {"li a1, 0xff; andi a0, a1, 0x3c", 0x3c},
        {"li a1, 1; slli a0, a1, 63", 0x8000000000000000ull},
        {"li a1, -8; srli a0, a1, 60", 0xf},
        {"li a1, -8; srai a0, a1, 2", (uint64_t)-2},
        {"li a1, 3; li a2, 65; sll a0, a1, a2", 6}, /* shift amounts mod 64 */
        {"li a1, -1; li a2, 68; srl a0, a1, a2", 0x0fffffffffffffffull},
        {"li a1, -64; li a2, 3; sra a0, a1, a2", (uint64_t)-8},
        {"li a1, 0x5a; li a2, 0xff; xor a0, a1, a2", 0xa5},
        {"li a1, 0x50; li a2, 0x0a; or a0, a1, a2", 0x5a},
        {"li a1, 0x5a; li a2, 0x0f; and a0, a1, a2", 0x0a},
        {"lui a0, 0x80000", 0xffffffff80000000ull},
        {"1: auipc a0, 0; la a1, 1b; sub a0, a0, a1", 0},
        {"li a1, 0x7fffffff; addiw a0, a1, 1", 0xffffffff80000000ull},
        {"li a1, 1; slliw a0, a1, 31", 0xffffffff80000000ull},
        {"li a1, -1; srliw a0, a1, 4", 0x0fffffff},
        {"li a1, 0x80000000; sraiw a0, a1, 4", 0xfffffffff8000000ull},
        {"li a1, 0x7fffffff; li a2, 1; addw a0, a1, a2", 0xffffffff80000000ull},
        {"li a1, 0; li a2, 1; subw a0, a1, a2", (uint64_t)-1},
        {"li a1, 1; li a2, 33; sllw a0, a1, a2", 2},
        {"li a1, -1; li a2, 28; srlw a0, a1, a2", 0xf},
        {"li a1, 0x80000000; li a2, 31; sraw a0, a1, a2", (uint64_t)-1},
        /* branches: each sets a0 to 1 when taken as expected */
        {"li a0, 0; li a1, 3; li a2, 3; beq a1, a2, 1f; li a0, 9; 1: addi a0, a0, 1", 1},
        {"li a0, 0; li a1, 3; li a2, 4; bne a1, a2, 1f; li a0, 9; 1: addi a0, a0, 1", 1},
        {"li a0, 0; li a1, -3; li a2, 4; blt a1, a2, 1f; li a0, 9; 1: addi a0, a0, 1", 1},
        {"li a0, 0; li a1, 4; li a2, -3; bge a1, a2, 1f; li a0, 9; 1: addi a0, a0, 1", 1},
        {"li a0, 0; li a1, 4; li a2, -3; bltu a1, a2, 1f; li a0, 9; 1: addi a0, a0, 1", 1},
        {"li a0, 0; li a1, -3; li a2, 4; bgeu a1, a2, 1f; li a0, 9; 1: addi a0, a0, 1", 1},
        {"li a0, 5; li a1, 5; bne a0, a1, 1f; li a0, 2; 1:", 2}, /* not taken */
        {"li a0, 0; li a1, 10; 1: addi a0, a0, 3; addi a1, a1, -1; bnez a1, 1b", 30},
        /* jumps and links */
        {"jal a1, 1f; 1: la a2, 1b; sub a0, a1, a2", 0},
        {"la a1, 1f; jalr a2, 4(a1); 1: nop; nop; la a3, 1b; sub a0, a2, a3", 0},
        {"la a1, 1f; addi a1, a1, 1; jalr a0, 0(a1); 1: li a0, 11", 11}, /* bit 0 cleared */
        {"la a0, 1f; jalr a0, 0(a0); 1: la a1, 1b; sub a0, a0, a1", 0},  /* rd == rs1 */
        /* loads and stores, every width and sign */
        {"li a1, -2; sd a1, 0(s10); lb a0, 0(s10)", (uint64_t)-2},
        {"lbu a0, 0(s10)", 0xfe},
        {"lh a0, 0(s10)", (uint64_t)-2},
        {"lhu a0, 0(s10)", 0xfffe},
        {"lw a0, 0(s10)", (uint64_t)-2},
        {"lwu a0, 0(s10)", 0xfffffffe},
        {"ld a0, 0(s10)", (uint64_t)-2},
        {"li a1, 0x1122334455667788; sd a1, 8(s10); sb zero, 8(s10); sh zero, 10(s10);"
         "ld a0, 8(s10)",
         0x1122334400007700ull},
        {"li a1, 0xaabbccdd; sw a1, 12(s10); ld a0, 8(s10)", 0xaabbccdd00007700ull},
        {"lw a0, -4(s10)", 0}, /* negative offsets */
        /* x0 stays zero */
        {"addi x0, x0, 5; lui x0, 1; ld x0, 0(s10); jal x0, 1f; 1: csrr x0, mscratch;"
         "mv a0, x0",
         0},
        {"fence; fence rw, rw; fence.i; li a0, 3", 3},
    };
    RUN_TABLE(t);
}

static void multiply_divide(void **state)
{
    (void)state;
    static const snippet t[] = {
        {"li a1, -7; li a2, 6; mul a0, a1, a2", (uint64_t)-42},
        {"li a1, -1; li a2, -1; mulh a0, a1, a2", 0},
        {"li a1, 1; slli a1, a1, 63; mulh a0, a1, a1", 0x4000000000000000ull},
        {"li a1, -1; li a2, -1; mulhsu a0, a1, a2", (uint64_t)-1},
        {"li a1, 2; li a2, -1; mulhsu a0, a1, a2", 1},
        {"li a1, -1; li a2, -1; mulhu a0, a1, a2", 0xfffffffffffffffeull},
        {"li a1, 0x10000; li a2, 0x10000; mulw a0, a1, a2", 0},
        {"li a1, 0x10000; li a2, 0x8000; mulw a0, a1, a2", 0xffffffff80000000ull},
        {"li a1, 7; li a2, -2; div a0, a1, a2", (uint64_t)-3},
        {"li a1, 7; li a2, 0; div a0, a1, a2", (uint64_t)-1},
        {"li a1, 1; slli a1, a1, 63; li a2, -1; div a0, a1, a2", 0x8000000000000000ull},
        {"li a1, 7; li a2, 0; divu a0, a1, a2", UINT64_MAX},
        {"li a1, -7; li a2, 2; divu a0, a1, a2", 0x7ffffffffffffffcull},
        {"li a1, -7; li a2, 2; rem a0, a1, a2", (uint64_t)-1},
        {"li a1, -7; li a2, 0; rem a0, a1, a2", (uint64_t)-7},
        {"li a1, 1; slli a1, a1, 63; li a2, -1; rem a0, a1, a2", 0},
        {"li a1, -7; li a2, 0; remu a0, a1, a2", (uint64_t)-7},
        {"li a1, 7; li a2, 3; remu a0, a1, a2", 1},
        {"li a1, 0x100000007; li a2, 2; divw a0, a1, a2", 3},
        {"li a1, 7; li a2, 0; divw a0, a1, a2", (uint64_t)-1},
        {"li a1, 0x80000000; li a2, -1; divw a0, a1, a2", 0xffffffff80000000ull},
        {"li a1, 7; li a2, 0; divuw a0, a1, a2", UINT64_MAX},
        {"li a1, -2; li a2, 1; divuw a0, a1, a2", (uint64_t)-2}, /* 0xfffffffe sign-extended */
        {"li a1, -7; li a2, 0; remw a0, a1, a2", (uint64_t)-7},
        {"li a1, 0x80000000; li a2, -1; remw a0, a1, a2", 0},
        {"li a1, 0x1fffffff9; li a2, 0; remuw a0, a1, a2", (uint64_t)-7},
        {"li a1, 10; li a2, 4; remuw a0, a1, a2", 2},
    };
    RUN_TABLE(t);
}

static void compressed_forms(void **state)
{
    (void)state;
    static const snippet t[] = {
        {"li sp, 0x1000; c.addi4spn a0, sp, 1020", 0x1000 + 1020},
        {"li a1, -5; sw a1, 64(s10); mv s1, s10; c.lw a0, 64(s1)", (uint64_t)-5},
        {"li a1, -6; sd a1, 248(s10); mv s1, s10; c.ld a0, 248(s1)", (uint64_t)-6},
        {"mv s1, s10; li a1, -9; c.sw a1, 4(s1); lw a0, 4(s10)", (uint64_t)-9},
        {"mv s1, s10; li a1, 0x123456789; c.sd a1, 16(s1); ld a0, 16(s10)", 0x123456789ull},
        {"li a1, 0x2000; csrs mstatus, a1; li a1, 0x4005bf0a3d70a3d7; sd a1, 0(s10); mv s1, s10;"
         "c.fld fa0, 0(s1); c.fsd fa0, 8(s1); ld a0, 8(s10)",
         0x4005bf0a3d70a3d7ull},
        {"li a0, 10; c.addi a0, -3", 7},
        {"c.nop; li a0, 1", 1},
        {"li a0, 0x7fffffff; c.addiw a0, 1", 0xffffffff80000000ull},
        {"c.li a0, -32", (uint64_t)-32},
        {"li sp, 0x1000; c.addi16sp sp, -512; mv a0, sp", 0x1000 - 512},
        {"li sp, 0x1000; c.addi16sp sp, 496; mv a0, sp", 0x1000 + 496},
        {"c.lui a0, 0xfffe0", 0xfffffffffffe0000ull},
        {"c.lui a0, 31", 0x1f000},
        {"li a0, -16; c.srli a0, 60", 0xf},
        {"li a0, -16; c.srai a0, 2", (uint64_t)-4},
        {"li a0, 0xff; c.andi a0, -16", 0xf0},
        {"li a0, 10; li a1, 3; c.sub a0, a1", 7},
        {"li a0, 0x5a; li a1, 0xff; c.xor a0, a1", 0xa5},
        {"li a0, 0x50; li a1, 0x0a; c.or a0, a1", 0x5a},
        {"li a0, 0x5a; li a1, 0x0f; c.and a0, a1", 0x0a},
        {"li a0, 0; li a1, 1; c.subw a0, a1", (uint64_t)-1},
        {"li a0, 0x7fffffff; li a1, 1; c.addw a0, a1", 0xffffffff80000000ull},
        {"li a0, 1; c.j 1f; li a0, 2; 1:", 1},
        {"li a0, 0; c.beqz a0, 1f; li a0, 5; 1:", 0},
        {"li a0, 3; c.beqz a0, 1f; li a0, 5; 1:", 5},
        {"li a0, 3; c.bnez a0, 1f; li a0, 5; 1:", 3},
        {"li a0, 0; li a1, 4; 1: addi a0, a0, 2; addi a1, a1, -1; c.bnez a1, 1b", 8},
        {"li a0, 3; c.slli a0, 62", 0xc000000000000000ull},
        {"li sp, 0x80100100; li t0, -2; c.swsp t0, 12(sp); c.lwsp a0, 12(sp)", (uint64_t)-2},
        {"li sp, 0x80100100; li t0, 0x1234567890; c.sdsp t0, 504(sp); c.ldsp a0, 504(sp)",
         0x1234567890ull},
        {"li sp, 0x80100100; li t0, 0x3ff8000000000000; sd t0, 0(sp);"
         "c.fldsp fa1, 0(sp); c.fsdsp fa1, 24(sp); ld a0, 24(sp)",
         0x3ff8000000000000ull},
        {"la t0, 1f; li a0, 1; c.jr t0; li a0, 2; 1:", 1},
        {"li a1, 77; c.mv a0, a1", 77},
        {"la t0, 1f; c.jalr t0; 1: sub a0, ra, t0", 0},
        {"li a0, 3; li a1, 4; c.add a0, a1", 7},
    };
    RUN_TABLE(t);
}

static void compressed_reserved(void **state)
{
    (void)state;
    /* Reserved encodings expand to nothing (illegal) ... */
    static const uint16_t reserved[] = {
        0x0000, /* c.addi4spn, imm 0 (and the all-zero halfword) */
        0x2001, /* c.addiw rd=0 */
        0x6101, /* c.addi16sp imm 0 */
        0x6501, /* c.lui a0, 0 */
        0x9c41, /* Q1 100 1 11 .. 10: reserved */
        0x9c61, /* Q1 100 1 11 .. 11: reserved */
        0x8000, /* Q0 funct3 100 */
        0x4002, /* c.lwsp rd=0 */
        0x6002, /* c.ldsp rd=0 */
        0x8002, /* c.jr rs1=0 */
    };
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++) {
        if (sim_rvc_expand(reserved[i]) != 0)
            print_message("0x%04x\n", reserved[i]);
        assert_int_equal(sim_rvc_expand(reserved[i]), 0);
    }
    /* ... HINTs do not: they execute as the no-ops they are. */
    static const uint16_t hints[] = {0x0005, 0x4005, 0x0082, 0x800a, 0x900a, 0x6005, 0x8001};
    for (size_t i = 0; i < sizeof hints / sizeof *hints; i++)
        assert_int_not_equal(sim_rvc_expand(hints[i]), 0);
    /* A reserved halfword traps with its 16 bits in mtval. */
    rig *r = rig_new("la t6, 1f; 1: .2byte 0x6101; wfi");
    run_hart(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mcause, SIM_CAUSE_ILLEGAL);
    assert_int_equal(r->h.mepc, r->h.x[T6]);
    assert_int_equal(r->h.mtval, 0x6101);
    rig_free(r);
}

/* Every halfword: a compressed instruction expands to a 32-bit one the
 * decoder accepts (a mistake in a field's placement tends to produce an
 * illegal or different instruction), or to 0 when reserved. */
static void compressed_expansions_decode(void **state)
{
    (void)state;
    unsigned legal = 0;
    for (uint32_t c = 0; c < 0x10000; c++) {
        if ((c & 3) == 3)
            continue;
        uint32_t insn = sim_rvc_expand((uint16_t)c);
        if (insn == 0)
            continue;
        sim_insn d;
        sim_decode(&d, insn);
        if (d.op == SIM_OP_ILLEGAL)
            print_message("0x%04x expands to illegal 0x%08x\n", c, insn);
        assert_int_not_equal(d.op, SIM_OP_ILLEGAL);
        legal++;
    }
    assert_true(legal > 40000);
}

static void atomics(void **state)
{
    (void)state;
    static const snippet t[] = {
        /* AMOs on a doubleword whose high word must not change under W forms */
        {"li t0, 0x1111111180000000; sd t0, 0(s10); li t1, 1; amoadd.w a0, t1, (s10)",
         0xffffffff80000000ull},
        {"ld a0, 0(s10)", 0x1111111180000001ull},
        {"li t1, 5; amoswap.w a0, t1, (s10)", 0xffffffff80000001ull},
        {"lw a0, 0(s10)", 5},
        {"li t1, 3; amoxor.w a0, t1, (s10); lw a0, 0(s10)", 6},
        {"li t1, 9; amoor.w a0, t1, (s10); lw a0, 0(s10)", 15},
        {"li t1, 12; amoand.w a0, t1, (s10); lw a0, 0(s10)", 12},
        {"li t1, -1; amomin.w a0, t1, (s10); lw a0, 0(s10)", (uint64_t)-1},
        {"li t1, 7; amomax.w a0, t1, (s10); lw a0, 0(s10)", 7},
        {"li t1, -1; amominu.w a0, t1, (s10); lw a0, 0(s10)", 7},
        {"li t1, -1; amomaxu.w a0, t1, (s10); lw a0, 0(s10)", (uint64_t)-1},
        {"ld a0, 0(s10)", 0x11111111ffffffffull},
        {"li t0, 100; sd t0, 8(s10); addi t2, s10, 8; li t1, -1; amoadd.d a0, t1, (t2)", 100},
        {"ld a0, 8(s10)", 99},
        {"li t1, 4; amoswap.d a0, t1, (t2); ld a0, 8(s10)", 4},
        {"li t1, 6; amoxor.d a0, t1, (t2); ld a0, 8(s10)", 2},
        {"li t1, 5; amoor.d a0, t1, (t2); ld a0, 8(s10)", 7},
        {"li t1, 6; amoand.d a0, t1, (t2); ld a0, 8(s10)", 6},
        {"li t1, -6; amomin.d a0, t1, (t2); ld a0, 8(s10)", (uint64_t)-6},
        {"li t1, 3; amomax.d a0, t1, (t2); ld a0, 8(s10)", 3},
        {"li t1, -3; amominu.d a0, t1, (t2); ld a0, 8(s10)", 3},
        {"li t1, -3; amomaxu.d a0, t1, (t2); ld a0, 8(s10)", (uint64_t)-3},
        {"li t1, 8; amoadd.d.aqrl zero, t1, (t2); ld a0, 8(s10)", 5}, /* rd = x0 */
        /* LR/SC */
        {"li t0, 41; sd t0, 16(s10); addi t2, s10, 16; lr.d a1, (t2); addi a1, a1, 1;"
         "sc.d a0, a1, (t2)",
         0},
        {"ld a0, 16(s10)", 42},
        {"li a1, 7; sc.d a0, a1, (t2)", 1}, /* the reservation was used */
        {"ld a0, 16(s10)", 42},
        {"lr.w a1, (t2); li a1, -1; sw a1, 16(s10); sc.w a0, a1, (t2)", 0}, /* own store: kept */
        {"lr.w a1, (t2); addi t3, t2, 8; sc.w a0, a1, (t3)", 0},  /* same 64-byte line */
        {"lr.w a1, (t2); addi t3, t2, 64; sc.w a0, a1, (t3)", 1}, /* another line */
        {"li t0, -5; sw t0, 16(s10); lr.w a0, (t2)", (uint64_t)-5},
    };
    RUN_TABLE(t);
}

/* Another hart's store to the line, or a NoC write, loses the reservation. */
static void reservation_lost_to_other_writers(void **state)
{
    (void)state;
    rig *r = rig_new("li t0, 1; sd t0, 0(s10); lr.d a0, (s10); wfi; li t1, 9;"
                     "sc.d a1, t1, (s10); wfi\n"
                     ".org 0x1000\n"
                     "li s10, 0x80100800; li t0, 5; sd t0, 56(s10); wfi");
    sim_hart other;
    hart_start(r, &other, 1, RIG_CODE_BASE + 0x1000);
    assert_int_equal(r->mem.nharts, 2);
    run_hart(&r->h);
    assert_true(r->h.reserved);
    run_hart(&other); /* the same 64-byte line */
    assert_false(r->h.reserved);
    sim_hart_wake(&r->h);
    run_hart(&r->h);
    assert_false(r->h.trapped);
    assert_int_equal(r->h.x[A1], 1);
    assert_int_equal(data64(r, SCRATCH), 1);

    /* a NoC write (no writer) does the same; another line does not */
    r->h.reserved = true;
    r->h.reservation = SCRATCH;
    sim_mem_note_store(&r->mem, NULL, SCRATCH + 64);
    assert_true(r->h.reserved);
    sim_mem_note_store(&r->mem, &r->h, SCRATCH + 8); /* its own store */
    assert_true(r->h.reserved);
    sim_mem_note_store(&r->mem, NULL, SCRATCH + 63);
    assert_false(r->h.reserved);

    sim_hart_free(&other);
    assert_int_equal(r->mem.nharts, 1);
    rig_free(r);
}

static void bit_manipulation(void **state)
{
    (void)state;
    static const snippet t[] = {
        {"li a1, 5; li a2, 100; sh1add a0, a1, a2", 110},
        {"li a1, 5; li a2, 100; sh2add a0, a1, a2", 120},
        {"li a1, 5; li a2, 100; sh3add a0, a1, a2", 140},
        {"li a1, -1; li a2, 1; add.uw a0, a1, a2", 0x100000000ull},
        {"li a1, -1; li a2, 1; sh1add.uw a0, a1, a2", 0x1ffffffffull},
        {"li a1, -1; li a2, 0; sh2add.uw a0, a1, a2", 0x3fffffffcull},
        {"li a1, -1; li a2, 8; sh3add.uw a0, a1, a2", 0x800000000ull},
        {"li a1, -1; slli.uw a0, a1, 4", 0xffffffff0ull},
        {"li a1, -1; zext.w a0, a1", 0xffffffffull},
        {"li a1, 0xff; li a2, 0x0f; andn a0, a1, a2", 0xf0},
        {"li a1, 0; li a2, -2; orn a0, a1, a2", 1},
        {"li a1, 0xf0; li a2, 0xff; xnor a0, a1, a2", 0xfffffffffffffff0ull},
        {"li a1, 1; clz a0, a1", 63},
        {"li a1, 0; clz a0, a1", 64},
        {"li a1, 0x100; ctz a0, a1", 8},
        {"li a1, 0; ctz a0, a1", 64},
        {"li a1, -1; cpop a0, a1", 64},
        {"li a1, 0x100000001; clzw a0, a1", 31},
        {"li a1, 0x100000000; clzw a0, a1", 32},
        {"li a1, 0x100000000; ctzw a0, a1", 32},
        {"li a1, 0xf00000003; cpopw a0, a1", 2},
        {"li a1, -3; li a2, 2; max a0, a1, a2", 2},
        {"li a1, -3; li a2, 2; maxu a0, a1, a2", (uint64_t)-3},
        {"li a1, -3; li a2, 2; min a0, a1, a2", (uint64_t)-3},
        {"li a1, -3; li a2, 2; minu a0, a1, a2", 2},
        {"li a1, 0x80; sext.b a0, a1", 0xffffffffffffff80ull},
        {"li a1, 0x18000; sext.h a0, a1", 0xffffffffffff8000ull},
        {"li a1, -1; zext.h a0, a1", 0xffff},
        {"li a1, 0x8000000000000001; li a2, 1; rol a0, a1, a2", 3},
        {"li a1, 3; li a2, 65; ror a0, a1, a2", 0x8000000000000001ull},
        {"li a1, 3; rori a0, a1, 1", 0x8000000000000001ull},
        {"li a1, 0x80000001; li a2, 1; rolw a0, a1, a2", 3},
        {"li a1, 3; li a2, 1; rorw a0, a1, a2", 0xffffffff80000001ull},
        {"li a1, 0x100000003; roriw a0, a1, 1", 0xffffffff80000001ull},
        {"li a1, 0x0100ff0000000012; orc.b a0, a1", 0xff00ff00000000ffull},
        {"li a1, 0x0102030405060708; rev8 a0, a1", 0x0807060504030201ull},
    };
    RUN_TABLE(t);
}

static void csr_rules(void **state)
{
    (void)state;
    uint64_t misa = (2ull << 62) | (1u << 0) | (1u << 2) | (1u << 3) | (1u << 5) | (1u << 8) |
                    (1u << 12) | (1u << 21);
    const snippet t[] = {
        {"csrr a0, misa", misa},
        {"li t0, -1; csrw misa, t0; csrr a0, misa", misa}, /* WARL: read-only */
        {"csrr a0, mstatus", 0x1800},                      /* MPP = machine */
        {"li t0, -1; csrw mstatus, t0; csrr a0, mstatus", 0x8000000000007e88ull},
        {"csrw mstatus, zero; csrr a0, mstatus", 0x1800},
        {"li t0, 0x4000; csrs mstatus, t0; csrr a0, mstatus", 0x5800},
        {"li t0, 0x6000; csrc mstatus, t0; csrr a0, mstatus", 0x1800},
        {"csrr a0, mhartid", 0},
        {"csrrs a0, mhartid, zero", 0}, /* rs1 = x0: no write, so legal */
        {"csrrci a0, mhartid, 0", 0},   /* uimm = 0: no write */
        {"csrr t0, mtvec; li t1, 0x12345677; csrw mtvec, t1; csrr a0, mtvec; csrw mtvec, t0",
         0x12345674},
        {"li t0, 0x1235; csrw mepc, t0; csrr a0, mepc", 0x1234},
        {"li t0, 5; csrw mscratch, t0; li t1, 9; csrrw a0, mscratch, t1", 5},
        {"csrr a0, mscratch", 9},
        {"csrwi mscratch, 0; csrsi mscratch, 7; csrci mscratch, 2; csrr a0, mscratch", 5},
        {"csrrwi a0, mscratch, 31; csrr a0, mscratch", 31},
        {"li t0, 0x2a; csrrs a0, mscratch, t0; csrrc a0, mscratch, t0; csrr a0, mscratch", 0x15},
        {"li t0, -1; csrw mcause, t0; csrr a0, mcause", UINT64_MAX},
        {"li t0, 77; csrw mtval, t0; csrr a0, mtval", 77},
        {"li t0, -1; csrw mie, t0; csrr a0, mie", 0x888},
        {"li t0, -1; csrw mip, t0; csrr a0, mip", 0},
        {"csrr a0, mvendorid", 0},
        {"rdcycle a0; snez a0, a0", 1},
        {"rdcycle a1; rdcycle a2; sub a0, a2, a1", 1},
        {"rdinstret a1; nop; rdinstret a2; sub a0, a2, a1", 2},
        {"li t0, 1000; csrw mcycle, t0; csrr a0, mcycle", 1000},
        {"li t0, 500; csrw minstret, t0; rdinstret a0", 500},
        {"li t0, 500; csrw minstret, t0; nop; csrr a0, minstret", 501},
        /* time: the test's mtime is 1000 + cycle / 10 */
        {"rdtime a1; li t0, 1000; sltu a0, a1, t0", 0},
        /* FP CSRs with FS on; a write makes FS Dirty */
        {"li t0, 0x2000; csrs mstatus, t0; li t0, 0xfff; csrw fcsr, t0; csrr a0, fcsr", 0xff},
        {"csrr a0, frm", 7},
        {"csrr a0, fflags", 0x1f},
        {"csrwi frm, 2; csrwi fflags, 1; csrr a0, fcsr", 0x41},
        {"csrr a0, mstatus; srli a0, a0, 13; andi a0, a0, 3", 3},
        {"csrr a0, mstatus; srli a0, a0, 63", 1}, /* SD */
    };
    RUN_TABLE(t);
}

/* The modeled time of a known sequence: csrr (1), ld from RAM of latency
 * RIG_DATA_LATENCY (1 + 5), mul (1 + 3), div (1 + 20), a device load (1 + 7). */
static void modeled_time(void **state)
{
    (void)state;
    rig *r = rig_new("li t3, 0x10000000; csrr a0, mcycle; csrr a2, minstret;"
                     "ld t0, 0(s10); mul t1, t0, t0; div t2, t0, t1; ld t4, 0(t3);"
                     "csrr a1, mcycle; csrr a3, minstret; wfi");
    run_hart(&r->h);
    assert_false(r->h.trapped);
    uint64_t want = 1 + 1 + (1 + RIG_DATA_LATENCY) + (1 + SIM_COST_MUL) + (1 + SIM_COST_DIV) +
                    (1 + RIG_DEV_LATENCY);
    assert_int_equal(r->h.x[A1] - r->h.x[A0], want);
    assert_int_equal(r->h.x[A1 + 2] - r->h.x[A2], 6);
    assert_int_equal(r->dev_loads, 1);
    rig_free(r);
}

typedef enum { TVAL_ZERO, TVAL_BITS, TVAL_PC, TVAL_T5 } tval_kind;

typedef struct trap_case {
    const char *code; /* the trapping instruction is at label 1 */
    uint64_t cause;
    tval_kind tval;
} trap_case;

/* Each program traps at its label 1; mepc must point there, mtval as said. */
static void traps(void **state)
{
    (void)state;
    static const trap_case t[] = {
        /* vector instructions and CSRs with mstatus.VS off (as at reset) */
        {".word 0x022081d7", SIM_CAUSE_ILLEGAL, TVAL_BITS},                /* vadd.vv */
        {"li a0, 0x80100800; 1: .word 0x02056087", SIM_CAUSE_ILLEGAL, TVAL_BITS}, /* vle32.v */
        {"li a0, 0x80100800; 1: .word 0x020560a7", SIM_CAUSE_ILLEGAL, TVAL_BITS}, /* vse32.v */
        {".word 0x0d0572d7", SIM_CAUSE_ILLEGAL, TVAL_BITS}, /* vsetvli t0, a0, e32 */
        {".word 0x0000007f", SIM_CAUSE_ILLEGAL, TVAL_BITS},  /* a 64-bit-form prefix */
        {".word 0x00000073 | (0x102 << 20)", SIM_CAUSE_ILLEGAL, TVAL_BITS}, /* sret */
        {".word 0x10200073 | (0x100 << 20) | (5 << 15)", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"csrr a0, 0x7c0", SIM_CAUSE_ILLEGAL, TVAL_BITS},       /* unknown CSR */
        {"csrr a0, vl", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"csrr a0, 0xc22", SIM_CAUSE_ILLEGAL, TVAL_BITS}, /* vlenb */
        {"csrwi 0x008, 1", SIM_CAUSE_ILLEGAL, TVAL_BITS}, /* vstart */
        {"csrw mhartid, a0", SIM_CAUSE_ILLEGAL, TVAL_BITS},      /* read-only */
        {"csrrw zero, cycle, zero", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"csrrsi a0, time, 1", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"frcsr a0", SIM_CAUSE_ILLEGAL, TVAL_BITS},               /* FS off */
        {"fsflagsi 1", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"flw fa0, 0(s10)", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"fsd fa0, 0(s10)", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"fadd.d fa0, fa1, fa2", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"fmadd.s fa0, fa1, fa2, fa3", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"mv s1, s10; 1: c.fld fa0, 0(s1)", SIM_CAUSE_ILLEGAL, TVAL_BITS},
        {"ecall", SIM_CAUSE_ECALL_M, TVAL_ZERO},
        {"ebreak", SIM_CAUSE_BREAKPOINT, TVAL_PC},
        {"c.ebreak", SIM_CAUSE_BREAKPOINT, TVAL_PC},
        {"addi t5, s10, 2; 1: lw a0, 0(t5)", SIM_CAUSE_LOAD_MISALIGNED, TVAL_T5},
        {"addi t5, s10, 4; 1: ld a0, 0(t5)", SIM_CAUSE_LOAD_MISALIGNED, TVAL_T5},
        {"addi t5, s10, 1; 1: lhu a0, 0(t5)", SIM_CAUSE_LOAD_MISALIGNED, TVAL_T5},
        {"addi t5, s10, 6; 1: sd a0, 0(t5)", SIM_CAUSE_STORE_MISALIGNED, TVAL_T5},
        {"addi t5, s10, 1; 1: sh a0, 0(t5)", SIM_CAUSE_STORE_MISALIGNED, TVAL_T5},
        {"addi t5, s10, 4; 1: lr.d a0, (t5)", SIM_CAUSE_LOAD_MISALIGNED, TVAL_T5},
        {"addi t5, s10, 4; 1: sc.d a0, a1, (t5)", SIM_CAUSE_STORE_MISALIGNED, TVAL_T5},
        {"addi t5, s10, 2; 1: amoadd.w a0, a1, (t5)", SIM_CAUSE_STORE_MISALIGNED, TVAL_T5},
        {"li t0, 0x2000; csrs mstatus, t0; addi t5, s10, 4; 1: fld fa0, 0(t5)",
         SIM_CAUSE_LOAD_MISALIGNED, TVAL_T5},
        {"li t0, 0x2000; csrs mstatus, t0; addi t5, s10, 2; 1: fsw fa0, 0(t5)",
         SIM_CAUSE_STORE_MISALIGNED, TVAL_T5},
        {"li t5, 0x4000; 1: ld a0, 0(t5)", SIM_CAUSE_LOAD_ACCESS, TVAL_T5},
        /* past the device */
        {"li t5, 0x10000040; 1: lb a0, 0(t5)", SIM_CAUSE_LOAD_ACCESS, TVAL_T5},
        {"li t5, 0x4000; 1: sw a0, 0(t5)", SIM_CAUSE_STORE_ACCESS, TVAL_T5},
        {"li t5, 0x4000; 1: amoor.d a0, a1, (t5)", SIM_CAUSE_STORE_ACCESS, TVAL_T5},
        {"li t5, 0x4000; 1: lr.w a0, (t5)", SIM_CAUSE_LOAD_ACCESS, TVAL_T5},
        {"li t5, 0x80101000; 1: ld a0, 0(t5)", SIM_CAUSE_LOAD_ACCESS, TVAL_T5}, /* past RAM */
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        char src[512];
        /* "la t6, 1f" must come before the label: put it first */
        if (strstr(t[i].code, "1:"))
            snprintf(src, sizeof src, "la t6, 1f; %s; wfi", t[i].code);
        else
            snprintf(src, sizeof src, "la t6, 1f; 1: %s; wfi", t[i].code);
        rig *r = rig_new(src);
        run_hart(&r->h);
        sim_hart *h = &r->h;
        uint64_t want_tval = 0;
        uint64_t epc_off = h->x[T6] - RIG_CODE_BASE;
        uint32_t bits = 0;
        memcpy(&bits, r->code + epc_off, 4);
        if ((bits & 3) != 3)
            bits &= 0xffff;
        switch (t[i].tval) {
        case TVAL_ZERO: want_tval = 0; break;
        case TVAL_BITS: want_tval = bits; break;
        case TVAL_PC: want_tval = h->x[T6]; break;
        case TVAL_T5: want_tval = h->x[T5]; break;
        }
        if (!h->trapped || h->mcause != t[i].cause || h->mepc != h->x[T6] || h->mtval != want_tval)
            print_message("case %zu `%s`: trapped %d mcause %llu mepc 0x%llx (want 0x%llx) "
                          "mtval 0x%llx (want 0x%llx)\n",
                          i, t[i].code, h->trapped, (unsigned long long)h->mcause,
                          (unsigned long long)h->mepc, (unsigned long long)h->x[T6],
                          (unsigned long long)h->mtval, (unsigned long long)want_tval);
        assert_true(h->trapped);
        assert_int_equal(h->mcause, t[i].cause);
        assert_int_equal(h->mepc, h->x[T6]);
        assert_int_equal(h->mtval, want_tval);
        assert_int_equal(h->trap_cause, t[i].cause);
        assert_int_equal(h->trap_epc, h->x[T6]);
        assert_int_equal(h->trap_tval, want_tval);
        assert_int_equal(h->pc, RIG_CODE_BASE + TRAP_STUB + 4); /* ran the stub's wfi */
        rig_free(r);
    }
}

/* A jump outside the code range faults at the target (mepc = mtval =
 * target); a 32-bit instruction whose second half is past the range
 * faults with mtval at that half. */
static void fetch_outside_code(void **state)
{
    (void)state;
    rig *r = rig_new("li t5, 0x80004000; jr t5");
    run_hart(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mcause, SIM_CAUSE_FETCH_ACCESS);
    assert_int_equal(r->h.mepc, 0x80004000);
    assert_int_equal(r->h.mtval, 0x80004000);
    rig_free(r);

    /* code RAM past the range: still outside the code range */
    r = rig_new("li t5, 0x80100000; jr t5");
    run_hart(&r->h);
    assert_int_equal(r->h.mcause, SIM_CAUSE_FETCH_ACCESS);
    assert_int_equal(r->h.mtval, 0x80100000);
    rig_free(r);

    r = rig_new("nop; wfi");
    r->h.pc = RIG_CODE_BASE + 1; /* only an owner can do this */
    run_hart(&r->h);
    assert_int_equal(r->h.mcause, SIM_CAUSE_FETCH_MISALIGNED);
    assert_int_equal(r->h.mtval, RIG_CODE_BASE + 1);
    rig_free(r);

    r = rig_new("nop");
    uint32_t addi = 0x00100513; /* li a0, 1 */
    memcpy(r->code + RIG_CODE_SIZE - 2, &addi, 2);
    r->h.pc = RIG_CODE_BASE + RIG_CODE_SIZE - 2;
    run_hart(&r->h);
    assert_int_equal(r->h.mcause, SIM_CAUSE_FETCH_ACCESS);
    assert_int_equal(r->h.mepc, RIG_CODE_BASE + RIG_CODE_SIZE - 2);
    assert_int_equal(r->h.mtval, RIG_CODE_BASE + RIG_CODE_SIZE);
    rig_free(r);
}

static void mret_returns(void **state)
{
    (void)state;
    rig *r = rig_new("la t0, handler; csrw mtvec, t0; csrsi mstatus, 8;"
                     "li a1, 0; ecall; mv a2, a1; csrr a3, mstatus; wfi\n"
                     "handler: csrr a4, mstatus; csrr t0, mepc; addi t0, t0, 4; csrw mepc, t0;"
                     "li a1, 42; mret");
    run_hart(&r->h);
    sim_hart *h = &r->h;
    assert_int_equal(h->x[A2], 42);
    assert_int_equal(h->x[14] & 0x88, 0x80); /* in the handler: MIE 0, MPIE 1 */
    assert_int_equal(h->x[13] & 0x88, 0x88); /* after mret: MIE 1, MPIE 1 */
    assert_int_equal(h->x[13] & 0x1800, 0x1800);
    assert_int_equal(h->mcause, SIM_CAUSE_ECALL_M);
    rig_free(r);
}

static void wfi_waits(void **state)
{
    (void)state;
    rig *r = rig_new("li a0, 1; 1: wfi; li a0, 2; wfi");
    sim_hart *h = &r->h;
    run_hart(h);
    assert_int_equal(h->x[A0], 1);
    uint64_t pc = h->pc, cycle = h->cycle;
    assert_int_equal(sim_hart_run(h, h->cycle + 1000), SIM_HART_WFI);
    assert_int_equal(h->pc, pc);
    assert_int_equal(h->cycle, cycle);
    sim_hart_wake(h);
    assert_int_equal(h->state, SIM_HART_RUNNING);
    run_hart(h);
    assert_int_equal(h->x[A0], 2);
    assert_int_equal(h->pc, pc + 6); /* li (2) and wfi (4) */
    sim_hart_halt(h);
    sim_hart_wake(h); /* only wfi wakes */
    assert_int_equal(sim_hart_run(h, h->cycle + 1000), SIM_HART_HALTED);
    rig_free(r);
}

/* The run stops at until_cycle, and a later run goes on from there. */
static void runs_in_quanta(void **state)
{
    (void)state;
    rig *r = rig_new("li a0, 0; li a1, 1000; 1: addi a0, a0, 1; bne a0, a1, 1b; wfi");
    sim_hart *h = &r->h;
    unsigned calls = 0;
    while (sim_hart_run(h, h->cycle + 100) == SIM_HART_RUNNING)
        calls++;
    assert_true(calls >= 19);
    assert_int_equal(h->x[A0], 1000);
    assert_true(h->instret > 2000);
    rig_free(r);
}

/* A run stops exactly where an instruction-at-a-time run would: at the
 * first instruction boundary at or past its limit.  Blocks add their
 * static cost on entry, so this is what the hot loop's entry check, its
 * cut of a block that does not fit, and its checks after each latency
 * (RAM, a device, traps) must get right.  The reference steps one
 * instruction a call (an instruction costs at least a cycle). */
static const char exact_program[] =
    "la t0, 3f; csrw mtvec, t0\n"
    "li s0, 0; li s1, 40; li s2, 0x10000000; li t2, 0\n"
    "1: ld a0, 0(s10); addi a0, a0, 3; sd a0, 0(s10); mul a1, a0, s1\n"
    "lw a2, 0(s2); div a3, a1, s1; addi s0, s0, 1; andi t1, s0, 7\n"
    "bnez t1, 2f; ecall\n"
    "2: addi t2, t2, 1; c.addi t2, 1; j 5f; addi t2, t2, 100\n"
    "5: blt s0, s1, 1b; j 6f; 7: wfi; 6: addi t2, t2, 3; j 7b\n"
    ".balign 4; 3: csrr t0, mepc; addi t0, t0, 4; csrw mepc, t0; mret";

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
static void harts_share_decoded_code(void **state)
{
    (void)state;
    rig *r = rig_new("li a0, 1; wfi");
    sim_hart other;
    hart_start(r, &other, 1, RIG_CODE_BASE);
    assert_ptr_equal(other.icache, r->h.icache);
    assert_int_equal(r->h.icache->users, 2);
    run_hart(&r->h);
    run_hart(&other);
    assert_int_equal(r->h.x[A0], 1);
    assert_int_equal(other.x[A0], 1);
    sim_hart_free(&other);
    assert_int_equal(r->h.icache->users, 1);
    rig_free(r);
}

/* Calls and returns: jal and jalr to changing targets, a jalr whose link
 * register is its own base (the target read before the link is written),
 * the same whether run at once or in quanta of any size (the translated
 * code links a jalr to the last target its handler found, and leaves it
 * for the handlers on any other). */
static void calls_and_returns(void **state)
{
    (void)state;
    static const char prog[] =
        "li s0, 0; li s1, 0\n"
        "1: jal ra, 2f; add s1, s1, a0; jal ra, 3f; add s1, s1, a0\n"
        "la t0, 4f; jalr t0, 0(t0)\n"
        "addi s0, s0, 1; li t1, 50; blt s0, t1, 1b; wfi\n"
        "2: li a0, 3; ret\n"
        "3: li a0, 5; ret\n"
        "4: addi s1, s1, 7; jr t0";
    rig *ref = rig_new(prog);
    run_hart(&ref->h);
    assert_false(ref->h.trapped);
    assert_int_equal(ref->h.x[9], 50 * (3 + 5 + 7)); /* s1 */
    static const unsigned quanta[] = {1, 3, 7, 17, 64};
    for (size_t q = 0; q < sizeof quanta / sizeof quanta[0]; q++) {
        rig *r = rig_new(prog);
        run_in_quanta(&r->h, quanta[q]);
        assert_same_run(&r->h, &ref->h);
        rig_free(r);
    }
    rig_free(ref);
}

/* Translations that fill their mapping are dropped and made again as
 * the code runs on: a mapping with room for a few blocks only gives the
 * same run as one that never fills, at once and in quanta. */
static void translations_cleared_when_full(void **state)
{
    (void)state;
    rig *ref = rig_new(exact_program);
    run_hart(&ref->h);
    static const unsigned quanta[] = {10000000, 37, 64};
    for (size_t q = 0; q < sizeof quanta / sizeof quanta[0]; q++) {
        rig *r = rig_new(exact_program);
        struct sim_jit *jt = r->h.icache->jit; /* NULL: interpreted */
        if (jt)
            sim_jit_limit(jt, 8 * 1024);
        run_in_quanta(&r->h, quanta[q]);
        assert_int_equal(r->h.state, SIM_HART_WFI);
        assert_int_equal(r->h.traps, ref->h.traps);
        assert_same_run(&r->h, &ref->h);
        if (jt)
            assert_true(sim_jit_clears(jt) > 0);
        rig_free(r);
    }
    rig_free(ref);
}

/* fence.i drops the decoded cache: code written before it runs as
 * written; without it, the decoded (old) instruction still runs. */
static void fence_i_drops_decoded(void **state)
{
    (void)state;
    rig *r = rig_new("li s0, 0\n"
                     "2: .option push; .option norvc; 1: li a0, 1; .option pop\n"
                     "addi s0, s0, 1; li t0, 2; beq s0, t0, 3f; li t0, 3; beq s0, t0, 4f\n"
                     "la t0, 1b; li t1, 0x00200513; sw t1, 0(t0); mv a1, a0; j 2b\n"
                     "3: mv a2, a0; fence.i; j 2b\n"
                     "4: wfi");
    run_hart(&r->h);
    assert_false(r->h.trapped);
    assert_int_equal(r->h.x[A1], 1); /* first pass: as assembled */
    assert_int_equal(r->h.x[A2], 1); /* stored over, no fence.i: still decoded as before */
    assert_int_equal(r->h.x[A0], 2); /* after fence.i: the new instruction */
    /* the owner's flush does the same */
    sim_hart_flush_icache(&r->h);
    rig_free(r);
}

static void fp_loads_and_stores(void **state)
{
    (void)state;
    static const snippet t[] = {
        {"li t0, 0x2000; csrs mstatus, t0; li t0, 0x3f800000; sw t0, 0(s10); flw fa0, 0(s10);"
         "fsd fa0, 8(s10); ld a0, 8(s10)",
         0xffffffff3f800000ull}, /* NaN-boxed */
        {"csrr a0, mstatus; srli a0, a0, 13; andi a0, a0, 3", 3}, /* a load dirties FS */
        {"li t0, 0x1122334455667788; sd t0, 0(s10); fld fa1, 0(s10); fsw fa1, 16(s10);"
         "lwu a0, 16(s10)",
         0x55667788}, /* fsw: the low 32 bits, boxed or not */
        {"fld fa2, 0(s10); li t0, 0x10000000; fsd fa2, 0(t0); ld a0, 0(t0)",
         0x1122334455667788ull}, /* through a device */
        {"li t0, 0x3ff0000000000000; fmv.d.x fa0, t0; fadd.d fa1, fa0, fa0; fmv.x.d a0, fa1",
         0x4000000000000000ull}, /* OP-FP goes to sim_fpu_exec */
    };
    RUN_TABLE(t);
}

/* Loads, stores, LR/SC and AMOs reach a device through the callbacks. */
static void device_accesses(void **state)
{
    (void)state;
    rig *r = rig_new("li t0, 0x10000000; li t1, -3; sw t1, 4(t0); lw a0, 4(t0);"
                     "li t1, 10; amoadd.w a1, t1, (t0); lw a2, 0(t0);"
                     "lr.d a3, (t0); sc.d a4, t1, (t0); ld a5, 0(t0); wfi");
    run_hart(&r->h);
    sim_hart *h = &r->h;
    assert_false(h->trapped);
    assert_int_equal(h->x[A0], (uint64_t)-3);
    assert_int_equal(h->x[A1], 0);
    assert_int_equal(h->x[A2], 10);
    assert_int_equal(h->x[13], 0xfffffffd0000000aull);
    assert_int_equal(h->x[14], 0);
    assert_int_equal(h->x[15], 10);
    assert_true(r->dev_loads >= 5 && r->dev_stores >= 3);
    rig_free(r);

    /* a device may halt the hart: the store completes, the run returns */
    r = rig_new("li t0, 0x10000000; la t6, 1f; sd t0, 56(t0); 1: li a0, 5; wfi");
    assert_int_equal(sim_hart_run(&r->h, 1000000), SIM_HART_HALTED);
    assert_int_equal(r->h.pc, r->h.x[T6]);
    assert_int_equal(r->h.x[A0], 0);
    rig_free(r);
}

/* A bad hart count or code size is refused; the hart list stays whole. */
static void init_limits(void **state)
{
    (void)state;
    sim_mem m;
    memset(&m, 0, sizeof m);
    sim_hart h[SIM_MEM_MAX_HARTS + 1];
    for (unsigned i = 0; i < SIM_MEM_MAX_HARTS; i++)
        assert_int_equal(sim_hart_init(&h[i], &m, i, 0, 0, 16), 0);
    assert_int_equal(sim_hart_init(&h[SIM_MEM_MAX_HARTS], &m, 9, 0, 0, 16), -1);
    assert_int_equal(m.nharts, SIM_MEM_MAX_HARTS);
    for (unsigned i = 0; i < SIM_MEM_MAX_HARTS; i++)
        sim_hart_free(&h[i]);
    assert_int_equal(m.nharts, 0);
    sim_hart_free(&h[SIM_MEM_MAX_HARTS]); /* harmless after a failed init */
    /* no RAM under the code: the first fetch faults */
    assert_int_equal(sim_hart_init(&h[0], &m, 0, 0, 0, 16), 0);
    h[0].mtvec = 0x100; /* outside the code range: faults again, time moves on */
    assert_int_equal(sim_hart_run(&h[0], 50), SIM_HART_RUNNING);
    assert_int_equal(h[0].mcause, SIM_CAUSE_FETCH_ACCESS);
    assert_int_equal(h[0].cycle, 50);
    assert_int_equal(h[0].instret, 0);
    sim_hart_free(&h[0]);
}

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
        cmocka_unit_test(base_integer),
        cmocka_unit_test(multiply_divide),
        cmocka_unit_test(compressed_forms),
        cmocka_unit_test(compressed_reserved),
        cmocka_unit_test(compressed_expansions_decode),
        cmocka_unit_test(atomics),
        cmocka_unit_test(reservation_lost_to_other_writers),
        cmocka_unit_test(bit_manipulation),
        cmocka_unit_test(csr_rules),
        cmocka_unit_test(modeled_time),
        cmocka_unit_test(traps),
        cmocka_unit_test(fetch_outside_code),
        cmocka_unit_test(mret_returns),
        cmocka_unit_test(wfi_waits),
        cmocka_unit_test(runs_in_quanta),
        cmocka_unit_test(stops_exactly_at_limits),
        cmocka_unit_test(forwarded_values),
        cmocka_unit_test(harts_share_decoded_code),
        cmocka_unit_test(probes_see_every_arrival),
        cmocka_unit_test(probes_may_change_registers),
        cmocka_unit_test(watches_see_every_access),
        cmocka_unit_test(probes_and_watches_stop),
        cmocka_unit_test(calls_and_returns),
        cmocka_unit_test(translations_cleared_when_full),
        cmocka_unit_test(fence_i_drops_decoded),
        cmocka_unit_test(fp_loads_and_stores),
        cmocka_unit_test(device_accesses),
        cmocka_unit_test(init_limits),
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
