/* Tests for Zfh in device/sim/fpu/fpu.c and fpu_soft.c (sim_fpu.h): the
 * half-precision instructions driven through sim_fpu_exec on a zeroed
 * hart, bit for bit, and a random cross-check of fadd/fsub/fmul/fdiv/
 * fsqrt/fmadd.h against an oracle of this file's own.
 *
 * The table's expected values come from Python's struct 'e' format (exact
 * IEEE binary16) and the ISA manual's rules.  The oracle computes every
 * result exactly in integers (a half is an integer multiple of 2^-24, so
 * sums are exact in units of 2^-24, products and fused sums in units of
 * 2^-48, quotients and roots as a floor plus a sticky bit) and rounds it
 * to a half by searching the table of all 31744 finite positive halves —
 * nothing shared with fpu_soft's shifting and packing.  Results and all
 * of NX, UF, OF are compared, in RNE and RTZ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sim_fpu.h"
#include "test_random.h"

enum { S = 0, D = 1, H = 2 };
enum { RNE, RTZ, RDN, RUP, RMM, DYN = 7 };
enum { NX = 1, UF = 2, OF = 4, DZ = 8, NV = 16 };

#define OPFP(f5, fmt, rs2, rm)                                                        \
    (((uint32_t)(f5) << 27) | ((uint32_t)(fmt) << 25) | ((uint32_t)(rs2) << 20) |     \
     (11u << 15) | ((uint32_t)(rm) << 12) | (10u << 7) | 0x53u)
#define R4(op, fmt, rm)                                                               \
    ((13u << 27) | ((uint32_t)(fmt) << 25) | (12u << 20) | (11u << 15) |             \
     ((uint32_t)(rm) << 12) | (10u << 7) | (uint32_t)(op))

#define FADD(rm) OPFP(0x00, H, 12, rm)
#define FSUB(rm) OPFP(0x01, H, 12, rm)
#define FMUL(rm) OPFP(0x02, H, 12, rm)
#define FDIV(rm) OPFP(0x03, H, 12, rm)
#define FSQRT(rm) OPFP(0x0b, H, 0, rm)
#define FSGNJ OPFP(0x04, H, 12, 0)
#define FSGNJN OPFP(0x04, H, 12, 1)
#define FSGNJX OPFP(0x04, H, 12, 2)
#define FMIN OPFP(0x05, H, 12, 0)
#define FMAX OPFP(0x05, H, 12, 1)
#define FCVT_S_H(rm) OPFP(0x08, S, 2, rm)
#define FCVT_D_H(rm) OPFP(0x08, D, 2, rm)
#define FCVT_H_S(rm) OPFP(0x08, H, 0, rm)
#define FCVT_H_D(rm) OPFP(0x08, H, 1, rm)
#define FLE OPFP(0x14, H, 12, 0)
#define FLT OPFP(0x14, H, 12, 1)
#define FEQ OPFP(0x14, H, 12, 2)
#define FCVT_W(rm) OPFP(0x18, H, 0, rm) /* fcvt.w.h */
#define FCVT_WU(rm) OPFP(0x18, H, 1, rm)
#define FCVT_L(rm) OPFP(0x18, H, 2, rm)
#define FCVT_LU(rm) OPFP(0x18, H, 3, rm)
#define FCVT_HW(rm) OPFP(0x1a, H, 0, rm) /* fcvt.h.w */
#define FCVT_HWU(rm) OPFP(0x1a, H, 1, rm)
#define FCVT_HL(rm) OPFP(0x1a, H, 2, rm)
#define FCVT_HLU(rm) OPFP(0x1a, H, 3, rm)
#define FMV_X_H OPFP(0x1c, H, 0, 0)
#define FCLASS OPFP(0x1c, H, 0, 1)
#define FMV_H_X OPFP(0x1e, H, 0, 0)
#define FMADD(rm) R4(0x43, H, rm)
#define FMSUB(rm) R4(0x47, H, rm)
#define FNMSUB(rm) R4(0x4b, H, rm)
#define FNMADD(rm) R4(0x4f, H, rm)

/* A half NaN-boxed (ones in bits 63..16), a single NaN-boxed. */
#define HB(v) (0xffffffffffff0000ull | (uint16_t)(v))
#define SB(v) (0xffffffff00000000ull | (uint32_t)(v))

