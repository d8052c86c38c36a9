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

void sim_profile_free(sim_profile *p)
{
    if (!p)
        return;
    free(p->nodes);
    free(p->children);
    free(p->cells);
    free(p->buckets);
    free(p);
}

void sim_profile_clear(sim_profile *p)
{
    free(p->nodes);
    free(p->children);
    free(p->cells);
    free(p->buckets);
    memset(p, 0, sizeof *p);
    p->capnodes = 64;
    p->capchildren = 128;
    p->capcells = 1024;
    p->nodes = calloc(p->capnodes, sizeof *p->nodes);
    p->children = calloc(p->capchildren, sizeof *p->children);
    p->cells = calloc(p->capcells, sizeof *p->cells);
    p->failed = !p->nodes || !p->children || !p->cells;
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

/* A return to `target`: to the caller of the frame that returns there
 * when one does (the innermost such), else one frame out. */
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
    return true;
}

static sim_profile_count *count_at(sim_profile *p, uint64_t pc)
{
    uint64_t key = pc ? pc : 1;
    size_t i = cell_index(p->cells, p->capcells, key, p->cur);
    if (p->cells[i].pc)
        return &p->cells[i].c;
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

static sim_profile_count *bucket_at(sim_profile *p, uint64_t cluster_cycle)
{
    size_t k = (size_t)(cluster_cycle / SIM_PROFILE_BUCKET_CYCLES);
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

void sim_profile_run(sim_profile *p, struct sim_hart *h, uint64_t until_cycle, uint64_t offset)
{
    while (h->state == SIM_HART_RUNNING && h->cycle < until_cycle && h->icache) {
        uint64_t pc = h->pc, cycle = h->cycle, instret = h->instret;
        uint64_t mem = h->mem_cycles, traps = h->traps;
        sim_hart_run(h, cycle + 1);
        sim_profile_count d = {h->cycle - cycle, h->instret - instret, h->mem_cycles - mem,
                               h->traps - traps};
        sim_profile_count *c = count_at(p, pc);
        if (c)
            add(c, &d);
        sim_profile_count *b = bucket_at(p, cycle + offset);
        if (b)
            add(b, &d);
        if (d.traps) {
            push(p, pc | SIM_PROFILE_TRAP_FRAME, pc);
        } else if (d.instructions) {
            const sim_insn *e = entry_of(h, pc);
            if (e && (e->op == SIM_OP_JAL || e->op == SIM_OP_JALR || e->op == SIM_OP_MRET))
                follow(p, h, pc, e);
        }
    }
}

/* ---- reading it ----------------------------------------------------------------- */

void sim_profile_each(const sim_profile *p, sim_profile_row_fn *fn, void *ctx)
{
    uint64_t frames[SIM_PROFILE_MAX_DEPTH + 1];
    for (size_t i = 0; i < p->capcells; i++) {
        const cell *c = &p->cells[i];
        if (!c->pc)
            continue;
        unsigned depth = p->nodes[c->node].depth;
        unsigned n = depth + 1;
        frames[depth] = c->pc == 1 ? 0 : c->pc;
        for (uint32_t k = c->node; k; k = p->nodes[k].parent)
            frames[--depth] = p->nodes[k].site;
        fn(ctx, frames, n, &c->c);
    }
}

const sim_profile_count *sim_profile_buckets(const sim_profile *p, size_t *n)
{
    *n = p->nbuckets;
    return p->buckets;
}
