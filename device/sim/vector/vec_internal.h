/* vec_internal: what the vector unit's files share — the dense operation
 * enum behind sim_vec_insn.op, the vtype fields, the register-file and
 * element accessors, the legality checks every group applies, and the
 * executors each file provides to vec_exec.c.  Not for other modules:
 * the hart's files use sim_vec.h. */
#ifndef VEC_INTERNAL_H
#define VEC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hart_internal.h"

/* The operations, one list.  Memory is two ops (the entry's form, eew,
 * nf, store say the rest); the arithmetic ones take their operands as
 * the entry's form says. */
#define VEC_OPS(X)                                                                             \
    X(VSETVLI) X(VSETIVLI) X(VSETVL)                                                           \
    X(LOAD) X(STORE)                                                                           \
    /* element-wise, single width (vec_int.c) */                                               \
    X(ADD) X(SUB) X(RSUB) X(MINU) X(MIN) X(MAXU) X(MAX) X(AND) X(OR) X(XOR)                    \
    X(SLL) X(SRL) X(SRA) X(MUL) X(MULH) X(MULHU) X(MULHSU) X(DIVU) X(DIV) X(REMU) X(REM)       \
    X(MACC) X(NMSAC) X(MADD) X(NMSUB) X(MERGE) X(MV)                                           \
    /* compares: a mask result (vec_int.c) */                                                  \
    X(MSEQ) X(MSNE) X(MSLTU) X(MSLT) X(MSLEU) X(MSLE) X(MSGTU) X(MSGT)                         \
    /* reductions (vec_int.c) */                                                               \
    X(REDSUM) X(REDAND) X(REDOR) X(REDXOR) X(REDMINU) X(REDMIN) X(REDMAXU) X(REDMAX)           \
    /* masks and moves (vec_mask.c) */                                                         \
    X(MANDN) X(MAND) X(MOR) X(MXOR) X(MORN) X(MNAND) X(MNOR) X(MXNOR)                          \
    X(CPOP) X(FIRST) X(MSBF) X(MSOF) X(MSIF) X(IOTA) X(ID)                                     \
    X(MV_X_S) X(MV_S_X) X(MVNR)                                                                \
    /* integer extension (vec_int.c): the entry's nf is the factor, 2, 4 or 8 */               \
    X(ZEXT) X(SEXT)                                                                            \
    /* carry and borrow (vec_carry.c) */                                                       \
    X(ADC) X(MADC) X(SBC) X(MSBC)                                                              \
    /* permutations (vec_perm.c) */                                                            \
    X(SLIDEUP) X(SLIDEDOWN) X(SLIDE1UP) X(SLIDE1DOWN) X(RGATHER) X(RGATHEREI16) X(COMPRESS)   \
    /* widening and narrowing (vec_wide.c) */                                                  \
    X(WADDU) X(WADD) X(WSUBU) X(WSUB) X(WADDU_W) X(WADD_W) X(WSUBU_W) X(WSUB_W)                \
    X(WMULU) X(WMULSU) X(WMUL) X(WMACCU) X(WMACC) X(WMACCUS) X(WMACCSU)                        \
    X(WREDSUMU) X(WREDSUM) X(NSRL) X(NSRA)                                                     \
    /* fixed point (vec_fixed.c) */                                                            \
    X(SADDU) X(SADD) X(SSUBU) X(SSUB) X(AADDU) X(AADD) X(ASUBU) X(ASUB) X(SMUL)                \
    X(SSRL) X(SSRA) X(NCLIPU) X(NCLIP)                                                         \
    /* floating point, SEW 16, 32 and 64 (vec_fp.c) */                                         \
    X(FADD) X(FSUB) X(FRSUB) X(FMUL) X(FDIV) X(FRDIV) X(FMIN) X(FMAX)                          \
    X(FSGNJ) X(FSGNJN) X(FSGNJX)                                                               \
    X(FMACC) X(FNMACC) X(FMSAC) X(FNMSAC) X(FMADD) X(FNMADD) X(FMSUB) X(FNMSUB)                \
    X(MFEQ) X(MFNE) X(MFLT) X(MFLE) X(MFGT) X(MFGE)                                            \
    X(FSQRT) X(FCLASS) X(FRSQRT7) X(FREC7) X(FCVT_XU_F) X(FCVT_X_F) X(FCVT_F_XU) X(FCVT_F_X)                       \
    X(FCVT_RTZ_XU_F) X(FCVT_RTZ_X_F)                                                           \
    X(FMERGE) X(FMV_V_F) X(FMV_F_S) X(FMV_S_F) X(FSLIDE1UP) X(FSLIDE1DOWN)                     \
    X(FREDUSUM) X(FREDOSUM) X(FREDMIN) X(FREDMAX)                                              \
    /* floating-point widening and narrowing (vec_fwide.c) */                                  \
    X(FWADD) X(FWSUB) X(FWADD_W) X(FWSUB_W) X(FWMUL)                                           \
    X(FWMACC) X(FWNMACC) X(FWMSAC) X(FWNMSAC) X(FWREDUSUM) X(FWREDOSUM)                        \
    X(FWCVT_XU_F) X(FWCVT_X_F) X(FWCVT_F_XU) X(FWCVT_F_X) X(FWCVT_F_F)                         \
    X(FWCVT_RTZ_XU_F) X(FWCVT_RTZ_X_F)                                                         \
    X(FNCVT_XU_F) X(FNCVT_X_F) X(FNCVT_F_XU) X(FNCVT_F_X) X(FNCVT_F_F) X(FNCVT_ROD_F_F)        \
    X(FNCVT_RTZ_XU_F) X(FNCVT_RTZ_X_F)

