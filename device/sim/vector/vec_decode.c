/* vec_decode: vector encodings into sim_vec_insn (sim_vec.h).  OP-V
 * (0x57) by funct3 (OPIVV/OPIVX/OPIVI, OPMVV/OPMVX, OPCFG) and funct6;
 * the vector loads and stores by mop, lumop/sumop, nf and width.  What is
 * reserved whatever the state (mew set, a form an operation lacks, a
 * nonzero field that must be zero, vm 0 where only unmasked exists, a
 * whole-register count that is not 1, 2, 4 or 8) is illegal here, so it
 * traps with its bits.  What
 * depends on vtype (register alignment, EMUL) is checked when it runs. */
#include "vec_internal.h"

enum { F_VV = 1, F_VX = 2, F_VI = 4 };

/* OPIVV/OPIVX/OPIVI by funct6: the operation and the forms it has. */
static const struct { uint8_t op, forms; } opi[64] = {
    [0x00] = {VEC_ADD, F_VV | F_VX | F_VI},   [0x02] = {VEC_SUB, F_VV | F_VX},
    [0x03] = {VEC_RSUB, F_VX | F_VI},         [0x04] = {VEC_MINU, F_VV | F_VX},
    [0x05] = {VEC_MIN, F_VV | F_VX},          [0x06] = {VEC_MAXU, F_VV | F_VX},
    [0x07] = {VEC_MAX, F_VV | F_VX},          [0x09] = {VEC_AND, F_VV | F_VX | F_VI},
    [0x0a] = {VEC_OR, F_VV | F_VX | F_VI},    [0x0b] = {VEC_XOR, F_VV | F_VX | F_VI},
    [0x17] = {VEC_MERGE, F_VV | F_VX | F_VI}, [0x18] = {VEC_MSEQ, F_VV | F_VX | F_VI},
    [0x19] = {VEC_MSNE, F_VV | F_VX | F_VI},  [0x1a] = {VEC_MSLTU, F_VV | F_VX},
    [0x1b] = {VEC_MSLT, F_VV | F_VX},         [0x1c] = {VEC_MSLEU, F_VV | F_VX | F_VI},
    [0x1d] = {VEC_MSLE, F_VV | F_VX | F_VI},  [0x1e] = {VEC_MSGTU, F_VX | F_VI},
    [0x1f] = {VEC_MSGT, F_VX | F_VI},         [0x25] = {VEC_SLL, F_VV | F_VX | F_VI},
    [0x0c] = {VEC_RGATHER, F_VV | F_VX | F_VI}, [0x0e] = {VEC_SLIDEUP, F_VV | F_VX | F_VI},
    [0x0f] = {VEC_SLIDEDOWN, F_VX | F_VI},    [0x10] = {VEC_ADC, F_VV | F_VX | F_VI},
    [0x11] = {VEC_MADC, F_VV | F_VX | F_VI},  [0x12] = {VEC_SBC, F_VV | F_VX},
    [0x13] = {VEC_MSBC, F_VV | F_VX},
    [0x27] = {VEC_MVNR, F_VV | F_VX | F_VI},  [0x28] = {VEC_SRL, F_VV | F_VX | F_VI},
    [0x20] = {VEC_SADDU, F_VV | F_VX | F_VI}, [0x21] = {VEC_SADD, F_VV | F_VX | F_VI},
    [0x22] = {VEC_SSUBU, F_VV | F_VX},        [0x23] = {VEC_SSUB, F_VV | F_VX},
    [0x2a] = {VEC_SSRL, F_VV | F_VX | F_VI},  [0x2b] = {VEC_SSRA, F_VV | F_VX | F_VI},
    [0x2e] = {VEC_NCLIPU, F_VV | F_VX | F_VI}, [0x2f] = {VEC_NCLIP, F_VV | F_VX | F_VI},
    [0x29] = {VEC_SRA, F_VV | F_VX | F_VI},
    [0x2c] = {VEC_NSRL, F_VV | F_VX | F_VI},  [0x2d] = {VEC_NSRA, F_VV | F_VX | F_VI},
    [0x30] = {VEC_WREDSUMU, F_VV},            [0x31] = {VEC_WREDSUM, F_VV},
};

