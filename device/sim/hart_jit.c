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
 * holds, the same stop check after each latency.  Anything else — an
 * operation it does not translate, a load or store the RAM cache misses,
 * a block that does not fit before the run's limit, a latency that takes
 * a block past it — leaves the translated code for the hot loop at that
 * entry, in the state the handlers would have it in there, and the hot
 * loop carries on as if it had run the entries before itself.  So the
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
 * Only on x86-64 hosts; elsewhere sim_jit_new says no and the hot loop
 * interprets everything. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"
#include "sim_fpu.h"

#if defined(__x86_64__) && defined(__linux__)
#include <sys/mman.h>

#include "jit_x86.h"

/* Room one guest instruction's code may take, with its stubs and slot:
 * checked once per instruction, so the encoders need not. */
#define INSN_ROOM 512u
/* Bytes of mapping per entry of the decoded arena: room for every entry
 * translated about twice (mid-block entries start translations of their
 * own). */
#define BYTES_PER_ENTRY 256u

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
     * that); `slot` the exit slot of a branch, jal or block end. */
    uint32_t *checked, *body, *slot;
};

#define REG(field) ((int32_t)offsetof(sim_jit_regs, field))
#define XR(r) ((int32_t)(8 * (r))) /* x[r] off rbx */

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
    if (p == MAP_FAILED || !jt->checked || !jt->body || !jt->slot) {
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
    free(jt);
}

