# Vector integer arithmetic (VLEN 512): each operation's element rule at
# SEW 8/16/32/64 (.vv, .vx and .vi forms; wrap-around, shifts masked to
# log2(SEW) bits, signed and unsigned views, high products, division by
# zero and overflow as the scalar M extension), then the vector side:
# register groups (LMUL 2, 4, 8), vl below VLMAX with the tail left as it
# was, masking, vstart, merges and moves, compares into masks, integer
# reductions, mask logicals, vcpop/vfirst/vmsbf/vmsif/vmsof/viota/vid,
# vmv.x.s / vmv.s.x and vmv<nr>r.v.
#include "test.h"

/* r = op(a, b) elementwise at SEW `sew` (vs2 = a, vs1 = b), element 0
 * read back sign-extended (vmv.x.s); the .vx form must agree. */
.macro VV op, sew, a, b, r
    vsetivli zero, 4, \sew, m1, ta, ma
    li t1, \a
    vmv.v.x v2, t1
    li t2, \b
    vmv.v.x v3, t2
    \op\().vv v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, \r
    \op\().vx v1, v2, t2
    vmv.x.s t3, v1
    CHECK t3, \r
.endm
/* .vx only (operations without .vv) */
.macro VX op, sew, a, b, r
    vsetivli zero, 4, \sew, m1, ta, ma
    li t1, \a
    vmv.v.x v2, t1
    li t2, \b
    \op\().vx v1, v2, t2
    vmv.x.s t3, v1
    CHECK t3, \r
.endm
/* .vi with immediate imm */
.macro VI op, sew, a, imm, r
    vsetivli zero, 4, \sew, m1, ta, ma
    li t1, \a
    vmv.v.x v2, t1
    \op\().vi v1, v2, \imm
    vmv.x.s t3, v1
    CHECK t3, \r
.endm
/* multiply-add: vd = c first, then op(vd, vs1 = b, vs2 = a) */
.macro MAC op, sew, c, b, a, r
    vsetivli zero, 4, \sew, m1, ta, ma
    li t1, \c
    vmv.v.x v1, t1
    li t1, \a
    vmv.v.x v2, t1
    li t2, \b
    vmv.v.x v3, t2
    \op\().vv v1, v3, v2
    vmv.x.s t3, v1
    CHECK t3, \r
    li t1, \c
    vmv.v.x v1, t1
    \op\().vx v1, t2, v2
    vmv.x.s t3, v1
    CHECK t3, \r
.endm
/* a compare of a and b at SEW `sew` over 4 elements: vcpop gives 4 or 0 */
.macro CMP op, sew, a, b, n
    vsetivli zero, 4, \sew, m1, ta, ma
    li t1, \a
    vmv.v.x v2, t1
    li t2, \b
    \op\().vx v1, v2, t2
    vcpop.m t3, v1
    CHECK t3, \n
.endm
/* the element at label x + off (zero-extended) */
.macro AT_H x, off, value
    la s2, \x
    lhu s3, \off(s2)
    CHECK s3, \value
.endm
.macro AT_W x, off, value
    la s2, \x
    lwu s3, \off(s2)
    CHECK s3, \value
.endm

#define NEG(x) (0xffffffffffffffff - (x) + 1)

