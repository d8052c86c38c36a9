/* hart_idle: proving that a hart spins in a wait loop, and skipping whole
 * turns of it at once (sim_hart.h, "Idle loops").
 *
 * The proof walks the hart's own decoded entries (the map and the blocks
 * the hot loop runs, so it sees exactly the instructions the hart would)
 * on a copy of its registers, without touching the hart or memory:
 *
 *   1. From the hart's pc to the target of the first backward jump or
 *      taken branch: the loop's head H (the prefix).
 *   2. From H on, the registers at each of the next arrivals at H.
 *   3. For a period of P arrivals (1, 2, 4, 8, 16: the loops of kmx/ look
 *      at the stop every KMX_WAIT_CHECK_EVERY = 8 turns, counting turns),
 *      D = the registers after P arrivals less those at H.  The P turns
 *      are walked once more with every register r carried as "its value
 *      in turn-group 0, plus k * d[r] in group k" (d = D at H), and each
 *      instruction must keep that form for every k up to a bound, with
 *      the same path: a branch or a jump target, a load address, may
 *      depend only on registers whose d is 0; a value may change with k
 *      only through what is exact modulo 2^64 (add, sub, shift left,
 *      sh*add), through a 32-bit add (addw, addiw, sext.w) or zext.w
 *      within the bound that keeps it from wrapping, or vanish from it
 *      (and/andi with a mask below d's lowest set bit: `turn % 8` with d
 *      a multiple of 8).  At the end every register's d must be D again:
 *      then group k + 1 starts where group k ended, for every k up to the
 *      bound, by induction.
 *
 * Anything else ends the proof: a store, an atomic, a CSR (time, cycle),
 * FP, a multiply or divide, a trap, wfi, fence.i, a probe, a load of
 * anything but RAM (a device, the cached window: their counters and
 * times are theirs), a misaligned load.  So a proven loop only loads
 * from RAM at fixed addresses, and its turn-groups cost the same cycles
 * (an instruction's static cost from its block, plus its RAM range's
 * fixed latency) every time, as long as nobody else writes that RAM:
 * the caller's promise (sim_cluster.c keeps it while every hart of the
 * cluster is proven). */
#include <string.h>

#include "hart_internal.h"

/* What a proof may walk: the prefix, and the arrivals at H. */
#define IDLE_PREFIX_MAX 256u
#define IDLE_PERIOD_MAX 16u
#define IDLE_WALK_MAX 2048u

typedef struct walk {
    const sim_hart *h;
    const struct sim_icache *ic;
    const sim_insn *d;
    uint64_t x[32], dx[32];
    uint64_t cycles, instrs, mem;
    uint64_t kmax;
    /* the last step's taken jump or branch, backwards (its target) */
    bool back;
} walk;

/* The entry the hart would run at pc (its map's), or NULL (not decoded
 * yet, or outside the code). */
static const sim_insn *entry_at(const struct sim_icache *ic, uint64_t pc)
{
    uint64_t off = pc - ic->base;
    if (off >= ic->size || (pc & 1))
        return NULL;
    return ic->map[off >> 1];
}

/* Turn-group k has value s + k * e, s + k * e within [lo, hi] for all k
 * up to w->kmax: lowers kmax so it stays there. */
static void bound(walk *w, int64_t s, int64_t e, int64_t lo, int64_t hi)
{
    uint64_t k;
    if (e > 0)
        k = (uint64_t)(hi - s) / (uint64_t)e;
    else if (e < 0)
        k = (uint64_t)(s - lo) / (uint64_t)(-e);
    else
        return;
    if (k < w->kmax)
        w->kmax = k;
}

static void set(walk *w, unsigned rd, uint64_t v, uint64_t d)
{
    if (rd) {
        w->x[rd] = v;
        w->dx[rd] = d;
    }
}

/* One instruction of the walk; false ends the proof.  On true, w->d is
 * the next entry the hart would run. */
