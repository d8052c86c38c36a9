/* vec_fixed: the fixed-point operations — saturating add and subtract
 * (vsaddu, vsadd, vssubu, vssub), averaging add and subtract (vaaddu,
 * vaadd, vasubu, vasub), vsmul, the scaling shifts vssrl/vssra and the
 * narrowing clips vnclipu/vnclip.  As RVV 1.0 has them: rounding by
 * vxrm (0 rnu: to nearest, ties up; 1 rne: ties to even; 2 rdn: down;
 * 3 rod: to odd), and vxsat set when a result saturates (never cleared
 * here).  .vi immediates are sign-extended for the adds, unsigned for the
 * shifts and clips; shift amounts are the low log2(SEW) bits (2 * SEW
 * for the clips). */
#include "vec_internal.h"

typedef unsigned __int128 u128;
typedef __int128 s128;

/* v >> d rounded as vxrm says (RVV 1.0, 3.8: roundoff), for d < 128;
 * signed: v is two's complement and the shift arithmetic. */
static u128 roundoff(u128 v, unsigned d, unsigned xrm, bool sgn)
{
    if (d == 0)
        return v;
    u128 half = (u128)1 << (d - 1), below = half - 1; /* bit d-1; bits d-2..0 */
    bool bd1 = (v & half) != 0, rest = (v & below) != 0, bd = ((v >> d) & 1) != 0;
    unsigned r;
    switch (xrm & 3) {
    case 0: r = bd1; break;
    case 1: r = bd1 && (rest || bd); break;
    case 2: r = 0; break;
    default: r = !bd && (bd1 || rest); break;
    }
    u128 q = sgn ? (u128)((s128)v >> d) : v >> d;
    return q + r;
}

int vec_fixed(sim_hart *h, const sim_vec_insn *vi, uint32_t bits)
{
    unsigned op = vi->op, vd = vec_vd(bits), vs1 = vec_rs1(bits), vs2 = vec_vs2(bits);
    unsigned sew = vec_sew_bytes(h->vtype), w = 8 * sew;
    int lg = vec_lmul_log2(h->vtype);
    bool vv = vi->form == VEC_VV, clip = op == VEC_NCLIPU || op == VEC_NCLIP;
    bool uimm = clip || op == VEC_SSRL || op == VEC_SSRA;
    uint64_t vl = h->vl, xrm = h->vxrm;
    uint64_t scalar = vi->form == VEC_VX   ? h->x[vs1]
                      : vi->form == VEC_VI ? (uimm ? vs1 : (uint64_t)vec_sext(vs1, 5))
                                           : 0;
    /* a clip's vs2 is 2 * SEW wide, 2 * LMUL registers */
    int lg2 = clip ? lg + 1 : lg;
    unsigned s2bytes = clip ? 2 * sew : sew;
    if (clip && (sew > 4 || lg2 > 3))
        return SIM_CAUSE_ILLEGAL;
    if (!vec_aligned(vd, lg) || !vec_aligned(vs2, lg2) || (vv && !vec_aligned(vs1, lg)) ||
        (!vi->vm && vd == 0) || (clip && !vec_overlap_ok(vd, lg, sew, vs2, lg2, s2bytes)))
        return SIM_CAUSE_ILLEGAL;

    const s128 smax = ((s128)1 << (w - 1)) - 1, smin = -smax - 1;
    const u128 umax = ((u128)1 << w) - 1;
    uint8_t out[8 * SIM_VLENB];
    size_t n = (size_t)(lg > 0 ? 1u << lg : 1) * SIM_VLENB;
    bool sat = false;
    memcpy(out, h->v[vd], n);
    for (uint64_t i = h->vstart; i < vl; i++) {
        if (!vec_active(h, vi->vm, i))
            continue;
        uint64_t a = vec_get(h, vs2, i, s2bytes), b = vv ? vec_get(h, vs1, i, sew) : scalar;
        u128 ua = vec_trunc(a, w), ub = vec_trunc(b, w);
        s128 sa = vec_sext(a, w), sb = vec_sext(b, w), s;
        u128 u;
        switch (op) {
        case VEC_SADDU: u = ua + ub; if (u > umax) { u = umax; sat = true; } break;
        case VEC_SSUBU: u = ua < ub ? (sat = true, 0) : ua - ub; break;
        case VEC_SADD:
        case VEC_SSUB:
            s = op == VEC_SADD ? sa + sb : sa - sb;
            if (s > smax || s < smin) {
                s = s > smax ? smax : smin;
                sat = true;
            }
            u = (u128)s;
            break;
        case VEC_AADDU: u = roundoff(ua + ub, 1, xrm, false); break;
        case VEC_ASUBU: u = roundoff(ua - ub, 1, xrm, false); break; /* w + 1 bits, wrapped */
        case VEC_AADD: u = roundoff((u128)(sa + sb), 1, xrm, true); break;
        case VEC_ASUB: u = roundoff((u128)(sa - sb), 1, xrm, true); break;
        case VEC_SMUL:
            s = (s128)roundoff((u128)(sa * sb), w - 1, xrm, true);
            if (s > smax) { /* only -2^(w-1) squared */
                s = smax;
                sat = true;
            }
            u = (u128)s;
            break;
        case VEC_SSRL: u = roundoff(ua, (unsigned)(b & (w - 1)), xrm, false); break;
        case VEC_SSRA: u = roundoff((u128)sa, (unsigned)(b & (w - 1)), xrm, true); break;
        case VEC_NCLIPU:
            u = roundoff(vec_trunc(a, 2 * w), (unsigned)(b & (2 * w - 1)), xrm, false);
            if (u > umax) {
                u = umax;
                sat = true;
            }
            break;
        default: /* VEC_NCLIP */
            s = (s128)roundoff((u128)(s128)vec_sext(a, 2 * w), (unsigned)(b & (2 * w - 1)), xrm,
                               true);
            if (s > smax || s < smin) {
                s = s > smax ? smax : smin;
                sat = true;
            }
            u = (u128)s;
            break;
        }
        sim_mem_put(out + i * sew, sew, (uint64_t)u);
    }
    memcpy(h->v[vd], out, n);
    if (sat)
        h->vxsat = 1;
    h->vstart = 0;
    vec_charge(h, vl * (clip ? 2 * w : w), 1);
    h->cycle += op == VEC_SMUL ? SIM_COST_MUL : 0;
    return 0;
}
