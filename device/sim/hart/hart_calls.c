/* hart_calls: a core's shadow call stack, kept as a tree of the calls
 * seen (hart_internal.h, sim_calls; sim_profile.h says how each jump
 * moves it): the profile's stacks are its nodes. */
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"
#include "sim_profile.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

bool sim_calls_init(sim_calls *c)
{
    memset(c, 0, sizeof *c);
    c->capnodes = 64;
    c->capchildren = 128;
    c->nodes = calloc(c->capnodes, sizeof *c->nodes);
    c->children = calloc(c->capchildren, sizeof *c->children);
    if (!c->nodes || !c->children) {
        sim_calls_free(c);
        return false;
    }
    c->nnodes = 1; /* the root */
    return true;
}

void sim_calls_free(sim_calls *c)
{
    free(c->nodes);
    free(c->children);
    memset(c, 0, sizeof *c);
}

static uint32_t *child_slot(uint32_t *tab, uint32_t cap, const sim_call_node *nodes,
                            uint32_t parent, uint64_t site)
{
    uint32_t mask = cap - 1;
    for (uint32_t i = (uint32_t)mix(site ^ (uint64_t)parent << 40) & mask;; i = (i + 1) & mask) {
        uint32_t k = tab[i];
        if (!k || (nodes[k - 1].parent == parent && nodes[k - 1].site == site))
            return &tab[i];
    }
}

static bool grow_children(sim_calls *c)
{
    uint32_t cap = c->capchildren * 2;
    uint32_t *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return false;
    for (uint32_t n = 1; n < c->nnodes; n++)
        *child_slot(tab, cap, c->nodes, c->nodes[n].parent, c->nodes[n].site) = n + 1;
    free(c->children);
    c->children = tab;
    c->capchildren = cap;
    return true;
}

/* The child of the current node entered at `site`, returning to `ret`. */
static void push(sim_calls *c, uint64_t site, uint64_t ret)
{
    if (c->unseen || c->nodes[c->cur].depth >= SIM_PROFILE_MAX_DEPTH) {
        c->unseen++;
        return;
    }
    uint32_t *slot = child_slot(c->children, c->capchildren, c->nodes, c->cur, site);
    if (*slot) {
        c->cur = *slot - 1;
        return;
    }
    if (c->nnodes + 1 > c->capnodes) {
        sim_call_node *n = realloc(c->nodes, 2 * c->capnodes * sizeof *n);
        if (!n) {
            c->failed = true;
            c->unseen++;
            return;
        }
        c->nodes = n;
        c->capnodes *= 2;
    }
    uint32_t k = c->nnodes++;
    c->nodes[k] = (sim_call_node){c->cur, site, ret, c->nodes[c->cur].depth + 1};
    if (2 * c->nnodes > c->capchildren) {
        if (!grow_children(c))
            c->failed = true; /* the table still has room: it was half full */
        slot = child_slot(c->children, c->capchildren, c->nodes, c->cur, site);
    }
    *slot = k + 1;
    c->cur = k;
}

/* Whether node n has a child called from the call site just before
 * `target` (a 4- or 2-byte call that returns there). */
static bool called_before(const sim_calls *c, uint32_t n, uint64_t target)
{
    for (unsigned len = 2; len <= 4; len += 2) {
        uint32_t k = *child_slot(c->children, c->capchildren, c->nodes, n, target - len);
        if (k && c->nodes[k - 1].ret == target)
            return true;
    }
    return false;
}

/* A return to `target`: to the caller of the frame that returns there
 * when one on the stack does (the innermost such: a return, or an unwind
 * past frames that never returned); else to the frame on the stack that
 * once made a call returning there (a longjmp back to where setjmp,
 * returned since, was called); else one frame out. */
static void pop(sim_calls *c, uint64_t target)
{
    if (c->unseen) {
        c->unseen--;
        return;
    }
    for (uint32_t n = c->cur; n; n = c->nodes[n].parent) {
        if (c->nodes[n].ret == target) {
            c->cur = c->nodes[n].parent;
            return;
        }
    }
    for (uint32_t n = c->cur;; n = c->nodes[n].parent) {
        if (called_before(c, n, target)) {
            c->cur = n;
            return;
        }
        if (!n)
            break;
    }
    if (c->cur)
        c->cur = c->nodes[c->cur].parent;
}

/* mret: out through the innermost trap frame (none: nothing). */
static void pop_trap(sim_calls *c)
{
    c->unseen = 0;
    for (uint32_t n = c->cur; n; n = c->nodes[n].parent) {
        if (c->nodes[n].site & SIM_PROFILE_TRAP_FRAME) {
            c->cur = c->nodes[n].parent;
            return;
        }
    }
}

static bool is_link(unsigned r)
{
    return r == 1 || r == 5;
}

/* The stack after a jump at pc (op, rd, rs1, len as decoded) retired,
 * the hart going on at next. */
void sim_calls_jump(sim_calls *c, uint64_t pc, unsigned op, unsigned rd, unsigned rs1,
                   unsigned len, uint64_t next)
{
    uint64_t ret = pc + len;
    if (op == SIM_OP_JAL) {
        if (is_link(rd))
            push(c, pc, ret);
    } else if (op == SIM_OP_JALR) {
        bool lrd = is_link(rd), lrs = is_link(rs1);
        if (lrd && lrs && rd != rs1) {
            pop(c, next);
            push(c, pc, ret);
        } else if (lrd) {
            push(c, pc, ret);
        } else if (lrs) {
            pop(c, next);
        }
    } else if (op == SIM_OP_MRET) {
        pop_trap(c);
    }
}

/* The frames of node k, leaf pc last, into frames; their count. */
unsigned sim_calls_frames(const sim_calls *c, uint32_t k, uint64_t pc, uint64_t *frames)
{
    unsigned depth = c->nodes[k].depth;
    unsigned n = depth + 1;
    frames[depth] = pc == 1 ? 0 : pc;
    for (; k; k = c->nodes[k].parent)
        frames[--depth] = c->nodes[k].site;
    return n;
}


/* A trap at pc: the trapping instruction's frame. */
void sim_calls_trap(sim_calls *c, uint64_t pc)
{
    push(c, pc | SIM_PROFILE_TRAP_FRAME, pc);
}
