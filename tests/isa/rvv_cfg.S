# The vector unit's configuration (VLEN 512, ELEN 64): vsetvli, vsetivli
# and vsetvl at every SEW and LMUL (fractional too), VLMAX = LMUL * 512 /
# SEW; vill (and vl 0) for SEW > LMUL * ELEN, a reserved vlmul, SEW over
# 64 and reserved vtype bits; the AVL rules (rs1 = x0 with rd != x0 gives
# VLMAX, with rd = x0 keeps vl); ta/ma read back from vtype; vstart reset;
# vlenb, vcsr = vxrm:vxsat; mstatus.VS Dirty and SD after a vector
# instruction.
#include "test.h"

/* vsetvli with AVL `avl` and vtype `type`: vl must come back `vl`. */
.macro SETVL avl, vl, type:vararg
    li a0, \avl
    vsetvli t0, a0, \type
    CHECK t0, \vl
    csrr t1, vl
    CHECK t1, \vl
.endm

/* vsetvl with vtype `bits` and AVL `avl`: vl and vtype as given. */
.macro SETTYPE avl, bits, vl, vtype
    li a0, \avl
    li a1, \bits
    vsetvl t0, a0, a1
    CHECK t0, \vl
    csrr t1, vtype
    CHECK t1, \vtype
.endm