static bool step(walk *w)
{
    const sim_insn *d = w->d;
    const uint64_t a = w->x[d->rs1], da = w->dx[d->rs1];
    const uint64_t b = w->x[d->rs2], db = w->dx[d->rs2];
    const uint64_t imm = (uint64_t)(int64_t)d->imm;
    uint64_t next = d->pc + d->len;
    bool jumped = false;
    uint64_t lat = 0;

    switch (d->op) {
    case SIM_OP_NOP: break;
    case SIM_OP_LUI: set(w, d->rd, imm, 0); break;
    case SIM_OP_AUIPC: set(w, d->rd, d->pc + imm, 0); break;
    case SIM_OP_ADDI: set(w, d->rd, a + imm, da); break;
    case SIM_OP_ADD: set(w, d->rd, a + b, da + db); break;
    case SIM_OP_SUB: set(w, d->rd, a - b, da - db); break;
    case SIM_OP_SLLI: set(w, d->rd, a << d->imm, da << d->imm); break;
    case SIM_OP_SH1ADD: set(w, d->rd, (a << 1) + b, (da << 1) + db); break;
    case SIM_OP_SH2ADD: set(w, d->rd, (a << 2) + b, (da << 2) + db); break;
    case SIM_OP_SH3ADD: set(w, d->rd, (a << 3) + b, (da << 3) + db); break;
    case SIM_OP_ADDIW:
    case SIM_OP_ADDW:
    case SIM_OP_SUBW: {
        uint64_t sum = d->op == SIM_OP_ADDIW ? a + imm : d->op == SIM_OP_ADDW ? a + b : a - b;
        uint64_t dsum = d->op == SIM_OP_ADDIW ? da : d->op == SIM_OP_ADDW ? da + db : da - db;
        int64_t s = (int32_t)(uint32_t)sum, e = (int32_t)(uint32_t)dsum;
        bound(w, s, e, INT32_MIN, INT32_MAX);
        set(w, d->rd, (uint64_t)s, (uint64_t)e);
        break;
    }
    case SIM_OP_ADD_UW: {
        int64_t u = (uint32_t)a, e = (int32_t)(uint32_t)da;
        bound(w, u, e, 0, UINT32_MAX);
        set(w, d->rd, (uint64_t)u + b, (uint64_t)e + db);
        break;
    }
    case SIM_OP_ANDI:
    case SIM_OP_AND: {
        uint64_t m = d->op == SIM_OP_ANDI ? imm : b, dm = d->op == SIM_OP_ANDI ? 0 : db;
        uint64_t v = a, dv = da;
        if (dv == 0) { /* and is symmetric: the changing one in v */
            v = m, dv = dm;
            m = a, dm = da;
        }
        if (dm != 0)
            return false;
        /* adding multiples of dv never reaches bits below its lowest */
        if (dv != 0 && (m & ~((dv & -dv) - 1)) != 0)
            return false;
        set(w, d->rd, v & m, 0);
        break;
    }
    case SIM_OP_ORI:
    case SIM_OP_XORI:
    case SIM_OP_SLTI:
    case SIM_OP_SLTIU:
    case SIM_OP_SRLI:
    case SIM_OP_SRAI:
        if (da)
            return false;
        set(w, d->rd,
            d->op == SIM_OP_ORI    ? a | imm
            : d->op == SIM_OP_XORI ? a ^ imm
            : d->op == SIM_OP_SLTI ? (uint64_t)((int64_t)a < (int64_t)imm)
            : d->op == SIM_OP_SLTIU ? (uint64_t)(a < imm)
            : d->op == SIM_OP_SRLI ? a >> d->imm
                                   : (uint64_t)((int64_t)a >> d->imm),
            0);
        break;
    case SIM_OP_OR:
    case SIM_OP_XOR:
    case SIM_OP_SLT:
    case SIM_OP_SLTU:
        if (da || db)
            return false;
        set(w, d->rd,
            d->op == SIM_OP_OR    ? a | b
            : d->op == SIM_OP_XOR ? a ^ b
            : d->op == SIM_OP_SLT ? (uint64_t)((int64_t)a < (int64_t)b)
                                  : (uint64_t)(a < b),
            0);
        break;
    case SIM_OP_LB: case SIM_OP_LH: case SIM_OP_LW: case SIM_OP_LD:
    case SIM_OP_LBU: case SIM_OP_LHU: case SIM_OP_LWU: {
        static const unsigned size[] = {
            [SIM_OP_LB] = 1, [SIM_OP_LH] = 2, [SIM_OP_LW] = 4, [SIM_OP_LD] = 8,
            [SIM_OP_LBU] = 1, [SIM_OP_LHU] = 2, [SIM_OP_LWU] = 4,
        };
        unsigned n = size[d->op];
        uint64_t addr = a + imm;
        if (da || (addr & (n - 1)))
            return false;
        const sim_mem *m = w->h->mem;
        int ri = sim_mem_find_ram(m, addr, n);
        if (ri < 0)
            return false;
        const sim_ram *r = &m->ram[ri];
        uint64_t raw = sim_mem_get(r->host + (addr - r->base), n);
        uint64_t v = d->op == SIM_OP_LB   ? (uint64_t)(int64_t)(int8_t)raw
                     : d->op == SIM_OP_LH ? (uint64_t)(int64_t)(int16_t)raw
                     : d->op == SIM_OP_LW ? (uint64_t)(int64_t)(int32_t)raw
                                          : raw;
        set(w, d->rd, v, 0);
        lat = r->latency;
        break;
    }
    case SIM_OP_BEQ: case SIM_OP_BNE: case SIM_OP_BLT: case SIM_OP_BGE:
    case SIM_OP_BLTU: case SIM_OP_BGEU: {
        if (da || db)
            return false;
        bool taken = d->op == SIM_OP_BEQ   ? a == b
                     : d->op == SIM_OP_BNE ? a != b
                     : d->op == SIM_OP_BLT ? (int64_t)a < (int64_t)b
                     : d->op == SIM_OP_BGE ? (int64_t)a >= (int64_t)b
                     : d->op == SIM_OP_BLTU ? a < b
                                            : a >= b;
        if (taken)
            next = d->pc + imm;
        jumped = true;
        break;
    }
    case SIM_OP_JAL:
        set(w, d->rd, d->pc + d->len, 0);
        next = d->pc + imm;
        jumped = true;
        break;
    case SIM_OP_JALR:
        if (da)
            return false;
        next = (a + imm) & ~(uint64_t)1;
        set(w, d->rd, d->pc + d->len, 0);
        jumped = true;
        break;
    default:
        return false;
    }
    /* an instruction's static cost, as its block has it */
    w->cycles += (uint64_t)(d->cost_rest - d[1].cost_rest) + lat;
    w->mem += lat;
    w->instrs++;
    w->back = jumped && next <= d->pc;
    if (jumped || d[1].op == SIM_OP_BLOCK_END)
        w->d = entry_at(w->ic, next);
    else
        w->d = d + 1;
    return w->d != NULL && w->d->op != SIM_OP_PROBE;
}

