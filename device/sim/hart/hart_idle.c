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
 * mtime (an 8-byte load at mem->mtime_addr) is the one device load
 * allowed: its value may only be compared with a fixed one by an ordered
 * branch, which bounds the periods where mtime passes it, and a register
 * that ends a period holding it gets the last period's value.
 *
 * Anything else ends the proof: a store, an atomic, a CSR (time, cycle),
 * FP, a multiply or divide, a trap, wfi, fence.i, a probe, a load of
 * anything but RAM and mtime (a device, the cached window: their counters
 * and times are theirs), a misaligned load.  So a proven loop only loads
 * from RAM at fixed addresses (listed in the proof, with what they read),
 * and its turn-groups cost the same cycles (an instruction's static cost
 * from its block, plus its RAM range's fixed latency) every time, as long
 * as those bytes stay as they were: the caller checks (sim_cluster.c,
 * before each of the hart's turns).
 *
 * A trap loop is the other thing a hart can spin in: its pc is mtvec's,
 * and what is there traps whatever the registers hold (a fetch outside
 * the code, an illegal instruction, ecall, ebreak), so each turn is one
 * trap back to the same pc.  Once a trap there leaves every CSR as it
 * found it (mepc that pc, mcause and mtval the trap's, MIE and MPIE
 * clear: after two turns at most), every later turn is the same
 * SIM_COST_TRAP cycles and nothing else: a period that retires nothing,
 * loads nothing, and counts one trap — for ever, as on a card, where
 * only a reset ends it. */
#include <string.h>

#include "hart_internal.h"

/* What a proof may walk: the prefix, and the arrivals at H. */
#define IDLE_PREFIX_MAX 256u
#define IDLE_PERIOD_MAX 16u
#define IDLE_WALK_MAX 2048u
#define IDLE_TIMED_MAX 8u
/* Far more periods than any step skips: keeps cycle + k * period far
 * from wrapping. */
#define IDLE_PERIODS_MAX (1ull << 40)

typedef struct walk {
    const sim_hart *h;
    const struct sim_icache *ic;
    const sim_insn *d;
    uint64_t x[32], dx[32];
    uint64_t cycles, instrs, mem;
    uint64_t kmax;
    /* the last step's taken jump or branch, backwards (its target) */
    bool back;
    /* mtime: the hart's cycle where the walk starts; registers holding
     * an mtime value (read at tcyc[r]); registers written, and read
     * before the walk wrote them; the branches on mtime met */
    uint64_t base;
    bool tt[32], written[32], read_first[32];
    uint64_t tcyc[32];
    sim_hart *clock; /* a copy of the hart, for the mtime callback */
    sim_idle *loads; /* where RAM loads are recorded (NULL: not) */
    unsigned ntimed;
    struct timed {
        uint64_t cycle, other;
        uint8_t op;
        bool time_first, taken;
    } timed[IDLE_TIMED_MAX];
} walk;

/* mtime as a load at `cycle` of the hart reads it. */
static uint64_t mtime_at(const walk *w, uint64_t cycle)
{
    w->clock->cycle = cycle;
    return w->h->mem->mtime(w->h->mem, w->clock);
}

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
        w->tt[rd] = false;
        w->written[rd] = true;
    }
}

/* Whether an op reads rs1, rs2. */
static bool reads_rs1(unsigned op)
{
    return op != SIM_OP_LUI && op != SIM_OP_AUIPC && op != SIM_OP_JAL && op != SIM_OP_NOP;
}
static bool reads_rs2(unsigned op)
{
    switch (op) {
    case SIM_OP_ADD: case SIM_OP_SUB: case SIM_OP_ADDW: case SIM_OP_SUBW: case SIM_OP_AND:
    case SIM_OP_OR: case SIM_OP_XOR: case SIM_OP_SLT: case SIM_OP_SLTU: case SIM_OP_SH1ADD:
    case SIM_OP_SH2ADD: case SIM_OP_SH3ADD: case SIM_OP_ADD_UW:
    case SIM_OP_BEQ: case SIM_OP_BNE: case SIM_OP_BLT: case SIM_OP_BGE: case SIM_OP_BLTU:
    case SIM_OP_BGEU:
        return true;
    default:
        return false;
    }
}

static bool branch_taken(unsigned op, uint64_t a, uint64_t b)
{
    return op == SIM_OP_BEQ    ? a == b
           : op == SIM_OP_BNE  ? a != b
           : op == SIM_OP_BLT  ? (int64_t)a < (int64_t)b
           : op == SIM_OP_BGE  ? (int64_t)a >= (int64_t)b
           : op == SIM_OP_BLTU ? a < b
                               : a >= b;
}

/* Keeps a RAM load in p's list (once per address and size); false
 * when the list is full. */
