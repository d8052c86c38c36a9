/* fpu_soft: binary16/binary32/binary64 arithmetic on integer significands
 * (fpu_soft.h).
 *
 * Method: each operation produces its result as an integer times a power
 * of two, exact or "jammed" — the bits shifted out ORed into bit 0, which
 * keeps the value strictly between the same two neighbours on any grid at
 * least two bits coarser, so rounding it later is as good as rounding the
 * exact value.  One routine (round_pack) then rounds that to the format in
 * any of the five modes and packs it, raising NX, UF, OF.  Wide products,
 * quotients and square roots use unsigned __int128. */
#include <stddef.h>

#include "fpu_soft.h"

__extension__ typedef unsigned __int128 u128;

/* One format's shape. */
typedef struct fpfmt {
    int p;        /* precision in bits, the hidden bit included */
    int ebits;    /* exponent field width */
    int32_t emax; /* also the bias */
    int32_t emin;
    uint64_t qnan; /* the canonical NaN */
} fpfmt;

static const fpfmt formats[3] = {
    [SIM_FP_S] = {24, 8, 127, -126, 0x7fc00000u},
    [SIM_FP_D] = {53, 11, 1023, -1022, 0x7ff8000000000000ull},
    [SIM_FP_H] = {11, 5, 15, -14, 0x7e00u},
};

enum { C_ZERO, C_FINITE, C_INF, C_QNAN, C_SNAN };

/* A value taken apart.  Finite nonzero: m has bit p-1 set (subnormals are
 * normalized) and the value is m * 2^(e - (p-1)), e the leading bit's
 * exponent. */
typedef struct unp {
    int cls;
    int sign;
    int32_t e;
    uint64_t m;
} unp;

/* A value as +-sig * 2^e, sig possibly jammed. */
typedef struct xval {
    int sign;
    int32_t e;
    u128 sig;
} xval;

static uint64_t sign_bit(const fpfmt *F)
{
    return 1ull << (F->p + F->ebits - 1);
}
static uint64_t mant_mask(const fpfmt *F)
{
    return (1ull << (F->p - 1)) - 1;
}
static uint64_t exp_all_ones(const fpfmt *F)
{
    return ((1ull << F->ebits) - 1) << (F->p - 1);
}
static uint64_t pack_zero(const fpfmt *F, int sign)
{
    return sign ? sign_bit(F) : 0;
}
static uint64_t pack_inf(const fpfmt *F, int sign)
{
    return pack_zero(F, sign) | exp_all_ones(F);
}
static uint64_t pack_max(const fpfmt *F, int sign)
{
    return pack_zero(F, sign) | (exp_all_ones(F) - (1ull << (F->p - 1))) | mant_mask(F);
}

static unp unpack(const fpfmt *F, uint64_t a)
{
    unp u = {0, 0, 0, 0};
    u.sign = (a & sign_bit(F)) != 0;
    int32_t ef = (int32_t)((a >> (F->p - 1)) & ((1u << F->ebits) - 1));
    uint64_t frac = a & mant_mask(F);
    if (ef == (1 << F->ebits) - 1) {
        if (frac == 0)
            u.cls = C_INF;
        else
            u.cls = (frac >> (F->p - 2)) & 1 ? C_QNAN : C_SNAN;
    } else if (ef == 0) {
        if (frac == 0) {
            u.cls = C_ZERO;
        } else {
            /* Subnormal: normalize so every operation sees one shape. */
            int shift = __builtin_clzll(frac) - (64 - F->p);
            u.cls = C_FINITE;
            u.m = frac << shift;
            u.e = F->emin - shift;
        }
    } else {
        u.cls = C_FINITE;
        u.m = frac | (1ull << (F->p - 1));
        u.e = ef - F->emax;
    }
    return u;
}

static bool is_nan(const unp *u)
{
    return u->cls == C_QNAN || u->cls == C_SNAN;
}

static int clz128(u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64);
    return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll((uint64_t)x);
}