#define H_1 HB(0x3c00)
#define H_M1 HB(0xbc00)
#define H_2 HB(0x4000)
#define H_3 HB(0x4200)
#define H_HALF HB(0x3800)
#define H_P0 HB(0x0000)
#define H_M0 HB(0x8000)
#define H_INF HB(0x7c00)
#define H_MINF HB(0xfc00)
#define H_QNAN HB(0x7e00) /* the canonical NaN */
#define H_SNAN HB(0x7c01)
#define H_MAX HB(0x7bff) /* 65504 */
#define H_MINNORM HB(0x0400)
#define H_MINSUB HB(0x0001)

typedef struct fp_case {
    uint32_t insn;
    uint64_t a, b, c, x;
    uint64_t want;
    uint32_t flags;
    const char *what;
} fp_case;

#define C2(insn, a, b, want, flags, what) {insn, a, b, 0, 0, want, flags, what}
#define C3(insn, a, b, c, want, flags, what) {insn, a, b, c, 0, want, flags, what}
#define CX(insn, x, want, flags, what) {insn, 0, 0, 0, x, want, flags, what}

static bool writes_x(uint32_t insn)
{
    uint32_t f5 = insn >> 27;
    return (insn & 0x7f) == 0x53 && (f5 == 0x14 || f5 == 0x18 || f5 == 0x1c);
}

