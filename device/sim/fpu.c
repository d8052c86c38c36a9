/* fpu: the decoding half of sim_fpu (sim_fpu.h) — fields, rounding mode,
 * NaN-boxing, register writes, fflags, latency; fpu_soft.c computes.
 *
 * Contract: an encoding this hart does not implement (the H and Q
 * formats, Zfa, a funct or rs2 field with no instruction behind it, a
 * reserved rounding mode, directly or through fcsr.frm) returns
 * SIM_CAUSE_ILLEGAL and changes nothing.  Otherwise the destination and
 * fcsr.fflags are updated together and 0 is returned.  Writes to x0 are
 * dropped; their flags are not. */
#include "sim_fpu.h"

#include "fpu_soft.h"

/* Modeled latency beyond the instruction's one cycle, by kind of
 * operation and format (S, D).  Not measured on silicon: an in-order
 * pipelined FPU's usual shape — moves and sign injection free, adds,
 * multiplies and fused multiply-adds a short pipeline, divide and square
 * root iterative and longer for D. */
typedef enum lat_kind {
    LAT_MOVE,    /* fmv, fsgnj, fclass */
    LAT_COMPARE, /* feq/flt/fle, fmin/fmax */
    LAT_CONVERT, /* fcvt of every kind */
    LAT_ADD,     /* fadd, fsub */
    LAT_MUL,
    LAT_FMA,
    LAT_DIV,
    LAT_SQRT,
} lat_kind;

static const uint8_t latency[][2] = {
    [LAT_MOVE] = {0, 0},     [LAT_COMPARE] = {1, 1}, [LAT_CONVERT] = {2, 2},
    [LAT_ADD] = {4, 4},      [LAT_MUL] = {4, 4},     [LAT_FMA] = {4, 4},
    [LAT_DIV] = {12, 20},    [LAT_SQRT] = {14, 25},
};

/* The mode an instruction rounds in, or -1 when it is reserved. */
static int rounding_mode(const sim_hart *h, uint32_t rm)
{
    if (rm == 7)
        rm = (h->fcsr >> 5) & 7;
    return rm <= SIM_RM_RMM ? (int)rm : -1;
}

static uint64_t read_f(const sim_hart *h, sim_fp_fmt f, uint32_t r)
{
    return f == SIM_FP_S ? sim_fpu_unbox(h->f[r]) : h->f[r];
}

static uint64_t boxed(sim_fp_fmt f, uint64_t v)
{
    return f == SIM_FP_S ? sim_fpu_box((uint32_t)v) : v;
}

