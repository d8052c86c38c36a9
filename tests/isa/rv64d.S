# RV64D: as rv64f.S for doubles — flags, the five rounding modes, NaNs,
# fcvt saturation, fmin/fmax, compares, fclass, fused multiply-adds,
# sign injection, moves, loads and stores — and the conversions between
# single and double (fcvt.s.d rounds, fcvt.d.s is exact, NaN-boxing on
# the single side).  Values from the ISA manual and IEEE 754; the non-RMM
# ones checked against the host's FPU.
#
# Doubles: 1.0 3ff0000000000000, 2.0 4000000000000000,
# 3.0 4008000000000000, -1.0 bff0000000000000, 2^-53 3ca0000000000000,
# +inf 7ff0000000000000, canonical NaN 7ff8000000000000,
# sNaN 7ff0000000000001.
#include "test.h"

#define ONE   0x3ff0000000000000
#define TWO   0x4000000000000000
#define THREE 0x4008000000000000
#define MONE  0xbff0000000000000
#define PINF  0x7ff0000000000000
#define NINF  0xfff0000000000000
#define QNAN  0x7ff8000000000000
#define SNAN  0x7ff0000000000001
#define NZERO 0x8000000000000000
#define TINY  0x3ca0000000000000

TEST_BEGIN

    # ---- arithmetic and flags ----
    TEST 1
    LOAD_D f1, ONE
    LOAD_D f2, TWO
    LOAD_D f3, THREE
    fadd.d f4, f1, f2
    CHECK_D f4, THREE
    fsub.d f4, f1, f2
    CHECK_D f4, MONE
    fmul.d f4, f2, f3
    CHECK_D f4, 0x4018000000000000
    fdiv.d f4, f3, f2
    CHECK_D f4, 0x3ff8000000000000
    LOAD_D f5, 0x4010000000000000
    fsqrt.d f4, f5
    CHECK_D f4, TWO
    CHECK_FLAGS 0
    TEST 2
    fdiv.d f4, f1, f3
    CHECK_D f4, 0x3fd5555555555555
    CHECK_FLAGS 1
    fsqrt.d f4, f2
    CHECK_D f4, 0x3ff6a09e667f3bcd
    CHECK_FLAGS 1
    fsqrt.d f4, f2, rtz
    CHECK_D f4, 0x3ff6a09e667f3bcc
    CHECK_FLAGS 1
    TEST 3
    fmv.d.x f0, zero
    fdiv.d f4, f1, f0
    CHECK_D f4, PINF
    CHECK_FLAGS 8
    fdiv.d f4, f0, f0
    CHECK_D f4, QNAN
    CHECK_FLAGS 16
    LOAD_D f5, MONE
    fsqrt.d f4, f5
    CHECK_D f4, QNAN
    CHECK_FLAGS 16
    TEST 4
    LOAD_D f5, 0x7fefffffffffffff
    fmul.d f4, f5, f2
    CHECK_D f4, PINF
    CHECK_FLAGS 5
    fmul.d f4, f5, f2, rdn
    CHECK_D f4, 0x7fefffffffffffff
    CHECK_FLAGS 5
    LOAD_D f5, 0x0010000000000000 # min normal
    LOAD_D f6, 0x3fe0000000000001 # 0.5 + ulp
    fmul.d f4, f5, f6
    CHECK_D f4, 0x0008000000000000
    CHECK_FLAGS 3
    LOAD_D f6, 0x3fe0000000000000
    fmul.d f4, f5, f6
    CHECK_D f4, 0x0008000000000000
    CHECK_FLAGS 0

    # ---- rounding: 1 + 2^-53, halfway; 1/3 and 2/3 ----
    TEST 5
    LOAD_D f5, TINY
    fadd.d f4, f1, f5, rne
    CHECK_D f4, ONE
    fadd.d f4, f1, f5, rtz
    CHECK_D f4, ONE
    fadd.d f4, f1, f5, rdn
    CHECK_D f4, ONE
    fadd.d f4, f1, f5, rup
    CHECK_D f4, 0x3ff0000000000001
    fadd.d f4, f1, f5, rmm
    CHECK_D f4, 0x3ff0000000000001
    CHECK_FLAGS 1
    TEST 6
    LOAD_D f6, MONE
    fsub.d f4, f6, f5, rdn
    CHECK_D f4, 0xbff0000000000001
    fsub.d f4, f6, f5, rup
    CHECK_D f4, MONE
    fsub.d f4, f6, f5, rmm
    CHECK_D f4, 0xbff0000000000001
    CHECK_FLAGS 1
    TEST 7
    fsrmi 3                   # RUP through frm
    fdiv.d f4, f1, f3
    CHECK_D f4, 0x3fd5555555555556
    fsrmi 1                   # RTZ
    fdiv.d f4, f2, f3
    CHECK_D f4, 0x3fe5555555555555
    fsrmi 0
    fdiv.d f4, f2, f3, rup
    CHECK_D f4, 0x3fe5555555555556
    CHECK_FLAGS 1

    # ---- NaNs ----
    TEST 8
    LOAD_D f5, 0xfff8000000012345
    fadd.d f4, f5, f1
    CHECK_D f4, QNAN
    CHECK_FLAGS 0
    LOAD_D f5, SNAN
    fadd.d f4, f5, f1
    CHECK_D f4, QNAN
    CHECK_FLAGS 16
    LOAD_D f5, PINF
    fmul.d f4, f5, f0         # inf * 0
    CHECK_D f4, QNAN
    CHECK_FLAGS 16

    # ---- single <-> double ----
    TEST 9
    fdiv.d f4, f1, f3
    fcvt.s.d f5, f4           # 1/3 to single: rounded, boxed
    CHECK_S f5, 0x3eaaaaab
    CHECK_FLAGS 1
    fcvt.s.d f5, f4, rtz
    CHECK_S f5, 0x3eaaaaaa
    CHECK_FLAGS 1
    LOAD_D f4, 0x7e37e43c8800759c # 1e300
    fcvt.s.d f5, f4
    CHECK_S f5, 0x7f800000
    CHECK_FLAGS 5
    fcvt.s.d f5, f4, rtz
    CHECK_S f5, 0x7f7fffff
    CHECK_FLAGS 5
    LOAD_D f4, SNAN
    fcvt.s.d f5, f4
    CHECK_S f5, 0x7fc00000
    CHECK_FLAGS 16
    TEST 10
    LOAD_S f4, 0x3fc00000     # 1.5f
    fcvt.d.s f5, f4
    CHECK_D f5, 0x3ff8000000000000
    CHECK_FLAGS 0
    LOAD_S f4, 0x7f800001     # a signalling single
    fcvt.d.s f5, f4
    CHECK_D f5, QNAN
    CHECK_FLAGS 16
    li t0, 0x000000003fc00000 # not NaN-boxed: the canonical NaN, quietly
    fmv.d.x f4, t0
    fcvt.d.s f5, f4
    CHECK_D f5, QNAN
    CHECK_FLAGS 0
    LOAD_S f4, 0x00000001     # the smallest subnormal single is normal here
    fcvt.d.s f5, f4
    CHECK_D f5, 0x36a0000000000000
    CHECK_FLAGS 0

    # ---- fcvt to integers: saturation ----
    TEST 11
    LOAD_D f5, 0x41e65a0bc0000000 # 3e9
    fcvt.w.d a0, f5, rtz
    CHECK a0, 0x7fffffff
    CHECK_FLAGS 16
    fcvt.wu.d a0, f5, rtz
    CHECK a0, 0xffffffffb2d05e00
    CHECK_FLAGS 0
    LOAD_D f5, 0x41efffffffe00000 # 4294967295.0
    fcvt.wu.d a0, f5
    CHECK a0, -1
    CHECK_FLAGS 0
    LOAD_D f5, 0x43e158e460913d00 # 1e19
    fcvt.l.d a0, f5, rtz
    CHECK a0, 0x7fffffffffffffff
    CHECK_FLAGS 16
    fcvt.lu.d a0, f5, rtz
    CHECK a0, 0x8ac7230489e80000
    CHECK_FLAGS 0
    TEST 12
    LOAD_D f5, MONE
    fcvt.lu.d a0, f5, rtz
    CHECK a0, 0
    CHECK_FLAGS 16
    fcvt.wu.d a0, f5, rtz
    CHECK a0, 0
    CHECK_FLAGS 16
    LOAD_D f5, QNAN
    fcvt.l.d a0, f5
    CHECK a0, 0x7fffffffffffffff
    CHECK_FLAGS 16
    fcvt.lu.d a0, f5
    CHECK a0, -1
    CHECK_FLAGS 16
    LOAD_D f5, NINF
    fcvt.w.d a0, f5
    CHECK a0, 0xffffffff80000000
    CHECK_FLAGS 16
    TEST 13                   # -2147483648.5: in range only toward zero
    LOAD_D f5, 0xc1e0000000100000
    fcvt.w.d a0, f5, rtz
    CHECK a0, 0xffffffff80000000
    CHECK_FLAGS 1
    fcvt.w.d a0, f5, rdn
    CHECK a0, 0xffffffff80000000
    CHECK_FLAGS 16
    fcvt.w.d a0, f5, rne      # a tie, to even: -2147483648
    CHECK a0, 0xffffffff80000000
    CHECK_FLAGS 1
    fcvt.w.d a0, f5, rmm      # away: -2147483649, out of range
    CHECK a0, 0xffffffff80000000
    CHECK_FLAGS 16
    fcvt.l.d a0, f5, rmm
    CHECK a0, -2147483649
    CHECK_FLAGS 1
    TEST 14                   # integer to double
    li a0, 0x7fffffffffffffff
    fcvt.d.l f4, a0
    CHECK_D f4, 0x43e0000000000000
    CHECK_FLAGS 1
    fcvt.d.l f4, a0, rtz
    CHECK_D f4, 0x43dfffffffffffff
    CHECK_FLAGS 1
    li a0, -1
    fcvt.d.lu f4, a0
    CHECK_D f4, 0x43f0000000000000
    CHECK_FLAGS 1
    fcvt.d.wu f4, a0          # exact
    CHECK_D f4, 0x41efffffffe00000
    fcvt.d.w f4, a0
    CHECK_D f4, MONE
    li a0, -5
    fcvt.d.l f4, a0
    CHECK_D f4, 0xc014000000000000
    CHECK_FLAGS 0

    # ---- fmin, fmax ----
    TEST 15
    LOAD_D f5, QNAN
    fmin.d f4, f5, f1
    CHECK_D f4, ONE
    fmax.d f4, f5, f1
    CHECK_D f4, ONE
    CHECK_FLAGS 0
    LOAD_D f5, SNAN
    fmax.d f4, f1, f5
    CHECK_D f4, ONE
    CHECK_FLAGS 16
    fmin.d f4, f5, f5
    CHECK_D f4, QNAN
    CHECK_FLAGS 16
    LOAD_D f5, NZERO
    fmv.d.x f6, zero
    fmin.d f4, f6, f5
    CHECK_D f4, NZERO
    fmax.d f4, f5, f6
    CHECK_D f4, 0
    fmin.d f4, f3, f1
    CHECK_D f4, ONE
    CHECK_FLAGS 0

    # ---- compares ----
    TEST 16
    flt.d a0, f1, f3
    CHECK a0, 1
    fle.d a0, f3, f3
    CHECK a0, 1
    feq.d a0, f5, f6          # -0 == +0
    CHECK a0, 1
    CHECK_FLAGS 0
    LOAD_D f5, QNAN
    feq.d a0, f5, f1
    CHECK a0, 0
    CHECK_FLAGS 0
    fle.d a0, f5, f1
    CHECK a0, 0
    CHECK_FLAGS 16
    LOAD_D f5, SNAN
    feq.d a0, f1, f5
    CHECK a0, 0
    CHECK_FLAGS 16

    # ---- fclass ----
    .macro CLASS_D bits, class
    LOAD_D f5, \bits
    fclass.d a0, f5
    CHECK a0, \class
    .endm
    TEST 17
    CLASS_D NINF, 0x001
    CLASS_D MONE, 0x002
    CLASS_D 0x800fffffffffffff, 0x004
    CLASS_D NZERO, 0x008
    CLASS_D 0, 0x010
    CLASS_D 0x0000000000000001, 0x020
    CLASS_D ONE, 0x040
    CLASS_D PINF, 0x080
    CLASS_D SNAN, 0x100
    CLASS_D QNAN, 0x200
    CLASS_D 0xfff8000000000000, 0x200
    CHECK_FLAGS 0

    # ---- fused multiply-add ----
    TEST 18
    fmadd.d f4, f2, f3, f1
    CHECK_D f4, 0x401c000000000000   # 7
    fmsub.d f4, f2, f3, f1
    CHECK_D f4, 0x4014000000000000   # 5
    fnmadd.d f4, f2, f3, f1
    CHECK_D f4, 0xc01c000000000000   # -7
    fnmsub.d f4, f2, f3, f1
    CHECK_D f4, 0xc014000000000000   # -5
    CHECK_FLAGS 0
    TEST 19                   # x = 1 + 2^-27: x*x = 1 + 2^-26 + 2^-54
    LOAD_D f5, 0x3ff0000002000000
    fmul.d f6, f5, f5
    CHECK_D f6, 0x3ff0000004000000
    CHECK_FLAGS 1
    fmsub.d f4, f5, f5, f6
    CHECK_D f4, 0x3c90000000000000   # 2^-54
    CHECK_FLAGS 0
    fnmsub.d f4, f5, f5, f6          # -(x*x) + p
    CHECK_D f4, 0xbc90000000000000
    TEST 20
    LOAD_D f5, PINF
    LOAD_D f6, QNAN
    fmadd.d f4, f0, f5, f6           # 0 * inf + qNaN: invalid
    CHECK_D f4, QNAN
    CHECK_FLAGS 16

    # ---- sign injection, moves, loads and stores ----
    TEST 21
    LOAD_D f5, MONE
    fsgnj.d f4, f1, f5
    CHECK_D f4, MONE
    fsgnjn.d f4, f5, f5
    CHECK_D f4, ONE
    fsgnjx.d f4, f5, f5
    CHECK_D f4, ONE
    fabs.d f4, f5
    CHECK_D f4, ONE
    LOAD_D f6, SNAN
    fneg.d f4, f6
    CHECK_D f4, 0xfff0000000000001
    CHECK_FLAGS 0
    TEST 22
    la s0, buf
    LOAD_D f5, 0x400921fb54442d18
    fsd f5, 8(s0)
    ld a0, 8(s0)
    CHECK a0, 0x400921fb54442d18
    fld f6, 8(s0)
    fmv.x.d a1, f6
    CHECK a1, 0x400921fb54442d18
    LOAD_S f7, 0x3f800000     # fsd of a boxed single: all 64 bits
    fsd f7, 0(s0)
    ld a0, 0(s0)
    CHECK a0, 0xffffffff3f800000

TEST_END

    .data
    .balign 8
buf:
    .dword 0, 0