static uint64_t shr_jam64(uint64_t x, int d)
{
    if (d == 0)
        return x;
    if (d >= 64)
        return x != 0;
    return (x >> d) | ((x << (64 - d)) != 0);
}

static u128 shr_jam128(u128 x, int d)
{
    if (d == 0)
        return x;
    if (d >= 128)
        return x != 0;
    return (x >> d) | (u128)((x << (128 - d)) != 0);
}

/* Whether to add one to a value truncated to `kept`, given how the part
 * cut off compares with half a unit (cmp: -1 below, 0 at, 1 above) and
 * whether it was zero at all. */
static bool round_up(int rm, int sign, bool kept_odd, int cmp, bool inexact)
{
    if (!inexact)
        return false;
    switch (rm) {
    case SIM_RM_RNE:
        return cmp > 0 || (cmp == 0 && kept_odd);
    case SIM_RM_RMM:
        return cmp >= 0;
    case SIM_RM_RDN:
        return sign;
    case SIM_RM_RUP:
        return !sign;
    default: /* RTZ */
        return false;
    }
}

/* x >> d rounded to an integer in mode rm (sign: the value's sign, for
 * the directed modes); *inexact says whether anything was cut off. */
static u128 round_shift(u128 x, int d, int sign, int rm, bool *inexact)
{
    if (d == 0) {
        *inexact = false;
        return x;
    }
    u128 kept, rem, half;
    if (d >= 128) {
        /* All of x lies below half a unit (x < 2^127 here, always). */
        kept = 0;
        rem = x;
        half = (u128)1 << 127;
    } else {
        kept = x >> d;
        rem = x & (((u128)1 << d) - 1);
        half = (u128)1 << (d - 1);
    }
    *inexact = rem != 0;
    int cmp = rem < half ? -1 : rem > half ? 1 : 0;
    return kept + round_up(rm, sign, (bool)(kept & 1), cmp, *inexact);
}

/* Rounds +-sig * 2^e (sig != 0, exact or jammed with at least p+2
 * significant bits) to format F and packs it. */
static uint64_t round_pack(const fpfmt *F, int sign, int32_t e, u128 sig, int rm,
                           uint32_t *flags)
{
    int lead = 127 - clz128(sig);
    int32_t E = e + lead; /* the leading bit's exponent */
    /* 63 bits, leading bit at 62: room for a carry, and the cut-off part
     * (63 - p bits, at least 10) keeps jammed values well apart from the
     * rounding point. */
    uint64_t s = lead > 62 ? (uint64_t)shr_jam128(sig, lead - 62) : (uint64_t)sig << (62 - lead);
    int cut = 63 - F->p;
    bool tiny = false, inexact;
    if (E < F->emin) {
        /* Tininess after rounding: tiny unless rounding to p bits with an
         * unbounded exponent would carry the value up to 2^emin. */
        u128 r = round_shift(s, cut, sign, rm, &inexact);
        tiny = !(E == F->emin - 1 && (r >> F->p) != 0);
        s = shr_jam64(s, (int)(F->emin - E) > 63 ? 64 : (int)(F->emin - E));
        E = F->emin;
    }
    uint64_t k = (uint64_t)round_shift(s, cut, sign, rm, &inexact);
    if (k >> F->p) { /* carried out to 2^p: exactly a power of two */
        k >>= 1;
        E++;
    }
    if (inexact) {
        *flags |= SIM_FF_NX;
        if (tiny)
            *flags |= SIM_FF_UF;
    }
    if (E > F->emax) {
        *flags |= SIM_FF_OF | SIM_FF_NX;
        bool to_inf = rm == SIM_RM_RNE || rm == SIM_RM_RMM || (rm == SIM_RM_RDN && sign) ||
                      (rm == SIM_RM_RUP && !sign);
        return to_inf ? pack_inf(F, sign) : pack_max(F, sign);
    }
    if (k == 0)
        return pack_zero(F, sign);
    if (!(k >> (F->p - 1))) /* subnormal (E is emin): exponent field 0 */
        return pack_zero(F, sign) | k;
    return pack_zero(F, sign) | ((uint64_t)(E + F->emax) << (F->p - 1)) | (k & mant_mask(F));
}

