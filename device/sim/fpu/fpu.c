/* fpu: the decoding and the full execution of sim_fpu (sim_fpu.h) —
 * fields, rounding mode, NaN-boxing, register writes, fflags, latency,
 * and the choice between the host's FPU with its flags read back
 * (fpu_host.h) and the software arithmetic (fpu_soft.c, everything).
 *
 * sim_fpu_decode turns the bits into a sim_fpu_insn once: a dense op
 * (kind * 2 + format, fpu_ops.h), the registers, the rm field and the
 * latency; an encoding illegal whatever the state is refused there.
 * sim_fpu_run (fpu_quick.c) looks first and finishes the common cases
 * and the moves; sim_fpu_run_full here does the rest, dispatching on the
 * op alone, one switch, never the bits.
 *
 * Contract: an illegal instruction (statically, or a reserved fcsr.frm
 * through rm 7) returns SIM_CAUSE_ILLEGAL and changes nothing.  Otherwise
 * the destination and fcsr.fflags are updated together and 0 is returned.
 * Writes to x0 are dropped; their flags are not. */
#include "sim_fpu.h"

#include <stddef.h>

#include "fpu_host.h"
#include "fpu_ops.h"
#include "fpu_soft.h"

/* Modeled latency beyond the instruction's one cycle, by kind of
 * operation and format (S, D).  Not measured on silicon: an in-order
 * pipelined FPU's usual shape — moves and sign injection free, adds,
 * multiplies and fused multiply-adds a short pipeline, divide and square
 * root iterative and longer for D.  Half precision (Zfh) takes the S
 * column: the same pipeline, not measured either. */
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

/* Each kind's latency and whether it rounds (needs a valid rm). */
static const struct {
    uint8_t lat;
    bool rounds;
} kinds[K_COUNT] = {
    [K_ADD] = {LAT_ADD, true},       [K_SUB] = {LAT_ADD, true},
    [K_MUL] = {LAT_MUL, true},       [K_DIV] = {LAT_DIV, true},
    [K_SQRT] = {LAT_SQRT, true},     [K_FMADD] = {LAT_FMA, true},
    [K_FMSUB] = {LAT_FMA, true},     [K_FNMSUB] = {LAT_FMA, true},
    [K_FNMADD] = {LAT_FMA, true},    [K_SGNJ] = {LAT_MOVE, false},
    [K_SGNJN] = {LAT_MOVE, false},   [K_SGNJX] = {LAT_MOVE, false},
    [K_MIN] = {LAT_COMPARE, false},  [K_MAX] = {LAT_COMPARE, false},
    [K_CVT_FF] = {LAT_CONVERT, true}, [K_LE] = {LAT_COMPARE, false},
    [K_LT] = {LAT_COMPARE, false},   [K_EQ] = {LAT_COMPARE, false},
    [K_CVT_W] = {LAT_CONVERT, true}, [K_CVT_WU] = {LAT_CONVERT, true},
    [K_CVT_L] = {LAT_CONVERT, true}, [K_CVT_LU] = {LAT_CONVERT, true},
    [K_CVT_FW] = {LAT_CONVERT, true}, [K_CVT_FWU] = {LAT_CONVERT, true},
    [K_CVT_FL] = {LAT_CONVERT, true}, [K_CVT_FLU] = {LAT_CONVERT, true},
    [K_MV_X] = {LAT_MOVE, false},    [K_CLASS] = {LAT_MOVE, false},
    [K_MV_F] = {LAT_MOVE, false},    [K_CVT_FH] = {LAT_CONVERT, true},
};

