/* vec_fwide: the widening and narrowing floating-point operations — from
 * SEW-bit floats to 2*SEW-bit ones (halves to singles with Zvfh, singles
 * to doubles): vfwadd, vfwsub (.vv/.vf, and .wv/.wf with a wide vs2),
 * vfwmul, vfwmacc/vfwnmacc/vfwmsac/vfwnmsac, vfwredusum/osum,
 * vfwcvt.f.f.v; and the conversions vfwcvt (half or single to a 32- or
 * 64-bit integer; 8-, 16- or 32-bit integer to half, single or double)
 * and vfncvt (single to half, double to single, also round-to-odd; half,
 * single or double to an 8-, 16- or 32-bit integer; 32- or 64-bit integer
 * to half or single).
 *
 * As the scalar FPU computes them (fpu_soft.h): a widening operation is
 * the exact conversion of its narrow operands to the wide format, then
 * the wide operation, rounded once (a signaling NaN operand raises NV in
 * the conversion, as fcvt.d.s does); round-to-odd is a conversion toward
 * zero with the result's last bit set when it was inexact.  What would
 * need an 8-bit or a 128-bit float is illegal; so are the overlap and
 * width rules vec_wide.c applies. */
#include "fpu_soft.h"
#include "sim_fpu.h"
#include "vec_internal.h"

enum { NARROW_SRC, WIDE_DST, NARROW_DST }; /* the shape of an operation */

/* The float format of `bytes`-byte elements (2, 4 or 8). */
static sim_fp_fmt fmt_of(unsigned bytes)
{
    return bytes == 2 ? SIM_FP_H : bytes == 4 ? SIM_FP_S : SIM_FP_D;
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

    /* What each operation needs of SEW: the integer side may be 8 bits
     * (vfwcvt.f.x[u] in, vfncvt.x[u].f out: an 8-bit integer and a half),
     * every float is 16 bits or more and none 128. */
    bool int_to_fp_w = op == VEC_FWCVT_F_XU || op == VEC_FWCVT_F_X;
    bool fp_to_int_n = op == VEC_FNCVT_XU_F || op == VEC_FNCVT_X_F ||
                       op == VEC_FNCVT_RTZ_XU_F || op == VEC_FNCVT_RTZ_X_F;
    bool narrow = op >= VEC_FNCVT_XU_F;
    if ((int_to_fp_w || fp_to_int_n) ? sew > 4 : sew != 2 && sew != 4)
        return SIM_CAUSE_ILLEGAL;
    /* the narrow and the wide float formats (one of them unused by the
     * integer conversions) */
    const sim_fp_fmt nf = fmt_of(sew < 2 ? 2 : sew), wf = fmt_of(2 * sew);
    const int nw = 8 * (int)sew, ww = 16 * (int)sew; /* integer widths */

    if (op == VEC_FWREDUSUM || op == VEC_FWREDOSUM) {
        if (h->vstart != 0 || !vec_aligned(vs2, lg))
            return SIM_CAUSE_ILLEGAL;
        if (vl > 0) {
            uint64_t acc = vec_get(h, vs1, 0, 2 * sew);
            for (uint64_t i = 0; i < vl; i++)
                if (vec_active(h, vi->vm, i))
                    acc = sim_fp_add(wf, acc,
                                     sim_fp_convert(wf, nf, vec_get(h, vs2, i, sew), rm, &fl),
                                     rm, &fl);
            vec_set(h, vd, 0, 2 * sew, acc);
            vec_charge(h, vl * 16 * sew, 1);
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

    uint64_t scalar = sew == 2 ? sim_fpu_unbox_h(h->f[vs1]) : sim_fpu_unbox(h->f[vs1]);
    uint8_t out[8 * SIM_VLENB];
    size_t n = (size_t)(lgd > 0 ? 1u << lgd : 1) * SIM_VLENB;
    const uint64_t sgn = 1ull << (16 * sew - 1); /* the wide format's sign */
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
            da = wide_vs2 ? a : sim_fp_convert(wf, nf, a, rm, &fl);
            db = sim_fp_convert(wf, nf, b, rm, &fl);
            dd = vec_get(h, vd, i, 2 * sew);
        }
        switch (op) {
        case VEC_FWADD: case VEC_FWADD_W: r = sim_fp_add(wf, da, db, rm, &fl); break;
        case VEC_FWSUB: case VEC_FWSUB_W: r = sim_fp_sub(wf, da, db, rm, &fl); break;
        case VEC_FWMUL: r = sim_fp_mul(wf, da, db, rm, &fl); break;
        case VEC_FWMACC: r = sim_fp_fma(wf, db, da, dd, rm, &fl); break;
        case VEC_FWNMACC: r = sim_fp_fma(wf, db ^ sgn, da, dd ^ sgn, rm, &fl); break;
        case VEC_FWMSAC: r = sim_fp_fma(wf, db, da, dd ^ sgn, rm, &fl); break;
        case VEC_FWNMSAC: r = sim_fp_fma(wf, db ^ sgn, da, dd, rm, &fl); break;
        case VEC_FWCVT_XU_F: r = sim_fp_to_int(nf, a, false, ww, rm, &fl); break;
        case VEC_FWCVT_X_F: r = sim_fp_to_int(nf, a, true, ww, rm, &fl); break;
        case VEC_FWCVT_RTZ_XU_F: r = sim_fp_to_int(nf, a, false, ww, SIM_RM_RTZ, &fl); break;
        case VEC_FWCVT_RTZ_X_F: r = sim_fp_to_int(nf, a, true, ww, SIM_RM_RTZ, &fl); break;
        case VEC_FWCVT_F_XU:
        case VEC_FWCVT_F_X: {
            /* an 8-, 16- or 32-bit integer to a half, a single or a double: exact */
            bool s = op == VEC_FWCVT_F_X;
            uint64_t v = s ? (uint64_t)vec_sext(a, 8 * sew) : a;
            r = sim_fp_from_int(wf, v, s, 64, rm, &fl);
            break;
        }
        case VEC_FWCVT_F_F: r = sim_fp_convert(wf, nf, a, rm, &fl); break;
        /* to nw-bit integers from 2*SEW-bit floats */
        case VEC_FNCVT_XU_F: r = sim_fp_to_int(wf, a, false, nw, rm, &fl); break;
        case VEC_FNCVT_X_F: r = sim_fp_to_int(wf, a, true, nw, rm, &fl); break;
        case VEC_FNCVT_RTZ_XU_F:
            r = sim_fp_to_int(wf, a, false, nw, SIM_RM_RTZ, &fl);
            break;
        case VEC_FNCVT_RTZ_X_F:
            r = sim_fp_to_int(wf, a, true, nw, SIM_RM_RTZ, &fl);
            break;
        case VEC_FNCVT_F_XU: r = sim_fp_from_int(nf, a, false, ww, rm, &fl); break;
        case VEC_FNCVT_F_X: r = sim_fp_from_int(nf, a, true, ww, rm, &fl); break;
        case VEC_FNCVT_F_F: r = sim_fp_convert(nf, wf, a, rm, &fl); break;
        default: { /* VEC_FNCVT_ROD_F_F: toward zero, the last bit jammed if inexact */
            uint32_t f2 = 0;
            const uint64_t mag = (1ull << (8 * sew - 1)) - 1, inf = sew == 2 ? 0x7c00 : 0x7f800000;
            r = sim_fp_convert(nf, wf, a, SIM_RM_RTZ, &f2);
            if ((f2 & SIM_FF_NX) && (r & mag) < inf)
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
