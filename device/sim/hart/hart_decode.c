/* hart_decode: RV64IMAFDCV + Zicsr + Zifencei + Zba + Zbb encodings into
 * the decoded cache's entries (hart_internal.h); vector ones are
 * sim_vec_decode's.  Decoding is strict: an encoding this hart does not
 * implement (vector groups not done yet, Zfh, Q, S-mode
 * instructions, reserved fields of the shift and system encodings)
 * becomes SIM_OP_ILLEGAL, so that it traps with its bits in mtval.  ALU
 * operations that write x0 become SIM_OP_NOP, which is what keeps x0 zero
 * without a store per instruction in the hot loop; loads, jumps, CSRs and
 * atomics to x0 still execute (they have effects) and the hot loop
 * re-zeroes x0 after them. */
#include <string.h>

#include "hart_internal.h"

static int32_t imm_i(uint32_t insn)
{
    return (int32_t)insn >> 20;
}

static int32_t imm_s(uint32_t insn)
{
    return (int32_t)(((uint32_t)((int32_t)insn >> 25) << 5) | ((insn >> 7) & 31));
}

static int32_t imm_b(uint32_t insn)
{
    uint32_t u = ((insn >> 31) << 12) | (((insn >> 7) & 1) << 11) | (((insn >> 25) & 63) << 5) |
                 (((insn >> 8) & 15) << 1);
    return (int32_t)(u << 19) >> 19;
}

static int32_t imm_j(uint32_t insn)
{
    uint32_t u = ((insn >> 31) << 20) | (((insn >> 12) & 255) << 12) |
                 (((insn >> 20) & 1) << 11) | (((insn >> 21) & 1023) << 1);
    return (int32_t)(u << 11) >> 11;
}

/* An ALU op: writing x0 makes it a no-op. */
static sim_op alu(const sim_insn *d, sim_op op)
{
    return d->rd == 0 ? SIM_OP_NOP : op;
}

static sim_op decode_op_imm(sim_insn *d, uint32_t insn, unsigned f3)
{
    unsigned f6 = insn >> 26, imm12 = insn >> 20, shamt = (insn >> 20) & 63;
    switch (f3) {
    case 0: return alu(d, SIM_OP_ADDI);
    case 2: return alu(d, SIM_OP_SLTI);
    case 3: return alu(d, SIM_OP_SLTIU);
    case 4: return alu(d, SIM_OP_XORI);
    case 6: return alu(d, SIM_OP_ORI);
    case 7: return alu(d, SIM_OP_ANDI);
    case 1:
        d->imm = (int32_t)shamt;
        if (f6 == 0)
            return alu(d, SIM_OP_SLLI);
        switch (imm12) {
        case 0x600: return alu(d, SIM_OP_CLZ);
        case 0x601: return alu(d, SIM_OP_CTZ);
        case 0x602: return alu(d, SIM_OP_CPOP);
        case 0x604: return alu(d, SIM_OP_SEXT_B);
        case 0x605: return alu(d, SIM_OP_SEXT_H);
        default: return SIM_OP_ILLEGAL;
        }
    default: /* 5 */
        d->imm = (int32_t)shamt;
        if (f6 == 0x00)
            return alu(d, SIM_OP_SRLI);
        if (f6 == 0x10)
            return alu(d, SIM_OP_SRAI);
        if (f6 == 0x18)
            return alu(d, SIM_OP_RORI);
        if (imm12 == 0x287)
            return alu(d, SIM_OP_ORC_B);
        if (imm12 == 0x6b8)
            return alu(d, SIM_OP_REV8);
        return SIM_OP_ILLEGAL;
    }
}

static sim_op decode_op_imm_32(sim_insn *d, uint32_t insn, unsigned f3)
{
    unsigned f7 = insn >> 25, imm12 = insn >> 20;
    unsigned shamt5 = (insn >> 20) & 31;
    switch (f3) {
    case 0: return alu(d, SIM_OP_ADDIW);
    case 1:
        if (f7 == 0) {
            d->imm = (int32_t)shamt5;
            return alu(d, SIM_OP_SLLIW);
        }
        if ((insn >> 26) == 0x02) { /* slli.uw: a 6-bit shamt */
            d->imm = (int32_t)((insn >> 20) & 63);
            return alu(d, SIM_OP_SLLI_UW);
        }
        switch (imm12) {
        case 0x600: return alu(d, SIM_OP_CLZW);
        case 0x601: return alu(d, SIM_OP_CTZW);
        case 0x602: return alu(d, SIM_OP_CPOPW);
        default: return SIM_OP_ILLEGAL;
        }
    case 5:
        d->imm = (int32_t)shamt5;
        if (f7 == 0x00)
            return alu(d, SIM_OP_SRLIW);
        if (f7 == 0x20)
            return alu(d, SIM_OP_SRAIW);
        if (f7 == 0x30)
            return alu(d, SIM_OP_RORIW);
        return SIM_OP_ILLEGAL;
    default: return SIM_OP_ILLEGAL;
    }
}