static void walk_start(walk *w, const sim_hart *h, const sim_insn *d, const uint64_t x[32])
{
    memset(w, 0, sizeof *w);
    w->h = h;
    w->ic = h->icache;
    w->d = d;
    memcpy(w->x, x, sizeof w->x);
    w->kmax = UINT64_MAX;
}

/* Walks until the P-th arrival at head; false when the proof ends first
 * or the walk is too long. */
static bool walk_turns(walk *w, uint64_t head, unsigned p)
{
    for (unsigned arrived = 0; arrived < p;) {
        if (w->instrs >= IDLE_WALK_MAX || !step(w))
            return false;
        arrived += w->d->pc == head;
    }
    return true;
}

bool sim_hart_idle_prove(const sim_hart *h, sim_idle *p)
{
    if (h->state != SIM_HART_RUNNING || !h->icache || h->probe || h->nwatches || h->commit ||
        h->icache->nprobes)
        return false;
    const sim_insn *at = entry_at(h->icache, h->pc);
    if (!at || at->op == SIM_OP_PROBE)
        return false;

    /* 1: the prefix, to the first backward jump's target */
    walk w;
    walk_start(&w, h, at, h->x);
    do {
        if (w.instrs >= IDLE_PREFIX_MAX || !step(&w))
            return false;
    } while (!w.back);
    const sim_insn *head = w.d;
    memset(p, 0, sizeof *p);
    p->pc = head->pc;
    p->prefix_cycles = w.cycles;
    p->prefix_instret = w.instrs;
    p->prefix_mem_cycles = w.mem;
    memcpy(p->x, w.x, sizeof p->x);

    /* 2: the registers at each arrival at H */
    uint64_t at_arrival[IDLE_PERIOD_MAX + 1][32];
    unsigned arrivals = 0;
    walk_start(&w, h, head, p->x);
    while (arrivals < IDLE_PERIOD_MAX && walk_turns(&w, p->pc, 1))
        memcpy(at_arrival[++arrivals], w.x, sizeof w.x);

    /* 3: the shortest period that proves */
    for (unsigned period = 1; period <= arrivals; period *= 2) {
        walk_start(&w, h, head, p->x);
        for (unsigned r = 0; r < 32; r++)
            w.dx[r] = at_arrival[period][r] - p->x[r];
        uint64_t dx[32];
        memcpy(dx, w.dx, sizeof dx);
        if (!walk_turns(&w, p->pc, period) || w.kmax == 0 ||
            memcmp(w.dx, dx, sizeof dx) != 0 || memcmp(w.x, at_arrival[period], sizeof w.x) != 0)
            continue;
        memcpy(p->dx, dx, sizeof dx);
        p->period_cycles = w.cycles;
        p->period_instret = w.instrs;
        p->period_mem_cycles = w.mem;
        p->max_periods = w.kmax;
        return true;
    }
    return false;
}

uint64_t sim_hart_idle_skip(sim_hart *h, const sim_idle *p, uint64_t until_cycle)
{
    uint64_t start = h->cycle + p->prefix_cycles;
    if (start >= until_cycle)
        return 0;
    uint64_t k = (until_cycle - start) / p->period_cycles;
    if (k > p->max_periods)
        k = p->max_periods;
    if (k == 0)
        return 0;
    /* every instruction skipped starts before the new cycle, at or
     * before until_cycle: all of them would have run */
    for (unsigned r = 1; r < 32; r++)
        h->x[r] = p->x[r] + k * p->dx[r];
    h->pc = p->pc;
    h->cycle = start + k * p->period_cycles;
    h->instret += p->prefix_instret + k * p->period_instret;
    h->mem_cycles += p->prefix_mem_cycles + k * p->period_mem_cycles;
    return k;
}
