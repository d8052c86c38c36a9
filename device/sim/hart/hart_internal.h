/* hart_internal: what the hart's files share — the decoded entry and its
 * dense operation enum, the decoded blocks (hart_block.c), the cost table
 * of modeled time, the mstatus bits, and the functions the hot loop
 * (sim_hart.c) calls out to: the decoder (hart_decode.c, hart_rvc.c), CSRs
 * (hart_csr.c), traps and memory slow paths (hart_trap.c, hart_mem.c),
 * the trigger module and PMP (hart_trigger.c, hart_pmp.c).
 * Not for other modules: they use sim_hart.h. */
#ifndef SIM_HART_INTERNAL_H
#define SIM_HART_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sim_fpu.h"
#include "sim_hart.h"
#include "sim_vec.h"

/* Modeled time, the one table: cycles an instruction costs.  Every
 * instruction costs SIM_COST_INSN; a load, store, LR/SC or AMO adds its
 * memory's latency (sim_ram.latency for RAM, whatever a device callback
 * adds); the long integer operations add the extras below; FP operations
 * add what sim_fpu_exec reports.  Taking a trap costs SIM_COST_TRAP (the
 * trapping instruction does not retire), so a trap loop still advances
 * time.  device/sim/README.md restates this table. */
enum {
    SIM_COST_INSN = 1,
    SIM_COST_MUL = 3,  /* extra: mul, mulh, mulhsu, mulhu, mulw */
    SIM_COST_DIV = 20, /* extra: div, divu, rem, remu and their W forms */
    SIM_COST_TRAP = 1,
};

/* Modeled time of vector instructions (vec_*.c), the same table's other
 * half.  The X280's vector datapath moves SIM_VCOST_BEAT_BITS a cycle:
 * an instruction costs SIM_COST_INSN plus a cycle for each beat past the
 * first of the bits it processes (vl times its widest element; a mask
 * instruction vl bits); a multiply adds SIM_COST_MUL once (pipelined), a
 * divide SIM_VCOST_DIV a beat; a floating-point operation SIM_VCOST_FP
 * once (the scalar FPU's add/multiply/fma latency, pipelined), a
 * floating-point divide or square root SIM_VCOST_FDIV a beat.  A load or
 * store adds its memory's latency as the scalar path charges it, once for
 * each run of elements in one 64-byte line (sim_mem's latency: a RAM
 * range's, a device's). */
enum {
    SIM_VCOST_BEAT_BITS = 256,
    SIM_VCOST_DIV = SIM_COST_DIV,
    SIM_VCOST_FP = 4,
    SIM_VCOST_FDIV = 20,
};

/* mstatus fields this hart implements (machine mode only). */
#define SIM_MSTATUS_MIE (1ull << 3)
#define SIM_MSTATUS_MPIE (1ull << 7)
#define SIM_MSTATUS_VS (3ull << 9)
#define SIM_MSTATUS_MPP (3ull << 11)
#define SIM_MSTATUS_FS (3ull << 13)
#define SIM_MSTATUS_SD (1ull << 63)

/* The operations the hot loop dispatches on, as one list (X-macro) that
 * makes both the dense enum and sim_hart_run's table of handlers, so the
 * two cannot disagree.  Compressed instructions are expanded to their
 * 32-bit equivalents first and share these.  Notes by op:
 * BLOCK_END closes a block (hart_block.c); PROBE, never decoded, stands
 * before an instruction at a probed pc (sim_hart_set_probes), costs
 * nothing and counts as no instruction; TRIGGER likewise, after any
 * PROBE, before an instruction an armed execute trigger of a hart sharing
 * the code matches (hart_trigger.c); PMP likewise, after any TRIGGER,
 * before an instruction a locked PMP entry of a hart sharing the code
 * meets: the hart's own fetch check (hart_pmp.c); FETCH_FAULT's imm is the offset
 * of the faulting address from pc; NOP covers fence, hints and ALU ops
 * writing x0; LR/SC/AMO keep the access size (4 or 8) in imm and an AMO's
 * funct5 in aux; CSR keeps funct3 in aux, the CSR number in imm, rs1 the
 * register or uimm; FPU is OP-FP and the fused multiply-adds
 * (the entry's `fpu`, sim_fpu_run); VEC every vector instruction (the
 * entry's `vec`, sim_vec_exec). */