static const fp_case cases[] = {
    /* arithmetic, exact and not */
    C2(FADD(RNE), H_1, H_2, H_3, 0, "1 + 2"),
    C2(FSUB(RNE), H_1, H_3, HB(0xc000), 0, "1 - 3"),
    C2(FMUL(RNE), H_3, HB(0x3e00), HB(0x4480), 0, "3 * 1.5"),
    C2(FDIV(RNE), H_1, H_3, HB(0x3555), NX, "1/3 RNE"),
    C2(FDIV(RTZ), H_1, H_3, HB(0x3555), NX, "1/3 RTZ"),
    C2(FDIV(RUP), H_1, H_3, HB(0x3556), NX, "1/3 RUP"),
    C2(FDIV(RDN), H_M1, H_3, HB(0xb556), NX, "-1/3 RDN"),
    C2(FSQRT(RNE), H_2, 0, HB(0x3da8), NX, "sqrt 2"),
    C2(FSQRT(RNE), HB(0x4400), 0, H_2, 0, "sqrt 4"),
    C2(FSQRT(RNE), H_M1, 0, H_QNAN, NV, "sqrt -1"),
    C2(FSQRT(RNE), H_M0, 0, H_M0, 0, "sqrt -0"),
    C2(FDIV(RNE), H_1, H_P0, H_INF, DZ, "1/0"),
    C2(FSUB(RNE), H_INF, H_INF, H_QNAN, NV, "inf - inf"),
    C2(FSUB(RDN), H_3, H_3, H_M0, 0, "3 - 3 rounding down"),
    /* overflow, underflow */
    C2(FMUL(RNE), H_MAX, H_2, H_INF, OF | NX, "max * 2"),
    C2(FMUL(RTZ), H_MAX, H_2, H_MAX, OF | NX, "max * 2 toward zero"),
    C2(FADD(RNE), H_MAX, HB(0x4fff), H_INF, OF | NX, "65504 + 31.98: past 65520"),
    C2(FADD(RNE), H_MAX, HB(0x4bff), H_MAX, NX, "65504 + 15.99: below 65520"),
    C2(FMUL(RNE), H_MINNORM, H_HALF, HB(0x0200), 0, "2^-14 / 2: exact subnormal"),
    C2(FMUL(RNE), H_MINSUB, H_HALF, H_P0, UF | NX, "2^-24 / 2: a tie to zero"),
    C2(FMUL(RMM), H_MINSUB, H_HALF, H_MINSUB, UF | NX, "2^-24 / 2 RMM"),
    /* 1.4140625^2 * 2^-15 = 2^-14 (1 - 0.875 * 2^-12) rounds to 2^-14 with an
     * unbounded exponent: not tiny */
    C2(FMUL(RNE), HB(0x3da8), HB(0x02d4), H_MINNORM, NX, "tininess after rounding"),
    C2(FMUL(RNE), HB(0x3bff), H_MINNORM, H_MINNORM, UF | NX, "2^-14 - 2^-25: tiny"),
    /* fused: (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20, rounded up once */
    C3(FMADD(RUP), HB(0x3c01), HB(0x3c01), H_M1, HB(0x1801), NX, "fmadd one rounding"),
    C3(FMSUB(RNE), H_2, H_3, H_1, HB(0x4500), 0, "2*3 - 1"),
    C3(FNMSUB(RNE), H_2, H_3, H_1, HB(0xc500), 0, "-(2*3) + 1"),
    C3(FNMADD(RNE), H_2, H_3, H_1, HB(0xc700), 0, "-(2*3) - 1"),
    C3(FMADD(RNE), H_INF, H_P0, H_QNAN, H_QNAN, NV, "inf * 0 + qNaN"),
    /* NaN-boxing: a half whose bits 63..16 are not all ones is the canonical NaN */
    C2(FADD(RNE), 0xffffffff00003c00ull, H_1, H_QNAN, 0, "improperly boxed input"),
    C2(FADD(RNE), SB(0x3c00), H_1, H_QNAN, 0, "a boxed single is no boxed half"),
    C2(FADD(RNE), H_SNAN, H_1, H_QNAN, NV, "sNaN + 1"),
    C2(FSGNJ, 0x3c00, H_M1, HB(0xfe00), 0, "fsgnj of an unboxed input"),
    /* sign injection, min/max, compares, class */
    C2(FSGNJ, H_3, H_M1, HB(0xc200), 0, "fsgnj"),
    C2(FSGNJN, H_3, H_M1, H_3, 0, "fsgnjn"),
    C2(FSGNJX, HB(0xc200), H_M1, H_3, 0, "fsgnjx"),
    C2(FMIN, H_P0, H_M0, H_M0, 0, "min(+0, -0)"),
    C2(FMAX, H_M0, H_P0, H_P0, 0, "max(-0, +0)"),
    C2(FMIN, H_QNAN, H_3, H_3, 0, "min(qNaN, 3)"),
    C2(FMAX, H_SNAN, H_1, H_1, NV, "max(sNaN, 1)"),
    C2(FMAX, H_QNAN, H_QNAN, H_QNAN, 0, "max(NaN, NaN)"),
    C2(FLT, H_1, H_2, 1, 0, "1 < 2"),
    C2(FLE, H_2, H_2, 1, 0, "2 <= 2"),
    C2(FEQ, H_P0, H_M0, 1, 0, "+0 == -0"),
    C2(FLT, H_QNAN, H_2, 0, NV, "flt qNaN signals"),
    C2(FEQ, H_QNAN, H_2, 0, 0, "feq qNaN is quiet"),
    C2(FEQ, H_SNAN, H_2, 0, NV, "feq sNaN"),
    C2(FCLASS, H_MINF, 0, 1 << 0, 0, "class -inf"),
    C2(FCLASS, HB(0x8001), 0, 1 << 2, 0, "class -subnormal"),
    C2(FCLASS, H_MINSUB, 0, 1 << 5, 0, "class +subnormal"),
    C2(FCLASS, H_MINNORM, 0, 1 << 6, 0, "class +normal"),
    C2(FCLASS, H_SNAN, 0, 1 << 8, 0, "class sNaN"),
    C2(FCLASS, 0x7c00, 0, 1 << 9, 0, "class of an unboxed input: qNaN"),
    /* moves: fmv.x.h sign-extends the raw low 16 bits, boxed or not */
    C2(FMV_X_H, HB(0x8765), 0, 0xffffffffffff8765ull, 0, "fmv.x.h negative"),
    C2(FMV_X_H, 0x1234000000007bffull, 0, 0x7bff, 0, "fmv.x.h unboxed"),
    CX(FMV_H_X, 0x123456789abcdef0ull, HB(0xdef0), 0, "fmv.h.x boxes the low 16"),
    /* between formats */
    C2(FCVT_S_H(RNE), HB(0x3555), 0, SB(0x3eaaa000), 0, "fcvt.s.h exact"),
    C2(FCVT_S_H(RNE), H_MINSUB, 0, SB(0x33800000), 0, "fcvt.s.h subnormal"),
    C2(FCVT_S_H(RNE), H_SNAN, 0, SB(0x7fc00000), NV, "fcvt.s.h sNaN"),
    C2(FCVT_D_H(RNE), H_MAX, 0, 0x40effc0000000000ull, 0, "fcvt.d.h 65504"),
    C2(FCVT_H_S(RNE), SB(0x3eaaaaab), 0, HB(0x3555), NX, "fcvt.h.s 1/3"),
    C2(FCVT_H_S(RUP), SB(0x3eaaaaab), 0, HB(0x3556), NX, "fcvt.h.s 1/3 up"),
    C2(FCVT_H_S(RNE), 0x3f800000, 0, H_QNAN, 0, "fcvt.h.s unboxed single"),
    C2(FCVT_H_S(RNE), SB(0x33000000), 0, H_P0, UF | NX, "fcvt.h.s 2^-25: tie to 0"),
    C2(FCVT_H_D(RNE), 0x40effe0000000000ull, 0, H_INF, OF | NX, "fcvt.h.d 65520"),
    C2(FCVT_H_D(RNE), 0x40effdffffffffffull, 0, H_MAX, NX, "fcvt.h.d below 65520"),
    C2(FCVT_H_D(RTZ), 0x7ff0000000000000ull, 0, H_INF, 0, "fcvt.h.d inf"),
    /* to and from integers */
    C2(FCVT_W(RNE), HB(0x4100), 0, 2, NX, "fcvt.w.h 2.5 RNE"),
    C2(FCVT_W(RMM), HB(0x4100), 0, 3, NX, "fcvt.w.h 2.5 RMM"),
    C2(FCVT_W(RTZ), HB(0xc100), 0, (uint64_t)-2, NX, "fcvt.w.h -2.5 RTZ"),
    C2(FCVT_WU(RNE), H_M1, 0, 0, NV, "fcvt.wu.h -1"),
    C2(FCVT_WU(RNE), H_MAX, 0, 65504, 0, "fcvt.wu.h 65504"),
    C2(FCVT_L(RNE), H_MINF, 0, 0x8000000000000000ull, NV, "fcvt.l.h -inf"),
    C2(FCVT_LU(RNE), H_QNAN, 0, ~0ull, NV, "fcvt.lu.h NaN"),
    C2(FCVT_WU(RNE), H_QNAN, 0, ~0ull, NV, "fcvt.wu.h NaN: sign-extended"),
    CX(FCVT_HW(RNE), 0xffffffff00000003ull, H_3, 0, "fcvt.h.w reads 32 bits"),
    CX(FCVT_HW(RNE), (uint64_t)-65505, HB(0xfbff), NX, "fcvt.h.w -65505"),
    CX(FCVT_HWU(RNE), 100000, H_INF, OF | NX, "fcvt.h.wu 100000"),
    CX(FCVT_HL(RTZ), 100000, H_MAX, OF | NX, "fcvt.h.l 100000 toward zero"),
    CX(FCVT_HLU(RNE), 2049, HB(0x6800), NX, "fcvt.h.lu 2049: a tie to even"),
    CX(FCVT_HLU(RNE), 0, H_P0, 0, "fcvt.h.lu 0"),
};