int sim_fpu_exec(sim_hart *h, uint32_t insn, uint32_t *extra_cycles)
{
    uint32_t opcode = insn & 0x7f, rd = (insn >> 7) & 31, rm_field = (insn >> 12) & 7;
    uint32_t rs1 = (insn >> 15) & 31, rs2 = (insn >> 20) & 31, fmt = (insn >> 25) & 3;
    uint32_t funct5 = insn >> 27;
    *extra_cycles = 0;
    if (fmt > SIM_FP_D) /* H and Q */
        return SIM_CAUSE_ILLEGAL;
    sim_fp_fmt f = (sim_fp_fmt)fmt;
    uint64_t a = read_f(h, f, rs1), b = read_f(h, f, rs2);
    uint32_t flags = 0;
    uint64_t result;
    bool to_x = false; /* the result goes to x[rd], not f[rd] */
    lat_kind kind;
    int rm = -1;

    if (opcode != 0x53) {
        static const uint8_t sign_flips[4][2] = {
            /* {negate the product, negate the addend} */
            {0, 0}, /* 0x43 fmadd:  a*b + c */
            {0, 1}, /* 0x47 fmsub:  a*b - c */
            {1, 0}, /* 0x4b fnmsub: -(a*b) + c */
            {1, 1}, /* 0x4f fnmadd: -(a*b) - c */
        };
        if ((opcode & 0x73) != 0x43)
            return SIM_CAUSE_ILLEGAL;
        rm = rounding_mode(h, rm_field);
        if (rm < 0)
            return SIM_CAUSE_ILLEGAL;
        const uint8_t *flip = sign_flips[(opcode >> 2) & 3];
        uint64_t sign = f == SIM_FP_S ? 1ull << 31 : 1ull << 63;
        uint64_t c = read_f(h, f, funct5); /* rs3 */
        result = sim_fp_fma(f, flip[0] ? a ^ sign : a, b, flip[1] ? c ^ sign : c, rm, &flags);
        kind = LAT_FMA;
        goto done;
    }

    /* Which funct5 values round (and so need a valid rm). */
    switch (funct5) {
    case 0x00: case 0x01: case 0x02: case 0x03: case 0x0b: case 0x08: case 0x18:
    case 0x1a:
        rm = rounding_mode(h, rm_field);
        if (rm < 0)
            return SIM_CAUSE_ILLEGAL;
        break;
    default:
        break;
    }

    switch (funct5) {
    case 0x00:
        result = sim_fp_add(f, a, b, rm, &flags);
        kind = LAT_ADD;
        break;
    case 0x01:
        result = sim_fp_sub(f, a, b, rm, &flags);
        kind = LAT_ADD;
        break;
    case 0x02:
        result = sim_fp_mul(f, a, b, rm, &flags);
        kind = LAT_MUL;
        break;
    case 0x03:
        result = sim_fp_div(f, a, b, rm, &flags);
        kind = LAT_DIV;
        break;
    case 0x0b:
        if (rs2 != 0)
            return SIM_CAUSE_ILLEGAL;
        result = sim_fp_sqrt(f, a, rm, &flags);
        kind = LAT_SQRT;
        break;
    case 0x04: { /* fsgnj, fsgnjn, fsgnjx */
        uint64_t sign = f == SIM_FP_S ? 1ull << 31 : 1ull << 63;
        switch (rm_field) {
        case 0:
            result = (a & ~sign) | (b & sign);
            break;
        case 1:
            result = (a & ~sign) | (~b & sign);
            break;
        case 2:
            result = a ^ (b & sign);
            break;
        default:
            return SIM_CAUSE_ILLEGAL;
        }
        kind = LAT_MOVE;
        break;
    }
    case 0x05:
        if (rm_field > 1) /* 2, 3 would be Zfa's fminm/fmaxm */
            return SIM_CAUSE_ILLEGAL;
        result = rm_field ? sim_fp_max(f, a, b, &flags) : sim_fp_min(f, a, b, &flags);
        kind = LAT_COMPARE;
        break;
    case 0x08: { /* fcvt.s.d (fmt S, rs2 1), fcvt.d.s (fmt D, rs2 0) */
        sim_fp_fmt from = f == SIM_FP_S ? SIM_FP_D : SIM_FP_S;
        if (rs2 != (uint32_t)from)
            return SIM_CAUSE_ILLEGAL;
        result = sim_fp_convert(f, from, read_f(h, from, rs1), rm, &flags);
        kind = LAT_CONVERT;
        break;
    }
    case 0x14: /* fle, flt, feq */
        if (rm_field == 0)
            result = sim_fp_le(f, a, b, &flags);
        else if (rm_field == 1)
            result = sim_fp_lt(f, a, b, &flags);
        else if (rm_field == 2)
            result = sim_fp_eq(f, a, b, &flags);
        else
            return SIM_CAUSE_ILLEGAL;
        to_x = true;
        kind = LAT_COMPARE;
        break;
    case 0x18: /* fcvt.{w,wu,l,lu}.{s,d}: rs2 bit 0 unsigned, bit 1 64-bit */
        if (rs2 > 3)
            return SIM_CAUSE_ILLEGAL;
        result = sim_fp_to_int(f, a, !(rs2 & 1), rs2 & 2 ? 64 : 32, rm, &flags);
        to_x = true;
        kind = LAT_CONVERT;
        break;
    case 0x1a: /* fcvt.{s,d}.{w,wu,l,lu} */
        if (rs2 > 3)
            return SIM_CAUSE_ILLEGAL;
        result = sim_fp_from_int(f, h->x[rs1], !(rs2 & 1), rs2 & 2 ? 64 : 32, rm, &flags);
        kind = LAT_CONVERT;
        break;
    case 0x1c: /* fmv.x.w / fmv.x.d, fclass */
        if (rs2 != 0)
            return SIM_CAUSE_ILLEGAL;
        if (rm_field == 0) /* the raw bits: fmv.x.w neither unboxes nor checks */
            result = f == SIM_FP_S ? (uint64_t)(int64_t)(int32_t)(uint32_t)h->f[rs1]
                                   : h->f[rs1];
        else if (rm_field == 1)
            result = sim_fp_class(f, a);
        else
            return SIM_CAUSE_ILLEGAL;
        to_x = true;
        kind = LAT_MOVE;
        break;
    case 0x1e: /* fmv.w.x / fmv.d.x */
        if (rs2 != 0 || rm_field != 0)
            return SIM_CAUSE_ILLEGAL;
        result = f == SIM_FP_S ? (uint32_t)h->x[rs1] : h->x[rs1];
        kind = LAT_MOVE;
        break;
    default:
        return SIM_CAUSE_ILLEGAL;
    }

done:
    if (to_x) {
        if (rd != 0)
            h->x[rd] = result;
    } else {
        h->f[rd] = boxed(f, result);
    }
    h->fcsr |= flags;
    *extra_cycles = latency[kind][f];
    return 0;
}
