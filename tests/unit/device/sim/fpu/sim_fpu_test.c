/* Tests for device/sim/fpu/fpu.c and fpu_soft.c (sim_fpu.h): every F and D
 * instruction driven through sim_fpu_exec on a zeroed hart, with the
 * result register and fcsr checked bit for bit (Zfh's half precision:
 * sim_fpu_half_test.c).
 *
 * The vectors are tables of fp_case, all on the same registers (rd 10,
 * rs1 11, rs2 12, rs3 13: a0..a3 on the integer side) so each row is a
 * self-contained instruction a real RV64 core can run as written; the
 * expected values were worked out from the ISA manual's rules and agree
 * with an RV64GC reference.  Single values go in and come out NaN-boxed
 * (BOX); a row that passes an unboxed value does so on purpose. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sim_fpu.h"

enum { S = 0, D = 1, H = 2, Q = 3 };
enum { RNE, RTZ, RDN, RUP, RMM, DYN = 7 };
enum { NX = 1, UF = 2, OF = 4, DZ = 8, NV = 16 };

#define OPFP(f5, fmt, rs2, rm)                                                        \
    (((uint32_t)(f5) << 27) | ((uint32_t)(fmt) << 25) | ((uint32_t)(rs2) << 20) |     \
     (11u << 15) | ((uint32_t)(rm) << 12) | (10u << 7) | 0x53u)
#define R4(op, fmt, rm)                                                               \
    ((13u << 27) | ((uint32_t)(fmt) << 25) | (12u << 20) | (11u << 15) |             \
     ((uint32_t)(rm) << 12) | (10u << 7) | (uint32_t)(op))

#define FADD(fmt, rm) OPFP(0x00, fmt, 12, rm)
#define FSUB(fmt, rm) OPFP(0x01, fmt, 12, rm)
#define FMUL(fmt, rm) OPFP(0x02, fmt, 12, rm)
#define FDIV(fmt, rm) OPFP(0x03, fmt, 12, rm)
#define FSQRT(fmt, rm) OPFP(0x0b, fmt, 0, rm)
#define FSGNJ(fmt) OPFP(0x04, fmt, 12, 0)
#define FSGNJN(fmt) OPFP(0x04, fmt, 12, 1)
#define FSGNJX(fmt) OPFP(0x04, fmt, 12, 2)
#define FMIN(fmt) OPFP(0x05, fmt, 12, 0)
#define FMAX(fmt) OPFP(0x05, fmt, 12, 1)
#define FCVT_S_D(rm) OPFP(0x08, S, 1, rm)
#define FCVT_D_S(rm) OPFP(0x08, D, 0, rm)
#define FLE(fmt) OPFP(0x14, fmt, 12, 0)
#define FLT(fmt) OPFP(0x14, fmt, 12, 1)
#define FEQ(fmt) OPFP(0x14, fmt, 12, 2)
#define FCVT_W(fmt, rm) OPFP(0x18, fmt, 0, rm)  /* fcvt.w.{s,d} */
#define FCVT_WU(fmt, rm) OPFP(0x18, fmt, 1, rm)
#define FCVT_L(fmt, rm) OPFP(0x18, fmt, 2, rm)
#define FCVT_LU(fmt, rm) OPFP(0x18, fmt, 3, rm)
#define FCVT_FW(fmt, rm) OPFP(0x1a, fmt, 0, rm) /* fcvt.{s,d}.w */
#define FCVT_FWU(fmt, rm) OPFP(0x1a, fmt, 1, rm)
#define FCVT_FL(fmt, rm) OPFP(0x1a, fmt, 2, rm)
#define FCVT_FLU(fmt, rm) OPFP(0x1a, fmt, 3, rm)
#define FMV_X(fmt) OPFP(0x1c, fmt, 0, 0) /* fmv.x.w, fmv.x.d */
#define FCLASS(fmt) OPFP(0x1c, fmt, 0, 1)
#define FMV_F(fmt) OPFP(0x1e, fmt, 0, 0) /* fmv.w.x, fmv.d.x */
#define FMADD(fmt, rm) R4(0x43, fmt, rm)
#define FMSUB(fmt, rm) R4(0x47, fmt, rm)
#define FNMSUB(fmt, rm) R4(0x4b, fmt, rm)
#define FNMADD(fmt, rm) R4(0x4f, fmt, rm)

#define BOX(v) (0xffffffff00000000ull | (uint32_t)(v))

/* Single values. */
#define S_1 BOX(0x3f800000)
#define S_M1 BOX(0xbf800000)
#define S_2 BOX(0x40000000)
#define S_3 BOX(0x40400000)
#define S_HALF BOX(0x3f000000)
#define S_P0 BOX(0x00000000)
#define S_M0 BOX(0x80000000)
#define S_INF BOX(0x7f800000)
#define S_MINF BOX(0xff800000)
#define S_QNAN BOX(0x7fc00000) /* the canonical NaN */
#define S_SNAN BOX(0x7f800001)
#define S_MAX BOX(0x7f7fffff)
#define S_MINNORM BOX(0x00800000)
#define S_MINSUB BOX(0x00000001)
/* Double values. */
#define D_1 0x3ff0000000000000ull
#define D_M1 0xbff0000000000000ull
#define D_2 0x4000000000000000ull
#define D_3 0x4008000000000000ull
#define D_HALF 0x3fe0000000000000ull
#define D_P0 0x0000000000000000ull
#define D_M0 0x8000000000000000ull
#define D_INF 0x7ff0000000000000ull
#define D_MINF 0xfff0000000000000ull
#define D_QNAN 0x7ff8000000000000ull /* the canonical NaN */
#define D_SNAN 0x7ff0000000000001ull
#define D_MAX 0x7fefffffffffffffull
#define D_MINNORM 0x0010000000000000ull
#define D_MINSUB 0x0000000000000001ull

/* One instruction: inputs f11 (a), f12 (b), f13 (c), x11 (x) and
 * fcsr.frm; the expected result (in f10, or in x10 for the instructions
 * that write an integer register) and fflags. */
typedef struct fp_case {
    uint32_t insn;
    uint64_t a, b, c, x;
    uint32_t frm;
    uint64_t want;
    uint32_t flags;
    const char *what;
} fp_case;

/* A row: instruction, f11, f12, result, flags. */
#define C2(insn, a, b, want, flags, what) {insn, a, b, 0, 0, 0, want, flags, what}
/* ...with f13 too (the fused multiply-adds). */
#define C3(insn, a, b, c, want, flags, what) {insn, a, b, c, 0, 0, want, flags, what}
/* ...from x11 (moves and conversions to floating point). */
#define CX(insn, x, want, flags, what) {insn, 0, 0, 0, x, 0, want, flags, what}
/* ...with rm = DYN and fcsr.frm given. */
#define CD(insn, frm, a, b, want, flags, what) {insn, a, b, 0, 0, frm, want, flags, what}

static bool writes_x(uint32_t insn)
{
    uint32_t f5 = insn >> 27;
    return (insn & 0x7f) == 0x53 && (f5 == 0x14 || f5 == 0x18 || f5 == 0x1c);
}

