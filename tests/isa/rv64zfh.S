# RV64 Zfh (half precision, as the X280 has it): arithmetic and its flags,
# the rounding modes (static rm and dynamic frm), NaN-boxing (a half whose
# bits 63..16 are not all ones is the canonical NaN 0x7e00; results are
# boxed), overflow at 65520, tininess after rounding, fcvt between H and
# S/D and the integers (saturating), fmv.x.h's sign extension, fclass,
# fmin/fmax, compares, the fused multiply-adds, flh/fsh.  Expected values
# are Python's struct 'e' (exact IEEE binary16) and the ISA manual's rules.
#
# Halves: 1.0 3c00, 2.0 4000, 3.0 4200, -1.0 bc00, 0.5 3800, 2^-11 1000,
# max 65504 7bff, min normal 2^-14 0400, min subnormal 0001, +inf 7c00,
# qNaN (canonical) 7e00, sNaN 7c01.  fflags: NX 1, UF 2, OF 4, DZ 8, NV 16.
#include "test.h"

#define ONE   0x3c00
#define TWO   0x4000
#define THREE 0x4200
#define MONE  0xbc00
#define HALF  0x3800
#define PINF  0x7c00
#define NINF  0xfc00
#define QNAN  0x7e00
#define SNAN  0x7c01
#define MAX   0x7bff
#define MINN  0x0400

