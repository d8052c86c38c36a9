/* vec_est: the RVV 1.0 estimates vfrsqrt7.v and vfrec7.v (spec sections
 * "Vector Floating-Point Reciprocal Square-Root Estimate" and
 * "Reciprocal Estimate"), SEW 16 (Zvfh), 32 and 64: 7 significand bits from the
 * spec's two 128-entry tables, the exponent computed, every special case
 * and flag as the spec's tables list them.  The result is the spec's, bit
 * for bit: software relies on it being the same everywhere (it is the
 * seed of Newton-Raphson steps). */
#include "fpu_soft.h"
#include "vec_internal.h"

/* vfrsqrt7.v's table, indexed by the normalised exponent's LSB (high bit)
 * and the significand's 6 MSBs: the 7 MSBs of the result's significand. */
static const uint8_t rsqrt7_table[128] = {
    52,  51,  50,  48,  47,  46,  44,  43,  42,  41,  40,  39,  38,  36,  35,  34,
    33,  32,  31,  30,  30,  29,  28,  27,  26,  25,  24,  23,  23,  22,  21,  20,
    19,  19,  18,  17,  16,  16,  15,  14,  14,  13,  12,  12,  11,  10,  10,  9,
    9,   8,   7,   7,   6,   6,   5,   4,   4,   3,   3,   2,   2,   1,   1,   0,
    127, 125, 123, 121, 119, 118, 116, 114, 113, 111, 109, 108, 106, 105, 103, 102,
    100, 99,  97,  96,  95,  93,  92,  91,  90,  88,  87,  86,  85,  84,  83,  82,
    80,  79,  78,  77,  76,  75,  74,  73,  72,  71,  70,  70,  69,  68,  67,  66,
    65,  64,  63,  63,  62,  61,  60,  59,  59,  58,  57,  56,  56,  55,  54,  53,
};

/* vfrec7.v's table, indexed by the normalised significand's 7 MSBs. */
static const uint8_t rec7_table[128] = {
    127, 125, 123, 121, 119, 117, 116, 114, 112, 110, 109, 107, 105, 104, 102, 100,
    99,  97,  96,  94,  93,  91,  90,  88,  87,  85,  84,  83,  81,  80,  79,  77,
    76,  75,  74,  72,  71,  70,  69,  68,  66,  65,  64,  63,  62,  61,  60,  59,
    58,  57,  56,  55,  54,  53,  52,  51,  50,  49,  48,  47,  46,  45,  44,  43,
    42,  41,  40,  40,  39,  38,  37,  36,  35,  35,  34,  33,  32,  31,  31,  30,
    29,  28,  28,  27,  26,  25,  25,  24,  23,  23,  22,  21,  21,  20,  19,  19,
    18,  17,  17,  16,  15,  15,  14,  14,  13,  12,  12,  11,  11,  10,  9,   9,
    8,   8,   7,   7,   6,   5,   5,   4,   4,   3,   3,   2,   2,   1,   1,   0,
};

/* A value's fields in format f. */
typedef struct fp_parts {
    unsigned ebits, mbits;
    uint64_t sign, sig, emax;
    int64_t exp;
} fp_parts;

static fp_parts parts(int f, uint64_t a)
{
    fp_parts p = {f == SIM_FP_H ? 5u : f == SIM_FP_S ? 8u : 11u,
                  f == SIM_FP_H ? 10u : f == SIM_FP_S ? 23u : 52u, 0, 0, 0, 0};
    p.emax = (1ull << p.ebits) - 1;
    p.sign = (a >> (p.ebits + p.mbits)) & 1;
    p.exp = (int64_t)((a >> p.mbits) & p.emax);
    p.sig = a & ((1ull << p.mbits) - 1);
    return p;
}

static uint64_t pack(const fp_parts *p, uint64_t sign, uint64_t exp, uint64_t sig)
{
    return sign << (p->ebits + p->mbits) | exp << p->mbits | sig;
}

