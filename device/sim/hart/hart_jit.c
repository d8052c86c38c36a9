/* hart_jit: decoded blocks translated to x86-64 code (device/sim/README.md,
 * "The translated code"), which the hot loop (sim_hart.c) calls in place
 * of its handlers where it can.
 *
 * What a translation is: the entries of one decoded block from a given
 * entry to the block's end, each as the few host instructions that do
 * what its handler does, with the guest registers left where they live
 * (h->x[], through rbx) and the loop's time kept in host registers.  It
 * does exactly what the handlers would, instruction for instruction and
 * cycle for cycle: the same per-block accounting (a block's count and
 * static cost added on entering it, taken back by a taken branch), the
 * same one-entry RAM cache for loads and stores with the latency it
 * holds, the same stop check after each latency.  A block that does not
 * fit before the run's limit goes on in its stepped translation, which
 * checks before each entry that its instruction starts before the limit,
 * as the hot loop's step mode does (translate_stepped).  Anything else — an
 * operation it does not translate, a load or store the RAM cache misses,
 * a latency that takes a block past its stop — leaves the translated code
 * for the hot loop at that entry, in the state the handlers would have it
 * in there, and the hot loop carries on as if it had run the entries
 * before itself.  So the
 * interpreter stays the reference, and KMRUN_JIT=off (sim_jit_wanted)
 * gives the same results and the same modeled time, which the tests
 * compare.
 *
 * An entry's translation is made the first time the hot loop enters a
 * block there (sim_jit_body), wherever that is in its decoded block.
 * Blocks chain to each other through a slot per exit (a taken branch, a
 * jal, a block's end) that holds the address of the target's translation
 * once the hot loop has found and translated it, and until then the
 * address of an exit back to the hot loop.  Code and slots live in one
 * mapping per decoded cache; when it is full, or the cache is flushed,
 * everything translated goes at once, as the decoded blocks do.
 *
 * Host registers while translated code runs (sim_jit_regs in memory at
 * r15, saved and restored by the entry/exit code at the mapping's start):
 *   rbx  h->x                      rbp  the run's cycle limit
 *   r12  cycle    r13 instret      r14  memory cycles
 *   r8   RAM cache base            r9   its length (0: off)
 *   r10  its host pointer          r11  its latency
 *   rsi  the block's stop (limit + its last instruction's cost)
 *   rax, rcx, rdx, rdi: scratch.
 * What each entry becomes is hart_jit_emit.c's; this file keeps the
 * mapping, the entry and exit, the slots and the links.  Only on x86-64
 * Linux hosts (and not with -DKMRUN_NO_JIT); elsewhere sim_jit_new says
 * no and the hot loop interprets everything. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"

#if defined(__x86_64__) && defined(__linux__) && !defined(KMRUN_NO_JIT)
#include <sys/mman.h>

#include "hart_jit_emit.h"

/* Room one guest instruction's code may take, with its stubs and slot:
 * checked once per instruction, so the encoders need not. */
#define INSN_ROOM 512u
/* Bytes of mapping per entry of the decoded arena: room for every entry
 * translated about twice (mid-block entries start translations of their
 * own). */
#define BYTES_PER_ENTRY 256u

/* struct sim_jit: hart_internal.h (the hot loop reads a made
 * translation's address and the entry point without a call). */

/* The code at the mapping's start: entry (System V: rdi regs, rsi code)
 * and the common exit. */