/* OPMVV/OPMVX by funct6 (the unary groups 0x10 and 0x14 apart). */
static const struct { uint8_t op, forms; } opm[64] = {
    [0x00] = {VEC_REDSUM, F_VV},  [0x01] = {VEC_REDAND, F_VV},  [0x02] = {VEC_REDOR, F_VV},
    [0x03] = {VEC_REDXOR, F_VV},  [0x04] = {VEC_REDMINU, F_VV}, [0x05] = {VEC_REDMIN, F_VV},
    [0x06] = {VEC_REDMAXU, F_VV}, [0x07] = {VEC_REDMAX, F_VV},
    [0x0e] = {VEC_SLIDE1UP, F_VX}, [0x0f] = {VEC_SLIDE1DOWN, F_VX}, [0x17] = {VEC_COMPRESS, F_VV},
    [0x08] = {VEC_AADDU, F_VV | F_VX}, [0x09] = {VEC_AADD, F_VV | F_VX},
    [0x0a] = {VEC_ASUBU, F_VV | F_VX}, [0x0b] = {VEC_ASUB, F_VV | F_VX},
    [0x18] = {VEC_MANDN, F_VV},   [0x19] = {VEC_MAND, F_VV},    [0x1a] = {VEC_MOR, F_VV},
    [0x1b] = {VEC_MXOR, F_VV},    [0x1c] = {VEC_MORN, F_VV},    [0x1d] = {VEC_MNAND, F_VV},
    [0x1e] = {VEC_MNOR, F_VV},    [0x1f] = {VEC_MXNOR, F_VV},
    [0x20] = {VEC_DIVU, F_VV | F_VX},   [0x21] = {VEC_DIV, F_VV | F_VX},
    [0x22] = {VEC_REMU, F_VV | F_VX},   [0x23] = {VEC_REM, F_VV | F_VX},
    [0x24] = {VEC_MULHU, F_VV | F_VX},  [0x25] = {VEC_MUL, F_VV | F_VX},
    [0x26] = {VEC_MULHSU, F_VV | F_VX}, [0x27] = {VEC_MULH, F_VV | F_VX},
    [0x29] = {VEC_MADD, F_VV | F_VX},   [0x2b] = {VEC_NMSUB, F_VV | F_VX},
    [0x2d] = {VEC_MACC, F_VV | F_VX},   [0x2f] = {VEC_NMSAC, F_VV | F_VX},
    [0x30] = {VEC_WADDU, F_VV | F_VX},   [0x31] = {VEC_WADD, F_VV | F_VX},
    [0x32] = {VEC_WSUBU, F_VV | F_VX},   [0x33] = {VEC_WSUB, F_VV | F_VX},
    [0x34] = {VEC_WADDU_W, F_VV | F_VX}, [0x35] = {VEC_WADD_W, F_VV | F_VX},
    [0x36] = {VEC_WSUBU_W, F_VV | F_VX}, [0x37] = {VEC_WSUB_W, F_VV | F_VX},
    [0x38] = {VEC_WMULU, F_VV | F_VX},   [0x3a] = {VEC_WMULSU, F_VV | F_VX},
    [0x3b] = {VEC_WMUL, F_VV | F_VX},    [0x3c] = {VEC_WMACCU, F_VV | F_VX},
    [0x3d] = {VEC_WMACC, F_VV | F_VX},   [0x3e] = {VEC_WMACCUS, F_VX},
    [0x3f] = {VEC_WMACCSU, F_VV | F_VX},
};