/* Infinity or NaN (the exponent all ones): the result for a NaN, the
 * canonical NaN (NV for a signaling one). */
static uint64_t nan_result(const fp_parts *p, uint32_t *fl)
{
    if (!((p->sig >> (p->mbits - 1)) & 1))
        *fl |= SIM_FF_NV;
    return pack(p, 0, p->emax, 1ull << (p->mbits - 1));
}

/* A subnormal's significand shifted until its leading one is the hidden
 * bit (dropped), the exponent 0 minus the shift less one: the spec's
 * "normalized" exponent and significand. */
static void normalise(fp_parts *p)
{
    while (!((p->sig >> (p->mbits - 1)) & 1)) {
        p->exp--;
        p->sig <<= 1;
    }
    p->sig = (p->sig << 1) & ((1ull << p->mbits) - 1);
}

uint64_t vec_frsqrt7(int f, uint64_t a, uint32_t *fl)
{
    fp_parts p = parts(f, a);
    int64_t bias = (int64_t)(p.emax >> 1);
    if ((uint64_t)p.exp == p.emax) {
        if (p.sig)
            return nan_result(&p, fl);
        if (p.sign) { /* -inf */
            *fl |= SIM_FF_NV;
            return pack(&p, 0, p.emax, 1ull << (p.mbits - 1));
        }
        return 0; /* +inf: +0 */
    }
    if (p.exp == 0 && p.sig == 0) { /* ±0: ±inf */
        *fl |= SIM_FF_DZ;
        return pack(&p, p.sign, p.emax, 0);
    }
    if (p.sign) { /* below zero: NaN */
        *fl |= SIM_FF_NV;
        return pack(&p, 0, p.emax, 1ull << (p.mbits - 1));
    }
    if (p.exp == 0)
        normalise(&p);
    unsigned i = (unsigned)(((uint64_t)p.exp & 1) << 6 | p.sig >> (p.mbits - 6));
    /* floor((3 * bias - 1 - exp) / 2); positive, so C's division floors */
    uint64_t exp = (uint64_t)((3 * bias - 1 - p.exp) / 2);
    return pack(&p, 0, exp, (uint64_t)rsqrt7_table[i] << (p.mbits - 7));
}

uint64_t vec_frec7(int f, uint64_t a, int rm, uint32_t *fl)
{
    fp_parts p = parts(f, a);
    int64_t bias = (int64_t)(p.emax >> 1);
    if ((uint64_t)p.exp == p.emax)
        return p.sig ? nan_result(&p, fl) : pack(&p, p.sign, 0, 0); /* ±inf: ±0 */
    if (p.exp == 0 && p.sig == 0) { /* ±0: ±inf */
        *fl |= SIM_FF_DZ;
        return pack(&p, p.sign, p.emax, 0);
    }
    if (p.exp == 0) {
        normalise(&p);
        if (p.exp < -1) { /* 1/x past the largest finite: by the rounding mode */
            *fl |= SIM_FF_OF | SIM_FF_NX;
            bool finite = rm == SIM_RM_RTZ || (rm == SIM_RM_RDN && !p.sign) ||
                          (rm == SIM_RM_RUP && p.sign);
            return finite ? pack(&p, p.sign, p.emax - 1, (1ull << p.mbits) - 1)
                          : pack(&p, p.sign, p.emax, 0);
        }
    }
    uint64_t sig = (uint64_t)rec7_table[p.sig >> (p.mbits - 7)] << (p.mbits - 7);
    int64_t exp = 2 * bias - 1 - p.exp;
    if (exp <= 0) { /* a subnormal result: the hidden one shifted in */
        sig = sig >> 1 | 1ull << (p.mbits - 1);
        if (exp < 0)
            sig >>= 1;
        exp = 0;
    }
    return pack(&p, p.sign, (uint64_t)exp, sig);
}