#define VEC_OP_ENUM(name) VEC_##name,
enum vec_op { VEC_OPS(VEC_OP_ENUM) VEC_OP_COUNT };
#undef VEC_OP_ENUM

/* sim_vec_insn.form: where an arithmetic instruction's second operand
 * comes from; for memory, the addressing (mop, and unit-stride's kinds). */
enum { VEC_VV, VEC_VX, VEC_VI, VEC_VF };
enum { VEC_UNIT, VEC_STRIDED, VEC_INDEXED, VEC_INDEXED_ORDERED, VEC_WHOLE, VEC_MASK, VEC_FF };

/* vtype's fields. */
#define VEC_VILL (1ull << 63)
static inline unsigned vec_sew_bytes(uint64_t vtype) /* 1, 2, 4, 8 */
{
    return 1u << ((vtype >> 3) & 7);
}
/* LMUL as a signed log2: -3..3 (vlmul 4, reserved, never reaches here) */
static inline int vec_lmul_log2(uint64_t vtype)
{
    return (int)((int8_t)((vtype & 7) << 5) >> 5);
}
/* VLMAX for SEW bytes and LMUL 2^lg: LMUL * VLEN / SEW */
static inline unsigned vec_vlmax(unsigned sew, int lg)
{
    unsigned n = SIM_VLENB / sew;
    return lg >= 0 ? n << lg : n >> -lg;
}

/* Element i (of `bytes`) of the register group at r, and a store there.
 * A group is contiguous in h->v (sim_hart.h), so i may run past r. */
static inline uint8_t *vec_at(sim_hart *h, unsigned r, uint64_t i, unsigned bytes)
{
    return &h->v[0][0] + (size_t)r * SIM_VLENB + (size_t)i * bytes;
}
static inline uint64_t vec_get(sim_hart *h, unsigned r, uint64_t i, unsigned bytes)
{
    return sim_mem_get(vec_at(h, r, i, bytes), bytes);
}
static inline void vec_set(sim_hart *h, unsigned r, uint64_t i, unsigned bytes, uint64_t v)
{
    sim_mem_put(vec_at(h, r, i, bytes), bytes, v);
}
/* Mask bit i of register r (v0 for the mask operand). */
static inline bool vec_bit(const sim_hart *h, unsigned r, uint64_t i)
{
    return (h->v[r][i >> 3] >> (i & 7)) & 1;
}
static inline void vec_set_bit(uint8_t *reg, uint64_t i, bool b)
{
    reg[i >> 3] = (uint8_t)((reg[i >> 3] & ~(1u << (i & 7))) | ((unsigned)b << (i & 7)));
}
/* Whether element i takes part: unmasked, or v0's bit set. */
static inline bool vec_active(const sim_hart *h, unsigned vm, uint64_t i)
{
    return vm || vec_bit(h, 0, i);
}

