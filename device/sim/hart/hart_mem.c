/* hart_mem: the hart's memory accesses off the hot path — loads and
 * stores that miss the hot loop's one-entry RAM cache (another RAM range,
 * or a device behind sim_mem's callbacks), LR/SC and the AMOs, the FP
 * loads and stores — and sim_mem_note_store, which keeps LR/SC honest
 * across harts and NoC writes.
 *
 * Alignment is checked before anything is reached: a misaligned load
 * (and LR) is cause 4, a misaligned store, SC or AMO cause 6, mtval the
 * address.  A device's load fault under an AMO is reported as the
 * store/AMO access fault (7), as the spec has it for AMOs.  An AMO or LR
 * costs the memory's latency once: it is one transaction at the memory.
 *
 * Before an access reaches memory, the owner's watches are asked, then
 * the hart's armed load/store triggers (hart_trigger.c): one that fires
 * is the breakpoint exception, mtval the address; then its PMP
 * (hart_pmp.c): a load it denies is cause 5, a store, SC or AMO cause 7
 * (an AMO needs R and W; an SC is checked whether or not it would
 * succeed, as Spike), mtval the address. */
#include <string.h>

#include "hart_internal.h"
#include "sim_fpu.h"

#define LINE_MASK (~(uint64_t)63)

int sim_mem_find_ram(const sim_mem *m, uint64_t addr, uint64_t size)
{
    for (unsigned i = 0; i < m->nram; i++) {
        const sim_ram *r = &m->ram[i];
        uint64_t off = addr - r->base;
        if (addr >= r->base && off < r->size && r->size - off >= size)
            return (int)i;
    }
    return -1;
}

void sim_mem_note_store(sim_mem *m, const sim_hart *writer, uint64_t addr)
{
    uint64_t line = addr & LINE_MASK;
    for (unsigned i = 0; i < m->nharts; i++) {
        sim_hart *o = m->harts[i];
        if (o != writer && o->reserved && o->reservation == line)
            o->reserved = false;
    }
}

bool sim_mem_others_reserved(sim_mem *m, const sim_hart *h)
{
    if (!m->reserved_any)
        return false;
    bool any = false, others = false;
    for (unsigned i = 0; i < m->nharts; i++) {
        any |= m->harts[i]->reserved;
        others |= m->harts[i] != h && m->harts[i]->reserved;
    }
    m->reserved_any = any;
    return others;
}

bool sim_watch_check(sim_hart *h, uint64_t addr, unsigned size, bool store)
{
    bool stop = false;
    for (unsigned i = 0; i < h->nwatches; i++) {
        const sim_watch *w = &h->watches[i];
        if ((store ? w->store : w->load) && addr < w->addr + w->len && w->addr < addr + size &&
            h->watch)
            stop |= h->watch(h->watch_ctx, h, i, store);
    }
    return stop;
}

int sim_hart_load_slow(sim_hart *h, int i, uint64_t addr, unsigned size, uint64_t *value)
{
    sim_mem *m = h->mem;
    if (sim_watch_access(h, addr, size, false))
        return SIM_HART_STOPPED;
    if (sim_trigger_access(h, addr, size, false))
        return SIM_CAUSE_BREAKPOINT;
    if (sim_pmp_denies(h, addr, size, SIM_PMP_R))
        return SIM_CAUSE_LOAD_ACCESS;
    sim_commit_load(h, addr);
    if (i >= 0) {
        const sim_ram *r = &m->ram[i];
        *value = sim_mem_get(r->host + (addr - r->base), size);
        h->cycle += r->latency;
        return 0;
    }
    uint64_t v = 0;
    int rc = m->load ? m->load(m, h, addr, size, &v) : SIM_CAUSE_LOAD_ACCESS;
    if (rc)
        return rc;
    /* a device may hand back more than `size` bytes' worth */
    *value = size == 8 ? v : v & ((1ull << (8 * size)) - 1);
    return 0;
}

