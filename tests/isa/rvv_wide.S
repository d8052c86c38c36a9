# Vector widening and narrowing integer operations (VLEN 512): vwadd[u],
# vwsub[u] in .vv/.vx and .wv/.wx forms, vwmul[u|su], vwmacc[u|su|us],
# vwredsum[u], vnsrl/vnsra (.wv/.wx/.wi, the amount's low log2(2 * SEW)
# bits); results read back at 2 * SEW (or SEW for the narrowing ones)
# sign-extended by vmv.x.s; a 2 * LMUL = 8 group.
#include "test.h"

#define NEG(x) (0xffffffffffffffff - (x) + 1)

/* vs2 = a, vs1 = b (both at `sew`), vd = op(vs2, vs1) read at `wide` */
.macro W op, sew, wide, a, b, r
    vsetivli zero, 4, \sew, m1, ta, ma
    li t1, \a
    vmv.v.x v4, t1
    li t2, \b
    vmv.v.x v5, t2
    \op\().vv v2, v4, v5
    vsetivli zero, 4, \wide, m1, ta, ma
    vmv.x.s t3, v2
    CHECK t3, \r
    vsetivli zero, 4, \sew, m1, ta, ma
    \op\().vx v2, v4, t2
    vsetivli zero, 4, \wide, m1, ta, ma
    vmv.x.s t3, v2
    CHECK t3, \r
.endm
/* .wv/.wx: vs2 = a at `wide`, vs1 = b at `sew` */
.macro WW op, sew, wide, a, b, r
    vsetivli zero, 4, \wide, m1, ta, ma
    li t1, \a
    vmv.v.x v4, t1
    vsetivli zero, 4, \sew, m1, ta, ma
    li t2, \b
    vmv.v.x v6, t2
    \op\().wv v2, v4, v6
    vsetivli zero, 4, \wide, m1, ta, ma
    vmv.x.s t3, v2
    CHECK t3, \r
    vsetivli zero, 4, \sew, m1, ta, ma
    \op\().wx v2, v4, t2
    vsetivli zero, 4, \wide, m1, ta, ma
    vmv.x.s t3, v2
    CHECK t3, \r
.endm
/* vd = c at `wide`, then op vd, vs1 = b, vs2 = a (or rs1 = b) */
.macro WMAC op, sew, wide, c, b, a, r, forms=vv
    vsetivli zero, 4, \wide, m1, ta, ma
    li t1, \c
    vmv.v.x v2, t1
    vsetivli zero, 4, \sew, m1, ta, ma
    li t1, \a
    vmv.v.x v4, t1
    li t2, \b
    vmv.v.x v5, t2
    .ifc \forms, vv
    \op\().vv v2, v5, v4
    .else
    \op\().vx v2, t2, v4
    .endif
    vsetivli zero, 4, \wide, m1, ta, ma
    vmv.x.s t3, v2
    CHECK t3, \r
.endm

