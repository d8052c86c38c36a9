/* vec_mask: mask-register instructions and the moves between the
 * register files — vmand/vmnand/vmandn/vmxor/vmor/vmnor/vmorn/vmxnor,
 * vcpop.m, vfirst.m, vmsbf/vmsif/vmsof.m, viota.m, vid.v, vmv.x.s,
 * vmv.s.x and vmv<nr>r.v.
 *
 * As RVV 1.0 has them: mask logicals work on vl bits of single registers
 * whatever LMUL (from vstart; the rest undisturbed); vcpop, vfirst,
 * vmsbf/sif/sof and viota are illegal with vstart nonzero, and their
 * destination may not overlap their source (nor v0 when masked); vmv.x.s
 * reads element 0 sign-extended whatever vl; vmv.s.x writes element 0
 * when vl > vstart; vmv<nr>r.v copies nr whole registers (elements of
 * SEW from vstart; bytes when vtype is vill), aligned to nr. */
#include "vec_internal.h"

static bool mask_logic(unsigned op, bool a, bool b) /* a: vs2, b: vs1 */
{
    switch (op) {
    case VEC_MANDN: return a && !b;
    case VEC_MAND: return a && b;
    case VEC_MOR: return a || b;
    case VEC_MXOR: return a != b;
    case VEC_MORN: return a || !b;
    case VEC_MNAND: return !(a && b);
    case VEC_MNOR: return !(a || b);
    default: return a == b; /* VEC_MXNOR */
    }
}

int vec_mask(sim_hart *h, const sim_vec_insn *vi, uint32_t bits)
{
    unsigned op = vi->op, vd = vec_vd(bits), vs1 = vec_rs1(bits), vs2 = vec_vs2(bits);
    bool vill = (h->vtype & VEC_VILL) != 0;
    unsigned sew = vill ? 1 : vec_sew_bytes(h->vtype);
    int lg = vec_lmul_log2(h->vtype);
    uint64_t vl = h->vl;
    uint8_t out[8 * SIM_VLENB];

    if (op >= VEC_MANDN && op <= VEC_MXNOR) {
        memcpy(out, h->v[vd], SIM_VLENB);
        for (uint64_t i = h->vstart; i < vl; i++)
            vec_set_bit(out, i, mask_logic(op, vec_bit(h, vs2, i), vec_bit(h, vs1, i)));
        memcpy(h->v[vd], out, SIM_VLENB);
        h->vstart = 0;
        vec_charge(h, vl, 1);
        return 0;
    }
    switch (op) {
    case VEC_CPOP:
    case VEC_FIRST: {
        if (h->vstart != 0)
            return SIM_CAUSE_ILLEGAL;
        uint64_t n = 0, first = UINT64_MAX;
        for (uint64_t i = 0; i < vl; i++)
            if (vec_active(h, vi->vm, i) && vec_bit(h, vs2, i)) {
                n++;
                if (first == UINT64_MAX)
                    first = i;
            }
        if (vd)
            h->x[vd] = op == VEC_CPOP ? n : first;
        vec_charge(h, vl, 1);
        return 0;
    }
    case VEC_MSBF:
    case VEC_MSIF:
    case VEC_MSOF: {
        if (h->vstart != 0 || vd == vs2 || (!vi->vm && vd == 0))
            return SIM_CAUSE_ILLEGAL;
        bool seen = false;
        memcpy(out, h->v[vd], SIM_VLENB);
        for (uint64_t i = 0; i < vl; i++) {
            if (!vec_active(h, vi->vm, i))
                continue;
            bool here = !seen && vec_bit(h, vs2, i);
            bool r = op == VEC_MSBF ? !seen && !here : op == VEC_MSIF ? !seen : here;
            seen |= here;
            vec_set_bit(out, i, r);
        }
        memcpy(h->v[vd], out, SIM_VLENB);
        vec_charge(h, vl, 1);
        return 0;
    }
    case VEC_IOTA:
    case VEC_ID: {
        if (!vec_aligned(vd, lg) || (!vi->vm && vd == 0))
            return SIM_CAUSE_ILLEGAL;
        if (op == VEC_IOTA && (h->vstart != 0 || vec_overlap(vd, lg, vs2, 0)))
            return SIM_CAUSE_ILLEGAL;
        uint64_t count = 0;
        for (uint64_t i = h->vstart; i < vl; i++) {
            if (!vec_active(h, vi->vm, i))
                continue;
            vec_set(h, vd, i, sew, op == VEC_ID ? i : count);
            count += op == VEC_IOTA && vec_bit(h, vs2, i);
        }
        h->vstart = 0;
        vec_charge(h, vl * 8 * sew, 1);
        return 0;
    }
    case VEC_MV_X_S:
        if (vd)
            h->x[vd] = (uint64_t)vec_sext(vec_get(h, vs2, 0, sew), 8 * sew);
        h->vstart = 0;
        return 0;
    case VEC_MV_S_X:
        if (vl > 0 && h->vstart < vl)
            vec_set(h, vd, 0, sew, h->x[vs1]);
        h->vstart = 0;
        return 0;
    default: { /* VEC_MVNR */
        unsigned nr = vs1 + 1;
        if ((vd & (nr - 1)) || (vs2 & (nr - 1)))
            return SIM_CAUSE_ILLEGAL;
        uint64_t evl = (uint64_t)nr * SIM_VLENB / sew;
        if (vd != vs2 && h->vstart < evl)
            memmove(vec_at(h, vd, h->vstart, sew), vec_at(h, vs2, h->vstart, sew),
                    (evl - h->vstart) * sew);
        h->vstart = 0;
        vec_charge(h, (uint64_t)nr * SIM_VLENB * 8, 1);
        return 0;
    }
    }
}
