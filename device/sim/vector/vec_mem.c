/* vec_mem: the vector loads and stores — unit-stride, strided, indexed
 * (ordered and unordered alike: one hart, elements in order), segment
 * (nf fields an element), whole-register, mask (vlm.v/vsm.v) and
 * fault-only-first.
 *
 * Every element goes through the hart's memory as a scalar access of its
 * EEW would (sim_mem's RAM ranges, the inline cluster-cache hit, the
 * device callbacks behind them), in element order and, within a segment,
 * field order; so the cluster cache, LIM and the NoC windows see what
 * they see of scalar code.  An element must be aligned to its EEW: a
 * misaligned or faulting element traps (cause 4/6 or 5/7, mtval its
 * address) with its index in vstart, the elements before it done; the
 * instruction restarts from vstart.  A fault-only-first load's fault past
 * element 0 trims vl to the element's index instead.  Inactive elements
 * (mask bit clear) are not accessed and cannot fault.
 *
 * A store of contiguous bytes (unit-stride, whole register, mask) that
 * the memory takes as one write (a NoC window: sim_mem.h store_bytes) is
 * that one write, at its one cost, as on the card; a part that would
 * fault sends it down the element path, which traps at the element.
 *
 * Time: each access charges its memory's latency, but a run of accesses
 * inside one 64-byte line charges only its first (the line is what the
 * memory moves), and counts only its first in the cache's hits
 * (mem.cached.hits, which the callbacks count in too); the datapath's
 * beats on top (vec_charge).  One field's elements all in one range of
 * plain RAM, aligned, with nothing watching, recording or checking, are
 * done at one go (plain_access): the same bytes and the same cycles,
 * without the calls per element.  While a
 * watch is set, every address is checked before any access, so that a
 * stop leaves the instruction not begun. */
#include "vec_internal.h"

/* The accesses of one instruction. */
typedef struct vacc {
    sim_hart *h;
    bool quiet;    /* nothing watches, records or checks: the inline paths may serve */
    int ram;       /* the RAM range the last access reached, or -1 */
    uint64_t line; /* the line the last access touched, + 1 (0: none yet) */
} vacc;

static int vacc_access(vacc *s, uint64_t addr, unsigned size, bool store, uint64_t *val)
{
    sim_hart *h = s->h;
    sim_mem *m = h->mem;
    if (addr & (size - 1))
        return store ? SIM_CAUSE_STORE_MISALIGNED : SIM_CAUSE_LOAD_MISALIGNED;
    uint64_t before = h->cycle;
    uint64_t *hits = m->cached.hits, hits_before = hits ? *hits : 0;
    const sim_ram *r = s->ram >= 0 ? &m->ram[s->ram] : NULL;
    uint8_t *p = NULL;
    int rc = 0;
    if (s->quiet && r && addr - r->base < r->size && r->size - (addr - r->base) >= size) {
        p = r->host + (addr - r->base);
        h->cycle += r->latency;
    } else if (s->quiet && (p = sim_mem_cached_hit(m, addr, store)) != NULL) {
        h->cycle += m->cached.latency;
    }
    if (p) {
        if (store) {
            sim_mem_put(p, size, *val);
            sim_mem_note_store(m, h, addr);
        } else {
            *val = sim_mem_get(p, size);
        }
    } else {
        int ri = sim_mem_find_ram(m, addr, size);
        rc = store ? sim_hart_store_slow(h, ri, addr, size, *val)
                   : sim_hart_load_slow(h, ri, addr, size, val);
        if (!rc && store)
            sim_mem_note_store(m, h, addr);
        if (ri >= 0)
            s->ram = ri;
    }
    uint64_t line = (addr >> 6) + 1;
    if (!rc && line == s->line) {
        /* The same line as the last access: charged once, and counted
         * once (the run of elements is one cache access). */
        h->cycle = before;
        if (hits)
            *hits = hits_before;
    } else {
        h->mem_cycles += h->cycle - before;
        s->line = line;
    }
    return rc;
}

/* The shape of one instruction's accesses. */
typedef struct vshape {
    unsigned form, nf, bytes; /* data element bytes */
    unsigned field_regs;      /* registers between fields' groups */
    unsigned ibytes;          /* index bytes (indexed) */
    uint64_t evl, base, stride;
    uint8_t index[8 * SIM_VLENB]; /* the index group, copied first */
} vshape;

