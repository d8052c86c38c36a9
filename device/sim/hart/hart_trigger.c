/* hart_trigger: the hart's trigger module, as the RISC-V debug spec
 * (0.13.2) describes it for a machine-mode-only hart
 * (device/sim/README.md, "Triggers").
 *
 * SIM_HART_TRIGGERS triggers, each type 2 (mcontrol, address match) and
 * nothing else: tdata1 is write-any-read-legal.  What a write keeps: m,
 * execute, store, load, hit, match 0 (equal), 2 (at or above) or 3
 * (below) — any other match reads 0 —, action 0 (breakpoint exception)
 * and, from debug mode only (sim_hart_trigger_set) dmode and action 1.
 * What reads 0: s, u (no such modes), chain, select (address only),
 * timing (before only), size (any), maskmax (no NAPOT ranges).  tdata3
 * reads 0 and ignores writes; tinfo reads 4 (type 2 only).  tselect
 * ignores a value past the last trigger, so reading it back tells.  No
 * tcontrol: triggers fire in machine mode whatever mstatus.MIE says, as
 * the debug spec 0.13's harts without tcontrol do.
 *
 * A trigger is armed when its action is 0 and m is set: the hart raises
 * the breakpoint exception (mcause 3) before the instruction, mepc and
 * mtval its pc (execute), or before the access, mepc the instruction's
 * pc, mtval the access's address (load, store; an AMO is both).  An
 * access matches when any of its bytes does.  Action 1 is the debugger's
 * (kmrun's own, through sim_hart_trigger_set): the hart does nothing on
 * it, since the owner's probes and watches stop the run there instead.
 *
 * Speed: with nothing armed nothing is checked.  An armed execute trigger
 * puts a TRIGGER entry before each instruction it matches in the decoded
 * code (shared by the harts of a memory with the same code range, so the
 * set is theirs together and the entry asks its own hart); an armed
 * load/store trigger makes every access take the slow path, as watches
 * do. */
#include <string.h>

#include "hart_internal.h"

enum {
    CSR_TSELECT = 0x7a0,
    CSR_TDATA1 = 0x7a1,
    CSR_TDATA2 = 0x7a2,
    CSR_TDATA3 = 0x7a3,
    CSR_TINFO = 0x7a4,
};

enum { MATCH_EQUAL = 0, MATCH_GE = 2, MATCH_LT = 3 };

/* tinfo: one bit per type the selected trigger supports. */
#define TINFO_VALUE (1u << 2)

/* What tdata1 holds after a write of v: the legal value (above). */
static uint64_t legal_tdata1(uint64_t v, bool debug)
{
    uint64_t dmode = debug ? v & SIM_MC_DMODE : 0;
    uint64_t action = (v & SIM_MC_ACTION) >> SIM_MC_ACTION_SHIFT;
    if (action != 0 && !(action == 1 && dmode))
        action = 0;
    uint64_t match = (v & SIM_MC_MATCH) >> SIM_MC_MATCH_SHIFT;
    if (match != MATCH_EQUAL && match != MATCH_GE && match != MATCH_LT)
        match = MATCH_EQUAL;
    return SIM_MC_TYPE2 | dmode | (v & SIM_MC_HIT) | action << SIM_MC_ACTION_SHIFT |
           match << SIM_MC_MATCH_SHIFT |
           (v & (SIM_MC_M | SIM_MC_EXECUTE | SIM_MC_STORE | SIM_MC_LOAD));
}

static bool armed(uint64_t tdata1)
{
    return (tdata1 & SIM_MC_ACTION) == 0 && (tdata1 & SIM_MC_M);
}

/* Whether [addr, addr + size) meets the trigger: any of its bytes. */
static bool matches(uint64_t tdata1, uint64_t tdata2, uint64_t addr, unsigned size)
{
    switch ((tdata1 & SIM_MC_MATCH) >> SIM_MC_MATCH_SHIFT) {
    case MATCH_GE: return addr >= tdata2 || tdata2 - addr < size;
    case MATCH_LT: return addr < tdata2;
    default: return tdata2 - addr < size;
    }
}

/* After h's triggers changed: its armed counts, and the execute set of
 * the decoded code it shares. */
static void rearm(sim_hart *h)
{
    unsigned x = 0, m = 0;
    for (unsigned i = 0; i < SIM_HART_TRIGGERS; i++) {
        uint64_t t = h->trig[i].tdata1;
        if (armed(t)) {
            x += (t & SIM_MC_EXECUTE) != 0;
            m += (t & (SIM_MC_LOAD | SIM_MC_STORE)) != 0;
        }
    }
    h->trig_exec = x;
    h->trig_mem = m;
    h->checks_mem = h->trig_mem || h->pmp_deny;
    if (h->icache && h->mem)
        sim_icache_retrigger(h->mem, h->icache);
}

void sim_icache_retrigger(sim_mem *m, struct sim_icache *ic)
{
    sim_trigger set[SIM_MEM_MAX_HARTS * SIM_HART_TRIGGERS];
    unsigned n = 0;
    memset(set, 0, sizeof set);
    for (unsigned k = 0; k < m->nharts; k++) {
        const sim_hart *o = m->harts[k];
        if (o->icache != ic || !o->trig_exec)
            continue;
        for (unsigned i = 0; i < SIM_HART_TRIGGERS; i++) {
            uint64_t t = o->trig[i].tdata1;
            if (armed(t) && (t & SIM_MC_EXECUTE))
                set[n++] = (sim_trigger){t & SIM_MC_MATCH, o->trig[i].tdata2};
        }
    }
    /* the decoded code stays when the set is the same (a hit bit, a
     * load trigger, a trigger not armed changed) */
    if (n == ic->ntexec && memcmp(set, ic->texec, n * sizeof *set) == 0)
        return;
    memcpy(ic->texec, set, sizeof set);
    ic->ntexec = n;
    sim_icache_flush(ic);
}

