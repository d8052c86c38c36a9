/* vec_fwide: the widening and narrowing floating-point operations — from
 * singles to doubles: vfwadd, vfwsub (.vv/.vf, and .wv/.wf with a double
 * vs2), vfwmul, vfwmacc/vfwnmacc/vfwmsac/vfwnmsac, vfwredusum/osum,
 * vfwcvt.f.f.v; and the conversions vfwcvt (single to 64-bit integer; 16-
 * or 32-bit integer to single or double) and vfncvt (double to single,
 * also round-to-odd; double to 32-bit integer; 64-bit integer to single).
 *
 * As the scalar FPU computes them (fpu_soft.h): a widening operation is
 * the exact conversion of its single operands to double, then the double
 * operation, rounded once (a signaling NaN operand raises NV in the
 * conversion, as fcvt.d.s does); round-to-odd is a conversion toward
 * zero with the result's last bit set when it was inexact.  What needs a
 * 16-bit float (Zvfh) or a 16-bit integer result is illegal, as SEW 8 is;
 * so are the overlap and width rules vec_wide.c applies. */
#include "fpu_soft.h"
#include "sim_fpu.h"
#include "vec_internal.h"

enum { NARROW_SRC, WIDE_DST, NARROW_DST }; /* the shape of an operation */

static uint64_t widen(uint64_t s, uint32_t *fl)
{
    return sim_fp_convert(SIM_FP_D, SIM_FP_S, s, SIM_RM_RNE, fl);
}