#define SIM_OPS(X)                                                                             \
    X(BLOCK_END) X(ILLEGAL) X(FETCH_FAULT) X(NOP)                                              \
    X(LUI) X(AUIPC) X(JAL) X(JALR)                                                             \
    X(BEQ) X(BNE) X(BLT) X(BGE) X(BLTU) X(BGEU)                                                \
    X(LB) X(LH) X(LW) X(LD) X(LBU) X(LHU) X(LWU)                                               \
    X(SB) X(SH) X(SW) X(SD)                                                                    \
    X(ADDI) X(SLTI) X(SLTIU) X(XORI) X(ORI) X(ANDI) X(SLLI) X(SRLI) X(SRAI)                    \
    X(ADDIW) X(SLLIW) X(SRLIW) X(SRAIW)                                                        \
    X(ADD) X(SUB) X(SLL) X(SLT) X(SLTU) X(XOR) X(SRL) X(SRA) X(OR) X(AND)                      \
    X(ADDW) X(SUBW) X(SLLW) X(SRLW) X(SRAW)                                                    \
    /* M */                                                                                    \
    X(MUL) X(MULH) X(MULHSU) X(MULHU) X(DIV) X(DIVU) X(REM) X(REMU)                            \
    X(MULW) X(DIVW) X(DIVUW) X(REMW) X(REMUW)                                                  \
    /* A */                                                                                    \
    X(LR) X(SC) X(AMO)                                                                         \
    /* Zba */                                                                                  \
    X(SH1ADD) X(SH2ADD) X(SH3ADD) X(ADD_UW) X(SH1ADD_UW) X(SH2ADD_UW) X(SH3ADD_UW)             \
    X(SLLI_UW)                                                                                 \
    /* Zbb */                                                                                  \
    X(ANDN) X(ORN) X(XNOR) X(CLZ) X(CTZ) X(CPOP) X(CLZW) X(CTZW) X(CPOPW)                      \
    X(MAX) X(MAXU) X(MIN) X(MINU) X(SEXT_B) X(SEXT_H) X(ZEXT_H)                                \
    X(ROL) X(ROR) X(ROLW) X(RORW) X(RORI) X(RORIW) X(ORC_B) X(REV8)                            \
    /* system */                                                                               \
    X(FENCE_I) X(ECALL) X(EBREAK) X(MRET) X(WFI) X(CSR)                                        \
    /* F, D and Zfh */                                                                         \
    X(FLW) X(FLD) X(FSW) X(FSD) X(FPU) X(FLH) X(FSH)                                           \
    /* V: one op, the entry's `vec` says which (sim_vec_exec) */                               \
    X(VEC)                                                                                     \
    /* kmrun's own: a probe, a trigger check before the next entry's instruction */            \
    X(PROBE) X(TRIGGER) X(PMP)

#define SIM_OP_ENUM(name) SIM_OP_##name,
typedef enum sim_op { SIM_OPS(SIM_OP_ENUM) SIM_OP_COUNT } sim_op;
#undef SIM_OP_ENUM

/* One decoded instruction, an entry of a decoded block (hart_block.c).
 * `run` is the address of its handler inside sim_hart_run (computed goto),
 * so the hot loop dispatches with one indirect jump and no table.  The
 * block's totals ride on every entry, so that a block may be entered at
 * any of its instructions and left early with exact accounting: from this
 * entry to the block's end, `n_rest` instructions and `cost_rest` static
 * cycles (SIM_COST_INSN plus the multiply/divide extras; memory latency
 * and FP latency are added as they happen); `last_cost` is the static cost
 * of the block's last instruction. */
typedef struct sim_insn {
    const void *run;
    uint64_t pc;
    /* Branches, jal and jalr: the entry of the taken target, filled on
     * first use (the arena is flushed whole, so a link never outlives its
     * target); a branch not taken goes on to the next entry. */
    struct sim_insn *taken;
    union {
        sim_fpu_insn fpu;      /* SIM_OP_FPU: the operation, decoded once */
        sim_vec_insn vec;      /* SIM_OP_VEC: likewise */
    };
    int32_t imm;
    uint32_t bits; /* the encoding as fetched (16 bits for RVC): mtval */
    uint32_t cost_rest;
    uint8_t n_rest; /* at most SIM_BLOCK_MAX */
    uint8_t jit;    /* sim_jit_state: its translation from here */
    uint16_t last_cost;
    uint8_t op; /* sim_op */
    uint8_t rd, rs1, rs2;
    uint8_t len; /* 2 or 4 */
    uint8_t aux; /* op-specific: AMO funct5, CSR funct3 */
    /* The registers whose results the forwarded values f0 and f1 hold
     * when this entry starts (sim_handlers): what entering the block here
     * loads into them; 0 (x0) where the block holds none. */
    uint8_t fwd[2];
} sim_insn;

/* The hot loop's handlers, as sim_hart_run gives them to the block
 * builder: each op's plain form (`run`); for the ops that have them, the
 * forms that read a source from the forwarded values instead of the
 * register file — f0, the result of the instruction just run, or f1, the
 * one before it, when those instructions `forward` — indexed by where
 * each source comes from (0 x[], 1 f0, 2 f1): form1[op][rs1's] for one
 * source, form2[op][rs1's][rs2's] for two.  The builder tracks which
 * registers f0 and f1 hold along a block (hart_block.c); sim_hart.c says
 * why. */