/* Values as SEW-bit integers: truncated, and sign-extended to 64 bits. */
static inline uint64_t vec_trunc(uint64_t v, unsigned bits)
{
    return bits >= 64 ? v : v & ((1ull << bits) - 1);
}
static inline int64_t vec_sext(uint64_t v, unsigned bits)
{
    return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* The instruction's register fields. */
static inline unsigned vec_vd(uint32_t bits) { return (bits >> 7) & 31; }
static inline unsigned vec_rs1(uint32_t bits) { return (bits >> 15) & 31; }
static inline unsigned vec_vs2(uint32_t bits) { return (bits >> 20) & 31; }

/* Legality: register group r of 2^lg registers (lg <= 0: one) is
 * aligned; and the RVV 1.0 rule (section 5.2) for a destination group
 * overlapping a source group: allowed when the EEWs are equal, when the
 * destination's is smaller and the overlap is the source's lowest
 * register(s), or when it is larger, the source EMUL is at least 1 and
 * the overlap is the destination's highest part. */
static inline bool vec_aligned(unsigned r, int lg)
{
    return lg <= 0 || (r & ((1u << lg) - 1)) == 0;
}
bool vec_overlap_ok(unsigned vd, int lg_d, unsigned eew_d, unsigned vs, int lg_s, unsigned eew_s);
/* Whether groups [a, a + 2^lga) and [b, b + 2^lgb) share a register. */
bool vec_overlap(unsigned a, int lga, unsigned b, int lgb);

/* vec_exec.c: the cycles past the first beat of `bits` bits of work,
 * added to h->cycle. */
void vec_charge(sim_hart *h, uint64_t bits, unsigned per_beat);

/* The groups' executors.  Each returns 0 or a trap cause (with *tval
 * set), leaves vstart 0 when it completes, and has been called with
 * mstatus.VS on and, where the group needs it, vtype valid. */
int vec_setvl(sim_hart *h, const sim_vec_insn *vi, uint32_t bits);      /* vec_cfg.c */
int vec_mem(sim_hart *h, const sim_vec_insn *vi, uint32_t bits, uint64_t *tval); /* vec_mem.c */
int vec_int(sim_hart *h, const sim_vec_insn *vi, uint32_t bits);        /* vec_int.c */
int vec_mask(sim_hart *h, const sim_vec_insn *vi, uint32_t bits);       /* vec_mask.c */
int vec_carry(sim_hart *h, const sim_vec_insn *vi, uint32_t bits);      /* vec_carry.c */
int vec_perm(sim_hart *h, const sim_vec_insn *vi, uint32_t bits);       /* vec_perm.c */
int vec_wide(sim_hart *h, const sim_vec_insn *vi, uint32_t bits);       /* vec_wide.c */
int vec_fixed(sim_hart *h, const sim_vec_insn *vi, uint32_t bits);      /* vec_fixed.c */
int vec_fp(sim_hart *h, const sim_vec_insn *vi, uint32_t bits);         /* vec_fp.c */
int vec_fwide(sim_hart *h, const sim_vec_insn *vi, uint32_t bits);      /* vec_fwide.c */

/* vec_fast.c: the common arithmetic at one go, for vec_int.c and
 * vec_fp.c to try first.  Each computes op for the active elements in
 * [vstart, vl) of the vtype's SEW (bytes), from src2 (vs2's group), src1
 * (vs1's, when vv) or scalar, and old (vd's group as it was), into out (a
 * copy of vd's group; the compares: of its one register, as mask bits),
 * and returns true; false when it does not take op (out unchanged but
 * for vec_fast_fp, whose out the caller copies again from vd).
 * vec_fast_on (true) false: none of them, nor vec_mem.c's plain-RAM
 * path, is taken (the unit tests' reference: the element path). */
extern bool vec_fast_on;
bool vec_fast_int(sim_hart *h, unsigned op, unsigned sew, bool vv, uint64_t scalar,
                  const uint8_t *src1, const uint8_t *src2, const uint8_t *old, bool vm,
                  uint8_t *out);
bool vec_fast_cmp(sim_hart *h, unsigned op, unsigned sew, bool vv, uint64_t scalar,
                  const uint8_t *src1, const uint8_t *src2, bool vm, uint8_t *out);
bool vec_fast_fp(sim_hart *h, unsigned op, unsigned sew, bool vv, uint64_t scalar,
                 const uint8_t *src1, const uint8_t *src2, const uint8_t *old, bool vm,
                 uint8_t *out);

/* vec_est.c: the estimates of one element in format f (SIM_FP_S, _D or
 * _H: fpu_soft.h's sim_fp_fmt), fflags ORed into *fl;
 * vfrec7's rounding mode rm decides only past the largest finite. */
uint64_t vec_frsqrt7(int f, uint64_t a, uint32_t *fl);
uint64_t vec_frec7(int f, uint64_t a, int rm, uint32_t *fl);

#endif
