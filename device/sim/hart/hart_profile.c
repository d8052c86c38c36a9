/* hart_profile: a core's exact profile (sim_profile.h).
 *
 * A profiled hart runs an instruction at a time (sim_hart_run with a limit
 * one cycle on, as sim_hart_step does: the same modeled time as any other
 * split of the run), and what each step added to the hart's cycle,
 * instret, mem_cycles and traps goes to the pc it started at, under the
 * shadow call stack as it was then.  So the profile's sums are the hart's
 * counters, exactly: nothing else moves them while the hart is profiled
 * (its owner does not park it in an idle proof: sim_cluster.c).
 *
 * The call stacks are nodes of a call tree (a node: its parent and the
 * call site that entered it), found through a hash of (parent, site);
 * the counts, in a hash of (node, pc).  The stack itself is the current
 * node: a push finds or makes the child, a pop goes to the parent. */
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"
#include "sim_profile.h"

typedef struct node {
    uint32_t parent;
    uint64_t site; /* the call site (| SIM_PROFILE_TRAP_FRAME for a trap) */
    uint64_t ret;  /* where a return to the caller goes: site + its length */
    uint32_t depth;
} node;

/* One step of a period being recorded (sim_profile_idle_skip): a cell's
 * counts (n 0), or a stretch's passing instructions (n of them). */
typedef struct tape_step {
    uint64_t pc;
    uint32_t node, n;
    sim_profile_count c;
} tape_step;

/* The passing instructions of a stretch (sim_profile_run): the n that
 * start at pc under a node, each costing only its static cost, counted as
 * a whole: `execs` times; their pcs and costs at pool[first ..]. */
typedef struct stretch {
    uint64_t pc; /* 0: empty */
    uint32_t node, n, first;
    uint64_t execs;
} stretch;

typedef struct pooled {
    uint64_t pc;
    uint64_t cost;
} pooled;

typedef struct cell {
    uint64_t pc; /* 0: empty (pc 0 is never code: its cell keys on 1) */
    uint32_t node;
    sim_profile_count c;
} cell;