static void test_table(void **state)
{
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const fp_case *c = &cases[i];
        sim_hart h;
        memset(&h, 0, sizeof h);
        h.f[11] = c->a;
        h.f[12] = c->b;
        h.f[13] = c->c;
        h.x[11] = c->x;
        uint32_t extra = 99;
        int rc = sim_fpu_exec(&h, c->insn, &extra);
        uint64_t got = writes_x(c->insn) ? h.x[10] : h.f[10];
        if (rc != 0 || got != c->want || h.fcsr != c->flags) {
            print_error("%s (insn %08x): rc %d, got %016llx fflags %02x, want %016llx fflags "
                        "%02x\n",
                        c->what, c->insn, rc, (unsigned long long)got, h.fcsr & 31,
                        (unsigned long long)c->want, c->flags);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* Illegal: the Q format and fcvt.h.h; a reserved rm; and the latency is
 * the single's. */
static void test_decode(void **state)
{
    sim_fpu_insn fi;
    assert_int_equal(sim_fpu_decode(OPFP(0x08, H, 2, RNE), &fi), SIM_CAUSE_ILLEGAL);
    assert_int_equal(sim_fpu_decode(OPFP(0x08, H, 3, RNE), &fi), SIM_CAUSE_ILLEGAL);
    assert_int_equal(sim_fpu_decode(FADD(5), &fi), SIM_CAUSE_ILLEGAL);
    assert_int_equal(sim_fpu_decode(FCVT_S_H(6), &fi), SIM_CAUSE_ILLEGAL);
    assert_int_equal(sim_fpu_decode(OPFP(0x1e, H, 0, 1), &fi), SIM_CAUSE_ILLEGAL);
    static const struct {
        uint32_t insn, want;
    } lat[] = {
        {FSGNJ, 0}, {FMV_X_H, 0}, {FEQ, 1}, {FCVT_W(RNE), 2}, {FCVT_S_H(RNE), 2},
        {FADD(RNE), 4}, {FMADD(RNE), 4}, {FDIV(RNE), 12}, {FSQRT(RNE), 14},
    };
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        assert_int_equal(sim_fpu_decode(lat[i].insn, &fi), 0);
        assert_int_equal(fi.extra, lat[i].want);
    }
    /* rm 7 reads frm; a reserved frm is illegal at run time, changing nothing */
    sim_hart h;
    memset(&h, 0, sizeof h);
    h.f[10] = 0x55;
    h.f[11] = H_1;
    h.f[12] = H_3;
    h.fcsr = 5 << 5;
    uint32_t extra;
    assert_int_equal(sim_fpu_exec(&h, FDIV(DYN), &extra), SIM_CAUSE_ILLEGAL);
    assert_int_equal(h.f[10], 0x55);
    h.fcsr = RUP << 5;
    assert_int_equal(sim_fpu_exec(&h, FDIV(DYN), &extra), 0);
    assert_int_equal(h.f[10], HB(0x3556));
    assert_int_equal(h.fcsr, RUP << 5 | NX);
}

/* ---- the oracle ---- */

__extension__ typedef unsigned __int128 u128;

/* A magnitude as a key: twice the value in units of 2^-64, plus 1 when
 * the value lies strictly above that (a sticky bit); every half and every
 * rounding boundary is an even key, so comparisons with keys are exact. */
static u128 key_of_half[0x7c01]; /* 0x7c00: 2^16, the next binade's start */

/* A finite half's magnitude in units of 2^-24. */
static uint64_t units24(uint16_t v)
{
    unsigned e = (v >> 10) & 31, f = v & 0x3ff;
    return e == 0 ? f : (uint64_t)(f | 0x400) << (e - 1);
}

static void build_keys(void)
{
    for (unsigned i = 0; i < 0x7c00; i++)
        key_of_half[i] = (u128)units24((uint16_t)i) << 41; /* 2^-24 = 2^40 units, doubled */
    key_of_half[0x7c00] = (u128)1 << 81;
}

/* Rounds the magnitude `key` (sign: the value's sign) to a half in RNE or
 * RTZ, with IEEE's flags and RISC-V's tininess after rounding. */
static uint16_t oracle_round(int sign, u128 key, int rm, uint32_t *flags)
{
    uint16_t s = sign ? 0x8000 : 0;
    u128 over = rm == RNE ? (key_of_half[0x7bff] + key_of_half[0x7c00]) / 2
                          : key_of_half[0x7c00];
    if (key >= over) {
        *flags |= OF | NX;
        return s | (rm == RNE ? 0x7c00 : 0x7bff);
    }
    unsigned lo = 0, hi = 0x7c00; /* key_of_half[lo] <= key < key_of_half[hi] */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (key_of_half[mid] <= key)
            lo = mid;
        else
            hi = mid;
    }
    if (key == key_of_half[lo])
        return s | (uint16_t)lo;
    *flags |= NX;
    /* tiny: below 2^-14 - 2^-26 (RNE) or 2^-14 (RTZ) when rounded with an
     * unbounded exponent — in keys, 2^51 - 2^39 or 2^51 */
    u128 tiny = rm == RNE ? ((u128)1 << 51) - ((u128)1 << 39) : (u128)1 << 51;
    if (key < tiny)
        *flags |= UF;
    unsigned r = lo;
    if (rm == RNE) {
        u128 mid = (key_of_half[lo] + key_of_half[hi]) / 2;
        if (key > mid || (key == mid && (lo & 1)))
            r = hi;
    }
    return s | (uint16_t)r;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    return test_random(&rng);
}