typedef struct sim_handlers {
    const void *run[SIM_OP_COUNT];
    const void *jal_on; /* a jal whose block goes on at its target */
    const void *li;     /* addi from x0 */
    const void *mv[3];  /* addi of 0, its source from x[], f0 or f1 */
    /* A load into x0 (its access and nothing else): the slow path, so
     * that the others write rd without re-zeroing x0. */
    const void *load_x0[SIM_OP_COUNT];
    const void *form1[SIM_OP_COUNT][3];
    const void *form2[SIM_OP_COUNT][3][3];
    bool forwards[SIM_OP_COUNT];
} sim_handlers;

/* Instructions a block holds at most: long enough that a straight run of
 * code pays the block's entry check rarely, short enough that the step
 * mode near a run's cycle limit (sim_hart.c) stays cheap. */
#define SIM_BLOCK_MAX 32

/* An address range [lo, hi). */
typedef struct sim_pmp_span {
    uint64_t lo, hi;
} sim_pmp_span;

/* The decoded code of one hart: `map` has a slot per halfword of the code
 * range (index (pc - base) / 2) pointing at an entry that decodes that pc
 * (the first decoded: a pc inside a longer block keeps that block's
 * entry), NULL until first executed.  Entries live in `arena`, blocks one
 * after another, each closed by a SIM_OP_BLOCK_END entry.  A full arena,
 * fence.i and the owner's flush drop everything at once and bump `gen`,
 * so that nothing links into freed entries.  Shared by the harts of one
 * memory with the same code range (sim_hart_init): `users` of them. */
struct sim_icache {
    uint64_t base, size;
    unsigned users;
    uint64_t *probes; /* sorted (sim_hart_set_probes) */
    unsigned nprobes;
    /* The armed execute triggers of the harts that share it (their
     * tdata1's match field and tdata2): a pc one matches heads a block,
     * behind a TRIGGER entry (sim_icache_retrigger keeps it). */
    sim_trigger texec[SIM_MEM_MAX_HARTS * SIM_HART_TRIGGERS];
    unsigned ntexec;
    /* The ranges of the locked PMP entries of the harts that share it
     * (hart_pmp.c): an instruction one meets is preceded by a PMP entry
     * (sim_icache_repmp keeps it). */
    sim_pmp_span pmp[SIM_MEM_MAX_HARTS * SIM_HART_PMP];
    unsigned npmp;
    sim_insn **map;
    size_t map_lo, map_hi; /* slots set since the last flush */
    sim_insn *arena;
    size_t cap, used;
    uint64_t gen;
    struct sim_jit *jit; /* the blocks' translations; NULL: interpret only */
    /* Whose handlers the entries hold: sim_hart_run's or its profiled
     * copy's (hart_run.h); the other flushes it before running it. */
    const struct sim_handlers *built_by;
};

/* The translated code (hart_jit.c, which says what it is): how the hot
 * loop calls it, what it hands over and gets back. */
typedef struct sim_jit_regs {
    uint64_t cycle, instret, mcycles; /* in and out */
    uint64_t limit;
    uint64_t rbase, rlen, rlat; /* the RAM cache (sim_hart.c) */
    uint8_t *rhost;
    uint64_t *x;
    sim_mem *m;
    uint8_t others; /* stores must call sim_mem_note_store */
    /* The cached window's inline hits (sim_mem.h), as the handlers' slow
     * path serves them: m->cached, or one of size 0 while the run is not
     * quiet (its accesses must reach the callbacks). */
    const sim_mem_cached *cached;
    const sim_insn *d; /* out: where the hot loop goes on (sim_jit_exit) */
    uint64_t target;   /* out: SIM_JIT_JALR's target */
} sim_jit_regs;

/* Why translated code gave the hot loop back the run, at regs->d. */
enum sim_jit_exit {
    SIM_JIT_ENTER,   /* run d's handler: d's block is entered, d not begun */
    SIM_JIT_STEP,    /* d's block does not fit before the limit: not entered */
    SIM_JIT_OVERRUN, /* d ran, and its latency took its block past stop */
    SIM_JIT_CHAIN,   /* d (a branch taken, a jal, a block's end) goes on at
                      * its target, which is not linked yet */
    SIM_JIT_JALR,    /* d, a jalr, goes on at regs->target, not the one its
                      * slot is linked to */
    /* and from a stepped translation (sim_jit_stepped) only: */
    SIM_JIT_CUT,     /* d starts at or past the limit: the run ends before d */
    SIM_JIT_RESTEP,  /* d starts before the limit but is not translated:
                      * the handlers' step mode from d, d not begun */
};