TEST_BEGIN
    VECTOR_ON
    TEST 1                    # add, sub, rsub: wrap-around at SEW
    VV vadd, e8, 0x7f, 1, NEG(128)
    VV vadd, e16, 0xffff, 2, 1
    VV vadd, e64, 0x7fffffffffffffff, 1, 0x8000000000000000
    VI vadd, e16, 0xffff, -1, NEG(2)
    VV vsub, e32, 0, 1, NEG(1)
    VV vsub, e8, 0x80, 1, 0x7f
    VX vrsub, e64, 5, 3, NEG(2)
    VI vrsub, e8, 10, 15, 5
    TEST 2                    # and, or, xor
    VV vand, e16, 0xf0f0, 0xff00, NEG(0x1000)
    VV vor, e16, 0xf0f0, 0x0f00, NEG(0x10)
    VV vxor, e16, 0xf0f0, 0xff00, 0x0ff0
    VI vand, e32, 0x12345678, 0xf, 8
    VI vor, e8, 0x40, -16, NEG(16)
    VI vxor, e64, 5, -1, NEG(6)
    TEST 3                    # shifts: amounts masked to log2(SEW) bits
    VV vsll, e8, 1, 9, 2
    VI vsll, e32, 1, 31, 0xffffffff80000000
    VV vsrl, e16, 0x8000, 15, 1
    VV vsra, e16, 0x8000, 15, NEG(1)
    VI vsra, e64, NEG(8), 2, NEG(2)
    VV vsrl, e64, 0x8000000000000000, 65, 0x4000000000000000
    VI vsrl, e8, 0x80, 7, 1
    VI vsll, e64, 1, 16, 0x10000      # uimm5: 16, not -16
    VI vsrl, e64, NEG(1), 31, 0x1ffffffff
    VI vsra, e64, 0x8000000000000000, 16, NEG(0x800000000000)
    TEST 4                    # min, max: signed and unsigned
    VV vminu, e8, 0x80, 0x7f, 0x7f
    VV vmin, e8, 0x80, 0x7f, NEG(128)
    VV vmaxu, e32, 0xffffffff, 1, NEG(1)
    VV vmax, e32, 0xffffffff, 1, 1
    VV vmin, e64, NEG(5), 3, NEG(5)
    TEST 5                    # multiplies: low half, high halves
    VV vmul, e16, 0x100, 0x100, 0
    VV vmul, e32, 0xffff, 0x10001, NEG(1)
    VV vmulh, e8, 0x80, 0x80, 0x40
    VV vmulhu, e8, 0xff, 0xff, NEG(2)
    VV vmulhsu, e8, 0xff, 0xff, NEG(1)
    VV vmulhsu, e16, 2, 0xffff, 1
    VV vmulh, e64, 0x8000000000000000, 2, NEG(1)
    VV vmulhu, e64, NEG(1), NEG(1), NEG(2)
    VV vmulhsu, e64, NEG(1), NEG(1), NEG(1)
    TEST 6                    # division: by zero, overflow, signs
    VV vdivu, e32, 7, 2, 3
    VV vdivu, e32, 7, 0, NEG(1)
    VV vdiv, e8, 0x80, 0xff, NEG(128)
    VV vdiv, e8, 5, 0, NEG(1)
    VV vdiv, e32, NEG(7), 2, NEG(3)
    VV vrem, e32, NEG(7), 2, NEG(1)
    VV vrem, e8, 0x80, 0xff, 0
    VV vrem, e8, 0xf9, 0, NEG(7)
    VV vremu, e16, 7, 0, 7
    VV vremu, e64, NEG(1), 10, 5
    VV vdiv, e64, 0x8000000000000000, NEG(1), 0x8000000000000000
    TEST 7                    # multiply-adds
    MAC vmacc, e32, 10, 3, 4, 22      # vd + vs1 * vs2
    MAC vnmsac, e32, 10, 3, 4, NEG(2) # vd - vs1 * vs2
    MAC vmadd, e16, 10, 3, 4, 34      # vs1 * vd + vs2
    MAC vnmsub, e16, 10, 3, 4, NEG(26) # vs2 - vs1 * vd
    MAC vmacc, e8, 0x10, 0x10, 0x10, 0x10   # 0x110 wraps
    TEST 8                    # compares (the scalar as .vx; 4 elements, so 4 or 0)
    CMP vmseq, e8, 5, 5, 4
    CMP vmsne, e8, 5, 5, 0
    CMP vmsltu, e16, 1, 0xffff, 4
    CMP vmslt, e16, 1, 0xffff, 0
    CMP vmsleu, e32, 3, 3, 4
    CMP vmsle, e32, 0x80000000, 0, 4
    CMP vmsgtu, e64, NEG(1), 1, 4
    CMP vmsgt, e64, NEG(1), 1, 0
    CMP vmsgt, e8, 0x7f, 0x80, 4     # the scalar truncated to SEW
    TEST 9                    # compare immediates: sign-extended, then unsigned where it says
    vsetivli zero, 16, e8, m1, ta, ma
    vid.v v2
    vmsleu.vi v1, v2, -1      # <= 0xff: all
    vcpop.m t3, v1
    CHECK t3, 16
    vmsgtu.vi v1, v2, -1
    vcpop.m t3, v1
    CHECK t3, 0
    vmsgt.vi v1, v2, 10       # 11..15
    vcpop.m t3, v1
    CHECK t3, 5
    vfirst.m t3, v1
    CHECK t3, 11
    vmsle.vi v1, v2, -1
    vfirst.m t3, v1
    CHECK t3, NEG(1)
    vmsltu.vv v1, v2, v2
    vcpop.m t3, v1
    CHECK t3, 0
    vmseq.vi v1, v2, 3
    vmv.x.s t3, v1            # the mask's first byte: bit 3
    CHECK t3, 8

    TEST 10                   # vid over LMUL 2, vl 40 of 64, and a reduction of it
    la a2, dst
    li a0, 40
    vsetvli t0, a0, e16, m2, ta, ma
    vid.v v4
    vse16.v v4, (a2)
    AT_H dst, 0, 0
    AT_H dst, 66, 33
    AT_H dst, 78, 39
    vmv.s.x v8, zero
    vredsum.vs v8, v4, v8
    vmv.x.s t3, v8
    CHECK t3, 780
    TEST 11                   # LMUL 8: 128 elements of e32 over v8..v15
    li a0, 128
    vsetvli t0, a0, e32, m8, ta, ma
    CHECK t0, 128
    vid.v v8
    vadd.vv v16, v8, v8
    vredmaxu.vs v1, v16, v16
    vmv.x.s t3, v1
    CHECK t3, 254
    vredsum.vs v1, v16, v16   # 2 * (0 + ... + 127) + element 0 (0)
    vmv.x.s t3, v1
    CHECK t3, 16256
    TEST 12                   # the tail keeps its elements
    vsetivli zero, 16, e32, m1, ta, ma
    vmv.v.i v1, -1
    vid.v v2
    vsetivli zero, 3, e32, m1, ta, ma
    vadd.vi v1, v2, 10
    vsetivli zero, 16, e32, m1, ta, ma
    vse32.v v1, (a2)
    AT_W dst, 0, 10
    AT_W dst, 8, 12
    AT_W dst, 12, 0xffffffff
    AT_W dst, 60, 0xffffffff
    TEST 13                   # masked: inactive elements keep theirs
    vmsltu.vi v0, v2, 3       # elements 0..2 ... and 8..
    vmsgtu.vi v3, v2, 7
    vmor.mm v0, v0, v3
    vmv.v.i v1, -1
    vadd.vi v1, v2, 10, v0.t
    vse32.v v1, (a2)
    AT_W dst, 4, 11
    AT_W dst, 12, 0xffffffff
    AT_W dst, 28, 0xffffffff
    AT_W dst, 32, 18
    TEST 14                   # vstart: elements below it are not written, and it ends 0
    vmv.v.i v1, -1
    csrwi vstart, 2
    vadd.vi v1, v2, 5
    csrr t3, vstart
    CHECK t3, 0
    vse32.v v1, (a2)
    AT_W dst, 4, 0xffffffff
    AT_W dst, 8, 7
    TEST 15                   # merge and moves
    vmerge.vim v1, v2, 7, v0  # v0: 0..2 and 8..15 take 7
    vse32.v v1, (a2)
    AT_W dst, 0, 7
    AT_W dst, 12, 3
    AT_W dst, 32, 7
    li t1, 99
    vmerge.vxm v1, v2, t1, v0
    vse32.v v1, (a2)
    AT_W dst, 4, 99
    AT_W dst, 16, 4
    vmv.v.v v3, v2
    vmv.v.x v4, t1
    vmv.v.i v5, -3
    vmerge.vvm v1, v3, v4, v0
    vse32.v v1, (a2)
    AT_W dst, 8, 99
    AT_W dst, 20, 5
    vmv.x.s t3, v5
    CHECK t3, NEG(3)
    TEST 16                   # vmv.x.s sign-extends; vmv.s.x writes element 0 only
    vsetivli zero, 4, e8, m1, ta, ma
    li t1, 0x80
    vmv.v.x v1, t1
    vmv.x.s t3, v1
    CHECK t3, NEG(128)
    vmv.s.x v1, zero
    vsetivli zero, 4, e32, m1, ta, ma
    vmv.x.s t3, v1
    CHECK t3, 0xffffffff80808000
    vsetivli zero, 0, e32, m1, ta, ma
    vmv.x.s t3, v1            # vl 0: still reads element 0
    CHECK t3, 0xffffffff80808000
    vmv.s.x v1, zero          # vl 0: writes nothing
    vmv.x.s t3, v1
    CHECK t3, 0xffffffff80808000

    TEST 17                   # reductions: each kind, masked, and vl 0
    la a3, red
    vsetivli zero, 8, e16, m1, ta, ma
    vle16.v v2, (a3)          # 5, -3, 7, 0x8000, 2, 9, -1, 4
    vmv.s.x v3, zero
    vredsum.vs v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x7fe9)     # 0x8017 as e16
    vredmax.vs v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, 9
    vredmin.vs v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x8000)
    vredmaxu.vs v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(1)
    vredminu.vs v1, v2, v3    # with the start value 0
    vmv.x.s t3, v1
    CHECK t3, 0
    vredand.vs v1, v2, v2     # start: element 0 (5)
    vmv.x.s t3, v1
    CHECK t3, 0
    vredor.vs v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(1)
    vredxor.vs v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, ((5 ^ 0xfffd ^ 7 ^ 0x8000 ^ 2 ^ 9 ^ 0xffff ^ 4) - 0x10000) & 0xffffffffffffffff
    li t1, 0x0f               # elements 0..3
    vmv.s.x v0, t1
    vredsum.vs v1, v2, v3, v0.t
    vmv.x.s t3, v1
    CHECK t3, NEG(0x7ff7)     # 5 - 3 + 7 + 0x8000
    li t1, 77
    vmv.s.x v1, t1
    vsetivli zero, 0, e16, m1, ta, ma
    vredsum.vs v1, v2, v3     # vl 0: vd unchanged
    vmv.x.s t3, v1
    CHECK t3, 77

    TEST 18                   # mask logicals over vl bits; the rest unchanged
    vsetivli zero, 8, e8, m1, ta, ma
    li t1, 0x0c
    vmv.s.x v2, t1
    li t1, 0x0a
    vmv.s.x v3, t1
    li t1, 0xf0
    vmv.s.x v1, t1
    vsetivli zero, 4, e8, m1, ta, ma
    vmand.mm v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x100 - 0xf8)
    vmnand.mm v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x100 - 0xf7)
    vmandn.mm v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x100 - 0xf4)
    vmxor.mm v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x100 - 0xf6)
    vmor.mm v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x100 - 0xfe)
    vmnor.mm v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x100 - 0xf1)
    vmorn.mm v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x100 - 0xfd)
    vmxnor.mm v1, v2, v3
    vmv.x.s t3, v1
    CHECK t3, NEG(0x100 - 0xf9)
    TEST 19                   # vcpop, vfirst (masked, and none found)
    vsetivli zero, 8, e8, m1, ta, ma
    li t1, 0x28
    vmv.s.x v2, t1
    vcpop.m t3, v2
    CHECK t3, 2
    vfirst.m t3, v2
    CHECK t3, 3
    li t1, 0xf0
    vmv.s.x v0, t1
    vfirst.m t3, v2, v0.t
    CHECK t3, 5
    vcpop.m t3, v2, v0.t
    CHECK t3, 1
    vsetivli zero, 3, e8, m1, ta, ma
    vfirst.m t3, v2
    CHECK t3, NEG(1)
    TEST 20                   # vmsbf, vmsif, vmsof of 0b00101000
    vsetivli zero, 8, e8, m1, ta, ma
    vmsbf.m v1, v2
    vmv.x.s t3, v1
    CHECK t3, 0x07
    vmsif.m v1, v2
    vmv.x.s t3, v1
    CHECK t3, 0x0f
    vmsof.m v1, v2
    vmv.x.s t3, v1
    CHECK t3, 0x08
    TEST 21                   # viota of 0b10010110: 0 0 1 2 2 3 3 3
    li t1, 0x96
    vmv.s.x v2, t1
    viota.m v1, v2
    vse8.v v1, (a2)
    ld t3, 0(a2)
    CHECK t3, 0x0303030202010000
    TEST 22                   # vmv2r.v copies two registers whatever vl
    vsetivli zero, 16, e32, m2, ta, ma
    vid.v v4
    vadd.vi v4, v4, 1
    vsetivli zero, 1, e8, m1, ta, ma
    vmv2r.v v6, v4
    li t0, 32
    vsetvli zero, t0, e32, m2, ta, ma
    vse32.v v6, (a2)
    AT_W dst, 0, 1
    AT_W dst, 60, 16
    AT_W dst, 64, 0xfffffffd  # v5 as TEST 15 left it: vid wrote 16 elements only
TEST_END

    .data
    .balign 64
dst:
    .zero 512
red:
    .half 5, 0xfffd, 7, 0x8000, 2, 9, 0xffff, 4
