/* vec_wide: the widening and narrowing integer operations — vwadd[u],
 * vwsub[u] (.vv/.vx, and .wv/.wx with a wide vs2), vwmul[u|su],
 * vwmacc[u|su|us], the widening reductions vwredsum[u], and the narrowing
 * shifts vnsrl/vnsra (.wv/.wx/.wi, the amount's low log2(2 * SEW) bits).
 * As RVV 1.0 has them: 2 * SEW at most ELEN and 2 * LMUL at most 8; the
 * wide group aligned to 2 * LMUL; a wide destination may overlap a narrow
 * source only in its highest part (source EMUL >= 1), a narrow one a wide
 * source only at its lowest register; reductions need vstart 0. */
#include "vec_internal.h"

int vec_wide(sim_hart *h, const sim_vec_insn *vi, uint32_t bits)
{
    unsigned op = vi->op, vd = vec_vd(bits), vs1 = vec_rs1(bits), vs2 = vec_vs2(bits);
    unsigned sew = vec_sew_bytes(h->vtype), w = 8 * sew, ww = 2 * w;
    int lg = vec_lmul_log2(h->vtype), lgw = lg + 1;
    bool vv = vi->form == VEC_VV, narrow = op == VEC_NSRL || op == VEC_NSRA;
    bool red = op == VEC_WREDSUMU || op == VEC_WREDSUM;
    bool wide_vs2 = narrow || (op >= VEC_WADDU_W && op <= VEC_WSUB_W);
    uint64_t vl = h->vl;
    uint64_t scalar = vi->form == VEC_VX ? h->x[vs1]
                      : vi->form == VEC_VI ? vs1 /* vnsr*.wi: uimm5 */
                                           : 0;

    if (sew > 4 || lgw > 3)
        return SIM_CAUSE_ILLEGAL;
    if (red) {
        if (h->vstart != 0 || !vec_aligned(vs2, lg))
            return SIM_CAUSE_ILLEGAL;
        if (vl == 0)
            return 0;
        uint64_t acc = vec_get(h, vs1, 0, 2 * sew);
        for (uint64_t i = 0; i < vl; i++)
            if (vec_active(h, vi->vm, i)) {
                uint64_t a = vec_get(h, vs2, i, sew);
                acc += op == VEC_WREDSUM ? (uint64_t)vec_sext(a, w) : a;
            }
        vec_set(h, vd, 0, 2 * sew, acc);
        vec_charge(h, vl * ww, 1);
        return 0;
    }
    int lgd = narrow ? lg : lgw, lg2 = wide_vs2 ? lgw : lg;
    unsigned dbytes = narrow ? sew : 2 * sew, s2bytes = wide_vs2 ? 2 * sew : sew;
    if (!vec_aligned(vd, lgd) || !vec_aligned(vs2, lg2) || (vv && !vec_aligned(vs1, lg)) ||
        (!vi->vm && vd == 0) || !vec_overlap_ok(vd, lgd, dbytes, vs2, lg2, s2bytes) ||
        (vv && !vec_overlap_ok(vd, lgd, dbytes, vs1, lg, sew)))
        return SIM_CAUSE_ILLEGAL;

    uint8_t out[8 * SIM_VLENB];
    size_t n = (size_t)(lgd > 0 ? 1u << lgd : 1) * SIM_VLENB;
    memcpy(out, h->v[vd], n);
    for (uint64_t i = h->vstart; i < vl; i++) {
        if (!vec_active(h, vi->vm, i))
            continue;
        uint64_t a = vec_get(h, vs2, i, s2bytes), b = vv ? vec_get(h, vs1, i, sew) : scalar;
        /* the narrow operands widened as the operation reads them */
        uint64_t bu = vec_trunc(b, w), bs = (uint64_t)vec_sext(b, w);
        uint64_t au = wide_vs2 ? a : vec_trunc(a, w), as = wide_vs2 ? a : (uint64_t)vec_sext(a, w);
        uint64_t d = vec_get(h, vd, i, dbytes), r;
        switch (op) {
        case VEC_WADDU: case VEC_WADDU_W: r = au + bu; break;
        case VEC_WSUBU: case VEC_WSUBU_W: r = au - bu; break;
        case VEC_WADD: case VEC_WADD_W: r = as + bs; break;
        case VEC_WSUB: case VEC_WSUB_W: r = as - bs; break;
        case VEC_WMULU: r = au * bu; break;
        case VEC_WMULSU: r = as * bu; break; /* signed vs2, unsigned vs1 */
        case VEC_WMUL: r = as * bs; break;
        case VEC_WMACCU: r = bu * au + d; break;
        case VEC_WMACC: r = bs * as + d; break;
        case VEC_WMACCSU: r = bs * au + d; break; /* signed vs1/rs1, unsigned vs2 */
        case VEC_WMACCUS: r = bu * as + d; break; /* unsigned rs1, signed vs2 */
        case VEC_NSRL: r = vec_trunc(a, ww) >> (b & (ww - 1)); break;
        default: r = (uint64_t)(vec_sext(a, ww) >> (b & (ww - 1))); break; /* VEC_NSRA */
        }
        sim_mem_put(out + i * dbytes, dbytes, r);
    }
    memcpy(h->v[vd], out, n);
    h->vstart = 0;
    bool mul = op >= VEC_WMULU && op <= VEC_WMACCSU;
    vec_charge(h, vl * ww, 1);
    h->cycle += mul ? SIM_COST_MUL : 0;
    return 0;
}
