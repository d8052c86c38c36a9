/* rvc: the RV64 compressed instructions (the C extension), each expanded
 * to the 32-bit instruction it stands for, so that the decoder and the
 * hot loop know only one form.  Reserved encodings (and the all-zero
 * halfword) expand to 0, which decodes as illegal; HINTs (c.nop with an
 * immediate, c.li/c.lui/c.mv/c.add/c.slli to x0, zero shifts) expand to
 * the instruction whose effect they have: none.  RV64 has no C.FLW/C.FSW
 * (their slots are C.LD/C.SD) and no C.JAL (its slot is C.ADDIW). */
#include <stdint.h>

#include "hart_internal.h"

enum {
    OPC_LOAD = 0x03,
    OPC_LOAD_FP = 0x07,
    OPC_OP_IMM = 0x13,
    OPC_OP_IMM_32 = 0x1b,
    OPC_STORE = 0x23,
    OPC_STORE_FP = 0x27,
    OPC_OP = 0x33,
    OPC_LUI = 0x37,
    OPC_OP_32 = 0x3b,
    OPC_BRANCH = 0x63,
    OPC_JALR = 0x67,
    OPC_JAL = 0x6f,
};

static uint32_t bit(uint32_t c, unsigned from, unsigned to)
{
    /* bit `from` of c, placed at bit `to` */
    return ((c >> from) & 1u) << to;
}

static uint32_t field(uint32_t c, unsigned hi, unsigned lo)
{
    return (c >> lo) & ((1u << (hi - lo + 1)) - 1);
}

