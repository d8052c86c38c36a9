# RVC (RV64): every compressed form, written with its c. mnemonic so that
# the assembler cannot choose the 32-bit one: immediates' sign and zero
# extension, the W forms, links of 2 bytes, 32-bit instructions at
# halfword addresses.  c.ebreak is in traps.S.  sp points at a buffer of
# this test's own.
#include "test.h"
TEST_BEGIN
    la sp, stack_top

    # ---- c.li, c.lui, c.addi, c.addiw, c.addi16sp, c.addi4spn, c.nop ----
    TEST 1
    c.li a0, -32
    CHECK a0, -32
    c.li a0, 31
    CHECK a0, 31
    c.lui a1, 0xfffff         # nzimm -1: sign-extended
    CHECK a1, 0xfffffffffffff000
    c.lui a1, 0x1f
    CHECK a1, 0x1f000
    TEST 2
    c.li a0, 5
    c.addi a0, -6
    CHECK a0, -1
    c.addi a0, 31
    CHECK a0, 30
    li a2, 0x7fffffff
    c.addiw a2, 1             # 32-bit, sign-extended
    CHECK a2, 0xffffffff80000000
    li a2, 0x1ffffffff
    c.addiw a2, 0             # sext.w
    CHECK a2, -1
    c.nop
    TEST 3
    mv s1, sp
    c.addi16sp sp, -512
    sub a0, s1, sp
    CHECK a0, 512
    c.addi16sp sp, 496
    sub a0, s1, sp
    CHECK a0, 16
    c.addi16sp sp, 16
    c.addi4spn a0, sp, 1020   # the largest
    sub a0, a0, sp
    CHECK a0, 1020
    c.addi4spn s0, sp, 4
    sub a0, s0, sp
    CHECK a0, 4

    # ---- register-register: c.mv, c.add, c.sub, c.xor, c.or, c.and,
    # c.subw, c.addw ----
    TEST 4
    li a1, 0x0ff0
    c.mv a0, a1
    CHECK a0, 0x0ff0
    li a2, 0x00ff
    c.add a0, a2
    CHECK a0, 0x10ef
    c.sub a0, a2
    CHECK a0, 0x0ff0
    li s1, 0x0f0f
    c.mv a3, a0
    c.xor a3, s1
    CHECK a3, 0x00ff
    c.mv a3, a0
    c.or a3, s1
    CHECK a3, 0x0fff
    c.mv a3, a0
    c.and a3, s1
    CHECK a3, 0x0f00
    TEST 5
    li a4, 0x7fffffff
    li a5, -1
    c.subw a4, a5             # 0x80000000, sign-extended
    CHECK a4, 0xffffffff80000000
    li a4, 0x100000001        # upper halves ignored
    li a5, 0x300000002
    c.addw a4, a5
    CHECK a4, 3

    # ---- shifts and c.andi ----
    TEST 6
    li a0, 1
    c.slli a0, 63
    CHECK a0, 0x8000000000000000
    c.mv s0, a0
    c.srai s0, 63
    CHECK s0, -1
    c.mv s0, a0
    c.srli s0, 63
    CHECK s0, 1
    c.mv s0, a0
    c.srli s0, 1
    CHECK s0, 0x4000000000000000
    li s0, 0x1234
    c.andi s0, -4             # sign-extended immediate
    CHECK s0, 0x1234
    c.andi s0, 0xf
    CHECK s0, 4
    li s1, 0x80
    c.srai s1, 3
    CHECK s1, 0x10

    # ---- loads and stores: c.lw, c.ld, c.sw, c.sd ----
    TEST 7
    la a1, data
    c.ld a0, 0(a1)
    CHECK a0, 0x8877665544332211
    c.lw a0, 4(a1)            # sign-extended
    CHECK a0, 0xffffffff88776655
    c.lw a0, 0(a1)
    CHECK a0, 0x44332211
    TEST 8
    la a1, scratch
    li a2, 0x0102030405060708
    c.sd a2, 8(a1)
    c.sw a2, 0(a1)
    ld a0, 8(a1)
    CHECK a0, 0x0102030405060708
    lwu a0, 0(a1)
    CHECK a0, 0x05060708
    c.li a3, -1
    c.sw a3, 124(a1)          # the largest word offset
    lw a0, 124(a1)
    CHECK a0, -1
    c.sd a3, 248(a1)          # the largest doubleword offset
    ld a0, 248(a1)
    CHECK a0, -1

    # ---- sp-relative: c.lwsp, c.ldsp, c.swsp, c.sdsp ----
    TEST 9
    li a0, 0xfedcba9876543210
    c.sdsp a0, 504(sp)
    c.ldsp a1, 504(sp)
    CHECK a1, 0xfedcba9876543210
    c.swsp a0, 252(sp)
    c.lwsp a2, 252(sp)        # 0x76543210
    CHECK a2, 0x76543210
    li a0, 0x80000000
    c.swsp a0, 0(sp)
    c.lwsp a2, 0(sp)
    CHECK a2, 0xffffffff80000000

    # ---- floating point: c.fld, c.fsd, c.fldsp, c.fsdsp ----
    TEST 10
    la a1, scratch
    LOAD_D fa0, 0x400921fb54442d18
    c.fsd fa0, 16(a1)
    c.fld fa1, 16(a1)
    CHECK_D fa1, 0x400921fb54442d18
    c.fsdsp fa0, 8(sp)
    c.fldsp ft0, 8(sp)
    CHECK_D ft0, 0x400921fb54442d18
    ld a0, 8(sp)
    CHECK a0, 0x400921fb54442d18

    # ---- control: c.j, c.beqz, c.bnez, c.jr, c.jalr ----
    TEST 11
    c.j 1f
    j fail
1:  c.li s0, 0
    c.beqz s0, 1f
    j fail
1:  c.bnez s0, fail
    c.li s0, 3
    c.bnez s0, 1f
    j fail
1:  c.beqz s0, fail
    TEST 12                   # a backward c.bnez loop
    c.li s1, 4
    c.li a0, 0
1:  c.addi a0, 2
    c.addi s1, -1
    c.bnez s1, 1b
    CHECK a0, 8
    TEST 13
    la a0, 1f
    c.jr a0
    j fail
1:  la a1, 2f
    c.jalr a1                 # link: the address 2 bytes on
3:  j fail
2:  la a2, 3b
    bne ra, a2, fail
    TEST 14                   # a 32-bit instruction at a halfword address
    .balign 4
    c.nop
    addi a0, zero, 0x123
    c.nop
    lui a1, 0x12345
    CHECK a0, 0x123
    CHECK a1, 0x12345000

TEST_END

    .data
    .balign 8
data:
    .dword 0x8877665544332211
scratch:
    .fill 32, 8, 0
    .balign 16
stack:
    .fill 128, 8, 0
stack_top:
    .fill 128, 8, 0