bool sim_icache_triggered(const struct sim_icache *ic, uint64_t pc)
{
    for (unsigned i = 0; i < ic->ntexec; i++)
        if (matches(ic->texec[i].tdata1, ic->texec[i].tdata2, pc, 1))
            return true;
    return false;
}

/* Fires every trigger of h armed for `kind` that [addr, addr + size)
 * meets: true when one did. */
static bool fire(sim_hart *h, uint64_t kind, uint64_t addr, unsigned size)
{
    bool hit = false;
    for (unsigned i = 0; i < SIM_HART_TRIGGERS; i++) {
        sim_trigger *t = &h->trig[i];
        if (armed(t->tdata1) && (t->tdata1 & kind) && matches(t->tdata1, t->tdata2, addr, size)) {
            t->tdata1 |= SIM_MC_HIT;
            hit = true;
        }
    }
    return hit;
}

bool sim_trigger_exec(sim_hart *h, uint64_t pc)
{
    /* an instruction matches by its pc (as Spike's execute triggers) */
    return h->trig_exec && fire(h, SIM_MC_EXECUTE, pc, 1);
}

bool sim_trigger_mem(sim_hart *h, uint64_t addr, unsigned size, bool store)
{
    return fire(h, store ? SIM_MC_STORE : SIM_MC_LOAD, addr, size);
}

bool sim_trigger_csr_read(const sim_hart *h, unsigned csr, uint64_t *v)
{
    switch (csr) {
    case CSR_TSELECT: *v = h->tselect; return true;
    case CSR_TDATA1: *v = h->trig[h->tselect].tdata1; return true;
    case CSR_TDATA2: *v = h->trig[h->tselect].tdata2; return true;
    case CSR_TDATA3: *v = 0; return true;
    case CSR_TINFO: *v = TINFO_VALUE; return true;
    default: return false;
    }
}

void sim_trigger_csr_write(sim_hart *h, unsigned csr, uint64_t v)
{
    sim_trigger *t = &h->trig[h->tselect];
    switch (csr) {
    case CSR_TSELECT:
        if (v < SIM_HART_TRIGGERS)
            h->tselect = (unsigned)v;
        return;
    case CSR_TDATA1:
    case CSR_TDATA2:
        if (t->tdata1 & SIM_MC_DMODE) /* the debugger's: machine mode may not */
            return;
        if (csr == CSR_TDATA1)
            t->tdata1 = legal_tdata1(v, false);
        else
            t->tdata2 = v;
        rearm(h);
        return;
    default: return; /* tdata3, tinfo: nothing writable */
    }
}

int sim_hart_trigger_get(const sim_hart *h, unsigned i, uint64_t *tdata1, uint64_t *tdata2)
{
    if (i >= SIM_HART_TRIGGERS)
        return -1;
    *tdata1 = h->trig[i].tdata1;
    *tdata2 = h->trig[i].tdata2;
    return 0;
}

int sim_hart_trigger_set(sim_hart *h, unsigned i, uint64_t tdata1, uint64_t tdata2)
{
    if (i >= SIM_HART_TRIGGERS)
        return -1;
    h->trig[i].tdata1 = legal_tdata1(tdata1, true);
    h->trig[i].tdata2 = tdata2;
    rearm(h);
    return 0;
}

int sim_hart_trigger_claim(sim_hart *h, bool execute, bool load, bool store, uint64_t addr)
{
    const uint64_t used = SIM_MC_EXECUTE | SIM_MC_LOAD | SIM_MC_STORE | SIM_MC_DMODE;
    for (int i = SIM_HART_TRIGGERS - 1; i >= 0; i--) {
        if (h->trig[i].tdata1 & used)
            continue;
        uint64_t mine = SIM_MC_TYPE2 | SIM_MC_DMODE | (1ull << SIM_MC_ACTION_SHIFT) | SIM_MC_M |
                        (execute ? SIM_MC_EXECUTE : 0) | (load ? SIM_MC_LOAD : 0) |
                        (store ? SIM_MC_STORE : 0);
        return sim_hart_trigger_set(h, (unsigned)i, mine, addr) == 0 ? i : -1;
    }
    return -1;
}

void sim_hart_trigger_release(sim_hart *h, int index)
{
    if (index >= 0)
        (void)sim_hart_trigger_set(h, (unsigned)index, 0, 0);
}

int sim_hart_trigger_claimed(const sim_hart *h, bool execute, bool load, bool store, uint64_t addr)
{
    const uint64_t kind = SIM_MC_EXECUTE | SIM_MC_LOAD | SIM_MC_STORE;
    uint64_t want = (execute ? SIM_MC_EXECUTE : 0) | (load ? SIM_MC_LOAD : 0) |
                    (store ? SIM_MC_STORE : 0);
    for (unsigned i = 0; i < SIM_HART_TRIGGERS; i++) {
        uint64_t t = h->trig[i].tdata1;
        if ((t & SIM_MC_DMODE) && (t & kind) == want && h->trig[i].tdata2 == addr)
            return (int)i;
    }
    return -1;
}
