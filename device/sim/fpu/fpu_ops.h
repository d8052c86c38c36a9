/* fpu_ops: what the two halves of sim_fpu's execution share — internal.
 * fpu_quick.c's sim_fpu_run takes the common cases itself and hands the
 * rest to fpu.c's sim_fpu_run_full; both dispatch on the dense op that
 * sim_fpu_decode (fpu.c) puts in sim_fpu_insn, numbered here, and test
 * operands and results with the predicates here. */
#ifndef FPU_OPS_H
#define FPU_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_fpu.h"

/* Operation kinds; the op is kind * 2 + format (S 0, D 1). */
typedef enum fpu_kind {
    K_ADD, K_SUB, K_MUL, K_DIV, K_SQRT,
    K_FMADD, K_FMSUB, K_FNMSUB, K_FNMADD,
    K_SGNJ, K_SGNJN, K_SGNJX, K_MIN, K_MAX,
    K_CVT_FF, /* fcvt.s.d (fmt S) / fcvt.d.s (fmt D) */
    K_LE, K_LT, K_EQ,
    K_CVT_W, K_CVT_WU, K_CVT_L, K_CVT_LU,     /* to integers */
    K_CVT_FW, K_CVT_FWU, K_CVT_FL, K_CVT_FLU, /* from integers */
    K_MV_X, K_CLASS, K_MV_F,
    K_CVT_FH, /* fcvt.s.h (fmt S) / fcvt.d.h (fmt D) */
    K_COUNT
} fpu_kind;

#define OPS(k) k##_S = K_##k * 2, k##_D = K_##k * 2 + 1
enum {
    OPS(ADD), OPS(SUB), OPS(MUL), OPS(DIV), OPS(SQRT),
    OPS(FMADD), OPS(FMSUB), OPS(FNMSUB), OPS(FNMADD),
    OPS(SGNJ), OPS(SGNJN), OPS(SGNJX), OPS(MIN), OPS(MAX),
    OPS(CVT_FF), OPS(LE), OPS(LT), OPS(EQ),
    OPS(CVT_W), OPS(CVT_WU), OPS(CVT_L), OPS(CVT_LU),
    OPS(CVT_FW), OPS(CVT_FWU), OPS(CVT_FL), OPS(CVT_FLU),
    OPS(MV_X), OPS(CLASS), OPS(MV_F), OPS(CVT_FH),
};
#undef OPS

/* Zfh's half-precision ops sit above all of those, one per kind
 * (op = OP_H + kind), so that the S and D switch is the one it was and
 * half precision costs it nothing: they are the switch's default. */
enum { OP_H = 2 * K_COUNT };

#define SGN_S (1ull << 31)
#define SGN_D (1ull << 63)

/* Executes any operation (the contract is sim_fpu_run's): the host with
 * its flags read back where the host can (fpu_host.h), the software
 * arithmetic (fpu_soft.c) for the rest.  sim_fpu_run calls it for what
 * it does not take itself; never for the moves and sign injection,
 * which sim_fpu_run always does. */
int sim_fpu_run_full(sim_hart *h, const sim_fpu_insn *fi);

/* The host paths' operand checks: a single properly NaN-boxed and not a
 * NaN; a double not a NaN. */
static inline bool s_plain(uint64_t v)
{
    return (v >> 32) == 0xffffffffu && (v & 0x7fffffffu) <= 0x7f800000u;
}
static inline bool d_plain(uint64_t v)
{
    return (v & ~(1ull << 63)) <= 0x7ff0000000000000ull;
}
/* A result that can carry no flag but NX: finite and above the smallest
 * normal in magnitude (2^emin itself may come with UF, tininess being
 * judged after rounding with an unbounded exponent).  Zeros, subnormals,
 * infinities and NaNs are not "quiet". */
static inline bool s_quiet(uint64_t r)
{
    return (uint32_t)((r & 0x7fffffffu) - 0x00800001u) < 0x7f800000u - 0x00800001u;
}
static inline bool d_quiet(uint64_t r)
{
    return ((r & ~(1ull << 63)) - 0x0010000000000001ull) <
           0x7ff0000000000000ull - 0x0010000000000001ull;
}

#endif