/* OPFVV/OPFVF by funct6 (the unary groups 0x10, 0x12, 0x13 apart). */
static const struct { uint8_t op, forms; } opf[64] = {
    [0x00] = {VEC_FADD, F_VV | F_VX},   [0x02] = {VEC_FSUB, F_VV | F_VX},
    [0x04] = {VEC_FMIN, F_VV | F_VX},   [0x06] = {VEC_FMAX, F_VV | F_VX},
    [0x08] = {VEC_FSGNJ, F_VV | F_VX},  [0x09] = {VEC_FSGNJN, F_VV | F_VX},
    [0x0a] = {VEC_FSGNJX, F_VV | F_VX}, [0x0e] = {VEC_FSLIDE1UP, F_VX},
    [0x0f] = {VEC_FSLIDE1DOWN, F_VX},   [0x17] = {VEC_FMERGE, F_VX},
    [0x18] = {VEC_MFEQ, F_VV | F_VX},   [0x19] = {VEC_MFLE, F_VV | F_VX},
    [0x1b] = {VEC_MFLT, F_VV | F_VX},   [0x1c] = {VEC_MFNE, F_VV | F_VX},
    [0x1d] = {VEC_MFGT, F_VX},          [0x1f] = {VEC_MFGE, F_VX},
    [0x20] = {VEC_FDIV, F_VV | F_VX},   [0x21] = {VEC_FRDIV, F_VX},
    [0x24] = {VEC_FMUL, F_VV | F_VX},   [0x27] = {VEC_FRSUB, F_VX},
    [0x28] = {VEC_FMADD, F_VV | F_VX},  [0x29] = {VEC_FNMADD, F_VV | F_VX},
    [0x2a] = {VEC_FMSUB, F_VV | F_VX},  [0x2b] = {VEC_FNMSUB, F_VV | F_VX},
    [0x2c] = {VEC_FMACC, F_VV | F_VX},  [0x2d] = {VEC_FNMACC, F_VV | F_VX},
    [0x2e] = {VEC_FMSAC, F_VV | F_VX},  [0x2f] = {VEC_FNMSAC, F_VV | F_VX},
    [0x01] = {VEC_FREDUSUM, F_VV},      [0x03] = {VEC_FREDOSUM, F_VV},
    [0x05] = {VEC_FREDMIN, F_VV},       [0x07] = {VEC_FREDMAX, F_VV},
    [0x30] = {VEC_FWADD, F_VV | F_VX},  [0x31] = {VEC_FWREDUSUM, F_VV},
    [0x32] = {VEC_FWSUB, F_VV | F_VX},  [0x33] = {VEC_FWREDOSUM, F_VV},
    [0x34] = {VEC_FWADD_W, F_VV | F_VX}, [0x36] = {VEC_FWSUB_W, F_VV | F_VX},
    [0x38] = {VEC_FWMUL, F_VV | F_VX},  [0x3c] = {VEC_FWMACC, F_VV | F_VX},
    [0x3d] = {VEC_FWNMACC, F_VV | F_VX}, [0x3e] = {VEC_FWMSAC, F_VV | F_VX},
    [0x3f] = {VEC_FWNMSAC, F_VV | F_VX},
};

#define ILLEGAL SIM_CAUSE_ILLEGAL

/* OPFVV (f3 1) and OPFVF (f3 5). */
static int decode_opf(uint32_t insn, sim_vec_insn *o, bool vf)
{
    unsigned f6 = insn >> 26, vs1 = vec_rs1(insn), vs2 = vec_vs2(insn);
    o->form = vf ? VEC_VF : VEC_VV;
    if (f6 == 0x10) { /* VWFUNARY0 (vfmv.f.s) / VRFUNARY0 (vfmv.s.f) */
        o->op = vf ? VEC_FMV_S_F : VEC_FMV_F_S;
        return o->vm && (vf ? vs2 == 0 : vs1 == 0) ? 0 : ILLEGAL;
    }
    if (f6 == 0x12 || f6 == 0x13) { /* VFUNARY0 (conversions), VFUNARY1 */
        static const uint8_t cvt[24] = {
            VEC_FCVT_XU_F,   VEC_FCVT_X_F,    VEC_FCVT_F_XU,      VEC_FCVT_F_X,
            0,               0,               VEC_FCVT_RTZ_XU_F,  VEC_FCVT_RTZ_X_F,
            VEC_FWCVT_XU_F,  VEC_FWCVT_X_F,   VEC_FWCVT_F_XU,     VEC_FWCVT_F_X,
            VEC_FWCVT_F_F,   0,               VEC_FWCVT_RTZ_XU_F, VEC_FWCVT_RTZ_X_F,
            VEC_FNCVT_XU_F,  VEC_FNCVT_X_F,   VEC_FNCVT_F_XU,     VEC_FNCVT_F_X,
            VEC_FNCVT_F_F,   VEC_FNCVT_ROD_F_F, VEC_FNCVT_RTZ_XU_F, VEC_FNCVT_RTZ_X_F};
        if (vf)
            return ILLEGAL;
        if (f6 == 0x12 && vs1 < 24 && cvt[vs1]) {
            o->op = cvt[vs1];
            return 0;
        }
        if (f6 == 0x13 && (vs1 == 0 || vs1 == 4 || vs1 == 5 || vs1 == 0x10)) {
            o->op = vs1 == 0 ? VEC_FSQRT : vs1 == 4 ? VEC_FRSQRT7 : vs1 == 5 ? VEC_FREC7 : VEC_FCLASS;
            return 0;
        }
        return ILLEGAL;
    }
    if (!opf[f6].forms || !(opf[f6].forms & (vf ? F_VX : F_VV)))
        return ILLEGAL;
    o->op = opf[f6].op;
    if (o->op == VEC_FMERGE && o->vm) { /* vfmv.v.f: vs2 must be v0 */
        if (vs2 != 0)
            return ILLEGAL;
        o->op = VEC_FMV_V_F;
    }
    return 0;
}