typedef int sim_jit_fn(sim_jit_regs *regs, const void *code);

/* One decoded cache's translations (hart_jit.c, which says what they
 * are; here so that the hot loop reads `buf`, `enter`, `body` and
 * `stepped` without a call). */
struct sim_jit {
    uint8_t *buf;
    size_t mapped;     /* the mapping's bytes */
    size_t size, used; /* of those, what translations may fill */
    uint64_t clears;   /* times it was full and everything went */
    size_t start; /* the entry/exit code's bytes, kept on a reset */
    sim_jit_fn *enter;
    uint8_t *exit; /* rdi: the entry to go on at, eax: why */
    size_t cap;    /* entries of the decoded arena */
    /* Per arena entry (index d - arena): offsets into buf, 0 for none.
     * `checked` is the translation from that entry, with its block's
     * entry accounting; `body` the same past it (the hot loop has done
     * that); `slot` the exit slot of a branch, jal or block end;
     * `stepped` the stepped translation from that entry (SIM_JIT_STEPPED_NONE:
     * there is none); `cell` the step cell of the translation from it. */
    uint32_t *checked, *body, *slot, *stepped, *cell;
};
#define SIM_JIT_STEPPED_NONE 1u /* no offset: the entry/exit code is there */

/* An entry's translation (sim_insn.jit): not tried yet, made, or none
 * (nothing there it translates, or no translation at all). */
enum sim_jit_state { SIM_JIT_UNTRIED, SIM_JIT_MADE, SIM_JIT_NONE };

/* Whether translation is wanted (KMRUN_JIT is not "off" or "0"). */
bool sim_jit_wanted(void);
/* Translations for a decoded arena of `cap` entries; NULL when this host
 * has none (not x86-64 Linux) or memory is lacking. */
struct sim_jit *sim_jit_new(size_t cap);
void sim_jit_free(struct sim_jit *jt);
/* Drops every translation; `flush`: the decoded entries go too. */
void sim_jit_clear(struct sim_icache *ic, bool flush);
/* For tests: translations may fill only `bytes` of the mapping, so that
 * it fills (and is cleared) soon; how many times it was. */
void sim_jit_limit(struct sim_jit *jt, size_t bytes);
uint64_t sim_jit_clears(const struct sim_jit *jt);
/* The entry point that runs translated code (sim_jit_fn's `code`). */
sim_jit_fn *sim_jit_enter_fn(const struct sim_jit *jt);
/* The translation from entry d on, past its block's accounting (the hot
 * loop has done that): made now if it was not tried; NULL when d has none
 * (d->jit is then SIM_JIT_NONE). */
const void *sim_jit_body(struct sim_icache *ic, sim_insn *d, const sim_handlers *hs);
/* The stepped translation from entry d on, for a block that does not fit
 * before the run's limit (the hot loop's step mode): it adds the block's
 * accounting itself, and before each entry checks that its instruction
 * starts before the limit (else SIM_JIT_CUT there); no stop checks, and
 * what the plain translation leaves to d's handler it leaves to the step
 * mode (SIM_JIT_RESTEP).  Made now if it was not tried; NULL when there is
 * none. */
const void *sim_jit_stepped(struct sim_icache *ic, sim_insn *d, const sim_handlers *hs);
/* d's exit (SIM_JIT_CHAIN, SIM_JIT_JALR) goes on at entry e: straight to
 * e's translation from now on (made now if need be); a jalr's, when its
 * target is e's pc. */
void sim_jit_link(struct sim_icache *ic, const sim_insn *d, sim_insn *e, const sim_handlers *hs);

/* hart_trace.c: what sim_hart_step records of an access (nothing
 * outside a step). */
static inline void sim_commit_load(sim_hart *h, uint64_t addr)
{
    if (__builtin_expect(h->commit != NULL, 0)) {
        h->commit->load = true;
        h->commit->load_addr = addr;
    }
}
static inline void sim_commit_store(sim_hart *h, uint64_t addr, uint64_t value, unsigned size)
{
    if (__builtin_expect(h->commit != NULL, 0)) {
        h->commit->store = true;
        h->commit->store_addr = addr;
        h->commit->store_value = size == 8 ? value : value & ((1ull << (8 * size)) - 1);
        h->commit->store_size = size;
    }
}

/* What the memory slow paths return when a watch stopped the run before
 * the access (not a trap cause: causes are below 16). */
#define SIM_HART_STOPPED 0x100

/* hart_mem.c: calls h->watch for every watch [addr, addr + size) meets
 * (h is as of the instruction's start); true when one asked to stop. */
bool sim_watch_check(sim_hart *h, uint64_t addr, unsigned size, bool store);
static inline bool sim_watch_access(sim_hart *h, uint64_t addr, unsigned size, bool store)
{
    return __builtin_expect(h->nwatches != 0, 0) && sim_watch_check(h, addr, size, store);
}