static void emit_entry_exit(struct sim_jit *jt)
{
    jx j = {jt->buf, jt->buf + jt->size};
    static const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
    memcpy(j.p, endbr64, sizeof endbr64);
    j.p += sizeof endbr64;
    static const int saved[] = {JX_RBX, JX_RBP, JX_R12, JX_R13, JX_R14, JX_R15};
    for (unsigned i = 0; i < 6; i++)
        jx_push(&j, saved[i]);
    jx_alu_imm(&j, true, JX_SUB, JX_RSP, 8); /* rsp 16-aligned for a call */
    jx_mov(&j, JX_R15, JX_RDI);
    /* MXCSR 0x1f80 (round to nearest, no DAZ, no FTZ) for the FPU's
     * translated arithmetic, as its host path loads it (fpu_host.h); the
     * thread's own kept at [rsp + 4] and given back on the way out */
    jx_mem(&j, 0, false, 0x0f, 0xae, 3, JX_RSP, JX_NONE, 0, 4); /* stmxcsr [rsp + 4] */
    jx_mem(&j, 0, false, 0xc7, -1, 0, JX_RSP, JX_NONE, 0, 0);   /* mov dword [rsp], imm */
    jx_u32(&j, 0x1f80);
    jx_mem(&j, 0, false, 0x0f, 0xae, 2, JX_RSP, JX_NONE, 0, 0); /* ldmxcsr [rsp] */
    jx_load(&j, JX_RBX, JX_R15, REG(x));
    jx_load(&j, JX_RBP, JX_R15, REG(limit));
    jx_load(&j, JX_R12, JX_R15, REG(cycle));
    jx_load(&j, JX_R13, JX_R15, REG(instret));
    jx_load(&j, JX_R14, JX_R15, REG(mcycles));
    jx_load(&j, JX_R8, JX_R15, REG(rbase));
    jx_load(&j, JX_R9, JX_R15, REG(rlen));
    jx_load(&j, JX_R10, JX_R15, REG(rhost));
    jx_load(&j, JX_R11, JX_R15, REG(rlat));
    jx_jmp_reg(&j, JX_RSI);

    jt->exit = j.p;
    jx_store(&j, JX_R12, JX_R15, REG(cycle));
    jx_store(&j, JX_R13, JX_R15, REG(instret));
    jx_store(&j, JX_R14, JX_R15, REG(mcycles));
    jx_store(&j, JX_RDI, JX_R15, REG(d));
    jx_mem(&j, 0, false, 0x0f, 0xae, 2, JX_RSP, JX_NONE, 0, 4); /* ldmxcsr [rsp + 4] */
    jx_alu_imm(&j, true, JX_ADD, JX_RSP, 8);
    for (unsigned i = 6; i-- > 0;)
        jx_pop(&j, saved[i]);
    jx_b(&j, 0xc3); /* ret */
    jt->enter = (sim_jit_fn *)(void *)jt->buf;
    jt->start = jt->used = (size_t)(j.p - jt->buf + 15) & ~(size_t)15;
}

