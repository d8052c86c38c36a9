/* vec_fp: the vector floating-point operations at SEW 16, 32 and 64 (the
 * Zvfh, F and D formats) —
 * vfadd/vfsub/vfrsub, vfmul, vfdiv/vfrdiv, vfsqrt, vfmin/vfmax,
 * vfsgnj[n|x], the eight fused multiply-adds, the compares vmfeq/ne/lt/
 * le/gt/ge (mask results), vfclass, the estimates vfrsqrt7/vfrec7
 * (vec_est.c), the conversions to and from integers
 * of SEW bits (vfcvt, with and without rtz), vfmerge/vfmv.v.f,
 * vfmv.f.s/vfmv.s.f, vfslide1up/down and the reductions vfredusum (in
 * element order, which "unordered" allows), vfredosum, vfredmin/max.
 *
 * Every element is the scalar FPU's software arithmetic (fpu_soft.h):
 * the same results, NaNs and fflags as the scalar F and D instructions
 * (flags ORed over the active elements into fcsr).  Rounding is fcsr.frm
 * (vfcvt.rtz.*: toward zero); a reserved frm, mstatus.FS Off, or SEW 8
 * is an illegal instruction.  Halves are the software arithmetic's too,
 * as the scalar Zfh ones are.  A scalar operand f[rs1] is unboxed for SEW
 * 16 and 32 (not properly NaN-boxed: the canonical NaN), and vfmv.f.s
 * NaN-boxes.  Any of these makes FS Dirty. */
#include "fpu_soft.h"
#include "sim_fpu.h"
#include "vec_internal.h"

static bool is_fcmp(unsigned op)
{
    return op >= VEC_MFEQ && op <= VEC_MFGE;
}

static bool is_fred(unsigned op)
{
    return op >= VEC_FREDUSUM && op <= VEC_FREDMAX;
}