/* hart_trigger.c: the trigger module.  The CSRs (tselect 0x7a0, tdata1-3
 * 0x7a1-0x7a3, tinfo 0x7a4): sim_trigger_csr_read is false for another
 * number; a write is machine mode's (a dmode trigger ignores it). */
bool sim_trigger_csr_read(const sim_hart *h, unsigned csr, uint64_t *v);
void sim_trigger_csr_write(sim_hart *h, unsigned csr, uint64_t v);
/* Whether one of h's armed triggers fires on executing pc, or on an
 * access of `size` bytes at addr (sets their hit bits): the caller
 * raises the breakpoint exception. */
bool sim_trigger_exec(sim_hart *h, uint64_t pc);
bool sim_trigger_mem(sim_hart *h, uint64_t addr, unsigned size, bool store);
static inline bool sim_trigger_access(sim_hart *h, uint64_t addr, unsigned size, bool store)
{
    return __builtin_expect(h->trig_mem != 0, 0) && sim_trigger_mem(h, addr, size, store);
}
/* Whether an execute trigger in ic's set matches pc (the decoder asks). */
bool sim_icache_triggered(const struct sim_icache *ic, uint64_t pc);
/* Recollects ic's set from the harts of m that share it; flushes ic when
 * the set changed. */
void sim_icache_retrigger(sim_mem *m, struct sim_icache *ic);

/* hart_pmp.c: physical memory protection.  The CSRs (pmpcfg0 0x3a0,
 * pmpcfg2 0x3a2, pmpaddr0-15 0x3b0-0x3bf): sim_pmp_csr_read is false for
 * another number; a write keeps the legal value and what locks allow. */
bool sim_pmp_is_csr(unsigned csr);
bool sim_pmp_csr_read(const sim_hart *h, unsigned csr, uint64_t *v);
void sim_pmp_csr_write(sim_hart *h, unsigned csr, uint64_t v);
/* Entry i's range [lo, hi) as its pmpcfg and pmpaddr (and pmpaddr i-1 for
 * TOR) say; false when it matches nothing (off, or an empty TOR). */
bool sim_pmp_range(const sim_hart *h, unsigned i, uint64_t *lo, uint64_t *hi);
/* Whether h's PMP lets machine mode make an access of `size` bytes at
 * addr that needs `perm` (SIM_PMP_R, W or X; an AMO R | W). */
bool sim_pmp_allows(const sim_hart *h, uint64_t addr, unsigned size, unsigned perm);
static inline bool sim_pmp_denies(const sim_hart *h, uint64_t addr, unsigned size, unsigned perm)
{
    return __builtin_expect(h->pmp_deny != 0, 0) && !sim_pmp_allows(h, addr, size, perm);
}
/* Whether no entry of h that may deny a load or store (locked, without R
 * or W) meets [base, base + size): then PMP allows every access there. */
bool sim_pmp_open(const sim_hart *h, uint64_t base, uint64_t size);
/* Whether the hot loop's RAM cache may serve RAM range r although the
 * run is not quiet (sim_hart.c): PMP alone asks to see accesses (no
 * watch, commit record or load/store trigger), and none of its entries
 * that may deny one meets r. */
static inline bool sim_ram_open(const sim_hart *h, const sim_ram *r)
{
    return !h->nwatches && !h->commit && !h->trig_mem && sim_pmp_open(h, r->base, r->size);
}
/* Whether h's PMP denies fetching the `len`-byte instruction at pc (in
 * 2-byte parcels); then *tval is the first parcel denied. */
bool sim_pmp_fetch_denied(const sim_hart *h, uint64_t pc, unsigned len, uint64_t *tval);
/* Whether an entry in ic's set (the locked entries without X of the
 * harts sharing it) meets [pc, pc + 4) (the decoder asks);
 * sim_icache_repmp recollects the set from the harts of m that share ic,
 * and flushes ic when it changed. */
bool sim_icache_pmp_fenced(const struct sim_icache *ic, uint64_t pc);
void sim_icache_repmp(sim_mem *m, struct sim_icache *ic);

/* hart_rvc.c: the 32-bit instruction a compressed one stands for, or 0 when
 * `c` is reserved or illegal (0 is itself illegal as a 32-bit word). */
uint32_t sim_rvc_expand(uint16_t c);

/* hart_decode.c: decodes the 32-bit encoding `insn` into *d (op, fields,
 * len 4, bits).  The caller fixes len and bits for an expanded RVC. */
void sim_decode(sim_insn *d, uint32_t insn);

/* hart_decode.c: decodes the instruction at pc (inside the code range)
 * into *d, fetching its bits from RAM; a fetch that reaches outside the
 * code range or RAM becomes SIM_OP_FETCH_FAULT.  Sets op, fields, len,
 * bits and pc; the block fields are the builder's. */
