# Vector permutations, carries and extensions (VLEN 512): vslideup and
# vslidedown (.vx, .vi; reading 0 past VLMAX, not vl), vslide1up and
# vslide1down, vrgather (.vv, .vx, .vi; 0 for an index past VLMAX),
# vrgatherei16, vcompress; vadc, vmadc, vsbc, vmsbc (with and without the
# carry in, at SEW 8 and 64); vzext and vsext (.vf2, .vf4, .vf8).
#include "test.h"

/* The 32-bit element at dst + 4 * i (zero-extended). */
.macro EL i, value
    la s2, dst
    lwu s3, (4 * \i)(s2)
    CHECK s3, \value
.endm

/* v4 = -1 everywhere (e32 m1, vl 16), then back to vl 16 */
.macro CLEAR4
    vsetivli zero, 16, e32, m1, ta, ma
    vmv.v.i v4, -1
.endm

#define NEG(x) (0xffffffffffffffff - (x) + 1)

TEST_BEGIN
    VECTOR_ON
    la a2, dst
    vsetivli zero, 16, e32, m1, ta, ma
    vid.v v2
    vadd.vi v2, v2, 15
    vadd.vx v2, v2, zero
    li t1, 85
    vadd.vx v2, v2, t1        # v2 = 100, 101, ..., 115

    TEST 1                    # slide up by 3: elements below 3 keep theirs
    CLEAR4
    vslideup.vi v4, v2, 3
    vse32.v v4, (a2)
    EL 0, 0xffffffff
    EL 2, 0xffffffff
    EL 3, 100
    EL 15, 112
    TEST 2                    # an offset past vl moves nothing
    CLEAR4
    li t1, 20
    vslideup.vx v4, v2, t1
    vse32.v v4, (a2)
    EL 15, 0xffffffff
    TEST 3                    # slide down by 3: 0 past VLMAX
    CLEAR4
    vslidedown.vi v4, v2, 3
    vse32.v v4, (a2)
    EL 0, 103
    EL 12, 115
    EL 13, 0
    EL 15, 0
    TEST 4                    # with vl 4: sources up to VLMAX, not vl
    CLEAR4
    vsetivli zero, 4, e32, m1, ta, ma
    li t1, 14
    vslidedown.vx v4, v2, t1
    vsetivli zero, 16, e32, m1, ta, ma
    vse32.v v4, (a2)
    EL 0, 114
    EL 1, 115
    EL 2, 0
    EL 4, 0xffffffff
    TEST 5                    # a huge offset: all 0
    CLEAR4
    li t1, -1
    vslidedown.vx v4, v2, t1
    vse32.v v4, (a2)
    EL 0, 0
    EL 15, 0
    TEST 6                    # vslide1up / vslide1down
    CLEAR4
    li t1, 7
    vslide1up.vx v4, v2, t1
    vse32.v v4, (a2)
    EL 0, 7
    EL 1, 100
    EL 15, 114
    vslide1down.vx v4, v2, t1
    vse32.v v4, (a2)
    EL 0, 101
    EL 14, 115
    EL 15, 7
    TEST 7                    # masked slide: inactive elements keep theirs
    CLEAR4
    li t1, 0x5555
    vmv.s.x v0, t1
    vslideup.vi v4, v2, 1, v0.t
    vse32.v v4, (a2)
    EL 1, 0xffffffff
    EL 2, 101

    TEST 8                    # vrgather.vv: reverse, and 0 past VLMAX
    vid.v v3
    vrsub.vi v3, v3, 15
    vrgather.vv v4, v2, v3
    vse32.v v4, (a2)
    EL 0, 115
    EL 15, 100
    li t1, 16
    vmv.v.x v3, t1
    vrgather.vv v4, v2, v3
    vse32.v v4, (a2)
    EL 3, 0
    TEST 9                    # vrgather.vx / .vi
    li t1, 5
    vrgather.vx v4, v2, t1
    vse32.v v4, (a2)
    EL 0, 105
    EL 15, 105
    vrgather.vi v4, v2, 31
    vse32.v v4, (a2)
    EL 9, 0
    TEST 10                   # vrgatherei16: 16-bit indices (EMUL 1/2 here)
    vsetivli zero, 16, e16, mf2, ta, ma
    vid.v v6
    vrsub.vi v6, v6, 15
    vsetivli zero, 16, e32, m1, ta, ma
    vrgatherei16.vv v4, v2, v6
    vse32.v v4, (a2)
    EL 0, 115
    EL 5, 110
    TEST 11                   # vcompress: the selected elements packed, the rest kept
    CLEAR4
    li t1, 0xaaaa
    vmv.s.x v1, t1
    vcompress.vm v4, v2, v1
    vse32.v v4, (a2)
    EL 0, 101
    EL 1, 103
    EL 7, 115
    EL 8, 0xffffffff

    TEST 12                   # vadc / vmadc at e8: 0xff + 0 + carry
    vsetivli zero, 2, e8, m1, ta, ma
    li t1, 0xff
    vmv.v.x v8, t1
    vmv.v.i v9, 0
    li t1, 1                  # carry in for element 0 only
    vmv.s.x v0, t1
    vadc.vvm v10, v8, v9, v0
    vmv.x.s t3, v10
    CHECK t3, 0
    vsetivli zero, 1, e16, m1, ta, ma
    vmv.x.s t3, v10           # element 1 (the high byte): no carry in
    CHECK t3, NEG(0x100)
    vsetivli zero, 2, e8, m1, ta, ma
    vmadc.vvm v11, v8, v9, v0
    vmv.x.s t3, v11
    CHECK t3, 1               # carry out of element 0 only
    vmadc.vv v11, v8, v9      # no carry in: none out
    vmv.x.s t3, v11
    CHECK t3, 0
    vmadc.vi v11, v8, 1
    vmv.x.s t3, v11
    CHECK t3, 3
    TEST 13                   # vsbc / vmsbc at e8: 0 - 0 - borrow
    vmv.v.i v8, 0
    vsbc.vvm v10, v8, v9, v0
    vmv.x.s t3, v10
    CHECK t3, NEG(1)
    vmsbc.vvm v11, v8, v9, v0
    vmv.x.s t3, v11
    CHECK t3, 1
    li t1, 1
    vmsbc.vx v11, v8, t1      # 0 - 1: both borrow
    vmv.x.s t3, v11
    CHECK t3, 3
    TEST 14                   # carry out at e64
    vsetivli zero, 1, e64, m1, ta, ma
    li t1, -1
    vmv.v.x v8, t1
    vmadc.vx v11, v8, t1
    vmv.s.x v0, zero
    vmadc.vim v12, v8, 1, v0
    vsetivli zero, 8, e8, m1, ta, ma
    vmv.x.s t3, v11
    andi t3, t3, 1            # bit 0: the rest of the mask is as it was
    CHECK t3, 1
    vmv.x.s t3, v12
    andi t3, t3, 1
    CHECK t3, 1
    vsetivli zero, 1, e64, m1, ta, ma
    vmadc.vim v12, v8, 0, v0
    vsetivli zero, 8, e8, m1, ta, ma
    vmv.x.s t3, v12
    andi t3, t3, 1
    CHECK t3, 0

    TEST 15                   # vzext / vsext
    la a3, bytes
    vsetivli zero, 8, e8, m1, ta, ma
    vle8.v v2, (a3)           # 0x01, 0x82, 0x7f, 0xff, ...
    vsetivli zero, 8, e16, m1, ta, ma
    vzext.vf2 v4, v2
    vse16.v v4, (a2)
    ld t3, 0(a2)
    CHECK t3, 0x00ff007f00820001
    vsext.vf2 v4, v2
    vse16.v v4, (a2)
    ld t3, 0(a2)
    CHECK t3, 0xffff007fff820001
    vsetivli zero, 8, e32, m1, ta, ma
    vsext.vf4 v4, v2
    vse32.v v4, (a2)
    EL 1, 0xffffff82
    EL 2, 0x7f
    vsetivli zero, 8, e64, m1, ta, ma
    vzext.vf8 v4, v2
    vse64.v v4, (a2)
    ld t3, 8(a2)
    CHECK t3, 0x82
    vsext.vf8 v4, v2
    vse64.v v4, (a2)
    ld t3, 24(a2)
    CHECK t3, NEG(1)
TEST_END

    .data
    .balign 64
dst:
    .zero 256
bytes:
    .byte 0x01, 0x82, 0x7f, 0xff, 0x00, 0x10, 0x80, 0x33
