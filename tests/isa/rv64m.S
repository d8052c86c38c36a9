# RV64M: the low and high halves of products (signed, unsigned, mixed),
# division's edge cases (by zero, the one overflow), remainders' signs,
# and the W forms (32-bit operands, sign-extended results).
#include "test.h"
TEST_BEGIN

    # ---- mul: the low 64 bits ----
    TEST 1
    li a0, 3
    li a1, -7
    mul a2, a0, a1
    CHECK a2, -21
    li a0, 0x100000000
    mul a2, a0, a0
    CHECK a2, 0
    li a0, 0x123456789
    li a1, 0x10
    mul a2, a0, a1
    CHECK a2, 0x1234567890

    # ---- mulh, mulhu, mulhsu: the high 64 bits ----
    TEST 2
    li a0, -1
    mulh a2, a0, a0           # 1: high half 0
    CHECK a2, 0
    li a0, 0x8000000000000000
    mulh a2, a0, a0           # 2^126
    CHECK a2, 0x4000000000000000
    li a1, 2
    mulh a2, a0, a1           # -2^64
    CHECK a2, -1
    li a1, 1
    mulh a2, a0, a1           # -2^63: high half all ones
    CHECK a2, -1
    TEST 3
    li a0, -1
    mulhu a2, a0, a0          # (2^64-1)^2 = 2^128 - 2^65 + 1
    CHECK a2, 0xfffffffffffffffe
    li a1, 2
    mulhu a2, a0, a1
    CHECK a2, 1
    TEST 4
    li a0, -1
    li a1, -1                 # rs2 unsigned: 2^64 - 1
    mulhsu a2, a0, a1         # -(2^64 - 1)
    CHECK a2, -1
    li a0, 2
    li a1, 0x8000000000000000
    mulhsu a2, a0, a1         # 2^64
    CHECK a2, 1
    li a0, -2
    mulhsu a2, a0, a1         # -2^64
    CHECK a2, -1
    li a0, -1
    li a1, 1
    mulhsu a2, a0, a1
    CHECK a2, -1

    # ---- mulw ----
    TEST 5
    li a0, 0x7fffffff
    li a1, 2
    mulw a2, a0, a1
    CHECK a2, -2
    li a0, 0xabcdef0000000003 # upper half ignored
    li a1, 0x1234567800000005
    mulw a2, a0, a1
    CHECK a2, 15
    li a0, 0x10000
    mulw a2, a0, a0           # 2^32: low word 0
    CHECK a2, 0

    # ---- div, divu, rem, remu: rounding toward zero ----
    TEST 6
    li a0, 7
    li a1, -2
    div a2, a0, a1
    CHECK a2, -3
    rem a2, a0, a1            # the sign of the dividend
    CHECK a2, 1
    li a0, -7
    li a1, 2
    div a2, a0, a1
    CHECK a2, -3
    rem a2, a0, a1
    CHECK a2, -1
    TEST 7
    li a0, -7
    li a1, 2
    divu a2, a0, a1
    CHECK a2, 0x7ffffffffffffffc
    remu a2, a0, a1
    CHECK a2, 1
    li a1, -1
    divu a2, a0, a1
    CHECK a2, 0
    remu a2, a0, a1
    CHECK a2, -7

    # ---- by zero: quotient all ones, remainder the dividend ----
    TEST 8
    li a0, 42
    div a2, a0, zero
    CHECK a2, -1
    divu a2, a0, zero
    CHECK a2, 0xffffffffffffffff
    rem a2, a0, zero
    CHECK a2, 42
    remu a2, a0, zero
    CHECK a2, 42
    li a0, -42
    rem a2, a0, zero
    CHECK a2, -42
    div a2, a0, zero
    CHECK a2, -1

    # ---- overflow: -2^63 / -1 ----
    TEST 9
    li a0, 0x8000000000000000
    li a1, -1
    div a2, a0, a1
    CHECK a2, 0x8000000000000000
    rem a2, a0, a1
    CHECK a2, 0

    # ---- W forms ----
    TEST 10
    li a0, 0xffffffff80000000
    li a1, -1
    divw a2, a0, a1           # overflow
    CHECK a2, 0xffffffff80000000
    remw a2, a0, a1
    CHECK a2, 0
    TEST 11
    li a0, 0x80000000         # the word is -2^31 however the upper half reads
    divw a2, a0, zero
    CHECK a2, -1
    divuw a2, a0, zero
    CHECK a2, -1              # 0xffffffff sign-extended
    remw a2, a0, zero
    CHECK a2, 0xffffffff80000000
    remuw a2, a0, zero
    CHECK a2, 0xffffffff80000000
    TEST 12
    li a0, 0x100000008        # upper half ignored
    li a1, 0xffffffff00000002
    divw a2, a0, a1
    CHECK a2, 4
    li a0, -7
    li a1, 2
    remw a2, a0, a1
    CHECK a2, -1
    divw a2, a0, a1
    CHECK a2, -3
    TEST 13
    li a0, 0xffffffff
    li a1, 2
    divuw a2, a0, a1
    CHECK a2, 0x7fffffff
    remuw a2, a0, a1
    CHECK a2, 1
    li a0, 0x80000000
    li a1, 1
    divuw a2, a0, a1          # result sign-extended from bit 31
    CHECK a2, 0xffffffff80000000
    li a0, 0xfffffffe
    li a1, 0xffffffff
    remuw a2, a0, a1
    CHECK a2, 0xfffffffffffffffe

TEST_END
