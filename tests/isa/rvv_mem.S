# Vector loads and stores (VLEN 512): unit-stride at every EEW (EEW != SEW
# too), the tail and masked-off elements left undisturbed, vlm.v/vsm.v,
# strided (positive, negative, zero strides), indexed ordered and
# unordered (gather and scatter), whole-register loads and stores (which
# ignore vl and vtype), segment loads and stores, fault-only-first
# trimming vl at a fault past element 0.  The source is 256 bytes
# counting up (byte i = i), so an element of EEW n at offset o is the n
# bytes o, o+1, ... little-endian: W16/W32/W64 below.
#include "test.h"

#define W16(o) ((o) | ((o) + 1) << 8)
#define W32(o) (W16(o) | W16((o) + 2) << 16)
#define W64(o) (W32(o) | W32((o) + 4) << 32)

/* n bytes at label x equal n bytes at label y (s2..s6 scratch). */
.macro SAME x, y, n
    la s2, \x
    la s3, \y
    li s4, \n
8880:
    lbu s5, 0(s2)
    lbu s6, 0(s3)
    beq s5, s6, 8881f
    j fail
8881:
    addi s2, s2, 1
    addi s3, s3, 1
    addi s4, s4, -1
    bnez s4, 8880b
.endm

/* n bytes at label x set to `byte` (by scalar stores). */
.macro FILL x, n, byte
    la s2, \x
    li s4, \n
    li s5, \byte
8882:
    sb s5, 0(s2)
    addi s2, s2, 1
    addi s4, s4, -1
    bnez s4, 8882b
.endm

/* The 8/16/32/64-bit value at label x + off (zero-extended). */
.macro AT_B x, off, value
    la s2, \x
    lbu s3, \off(s2)
    CHECK s3, \value
.endm
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
.macro AT_D x, off, value
    la s2, \x
    ld s3, \off(s2)
    CHECK s3, \value
.endm

