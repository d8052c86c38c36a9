/* fpu_quick: sim_fpu_run (sim_fpu.h), the first look at every F and D
 * instruction.  What it can finish in a few host instructions it
 * finishes here; the rest goes to sim_fpu_run_full (fpu.c), which can do
 * everything.  Nothing here calls a function: the compiler then saves no
 * registers on entry, where the full path's switch, with its calls into
 * the software arithmetic, saves six — a cost as large as the operation
 * in the common case.
 *
 * Always here (bit work, the same with the host path on or off):
 *   - the moves fmv.x.w, fmv.x.d, fmv.w.x, fmv.d.x and the sign injections
 *     fsgnj, fsgnjn, fsgnjx (fmv, fneg, fabs) of S and D.
 *
 * Here when the host path is on (sim_fpu_set_host; the cross-check test
 * runs everything with it on and off), the common case:
 *   - fadd, fsub, fmul, fdiv, fsqrt, fmadd, fmsub, fnmsub, fnmadd and
 *     fcvt.s.d, S and D, when the effective rounding mode is RNE and
 *     fflags.NX is already set (as it is in nearly every FP program after
 *     its first inexact result), and the host's result can carry no flag
 *     but NX (s_quiet, d_quiet: finite, nonzero, above the smallest
 *     normal).  Then there is no flag to read back: the one possible, NX,
 *     is set already.  The operands need no NaN check — a NaN operand
 *     gives a NaN, which is not quiet — but singles need their boxing
 *     checked (a bad box reads as the canonical NaN, the host would read
 *     the low half).  Anything else is computed again by the full path,
 *     flags and all;
 *   - feq, flt, fle with neither operand a NaN (nor a badly boxed single):
 *     an integer compare, no flag possible;
 *   - fcvt.d.s of a non-NaN single and fcvt.d.w, fcvt.d.wu: exact, no
 *     flag, in any valid rounding mode; fcvt.s.w, .s.wu, .s.l, .d.l in
 *     RNE with NX set (NX their only flag);
 *   - fcvt.w and fcvt.l (to signed integers) of S and D in RNE or RTZ
 *     with NX set, when the host's answer is not its out-of-range value
 *     (NV, or the genuine most negative integer: the full path decides).
 * An instruction left to the full path costs the first look and nothing
 * else: the full path starts again from the registers, which the first
 * look never writes before it is sure. */
#include "sim_fpu.h"

#include <stdint.h>

#include "fpu_host.h"
#include "fpu_ops.h"
#include "fpu_soft.h"

/* Non-NaN values as integers in the order of the numbers, +0 and -0
 * alike (sign and magnitude to two's complement). */
static inline int64_t key_d(uint64_t v)
{
    int64_t mag = (int64_t)(v & ~SGN_D);
    return v & SGN_D ? -mag : mag;
}
static inline int64_t key_s(uint64_t v)
{
    int64_t mag = (int64_t)(v & (SGN_S - 1));
    return v & SGN_S ? -mag : mag;
}

/* Both (all three) singles properly NaN-boxed. */
static inline bool boxed2(uint64_t a, uint64_t b)
{
    return ((a & b) >> 32) == 0xffffffffu;
}

/* The effective rounding mode: 0..4, or 5..7 reserved (the full path's
 * to refuse); 0 for an instruction that does not round. */
static inline unsigned eff_rm(const sim_hart *h, const sim_fpu_insn *fi)
{
    return fi->rm == 7 ? (h->fcsr >> 5) & 7 : fi->rm;
}
/* The host path on and fflags.NX set (the host's flags then needed only
 * for a result that is not quiet). */
static inline bool on_nx(const sim_hart *h)
{
    return sim_fpu_host_on && (h->fcsr & SIM_FF_NX);
}
/* The common case of the arithmetic: that, in RNE.  By the rm field, the
 * fcsr bits that must read NX alone: NX for a static RNE, NX and frm for
 * a dynamic mode, nothing for another static mode (never NX alone). */
static const uint8_t rne_nx_mask[8] = {[SIM_RM_RNE] = SIM_FF_NX, [7] = 0xe0 | SIM_FF_NX};
static inline bool rne_nx(const sim_hart *h, const sim_fpu_insn *fi)
{
    return sim_fpu_host_on && (h->fcsr & rne_nx_mask[fi->rm & 7]) == SIM_FF_NX;
}