static uint64_t nan_result(const fpfmt *F, const unp *a, const unp *b, uint32_t *flags)
{
    if (a->cls == C_SNAN || (b && b->cls == C_SNAN))
        *flags |= SIM_FF_NV;
    return F->qnan;
}

static uint64_t invalid(const fpfmt *F, uint32_t *flags)
{
    *flags |= SIM_FF_NV;
    return F->qnan;
}

/* The exact sum's sign for a zero result from operands that are not both
 * zero of one sign (IEEE 754 6.3). */
static int zero_sum_sign(int rm)
{
    return rm == SIM_RM_RDN;
}

static xval finite_xval(const fpfmt *F, const unp *u)
{
    xval x = {u->sign, u->e - (F->p - 1), u->m};
    return x;
}

/* x + y, exact or jammed; each sig below 2^107 (a product at most).  The
 * result's sig is zero only when the two cancel exactly. */
static xval xadd(xval x, xval y)
{
    if (y.sig == 0)
        return x;
    if (x.sig == 0)
        return y;
    /* Leading bits at 125: at least 19 zero bits below either, so the
     * one-bit alignment shift of a near cancellation loses nothing, and
     * the larger operand is even, keeping a jammed difference odd. */
    int sx = clz128(x.sig) - 2, sy = clz128(y.sig) - 2;
    x.sig <<= sx;
    x.e -= sx;
    y.sig <<= sy;
    y.e -= sy;
    if (x.e < y.e || (x.e == y.e && x.sig < y.sig)) {
        xval t = x;
        x = y;
        y = t;
    }
    int32_t d = x.e - y.e;
    y.sig = shr_jam128(y.sig, d > 128 ? 128 : (int)d);
    xval r = {x.sign, x.e, x.sign == y.sign ? x.sig + y.sig : x.sig - y.sig};
    return r;
}

static uint64_t add_unp(const fpfmt *F, const unp *a, const unp *b, int rm, uint32_t *flags)
{
    if (is_nan(a) || is_nan(b))
        return nan_result(F, a, b, flags);
    if (a->cls == C_INF || b->cls == C_INF) {
        if (a->cls == C_INF && b->cls == C_INF && a->sign != b->sign)
            return invalid(F, flags);
        return pack_inf(F, a->cls == C_INF ? a->sign : b->sign);
    }
    if (a->cls == C_ZERO && b->cls == C_ZERO)
        return pack_zero(F, a->sign == b->sign ? a->sign : zero_sum_sign(rm));
    xval x = a->cls == C_ZERO ? (xval){0, 0, 0} : finite_xval(F, a);
    xval y = b->cls == C_ZERO ? (xval){0, 0, 0} : finite_xval(F, b);
    xval r = xadd(x, y);
    if (r.sig == 0)
        return pack_zero(F, zero_sum_sign(rm));
    return round_pack(F, r.sign, r.e, r.sig, rm, flags);
}

uint64_t sim_fp_add(sim_fp_fmt f, uint64_t a, uint64_t b, int rm, uint32_t *flags)
{
    const fpfmt *F = &formats[f];
    unp ua = unpack(F, a), ub = unpack(F, b);
    return add_unp(F, &ua, &ub, rm, flags);
}

uint64_t sim_fp_sub(sim_fp_fmt f, uint64_t a, uint64_t b, int rm, uint32_t *flags)
{
    /* Flipping a NaN's sign keeps it a NaN of the same kind. */
    return sim_fp_add(f, a, b ^ sign_bit(&formats[f]), rm, flags);
}