int vec_fwide(sim_hart *h, const sim_vec_insn *vi, uint32_t bits)
{
    unsigned op = vi->op, vd = vec_vd(bits), vs1 = vec_rs1(bits), vs2 = vec_vs2(bits);
    unsigned sew = vec_sew_bytes(h->vtype);
    int lg = vec_lmul_log2(h->vtype), lgw = lg + 1;
    int rm = (int)((h->fcsr >> 5) & 7);
    uint64_t vl = h->vl;
    uint32_t fl = 0;
    if ((h->mstatus & SIM_MSTATUS_FS) == 0 || rm > SIM_RM_RMM || lgw > 3)
        return SIM_CAUSE_ILLEGAL;

    /* What each operation needs of SEW: singles in (4), or integers of
     * 16/32 bits in (vfwcvt.f.x[u]: 2 or 4), or a narrow result of 32
     * bits (the vfncvt: 4). */
    bool int_to_fp_w = op == VEC_FWCVT_F_XU || op == VEC_FWCVT_F_X;
    bool narrow = op >= VEC_FNCVT_XU_F;
    if (int_to_fp_w ? sew != 2 && sew != 4 : sew != 4)
        return SIM_CAUSE_ILLEGAL;

    if (op == VEC_FWREDUSUM || op == VEC_FWREDOSUM) {
        if (h->vstart != 0 || !vec_aligned(vs2, lg))
            return SIM_CAUSE_ILLEGAL;
        if (vl > 0) {
            uint64_t acc = vec_get(h, vs1, 0, 8);
            for (uint64_t i = 0; i < vl; i++)
                if (vec_active(h, vi->vm, i))
                    acc = sim_fp_add(SIM_FP_D, acc, widen(vec_get(h, vs2, i, 4), &fl), rm, &fl);
            vec_set(h, vd, 0, 8, acc);
            vec_charge(h, vl * 64, 1);
            h->cycle += SIM_VCOST_FP;
        }
        goto done;
    }

    bool unary = op >= VEC_FWCVT_XU_F;
    bool vv = vi->form == VEC_VV && !unary;
    bool wide_vs2 = narrow || op == VEC_FWADD_W || op == VEC_FWSUB_W;
    int lgd = narrow ? lg : lgw, lg2 = wide_vs2 ? lgw : lg;
    unsigned dbytes = narrow ? sew : 2 * sew, s2bytes = wide_vs2 ? 2 * sew : sew;
    if (!vec_aligned(vd, lgd) || !vec_aligned(vs2, lg2) || (vv && !vec_aligned(vs1, lg)) ||
        (!vi->vm && vd == 0) || !vec_overlap_ok(vd, lgd, dbytes, vs2, lg2, s2bytes) ||
        (vv && !vec_overlap_ok(vd, lgd, dbytes, vs1, lg, sew)))
        return SIM_CAUSE_ILLEGAL;

    uint64_t scalar = sim_fpu_unbox(h->f[vs1]);
    uint8_t out[8 * SIM_VLENB];
    size_t n = (size_t)(lgd > 0 ? 1u << lgd : 1) * SIM_VLENB;
    const uint64_t sgn = 1ull << 63;
    memcpy(out, h->v[vd], n);
    for (uint64_t i = h->vstart; i < vl; i++) {
        if (!vec_active(h, vi->vm, i))
            continue;
        uint64_t a = vec_get(h, vs2, i, s2bytes), r;
        uint64_t b = vv ? vec_get(h, vs1, i, sew) : scalar;
        /* the double operands: a wide vs2 as it is, the singles widened
         * (vs2 before vs1, as the flags would come either way) */
        uint64_t da = 0, db = 0, dd = 0;
        if (!unary) {
            da = wide_vs2 ? a : widen(a, &fl);
            db = widen(b, &fl);
            dd = vec_get(h, vd, i, 8);
        }
        switch (op) {
        case VEC_FWADD: case VEC_FWADD_W: r = sim_fp_add(SIM_FP_D, da, db, rm, &fl); break;
        case VEC_FWSUB: case VEC_FWSUB_W: r = sim_fp_sub(SIM_FP_D, da, db, rm, &fl); break;
        case VEC_FWMUL: r = sim_fp_mul(SIM_FP_D, da, db, rm, &fl); break;
        case VEC_FWMACC: r = sim_fp_fma(SIM_FP_D, db, da, dd, rm, &fl); break;
        case VEC_FWNMACC: r = sim_fp_fma(SIM_FP_D, db ^ sgn, da, dd ^ sgn, rm, &fl); break;
        case VEC_FWMSAC: r = sim_fp_fma(SIM_FP_D, db, da, dd ^ sgn, rm, &fl); break;
        case VEC_FWNMSAC: r = sim_fp_fma(SIM_FP_D, db ^ sgn, da, dd, rm, &fl); break;
        case VEC_FWCVT_XU_F: r = sim_fp_to_int(SIM_FP_S, a, false, 64, rm, &fl); break;
        case VEC_FWCVT_X_F: r = sim_fp_to_int(SIM_FP_S, a, true, 64, rm, &fl); break;
        case VEC_FWCVT_RTZ_XU_F: r = sim_fp_to_int(SIM_FP_S, a, false, 64, SIM_RM_RTZ, &fl); break;
        case VEC_FWCVT_RTZ_X_F: r = sim_fp_to_int(SIM_FP_S, a, true, 64, SIM_RM_RTZ, &fl); break;
        case VEC_FWCVT_F_XU:
        case VEC_FWCVT_F_X: {
            /* a 16- or 32-bit integer to a single or a double: exact */
            bool s = op == VEC_FWCVT_F_X;
            uint64_t v = s ? (uint64_t)vec_sext(a, 8 * sew) : a;
            r = sim_fp_from_int(sew == 2 ? SIM_FP_S : SIM_FP_D, v, s, 64, rm, &fl);
            break;
        }
        case VEC_FWCVT_F_F: r = widen(a, &fl); break;
        case VEC_FNCVT_XU_F: r = sim_fp_to_int(SIM_FP_D, a, false, 32, rm, &fl); break;
        case VEC_FNCVT_X_F: r = sim_fp_to_int(SIM_FP_D, a, true, 32, rm, &fl); break;
        case VEC_FNCVT_RTZ_XU_F: r = sim_fp_to_int(SIM_FP_D, a, false, 32, SIM_RM_RTZ, &fl); break;
        case VEC_FNCVT_RTZ_X_F: r = sim_fp_to_int(SIM_FP_D, a, true, 32, SIM_RM_RTZ, &fl); break;
        case VEC_FNCVT_F_XU: r = sim_fp_from_int(SIM_FP_S, a, false, 64, rm, &fl); break;
        case VEC_FNCVT_F_X: r = sim_fp_from_int(SIM_FP_S, a, true, 64, rm, &fl); break;
        case VEC_FNCVT_F_F: r = sim_fp_convert(SIM_FP_S, SIM_FP_D, a, rm, &fl); break;
        default: { /* VEC_FNCVT_ROD_F_F: toward zero, the last bit jammed if inexact */
            uint32_t f2 = 0;
            r = sim_fp_convert(SIM_FP_S, SIM_FP_D, a, SIM_RM_RTZ, &f2);
            if ((f2 & SIM_FF_NX) && (r & 0x7fffffffu) < 0x7f800000u)
                r |= 1;
            fl |= f2;
            break;
        }
        }
        sim_mem_put(out + i * dbytes, dbytes, r);
    }
    memcpy(h->v[vd], out, n);
    h->vstart = 0;
    vec_charge(h, vl * 8 * (narrow ? s2bytes : dbytes), 1);
    h->cycle += SIM_VCOST_FP;
done:
    h->fcsr |= fl;
    h->mstatus |= SIM_MSTATUS_FS;
    h->vstart = 0;
    return 0;
}
