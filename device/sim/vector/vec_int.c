/* vec_int: the vector unit's single-width integer arithmetic — add, sub,
 * rsub, and/or/xor, shifts, min/max, multiply (low and high halves),
 * divide and remainder, the multiply-adds, merge and vmv.v, vzext and
 * vsext (.vf2/.vf4/.vf8) — its compares (a mask result) and its
 * reductions.  All as RVV 1.0 has them, at SEW
 * 8..64: operands of .vx truncated to SEW, .vi's 5-bit immediate
 * sign-extended (but a shift's, which is unsigned; an unsigned compare
 * takes the sign-extended value as unsigned); shift amounts are the low
 * log2(SEW) bits; division by zero gives
 * all ones (remainder: the dividend), the signed overflow gives the
 * dividend (remainder 0), as the scalar M extension.
 *
 * Elements from vstart to vl - 1 that are active are written; inactive
 * and tail elements are left as they were (undisturbed, which satisfies
 * both the agnostic and undisturbed policies).  Results are built in a
 * copy of the destination and stored at the end, so the overlaps RVV
 * allows read their sources as they were.  Reductions, like RVV's, are
 * illegal with vstart nonzero. */
#include "vec_internal.h"

static bool is_cmp(unsigned op)
{
    return op >= VEC_MSEQ && op <= VEC_MSGT;
}

static bool is_red(unsigned op)
{
    return op >= VEC_REDSUM && op <= VEC_REDMAX;
}

static uint64_t divs(uint64_t a, uint64_t b, unsigned w, bool rem)
{
    int64_t x = vec_sext(a, w), y = vec_sext(b, w);
    if (y == 0)
        return rem ? (uint64_t)x : UINT64_MAX;
    if (y == -1 && x == vec_sext(1ull << (w - 1), w)) /* the most negative / -1 */
        return rem ? 0 : (uint64_t)x;
    return rem ? (uint64_t)(x % y) : (uint64_t)(x / y);
}

/* The result of op on a (vs2's element), b (vs1's, the scalar or the
 * immediate) and d (vd's old element), w bits wide (not yet truncated). */
static uint64_t alu(unsigned op, uint64_t a, uint64_t b, uint64_t d, unsigned w)
{
    uint64_t ua = vec_trunc(a, w), ub = vec_trunc(b, w);
    int64_t sa = vec_sext(a, w), sb = vec_sext(b, w);
    unsigned sh = (unsigned)(b & (w - 1));
    switch (op) {
    case VEC_ADD: return a + b;
    case VEC_SUB: return a - b;
    case VEC_RSUB: return b - a;
    case VEC_AND: return a & b;
    case VEC_OR: return a | b;
    case VEC_XOR: return a ^ b;
    case VEC_SLL: return a << sh;
    case VEC_SRL: return ua >> sh;
    case VEC_SRA: return (uint64_t)(sa >> sh);
    case VEC_MINU: return ua < ub ? ua : ub;
    case VEC_MAXU: return ua > ub ? ua : ub;
    case VEC_MIN: return (uint64_t)(sa < sb ? sa : sb);
    case VEC_MAX: return (uint64_t)(sa > sb ? sa : sb);
    case VEC_MUL: return a * b;
    case VEC_MULH: return (uint64_t)(((__int128)sa * sb) >> w);
    case VEC_MULHU: return (uint64_t)(((unsigned __int128)ua * ub) >> w);
    case VEC_MULHSU: return (uint64_t)(((__int128)sa * (__int128)ub) >> w);
    case VEC_DIVU: return ub ? ua / ub : UINT64_MAX;
    case VEC_REMU: return ub ? ua % ub : ua;
    case VEC_DIV: return divs(a, b, w, false);
    case VEC_REM: return divs(a, b, w, true);
    case VEC_MACC: return b * a + d;
    case VEC_NMSAC: return d - b * a;
    case VEC_MADD: return b * d + a;
    case VEC_NMSUB: return a - b * d;
    case VEC_MV: return b;
    /* compares */
    case VEC_MSEQ: return ua == ub;
    case VEC_MSNE: return ua != ub;
    case VEC_MSLTU: return ua < ub;
    case VEC_MSLT: return sa < sb;
    case VEC_MSLEU: return ua <= ub;
    case VEC_MSLE: return sa <= sb;
    case VEC_MSGTU: return ua > ub;
    case VEC_MSGT: return sa > sb;
    /* reductions: a the element, b the accumulator */
    case VEC_REDSUM: return a + b;
    case VEC_REDAND: return a & b;
    case VEC_REDOR: return a | b;
    case VEC_REDXOR: return a ^ b;
    case VEC_REDMINU: return ua < ub ? ua : ub;
    case VEC_REDMAXU: return ua > ub ? ua : ub;
    case VEC_REDMIN: return (uint64_t)(sa < sb ? sa : sb);
    default: return (uint64_t)(sa > sb ? sa : sb); /* VEC_REDMAX */
    }
}