int sim_hart_store_slow(sim_hart *h, int i, uint64_t addr, unsigned size, uint64_t value)
{
    sim_mem *m = h->mem;
    if (sim_watch_access(h, addr, size, true))
        return SIM_HART_STOPPED;
    if (sim_trigger_access(h, addr, size, true))
        return SIM_CAUSE_BREAKPOINT;
    if (sim_pmp_denies(h, addr, size, SIM_PMP_W))
        return SIM_CAUSE_STORE_ACCESS;
    sim_commit_store(h, addr, value, size);
    if (i >= 0) {
        const sim_ram *r = &m->ram[i];
        sim_mem_put(r->host + (addr - r->base), size, value);
        h->cycle += r->latency;
        return 0;
    }
    if (size < 8)
        value &= (1ull << (8 * size)) - 1;
    return m->store ? m->store(m, h, addr, size, value) : SIM_CAUSE_STORE_ACCESS;
}

static uint64_t sext_size(uint64_t v, unsigned size)
{
    return size == 4 ? (uint64_t)(int64_t)(int32_t)v : v;
}

/* The AMO's new memory value from the old one and rs2 (both sign-extended
 * to 64 bits for the W forms, which is what the signed min/max need and
 * what the unsigned ones see consistently after truncation). */
static uint64_t amo_apply(unsigned f5, uint64_t old, uint64_t src, unsigned size)
{
    if (size == 4) {
        old = sext_size(old, 4);
        src = sext_size(src, 4);
    }
    uint64_t uo = size == 4 ? (uint32_t)old : old;
    uint64_t us = size == 4 ? (uint32_t)src : src;
    switch (f5) {
    case 0x00: return old + src;
    case 0x01: return src;
    case 0x04: return old ^ src;
    case 0x08: return old | src;
    case 0x0c: return old & src;
    case 0x10: return (int64_t)old < (int64_t)src ? old : src;
    case 0x14: return (int64_t)old > (int64_t)src ? old : src;
    case 0x18: return uo < us ? old : src;
    default: return uo > us ? old : src; /* 0x1c amomaxu */
    }
}

