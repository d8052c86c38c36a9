/* The FPU's translated code (device/sim/fpu/fpu_jit.c) against the
 * interpreter: each program runs on two harts, one with KMRUN_JIT=off
 * (the hot loop's handlers and sim_fpu_run, the reference) and one whose
 * blocks are translated, and they must end with the same f and x
 * registers, fcsr, mstatus, cycles and instruction count.  Besides that
 * comparison, the cases with known answers are checked for their bits:
 * NaN-boxing (a badly boxed single reads as the canonical NaN), the
 * canonical NaN of an invalid operation, each of the five fflags raised
 * (with NX clear and with it already set, the fast path's condition), and
 * each rounding mode, static and dynamic, where the modes differ.  Then
 * random programs: F and D arithmetic, fused multiply-adds, sign
 * injection, compares, moves, conversions, with static and dynamic
 * rounding modes, frm changed and fflags cleared along the way, on
 * registers seeded with special values (+-0, subnormals, 2^emin and its
 * neighbours, the largest finite, infinities, quiet and signaling NaNs,
 * badly boxed singles, halfway cases) and random bits.
 *
 * KMRUN_FPU_JIT_PROGRAMS=N sets the number of random programs (default
 * 400 of 200 instructions each); KMRUN_FPU_SEED the seed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"
#include "hart_rig.h"
#include "sim_fpu.h"
#include "sim_hart.h"

enum { S = 0, D = 1 };
enum { RNE, RTZ, RDN, RUP, RMM, DYN = 7 };
enum { FF_NX = 1, FF_UF = 2, FF_OF = 4, FF_DZ = 8, FF_NV = 16 };
enum { F_ADD = 0, F_SUB = 1, F_MUL = 2, F_DIV = 3, F_SGNJ = 4, F_MINMAX = 5, F_CVT_FF = 8,
       F_SQRT = 11, F_CMP = 20, F_CVT_I = 24, F_CVT_F = 26, F_MV_X = 28, F_MV_F = 30 };
enum { OP_FMADD = 0x43, OP_FMSUB = 0x47, OP_FNMSUB = 0x4b, OP_FNMADD = 0x4f };

#define MAX_CODE 4096u /* instructions */
#define TRAP_AT (RIG_CODE_SIZE - 4)

static uint32_t opfp(unsigned f5, unsigned fmt, unsigned rd, unsigned rs1, unsigned rs2, unsigned rm)
{
    return (uint32_t)f5 << 27 | (uint32_t)fmt << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 |
           (uint32_t)rm << 12 | (uint32_t)rd << 7 | 0x53u;
}
static uint32_t r4(unsigned op, unsigned fmt, unsigned rd, unsigned rs1, unsigned rs2, unsigned rs3,
                   unsigned rm)
{
    return (uint32_t)rs3 << 27 | (uint32_t)fmt << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 |
           (uint32_t)rm << 12 | (uint32_t)rd << 7 | op;
}
/* csrrwi / csrrsi / csrrci x0, csr, uimm (funct3 5, 6, 7) */
static uint32_t csri(unsigned f3, unsigned csr, unsigned uimm)
{
    return (uint32_t)csr << 20 | (uint32_t)uimm << 15 | (uint32_t)f3 << 12 | 0x73u;
}
#define CSR_FFLAGS 1u
#define CSR_FRM 2u
#define WFI 0x10500073u
#define BEQ_NEXT 0x00000263u /* beq x0, x0, .+4 */

/* A hart's starting state and its program. */
typedef struct prog {
    uint32_t code[MAX_CODE];
    unsigned n;
    uint64_t f[32], x[32];
    uint32_t fcsr;
    bool dirty; /* mstatus.FS Dirty from the start, else Initial */
} prog;

static void emit(prog *p, uint32_t insn)
{
    assert_true(p->n < MAX_CODE - 1);
    p->code[p->n++] = insn;
}

/* Runs p on a fresh rig, translated or not; the caller frees it. */
static rig *run(const prog *p, bool translated)
{
    if (translated)
        unsetenv("KMRUN_JIT");
    else
        setenv("KMRUN_JIT", "off", 1);
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    memcpy(r->code, p->code, p->n * 4);
    uint32_t wfi = WFI;
    memcpy(r->code + p->n * 4, &wfi, 4);
    memcpy(r->code + TRAP_AT, &wfi, 4);
    rig_init_mem(r, 64, false);
    sim_hart *h = &r->h;
    assert_int_equal(sim_hart_init(h, &r->mem, 0, RIG_CODE_BASE, RIG_CODE_BASE, RIG_CODE_SIZE), 0);
    h->mtvec = RIG_CODE_BASE + TRAP_AT;
#if defined(__x86_64__) && defined(__linux__)
    assert_true(translated == (h->icache->jit != NULL));
#endif
    memcpy(h->f, p->f, sizeof h->f);
    memcpy(h->x, p->x, sizeof h->x);
    h->x[0] = 0;
    h->fcsr = p->fcsr;
    /* FS Initial: the first FP instruction makes it Dirty */
    h->mstatus = (h->mstatus & ~(uint64_t)SIM_MSTATUS_FS) |
                 (p->dirty ? SIM_MSTATUS_FS : SIM_MSTATUS_FS & (SIM_MSTATUS_FS >> 1));
    assert_int_equal(sim_hart_run(h, 100000000), SIM_HART_WFI);
    unsetenv("KMRUN_JIT");
    return r;
}