TEST_BEGIN
    VECTOR_ON
    TEST 1                    # VLMAX at every SEW, LMUL 1..8
    SETVL 1000, 64, e8, m1
    SETVL 1000, 128, e8, m2
    SETVL 1000, 256, e8, m4
    SETVL 1000, 512, e8, m8
    SETVL 1000, 32, e16, m1
    SETVL 1000, 256, e16, m8
    SETVL 1000, 16, e32, m1
    SETVL 1000, 64, e32, m4
    SETVL 1000, 8, e64, m1
    SETVL 1000, 16, e64, m2
    SETVL 1000, 64, e64, m8
    TEST 2                    # fractional LMUL where SEW <= LMUL * ELEN
    SETVL 1000, 8, e8, mf8
    SETVL 1000, 16, e8, mf4
    SETVL 1000, 32, e8, mf2
    SETVL 1000, 8, e16, mf4
    SETVL 1000, 16, e16, mf2
    SETVL 1000, 8, e32, mf2
    TEST 3                    # AVL below VLMAX, zero, far above
    SETVL 5, 5, e32, m1
    SETVL 0, 0, e32, m1
    SETVL 17, 16, e32, m1
    SETVL -1, 64, e64, m8
    TEST 4                    # vtype: vsew, vlmul, vta, vma as written
    li a0, 3
    vsetvli t0, a0, e32, m2, ta, mu
    csrr t1, vtype
    CHECK t1, (1 << 6) | (2 << 3) | 1
    vsetvli t0, a0, e16, mf4, tu, ma
    csrr t1, vtype
    CHECK t1, (1 << 7) | (1 << 3) | 6
    vsetvli t0, a0, e8, m8, ta, ma
    csrr t1, vtype
    CHECK t1, (1 << 7) | (1 << 6) | 3

    TEST 5                    # SEW > LMUL * ELEN: vill, vl 0
    SETTYPE 10, (3 << 3) | 7, 0, 0x8000000000000000   # e64 mf2
    SETTYPE 10, (2 << 3) | 6, 0, 0x8000000000000000   # e32 mf4
    SETTYPE 10, (1 << 3) | 5, 0, 0x8000000000000000   # e16 mf8
    SETTYPE 10, (2 << 3) | 7, 8, (2 << 3) | 7         # e32 mf2: fine
    TEST 6                    # reserved vlmul, SEW 128+, reserved bits, bit 63
    SETTYPE 10, 4, 0, 0x8000000000000000
    SETTYPE 10, (4 << 3), 0, 0x8000000000000000
    SETTYPE 10, (7 << 3), 0, 0x8000000000000000
    SETTYPE 10, (1 << 8), 0, 0x8000000000000000
    SETTYPE 10, 0x8000000000000000, 0, 0x8000000000000000
    SETTYPE 10, (2 << 3), 10, (2 << 3)               # and back out of vill
    TEST 7                    # vsetvli's immediate form of vill
    li a0, 10
    vsetvli t0, a0, e64, mf8, ta, ma
    CHECK t0, 0
    csrr t1, vtype
    CHECK t1, 0x8000000000000000

    TEST 8                    # rs1 = x0, rd != x0: VLMAX
    vsetvli t0, zero, e16, m2, ta, ma
    CHECK t0, 64
    TEST 9                    # rs1 = rd = x0: vl kept (same SEW/LMUL ratio)
    li a0, 5
    vsetvli t0, a0, e32, m1, ta, ma
    vsetvli zero, zero, e16, mf2, ta, ma
    csrr t1, vl
    CHECK t1, 5
    csrr t1, vtype
    CHECK t1, (3 << 6) | (1 << 3) | 7
    TEST 10                   # ... and clamped to a smaller VLMAX
    li a0, 16
    vsetvli t0, a0, e32, m1, ta, ma
    vsetvli zero, zero, e64, m1, ta, ma
    csrr t1, vl
    CHECK t1, 8
    TEST 11                   # vsetivli: a 5-bit AVL, never the x0 rule
    vsetivli t0, 31, e8, m1, ta, ma
    CHECK t0, 31
    vsetivli t0, 31, e64, m1, ta, ma
    CHECK t0, 8
    vsetivli t0, 0, e8, m1, ta, ma
    CHECK t0, 0
    TEST 12                   # vsetvl takes x0's AVL rules too
    li a1, (1 << 3)           # e16 m1
    vsetvl t0, zero, a1
    CHECK t0, 32
    TEST 13                   # rd = x0 with rs1 != x0 sets vl, writes nothing
    li a0, 7
    vsetvli zero, a0, e8, m1, ta, ma
    csrr t1, vl
    CHECK t1, 7

    TEST 14                   # vlenb, and vsetvl clears vstart
    csrr t0, vlenb
    CHECK t0, 64
    csrwi vstart, 3
    csrr t0, vstart
    CHECK t0, 3
    vsetvli t0, zero, e8, m1, ta, ma
    csrr t0, vstart
    CHECK t0, 0
    TEST 15                   # vstart holds indices below 512 (WARL)
    li a0, 0xfff
    csrw vstart, a0
    csrr t0, vstart
    CHECK t0, 0x1ff
    csrwi vstart, 0
    TEST 16                   # vcsr: vxrm in 2:1, vxsat in 0
    csrwi vxrm, 2
    csrwi vxsat, 1
    csrr t0, vcsr
    CHECK t0, 5
    csrwi vcsr, 6
    csrr t0, vxrm
    CHECK t0, 3
    csrr t0, vxsat
    CHECK t0, 0
    csrwi vxrm, 7             # two bits
    csrr t0, vxrm
    CHECK t0, 3
    csrwi vcsr, 0

    TEST 17                   # mstatus.VS: Initial, then Dirty (and SD)
    li a0, (3 << 9) | (2 << 13) # VS and FS Initial: SD clear
    csrc mstatus, a0
    li a0, 3 << 9
    li a1, 1 << 9
    csrs mstatus, a1
    csrr a2, mstatus
    and a3, a2, a0
    CHECK a3, 1 << 9
    srli a3, a2, 63
    CHECK a3, 0
    vsetvli t0, zero, e8, m1, ta, ma
    csrr a2, mstatus
    and a3, a2, a0
    CHECK a3, 3 << 9
    srli a3, a2, 63
    CHECK a3, 1
    TEST 18                   # a vector CSR write makes it Dirty too
    csrc mstatus, a0
    csrs mstatus, a1
    csrwi vxrm, 1
    csrr a2, mstatus
    and a3, a2, a0
    CHECK a3, 3 << 9
    TEST 19                   # misa reports V
    csrr a0, misa
    srli a0, a0, 21
    andi a0, a0, 1
    CHECK a0, 1
TEST_END