TEST_BEGIN
    VECTOR_ON
    la a1, src
    la a2, dst

    TEST 1                    # vle8/vse8, e8 m1, vl = VLMAX
    FILL dst, 256, 0
    vsetvli t0, zero, e8, m1, ta, ma
    vle8.v v1, (a1)
    vse8.v v1, (a2)
    SAME src, dst, 64
    AT_B dst, 64, 0           # nothing past vl
    TEST 2                    # vle32 m4: 64 elements, 256 bytes
    FILL dst, 256, 0
    vsetvli t0, zero, e32, m4, ta, ma
    vle32.v v4, (a1)
    vse32.v v4, (a2)
    SAME src, dst, 256
    TEST 3                    # vle16 e16 mf2 (VLMAX 16), vl 5
    FILL dst, 256, 0
    li a0, 5
    vsetvli t0, a0, e16, mf2, ta, ma
    vle16.v v3, (a1)
    vse16.v v3, (a2)
    SAME src, dst, 10
    AT_B dst, 10, 0
    TEST 4                    # tail undisturbed: the register past vl keeps its bytes
    FILL dst, 256, 0
    vsetvli t0, zero, e8, m1, ta, ma
    vmv.v.i v5, -1
    li a0, 3
    vsetvli t0, a0, e32, m1, ta, ma
    vle32.v v5, (a1)
    vsetvli t0, zero, e8, m1, ta, ma
    vse8.v v5, (a2)
    SAME src, dst, 12
    AT_W dst, 12, 0xffffffff
    AT_D dst, 56, 0xffffffffffffffff
    TEST 5                    # EEW 64 with SEW 8, mf8: EMUL 1, 8 elements
    FILL dst, 256, 0
    vsetvli t0, zero, e8, mf8, ta, ma
    CHECK t0, 8
    vle64.v v6, (a1)
    vse64.v v6, (a2)
    SAME src, dst, 64
    TEST 6                    # EEW 8 with SEW 64, m8: EMUL 1, 64 elements
    FILL dst, 256, 0
    vsetvli t0, zero, e64, m8, ta, ma
    vle8.v v7, (a1)
    vse8.v v7, (a2)
    SAME src, dst, 64
    AT_B dst, 64, 0

    TEST 7                    # masked load: odd elements keep their old value
    FILL dst, 256, 0
    la a3, mask55
    li a0, 16
    vsetvli t0, a0, e8, m1, ta, ma
    vlm.v v0, (a3)            # 0x55 0x55: elements 0, 2, 4, ...
    vsetvli t0, zero, e32, m1, ta, ma
    vmv.v.i v8, -1
    vle32.v v8, (a1), v0.t
    vse32.v v8, (a2)
    AT_W dst, 0, W32(0)
    AT_W dst, 4, 0xffffffff
    AT_W dst, 8, W32(8)
    AT_W dst, 60, 0xffffffff
    TEST 8                    # masked store: odd elements not written
    FILL dst, 256, 0
    vsetvli t0, zero, e32, m1, ta, ma
    vle32.v v9, (a1)
    vse32.v v9, (a2), v0.t
    AT_W dst, 0, W32(0)
    AT_W dst, 4, 0
    AT_W dst, 56, W32(56)
    AT_W dst, 60, 0

    TEST 9                    # vlm.v / vsm.v: ceil(vl / 8) bytes
    FILL dst, 256, 0
    li a0, 20
    vsetvli t0, a0, e8, m1, ta, ma
    vlm.v v10, (a1)
    vsm.v v10, (a2)
    SAME src, dst, 3
    AT_B dst, 3, 0
    TEST 10                   # vlm.v ignores SEW/LMUL but for vl (e64 m8: vl 64 -> 8 bytes)
    FILL dst, 256, 0
    vsetvli t0, zero, e64, m8, ta, ma
    vlm.v v11, (a1)
    vsm.v v11, (a2)
    SAME src, dst, 8
    AT_B dst, 8, 0

    TEST 11                   # strided load, stride 8, e32
    FILL dst, 256, 0
    li a0, 4
    vsetvli t0, a0, e32, m1, ta, ma
    li a4, 8
    vlse32.v v12, (a1), a4
    vse32.v v12, (a2)
    AT_W dst, 0, W32(0)
    AT_W dst, 4, W32(8)
    AT_W dst, 12, W32(24)
    AT_W dst, 16, 0
    TEST 12                   # negative stride from the end, e16
    FILL dst, 256, 0
    li a4, -6
    addi a5, a1, 60
    vsetvli t0, a0, e16, m1, ta, ma
    vlse16.v v12, (a5), a4
    vse16.v v12, (a2)
    AT_H dst, 0, W16(60)
    AT_H dst, 2, W16(54)
    AT_H dst, 6, W16(42)
    TEST 13                   # stride 0: every element the same
    vsetvli t0, a0, e64, m1, ta, ma
    addi a5, a1, 16
    vlse64.v v12, (a5), zero
    vse64.v v12, (a2)
    AT_D dst, 0, W64(16)
    AT_D dst, 24, W64(16)
    TEST 14                   # strided store, e16 stride 6
    FILL dst, 256, 0
    li a4, 6
    vsetvli t0, a0, e16, m1, ta, ma
    vle16.v v13, (a1)
    vsse16.v v13, (a2), a4
    AT_H dst, 0, W16(0)
    AT_H dst, 2, 0
    AT_H dst, 6, W16(2)
    AT_H dst, 18, W16(6)
    AT_H dst, 20, 0

    TEST 15                   # indexed (unordered) gather, e32 data, 16-bit indices
    FILL dst, 256, 0
    la a3, idx16
    li a0, 4
    vsetvli t0, a0, e16, mf2, ta, ma
    vle16.v v14, (a3)
    vsetvli t0, a0, e32, m1, ta, ma
    vluxei16.v v15, (a1), v14
    vse32.v v15, (a2)
    AT_W dst, 0, W32(12)
    AT_W dst, 4, W32(0)
    AT_W dst, 8, W32(4)
    AT_W dst, 12, W32(200)
    TEST 16                   # ordered gather, e8 data, 64-bit indices (EMUL 8 for LMUL 1)
    FILL dst, 256, 0
    la a3, idx64
    li a0, 4
    vsetvli t0, a0, e64, m1, ta, ma
    vle64.v v16, (a3)
    vsetvli t0, a0, e8, m1, ta, ma
    vloxei64.v v1, (a1), v16
    vse8.v v1, (a2)
    AT_W dst, 0, (12 | 0 << 8 | 4 << 16 | 200 << 24)
    TEST 17                   # indexed scatter (ordered and unordered), masked
    FILL dst, 256, 0
    la a3, idx16
    li a0, 4
    vsetvli t0, a0, e16, mf2, ta, ma
    vle16.v v14, (a3)
    vsetvli t0, a0, e32, m1, ta, ma
    vle32.v v15, (a1)
    vsoxei16.v v15, (a2), v14, v0.t   # elements 0 and 2 (mask 0x55)
    AT_W dst, 12, W32(0)
    AT_W dst, 0, 0
    AT_W dst, 4, W32(8)
    AT_W dst, 200, 0
    vsuxei16.v v15, (a2), v14
    AT_W dst, 0, W32(4)
    AT_W dst, 200, W32(12)

    TEST 18                   # whole registers: vl and vtype do not matter
    FILL dst, 256, 0
    vsetivli t0, 1, e8, m1, ta, ma
    vl2re32.v v2, (a1)
    vs2r.v v2, (a2)
    SAME src, dst, 128
    AT_B dst, 128, 0
    TEST 19                   # vl8re8 / vs8r, and vl1re64 / vs1r
    FILL dst, 256, 0
    vl8re8.v v8, (a1)
    vs8r.v v8, (a2)
    SAME src, dst, 256
    FILL dst, 256, 0
    vl1re64.v v3, (a1)
    vs1r.v v3, (a2)
    SAME src, dst, 64
    AT_B dst, 64, 0
    TEST 20                   # whole registers run with vtype vill
    FILL dst, 256, 0
    li a0, 4
    li a4, 1 << 8
    vsetvl t0, a0, a4
    vl4re16.v v4, (a1)
    vs4r.v v4, (a2)
    SAME src, dst, 256

    TEST 21                   # segment load: 3 fields of e8
    FILL dst, 256, 0
    li a0, 4
    vsetvli t0, a0, e8, m1, ta, ma
    vlseg3e8.v v1, (a1)
    vse8.v v1, (a2)
    addi a5, a2, 4
    vse8.v v2, (a5)
    addi a5, a2, 8
    vse8.v v3, (a5)
    AT_W dst, 0, (0 | 3 << 8 | 6 << 16 | 9 << 24)
    AT_W dst, 4, (1 | 4 << 8 | 7 << 16 | 10 << 24)
    AT_W dst, 8, (2 | 5 << 8 | 8 << 16 | 11 << 24)
    TEST 22                   # segment store: 2 fields of e16 with LMUL 2 (fields 2 registers apart)
    FILL dst, 256, 0
    li a0, 20
    vsetvli t0, a0, e16, m2, ta, ma
    vle16.v v4, (a1)          # field 0: W16(0), W16(2), ...
    addi a5, a1, 100
    vle16.v v6, (a5)          # field 1: W16(100), ...
    vsseg2e16.v v4, (a2)
    AT_H dst, 0, W16(0)
    AT_H dst, 2, W16(100)
    AT_H dst, 4, W16(2)
    AT_H dst, 6, W16(102)
    AT_H dst, 76, W16(38)
    AT_H dst, 78, W16(138)
    AT_H dst, 80, 0
    TEST 23                   # strided segment load: 2 fields of e32, stride 16
    li a0, 3
    vsetvli t0, a0, e32, m1, ta, ma
    li a4, 16
    vlsseg2e32.v v10, (a1), a4
    vmv.x.s a6, v10
    CHECK a6, W32(0)
    TEST 24                   # its second field
    vse32.v v11, (a2)
    AT_W dst, 0, W32(4)
    AT_W dst, 4, W32(20)
    AT_W dst, 8, W32(36)

    TEST 25                   # fault-only-first: no fault, vl stays
    li a0, 8
    vsetvli t0, a0, e32, m1, ta, ma
    vle32ff.v v1, (a1)
    csrr t1, vl
    CHECK t1, 8
    TEST 26                   # a fault past element 0 trims vl to its index
    la a5, page_end
    addi a5, a5, -8
    li a0, 8
    vsetvli t0, a0, e32, m1, ta, ma
    vle32ff.v v1, (a5)
    csrr t1, vl
    CHECK t1, 2
    csrr t1, vstart
    CHECK t1, 0
TEST_END

    .data
    .balign 64
src:
    .set i, 0
    .rept 256
    .byte i
    .set i, i + 1
    .endr
dst:
    .zero 512
mask55:
    .byte 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55
idx16:
    .half 12, 0, 4, 200
    .balign 8
idx64:
    .dword 12, 0, 4, 200
    .balign 4096
page_end:                     # nothing is mapped from here on