/* The kind of an OP-FP (0x53) encoding, or -1 for none. */
static int opfp_kind(uint32_t funct5, uint32_t fmt, uint32_t rm, uint32_t rs2)
{
    switch (funct5) {
    case 0x00: return K_ADD;
    case 0x01: return K_SUB;
    case 0x02: return K_MUL;
    case 0x03: return K_DIV;
    case 0x0b: return rs2 == 0 ? K_SQRT : -1;
    case 0x04: return rm <= 2 ? K_SGNJ + (int)rm : -1;
    case 0x05: return rm <= 1 ? K_MIN + (int)rm : -1; /* 2, 3: Zfa's fminm/fmaxm */
    case 0x08: /* fcvt.<fmt>.<rs2>: between two different formats */
        if (rs2 > SIM_FP_H || rs2 == fmt)
            return -1;
        /* fcvt.s.h and fcvt.d.h have their own kind (the S/D ops' K_CVT_FF
         * means "from the other of S and D"); fcvt.h.s, fcvt.h.d read
         * rs2 for the source */
        return rs2 == SIM_FP_H ? K_CVT_FH : K_CVT_FF;
    case 0x14: return rm <= 2 ? K_LE + (int)rm : -1; /* fle, flt, feq */
    case 0x18: return rs2 <= 3 ? K_CVT_W + (int)rs2 : -1;
    case 0x1a: return rs2 <= 3 ? K_CVT_FW + (int)rs2 : -1;
    case 0x1c:
        if (rs2 != 0)
            return -1;
        return rm == 0 ? K_MV_X : rm == 1 ? K_CLASS : -1;
    case 0x1e: return rs2 == 0 && rm == 0 ? K_MV_F : -1;
    default: return -1;
    }
}

int sim_fpu_decode(uint32_t insn, sim_fpu_insn *out)
{
    uint32_t opcode = insn & 0x7f, rd = (insn >> 7) & 31, rm = (insn >> 12) & 7;
    uint32_t rs1 = (insn >> 15) & 31, rs2 = (insn >> 20) & 31, fmt = (insn >> 25) & 3;
    uint32_t funct5 = insn >> 27;
    if (fmt > SIM_FP_H) /* Q */
        return SIM_CAUSE_ILLEGAL;
    int kind;
    if (opcode == 0x53)
        kind = opfp_kind(funct5, fmt, rm, rs2);
    else if ((opcode & 0x73) == 0x43) /* 0x43 fmadd, 0x47 fmsub, 0x4b fnmsub, 0x4f fnmadd */
        kind = K_FMADD + (int)((opcode >> 2) & 3);
    else
        kind = -1;
    if (kind < 0 || (kind == K_CVT_FH && fmt == SIM_FP_H))
        return SIM_CAUSE_ILLEGAL;
    if (kinds[kind].rounds) {
        if (rm == 5 || rm == 6)
            return SIM_CAUSE_ILLEGAL;
    } else {
        rm = SIM_RM_RNE; /* never looked at, always valid */
    }
    *out = (sim_fpu_insn){
        .op = (uint8_t)(fmt == SIM_FP_H ? OP_H + kind : kind * 2 + (int)fmt),
        .fmt = (uint8_t)fmt,
        .rd = (uint8_t)rd,
        .rs1 = (uint8_t)rs1,
        .rs2 = (uint8_t)rs2,
        .rs3 = (uint8_t)funct5,
        .rm = (uint8_t)rm,
        .extra = latency[kinds[kind].lat][fmt == SIM_FP_H ? SIM_FP_S : fmt],
    };
    return 0;
}

int sim_fpu_exec(sim_hart *h, uint32_t insn, uint32_t *extra_cycles)
{
    sim_fpu_insn fi;
    *extra_cycles = 0;
    if (sim_fpu_decode(insn, &fi) || sim_fpu_run(h, &fi))
        return SIM_CAUSE_ILLEGAL;
    *extra_cycles = fi.extra;
    return 0;
}

/* A NaN result from the host (its default NaN) as RISC-V's canonical. */
static inline uint64_t s_canon(uint64_t r)
{
    return (r & 0x7fffffffu) > 0x7f800000u ? 0x7fc00000u : r;
}
static inline uint64_t d_canon(uint64_t r)
{
    return (r & ~(1ull << 63)) > 0x7ff0000000000000ull ? 0x7ff8000000000000ull : r;
}

/* One Zfh instruction (op OP_H + kind), all in software: operands
 * unboxed (a bad box reads as the canonical NaN 0x7e00), the result's
 * raw bits returned — a half for the caller to box, or what goes to x. */
