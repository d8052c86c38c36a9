/* Cross-check of sim_fpu's host fast path (device/sim/fpu/fpu_host.h) against
 * its software path (fpu_soft.c): random instructions, each run twice
 * through sim_fpu_run on identical harts, once with the fast path on and
 * once forced off, comparing the destination register's bits and fcsr.
 * Every operation the fast path has, both formats; operands random bit
 * patterns and, mostly, biased ones: zeros, subnormals, infinities, NaNs
 * (quiet, signaling, badly boxed singles), values near overflow and near
 * the underflow threshold, short significands (exact results and
 * halfway cases), near cancellation, integers at the conversion bounds.
 * A quarter of the f results go to the first source register: a path
 * that gave up on the host's answer after writing it would then differ.
 *
 * KMRUN_FPU_CROSSCHECK=N sets the number of instructions (default
 * 3,000,000, about a second natively); KMRUN_FPU_SEED the seed.  When the
 * start-up probe turned the fast path off (under valgrind, which does not
 * model MXCSR's flags, or on a host without the fast path) there is
 * nothing to compare: the test says so and runs 0 fast comparisons.
 *
 * Also here, because the fast path makes RNE the reference: the software
 * square root in all five rounding modes is consistent with the host's
 * correctly rounded RNE root and its inexact flag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpu_soft.h"
#include "sim_fpu.h"

enum { S = 0, D = 1 };
enum { RNE, RTZ, RDN, RUP, RMM, DYN = 7 };

#define OPFP(f5, fmt, rs2, rm)                                                        \
    (((uint32_t)(f5) << 27) | ((uint32_t)(fmt) << 25) | ((uint32_t)(rs2) << 20) |     \
     (11u << 15) | ((uint32_t)(rm) << 12) | (10u << 7) | 0x53u)
#define R4(op, fmt, rm)                                                               \
    ((13u << 27) | ((uint32_t)(fmt) << 25) | (12u << 20) | (11u << 15) |             \
     ((uint32_t)(rm) << 12) | (10u << 7) | (uint32_t)(op))

/* What an instruction reads: f11, f12 (two operands), f13 (fma), x11. */
enum { IN_F1, IN_F2, IN_F3, IN_X };

typedef struct op_case {
    const char *name;
    uint32_t insn; /* with rm RNE; DYN is tried too */
    int fmt;       /* the format of the f operands */
    int in;
    bool to_x;
    bool rtz_too; /* the fast path also takes RTZ (fcvt to signed integers) */
    bool no_rm;   /* funct3 is not a rounding mode (the compares): no DYN form */
} op_case;

#define BOTH(name, f5, rs2, in)                                                       \
    {name ".s", OPFP(f5, S, rs2, RNE), S, in, false, false, false},                   \
    {name ".d", OPFP(f5, D, rs2, RNE), D, in, false, false, false}
static const op_case ops[] = {
    BOTH("fadd", 0x00, 12, IN_F2),
    BOTH("fsub", 0x01, 12, IN_F2),
    BOTH("fmul", 0x02, 12, IN_F2),
    BOTH("fdiv", 0x03, 12, IN_F2),
    BOTH("fsqrt", 0x0b, 0, IN_F1),
    {"fmadd.s", R4(0x43, S, RNE), S, IN_F3, false, false, false},
    {"fmsub.s", R4(0x47, S, RNE), S, IN_F3, false, false, false},
    {"fnmsub.s", R4(0x4b, S, RNE), S, IN_F3, false, false, false},
    {"fnmadd.s", R4(0x4f, S, RNE), S, IN_F3, false, false, false},
    {"fmadd.d", R4(0x43, D, RNE), D, IN_F3, false, false, false},
    {"fmsub.d", R4(0x47, D, RNE), D, IN_F3, false, false, false},
    {"fnmsub.d", R4(0x4b, D, RNE), D, IN_F3, false, false, false},
    {"fnmadd.d", R4(0x4f, D, RNE), D, IN_F3, false, false, false},
    {"fcvt.s.d", OPFP(0x08, S, 1, RNE), D, IN_F1, false, false, false},
    {"fcvt.d.s", OPFP(0x08, D, 0, RNE), S, IN_F1, false, false, false},
    {"fcvt.w.s", OPFP(0x18, S, 0, RNE), S, IN_F1, true, true, false},
    {"fcvt.l.s", OPFP(0x18, S, 2, RNE), S, IN_F1, true, true, false},
    {"fcvt.w.d", OPFP(0x18, D, 0, RNE), D, IN_F1, true, true, false},
    {"fcvt.l.d", OPFP(0x18, D, 2, RNE), D, IN_F1, true, true, false},
    {"fcvt.s.w", OPFP(0x1a, S, 0, RNE), S, IN_X, false, false, false},
    {"fcvt.s.wu", OPFP(0x1a, S, 1, RNE), S, IN_X, false, false, false},
    {"fcvt.s.l", OPFP(0x1a, S, 2, RNE), S, IN_X, false, false, false},
    {"fcvt.d.w", OPFP(0x1a, D, 0, RNE), D, IN_X, false, false, false},
    {"fcvt.d.wu", OPFP(0x1a, D, 1, RNE), D, IN_X, false, false, false},
    {"fcvt.d.l", OPFP(0x1a, D, 2, RNE), D, IN_X, false, false, false},
    /* funct3 0 fle, 1 flt, 2 feq */
    {"fle.s", OPFP(0x14, S, 12, 0), S, IN_F2, true, false, true},
    {"flt.s", OPFP(0x14, S, 12, 1), S, IN_F2, true, false, true},
    {"feq.s", OPFP(0x14, S, 12, 2), S, IN_F2, true, false, true},
    {"fle.d", OPFP(0x14, D, 12, 0), D, IN_F2, true, false, true},
    {"flt.d", OPFP(0x14, D, 12, 1), D, IN_F2, true, false, true},
    {"feq.d", OPFP(0x14, D, 12, 2), D, IN_F2, true, false, true},
};
#define N_OPS (sizeof ops / sizeof ops[0])