/* op on a (vs2's element), b (vs1's or the scalar), d (vd's old element). */
static uint64_t fp_op(unsigned op, sim_fp_fmt f, uint64_t a, uint64_t b, uint64_t d, int rm,
                      uint32_t *fl)
{
    const uint64_t sgn = f == SIM_FP_H ? 1ull << 15 : f == SIM_FP_S ? 1ull << 31 : 1ull << 63;
    const int w = f == SIM_FP_H ? 16 : f == SIM_FP_S ? 32 : 64; /* vfcvt's integers */
    switch (op) {
    case VEC_FADD: return sim_fp_add(f, a, b, rm, fl);
    case VEC_FSUB: return sim_fp_sub(f, a, b, rm, fl);
    case VEC_FRSUB: return sim_fp_sub(f, b, a, rm, fl);
    case VEC_FMUL: return sim_fp_mul(f, a, b, rm, fl);
    case VEC_FDIV: return sim_fp_div(f, a, b, rm, fl);
    case VEC_FRDIV: return sim_fp_div(f, b, a, rm, fl);
    case VEC_FMIN: return sim_fp_min(f, a, b, fl);
    case VEC_FMAX: return sim_fp_max(f, a, b, fl);
    case VEC_FSGNJ: return (a & ~sgn) | (b & sgn);
    case VEC_FSGNJN: return (a & ~sgn) | (~b & sgn);
    case VEC_FSGNJX: return a ^ (b & sgn);
    /* vd = ±(vs1 * vs2) ± vd, or ±(vs1 * vd) ± vs2 */
    case VEC_FMACC: return sim_fp_fma(f, b, a, d, rm, fl);
    case VEC_FNMACC: return sim_fp_fma(f, b ^ sgn, a, d ^ sgn, rm, fl);
    case VEC_FMSAC: return sim_fp_fma(f, b, a, d ^ sgn, rm, fl);
    case VEC_FNMSAC: return sim_fp_fma(f, b ^ sgn, a, d, rm, fl);
    case VEC_FMADD: return sim_fp_fma(f, b, d, a, rm, fl);
    case VEC_FNMADD: return sim_fp_fma(f, b ^ sgn, d, a ^ sgn, rm, fl);
    case VEC_FMSUB: return sim_fp_fma(f, b, d, a ^ sgn, rm, fl);
    case VEC_FNMSUB: return sim_fp_fma(f, b ^ sgn, d, a, rm, fl);
    /* compares: vs2 op vs1/f */
    case VEC_MFEQ: return sim_fp_eq(f, a, b, fl);
    case VEC_MFNE: return !sim_fp_eq(f, a, b, fl);
    case VEC_MFLT: return sim_fp_lt(f, a, b, fl);
    case VEC_MFLE: return sim_fp_le(f, a, b, fl);
    case VEC_MFGT: return sim_fp_lt(f, b, a, fl);
    case VEC_MFGE: return sim_fp_le(f, b, a, fl);
    /* unary */
    case VEC_FSQRT: return sim_fp_sqrt(f, a, rm, fl);
    case VEC_FCLASS: return sim_fp_class(f, a);
    case VEC_FRSQRT7: return vec_frsqrt7(f, a, fl);
    case VEC_FREC7: return vec_frec7(f, a, rm, fl);
    case VEC_FCVT_XU_F: return sim_fp_to_int(f, a, false, w, rm, fl);
    case VEC_FCVT_X_F: return sim_fp_to_int(f, a, true, w, rm, fl);
    case VEC_FCVT_RTZ_XU_F: return sim_fp_to_int(f, a, false, w, SIM_RM_RTZ, fl);
    case VEC_FCVT_RTZ_X_F: return sim_fp_to_int(f, a, true, w, SIM_RM_RTZ, fl);
    case VEC_FCVT_F_XU: return sim_fp_from_int(f, a, false, w, rm, fl);
    case VEC_FCVT_F_X: return sim_fp_from_int(f, a, true, w, rm, fl);
    default: return b; /* VEC_FMV_V_F, and vfmerge's selected scalar */
    }
}

