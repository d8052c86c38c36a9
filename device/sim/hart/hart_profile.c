/* hart_profile: a core's exact profile (sim_profile.h).
 *
 * A profiled hart runs in a copy of the hot loop (hart_run.h, compiled
 * here: it interprets, translated code having no place for a note) that
 * notes where the hart is at each instruction that may cost more than its
 * static cost, trap or move the stack, and at each block it enters.  What
 * the hart's cycle, instret, mem_cycles and traps moved since the last
 * note belongs to the instruction noted there and the plain ones after it
 * (ALU ops, which cost their static cost alone and go on to the next),
 * and is split so: each plain one its static cost, the noted one the
 * rest, under the shadow call stack as it was.  So the profile's sums are
 * the hart's counters, exactly, with each instruction's share its own;
 * nothing else moves them while the hart runs.  An idle proof's skipped
 * periods count as the first one again (sim_profile_idle_skip).
 *
 * The call stacks are nodes of a call tree (a node: its parent and the
 * call site that entered it), found through a hash of (parent, site);
 * the counts, in a hash of (node, pc).  The stack itself is the current
 * node: a push finds or makes the child, a pop goes to the parent. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hart_internal.h"
#include "ks_grow.h"
#include "sim_profile.h"

/* One step of a period being recorded (sim_profile_idle_skip): a cell's
 * counts (n 0), or a stretch's run (n its instructions; what they spent
 * beyond their static costs taped as their cells' steps). */
typedef struct tape_step {
    uint64_t pc;
    uint32_t node, n;
    sim_profile_count c;
} tape_step;

/* A stretch: the n instructions of a block that start at pc under a node,
 * run through, `execs` times (sim_profile_run's notes).  Each costs its
 * static cost, and what its memory accesses and vector beats added: at
 * pool[first ..], an instruction each. */
typedef struct stretch {
    uint64_t pc; /* 0: empty */
    uint32_t node, n, first;
    uint64_t execs;
} stretch;

typedef struct pooled {
    uint64_t pc;
    uint64_t cost;       /* static */
    uint64_t extra, mem; /* in all: beyond the static costs, of it memory stalls */
} pooled;

/* The two direct-mapped caches in front of the tables, 224 KiB: mapped
 * apart from the profile, zero pages until a core's run touches them (a
 * small program touches a few, a core that never runs none) and handed
 * back to the kernel, not cleared, when the profile starts again. */
#define NEAR_SLOTS 4096
typedef struct nears {
    /* Cells by pc (the hash's index; emptied when the hash grows), which
     * the hot loops of a program hit. */
    struct {
        uint64_t pc;
        uint32_t node, index;
    } cell[NEAR_SLOTS];
    /* Stretches by (pc, node, n), which hold what they ran since they
     * took them (added to the table when a slot lets one go, and by the
     * readers as it is): a run's hot loops touch these lines only. */
    struct near_stretch {
        uint64_t pc; /* 0: empty */
        uint32_t node, n, index, first;
        uint64_t execs;
    } stretch[NEAR_SLOTS];
} nears;

typedef struct cell {
    uint64_t pc; /* 0: empty (pc 0 is never code: its cell keys on 1) */
    uint32_t node;
    sim_profile_count c;
} cell;

struct sim_profile {
    sim_calls calls; /* the stack: calls.cur its innermost node */
    cell *cells;
    size_t ncells, capcells;
    sim_profile_count *buckets;
    size_t nbuckets, capbuckets;
    nears *near; /* mapped apart: its pages cost only when touched */
    size_t last_bucket; /* the bucket the last step went to, +1 (0: none) */
    stretch *stretches; /* hash of (pc, node, n) */
    size_t nstretches, capstretches;
    pooled *pool;
    size_t npool, cappool;
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
    sim_calls_free(&p->calls);
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
    if (p->near)
        munmap(p->near, sizeof *p->near);
    free(p);
}

/* The near caches, empty: mapped the first time, else their pages given
 * back (zero again when next touched). */
