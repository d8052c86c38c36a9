# Vector floating point (VLEN 512, SEW 16, 32 and 64) beyond the random
# cross-check against the scalar FPU (tests/unit/device/sim/vector/sim_vec_test.c): the .vf
# forms (vs2 op f, and the reversed vfrsub/vfrdiv), NaN-boxing of the
# scalar operand, vfmv.v.f, vfmv.f.s (NaN-boxed at SEW 32), vfmv.s.f,
# vfmerge, vfslide1up/down, the compares vmfne/vmfgt/vmfge, the ordered,
# unordered, min and max reductions (masked too, and rounding at each
# step), fflags from vector operations, masking; the widening multiply-add,
# .wv form and ordered reduction, vfncvt.rod; the estimates vfrsqrt7.v and
# vfrec7.v (the spec's tables, subnormal inputs and results, every
# special case, vfrec7's overflow in each rounding mode); SEW 16 (Zvfh):
# arithmetic, the scalar's NaN-boxing, a reduction, the estimates, and the
# widening and narrowing conversions with halves and 8-bit integers.
#include "test.h"

#define ONE_S 0x3f800000
#define TWO_S 0x40000000

/* f register `freg` = the single `bits` (NaN-boxed) or double */
.macro SETS freg, bits
    li t5, \bits
    fmv.w.x \freg, t5
.endm
.macro SETD freg, bits
    li t5, \bits
    fmv.d.x \freg, t5
.endm
/* element i of v3 at SEW 16 (through memory; vl and vtype as they are) */
.macro ELH i, bits
    la s2, dst
    vse16.v v3, (s2)
    lhu s3, (2 * \i)(s2)
    CHECK s3, \bits
.endm
/* element i of v3 at SEW 32 (through memory) */
.macro ELS i, bits
    la s2, dst
    vse32.v v3, (s2)
    lwu s3, (4 * \i)(s2)
    CHECK s3, \bits
.endm