void sim_decode_at(const sim_hart *h, uint64_t pc, sim_insn *d);

/* hart_block.c: the decoded cache's life.  sim_icache_new returns NULL
 * when memory is lacking. */
struct sim_icache *sim_icache_new(uint64_t base, uint64_t size);
void sim_icache_free(struct sim_icache *ic);
void sim_icache_flush(struct sim_icache *ic);
/* The probe set (sim_hart_set_probes); flushes. */
int sim_icache_set_probes(struct sim_icache *ic, const uint64_t *pcs, unsigned n);

/* hart_block.c: the entry to run for pc (even, inside the code range):
 * the one decoded before, or the head of a block decoded now from pc on,
 * its entries' handlers picked from `hs`.  May
 * flush the cache first (a full arena): callers compare ic->gen before
 * keeping a link. */
sim_insn *sim_block_entry(sim_hart *h, uint64_t pc, const sim_handlers *hs);

/* hart_csr.c: executes the CSR instruction *d (h->pc/cycle/instret are
 * current).  Returns 0 or SIM_CAUSE_ILLEGAL. */
int sim_hart_csr(sim_hart *h, const sim_insn *d);

/* hart_trap.c: takes the trap: mepc = h->pc, mcause, mtval, mstatus
 * MPIE/MIE, pc = mtvec; records it in h->trap_*. */
void sim_hart_trap(sim_hart *h, uint64_t cause, uint64_t tval);

/* hart_trap.c: mret: MIE = MPIE, MPIE = 1, pc = mepc. */
void sim_hart_mret(sim_hart *h);

/* hart_mem.c: the slow paths of a load and a store of `size` bytes at an
 * aligned addr: RAM range `ram` (sim_mem_find_ram's answer, found by the
 * caller, which also wants it), else (-1) the device callbacks.  Return 0
 * or the trap cause.  h->cycle is current and gets the access's latency. */
int sim_hart_load_slow(sim_hart *h, int ram, uint64_t addr, unsigned size, uint64_t *value);
int sim_hart_store_slow(sim_hart *h, int ram, uint64_t addr, unsigned size, uint64_t value);

/* hart_mem.c: LR, SC and AMOs (*d; h->pc/cycle current).  Return 0 or
 * the trap cause, with *tval set. */
int sim_hart_atomic(sim_hart *h, const sim_insn *d, uint64_t *tval);

/* hart_mem.c: FP loads and stores (FLH/FLW/FLD/FSH/FSW/FSD and the compressed
 * forms).  Return 0 or the trap cause, with *tval set. */
int sim_hart_fp_mem(sim_hart *h, const sim_insn *d, uint64_t *tval);


/* hart_calls.c: a core's shadow call stack (the profile's: sim_profile.h
 * says how a jump moves it), a tree of the calls seen.  A node: its
 * parent, the call site that entered it (| SIM_PROFILE_TRAP_FRAME for a
 * trap), where a return to its caller goes, its depth; node 0 the root.
 * `cur` is the stack (its innermost node); pushes past
 * SIM_PROFILE_MAX_DEPTH are counted in `unseen`, not kept; `failed`: memory
 * ran out as it grew (the stack is then short of frames). */
typedef struct sim_call_node {
    uint32_t parent;
    uint64_t site, ret;
    uint32_t depth;
} sim_call_node;
typedef struct sim_calls {
    sim_call_node *nodes;
    uint32_t nnodes, capnodes;
    uint32_t *children; /* hash of (parent, site) -> node index + 1 */
    uint32_t capchildren;
    uint32_t cur, unseen;
    bool failed;
} sim_calls;
bool sim_calls_init(sim_calls *c); /* false: out of memory */
void sim_calls_free(sim_calls *c);
/* The stack after the jump at pc (op, rd, rs1 and len as decoded)
 * retired, the hart going on at next. */
void sim_calls_jump(sim_calls *c, uint64_t pc, unsigned op, unsigned rd, unsigned rs1,
                    unsigned len, uint64_t next);
/* A trap taken at pc: its frame. */
void sim_calls_trap(sim_calls *c, uint64_t pc);
/* The frames of node k, the instruction pc last, into frames (room for
 * SIM_PROFILE_MAX_DEPTH + 1); their count. */
unsigned sim_calls_frames(const sim_calls *c, uint32_t k, uint64_t pc, uint64_t *frames);

/* ---- What the hot loop's handlers compute (hart_run.h, both copies):
 * the integer helpers (sign extension, the M and Zbb operations' corner
 * cases), the X-macro lists of the operations whose handler is one
 * expression of its sources (ALU, branches, loads, stores) and
 * LIKELY/UNLIKELY.  Here, not in a header of their own, so that hart/
 * stays within its count of files; no state. */