struct sim_jit *sim_jit_new(size_t cap)
{
    struct sim_jit *jt = calloc(1, sizeof *jt);
    if (!jt)
        return NULL;
    jt->cap = cap;
    jt->size = jt->mapped = (cap * BYTES_PER_ENTRY + 4095) & ~(size_t)4095;
    /* Written as it is run (slots are patched in place): one mapping,
     * readable, writable and executable, paid for where touched. */
    void *p = mmap(NULL, jt->mapped, PROT_READ | PROT_WRITE | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    jt->checked = calloc(cap, sizeof *jt->checked);
    jt->body = calloc(cap, sizeof *jt->body);
    jt->slot = calloc(cap, sizeof *jt->slot);
    jt->stepped = calloc(cap, sizeof *jt->stepped);
    jt->cell = calloc(cap, sizeof *jt->cell);
    if (p == MAP_FAILED || !jt->checked || !jt->body || !jt->slot || !jt->stepped || !jt->cell) {
        if (p != MAP_FAILED)
            munmap(p, jt->mapped);
        jt->buf = NULL;
        sim_jit_free(jt);
        return NULL;
    }
    jt->buf = p;
    emit_entry_exit(jt);
    return jt;
}

void sim_jit_free(struct sim_jit *jt)
{
    if (!jt)
        return;
    if (jt->buf)
        munmap(jt->buf, jt->mapped);
    free(jt->checked);
    free(jt->body);
    free(jt->slot);
    free(jt->stepped);
    free(jt->cell);
    free(jt);
}

void sim_jit_clear(struct sim_icache *ic, bool flush)
{
    struct sim_jit *jt = ic->jit;
    size_t n = ic->used < jt->cap ? ic->used : jt->cap;
    memset(jt->checked, 0, n * sizeof *jt->checked);
    memset(jt->body, 0, n * sizeof *jt->body);
    memset(jt->slot, 0, n * sizeof *jt->slot);
    memset(jt->stepped, 0, n * sizeof *jt->stepped);
    memset(jt->cell, 0, n * sizeof *jt->cell);
    if (!flush) { /* the entries stay: made again when next entered */
        for (size_t i = 0; i < n; i++)
            if (ic->arena[i].jit == SIM_JIT_MADE)
                ic->arena[i].jit = SIM_JIT_UNTRIED;
        jt->clears++;
    }
    jt->used = jt->start;
}

void sim_jit_limit(struct sim_jit *jt, size_t bytes)
{
    if (bytes < jt->mapped && bytes > jt->used)
        jt->size = bytes;
}

uint64_t sim_jit_clears(const struct sim_jit *jt)
{
    return jt->clears;
}

sim_jit_fn *sim_jit_enter_fn(const struct sim_jit *jt)
{
    return jt->enter;
}

/* ---- translating one block's entries ---------------------------------- */

/* The stubs, then the exit slots, after a translation's body. */
static void emit_tail(struct sim_icache *ic, tr *t)
{
    struct sim_jit *jt = ic->jit;
    jx *j = &t->j;
    for (unsigned i = 0; i < t->nstubs; i++) { /* a stub may add stubs */
        const stub *s = &t->stubs[i];
        jx_patch(s->at, j->p);
        sim_jit_emit_stub(t, s);
    }
    /* An entry's slot is shared by every translation that reaches it, so
     * that linking it once serves them all: a new one starts at an exit
     * back to the hot loop (SIM_JIT_CHAIN). */
    const uint8_t *fresh[2 * (SIM_BLOCK_MAX + 4)];
    for (unsigned i = 0; i < t->nslots; i++) {
        size_t k = (size_t)(t->slots[i].d - ic->arena);
        bool planned = false;
        for (unsigned p = 0; p < i; p++)
            planned |= t->slots[p].d == t->slots[i].d;
        fresh[i] = NULL;
        if (!jt->slot[k] && !planned) {
            fresh[i] = j->p;
            sim_jit_emit_exit(t, t->slots[i].d, SIM_JIT_CHAIN);
        }
    }
    while ((uintptr_t)j->p & 7)
        jx_b(j, 0xcc);
    for (unsigned i = 0; i < t->nslots; i++) {
        const sim_insn *d = t->slots[i].d;
        size_t k = (size_t)(d - ic->arena);
        if (fresh[i]) {
            jt->slot[k] = (uint32_t)(j->p - jt->buf);
            jx_u64(j, (uint64_t)(uintptr_t)fresh[i]);
            if (d->op == SIM_OP_JALR)
                jx_u64(j, 1);
        }
        jx_patch(t->slots[i].disp, jt->buf + jt->slot[k] + t->slots[i].add);
    }
}

/* A translation's start: `from`'s block fits the buffer (else -2, no
 * room: the caller clears and may try again), and t begins at the
 * buffer's first free byte.  0. */
static int open_tr(struct sim_jit *jt, const sim_insn *from, bool stepped, tr *t)
{
    unsigned n = 1;
    while (from[n - 1].op != SIM_OP_BLOCK_END)
        n++;
    if (jt->size - jt->used < (size_t)(n + 4) * INSN_ROOM)
        return -2;
    t->j = (jx){jt->buf + jt->used, jt->buf + jt->size};
    t->exit = jt->exit;
    t->nstubs = t->nslots = 0;
    t->stepped = stepped;
    t->step_jmp = NULL;
    return 0;
}

/* The entries from `from` on, as translated code, to the block's end, a
 * jump away, or the first entry not translated (its bytes and stubs
 * taken back; an exit there to the hot loop: its handler, or in a
 * stepped translation the step mode, SIM_JIT_RESTEP).  A stepped
 * translation checks before each entry e that e's instruction starts
 * before the limit (cycle - e->cost_rest < limit), else SIM_JIT_CUT at e.
 * How many entries it translated: 0, none (and nothing emitted but the
 * first entry's check). */
static unsigned emit_body(tr *t, const sim_insn *from, const sim_handlers *hs)
{
    jx *j = &t->j;
    unsigned done = 0;
    for (const sim_insn *d = from;; d++) {
        if (t->stepped) { /* cmp r12, rbp + d->cost_rest: jae cut at d */
            jx_lea(j, JX_RAX, JX_RBP, JX_NONE, 0, (int32_t)d->cost_rest);
            jx_alu(j, true, JX_CMP, JX_R12, JX_RAX);
            exit_if(t, JX_CC_AE, SIM_JIT_CUT, d);
        }
        uint8_t *mark = j->p;
        unsigned ns = t->nstubs, nsl = t->nslots;
        if (!sim_jit_emit_insn(t, d, hs)) {
            j->p = mark;
            t->nstubs = ns;
            t->nslots = nsl;
            if (done > 0)
                add_stub(t, jx_jmp(j), STUB_EXIT, t->stepped ? SIM_JIT_RESTEP : SIM_JIT_ENTER,
                         d, NULL);
            return done;
        }
        done++;
        if (t->nslots > nsl) /* it jumps away (a block's end, jal, jalr): the
                              * body's only slots; a branch's are its stub's */
            return done;
    }
}

/* Translates from entry `from` to its block's end (or the first entry it
 * cannot translate).  0: done; -1: nothing to translate there; -2: no
 * room (the caller clears and may try again). */
static int translate(struct sim_icache *ic, sim_insn *from, const sim_handlers *hs)
{
    struct sim_jit *jt = ic->jit;
    size_t idx = (size_t)(from - ic->arena);
    if (from->jit == SIM_JIT_MADE)
        return 0;
    if (from->jit == SIM_JIT_NONE)
        return -1;
    tr t;
    if (open_tr(jt, from, false, &t) != 0)
        return -2;
    jx *j = &t.j;

    /* From a chain: the block's accounting, as the hot loop's BLOCK; a
     * block that does not fit goes on through its step cell: the stepped
     * translation from here once there is one (sim_jit_stepped), until
     * then the hot loop's step mode (SIM_JIT_STEP). */
    uint8_t *checked = j->p;
    jx_lea(j, JX_RAX, JX_R12, JX_NONE, 0, (int32_t)from->cost_rest);
    jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, from->last_cost);
    jx_alu(j, true, JX_CMP, JX_RAX, JX_RSI);
    add_stub(&t, jx_jcc(j, JX_CC_AE), STUB_STEPPED, 0, from, NULL);
    jx_mov(j, JX_R12, JX_RAX);
    jx_alu_imm(j, true, JX_ADD, JX_R13, from->n_rest);
    uint8_t *body = j->p;
    jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, from->last_cost);

    if (emit_body(&t, from, hs) == 0) {
        from->jit = SIM_JIT_NONE;
        return -1;
    }
    emit_tail(ic, &t);
    /* the step cell, 8-aligned after the slots */
    while ((uintptr_t)j->p & 7)
        jx_b(j, 0xcc);
    jt->cell[idx] = (uint32_t)(j->p - jt->buf);
    jx_u64(j, (uint64_t)(uintptr_t)(jt->stepped[idx] > SIM_JIT_STEPPED_NONE ? jt->buf + jt->stepped[idx]
                                                                   : t.step_exit));
    jx_patch(t.step_jmp, jt->buf + jt->cell[idx]);
    jt->checked[idx] = (uint32_t)(checked - jt->buf);
    jt->body[idx] = (uint32_t)(body - jt->buf);
    from->jit = SIM_JIT_MADE;
    jt->used = ((size_t)(j->p - jt->buf) + 15) & ~(size_t)15;
    return 0;
}