TEST_BEGIN
    VECTOR_ON
    TEST 1                    # vfmv.v.f and vfmv.f.s (boxed at SEW 32)
    vsetivli zero, 4, e32, m1, ta, ma
    SETS fa0, 0x3fc00000      # 1.5
    vfmv.v.f v2, fa0
    vfmv.f.s fa1, v2
    CHECK_S fa1, 0x3fc00000
    TEST 2                    # .vf: vs2 op f, and the reversed forms
    SETS fa2, TWO_S
    vfadd.vf v3, v2, fa2
    ELS 3, 0x40600000         # 3.5
    vfrsub.vf v3, v2, fa2
    ELS 0, 0x3f000000         # 2 - 1.5
    vfsub.vf v3, v2, fa2
    ELS 0, 0xbf000000
    csrwi fflags, 0
    vfrdiv.vf v3, v2, fa2     # 2 / 1.5
    ELS 1, 0x3faaaaab
    CHECK_FLAGS 1             # inexact
    vfdiv.vf v3, v2, fa2
    ELS 0, 0x3f400000         # 1.5 / 2
    CHECK_FLAGS 0
    TEST 3                    # an f operand not NaN-boxed reads as the canonical NaN
    SETD fa3, ONE_S           # upper half zero
    vfadd.vf v3, v2, fa3
    ELS 0, 0x7fc00000
    CHECK_FLAGS 0             # a quiet NaN: no flag
    TEST 4                    # division by zero: DZ
    fmv.w.x fa4, zero
    vfdiv.vf v3, v2, fa4
    ELS 2, 0x7f800000
    CHECK_FLAGS 8
    TEST 5                    # SEW 64
    vsetivli zero, 2, e64, m1, ta, ma
    SETD fa5, 0x3ff0000000000000
    vfmv.v.f v4, fa5
    vfadd.vv v4, v4, v4
    vfmv.f.s fa6, v4
    CHECK_D fa6, 0x4000000000000000
    TEST 6                    # vfmv.s.f writes element 0 only
    vsetivli zero, 4, e32, m1, ta, ma
    vfmv.s.f v2, fa2
    vmv.v.v v3, v2
    ELS 0, TWO_S
    ELS 1, 0x3fc00000
    TEST 7                    # vfmerge / masked arithmetic
    li t1, 0x5
    vmv.s.x v0, t1
    vfmv.v.f v2, fa0          # 1.5 everywhere
    vfmerge.vfm v3, v2, fa2, v0
    ELS 0, TWO_S
    ELS 1, 0x3fc00000
    ELS 2, TWO_S
    vmv.v.v v3, v2
    vfadd.vv v3, v2, v2, v0.t
    ELS 0, 0x40400000         # 3
    ELS 1, 0x3fc00000
    TEST 8                    # slides with an f scalar
    la a3, ones
    vle32.v v2, (a3)          # 1, 2, 3, 4
    vfslide1up.vf v3, v2, fa2
    ELS 0, TWO_S
    ELS 1, ONE_S
    ELS 3, 0x40400000
    vfslide1down.vf v3, v2, fa0
    ELS 0, TWO_S
    ELS 2, 0x40800000
    ELS 3, 0x3fc00000
    TEST 9                    # compares with f: 1 2 3 4 against 2 / 2.5
    vmfne.vf v1, v2, fa2
    vcpop.m t3, v1
    CHECK t3, 3
    vmfge.vf v1, v2, fa2
    vcpop.m t3, v1
    CHECK t3, 3
    SETS fa7, 0x40200000      # 2.5
    vmfgt.vf v1, v2, fa7
    vcpop.m t3, v1
    CHECK t3, 2
    vmflt.vf v1, v2, fa7
    vfirst.m t3, v1
    CHECK t3, 0
    CHECK_FLAGS 0
    TEST 10                   # reductions over 1 2 3 4 from 10
    SETS ft0, 0x41200000
    vfmv.s.f v5, ft0
    vfredosum.vs v6, v2, v5
    vfmv.f.s ft1, v6
    CHECK_S ft1, 0x41a00000   # 20
    vfredusum.vs v6, v2, v5
    vfmv.f.s ft1, v6
    CHECK_S ft1, 0x41a00000
    vfredmax.vs v6, v2, v5
    vfmv.f.s ft1, v6
    CHECK_S ft1, 0x41200000   # the start value, 10
    vfredmin.vs v6, v2, v5
    vfmv.f.s ft1, v6
    CHECK_S ft1, ONE_S
    vfredosum.vs v6, v2, v5, v0.t   # elements 0, 2: 10 + 1 + 3
    vfmv.f.s ft1, v6
    CHECK_S ft1, 0x41600000
    TEST 11                   # ordered: each step rounds (1 + 2^-24 + 2^-24 stays 1)
    la a3, tiny
    vsetivli zero, 3, e32, m1, ta, ma
    vle32.v v2, (a3)
    vmv.s.x v5, zero
    vfredosum.vs v6, v2, v5
    vfmv.f.s ft1, v6
    CHECK_S ft1, ONE_S
    CHECK_FLAGS 1
    TEST 12                   # vl 0: nothing written, no flags
    vsetivli zero, 0, e32, m1, ta, ma
    vfredosum.vs v6, v2, v5
    vsetivli zero, 1, e32, m1, ta, ma
    vfmv.f.s ft1, v6
    CHECK_S ft1, ONE_S
    CHECK_FLAGS 0
    TEST 13                   # widening: vfwmacc.vf, vfwadd.wv, vfwredosum (singles in, doubles out)
    vsetivli zero, 4, e64, m2, ta, ma
    SETD ft2, 0x3ff0000000000000
    vfmv.v.f v10, ft2         # vd: 1.0 (double)
    vsetivli zero, 4, e32, m1, ta, ma
    vfmv.v.f v2, fa0          # 1.5 (single)
    vfwmacc.vf v10, fa2, v2   # 1 + 2 * 1.5
    vsetivli zero, 4, e64, m2, ta, ma
    vfmv.f.s ft3, v10
    CHECK_D ft3, 0x4010000000000000
    vfmv.v.f v12, ft2
    vsetivli zero, 4, e32, m1, ta, ma
    vfwadd.wv v14, v12, v2    # 1.0 (double) + 1.5
    vsetivli zero, 4, e64, m2, ta, ma
    vfmv.f.s ft3, v14
    CHECK_D ft3, 0x4004000000000000
    la a3, ones
    vsetivli zero, 4, e32, m1, ta, ma
    vle32.v v2, (a3)
    vsetivli zero, 1, e64, m1, ta, ma
    SETD ft4, 0x4024000000000000
    vfmv.s.f v5, ft4          # 10.0 (double)
    vsetivli zero, 4, e32, m1, ta, ma
    vfwredosum.vs v6, v2, v5
    vsetivli zero, 1, e64, m1, ta, ma
    vfmv.f.s ft5, v6
    CHECK_D ft5, 0x4034000000000000
    CHECK_FLAGS 0
    TEST 14                   # vfncvt.rod.f.f.w: inexact results get their last bit set
    vsetivli zero, 2, e64, m2, ta, ma
    la a3, rod
    vle64.v v12, (a3)
    vsetivli zero, 2, e32, m1, ta, ma
    vfncvt.rod.f.f.w v3, v12
    ELS 0, 0x3f800001         # 1 + 2^-30
    ELS 1, TWO_S              # 2, exact
    CHECK_FLAGS 1
    vfncvt.f.f.w v3, v12      # the same, to nearest
    ELS 0, ONE_S
    TEST 15                   # vfrsqrt7.v (SEW 32): the spec's table, exponents, special cases
    csrwi fflags, 0           # test 14's last conversion was inexact
    vsetivli zero, 8, e32, m1, ta, ma
    la a3, rsq
    vle32.v v12, (a3)
    vsetivli zero, 6, e32, m1, ta, ma
    vfrsqrt7.v v3, v12
    ELS 0, 0x3f7f0000         # 1: 0.99 (exponent odd: the table's second half)
    ELS 1, 0x3eff0000         # 4: 0.498
    ELS 2, 0x3f340000         # 2: 0.703 (even: the first half)
    ELS 3, 0x64b40000         # the least subnormal, 2^-149: 2^74.5 as 1.406 * 2^74
    ELS 4, 0                  # +inf: +0
    ELS 5, 0x7fc00000         # a quiet NaN: the canonical NaN
    CHECK_FLAGS 0             # an estimate is never inexact
    vsetivli zero, 8, e32, m1, ta, ma
    vfrsqrt7.v v3, v12        # 6, 7: +0, -0
    ELS 6, 0x7f800000
    ELS 7, 0xff800000
    CHECK_FLAGS 8             # DZ
    la a3, rsqnv
    vsetivli zero, 3, e32, m1, ta, ma
    vle32.v v4, (a3)
    vfrsqrt7.v v3, v4
    ELS 0, 0x7fc00000         # -1
    ELS 1, 0x7fc00000         # -inf
    ELS 2, 0x7fc00000         # a signaling NaN
    CHECK_FLAGS 16            # NV
    TEST 16                   # vfrec7.v (SEW 32): table, subnormal results, special cases
    la a3, rec
    vsetivli zero, 12, e32, m1, ta, ma
    vle32.v v4, (a3)
    vfrec7.v v3, v4
    ELS 0, 0x3f7f0000         # 1: 0.99
    ELS 1, 0x3eaa0000         # 3: 0.332
    ELS 2, 0xbeff0000         # -2: -0.498
    ELS 3, 0x00200000         # the largest finite: a subnormal, shifted twice
    ELS 4, 0x007f8000         # 2^126: a subnormal, shifted once
    ELS 5, 0x7eff0000         # 2^-127 (subnormal): 2^126 * 1.99
    ELS 6, 0x7f7f0000         # 2^-128: normalised once more
    ELS 7, 0                  # +inf: +0
    ELS 8, 0x80000000         # -inf: -0
    ELS 9, 0x7fc00000         # a quiet NaN
    ELS 10, 0x7f800000        # +0: +inf
    ELS 11, 0xff800000        # -0: -inf
    CHECK_FLAGS 8             # DZ from the zeros, nothing else
    TEST 17                   # vfrec7.v past the largest finite: by frm, OF and NX
    la a3, tinyrec
    vsetivli zero, 2, e32, m1, ta, ma
    vle32.v v4, (a3)          # 2^-149 and -2^-149
    vfrec7.v v3, v4           # frm RNE
    ELS 0, 0x7f800000
    ELS 1, 0xff800000
    CHECK_FLAGS 5
    csrwi frm, 1              # RTZ: the largest finite, both signs
    vfrec7.v v3, v4
    ELS 0, 0x7f7fffff
    ELS 1, 0xff7fffff
    csrwi frm, 2              # RDN: +max, -inf
    vfrec7.v v3, v4
    ELS 0, 0x7f7fffff
    ELS 1, 0xff800000
    csrwi frm, 3              # RUP: +inf, -max
    vfrec7.v v3, v4
    ELS 0, 0x7f800000
    ELS 1, 0xff7fffff
    csrwi frm, 4              # RMM: infinities
    vfrec7.v v3, v4
    ELS 0, 0x7f800000
    ELS 1, 0xff800000
    CHECK_FLAGS 5
    csrwi frm, 0
    TEST 18                   # SEW 64, and masked
    vsetivli zero, 2, e64, m1, ta, mu
    la a3, est64
    vle64.v v4, (a3)
    vfrec7.v v5, v4           # 1: 0.99
    vfmv.f.s ft5, v5
    CHECK_D ft5, 0x3fefe00000000000
    vfrsqrt7.v v5, v4
    vslidedown.vi v6, v5, 1   # 4: 0.498
    vfmv.f.s ft5, v6
    CHECK_D ft5, 0x3fdfe00000000000
    vmv.v.i v0, 2             # element 1 only
    vmv.v.i v5, 0
    vfrec7.v v5, v4, v0.t
    vfmv.f.s ft5, v5
    CHECK_D ft5, 0            # element 0 left as it was
    CHECK_FLAGS 0

    # ---- SEW 16 (Zvfh): halves through the same software arithmetic ----
    TEST 19                   # .vv and .vf, the scalar unboxed, vfmv.f.s boxing
    vsetivli zero, 4, e16, m1, ta, ma
    la a3, halves
    vle16.v v2, (a3)          # 1, 3, -2, 65504
    LOAD_H fa0, 0x3c00
    vfadd.vf v3, v2, fa0
    ELH 0, 0x4000             # 1 + 1
    ELH 1, 0x4400             # 3 + 1
    ELH 2, 0xbc00             # -2 + 1
    ELH 3, 0x7bff             # 65504 + 1: inexact
    CHECK_FLAGS 1
    vfmul.vv v3, v2, v2
    ELH 1, 0x4880             # 9
    ELH 3, 0x7c00             # overflow
    CHECK_FLAGS 5
    vfdiv.vf v3, v2, fa0      # x / 1: exact
    CHECK_FLAGS 0
    SETS fa1, 0x3c00          # a boxed single is no boxed half: the canonical NaN
    vfadd.vf v3, v2, fa1
    ELH 0, 0x7e00
    vfmv.f.s fa2, v2
    CHECK_H fa2, 0x3c00
    vfredosum.vs v4, v2, v2   # 1 + (1 + 3 - 2 + 65504) in order: 65504 + 3 = 65507 -> 65504
    vfmv.f.s fa2, v4
    CHECK_H fa2, 0x7bff
    CHECK_FLAGS 1
    TEST 20                   # the estimates at SEW 16
    vfrec7.v v3, v2
    ELH 0, 0x3bf8             # 1: 0.996
    ELH 1, 0x3550             # 3: 0.332
    ELH 2, 0xb7f8             # -2: -0.498
    ELH 3, 0x0100             # 65504: a subnormal 2^-16
    CHECK_FLAGS 0
    la a3, halves_est
    vle16.v v4, (a3)          # 4, 2, 2^-15, 2^-24
    vfrsqrt7.v v3, v4
    ELH 0, 0x37f8             # 0.498
    ELH 1, 0x39a0             # 0.703
    vfrec7.v v3, v4
    ELH 2, 0x77f8             # 2^-15: 32640
    ELH 3, 0x7c00             # 2^-24: past the largest finite, RNE: inf
    CHECK_FLAGS 5
    TEST 21                   # widening and narrowing with halves
    vsetivli zero, 2, e16, m1, ta, ma
    LOAD_H fa3, 0x1000        # 2^-11
    vfwadd.vf v6, v2, fa3     # singles: 1 + 2^-11, 3 + 2^-11
    vsetivli zero, 2, e32, m1, ta, ma
    vse32.v v6, (s2)
    lwu s3, 0(s2)
    CHECK s3, 0x3f801000
    CHECK_FLAGS 0
    vsetivli zero, 2, e16, m1, ta, ma
    vfncvt.f.f.w v3, v6       # back to halves: 1 + 2^-11 is a tie, to 1
    ELH 0, 0x3c00
    CHECK_FLAGS 1
    vfncvt.rod.f.f.w v3, v6   # round to odd: 1 + 2^-10
    ELH 0, 0x3c01
    CHECK_FLAGS 1
    vsetivli zero, 2, e8, mf2, ta, ma
    la a3, bytes
    vle8.v v7, (a3)           # -128, 127
    vfwcvt.f.x.v v3, v7       # 8-bit integers to halves: exact
    vsetivli zero, 2, e16, m1, ta, ma
    ELH 0, 0xd800
    ELH 1, 0x57f0
    la a3, halves_int
    vle16.v v8, (a3)          # 300, -2.5
    vsetivli zero, 2, e8, mf2, ta, ma
    vfncvt.x.f.w v9, v8       # halves to 8-bit integers: 127 saturated (NV), -2 (NX)
    vse8.v v9, (s2)
    lbu s3, 0(s2)
    CHECK s3, 127
    lbu s3, 1(s2)
    CHECK s3, 0xfe
    CHECK_FLAGS 17
    vsetivli zero, 2, e16, m1, ta, ma
    la a3, big
    vle16.v v8, (a3)          # 40000.0, and 65535 as an integer
    vsetivli zero, 1, e16, m1, ta, ma
    vfcvt.x.f.v v3, v8        # to a 16-bit integer: saturated
    ELH 0, 0x7fff
    CHECK_FLAGS 16
    vslidedown.vi v8, v8, 1
    vfcvt.f.xu.v v3, v8       # 65535: past 65520, inf
    ELH 0, 0x7c00
    CHECK_FLAGS 5