uint64_t sim_fp_mul(sim_fp_fmt f, uint64_t a, uint64_t b, int rm, uint32_t *flags)
{
    const fpfmt *F = &formats[f];
    unp ua = unpack(F, a), ub = unpack(F, b);
    int sign = ua.sign ^ ub.sign;
    if (is_nan(&ua) || is_nan(&ub))
        return nan_result(F, &ua, &ub, flags);
    if (ua.cls == C_INF || ub.cls == C_INF) {
        if (ua.cls == C_ZERO || ub.cls == C_ZERO)
            return invalid(F, flags);
        return pack_inf(F, sign);
    }
    if (ua.cls == C_ZERO || ub.cls == C_ZERO)
        return pack_zero(F, sign);
    return round_pack(F, sign, ua.e + ub.e - 2 * (F->p - 1), (u128)ua.m * ub.m, rm, flags);
}

uint64_t sim_fp_div(sim_fp_fmt f, uint64_t a, uint64_t b, int rm, uint32_t *flags)
{
    const fpfmt *F = &formats[f];
    unp ua = unpack(F, a), ub = unpack(F, b);
    int sign = ua.sign ^ ub.sign;
    if (is_nan(&ua) || is_nan(&ub))
        return nan_result(F, &ua, &ub, flags);
    if (ua.cls == C_INF) {
        if (ub.cls == C_INF)
            return invalid(F, flags);
        return pack_inf(F, sign);
    }
    if (ub.cls == C_INF)
        return pack_zero(F, sign);
    if (ub.cls == C_ZERO) {
        if (ua.cls == C_ZERO)
            return invalid(F, flags);
        *flags |= SIM_FF_DZ;
        return pack_inf(F, sign);
    }
    if (ua.cls == C_ZERO)
        return pack_zero(F, sign);
    /* A quotient of at least 70 bits, the remainder as the jam bit. */
    u128 num = (u128)ua.m << 70;
    u128 q = num / ub.m;
    bool rest = num % ub.m != 0;
    return round_pack(F, sign, ua.e - ub.e - 70, q | rest, rm, flags);
}

/* floor(sqrt(n)) for n < 2^108, with the host's double square root as
 * the first guess (within a few units of the answer however the host
 * rounds, since the guess only steers) and exact integer corrections:
 * the result is r with r^2 <= n < (r+1)^2 whatever the guess was. */
static uint64_t isqrt_floor(u128 n)
{
    uint64_t r = (uint64_t)__builtin_sqrt((double)n);
    while ((u128)r * r > n)
        r--;
    while ((u128)(r + 1) * (r + 1) <= n)
        r++;
    return r;
}

uint64_t sim_fp_sqrt(sim_fp_fmt f, uint64_t a, int rm, uint32_t *flags)
{
    const fpfmt *F = &formats[f];
    unp ua = unpack(F, a);
    if (is_nan(&ua))
        return nan_result(F, &ua, NULL, flags);
    if (ua.cls == C_ZERO) /* sqrt(-0) is -0 */
        return a;
    if (ua.sign)
        return invalid(F, flags);
    if (ua.cls == C_INF)
        return a;
    /* m * 2^x with x even, then m scaled by an even power 2^s (s = p - 1
     * rounded up to even: 52 for D, 24 for S, 10 for H) so that the root R =
     * floor(sqrt(m * 2^s)) has at least p bits (m < 2^(p+1), so the
     * radicand is below 2^106 for D). */
    int32_t x = ua.e - (F->p - 1);
    u128 m = ua.m;
    if (x & 1) {
        m <<= 1;
        x--;
    }
    int s = (F->p - 1 + 1) & ~1;
    u128 n = m << s;
    uint64_t r = isqrt_floor(n);
    /* The root as 4R + 0 (exact), + 1 (between R and R + 1/2) or + 3
     * (between R + 1/2 and R + 1; never exactly R + 1/2, the square of
     * which has a fractional part): two bits below R's last, the low one
     * sticky, which round_pack rounds right in every mode. */
    u128 rem = n - (u128)r * r;
    uint64_t sig = (uint64_t)r << 2;
    if (rem != 0)
        sig |= 4 * n > ((u128)2 * r + 1) * ((u128)2 * r + 1) ? 3 : 1;
    return round_pack(F, 0, x / 2 - s / 2 - 2, sig, rm, flags);
}