static inline uint64_t sext32(uint64_t v)
{
    return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
}

static inline uint64_t div_s(uint64_t a, uint64_t b)
{
    if (b == 0)
        return UINT64_MAX;
    if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
        return a;
    return (uint64_t)((int64_t)a / (int64_t)b);
}

static inline uint64_t rem_s(uint64_t a, uint64_t b)
{
    if (b == 0)
        return a;
    if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
        return 0;
    return (uint64_t)((int64_t)a % (int64_t)b);
}

static inline uint64_t divw_s(uint64_t a, uint64_t b)
{
    int32_t x = (int32_t)a, y = (int32_t)b;
    if (y == 0)
        return UINT64_MAX;
    if (x == INT32_MIN && y == -1)
        return (uint64_t)(int64_t)x;
    return (uint64_t)(int64_t)(x / y);
}

static inline uint64_t remw_s(uint64_t a, uint64_t b)
{
    int32_t x = (int32_t)a, y = (int32_t)b;
    if (y == 0)
        return (uint64_t)(int64_t)x;
    if (x == INT32_MIN && y == -1)
        return 0;
    return (uint64_t)(int64_t)(x % y);
}

static inline uint64_t rol64(uint64_t v, unsigned s)
{
    s &= 63;
    return s ? (v << s) | (v >> (64 - s)) : v;
}

static inline uint64_t ror64(uint64_t v, unsigned s)
{
    s &= 63;
    return s ? (v >> s) | (v << (64 - s)) : v;
}

static inline uint32_t rol32(uint32_t v, unsigned s)
{
    s &= 31;
    return s ? (v << s) | (v >> (32 - s)) : v;
}

static inline uint32_t ror32(uint32_t v, unsigned s)
{
    s &= 31;
    return s ? (v >> s) | (v << (32 - s)) : v;
}

static inline uint64_t orc_b(uint64_t v)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < 64; i += 8)
        if ((v >> i) & 0xff)
            r |= 0xffull << i;
    return r;
}

/* The operations whose handler is one expression of its sources (s1 the
 * value of rs1, s2 of rs2), written once here and expanded by sim_hart_run
 * into a plain form and the forms that take a source from a forwarded
 * value, f0 or f1 (sim_handlers): one source and an immediate, ... */
#define SIM_ALU1(X)                                                                            \
    X(ADDI, s1 + IMM) X(SLTI, (int64_t)s1 < (int64_t)IMM) X(SLTIU, s1 < IMM)                   \
    X(XORI, s1 ^ IMM) X(ORI, s1 | IMM) X(ANDI, s1 & IMM)                                       \
    X(SLLI, s1 << d->imm) X(SRLI, s1 >> d->imm) X(SRAI, (uint64_t)((int64_t)s1 >> d->imm))     \
    X(ADDIW, sext32(s1 + IMM)) X(SLLIW, sext32((uint32_t)s1 << d->imm))                        \
    X(SRLIW, sext32((uint32_t)s1 >> d->imm))                                                   \
    X(SRAIW, (uint64_t)(int64_t)((int32_t)s1 >> d->imm))                                       \
    X(SLLI_UW, (uint64_t)(uint32_t)s1 << d->imm)                                               \
    X(CLZ, s1 ? (uint64_t)__builtin_clzll(s1) : 64)                                            \
    X(CTZ, s1 ? (uint64_t)__builtin_ctzll(s1) : 64)                                            \
    X(CPOP, (uint64_t)__builtin_popcountll(s1))                                                \
    X(CLZW, (uint32_t)s1 ? (uint64_t)__builtin_clz((uint32_t)s1) : 32)                         \
    X(CTZW, (uint32_t)s1 ? (uint64_t)__builtin_ctz((uint32_t)s1) : 32)                         \
    X(CPOPW, (uint64_t)__builtin_popcount((uint32_t)s1))                                       \
    X(SEXT_B, (uint64_t)(int64_t)(int8_t)s1) X(SEXT_H, (uint64_t)(int64_t)(int16_t)s1)         \
    X(ZEXT_H, (uint16_t)s1) X(RORI, ror64(s1, (unsigned)d->imm))                               \
    X(RORIW, sext32(ror32((uint32_t)s1, (unsigned)d->imm))) X(ORC_B, orc_b(s1))                \
    X(REV8, __builtin_bswap64(s1))
/* ... two sources (M's extra cycles are in the entry's static cost,
 * hart_block.c), ... */
