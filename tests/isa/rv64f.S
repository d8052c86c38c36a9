# RV64F: arithmetic and its flags, the five rounding modes (static rm and
# dynamic frm), NaN-boxing (an input whose upper 32 bits are not all ones
# is the canonical NaN; results are boxed), canonical NaNs, fcvt's
# saturation, fmin/fmax's NaN rules, signed zeros, compares' signalling,
# fclass, the fused multiply-adds (one rounding), sign injection, moves,
# loads and stores.  Expected values are worked out from the ISA manual
# and IEEE 754; the non-RMM ones were checked against the host's FPU.
#
# Singles: 1.0 3f800000, 2.0 40000000, 3.0 40400000, -1.0 bf800000,
# 0.5 3f000000, 2.5 40200000, 2^-24 33800000, max 7f7fffff,
# min normal 00800000, +inf 7f800000, qNaN (canonical) 7fc00000,
# sNaN 7f800001.  fflags: NX 1, UF 2, OF 4, DZ 8, NV 16.
#include "test.h"

#define ONE   0x3f800000
#define TWO   0x40000000
#define THREE 0x40400000
#define MONE  0xbf800000
#define HALF  0x3f000000
#define PINF  0x7f800000
#define NINF  0xff800000
#define QNAN  0x7fc00000
#define SNAN  0x7f800001
#define NZERO 0x80000000
#define TINY  0x33800000