static uint32_t enc_i(uint32_t opc, unsigned f3, unsigned rd, unsigned rs1, int32_t imm)
{
    return ((uint32_t)imm << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}

static uint32_t enc_s(uint32_t opc, unsigned f3, unsigned rs1, unsigned rs2, int32_t imm)
{
    uint32_t u = (uint32_t)imm;
    return (field(u, 11, 5) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) |
           (field(u, 4, 0) << 7) | opc;
}

static uint32_t enc_r(uint32_t opc, unsigned f7, unsigned f3, unsigned rd, unsigned rs1,
                      unsigned rs2)
{
    return (f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opc;
}

static uint32_t enc_b(unsigned f3, unsigned rs1, unsigned rs2, int32_t imm)
{
    uint32_t u = (uint32_t)imm;
    return (bit(u, 12, 31)) | (field(u, 10, 5) << 25) | (rs2 << 20) | (rs1 << 15) |
           (f3 << 12) | (field(u, 4, 1) << 8) | (bit(u, 11, 7)) | OPC_BRANCH;
}

static uint32_t enc_j(unsigned rd, int32_t imm)
{
    uint32_t u = (uint32_t)imm;
    return bit(u, 20, 31) | (field(u, 10, 1) << 21) | bit(u, 11, 20) |
           (field(u, 19, 12) << 12) | (rd << 7) | OPC_JAL;
}

/* Sign-extends the low `bits` bits of v. */
static int32_t sext(uint32_t v, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    v &= (1u << bits) - 1;
    return (int32_t)((v ^ m) - m);
}

static uint32_t quadrant0(uint32_t c)
{
    unsigned rdp = 8 + field(c, 4, 2), rs1p = 8 + field(c, 9, 7);
    /* the offsets of the word and doubleword forms */
    uint32_t off_w = (field(c, 12, 10) << 3) | bit(c, 6, 2) | bit(c, 5, 6);
    uint32_t off_d = (field(c, 12, 10) << 3) | (field(c, 6, 5) << 6);
    switch (field(c, 15, 13)) {
    case 0: { /* C.ADDI4SPN */
        uint32_t imm = (field(c, 12, 11) << 4) | (field(c, 10, 7) << 6) | bit(c, 6, 2) |
                       bit(c, 5, 3);
        if (imm == 0) /* also the all-zero halfword */
            return 0;
        return enc_i(OPC_OP_IMM, 0, rdp, 2, (int32_t)imm);
    }
    case 1: return enc_i(OPC_LOAD_FP, 3, rdp, rs1p, (int32_t)off_d); /* C.FLD */
    case 2: return enc_i(OPC_LOAD, 2, rdp, rs1p, (int32_t)off_w);    /* C.LW */
    case 3: return enc_i(OPC_LOAD, 3, rdp, rs1p, (int32_t)off_d);    /* C.LD */
    case 5: return enc_s(OPC_STORE_FP, 3, rs1p, rdp, (int32_t)off_d); /* C.FSD */
    case 6: return enc_s(OPC_STORE, 2, rs1p, rdp, (int32_t)off_w);    /* C.SW */
    case 7: return enc_s(OPC_STORE, 3, rs1p, rdp, (int32_t)off_d);    /* C.SD */
    default: return 0; /* 4: reserved (Zcb's slot) */
    }
}

static uint32_t quadrant1(uint32_t c)
{
    unsigned rd = field(c, 11, 7);
    unsigned rdp = 8 + field(c, 9, 7), rs2p = 8 + field(c, 4, 2);
    int32_t imm6 = sext((bit(c, 12, 5) | field(c, 6, 2)), 6);
    switch (field(c, 15, 13)) {
    case 0: return enc_i(OPC_OP_IMM, 0, rd, rd, imm6); /* C.ADDI (C.NOP) */
    case 1:                                            /* C.ADDIW */
        if (rd == 0)
            return 0;
        return enc_i(OPC_OP_IMM_32, 0, rd, rd, imm6);
    case 2: return enc_i(OPC_OP_IMM, 0, rd, 0, imm6); /* C.LI */
    case 3:
        if (rd == 2) { /* C.ADDI16SP */
            uint32_t u = bit(c, 12, 9) | bit(c, 6, 4) | bit(c, 5, 6) | (field(c, 4, 3) << 7) |
                         bit(c, 2, 5);
            if (u == 0)
                return 0;
            return enc_i(OPC_OP_IMM, 0, 2, 2, sext(u, 10));
        } else { /* C.LUI */
            if (imm6 == 0)
                return 0;
            return ((uint32_t)imm6 << 12) | (rd << 7) | OPC_LUI;
        }
    case 4: {
        unsigned shamt = bit(c, 12, 5) | field(c, 6, 2);
        switch (field(c, 11, 10)) {
        case 0: return enc_i(OPC_OP_IMM, 5, rdp, rdp, (int32_t)shamt);           /* C.SRLI */
        case 1: return enc_i(OPC_OP_IMM, 5, rdp, rdp, (int32_t)(0x400 | shamt)); /* C.SRAI */
        case 2: return enc_i(OPC_OP_IMM, 7, rdp, rdp, imm6);                     /* C.ANDI */
        default: break;
        }
        static const struct {
            uint8_t f7, f3, opc;
        } ops[8] = {
            {0x20, 0, OPC_OP}, /* C.SUB */
            {0x00, 4, OPC_OP}, /* C.XOR */
            {0x00, 6, OPC_OP}, /* C.OR */
            {0x00, 7, OPC_OP}, /* C.AND */
            {0x20, 0, OPC_OP_32}, /* C.SUBW */
            {0x00, 0, OPC_OP_32}, /* C.ADDW */
            {0, 0, 0},            /* reserved */
            {0, 0, 0},            /* reserved */
        };
        unsigned k = (bit(c, 12, 2)) | field(c, 6, 5);
        if (ops[k].opc == 0)
            return 0;
        return enc_r(ops[k].opc, ops[k].f7, ops[k].f3, rdp, rdp, rs2p);
    }
    case 5: { /* C.J */
        uint32_t u = bit(c, 12, 11) | bit(c, 11, 4) | (field(c, 10, 9) << 8) | bit(c, 8, 10) |
                     bit(c, 7, 6) | bit(c, 6, 7) | (field(c, 5, 3) << 1) | bit(c, 2, 5);
        return enc_j(0, sext(u, 12));
    }
    default: { /* 6: C.BEQZ, 7: C.BNEZ */
        uint32_t u = bit(c, 12, 8) | (field(c, 11, 10) << 3) | (field(c, 6, 5) << 6) |
                     (field(c, 4, 3) << 1) | bit(c, 2, 5);
        return enc_b(field(c, 15, 13) == 6 ? 0 : 1, rdp, 0, sext(u, 9));
    }
    }
}

static uint32_t quadrant2(uint32_t c)
{
    unsigned rd = field(c, 11, 7), rs2 = field(c, 6, 2);
    uint32_t off_wsp = bit(c, 12, 5) | (field(c, 6, 4) << 2) | (field(c, 3, 2) << 6);
    uint32_t off_dsp = bit(c, 12, 5) | (field(c, 6, 5) << 3) | (field(c, 4, 2) << 6);
    uint32_t soff_w = (field(c, 12, 9) << 2) | (field(c, 8, 7) << 6);
    uint32_t soff_d = (field(c, 12, 10) << 3) | (field(c, 9, 7) << 6);
    switch (field(c, 15, 13)) {
    case 0: /* C.SLLI */
        return enc_i(OPC_OP_IMM, 1, rd, rd, (int32_t)(bit(c, 12, 5) | field(c, 6, 2)));
    case 1: return enc_i(OPC_LOAD_FP, 3, rd, 2, (int32_t)off_dsp); /* C.FLDSP */
    case 2:                                                        /* C.LWSP */
        if (rd == 0)
            return 0;
        return enc_i(OPC_LOAD, 2, rd, 2, (int32_t)off_wsp);
    case 3: /* C.LDSP */
        if (rd == 0)
            return 0;
        return enc_i(OPC_LOAD, 3, rd, 2, (int32_t)off_dsp);
    case 4:
        if (!bit(c, 12, 0)) {
            if (rs2 == 0) { /* C.JR */
                if (rd == 0)
                    return 0;
                return enc_i(OPC_JALR, 0, 0, rd, 0);
            }
            return enc_r(OPC_OP, 0, 0, rd, 0, rs2); /* C.MV */
        }
        if (rs2 == 0) {
            if (rd == 0)
                return 0x00100073; /* C.EBREAK */
            return enc_i(OPC_JALR, 0, 1, rd, 0); /* C.JALR */
        }
        return enc_r(OPC_OP, 0, 0, rd, rd, rs2);                     /* C.ADD */
    case 5: return enc_s(OPC_STORE_FP, 3, 2, rs2, (int32_t)soff_d); /* C.FSDSP */
    case 6: return enc_s(OPC_STORE, 2, 2, rs2, (int32_t)soff_w);    /* C.SWSP */
    default: return enc_s(OPC_STORE, 3, 2, rs2, (int32_t)soff_d);   /* C.SDSP */
    }
}

uint32_t sim_rvc_expand(uint16_t c)
{
    switch (c & 3) {
    case 0: return quadrant0(c);
    case 1: return quadrant1(c);
    case 2: return quadrant2(c);
    default: return 0; /* not compressed */
    }
}