uint64_t sim_fp_fma(sim_fp_fmt f, uint64_t a, uint64_t b, uint64_t c, int rm,
                    uint32_t *flags)
{
    const fpfmt *F = &formats[f];
    unp ua = unpack(F, a), ub = unpack(F, b), uc = unpack(F, c);
    int psign = ua.sign ^ ub.sign;
    /* SoftFloat's order: NaN in a product operand first; then inf * 0,
     * invalid whatever c is (a quiet NaN included); then c. */
    if (is_nan(&ua) || is_nan(&ub)) {
        if (uc.cls == C_SNAN)
            *flags |= SIM_FF_NV;
        return nan_result(F, &ua, &ub, flags);
    }
    bool pinf = ua.cls == C_INF || ub.cls == C_INF;
    bool pzero = ua.cls == C_ZERO || ub.cls == C_ZERO;
    if (pinf && pzero)
        return invalid(F, flags);
    if (is_nan(&uc))
        return nan_result(F, &uc, NULL, flags);
    if (pinf) {
        if (uc.cls == C_INF && uc.sign != psign)
            return invalid(F, flags);
        return pack_inf(F, psign);
    }
    if (uc.cls == C_INF)
        return c;
    if (pzero) {
        if (uc.cls == C_ZERO)
            return pack_zero(F, uc.sign == psign ? psign : zero_sum_sign(rm));
        return c;
    }
    xval p = {psign, ua.e + ub.e - 2 * (F->p - 1), (u128)ua.m * ub.m};
    xval y = uc.cls == C_ZERO ? (xval){0, 0, 0} : finite_xval(F, &uc);
    xval r = xadd(p, y);
    if (r.sig == 0)
        return pack_zero(F, zero_sum_sign(rm));
    return round_pack(F, r.sign, r.e, r.sig, rm, flags);
}

/* Total order of non-NaN values as integers, +0 and -0 alike. */
static int64_t order_key(const fpfmt *F, uint64_t a)
{
    int64_t mag = (int64_t)(a & (sign_bit(F) - 1));
    return a & sign_bit(F) ? -mag : mag;
}

static uint64_t minmax(const fpfmt *F, uint64_t a, uint64_t b, bool want_max, uint32_t *flags)
{
    unp ua = unpack(F, a), ub = unpack(F, b);
    if (ua.cls == C_SNAN || ub.cls == C_SNAN)
        *flags |= SIM_FF_NV;
    if (is_nan(&ua) && is_nan(&ub))
        return F->qnan;
    if (is_nan(&ua))
        return b;
    if (is_nan(&ub))
        return a;
    int64_t ka = order_key(F, a), kb = order_key(F, b);
    if (ka == kb) /* equal, or +0 against -0: the sign decides */
        return want_max ? (ua.sign ? b : a) : (ua.sign ? a : b);
    return (ka > kb) == want_max ? a : b;
}

uint64_t sim_fp_min(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags)
{
    return minmax(&formats[f], a, b, false, flags);
}

uint64_t sim_fp_max(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags)
{
    return minmax(&formats[f], a, b, true, flags);
}

/* -1, 0, 1 for a < b, a == b, a > b; 2 for unordered, raising NV for any
 * NaN when signaling, for a signaling NaN only otherwise. */
static int compare(const fpfmt *F, uint64_t a, uint64_t b, bool signaling, uint32_t *flags)
{
    unp ua = unpack(F, a), ub = unpack(F, b);
    if (is_nan(&ua) || is_nan(&ub)) {
        if (signaling || ua.cls == C_SNAN || ub.cls == C_SNAN)
            *flags |= SIM_FF_NV;
        return 2;
    }
    int64_t ka = order_key(F, a), kb = order_key(F, b);
    return ka < kb ? -1 : ka > kb;
}

