/* sim_vec: the V extension, version 1.0, of a hart — what the hart's own
 * files (decoder, hot loop, CSRs, tracer) call; the vector unit itself is
 * vec_*.c behind vec_internal.h.
 *
 * The X280's configuration: VLEN 512 (vlenb SIM_VLENB = 64), ELEN 64,
 * SEW 8..64, LMUL 1/8..8.  Implemented so far: vsetvli/vsetivli/vsetvl;
 * every load and store kind (unit-stride, strided, indexed ordered and
 * unordered, segment, whole-register, mask, fault-only-first); the
 * single-width integer arithmetic, compares, merges and moves, integer
 * reductions, mask logicals, vcpop/vfirst/vmsbf/vmsif/vmsof/viota/vid;
 * vmv.x.s, vmv.s.x, vmv<nr>r.v; add/subtract with carry, vzext/vsext;
 * slides, gathers, vcompress; widening integer arithmetic and reductions,
 * narrowing shifts; fixed point (vxrm, vxsat); floating point at SEW 32
 * and 64 with its widening and narrowing forms, but for vfrsqrt7 and
 * vfrec7, which (and FP at SEW 16) are not implemented yet: illegal
 * instructions.  device/sim/README.md, "Vectors", has the rules
 * and the modeled time. */
#ifndef SIM_VEC_H
#define SIM_VEC_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_hart.h"

/* One decoded vector instruction, 8 bytes, for a decoded entry to embed
 * (as sim_fpu_insn).  `op` is vec_internal.h's dense enum; the register
 * numbers stay in the instruction's bits. */
typedef struct sim_vec_insn {
    uint8_t op;
    uint8_t form;  /* arithmetic: VV, VX or VI; memory: the addressing */
    uint8_t vm;    /* 1: unmasked */
    uint8_t eew;   /* memory: the element's (or index's) bytes */
    uint8_t nf;    /* memory: fields of a segment, or whole registers */
    uint8_t store; /* memory: a store */
    uint8_t pad[2];
} sim_vec_insn;
_Static_assert(sizeof(sim_vec_insn) == 8, "sim_vec_insn is 8 bytes");

/* Decodes an OP-V, or a LOAD-FP/STORE-FP with a vector width (0, 5, 6,
 * 7), into *out.  Returns 0, or SIM_CAUSE_ILLEGAL for an encoding that is
 * illegal whatever the state (reserved fields, or not implemented). */
int sim_vec_decode(uint32_t insn, sim_vec_insn *out);

/* Executes *vi (whose encoding is `bits`); h->pc/cycle/instret/mem_cycles
 * are as of the instruction's start.  Adds the instruction's cycles past
 * SIM_COST_INSN to h->cycle (its memory's to h->mem_cycles too).  Returns
 * 0, a trap cause with *tval set (a memory fault leaves the element's
 * index in vstart), or SIM_HART_STOPPED when a watch stopped the run
 * before any access. */
int sim_vec_exec(sim_hart *h, const sim_vec_insn *vi, uint32_t bits, uint64_t *tval);

/* Whether *vi writes x[rd] (vset*, vmv.x.s, vcpop.m, vfirst.m), or
 * f[rd] (vfmv.f.s): what a commit log records of it (its vector register
 * writes are not recorded). */
bool sim_vec_writes_x(const sim_vec_insn *vi);
bool sim_vec_writes_f(const sim_vec_insn *vi);

/* The vector CSRs (vstart, vxsat, vxrm, vcsr, vl, vtype, vlenb): whether
 * csr is one; its value; a write (vl, vtype and vlenb are read-only: the
 * caller refuses writes by the number). */
bool sim_vec_is_csr(unsigned csr);
bool sim_vec_csr_read(const sim_hart *h, unsigned csr, uint64_t *v);
void sim_vec_csr_write(sim_hart *h, unsigned csr, uint64_t v);

#endif
