/* vec_fast: the common vector arithmetic at one go — plain C loops over
 * the register file's elements as uint8/16/32/64 (float, double), one
 * loop an operation and element width, no call or dispatch per element —
 * for vec_int.c and vec_fp.c to try before their element-by-element
 * path.  The results are the element path's bit for bit; what either
 * cannot take here (another operation, SEW 16 floating point, a result
 * the host's flags would have to decide) it does as before.
 *
 * Integers: add, sub, rsub, and/or/xor, shifts, min/max, mul, the
 * multiply-adds, vmerge and vmv.v, and the compares, at SEW 8..64.
 *
 * Floating point at SEW 32 and 64: vfadd, vfsub, vfrsub, vfmul, vfdiv,
 * vfrdiv and the eight fused multiply-adds on the host's FPU, as the
 * scalar fast path (fpu_quick.c) takes them: only with the host path on
 * (fpu_host.h: probed at start-up; the fused ones also need its FMA),
 * fcsr.frm RNE and fflags.NX already set, and every result "quiet"
 * (finite, above the smallest normal: fpu_ops.h), so that the one flag
 * it could raise, NX, is set already and no NaN needs canonicalising.
 * Any result that is not quiet and the whole instruction is left to the
 * software path, which computes it again, flags and all. */
#include "fpu_host.h"
#include "fpu_ops.h"
#include "fpu_soft.h"
#include "vec_internal.h"

/* The element types, read and written over the register file's bytes
 * (8-byte aligned: sim_hart.h; the callers' copies likewise). */
typedef uint8_t u8 __attribute__((may_alias));
typedef uint16_t u16 __attribute__((may_alias));
typedef uint32_t u32 __attribute__((may_alias));
typedef uint64_t u64 __attribute__((may_alias));
typedef int8_t i8 __attribute__((may_alias));
typedef int16_t i16 __attribute__((may_alias));
typedef int32_t i32 __attribute__((may_alias));
typedef int64_t i64 __attribute__((may_alias));
#if SIM_FPU_HOST_X86
typedef float f32 __attribute__((may_alias));
typedef double f64 __attribute__((may_alias));
#endif

bool vec_fast_on = true;

/* Element i active: unmasked, or v0's bit set. */
#define ACTIVE(i) (vm || ((m0[(i) >> 3] >> ((i) & 7)) & 1))

/* out[i] = EXPR over T elements a (vs2's), b (vs1's or the scalar) and d
 * (vd's old one), for the active i in [start, vl). */
#define ELEMS(T, EXPR)                                                                \
    do {                                                                              \
        const T *A = (const T *)src2, *B1 = (const T *)src1, *D = (const T *)old;     \
        T *O = (T *)out, bs = (T)scalar;                                              \
        (void)B1, (void)bs, (void)D;                                                  \
        if (vm) {                                                                     \
            for (uint64_t i = start; i < vl; i++) {                                   \
                T a = A[i], b = vv ? B1[i] : bs, d = D[i];                            \
                (void)a, (void)b, (void)d;                                            \
                O[i] = (T)(EXPR);                                                     \
            }                                                                         \
        } else {                                                                      \
            for (uint64_t i = start; i < vl; i++) {                                   \
                if (!ACTIVE(i))                                                       \
                    continue;                                                         \
                T a = A[i], b = vv ? B1[i] : bs, d = D[i];                            \
                (void)a, (void)b, (void)d;                                            \
                O[i] = (T)(EXPR);                                                     \
            }                                                                         \
        }                                                                             \
    } while (0)

/* The integer operations, T unsigned and S its signed twin, w its bits. */
#define INT_OPS(T, S, w)                                                              \
    switch (op) {                                                                     \
    case VEC_ADD: ELEMS(T, (uint64_t)a + b); break;                                   \
    case VEC_SUB: ELEMS(T, (uint64_t)a - b); break;                                   \
    case VEC_RSUB: ELEMS(T, (uint64_t)b - a); break;                                  \
    case VEC_AND: ELEMS(T, a & b); break;                                             \
    case VEC_OR: ELEMS(T, a | b); break;                                              \
    case VEC_XOR: ELEMS(T, a ^ b); break;                                             \
    case VEC_SLL: ELEMS(T, (uint64_t)a << (b & (w - 1))); break;                      \
    case VEC_SRL: ELEMS(T, a >> (b & (w - 1))); break;                                \
    case VEC_SRA: ELEMS(T, (S)a >> (b & (w - 1))); break;                             \
    case VEC_MINU: ELEMS(T, a < b ? a : b); break;                                    \
    case VEC_MAXU: ELEMS(T, a > b ? a : b); break;                                    \
    case VEC_MIN: ELEMS(T, (S)a < (S)b ? a : b); break;                               \
    case VEC_MAX: ELEMS(T, (S)a > (S)b ? a : b); break;                               \
    case VEC_MUL: ELEMS(T, (uint64_t)a * b); break;                                   \
    case VEC_MACC: ELEMS(T, (uint64_t)b * a + d); break;                              \
    case VEC_NMSAC: ELEMS(T, (uint64_t)d - (uint64_t)b * a); break;                   \
    case VEC_MADD: ELEMS(T, (uint64_t)b * d + a); break;                              \
    case VEC_NMSUB: ELEMS(T, (uint64_t)a - (uint64_t)b * d); break;                   \
    case VEC_MV: ELEMS(T, b); break;                                                  \
    default: return false;                                                            \
    }