/* The stepped translation from entry `from` (sim_jit_stepped): the
 * block's count and static cost added at once, as the step mode does,
 * then before each entry e, e's instruction starts before the limit?
 * (cycle - e->cost_rest < limit, latencies included) else SIM_JIT_CUT at
 * e, which ends the run there: exactly the step mode's rule, instruction
 * by instruction, so no stop check is needed.  What it does not translate
 * goes to the step mode at that entry (SIM_JIT_RESTEP).  0, -1, -2 as
 * translate's. */
static int translate_stepped(struct sim_icache *ic, sim_insn *from, const sim_handlers *hs)
{
    struct sim_jit *jt = ic->jit;
    size_t idx = (size_t)(from - ic->arena);
    if (jt->stepped[idx])
        return jt->stepped[idx] == SIM_JIT_STEPPED_NONE ? -1 : 0;
    if (from->jit == SIM_JIT_NONE) { /* its first entry is not translated */
        jt->stepped[idx] = SIM_JIT_STEPPED_NONE;
        return -1;
    }
    tr t;
    if (open_tr(jt, from, true, &t) != 0)
        return -2;
    jx *j = &t.j;

    uint8_t *code = j->p;
    jx_alu_imm(j, true, JX_ADD, JX_R12, (int32_t)from->cost_rest);
    jx_alu_imm(j, true, JX_ADD, JX_R13, from->n_rest);
    if (emit_body(&t, from, hs) == 0) {
        jt->stepped[idx] = SIM_JIT_STEPPED_NONE;
        return -1;
    }
    emit_tail(ic, &t);
    jt->stepped[idx] = (uint32_t)(code - jt->buf);
    if (jt->cell[idx]) { /* the plain translation from here steps here now */
        const uint8_t *to = code;
        memcpy(jt->buf + jt->cell[idx], &to, sizeof to);
    }
    jt->used = ((size_t)(j->p - jt->buf) + 15) & ~(size_t)15;
    return 0;
}