#define SIM_ALU2(X)                                                                            \
    X(ADD, s1 + s2) X(SUB, s1 - s2) X(SLL, s1 << (s2 & 63))                                    \
    X(SLT, (int64_t)s1 < (int64_t)s2) X(SLTU, s1 < s2) X(XOR, s1 ^ s2)                         \
    X(SRL, s1 >> (s2 & 63)) X(SRA, (uint64_t)((int64_t)s1 >> (s2 & 63))) X(OR, s1 | s2)        \
    X(AND, s1 & s2) X(ADDW, sext32(s1 + s2)) X(SUBW, sext32(s1 - s2))                          \
    X(SLLW, sext32((uint32_t)s1 << (s2 & 31))) X(SRLW, sext32((uint32_t)s1 >> (s2 & 31)))      \
    X(SRAW, (uint64_t)(int64_t)((int32_t)s1 >> (s2 & 31)))                                     \
    X(MUL, s1 * s2)                                                                            \
    X(MULH, (uint64_t)(((__int128)(int64_t)s1 * (__int128)(int64_t)s2) >> 64))                 \
    X(MULHSU, (uint64_t)(((__int128)(int64_t)s1 * (__int128)s2) >> 64))                        \
    X(MULHU, (uint64_t)(((unsigned __int128)s1 * s2) >> 64))                                   \
    X(MULW, sext32((uint32_t)s1 * (uint32_t)s2))                                               \
    X(DIV, div_s(s1, s2)) X(DIVU, s2 ? s1 / s2 : UINT64_MAX) X(REM, rem_s(s1, s2))             \
    X(REMU, s2 ? s1 % s2 : s1) X(DIVW, divw_s(s1, s2))                                         \
    X(DIVUW, (uint32_t)s2 ? sext32((uint32_t)s1 / (uint32_t)s2) : UINT64_MAX)                  \
    X(REMW, remw_s(s1, s2))                                                                    \
    X(REMUW, sext32((uint32_t)s2 ? (uint32_t)s1 % (uint32_t)s2 : (uint32_t)s1))                \
    X(SH1ADD, (s1 << 1) + s2) X(SH2ADD, (s1 << 2) + s2) X(SH3ADD, (s1 << 3) + s2)              \
    X(ADD_UW, (uint64_t)(uint32_t)s1 + s2) X(SH1ADD_UW, ((uint64_t)(uint32_t)s1 << 1) + s2)    \
    X(SH2ADD_UW, ((uint64_t)(uint32_t)s1 << 2) + s2)                                           \
    X(SH3ADD_UW, ((uint64_t)(uint32_t)s1 << 3) + s2)                                           \
    X(ANDN, s1 & ~s2) X(ORN, s1 | ~s2) X(XNOR, ~(s1 ^ s2))                                     \
    X(MAX, (int64_t)s1 > (int64_t)s2 ? s1 : s2) X(MAXU, s1 > s2 ? s1 : s2)                     \
    X(MIN, (int64_t)s1 < (int64_t)s2 ? s1 : s2) X(MINU, s1 < s2 ? s1 : s2)                     \
    X(ROL, rol64(s1, (unsigned)s2)) X(ROR, ror64(s1, (unsigned)s2))                            \
    X(ROLW, sext32(rol32((uint32_t)s1, (unsigned)s2)))                                         \
    X(RORW, sext32(ror32((uint32_t)s1, (unsigned)s2)))
/* ... the branches' conditions, ... */
#define SIM_BRANCHES(X)                                                                        \
    X(BEQ, s1 == s2) X(BNE, s1 != s2) X(BLT, (int64_t)s1 < (int64_t)s2)                        \
    X(BGE, (int64_t)s1 >= (int64_t)s2) X(BLTU, s1 < s2) X(BGEU, s1 >= s2)
/* ... the loads (size, type read, the value it leaves, the raw `t`
 * extended) and the stores (size, type written). */
#define SIM_LOADS(X)                                                                           \
    X(LB, 1, int8_t, (uint64_t)(int64_t)t) X(LH, 2, int16_t, (uint64_t)(int64_t)t)             \
    X(LW, 4, int32_t, (uint64_t)(int64_t)t) X(LD, 8, uint64_t, t) X(LBU, 1, uint8_t, t)        \
    X(LHU, 2, uint16_t, t) X(LWU, 4, uint32_t, t)
#define SIM_STORES(X) X(SB, 1, uint8_t) X(SH, 2, uint16_t) X(SW, 4, uint32_t) X(SD, 8, uint64_t)

static inline uint64_t load_extend(unsigned op, uint64_t raw)
{
    switch (op) {
    case SIM_OP_LB: return (uint64_t)(int64_t)(int8_t)raw;
    case SIM_OP_LH: return (uint64_t)(int64_t)(int16_t)raw;
    case SIM_OP_LW: return sext32(raw);
    default: return raw; /* LD and the unsigned loads */
    }
}

#define LIKELY(c) __builtin_expect(!!(c), 1)
#define UNLIKELY(c) __builtin_expect(!!(c), 0)

#endif