static void free_rig(rig *r)
{
    sim_hart_free(&r->h);
    free(r);
}

/* p both ways: the same state at the end; returns the translated rig. */
static rig *both(const prog *p, const char *what)
{
    rig *ref = run(p, false), *t = run(p, true);
    const sim_hart *a = &ref->h, *b = &t->h;
    bool same = memcmp(a->f, b->f, sizeof a->f) == 0 && memcmp(a->x, b->x, sizeof a->x) == 0 &&
                a->fcsr == b->fcsr && a->mstatus == b->mstatus && a->cycle == b->cycle &&
                a->instret == b->instret && a->pc == b->pc && a->trapped == b->trapped;
    if (!same) {
        fprintf(stderr, "%s: translated differs: fcsr %#x/%#x cycle %" PRIu64 "/%" PRIu64
                        " instret %" PRIu64 "/%" PRIu64 " pc %#" PRIx64 "/%#" PRIx64 "\n",
                what, a->fcsr, b->fcsr, a->cycle, b->cycle, a->instret, b->instret, a->pc, b->pc);
        for (unsigned i = 0; i < 32; i++)
            if (a->f[i] != b->f[i] || a->x[i] != b->x[i])
                fprintf(stderr, "  f%u %016" PRIx64 "/%016" PRIx64 "  x%u %016" PRIx64
                                "/%016" PRIx64 "\n",
                        i, a->f[i], b->f[i], i, a->x[i], b->x[i]);
        for (unsigned i = 0; i < 12 && i < MAX_CODE && p->code[i]; i++)
            fprintf(stderr, "  %08x\n", p->code[i]);
    }
    free_rig(ref);
    assert_true(same);
    return t;
}

#define ONE_D 0x3ff0000000000000ull
#define THREE_D 0x4008000000000000ull
#define INF_D 0x7ff0000000000000ull
#define MAX_D 0x7fefffffffffffffull
#define MIN_D 0x0010000000000000ull
#define QNAN_D 0x7ff8000000000000ull
#define ONE_S 0x3f800000u
#define THREE_S 0x40400000u
#define BOX(v) (0xffffffff00000000ull | (uint32_t)(v))
#define SGN_BIT_D 0x8000000000000000ull

/* One instruction on f1, f2, f3 (x1 for the moves) with fcsr `fcsr`:
 * both ways alike; *out the destination f4 (or x4), *flags fflags. */
static void one(uint32_t insn, uint64_t a, uint64_t b, uint64_t c, uint32_t fcsr, uint64_t *out,
                uint32_t *flags)
{
    prog *p = calloc(1, sizeof *p);
    assert_non_null(p);
    /* three times: the block is translated on its first entry, and the
     * third's operands are what the first left (f4 written is not read) */
    for (unsigned k = 0; k < 3; k++)
        emit(p, insn);
    p->f[1] = a;
    p->f[2] = b;
    p->f[3] = c;
    p->x[1] = a;
    p->fcsr = fcsr;
    char what[64];
    snprintf(what, sizeof what, "insn %08x", insn);
    rig *r = both(p, what);
    *out = (insn & 0x7f) == 0x53 && ((insn >> 27) == F_CMP || (insn >> 27) == F_MV_X ||
                                     (insn >> 27) == F_CVT_I)
               ? r->h.x[4]
               : r->h.f[4];
    *flags = r->h.fcsr & 31;
    free_rig(r);
    free(p);
}

