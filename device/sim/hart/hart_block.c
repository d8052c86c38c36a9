/* hart_block: the decoded blocks a hart runs (hart_internal.h).
 *
 * A block is the run of instructions the hart executes from an entry pc
 * up to the first that may go elsewhere each time (jalr, a trap, mret,
 * wfi, fence.i) or SIM_BLOCK_MAX of them, decoded on first execution,
 * closed by a SIM_OP_BLOCK_END entry.  A conditional branch does not end
 * it: not taken, the hart goes on to the next entry; taken, it leaves the
 * block early, as a trap does (sim_hart.c).  Nor does a jal: the block
 * goes on at its target, unless that is already in the block (a loop
 * would unroll) or outside the code.  So a loop's test, an if's
 * fall-through and a jump around an else cost no block entry.
 *
 * Each entry carries what the hot loop needs at once: its handler's
 * address (the form that reads each source where it is: pick_form), and
 * its block's remaining instruction count and static cost, computed here
 * once instead of counted per instruction.  The static costs come from
 * one place, sim_static_cost. */
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"

/* What ends a block: after it, where the hart goes is known only then. */
static bool ends_block(unsigned op)
{
    switch (op) {
    case SIM_OP_JAL: case SIM_OP_JALR:
    case SIM_OP_ILLEGAL: case SIM_OP_FETCH_FAULT: case SIM_OP_ECALL: case SIM_OP_EBREAK:
    case SIM_OP_MRET: case SIM_OP_WFI: case SIM_OP_FENCE_I:
        return true;
    default:
        return false;
    }
}

/* The cycles an instruction costs whatever its operands (the table in
 * hart_internal.h, and the FP operation's latency its decoding gives):
 * memory latency comes on top as it happens. */
static uint32_t sim_static_cost(const sim_insn *d)
{
    switch (d->op) {
    case SIM_OP_FPU:
        return SIM_COST_INSN + d->fpu.extra;
    case SIM_OP_PROBE:
    case SIM_OP_TRIGGER:
    case SIM_OP_PMP:
        return 0;
    case SIM_OP_MUL: case SIM_OP_MULH: case SIM_OP_MULHSU: case SIM_OP_MULHU:
    case SIM_OP_MULW:
        return SIM_COST_INSN + SIM_COST_MUL;
    case SIM_OP_DIV: case SIM_OP_DIVU: case SIM_OP_REM: case SIM_OP_REMU:
    case SIM_OP_DIVW: case SIM_OP_DIVUW: case SIM_OP_REMW: case SIM_OP_REMUW:
        return SIM_COST_INSN + SIM_COST_DIV;
    default:
        return SIM_COST_INSN;
    }
}

struct sim_icache *sim_icache_new(uint64_t base, uint64_t size)
{
    struct sim_icache *ic = calloc(1, sizeof *ic);
    if (!ic)
        return NULL;
    uint64_t slots = size / 2 + 1;
    if (slots > SIZE_MAX / sizeof(sim_insn *)) {
        free(ic);
        return NULL;
    }
    /* Room for every instruction of the code once, with slack for blocks
     * entered mid-way; a program that outgrows it gets a flush and starts
     * over, which costs time, never correctness.  calloc'd memory is only
     * paid for where it is touched. */
    size_t cap = (size_t)(slots < (1u << 16) ? slots : (1u << 16)) + 4 * (SIM_BLOCK_MAX + 1);
    ic->map = calloc((size_t)slots, sizeof(sim_insn *));
    ic->arena = calloc(cap, sizeof(sim_insn));
    if (!ic->map || !ic->arena) {
        sim_icache_free(ic);
        return NULL;
    }
    ic->base = base;
    ic->size = size;
    ic->cap = cap;
    ic->jit = sim_jit_wanted() ? sim_jit_new(cap) : NULL; /* none: interpreted */
    ic->map_lo = (size_t)slots;
    ic->map_hi = 0;
    return ic;
}

void sim_icache_free(struct sim_icache *ic)
{
    if (!ic)
        return;
    sim_jit_free(ic->jit);
    free(ic->probes);
    free(ic->map);
    free(ic->arena);
    free(ic);
}