/* A random finite half, often near the edges (subnormal, large, zero). */
static uint16_t rand_half(void)
{
    uint64_t r = next_rand();
    uint16_t sign = (r & 1) ? 0x8000 : 0, frac = (uint16_t)((r >> 1) & 0x3ff);
    unsigned e;
    switch ((r >> 11) & 7) {
    case 0: e = 0; break;                      /* subnormal or zero */
    case 1: e = 1 + (unsigned)((r >> 14) & 3); break; /* near the smallest normal */
    case 2: e = 27 + (unsigned)((r >> 14) & 3); break; /* near overflow */
    default: e = (unsigned)((r >> 14) % 31); break;
    }
    if (((r >> 20) & 63) == 0)
        frac = 0;
    return sign | (uint16_t)(e << 10) | frac;
}

static uint64_t isqrt128(u128 n)
{
    u128 r = 0, bit = (u128)1 << 126;
    while (bit > n)
        bit >>= 2;
    while (bit) {
        if (n >= r + bit) {
            n -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return (uint64_t)r;
}

enum { O_ADD, O_SUB, O_MUL, O_DIV, O_SQRT, O_FMA };

/* The oracle's answer for op on finite a, b, c; false when it has none
 * (a zero divisor, a negative root). */
static bool oracle(int op, uint16_t a, uint16_t b, uint16_t c, int rm, uint16_t *out,
                   uint32_t *flags)
{
    int sa = a >> 15, sb = b >> 15, sc = c >> 15;
    uint64_t ma = units24(a & 0x7fff), mb = units24(b & 0x7fff), mc = units24(c & 0x7fff);
    int sign;
    u128 key;
    switch (op) {
    case O_SUB:
        sb ^= 1;
        /* fall through */
    case O_ADD:
    case O_FMA: {
        /* signed sums in units of 2^-48 */
        __int128 x, y;
        int zsign; /* an exact zero's sign when both terms are zero */
        if (op == O_FMA) {
            x = (__int128)((u128)ma * mb);
            if (sa ^ sb)
                x = -x;
            y = (__int128)((u128)mc << 24);
            if (sc)
                y = -y;
            zsign = (sa ^ sb) && sc;
        } else {
            x = (__int128)((u128)ma << 24);
            if (sa)
                x = -x;
            y = (__int128)((u128)mb << 24);
            if (sb)
                y = -y;
            zsign = sa && sb;
        }
        __int128 z = x + y;
        if (z == 0) {
            /* +0 in RNE and RTZ unless both terms were -0 */
            bool both_zero = x == 0 && y == 0;
            *out = both_zero && zsign ? 0x8000 : 0;
            return true;
        }
        sign = z < 0;
        key = (u128)(z < 0 ? -z : z) << 17; /* 2^-48 = 2^16 units, doubled */
        break;
    }
    case O_MUL:
        sign = sa ^ sb;
        key = (u128)ma * mb << 17;
        break;
    case O_DIV: {
        if (mb == 0)
            return false;
        sign = sa ^ sb;
        /* (ma / mb) * 2^64 as floor and sticky */
        u128 n = (u128)ma << 64;
        key = (n / mb) << 1 | (n % mb != 0);
        break;
    }
    case O_SQRT: {
        if (sa && ma != 0)
            return false;
        if (ma == 0) {
            *out = a;
            return true;
        }
        sign = 0;
        /* sqrt(ma * 2^-24) * 2^52 = sqrt(ma * 2^80): floor and sticky;
         * every boundary is a multiple of 2^-52, so the key's finer
         * units lose nothing (the sticky marks "strictly inside") */
        u128 n = (u128)ma << 80;
        uint64_t r = isqrt128(n);
        key = ((u128)r << 13) | ((u128)r * r != n);
        break;
    }
    default:
        return false;
    }
    if (key == 0) {
        *out = sign ? 0x8000 : 0;
        return true;
    }
    *out = oracle_round(sign, key, rm, flags);
    return true;
}

static void test_random_against_oracle(void **state)
{
    static const struct {
        int op;
        uint32_t rne, rtz;
        const char *name;
    } ops[] = {
        {O_ADD, FADD(RNE), FADD(RTZ), "fadd.h"},    {O_SUB, FSUB(RNE), FSUB(RTZ), "fsub.h"},
        {O_MUL, FMUL(RNE), FMUL(RTZ), "fmul.h"},    {O_DIV, FDIV(RNE), FDIV(RTZ), "fdiv.h"},
        {O_SQRT, FSQRT(RNE), FSQRT(RTZ), "fsqrt.h"}, {O_FMA, FMADD(RNE), FMADD(RTZ), "fmadd.h"},
    };
    build_keys();
    long checked = 0, inexact = 0, tiny = 0, over = 0;
    int failures = 0;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (int i = 0; i < 60000; i++) {
            uint16_t a = rand_half(), b = rand_half(), c = rand_half();
            if (ops[o].op == O_ADD && (i & 3) == 0) /* cancellation */
                b = (uint16_t)((a ^ 0x8000) + (next_rand() % 5) - 2);
            if ((b & 0x7c00) == 0x7c00)
                b = 0x3c00;
            if (ops[o].op == O_SQRT)
                a &= 0x7fff;
            for (int m = 0; m < 2; m++) {
                int rm = m ? RTZ : RNE;
                uint16_t want;
                uint32_t wflags = 0;
                if (!oracle(ops[o].op, a, b, c, rm, &want, &wflags))
                    continue;
                sim_hart h;
                memset(&h, 0, sizeof h);
                h.f[11] = HB(a);
                h.f[12] = HB(b);
                h.f[13] = HB(c);
                uint32_t extra;
                int rc = sim_fpu_exec(&h, m ? ops[o].rtz : ops[o].rne, &extra);
                checked++;
                inexact += (wflags & NX) != 0;
                tiny += (wflags & UF) != 0;
                over += (wflags & OF) != 0;
                if (rc != 0 || h.f[10] != HB(want) || h.fcsr != wflags) {
                    if (failures++ < 10)
                        print_error("%s %s %04x %04x %04x: got %016llx fflags %02x, want "
                                    "%04x fflags %02x\n",
                                    ops[o].name, m ? "rtz" : "rne", a, b, c,
                                    (unsigned long long)h.f[10], h.fcsr, want, wflags);
                }
            }
        }
    }
    assert_int_equal(failures, 0);
    /* the operands reach every flag often enough to mean something */
    assert_true(checked > 600000);
    assert_true(inexact > checked / 4);
    assert_true(tiny > 1000);
    assert_true(over > 1000);
}

/* The oracle itself, on values whose rounding is known by hand. */
static void test_oracle_itself(void **state)
{
    build_keys();
    uint32_t fl = 0;
    /* 1 + 2^-11: a tie between 0x3c00 and 0x3c01, to even */
    u128 one = key_of_half[0x3c00];
    assert_int_equal(oracle_round(0, one + (one >> 11), RNE, &fl), 0x3c00);
    assert_int_equal(fl, NX);
    assert_int_equal(oracle_round(0, one + (one >> 11) + 2, RNE, &fl), 0x3c01);
    assert_int_equal(oracle_round(1, one + (one >> 10) - 1, RTZ, &fl), 0xbc00);
    fl = 0;
    assert_int_equal(oracle_round(0, key_of_half[0x7bff] + 1, RNE, &fl), 0x7bff);
    assert_int_equal(fl, NX);
    fl = 0;
    assert_int_equal(oracle_round(0, ((u128)65520 << 65), RNE, &fl), 0x7c00);
    assert_int_equal(fl, OF | NX);
    fl = 0;
    assert_int_equal(oracle_round(0, key_of_half[1] / 2, RNE, &fl), 0);
    assert_int_equal(fl, UF | NX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_oracle_itself),
        cmocka_unit_test(test_random_against_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