/* A single whose box is bad reads as the canonical NaN; results are boxed. */
static void nan_boxing(void **state)
{
    (void)state;
    uint64_t r;
    uint32_t fl;
    one(opfp(F_ADD, S, 4, 1, 2, DYN), BOX(ONE_S), BOX(ONE_S), 0, FF_NX, &r, &fl);
    assert_int_equal(r, BOX(0x40000000u));
    assert_int_equal(fl, FF_NX);
    one(opfp(F_ADD, S, 4, 1, 2, DYN), ONE_S, BOX(ONE_S), 0, FF_NX, &r, &fl); /* upper half 0 */
    assert_int_equal(r, BOX(0x7fc00000u));
    assert_int_equal(fl, FF_NX);
    one(opfp(F_MUL, S, 4, 1, 2, RNE), BOX(THREE_S), 0x7fffffff40400000ull, 0, FF_NX, &r, &fl);
    assert_int_equal(r, BOX(0x7fc00000u));
    one(r4(OP_FMADD, S, 4, 1, 2, 3, DYN), BOX(THREE_S), BOX(THREE_S), THREE_S, FF_NX, &r, &fl);
    assert_int_equal(r, BOX(0x7fc00000u));
    one(opfp(F_SQRT, S, 4, 1, 0, DYN), 0x3f80000000000000ull, 0, 0, FF_NX, &r, &fl);
    assert_int_equal(r, BOX(0x7fc00000u));
    /* sign injection of a bad box: the canonical NaN's bits, signed */
    one(opfp(F_SGNJ, S, 4, 1, 2, 1), ONE_S, BOX(ONE_S), 0, 0, &r, &fl);
    assert_int_equal(r, BOX(0xffc00000u));
    one(opfp(F_SGNJ, S, 4, 1, 2, 2), BOX(ONE_S), BOX(0x80000000u), 0, 0, &r, &fl);
    assert_int_equal(r, BOX(0xbf800000u));
    /* a compare with a bad box: a quiet NaN, feq 0 without a flag */
    one(opfp(F_CMP, S, 4, 1, 2, 2), BOX(ONE_S), ONE_S, 0, 0, &r, &fl);
    assert_int_equal(r, 0);
    assert_int_equal(fl, 0);
    one(opfp(F_CMP, S, 4, 1, 2, 2), BOX(ONE_S), BOX(ONE_S), 0, 0, &r, &fl);
    assert_int_equal(r, 1);
    /* moves: fmv.w.x boxes, fmv.x.w sign-extends the raw low half */
    one(opfp(F_MV_F, S, 4, 1, 0, 0), 0x12345678c0000000ull, 0, 0, 0, &r, &fl);
    assert_int_equal(r, BOX(0xc0000000u));
    one(opfp(F_MV_X, S, 4, 1, 0, 0), 0x12345678c0000000ull, 0, 0, 0, &r, &fl);
    assert_int_equal(r, 0xffffffffc0000000ull);
    /* fcvt.s.d boxes its result */
    one(opfp(F_CVT_FF, S, 4, 1, 1, DYN), THREE_D, 0, 0, FF_NX, &r, &fl);
    assert_int_equal(r, BOX(THREE_S));
}

/* Every NaN result is the canonical NaN, whatever the host makes. */
static void canonical_nan(void **state)
{
    (void)state;
    uint64_t r;
    uint32_t fl;
    for (uint32_t f0 = 0; f0 <= FF_NX; f0 += FF_NX) {
        one(opfp(F_SUB, D, 4, 1, 2, DYN), INF_D, INF_D, 0, f0, &r, &fl);
        assert_int_equal(r, QNAN_D);
        assert_int_equal(fl, f0 | FF_NV);
        one(opfp(F_MUL, D, 4, 1, 2, DYN), INF_D, 0, 0, f0, &r, &fl);
        assert_int_equal(r, QNAN_D);
        one(opfp(F_SQRT, D, 4, 1, 0, DYN), 0xbff0000000000000ull, 0, 0, f0, &r, &fl);
        assert_int_equal(r, QNAN_D);
        assert_int_equal(fl, f0 | FF_NV);
        /* a NaN operand's payload is not kept */
        one(opfp(F_ADD, D, 4, 1, 2, DYN), 0xfff8000000000123ull, ONE_D, 0, f0, &r, &fl);
        assert_int_equal(r, QNAN_D);
        assert_int_equal(fl, f0);
        one(opfp(F_ADD, D, 4, 1, 2, DYN), 0x7ff0000000000001ull, ONE_D, 0, f0, &r, &fl);
        assert_int_equal(r, QNAN_D);
        assert_int_equal(fl, f0 | FF_NV);
        one(opfp(F_DIV, S, 4, 1, 2, DYN), BOX(0), BOX(0), 0, f0, &r, &fl);
        assert_int_equal(r, BOX(0x7fc00000u));
        assert_int_equal(fl, f0 | FF_NV);
        one(r4(OP_FNMADD, D, 4, 1, 2, 3, DYN), INF_D, 0, ONE_D, f0, &r, &fl);
        assert_int_equal(r, QNAN_D);
        assert_int_equal(fl, f0 | FF_NV);
        one(opfp(F_CVT_FF, S, 4, 1, 1, DYN), 0xfff0000000000001ull, 0, 0, f0, &r, &fl);
        assert_int_equal(r, BOX(0x7fc00000u));
        assert_int_equal(fl, f0 | FF_NV);
    }
}

/* Each flag, raised from clear fflags and with NX already set (the
 * translated code's fast case), as the interpreter raises it. */
