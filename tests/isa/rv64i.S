# RV64I: arithmetic and its wrap-around, the W forms' sign extension,
# logic, compares, shifts (amounts from the low 6 or 5 bits), lui/auipc,
# every branch taken and not taken, jal/jalr links, loads and stores of
# every width with sign and zero extension, x0.
#include "test.h"
TEST_BEGIN

    # ---- add, sub, addi: 64-bit wrap-around ----
    TEST 1
    li a0, 1
    li a1, 2
    add a2, a0, a1
    CHECK a2, 3
    TEST 2
    li a0, 0x7fffffffffffffff
    addi a1, a0, 1
    CHECK a1, 0x8000000000000000
    TEST 3
    li a0, 5
    addi a1, a0, -6
    CHECK a1, -1
    addi a1, a0, -2048
    CHECK a1, -2043
    addi a1, a0, 2047
    CHECK a1, 2052
    TEST 4
    li a0, 0
    li a1, 1
    sub a2, a0, a1
    CHECK a2, 0xffffffffffffffff
    li a0, 0x8000000000000000
    sub a2, a0, a1
    CHECK a2, 0x7fffffffffffffff

    # ---- W forms: 32-bit results, sign-extended; upper inputs ignored ----
    TEST 5
    li a0, 0x7fffffff
    li a1, 1
    addw a2, a0, a1
    CHECK a2, 0xffffffff80000000
    TEST 6
    li a0, 0x100000001
    addw a2, a0, a0
    CHECK a2, 2
    TEST 7
    li a0, 0xffffffff
    addiw a1, a0, 0           # sext.w
    CHECK a1, -1
    li a0, 0x123456780000007f
    addiw a1, a0, 1
    CHECK a1, 0x80
    li a0, 0x80000000
    addiw a1, a0, -1
    CHECK a1, 0x7fffffff
    TEST 8
    li a0, 0
    li a1, 0x80000000
    subw a2, a0, a1
    CHECK a2, 0xffffffff80000000
    li a0, 0xffffffff00000005
    li a1, 0x7
    subw a2, a0, a1
    CHECK a2, -2

    # ---- logic ----
    TEST 9
    li a0, 0xff00ff00ff00ff00
    li a1, 0x0ff00ff00ff00ff0
    and a2, a0, a1
    CHECK a2, 0x0f000f000f000f00
    or a2, a0, a1
    CHECK a2, 0xfff0fff0fff0fff0
    xor a2, a0, a1
    CHECK a2, 0xf0f0f0f0f0f0f0f0
    TEST 10
    andi a2, a0, -256         # imm sign-extended: 0x...ff00
    CHECK a2, 0xff00ff00ff00ff00
    andi a2, a0, 0x7ff
    CHECK a2, 0x700
    ori a2, a1, -1
    CHECK a2, -1
    xori a2, a0, -1           # not
    CHECK a2, 0x00ff00ff00ff00ff
    xori a2, a0, 0x0ff
    CHECK a2, 0xff00ff00ff00ffff

    # ---- compares ----
    TEST 11
    li a0, -1
    li a1, 1
    slt a2, a0, a1
    CHECK a2, 1
    sltu a2, a0, a1
    CHECK a2, 0
    slt a2, a1, a0
    CHECK a2, 0
    sltu a2, a1, a0
    CHECK a2, 1
    slt a2, a1, a1
    CHECK a2, 0
    TEST 12
    slti a2, a0, 0
    CHECK a2, 1
    slti a2, a1, -2048
    CHECK a2, 0
    sltiu a2, zero, 1         # seqz
    CHECK a2, 1
    sltiu a2, a1, 1
    CHECK a2, 0
    li a3, 0xfffffffffffffffe
    sltiu a2, a3, -1          # compares with 0xffff...ffff unsigned
    CHECK a2, 1
    sltiu a2, a0, -1
    CHECK a2, 0

    # ---- shifts: 6-bit amounts (5 for W), logical and arithmetic ----
    TEST 13
    li a0, 1
    slli a1, a0, 63
    CHECK a1, 0x8000000000000000
    li a2, 65                 # 65 & 63 = 1
    sll a3, a0, a2
    CHECK a3, 2
    TEST 14
    li a0, 0x8000000000000000
    srli a1, a0, 63
    CHECK a1, 1
    srai a1, a0, 63
    CHECK a1, -1
    li a2, 127                # 127 & 63 = 63
    srl a3, a0, a2
    CHECK a3, 1
    sra a3, a0, a2
    CHECK a3, -1
    li a2, 4
    sra a3, a0, a2
    CHECK a3, 0xf800000000000000
    srl a3, a0, zero
    CHECK a3, 0x8000000000000000
    TEST 15
    li a0, 1
    slliw a1, a0, 31
    CHECK a1, 0xffffffff80000000
    li a2, 33                 # 33 & 31 = 1
    sllw a3, a0, a2
    CHECK a3, 2
    li a0, 0x1ffffffff
    slliw a1, a0, 4
    CHECK a1, 0xfffffffffffffff0
    TEST 16
    li a0, 0xffffffff80000000
    srliw a1, a0, 31
    CHECK a1, 1
    srliw a1, a0, 0
    CHECK a1, 0xffffffff80000000
    sraiw a1, a0, 31
    CHECK a1, -1
    li a0, 0xffffffff
    srliw a1, a0, 1
    CHECK a1, 0x7fffffff
    li a0, 0x0000000180000000  # bit 32 is not part of the word
    li a2, 32 + 4
    srlw a3, a0, a2
    CHECK a3, 0x08000000
    sraw a3, a0, a2
    CHECK a3, 0xfffffffff8000000

    # ---- lui, auipc ----
    TEST 17
    lui a0, 0x80000
    CHECK a0, 0xffffffff80000000
    lui a0, 0x7ffff
    CHECK a0, 0x7ffff000
    lui a0, 0
    CHECK a0, 0
    TEST 18