bool sim_fp_eq(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags)
{
    return compare(&formats[f], a, b, false, flags) == 0;
}

bool sim_fp_lt(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags)
{
    return compare(&formats[f], a, b, true, flags) == -1;
}

bool sim_fp_le(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags)
{
    int c = compare(&formats[f], a, b, true, flags);
    return c == -1 || c == 0;
}

uint32_t sim_fp_class(sim_fp_fmt f, uint64_t a)
{
    const fpfmt *F = &formats[f];
    unp u = unpack(F, a);
    switch (u.cls) {
    case C_SNAN:
        return 1u << 8;
    case C_QNAN:
        return 1u << 9;
    case C_INF:
        return u.sign ? 1u << 0 : 1u << 7;
    case C_ZERO:
        return u.sign ? 1u << 3 : 1u << 4;
    default: {
        bool subnormal = u.e < F->emin;
        return u.sign ? (subnormal ? 1u << 2 : 1u << 1) : (subnormal ? 1u << 5 : 1u << 6);
    }
    }
}

uint64_t sim_fp_convert(sim_fp_fmt to, sim_fp_fmt from, uint64_t a, int rm, uint32_t *flags)
{
    const fpfmt *T = &formats[to], *S = &formats[from];
    unp u = unpack(S, a);
    switch (u.cls) {
    case C_QNAN:
    case C_SNAN:
        return nan_result(T, &u, NULL, flags);
    case C_INF:
        return pack_inf(T, u.sign);
    case C_ZERO:
        return pack_zero(T, u.sign);
    default:
        return round_pack(T, u.sign, u.e - (S->p - 1), u.m, rm, flags);
    }
}

uint64_t sim_fp_to_int(sim_fp_fmt f, uint64_t a, bool is_signed, int width, int rm,
                       uint32_t *flags)
{
    const fpfmt *F = &formats[f];
    unp u = unpack(F, a);
    /* The bounds as magnitudes: the largest positive, the most negative. */
    uint64_t max = is_signed ? (1ull << (width - 1)) - 1 : ~0ull >> (64 - width);
    uint64_t min_mag = is_signed ? 1ull << (width - 1) : 0;
    uint64_t result;
    if (is_nan(&u)) {
        *flags |= SIM_FF_NV;
        result = max;
    } else if (u.cls == C_ZERO) {
        result = 0;
    } else {
        bool inexact = false, in_range;
        u128 mag;
        if (u.cls == C_INF || u.e >= 64) {
            in_range = false;
            mag = 0;
        } else {
            int32_t x = u.e - (F->p - 1);
            if (x >= 0)
                mag = (u128)u.m << x;
            else
                mag = round_shift(u.m, -x > 128 ? 128 : (int)-x, u.sign, rm, &inexact);
            in_range = mag <= (u.sign ? (u128)min_mag : (u128)max);
        }
        if (!in_range) {
            *flags |= SIM_FF_NV;
            result = u.sign ? 0 - min_mag : max;
        } else {
            if (inexact)
                *flags |= SIM_FF_NX;
            result = u.sign ? 0 - (uint64_t)mag : (uint64_t)mag;
        }
    }
    if (width < 64) /* sign-extended from bit width-1 */
        result = (uint64_t)((int64_t)(result << (64 - width)) >> (64 - width));
    return result;
}

uint64_t sim_fp_from_int(sim_fp_fmt f, uint64_t v, bool is_signed, int width, int rm,
                         uint32_t *flags)
{
    const fpfmt *F = &formats[f];
    if (width < 64) /* the low width bits, extended as the signedness says */
        v = is_signed ? (uint64_t)((int64_t)(v << (64 - width)) >> (64 - width))
                      : v & (~0ull >> (64 - width));
    int sign = is_signed && (int64_t)v < 0;
    uint64_t mag = sign ? 0 - v : v;
    if (mag == 0) /* +0 in every mode */
        return 0;
    return round_pack(F, sign, 0, mag, rm, flags);
}