static sim_op decode_op(sim_insn *d, uint32_t insn, unsigned f3)
{
    unsigned f7 = insn >> 25;
    static const sim_op base[8] = {SIM_OP_ADD, SIM_OP_SLL, SIM_OP_SLT, SIM_OP_SLTU,
                                   SIM_OP_XOR, SIM_OP_SRL, SIM_OP_OR,  SIM_OP_AND};
    static const sim_op mext[8] = {SIM_OP_MUL, SIM_OP_MULH, SIM_OP_MULHSU, SIM_OP_MULHU,
                                   SIM_OP_DIV, SIM_OP_DIVU, SIM_OP_REM,    SIM_OP_REMU};
    switch (f7) {
    case 0x00: return alu(d, base[f3]);
    case 0x01: return alu(d, mext[f3]);
    case 0x20:
        switch (f3) {
        case 0: return alu(d, SIM_OP_SUB);
        case 5: return alu(d, SIM_OP_SRA);
        case 4: return alu(d, SIM_OP_XNOR);
        case 6: return alu(d, SIM_OP_ORN);
        case 7: return alu(d, SIM_OP_ANDN);
        default: return SIM_OP_ILLEGAL;
        }
    case 0x10:
        switch (f3) {
        case 2: return alu(d, SIM_OP_SH1ADD);
        case 4: return alu(d, SIM_OP_SH2ADD);
        case 6: return alu(d, SIM_OP_SH3ADD);
        default: return SIM_OP_ILLEGAL;
        }
    case 0x05:
        switch (f3) {
        case 4: return alu(d, SIM_OP_MIN);
        case 5: return alu(d, SIM_OP_MINU);
        case 6: return alu(d, SIM_OP_MAX);
        case 7: return alu(d, SIM_OP_MAXU);
        default: return SIM_OP_ILLEGAL;
        }
    case 0x30:
        if (f3 == 1)
            return alu(d, SIM_OP_ROL);
        if (f3 == 5)
            return alu(d, SIM_OP_ROR);
        return SIM_OP_ILLEGAL;
    default: return SIM_OP_ILLEGAL;
    }
}

static sim_op decode_op_32(sim_insn *d, uint32_t insn, unsigned f3)
{
    unsigned f7 = insn >> 25;
    switch (f7) {
    case 0x00:
        switch (f3) {
        case 0: return alu(d, SIM_OP_ADDW);
        case 1: return alu(d, SIM_OP_SLLW);
        case 5: return alu(d, SIM_OP_SRLW);
        default: return SIM_OP_ILLEGAL;
        }
    case 0x20:
        if (f3 == 0)
            return alu(d, SIM_OP_SUBW);
        if (f3 == 5)
            return alu(d, SIM_OP_SRAW);
        return SIM_OP_ILLEGAL;
    case 0x01:
        switch (f3) {
        case 0: return alu(d, SIM_OP_MULW);
        case 4: return alu(d, SIM_OP_DIVW);
        case 5: return alu(d, SIM_OP_DIVUW);
        case 6: return alu(d, SIM_OP_REMW);
        case 7: return alu(d, SIM_OP_REMUW);
        default: return SIM_OP_ILLEGAL;
        }
    case 0x04:
        if (f3 == 0)
            return alu(d, SIM_OP_ADD_UW);
        if (f3 == 4 && d->rs2 == 0)
            return alu(d, SIM_OP_ZEXT_H);
        return SIM_OP_ILLEGAL;
    case 0x10:
        switch (f3) {
        case 2: return alu(d, SIM_OP_SH1ADD_UW);
        case 4: return alu(d, SIM_OP_SH2ADD_UW);
        case 6: return alu(d, SIM_OP_SH3ADD_UW);
        default: return SIM_OP_ILLEGAL;
        }
    case 0x30:
        if (f3 == 1)
            return alu(d, SIM_OP_ROLW);
        if (f3 == 5)
            return alu(d, SIM_OP_RORW);
        return SIM_OP_ILLEGAL;
    default: return SIM_OP_ILLEGAL;
    }
}

