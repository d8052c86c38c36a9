/* vec_exec: a vector instruction's way in (sim_vec_exec): the checks
 * every one shares — mstatus.VS Off makes it illegal; a vill vtype makes
 * everything but vset*, whole-register loads, stores and moves illegal —
 * then its group's executor; after it, VS is Dirty.  Also the shared
 * pieces: the datapath's cost and the register-overlap rules. */
#include "vec_internal.h"

void vec_charge(sim_hart *h, uint64_t bits, unsigned per_beat)
{
    uint64_t beats = (bits + SIM_VCOST_BEAT_BITS - 1) / SIM_VCOST_BEAT_BITS;
    if (beats > 1)
        h->cycle += (beats - 1) * per_beat;
}

bool vec_overlap(unsigned a, int lga, unsigned b, int lgb)
{
    unsigned na = lga > 0 ? 1u << lga : 1, nb = lgb > 0 ? 1u << lgb : 1;
    return a < b + nb && b < a + na;
}

bool vec_overlap_ok(unsigned vd, int lg_d, unsigned eew_d, unsigned vs, int lg_s, unsigned eew_s)
{
    if (!vec_overlap(vd, lg_d, vs, lg_s) || eew_d == eew_s)
        return true;
    unsigned nd = lg_d > 0 ? 1u << lg_d : 1, ns = lg_s > 0 ? 1u << lg_s : 1;
    if (eew_d < eew_s) /* only in the source's lowest-numbered part */
        return vd == vs;
    /* larger destination: source EMUL >= 1, in the destination's highest part */
    return lg_s >= 0 && vs + ns == vd + nd;
}

/* Whether op runs with vtype vill (RVV 1.0, 3.4.4). */
static bool needs_vtype(const sim_vec_insn *vi)
{
    switch (vi->op) {
    case VEC_VSETVLI: case VEC_VSETIVLI: case VEC_VSETVL: case VEC_MVNR:
        return false;
    case VEC_LOAD: case VEC_STORE:
        return vi->form != VEC_WHOLE;
    default:
        return true;
    }
}

int sim_vec_exec(sim_hart *h, const sim_vec_insn *vi, uint32_t bits, uint64_t *tval)
{
    int rc;
    *tval = bits;
    if ((h->mstatus & SIM_MSTATUS_VS) == 0)
        return SIM_CAUSE_ILLEGAL;
    if ((h->vtype & VEC_VILL) && needs_vtype(vi))
        return SIM_CAUSE_ILLEGAL;
    switch (vi->op) {
    case VEC_VSETVLI: case VEC_VSETIVLI: case VEC_VSETVL:
        rc = vec_setvl(h, vi, bits);
        break;
    case VEC_LOAD: case VEC_STORE:
        rc = vec_mem(h, vi, bits, tval);
        break;
    default:
        if (vi->op >= VEC_FWADD)
            rc = vec_fwide(h, vi, bits);
        else if (vi->op >= VEC_FADD)
            rc = vec_fp(h, vi, bits);
        else if (vi->op >= VEC_SADDU)
            rc = vec_fixed(h, vi, bits);
        else if (vi->op >= VEC_WADDU)
            rc = vec_wide(h, vi, bits);
        else if (vi->op >= VEC_SLIDEUP)
            rc = vec_perm(h, vi, bits);
        else if (vi->op >= VEC_ADC)
            rc = vec_carry(h, vi, bits);
        else if (vi->op >= VEC_MANDN && vi->op <= VEC_MVNR)
            rc = vec_mask(h, vi, bits);
        else
            rc = vec_int(h, vi, bits);
        break;
    }
    /* Dirty once the vector state may have changed: also when a memory
     * fault left vstart set (RVV lets any executed vector instruction
     * dirty it) */
    if (rc != SIM_CAUSE_ILLEGAL && rc != SIM_HART_STOPPED)
        h->mstatus |= SIM_MSTATUS_VS;
    return rc;
}