bool vec_fast_int(sim_hart *h, unsigned op, unsigned sew, bool vv, uint64_t scalar,
                  const uint8_t *src1, const uint8_t *src2, const uint8_t *old, bool vm,
                  uint8_t *out)
{
    const uint8_t *m0 = h->v[0];
    uint64_t start = h->vstart, vl = h->vl;
    if (!vec_fast_on)
        return false;
    switch (sew) {
    case 1: INT_OPS(u8, i8, 8) break;
    case 2: INT_OPS(u16, i16, 16) break;
    case 4: INT_OPS(u32, i32, 32) break;
    default: INT_OPS(u64, i64, 64) break;
    }
    return true;
}

/* The compares into mask bits: out's bit i for the active i in [start, vl). */
#define CMP_ELEMS(T, EXPR)                                                            \
    do {                                                                              \
        const T *A = (const T *)src2, *B1 = (const T *)src1;                          \
        T bs = (T)scalar;                                                             \
        (void)B1;                                                                     \
        for (uint64_t i = start; i < vl; i++) {                                       \
            if (!ACTIVE(i))                                                           \
                continue;                                                             \
            T a = A[i], b = vv ? B1[i] : bs;                                          \
            vec_set_bit(out, i, (EXPR));                                              \
        }                                                                             \
    } while (0)
#define CMP_OPS(T, S)                                                                 \
    switch (op) {                                                                     \
    case VEC_MSEQ: CMP_ELEMS(T, a == b); break;                                       \
    case VEC_MSNE: CMP_ELEMS(T, a != b); break;                                       \
    case VEC_MSLTU: CMP_ELEMS(T, a < b); break;                                       \
    case VEC_MSLT: CMP_ELEMS(T, (S)a < (S)b); break;                                  \
    case VEC_MSLEU: CMP_ELEMS(T, a <= b); break;                                      \
    case VEC_MSLE: CMP_ELEMS(T, (S)a <= (S)b); break;                                 \
    case VEC_MSGTU: CMP_ELEMS(T, a > b); break;                                       \
    case VEC_MSGT: CMP_ELEMS(T, (S)a > (S)b); break;                                  \
    default: return false;                                                            \
    }

bool vec_fast_cmp(sim_hart *h, unsigned op, unsigned sew, bool vv, uint64_t scalar,
                  const uint8_t *src1, const uint8_t *src2, bool vm, uint8_t *out)
{
    const uint8_t *m0 = h->v[0];
    uint64_t start = h->vstart, vl = h->vl;
    if (!vec_fast_on)
        return false;
    switch (sew) {
    case 1: CMP_OPS(u8, i8) break;
    case 2: CMP_OPS(u16, i16) break;
    case 4: CMP_OPS(u32, i32) break;
    default: CMP_OPS(u64, i64) break;
    }
    return true;
}

/* The FP loops are C arithmetic, exact only as ISO C has it: not under
 * -ffast-math (reciprocals, contractions), which leaves them out. */
#if SIM_FPU_HOST_X86 && !defined(__FAST_MATH__)
#define VEC_FAST_FP 1
#else
#define VEC_FAST_FP 0
#endif

#if VEC_FAST_FP
/* Floating point: as ELEMS, the elements' bits in T's and the values
 * in F's; every result's bits tested (ok: all quiet). */
#define FP_ELEMS(F, T, QUIET, EXPR)                                                   \
    do {                                                                              \
        const F *A = (const F *)src2, *B1 = (const F *)src1, *D = (const F *)old;     \
        F *O = (F *)out, bs;                                                          \
        T bsbits = (T)scalar;                                                         \
        memcpy(&bs, &bsbits, sizeof bs);                                              \
        (void)B1, (void)D;                                                            \
        for (uint64_t i = start; i < vl; i++) {                                       \
            if (!ACTIVE(i))                                                           \
                continue;                                                             \
            F a = A[i], b = vv ? B1[i] : bs, d = D[i], r = (EXPR);                    \
            T rb;                                                                     \
            (void)d;                                                                  \
            memcpy(&rb, &r, sizeof rb);                                               \
            ok &= QUIET(rb);                                                          \
            O[i] = r;                                                                 \
        }                                                                             \
    } while (0)