static uint64_t run_h(const sim_hart *h, const sim_fpu_insn *fi, int rm, uint32_t *flags)
{
    const uint64_t a = sim_fpu_unbox_h(h->f[fi->rs1]), b = sim_fpu_unbox_h(h->f[fi->rs2]);
    const uint64_t sgn = 0x8000u;
    const sim_fp_fmt H = SIM_FP_H;
    switch (fi->op - OP_H) {
    case K_ADD: return sim_fp_add(H, a, b, rm, flags);
    case K_SUB: return sim_fp_sub(H, a, b, rm, flags);
    case K_MUL: return sim_fp_mul(H, a, b, rm, flags);
    case K_DIV: return sim_fp_div(H, a, b, rm, flags);
    case K_SQRT: return sim_fp_sqrt(H, a, rm, flags);
    case K_FMADD: case K_FMSUB: case K_FNMSUB: case K_FNMADD: {
        int k = fi->op - OP_H;
        uint64_t c = sim_fpu_unbox_h(h->f[fi->rs3]);
        uint64_t fa = k == K_FNMSUB || k == K_FNMADD ? sgn : 0;
        uint64_t fc = k == K_FMSUB || k == K_FNMADD ? sgn : 0;
        return sim_fp_fma(H, a ^ fa, b, c ^ fc, rm, flags);
    }
    case K_SGNJ: return (a & ~sgn) | (b & sgn);
    case K_SGNJN: return (a & ~sgn) | (~b & sgn);
    case K_SGNJX: return a ^ (b & sgn);
    case K_MIN: return sim_fp_min(H, a, b, flags);
    case K_MAX: return sim_fp_max(H, a, b, flags);
    case K_CVT_FF: /* fcvt.h.s (rs2 0), fcvt.h.d (rs2 1): rounds */
        if (fi->rs2 == SIM_FP_S)
            return sim_fp_convert(H, SIM_FP_S, sim_fpu_unbox(h->f[fi->rs1]), rm, flags);
        return sim_fp_convert(H, SIM_FP_D, h->f[fi->rs1], rm, flags);
    case K_LE: return sim_fp_le(H, a, b, flags);
    case K_LT: return sim_fp_lt(H, a, b, flags);
    case K_EQ: return sim_fp_eq(H, a, b, flags);
    case K_CVT_W: return sim_fp_to_int(H, a, true, 32, rm, flags);
    case K_CVT_WU: return sim_fp_to_int(H, a, false, 32, rm, flags);
    case K_CVT_L: return sim_fp_to_int(H, a, true, 64, rm, flags);
    case K_CVT_LU: return sim_fp_to_int(H, a, false, 64, rm, flags);
    case K_CVT_FW: return sim_fp_from_int(H, h->x[fi->rs1], true, 32, rm, flags);
    case K_CVT_FWU: return sim_fp_from_int(H, h->x[fi->rs1], false, 32, rm, flags);
    case K_CVT_FL: return sim_fp_from_int(H, h->x[fi->rs1], true, 64, rm, flags);
    case K_CVT_FLU: return sim_fp_from_int(H, h->x[fi->rs1], false, 64, rm, flags);
    /* fmv.x.h: the raw low 16 bits, sign-extended, neither unboxed nor checked */
    case K_MV_X: return (uint64_t)(int64_t)(int16_t)(uint16_t)h->f[fi->rs1];
    case K_CLASS: return sim_fp_class(H, a);
    case K_MV_F: return (uint16_t)h->x[fi->rs1];
    default: return 0; /* K_CVT_FH is refused at decode for fmt H */
    }
}