static sim_op decode_amo(sim_insn *d, uint32_t insn, unsigned f3)
{
    unsigned f5 = insn >> 27;
    if (f3 != 2 && f3 != 3)
        return SIM_OP_ILLEGAL;
    d->imm = f3 == 2 ? 4 : 8;
    d->aux = (uint8_t)f5;
    switch (f5) {
    case 0x02: return d->rs2 == 0 ? SIM_OP_LR : SIM_OP_ILLEGAL;
    case 0x03: return SIM_OP_SC;
    case 0x00: /* amoadd */
    case 0x01: /* amoswap */
    case 0x04: /* amoxor */
    case 0x08: /* amoor */
    case 0x0c: /* amoand */
    case 0x10: /* amomin */
    case 0x14: /* amomax */
    case 0x18: /* amominu */
    case 0x1c: /* amomaxu */
        return SIM_OP_AMO;
    default: return SIM_OP_ILLEGAL;
    }
}

static sim_op decode_system(sim_insn *d, uint32_t insn, unsigned f3)
{
    if (f3 == 0) {
        if (d->rd != 0 || d->rs1 != 0)
            return SIM_OP_ILLEGAL;
        switch (insn >> 20) {
        case 0x000: return SIM_OP_ECALL;
        case 0x001: return SIM_OP_EBREAK;
        case 0x302: return SIM_OP_MRET;
        case 0x105: return SIM_OP_WFI;
        default: return SIM_OP_ILLEGAL; /* sret, uret, sfence.vma: no S/U mode */
        }
    }
    if (f3 == 4)
        return SIM_OP_ILLEGAL;
    d->imm = (int32_t)(insn >> 20);
    d->aux = (uint8_t)f3;
    return SIM_OP_CSR;
}

/* A vector instruction (sim_vec.h), decoded once into the entry. */
static sim_op decode_vec(sim_insn *d, uint32_t insn)
{
    return sim_vec_decode(insn, &d->vec) == 0 ? SIM_OP_VEC : SIM_OP_ILLEGAL;
}

