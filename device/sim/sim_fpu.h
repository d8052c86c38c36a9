/* sim_fpu: the F and D extensions' arithmetic for a hart — everything but
 * the loads and stores: OP-FP (add, sub, mul, div, sqrt, sign injection,
 * min/max, compares, classify, conversions, moves) and the fused
 * multiply-adds.  All five rounding modes (rm field or fcsr.frm; a
 * reserved mode is an illegal instruction), fflags accumulated in
 * h->fcsr, NaN-boxing of single values, the canonical NaN for results,
 * fcvt saturation, fmin/fmax NaN rules (IEEE 754-2019 minimumNumber /
 * maximumNumber), fclass.  Results are bit-exact with the RISC-V ISA
 * manual (as Spike, which uses Berkeley SoftFloat, computes them). */
#ifndef SIM_FPU_H
#define SIM_FPU_H

#include <stdint.h>

#include "sim_hart.h"

/* Executes the FP instruction `insn` (32-bit encoding; the hart expands
 * compressed forms first).  The caller has checked mstatus.FS != Off and
 * marks FS Dirty afterwards.  Returns 0, or SIM_CAUSE_ILLEGAL.
 * *extra_cycles is set to the operation's latency beyond one cycle. */
int sim_fpu_exec(sim_hart *h, uint32_t insn, uint32_t *extra_cycles);

/* A single value as stored in an f register, and back: a value that is not
 * properly NaN-boxed reads as the canonical NaN. */
static inline uint64_t sim_fpu_box(uint32_t v)
{
    return 0xffffffff00000000ull | v;
}
static inline uint32_t sim_fpu_unbox(uint64_t v)
{
    return (v >> 32) == 0xffffffffu ? (uint32_t)v : 0x7fc00000u;
}

#endif
