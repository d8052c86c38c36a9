/* hart_jit_emit: what one entry of a decoded block becomes in translated
 * code (hart_jit.c says what that code is and which host registers hold
 * what): the translation in progress (`tr`), with its out-of-line stubs
 * and exit slots, which hart_jit.c places after the body; the emitters of
 * an entry's code and of each stub.  x86-64 only (hart_jit_x86.h). */
#ifndef HART_JIT_EMIT_H
#define HART_JIT_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hart_internal.h"
#include "hart_jit_x86.h"

#define REG(field) ((int32_t)offsetof(sim_jit_regs, field)) /* off r15 */
#define XR(r) ((int32_t)(8 * (r)))                           /* x[r] off rbx */


/* What an out-of-line stub does. */
enum stub_kind {
    STUB_EXIT,  /* to the hot loop: rdi = d, eax = why */
    STUB_TAKEN, /* a taken branch: take back the rest, then its slot */
    STUB_NOTE,  /* a store other harts' reservations must hear of */
    STUB_CACHED, /* a load or store the RAM cache missed: the cached window? */
    STUB_JALR,   /* a jalr to a target not linked: rax the target */
    STUB_FPU,    /* an FPU op's fast path declined: the call, then `back` */
    STUB_JOIN,   /* no code of its own: falls into the stub after it */
    STUB_STEPPED, /* a block that does not fit: jmp [its step cell] */
};

typedef struct stub {
    uint8_t *at;  /* the rel32 that jumps to it */
    uint8_t kind; /* stub_kind */
    uint8_t why;  /* STUB_EXIT: sim_jit_exit */
    const sim_insn *d;
    uint8_t *back; /* STUB_NOTE, STUB_FPU: where to go on */
} stub;

/* An exit slot's users: the rip-relative displacement to point at it
 * (plus `add`: a jalr's compare reads the slot's second word), the entry.
 * A slot holds the address to jump to; a jalr's also the target pc it
 * goes with (an odd pc, which no target is, until it is linked). */
typedef struct slot_use {
    uint8_t *disp;
    const sim_insn *d;
    int32_t add;
} slot_use;

#define MAX_STUBS (8 * (SIM_BLOCK_MAX + 4))

typedef struct tr {
    jx j;
    const uint8_t *exit; /* the common exit (rdi: the entry, eax: why) */
    stub stubs[MAX_STUBS];
    unsigned nstubs;
    slot_use slots[2 * (SIM_BLOCK_MAX + 4)];
    unsigned nslots;
    /* A stepped translation (sim_jit_stepped): no stop checks, and an
     * exit to an entry's handler is one to the step mode there. */
    bool stepped;
    /* STUB_STEPPED's jump (its displacement, for hart_jit.c to point at
     * the cell) and its exit to the step mode (SIM_JIT_STEP), where the
     * cell points until there is a stepped translation. */
    uint8_t *step_jmp;
    const uint8_t *step_exit;
} tr;

static inline void add_stub(tr *t, uint8_t *at, unsigned kind, unsigned why, const sim_insn *d,
                     uint8_t *back)
{
    t->stubs[t->nstubs++] = (stub){at, (uint8_t)kind, (uint8_t)why, d, back};
}

/* jcc to an exit of kind `why` at d */
static inline void exit_if(tr *t, unsigned cc, unsigned why, const sim_insn *d)
{
    add_stub(t, jx_jcc(&t->j, cc), STUB_EXIT, why, d, NULL);
}

/* Jumps (jcc rel32s at[0..n-1]) to one STUB_FPU stub for d, which runs
 * the FPU's call (sim_fpu_run, exactly) and comes back to `back`: the
 * first n-1 as STUB_JOINs, which emit nothing and fall into it. */
static inline void fpu_declined(tr *t, uint8_t *const *at, unsigned n, const sim_insn *d,
                                uint8_t *back)
{
    for (unsigned i = 0; i < n; i++)
        add_stub(t, at[i], i + 1 < n ? STUB_JOIN : STUB_FPU, 0, d, back);
}

/* jmp [rip + d's slot] (patched once the slot has its place) */
static inline void jump_slot(tr *t, const sim_insn *d)
{
    t->slots[t->nslots++] = (slot_use){jx_jmp_rip(&t->j), d, 0};
}

/* cmp rax, [rip + d's slot + 8]: a jalr's target against its linked pc */
static inline void compare_slot_pc(tr *t, const sim_insn *d)
{
    t->slots[t->nslots++] = (slot_use){jx_cmp_rip(&t->j, JX_RAX), d, 8};
}


/* Emits entry d's code; false when it is not translated (the caller
 * rewinds and leaves the entry to its handler).  An entry that jumps away
 * for good (a block's end, a jal its block does not go on after, a jalr)
 * is the only kind whose body takes an exit slot (jump_slot). */
bool sim_jit_emit_insn(tr *t, const sim_insn *d, const sim_handlers *hs);
/* Emits stub s (the caller has pointed its jump here); may add stubs. */
void sim_jit_emit_stub(tr *t, const stub *s);
/* Emits an exit to the hot loop at d with reason `why`. */
void sim_jit_emit_exit(tr *t, const sim_insn *d, unsigned why);

#endif