static uint64_t rng_state;
static uint64_t rnd(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Formats' shapes. */
static const struct {
    int p, ebits, bias;
} fmts[2] = {{24, 8, 127}, {53, 11, 1023}};

static uint64_t make(int f, int sign, int exp_field, uint64_t frac)
{
    int m = fmts[f].p - 1;
    return ((uint64_t)sign << (m + fmts[f].ebits)) | ((uint64_t)exp_field << m) |
           (frac & ((1ull << m) - 1));
}

/* A significand field with few random bits at the top (exact products and
 * sums, ties), or all ones/zeros around a random point. */
static uint64_t frac_biased(int f)
{
    int m = fmts[f].p - 1;
    switch (rnd() % 6) {
    case 0:
        return 0;
    case 1: { /* few top bits */
        int keep = (int)(rnd() % (unsigned)(m / 2 + 1));
        return keep ? (rnd() >> (64 - keep)) << (m - keep) : 0;
    }
    case 2:
        return ((1ull << m) - 1) ^ (rnd() & 7); /* just below a power of two */
    case 3:
        return rnd() & 7; /* just above */
    default:
        return rnd();
    }
}

/* One operand of format f (a single in the low 32 bits, not boxed). */
static uint64_t operand(int f, int emid)
{
    int emax_field = (1 << fmts[f].ebits) - 1;
    int sign = (int)(rnd() & 1);
    switch (rnd() % 16) {
    case 0: /* any bits at all */
        return f == S ? (uint32_t)rnd() : rnd();
    case 1: /* zero, infinity */
        return make(f, sign, rnd() & 1 ? 0 : emax_field, 0);
    case 2: /* NaN, quiet or signaling */
        return make(f, sign, emax_field, (rnd() | 1) >> (rnd() % 64));
    case 3:
    case 4: /* subnormal */
        return make(f, sign, 0, frac_biased(f) | (rnd() & 1));
    case 5: /* near the underflow threshold */
        return make(f, sign, 1 + (int)(rnd() % 4), frac_biased(f));
    case 6: /* near overflow */
        return make(f, sign, emax_field - 1 - (int)(rnd() % 3), frac_biased(f));
    case 7: /* the max, the min normal */
        return rnd() & 1 ? make(f, sign, emax_field - 1, ~0ull) : make(f, sign, 1, 0);
    case 8:
    case 9:
    case 10: /* around emid (close to the other operands: cancellation, ties) */
        return make(f, sign, emid + (int)(rnd() % 8) - 4, frac_biased(f));
    case 11: /* around the halfway exponents of the underflow (products of
                two such land near the threshold) */
        return make(f, sign, fmts[f].bias / 2 + (int)(rnd() % 64) - 32, frac_biased(f));
    case 12: /* integers near the conversion bounds 2^31, 2^63 */
        return make(f, sign, fmts[f].bias + (rnd() & 1 ? 31 : 63) - (int)(rnd() % 2),
                    frac_biased(f));
    default: /* any finite value */
        return make(f, sign, 1 + (int)(rnd() % (unsigned)(emax_field - 1)), rnd());
    }
}

static uint64_t int_operand(void)
{
    switch (rnd() % 6) {
    case 0:
        return rnd();
    case 1: /* around 2^31, 2^32, 2^63, 2^64 (wrapping) */
        return ((1ull << (31 + rnd() % 33)) + (rnd() % 9) - 4) ^ (rnd() & 1 ? ~0ull : 0);
    case 2: /* few significant bits, then 2^p +- small: ties */
        return (rnd() >> (rnd() % 64)) << (rnd() % 40);
    case 3:
        return (1ull << (24 + rnd() % 36)) + (rnd() % 5) - 2;
    default:
        return (int64_t)(int32_t)rnd() >> (rnd() % 31);
    }
}

static uint64_t boxed(int f, uint64_t v)
{
    if (f == D)
        return v;
    /* now and then a badly boxed single */
    return rnd() % 64 ? 0xffffffff00000000ull | v : (rnd() << 32) | v;
}

static unsigned long long env_count(const char *name, unsigned long long dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtoull(s, NULL, 0) : dflt;
}

static void test_fast_equals_soft(void **state)
{
    (void)state;
    unsigned long long n = env_count("KMRUN_FPU_CROSSCHECK", 3000000);
    rng_state = env_count("KMRUN_FPU_SEED", 0x5eed);
    if (!sim_fpu_host_available()) {
        print_message("# fpu cross-check: the host fast path is off here (none for this host, or its "
                      "start-up probe failed, e.g. under valgrind): everything runs the "
                      "software path; 0 fast comparisons by design\n");
        return;
    }
    unsigned long long per_op[N_OPS] = {0}, failures = 0, raised[5] = {0};
    sim_fpu_insn fi[N_OPS][2];
    for (size_t k = 0; k < N_OPS; k++) {
        assert_int_equal(sim_fpu_decode(ops[k].insn, &fi[k][0]), 0);
        /* the same with rm DYN (frm is RNE or RTZ below) */
        assert_int_equal(sim_fpu_decode(ops[k].insn | (ops[k].no_rm ? 0 : 7u << 12), &fi[k][1]),
                         0);
    }
    for (unsigned long long i = 0; i < n; i++) {
        size_t k = rnd() % N_OPS;
        const op_case *o = &ops[k];
        sim_hart fast, soft;
        memset(&fast, 0, sizeof fast);
        int emid = 1 + (int)(rnd() % (unsigned)((1 << fmts[o->fmt].ebits) - 2));
        fast.f[11] = boxed(o->fmt, operand(o->fmt, emid));
        fast.f[12] = boxed(o->fmt, operand(o->fmt, emid));
        if (o->in == IN_F3 && rnd() % 4 == 0) {
            /* c near the product a*b: cancellation in the fused sum */
            uint32_t fl = 0;
            uint64_t p = sim_fp_mul(o->fmt, fast.f[11] & (o->fmt == S ? 0xffffffffull : ~0ull),
                                    fast.f[12] & (o->fmt == S ? 0xffffffffull : ~0ull), RNE,
                                    &fl);
            fast.f[13] = boxed(o->fmt, (p ^ (rnd() & 3)) ^ (rnd() & 1 ? 0 : 
                                  (o->fmt == S ? 1ull << 31 : 1ull << 63)));
        } else {
            fast.f[13] = boxed(o->fmt, operand(o->fmt, emid));
        }
        fast.x[11] = int_operand();
        int which = (int)(rnd() & 1);
        int frm = o->rtz_too && rnd() % 2 ? RTZ : RNE;
        if (which == 0 && frm == RTZ) /* the static RTZ form */
            which = 1;
        /* fflags before: NX half the time (the fast path then skips reading
         * the host's flags for results that can carry no other), now and
         * then any */
        uint32_t before = rnd() & 1 ? 1 : 0;
        if (rnd() % 8 == 0)
            before |= (uint32_t)rnd() & 31;
        fast.fcsr = (uint32_t)frm << 5 | before;
        /* now and then the destination is the first source (f10 is then
         * untouched): a path that gives up on the host's result must not
         * have written it, as the one that takes over reads the sources */
        sim_fpu_insn run = fi[k][which];
        if (!o->to_x && rnd() % 4 == 0)
            run.rd = run.rs1;
        soft = fast;
        sim_fpu_set_host(true);
        int rc1 = sim_fpu_run(&fast, &run);
        sim_fpu_set_host(false);
        int rc2 = sim_fpu_run(&soft, &run);
        per_op[k]++;
        for (int bit = 0; bit < 5; bit++)
            raised[bit] += (soft.fcsr & ~before & (1u << bit)) != 0;
        if (rc1 || rc2 || memcmp(fast.f, soft.f, sizeof fast.f) ||
            memcmp(fast.x, soft.x, sizeof fast.x) || fast.fcsr != soft.fcsr) {
            if (failures++ < 20)
                print_error("%s frm %d: f11 %016" PRIx64 " f12 %016" PRIx64 " f13 %016" PRIx64
                            " x11 %016" PRIx64 ": fast %016" PRIx64 "/%016" PRIx64
                            " fcsr %02x, soft %016" PRIx64 "/%016" PRIx64 " fcsr %02x\n",
                            o->name, frm, fast.f[11], fast.f[12], fast.f[13], fast.x[11],
                            fast.f[10], fast.x[10], fast.fcsr, soft.f[10], soft.x[10],
                            soft.fcsr);
        }
    }
    sim_fpu_set_host(true);
    print_message("# fpu cross-check: %llu instructions, fast path against soft path, "
                  "%llu mismatches (seed %#llx)\n",
                  n, failures, env_count("KMRUN_FPU_SEED", 0x5eed));
    print_message("# newly raised: NX %llu, UF %llu, OF %llu, DZ %llu, NV %llu\n", raised[0],
                  raised[1], raised[2], raised[3], raised[4]);
    for (size_t k = 0; k < N_OPS; k++)
        if (per_op[k] == 0 && n >= 1000)
            print_error("%s never drawn\n", ops[k].name);
    assert_true(failures == 0);
}

/* fsqrt in every rounding mode against the host's RNE root: when the host
 * says exact, every mode gives that root and no flag; otherwise RTZ = RDN
 * = the root below, RUP the next one up, RNE the host's (one of the two)
 * and RMM the same (a square root is never a tie), all with NX alone. */
static void test_soft_sqrt_modes(void **state)
{
    (void)state;
    if (!sim_fpu_host_available()) {
        print_message("# fpu sqrt check: the host fast path is off: 0 comparisons\n");
        return;
    }
    unsigned long long n = env_count("KMRUN_FPU_CROSSCHECK", 3000000) / 10;
    rng_state = env_count("KMRUN_FPU_SEED", 0x5eed) ^ 0xabcdef;
    unsigned long long failures = 0;
    sim_fpu_insn sq[2];
    assert_int_equal(sim_fpu_decode(OPFP(0x0b, S, 0, RNE), &sq[S]), 0);
    assert_int_equal(sim_fpu_decode(OPFP(0x0b, D, 0, RNE), &sq[D]), 0);
    for (unsigned long long i = 0; i < n; i++) {
        int f = (int)(rnd() & 1);
        uint64_t a = operand(f, fmts[f].bias + (int)(rnd() % 64) - 32) &
                     (f == S ? 0x7fffffffull : 0x7fffffffffffffffull);
        if ((a >> (fmts[f].p - 1)) == (uint64_t)(1 << fmts[f].ebits) - 1)
            continue; /* inf, NaN */
        sim_hart h;
        memset(&h, 0, sizeof h);
        h.f[11] = f == S ? 0xffffffff00000000ull | a : a;
        sim_fpu_set_host(true);
        assert_int_equal(sim_fpu_run(&h, &sq[f]), 0);
        uint64_t host = f == S ? (uint32_t)h.f[10] : h.f[10];
        bool exact = h.fcsr == 0;
        uint64_t got[5];
        uint32_t fl[5] = {0};
        for (int rm = 0; rm < 5; rm++)
            got[rm] = sim_fp_sqrt(f, a, rm, &fl[rm]);
        bool ok;
        if (exact)
            ok = got[0] == host && got[1] == host && got[2] == host && got[3] == host &&
                 got[4] == host && !(fl[0] | fl[1] | fl[2] | fl[3] | fl[4]);
        else
            ok = got[RNE] == host && got[RMM] == host && got[RTZ] == got[RDN] &&
                 got[RUP] == got[RDN] + 1 && (host == got[RDN] || host == got[RUP]) &&
                 fl[0] == 1 && fl[1] == 1 && fl[2] == 1 && fl[3] == 1 && fl[4] == 1;
        if (!ok && failures++ < 20)
            print_error("fsqrt.%c %016" PRIx64 ": host %016" PRIx64 " (%s), soft rne %" PRIx64
                        " rtz %" PRIx64 " rdn %" PRIx64 " rup %" PRIx64 " rmm %" PRIx64 "\n",
                        f == S ? 's' : 'd', a, host, exact ? "exact" : "inexact", got[0],
                        got[1], got[2], got[3], got[4]);
    }
    print_message("# fpu sqrt check: %llu square roots in five modes, %llu mismatches\n", n,
                  failures);
    assert_true(failures == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_equals_soft),
        cmocka_unit_test(test_soft_sqrt_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
