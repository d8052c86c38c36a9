/* vec_carry: add-with-carry and subtract-with-borrow — vadc and vsbc
 * (the carry or borrow in from v0, every body element written), vmadc and
 * vmsbc (the carry or borrow out as a mask; with vm 0 the carry in from
 * v0, with vm 1 none).  As RVV 1.0 has them: vadc/vsbc may not write v0;
 * a mask result follows the compares' overlap rule. */
#include "vec_internal.h"

int vec_carry(sim_hart *h, const sim_vec_insn *vi, uint32_t bits)
{
    unsigned op = vi->op, vd = vec_vd(bits), vs1 = vec_rs1(bits), vs2 = vec_vs2(bits);
    unsigned sew = vec_sew_bytes(h->vtype), w = 8 * sew;
    int lg = vec_lmul_log2(h->vtype);
    bool vv = vi->form == VEC_VV, mask_out = op == VEC_MADC || op == VEC_MSBC;
    uint64_t scalar = vi->form == VEC_VX ? h->x[vs1] : (uint64_t)vec_sext(vs1, 5);
    uint64_t vl = h->vl;
    uint8_t out[8 * SIM_VLENB];
    size_t n = mask_out ? SIM_VLENB : (size_t)(lg > 0 ? 1u << lg : 1) * SIM_VLENB;

    if (!vec_aligned(vs2, lg) || (vv && !vec_aligned(vs1, lg)))
        return SIM_CAUSE_ILLEGAL;
    if (mask_out ? (vd != vs2 && vec_overlap(vd, 0, vs2, lg)) ||
                       (vv && vd != vs1 && vec_overlap(vd, 0, vs1, lg))
                 : !vec_aligned(vd, lg) || vd == 0)
        return SIM_CAUSE_ILLEGAL;
    memcpy(out, h->v[vd], n);
    for (uint64_t i = h->vstart; i < vl; i++) {
        uint64_t a = vec_trunc(vec_get(h, vs2, i, sew), w);
        uint64_t b = vec_trunc(vv ? vec_get(h, vs1, i, sew) : scalar, w);
        unsigned c = !vi->vm && vec_bit(h, 0, i);
        bool sub = op == VEC_SBC || op == VEC_MSBC;
        if (mask_out) {
            /* the carry out of a + b + c, or the borrow of a - b - c */
            unsigned __int128 r = sub ? (unsigned __int128)b + c : (unsigned __int128)a + b + c;
            bool flag = sub ? (unsigned __int128)a < r : (r >> w) != 0;
            vec_set_bit(out, i, flag);
        } else {
            sim_mem_put(out + i * sew, sew, sub ? a - b - c : a + b + c);
        }
    }
    memcpy(h->v[vd], out, n);
    h->vstart = 0;
    vec_charge(h, vl * w, 1);
    return 0;
}