int sim_fpu_run(sim_hart *h, const sim_fpu_insn *fi)
{
    /* The source registers, where they are (the quick forms load them
     * from there themselves); each case reads the ones it has. */
#define A (&h->f[fi->rs1])
#define B (&h->f[fi->rs2])
#define C (&h->f[fi->rs3])
    const bool on = sim_fpu_host_on;
    uint64_t bits, r;
    double v;
    int64_t n;

    switch (fi->op) {
    /* Sign injection reads singles unboxed (a bad box is the canonical NaN). */
    case SGNJ_S: r = (sim_fpu_unbox(*A) & ~SGN_S) | (sim_fpu_unbox(*B) & SGN_S); goto write_s;
    case SGNJN_S: r = (sim_fpu_unbox(*A) & ~SGN_S) | (~sim_fpu_unbox(*B) & SGN_S); goto write_s;
    case SGNJX_S: r = sim_fpu_unbox(*A) ^ (sim_fpu_unbox(*B) & SGN_S); goto write_s;
    case SGNJ_D: r = (*A & ~SGN_D) | (*B & SGN_D); goto write_d;
    case SGNJN_D: r = (*A & ~SGN_D) | (~*B & SGN_D); goto write_d;
    case SGNJX_D: r = *A ^ (*B & SGN_D); goto write_d;
    /* the raw bits: fmv.x.w neither unboxes nor checks */
    case MV_X_S: r = (uint64_t)(int64_t)(int32_t)(uint32_t)*A; goto write_x;
    case MV_X_D: r = *A; goto write_x;
    case MV_F_S: r = (uint32_t)h->x[fi->rs1]; goto write_s;
    case MV_F_D: r = h->x[fi->rs1]; goto write_d;

    case ADD_D: if (!rne_nx(h, fi)) break; v = host_quick_add_d(A, B, &bits); goto quick_d;
    case SUB_D: if (!rne_nx(h, fi)) break; v = host_quick_sub_d(A, B, &bits); goto quick_d;
    case MUL_D: if (!rne_nx(h, fi)) break; v = host_quick_mul_d(A, B, &bits); goto quick_d;
    case DIV_D: if (!rne_nx(h, fi)) break; v = host_quick_div_d(A, B, &bits); goto quick_d;
    case SQRT_D: if (!rne_nx(h, fi)) break; v = host_quick_sqrt_d(A, &bits); goto quick_d;
#define FMA_D(host)                                                                   \
    if (!rne_nx(h, fi) || !sim_fpu_host_fma_on)                                              \
        break;                                                                        \
    v = host(A, B, C, &bits);                                            \
    goto quick_d
    case FMADD_D: FMA_D(host_quick_fmadd_d);
    case FMSUB_D: FMA_D(host_quick_fmsub_d);
    case FNMSUB_D: FMA_D(host_quick_fnmsub_d);
    case FNMADD_D: FMA_D(host_quick_fnmadd_d);
#undef FMA_D

#define BIN_S(host)                                                                   \
    if (!rne_nx(h, fi) || !boxed2(*A, *B))                                                   \
        break;                                                                        \
    host(A, B, &bits);                                                                \
    goto quick_s
    case ADD_S: BIN_S(host_quick_add_s);
    case SUB_S: BIN_S(host_quick_sub_s);
    case MUL_S: BIN_S(host_quick_mul_s);
    case DIV_S: BIN_S(host_quick_div_s);
#undef BIN_S
    case SQRT_S:
        if (!rne_nx(h, fi) || !boxed2(*A, *A))
            break;
        host_quick_sqrt_s(A, &bits);
        goto quick_s;
#define FMA_S(host)                                                                   \
    if (!rne_nx(h, fi) || !sim_fpu_host_fma_on || !boxed2(*A & *B, *C))           \
        break;                                                                        \
    host(A, B, C, &bits);                                                \
    goto quick_s
    case FMADD_S: FMA_S(host_quick_fmadd_s);
    case FMSUB_S: FMA_S(host_quick_fmsub_s);
    case FNMSUB_S: FMA_S(host_quick_fnmsub_s);
    case FNMADD_S: FMA_S(host_quick_fnmadd_s);
#undef FMA_S

    case CVT_FF_S: /* fcvt.s.d: rounds */
        if (!rne_nx(h, fi))
            break;
        bits = (uint32_t)host_d_to_s(*A, *A, NULL);
        goto quick_s;
    case CVT_FF_D: /* fcvt.d.s: exact, no flag but for a signaling NaN */
        if (!on || eff_rm(h, fi) > SIM_RM_RMM || !s_plain(*A))
            break;
        r = host_s_to_d(*A, *A, NULL);
        goto write_d;

    /* Compares: no flag unless an operand is a NaN. */
    case EQ_D: if (!on || !d_plain(*A) || !d_plain(*B)) break; r = key_d(*A) == key_d(*B); goto write_x;
    case LT_D: if (!on || !d_plain(*A) || !d_plain(*B)) break; r = key_d(*A) < key_d(*B); goto write_x;
    case LE_D: if (!on || !d_plain(*A) || !d_plain(*B)) break; r = key_d(*A) <= key_d(*B); goto write_x;
    case EQ_S: if (!on || !s_plain(*A) || !s_plain(*B)) break; r = key_s(*A) == key_s(*B); goto write_x;
    case LT_S: if (!on || !s_plain(*A) || !s_plain(*B)) break; r = key_s(*A) < key_s(*B); goto write_x;
    case LE_S: if (!on || !s_plain(*A) || !s_plain(*B)) break; r = key_s(*A) <= key_s(*B); goto write_x;

    /* From integers: w and wu to D exact (any valid mode), the others
     * rounded (RNE, NX their only flag); wu as a 64-bit signed value, the
     * same number. */
    case CVT_FW_D: case CVT_FWU_D:
        if (!on || eff_rm(h, fi) > SIM_RM_RMM)
            break;
        n = fi->op == CVT_FW_D ? (int64_t)(int32_t)h->x[fi->rs1] : (int64_t)(uint32_t)h->x[fi->rs1];
        r = host_l_to_d(n, NULL);
        goto write_d;
    case CVT_FL_D:
        if (!rne_nx(h, fi))
            break;
        r = host_l_to_d((int64_t)h->x[fi->rs1], NULL);
        goto write_d;
    case CVT_FW_S: case CVT_FWU_S: case CVT_FL_S:
        if (!rne_nx(h, fi))
            break;
        n = fi->op == CVT_FW_S    ? (int64_t)(int32_t)h->x[fi->rs1]
            : fi->op == CVT_FWU_S ? (int64_t)(uint32_t)h->x[fi->rs1]
                                  : (int64_t)h->x[fi->rs1];
        r = host_l_to_s(n, NULL);
        goto write_s;

    /* To signed integers, RNE or RTZ (C's casts); the host's out-of-range
     * answer (the most negative value) to the full path, which saturates
     * and raises NV, or finds the genuine value. */
#define TO_INT(plain, host_rne, host_rtz, check, min)                                 \
    if (!on_nx(h) || eff_rm(h, fi) > SIM_RM_RTZ || !plain(*A))                         \
        break;                                                                        \
    n = check(eff_rm(h, fi) == SIM_RM_RNE ? host_rne(*A, NULL) : host_rtz(*A, NULL)); \
    if (n == (min))                                                                   \
        break;                                                                        \
    r = (uint64_t)n;                                                                  \
    goto write_x
#define SAME(x) (x)
    case CVT_W_D: TO_INT(d_plain, host_d_to_w_raw, host_d_to_w_rtz_raw, host_sext32, INT32_MIN);
    case CVT_L_D: TO_INT(d_plain, host_d_to_l, host_d_to_l_rtz, SAME, INT64_MIN);
    case CVT_W_S: TO_INT(s_plain, host_s_to_w_raw, host_s_to_w_rtz_raw, host_sext32, INT32_MIN);
    case CVT_L_S: TO_INT(s_plain, host_s_to_l, host_s_to_l_rtz, SAME, INT64_MIN);
#undef SAME
#undef TO_INT

    default: break;
    }
    return sim_fpu_run_full(h, fi);

quick_d:
    if (!d_quiet(bits))
        return sim_fpu_run_full(h, fi);
    host_quick_store_d(&h->f[fi->rd], v);
    return 0;
quick_s:
    if (!s_quiet(bits))
        return sim_fpu_run_full(h, fi);
    r = bits;
write_s:
    h->f[fi->rd] = sim_fpu_box((uint32_t)r);
    return 0;
write_d:
    h->f[fi->rd] = r;
    return 0;
write_x:
    if (fi->rd != 0)
        h->x[fi->rd] = r;
    return 0;
#undef A
#undef B
#undef C
}
