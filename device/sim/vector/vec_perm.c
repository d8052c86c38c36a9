/* vec_perm: the permutations — vslideup/vslidedown (.vx, .vi: the offset
 * unsigned), vslide1up/vslide1down (.vx), vrgather (.vv, .vx, .vi),
 * vrgatherei16.vv and vcompress.vm.  As RVV 1.0 has them: a slide up
 * leaves the elements below its offset as they were; a slide down or a
 * gather reads 0 past VLMAX; the destination may not overlap the source
 * of a slide up, a gather or a compress (nor their index or mask);
 * vcompress needs vstart 0 and packs the selected elements from element
 * 0, the rest left as they were. */
#include "vec_internal.h"

int vec_perm(sim_hart *h, const sim_vec_insn *vi, uint32_t bits)
{
    unsigned op = vi->op, vd = vec_vd(bits), vs1 = vec_rs1(bits), vs2 = vec_vs2(bits);
    unsigned sew = vec_sew_bytes(h->vtype);
    int lg = vec_lmul_log2(h->vtype), lgi = lg;
    uint64_t vl = h->vl, vlmax = vec_vlmax(sew, lg);
    uint64_t x = vi->form == VEC_VX ? h->x[vs1] : vs1; /* .vi: uimm5 */
    size_t n = (size_t)(lg > 0 ? 1u << lg : 1) * SIM_VLENB;
    uint8_t out[8 * SIM_VLENB];

    if (!vec_aligned(vd, lg) || !vec_aligned(vs2, lg) || (!vi->vm && vd == 0))
        return SIM_CAUSE_ILLEGAL;
    if (op != VEC_SLIDEDOWN && op != VEC_SLIDE1DOWN && vec_overlap(vd, lg, vs2, lg))
        return SIM_CAUSE_ILLEGAL;
    if (op == VEC_RGATHEREI16) {
        lgi = 1 - __builtin_ctz(sew) + lg; /* EMUL of the 16-bit indices */
        if (lgi < -3 || lgi > 3)
            return SIM_CAUSE_ILLEGAL;
    }
    if (vi->form == VEC_VV && (op == VEC_RGATHER || op == VEC_RGATHEREI16) &&
        (!vec_aligned(vs1, lgi) || vec_overlap(vd, lg, vs1, lgi)))
        return SIM_CAUSE_ILLEGAL;
    if (op == VEC_COMPRESS && (h->vstart != 0 || vec_overlap(vd, lg, vs1, 0)))
        return SIM_CAUSE_ILLEGAL;

    memcpy(out, h->v[vd], n);
    if (op == VEC_COMPRESS) {
        uint64_t k = 0;
        for (uint64_t i = 0; i < vl; i++)
            if (vec_bit(h, vs1, i))
                sim_mem_put(out + k++ * sew, sew, vec_get(h, vs2, i, sew));
    } else {
        uint64_t from = h->vstart;
        if (op == VEC_SLIDEUP && x > from)
            from = x;
        for (uint64_t i = from; i < vl; i++) {
            if (!vec_active(h, vi->vm, i))
                continue;
            uint64_t v, idx;
            switch (op) {
            case VEC_SLIDEUP: v = vec_get(h, vs2, i - x, sew); break;
            case VEC_SLIDEDOWN:
                v = x < vlmax && i + x < vlmax ? vec_get(h, vs2, i + x, sew) : 0;
                break;
            case VEC_SLIDE1UP: v = i == 0 ? x : vec_get(h, vs2, i - 1, sew); break;
            case VEC_SLIDE1DOWN: v = i + 1 < vl ? vec_get(h, vs2, i + 1, sew) : x; break;
            default: /* the gathers */
                idx = vi->form != VEC_VV     ? x
                      : op == VEC_RGATHEREI16 ? vec_get(h, vs1, i, 2)
                                              : vec_get(h, vs1, i, sew);
                v = idx < vlmax ? vec_get(h, vs2, idx, sew) : 0;
                break;
            }
            sim_mem_put(out + i * sew, sew, v);
        }
    }
    memcpy(h->v[vd], out, n);
    h->vstart = 0;
    vec_charge(h, vl * 8 * sew, 1);
    return 0;
}
