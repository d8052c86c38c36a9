/* hart_run: the body of the hot loop (sim_hart.c says how it works),
 * written once and compiled twice: as sim_hart.c's sim_hart_run, and as
 * hart_profile.c's profiled copy, which notes each instruction as it
 * starts and never enters translated code.  So a profile costs nothing to
 * a run without one, and a profiled run does not leave the loop at every
 * instruction.  The includer defines, before including it once:
 *   SIM_RUN_SIGNATURE   the function's head (h and until_cycle among its
 *                       parameters)
 *   RUN_TRANSLATED      whether a block with a translation runs it (0/1)
 *   RUN_LOCALS          declarations at the top of the body
 *   RUN_ENTER(d)        the run enters a block at entry d: its
 *                       instruction starts now (the hart's time as of its
 *                       start: cycle - d->cost_rest, instret - d->n_rest,
 *                       mcycles)
 *   RUN_AT(d)           the same, going on from the entry before d, at
 *                       a check entry (a probe, a trigger, a PMP check)
 *                       and a jal whose block goes on at its target
 *   RUN_DISPATCH(pc)    the run goes on at pc, the hart as of its start in
 *                       cycle, instret and mcycles, the entry to be found
 *   RUN_LAT(c, m)       d's instruction took c cycles more than its static
 *                       cost, m of them memory stalls
 *   RUN_TRAP_AT(pc)     a trap is taken at pc, the hart as of its start
 *                       in cycle, instret and mcycles
 *   RUN_END()           the run leaves, the hart's fields written back
 * and includes hart_internal.h (which also holds what the handlers
 * compute: the helpers and the operation lists) and sim_fpu.h first. */

/* The hot loop.  Time is kept per block: entering at entry d adds the
 * static cost and the count of every instruction from d to the block's end
 * at once, which is exact as long as the block's last instruction starts
 * before `limit` (an instruction runs only when it starts before the
 * limit).  So entry checks that, with `stop` = limit + the last one's
 * cost; memory and FP latency, known only as they happen, are added as
 * they happen and checked against `stop` again.  A block that does not
 * fit runs up to the instruction that would start past the limit (`step`).  Leaving a block early
 * (a trap, a halt) takes back what its unrun instructions added. */