struct sim_profile {
    node *nodes; /* nodes[0] the root: no frame */
    uint32_t nnodes, capnodes;
    uint32_t *children; /* hash of (parent, site) -> node index + 1 */
    uint32_t capchildren;
    cell *cells;
    size_t ncells, capcells;
    uint32_t cur;        /* the stack: its innermost node */
    uint32_t unseen;     /* pushes past SIM_PROFILE_MAX_DEPTH not kept */
    sim_profile_count *buckets;
    size_t nbuckets, capbuckets;
    /* A direct-mapped cache of cells by pc (the hash's index; emptied
     * when the hash grows), which the hot loops of a program hit. */
    struct {
        uint64_t pc;
        uint32_t node, index;
    } near[4096];
    size_t last_bucket; /* the bucket the last step went to, +1 (0: none) */
    stretch *stretches; /* hash of (pc, node, n) */
    size_t nstretches, capstretches;
    pooled *pool;
    size_t npool, cappool;
    struct {
        uint64_t pc;
        uint32_t node, n, index;
    } near_stretch[1024];
    tape_step *tape; /* recording: the steps of one idle period */
    size_t ntape, captape;
    bool taping;
    bool step; /* KMRUN_PROFILE=step: every instruction alone, no skip */
    bool failed;
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

sim_profile *sim_profile_new(void)
{
    sim_profile *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    sim_profile_clear(p);
    if (p->failed) {
        sim_profile_free(p);
        return NULL;
    }
    return p;
}

/* Every table the profile holds. */
static void release(sim_profile *p)
{
    free(p->nodes);
    free(p->children);
    free(p->cells);
    free(p->buckets);
    free(p->tape);
    free(p->stretches);
    free(p->pool);
}

void sim_profile_free(sim_profile *p)
{
    if (!p)
        return;
    release(p);
    free(p);
}

void sim_profile_clear(sim_profile *p)
{
    release(p);
    memset(p, 0, sizeof *p);
    p->capnodes = 64;
    p->capchildren = 128;
    p->capcells = 1024;
    p->nodes = calloc(p->capnodes, sizeof *p->nodes);
    p->children = calloc(p->capchildren, sizeof *p->children);
    p->cells = calloc(p->capcells, sizeof *p->cells);
    p->capstretches = 256;
    p->stretches = calloc(p->capstretches, sizeof *p->stretches);
    p->failed = !p->nodes || !p->children || !p->cells || !p->stretches;
    /* The reference the stretches and the idle skips must equal (the
     * tests compare): each instruction stepped alone. */
    const char *how = getenv("KMRUN_PROFILE");
    p->step = how && strcmp(how, "step") == 0;
    if (!p->failed)
        p->nnodes = 1; /* the root */
}

bool sim_profile_failed(const sim_profile *p)
{
    return p->failed;
}

/* ---- the call tree ---------------------------------------------------------- */

static uint32_t *child_slot(uint32_t *tab, uint32_t cap, const node *nodes, uint32_t parent,
                            uint64_t site)
{
    uint32_t mask = cap - 1;
    for (uint32_t i = (uint32_t)mix(site ^ (uint64_t)parent << 40) & mask;; i = (i + 1) & mask) {
        uint32_t k = tab[i];
        if (!k || (nodes[k - 1].parent == parent && nodes[k - 1].site == site))
            return &tab[i];
    }
}

static bool grow_children(sim_profile *p)
{
    uint32_t cap = p->capchildren * 2;
    uint32_t *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return false;
    for (uint32_t n = 1; n < p->nnodes; n++)
        *child_slot(tab, cap, p->nodes, p->nodes[n].parent, p->nodes[n].site) = n + 1;
    free(p->children);
    p->children = tab;
    p->capchildren = cap;
    return true;
}

/* The child of the current node entered at `site`, returning to `ret`. */
static void push(sim_profile *p, uint64_t site, uint64_t ret)
{
    if (p->unseen || p->nodes[p->cur].depth >= SIM_PROFILE_MAX_DEPTH) {
        p->unseen++;
        return;
    }
    uint32_t *slot = child_slot(p->children, p->capchildren, p->nodes, p->cur, site);
    if (*slot) {
        p->cur = *slot - 1;
        return;
    }
    if (p->nnodes + 1 > p->capnodes) {
        node *n = realloc(p->nodes, 2 * p->capnodes * sizeof *n);
        if (!n) {
            p->failed = true;
            p->unseen++;
            return;
        }
        p->nodes = n;
        p->capnodes *= 2;
    }
    uint32_t k = p->nnodes++;
    p->nodes[k] = (node){p->cur, site, ret, p->nodes[p->cur].depth + 1};
    if (2 * p->nnodes > p->capchildren) {
        if (!grow_children(p))
            p->failed = true; /* the table still has room: it was half full */
        slot = child_slot(p->children, p->capchildren, p->nodes, p->cur, site);
    }
    *slot = k + 1;
    p->cur = k;
}

/* Whether node n has a child called from the call site just before
 * `target` (a 4- or 2-byte call that returns there). */
static bool called_before(const sim_profile *p, uint32_t n, uint64_t target)
{
    for (unsigned len = 2; len <= 4; len += 2) {
        uint32_t k = *child_slot(p->children, p->capchildren, p->nodes, n, target - len);
        if (k && p->nodes[k - 1].ret == target)
            return true;
    }
    return false;
}

/* A return to `target`: to the caller of the frame that returns there
 * when one on the stack does (the innermost such: a return, or an unwind
 * past frames that never returned); else to the frame on the stack that
 * once made a call returning there (a longjmp back to where setjmp,
 * returned since, was called); else one frame out. */
static void pop(sim_profile *p, uint64_t target)
{
    if (p->unseen) {
        p->unseen--;
        return;
    }
    for (uint32_t n = p->cur; n; n = p->nodes[n].parent) {
        if (p->nodes[n].ret == target) {
            p->cur = p->nodes[n].parent;
            return;
        }
    }
    for (uint32_t n = p->cur;; n = p->nodes[n].parent) {
        if (called_before(p, n, target)) {
            p->cur = n;
            return;
        }
        if (!n)
            break;
    }
    if (p->cur)
        p->cur = p->nodes[p->cur].parent;
}

/* mret: out through the innermost trap frame (none: nothing). */
static void pop_trap(sim_profile *p)
{
    p->unseen = 0;
    for (uint32_t n = p->cur; n; n = p->nodes[n].parent) {
        if (p->nodes[n].site & SIM_PROFILE_TRAP_FRAME) {
            p->cur = p->nodes[n].parent;
            return;
        }
    }
}

/* ---- the counts --------------------------------------------------------------- */

static size_t cell_index(const cell *tab, size_t cap, uint64_t pc, uint32_t at)
{
    size_t mask = cap - 1;
    for (size_t i = (size_t)mix(pc ^ (uint64_t)at << 44) & mask;; i = (i + 1) & mask)
        if (!tab[i].pc || (tab[i].pc == pc && tab[i].node == at))
            return i;
}

static bool grow_cells(sim_profile *p)
{
    size_t cap = p->capcells * 2;
    cell *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return false;
    for (size_t i = 0; i < p->capcells; i++)
        if (p->cells[i].pc)
            tab[cell_index(tab, cap, p->cells[i].pc, p->cells[i].node)] = p->cells[i];
    free(p->cells);
    p->cells = tab;
    p->capcells = cap;
    memset(p->near, 0, sizeof p->near);
    return true;
}

static sim_profile_count *count_at(sim_profile *p, uint64_t pc)
{
    uint64_t key = pc ? pc : 1;
    unsigned slot = (unsigned)(key >> 1) & 4095u;
    if (p->near[slot].pc == key && p->near[slot].node == p->cur)
        return &p->cells[p->near[slot].index].c;
    size_t i = cell_index(p->cells, p->capcells, key, p->cur);
    if (p->cells[i].pc) {
        p->near[slot].pc = key;
        p->near[slot].node = p->cur;
        p->near[slot].index = (uint32_t)i;
        return &p->cells[i].c;
    }
    if (2 * (p->ncells + 1) > p->capcells) {
        if (!grow_cells(p)) {
            p->failed = true;
            if (p->ncells + 1 >= p->capcells)
                return NULL;
        }
        i = cell_index(p->cells, p->capcells, key, p->cur);
    }
    p->ncells++;
    p->cells[i].pc = key;
    p->cells[i].node = p->cur;
    return &p->cells[i].c;
}

static size_t stretch_index(const stretch *tab, size_t cap, uint64_t pc, uint32_t at,
                            uint32_t n)
{
    size_t mask = cap - 1;
    for (size_t i = (size_t)mix(pc ^ (uint64_t)at << 44 ^ (uint64_t)n << 36) & mask;;
         i = (i + 1) & mask)
        if (!tab[i].pc || (tab[i].pc == pc && tab[i].node == at && tab[i].n == n))
            return i;
}

/* The stretch of the n passing instructions at pcs (costs) under the
 * current node, made on first use; NULL when memory is lacking. */
static stretch *stretch_at(sim_profile *p, const uint64_t *pcs, const uint32_t *costs,
                           uint32_t n)
{
    uint64_t pc = pcs[0];
    unsigned slot = (unsigned)(pc >> 1) & 1023u;
    if (p->near_stretch[slot].pc == pc && p->near_stretch[slot].node == p->cur &&
        p->near_stretch[slot].n == n)
        return &p->stretches[p->near_stretch[slot].index];
    size_t i = stretch_index(p->stretches, p->capstretches, pc, p->cur, n);
    if (!p->stretches[i].pc) {
        if (2 * (p->nstretches + 1) > p->capstretches) {
            size_t cap = 2 * p->capstretches;
            stretch *tab = calloc(cap, sizeof *tab);
            if (!tab) {
                p->failed = true;
                return NULL;
            }
            for (size_t k = 0; k < p->capstretches; k++)
                if (p->stretches[k].pc)
                    tab[stretch_index(tab, cap, p->stretches[k].pc, p->stretches[k].node,
                                      p->stretches[k].n)] = p->stretches[k];
            free(p->stretches);
            p->stretches = tab;
            p->capstretches = cap;
            memset(p->near_stretch, 0, sizeof p->near_stretch);
            i = stretch_index(p->stretches, p->capstretches, pc, p->cur, n);
        }
        if (p->npool + n > p->cappool) {
            size_t cap = p->cappool ? 2 * p->cappool : 1024;
            while (cap < p->npool + n)
                cap *= 2;
            pooled *pool = realloc(p->pool, cap * sizeof *pool);
            if (!pool) {
                p->failed = true;
                return NULL;
            }
            p->pool = pool;
            p->cappool = cap;
        }
        for (uint32_t k = 0; k < n; k++)
            p->pool[p->npool + k] = (pooled){pcs[k], costs[k]};
        p->stretches[i] = (stretch){pc, p->cur, n, (uint32_t)p->npool, 0};
        p->npool += n;
        p->nstretches++;
    }
    p->near_stretch[slot].pc = pc;
    p->near_stretch[slot].node = p->cur;
    p->near_stretch[slot].n = n;
    p->near_stretch[slot].index = (uint32_t)i;
    return &p->stretches[i];
}

static sim_profile_count *bucket_at(sim_profile *p, uint64_t cluster_cycle)
{
    size_t k = (size_t)(cluster_cycle / SIM_PROFILE_BUCKET_CYCLES);
    if (k + 1 == p->last_bucket)
        return &p->buckets[k];
    if (k >= p->capbuckets) {
        size_t cap = p->capbuckets ? p->capbuckets : 256;
        while (cap <= k)
            cap *= 2;
        sim_profile_count *b = realloc(p->buckets, cap * sizeof *b);
        if (!b) {
            p->failed = true;
            return NULL;
        }
        memset(b + p->capbuckets, 0, (cap - p->capbuckets) * sizeof *b);
        p->buckets = b;
        p->capbuckets = cap;
    }
    if (k + 1 > p->nbuckets)
        p->nbuckets = k + 1;
    p->last_bucket = k + 1;
    return &p->buckets[k];
}

static void add(sim_profile_count *to, const sim_profile_count *d)
{
    to->cycles += d->cycles;
    to->instructions += d->instructions;
    to->memory_stall_cycles += d->memory_stall_cycles;
    to->traps += d->traps;
}

/* ---- the run ------------------------------------------------------------------ */

static bool is_link(unsigned r)
{
    return r == 1 || r == 5;
}

/* The decoded entry the hart ran at pc (its checks skipped), or NULL. */
static const sim_insn *entry_of(const sim_hart *h, uint64_t pc)
{
    uint64_t off = pc - h->code_base;
    if (off >= h->code_size || (pc & 1))
        return NULL;
    const sim_insn *e = h->icache->map[off >> 1];
    while (e && (e->op == SIM_OP_PROBE || e->op == SIM_OP_TRIGGER || e->op == SIM_OP_PMP))
        e++;
    return e;
}

/* The stack after the instruction at pc (entry d) retired, the hart now
 * at its next pc. */
static void follow(sim_profile *p, const sim_hart *h, uint64_t pc, const sim_insn *d)
{
    uint64_t ret = pc + d->len;
    if (d->op == SIM_OP_JAL) {
        if (is_link(d->rd))
            push(p, pc, ret);
    } else if (d->op == SIM_OP_JALR) {
        bool rd = is_link(d->rd), rs = is_link(d->rs1);
        if (rd && rs && d->rd != d->rs1) {
            pop(p, h->pc);
            push(p, pc, ret);
        } else if (rd) {
            push(p, pc, ret);
        } else if (rs) {
            pop(p, h->pc);
        }
    } else if (d->op == SIM_OP_MRET) {
        pop_trap(p);
    }
}

/* Records a step of the period (its cell's key: the stack as it ran). */
static void tape(sim_profile *p, uint64_t pc, uint32_t n, const sim_profile_count *d)
{
    if (p->ntape == p->captape) {
        size_t cap = p->captape ? 2 * p->captape : 64;
        tape_step *t = realloc(p->tape, cap * sizeof *t);
        if (!t) {
            p->failed = true;
            p->taping = false;
            return;
        }
        p->tape = t;
        p->captape = cap;
    }
    p->tape[p->ntape++] = (tape_step){pc, p->cur, n, *d};
}

static void add_times(sim_profile_count *to, const sim_profile_count *d, uint64_t k)
{
    to->cycles += k * d->cycles;
    to->instructions += k * d->instructions;
    to->memory_stall_cycles += k * d->memory_stall_cycles;
    to->traps += k * d->traps;
}

/* Whether a run (sim_profile_run) may go on past entry d: its cost is
 * its static cost alone (no memory, FP, vector or CSR latency), it cannot
 * trap, and the hart goes on to the block's next entry (an ALU op, lui,
 * auipc, a multiply or divide, a jump that links nothing and whose block
 * goes on at its target). */
static bool passes(const sim_insn *d)
{
    unsigned op = d->op;
    if (op == SIM_OP_NOP || op == SIM_OP_LUI || op == SIM_OP_AUIPC)
        return true;
    if ((op >= SIM_OP_ADDI && op <= SIM_OP_REMUW) || (op >= SIM_OP_SH1ADD && op <= SIM_OP_REV8))
        return true;
    return op == SIM_OP_JAL && !is_link(d->rd) &&
           d[1].pc == d->pc + (uint64_t)(int64_t)d->imm && d[1].op != SIM_OP_BLOCK_END;
}

static bool is_check_op(unsigned op)
{
    return op == SIM_OP_PROBE || op == SIM_OP_TRIGGER || op == SIM_OP_PMP;
}

/* What one instruction of a run spent, where: into its cell, its
 * bucket, the tape. */
static void spent(sim_profile *p, uint64_t pc, uint64_t cluster_cycle, const sim_profile_count *d)
{
    sim_profile_count *c = count_at(p, pc);
    if (c)
        add(c, d);
    sim_profile_count *b = bucket_at(p, cluster_cycle);
    if (b)
        add(b, d);
    if (p->taping)
        tape(p, pc, 0, d);
}

/* A stretch of passing instructions ran once (their static costs, `cost`
 * in all, from cluster_cycle on). */
static void passed(sim_profile *p, const uint64_t *pcs, const uint32_t *costs, uint32_t n,
                   uint64_t cost, uint64_t cluster_cycle)
{
    stretch *s = stretch_at(p, pcs, costs, n);
    if (!s)
        return;
    s->execs++;
    const sim_profile_count d = {cost, n, 0, 0};
    sim_profile_count *b = bucket_at(p, cluster_cycle);
    if (b)
        add(b, &d);
    if (p->taping)
        tape(p, pcs[0], n, &d);
}

#define RUN_MAX 32 /* a block's instructions at most (SIM_BLOCK_MAX) */

/* Runs of instructions: from the hart's pc, the entries of its decoded
 * block that pass (each costs its static cost, traps never, and goes on
 * to the next), and the one after them, in one sim_hart_run whose limit
 * lets exactly those start: every cycle beyond the static ones (memory,
 * FP latency, a trap) is the last one's.  So each instruction gets what
 * it spent, as stepping one at a time would give, at a fraction of the
 * calls.  A pc not decoded yet, or behind a check (a probe, a trigger, a
 * PMP fetch check), is stepped alone. */
void sim_profile_run(sim_profile *p, struct sim_hart *h, uint64_t until_cycle, uint64_t offset)
{
    uint64_t pcs[RUN_MAX];
    uint32_t costs[RUN_MAX];
    while (h->state == SIM_HART_RUNNING && h->cycle < until_cycle && h->icache) {
        uint64_t pc = h->pc, cycle = h->cycle, instret = h->instret;
        uint64_t mem = h->mem_cycles, traps = h->traps;
        uint64_t off = pc - h->code_base;
        const sim_insn *e = off < h->code_size && !(pc & 1) ? h->icache->map[off >> 1] : NULL;
        unsigned n = 0;
        uint64_t start = cycle; /* the next one's start */
        sim_insn last = {0};
        if (e && !is_check_op(e->op) && pc && !p->step) { /* (a stretch keys on a pc not 0) */
            for (;;) {
                uint32_t cost = e->cost_rest - e[1].cost_rest;
                pcs[n] = e->pc;
                costs[n++] = cost;
                if (!passes(e) || n == RUN_MAX || is_check_op(e[1].op) ||
                    e[1].op == SIM_OP_BLOCK_END || start + cost >= until_cycle)
                    break;
                start += cost;
                e++;
            }
            last = *e;
        }
        sim_hart_run(h, n ? start + 1 : cycle + 1);
        sim_profile_count d = {h->cycle - cycle, h->instret - instret, h->mem_cycles - mem,
                               h->traps - traps};
        if (n > 1 && d.instructions + d.traps >= n && d.cycles >= start - cycle) {
            /* each passing one: its static cost; the last: the rest */
            uint64_t at = start;
            passed(p, pcs, costs, n - 1, start - cycle, cycle + offset);
            d.cycles -= at - cycle;
            d.instructions -= n - 1;
            pc = pcs[n - 1];
            spent(p, pc, at + offset, &d);
        } else {
            spent(p, pc, cycle + offset, &d);
            if (n > 1) /* not as the block said (never expected): no stack change */
                continue;
        }
        if (d.traps) {
            push(p, pc | SIM_PROFILE_TRAP_FRAME, pc);
        } else if (d.instructions) {
            const sim_insn *f = n ? &last : entry_of(h, pc);
            if (f && (f->op == SIM_OP_JAL || f->op == SIM_OP_JALR || f->op == SIM_OP_MRET))
                follow(p, h, pc, f);
        }
    }
}

/* A proven idle loop skipped (sim_hart_idle_skip's promise: the prefix
 * and k periods, each the same instructions on the same path, at the same
 * cost), profiled exactly: the prefix and the first period stepped, the
 * first period's steps recorded, and the other k - 1 periods added as k -
 * 1 times those steps, under the stacks they ran in (a period leaves the
 * stack as it found it: its calls return within it; a trap loop's turns,
 * which never return, count under the first turn's stack).  Then the
 * hart is where sim_hart_idle_skip leaves it.  In the time buckets each
 * skipped period counts whole in the bucket it starts in. */
uint64_t sim_profile_idle_skip(sim_profile *p, struct sim_hart *h, const struct sim_idle *idle,
                               uint64_t until_cycle, uint64_t offset)
{
    if (p->step)
        return 0; /* the caller steps every period */
    sim_hart after = *h; /* the skip, worked out on a copy */
    uint64_t k = sim_hart_idle_skip(&after, idle, until_cycle);
    if (k == 0)
        return 0;
    uint64_t start = h->cycle;
    sim_profile_run(p, h, start + idle->prefix_cycles, offset);
    p->ntape = 0;
    p->taping = true;
    sim_profile_run(p, h, start + idle->prefix_cycles + idle->period_cycles, offset);
    bool taped = p->taping;
    p->taping = false;
    if (!taped || h->state != SIM_HART_RUNNING || h->pc != idle->pc ||
        h->cycle != start + idle->prefix_cycles + idle->period_cycles)
        return 1; /* what ran was stepped: the caller steps on */
    memcpy(h->x, after.x, sizeof h->x);
    h->pc = after.pc;
    h->cycle = after.cycle;
    h->instret = after.instret;
    h->mem_cycles = after.mem_cycles;
    h->traps = after.traps;
    uint32_t cur = p->cur;
    for (size_t i = 0; i < p->ntape; i++) {
        const tape_step *t = &p->tape[i];
        p->cur = t->node;
        if (t->n) { /* a stretch: made when it ran */
            size_t at = stretch_index(p->stretches, p->capstretches, t->pc, t->node, t->n);
            if (p->stretches[at].pc)
                p->stretches[at].execs += k - 1;
            continue;
        }
        sim_profile_count *c = count_at(p, t->pc);
        if (c)
            add_times(c, &t->c, k - 1);
    }
    p->cur = cur;
    const sim_profile_count period = {idle->period_cycles, idle->period_instret,
                                      idle->period_mem_cycles, idle->period_traps};
    uint64_t first = start + offset + idle->prefix_cycles + idle->period_cycles;
    for (uint64_t j = 0; j < k - 1;) { /* period j + 1 starts at first + j * period */
        uint64_t s = first + j * idle->period_cycles;
        uint64_t room = (s / SIM_PROFILE_BUCKET_CYCLES + 1) * SIM_PROFILE_BUCKET_CYCLES - s;
        uint64_t n = (room - 1) / idle->period_cycles + 1; /* those starting in s's bucket */
        if (n > k - 1 - j)
            n = k - 1 - j;
        sim_profile_count *b = bucket_at(p, s);
        if (b)
            add_times(b, &period, n);
        j += n;
    }
    return k;
}

/* ---- reading it ----------------------------------------------------------------- */

/* The frames of node k, leaf pc last, into frames; their count. */
static unsigned frames_of(const sim_profile *p, uint32_t k, uint64_t pc, uint64_t *frames)
{
    unsigned depth = p->nodes[k].depth;
    unsigned n = depth + 1;
    frames[depth] = pc == 1 ? 0 : pc;
    for (; k; k = p->nodes[k].parent)
        frames[--depth] = p->nodes[k].site;
    return n;
}

void sim_profile_each(const sim_profile *p, sim_profile_row_fn *fn, void *ctx)
{
    uint64_t frames[SIM_PROFILE_MAX_DEPTH + 1];
    for (size_t i = 0; i < p->capcells; i++) {
        const cell *c = &p->cells[i];
        if (c->pc)
            fn(ctx, frames, frames_of(p, c->node, c->pc, frames), &c->c);
    }
    for (size_t i = 0; i < p->capstretches; i++) {
        const stretch *s = &p->stretches[i];
        for (uint32_t k = 0; s->pc && k < s->n; k++) {
            const pooled *q = &p->pool[s->first + k];
            const sim_profile_count c = {s->execs * q->cost, s->execs, 0, 0};
            fn(ctx, frames, frames_of(p, s->node, q->pc, frames), &c);
        }
    }
}

const sim_profile_count *sim_profile_buckets(const sim_profile *p, size_t *n)
{
    *n = p->nbuckets;
    return p->buckets;
}
