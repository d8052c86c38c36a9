/* vec_cfg: the vector unit's configuration — vsetvli, vsetivli, vsetvl —
 * and its CSRs (sim_vec.h).
 *
 * vtype: vlmul (2:0), vsew (5:3), vta (6), vma (7); anything else set, SEW
 * over 64, vlmul 4 (reserved), or a fractional LMUL with SEW > LMUL * ELEN
 * (mf2 with e64, mf4 with e32 and up, mf8 with e16 and up) makes it vill:
 * vtype reads 1 << 63 and vl 0.  vta and vma are recorded and read back;
 * the unit treats tail and inactive elements as undisturbed, which both
 * policies allow.
 *
 * vl from the AVL: rs1 != x0 gives AVL = x[rs1] (vsetivli: the 5-bit
 * immediate); rs1 = x0 with rd != x0 gives VLMAX; rs1 = rd = x0 keeps vl
 * (clamped to the new VLMAX, as Spike does where RVV leaves a changed
 * VLMAX reserved).  vl = min(AVL, VLMAX) (RVV allows less for AVL <
 * 2 * VLMAX; this is what Spike and most hardware do).  vstart becomes 0. */
#include "vec_internal.h"

enum {
    CSR_VSTART = 0x008,
    CSR_VXSAT = 0x009,
    CSR_VXRM = 0x00a,
    CSR_VCSR = 0x00f,
    CSR_VL = 0xc20,
    CSR_VTYPE = 0xc21,
    CSR_VLENB = 0xc22,
};

/* vstart holds an element index below the largest VLMAX (512: e8, m8). */
#define VSTART_MASK (8u * SIM_VLENB - 1)

/* Whether vtype (as written) is one this unit supports. */
static bool vtype_ok(uint64_t vtype)
{
    if (vtype >> 8)
        return false;
    unsigned vsew = (vtype >> 3) & 7, vlmul = vtype & 7;
    if (vsew > 3 || vlmul == 4)
        return false;
    int lg = vec_lmul_log2(vtype);
    /* SEW <= LMUL * ELEN: for fractional LMUL, 8 << vsew <= 64 >> -lg */
    return lg >= 0 || (8u << vsew) <= (64u >> -lg);
}

int vec_setvl(sim_hart *h, const sim_vec_insn *vi, uint32_t bits)
{
    unsigned rd = vec_vd(bits), rs1 = vec_rs1(bits);
    uint64_t vtype, avl;
    switch (vi->op) {
    case VEC_VSETVLI: vtype = (bits >> 20) & 0x7ff; break;
    case VEC_VSETIVLI: vtype = (bits >> 20) & 0x3ff; break;
    default: vtype = h->x[vec_vs2(bits)]; break;
    }
    if (vi->op == VEC_VSETIVLI)
        avl = rs1;
    else if (rs1 != 0)
        avl = h->x[rs1];
    else if (rd != 0)
        avl = UINT64_MAX;
    else
        avl = h->vl;
    if (!vtype_ok(vtype)) {
        h->vtype = VEC_VILL;
        h->vl = 0;
    } else {
        uint64_t vlmax = vec_vlmax(vec_sew_bytes(vtype), vec_lmul_log2(vtype));
        h->vtype = vtype;
        h->vl = avl < vlmax ? avl : vlmax;
    }
    h->vstart = 0;
    if (rd)
        h->x[rd] = h->vl;
    vec_charge(h, 0, 1);
    return 0;
}

bool sim_vec_is_csr(unsigned csr)
{
    switch (csr) {
    case CSR_VSTART: case CSR_VXSAT: case CSR_VXRM: case CSR_VCSR:
    case CSR_VL: case CSR_VTYPE: case CSR_VLENB:
        return true;
    default:
        return false;
    }
}

bool sim_vec_csr_read(const sim_hart *h, unsigned csr, uint64_t *v)
{
    switch (csr) {
    case CSR_VSTART: *v = h->vstart; return true;
    case CSR_VXSAT: *v = h->vxsat; return true;
    case CSR_VXRM: *v = h->vxrm; return true;
    case CSR_VCSR: *v = (uint64_t)h->vxrm << 1 | h->vxsat; return true;
    case CSR_VL: *v = h->vl; return true;
    case CSR_VTYPE: *v = h->vtype; return true;
    case CSR_VLENB: *v = SIM_VLENB; return true;
    default: return false;
    }
}

void sim_vec_csr_write(sim_hart *h, unsigned csr, uint64_t v)
{
    switch (csr) {
    case CSR_VSTART: h->vstart = v & VSTART_MASK; break;
    case CSR_VXSAT: h->vxsat = v & 1; break;
    case CSR_VXRM: h->vxrm = v & 3; break;
    case CSR_VCSR:
        h->vxsat = v & 1;
        h->vxrm = (v >> 1) & 3;
        break;
    default: break; /* vl, vtype, vlenb: read-only by number */
    }
}
