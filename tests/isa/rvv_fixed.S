# Vector fixed point (VLEN 512): saturating add and subtract, averaging
# add and subtract, vsmul, the scaling shifts and the narrowing clips,
# under each rounding mode of vxrm (0 rnu, 1 rne, 2 rdn, 3 rod), with
# vxsat set exactly when a result saturates.  Results read back at SEW,
# sign-extended (vmv.x.s).
#include "test.h"

#define NEG(x) (0xffffffffffffffff - (x) + 1)

/* vxrm = rm; vd = op(vs2 = a, vs1 = b) at `sew` (.vv, then .vx); vxsat
 * (cleared first) must be `sat`. */
.macro FX op, sew, rm, a, b, r, sat
    csrwi vxrm, \rm
    vsetivli zero, 4, \sew, m1, ta, ma
    li t1, \a
    vmv.v.x v4, t1
    li t2, \b
    vmv.v.x v5, t2
    csrwi vxsat, 0
    \op\().vv v2, v4, v5
    vmv.x.s t3, v2
    CHECK t3, \r
    csrr t3, vxsat
    CHECK t3, \sat
    csrwi vxsat, 0
    \op\().vx v2, v4, t2
    vmv.x.s t3, v2
    CHECK t3, \r
    csrr t3, vxsat
    CHECK t3, \sat
.endm
/* a narrowing clip: vs2 = a at `wide`, amount b, result at `sew` */
.macro CLIP op, sew, wide, rm, a, b, r, sat
    csrwi vxrm, \rm
    vsetivli zero, 4, \wide, m1, ta, ma
    li t1, \a
    vmv.v.x v4, t1
    vsetivli zero, 4, \sew, m1, ta, ma
    csrwi vxsat, 0
    \op\().wi v2, v4, \b
    vmv.x.s t3, v2
    CHECK t3, \r
    csrr t3, vxsat
    CHECK t3, \sat
.endm

