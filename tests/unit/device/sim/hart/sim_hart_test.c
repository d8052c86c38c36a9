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

#include "hart_program.h"

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
        cmocka_unit_test(harts_share_decoded_code),
        cmocka_unit_test(calls_and_returns),
        cmocka_unit_test(translations_cleared_when_full),
        cmocka_unit_test(fence_i_drops_decoded),
        cmocka_unit_test(fp_loads_and_stores),
        cmocka_unit_test(device_accesses),
        cmocka_unit_test(init_limits),
    };
    /* Every test twice: the hot loop's handlers alone (the reference),
     * then with its blocks translated to host code (hart_jit.c), which
     * must not change a register, a cycle or a count. */
    setenv("KMRUN_JIT", "off", 1);
    int failed = cmocka_run_group_tests_name("interpreted", tests, NULL, NULL);
    unsetenv("KMRUN_JIT");
    return failed + cmocka_run_group_tests_name("translated", tests, NULL, NULL);
}