1:  auipc a0, 0
    la a1, 1b
    bne a0, a1, fail
2:  auipc a0, 1
    la a1, 2b
    sub a0, a0, a1
    CHECK a0, 0x1000
3:  auipc a0, 0xfffff          # -4096
    la a1, 3b
    sub a0, a0, a1
    CHECK a0, -4096

    # ---- branches: taken and not taken, signed and unsigned ----
    TEST 19
    li a0, -1
    li a1, 1
    beq a0, a0, 1f
    j fail
1:  beq a0, a1, fail
    bne a0, a1, 1f
    j fail
1:  bne a1, a1, fail
    TEST 20
    blt a0, a1, 1f
    j fail
1:  blt a1, a0, fail
    blt a1, a1, fail
    bge a1, a0, 1f
    j fail
1:  bge a1, a1, 1f
    j fail
1:  bge a0, a1, fail
    TEST 21
    bltu a1, a0, 1f
    j fail
1:  bltu a0, a1, fail
    bltu a0, a0, fail
    bgeu a0, a1, 1f
    j fail
1:  bgeu zero, zero, 1f
    j fail
1:  bgeu a1, a0, fail
    TEST 22                   # a backward branch
    li a2, 0
    li a3, 5
1:  addi a2, a2, 1
    bne a2, a3, 1b
    CHECK a2, 5

    # ---- jal, jalr: links, bit 0 of the target cleared, rd == rs1 ----
    TEST 23
    jal ra, 1f
2:  j fail
1:  la a0, 2b
    bne ra, a0, fail
    TEST 24
    la a0, 1f
    addi a0, a0, 1            # odd: jalr clears bit 0
    jalr a1, 0(a0)
2:  j fail
1:  la a2, 2b
    bne a1, a2, fail
    TEST 25
    la a0, 1f - 8
    jalr a0, 8(a0)            # target from the old a0, link into a0
2:  j fail
1:  la a2, 2b
    bne a0, a2, fail
    TEST 26
    la a0, 1f
    jalr zero, 0(a0)
    j fail
1:  jal zero, 1f
    j fail
1:

    # ---- loads: every width, sign and zero extension ----
    TEST 27
    la s0, data
    ld a0, 0(s0)
    CHECK a0, 0x8877665544332211
    lb a0, 7(s0)
    CHECK a0, 0xffffffffffffff88
    lbu a0, 7(s0)
    CHECK a0, 0x88
    lb a0, 0(s0)
    CHECK a0, 0x11
    TEST 28
    lh a0, 6(s0)
    CHECK a0, 0xffffffffffff8877
    lhu a0, 6(s0)
    CHECK a0, 0x8877
    lh a0, 2(s0)
    CHECK a0, 0x4433
    TEST 29
    lw a0, 4(s0)
    CHECK a0, 0xffffffff88776655
    lwu a0, 4(s0)
    CHECK a0, 0x88776655
    lw a0, 0(s0)
    CHECK a0, 0x44332211
    TEST 30
    addi s1, s0, 16
    ld a0, -16(s1)            # negative offset
    CHECK a0, 0x8877665544332211
    lbu a0, -9(s1)
    CHECK a0, 0x88

    # ---- stores: every width, only their bytes written ----
    TEST 31
    la s0, scratch
    li a0, -1
    sd a0, 0(s0)
    sd a0, 8(s0)
    li a0, 0x0102030405060708
    sb a0, 0(s0)
    ld a1, 0(s0)
    CHECK a1, 0xffffffffffffff08
    sh a0, 2(s0)
    ld a1, 0(s0)
    CHECK a1, 0xffffffff0708ff08
    sw a0, 4(s0)
    ld a1, 0(s0)
    CHECK a1, 0x050607080708ff08
    sd a0, 8(s0)
    ld a1, 8(s0)
    CHECK a1, 0x0102030405060708
    TEST 32
    addi s1, s0, 24
    sb zero, -8(s1)
    ld a1, 16(s0)
    CHECK a1, 0
    li a0, 0x80
    sb a0, 17(s0)
    lb a1, 17(s0)
    CHECK a1, -128

    # ---- x0 stays zero; fence is harmless ----
    TEST 33
    addi zero, zero, 5
    li a0, 7
    add zero, a0, a0
    lui zero, 1
    ld zero, 0(s0)
    bnez zero, fail
    fence
    fence rw, rw
    fence.tso
    CHECK zero, 0
    mv a1, zero
    CHECK a1, 0

TEST_END

    .data
    .balign 8
data:
    .dword 0x8877665544332211
scratch:
    .dword 0, 0, 0