static nears *empty_nears(nears *n)
{
    if (!n) {
        void *m = mmap(NULL, sizeof *n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return m == MAP_FAILED ? NULL : m;
    }
    if (madvise(n, sizeof *n, MADV_DONTNEED) != 0)
        memset(n, 0, sizeof *n);
    return n;
}

void sim_profile_clear(sim_profile *p)
{
    release(p);
    nears *near = empty_nears(p->near);
    memset(p, 0, sizeof *p);
    p->near = near;
    p->capcells = 1024;
    bool calls = sim_calls_init(&p->calls);
    p->cells = calloc(p->capcells, sizeof *p->cells);
    p->capstretches = 256;
    p->stretches = calloc(p->capstretches, sizeof *p->stretches);
    p->failed = !calls || !p->cells || !p->stretches || !p->near;
    /* The reference the stretches and the idle skips must equal (the
     * tests compare): each instruction stepped alone. */
    const char *how = getenv("KMRUN_PROFILE");
    p->step = how && strcmp(how, "step") == 0;
}

bool sim_profile_failed(const sim_profile *p)
{
    return p->failed || p->calls.failed;
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
    memset(p->near->cell, 0, sizeof p->near->cell);
    return true;
}

static sim_profile_count *count_at(sim_profile *p, uint64_t pc)
{
    uint64_t key = pc ? pc : 1;
    unsigned slot = (unsigned)(key >> 1) & (NEAR_SLOTS - 1);
    if (p->near->cell[slot].pc == key && p->near->cell[slot].node == p->calls.cur)
        return &p->cells[p->near->cell[slot].index].c;
    size_t i = cell_index(p->cells, p->capcells, key, p->calls.cur);
    if (p->cells[i].pc) {
        p->near->cell[slot].pc = key;
        p->near->cell[slot].node = p->calls.cur;
        p->near->cell[slot].index = (uint32_t)i;
        return &p->cells[i].c;
    }
    if (2 * (p->ncells + 1) > p->capcells) {
        if (!grow_cells(p)) {
            p->failed = true;
            if (p->ncells + 1 >= p->capcells)
                return NULL;
        }
        i = cell_index(p->cells, p->capcells, key, p->calls.cur);
    }
    p->ncells++;
    p->cells[i].pc = key;
    p->cells[i].node = p->calls.cur;
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

/* What a near slot holds, into its stretch; the slot keeps the stretch. */
static void settle_near(sim_profile *p, struct near_stretch *q)
{
    if (q->pc && q->execs)
        p->stretches[q->index].execs += q->execs;
    q->execs = 0;
}

/* The near slot of the stretch of the n instructions from entry e under
 * the current node (made on first use); NULL when memory is lacking. */
static inline struct near_stretch *stretch_at(sim_profile *p, const sim_insn *e, uint32_t n)
{
    uint64_t pc = e->pc;
    /* (a loop's stretches on lines near each other) */
    unsigned slot = (unsigned)((pc >> 1) + n + p->calls.cur * 64u) & (NEAR_SLOTS - 1);
    struct near_stretch *q = &p->near->stretch[slot];
    if (q->pc == pc && q->node == p->calls.cur && q->n == n)
        return q;
    settle_near(p, q);
    size_t i = stretch_index(p->stretches, p->capstretches, pc, p->calls.cur, n);
    if (!p->stretches[i].pc) {
        if (2 * (p->nstretches + 1) > p->capstretches) {
            size_t cap = 2 * p->capstretches;
            stretch *tab = calloc(cap, sizeof *tab);
            if (!tab) {
                p->failed = true;
                return NULL;
            }
            for (size_t k = 0; k < NEAR_SLOTS; k++) /* (their indexes change) */
                settle_near(p, &p->near->stretch[k]);
            for (size_t k = 0; k < p->capstretches; k++)
                if (p->stretches[k].pc)
                    tab[stretch_index(tab, cap, p->stretches[k].pc, p->stretches[k].node,
                                      p->stretches[k].n)] = p->stretches[k];
            free(p->stretches);
            p->stretches = tab;
            p->capstretches = cap;
            memset(p->near->stretch, 0, sizeof p->near->stretch);
            i = stretch_index(p->stretches, p->capstretches, pc, p->calls.cur, n);
        }
        if (!KS_GROW(p->pool, p->cappool, p->npool + n)) {
            p->failed = true;
            return NULL;
        }
        for (uint32_t k = 0; k < n; k++)
            p->pool[p->npool + k] =
                (pooled){e[k].pc, e[k].cost_rest - e[k + 1].cost_rest, 0, 0};
        p->stretches[i] = (stretch){pc, p->calls.cur, n, (uint32_t)p->npool, 0};
        p->npool += n;
        p->nstretches++;
    }
    *q = (struct near_stretch){pc, p->calls.cur, n, (uint32_t)i, p->stretches[i].first, 0};
    return q;
}

static inline sim_profile_count *bucket_at(sim_profile *p, uint64_t cluster_cycle)
{
    size_t k = (size_t)(cluster_cycle / SIM_PROFILE_BUCKET_CYCLES);
    if (k + 1 == p->last_bucket)
        return &p->buckets[k];
    if (!KS_GROW_ZEROED(p->buckets, p->capbuckets, k + 1)) {
        p->failed = true;
        return NULL;
    }
    if (k + 1 > p->nbuckets)
        p->nbuckets = k + 1;
    p->last_bucket = k + 1;
    return &p->buckets[k];
}

/* What ran from cluster_cycle on, into its bucket. */
static inline void in_bucket(sim_profile *p, uint64_t cluster_cycle, uint64_t cycles,
                             uint64_t instructions, uint64_t stalls)
{
    sim_profile_count *b = bucket_at(p, cluster_cycle);
    if (b) {
        b->cycles += cycles;
        b->instructions += instructions;
        b->memory_stall_cycles += stalls;
    }
}

static void add(sim_profile_count *to, const sim_profile_count *d)
{
    to->cycles += d->cycles;
    to->instructions += d->instructions;
    to->memory_stall_cycles += d->memory_stall_cycles;
    to->traps += d->traps;
}

/* ---- the run ------------------------------------------------------------------ */

/* Records a step of the period (its cell's key: the stack as it ran). */
static void tape(sim_profile *p, uint64_t pc, uint32_t n, const sim_profile_count *d)
{
    if (!KS_GROW(p->tape, p->captape, p->ntape + 1)) {
        p->failed = true;
        p->taping = false;
        return;
    }
    p->tape[p->ntape++] = (tape_step){pc, p->calls.cur, n, *d};
}

static void add_times(sim_profile_count *to, const sim_profile_count *d, uint64_t k)
{
    to->cycles += k * d->cycles;
    to->instructions += k * d->instructions;
    to->memory_stall_cycles += k * d->memory_stall_cycles;
    to->traps += k * d->traps;
}

static inline bool is_check_op(unsigned op)
{
    return op == SIM_OP_PROBE || op == SIM_OP_TRIGGER || op == SIM_OP_PMP;
}


/* What instruction pc spent beyond a stretch's share: into its cell and
 * the tape (not the buckets: the run's note counts it there). */
static void charge(sim_profile *p, uint64_t pc, const sim_profile_count *d)
{
    sim_profile_count *c = count_at(p, pc);
    if (c)
        add(c, d);
    if (p->taping)
        tape(p, pc, 0, d);
}

/* What one instruction spent from cluster_cycle on, where: its cell, its
 * bucket, the tape. */
static void spent(sim_profile *p, uint64_t pc, uint64_t cluster_cycle, const sim_profile_count *d)
{
    charge(p, pc, d);
    sim_profile_count *b = bucket_at(p, cluster_cycle);
    if (b)
        add(b, d);
}

/* ---- the run: the hot loop's profiled copy ----------------------------------- */

/* The copy notes where the hart is at each entry it enters a block at,
 * at each check entry and at each jal whose block goes on at its target
 * (a call's first instruction is the callee's), and settles what ran
 * before it goes to find an entry (dispatch) and when it leaves.  What
 * retired in between is the noted instruction and those after it in its
 * block: each costs its static cost and what its memory access or vector
 * beats added (RUN_LAT), moves no stack but the last, and goes on to the
 * next, leaves the block, or traps (a note). */

/* The last note of a profiled run: the entry it was at and the hart's
 * counters as of its instruction's start (its pc, and what it is for the
 * stack, when a trap is noted: e NULL); what the instructions from e on
 * added beyond their static costs, by their place after e (bit k of
 * `added`: lat[k] and mem[k] hold some). */
typedef struct noted {
    const sim_insn *e;
    uint64_t pc, cycle, instret, mem, traps;
    uint32_t added;
    bool open;
    uint64_t lat_sum, mem_sum; /* of lat[] and memlat[] */
    /* A loop folded into the note (fold): `iters` passes of `kloop`
     * instructions from e back to e, the last of them ending at
     * instret `mark`. */
    uint64_t iters, mark;
    uint32_t kloop;
    uint64_t lat[SIM_BLOCK_MAX], memlat[SIM_BLOCK_MAX];
} noted;

static bool is_jump(unsigned op)
{
    return op == SIM_OP_JAL || op == SIM_OP_JALR || op == SIM_OP_MRET;
}

/* What the instructions at places [from, to) after n's entry added, into
 * the pool entries of their stretch (its first at place `from`) and the
 * tape. */
static void add_added(sim_profile *p, const noted *n, uint32_t pool, uint32_t from, uint32_t to)
{
    for (uint32_t bits = n->added >> from; bits; bits &= bits - 1) {
        uint32_t i = (uint32_t)__builtin_ctz(bits) + from;
        if (i >= to)
            break;
        pooled *o = &p->pool[pool + (i - from)];
        o->extra += n->lat[i];
        o->mem += n->memlat[i];
        if (p->taping) {
            const sim_profile_count x = {n->lat[i], 0, n->memlat[i], 0};
            tape(p, n->e[i].pc, 0, &x);
        }
    }
}

/* The k instructions from n's entry retired, spending d: a stretch, each
 * its static cost and what it added, under the stack as it was (but a jal
 * that links and whose block goes on at its target: its own stretch, the
 * rest the callee's), the stack moved by the jumps among them (the first,
 * a jal, and the last).  The cycles d holds beyond are the next
 * instruction's, which did not retire (it trapped: the trap's note has
 * the rest). */
static void retired_all(sim_profile *p, const noted *n, uint32_t k, uint64_t cycles,
                        uint64_t stalls, uint64_t next, uint64_t offset)
{
    const sim_insn *e = n->e;
    uint32_t first = e->op == SIM_OP_JAL && k > 1 ? 1 : k;
    uint64_t fixed = e->cost_rest - e[k].cost_rest, lat = 0, mem = 0;
    for (uint32_t bits = n->added; bits; bits &= bits - 1) {
        uint32_t i = (uint32_t)__builtin_ctz(bits);
        if (i >= k)
            break;
        lat += n->lat[i];
        mem += n->memlat[i];
    }
    in_bucket(p, n->cycle + offset, cycles, k, stalls);
    struct near_stretch *q = stretch_at(p, e, first);
    if (q) {
        q->execs++;
        if (p->taping)
            tape(p, e->pc, first, &(sim_profile_count){0});
        if (n->added)
            add_added(p, n, q->first, 0, first);
    }
    const sim_insn *j = &e[first - 1];
    if (is_jump(j->op))
        sim_calls_jump(&p->calls, j->pc, j->op, j->rd, j->rs1, j->len,
                       first < k ? e[first].pc : next);
    if (first < k) {
        struct near_stretch *r = stretch_at(p, e + first, k - first);
        if (r) {
            r->execs++;
            if (p->taping)
                tape(p, e[first].pc, k - first, &(sim_profile_count){0});
            if (n->added)
                add_added(p, n, r->first, first, k);
        }
        j = &e[k - 1];
        if (is_jump(j->op))
            sim_calls_jump(&p->calls, j->pc, j->op, j->rd, j->rs1, j->len, next);
    }
    if (cycles > fixed + lat || stalls > mem) {
        const sim_profile_count x = {cycles > fixed + lat ? cycles - fixed - lat : 0, 0,
                                     stalls > mem ? stalls - mem : 0, 0};
        charge(p, e[k].pc, &x);
    }
}

/* retired_all's common case, inline: not a jal that goes on, nothing
 * left over from an instruction that did not retire, the stretch in its
 * near slot. */
static inline __attribute__((always_inline)) void retired(sim_profile *p, const noted *n,
                                                          uint32_t k, uint64_t cycles,
                                                          uint64_t stalls, uint64_t next,
                                                          uint64_t offset)
{
    const sim_insn *e = n->e;
    uint64_t pc = e->pc;
    struct near_stretch *q =
        &p->near->stretch[(unsigned)((pc >> 1) + k + p->calls.cur * 64u) & (NEAR_SLOTS - 1)];
    if (__builtin_expect((e->op == SIM_OP_JAL && k > 1) || (k < 32 && (n->added >> k)) ||
                             q->pc != pc || q->node != p->calls.cur || q->n != k ||
                             cycles != e->cost_rest - e[k].cost_rest + n->lat_sum ||
                             stalls != n->mem_sum || p->taping,
                         0)) {
        retired_all(p, n, k, cycles, stalls, next, offset);
        return;
    }
    q->execs++;
    in_bucket(p, n->cycle + offset, cycles, k, stalls);
    if (n->added)
        add_added(p, n, q->first, 0, k);
    const sim_insn *j = &e[k - 1];
    if (is_jump(j->op))
        sim_calls_jump(&p->calls, j->pc, j->op, j->rd, j->rs1, j->len, next);
}

/* A note with a loop folded in retired k instructions: n->iters passes
 * of n->kloop, then a last pass of the rest (ending as a stretch does).
 * Each place's additions go to the stretch of the last pass when it
 * reached that place, else the loop's (the readers sum by pc and stack),
 * else (the last pass trapped before) to the place's cell. */
static void retired_folded(sim_profile *p, const noted *n, uint64_t k, uint64_t cycles,
                           uint64_t stalls, uint64_t next, uint64_t offset)
{
    const sim_insn *e = n->e;
    uint32_t kl = n->kloop;
    uint64_t tail = k - n->iters * kl;
    in_bucket(p, n->cycle + offset, cycles, k, stalls);
    uint64_t fixed = n->iters * (e->cost_rest - e[kl].cost_rest) +
                     (tail ? e->cost_rest - e[tail].cost_rest : 0);
    /* (a slot's pool index, read at once: the next stretch_at may take
     * the slot; the pool's indexes stay) */
    int64_t loop_first = -1, tail_first = -1;
    struct near_stretch *q = stretch_at(p, e, kl);
    if (q) {
        q->execs += n->iters;
        loop_first = q->first;
    }
    if (tail) {
        struct near_stretch *r = stretch_at(p, e, (uint32_t)tail);
        if (r) {
            r->execs++;
            tail_first = r->first;
        }
    }
    for (uint32_t bits = n->added; bits; bits &= bits - 1) {
        uint32_t i = (uint32_t)__builtin_ctz(bits);
        const sim_profile_count x = {n->lat[i], 0, n->memlat[i], 0};
        int64_t at = i < tail ? tail_first : i < kl ? loop_first : -1;
        if (at >= 0) {
            p->pool[at + i].extra += x.cycles;
            p->pool[at + i].mem += x.memory_stall_cycles;
        } else {
            charge(p, e[i].pc, &x);
        }
    }
    if (tail) {
        const sim_insn *j = &e[tail - 1];
        if (is_jump(j->op))
            sim_calls_jump(&p->calls, j->pc, j->op, j->rd, j->rs1, j->len, next);
    }
    if (cycles > fixed + n->lat_sum || stalls > n->mem_sum) { /* (never expected) */
        const sim_profile_count x = {
            cycles > fixed + n->lat_sum ? cycles - fixed - n->lat_sum : 0, 0,
            stalls > n->mem_sum ? stalls - n->mem_sum : 0, 0};
        charge(p, e->pc, &x);
    }
}

/* What ran since note n, up to the hart's counters given (going on at
 * next): into p. */
static __attribute__((noinline)) void settle(sim_profile *p, noted *n, uint64_t cycle,
                                             uint64_t instret, uint64_t mem, uint64_t traps,
                                             uint64_t next, uint64_t offset)
{
    if (!n->open)
        return;
    n->open = false;
    uint64_t k = instret - n->instret;
    if (n->iters) {
        retired_folded(p, n, k, cycle - n->cycle, mem - n->mem, next, offset);
        return;
    }
    if (k && n->e) {
        retired(p, n, (uint32_t)k, cycle - n->cycle, mem - n->mem, next, offset);
        return;
    }
    const sim_profile_count d = {cycle - n->cycle, k, mem - n->mem, traps - n->traps};
    /* a trap taken (a note with no entry), or nothing that retired */
    if (!(d.cycles | d.instructions | d.traps))
        return;
    spent(p, n->pc, n->cycle + offset, &d);
    if (d.traps)
        sim_calls_trap(&p->calls, n->pc);
}

/* A note at entry e (its instruction at pc; e NULL: a trap taken at pc),
 * the hart's counters as given. */
static inline void note(sim_profile *p, noted *n, const sim_insn *e, uint64_t pc,
                        uint64_t cycle, uint64_t instret, uint64_t mem, uint64_t traps,
                        uint64_t offset)
{
    settle(p, n, cycle, instret, mem, traps, pc, offset);
    n->e = e;
    n->pc = pc;
    n->cycle = cycle;
    n->instret = instret;
    n->mem = mem;
    n->traps = traps;
    n->added = 0;
    n->lat_sum = n->mem_sum = 0;
    n->iters = 0;
    n->mark = instret;
    n->kloop = 0;
    n->open = true;
}

/* A loop: the run enters n's entry e again (the hart as of its start:
 * cycle, instret), after a pass of as many instructions as the passes
 * before, its last a branch or a jump that links nothing, in the same time
 * bucket: the pass folds into the note (settled as iters passes of a
 * stretch, what they added where they added it), instead of a note each
 * turn. */
static inline bool fold(const sim_profile *p, noted *n, const sim_insn *e, uint64_t cycle,
                        uint64_t instret, uint64_t offset)
{
    if (e != n->e || !n->open || p->taping)
        return false;
    uint64_t k = instret - n->mark;
    if (n->iters == 0) {
        if (k == 0 || k > SIM_BLOCK_MAX || e->op == SIM_OP_JAL)
            return false;
        unsigned op = e[k - 1].op;
        bool links = e[k - 1].rd == 1 || e[k - 1].rd == 5;
        if (!(op >= SIM_OP_BEQ && op <= SIM_OP_BGEU) && !(op == SIM_OP_JAL && !links))
            return false;
        n->kloop = (uint32_t)k;
    } else if (k != n->kloop) {
        return false;
    }
    if ((cycle + offset) / SIM_PROFILE_BUCKET_CYCLES !=
        (n->cycle + offset) / SIM_PROFILE_BUCKET_CYCLES)
        return false;
    n->iters++;
    n->mark = instret;
    return true;
}

#define SIM_RUN_SIGNATURE                                                                      \
    static sim_hart_state run_profiled(sim_hart *h, uint64_t until_cycle, sim_profile *prof,   \
                                       uint64_t offset)
#define RUN_TRANSLATED 0
/* (a note from the start: a trap taken before any entry is the pc's) */
#define RUN_LOCALS                                                                             \
    noted noted_;                                                                              \
    noted_.open = false;                                                                       \
    note(prof, &noted_, NULL, h->pc, h->cycle, h->instret, h->mem_cycles, h->traps, offset);
/* A check entry (a probe, a trigger, a PMP fetch check) shares the pc of
 * the instruction after it and costs nothing: the note is that one's. */
#define RUN_NOTE(e)                                                                            \
    do {                                                                                       \
        const sim_insn *n_ = (e);                                                              \
        while (is_check_op(n_->op))                                                            \
            n_++;                                                                              \
        note(prof, &noted_, n_, n_->pc, cycle - n_->cost_rest, instret - n_->n_rest, mcycles,   \
             h->traps, offset);                                                                \
    } while (0)
#define RUN_ENTER(e)                                                                           \
    do {                                                                                       \
        if (!fold(prof, &noted_, (e), cycle - (e)->cost_rest, instret - (e)->n_rest, offset))  \
            RUN_NOTE(e);                                                                       \
    } while (0)
#define RUN_AT(e) RUN_NOTE(e)
#define RUN_DISPATCH(at) settle(prof, &noted_, cycle, instret, mcycles, h->traps, (at), offset)
#define RUN_LAT(c, m)                                                                          \
    do {                                                                                       \
        if (noted_.e) {                                                                        \
            unsigned k_ = (unsigned)(d - noted_.e);                                            \
            if (k_ < SIM_BLOCK_MAX) {                                                          \
                if (!(noted_.added & (1u << k_)))                                              \
                    noted_.lat[k_] = noted_.memlat[k_] = 0;                                    \
                noted_.added |= 1u << k_;                                                      \
                noted_.lat[k_] += (c);                                                         \
                noted_.memlat[k_] += (m);                                                      \
                noted_.lat_sum += (c);                                                         \
                noted_.mem_sum += (m);                                                         \
            }                                                                                  \
        }                                                                                      \
    } while (0)
#define RUN_TRAP_AT(at) note(prof, &noted_, NULL, (at), cycle, instret, mcycles, h->traps, offset)
#define RUN_END()                                                                              \
    settle(prof, &noted_, h->cycle, h->instret, h->mem_cycles, h->traps, h->pc, offset)
#include "hart_run.h"

/* The run, as sim_hart_run(h, until_cycle) would run it: one call of the
 * profiled copy (KMRUN_PROFILE=step: one an instruction, the reference
 * the tests compare it with). */
void sim_profile_run(sim_profile *p, struct sim_hart *h, uint64_t until_cycle, uint64_t offset)
{
    if (!p->step) {
        run_profiled(h, until_cycle, p, offset);
        return;
    }
    while (h->state == SIM_HART_RUNNING && h->cycle < until_cycle && h->icache)
        run_profiled(h, h->cycle + 1, p, offset);
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
    uint32_t cur = p->calls.cur;
    for (size_t i = 0; i < p->ntape; i++) {
        const tape_step *t = &p->tape[i];
        p->calls.cur = t->node;
        if (t->n) { /* a stretch: made when it ran */
            size_t at = stretch_index(p->stretches, p->capstretches, t->pc, t->node, t->n);
            if (p->stretches[at].pc) {
                p->stretches[at].execs += k - 1;
            }
            continue;
        }
        sim_profile_count *c = count_at(p, t->pc);
        if (c)
            add_times(c, &t->c, k - 1);
    }
    p->calls.cur = cur;
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

/* Where the readers' rows go: summed by (node, pc) in `tab` (a table of
 * cells), or, lacking the memory for it, to fn as they are. */
typedef struct sink {
    const sim_profile *p;
    cell *tab;
    size_t cap;
    sim_profile_row_fn *fn;
    void *ctx;
} sink;

static void sink_row(sink *k, uint32_t at, uint64_t pc, const sim_profile_count *c)
{
    if (!(c->cycles | c->instructions | c->traps))
        return;
    if (!k->tab) {
        uint64_t frames[SIM_PROFILE_MAX_DEPTH + 1];
        k->fn(k->ctx, frames, sim_calls_frames(&k->p->calls, at, pc, frames), c);
        return;
    }
    cell *e = &k->tab[cell_index(k->tab, k->cap, pc, at)];
    e->pc = pc;
    e->node = at;
    add(&e->c, c);
}

/* The rows of stretch s, run execs times: each instruction its static
 * cost, and (`added`) what it added beyond in all. */
static void sink_stretch(sink *k, const stretch *s, uint64_t execs, bool added)
{
    for (uint32_t i = 0; i < s->n; i++) {
        const pooled *q = &k->p->pool[s->first + i];
        sim_profile_count c = {execs * q->cost, execs, 0, 0};
        if (added) {
            c.cycles += q->extra;
            c.memory_stall_cycles = q->mem;
        }
        sink_row(k, s->node, q->pc, &c);
    }
}

void sim_profile_each(const sim_profile *p, sim_profile_row_fn *fn, void *ctx)
{
    /* every (node, pc) once: a cell's, or a place in a stretch */
    size_t cap = 64;
    while (cap < 2 * (p->ncells + p->npool))
        cap *= 2;
    sink k = {p, calloc(cap, sizeof(cell)), cap, fn, ctx};
    for (size_t i = 0; i < p->capcells; i++)
        if (p->cells[i].pc)
            sink_row(&k, p->cells[i].node, p->cells[i].pc, &p->cells[i].c);
    for (size_t i = 0; i < p->capstretches; i++)
        if (p->stretches[i].pc)
            sink_stretch(&k, &p->stretches[i], p->stretches[i].execs, true);
    for (size_t i = 0; i < NEAR_SLOTS; i++) { /* what the near slots hold yet */
        const struct near_stretch *q = &p->near->stretch[i];
        if (q->pc && q->execs)
            sink_stretch(&k, &p->stretches[q->index], q->execs, false);
    }
    if (k.tab) {
        uint64_t frames[SIM_PROFILE_MAX_DEPTH + 1];
        for (size_t i = 0; i < k.cap; i++)
            if (k.tab[i].pc)
                fn(ctx, frames, sim_calls_frames(&p->calls, k.tab[i].node, k.tab[i].pc, frames),
                   &k.tab[i].c);
        free(k.tab);
    }
}

const sim_profile_count *sim_profile_buckets(const sim_profile *p, size_t *n)
{
    *n = p->nbuckets;
    return p->buckets;
}