static void run_cases(const fp_case *cases, size_t n)
{
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        const fp_case *c = &cases[i];
        sim_hart h;
        memset(&h, 0, sizeof h);
        h.f[11] = c->a;
        h.f[12] = c->b;
        h.f[13] = c->c;
        h.x[11] = c->x;
        h.fcsr = c->frm << 5;
        uint32_t extra = 99;
        int rc = sim_fpu_exec(&h, c->insn, &extra);
        uint64_t got = writes_x(c->insn) ? h.x[10] : h.f[10];
        uint64_t other = writes_x(c->insn) ? h.f[10] : h.x[10];
        if (rc != 0 || got != c->want || other != 0 || h.fcsr != (c->frm << 5 | c->flags)) {
            print_error("%s (insn %08x): rc %d, got %016llx fflags %02x, want %016llx fflags "
                        "%02x\n",
                        c->what, c->insn, rc, (unsigned long long)got, h.fcsr & 31,
                        (unsigned long long)c->want, c->flags);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

#define RUN(table) run_cases(table, sizeof table / sizeof table[0])

static const fp_case arith_cases[] = {
    C2(FADD(S, RNE), BOX(0x3fc00000), BOX(0x40100000), BOX(0x40700000), 0, "1.5 + 2.25 = 3.75"),
    C2(FSUB(S, RNE), S_1, S_3, BOX(0xc0000000), 0, "1 - 3 = -2"),
    C2(FMUL(S, RNE), S_3, BOX(0xc0000000), BOX(0xc0c00000), 0, "3 * -2 = -6"),
    C2(FDIV(S, RNE), S_1, S_3, BOX(0x3eaaaaab), NX, "1 / 3"),
    C2(FSQRT(S, RNE), S_2, 0, BOX(0x3fb504f3), NX, "sqrt 2"),
    C2(FSQRT(S, RNE), BOX(0x40800000), 0, S_2, 0, "sqrt 4 exact"),
    C2(FADD(D, RNE), 0x3ff8000000000000, 0x4002000000000000, 0x400e000000000000, 0,
       "1.5 + 2.25 = 3.75"),
    C2(FSUB(D, RNE), D_1, D_3, 0xc000000000000000, 0, "1 - 3 = -2"),
    C2(FMUL(D, RNE), D_3, 0xc000000000000000, 0xc018000000000000, 0, "3 * -2 = -6"),
    C2(FDIV(D, RNE), D_1, D_3, 0x3fd5555555555555, NX, "1 / 3"),
    C2(FSQRT(D, RNE), D_2, 0, 0x3ff6a09e667f3bcd, NX, "sqrt 2"),
    C2(FSQRT(D, RNE), 0x4010000000000000, 0, D_2, 0, "sqrt 4 exact"),
    C2(FSQRT(D, RNE), D_MINSUB, 0, 0x1e60000000000000, 0, "sqrt 2^-1074 = 2^-537"),
    C2(FADD(D, RNE), 0x3fb999999999999a, 0x3fc999999999999a, 0x3fd3333333333334, NX,
       "0.1 + 0.2"),
    /* x - x is +0, except in RDN. */
    C2(FSUB(S, RNE), S_3, S_3, S_P0, 0, "3 - 3 = +0"),
    C2(FSUB(S, RDN), S_3, S_3, S_M0, 0, "3 - 3 = -0 rounding down"),
    C2(FADD(D, RUP), D_M1, D_1, D_P0, 0, "-1 + 1 = +0"),
    C2(FADD(D, RDN), D_M1, D_1, D_M0, 0, "-1 + 1 = -0 rounding down"),
    C2(FADD(S, RNE), S_M0, S_M0, S_M0, 0, "-0 + -0 = -0"),
    C2(FADD(S, RNE), S_M0, S_P0, S_P0, 0, "-0 + +0 = +0"),
    C2(FADD(D, RDN), D_M0, D_P0, D_M0, 0, "-0 + +0 = -0 rounding down"),
    C2(FMUL(S, RNE), S_M0, S_3, S_M0, 0, "-0 * 3"),
    C2(FSQRT(S, RNE), S_M0, 0, S_M0, 0, "sqrt -0 = -0"),
    C2(FSQRT(D, RNE), D_INF, 0, D_INF, 0, "sqrt +inf"),
    C2(FDIV(S, RNE), S_1, S_INF, S_P0, 0, "1 / inf"),
    C2(FDIV(D, RNE), D_MINF, D_2, D_MINF, 0, "-inf / 2"),
    C2(FADD(D, RNE), D_INF, D_MAX, D_INF, 0, "inf + max"),
    /* Operands far apart: the smaller is all sticky. */
    C2(FADD(S, RUP), S_1, S_MINSUB, BOX(0x3f800001), NX, "1 + 2^-149 rounding up"),
    C2(FSUB(S, RTZ), S_1, S_MINSUB, BOX(0x3f7fffff), NX, "1 - 2^-149 toward zero"),
    C2(FSUB(D, RNE), D_1, D_MINSUB, D_1, NX, "1 - 2^-1074"),
    C2(FSUB(D, RDN), D_1, D_MINSUB, 0x3fefffffffffffff, NX, "1 - 2^-1074 rounding down"),
};

static void test_arithmetic(void **state)
{
    RUN(arith_cases);
}

/* Values whose exact results fall between two neighbours in different
 * places, so each mode picks its own; ties tell RNE from RMM. */
static const fp_case rounding_cases[] = {
    C2(FDIV(S, RNE), S_1, S_3, BOX(0x3eaaaaab), NX, "1/3 RNE"),
    C2(FDIV(S, RTZ), S_1, S_3, BOX(0x3eaaaaaa), NX, "1/3 RTZ"),
    C2(FDIV(S, RDN), S_1, S_3, BOX(0x3eaaaaaa), NX, "1/3 RDN"),
    C2(FDIV(S, RUP), S_1, S_3, BOX(0x3eaaaaab), NX, "1/3 RUP"),
    C2(FDIV(S, RMM), S_1, S_3, BOX(0x3eaaaaab), NX, "1/3 RMM"),
    C2(FDIV(S, RDN), S_M1, S_3, BOX(0xbeaaaaab), NX, "-1/3 RDN"),
    C2(FDIV(S, RUP), S_M1, S_3, BOX(0xbeaaaaaa), NX, "-1/3 RUP"),
    C2(FDIV(S, RTZ), S_M1, S_3, BOX(0xbeaaaaaa), NX, "-1/3 RTZ"),
    C2(FDIV(D, RNE), D_1, D_3, 0x3fd5555555555555, NX, "1/3 RNE"),
    C2(FDIV(D, RTZ), D_1, D_3, 0x3fd5555555555555, NX, "1/3 RTZ"),
    C2(FDIV(D, RUP), D_1, D_3, 0x3fd5555555555556, NX, "1/3 RUP"),
    C2(FDIV(D, RDN), D_M1, D_3, 0xbfd5555555555556, NX, "-1/3 RDN"),
    C2(FDIV(D, RMM), D_M1, D_3, 0xbfd5555555555555, NX, "-1/3 RMM"),
    /* 1 + 2^-24 lies halfway between 1 and its single successor, whose
     * last bit is odd: RNE keeps 1, RMM goes away from zero. */
    C2(FADD(S, RNE), S_1, BOX(0x33800000), S_1, NX, "tie RNE to even (down)"),
    C2(FADD(S, RMM), S_1, BOX(0x33800000), BOX(0x3f800001), NX, "tie RMM away"),
    C2(FADD(S, RTZ), S_1, BOX(0x33800000), S_1, NX, "tie RTZ"),
    C2(FADD(S, RDN), S_1, BOX(0x33800000), S_1, NX, "tie RDN"),
    C2(FADD(S, RUP), S_1, BOX(0x33800000), BOX(0x3f800001), NX, "tie RUP"),
    C2(FSUB(S, RNE), S_M1, BOX(0x33800000), S_M1, NX, "-tie RNE"),
    C2(FSUB(S, RMM), S_M1, BOX(0x33800000), BOX(0xbf800001), NX, "-tie RMM"),
    C2(FSUB(S, RDN), S_M1, BOX(0x33800000), BOX(0xbf800001), NX, "-tie RDN"),
    C2(FSUB(S, RUP), S_M1, BOX(0x33800000), S_M1, NX, "-tie RUP"),
    /* (1 + 2^-23) + 2^-24: a tie whose lower neighbour is odd. */
    C2(FADD(S, RNE), BOX(0x3f800001), BOX(0x33800000), BOX(0x3f800002), NX,
       "tie RNE to even (up)"),
    C2(FADD(S, RTZ), BOX(0x3f800001), BOX(0x33800000), BOX(0x3f800001), NX, "tie RTZ"),
    C2(FADD(D, RNE), D_1, 0x3ca0000000000000, D_1, NX, "1 + 2^-53 RNE"),
    C2(FADD(D, RMM), D_1, 0x3ca0000000000000, 0x3ff0000000000001, NX, "1 + 2^-53 RMM"),
    C2(FADD(D, RUP), D_1, 0x3ca0000000000000, 0x3ff0000000000001, NX, "1 + 2^-53 RUP"),
    C2(FSQRT(S, RUP), S_2, 0, BOX(0x3fb504f4), NX, "sqrt 2 RUP"),
    C2(FSQRT(D, RDN), D_2, 0, 0x3ff6a09e667f3bcc, NX, "sqrt 2 RDN"),
    C2(FMUL(S, RMM), BOX(0x3f800001), BOX(0x3fc00000), BOX(0x3fc00002), NX,
       "(1+2^-23)*1.5 tie RMM"),
    C2(FMUL(S, RNE), BOX(0x3f800001), BOX(0x3fc00000), BOX(0x3fc00002), NX,
       "(1+2^-23)*1.5 tie RNE (odd below)"),
    C2(FMUL(S, RTZ), BOX(0x3f800001), BOX(0x3fc00000), BOX(0x3fc00001), NX,
       "(1+2^-23)*1.5 RTZ"),
    /* rm = DYN takes fcsr.frm. */
    CD(FDIV(S, DYN), RNE, S_1, S_3, BOX(0x3eaaaaab), NX, "DYN RNE"),
    CD(FDIV(S, DYN), RTZ, S_1, S_3, BOX(0x3eaaaaaa), NX, "DYN RTZ"),
    CD(FDIV(S, DYN), RDN, S_M1, S_3, BOX(0xbeaaaaab), NX, "DYN RDN"),
    CD(FDIV(S, DYN), RUP, S_1, S_3, BOX(0x3eaaaaab), NX, "DYN RUP"),
    CD(FADD(S, DYN), RMM, S_1, BOX(0x33800000), BOX(0x3f800001), NX, "DYN RMM"),
    CD(FADD(D, DYN), RMM, D_1, 0x3ca0000000000000, 0x3ff0000000000001, NX, "DYN RMM"),
    /* An explicit rm wins over frm. */
    CD(FADD(S, RNE), RMM, S_1, BOX(0x33800000), S_1, NX, "explicit RNE, frm RMM"),
};

static void test_rounding_modes(void **state)
{
    RUN(rounding_cases);
}

static const fp_case flag_cases[] = {
    C2(FDIV(S, RNE), S_1, S_3, BOX(0x3eaaaaab), NX, "NX"),
    /* Overflow: to infinity or the largest finite value by mode. */
    C2(FMUL(S, RNE), S_MAX, S_2, S_INF, OF | NX, "OF RNE"),
    C2(FMUL(S, RTZ), S_MAX, S_2, S_MAX, OF | NX, "OF RTZ"),
    C2(FMUL(S, RDN), S_MAX, S_2, S_MAX, OF | NX, "OF RDN positive"),
    C2(FMUL(S, RUP), S_MAX, BOX(0xc0000000), BOX(0xff7fffff), OF | NX, "OF RUP negative"),
    C2(FMUL(S, RDN), S_MAX, BOX(0xc0000000), S_MINF, OF | NX, "OF RDN negative"),
    C2(FADD(D, RNE), D_MAX, D_MAX, D_INF, OF | NX, "OF D"),
    /* max + half its ulp (2^970): a tie whose upper neighbour is 2^1024. */
    C2(FADD(D, RNE), D_MAX, 0x7c90000000000000, D_INF, OF | NX, "OF by a tie, RNE"),
    C2(FADD(D, RMM), D_MAX, 0x7c90000000000000, D_INF, OF | NX, "OF by a tie, RMM"),
    C2(FADD(D, RTZ), D_MAX, 0x7c90000000000000, D_MAX, NX, "the tie in RTZ: no OF"),
    C2(FADD(D, RNE), D_MAX, 0x7c8fffffffffffff, D_MAX, NX, "just below the tie"),
    /* Underflow: tiny and inexact. */
    C2(FMUL(S, RNE), BOX(0x00800001), S_HALF, BOX(0x00400000), UF | NX, "UF tie to even"),
    C2(FMUL(S, RNE), S_MINNORM, S_HALF, BOX(0x00400000), 0, "tiny but exact: no UF"),
    C2(FMUL(D, RNE), D_MINNORM, D_HALF, 0x0008000000000000, 0, "tiny but exact: no UF"),
    C2(FDIV(D, RNE), D_MINNORM, D_3, 0x0005555555555555, UF | NX, "UF D"),
    C2(FMUL(S, RNE), S_MINSUB, S_HALF, S_P0, UF | NX, "2^-150 rounds to 0"),
    C2(FMUL(S, RUP), S_MINSUB, S_HALF, S_MINSUB, UF | NX, "2^-150 rounds up"),
    C2(FMUL(S, RNE), BOX(0x00000003), S_HALF, BOX(0x00000002), UF | NX, "1.5 ulp to even"),
    C2(FMUL(S, RNE), BOX(0x00000002), S_HALF, S_MINSUB, 0, "exact subnormal"),
    C2(FMUL(D, RNE), D_MINSUB, 0xbfe0000000000000, D_M0, UF | NX, "-2^-1075 to -0"),
    C2(FMUL(D, RDN), D_MINSUB, 0xbfe0000000000000, 0x8000000000000001, UF | NX,
       "-2^-1075 rounding down"),
    C2(FADD(S, RNE), BOX(0x00000003), BOX(0x80000001), BOX(0x00000002), 0,
       "subnormal sum is exact"),
    /* Tininess after rounding: (1 - 2^-23)(1 + 2^-23) 2^-126 = 2^-126 (1 - 2^-46)
     * rounds, to 24 bits, to 2^-126 itself: not tiny, so no UF, in RNE; in
     * RTZ it stays below 2^-126 and is tiny. */
    C2(FMUL(S, RNE), BOX(0x3f7ffffe), BOX(0x00800001), S_MINNORM, NX,
       "not tiny after rounding"),
    C2(FMUL(S, RTZ), BOX(0x3f7ffffe), BOX(0x00800001), BOX(0x007fffff), UF | NX,
       "tiny after rounding"),
    C2(FMUL(D, RNE), 0x3feffffffffffffe, 0x0010000000000001, D_MINNORM, NX,
       "not tiny after rounding"),
    C2(FMUL(D, RTZ), 0x3feffffffffffffe, 0x0010000000000001, 0x000fffffffffffff, UF | NX,
       "tiny after rounding"),
    /* (1 - 2^-24) 2^-126 is exact in 24 bits, so tiny; on the subnormal grid
     * it is a tie that rounds up to 2^-126: UF although the result is normal. */
    C2(FMUL(S, RNE), BOX(0x3f7fffff), S_MINNORM, S_MINNORM, UF | NX,
       "tiny, rounds to the smallest normal"),
    /* Divide by zero. */
    C2(FDIV(S, RNE), S_1, S_P0, S_INF, DZ, "1/+0"),
    C2(FDIV(S, RNE), S_1, S_M0, S_MINF, DZ, "1/-0"),
    C2(FDIV(D, RNE), D_M1, D_P0, D_MINF, DZ, "-1/+0"),
    C2(FDIV(D, RNE), D_INF, D_P0, D_INF, 0, "inf/0: no DZ"),
    /* Invalid. */
    C2(FDIV(S, RNE), S_P0, S_P0, S_QNAN, NV, "0/0"),
    C2(FDIV(D, RNE), D_INF, D_MINF, D_QNAN, NV, "inf/inf"),
    C2(FADD(S, RNE), S_INF, S_MINF, S_QNAN, NV, "inf - inf"),
    C2(FSUB(D, RNE), D_INF, D_INF, D_QNAN, NV, "inf - inf"),
    C2(FMUL(S, RNE), S_INF, S_P0, S_QNAN, NV, "inf * 0"),
    C2(FMUL(D, RNE), D_M0, D_MINF, D_QNAN, NV, "0 * -inf"),
    C2(FSQRT(S, RNE), S_M1, 0, S_QNAN, NV, "sqrt -1"),
    C2(FSQRT(D, RNE), D_MINF, 0, D_QNAN, NV, "sqrt -inf"),
    C2(FSQRT(D, RNE), 0x8000000000000001, 0, D_QNAN, NV, "sqrt of a negative subnormal"),
};

static void test_flags(void **state)
{
    RUN(flag_cases);
}

/* Flags accumulate and frm is left alone; an integer result to x0 is
 * dropped but its flags are not. */
static void test_flags_accumulate(void **state)
{
    sim_hart h;
    memset(&h, 0, sizeof h);
    uint32_t extra;
    h.fcsr = RUP << 5 | NV;
    h.f[11] = S_1;
    h.f[12] = S_3;
    assert_int_equal(sim_fpu_exec(&h, FDIV(S, DYN), &extra), 0);
    assert_int_equal(h.f[10], BOX(0x3eaaaaab));
    assert_int_equal(h.fcsr, RUP << 5 | NV | NX);
    h.f[12] = S_P0;
    assert_int_equal(sim_fpu_exec(&h, FDIV(S, RNE), &extra), 0);
    assert_int_equal(h.fcsr, RUP << 5 | NV | NX | DZ);

    memset(&h, 0, sizeof h);
    h.f[11] = S_QNAN;
    uint32_t to_x0 = FCVT_W(S, RNE) & ~(31u << 7);
    assert_int_equal(sim_fpu_exec(&h, to_x0, &extra), 0);
    assert_int_equal(h.x[0], 0);
    assert_int_equal(h.fcsr, NV);
    h.f[12] = S_SNAN;
    uint32_t feq_x0 = FEQ(S) & ~(31u << 7);
    assert_int_equal(sim_fpu_exec(&h, feq_x0, &extra), 0);
    assert_int_equal(h.x[0], 0);
}

/* Single inputs that are not NaN-boxed read as the canonical NaN (no NV:
 * it is quiet); NaN results are canonical, whatever the inputs' payloads
 * and signs; single results are boxed. */
static const fp_case nan_cases[] = {
    C2(FADD(S, RNE), 0x000000003f800000, S_1, S_QNAN, 0, "unboxed + 1"),
    C2(FADD(S, RNE), S_1, 0xfffffffe3f800000, S_QNAN, 0, "1 + almost boxed"),
    C2(FMUL(S, RNE), 0x7fffffff3f800000, S_1, S_QNAN, 0, "unboxed * 1"),
    C2(FSGNJ(S), 0x000000003f800000, S_1, S_QNAN, 0, "fsgnj of unboxed"),
    C2(FSGNJN(S), 0x000000003f800000, S_1, BOX(0xffc00000), 0, "fsgnjn of unboxed"),
    C2(FSGNJ(S), S_1, 0x00000000bf800000, S_1, 0, "sign from unboxed (+NaN)"),
    C2(FCLASS(S), 0x0000000000000000, 0, 1u << 9, 0, "fclass unboxed: quiet NaN"),
    C2(FEQ(S), 0x000000003f800000, 0x000000003f800000, 0, 0, "feq of unboxed: quiet"),
    C2(FLT(S), 0x000000003f800000, S_1, 0, NV, "flt of unboxed: NV"),
    C2(FMIN(S), 0x000000003f800000, S_2, S_2, 0, "fmin unboxed, 2"),
    C2(FCVT_D_S(RNE), 0x000000003f800000, 0, D_QNAN, 0, "fcvt.d.s of unboxed"),
    C2(FCVT_W(S, RNE), 0x0000000040000000, 0, 0x7fffffff, NV, "fcvt.w.s of unboxed"),
    C3(FMADD(S, RNE), S_1, S_1, 0x000000003f800000, S_QNAN, 0, "fmadd, c unboxed"),
    /* fmv.x.w moves bits: no unboxing. */
    C2(FMV_X(S), 0x00000000bf800000, 0, 0xffffffffbf800000, 0, "fmv.x.w of unboxed"),
    /* Payloads and signs of NaNs do not reach results. */
    C2(FADD(S, RNE), BOX(0xffc12345), S_1, S_QNAN, 0, "-qNaN with payload + 1"),
    C2(FADD(S, RNE), BOX(0x7f800001), S_1, S_QNAN, NV, "sNaN + 1"),
    C2(FADD(S, RNE), S_1, BOX(0xffbfffff), S_QNAN, NV, "1 + -sNaN"),
    C2(FMUL(D, RNE), 0xfff8000000000123, D_1, D_QNAN, 0, "-qNaN with payload * 1"),
    C2(FDIV(D, RNE), D_1, D_SNAN, D_QNAN, NV, "1 / sNaN"),
    C2(FSQRT(D, RNE), 0x7ff4000000000000, 0, D_QNAN, NV, "sqrt sNaN"),
    C2(FSQRT(S, RNE), BOX(0xffc00001), 0, S_QNAN, 0, "sqrt -qNaN"),
    C2(FCVT_S_D(RNE), 0x7ff8000012345678, 0, S_QNAN, 0, "fcvt.s.d qNaN payload"),
    C2(FCVT_S_D(RNE), 0xfff0000000000001, 0, S_QNAN, NV, "fcvt.s.d -sNaN"),
    C2(FCVT_D_S(RNE), BOX(0xffc00001), 0, D_QNAN, 0, "fcvt.d.s -qNaN payload"),
    C2(FCVT_D_S(RNE), S_SNAN, 0, D_QNAN, NV, "fcvt.d.s sNaN"),
    /* fsgnj moves NaNs as they are: it is not arithmetic. */
    C2(FSGNJN(S), BOX(0x7f800001), S_1, BOX(0xff800001), 0, "fneg sNaN: no NV"),
    C2(FSGNJX(D), 0xfff8000000000123, D_M1, 0x7ff8000000000123, 0, "fsgnjx NaN"),
    /* fmv.w.x boxes. */
    CX(FMV_F(S), 0x123456783f800000, S_1, 0, "fmv.w.x"),
};

static void test_nan_boxing_and_canonical_nan(void **state)
{
    RUN(nan_cases);
}

static const fp_case sign_move_cases[] = {
    C2(FSGNJ(S), S_3, S_M1, BOX(0xc0400000), 0, "fsgnj.s"),
    C2(FSGNJN(S), S_3, S_M1, S_3, 0, "fsgnjn.s"),
    C2(FSGNJX(S), BOX(0xc0400000), S_M1, S_3, 0, "fsgnjx.s"),
    C2(FSGNJ(D), D_M1, D_3, D_1, 0, "fsgnj.d"),
    C2(FSGNJN(D), D_3, D_3, 0xc008000000000000, 0, "fsgnjn.d (fneg)"),
    C2(FSGNJX(D), D_M1, D_M1, D_1, 0, "fsgnjx.d (fabs)"),
    C2(FMV_X(S), BOX(0xbf800000), 0, 0xffffffffbf800000, 0, "fmv.x.w sign-extends"),
    C2(FMV_X(S), S_1, 0, 0x000000003f800000, 0, "fmv.x.w"),
    C2(FMV_X(D), 0xfff0000000000123, 0, 0xfff0000000000123, 0, "fmv.x.d"),
    CX(FMV_F(D), 0x7ff0000000000001, 0x7ff0000000000001, 0, "fmv.d.x keeps sNaN"),
};

static void test_sign_injection_and_moves(void **state)
{
    RUN(sign_move_cases);
}

static const fp_case cvt_int_cases[] = {
    /* Saturation: NaN as the largest positive value, infinities and
     * out-of-range values to the bound, NV only. */
    C2(FCVT_W(S, RNE), S_QNAN, 0, 0x7fffffff, NV, "w.s NaN"),
    C2(FCVT_W(S, RNE), BOX(0xffc00000), 0, 0x7fffffff, NV, "w.s -NaN"),
    C2(FCVT_W(S, RNE), S_INF, 0, 0x7fffffff, NV, "w.s +inf"),
    C2(FCVT_W(S, RNE), S_MINF, 0, 0xffffffff80000000, NV, "w.s -inf"),
    C2(FCVT_W(S, RNE), BOX(0x4f000000), 0, 0x7fffffff, NV, "w.s 2^31"),
    C2(FCVT_W(S, RNE), BOX(0xcf000000), 0, 0xffffffff80000000, 0, "w.s -2^31"),
    C2(FCVT_W(D, RNE), 0xc1e0000000200000, 0, 0xffffffff80000000, NV, "w.d -2^31-1"),
    C2(FCVT_W(D, RNE), 0x41dfffffffc00000, 0, 0x7fffffff, 0, "w.d 2^31-1"),
    C2(FCVT_W(D, RNE), 0x41dfffffffe00000, 0, 0x7fffffff, NV,
       "w.d 2^31-0.5 rounds out of range"),
    C2(FCVT_W(D, RTZ), 0x41dfffffffe00000, 0, 0x7fffffff, NX, "w.d 2^31-0.5 RTZ"),
    C2(FCVT_W(D, RNE), 0xc1e0000000100000, 0, 0xffffffff80000000, NX,
       "w.d -2^31-0.5 RNE: tie to the even bound"),
    C2(FCVT_W(D, RMM), 0xc1e0000000100000, 0, 0xffffffff80000000, NV,
       "w.d -2^31-0.5 RMM: out of range"),
    C2(FCVT_WU(S, RNE), S_M1, 0, 0, NV, "wu.s -1"),
    C2(FCVT_WU(S, RNE), BOX(0xbf000000), 0, 0, NX, "wu.s -0.5 RNE: 0, inexact"),
    C2(FCVT_WU(S, RDN), BOX(0xbf000000), 0, 0, NV, "wu.s -0.5 RDN: -1, invalid"),
    C2(FCVT_WU(S, RNE), S_M0, 0, 0, 0, "wu.s -0"),
    C2(FCVT_WU(S, RNE), BOX(0x4f32d05e), 0, 0xffffffffb2d05e00, 0, "wu.s 3e9 sign-extended"),
    C2(FCVT_WU(S, RNE), S_QNAN, 0, 0xffffffffffffffff, NV, "wu.s NaN"),
    C2(FCVT_WU(S, RNE), S_MINF, 0, 0, NV, "wu.s -inf"),
    C2(FCVT_WU(D, RNE), 0x41efffffffe00000, 0, 0xffffffffffffffff, 0, "wu.d 2^32-1"),
    C2(FCVT_WU(D, RNE), 0x41f0000000000000, 0, 0xffffffffffffffff, NV, "wu.d 2^32"),
    C2(FCVT_L(D, RNE), 0x43e0000000000000, 0, 0x7fffffffffffffff, NV, "l.d 2^63"),
    C2(FCVT_L(D, RNE), 0xc3e0000000000000, 0, 0x8000000000000000, 0, "l.d -2^63"),
    C2(FCVT_L(D, RNE), 0xc3e0000000000001, 0, 0x8000000000000000, NV, "l.d below -2^63"),
    C2(FCVT_L(D, RNE), D_QNAN, 0, 0x7fffffffffffffff, NV, "l.d NaN"),
    C2(FCVT_L(S, RNE), S_MINF, 0, 0x8000000000000000, NV, "l.s -inf"),
    C2(FCVT_L(S, RNE), BOX(0xdf000000), 0, 0x8000000000000000, 0, "l.s -2^63"),
    C2(FCVT_L(S, RNE), BOX(0xdf000001), 0, 0x8000000000000000, NV, "l.s below -2^63"),
    C2(FCVT_L(S, RNE), BOX(0x5effffff), 0, 0x7fffff8000000000, 0, "l.s largest below 2^63"),
    C2(FCVT_LU(D, RNE), 0x43e0000000000000, 0, 0x8000000000000000, 0, "lu.d 2^63"),
    C2(FCVT_LU(D, RNE), 0x43f0000000000000, 0, 0xffffffffffffffff, NV, "lu.d 2^64"),
    C2(FCVT_LU(D, RNE), D_MINF, 0, 0, NV, "lu.d -inf"),
    C2(FCVT_LU(S, RNE), S_SNAN, 0, 0xffffffffffffffff, NV, "lu.s sNaN"),
    C2(FCVT_LU(S, RUP), BOX(0x5f7fffff), 0, 0xffffff0000000000, 0, "lu.s largest below 2^64"),
    /* Rounding to an integer in each mode, NX when inexact. */
    C2(FCVT_W(S, RNE), BOX(0x40200000), 0, 2, NX, "2.5 RNE"),
    C2(FCVT_W(S, RTZ), BOX(0x40200000), 0, 2, NX, "2.5 RTZ"),
    C2(FCVT_W(S, RDN), BOX(0x40200000), 0, 2, NX, "2.5 RDN"),
    C2(FCVT_W(S, RUP), BOX(0x40200000), 0, 3, NX, "2.5 RUP"),
    C2(FCVT_W(S, RMM), BOX(0x40200000), 0, 3, NX, "2.5 RMM"),
    C2(FCVT_W(S, RNE), BOX(0xc0200000), 0, (uint64_t)-2, NX, "-2.5 RNE"),
    C2(FCVT_W(S, RTZ), BOX(0xc0200000), 0, (uint64_t)-2, NX, "-2.5 RTZ"),
    C2(FCVT_W(S, RDN), BOX(0xc0200000), 0, (uint64_t)-3, NX, "-2.5 RDN"),
    C2(FCVT_W(S, RUP), BOX(0xc0200000), 0, (uint64_t)-2, NX, "-2.5 RUP"),
    C2(FCVT_W(S, RMM), BOX(0xc0200000), 0, (uint64_t)-3, NX, "-2.5 RMM"),
    C2(FCVT_L(D, RNE), 0x4006000000000000, 0, 3, NX, "2.75 RNE"),
    C2(FCVT_L(D, RNE), 0x400a000000000000, 0, 3, NX, "3.25 RNE"),
    C2(FCVT_L(D, RNE), 0x400c000000000000, 0, 4, NX, "3.5 RNE"),
    C2(FCVT_L(D, RUP), D_MINSUB, 0, 1, NX, "2^-1074 RUP"),
    C2(FCVT_L(D, RDN), 0x8000000000000001, 0, (uint64_t)-1, NX, "-2^-1074 RDN"),
    C2(FCVT_L(D, RNE), D_HALF, 0, 0, NX, "0.5 RNE"),
    C2(FCVT_L(D, RMM), D_HALF, 0, 1, NX, "0.5 RMM"),
    C2(FCVT_LU(D, RTZ), 0x3fefffffffffffff, 0, 0, NX, "lu.d 0.99.. RTZ"),
    C2(FCVT_WU(D, DYN), 0x4024000000000000, 0, 10, 0, "wu.d 10"),
    /* From integers. */
    CX(FCVT_FW(S, RNE), (uint64_t)-1, BOX(0xbf800000), 0, "s.w -1"),
    CX(FCVT_FW(S, RNE), 0x0000000100000005, BOX(0x40a00000), 0, "s.w reads the low 32 bits"),
    CX(FCVT_FWU(S, RNE), 0x00000000ffffffff, BOX(0x4f800000), NX, "s.wu 2^32-1 RNE"),
    CX(FCVT_FWU(S, RTZ), 0xffffffffffffffff, BOX(0x4f7fffff), NX, "s.wu 2^32-1 RTZ"),
    CX(FCVT_FL(S, RNE), 16777217, BOX(0x4b800000), NX, "s.l 2^24+1 RNE"),
    CX(FCVT_FL(S, RMM), 16777217, BOX(0x4b800001), NX, "s.l 2^24+1 RMM"),
    CX(FCVT_FL(S, RDN), (uint64_t)-16777217, BOX(0xcb800001), NX, "s.l -(2^24+1) RDN"),
    CX(FCVT_FLU(S, RNE), 0xffffffffffffffff, BOX(0x5f800000), NX, "s.lu 2^64-1"),
    CX(FCVT_FW(S, RDN), 0, S_P0, 0, "s.w 0 is +0 even rounding down"),
    CX(FCVT_FW(D, RNE), 0x80000000, 0xc1e0000000000000, 0, "d.w -2^31"),
    CX(FCVT_FWU(D, RNE), 0x80000000, 0x41e0000000000000, 0, "d.wu 2^31"),
    CX(FCVT_FL(D, RNE), 0x7fffffffffffffff, 0x43e0000000000000, NX, "d.l 2^63-1"),
    CX(FCVT_FL(D, RTZ), 0x7fffffffffffffff, 0x43dfffffffffffff, NX, "d.l 2^63-1 RTZ"),
    CX(FCVT_FL(D, RNE), 0x8000000000000000, 0xc3e0000000000000, 0, "d.l -2^63"),
    CX(FCVT_FLU(D, RNE), 0xffffffffffffffff, 0x43f0000000000000, NX, "d.lu 2^64-1"),
    CX(FCVT_FLU(D, RNE), 0x0020000000000001, 0x4340000000000000, NX, "d.lu 2^53+1 RNE"),
    CX(FCVT_FLU(D, RMM), 0x0020000000000001, 0x4340000000000001, NX, "d.lu 2^53+1 RMM"),
};

static void test_int_conversions(void **state)
{
    RUN(cvt_int_cases);
}

static const fp_case cvt_fp_cases[] = {
    C2(FCVT_S_D(RNE), 0x3fd5555555555555, 0, BOX(0x3eaaaaab), NX, "1/3 RNE"),
    C2(FCVT_S_D(RTZ), 0x3fd5555555555555, 0, BOX(0x3eaaaaaa), NX, "1/3 RTZ"),
    C2(FCVT_S_D(RNE), 0x3fb999999999999a, 0, BOX(0x3dcccccd), NX, "0.1"),
    C2(FCVT_S_D(RNE), 0x7e37e43c8800759c, 0, S_INF, OF | NX, "1e300"),
    C2(FCVT_S_D(RTZ), 0x7e37e43c8800759c, 0, S_MAX, OF | NX, "1e300 RTZ"),
    C2(FCVT_S_D(RNE), 0x01a56e1fc2f8f359, 0, S_P0, UF | NX, "1e-300"),
    C2(FCVT_S_D(RUP), 0x01a56e1fc2f8f359, 0, S_MINSUB, UF | NX, "1e-300 RUP"),
    C2(FCVT_S_D(RNE), 0x36a0000000000000, 0, S_MINSUB, 0, "2^-149 exact"),
    C2(FCVT_S_D(RNE), 0x3690000000000000, 0, S_P0, UF | NX, "2^-150 ties to 0"),
    C2(FCVT_S_D(RMM), 0x3690000000000000, 0, S_MINSUB, UF | NX, "2^-150 RMM"),
    C2(FCVT_S_D(RNE), D_MINF, 0, S_MINF, 0, "-inf"),
    C2(FCVT_S_D(RNE), D_M0, 0, S_M0, 0, "-0"),
    C2(FCVT_D_S(RNE), BOX(0x3eaaaaab), 0, 0x3fd5555560000000, 0, "exact widening"),
    C2(FCVT_D_S(RNE), S_MINSUB, 0, 0x36a0000000000000, 0, "subnormal widens to normal"),
    C2(FCVT_D_S(RNE), S_MINF, 0, D_MINF, 0, "-inf"),
    C2(FCVT_D_S(RNE), S_M0, 0, D_M0, 0, "-0"),
};

static void test_fp_conversions(void **state)
{
    RUN(cvt_fp_cases);
}

static const fp_case minmax_cases[] = {
    C2(FMIN(S), S_1, S_QNAN, S_1, 0, "min(1, qNaN)"),
    C2(FMAX(S), S_QNAN, S_1, S_1, 0, "max(qNaN, 1)"),
    C2(FMIN(S), S_SNAN, S_1, S_1, NV, "min(sNaN, 1)"),
    C2(FMAX(S), S_1, S_SNAN, S_1, NV, "max(1, sNaN)"),
    C2(FMIN(S), BOX(0x7fc12345), BOX(0xffc00001), S_QNAN, 0, "min(qNaN, qNaN): canonical"),
    C2(FMAX(S), S_SNAN, S_QNAN, S_QNAN, NV, "max(sNaN, qNaN)"),
    C2(FMIN(S), S_M0, S_P0, S_M0, 0, "min(-0, +0)"),
    C2(FMIN(S), S_P0, S_M0, S_M0, 0, "min(+0, -0)"),
    C2(FMAX(S), S_M0, S_P0, S_P0, 0, "max(-0, +0)"),
    C2(FMAX(S), S_P0, S_M0, S_P0, 0, "max(+0, -0)"),
    C2(FMIN(S), S_M1, S_2, S_M1, 0, "min(-1, 2)"),
    C2(FMAX(S), S_M1, S_2, S_2, 0, "max(-1, 2)"),
    C2(FMIN(S), S_MINF, S_M1, S_MINF, 0, "min(-inf, -1)"),
    C2(FMIN(D), D_QNAN, D_M1, D_M1, 0, "min(qNaN, -1)"),
    C2(FMAX(D), D_SNAN, D_SNAN, D_QNAN, NV, "max(sNaN, sNaN)"),
    C2(FMIN(D), D_P0, D_M0, D_M0, 0, "min(+0, -0)"),
    C2(FMAX(D), D_M0, D_P0, D_P0, 0, "max(-0, +0)"),
    C2(FMAX(D), D_MINSUB, D_P0, D_MINSUB, 0, "max(2^-1074, 0)"),
    C2(FMIN(D), 0xbff0000000000001, D_M1, 0xbff0000000000001, 0, "min of close negatives"),
    C2(FMAX(D), D_INF, D_MAX, D_INF, 0, "max(inf, max)"),
};

static void test_min_max(void **state)
{
    RUN(minmax_cases);
}

static const fp_case compare_cases[] = {
    C2(FEQ(S), S_1, S_1, 1, 0, "1 == 1"),
    C2(FEQ(S), S_1, S_QNAN, 0, 0, "feq qNaN: quiet"),
    C2(FEQ(S), S_SNAN, S_1, 0, NV, "feq sNaN: NV"),
    C2(FEQ(S), S_P0, S_M0, 1, 0, "+0 == -0"),
    C2(FLT(S), S_QNAN, S_1, 0, NV, "flt qNaN: NV"),
    C2(FLE(S), S_1, S_QNAN, 0, NV, "fle qNaN: NV"),
    C2(FLT(S), S_M0, S_P0, 0, 0, "-0 < +0 is false"),
    C2(FLE(S), S_M0, S_P0, 1, 0, "-0 <= +0"),
    C2(FLT(S), S_M1, S_1, 1, 0, "-1 < 1"),
    C2(FLT(S), S_MINF, S_M1, 1, 0, "-inf < -1"),
    C2(FLE(S), S_2, S_1, 0, 0, "2 <= 1 is false"),
    C2(FEQ(D), D_QNAN, D_QNAN, 0, 0, "qNaN == qNaN is false"),
    C2(FEQ(D), D_1, D_SNAN, 0, NV, "feq sNaN"),
    C2(FEQ(D), D_M0, D_P0, 1, 0, "-0 == +0"),
    C2(FLT(D), 0xbff0000000000001, D_M1, 1, 0, "-1-ulp < -1"),
    C2(FLT(D), D_1, D_1, 0, 0, "1 < 1 is false"),
    C2(FLE(D), D_1, D_1, 1, 0, "1 <= 1"),
    C2(FLE(D), D_QNAN, D_1, 0, NV, "fle qNaN"),
    C2(FLT(D), D_MINSUB, D_INF, 1, 0, "2^-1074 < inf"),
};

static void test_compares(void **state)
{
    RUN(compare_cases);
}

static const fp_case class_cases[] = {
    C2(FCLASS(S), S_MINF, 0, 1u << 0, 0, "-inf"),
    C2(FCLASS(S), S_M1, 0, 1u << 1, 0, "-normal"),
    C2(FCLASS(S), BOX(0x807fffff), 0, 1u << 2, 0, "-subnormal"),
    C2(FCLASS(S), S_M0, 0, 1u << 3, 0, "-0"),
    C2(FCLASS(S), S_P0, 0, 1u << 4, 0, "+0"),
    C2(FCLASS(S), S_MINSUB, 0, 1u << 5, 0, "+subnormal"),
    C2(FCLASS(S), S_MINNORM, 0, 1u << 6, 0, "+normal"),
    C2(FCLASS(S), S_INF, 0, 1u << 7, 0, "+inf"),
    C2(FCLASS(S), BOX(0xffbfffff), 0, 1u << 8, 0, "sNaN"),
    C2(FCLASS(S), S_QNAN, 0, 1u << 9, 0, "qNaN"),
    C2(FCLASS(D), D_MINF, 0, 1u << 0, 0, "-inf"),
    C2(FCLASS(D), 0xffefffffffffffff, 0, 1u << 1, 0, "-normal"),
    C2(FCLASS(D), 0x8000000000000001, 0, 1u << 2, 0, "-subnormal"),
    C2(FCLASS(D), D_M0, 0, 1u << 3, 0, "-0"),
    C2(FCLASS(D), D_P0, 0, 1u << 4, 0, "+0"),
    C2(FCLASS(D), 0x000fffffffffffff, 0, 1u << 5, 0, "+subnormal"),
    C2(FCLASS(D), D_1, 0, 1u << 6, 0, "+normal"),
    C2(FCLASS(D), D_INF, 0, 1u << 7, 0, "+inf"),
    C2(FCLASS(D), D_SNAN, 0, 1u << 8, 0, "sNaN"),
    C2(FCLASS(D), 0xfff8000000000000, 0, 1u << 9, 0, "-qNaN"),
};

static void test_fclass(void **state)
{
    RUN(class_cases);
}

static const fp_case fma_cases[] = {
    C3(FMADD(S, RNE), S_2, S_3, S_1, BOX(0x40e00000), 0, "2*3 + 1"),
    C3(FMSUB(S, RNE), S_2, S_3, S_1, BOX(0x40a00000), 0, "2*3 - 1"),
    C3(FNMSUB(S, RNE), S_2, S_3, S_1, BOX(0xc0a00000), 0, "-(2*3) + 1"),
    C3(FNMADD(S, RNE), S_2, S_3, S_1, BOX(0xc0e00000), 0, "-(2*3) - 1"),
    C3(FMADD(D, RNE), D_2, D_3, D_1, 0x401c000000000000, 0, "2*3 + 1"),
    C3(FMSUB(D, RNE), D_2, D_3, D_1, 0x4014000000000000, 0, "2*3 - 1"),
    C3(FNMSUB(D, RNE), D_2, D_3, D_1, 0xc014000000000000, 0, "-(2*3) + 1"),
    C3(FNMADD(D, RNE), D_2, D_3, D_1, 0xc01c000000000000, 0, "-(2*3) - 1"),
    /* One rounding: (1 + 2^-23)^2 - (1 + 2^-22) is exactly 2^-46; a
     * multiply then an add would round the square to 1 + 2^-22 and give 0. */
    C3(FMADD(S, RNE), BOX(0x3f800001), BOX(0x3f800001), BOX(0xbf800002), BOX(0x28800000), 0,
       "fused S"),
    C3(FMADD(D, RNE), 0x3ff0000000000001, 0x3ff0000000000001, 0xbff0000000000002,
       0x3970000000000000, 0, "fused D"),
    C3(FMSUB(D, RNE), D_1, D_1, 0x3ff0000000000001, 0xbcb0000000000000, 0, "1 - (1+2^-52)"),
    /* The product's bits below the result still decide the rounding. */
    C3(FMADD(S, RNE), BOX(0x3f800001), BOX(0x3f800001), S_M1, BOX(0x34800000), NX,
       "(1+2^-23)^2 - 1 = 2^-22 + 2^-46"),
    C3(FMADD(S, RTZ), BOX(0x3f800001), BOX(0x3f800001), S_P0, BOX(0x3f800002), NX,
       "(1+2^-23)^2 RTZ"),
    C3(FMADD(S, RUP), BOX(0x3f800001), BOX(0x3f800001), S_P0, BOX(0x3f800003), NX,
       "(1+2^-23)^2 RUP"),
    /* Zero sums. */
    C3(FMADD(S, RNE), S_1, S_1, S_M1, S_P0, 0, "1*1 - 1 = +0"),
    C3(FMADD(S, RDN), S_1, S_1, S_M1, S_M0, 0, "1*1 - 1 = -0 rounding down"),
    C3(FNMADD(S, RNE), S_1, S_P0, S_P0, S_M0, 0, "-(1*0) - 0 = -0"),
    C3(FMADD(D, RNE), D_M1, D_P0, D_P0, D_P0, 0, "-0 + +0 = +0"),
    C3(FMADD(D, RDN), D_M1, D_P0, D_P0, D_M0, 0, "-0 + +0 = -0 rounding down"),
    C3(FMADD(D, RNE), D_M1, D_P0, D_M0, D_M0, 0, "-0 + -0 = -0"),
    C3(FMADD(D, RNE), D_P0, D_INF, D_1, D_QNAN, NV, "0*inf + 1"),
    /* inf * 0 is invalid even when c is a quiet NaN (SoftFloat, Spike). */
    C3(FMADD(S, RNE), S_INF, S_P0, S_QNAN, S_QNAN, NV, "inf*0 + qNaN"),
    C3(FMADD(D, RNE), D_M0, D_MINF, D_QNAN, D_QNAN, NV, "0*-inf + qNaN"),
    C3(FMADD(S, RNE), S_INF, S_1, S_MINF, S_QNAN, NV, "inf - inf"),
    C3(FNMSUB(D, RNE), D_INF, D_1, D_INF, D_QNAN, NV, "-inf + inf"),
    C3(FMADD(S, RNE), S_INF, S_1, S_INF, S_INF, 0, "inf + inf"),
    C3(FMADD(S, RNE), S_INF, S_QNAN, S_P0, S_QNAN, 0, "inf*qNaN + 0: no NV"),
    C3(FMADD(S, RNE), S_1, S_1, S_SNAN, S_QNAN, NV, "1*1 + sNaN"),
    C3(FMADD(D, RNE), D_QNAN, D_1, D_SNAN, D_QNAN, NV, "qNaN*1 + sNaN"),
    C3(FMADD(D, RNE), D_1, D_1, D_QNAN, D_QNAN, 0, "1*1 + qNaN"),
    C3(FMADD(D, RNE), D_MAX, D_2, D_MINF, D_MINF, 0, "finite + -inf"),
    C3(FMADD(D, RNE), D_MAX, D_2, D_MAX, D_INF, OF | NX, "overflow"),
    C3(FMADD(D, RNE), D_MAX, D_2, 0xffefffffffffffff, D_MAX, 0,
       "an overflowing product brought back"),
    C3(FMADD(S, RNE), S_MINNORM, S_HALF, S_P0, BOX(0x00400000), 0, "exact subnormal"),
    C3(FMADD(S, RNE), BOX(0x00800001), S_HALF, S_P0, BOX(0x00400000), UF | NX, "UF"),
    C3(FMADD(S, RNE), S_MINSUB, S_MINSUB, S_1, S_1, NX, "1 + tiny product"),
    C3(FMADD(S, RDN), S_MINSUB, BOX(0x80000001), S_1, BOX(0x3f7fffff), NX,
       "1 - tiny product rounding down"),
    C3(FMADD(S, RNE), S_1, S_3, S_P0, S_3, 0, "product exact, + 0"),
};

static void test_fused_multiply_add(void **state)
{
    RUN(fma_cases);
}

/* Reserved rounding modes and unimplemented encodings are illegal and
 * leave the hart untouched. */
static void test_illegal(void **state)
{
    static const struct {
        uint32_t insn;
        uint32_t frm;
        const char *what;
    } bad[] = {
        {FADD(S, 5), 0, "rm 5"},
        {FADD(D, 6), 0, "rm 6"},
        {FADD(S, DYN), 5, "DYN with frm 5"},
        {FMUL(D, DYN), 6, "DYN with frm 6"},
        {FDIV(S, DYN), 7, "DYN with frm 7"},
        {FSQRT(D, 5), 0, "fsqrt rm 5"},
        {FMADD(S, 5), 0, "fmadd rm 5"},
        {FNMADD(D, DYN), 7, "fnmadd DYN frm 7"},
        {FCVT_D_S(5), 0, "fcvt.d.s (exact) still checks rm"},
        {FCVT_FW(D, 6), 0, "fcvt.d.w (exact) still checks rm"},
        {FCVT_W(S, 5), 0, "fcvt.w.s rm 5"},
        {FCVT_S_D(DYN), 5, "fcvt.s.d DYN frm 5"},
        {OPFP(0x00, Q, 12, RNE), 0, "fadd.q"},
        {FADD(H, 5), 0, "fadd.h rm 5"},
        {FMADD(H, DYN), 5, "fmadd.h DYN frm 5"},
        {OPFP(0x08, H, 2, RNE), 0, "fcvt.h.h"},
        {OPFP(0x08, H, 3, RNE), 0, "fcvt.h.q"},
        {R4(0x4f, Q, RNE), 0, "fnmadd.q"},
        {OPFP(0x0b, S, 1, RNE), 0, "fsqrt with rs2 1"},
        {OPFP(0x04, S, 12, 3), 0, "fsgnj funct3 3"},
        {OPFP(0x05, D, 12, 2), 0, "fminm (Zfa)"},
        {OPFP(0x08, S, 0, RNE), 0, "fcvt.s.s"},
        {OPFP(0x08, D, 1, RNE), 0, "fcvt.d.d"},
        {OPFP(0x08, S, 3, RNE), 0, "fcvt.s.q"},
        {OPFP(0x08, D, 3, RNE), 0, "fcvt.d.q"},
        {OPFP(0x14, S, 12, 3), 0, "compare funct3 3"},
        {OPFP(0x18, D, 4, RNE), 0, "fcvt rs2 4"},
        {OPFP(0x18, D, 8, RTZ), 0, "fcvtmod.w.d (Zfa)"},
        {OPFP(0x1a, S, 5, RNE), 0, "fcvt.s rs2 5"},
        {OPFP(0x1c, S, 0, 2), 0, "funct5 0x1c funct3 2"},
        {OPFP(0x1c, D, 1, 0), 0, "fmv.x.d with rs2 1"},
        {OPFP(0x1e, S, 0, 1), 0, "fmv.w.x funct3 1"},
        {OPFP(0x1e, D, 1, 0), 0, "fli.d (Zfa)"},
        {OPFP(0x06, S, 12, RNE), 0, "funct5 6"},
        {OPFP(0x1f, D, 0, RNE), 0, "funct5 0x1f"},
        {0x00000007u, 0, "a load opcode"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sim_hart h;
        memset(&h, 0, sizeof h);
        h.f[10] = 0x1234;
        h.f[11] = S_1;
        h.f[12] = S_3;
        h.f[13] = S_1;
        h.x[10] = 0x5678;
        h.x[11] = 7;
        h.fcsr = bad[i].frm << 5;
        uint32_t extra = 99;
        int rc = sim_fpu_exec(&h, bad[i].insn, &extra);
        if (rc != SIM_CAUSE_ILLEGAL)
            print_error("%s: rc %d\n", bad[i].what, rc);
        assert_int_equal(rc, SIM_CAUSE_ILLEGAL);
        assert_int_equal(h.f[10], 0x1234);
        assert_int_equal(h.x[10], 0x5678);
        assert_int_equal(h.fcsr, bad[i].frm << 5);
        assert_int_equal(extra, 0);
    }
    /* A reserved frm does not matter to an instruction with its own rm,
     * nor to one that does not round. */
    sim_hart h;
    memset(&h, 0, sizeof h);
    uint32_t extra;
    h.fcsr = 5 << 5;
    h.f[11] = S_1;
    h.f[12] = S_3;
    assert_int_equal(sim_fpu_exec(&h, FADD(S, RTZ), &extra), 0);
    assert_int_equal(h.f[10], BOX(0x40800000));
    assert_int_equal(sim_fpu_exec(&h, FSGNJN(S), &extra), 0);
    assert_int_equal(h.f[10], BOX(0xbf800000));
    assert_int_equal(sim_fpu_exec(&h, FLT(S), &extra), 0);
    assert_int_equal(h.x[10], 1);
}

/* The latency table reaches *extra_cycles. */
static void test_latency(void **state)
{
    static const struct {
        uint32_t insn;
        uint32_t want;
    } lat[] = {
        {FSGNJ(S), 0},      {FMV_X(D), 0},      {FCLASS(S), 0},     {FEQ(D), 1},
        {FMIN(S), 1},       {FCVT_W(D, RNE), 2}, {FCVT_S_D(RNE), 2}, {FADD(S, RNE), 4},
        {FMUL(D, RNE), 4},  {FMADD(D, RNE), 4}, {FDIV(S, RNE), 12}, {FDIV(D, RNE), 20},
        {FSQRT(S, RNE), 14}, {FSQRT(D, RNE), 25},
    };
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        sim_hart h;
        memset(&h, 0, sizeof h);
        uint32_t extra = 99;
        assert_int_equal(sim_fpu_exec(&h, lat[i].insn, &extra), 0);
        assert_int_equal(extra, lat[i].want);
    }
}

/* The split API: sim_fpu_decode refuses what is illegal whatever the
 * state and carries the latency; sim_fpu_run refuses a reserved frm
 * through rm 7 and then changes nothing. */
static void test_decode_run(void **state)
{
    sim_fpu_insn fi;
    assert_int_equal(sizeof fi, 8);
    assert_int_equal(sim_fpu_decode(FDIV(D, DYN), &fi), 0);
    assert_int_equal(fi.rd, 10);
    assert_int_equal(fi.rs1, 11);
    assert_int_equal(fi.rs2, 12);
    assert_int_equal(fi.rm, DYN);
    assert_int_equal(fi.extra, 20);
    assert_int_equal(sim_fpu_decode(FMADD(S, RNE), &fi), 0);
    assert_int_equal(fi.rs3, 13);
    assert_int_equal(fi.extra, 4);
    /* statically illegal: rm 5 and 6, the Q format, no instruction */
    assert_int_equal(sim_fpu_decode(FADD(S, 5), &fi), SIM_CAUSE_ILLEGAL);
    assert_int_equal(sim_fpu_decode(FSQRT(D, 6), &fi), SIM_CAUSE_ILLEGAL);
    assert_int_equal(sim_fpu_decode(FADD(Q, RNE), &fi), SIM_CAUSE_ILLEGAL);
    assert_int_equal(sim_fpu_decode(FMADD(Q, RNE), &fi), SIM_CAUSE_ILLEGAL);
    assert_int_equal(sim_fpu_decode(OPFP(0x06, S, 12, 0), &fi), SIM_CAUSE_ILLEGAL);
    /* rm 5 in an instruction that does not round is its funct3: illegal
     * for fsgnj (no such variant) because of the funct3, not the mode */
    assert_int_equal(sim_fpu_decode(OPFP(0x04, S, 12, 5), &fi), SIM_CAUSE_ILLEGAL);

    /* dynamic: decided when run */
    sim_hart h;
    memset(&h, 0, sizeof h);
    h.f[10] = 0x1234;
    h.f[11] = D_1;
    h.f[12] = D_3;
    assert_int_equal(sim_fpu_decode(FDIV(D, DYN), &fi), 0);
    for (uint32_t frm = 5; frm <= 7; frm++) {
        h.fcsr = frm << 5;
        assert_int_equal(sim_fpu_run(&h, &fi), SIM_CAUSE_ILLEGAL);
        assert_int_equal(h.f[10], 0x1234);
        assert_int_equal(h.fcsr, frm << 5);
    }
    h.fcsr = RTZ << 5;
    assert_int_equal(sim_fpu_run(&h, &fi), 0);
    assert_int_equal(h.f[10], 0x3fd5555555555555ull);
    assert_int_equal(h.fcsr, RTZ << 5 | NX);
    h.fcsr = RUP << 5;
    assert_int_equal(sim_fpu_run(&h, &fi), 0);
    assert_int_equal(h.f[10], 0x3fd5555555555556ull);
    /* the same decoded entry, run again, reads the registers afresh */
    h.f[11] = D_3;
    h.fcsr = RNE << 5;
    assert_int_equal(sim_fpu_run(&h, &fi), 0);
    assert_int_equal(h.f[10], D_1);
    assert_int_equal(h.fcsr, RNE << 5);
}

/* Every table runs twice: as it comes (the host's fast path where the
 * start-up probe allows it) and on the software path alone. */
static int soft_only(void **state)
{
    (void)state;
    sim_fpu_set_host(false);
    return 0;
}
static int host_back(void **state)
{
    (void)state;
    sim_fpu_set_host(true);
    return 0;
}

#define BOTH_PATHS(t) cmocka_unit_test(t), cmocka_unit_test_setup_teardown(t, soft_only, host_back)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH_PATHS(test_arithmetic),
        BOTH_PATHS(test_rounding_modes),
        BOTH_PATHS(test_flags),
        BOTH_PATHS(test_flags_accumulate),
        BOTH_PATHS(test_nan_boxing_and_canonical_nan),
        BOTH_PATHS(test_sign_injection_and_moves),
        BOTH_PATHS(test_int_conversions),
        BOTH_PATHS(test_fp_conversions),
        BOTH_PATHS(test_min_max),
        BOTH_PATHS(test_compares),
        BOTH_PATHS(test_fclass),
        BOTH_PATHS(test_fused_multiply_add),
        BOTH_PATHS(test_illegal),
        BOTH_PATHS(test_latency),
        BOTH_PATHS(test_decode_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