int sim_fpu_run_full(sim_hart *h, const sim_fpu_insn *fi)
{
    int rm = fi->rm;
    if (rm == 7) {
        rm = (h->fcsr >> 5) & 7;
        if (rm > SIM_RM_RMM)
            return SIM_CAUSE_ILLEGAL;
    }
    const bool fast = sim_fpu_host_on && rm == SIM_RM_RNE;
    /* fflags.NX already set: a quiet result needs no flags read back
     * (QEMU's hardfloat does the same). */
    const bool nx = (h->fcsr & SIM_FF_NX) != 0;
    const uint64_t a = h->f[fi->rs1], b = h->f[fi->rs2];
    uint32_t flags = 0;
    uint64_t r;

/* The two formats' arithmetic: host when the common case, else soft. */
#define BIN_S(host, soft)                                                             \
    if (fast && s_plain(a) && s_plain(b)) {                                           \
        if (nx && s_quiet(r = host(a, b, NULL)))                                      \
            goto write_s;                                                             \
        r = s_canon(host(a, b, &flags));                                              \
    } else {                                                                          \
        r = soft(SIM_FP_S, sim_fpu_unbox(a), sim_fpu_unbox(b), rm, &flags);           \
    }                                                                                 \
    goto write_s
#define BIN_D(host, soft)                                                             \
    if (fast && d_plain(a) && d_plain(b)) {                                           \
        if (nx && d_quiet(r = host(a, b, NULL)))                                      \
            goto write_d;                                                             \
        r = d_canon(host(a, b, &flags));                                              \
    } else {                                                                          \
        r = soft(SIM_FP_D, a, b, rm, &flags);                                         \
    }                                                                                 \
    goto write_d
/* Fused multiply-adds: the sign flips on the product and the addend, as
 * the manual defines fmsub, fnmsub, fnmadd. */
#define FMA_S(fa, fc)                                                                 \
    {                                                                                 \
        uint64_t c = h->f[fi->rs3];                                                   \
        if (sim_fpu_host_fma_on && rm == SIM_RM_RNE && s_plain(a) && s_plain(b) &&    \
            s_plain(c)) {                                                             \
            if (nx && s_quiet(r = host_fma_s(a ^ (fa), b, c ^ (fc), NULL)))           \
                goto write_s;                                                         \
            r = s_canon(host_fma_s(a ^ (fa), b, c ^ (fc), &flags));                   \
        } else                                                                        \
            r = sim_fp_fma(SIM_FP_S, sim_fpu_unbox(a) ^ (fa), sim_fpu_unbox(b),       \
                           sim_fpu_unbox(c) ^ (fc), rm, &flags);                      \
        goto write_s;                                                                 \
    }
#define FMA_D(fa, fc)                                                                 \
    {                                                                                 \
        uint64_t c = h->f[fi->rs3];                                                   \
        if (sim_fpu_host_fma_on && rm == SIM_RM_RNE && d_plain(a) && d_plain(b) &&    \
            d_plain(c)) {                                                             \
            if (nx && d_quiet(r = host_fma_d(a ^ (fa), b, c ^ (fc), NULL)))           \
                goto write_d;                                                         \
            r = d_canon(host_fma_d(a ^ (fa), b, c ^ (fc), &flags));                   \
        } else                                                                        \
            r = sim_fp_fma(SIM_FP_D, a ^ (fa), b, c ^ (fc), rm, &flags);              \
        goto write_d;                                                                 \
    }

    switch (fi->op) {
    case ADD_S: BIN_S(host_add_s, sim_fp_add);
    case ADD_D: BIN_D(host_add_d, sim_fp_add);
    case SUB_S: BIN_S(host_sub_s, sim_fp_sub);
    case SUB_D: BIN_D(host_sub_d, sim_fp_sub);
    case MUL_S: BIN_S(host_mul_s, sim_fp_mul);
    case MUL_D: BIN_D(host_mul_d, sim_fp_mul);
    case DIV_S: BIN_S(host_div_s, sim_fp_div);
    case DIV_D: BIN_D(host_div_d, sim_fp_div);
    case SQRT_S:
        if (fast && s_plain(a)) {
            if (nx && s_quiet(r = host_sqrt_s(a, a, NULL)))
                goto write_s;
            r = s_canon(host_sqrt_s(a, a, &flags));
        } else {
            r = sim_fp_sqrt(SIM_FP_S, sim_fpu_unbox(a), rm, &flags);
        }
        goto write_s;
    case SQRT_D:
        if (fast && d_plain(a)) {
            if (nx && d_quiet(r = host_sqrt_d(a, a, NULL)))
                goto write_d;
            r = d_canon(host_sqrt_d(a, a, &flags));
        } else {
            r = sim_fp_sqrt(SIM_FP_D, a, rm, &flags);
        }
        goto write_d;
    case FMADD_S: FMA_S(0, 0)
    case FMSUB_S: FMA_S(0, SGN_S)
    case FNMSUB_S: FMA_S(SGN_S, 0)
    case FNMADD_S: FMA_S(SGN_S, SGN_S)
    case FMADD_D: FMA_D(0, 0)
    case FMSUB_D: FMA_D(0, SGN_D)
    case FNMSUB_D: FMA_D(SGN_D, 0)
    case FNMADD_D: FMA_D(SGN_D, SGN_D)

    /* sign injection: in sim_fpu_run (fpu_quick.c) */

    case MIN_S: r = sim_fp_min(SIM_FP_S, sim_fpu_unbox(a), sim_fpu_unbox(b), &flags); goto write_s;
    case MAX_S: r = sim_fp_max(SIM_FP_S, sim_fpu_unbox(a), sim_fpu_unbox(b), &flags); goto write_s;
    case MIN_D: r = sim_fp_min(SIM_FP_D, a, b, &flags); goto write_d;
    case MAX_D: r = sim_fp_max(SIM_FP_D, a, b, &flags); goto write_d;

    case CVT_FF_S: /* fcvt.s.d */
        if (fast && d_plain(a)) {
            if (nx && s_quiet(r = host_d_to_s(a, a, NULL)))
                goto write_s;
            r = (uint32_t)host_d_to_s(a, a, &flags);
        } else {
            r = sim_fp_convert(SIM_FP_S, SIM_FP_D, a, rm, &flags);
        }
        goto write_s;
    case CVT_FF_D: /* fcvt.d.s: exact, no flag but for a signaling NaN */
        if (sim_fpu_host_on && s_plain(a))
            r = host_s_to_d(a, a, NULL);
        else
            r = sim_fp_convert(SIM_FP_D, SIM_FP_S, sim_fpu_unbox(a), rm, &flags);
        goto write_d;

    /* Compares: the soft ones are integer work already. */
    case LE_S: r = sim_fp_le(SIM_FP_S, sim_fpu_unbox(a), sim_fpu_unbox(b), &flags); goto write_x;
    case LT_S: r = sim_fp_lt(SIM_FP_S, sim_fpu_unbox(a), sim_fpu_unbox(b), &flags); goto write_x;
    case EQ_S: r = sim_fp_eq(SIM_FP_S, sim_fpu_unbox(a), sim_fpu_unbox(b), &flags); goto write_x;
    case LE_D: r = sim_fp_le(SIM_FP_D, a, b, &flags); goto write_x;
    case LT_D: r = sim_fp_lt(SIM_FP_D, a, b, &flags); goto write_x;
    case EQ_D: r = sim_fp_eq(SIM_FP_D, a, b, &flags); goto write_x;

    /* To signed integers on the host in RNE and RTZ (C's casts); the
     * host's out-of-range answer (the most negative value) goes to the
     * soft path, which saturates, and so does the genuine most negative
     * value (rare).  The host's flags then are dropped. */
#define TO_INT(plain, host_rne, host_rtz, check, soft_fmt, soft_a, is_signed, width)  \
    if (sim_fpu_host_on && (rm == SIM_RM_RNE || rm == SIM_RM_RTZ) && plain(a)) {      \
        uint32_t fl = 0;                                                              \
        uint32_t *fp = nx ? NULL : &fl; /* only NX or (below) NV possible */          \
        int64_t v = rm == SIM_RM_RNE ? host_rne(a, fp) : host_rtz(a, fp);             \
        v = check(v);                                                                 \
        if (v != (width == 32 ? INT32_MIN : INT64_MIN)) {                             \
            flags = fl;                                                               \
            r = (uint64_t)v;                                                          \
            goto write_x;                                                             \
        }                                                                             \
    }                                                                                 \
    r = sim_fp_to_int(soft_fmt, soft_a, is_signed, width, rm, &flags);                \
    goto write_x
#define SAME(v) (v)
    case CVT_W_S:
        TO_INT(s_plain, host_s_to_w_raw, host_s_to_w_rtz_raw, host_sext32, SIM_FP_S,
               sim_fpu_unbox(a), true, 32);
    case CVT_W_D:
        TO_INT(d_plain, host_d_to_w_raw, host_d_to_w_rtz_raw, host_sext32, SIM_FP_D, a,
               true, 32);
    case CVT_L_S:
        TO_INT(s_plain, host_s_to_l, host_s_to_l_rtz, SAME, SIM_FP_S, sim_fpu_unbox(a), true,
               64);
    case CVT_L_D:
        TO_INT(d_plain, host_d_to_l, host_d_to_l_rtz, SAME, SIM_FP_D, a, true, 64);
#undef SAME
#undef TO_INT
    case CVT_WU_S: r = sim_fp_to_int(SIM_FP_S, sim_fpu_unbox(a), false, 32, rm, &flags); goto write_x;
    case CVT_WU_D: r = sim_fp_to_int(SIM_FP_D, a, false, 32, rm, &flags); goto write_x;
    case CVT_LU_S: r = sim_fp_to_int(SIM_FP_S, sim_fpu_unbox(a), false, 64, rm, &flags); goto write_x;
    case CVT_LU_D: r = sim_fp_to_int(SIM_FP_D, a, false, 64, rm, &flags); goto write_x;

    /* From integers: w, wu (as a 64-bit signed value, the same number) and
     * l on the host in RNE; lu in software. */
    case CVT_FW_S: case CVT_FW_D: case CVT_FWU_S: case CVT_FWU_D: case CVT_FL_S:
    case CVT_FL_D: {
        uint64_t x = h->x[fi->rs1];
        int k = fi->op >> 1;
        int64_t v = k == K_CVT_FW ? (int64_t)(int32_t)(uint32_t)x
                  : k == K_CVT_FWU ? (int64_t)(uint32_t)x : (int64_t)x;
        if (fast) {
            /* NX is the only flag possible */
            if (fi->fmt == SIM_FP_S) {
                r = host_l_to_s(v, nx ? NULL : &flags);
                goto write_s;
            }
            r = host_l_to_d(v, nx ? NULL : &flags);
            goto write_d;
        }
        r = sim_fp_from_int((sim_fp_fmt)fi->fmt, (uint64_t)v, true, 64, rm, &flags);
        if (fi->fmt == SIM_FP_S)
            goto write_s;
        goto write_d;
    }
    case CVT_FLU_S: r = sim_fp_from_int(SIM_FP_S, h->x[fi->rs1], false, 64, rm, &flags); goto write_s;
    case CVT_FLU_D: r = sim_fp_from_int(SIM_FP_D, h->x[fi->rs1], false, 64, rm, &flags); goto write_d;

    /* fmv.x.w, fmv.x.d, fmv.w.x, fmv.d.x: in sim_fpu_run (fpu_quick.c) */
    case CLASS_S: r = sim_fp_class(SIM_FP_S, sim_fpu_unbox(a)); goto write_x;
    case CLASS_D: r = sim_fp_class(SIM_FP_D, a); goto write_x;
    /* fcvt.s.h, fcvt.d.h: exact, in software (the host never sees a half) */
    case CVT_FH_S:
        r = sim_fp_convert(SIM_FP_S, SIM_FP_H, sim_fpu_unbox_h(a), rm, &flags);
        goto write_s;
    case CVT_FH_D:
        r = sim_fp_convert(SIM_FP_D, SIM_FP_H, sim_fpu_unbox_h(a), rm, &flags);
        goto write_d;
    default:
        if (fi->op < OP_H || fi->op >= OP_H + K_COUNT)
            return SIM_CAUSE_ILLEGAL; /* not from sim_fpu_decode */
        r = run_h(h, fi, rm, &flags);
        if (fi->op - OP_H >= K_LE && fi->op - OP_H <= K_CVT_LU)
            goto write_x;
        if (fi->op - OP_H == K_MV_X || fi->op - OP_H == K_CLASS)
            goto write_x;
        h->f[fi->rd] = sim_fpu_box_h((uint16_t)r);
        h->fcsr |= flags;
        return 0;
    }
#undef BIN_S
#undef BIN_D
#undef FMA_S
#undef FMA_D

write_s:
    h->f[fi->rd] = sim_fpu_box((uint32_t)r);
    h->fcsr |= flags;
    return 0;
write_d:
    h->f[fi->rd] = r;
    h->fcsr |= flags;
    return 0;
write_x:
    if (fi->rd != 0)
        h->x[fi->rd] = r;
    h->fcsr |= flags;
    return 0;
}