void sim_jit_clear(struct sim_icache *ic, bool flush)
{
    struct sim_jit *jt = ic->jit;
    size_t n = ic->used < jt->cap ? ic->used : jt->cap;
    memset(jt->checked, 0, n * sizeof *jt->checked);
    memset(jt->body, 0, n * sizeof *jt->body);
    memset(jt->slot, 0, n * sizeof *jt->slot);
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

/* What an out-of-line stub does. */
enum stub_kind {
    STUB_EXIT,  /* to the hot loop: rdi = d, eax = why */
    STUB_TAKEN, /* a taken branch: take back the rest, then its slot */
    STUB_NOTE,  /* a store other harts' reservations must hear of */
    STUB_CACHED, /* a load or store the RAM cache missed: the cached window? */
    STUB_JALR,   /* a jalr to a target not linked: rax the target */
};

typedef struct stub {
    uint8_t *at;  /* the rel32 that jumps to it */
    uint8_t kind; /* stub_kind */
    uint8_t why;  /* STUB_EXIT: sim_jit_exit */
    const sim_insn *d;
    uint8_t *back; /* STUB_NOTE: where to go on */
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
    stub stubs[MAX_STUBS];
    unsigned nstubs;
    slot_use slots[2 * (SIM_BLOCK_MAX + 4)];
    unsigned nslots;
} tr;

static void add_stub(tr *t, uint8_t *at, unsigned kind, unsigned why, const sim_insn *d,
                     uint8_t *back)
{
    t->stubs[t->nstubs++] = (stub){at, (uint8_t)kind, (uint8_t)why, d, back};
}

/* jcc to an exit of kind `why` at d */
static void exit_if(tr *t, unsigned cc, unsigned why, const sim_insn *d)
{
    add_stub(t, jx_jcc(&t->j, cc), STUB_EXIT, why, d, NULL);
}

/* jmp [rip + d's slot] (patched once the slot has its place) */
static void jump_slot(tr *t, const sim_insn *d)
{
    t->slots[t->nslots++] = (slot_use){jx_jmp_rip(&t->j), d, 0};
}

/* cmp rax, [rip + d's slot + 8]: a jalr's target against its linked pc */
static void compare_slot_pc(tr *t, const sim_insn *d)
{
    t->slots[t->nslots++] = (slot_use){jx_cmp_rip(&t->j, JX_RAX), d, 8};
}

/* rax = x[r] */
static void get(jx *j, int host, unsigned r)
{
    if (r == 0)
        jx_mov_imm(j, host, 0);
    else
        jx_load(j, host, JX_RBX, XR(r));
}

/* x[rd] = host (rd is never x0 for what the decoder leaves) */
static void put(jx *j, int host, unsigned rd)
{
    if (rd != 0)
        jx_store(j, host, JX_RBX, XR(rd));
}

/* A RAM access's latency (r11), into cycle and the memory cycles. */
static void latency(tr *t, const sim_insn *d)
{
    jx_alu(&t->j, true, JX_ADD, JX_R12, JX_R11);
    jx_alu(&t->j, true, JX_ADD, JX_R14, JX_R11);
}

/* After a latency: past the block's stop, the rest of the block one
 * instruction at a time (the hot loop's overrun, then step mode). */
static void stop_check(tr *t, const sim_insn *d)
{
    jx_alu(&t->j, true, JX_CMP, JX_R12, JX_RSI);
    exit_if(t, JX_CC_AE, SIM_JIT_OVERRUN, d);
}

/* rdx = the offset of x[rs1] + imm in the RAM cache's range, rax the
 * address; a misaligned address exits to d's handler, and so does a miss,
 * or (`cached`) it goes to a stub that tries the cached window: the
 * stub's index, whose `back` the caller sets. */
static unsigned address(tr *t, const sim_insn *d, unsigned size, bool cached)
{
    jx *j = &t->j;
    get(j, JX_RAX, d->rs1);
    if (d->imm)
        jx_lea(j, JX_RAX, JX_RAX, JX_NONE, 0, d->imm);
    jx_mov(j, JX_RDX, JX_RAX);
    jx_alu(j, true, JX_SUB, JX_RDX, JX_R8);
    jx_alu(j, true, JX_CMP, JX_RDX, JX_R9);
    unsigned miss = t->nstubs;
    if (cached)
        add_stub(t, jx_jcc(j, JX_CC_AE), STUB_CACHED, 0, d, NULL);
    else
        exit_if(t, JX_CC_AE, SIM_JIT_ENTER, d);
    if (size > 1) {
        jx_test8(j, JX_RAX, size - 1);
        exit_if(t, JX_CC_NE, SIM_JIT_ENTER, d);
    }
    return miss;
}

static unsigned mem_size(unsigned op)
{
    switch (op) {
    case SIM_OP_LB: case SIM_OP_LBU: case SIM_OP_SB: return 1;
    case SIM_OP_LH: case SIM_OP_LHU: case SIM_OP_SH: return 2;
    case SIM_OP_LD: case SIM_OP_SD: return 8;
    default: return 4;
    }
}

/* rax = the value load `op` reads at [base + index] */
static void load_from(jx *j, unsigned op, int base, int index)
{
    switch (op) {
    case SIM_OP_LB: jx_mem(j, 0, true, 0x0f, 0xbe, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LBU: jx_mem(j, 0, false, 0x0f, 0xb6, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LH: jx_mem(j, 0, true, 0x0f, 0xbf, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LHU: jx_mem(j, 0, false, 0x0f, 0xb7, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LW: jx_mem(j, 0, true, 0x63, -1, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LWU: jx_mem(j, 0, false, 0x8b, -1, JX_RAX, base, index, 0, 0); break;
    default: jx_mem(j, 0, true, 0x8b, -1, JX_RAX, base, index, 0, 0); break;
    }
}

/* [base + index] = rcx's low `size` bytes */
static void store_to(jx *j, unsigned size, int base, int index)
{
    switch (size) {
    case 1: jx_mem(j, 0, false, 0x88, -1, JX_RCX, base, index, 0, 0); break;
    case 2: jx_mem(j, 0x66, false, 0x89, -1, JX_RCX, base, index, 0, 0); break;
    case 4: jx_mem(j, 0, false, 0x89, -1, JX_RCX, base, index, 0, 0); break;
    default: jx_mem(j, 0, true, 0x89, -1, JX_RCX, base, index, 0, 0); break;
    }
}

static bool emit_load(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    if (d->rd == 0) /* the slow path's (sim_handlers.load_x0) */
        return false;
    unsigned miss = address(t, d, mem_size(d->op), true);
    load_from(j, d->op, JX_R10, JX_RDX);
    put(j, JX_RAX, d->rd);
    latency(t, d);
    t->stubs[miss].back = j->p;
    stop_check(t, d);
    return true;
}

/* sim_mem_note_store(m, h, rdx) when other harts share the memory;
 * rsi (the stop) is made again after the call */
static void note_store(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    static const int keep[] = {JX_R8, JX_R9, JX_R10, JX_R11};
    jx_cmp8_mem(j, JX_R15, REG(others), 0);
    uint8_t *skip = jx_jcc(j, JX_CC_E);
    for (unsigned k = 0; k < 4; k++)
        jx_push(j, keep[k]);
    jx_load(j, JX_RDI, JX_R15, REG(m));
    jx_load(j, JX_RSI, JX_R15, REG(h));
    jx_call_mem(j, JX_R15, REG(note_store));
    for (unsigned k = 4; k-- > 0;)
        jx_pop(j, keep[k]);
    jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, d->last_cost);
    jx_patch(skip, j->p);
}

static bool emit_store(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    unsigned size = mem_size(d->op);
    unsigned miss = address(t, d, size, true);
    get(j, JX_RCX, d->rs2);
    store_to(j, size, JX_R10, JX_RDX);
    latency(t, d);
    jx_cmp8_mem(j, JX_R15, REG(others), 0);
    uint8_t *at = jx_jcc(j, JX_CC_NE);
    add_stub(t, at, STUB_NOTE, 0, d, j->p);
    t->stubs[miss].back = j->p;
    stop_check(t, d);
    return true;
}

/* A load or store the RAM cache missed (rax its address), served from
 * the cluster's cached window as the handlers' slow path does: a hit
 * counts, a store marks its line dirty, the access costs the window's
 * latency; anything else exits to d's handler. */
static void emit_cached(tr *t, const stub *s)
{
    jx *j = &t->j;
    const sim_insn *d = s->d;
    bool store = d->op >= SIM_OP_SB && d->op <= SIM_OP_SD;
    unsigned size = mem_size(d->op);
#define C(field) ((int32_t)offsetof(sim_mem_cached, field))
    if (size > 1) {
        jx_test8(j, JX_RAX, size - 1);
        exit_if(t, JX_CC_NE, SIM_JIT_ENTER, d);
    }
    jx_load(j, JX_RDI, JX_R15, REG(cached));
    jx_mov(j, JX_RDX, JX_RAX);
    jx_alu_mem(j, true, JX_SUB, JX_RDX, JX_RDI, C(base));
    jx_alu_mem(j, true, JX_CMP, JX_RDX, JX_RDI, C(size));
    exit_if(t, JX_CC_AE, SIM_JIT_ENTER, d);
    jx_mov(j, JX_RCX, JX_RDX); /* rcx = the line's index */
    jx_shift_imm(j, true, JX_SHR, JX_RCX, 6);
    jx_alu_mem(j, false, JX_AND, JX_RCX, JX_RDI, C(mask));
    jx_load(j, JX_RAX, JX_RDI, C(tag)); /* rax = &tag[i] */
    jx_lea(j, JX_RAX, JX_RAX, JX_RCX, 3, 0);
    jx_test8_mem(j, JX_RAX, 0, SIM_MEM_LINE_VALID);
    exit_if(t, JX_CC_E, SIM_JIT_ENTER, d);
    jx_load(j, JX_RSI, JX_RAX, 0); /* the line's address is the offset's */
    jx_alu(j, true, JX_XOR, JX_RSI, JX_RDX);
    jx_alu_imm(j, true, JX_AND, JX_RSI, -64);
    exit_if(t, JX_CC_NE, SIM_JIT_ENTER, d);
    jx_load(j, JX_RSI, JX_RDI, C(hits));
    jx_alu_mem_imm8(j, JX_ADD, JX_RSI, 0, 1);
    if (store)
        jx_alu_mem_imm8(j, JX_OR, JX_RAX, 0, SIM_MEM_LINE_DIRTY);
    jx_shift_imm(j, true, JX_SHL, JX_RCX, 6); /* rdx = the bytes' host address */
    jx_alu_mem(j, true, JX_ADD, JX_RCX, JX_RDI, C(data));
    jx_alu_imm(j, false, JX_AND, JX_RDX, 63);
    jx_alu(j, true, JX_ADD, JX_RDX, JX_RCX);
    if (store) {
        get(j, JX_RCX, d->rs2);
        store_to(j, size, JX_RDX, JX_NONE);
    } else {
        load_from(j, d->op, JX_RDX, JX_NONE);
        put(j, JX_RAX, d->rd);
    }
    jx_mem(j, 0, false, 0x8b, -1, JX_RAX, JX_RDI, JX_NONE, 0, C(latency));
    jx_alu(j, true, JX_ADD, JX_R12, JX_RAX);
    jx_alu(j, true, JX_ADD, JX_R14, JX_RAX);
    if (store) { /* the address again: the store changed no register */
        get(j, JX_RDX, d->rs1);
        if (d->imm)
            jx_lea(j, JX_RDX, JX_RDX, JX_NONE, 0, d->imm);
        note_store(t, d);
    }
    jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, d->last_cost);
    jx_patch(jx_jmp(j), s->back);
#undef C
}

#define HART(field) ((int32_t)offsetof(sim_hart, field)) /* off rbx: x is h's first field */
#define FR(r) (HART(f) + (int32_t)(8 * (r)))

/* test dword [h->mstatus], FS: jz (the FPU off) exits to d's handler */
static void fpu_on(tr *t, const sim_insn *d)
{
    jx_mem(&t->j, 0, false, 0xf7, -1, 0, JX_RBX, JX_NONE, 0, HART(mstatus));
    jx_u32(&t->j, (uint32_t)SIM_MSTATUS_FS);
    exit_if(t, JX_CC_E, SIM_JIT_ENTER, d);
}

/* FLW/FLD/FSW/FSD: as the hot loop's FP_LOAD and FP_STORE. */
static bool emit_fp_mem(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    bool load = d->op == SIM_OP_FLW || d->op == SIM_OP_FLD;
    bool dbl = d->op == SIM_OP_FLD || d->op == SIM_OP_FSD;
    address(t, d, dbl ? 8 : 4, false);
    fpu_on(t, d);
    if (load) {
        jx_mem(j, 0, dbl, 0x8b, -1, JX_RAX, JX_R10, JX_RDX, 0, 0);
        if (!dbl) { /* NaN-boxed */
            jx_mov_imm(j, JX_RCX, sim_fpu_box(0));
            jx_alu(j, true, JX_OR, JX_RAX, JX_RCX);
        }
        jx_store(j, JX_RAX, JX_RBX, FR(d->rd));
        /* or dword [h->mstatus], FS: Dirty (the value the handler leaves) */
        jx_mem(j, 0, false, 0x81, -1, JX_OR, JX_RBX, JX_NONE, 0, HART(mstatus));
        jx_u32(j, (uint32_t)SIM_MSTATUS_FS);
        latency(t, d);
    } else {
        jx_load(j, JX_RCX, JX_RBX, FR(d->rs2));
        jx_mem(j, 0, dbl, 0x89, -1, JX_RCX, JX_R10, JX_RDX, 0, 0);
        latency(t, d);
        jx_cmp8_mem(j, JX_R15, REG(others), 0);
        uint8_t *at = jx_jcc(j, JX_CC_NE);
        add_stub(t, at, STUB_NOTE, 0, d, j->p);
    }
    stop_check(t, d);
    return true;
}

/* The FPU operations, through a call: 0 done, else nothing was done and
 * d's handler takes the trap. */
static int fpu_op(sim_hart *h, const sim_insn *d)
{
    if ((h->mstatus & SIM_MSTATUS_FS) == 0 || sim_fpu_run(h, &d->fpu))
        return 1;
    if ((h->mstatus & SIM_MSTATUS_FS) != SIM_MSTATUS_FS)
        h->mstatus |= SIM_MSTATUS_FS;
    h->x[0] = 0;
    return 0;
}

static bool emit_fpu(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    static const int keep[] = {JX_R8, JX_R9, JX_R10, JX_R11};
    for (unsigned k = 0; k < 4; k++)
        jx_push(j, keep[k]);
    jx_mov(j, JX_RDI, JX_RBX);
    jx_mov_imm(j, JX_RSI, (uint64_t)(uintptr_t)d);
    jx_mov_imm(j, JX_RAX, (uint64_t)(uintptr_t)fpu_op);
    jx_reg(j, false, 0xff, -1, 2, JX_RAX); /* call rax */
    for (unsigned k = 4; k-- > 0;)
        jx_pop(j, keep[k]);
    jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, d->last_cost);
    jx_alu(j, false, JX_OR, JX_RAX, JX_RAX); /* test eax */
    exit_if(t, JX_CC_NE, SIM_JIT_ENTER, d);
    return true;
}

/* The branches' x86 conditions: rs1 compared with rs2. */
static int branch_cc(unsigned op)
{
    switch (op) {
    case SIM_OP_BEQ: return JX_CC_E;
    case SIM_OP_BNE: return JX_CC_NE;
    case SIM_OP_BLT: return JX_CC_L;
    case SIM_OP_BGE: return JX_CC_GE;
    case SIM_OP_BLTU: return JX_CC_B;
    case SIM_OP_BGEU: return JX_CC_AE;
    default: return -1;
    }
}

/* Two-source operations that are one x86 ALU instruction with a memory
 * source (64-bit, or 32-bit and sign-extended for the W forms). */
static bool alu2_simple(unsigned op, unsigned *x86, bool *w32)
{
    *w32 = false;
    switch (op) {
    case SIM_OP_ADD: *x86 = JX_ADD; return true;
    case SIM_OP_SUB: *x86 = JX_SUB; return true;
    case SIM_OP_XOR: *x86 = JX_XOR; return true;
    case SIM_OP_OR: *x86 = JX_OR; return true;
    case SIM_OP_AND: *x86 = JX_AND; return true;
    case SIM_OP_ADDW: *x86 = JX_ADD; *w32 = true; return true;
    case SIM_OP_SUBW: *x86 = JX_SUB; *w32 = true; return true;
    default: return false;
    }
}

static bool alu1_simple(unsigned op, unsigned *x86)
{
    switch (op) {
    case SIM_OP_ADDI: *x86 = JX_ADD; return true;
    case SIM_OP_XORI: *x86 = JX_XOR; return true;
    case SIM_OP_ORI: *x86 = JX_OR; return true;
    case SIM_OP_ANDI: *x86 = JX_AND; return true;
    default: return false;
    }
}

static bool shift_of(unsigned op, unsigned *x86, bool *w32)
{
    *w32 = false;
    switch (op) {
    case SIM_OP_SLL: case SIM_OP_SLLI: *x86 = JX_SHL; return true;
    case SIM_OP_SRL: case SIM_OP_SRLI: *x86 = JX_SHR; return true;
    case SIM_OP_SRA: case SIM_OP_SRAI: *x86 = JX_SAR; return true;
    case SIM_OP_ROL: *x86 = JX_ROL; return true;
    case SIM_OP_ROR: case SIM_OP_RORI: *x86 = JX_ROR; return true;
    case SIM_OP_SLLW: case SIM_OP_SLLIW: *x86 = JX_SHL; *w32 = true; return true;
    case SIM_OP_SRLW: case SIM_OP_SRLIW: *x86 = JX_SHR; *w32 = true; return true;
    case SIM_OP_SRAW: case SIM_OP_SRAIW: *x86 = JX_SAR; *w32 = true; return true;
    case SIM_OP_ROLW: *x86 = JX_ROL; *w32 = true; return true;
    case SIM_OP_RORW: case SIM_OP_RORIW: *x86 = JX_ROR; *w32 = true; return true;
    default: return false;
    }
}

static bool shift_by_imm(unsigned op)
{
    switch (op) {
    case SIM_OP_SLLI: case SIM_OP_SRLI: case SIM_OP_SRAI: case SIM_OP_RORI:
    case SIM_OP_SLLIW: case SIM_OP_SRLIW: case SIM_OP_SRAIW: case SIM_OP_RORIW:
        return true;
    default:
        return false;
    }
}

/* The integer operations: rax = the result, then x[rd]. */
static bool emit_alu(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    unsigned op = d->op, x86;
    bool w32;
    const int32_t imm = d->imm;
    if (alu2_simple(op, &x86, &w32)) {
        get(j, JX_RAX, d->rs1);
        jx_alu_mem(j, !w32, x86, JX_RAX, JX_RBX, XR(d->rs2));
        if (w32)
            jx_sext32(j, JX_RAX, JX_RAX);
    } else if (alu1_simple(op, &x86)) {
        if (d->rs1 == 0 && x86 != JX_AND) { /* li: 0 op imm is imm */
            jx_mov_imm(j, JX_RAX, (uint64_t)(int64_t)imm);
        } else {
            get(j, JX_RAX, d->rs1);
            jx_alu_imm(j, true, x86, JX_RAX, imm);
        }
    } else if (shift_of(op, &x86, &w32)) {
        get(j, JX_RAX, d->rs1);
        if (shift_by_imm(op)) {
            jx_shift_imm(j, !w32, x86, JX_RAX, (unsigned)imm & 63);
        } else {
            get(j, JX_RCX, d->rs2); /* x86 masks the count as RISC-V does */
            jx_shift_cl(j, !w32, x86, JX_RAX);
        }
        if (w32)
            jx_sext32(j, JX_RAX, JX_RAX);
    } else {
        switch (op) {
        case SIM_OP_LUI:
            jx_store_imm(j, JX_RBX, XR(d->rd), imm);
            return true;
        case SIM_OP_AUIPC:
            jx_mov_imm(j, JX_RAX, d->pc + (uint64_t)(int64_t)imm);
            break;
        case SIM_OP_ADDIW:
            get(j, JX_RAX, d->rs1);
            jx_alu_imm(j, false, JX_ADD, JX_RAX, imm);
            jx_sext32(j, JX_RAX, JX_RAX);
            break;
        case SIM_OP_SLT: case SIM_OP_SLTU:
            get(j, JX_RAX, d->rs1);
            jx_alu_mem(j, true, JX_CMP, JX_RAX, JX_RBX, XR(d->rs2));
            jx_setcc(j, op == SIM_OP_SLT ? JX_CC_L : JX_CC_B, JX_RAX);
            break;
        case SIM_OP_SLTI: case SIM_OP_SLTIU:
            get(j, JX_RAX, d->rs1);
            jx_alu_imm(j, true, JX_CMP, JX_RAX, imm); /* imm sign-extended either way */
            jx_setcc(j, op == SIM_OP_SLTI ? JX_CC_L : JX_CC_B, JX_RAX);
            break;
        case SIM_OP_MUL: case SIM_OP_MULW:
            get(j, JX_RAX, d->rs1);
            jx_imul_mem(j, op == SIM_OP_MUL, JX_RAX, JX_RBX, XR(d->rs2));
            if (op == SIM_OP_MULW)
                jx_sext32(j, JX_RAX, JX_RAX);
            break;
        case SIM_OP_SH1ADD: case SIM_OP_SH2ADD: case SIM_OP_SH3ADD:
        case SIM_OP_ADD_UW: case SIM_OP_SH1ADD_UW: case SIM_OP_SH2ADD_UW: case SIM_OP_SH3ADD_UW: {
            bool uw = op == SIM_OP_ADD_UW || op >= SIM_OP_SH1ADD_UW;
            unsigned sh = op == SIM_OP_SH1ADD || op == SIM_OP_SH1ADD_UW ? 1
                          : op == SIM_OP_SH2ADD || op == SIM_OP_SH2ADD_UW ? 2
                          : op == SIM_OP_SH3ADD || op == SIM_OP_SH3ADD_UW ? 3 : 0;
            if (uw) /* mov eax, [x + rs1]: the low word, zero-extended */
                jx_mem(j, 0, false, 0x8b, -1, JX_RAX, JX_RBX, JX_NONE, 0, XR(d->rs1));
            else
                get(j, JX_RAX, d->rs1);
            get(j, JX_RCX, d->rs2);
            jx_lea(j, JX_RAX, JX_RCX, JX_RAX, sh, 0);
            break;
        }
        case SIM_OP_SLLI_UW:
            jx_mem(j, 0, false, 0x8b, -1, JX_RAX, JX_RBX, JX_NONE, 0, XR(d->rs1));
            jx_shift_imm(j, true, JX_SHL, JX_RAX, (unsigned)imm & 63);
            break;
        case SIM_OP_ANDN: case SIM_OP_ORN:
            get(j, JX_RAX, d->rs2);
            jx_not(j, JX_RAX);
            jx_alu_mem(j, true, op == SIM_OP_ANDN ? JX_AND : JX_OR, JX_RAX, JX_RBX, XR(d->rs1));
            break;
        case SIM_OP_XNOR:
            get(j, JX_RAX, d->rs1);
            jx_alu_mem(j, true, JX_XOR, JX_RAX, JX_RBX, XR(d->rs2));
            jx_not(j, JX_RAX);
            break;
        case SIM_OP_MAX: case SIM_OP_MAXU: case SIM_OP_MIN: case SIM_OP_MINU: {
            /* rax = rs1; take rs2 when it is the one wanted */
            static const unsigned take[] = {JX_CC_L, JX_CC_B, JX_CC_G, JX_CC_A};
            get(j, JX_RAX, d->rs1);
            get(j, JX_RCX, d->rs2);
            jx_alu(j, true, JX_CMP, JX_RAX, JX_RCX);
            jx_cmov(j, take[op - SIM_OP_MAX], JX_RAX, JX_RCX);
            break;
        }
        case SIM_OP_SEXT_B: case SIM_OP_SEXT_H:
            jx_mem(j, 0, true, 0x0f, op == SIM_OP_SEXT_B ? 0xbe : 0xbf, JX_RAX, JX_RBX, JX_NONE, 0,
                   XR(d->rs1));
            break;
        case SIM_OP_ZEXT_H:
            jx_mem(j, 0, false, 0x0f, 0xb7, JX_RAX, JX_RBX, JX_NONE, 0, XR(d->rs1));
            break;
        case SIM_OP_REV8:
            get(j, JX_RAX, d->rs1);
            jx_bswap(j, JX_RAX);
            break;
        default:
            return false;
        }
    }
    put(j, JX_RAX, d->rd);
    return true;
}

/* A jal its block goes on after, at its target (not its end). */
static bool jal_on(const sim_insn *d, const sim_handlers *hs)
{
    return d->run == hs->jal_on;
}

/* Emits entry d; false when d is not translated (the code so far exits
 * to its handler). */
static bool emit_insn(tr *t, const sim_insn *d, const sim_handlers *hs)
{
    jx *j = &t->j;
    int cc = branch_cc(d->op);
    if (cc >= 0) {
        get(j, JX_RAX, d->rs1);
        jx_alu_mem(j, true, JX_CMP, JX_RAX, JX_RBX, XR(d->rs2));
        add_stub(t, jx_jcc(j, (unsigned)cc), STUB_TAKEN, 0, d, NULL);
        return true;
    }
    switch (d->op) {
    case SIM_OP_NOP:
        return true;
    case SIM_OP_LB: case SIM_OP_LH: case SIM_OP_LW: case SIM_OP_LD:
    case SIM_OP_LBU: case SIM_OP_LHU: case SIM_OP_LWU:
        return emit_load(t, d);
    case SIM_OP_SB: case SIM_OP_SH: case SIM_OP_SW: case SIM_OP_SD:
        return emit_store(t, d);
    case SIM_OP_FLW: case SIM_OP_FLD: case SIM_OP_FSW: case SIM_OP_FSD:
        return emit_fp_mem(t, d);
    case SIM_OP_FPU:
        return emit_fpu(t, d);
    case SIM_OP_JAL:
        if (d->rd) {
            jx_mov_imm(j, JX_RAX, d->pc + d->len);
            put(j, JX_RAX, d->rd);
        }
        if (!jal_on(d, hs)) /* else the block goes on at its target */
            jump_slot(t, d);
        return true;
    case SIM_OP_JALR:
        /* on at the target its slot was linked to, else back to the
         * handlers' jalr with the target (the link may have taken rs1) */
        get(j, JX_RAX, d->rs1);
        if (d->imm)
            jx_lea(j, JX_RAX, JX_RAX, JX_NONE, 0, d->imm);
        jx_alu_imm(j, true, JX_AND, JX_RAX, -2);
        if (d->rd) {
            jx_mov_imm(j, JX_RCX, d->pc + d->len);
            put(j, JX_RCX, d->rd);
        }
        compare_slot_pc(t, d);
        add_stub(t, jx_jcc(j, JX_CC_NE), STUB_JALR, 0, d, NULL);
        jump_slot(t, d);
        return true;
    case SIM_OP_BLOCK_END:
        jump_slot(t, d);
        return true;
    default:
        return emit_alu(t, d);
    }
}

static void emit_exit(tr *t, const sim_insn *d, unsigned why, const uint8_t *exit)
{
    jx_mov_imm(&t->j, JX_RDI, (uint64_t)(uintptr_t)d);
    jx_mov_imm(&t->j, JX_RAX, why);
    jx_patch(jx_jmp(&t->j), exit);
}

/* The stubs, then the exit slots, after a translation's body. */
static void emit_tail(struct sim_icache *ic, tr *t)
{
    struct sim_jit *jt = ic->jit;
    jx *j = &t->j;
    for (unsigned i = 0; i < t->nstubs; i++) {
        const stub *s = &t->stubs[i];
        jx_patch(s->at, j->p);
        switch (s->kind) {
        case STUB_EXIT:
            emit_exit(t, s->d, s->why, jt->exit);
            break;
        case STUB_TAKEN: /* what the block's entries after it added */
            jx_alu_imm(j, true, JX_SUB, JX_R12, (int32_t)s->d[1].cost_rest);
            jx_alu_imm(j, true, JX_SUB, JX_R13, (int32_t)s->d[1].n_rest);
            jump_slot(t, s->d);
            break;
        case STUB_CACHED:
            emit_cached(t, s);
            break;
        case STUB_JALR:
            jx_store(j, JX_RAX, JX_R15, REG(target));
            emit_exit(t, s->d, SIM_JIT_JALR, jt->exit);
            break;
        case STUB_NOTE: /* rdx: the offset in the RAM cache's range */
            jx_lea(j, JX_RDX, JX_RDX, JX_R8, 0, 0);
            note_store(t, s->d);
            jx_patch(jx_jmp(j), s->back);
            break;
        }
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
            emit_exit(t, t->slots[i].d, SIM_JIT_CHAIN, jt->exit);
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
    unsigned n = 1;
    while (from[n - 1].op != SIM_OP_BLOCK_END)
        n++;
    if (jt->size - jt->used < (size_t)(n + 4) * INSN_ROOM)
        return -2;
    tr t;
    t.j = (jx){jt->buf + jt->used, jt->buf + jt->size};
    t.nstubs = t.nslots = 0;
    jx *j = &t.j;

    /* From a chain: the block's accounting, as the hot loop's BLOCK. */
    uint8_t *checked = j->p;
    jx_lea(j, JX_RAX, JX_R12, JX_NONE, 0, (int32_t)from->cost_rest);
    jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, from->last_cost);
    jx_alu(j, true, JX_CMP, JX_RAX, JX_RSI);
    exit_if(&t, JX_CC_AE, SIM_JIT_STEP, from);
    jx_mov(j, JX_R12, JX_RAX);
    jx_alu_imm(j, true, JX_ADD, JX_R13, from->n_rest);
    uint8_t *body = j->p;
    jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, from->last_cost);

    unsigned done = 0;
    for (const sim_insn *d = from;; d++) {
        uint8_t *mark = j->p;
        unsigned ns = t.nstubs, nsl = t.nslots;
        if (!emit_insn(&t, d, hs)) {
            j->p = mark;
            t.nstubs = ns;
            t.nslots = nsl;
            if (done == 0) {
                from->jit = SIM_JIT_NONE;
                return -1;
            }
            add_stub(&t, jx_jmp(j), STUB_EXIT, SIM_JIT_ENTER, d, NULL);
            break;
        }
        done++;
        if (d->op == SIM_OP_BLOCK_END || d->op == SIM_OP_JALR ||
            (d->op == SIM_OP_JAL && !jal_on(d, hs)))
            break;
    }
    emit_tail(ic, &t);
    jt->checked[idx] = (uint32_t)(checked - jt->buf);
    jt->body[idx] = (uint32_t)(body - jt->buf);
    from->jit = SIM_JIT_MADE;
    jt->used = ((size_t)(j->p - jt->buf) + 15) & ~(size_t)15;
    return 0;
}

/* translate, clearing everything once when there is no room */
static int translate_or_clear(struct sim_icache *ic, sim_insn *from, const sim_handlers *hs)
{
    int rc = translate(ic, from, hs);
    if (rc == -2) {
        sim_jit_clear(ic, false);
        rc = translate(ic, from, hs);
        if (rc == -2) /* not even in an empty mapping (a test's limit) */
            from->jit = SIM_JIT_NONE;
    }
    return rc;
}

const void *sim_jit_body(struct sim_icache *ic, sim_insn *d, const sim_handlers *hs)
{
    if (d->jit == SIM_JIT_NONE || translate_or_clear(ic, d, hs) != 0)
        return NULL;
    return ic->jit->buf + ic->jit->body[d - ic->arena];
}

void sim_jit_link(struct sim_icache *ic, const sim_insn *d, sim_insn *e, const sim_handlers *hs)
{
    struct sim_jit *jt = ic->jit;
    size_t k = (size_t)(d - ic->arena);
    if (!jt->slot[k])
        return;
    if (translate_or_clear(ic, e, hs) != 0 || !jt->slot[k])
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
