/* fpu_soft: IEEE 754 binary16, binary32 and binary64 arithmetic in
 * software, with
 * the choices RISC-V makes where IEEE leaves them open — internal to
 * sim_fpu (fpu.c decodes, this computes).
 *
 * Values are raw bit patterns (a single in the low 32 bits of a uint64_t,
 * a half in the low 16, already unboxed by the caller).  Every operation is correctly rounded in
 * the given mode, including RMM, which no host FPU offers, so nothing here
 * touches the host's floating-point environment.  Exception flags are ORed
 * into *flags in fflags' layout.  The rules are the RISC-V manual's (and
 * Berkeley SoftFloat's, as Spike builds it):
 *   - tininess is detected after rounding; UF is raised only with NX;
 *   - every NaN result is the canonical NaN; NV for any signaling input;
 *   - fma raises NV for inf * 0 even when the addend is a quiet NaN;
 *   - conversions to integers saturate (NaN as the largest positive) and
 *     raise NV alone when out of range, NX alone when merely inexact;
 *   - min/max are minimumNumber/maximumNumber, with -0 < +0. */
#ifndef SIM_FPU_SOFT_H
#define SIM_FPU_SOFT_H

#include <stdbool.h>
#include <stdint.h>

/* S and D are the fmt field's encodings (0, 1), and so is H (2): Zfh's
 * half precision, 5 exponent bits and 10 fraction bits, canonical NaN
 * 0x7e00. */
typedef enum sim_fp_fmt { SIM_FP_S = 0, SIM_FP_D = 1, SIM_FP_H = 2 } sim_fp_fmt;

/* The rm encodings 0..4 (5..7 never reach this layer). */
enum { SIM_RM_RNE, SIM_RM_RTZ, SIM_RM_RDN, SIM_RM_RUP, SIM_RM_RMM };

/* fflags bits. */
enum {
    SIM_FF_NX = 1,
    SIM_FF_UF = 2,
    SIM_FF_OF = 4,
    SIM_FF_DZ = 8,
    SIM_FF_NV = 16,
};

uint64_t sim_fp_add(sim_fp_fmt f, uint64_t a, uint64_t b, int rm, uint32_t *flags);
uint64_t sim_fp_sub(sim_fp_fmt f, uint64_t a, uint64_t b, int rm, uint32_t *flags);
uint64_t sim_fp_mul(sim_fp_fmt f, uint64_t a, uint64_t b, int rm, uint32_t *flags);
uint64_t sim_fp_div(sim_fp_fmt f, uint64_t a, uint64_t b, int rm, uint32_t *flags);
uint64_t sim_fp_sqrt(sim_fp_fmt f, uint64_t a, int rm, uint32_t *flags);
/* a * b + c with a single rounding.  The negated forms are this with
 * sign bits flipped on the inputs, as the manual defines them. */
uint64_t sim_fp_fma(sim_fp_fmt f, uint64_t a, uint64_t b, uint64_t c, int rm,
                    uint32_t *flags);

uint64_t sim_fp_min(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags);
uint64_t sim_fp_max(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags);
/* eq is quiet (NV only for a signaling NaN); lt and le are signaling. */
bool sim_fp_eq(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags);
bool sim_fp_lt(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags);
bool sim_fp_le(sim_fp_fmt f, uint64_t a, uint64_t b, uint32_t *flags);
/* fclass's one-hot mask: bit 0 -inf ... bit 7 +inf, 8 sNaN, 9 qNaN. */
uint32_t sim_fp_class(sim_fp_fmt f, uint64_t a);

/* Between the formats (to a narrower one rounds; to a wider one is exact). */
uint64_t sim_fp_convert(sim_fp_fmt to, sim_fp_fmt from, uint64_t a, int rm,
                        uint32_t *flags);
/* To and from integers of `width` bits (8, 16, 32 or 64; the narrow ones
 * for the vector unit's conversions).  to_int's result is the integer sign-extended to 64
 * bits — also for unsigned narrower results, as RV64 writes them; from_int
 * reads the low `width` bits of v. */
uint64_t sim_fp_to_int(sim_fp_fmt f, uint64_t a, bool is_signed, int width, int rm,
                       uint32_t *flags);
uint64_t sim_fp_from_int(sim_fp_fmt f, uint64_t v, bool is_signed, int width, int rm,
                         uint32_t *flags);

#endif