TEST_END

    .data
    .balign 64
dst:
    .zero 64
ones:
    .word 0x3f800000, 0x40000000, 0x40400000, 0x40800000
tiny:
    .word 0x3f800000, 0x33800000, 0x33800000
    .balign 8
rod:
    .dword 0x3ff0000004000000, 0x4000000000000000
rsq:
    .word 0x3f800000, 0x40800000, 0x40000000, 0x00000001, 0x7f800000, 0x7fc00000, 0, 0x80000000
rsqnv:
    .word 0xbf800000, 0xff800000, 0x7f800001
rec:
    .word 0x3f800000, 0x40400000, 0xc0000000, 0x7f7fffff, 0x7e800000, 0x00400000, 0x00200000
    .word 0x7f800000, 0xff800000, 0x7fc00000, 0, 0x80000000
tinyrec:
    .word 0x00000001, 0x80000001
    .balign 8
est64:
    .dword 0x3ff0000000000000, 0x4010000000000000
halves:
    .half 0x3c00, 0x4200, 0xc000, 0x7bff
halves_est:
    .half 0x4400, 0x4000, 0x0200, 0x0001
halves_int:
    .half 0x5cb0, 0xc100
big:
    .half 0x78e2, 0xffff
bytes:
    .byte 0x80, 0x7f