#define FP_ARITH(F, T, QUIET)                                                         \
    switch (op) {                                                                     \
    case VEC_FADD: FP_ELEMS(F, T, QUIET, a + b); break;                               \
    case VEC_FSUB: FP_ELEMS(F, T, QUIET, a - b); break;                               \
    case VEC_FRSUB: FP_ELEMS(F, T, QUIET, b - a); break;                              \
    case VEC_FMUL: FP_ELEMS(F, T, QUIET, a * b); break;                               \
    case VEC_FDIV: FP_ELEMS(F, T, QUIET, a / b); break;                               \
    case VEC_FRDIV: FP_ELEMS(F, T, QUIET, b / a); break;                              \
    default: return false;                                                            \
    }
/* vd = ±(vs1 * vs2) ± vd, or ±(vs1 * vd) ± vs2: one rounding */
#define FP_FUSED(F, T, QUIET, FMA)                                                    \
    switch (op) {                                                                     \
    case VEC_FMACC: FP_ELEMS(F, T, QUIET, FMA(b, a, d)); break;                       \
    case VEC_FNMACC: FP_ELEMS(F, T, QUIET, FMA(-b, a, -d)); break;                    \
    case VEC_FMSAC: FP_ELEMS(F, T, QUIET, FMA(b, a, -d)); break;                      \
    case VEC_FNMSAC: FP_ELEMS(F, T, QUIET, FMA(-b, a, d)); break;                     \
    case VEC_FMADD: FP_ELEMS(F, T, QUIET, FMA(b, d, a)); break;                       \
    case VEC_FNMADD: FP_ELEMS(F, T, QUIET, FMA(-b, d, -a)); break;                    \
    case VEC_FMSUB: FP_ELEMS(F, T, QUIET, FMA(b, d, -a)); break;                      \
    case VEC_FNMSUB: FP_ELEMS(F, T, QUIET, FMA(-b, d, a)); break;                     \
    default: return false;                                                            \
    }

/* The host's MXCSR as fpu_host.h leaves it (round to nearest, no flush
 * to zero, no denormals as zero), loaded before the loops so that the
 * thread's own never matters; the "memory" clobber keeps the loops'
 * loads, and so their arithmetic, after it. */
static inline void host_clean(void)
{
    __asm__ volatile("ldmxcsr %0" : : "m"(host_mxcsr_clean) : "memory");
}

static bool fp_arith(const sim_hart *h, unsigned op, unsigned sew, bool vv, uint64_t scalar,
                     const uint8_t *src1, const uint8_t *src2, const uint8_t *old, bool vm,
                     uint8_t *out)
{
    const uint8_t *m0 = h->v[0];
    uint64_t start = h->vstart, vl = h->vl;
    bool ok = true;
    host_clean();
    if (sew == 4)
        FP_ARITH(f32, uint32_t, s_quiet)
    else
        FP_ARITH(f64, uint64_t, d_quiet)
    return ok;
}

__attribute__((target("fma"))) static bool fp_fused(const sim_hart *h, unsigned op, unsigned sew,
                                                    bool vv, uint64_t scalar,
                                                    const uint8_t *src1, const uint8_t *src2,
                                                    const uint8_t *old, bool vm, uint8_t *out)
{
    const uint8_t *m0 = h->v[0];
    uint64_t start = h->vstart, vl = h->vl;
    bool ok = true;
    host_clean();
    if (sew == 4)
        FP_FUSED(f32, uint32_t, s_quiet, __builtin_fmaf)
    else
        FP_FUSED(f64, uint64_t, d_quiet, __builtin_fma)
    return ok;
}
#endif

bool vec_fast_fp(sim_hart *h, unsigned op, unsigned sew, bool vv, uint64_t scalar,
                 const uint8_t *src1, const uint8_t *src2, const uint8_t *old, bool vm,
                 uint8_t *out)
{
#if VEC_FAST_FP
    if (!vec_fast_on || !sim_fpu_host_on || (sew != 4 && sew != 8) ||
        (h->fcsr & (0xe0 | SIM_FF_NX)) != SIM_FF_NX) /* frm RNE, NX set */
        return false;
    if (op >= VEC_FMACC && op <= VEC_FNMSUB)
        return sim_fpu_host_fma_on &&
               fp_fused(h, op, sew, vv, scalar, src1, src2, old, vm, out);
    return fp_arith(h, op, sew, vv, scalar, src1, src2, old, vm, out);
#else
    (void)h, (void)op, (void)sew, (void)vv, (void)scalar, (void)src1, (void)src2, (void)old,
        (void)vm, (void)out;
    return false;
#endif
}