SIM_RUN_SIGNATURE
{
#define SIM_OP_LABEL(name) [SIM_OP_##name] = &&op_##name,
#define SIM_FWD_OUT(name, ...) [SIM_OP_##name] = true,
#define SIM_FORMS1(name, ...) [SIM_OP_##name] = {&&op_##name, &&op_##name##_0, &&op_##name##_1},
#define SIM_LOAD_X0(name, ...) [SIM_OP_##name] = &&op_##name##_X0,
#define SIM_FORMS2(name, ...)                                                                  \
    [SIM_OP_##name] = {{&&op_##name, &&op_##name##_R0, &&op_##name##_R1},                    \
                       {&&op_##name##_0R, &&op_##name##_00, &&op_##name##_01},                \
                       {&&op_##name##_1R, &&op_##name##_10, &&op_##name##_11}},
    static const sim_handlers handlers = {
        .run = {SIM_OPS(SIM_OP_LABEL)},
        .jal_on = &&op_JAL_ON,
        .li = &&op_LI,
        .mv = {&&op_MV, &&op_MV_0, &&op_MV_1},
        .load_x0 = {SIM_LOADS(SIM_LOAD_X0)},
        .form1 = {SIM_ALU1(SIM_FORMS1) SIM_LOADS(SIM_FORMS1)},
        .form2 = {SIM_ALU2(SIM_FORMS2) SIM_BRANCHES(SIM_FORMS2) SIM_STORES(SIM_FORMS2)},
        .forwards = {SIM_ALU1(SIM_FWD_OUT) SIM_ALU2(SIM_FWD_OUT) SIM_LOADS(SIM_FWD_OUT)
                         SIM_FWD_OUT(LUI) SIM_FWD_OUT(AUIPC)},
    };
#undef SIM_OP_LABEL
#undef SIM_FWD_OUT
#undef SIM_FORMS1
#undef SIM_LOAD_X0
#undef SIM_FORMS2

    if (h->state != SIM_HART_RUNNING || !h->icache)
        return h->state;

    sim_mem *const m = h->mem;
    uint64_t *const x = h->x;
    struct sim_icache *const ic = h->icache;
    sim_insn **const map = ic->map;
    const uint64_t cbase = h->code_base, csize = h->code_size;
    /* The entries hold one copy's handler addresses: a cache the other
     * copy built starts over (a hart is profiled or not for its life, so
     * this happens once, or under a debugger's step of a profiled one). */
    if (UNLIKELY(ic->built_by != &handlers)) {
        sim_icache_flush(ic);
        ic->built_by = &handlers;
    }
    RUN_LOCALS
    uint64_t pc = h->pc, cycle = h->cycle, instret = h->instret;
    uint64_t mcycles = h->mem_cycles; /* of cycle: what memory accesses added */
    /* Far above any modeled time, so that limit + a block's cost never
     * wraps. */
    const uint64_t limit = until_cycle < (UINT64_MAX >> 1) ? until_cycle : (UINT64_MAX >> 1);
    uint64_t stop = limit;
    const sim_insn *d = NULL;
    sim_insn **link = NULL; /* where to keep the entry dispatch finds */
    sim_insn *cut = NULL;   /* step: the entry whose handler is op_CUT */
    const void *cut_run = NULL;

    /* The last RAM range a load or store reached: an access at offset o
     * from rbase hits when o < rlen (room for 8 bytes at o). */
    uint64_t rbase = 0, rlen = 0, rlat = 0;
    uint8_t *rhost = NULL;

    /* Only stores that could break another hart's reservation need
     * sim_mem_note_store on the fast path: one another of m->harts holds
     * now (h is one of them).  None takes one while h runs, since only a
     * hart's own LR does (a store may end one: then a call finds none). */
    const bool others = sim_mem_others_reserved(m, h);
    /* Nothing watches, records or checks accesses (watches, a commit
     * record, load/store triggers, locked PMP entries): the inline paths
     * may serve them (a probe that sets watches ends the run's use of
     * them: rlen). */
#define QUIET() (!h->nwatches && !h->commit && !h->checks_mem)
    bool quiet = QUIET();

    /* The forwarded values: f0 the result of the instruction just run,
     * f1 the one before it, as the handlers of the instructions that
     * forward (sim_handlers.forwards) leave them.  An entry whose source
     * is one of those results (a form of hart_internal.h's tables) reads
     * it from this host register instead of x[], which the handler that
     * wrote it has only just stored: dependent chains stop waiting on the
     * host's store-to-load forwarding.  Whatever starts running at an
     * entry other than the handler before it (ENTER) loads both from x[],
     * for the registers the entry's block holds in them there
     * (d->fwd), so entering mid-block is right too. */
    uint64_t f0 = 0, f1 = 0;

    /* The translated code (hart_jit.c): what it is handed each time the
     * loop calls it on entering a block (`translated`), filled there (a
     * run that never calls it pays nothing for it: most of a cluster's
     * runs are one quantum). */
    static const sim_mem_cached no_cached; /* size 0: every access misses */
    sim_jit_regs jr;
    const void *code = NULL;

    uint64_t cause = 0, tval = 0;
    uint64_t mem_addr = 0, mem_val = 0;
    unsigned mem_size = 0;

    /* Inside the loop pc stays even (jalr clears bit 0, offsets are
     * even, mepc and mtvec are kept aligned), which the map's index
     * relies on; only the owner could have set an odd one. */
    if (UNLIKELY(pc & 1)) {
        sim_hart_trap(h, SIM_CAUSE_FETCH_MISALIGNED, pc);
        pc = h->pc;
        cycle += SIM_COST_TRAP;
    }

/* The hart as of the start of entry d's instruction, for a callee. */
#define SYNC()                                                                                 \
    (h->pc = d->pc, h->cycle = cycle - d->cost_rest, h->instret = instret - d->n_rest,           \
     h->mem_cycles = mcycles)
/* After a callee: the cycles it added to h->cycle are memory latency. */
#define RESYNC() MEM_LAT(h->cycle - (cycle - d->cost_rest))
/* d's memory access took l cycles more. */
#define MEM_LAT(l)                                                                             \
    do {                                                                                       \
        const uint64_t lat_ = (l);                                                             \
        cycle += lat_;                                                                         \
        mcycles += lat_;                                                                       \
        RUN_LAT(lat_, lat_);                                                                   \
    } while (0)
/* The entry step cut the block at gets its handler back. */
#define UNCUT()                                                                                \
    do {                                                                                       \
        if (cut) {                                                                             \
            cut->run = cut_run;                                                                \
            cut = NULL;                                                                        \
        }                                                                                      \
    } while (0)
#define RD x[d->rd]
#define RS1 x[d->rs1]
#define RS2 x[d->rs2]
#define IMM ((uint64_t)(int64_t)d->imm)
/* The result of a forwarding instruction: into x[rd] and f0, f0's last
 * into f1. */
#define FORWARD(v)                                                                             \
    do {                                                                                       \
        const uint64_t r_ = (v);                                                               \
        f1 = f0;                                                                               \
        f0 = r_;                                                                               \
        RD = r_;                                                                               \
    } while (0)
/* Start d's block at d: its count and static cost at once, when its
 * last instruction starts before the limit (else step).  Written out in
 * each place that links blocks, so that each ends in an indirect jump of
 * its own, which the host predicts by where it is. */
#define BLOCK()                                                                                \
    do {                                                                                       \
        stop = limit + d->last_cost;                                                           \
        cycle += d->cost_rest;                                                                 \
        if (UNLIKELY(cycle >= stop)) {                                                         \
            cycle -= d->cost_rest;                                                             \
            goto step;                                                                         \
        }                                                                                      \
        instret += d->n_rest;                                                                  \
        if (RUN_TRANSLATED && d->jit != SIM_JIT_NONE)                                          \
            goto translated;                                                                   \
        ENTER();                                                                               \
    } while (0)
/* Run entry d, not reached from the one before: the forwarded value
 * its form may read, from the register file. */
#define ENTER()                                                                                \
    do {                                                                                       \
        f0 = x[d->fwd[0]];                                                                     \
        f1 = x[d->fwd[1]];                                                                     \
        RUN_ENTER(d);                                                                          \
        goto *d->run;                                                                          \
    } while (0)
#define NEXT                                                                                   \
    do {                                                                                       \
        d++;                                                                                   \
        goto *d->run;                                                                          \
    } while (0)
/* After a latency: still inside the block's stop? */
#define NEXT_CHECKED                                                                           \
    do {                                                                                       \
        if (UNLIKELY(cycle >= stop))                                                           \
            goto overrun;                                                                      \
        NEXT;                                                                                  \
    } while (0)
/* Go on at the entry kept in d->field, or find it for `target` and keep
 * it there. */
#define CHAIN(field, target)                                                                   \
    do {                                                                                       \
        sim_insn *e_ = d->field;                                                               \
        if (LIKELY(e_ != NULL)) {                                                              \
            d = e_;                                                                            \
            BLOCK();                                                                           \
        }                                                                                      \
        pc = (target);                                                                         \
        link = &((sim_insn *)d)->field;                                                        \
        goto dispatch;                                                                         \
    } while (0)
/* The one-entry RAM cache, kept only while nothing watches, records or
 * checks accesses to the range (they must reach the slow path that does). */
#define REFILL(r)                                                                              \
    (rbase = (r)->base,                                                                        \
     rlen = (r)->size >= 8 && (quiet || sim_ram_open(h, r)) ? (r)->size - 7 : 0,               \
     rhost = (r)->host, rlat = (r)->latency, h->ram_hint = (unsigned)((r) - m->ram))
#define LOAD(n, type, conv, base)                                                              \
    {                                                                                          \
        uint64_t a = (base) + IMM, o = a - rbase;                                                 \
        if (LIKELY(o < rlen) && LIKELY(!(a & ((n) - 1)))) {                                    \
            type t;                                                                            \
            memcpy(&t, rhost + o, n);                                                          \
            FORWARD(conv); /* rd is not x0: those take op_*_X0 */                              \
            MEM_LAT(rlat);                                                                 \
            NEXT_CHECKED;                                                                      \
        }                                                                                      \
        mem_addr = a;                                                                          \
        mem_size = n;                                                                          \
        goto load_slow;                                                                        \
    }
#define STORE(n, type, base, v)                                                                \
    {                                                                                          \
        uint64_t a = (base) + IMM, o = a - rbase;                                                 \
        type t = (type)(v);                                                                    \
        if (LIKELY(o < rlen) && LIKELY(!(a & ((n) - 1)))) {                                    \
            memcpy(rhost + o, &t, n);                                                          \
            MEM_LAT(rlat);                                                                 \
            if (others)                                                                        \
                sim_mem_note_store(m, h, a);                                                   \
            NEXT_CHECKED;                                                                      \
        }                                                                                      \
        mem_addr = a;                                                                          \
        mem_size = n;                                                                          \
        mem_val = t;                                                                           \
        goto store_slow;                                                                       \
    }
#define FP_LOAD(n, boxed)                                                                      \
    {                                                                                          \
        uint64_t a = RS1 + IMM, o = a - rbase;                                                 \
        if (LIKELY(o < rlen) && LIKELY(!(a & ((n) - 1))) && (h->mstatus & SIM_MSTATUS_FS)) {   \
            uint64_t t = sim_mem_get(rhost + o, n);                                             \
            h->f[d->rd] = boxed;                                                               \
            if (UNLIKELY((h->mstatus & SIM_MSTATUS_FS) != SIM_MSTATUS_FS))                     \
                h->mstatus |= SIM_MSTATUS_FS; /* Dirty: an f register changed */               \
            MEM_LAT(rlat);                                                                 \
            NEXT_CHECKED;                                                                      \
        }                                                                                      \
        goto fp_mem_slow;                                                                      \
    }
#define FP_STORE(n)                                                                            \
    {                                                                                          \
        uint64_t a = RS1 + IMM, o = a - rbase;                                                 \
        if (LIKELY(o < rlen) && LIKELY(!(a & ((n) - 1))) && (h->mstatus & SIM_MSTATUS_FS)) {   \
            sim_mem_put(rhost + o, n, h->f[d->rs2]);                                           \
            MEM_LAT(rlat);                                                                 \
            if (others)                                                                        \
                sim_mem_note_store(m, h, a);                                                   \
            NEXT_CHECKED;                                                                      \
        }                                                                                      \
        goto fp_mem_slow;                                                                      \
    }
/* A branch falls through inside its block (the builder decodes on past
 * it); taken, it leaves the block, taking back what the block's entries
 * after it added (and ending a cut: step). */
#define BRANCH(cond)                                                                           \
    do {                                                                                       \
        if (cond) {                                                                            \
            UNCUT();                                                                           \
            cycle -= d[1].cost_rest;                                                           \
            instret -= d[1].n_rest;                                                            \
            CHAIN(taken, d->pc + IMM);                                                         \
        }                                                                                      \
        NEXT;                                                                                  \
    } while (0)

    /* The RAM range the last run's accesses reached, again. */
    if (h->ram_hint < m->nram)
        REFILL(&m->ram[h->ram_hint]);

dispatch:
    RUN_DISPATCH(pc);
    {
    /* pc is where to go on; link, if set, wants the entry found */
    uint64_t off = pc - cbase;
    if (UNLIKELY(off >= csize)) {
        link = NULL;
        if (cycle >= limit)
            goto out;
        cause = SIM_CAUSE_FETCH_ACCESS;
        tval = pc;
        goto trap_at_pc;
    }
    sim_insn *e = map[off >> 1];
    if (UNLIKELY(e == NULL)) {
        uint64_t gen = ic->gen;
        e = sim_block_entry(h, pc, &handlers);
        if (gen != ic->gen) /* a flush: the entry that asked is gone */
            link = NULL;
    }
    if (link) {
        *link = e;
        link = NULL;
    }
    d = e;
}
enter:
    BLOCK();

step:
    /* d's block does not fit before the limit: run the part of it whose
     * instructions start before the limit (by their static costs), with
     * its first unrun entry's handler swapped for op_CUT, which ends the
     * call there.  Every way out of the part puts the handler back. */
    UNCUT();
    if (cycle >= limit) {
        pc = d->pc;
        goto out;
    }
    /* translated, the same rule entry by entry (sim_jit_stepped) */
    if (RUN_TRANSLATED && d->jit != SIM_JIT_NONE) {
        uint32_t at = ic->jit->stepped[d - ic->arena];
        code = at > SIM_JIT_STEPPED_NONE ? ic->jit->buf + at
                                         : sim_jit_stepped(ic, (sim_insn *)d, &handlers);
        if (code)
            goto run_translated;
    }
step_handlers:
    {
        sim_insn *e = (sim_insn *)d;
        uint64_t c = cycle;
        uint32_t own = 0;
        while (e->op != SIM_OP_BLOCK_END && c < limit) {
            own = e->cost_rest - e[1].cost_rest;
            c += own;
            e++;
        }
        if (e->op == SIM_OP_BLOCK_END) /* the rest fits after all */
            goto enter;
        /* Time as on entering the whole block, so that every way out
         * finds what it expects; stop when the part's last instruction
         * would start at or past the limit. */
        cut = e;
        cut_run = e->run;
        e->run = &&op_CUT;
        stop = limit + own + e->cost_rest;
        cycle += d->cost_rest;
        instret += d->n_rest;
        ENTER();
    }

op_CUT:
    /* the first instruction that starts at or past the limit */
    UNCUT();
    cycle -= d->cost_rest;
    instret -= d->n_rest;
    pc = d->pc;
    goto out;

overrun:
    /* d ran, and a latency took its block past stop: the rest one at a
     * time. */
    d++;
    cycle -= d->cost_rest;
    instret -= d->n_rest;
    goto step;

stopped:
    /* a probe or a watch asked to stop before d: nothing of d happened */
    UNCUT();
    cycle -= d->cost_rest;
    instret -= d->n_rest;
    pc = d->pc;
    goto out;

halted_after:
    /* a device stopped the hart during d: d retires, the rest does not */
    UNCUT();
    d++;
    cycle -= d->cost_rest;
    instret -= d->n_rest;
    pc = d->pc;
    goto out;

op_BLOCK_END: CHAIN(taken, d->pc);
translated:
    /* d's block is entered (BLOCK): its translation from d runs it, and
     * on past it as far as it can */
    code = LIKELY(d->jit == SIM_JIT_MADE) ? ic->jit->buf + ic->jit->body[d - ic->arena]
                                          : sim_jit_body(ic, (sim_insn *)d, &handlers);
    if (!code)
        ENTER();
run_translated: {
    jr.limit = limit;
    jr.x = x;
    jr.m = m;
    jr.others = others;
    jr.cycle = cycle;
    jr.instret = instret;
    jr.mcycles = mcycles;
    jr.rbase = rbase;
    jr.rlen = rlen;
    jr.rlat = rlat;
    jr.rhost = rhost;
    jr.cached = quiet ? &m->cached : &no_cached;
    int why = ic->jit->enter(&jr, code);
    cycle = jr.cycle;
    instret = jr.instret;
    mcycles = jr.mcycles;
    d = jr.d;
    switch (why) {
    case SIM_JIT_ENTER: /* as after the handler before d */
        stop = limit + d->last_cost;
        ENTER();
    case SIM_JIT_STEP:
        goto step;
    case SIM_JIT_OVERRUN:
        goto overrun;
    case SIM_JIT_CUT: /* as op_CUT */
        cycle -= d->cost_rest;
        instret -= d->n_rest;
        pc = d->pc;
        goto out;
    case SIM_JIT_RESTEP: /* as overrun, at d */
        cycle -= d->cost_rest;
        instret -= d->n_rest;
        goto step_handlers;
    default: {
        /* SIM_JIT_CHAIN, SIM_JIT_JALR: as the handler's CHAIN or jalr
         * past its link, then linked */
        uint64_t target = why == SIM_JIT_JALR ? jr.target
                          : d->op == SIM_OP_BLOCK_END ? d->pc : d->pc + IMM;
        sim_insn *e = d->taken;
        if (e && e->pc == target) {
            sim_jit_link(ic, d, e, &handlers);
            d = e;
            BLOCK();
        }
        pc = target;
        link = &((sim_insn *)d)->taken;
        goto dispatch;
    }
    }
}
op_PROBE:
    RUN_AT(d);
    /* the callee sees the hart as of the next instruction's start, and
     * may change registers (x and f are the hart's own) */
    if (h->probe) {
        SYNC();
        bool stop_here = h->probe(h->probe_ctx, h);
        rlen = 0; /* it may have set watches */
        quiet = QUIET();
        if (stop_here)
            goto stopped;
    }
    NEXT;
op_TRIGGER:
    RUN_AT(d);
    /* an armed execute trigger of a hart sharing the code matches the
     * next entry's pc: this hart's? */
    if (h->trig_exec && sim_trigger_exec(h, d->pc)) {
        cause = SIM_CAUSE_BREAKPOINT;
        tval = d->pc;
        goto trap;
    }
    NEXT;
op_PMP:
    RUN_AT(d);
    /* a locked PMP entry of a hart sharing the code meets the next
     * entry's instruction: may this hart fetch it? */
    if (h->pmp_deny && sim_pmp_fetch_denied(h, d[1].pc, d[1].len, &tval)) {
        cause = SIM_CAUSE_FETCH_ACCESS;
        goto trap;
    }
    NEXT;
op_ILLEGAL:
    cause = SIM_CAUSE_ILLEGAL;
    tval = d->bits;
    goto trap;
op_FETCH_FAULT:
    cause = SIM_CAUSE_FETCH_ACCESS;
    tval = d->pc + IMM;
    goto trap;
op_NOP: NEXT;

op_LUI: FORWARD(IMM); NEXT;
    /* addi's own forms: li (from x0) and mv (an immediate of 0) */
op_LI: FORWARD(IMM); NEXT;
op_MV: FORWARD(RS1); NEXT;
op_MV_0: FORWARD(f0); NEXT;
op_MV_1: FORWARD(f1); NEXT;
op_AUIPC: FORWARD(d->pc + IMM); NEXT;
    /* The operations of the tables above, each in its plain form and in
     * its forms reading a source from f0 (`0`) or f1 (`1`) instead of the
     * register file (`R`): op_ADD_R0 reads rs1 from x[] and rs2 from f0. */
#define ALU1_FORM(label, a, expr)                                                              \
    label: {                                                                                   \
        const uint64_t s1 = (a);                                                               \
        FORWARD(expr);                                                                         \
        NEXT;                                                                                  \
    }
#define ALU1_HANDLERS(name, expr)                                                              \
    ALU1_FORM(op_##name, RS1, expr)                                                            \
    ALU1_FORM(op_##name##_0, f0, expr) ALU1_FORM(op_##name##_1, f1, expr)
/* The nine forms of a two-source operation: FORM(label, s1, s2, ...). */
#define FORMS2(FORM, name, ...)                                                                \
    FORM(op_##name, RS1, RS2, __VA_ARGS__)                                                     \
    FORM(op_##name##_R0, RS1, f0, __VA_ARGS__) FORM(op_##name##_R1, RS1, f1, __VA_ARGS__)     \
    FORM(op_##name##_0R, f0, RS2, __VA_ARGS__) FORM(op_##name##_00, f0, f0, __VA_ARGS__)      \
    FORM(op_##name##_01, f0, f1, __VA_ARGS__) FORM(op_##name##_1R, f1, RS2, __VA_ARGS__)      \
    FORM(op_##name##_10, f1, f0, __VA_ARGS__) FORM(op_##name##_11, f1, f1, __VA_ARGS__)
#define ALU2_FORM(label, a, b, expr)                                                           \
    label: {                                                                                   \
        const uint64_t s1 = (a), s2 = (b);                                                     \
        FORWARD(expr);                                                                         \
        NEXT;                                                                                  \
    }
#define ALU2_HANDLERS(name, expr) FORMS2(ALU2_FORM, name, expr)
#define BRANCH_FORM(label, a, b, cond)                                                         \
    label: {                                                                                   \
        const uint64_t s1 = (a), s2 = (b);                                                     \
        BRANCH(cond);                                                                          \
    }
#define BRANCH_HANDLERS(name, cond) FORMS2(BRANCH_FORM, name, cond)
#define LOAD_HANDLERS(name, n, type, conv)                                                     \
    op_##name##_X0: /* a load into x0: its access alone, the slow path's */                   \
    mem_addr = RS1 + IMM;                                                                      \
    mem_size = n;                                                                              \
    goto load_slow;                                                                            \
    op_##name: LOAD(n, type, conv, RS1)                                                        \
    op_##name##_0: LOAD(n, type, conv, f0)                                                     \
    op_##name##_1: LOAD(n, type, conv, f1)
#define STORE_FORM(label, a, b, n, type) label: STORE(n, type, a, b)
#define STORE_HANDLERS(name, n, type) FORMS2(STORE_FORM, name, n, type)
    SIM_ALU1(ALU1_HANDLERS)
    SIM_ALU2(ALU2_HANDLERS)
    SIM_BRANCHES(BRANCH_HANDLERS)
    SIM_LOADS(LOAD_HANDLERS)
    SIM_STORES(STORE_HANDLERS)
#undef ALU1_FORM
#undef ALU1_HANDLERS
#undef ALU2_FORM
#undef ALU2_HANDLERS
#undef BRANCH_FORM
#undef BRANCH_HANDLERS
#undef LOAD_HANDLERS
#undef STORE_FORM
#undef STORE_HANDLERS
#undef FORMS2

op_JAL:
    x[d->rd] = d->pc + d->len;
    x[0] = 0;
    CHAIN(taken, d->pc + IMM);
op_JAL_ON:
    /* a jal its block goes on after, at its target */
    RUN_AT(d);
    x[d->rd] = d->pc + d->len;
    x[0] = 0;
    NEXT;
op_JALR: {
    uint64_t target = (RS1 + IMM) & ~(uint64_t)1;
    x[d->rd] = d->pc + d->len;
    x[0] = 0;
    /* taken: the entry of the last target, right again for a call's
     * return to the same place */
    sim_insn *e = d->taken;
    if (LIKELY(e != NULL) && LIKELY(e->pc == target)) {
        d = e;
        BLOCK();
    }
    pc = target;
    link = &((sim_insn *)d)->taken;
    goto dispatch;
}




/* M: the extra cycles are in the entry's static cost (hart_block.c). */

/* Slow paths that may trap or stop the hart: atomics and FP loads and
 * stores. */
/* FP loads and stores: RAM hits here (the FPU on; a single NaN-boxed,
 * stored as its low 32 bits), everything else in sim_hart_fp_mem. */
op_FLW: FP_LOAD(4, sim_fpu_box((uint32_t)t))
op_FLD: FP_LOAD(8, t)
op_FSW: FP_STORE(4)
op_FSD: FP_STORE(8)
op_FLH: FP_LOAD(2, sim_fpu_box_h((uint16_t)t))
op_FSH: FP_STORE(2)

op_LR:
op_SC:
op_AMO:
fp_mem_slow: {
    SYNC();
    int rc = d->op == SIM_OP_LR || d->op == SIM_OP_SC || d->op == SIM_OP_AMO
                 ? sim_hart_atomic(h, d, &tval)
                 : sim_hart_fp_mem(h, d, &tval);
    RESYNC();
    if (rc == SIM_HART_STOPPED)
        goto stopped;
    if (rc) {
        cause = (uint64_t)rc;
        goto trap;
    }
    if (h->state != SIM_HART_RUNNING)
        goto halted_after;
    NEXT_CHECKED;
}



op_FENCE_I:
    pc = d->pc + d->len; /* read before the flush frees d */
    sim_hart_flush_icache(h);
    goto dispatch;
op_ECALL:
    cause = SIM_CAUSE_ECALL_M;
    tval = 0;
    goto trap;
op_EBREAK:
    cause = SIM_CAUSE_BREAKPOINT;
    tval = d->pc; /* as Spike does */
    goto trap;
op_MRET:
    SYNC();
    sim_hart_mret(h);
    pc = h->pc;
    goto dispatch;
op_WFI:
    /* No interrupt is modeled: the owner wakes the hart. */
    h->state = SIM_HART_WFI;
    pc = d->pc + d->len;
    goto out;
op_CSR: {
    SYNC();
    uint64_t gen = ic->gen;
    if (sim_hart_csr(h, d)) {
        cause = SIM_CAUSE_ILLEGAL;
        tval = d->bits;
        goto trap;
    }
    /* a trigger or PMP write may have armed loads and stores (the RAM
     * cache must be bypassed) or changed the execute or fetch set (the
     * decoded code is gone: on from the next pc, decoded anew, the rest
     * of this block taken back as a trap would) */
    quiet = QUIET();
    if (UNLIKELY(!quiet))
        rlen = 0;
    if (UNLIKELY(gen != ic->gen)) {
        UNCUT();
        d++;
        cycle -= d->cost_rest;
        instret -= d->n_rest;
        pc = d->pc;
        goto dispatch;
    }
    NEXT;
}

op_VEC: {
    /* the vector unit adds its beats and memory latency to h->cycle,
     * the memory part to h->mem_cycles too */
    SYNC();
    int rc = sim_vec_exec(h, &d->vec, d->bits, &tval);
    RUN_LAT(h->cycle - (cycle - d->cost_rest), h->mem_cycles - mcycles);
    cycle += h->cycle - (cycle - d->cost_rest);
    mcycles = h->mem_cycles;
    if (rc == SIM_HART_STOPPED)
        goto stopped;
    if (rc) {
        cause = (uint64_t)rc;
        goto trap;
    }
    if (h->state != SIM_HART_RUNNING)
        goto halted_after;
    NEXT_CHECKED;
}

op_FPU:
    /* its latency is in the entry's static cost (hart_block.c) */
    if ((h->mstatus & SIM_MSTATUS_FS) == 0 || sim_fpu_run(h, &d->fpu)) {
        cause = SIM_CAUSE_ILLEGAL;
        tval = d->bits;
        goto trap;
    }
    if (UNLIKELY((h->mstatus & SIM_MSTATUS_FS) != SIM_MSTATUS_FS))
        h->mstatus |= SIM_MSTATUS_FS; /* Dirty (a store only when it was not) */
    x[0] = 0;
    NEXT;

load_slow: {
    /* a miss of the RAM cache, a device, or a misaligned address */
    if (mem_addr & (mem_size - 1)) {
        cause = SIM_CAUSE_LOAD_MISALIGNED;
        tval = mem_addr;
        goto trap;
    }
    if (LIKELY(quiet)) {
        /* a hit in the cluster cache, served here as its callback would */
        const uint8_t *line = sim_mem_cached_hit(m, mem_addr, false);
        if (line) {
            MEM_LAT(m->cached.latency);
            FORWARD(load_extend(d->op, sim_mem_get(line, mem_size)));
            x[0] = 0;
            NEXT_CHECKED;
        }
    }
    int ri = sim_mem_find_ram(m, mem_addr, mem_size);
    uint64_t raw = 0;
    SYNC();
    int rc = sim_hart_load_slow(h, ri, mem_addr, mem_size, &raw);
    RESYNC();
    if (ri >= 0) /* after the access: a watch it met may have set others */
        REFILL(&m->ram[ri]);
    if (rc == SIM_HART_STOPPED)
        goto stopped;
    if (rc) {
        cause = (uint64_t)rc;
        tval = mem_addr;
        goto trap;
    }
    FORWARD(load_extend(d->op, raw));
    x[0] = 0;
    if (h->state != SIM_HART_RUNNING)
        goto halted_after;
    NEXT_CHECKED;
}

store_slow: {
    if (mem_addr & (mem_size - 1)) {
        cause = SIM_CAUSE_STORE_MISALIGNED;
        tval = mem_addr;
        goto trap;
    }
    if (LIKELY(quiet)) {
        uint8_t *line = sim_mem_cached_hit(m, mem_addr, true);
        if (line) {
            sim_mem_put(line, mem_size, mem_val);
            MEM_LAT(m->cached.latency);
            if (others)
                sim_mem_note_store(m, h, mem_addr);
            NEXT_CHECKED;
        }
    }
    int ri = sim_mem_find_ram(m, mem_addr, mem_size);
    SYNC();
    int rc = sim_hart_store_slow(h, ri, mem_addr, mem_size, mem_val);
    RESYNC();
    if (ri >= 0)
        REFILL(&m->ram[ri]);
    if (rc == SIM_HART_STOPPED)
        goto stopped;
    if (rc) {
        cause = (uint64_t)rc;
        tval = mem_addr;
        goto trap;
    }
    sim_mem_note_store(m, h, mem_addr);
    if (h->state != SIM_HART_RUNNING)
        goto halted_after;
    NEXT_CHECKED;
}

trap:
    /* d traps: it retires nothing, and what follows it never ran */
    UNCUT();
    cycle -= d->cost_rest;
    instret -= d->n_rest;
    pc = d->pc;
trap_at_pc:
    RUN_TRAP_AT(pc);
    h->pc = pc;
    h->cycle = cycle;
    h->instret = instret;
    h->mem_cycles = mcycles;
    {
        bool end = false;
        if (h->on_trap) {
            /* the hook sees the trap's CSRs (sim_hart.h); the trap sets
             * them again, the same, as it is taken */
            h->mepc = pc;
            h->mcause = cause;
            h->mtval = tval;
            end = h->on_trap(h->trap_ctx, h, cause, tval);
        }
        sim_hart_trap(h, cause, tval);
        pc = h->pc;
        cycle += SIM_COST_TRAP;
        if (h->state != SIM_HART_RUNNING || end) /* a device halted it, then faulted */
            goto out;
    }
    goto dispatch;

out:
    h->pc = pc;
    h->cycle = cycle;
    h->instret = instret;
    h->mem_cycles = mcycles;
    RUN_END();
    return h->state;
#undef QUIET
#undef SYNC
#undef UNCUT
#undef RESYNC
#undef MEM_LAT
#undef RD
#undef RS1
#undef RS2
#undef IMM
#undef BLOCK
#undef ENTER
#undef NEXT
#undef NEXT_CHECKED
#undef CHAIN
#undef REFILL
#undef LOAD
#undef STORE
#undef BRANCH
#undef FP_LOAD
#undef FP_STORE
}