static uint64_t elem_addr(const vshape *s, uint64_t i, unsigned f)
{
    switch (s->form) {
    case VEC_STRIDED: return s->base + i * s->stride + (uint64_t)f * s->bytes;
    case VEC_INDEXED:
    case VEC_INDEXED_ORDERED:
        return s->base + sim_mem_get(s->index + i * s->ibytes, s->ibytes) +
               (uint64_t)f * s->bytes;
    default: return s->base + (i * s->nf + f) * s->bytes;
    }
}

static int lg2(unsigned v)
{
    return __builtin_ctz(v);
}

/* A store whose active elements are contiguous bytes in memory and in
 * the register file (unit-stride with one field and no mask, whole
 * register, mask) handed to the memory as one write when it takes one
 * there (sim_mem.h store_bytes: a NoC window; one posted write of the
 * bytes, as on the card).  False: nothing stored, take the element path
 * (any other memory, a trigger armed or a PMP entry locked, a misaligned
 * base, a part that faults: the element path finds the element). */
static bool one_write(sim_hart *h, const sim_vec_insn *vi, const vshape *s, unsigned vd)
{
    sim_mem *m = h->mem;
    if (!m->store_bytes || h->checks_mem || !vi->vm || s->nf != 1 ||
        (s->form != VEC_UNIT && s->form != VEC_WHOLE && s->form != VEC_MASK) ||
        (s->base & (s->bytes - 1)))
        return false;
    uint64_t addr = s->base + h->vstart * s->bytes, n = (s->evl - h->vstart) * s->bytes;
    uint64_t before = h->cycle;
    if (m->store_bytes(m, h, addr, vec_at(h, vd, h->vstart, s->bytes), n) != 0)
        return false;
    h->mem_cycles += h->cycle - before;
    for (uint64_t line = addr & ~(uint64_t)63; line < addr + n; line += 64)
        sim_mem_note_store(m, h, line < addr ? addr : line);
    uint64_t last = s->evl - 1;
    sim_commit_store(h, addr + n - s->bytes, vec_get(h, vd, last, s->bytes), s->bytes);
    return true;
}

/* Element i of a contiguous access (one field, every element active,
 * element j at base + j * bytes) has just reached its line through
 * vacc_access: the elements after it in the same line, at once, when
 * vacc_access would serve each of them inline (RAM, or a hit in the
 * cluster cache's inline window) — for each of those it moves the bytes,
 * then takes back its charge and its hit (the line's first access paid
 * and counted for the run), and a store marks the line dirty and ends the
 * other harts' reservations on it again: nothing more than the bytes.
 * The number of elements done (0: none, the element path goes on). */
static uint64_t line_rest(vacc *a, const vshape *s, uint64_t i, unsigned vd, bool store)
{
    uint64_t addr = s->base + (i + 1) * s->bytes;
    if (!a->quiet || (addr & 63) == 0 || i + 1 >= s->evl)
        return 0;
    uint64_t k = (64 - (addr & 63)) / s->bytes;
    if (k > s->evl - (i + 1))
        k = s->evl - (i + 1);
    uint64_t n = k * s->bytes;
    sim_hart *h = a->h;
    sim_mem *m = h->mem;
    const sim_ram *r = a->ram >= 0 ? &m->ram[a->ram] : NULL;
    uint8_t *p;
    if (r && addr - r->base < r->size) {
        if (r->size - (addr - r->base) < n)
            return 0; /* the range ends inside the line: one at a time */
        p = r->host + (addr - r->base);
    } else if ((p = sim_mem_cached_hit(m, addr, store)) != NULL) {
        --*m->cached.hits; /* the same line: counted once */
    } else {
        return 0;
    }
    if (store) {
        memcpy(p, vec_at(h, vd, i + 1, s->bytes), n);
        sim_mem_note_store(m, h, addr);
    } else {
        memcpy(vec_at(h, vd, i + 1, s->bytes), p, n);
    }
    return k;
}

/* The range of RAM that [lo, hi] lies in, as the element path would
 * reach it: the hart's hint (the element path's first try), or another
 * range when the cluster cache's window cannot take any part of it (the
 * element path asks the window before it looks the range up); NULL:
 * take the element path. */