int vec_fp(sim_hart *h, const sim_vec_insn *vi, uint32_t bits)
{
    unsigned op = vi->op, vd = vec_vd(bits), vs1 = vec_rs1(bits), vs2 = vec_vs2(bits);
    unsigned sew = vec_sew_bytes(h->vtype), w = 8 * sew;
    int lg = vec_lmul_log2(h->vtype);
    int rm = (int)((h->fcsr >> 5) & 7);
    uint64_t vl = h->vl;
    if ((h->mstatus & SIM_MSTATUS_FS) == 0 || sew == 1 || rm > SIM_RM_RMM)
        return SIM_CAUSE_ILLEGAL;
    sim_fp_fmt f = sew == 2 ? SIM_FP_H : sew == 4 ? SIM_FP_S : SIM_FP_D;
    /* the unary ones' vs1 field selects the operation: no operand there */
    bool unary = op >= VEC_FSQRT && op <= VEC_FCVT_RTZ_X_F;
    bool vv = vi->form == VEC_VV && !unary;
    uint64_t scalar = sew == 2   ? sim_fpu_unbox_h(h->f[vs1])
                      : sew == 4 ? sim_fpu_unbox(h->f[vs1])
                                 : h->f[vs1];
    uint32_t fl = 0;
    _Alignas(8) uint8_t out[8 * SIM_VLENB];
    size_t n = (size_t)(lg > 0 ? 1u << lg : 1) * SIM_VLENB;

    switch (op) {
    case VEC_FMV_F_S:
        h->f[vd] = sew == 2   ? sim_fpu_box_h((uint16_t)vec_get(h, vs2, 0, 2))
                   : sew == 4 ? sim_fpu_box((uint32_t)vec_get(h, vs2, 0, 4))
                              : vec_get(h, vs2, 0, 8);
        goto done;
    case VEC_FMV_S_F:
        if (vl > 0 && h->vstart < vl)
            vec_set(h, vd, 0, sew, scalar);
        goto done;
    default: break;
    }

    if (is_fred(op)) {
        if (h->vstart != 0 || !vec_aligned(vs2, lg))
            return SIM_CAUSE_ILLEGAL;
        if (vl == 0)
            goto done;
        uint64_t acc = vec_get(h, vs1, 0, sew);
        for (uint64_t i = 0; i < vl; i++) {
            if (!vec_active(h, vi->vm, i))
                continue;
            uint64_t e = vec_get(h, vs2, i, sew);
            acc = op == VEC_FREDMIN   ? sim_fp_min(f, acc, e, &fl)
                  : op == VEC_FREDMAX ? sim_fp_max(f, acc, e, &fl)
                                      : sim_fp_add(f, acc, e, rm, &fl);
        }
        vec_set(h, vd, 0, sew, acc);
        vec_charge(h, vl * w, 1);
        h->cycle += SIM_VCOST_FP;
        goto done;
    }

    if (!vec_aligned(vs2, lg) || (vv && !vec_aligned(vs1, lg)))
        return SIM_CAUSE_ILLEGAL;
    if (is_fcmp(op)) {
        if ((vd != vs2 && vec_overlap(vd, 0, vs2, lg)) ||
            (vv && vd != vs1 && vec_overlap(vd, 0, vs1, lg)))
            return SIM_CAUSE_ILLEGAL;
        memcpy(out, h->v[vd], SIM_VLENB);
        for (uint64_t i = h->vstart; i < vl; i++)
            if (vec_active(h, vi->vm, i))
                vec_set_bit(out, i, fp_op(op, f, vec_get(h, vs2, i, sew),
                                          vv ? vec_get(h, vs1, i, sew) : scalar, 0, rm, &fl) != 0);
        memcpy(h->v[vd], out, SIM_VLENB);
    } else {
        bool up = op == VEC_FSLIDE1UP;
        if (!vec_aligned(vd, lg) || (!vi->vm && vd == 0) || (up && vec_overlap(vd, lg, vs2, lg)))
            return SIM_CAUSE_ILLEGAL;
        memcpy(out, h->v[vd], n);
        bool fast = vec_fast_fp(h, op, sew, vv, scalar, h->v[vs1], h->v[vs2], h->v[vd], vi->vm,
                                out);
        if (!fast)
            memcpy(out, h->v[vd], n);
        for (uint64_t i = fast ? vl : h->vstart; i < vl; i++) {
            uint64_t r;
            if (op == VEC_FMERGE) {
                r = vec_bit(h, 0, i) ? scalar : vec_get(h, vs2, i, sew);
            } else if (!vec_active(h, vi->vm, i)) {
                continue;
            } else if (up) {
                r = i == 0 ? scalar : vec_get(h, vs2, i - 1, sew);
            } else if (op == VEC_FSLIDE1DOWN) {
                r = i + 1 < vl ? vec_get(h, vs2, i + 1, sew) : scalar;
            } else {
                r = fp_op(op, f, vec_get(h, vs2, i, sew), vv ? vec_get(h, vs1, i, sew) : scalar,
                          vec_get(h, vd, i, sew), rm, &fl);
            }
            sim_mem_put(out + i * sew, sew, r);
        }
        memcpy(h->v[vd], out, n);
    }
    h->vstart = 0;
    bool slow = op == VEC_FDIV || op == VEC_FRDIV || op == VEC_FSQRT;
    vec_charge(h, vl * w, slow ? 1 + SIM_VCOST_FDIV : 1);
    h->cycle += slow ? SIM_VCOST_FDIV : SIM_VCOST_FP;
done:
    h->fcsr |= fl;
    h->mstatus |= SIM_MSTATUS_FS; /* Dirty */
    h->vstart = 0;
    return 0;
}