TEST_BEGIN

    # ---- add, sub, mul, div, sqrt: exact results raise nothing ----
    TEST 1
    LOAD_S f1, ONE
    LOAD_S f2, TWO
    fadd.s f3, f1, f2
    CHECK_S f3, THREE
    fsub.s f3, f1, f2
    CHECK_S f3, MONE
    fmul.s f3, f2, f2
    CHECK_S f3, 0x40800000
    fdiv.s f3, f1, f2
    CHECK_S f3, HALF
    LOAD_S f4, 0x40800000
    fsqrt.s f3, f4
    CHECK_S f3, TWO
    CHECK_FLAGS 0

    # ---- inexact, divide by zero, invalid, overflow, underflow ----
    TEST 2
    LOAD_S f3, THREE
    fdiv.s f4, f1, f3
    CHECK_S f4, 0x3eaaaaab
    CHECK_FLAGS 1
    fsqrt.s f4, f2
    CHECK_S f4, 0x3fb504f3
    CHECK_FLAGS 1
    TEST 3
    fmv.w.x f0, zero
    fdiv.s f4, f1, f0
    CHECK_S f4, PINF
    CHECK_FLAGS 8
    fdiv.s f4, f0, f0         # 0/0
    CHECK_S f4, QNAN
    CHECK_FLAGS 16
    LOAD_S f5, MONE
    fsqrt.s f4, f5            # sqrt(-1)
    CHECK_S f4, QNAN
    CHECK_FLAGS 16
    LOAD_S f5, PINF
    fsub.s f4, f5, f5         # inf - inf
    CHECK_S f4, QNAN
    CHECK_FLAGS 16
    TEST 4
    LOAD_S f5, 0x7f7fffff
    fmul.s f4, f5, f2
    CHECK_S f4, PINF
    CHECK_FLAGS 5             # OF | NX
    fmul.s f4, f5, f2, rtz    # overflow toward zero: the largest finite
    CHECK_S f4, 0x7f7fffff
    CHECK_FLAGS 5
    TEST 5
    LOAD_S f5, 0x00800000     # min normal
    LOAD_S f6, HALF
    fmul.s f4, f5, f6         # exact subnormal: no underflow flag
    CHECK_S f4, 0x00400000
    CHECK_FLAGS 0
    LOAD_S f6, 0x3f000001     # 0.5 + ulp: inexact and tiny
    fmul.s f4, f5, f6
    CHECK_S f4, 0x00400000
    CHECK_FLAGS 3             # UF | NX
    TEST 6                    # flags accumulate until cleared
    fdiv.s f4, f1, f0
    fdiv.s f4, f1, f3
    CHECK_FLAGS 9

    # ---- rounding: 1 + 2^-24 is halfway between 1 and 1 + 2^-23 ----
    TEST 7
    LOAD_S f5, TINY
    fadd.s f4, f1, f5, rne
    CHECK_S f4, ONE
    fadd.s f4, f1, f5, rtz
    CHECK_S f4, ONE
    fadd.s f4, f1, f5, rdn
    CHECK_S f4, ONE
    fadd.s f4, f1, f5, rup
    CHECK_S f4, 0x3f800001
    fadd.s f4, f1, f5, rmm    # ties away from zero
    CHECK_S f4, 0x3f800001
    CHECK_FLAGS 1
    TEST 8                    # and -1 - 2^-24
    LOAD_S f6, MONE
    fsub.s f4, f6, f5, rne
    CHECK_S f4, MONE
    fsub.s f4, f6, f5, rtz
    CHECK_S f4, MONE
    fsub.s f4, f6, f5, rdn
    CHECK_S f4, 0xbf800001
    fsub.s f4, f6, f5, rup
    CHECK_S f4, MONE
    fsub.s f4, f6, f5, rmm
    CHECK_S f4, 0xbf800001
    CHECK_FLAGS 1
    TEST 9                    # dynamic: frm
    fsrmi 1                   # RTZ
    fdiv.s f4, f1, f3
    CHECK_S f4, 0x3eaaaaaa
    fsrmi 3                   # RUP
    fadd.s f4, f1, f5
    CHECK_S f4, 0x3f800001
    fsrmi 4                   # RMM
    fadd.s f4, f1, f5, dyn
    CHECK_S f4, 0x3f800001
    fsrmi 2                   # RDN
    fadd.s f4, f1, f5
    CHECK_S f4, ONE
    fdiv.s f4, f1, f3, rup    # a static rm wins over frm
    CHECK_S f4, 0x3eaaaaab
    fsrmi 0
    CHECK_FLAGS 1

    # ---- NaN-boxing ----
    TEST 10
    li t0, 0x000000003f800000 # 1.0 in the low half, upper half not ones
    fmv.d.x f7, t0
    fadd.s f4, f7, f1         # reads as the canonical NaN (quiet: no NV)
    CHECK_S f4, QNAN
    CHECK_FLAGS 0
    fsgnj.s f4, f7, f7        # fmv.s: canonical NaN, boxed
    CHECK_S f4, QNAN
    fclass.s a0, f7
    CHECK a0, 0x200           # quiet NaN
    li t0, 0xfffffffe3f800000 # one bit short of a box
    fmv.d.x f7, t0
    fmul.s f4, f7, f1
    CHECK_S f4, QNAN
    TEST 11                   # moves and stores take the low bits as they are
    li t0, 0x123456783f800000
    fmv.d.x f7, t0
    fmv.x.w a0, f7
    CHECK a0, 0x3f800000
    la s0, buf
    fsw f7, 0(s0)
    lwu a0, 0(s0)
    CHECK a0, 0x3f800000
    TEST 12                   # flw and fmv.w.x box
    li t0, 0x80000001
    sw t0, 0(s0)
    flw f4, 0(s0)
    CHECK_D f4, 0xffffffff80000001
    fmv.w.x f4, t0
    CHECK_D f4, 0xffffffff80000001
    fmv.x.w a0, f4            # sign-extended
    CHECK a0, 0xffffffff80000001
    TEST 13                   # a NaN result is the canonical NaN
    LOAD_S f5, 0xffc12345     # a negative quiet NaN with a payload
    fadd.s f4, f5, f1
    CHECK_S f4, QNAN
    CHECK_FLAGS 0
    LOAD_S f5, SNAN
    fmul.s f4, f5, f1         # a signalling input: NV
    CHECK_S f4, QNAN
    CHECK_FLAGS 16

    # ---- fcvt: rounding and saturation ----
    TEST 14
    LOAD_S f5, 0x4f32d05e     # 3e9
    fcvt.w.s a0, f5, rtz
    CHECK a0, 0x7fffffff
    CHECK_FLAGS 16
    LOAD_S f5, 0xcf32d05e     # -3e9
    fcvt.w.s a0, f5, rtz
    CHECK a0, 0xffffffff80000000
    CHECK_FLAGS 16
    LOAD_S f5, QNAN
    fcvt.w.s a0, f5, rtz      # NaN: the largest
    CHECK a0, 0x7fffffff
    CHECK_FLAGS 16
    LOAD_S f5, NINF
    fcvt.w.s a0, f5, rtz
    CHECK a0, 0xffffffff80000000
    CHECK_FLAGS 16
    TEST 15
    LOAD_S f5, MONE
    fcvt.wu.s a0, f5, rtz     # negative: 0
    CHECK a0, 0
    CHECK_FLAGS 16
    LOAD_S f5, 0xbf000000     # -0.5 rounds to 0: only inexact
    fcvt.wu.s a0, f5, rtz
    CHECK a0, 0
    CHECK_FLAGS 1
    LOAD_S f5, QNAN
    fcvt.wu.s a0, f5, rtz     # 0xffffffff, sign-extended
    CHECK a0, -1
    CHECK_FLAGS 16
    LOAD_S f5, 0x4f32d05e     # 3e9 fits in 32 unsigned bits
    fcvt.wu.s a0, f5, rtz
    CHECK a0, 0xffffffffb2d05e00
    CHECK_FLAGS 0
    TEST 16
    LOAD_S f5, QNAN
    fcvt.l.s a0, f5, rtz
    CHECK a0, 0x7fffffffffffffff
    CHECK_FLAGS 16
    LOAD_S f5, NINF
    fcvt.l.s a0, f5, rtz
    CHECK a0, 0x8000000000000000
    CHECK_FLAGS 16
    fcvt.lu.s a0, f5, rtz
    CHECK a0, 0
    CHECK_FLAGS 16
    LOAD_S f5, PINF
    fcvt.lu.s a0, f5, rtz
    CHECK a0, -1
    CHECK_FLAGS 16
    LOAD_S f5, 0x5f000000     # 2^63: one past the largest long
    fcvt.l.s a0, f5, rtz
    CHECK a0, 0x7fffffffffffffff
    CHECK_FLAGS 16
    fcvt.lu.s a0, f5, rtz
    CHECK a0, 0x8000000000000000
    CHECK_FLAGS 0
    TEST 17                   # 2.5 and -2.5 in every mode
    LOAD_S f5, 0x40200000
    fcvt.w.s a0, f5, rne
    CHECK a0, 2
    fcvt.w.s a0, f5, rtz
    CHECK a0, 2
    fcvt.w.s a0, f5, rdn
    CHECK a0, 2
    fcvt.w.s a0, f5, rup
    CHECK a0, 3
    fcvt.w.s a0, f5, rmm
    CHECK a0, 3
    CHECK_FLAGS 1
    LOAD_S f5, 0xc0200000
    fcvt.w.s a0, f5, rne
    CHECK a0, -2
    fcvt.w.s a0, f5, rdn
    CHECK a0, -3
    fcvt.w.s a0, f5, rup
    CHECK a0, -2
    fcvt.l.s a0, f5, rmm
    CHECK a0, -3
    CHECK_FLAGS 1
    TEST 18                   # integer to single
    li a0, -1
    fcvt.s.w f4, a0
    CHECK_S f4, MONE
    fcvt.s.wu f4, a0          # 4294967295 rounds to 2^32
    CHECK_S f4, 0x4f800000
    CHECK_FLAGS 1
    fcvt.s.wu f4, a0, rtz
    CHECK_S f4, 0x4f7fffff
    CHECK_FLAGS 1
    li a0, 0x7fffffffffffffff
    fcvt.s.l f4, a0
    CHECK_S f4, 0x5f000000
    CHECK_FLAGS 1
    li a0, -1
    fcvt.s.lu f4, a0, rtz
    CHECK_S f4, 0x5f7fffff
    CHECK_FLAGS 1
    li a0, 0xffffffff00000003 # .w takes the low word: 3
    fcvt.s.w f4, a0
    CHECK_S f4, THREE
    CHECK_FLAGS 0

    # ---- fmin, fmax: a NaN loses to a number; -0 < +0 ----
    TEST 19
    LOAD_S f5, QNAN
    fmin.s f4, f5, f1
    CHECK_S f4, ONE
    fmax.s f4, f1, f5
    CHECK_S f4, ONE
    CHECK_FLAGS 0             # quiet NaN: no NV
    LOAD_S f5, SNAN
    fmin.s f4, f1, f5
    CHECK_S f4, ONE
    CHECK_FLAGS 16            # signalling: NV, still the number
    fmax.s f4, f5, f5
    CHECK_S f4, QNAN          # both NaN: the canonical NaN
    CHECK_FLAGS 16
    TEST 20
    LOAD_S f5, NZERO
    fmv.w.x f6, zero
    fmin.s f4, f5, f6
    CHECK_S f4, NZERO
    fmin.s f4, f6, f5
    CHECK_S f4, NZERO
    fmax.s f4, f5, f6
    CHECK_S f4, 0
    fmax.s f4, f6, f5
    CHECK_S f4, 0
    fmin.s f4, f1, f3
    CHECK_S f4, ONE
    fmax.s f4, f1, f3
    CHECK_S f4, THREE
    CHECK_FLAGS 0

    # ---- compares: feq is quiet, flt and fle signal on any NaN ----
    TEST 21
    feq.s a0, f1, f1
    CHECK a0, 1
    flt.s a0, f1, f3
    CHECK a0, 1
    fle.s a0, f3, f1
    CHECK a0, 0
    fle.s a0, f1, f1
    CHECK a0, 1
    feq.s a0, f5, f6          # -0 == +0
    CHECK a0, 1
    flt.s a0, f5, f6
    CHECK a0, 0
    CHECK_FLAGS 0
    TEST 22
    LOAD_S f5, QNAN
    feq.s a0, f5, f5
    CHECK a0, 0
    CHECK_FLAGS 0
    flt.s a0, f5, f1
    CHECK a0, 0
    CHECK_FLAGS 16
    fle.s a0, f1, f5
    CHECK a0, 0
    CHECK_FLAGS 16
    LOAD_S f5, SNAN
    feq.s a0, f5, f1
    CHECK a0, 0
    CHECK_FLAGS 16

    # ---- fclass: one bit for each of the ten classes ----
    .macro CLASS_S bits, class
    LOAD_S f5, \bits
    fclass.s a0, f5
    CHECK a0, \class
    .endm
    TEST 23
    CLASS_S NINF, 0x001
    CLASS_S MONE, 0x002
    CLASS_S 0x80000001, 0x004
    CLASS_S NZERO, 0x008
    CLASS_S 0, 0x010
    CLASS_S 0x00000001, 0x020
    CLASS_S ONE, 0x040
    CLASS_S PINF, 0x080
    CLASS_S SNAN, 0x100
    CLASS_S QNAN, 0x200
    CLASS_S 0xffc00001, 0x200
    CHECK_FLAGS 0

    # ---- fused multiply-add: one rounding ----
    TEST 24
    LOAD_S f5, 0x40e00000     # 7
    fmadd.s f4, f2, f3, f1    # 2*3 + 1
    CHECK_S f4, 0x40e00000
    fmsub.s f4, f2, f3, f1    # 2*3 - 1
    CHECK_S f4, 0x40a00000
    fnmadd.s f4, f2, f3, f1   # -(2*3) - 1
    CHECK_S f4, 0xc0e00000
    fnmsub.s f4, f2, f3, f1   # -(2*3) + 1
    CHECK_S f4, 0xc0a00000
    CHECK_FLAGS 0
    TEST 25                   # x = 1 + 2^-12: x*x = 1 + 2^-11 + 2^-24
    LOAD_S f5, 0x3f800800
    fmul.s f6, f5, f5         # rounded (a tie, to even): 1 + 2^-11
    CHECK_S f6, 0x3f801000
    CHECK_FLAGS 1
    fmsub.s f4, f5, f5, f6    # x*x - p exactly: 2^-24
    CHECK_S f4, TINY
    CHECK_FLAGS 0
    TEST 26                   # inf * 0 + qNaN is invalid all the same
    LOAD_S f5, PINF
    LOAD_S f6, QNAN
    fmv.w.x f7, zero
    fmadd.s f4, f5, f7, f6
    CHECK_S f4, QNAN
    CHECK_FLAGS 16
    fmadd.s f4, f1, f1, f6    # a quiet NaN addend alone: quiet
    CHECK_S f4, QNAN
    CHECK_FLAGS 0

    # ---- sign injection ----
    TEST 27
    LOAD_S f5, MONE
    fsgnj.s f4, f1, f5
    CHECK_S f4, MONE
    fsgnjn.s f4, f1, f1       # fneg
    CHECK_S f4, MONE
    fsgnjx.s f4, f5, f5       # fabs
    CHECK_S f4, ONE
    fsgnjx.s f4, f1, f5
    CHECK_S f4, MONE
    fneg.s f4, f5
    CHECK_S f4, ONE
    LOAD_S f6, SNAN           # no exception, NaN kept as it is
    fsgnjn.s f4, f6, f6
    CHECK_S f4, 0xff800001
    CHECK_FLAGS 0

    # ---- loads and stores ----
    TEST 28
    la s0, buf
    LOAD_S f5, 0x40490fdb
    fsw f5, 4(s0)
    flw f6, 4(s0)
    feq.s a0, f5, f6
    CHECK a0, 1
    lw a0, 4(s0)
    CHECK a0, 0x40490fdb
    CHECK_FLAGS 0

TEST_END

    .data
    .balign 8
buf:
    .dword 0, 0