static const sim_ram *plain_ram(const sim_hart *h, uint64_t lo, uint64_t hi)
{
    const sim_mem *m = h->mem;
    if (hi < lo)
        return NULL;
    if (h->ram_hint < m->nram) {
        const sim_ram *r = &m->ram[h->ram_hint];
        if (lo - r->base < r->size && hi - r->base < r->size)
            return r;
    }
    const sim_mem_cached *c = &m->cached;
    if (c->size && hi >= c->base && lo - c->base < c->size)
        return NULL;
    if (c->size && lo < c->base && hi >= c->base)
        return NULL;
    int ri = sim_mem_find_ram(m, lo, hi - lo + 1);
    return ri >= 0 ? &m->ram[ri] : NULL;
}

/* One field's elements (unit-stride, strided, whole register, mask,
 * fault-only-first) all in one range of plain RAM, aligned, with nothing
 * watching, recording or checking: what the element path would do, at
 * one go — the same bytes, each line's latency once per run of accesses
 * inside it, the same reservations ended — without its calls per
 * element.  False: nothing done, take the element path. */
static bool plain_access(sim_hart *h, const sim_vec_insn *vi, const vshape *s, unsigned vd)
{
    if (!vec_fast_on || h->nwatches || h->commit || h->checks_mem || s->nf != 1 || s->form == VEC_INDEXED ||
        s->form == VEC_INDEXED_ORDERED || (s->base & (s->bytes - 1)))
        return false;
    unsigned b = s->bytes;
    uint64_t first = h->vstart, n = s->evl - first;
    int64_t step = s->form == VEC_STRIDED ? (int64_t)s->stride : (int64_t)b;
    if (step % (int64_t)b)
        return false;
    uint64_t a0 = s->base + first * (uint64_t)step, a1 = a0 + (n - 1) * (uint64_t)step;
    /* no wrap: the span of the addresses is the elements' */
    unsigned __int128 span = (unsigned __int128)(n - 1) * (uint64_t)(step < 0 ? -step : step);
    if (span >> 63)
        return false;
    uint64_t lo = step < 0 ? a1 : a0, hi = (step < 0 ? a0 : a1) + b - 1;
    const sim_ram *r = plain_ram(h, lo, hi);
    if (!r)
        return false;
    sim_mem *m = h->mem;
    uint8_t *reg = vec_at(h, vd, first, b), *mem = r->host + (a0 - r->base);
    bool store = vi->store;
    uint64_t lines = 0;
    if (vi->vm && step == (int64_t)b) {
        uint64_t len = n * b;
        if (store)
            memcpy(mem, reg, len);
        else
            memcpy(reg, mem, len);
        lines = ((a0 + len - 1) >> 6) - (a0 >> 6) + 1;
        if (store)
            for (uint64_t l = a0 & ~(uint64_t)63; l < a0 + len; l += 64)
                sim_mem_note_store(m, h, l < a0 ? a0 : l);
    } else {
        uint64_t last = 0; /* the line of the last access, + 1 */
        for (uint64_t i = 0; i < n; i++) {
            if (!vec_active(h, vi->vm, first + i))
                continue;
            uint64_t addr = a0 + i * (uint64_t)step;
            uint8_t *p = mem + (int64_t)i * step;
            if (store)
                memcpy(p, reg + i * b, b);
            else
                memcpy(reg + i * b, p, b);
            if ((addr >> 6) + 1 != last) {
                last = (addr >> 6) + 1;
                lines++;
                if (store)
                    sim_mem_note_store(m, h, addr);
            }
        }
    }
    h->cycle += lines * r->latency;
    h->mem_cycles += lines * r->latency;
    return true;
}