void sim_icache_flush(struct sim_icache *ic)
{
    if (ic->map_hi > ic->map_lo)
        memset(&ic->map[ic->map_lo], 0, (ic->map_hi - ic->map_lo) * sizeof *ic->map);
    ic->map_lo = (size_t)(ic->size / 2 + 1);
    ic->map_hi = 0;
    if (ic->jit)
        sim_jit_clear(ic, true);
    ic->used = 0;
    ic->gen++;
}

static int cmp_pc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int sim_icache_set_probes(struct sim_icache *ic, const uint64_t *pcs, unsigned n)
{
    uint64_t *set = NULL;
    if (n) {
        set = malloc(n * sizeof *set);
        if (!set)
            return -1;
        memcpy(set, pcs, n * sizeof *set);
        qsort(set, n, sizeof *set, cmp_pc);
    }
    free(ic->probes);
    ic->probes = set;
    ic->nprobes = n;
    sim_icache_flush(ic);
    return 0;
}

static bool probed(const struct sim_icache *ic, uint64_t pc)
{
    return ic->nprobes &&
           bsearch(&pc, ic->probes, ic->nprobes, sizeof pc, cmp_pc) != NULL;
}

static bool triggered(const struct sim_icache *ic, uint64_t pc)
{
    return ic->ntexec && sim_icache_triggered(ic, pc);
}

static bool fenced(const struct sim_icache *ic, uint64_t pc)
{
    return ic->npmp && sim_icache_pmp_fenced(ic, pc);
}

/* Whether entry d is a check before an instruction (no instruction). */
static bool is_check(const sim_insn *d)
{
    return d->op == SIM_OP_PROBE || d->op == SIM_OP_TRIGGER || d->op == SIM_OP_PMP;
}

/* A zeroed entry of op `op` for pc: a probe, a trigger or PMP check. */
static void put_check(sim_insn *d, unsigned op, uint64_t pc, const sim_handlers *hs)
{
    memset(d, 0, sizeof *d);
    d->op = (uint8_t)op;
    d->run = hs->run[op];
    d->pc = pc;
}

/* Which registers' results the forwarded values f0 and f1 hold at a
 * point of a block (sim_hart.c), as far as the block's own entries say:
 * none at its head. */
typedef struct fwd_state {
    uint8_t reg[2];
    bool valid[2];
} fwd_state;

/* Where register r's value comes from at that point: 0 x[], 1 f0, 2 f1. */
static unsigned source_of(const fwd_state *fs, unsigned r)
{
    if (r == 0)
        return 0;
    for (unsigned i = 0; i < 2; i++)
        if (fs->valid[i] && fs->reg[i] == r)
            return i + 1;
    return 0;
}

/* d's handler: the form reading each source from where *fs has it; then
 * *fs as d leaves it.  A forwarding instruction moves f0 to f1 and puts
 * its rd in f0 (x0 is nothing to forward); any other that names an rd
 * may write it (a CSR, an atomic, an FP or vector op's x register), and a
 * slot still holding that register's old value is no longer its value. */
static void pick_form(sim_insn *d, fwd_state *fs, const sim_handlers *hs)
{
    unsigned op = d->op;
    for (unsigned i = 0; i < 2; i++)
        d->fwd[i] = fs->valid[i] ? fs->reg[i] : 0;
    if (d->rd == 0 && hs->load_x0[op])
        d->run = hs->load_x0[op];
    else if (op == SIM_OP_ADDI && d->rs1 == 0)
        d->run = hs->li;
    else if (op == SIM_OP_ADDI && d->imm == 0)
        d->run = hs->mv[source_of(fs, d->rs1)];
    else if (hs->form2[op][0][0])
        d->run = hs->form2[op][source_of(fs, d->rs1)][source_of(fs, d->rs2)];
    else if (hs->form1[op][0])
        d->run = hs->form1[op][source_of(fs, d->rs1)];
    else
        d->run = hs->run[op];
    if (hs->forwards[op]) {
        fs->reg[1] = fs->reg[0];
        fs->valid[1] = fs->valid[0] && fs->reg[0] != d->rd;
        fs->reg[0] = d->rd;
        fs->valid[0] = d->rd != 0;
    } else {
        for (unsigned i = 0; i < 2; i++)
            if (fs->reg[i] == d->rd)
                fs->valid[i] = false;
    }
}