static bool note_load(sim_idle *p, uint64_t addr, unsigned size, uint64_t value)
{
    for (unsigned i = 0; i < p->nloads; i++)
        if (p->loads[i].addr == addr && p->loads[i].size == size)
            return true;
    if (p->nloads >= SIM_IDLE_LOADS_MAX)
        return false;
    p->loads[p->nloads++] = (struct sim_idle_load){addr, value, size};
    return true;
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
    const bool branch = d->op >= SIM_OP_BEQ && d->op <= SIM_OP_BGEU;

    /* An mtime value may only be compared (below); and what the walk
     * reads before writing it is noted. */
    const unsigned r1 = reads_rs1(d->op) ? d->rs1 : 0, r2 = reads_rs2(d->op) ? d->rs2 : 0;
    if ((w->tt[r1] || w->tt[r2]) && !branch)
        return false;
    w->read_first[r1] |= !w->written[r1];
    w->read_first[r2] |= !w->written[r2];

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
        if (m->mtime_addr && addr == m->mtime_addr && d->op == SIM_OP_LD) {
            uint64_t at = w->base + w->cycles; /* the load's start */
            set(w, d->rd, mtime_at(w, at), 0);
            if (d->rd) {
                w->tt[d->rd] = true;
                w->tcyc[d->rd] = at;
            }
            lat = m->mtime_latency;
            break;
        }
        int ri = sim_mem_find_ram(m, addr, n);
        if (ri < 0)
            return false;
        const sim_ram *r = &m->ram[ri];
        uint64_t raw = sim_mem_get(r->host + (addr - r->base), n);
        if (w->loads && !note_load(w->loads, addr, n, raw))
            return false;
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
        bool taken = branch_taken(d->op, a, b);
        if (w->tt[d->rs1] || w->tt[d->rs2]) {
            /* mtime against a fixed value: the same way until mtime
             * passes it (monotone), found once the period is known */
            if (w->tt[d->rs1] == w->tt[d->rs2] || d->op == SIM_OP_BEQ || d->op == SIM_OP_BNE ||
                w->ntimed >= IDLE_TIMED_MAX)
                return false;
            bool first = w->tt[d->rs1];
            w->timed[w->ntimed++] = (struct timed){
                first ? w->tcyc[d->rs1] : w->tcyc[d->rs2], first ? b : a, d->op, first, taken};
        }
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
            return false; /* (and no mtime: not a branch, refused above) */
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

static void walk_start(walk *w, const sim_hart *h, sim_hart *clock, const sim_insn *d,
                       const uint64_t x[32], uint64_t base)
{
    memset(w, 0, sizeof *w);
    w->h = h;
    w->ic = h->icache;
    w->d = d;
    memcpy(w->x, x, sizeof w->x);
    w->kmax = IDLE_PERIODS_MAX;
    w->base = base;
    w->clock = clock;
}

/* The most periods k (up to w->kmax) for which each branch on mtime
 * goes the way it went in period 0, its load then period * k cycles
 * later: mtime never falls, so a binary search finds where it turns. */
static void bound_timed(walk *w, uint64_t period)
{
    for (unsigned i = 0; i < w->ntimed; i++) {
        const struct timed *t = &w->timed[i];
        uint64_t lo = 0, hi = w->kmax;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo + 1) / 2;
            uint64_t now = mtime_at(w, t->cycle + mid * period);
            bool taken = t->time_first ? branch_taken(t->op, now, t->other)
                                       : branch_taken(t->op, t->other, now);
            if (taken == t->taken)
                lo = mid;
            else
                hi = mid - 1;
        }
        w->kmax = lo;
    }
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

/* The trap the instruction at h's pc takes whatever the registers hold;
 * false when it may do anything else. */
static bool always_traps(const sim_hart *h, uint64_t *cause, uint64_t *tval)
{
    const uint64_t pc = h->pc;
    if (pc - h->code_base >= h->code_size) {
        *cause = SIM_CAUSE_FETCH_ACCESS;
        *tval = pc;
        return true;
    }
    const sim_insn *d = entry_at(h->icache, pc);
    switch (d ? d->op : SIM_OP_COUNT) {
    case SIM_OP_FETCH_FAULT:
        *cause = SIM_CAUSE_FETCH_ACCESS;
        *tval = pc + (uint64_t)(int64_t)d->imm;
        return true;
    case SIM_OP_ILLEGAL:
        *cause = SIM_CAUSE_ILLEGAL;
        *tval = d->bits;
        return true;
    case SIM_OP_ECALL:
        *cause = SIM_CAUSE_ECALL_M;
        *tval = 0;
        return true;
    case SIM_OP_EBREAK:
        *cause = SIM_CAUSE_BREAKPOINT;
        *tval = pc;
        return true;
    default: /* anything else, a probe or a trigger before it, not decoded yet */
        return false;
    }
}