static void each_fflag(void **state)
{
    (void)state;
    const struct {
        uint32_t insn;
        uint64_t a, b;
        uint64_t want;
        uint32_t flags;
    } t[] = {
        {opfp(F_DIV, D, 4, 1, 2, DYN), ONE_D, THREE_D, 0x3fd5555555555555ull, FF_NX},
        {opfp(F_DIV, D, 4, 1, 2, DYN), ONE_D, 0, INF_D, FF_DZ},
        {opfp(F_MUL, D, 4, 1, 2, DYN), MAX_D, THREE_D, INF_D, FF_OF | FF_NX},
        {opfp(F_ADD, D, 4, 1, 2, DYN), MAX_D, MAX_D, INF_D, FF_OF | FF_NX},
        {opfp(F_MUL, D, 4, 1, 2, DYN), MIN_D, 0x3fd5555555555555ull, 0x0005555555555555ull,
         FF_UF | FF_NX},
        /* tininess after rounding: just below 2^emin rounding up to it is UF */
        {opfp(F_MUL, D, 4, 1, 2, DYN), 0x001fffffffffffffull, 0x3fe0000000000000ull, MIN_D,
         FF_UF | FF_NX},
        /* exact subnormal: no flag */
        {opfp(F_MUL, D, 4, 1, 2, DYN), MIN_D, 0x3fe0000000000000ull, 0x0008000000000000ull, 0},
        {opfp(F_SUB, D, 4, 1, 2, DYN), INF_D, INF_D, QNAN_D, FF_NV},
        {opfp(F_CMP, D, 4, 1, 2, 1), QNAN_D, ONE_D, 0, FF_NV}, /* flt of a quiet NaN */
        {opfp(F_CMP, D, 4, 1, 2, 2), QNAN_D, ONE_D, 0, 0},     /* feq: no flag */
        {opfp(F_CMP, D, 4, 1, 2, 2), 0x7ff0000000000001ull, ONE_D, 0, FF_NV},
        {opfp(F_CMP, D, 4, 1, 2, 0), 0x8000000000000000ull, 0, 1, 0}, /* -0 <= +0 */
        {opfp(F_DIV, S, 4, 1, 2, DYN), BOX(ONE_S), BOX(THREE_S), BOX(0x3eaaaaabu), FF_NX},
        {opfp(F_DIV, S, 4, 1, 2, DYN), BOX(ONE_S), BOX(0), BOX(0x7f800000u), FF_DZ},
        {opfp(F_MUL, S, 4, 1, 2, DYN), BOX(0x7f7fffffu), BOX(THREE_S), BOX(0x7f800000u),
         FF_OF | FF_NX},
        {opfp(F_MUL, S, 4, 1, 2, DYN), BOX(0x00800000u), BOX(0x3eaaaaabu), BOX(0x002aaaabu),
         FF_UF | FF_NX},
        {opfp(F_CVT_FF, S, 4, 1, 1, DYN), MAX_D, 0, BOX(0x7f800000u), FF_OF | FF_NX},
        {opfp(F_CVT_FF, S, 4, 1, 1, DYN), MIN_D, 0, BOX(0), FF_UF | FF_NX},
        {r4(OP_FMADD, D, 4, 1, 2, 3, DYN), MAX_D, THREE_D, INF_D, FF_OF | FF_NX},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        for (uint32_t f0 = 0; f0 <= FF_NX; f0 += FF_NX) {
            uint64_t r;
            uint32_t fl;
            one(t[i].insn, t[i].a, t[i].b, 0, f0, &r, &fl);
            if (r != t[i].want || fl != (t[i].flags | f0))
                fprintf(stderr, "case %zu (fflags %#x before): %016" PRIx64 " flags %#x\n", i, f0, r,
                        fl);
            assert_int_equal(r, t[i].want);
            assert_int_equal(fl, t[i].flags | f0);
        }
}

/* Each rounding mode, in the rm field and through frm: +-1/3 and a
 * halfway case (1 + 2^-53 in D: RNE to even, RMM away). */
static void each_rounding_mode(void **state)
{
    (void)state;
    static const uint64_t third[5] = {0x3fd5555555555555ull, 0x3fd5555555555555ull,
                                      0x3fd5555555555555ull, 0x3fd5555555555556ull,
                                      0x3fd5555555555555ull};
    static const uint64_t mthird[5] = {0xbfd5555555555555ull, 0xbfd5555555555555ull,
                                       0xbfd5555555555556ull, 0xbfd5555555555555ull,
                                       0xbfd5555555555555ull};
    static const uint64_t half[5] = {ONE_D, ONE_D, ONE_D, ONE_D + 1, ONE_D + 1};
    static const uint64_t third_s[5] = {0x3eaaaaabu, 0x3eaaaaaau, 0x3eaaaaaau, 0x3eaaaaabu,
                                        0x3eaaaaabu};
    for (unsigned rm = RNE; rm <= RMM; rm++)
        for (unsigned dyn = 0; dyn < 2; dyn++)
            for (uint32_t f0 = 0; f0 <= FF_NX; f0 += FF_NX) {
                unsigned field = dyn ? DYN : rm;
                uint32_t fcsr = (dyn ? rm << 5 : (rm ^ 1) << 5) | f0; /* frm differs when static */
                uint64_t r;
                uint32_t fl;
                one(opfp(F_DIV, D, 4, 1, 2, field), ONE_D, THREE_D, 0, fcsr, &r, &fl);
                assert_int_equal(r, third[rm]);
                assert_int_equal(fl, f0 | FF_NX);
                one(opfp(F_DIV, D, 4, 1, 2, field), 0xbff0000000000000ull, THREE_D, 0, fcsr, &r,
                    &fl);
                assert_int_equal(r, mthird[rm]);
                /* 1 + 2^-53 exactly halfway between 1 and 1 + 2^-52 */
                one(opfp(F_ADD, D, 4, 1, 2, field), ONE_D, 0x3ca0000000000000ull, 0, fcsr, &r, &fl);
                assert_int_equal(r, half[rm]);
                one(r4(OP_FMADD, D, 4, 1, 2, 3, field), ONE_D, ONE_D, 0x3ca0000000000000ull, fcsr,
                    &r, &fl);
                assert_int_equal(r, half[rm]);
                one(opfp(F_DIV, S, 4, 1, 2, field), BOX(ONE_S), BOX(THREE_S), 0, fcsr, &r, &fl);
                assert_int_equal(r, BOX(third_s[rm]));
                one(opfp(F_SQRT, D, 4, 1, 0, field), 0x4000000000000000ull, 0, 0, fcsr, &r, &fl);
                assert_int_equal(r, rm == RUP ? 0x3ff6a09e667f3bcdull : 0x3ff6a09e667f3bccull +
                                                     (rm == RNE || rm == RMM));
            }
    /* a reserved frm with a dynamic rm: illegal, the trap stub's wfi */
    prog *p = calloc(1, sizeof *p);
    assert_non_null(p);
    emit(p, opfp(F_ADD, D, 4, 1, 2, DYN));
    p->fcsr = 5u << 5 | FF_NX;
    rig *r = both(p, "reserved frm");
    assert_true(r->h.trapped);
    assert_int_equal(r->h.trap_cause, 2); /* illegal instruction */
    assert_int_equal(r->h.f[4], 0);
    free_rig(r);
    free(p);
}

/* The arithmetic's common case (RNE, NX set, a normal result), every
 * operation of both formats, with its value known. */
static void common_case(void **state)
{
    (void)state;
    const struct {
        uint32_t insn;
        uint64_t want_d;
        uint32_t want_s;
    } t[] = {
        /* a = 1.5, b = 3, c = 0.25 */
        {opfp(F_ADD, 0, 4, 1, 2, DYN), 0x4012000000000000ull, 0x40900000u},   /* 4.5 */
        {opfp(F_SUB, 0, 4, 1, 2, RNE), 0xbff8000000000000ull, 0xbfc00000u},   /* -1.5 */
        {opfp(F_MUL, 0, 4, 1, 2, DYN), 0x4012000000000000ull, 0x40900000u},   /* 4.5 */
        {opfp(F_DIV, 0, 4, 1, 2, DYN), 0x3fe0000000000000ull, 0x3f000000u},   /* 0.5 */
        {opfp(F_SQRT, 0, 4, 3, 0, DYN), 0x3fe0000000000000ull, 0x3f000000u},  /* 0.5 */
        {r4(OP_FMADD, 0, 4, 1, 2, 3, DYN), 0x4013000000000000ull, 0x40980000u}, /* 4.75 */
        {r4(OP_FMSUB, 0, 4, 1, 2, 3, DYN), 0x4011000000000000ull, 0x40880000u}, /* 4.25 */
        {r4(OP_FNMSUB, 0, 4, 1, 2, 3, DYN), 0xc011000000000000ull, 0xc0880000u}, /* -4.25 */
        {r4(OP_FNMADD, 0, 4, 1, 2, 3, RNE), 0xc013000000000000ull, 0xc0980000u}, /* -4.75 */
        {opfp(F_SGNJ, 0, 4, 1, 2, 1), 0xbff8000000000000ull, 0xbfc00000u},  /* fsgnjn */
        {opfp(F_SGNJ, 0, 4, 1, 1, 1), 0xbff8000000000000ull, 0xbfc00000u},  /* fneg */
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        for (unsigned fmt = S; fmt <= D; fmt++) {
            uint64_t r;
            uint32_t fl;
            if (fmt == S)
                one(t[i].insn, BOX(0x3fc00000u), BOX(THREE_S), BOX(0x3e800000u), FF_NX, &r, &fl);
            else
                one(t[i].insn | 1u << 25, 0x3ff8000000000000ull, THREE_D, 0x3fd0000000000000ull,
                    FF_NX, &r, &fl);
            assert_int_equal(r, fmt == S ? BOX(t[i].want_s) : t[i].want_d);
            assert_int_equal(fl, FF_NX);
        }
}

/* The conversions the translated code has: to signed integers in RNE and
 * RTZ (in range, out of range, NaN, the genuine most negative value), the
 * exact ones to D; with NX clear and set. */
static void conversions(void **state)
{
    (void)state;
    const struct {
        uint32_t insn;
        uint64_t a;
        uint64_t want;
        uint32_t flags;
    } t[] = {
        {opfp(F_CVT_I, D, 4, 1, 0, RTZ), 0x4005ccccccccccccull, 2, FF_NX},           /* 2.7 */
        {opfp(F_CVT_I, D, 4, 1, 0, RNE), 0x4005ccccccccccccull, 3, FF_NX},
        {opfp(F_CVT_I, D, 4, 1, 0, DYN), 0xc004000000000000ull, (uint64_t)-2, FF_NX}, /* -2.5 */
        {opfp(F_CVT_I, D, 4, 1, 0, RTZ), 0xc004000000000000ull, (uint64_t)-2, FF_NX},
        {opfp(F_CVT_I, D, 4, 1, 0, RTZ), THREE_D, 3, 0},
        {opfp(F_CVT_I, D, 4, 1, 0, RTZ), 0x41e6800000000000ull, 0x7fffffff, FF_NV}, /* 3.02e9 */
        {opfp(F_CVT_I, D, 4, 1, 0, RTZ), 0xc1e0000000000000ull, 0xffffffff80000000ull, 0},
        {opfp(F_CVT_I, D, 4, 1, 0, RNE), QNAN_D, 0x7fffffff, FF_NV},
        {opfp(F_CVT_I, D, 4, 1, 2, RTZ), 0x41e6800000000000ull, 3019898880ull, 0}, /* .l */
        {opfp(F_CVT_I, D, 4, 1, 2, RTZ), 0xc3e0000000000000ull, 0x8000000000000000ull, 0},
        {opfp(F_CVT_I, D, 4, 1, 2, RNE), INF_D, 0x7fffffffffffffffull, FF_NV},
        {opfp(F_CVT_I, S, 4, 1, 0, RTZ), BOX(0xc0300000u), (uint64_t)-2, FF_NX}, /* -2.75 */
        {opfp(F_CVT_I, S, 4, 1, 2, DYN), BOX(0x40300000u), 3, FF_NX},
        {opfp(F_CVT_I, S, 4, 1, 0, RTZ), 0x40300000u, 0x7fffffff, FF_NV}, /* bad box: NaN */
        {opfp(F_CVT_FF, D, 4, 1, 0, DYN), BOX(1), 0x36a0000000000000ull, 0}, /* subnormal S */
        {opfp(F_CVT_FF, D, 4, 1, 0, RTZ), BOX(0x7f800001u), QNAN_D, FF_NV},
        {opfp(F_CVT_FF, D, 4, 1, 0, RNE), 0x3f800000u, QNAN_D, 0}, /* bad box */
        {opfp(F_CVT_F, D, 4, 1, 0, DYN), 0xfffffffffffffffbull, 0xc014000000000000ull, 0}, /* -5 */
        {opfp(F_CVT_F, D, 4, 1, 1, RUP), 0xffffffffull, 0x41efffffffe00000ull, 0}, /* wu */
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        for (uint32_t f0 = 0; f0 <= FF_NX; f0 += FF_NX) {
            uint64_t r;
            uint32_t fl;
            one(t[i].insn, t[i].a, 0, 0, f0, &r, &fl);
            if (r != t[i].want || fl != (t[i].flags | f0))
                fprintf(stderr, "case %zu (fflags %#x before): %016" PRIx64 " flags %#x\n", i, f0, r,
                        fl);
            assert_int_equal(r, t[i].want);
            assert_int_equal(fl, t[i].flags | f0);
        }
}

#if defined(__x86_64__)
#include <xmmintrin.h>
/* The thread's MXCSR does not reach the translated arithmetic (round to
 * zero, flush to zero and denormals as zero here: each would change these
 * results), and the translated code gives it back as it found it. */
static void thread_mxcsr(void **state)
{
    (void)state;
    if (getenv("KMRUN_UNDER_VALGRIND")) {
        /* Valgrind runs SSE in the default MXCSR whatever the program
         * sets (no RTZ, FTZ or DAZ): nothing here to see.  tests/run says
         * when it runs a test under valgrind. */
        print_message("skipped under valgrind: it does not model MXCSR's modes "
                      "(run without valgrind: make test)\n");
        skip();
    }
    const unsigned odd = 0x1f80u | 0x6000u /* RTZ */ | 0x8000u /* FTZ */ | 0x40u /* DAZ */;
    prog *p = calloc(1, sizeof *p);
    assert_non_null(p);
    emit(p, opfp(F_SQRT, D, 4, 1, 0, DYN));     /* sqrt 2: RNE rounds up */
    emit(p, opfp(F_MUL, D, 5, 2, 3, DYN));      /* a subnormal times 4: normal */
    emit(p, opfp(F_MUL, D, 6, 2, 7, RNE));      /* a subnormal result (the call) */
    p->f[1] = 0x4000000000000000ull;
    p->f[2] = 0x000fffffffffffffull;
    p->f[3] = 0x4010000000000000ull;
    p->f[7] = 0x3fe0000000000000ull;
    p->fcsr = FF_NX;
    p->dirty = true; /* else the first instruction takes the call, which loads MXCSR */
    rig *ref = run(p, false);
    const unsigned saved = _mm_getcsr();
    _mm_setcsr(odd);
    rig *r = run(p, true);
    const unsigned after = _mm_getcsr();
    _mm_setcsr(saved);
    assert_int_equal(r->h.f[4], 0x3ff6a09e667f3bcdull);
    assert_int_equal(r->h.f[5], 0x002ffffffffffffeull);
    assert_memory_equal(r->h.f, ref->h.f, sizeof r->h.f);
    assert_int_equal(r->h.fcsr, ref->h.fcsr);
    assert_int_equal(after & 0xffc0u, odd); /* its flags may have changed */
    free_rig(r);
    free_rig(ref);
    free(p);
}
#endif

/* ---- random programs ------------------------------------------------ */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t x = rng_state += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Special and boundary values: doubles, then singles (boxed by the caller). */
static const uint64_t special_d[] = {
    0, 0x8000000000000000ull, 1, 0x000fffffffffffffull, MIN_D, MIN_D + 1, 0x001fffffffffffffull,
    MAX_D, INF_D, 0xfff0000000000000ull, QNAN_D, 0x7ff0000000000001ull, 0xfff8000000000001ull,
    ONE_D, ONE_D + 1, 0x3ca0000000000000ull, 0x3cb0000000000000ull, 0x4340000000000001ull,
    THREE_D, 0x3fe0000000000001ull, 0x7fe0000000000000ull, 0x0020000000000000ull,
    0xbff0000000000000ull, 0x3fd5555555555555ull, 0x43e0000000000000ull, 0x41e0000000000000ull,
};
static const uint32_t special_s[] = {
    0, 0x80000000u, 1, 0x007fffffu, 0x00800000u, 0x00800001u, 0x00ffffffu, 0x7f7fffffu,
    0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffc00001u, ONE_S, ONE_S + 1,
    0x33800000u, 0x34000000u, 0x4b800001u, THREE_S, 0x3f000001u, 0x7f000000u, 0x01000000u,
    0xbf800000u, 0x3eaaaaabu, 0x4f000000u, 0x5f000000u,
};

/* The program's flavour: 0 special values in both formats; 1 (D) and 2
 * (S) mostly ordinary values of one format and operations on it, so that
 * long chains of results stay numbers (a NaN spreads to whatever it
 * touches) and the translated code's common case runs often. */
static unsigned flavour;

/* An ordinary value: a random significand, the exponent within 2^+-24,
 * either sign. */
static uint64_t ordinary(bool dbl)
{
    uint64_t e = rnd() % 49;
    if (dbl)
        return (rnd() & (SGN_BIT_D | 0x000fffffffffffffull)) | (1023 - 24 + e) << 52;
    return BOX((rnd() & 0x807fffffu) | (uint32_t)(127 - 24 + e) << 23);
}

static uint64_t random_f(void)
{
    if (flavour && rnd() % 8)
        return ordinary(flavour == 1);
    uint64_t k = rnd() % 16;
    if (k < 5)
        return special_d[rnd() % (sizeof special_d / sizeof *special_d)] ^ (rnd() & 1 ? 1ull << 63 : 0);
    if (k < 10)
        return BOX(special_s[rnd() % (sizeof special_s / sizeof *special_s)] ^
                   (rnd() & 1 ? 1u << 31 : 0));
    if (k == 10)
        return rnd() & 0xffffffffull; /* a bad box */
    if (k == 11)
        return BOX(rnd());
    if (k < 14) /* ordinary doubles near 1 */
        return (0x3fe0000000000000ull + (rnd() & 0x001fffffffffffffull)) ^ (rnd() & 1ull << 63);
    return BOX((0x3f000000u + (uint32_t)(rnd() & 0x00ffffffu)) ^ (uint32_t)(rnd() & 1u << 31));
}

/* A register of the few the program uses, so results feed operands. */
static unsigned reg(void)
{
    return 8 + (unsigned)(rnd() % 8);
}

static unsigned random_rm(void)
{
    static const uint8_t rm[] = {DYN, DYN, DYN, DYN, DYN, RNE, RNE, RTZ, RDN, RUP, RMM};
    return rm[rnd() % sizeof rm];
}

static uint32_t random_insn(void)
{
    unsigned fmt = (unsigned)(rnd() & 1), rd = reg(), rs1 = reg(), rs2 = reg(), rm = random_rm();
    if (flavour) /* the other format's operations would read NaNs */
        fmt = flavour == 1 ? D : S;
    unsigned c = (unsigned)(rnd() % (flavour ? 48 : 24));
    /* the ordinary flavours keep clear of what makes NaNs of numbers (a
     * root of a negative, a conversion from the other format) and bring
     * in fresh numbers often (fmv from x16..x23, which hold ordinary
     * values and are never written): x - x is 0, 0 / 0 a NaN, and a NaN
     * spreads to whatever it touches */
    if (flavour && (c == 6 || c == 12 || c == 14 || c == 16 || (c >= 21 && c < 28)))
        return opfp(F_MV_F, fmt, rd, 16 + (unsigned)(rnd() % 8), 0, 0);
    switch (c) {
    case 0: case 1: return opfp(F_ADD, fmt, rd, rs1, rs2, rm);
    case 2: return opfp(F_SUB, fmt, rd, rs1, rs2, rm);
    case 3: case 4: return opfp(F_MUL, fmt, rd, rs1, rs2, rm);
    case 5: return opfp(F_DIV, fmt, rd, rs1, rs2, rm);
    case 6: return opfp(F_SQRT, fmt, rd, rs1, 0, rm);
    case 7: case 8: {
        static const uint8_t op[] = {OP_FMADD, OP_FMSUB, OP_FNMSUB, OP_FNMADD};
        return r4(op[rnd() % 4], fmt, rd, rs1, rs2, reg(), rm);
    }
    case 9: return opfp(F_SGNJ, fmt, rd, rs1, rnd() & 1 ? rs1 : rs2, (unsigned)(rnd() % 3));
    case 10: return opfp(F_CMP, fmt, reg(), rs1, rs2, (unsigned)(rnd() % 3)); /* x8..x15 */
    case 11: return opfp(F_MINMAX, fmt, rd, rs1, rs2, (unsigned)(rnd() & 1));
    case 12: return opfp(F_CVT_FF, fmt, rd, rs1, fmt ? 0 : 1, rm);
    case 13: return opfp(F_MV_X, fmt, reg(), rs1, 0, 0);
    case 14: return opfp(F_MV_F, fmt, rd, reg(), 0, 0);
    case 15: return opfp(F_CVT_I, fmt, reg(), rs1, (unsigned)(rnd() % 4), rm);
    case 16: return opfp(F_CVT_F, fmt, rd, reg(), (unsigned)(rnd() % 4), rm);
    case 17: return opfp(F_MV_X, fmt, reg(), rs1, 0, 1); /* fclass */
    case 18: return csri(5, CSR_FRM, rnd() % 8 < 6 ? RNE : (unsigned)(rnd() % 5));
    case 19: return csri(7, CSR_FFLAGS, (unsigned)(rnd() & 31));
    case 20: return opfp(F_CMP, fmt, 0, rs1, rs2, (unsigned)(rnd() % 3)); /* to x0 */
    default: { /* the common case: RNE arithmetic */
        static const uint8_t f5[] = {F_ADD, F_SUB, F_MUL, F_DIV, F_SQRT};
        static const uint8_t op[] = {OP_FMADD, OP_FMSUB, OP_FNMSUB, OP_FNMADD};
        unsigned k = (unsigned)(rnd() % 9);
        if (flavour && k == 4) /* no roots of negatives */
            k = (unsigned)(rnd() % 4);
        rm = rnd() & 1 ? DYN : RNE;
        if (k < 5)
            return opfp(f5[k], fmt, rd, rs1, f5[k] == F_SQRT ? 0 : rs2, rm);
        return r4(op[k - 5], fmt, rd, rs1, rs2, reg(), rm);
    }
    }
}

static void random_programs(void **state)
{
    (void)state;
    const char *e = getenv("KMRUN_FPU_JIT_PROGRAMS");
    unsigned programs = e ? (unsigned)strtoul(e, NULL, 0) : 400;
    e = getenv("KMRUN_FPU_SEED");
    rng_state = e ? strtoull(e, NULL, 0) : 0x5eed;
    prog *p = calloc(1, sizeof *p);
    assert_non_null(p);
    for (unsigned n = 0; n < programs; n++) {
        memset(p, 0, sizeof *p);
        flavour = n % 3;
        p->dirty = n % 2;
        for (unsigned i = 0; i < 32; i++) {
            p->f[i] = random_f();
            uint64_t k = rnd() % 4;
            p->x[i] = k == 0 ? rnd() : k == 1 ? (uint64_t)(int64_t)(int32_t)rnd() : k == 2 ? rnd() % 16
                                                                                  : random_f();
        }
        for (unsigned i = 16; flavour && i < 24; i++)
            p->x[i] = ordinary(flavour == 1);
        /* mostly RNE with NX set, the fast path's case */
        p->fcsr = (rnd() % 4 ? RNE : (unsigned)(rnd() % 5)) << 5 | (rnd() % 4 ? FF_NX : 0) |
                  (uint32_t)(rnd() % 4 ? 0 : rnd() & 30);
        /* a loop of 200 instructions run twice: translated on the first
         * pass, and again linked */
        emit(p, 0x00200f93u); /* li t6, 2 */
        for (unsigned i = 0; i < 200; i++) {
            uint32_t insn = random_insn();
            emit(p, insn);
            /* a CSR instruction is the interpreter's, and so are the
             * entries after it in its block: a taken branch to the next
             * one starts a block there, which is translated */
            if ((insn & 0x7f) == 0x73)
                emit(p, BEQ_NEXT);
        }
        emit(p, 0xffff8f93u); /* addi t6, t6, -1 */
        int32_t back = -(int32_t)(4 * (p->n - 1)); /* to the first of them */
        uint32_t ub = (uint32_t)back; /* bnez t6, back */
        emit(p, ((ub >> 12) & 1) << 31 | ((ub >> 5) & 0x3f) << 25 | 0u << 20 | 31u << 15 |
                    1u << 12 | ((ub >> 1) & 0xf) << 8 | ((ub >> 11) & 1) << 7 | 0x63u);
        char what[48];
        snprintf(what, sizeof what, "program %u", n);
        rig *r = both(p, what);
        assert_false(r->h.trapped);
        assert_int_equal(r->h.pc, RIG_CODE_BASE + 4 * (p->n + 1)); /* past the wfi after the loop */
        free_rig(r);
    }
    free(p);
}

int main(void)
{
    if (!sim_fpu_host_available())
        fprintf(stderr, "fpu_jit_test: no host fast path here: the translated code calls "
                        "sim_fpu_run for everything\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nan_boxing),
        cmocka_unit_test(canonical_nan),
        cmocka_unit_test(each_fflag),
        cmocka_unit_test(each_rounding_mode),
        cmocka_unit_test(common_case),
        cmocka_unit_test(conversions),
#if defined(__x86_64__)
        cmocka_unit_test(thread_mxcsr),
#endif
        cmocka_unit_test(random_programs),
    };
    return cmocka_run_group_tests_name("fpu_jit", tests, NULL, NULL);
}