int sim_hart_atomic(sim_hart *h, const sim_insn *d, uint64_t *tval)
{
    sim_mem *m = h->mem;
    unsigned size = (unsigned)d->imm;
    uint64_t addr = h->x[d->rs1];
    uint64_t old = 0;
    int rc;

    *tval = addr;
    if (d->op == SIM_OP_LR) {
        if (addr & (size - 1))
            return SIM_CAUSE_LOAD_MISALIGNED;
        rc = sim_hart_load_slow(h, sim_mem_find_ram(m, addr, size), addr, size, &old);
        if (rc)
            return rc;
        h->reserved = true;
        h->reservation = addr & LINE_MASK;
        m->reserved_any = true;
        if (d->rd)
            h->x[d->rd] = sext_size(old, size);
        return 0;
    }
    if (addr & (size - 1))
        return SIM_CAUSE_STORE_MISALIGNED;
    if (d->op == SIM_OP_SC) {
        /* SC succeeds only on the line this hart's LR reserved, with no
         * store by another hart or the NoC in between; it gives up the
         * reservation either way. */
        bool ok = h->reserved && h->reservation == (addr & LINE_MASK);
        h->reserved = false;
        if (!ok && sim_pmp_denies(h, addr, size, SIM_PMP_W))
            return SIM_CAUSE_STORE_ACCESS; /* as a store would (Spike) */
        if (ok) {
            rc = sim_hart_store_slow(h, sim_mem_find_ram(m, addr, size), addr, size, h->x[d->rs2]);
            if (rc)
                return rc;
            sim_mem_note_store(m, h, addr);
        }
        if (d->rd)
            h->x[d->rd] = ok ? 0 : 1;
        return 0;
    }
    /* An AMO: one read-modify-write; the simulator runs one hart at a
     * time, so reading and writing through the callbacks is atomic. */
    /* Both sides asked, the read's and the write's, even when the first
     * says stop: each calls its watches and sets its triggers' hit bits. */
    bool watch_r = sim_watch_access(h, addr, size, false);
    bool watch_w = sim_watch_access(h, addr, size, true);
    if (watch_r || watch_w)
        return SIM_HART_STOPPED;
    bool trig_r = sim_trigger_access(h, addr, size, false);
    bool trig_w = sim_trigger_access(h, addr, size, true);
    if (trig_r || trig_w)
        return SIM_CAUSE_BREAKPOINT;
    if (sim_pmp_denies(h, addr, size, SIM_PMP_R | SIM_PMP_W))
        return SIM_CAUSE_STORE_ACCESS;
    int i = sim_mem_find_ram(m, addr, size);
    uint64_t src = h->x[d->rs2];
    if (i >= 0) {
        const sim_ram *r = &m->ram[i];
        uint8_t *p = r->host + (addr - r->base);
        old = sim_mem_get(p, size);
        uint64_t nv = amo_apply(d->aux, old, src, size);
        sim_mem_put(p, size, nv);
        h->cycle += r->latency;
        sim_commit_load(h, addr);
        sim_commit_store(h, addr, nv, size);
    } else {
        rc = m->load ? m->load(m, h, addr, size, &old) : SIM_CAUSE_STORE_ACCESS;
        if (rc)
            return rc == SIM_CAUSE_LOAD_ACCESS ? SIM_CAUSE_STORE_ACCESS : rc;
        if (size == 4)
            old &= 0xffffffffu;
        uint64_t nv = amo_apply(d->aux, old, src, size);
        if (size == 4)
            nv &= 0xffffffffu;
        rc = m->store ? m->store(m, h, addr, size, nv) : SIM_CAUSE_STORE_ACCESS;
        if (rc)
            return rc;
        sim_commit_load(h, addr);
        sim_commit_store(h, addr, nv, size);
    }
    sim_mem_note_store(m, h, addr);
    if (d->rd)
        h->x[d->rd] = sext_size(old, size);
    return 0;
}

int sim_hart_fp_mem(sim_hart *h, const sim_insn *d, uint64_t *tval)
{
    bool load = d->op == SIM_OP_FLW || d->op == SIM_OP_FLD || d->op == SIM_OP_FLH;
    unsigned size = d->op == SIM_OP_FLH || d->op == SIM_OP_FSH   ? 2
                    : d->op == SIM_OP_FLW || d->op == SIM_OP_FSW ? 4
                                                                 : 8;
    uint64_t addr = h->x[d->rs1] + (uint64_t)(int64_t)d->imm;
    uint64_t v = 0;
    int rc;

    if ((h->mstatus & SIM_MSTATUS_FS) == 0) {
        *tval = d->bits;
        return SIM_CAUSE_ILLEGAL;
    }
    *tval = addr;
    if (addr & (size - 1))
        return load ? SIM_CAUSE_LOAD_MISALIGNED : SIM_CAUSE_STORE_MISALIGNED;
    if (load) {
        rc = sim_hart_load_slow(h, sim_mem_find_ram(h->mem, addr, size), addr, size, &v);
        if (rc)
            return rc;
        h->f[d->rd] = size == 2   ? sim_fpu_box_h((uint16_t)v)
                      : size == 4 ? sim_fpu_box((uint32_t)v)
                                  : v;
        h->mstatus |= SIM_MSTATUS_FS; /* Dirty: an f register changed */
        return 0;
    }
    /* FSW (FSH) stores the low 32 (16) bits as they are, boxed or not (the spec) */
    rc = sim_hart_store_slow(h, sim_mem_find_ram(h->mem, addr, size), addr, size, h->f[d->rs2]);
    if (rc)
        return rc;
    sim_mem_note_store(h->mem, h, addr);
    return 0;
}