int vec_mem(sim_hart *h, const sim_vec_insn *vi, uint32_t bits, uint64_t *tval)
{
    vshape s;
    unsigned vd = vec_vd(bits), vs2 = vec_vs2(bits);
    unsigned sew = vec_sew_bytes(h->vtype);
    int lmul = vec_lmul_log2(h->vtype);
    bool store = vi->store, indexed = false;
    int lg_d, lg_i = 0;

    s.form = vi->form;
    s.nf = vi->nf;
    s.base = h->x[vec_rs1(bits)];
    switch (vi->form) {
    case VEC_WHOLE:
        s.bytes = vi->eew;
        lg_d = lg2(vi->nf);
        s.evl = (uint64_t)vi->nf * SIM_VLENB / vi->eew;
        s.nf = 1;
        break;
    case VEC_MASK:
        s.bytes = 1;
        lg_d = 0;
        s.evl = (h->vl + 7) / 8;
        break;
    case VEC_INDEXED:
    case VEC_INDEXED_ORDERED:
        indexed = true;
        s.bytes = sew;
        s.ibytes = vi->eew;
        lg_d = lmul;
        lg_i = lg2(vi->eew) - lg2(sew) + lmul;
        if (lg_i < -3 || lg_i > 3 || !vec_aligned(vs2, lg_i))
            return SIM_CAUSE_ILLEGAL;
        s.evl = h->vl;
        break;
    default: /* unit-stride, strided, fault-only-first */
        s.bytes = vi->eew;
        lg_d = lg2(vi->eew) - lg2(sew) + lmul;
        if (lg_d < -3 || lg_d > 3)
            return SIM_CAUSE_ILLEGAL;
        s.evl = h->vl;
        s.stride = h->x[vs2];
        break;
    }
    s.field_regs = lg_d > 0 ? 1u << lg_d : 1;
    if (!vec_aligned(vd, lg_d) || s.nf * s.field_regs > 8 || vd + s.nf * s.field_regs > 32)
        return SIM_CAUSE_ILLEGAL;
    if (!store && !vi->vm && vd == 0) /* a masked load cannot write v0 */
        return SIM_CAUSE_ILLEGAL;
    if (indexed && !store)
        for (unsigned f = 0; f < s.nf; f++) {
            unsigned r = vd + f * s.field_regs;
            if (s.nf > 1 ? vec_overlap(r, lg_d, vs2, lg_i)
                         : !vec_overlap_ok(r, lg_d, s.bytes, vs2, lg_i, s.ibytes))
                return SIM_CAUSE_ILLEGAL;
        }

    if (h->vstart >= s.evl) {
        h->vstart = 0;
        return 0;
    }
    if (indexed)
        memcpy(s.index, vec_at(h, vs2, 0, 1), s.evl * s.ibytes);

    /* A watch sees every address before anything is reached. */
    unsigned nwatches = h->nwatches;
    if (nwatches) {
        bool stop = false;
        for (uint64_t i = h->vstart; i < s.evl; i++)
            if (vec_active(h, vi->vm, i))
                for (unsigned f = 0; f < s.nf; f++)
                    stop |= sim_watch_check(h, elem_addr(&s, i, f), s.bytes, store);
        if (stop)
            return SIM_HART_STOPPED;
        h->nwatches = 0; /* checked: the accesses below do not ask again */
    }

    if (store && one_write(h, vi, &s, vd)) {
        h->nwatches = nwatches;
        h->vstart = 0;
        vec_charge(h, s.evl * s.nf * s.bytes * 8, 1);
        return 0;
    }
    if (plain_access(h, vi, &s, vd)) {
        h->vstart = 0;
        vec_charge(h, s.evl * s.nf * s.bytes * 8, 1);
        return 0;
    }
    vacc a = {h, !nwatches && !h->commit && !h->checks_mem,
              h->ram_hint < h->mem->nram ? (int)h->ram_hint : -1, 0};
    int rc = 0;
    h->vmem = store ? SIM_MEM_VSTORE : SIM_MEM_VLOAD;
    /* element i at base + i * bytes, every one active: line_rest's */
    bool contiguous = vi->vm && s.nf == 1 && s.form != VEC_STRIDED && s.form != VEC_INDEXED &&
                      s.form != VEC_INDEXED_ORDERED;
    uint64_t i;
    for (i = h->vstart; i < s.evl && !rc; i++) {
        if (!vec_active(h, vi->vm, i))
            continue;
        for (unsigned f = 0; f < s.nf; f++) {
            uint64_t addr = elem_addr(&s, i, f), v = 0;
            unsigned r = vd + f * s.field_regs;
            if (store)
                v = vec_get(h, r, i, s.bytes);
            rc = vacc_access(&a, addr, s.bytes, store, &v);
            if (rc) {
                *tval = addr;
                break;
            }
            if (!store)
                vec_set(h, r, i, s.bytes, v);
        }
        if (!rc && contiguous)
            i += line_rest(&a, &s, i, vd, store);
    }
    h->nwatches = nwatches;
    h->vmem = 0;
    if (rc) {
        i--; /* the faulting element */
        if (vi->form == VEC_FF && i > 0) {
            h->vl = i;
            rc = 0;
        } else {
            h->vstart = i;
            return rc;
        }
    }
    h->vstart = 0;
    vec_charge(h, s.evl * s.nf * s.bytes * 8, 1);
    return 0;
}