TEST_BEGIN
    VECTOR_ON
    TEST 1                    # saturating add and subtract
    FX vsaddu, e8, 0, 0xf0, 0x20, NEG(1), 1
    FX vsaddu, e8, 0, 0x70, 0x20, NEG(0x70), 0
    FX vsadd, e8, 0, 0x70, 0x20, 0x7f, 1
    FX vsadd, e8, 0, 0x80, 0xff, NEG(128), 1
    FX vsadd, e64, 0, 0x7fffffffffffffff, 1, 0x7fffffffffffffff, 1
    FX vssubu, e16, 0, 1, 2, 0, 1
    FX vssubu, e16, 0, 5, 2, 3, 0
    FX vssub, e16, 0, 0x8000, 1, NEG(0x8000), 1
    FX vssub, e32, 0, 0x7fffffff, 0xffffffff, 0x7fffffff, 1
    TEST 2                    # .vi: sign-extended immediates for the adds
    vsetivli zero, 4, e8, m1, ta, ma
    li t1, 0x7f
    vmv.v.x v4, t1
    csrwi vxsat, 0
    vsadd.vi v2, v4, -1
    vmv.x.s t3, v2
    CHECK t3, 0x7e
    vsaddu.vi v2, v4, -1      # + 0xff: saturates
    vmv.x.s t3, v2
    CHECK t3, NEG(1)
    csrr t3, vxsat
    CHECK t3, 1
    TEST 3                    # averaging add: 7 / 2 = 3.5, 5 / 2 = 2.5 in each mode
    FX vaaddu, e8, 0, 5, 2, 4, 0
    FX vaaddu, e8, 1, 5, 2, 4, 0
    FX vaaddu, e8, 2, 5, 2, 3, 0
    FX vaaddu, e8, 3, 5, 2, 3, 0
    FX vaaddu, e8, 0, 5, 0, 3, 0
    FX vaaddu, e8, 1, 5, 0, 2, 0
    FX vaaddu, e8, 2, 5, 0, 2, 0
    FX vaaddu, e8, 3, 5, 0, 3, 0
    FX vaaddu, e8, 2, 0xff, 0x01, NEG(0x80), 0   # no overflow: w + 1 bits
    FX vaadd, e8, 0, 0x80, 0x80, NEG(128), 0
    FX vaadd, e8, 0, 0xff, 0, 0, 0               # -0.5: up to 0
    FX vaadd, e8, 2, 0xff, 0, NEG(1), 0          # down to -1
    FX vaadd, e64, 2, 0x7fffffffffffffff, 0x7fffffffffffffff, 0x7fffffffffffffff, 0
    TEST 4                    # averaging subtract
    FX vasubu, e8, 0, 0, 1, 0, 0
    FX vasubu, e8, 2, 0, 1, NEG(1), 0
    FX vasubu, e16, 2, 10, 4, 3, 0
    FX vasub, e8, 0, 0x80, 0x7f, NEG(127), 0
    FX vasub, e8, 2, 0x80, 0x7f, NEG(128), 0
    TEST 5                    # vsmul: (a * b) >> (SEW - 1), rounded; -1 * -1 saturates
    FX vsmul, e8, 0, 0x80, 0x80, 0x7f, 1
    FX vsmul, e8, 0, 0x40, 0x40, 0x20, 0
    FX vsmul, e8, 0, 0xc0, 0x40, NEG(32), 0
    FX vsmul, e8, 0, 3, 0x41, 2, 0
    FX vsmul, e8, 2, 3, 0x41, 1, 0
    FX vsmul, e64, 0, 0x8000000000000000, 0x8000000000000000, 0x7fffffffffffffff, 1
    FX vsmul, e64, 0, 0x4000000000000000, 0x4000000000000000, 0x2000000000000000, 0
    TEST 6                    # scaling shifts: 0xff >> 4 = 15.9375
    FX vssrl, e16, 0, 0xff, 4, 16, 0
    FX vssrl, e16, 1, 0xff, 4, 16, 0
    FX vssrl, e16, 2, 0xff, 4, 15, 0
    FX vssrl, e16, 3, 0xff, 4, 15, 0
    FX vssrl, e16, 0, 0xff, 20, 16, 0            # the amount mod 16
    FX vssrl, e16, 3, 0x18, 4, 1, 0              # 1.5 to odd: 1
    FX vssrl, e16, 1, 0x18, 4, 2, 0              # 1.5 to even: 2
    FX vssrl, e16, 1, 0x28, 4, 2, 0              # 2.5 to even: 2
    FX vssra, e16, 0, 0xfff8, 4, 0, 0            # -0.5 up: 0
    FX vssra, e16, 2, 0xfff8, 4, NEG(1), 0
    FX vssra, e16, 0, 0x8000, 15, NEG(1), 0
    TEST 7                    # narrowing clips
    CLIP vnclipu, e8, e16, 0, 0x1234, 4, NEG(1), 1
    CLIP vnclipu, e8, e16, 0, 0x00f8, 3, 0x1f, 0
    CLIP vnclipu, e8, e16, 0, 0x00ff, 1, NEG(0x80), 0
    CLIP vnclipu, e8, e16, 2, 0x00ff, 1, 0x7f, 0
    CLIP vnclip, e8, e16, 0, 0x8000, 4, NEG(128), 1
    CLIP vnclip, e8, e16, 0, 0xff80, 0, NEG(128), 0
    CLIP vnclip, e8, e16, 0, 0x0100, 1, 0x7f, 1
    CLIP vnclip, e16, e32, 0, 0x00018000, 1, 0x7fff, 1
    CLIP vnclip, e32, e64, 0, 0xfffffffe00000000, 1, NEG(0x80000000), 1
    TEST 8                    # vxsat stays set (only software clears it); vcsr shows it
    csrwi vxsat, 0
    csrwi vxrm, 2
    vsetivli zero, 4, e8, m1, ta, ma
    li t1, 0x7f
    vmv.v.x v4, t1
    vsadd.vv v2, v4, v4
    vsadd.vi v2, v4, 0
    csrr t3, vcsr
    CHECK t3, (2 << 1) | 1
    TEST 9                    # masked: inactive elements keep theirs, and cannot saturate
    li t1, 0xe
    vmv.s.x v0, t1
    vmv.v.i v2, 3
    csrwi vxsat, 0
    vsadd.vv v2, v4, v4, v0.t
    vmv.x.s t3, v2
    CHECK t3, 3
    csrr t3, vxsat
    CHECK t3, 1               # element 1 saturated
    li t1, 0
    vmv.s.x v0, t1
    csrwi vxsat, 0
    vsadd.vv v2, v4, v4, v0.t
    csrr t3, vxsat
    CHECK t3, 0
TEST_END
