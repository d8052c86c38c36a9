/* sim_fpu: the F, D and Zfh extensions' arithmetic for a hart — everything but
 * the loads and stores: OP-FP (add, sub, mul, div, sqrt, sign injection,
 * min/max, compares, classify, conversions, moves) and the fused
 * multiply-adds.  All five rounding modes (rm field or fcsr.frm; a
 * reserved mode is an illegal instruction), fflags accumulated in
 * h->fcsr, NaN-boxing of single and half values, the canonical NaN for results,
 * fcvt saturation, fmin/fmax NaN rules (IEEE 754-2019 minimumNumber /
 * maximumNumber), fclass.  Results are bit-exact with the RISC-V ISA
 * manual (as Spike, which uses Berkeley SoftFloat, computes them). */
#ifndef SIM_FPU_H
#define SIM_FPU_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_hart.h"

/* One decoded FP instruction, 8 bytes, for a decoded-instruction cache
 * entry to embed.  `op` is dense (fpu.c's own numbering, format included)
 * and is all sim_fpu_run dispatches on; `fmt` is 0 (S), 1 (D) or 2 (H); `rm` is
 * the rm field (0..4, or 7 for fcsr.frm) of an instruction that rounds, 0
 * for one that does not; `extra` is the modeled latency beyond the
 * instruction's one cycle, static per encoding. */
typedef struct sim_fpu_insn {
    uint8_t op, fmt, rd, rs1, rs2, rs3, rm, extra;
} sim_fpu_insn;
_Static_assert(sizeof(sim_fpu_insn) == 8, "sim_fpu_insn is 8 bytes");

/* Decodes the FP instruction `insn` (OP-FP or a fused multiply-add,
 * 32-bit encoding; the hart expands compressed forms first) into *out.
 * Returns 0, or SIM_CAUSE_ILLEGAL for an encoding that is illegal
 * whatever the state (the Q format, Zfa, a funct or rs2 value with no
 * instruction behind it, rm 5 or 6 in an instruction that rounds); *out
 * is then undefined. */
int sim_fpu_decode(uint32_t insn, sim_fpu_insn *out);

/* Executes *fi.  The caller has checked mstatus.FS != Off and marks FS
 * Dirty afterwards.  Returns 0, or SIM_CAUSE_ILLEGAL when rm is 7 and
 * fcsr.frm is reserved (5..7); then nothing changes.  Otherwise the
 * destination and fcsr.fflags are updated (a write to x0 is dropped, its
 * flags are not). */
int sim_fpu_run(sim_hart *h, const sim_fpu_insn *fi);

/* sim_fpu_decode then sim_fpu_run.  *extra_cycles is set to the
 * operation's latency beyond one cycle (0 when illegal). */
int sim_fpu_exec(sim_hart *h, uint32_t insn, uint32_t *extra_cycles);

/* The translated code's FPU (fpu/fpu_jit.c, for hart_jit_emit.c): emits
 * into the translation `t` the x86-64 code of FPU entry `d` (d->fpu) for
 * the common case (fpu_quick.c's, as SSE2 and FMA3 code in line), whose
 * checks jump, when they fail, to one stub that calls sim_fpu_run as the
 * handler does (fpu_declined, hart_jit_emit.h).  Results, fflags and
 * everything else exactly sim_fpu_run's.  False (nothing emitted) for an
 * operation or rounding mode it has no code for, or with the host path
 * off: the caller then emits the call alone. */
struct tr;
struct sim_insn;
bool sim_fpu_jit_emit(struct tr *t, const struct sim_insn *d);

/* The host fast path (device/sim/README.md, "Floating point"): on by
 * default when the start-up probe passed.  sim_fpu_set_host(false) forces
 * every operation onto the software path (true turns it back on if the
 * probe passed); returns whether the fast path is now on.  Process-wide,
 * not thread-safe: for tests and measurements, before harts run. */
bool sim_fpu_set_host(bool on);
/* Whether the probe passed (the fast path can be on). */
bool sim_fpu_host_available(void);

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
/* The same for a half (Zfh): ones in bits 63..16, else the canonical NaN
 * 0x7e00. */
static inline uint64_t sim_fpu_box_h(uint16_t v)
{
    return 0xffffffffffff0000ull | v;
}
static inline uint16_t sim_fpu_unbox_h(uint64_t v)
{
    return (v >> 16) == 0xffffffffffffull ? (uint16_t)v : 0x7e00u;
}

#endif