int vec_int(sim_hart *h, const sim_vec_insn *vi, uint32_t bits)
{
    unsigned op = vi->op, vd = vec_vd(bits), vs1 = vec_rs1(bits), vs2 = vec_vs2(bits);
    unsigned sew = vec_sew_bytes(h->vtype), w = 8 * sew;
    int lg = vec_lmul_log2(h->vtype);
    bool vv = vi->form == VEC_VV;
    /* .vi: simm5, but a shift's amount is uimm5 */
    bool shift = op == VEC_SLL || op == VEC_SRL || op == VEC_SRA;
    uint64_t scalar = vi->form == VEC_VX   ? h->x[vs1]
                      : vi->form == VEC_VI ? (shift ? vs1 : (uint64_t)vec_sext(vs1, 5))
                                           : 0;
    uint64_t vl = h->vl;

    if (is_red(op)) {
        if (h->vstart != 0 || !vec_aligned(vs2, lg))
            return SIM_CAUSE_ILLEGAL;
        if (vl == 0)
            return 0;
        uint64_t acc = vec_get(h, vs1, 0, sew);
        for (uint64_t i = 0; i < vl; i++)
            if (vec_active(h, vi->vm, i))
                acc = alu(op, vec_get(h, vs2, i, sew), acc, 0, w);
        vec_set(h, vd, 0, sew, acc);
        vec_charge(h, vl * w, 1);
        return 0;
    }

    _Alignas(8) uint8_t out[8 * SIM_VLENB];
    size_t n = (size_t)(lg > 0 ? 1u << lg : 1) * SIM_VLENB;
    if (op == VEC_ZEXT || op == VEC_SEXT) {
        /* the source: EEW SEW / f, EMUL LMUL / f */
        unsigned f = vi->nf, sbytes = sew / f;
        int lgs = lg - __builtin_ctz(f);
        if (sbytes == 0 || lgs < -3 || !vec_aligned(vd, lg) || !vec_aligned(vs2, lgs) ||
            (!vi->vm && vd == 0) || !vec_overlap_ok(vd, lg, sew, vs2, lgs, sbytes))
            return SIM_CAUSE_ILLEGAL;
        memcpy(out, h->v[vd], n);
        for (uint64_t i = h->vstart; i < vl; i++)
            if (vec_active(h, vi->vm, i)) {
                uint64_t a = vec_get(h, vs2, i, sbytes);
                sim_mem_put(out + i * sew, sew,
                            op == VEC_SEXT ? (uint64_t)vec_sext(a, 8 * sbytes) : a);
            }
        memcpy(h->v[vd], out, n);
        h->vstart = 0;
        vec_charge(h, vl * w, 1);
        return 0;
    }

    if (!vec_aligned(vs2, lg) || (vv && !vec_aligned(vs1, lg)))
        return SIM_CAUSE_ILLEGAL;
    if (is_cmp(op)) {
        /* one mask register; it may overlap a source only at its lowest
         * register (and v0 even when masked: the result is a mask) */
        if ((vd != vs2 && vec_overlap(vd, 0, vs2, lg)) ||
            (vv && vd != vs1 && vec_overlap(vd, 0, vs1, lg)))
            return SIM_CAUSE_ILLEGAL;
        memcpy(out, h->v[vd], SIM_VLENB);
        if (!vec_fast_cmp(h, op, sew, vv, scalar, h->v[vs1], h->v[vs2], vi->vm, out))
            for (uint64_t i = h->vstart; i < vl; i++)
                if (vec_active(h, vi->vm, i))
                    vec_set_bit(out, i, alu(op, vec_get(h, vs2, i, sew),
                                            vv ? vec_get(h, vs1, i, sew) : scalar, 0, w) != 0);
        memcpy(h->v[vd], out, SIM_VLENB);
    } else {
        if (!vec_aligned(vd, lg) || (!vi->vm && vd == 0))
            return SIM_CAUSE_ILLEGAL;
        memcpy(out, h->v[vd], n);
        bool fast = vec_fast_int(h, op, sew, vv, scalar, h->v[vs1], h->v[vs2], h->v[vd], vi->vm,
                                 out);
        for (uint64_t i = fast ? vl : h->vstart; i < vl; i++) {
            uint64_t a = vec_get(h, vs2, i, sew), b = vv ? vec_get(h, vs1, i, sew) : scalar;
            uint64_t r;
            if (op == VEC_MERGE)
                r = vec_bit(h, 0, i) ? b : a;
            else if (vec_active(h, vi->vm, i))
                r = alu(op, a, b, vec_get(h, vd, i, sew), w);
            else
                continue;
            sim_mem_put(out + i * sew, sew, r);
        }
        memcpy(h->v[vd], out, n);
    }
    h->vstart = 0;
    bool div = op >= VEC_DIVU && op <= VEC_REM;
    bool mul = op >= VEC_MUL && op <= VEC_MULHSU;
    vec_charge(h, vl * w, div ? 1 + SIM_VCOST_DIV : 1);
    h->cycle += div ? SIM_VCOST_DIV : mul || (op >= VEC_MACC && op <= VEC_NMSUB) ? SIM_COST_MUL : 0;
    return 0;
}