TEST_BEGIN
    VECTOR_ON
    TEST 1                    # widening add and subtract
    W vwaddu, e8, e16, 0xff, 0xff, 0x1fe
    W vwadd, e8, e16, 0xff, 0xff, NEG(2)
    W vwsubu, e16, e32, 0, 1, NEG(1)
    W vwsub, e32, e64, 0x80000000, 1, NEG(0x80000001)
    W vwsubu, e32, e64, 0, 1, 0xffffffff00000000 | 0xffffffff
    TEST 2                    # .wv / .wx: a wide vs2
    WW vwaddu, e8, e16, 0x1000, 0xff, 0x10ff
    WW vwadd, e16, e32, 5, 0xffff, 4
    WW vwsubu, e8, e16, 0x100, 0xff, 1
    WW vwsub, e32, e64, 0, 0x80000000, 0x80000000
    TEST 3                    # widening multiplies
    W vwmulu, e8, e16, 0xff, 0xff, NEG(0x01ff)
    W vwmul, e8, e16, 0x80, 0x80, 0x4000
    W vwmulsu, e8, e16, 0xff, 0xff, NEG(255)
    W vwmulu, e32, e64, 0xffffffff, 0xffffffff, 0xfffffffe00000001
    W vwmul, e32, e64, 0x80000000, 0x7fffffff, NEG(0x3fffffff80000000)
    TEST 4                    # widening multiply-adds: vd + vs1 * vs2
    WMAC vwmacc, e16, e32, 10, 0xfffe, 3, 4
    WMAC vwmaccu, e8, e16, 0x10, 0xff, 0xff, NEG(0x01ef)
    WMAC vwmaccsu, e8, e16, 0, 0xff, 0xff, NEG(255)   # signed vs1, unsigned vs2
    WMAC vwmaccus, e8, e16, 0, 0xff, 0xff, NEG(255), vx  # unsigned rs1, signed vs2
    WMAC vwmacc, e8, e16, 1, 0xff, 0xff, 2, vx
    TEST 5                    # narrowing shifts
    vsetivli zero, 4, e16, m1, ta, ma
    li t1, 0x1234
    vmv.v.x v2, t1
    vsetivli zero, 4, e8, m1, ta, ma
    vnsrl.wi v1, v2, 4
    vmv.x.s t3, v1
    CHECK t3, 0x23
    li t2, 17                 # 17 mod 16
    vnsrl.wx v1, v2, t2
    vmv.x.s t3, v1
    CHECK t3, 0x1a
    vsetivli zero, 4, e32, m1, ta, ma
    li t1, 0x80000000
    vmv.v.x v2, t1
    vsetivli zero, 4, e16, m1, ta, ma
    li t2, 16
    vmv.v.x v3, t2
    vnsra.wv v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x8000)
    vnsrl.wv v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x8000)     # 0x8000 read as e16
    vnsra.wi v1, v2, 31
    vmv.x.s t3, v1
    CHECK t3, NEG(1)
    TEST 6                    # widening reductions
    vsetivli zero, 4, e8, m1, ta, ma
    li t1, 0xff
    vmv.v.x v4, t1
    vsetivli zero, 1, e16, m1, ta, ma
    li t1, 1
    vmv.s.x v5, t1
    vsetivli zero, 4, e8, m1, ta, ma
    vwredsumu.vs v6, v4, v5
    vsetivli zero, 1, e16, m1, ta, ma
    vmv.x.s t3, v6
    CHECK t3, 1021
    vsetivli zero, 4, e8, m1, ta, ma
    vwredsum.vs v6, v4, v5
    vsetivli zero, 1, e16, m1, ta, ma
    vmv.x.s t3, v6
    CHECK t3, NEG(3)
    TEST 7                    # e16 m4 into e32 m8: 128 elements
    li t0, 128
    vsetvli zero, t0, e16, m4, ta, ma
    vid.v v4
    vwaddu.vv v8, v4, v4
    vsetvli zero, t0, e32, m8, ta, ma
    vmv.s.x v16, zero
    vredmaxu.vs v16, v8, v16
    vmv.x.s t3, v16
    CHECK t3, 254
    vmv.s.x v16, zero
    vredsum.vs v16, v8, v16
    vmv.x.s t3, v16
    CHECK t3, 16256
    TEST 8                    # masked widening: inactive elements keep theirs
    vsetivli zero, 4, e32, m2, ta, ma
    vmv.v.i v2, -1
    vsetivli zero, 4, e16, m1, ta, ma
    li t1, 0x5
    vmv.s.x v0, t1
    vmv.v.i v4, 3
    vwaddu.vv v2, v4, v4, v0.t
    vsetivli zero, 4, e32, m2, ta, ma
    la a2, dst
    vse32.v v2, (a2)
    lwu t3, 0(a2)
    CHECK t3, 6
    lwu t3, 4(a2)
    CHECK t3, 0xffffffff
    lwu t3, 8(a2)
    CHECK t3, 6
TEST_END

    .data
    .balign 64
dst:
    .zero 64