static int decode_opv(uint32_t insn, sim_vec_insn *o)
{
    unsigned f3 = (insn >> 12) & 7, f6 = insn >> 26, vs1 = vec_rs1(insn), vs2 = vec_vs2(insn);
    o->vm = (insn >> 25) & 1;
    if (f3 == 7) {
        if ((insn >> 31) == 0)
            o->op = VEC_VSETVLI;
        else if ((insn >> 30) == 3)
            o->op = VEC_VSETIVLI;
        else if ((insn >> 25) == 0x40)
            o->op = VEC_VSETVL;
        else
            return ILLEGAL;
        return 0;
    }
    if (f3 == 0 || f3 == 3 || f3 == 4) { /* OPIVV, OPIVI, OPIVX */
        unsigned form = f3 == 0 ? F_VV : f3 == 3 ? F_VI : F_VX;
        if (!(opi[f6].forms & form))
            return ILLEGAL;
        o->op = opi[f6].op;
        o->form = f3 == 0 ? VEC_VV : f3 == 3 ? VEC_VI : VEC_VX;
        if (o->op == VEC_MERGE && o->vm) { /* vmv.v.*: vs2 must be v0 */
            if (vs2 != 0)
                return ILLEGAL;
            o->op = VEC_MV;
        }
        if (o->op == VEC_MVNR && form != F_VI) /* funct6 0x27 .vv/.vx is vsmul */
            o->op = VEC_SMUL;
        if (o->op == VEC_MVNR && (!o->vm || (vs1 != 0 && vs1 != 1 && vs1 != 3 && vs1 != 7)))
            return ILLEGAL;
        if (o->op == VEC_SLIDEUP && form == F_VV) /* funct6 0x0e .vv is vrgatherei16 */
            o->op = VEC_RGATHEREI16;
        /* vadc/vsbc take the carry from v0 (vm 0 only); vmadc/vmsbc both */
        if ((o->op == VEC_ADC || o->op == VEC_SBC) && o->vm)
            return ILLEGAL;
        return 0;
    }
    if (f3 == 2 || f3 == 6) { /* OPMVV, OPMVX */
        bool vv = f3 == 2;
        o->form = vv ? VEC_VV : VEC_VX;
        if (f6 == 0x10) { /* VWXUNARY0 / VRXUNARY0 */
            if (!vv) {
                o->op = VEC_MV_S_X;
                return vs2 == 0 && o->vm ? 0 : ILLEGAL;
            }
            if (vs1 == 0x00) {
                o->op = VEC_MV_X_S;
                return o->vm ? 0 : ILLEGAL;
            }
            if (vs1 == 0x10 || vs1 == 0x11) {
                o->op = vs1 == 0x10 ? VEC_CPOP : VEC_FIRST;
                return 0;
            }
            return ILLEGAL;
        }
        if (f6 == 0x12) { /* VXUNARY0: vzext/vsext.vf8, vf4, vf2 */
            if (!vv || vs1 < 2 || vs1 > 7)
                return ILLEGAL;
            o->op = vs1 & 1 ? VEC_SEXT : VEC_ZEXT;
            o->nf = (uint8_t)(8 >> ((vs1 - 2) / 2)); /* 2, 3: 8; 4, 5: 4; 6, 7: 2 */
            return 0;
        }
        if (f6 == 0x14) { /* VMUNARY0 */
            if (!vv)
                return ILLEGAL;
            switch (vs1) {
            case 0x01: o->op = VEC_MSBF; return 0;
            case 0x02: o->op = VEC_MSOF; return 0;
            case 0x03: o->op = VEC_MSIF; return 0;
            case 0x10: o->op = VEC_IOTA; return 0;
            case 0x11: o->op = VEC_ID; return vs2 == 0 ? 0 : ILLEGAL;
            default: return ILLEGAL;
            }
        }
        if (!(opm[f6].forms & (vv ? F_VV : F_VX)))
            return ILLEGAL;
        o->op = opm[f6].op;
        /* mask logicals and vcompress exist unmasked only */
        if (((o->op >= VEC_MANDN && o->op <= VEC_MXNOR) || o->op == VEC_COMPRESS) && !o->vm)
            return ILLEGAL;
        return 0;
    }
    return decode_opf(insn, o, f3 == 5); /* OPFVV, OPFVF */
}