/* Whether a block whose first n entries are at head goes on after a jal
 * at `target`: inside the code, and not where the block has been. */
static bool goes_on(const struct sim_icache *ic, const sim_insn *head, unsigned n,
                    uint64_t target)
{
    if (target - ic->base >= ic->size)
        return false;
    for (unsigned i = 0; i < n; i++)
        if (head[i].pc == target)
            return false;
    return true;
}

sim_insn *sim_block_entry(sim_hart *h, uint64_t pc, const sim_handlers *hs)
{
    struct sim_icache *ic = h->icache;
    size_t slot = (size_t)((pc - ic->base) >> 1);
    if (ic->map[slot])
        return ic->map[slot];
    if (ic->used + SIM_BLOCK_MAX + 1 > ic->cap)
        sim_icache_flush(ic);

    sim_insn *head = &ic->arena[ic->used];
    unsigned n = 0;
    uint64_t at = pc;
    /* A probed pc always starts a block, behind its probe: then every way
     * to it (a link, the map, a fall from the block before) meets the
     * probe first.  A pc an execute trigger matches likewise, behind its
     * check (after the probe: the owner's debugger stops first). */
    if (probed(ic, pc))
        put_check(&head[n++], SIM_OP_PROBE, pc, hs);
    if (triggered(ic, pc))
        put_check(&head[n++], SIM_OP_TRIGGER, pc, hs);
    fwd_state fs = {{0, 0}, {false, false}};
    for (;;) {
        /* An instruction a locked PMP entry meets, behind its fetch
         * check, anywhere in a block: every way to its pc (the map, a
         * link, the entry before) meets the check first.  Entered, the
         * check loads the forwarded values the instruction reads. */
        if (fenced(ic, at)) {
            put_check(&head[n], SIM_OP_PMP, at, hs);
            for (unsigned i = 0; i < 2; i++)
                head[n].fwd[i] = fs.valid[i] ? fs.reg[i] : 0;
            n++;
        }
        sim_insn *d = &head[n++];
        sim_decode_at(h, at, d);
        pick_form(d, &fs, hs);
        at += d->len;
        if (d->op == SIM_OP_JAL && goes_on(ic, head, n, d->pc + (uint64_t)(int64_t)d->imm)) {
            d->run = hs->jal_on;
            at = d->pc + (uint64_t)(int64_t)d->imm;
        } else if (ends_block(d->op)) {
            break;
        }
        if (n + fenced(ic, at) >= SIM_BLOCK_MAX || at - ic->base >= ic->size ||
            probed(ic, at) || triggered(ic, at))
            break;
    }
    sim_insn *end = &head[n];
    memset(end, 0, sizeof *end);
    end->op = SIM_OP_BLOCK_END;
    end->run = hs->run[SIM_OP_BLOCK_END];
    end->pc = at;

    /* The totals from each entry to the end, backwards (a probe or a
     * check is no instruction); then the map's slots, where no earlier
     * block decoded that pc already (a probe or a check before its
     * instruction). */
    uint32_t cost = 0, last = sim_static_cost(&head[n - 1]);
    uint16_t count = 0;
    for (unsigned i = n; i-- > 0;) {
        sim_insn *d = &head[i];
        cost += sim_static_cost(d);
        count += !is_check(d);
        d->cost_rest = cost;
        d->n_rest = (uint8_t)count; /* a block holds at most SIM_BLOCK_MAX */
        d->jit = ic->jit ? SIM_JIT_UNTRIED : SIM_JIT_NONE;
        d->last_cost = (uint16_t)last;
    }
    for (unsigned i = 0; i < n; i++) {
        sim_insn *d = &head[i];
        size_t s = (size_t)((d->pc - ic->base) >> 1);
        if (!ic->map[s]) {
            ic->map[s] = d;
            if (s < ic->map_lo)
                ic->map_lo = s;
            if (s + 1 > ic->map_hi)
                ic->map_hi = s + 1;
        }
    }
    end->jit = SIM_JIT_NONE; /* never entered: the next pc has its own entry */
    ic->used += n + 1;
    return head;
}