TEST_BEGIN

    # ---- exact arithmetic raises nothing ----
    TEST 1
    LOAD_H f1, ONE
    LOAD_H f2, TWO
    fadd.h f3, f1, f2
    CHECK_H f3, THREE
    fsub.h f3, f1, f2
    CHECK_H f3, MONE
    fmul.h f3, f2, f2
    CHECK_H f3, 0x4400
    fdiv.h f3, f1, f2
    CHECK_H f3, HALF
    LOAD_H f4, 0x4400
    fsqrt.h f3, f4
    CHECK_H f3, TWO
    CHECK_FLAGS 0

    # ---- inexact, divide by zero, invalid ----
    TEST 2
    LOAD_H f3, THREE
    fdiv.h f4, f1, f3         # 1/3
    CHECK_H f4, 0x3555
    CHECK_FLAGS 1
    fsqrt.h f4, f2            # sqrt 2
    CHECK_H f4, 0x3da8
    CHECK_FLAGS 1
    fmv.h.x f0, zero
    fdiv.h f4, f1, f0
    CHECK_H f4, PINF
    CHECK_FLAGS 8
    fdiv.h f4, f0, f0
    CHECK_H f4, QNAN
    CHECK_FLAGS 16
    LOAD_H f5, MONE
    fsqrt.h f4, f5
    CHECK_H f4, QNAN
    CHECK_FLAGS 16

    # ---- overflow: 65504 + 16 reaches 65520, the tie with 2^16 ----
    TEST 3
    LOAD_H f5, MAX
    LOAD_H f6, 0x4c00         # 16
    fadd.h f4, f5, f6
    CHECK_H f4, PINF
    CHECK_FLAGS 5
    fadd.h f4, f5, f6, rtz    # toward zero: 65504, below 2^16, no overflow
    CHECK_H f4, MAX
    CHECK_FLAGS 1
    LOAD_H f6, 0x5000         # + 32 = 65536: toward zero, the largest finite
    fadd.h f4, f5, f6, rtz
    CHECK_H f4, MAX
    CHECK_FLAGS 5
    LOAD_H f6, 0x4bff         # 15.99...: below 65520
    fadd.h f4, f5, f6
    CHECK_H f4, MAX
    CHECK_FLAGS 1

    # ---- underflow, tininess after rounding ----
    TEST 4
    LOAD_H f5, MINN
    LOAD_H f6, HALF
    fmul.h f4, f5, f6         # 2^-15: an exact subnormal
    CHECK_H f4, 0x0200
    CHECK_FLAGS 0
    LOAD_H f5, 0x0001
    fmul.h f4, f5, f6         # 2^-25: a tie, to 0
    CHECK_H f4, 0
    CHECK_FLAGS 3
    LOAD_H f5, 0x3da8
    LOAD_H f6, 0x02d4
    fmul.h f4, f5, f6         # 2^-14 (1 - 0.875 * 2^-12): rounds to 2^-14, not tiny
    CHECK_H f4, MINN
    CHECK_FLAGS 1
    LOAD_H f5, 0x3bff
    LOAD_H f6, MINN
    fmul.h f4, f5, f6         # 2^-14 - 2^-25: rounds to 2^-14, but tiny
    CHECK_H f4, MINN
    CHECK_FLAGS 3

    # ---- rounding: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 ----
    TEST 5
    LOAD_H f5, 0x1000         # 2^-11
    fadd.h f4, f1, f5
    CHECK_H f4, ONE           # RNE: to even
    fadd.h f4, f1, f5, rmm
    CHECK_H f4, 0x3c01
    fadd.h f4, f1, f5, rup
    CHECK_H f4, 0x3c01
    fadd.h f4, f1, f5, rtz
    CHECK_H f4, ONE
    LOAD_H f6, 0x1600         # 3 * 2^-11: halfway between 1 + 2^-10 and 1 + 2^-9
    fadd.h f4, f1, f6
    CHECK_H f4, 0x3c02        # RNE: to even
    fadd.h f4, f1, f6, rtz
    CHECK_H f4, 0x3c01
    fsrmi 3                   # RUP through frm
    fadd.h f4, f1, f5
    CHECK_H f4, 0x3c01
    fsrmi 2                   # RDN
    fneg.h f7, f1
    fsub.h f4, f7, f5         # -1 - 2^-11
    CHECK_H f4, 0xbc01
    fdiv.h f4, f1, f3, rtz    # a static rm wins over frm
    CHECK_H f4, 0x3555
    fsrmi 0
    CHECK_FLAGS 1

    # ---- NaN-boxing ----
    TEST 6
    li t0, 0xffffffff00003c00 # 1.0 in the low 16 bits, bits 31..16 not ones
    fmv.d.x f7, t0
    fadd.h f4, f7, f1         # the canonical NaN (quiet: no NV)
    CHECK_H f4, QNAN
    CHECK_FLAGS 0
    fclass.h a0, f7
    CHECK a0, 0x200
    LOAD_S f7, 0x3c00         # a boxed single is no boxed half
    fmul.h f4, f7, f1
    CHECK_H f4, QNAN
    fsgnj.h f4, f7, f7        # fmv.h: the canonical NaN, boxed
    CHECK_H f4, QNAN
    TEST 7                    # moves and stores take the low 16 bits as they are
    li t0, 0x1234567800008001
    fmv.d.x f7, t0
    fmv.x.h a0, f7            # sign-extended
    CHECK a0, 0xffffffffffff8001
    la s0, buf
    fsh f7, 0(s0)
    lhu a0, 0(s0)
    CHECK a0, 0x8001
    lhu a0, 2(s0)             # nothing past the half written
    CHECK a0, 0
    li t0, 0xabcd
    sh t0, 4(s0)
    flh f4, 4(s0)             # boxed
    CHECK_D f4, 0xffffffffffffabcd
    li t0, 0x55557bff
    fmv.h.x f4, t0            # the low 16 bits, boxed
    CHECK_D f4, 0xffffffffffff7bff
    TEST 8                    # a NaN result is canonical; a signalling input NV
    LOAD_H f5, 0xfe55         # a negative quiet NaN with a payload
    fadd.h f4, f5, f1
    CHECK_H f4, QNAN
    CHECK_FLAGS 0
    LOAD_H f5, SNAN
    fmul.h f4, f5, f1
    CHECK_H f4, QNAN
    CHECK_FLAGS 16

    # ---- fcvt between formats ----
    TEST 9
    LOAD_H f5, 0x3555
    fcvt.s.h f4, f5
    CHECK_S f4, 0x3eaaa000
    fcvt.d.h f4, f5
    CHECK_D f4, 0x3fd5540000000000
    LOAD_H f5, 0x0001         # 2^-24: normal as a single
    fcvt.s.h f4, f5
    CHECK_S f4, 0x33800000
    CHECK_FLAGS 0
    LOAD_H f5, SNAN
    fcvt.s.h f4, f5
    CHECK_S f4, 0x7fc00000
    CHECK_FLAGS 16
    TEST 10
    LOAD_S f5, 0x3eaaaaab     # 1/3 as a single
    fcvt.h.s f4, f5
    CHECK_H f4, 0x3555
    CHECK_FLAGS 1
    fcvt.h.s f4, f5, rup
    CHECK_H f4, 0x3556
    CHECK_FLAGS 1
    LOAD_D f5, 0x40effe0000000000 # 65520
    fcvt.h.d f4, f5
    CHECK_H f4, PINF
    CHECK_FLAGS 5
    LOAD_D f5, 0x3e70000000000000 # 2^-24
    fcvt.h.d f4, f5
    CHECK_H f4, 0x0001
    CHECK_FLAGS 0
    LOAD_D f5, 0x3e60000000000000 # 2^-25: a tie, to 0
    fcvt.h.d f4, f5
    CHECK_H f4, 0
    CHECK_FLAGS 3

    # ---- fcvt to and from integers ----
    TEST 11
    LOAD_H f5, 0x4100         # 2.5
    fcvt.w.h a0, f5
    CHECK a0, 2
    fcvt.w.h a0, f5, rmm
    CHECK a0, 3
    fcvt.l.h a0, f5, rup
    CHECK a0, 3
    CHECK_FLAGS 1
    LOAD_H f5, 0xc100         # -2.5
    fcvt.w.h a0, f5, rtz
    CHECK a0, -2
    CHECK_FLAGS 1
    fcvt.wu.h a0, f5          # negative to unsigned: 0, invalid
    CHECK a0, 0
    CHECK_FLAGS 16
    LOAD_H f5, MAX
    fcvt.wu.h a0, f5
    CHECK a0, 65504
    fcvt.lu.h a0, f5
    CHECK a0, 65504
    CHECK_FLAGS 0
    LOAD_H f5, NINF
    fcvt.l.h a0, f5
    CHECK a0, 0x8000000000000000
    CHECK_FLAGS 16
    LOAD_H f5, QNAN
    fcvt.wu.h a0, f5          # NaN: the largest, sign-extended
    CHECK a0, -1
    CHECK_FLAGS 16
    TEST 12
    li a0, -65505
    fcvt.h.w f4, a0
    CHECK_H f4, 0xfbff
    CHECK_FLAGS 1
    li a0, 100000
    fcvt.h.wu f4, a0
    CHECK_H f4, PINF
    CHECK_FLAGS 5
    fcvt.h.l f4, a0, rtz
    CHECK_H f4, MAX
    CHECK_FLAGS 5
    li a0, 2049
    fcvt.h.lu f4, a0          # a tie, to even
    CHECK_H f4, 0x6800
    CHECK_FLAGS 1
    li a0, 0xffffffff00000003 # fcvt.h.w reads the low 32 bits
    fcvt.h.w f4, a0
    CHECK_H f4, THREE
    CHECK_FLAGS 0

    # ---- sign injection, min/max, compares, class ----
    TEST 13
    LOAD_H f5, MONE
    fsgnj.h f4, f3, f5
    CHECK_H f4, 0xc200
    fsgnjn.h f4, f3, f5
    CHECK_H f4, THREE
    fsgnjx.h f4, f4, f5
    CHECK_H f4, 0xc200
    fabs.h f4, f4
    CHECK_H f4, THREE
    TEST 14
    fmv.h.x f5, zero
    LOAD_H f6, 0x8000
    fmin.h f4, f5, f6
    CHECK_H f4, 0x8000
    fmax.h f4, f6, f5
    CHECK_H f4, 0
    LOAD_H f7, QNAN
    fmin.h f4, f7, f3
    CHECK_H f4, THREE
    CHECK_FLAGS 0
    LOAD_H f7, SNAN
    fmax.h f4, f7, f1
    CHECK_H f4, ONE
    CHECK_FLAGS 16
    TEST 15
    flt.h a0, f1, f2
    CHECK a0, 1
    fle.h a0, f2, f2
    CHECK a0, 1
    feq.h a0, f5, f6          # +0 == -0
    CHECK a0, 1
    flt.h a0, f2, f1
    CHECK a0, 0
    CHECK_FLAGS 0
    LOAD_H f7, QNAN
    feq.h a0, f7, f1          # quiet
    CHECK a0, 0
    CHECK_FLAGS 0
    fle.h a0, f7, f1          # signalling
    CHECK a0, 0
    CHECK_FLAGS 16
    TEST 16
    LOAD_H f7, NINF
    fclass.h a0, f7
    CHECK a0, 0x001
    LOAD_H f7, 0x8001
    fclass.h a0, f7
    CHECK a0, 0x004
    fclass.h a0, f6           # -0
    CHECK a0, 0x008
    LOAD_H f7, 0x03ff
    fclass.h a0, f7
    CHECK a0, 0x020
    fclass.h a0, f1
    CHECK a0, 0x040
    LOAD_H f7, PINF
    fclass.h a0, f7
    CHECK a0, 0x080
    LOAD_H f7, SNAN
    fclass.h a0, f7
    CHECK a0, 0x100

    # ---- fused multiply-adds: one rounding ----
    TEST 17
    LOAD_H f5, 0x3c01         # 1 + 2^-10
    LOAD_H f6, MONE
    fmadd.h f4, f5, f5, f6, rup # (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20, up once
    CHECK_H f4, 0x1801
    CHECK_FLAGS 1
    fmsub.h f4, f2, f3, f1    # 2*3 - 1
    CHECK_H f4, 0x4500
    fnmsub.h f4, f2, f3, f1   # -(2*3) + 1
    CHECK_H f4, 0xc500
    fnmadd.h f4, f2, f3, f1   # -(2*3) - 1
    CHECK_H f4, 0xc700
    CHECK_FLAGS 0
    LOAD_H f7, PINF
    fmv.h.x f5, zero
    LOAD_H f6, QNAN
    fmadd.h f4, f7, f5, f6    # inf * 0 + qNaN: invalid
    CHECK_H f4, QNAN
    CHECK_FLAGS 16

TEST_END

    .data
    .balign 8
buf:
    .dword 0, 0