/* translate (or translate_stepped), clearing everything once when there
 * is no room */
static int translate_or_clear(struct sim_icache *ic, sim_insn *from, const sim_handlers *hs,
                              bool stepped)
{
    int (*fn)(struct sim_icache *, sim_insn *, const sim_handlers *) =
        stepped ? translate_stepped : translate;
    int rc = fn(ic, from, hs);
    if (rc == -2) {
        sim_jit_clear(ic, false);
        rc = fn(ic, from, hs);
        if (rc == -2) { /* not even in an empty mapping (a test's limit) */
            if (stepped)
                ic->jit->stepped[from - ic->arena] = SIM_JIT_STEPPED_NONE;
            else
                from->jit = SIM_JIT_NONE;
        }
    }
    return rc;
}

const void *sim_jit_stepped(struct sim_icache *ic, sim_insn *d, const sim_handlers *hs)
{
    uint32_t at = ic->jit->stepped[d - ic->arena];
    if (at > SIM_JIT_STEPPED_NONE)
        return ic->jit->buf + at;
    if (at == SIM_JIT_STEPPED_NONE || translate_or_clear(ic, d, hs, true) != 0)
        return NULL;
    return ic->jit->buf + ic->jit->stepped[d - ic->arena];
}

const void *sim_jit_body(struct sim_icache *ic, sim_insn *d, const sim_handlers *hs)
{
    if (d->jit != SIM_JIT_MADE && translate_or_clear(ic, d, hs, false) != 0)
        return NULL;
    return ic->jit->buf + ic->jit->body[d - ic->arena];
}

void sim_jit_link(struct sim_icache *ic, const sim_insn *d, sim_insn *e, const sim_handlers *hs)
{
    struct sim_jit *jt = ic->jit;
    size_t k = (size_t)(d - ic->arena);
    if (!jt->slot[k])
        return;
    if (translate_or_clear(ic, e, hs, false) != 0 || !jt->slot[k])
        return; /* not translated, or the clearing took d's slot */
    const uint8_t *to = jt->buf + jt->checked[e - ic->arena];
    memcpy(jt->buf + jt->slot[k], &to, sizeof to);
    if (d->op == SIM_OP_JALR) /* the target this address goes with */
        memcpy(jt->buf + jt->slot[k] + 8, &e->pc, sizeof e->pc);
}

#else /* no translation on this host */

struct sim_jit *sim_jit_new(size_t cap)
{
    (void)cap;
    return NULL;
}
void sim_jit_free(struct sim_jit *jt)
{
    (void)jt;
}
void sim_jit_clear(struct sim_icache *ic, bool flush)
{
    (void)ic;
    (void)flush;
}
sim_jit_fn *sim_jit_enter_fn(const struct sim_jit *jt)
{
    (void)jt;
    return NULL;
}
void sim_jit_limit(struct sim_jit *jt, size_t bytes)
{
    (void)jt;
    (void)bytes;
}
uint64_t sim_jit_clears(const struct sim_jit *jt)
{
    (void)jt;
    return 0;
}
const void *sim_jit_body(struct sim_icache *ic, sim_insn *d, const sim_handlers *hs)
{
    (void)ic;
    (void)hs;
    d->jit = SIM_JIT_NONE;
    return NULL;
}
const void *sim_jit_stepped(struct sim_icache *ic, sim_insn *d, const sim_handlers *hs)
{
    (void)ic;
    (void)d;
    (void)hs;
    return NULL;
}
void sim_jit_link(struct sim_icache *ic, const sim_insn *d, sim_insn *e, const sim_handlers *hs)
{
    (void)ic;
    (void)d;
    (void)e;
    (void)hs;
}
#endif

bool sim_jit_wanted(void)
{
    const char *v = getenv("KMRUN_JIT");
    return !(v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0));
}