static int decode_mem(uint32_t insn, sim_vec_insn *o)
{
    unsigned f3 = (insn >> 12) & 7, mop = (insn >> 26) & 3, lumop = vec_vs2(insn);
    bool store = (insn & 0x7f) == 0x27;
    o->op = store ? VEC_STORE : VEC_LOAD;
    o->store = store;
    o->vm = (insn >> 25) & 1;
    o->nf = (uint8_t)((insn >> 29) + 1);
    o->eew = (uint8_t)(f3 == 0 ? 1 : 1u << (f3 - 4)); /* widths 0, 5, 6, 7 */
    if ((insn >> 28) & 1) /* mew: EEW 128 and up */
        return ILLEGAL;
    switch (mop) {
    case 1: o->form = VEC_INDEXED; return 0;
    case 2: o->form = VEC_STRIDED; return 0;
    case 3: o->form = VEC_INDEXED_ORDERED; return 0;
    default: break;
    }
    switch (lumop) {
    case 0x00: o->form = VEC_UNIT; return 0;
    case 0x08: /* whole registers: 1, 2, 4 or 8, unmasked; stores as EEW 8 */
        o->form = VEC_WHOLE;
        if (!o->vm || (o->nf & (o->nf - 1)) || (store && o->eew != 1))
            return ILLEGAL;
        return 0;
    case 0x0b: /* vlm.v / vsm.v */
        o->form = VEC_MASK;
        return o->vm && o->nf == 1 && o->eew == 1 ? 0 : ILLEGAL;
    case 0x10:
        o->form = VEC_FF;
        return store ? ILLEGAL : 0;
    default: return ILLEGAL;
    }
}

int sim_vec_decode(uint32_t insn, sim_vec_insn *out)
{
    memset(out, 0, sizeof *out);
    switch (insn & 0x7f) {
    case 0x57: return decode_opv(insn, out);
    case 0x07:
    case 0x27: {
        unsigned f3 = (insn >> 12) & 7;
        if (f3 != 0 && f3 < 5)
            return ILLEGAL; /* scalar FP widths: not the vector unit's */
        return decode_mem(insn, out);
    }
    default: return ILLEGAL;
    }
}

bool sim_vec_writes_f(const sim_vec_insn *vi)
{
    return vi->op == VEC_FMV_F_S;
}

bool sim_vec_writes_x(const sim_vec_insn *vi)
{
    switch (vi->op) {
    case VEC_VSETVLI: case VEC_VSETIVLI: case VEC_VSETVL:
    case VEC_MV_X_S: case VEC_CPOP: case VEC_FIRST:
        return true;
    default:
        return false;
    }
}