bool sim_hart_trap_loop(const sim_hart *h, uint64_t *cause)
{
    uint64_t c, tval;
    const uint64_t pc = h->pc;
    if (h->state != SIM_HART_RUNNING || !h->icache || (pc & 1) || !always_traps(h, &c, &tval))
        return false;
    /* the trap changes nothing: it goes back to pc, and finds the CSRs
     * and the last trap's record as it leaves them */
    bool fixed = (h->mtvec & ~(uint64_t)3) == pc && h->mepc == pc && h->mcause == c &&
                 h->mtval == tval && !(h->mstatus & (SIM_MSTATUS_MIE | SIM_MSTATUS_MPIE)) &&
                 h->trapped && h->trap_cause == c && h->trap_epc == pc && h->trap_tval == tval;
    if (fixed && cause)
        *cause = c;
    return fixed;
}

bool sim_hart_idle_prove(const sim_hart *h, sim_idle *p)
{
    /* (a trap hook or a commit record sees each turn) */
    if (!h->on_trap && !h->commit && sim_hart_trap_loop(h, NULL)) {
        memset(p, 0, sizeof *p);
        p->pc = h->pc;
        memcpy(p->x, h->x, sizeof p->x);
        p->period_cycles = SIM_COST_TRAP;
        p->period_traps = 1;
        p->max_periods = IDLE_PERIODS_MAX;
        return true;
    }
    /* an armed trigger or a locked PMP entry must see every access and
     * instruction */
    if (h->state != SIM_HART_RUNNING || !h->icache || h->probe || h->nwatches || h->commit ||
        h->icache->nprobes || h->trig_exec || h->trig_mem || h->pmp_deny)
        return false;
    const sim_insn *at = entry_at(h->icache, h->pc);
    if (!at || at->op == SIM_OP_PROBE)
        return false;

    /* 1: the prefix, to the first backward jump's target */
    sim_hart clock = *h;
    walk w;
    memset(p, 0, sizeof *p);
    walk_start(&w, h, &clock, at, h->x, h->cycle);
    w.loads = p;
    do {
        w.ntimed = 0; /* (only a period's branches on mtime are bounded) */
        if (w.instrs >= IDLE_PREFIX_MAX || !step(&w))
            return false;
    } while (!w.back);
    const sim_insn *head = w.d;
    p->pc = head->pc;
    p->prefix_cycles = w.cycles;
    p->prefix_instret = w.instrs;
    p->prefix_mem_cycles = w.mem;
    memcpy(p->x, w.x, sizeof p->x);

    /* 2: the registers at each arrival at H */
    uint64_t at_arrival[IDLE_PERIOD_MAX + 1][32];
    unsigned arrivals = 0;
    const uint64_t base = h->cycle + p->prefix_cycles;
    walk_start(&w, h, &clock, head, p->x, base);
    while (arrivals < IDLE_PERIOD_MAX && (w.ntimed = 0, walk_turns(&w, p->pc, 1)))
        memcpy(at_arrival[++arrivals], w.x, sizeof w.x);

    /* 3: the shortest period that proves */
    const unsigned prefix_loads = p->nloads;
    for (unsigned period = 1; period <= arrivals; period *= 2) {
        walk_start(&w, h, &clock, head, p->x, base);
        p->nloads = prefix_loads;
        w.loads = p;
        for (unsigned r = 0; r < 32; r++)
            w.dx[r] = at_arrival[period][r] - p->x[r];
        uint64_t dx[32];
        memcpy(dx, w.dx, sizeof dx);
        if (!walk_turns(&w, p->pc, period) || memcmp(w.x, at_arrival[period], sizeof w.x) != 0)
            continue;
        /* Each register steps by its d again, or holds mtime at the end
         * (then the period must write it before reading it: its value
         * at H is the last period's mtime, not x + k * d). */
        bool same = true;
        p->time_regs = 0;
        for (unsigned r = 1; r < 32; r++) {
            if (w.tt[r]) {
                same &= !w.read_first[r];
                dx[r] = 0;
                p->time_regs |= 1u << r;
                p->time_cycle[r] = w.tcyc[r];
            } else {
                same &= w.dx[r] == dx[r];
            }
        }
        bound_timed(&w, w.cycles);
        if (!same || w.kmax == 0)
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
    /* mtime as the last period's load read it */
    uint64_t cycle = h->cycle;
    for (unsigned r = 1; r < 32; r++) {
        if (p->time_regs & (1u << r)) {
            h->cycle = p->time_cycle[r] + (k - 1) * p->period_cycles;
            h->x[r] = h->mem->mtime(h->mem, h);
        }
    }
    h->cycle = cycle;
    h->pc = p->pc;
    h->cycle = start + k * p->period_cycles;
    h->instret += p->prefix_instret + k * p->period_instret;
    h->mem_cycles += p->prefix_mem_cycles + k * p->period_mem_cycles;
    h->traps += k * p->period_traps;
    return k;
}