void sim_decode(sim_insn *d, uint32_t insn)
{
    unsigned f3 = (insn >> 12) & 7;
    sim_op op = SIM_OP_ILLEGAL;
    memset(d, 0, sizeof *d);
    d->bits = insn;
    d->len = 4;
    d->rd = (insn >> 7) & 31;
    d->rs1 = (insn >> 15) & 31;
    d->rs2 = (insn >> 20) & 31;
    d->imm = imm_i(insn);
    if ((insn & 3) != 3) {
        d->op = SIM_OP_ILLEGAL;
        return;
    }
    switch (insn & 0x7f) {
    case 0x37: /* LUI */
        d->imm = (int32_t)(insn & 0xfffff000u);
        op = alu(d, SIM_OP_LUI);
        break;
    case 0x17: /* AUIPC */
        d->imm = (int32_t)(insn & 0xfffff000u);
        op = alu(d, SIM_OP_AUIPC);
        break;
    case 0x6f:
        d->imm = imm_j(insn);
        op = SIM_OP_JAL;
        break;
    case 0x67:
        op = f3 == 0 ? SIM_OP_JALR : SIM_OP_ILLEGAL;
        break;
    case 0x63: {
        static const sim_op br[8] = {SIM_OP_BEQ,     SIM_OP_BNE, SIM_OP_ILLEGAL, SIM_OP_ILLEGAL,
                                     SIM_OP_BLT,     SIM_OP_BGE, SIM_OP_BLTU,    SIM_OP_BGEU};
        d->imm = imm_b(insn);
        op = br[f3];
        break;
    }
    case 0x03: {
        static const sim_op ld[8] = {SIM_OP_LB,  SIM_OP_LH,  SIM_OP_LW,  SIM_OP_LD,
                                     SIM_OP_LBU, SIM_OP_LHU, SIM_OP_LWU, SIM_OP_ILLEGAL};
        op = ld[f3];
        break;
    }
    case 0x23: {
        static const sim_op st[8] = {SIM_OP_SB,      SIM_OP_SH,      SIM_OP_SW,
                                     SIM_OP_SD,      SIM_OP_ILLEGAL, SIM_OP_ILLEGAL,
                                     SIM_OP_ILLEGAL, SIM_OP_ILLEGAL};
        d->imm = imm_s(insn);
        op = st[f3];
        break;
    }
    case 0x13: op = decode_op_imm(d, insn, f3); break;
    case 0x1b: op = decode_op_imm_32(d, insn, f3); break;
    case 0x33: op = decode_op(d, insn, f3); break;
    case 0x3b: op = decode_op_32(d, insn, f3); break;
    case 0x0f:
        /* FENCE's fm/pred/succ and reserved fields are ignored, as the
         * spec asks for forward compatibility; FENCE.I drops the cache. */
        if (f3 == 0)
            op = SIM_OP_NOP;
        else if (f3 == 1)
            op = SIM_OP_FENCE_I;
        break;
    case 0x73: op = decode_system(d, insn, f3); break;
    case 0x2f: op = decode_amo(d, insn, f3); break;
    case 0x07: /* LOAD-FP: widths 1 (H), 2 (W), 3 (D); 0, 5, 6, 7 vector; Q traps */
        if (f3 == 1)
            op = SIM_OP_FLH;
        else if (f3 == 2)
            op = SIM_OP_FLW;
        else if (f3 == 3)
            op = SIM_OP_FLD;
        else
            op = decode_vec(d, insn);
        break;
    case 0x27:
        d->imm = imm_s(insn);
        if (f3 == 1)
            op = SIM_OP_FSH;
        else if (f3 == 2)
            op = SIM_OP_FSW;
        else if (f3 == 3)
            op = SIM_OP_FSD;
        else
            op = decode_vec(d, insn);
        break;
    case 0x43: /* FMADD */
    case 0x47: /* FMSUB */
    case 0x4b: /* FNMSUB */
    case 0x4f: /* FNMADD */
    case 0x53: /* OP-FP */
        /* decoded once here; what it cannot be is illegal whatever the
         * state (a reserved rm in fcsr.frm is the run's to find) */
        op = sim_fpu_decode(insn, &d->fpu) == 0 ? SIM_OP_FPU : SIM_OP_ILLEGAL;
        break;
    case 0x57: op = decode_vec(d, insn); break; /* OP-V */
    default: break;
    }
    d->op = (uint8_t)op;
}

/* Copies `size` bytes of code at addr out of RAM; false when no RAM
 * range holds them. */
static bool fetch(const sim_mem *m, uint64_t addr, unsigned size, uint32_t *out)
{
    int i = sim_mem_find_ram(m, addr, size);
    if (i < 0)
        return false;
    const sim_ram *r = &m->ram[i];
    uint32_t v = 0;
    memcpy(&v, r->host + (addr - r->base), size);
    *out = v;
    return true;
}

void sim_decode_at(const sim_hart *h, uint64_t pc, sim_insn *d)
{
    uint64_t off = pc - h->code_base;
    uint32_t lo = 0, hi = 0;

    if (!fetch(h->mem, pc, 2, &lo)) {
        memset(d, 0, sizeof *d);
        d->op = SIM_OP_FETCH_FAULT;
        d->len = 2;
    } else if ((lo & 3) != 3) {
        uint32_t insn = sim_rvc_expand((uint16_t)lo);
        sim_decode(d, insn);
        if (insn == 0)
            d->op = SIM_OP_ILLEGAL;
        d->bits = lo;
        d->len = 2;
    } else if (off + 4 > h->code_size || !fetch(h->mem, pc + 2, 2, &hi)) {
        /* A 32-bit instruction whose upper half lies outside the code
         * range (or RAM) faults there: mtval names pc + 2, mepc the
         * instruction. */
        memset(d, 0, sizeof *d);
        d->op = SIM_OP_FETCH_FAULT;
        d->imm = 2;
        d->len = 4;
    } else {
        uint32_t insn = lo | (hi << 16);
        sim_decode(d, insn);
        if ((insn & 0x1c) == 0x1c) /* 48-bit and longer encodings */
            d->op = SIM_OP_ILLEGAL;
    }
    d->pc = pc;
}
