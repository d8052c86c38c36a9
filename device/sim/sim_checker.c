/* sim_checker.c: the hand-over checker (sim_checker.h). */
#include "sim_checker.h"

#include <stdlib.h>
#include <string.h>

/* A DRAM line's last writer: open addressing on (bank, line). */
typedef struct line_rec {
    uint64_t key;     /* bank << 58 | line / 64, + 1 (0: empty) */
    uint64_t version; /* the write's number */
    sim_site writer;
} line_rec;

/* A cached line of a cluster. */
typedef struct cache_rec {
    uint64_t fill_version; /* the DRAM line's version when it was filled */
    uint64_t dirty;        /* bit b: byte b stored since the fill */
    sim_site fill, store;  /* the load that filled it, the last store */
} cache_rec;

/* A finding already made: (kind, line, pc) once. */
typedef struct seen_key {
    uint16_t kind;
    unsigned bank;
    uint64_t line, pc;
} seen_key;

struct sim_checker {
    sim_dram *dram;
    line_rec *lines;
    size_t cap, used;
    uint64_t version;
    sim_site at; /* the access in progress */
    const sim_cache *caches[BH_CLUSTERS];
    cache_rec *recs[BH_CLUSTERS]; /* SIM_CACHE_LINES each */
    sim_handover found[SIM_CHECKER_MAX];
    seen_key seen[SIM_CHECKER_MAX];
    unsigned nfound;
};

static uint64_t key_of(unsigned bank, uint64_t line)
{
    return ((uint64_t)bank << 58 | line / BH_LINE_BYTES) + 1u;
}

static size_t slot_of(const sim_checker *ck, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (ck->cap - 1u);
}

static line_rec *find(const sim_checker *ck, unsigned bank, uint64_t line)
{
    uint64_t key = key_of(bank, line);
    for (size_t s = slot_of(ck, key);; s = (s + 1u) & (ck->cap - 1u)) {
        line_rec *r = &ck->lines[s];
        if (r->key == key)
            return r;
        if (r->key == 0)
            return NULL;
    }
}

static bool grow(sim_checker *ck)
{
    size_t cap = ck->cap ? ck->cap * 2u : 4096u;
    line_rec *old = ck->lines, *lines = calloc(cap, sizeof *lines);
    if (!lines)
        return false;
    size_t oldcap = ck->cap;
    ck->lines = lines;
    ck->cap = cap;
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].key == 0)
            continue;
        size_t s = slot_of(ck, old[i].key);
        while (lines[s].key != 0)
            s = (s + 1u) & (cap - 1u);
        lines[s] = old[i];
    }
    free(old);
    return true;
}

/* The record of a line, made if new (NULL when memory runs out: the line
 * is then not checked). */
static line_rec *record(sim_checker *ck, unsigned bank, uint64_t line)
{
    line_rec *r = find(ck, bank, line);
    if (r)
        return r;
    if ((ck->used + 1u) * 2u > ck->cap && !grow(ck))
        return NULL;
    uint64_t key = key_of(bank, line);
    size_t s = slot_of(ck, key);
    while (ck->lines[s].key != 0)
        s = (s + 1u) & (ck->cap - 1u);
    ck->used++;
    ck->lines[s] = (line_rec){.key = key};
    return &ck->lines[s];
}

static uint64_t version_of(const sim_checker *ck, unsigned bank, uint64_t line)
{
    const line_rec *r = find(ck, bank, line);
    return r ? r->version : 0;
}

/* A write of DRAM line `line` by `by`. */
static void written(sim_checker *ck, unsigned bank, uint64_t line, const sim_site *by)
{
    line_rec *r = record(ck, bank, line);
    if (r) {
        r->version = ++ck->version;
        r->writer = *by;
    }
}

static void watch(void *ctx, unsigned bank, uint64_t addr, uint64_t n, const void *writer)
{
    (void)writer;
    sim_checker *ck = ctx;
    for (uint64_t line = sim_cache_line_of(addr); line < addr + n; line += BH_LINE_BYTES)
        written(ck, bank, line, &ck->at);
}

sim_checker *sim_checker_create(sim_dram *dram)
{
    sim_checker *ck = calloc(1, sizeof *ck);
    if (!ck || !grow(ck)) {
        free(ck);
        return NULL;
    }
    ck->dram = dram;
    for (unsigned b = 0; b < BH_DRAM_BANKS; b++) {
        if (sim_dram_watch(dram, b, watch, ck) != 0) {
            sim_checker_free(ck);
            return NULL;
        }
    }
    return ck;
}

void sim_checker_free(sim_checker *ck)
{
    if (!ck)
        return;
    sim_dram_unwatch(ck->dram, watch, ck);
    for (unsigned c = 0; c < BH_CLUSTERS; c++)
        free(ck->recs[c]);
    free(ck->lines);
    free(ck);
}

void sim_checker_add_cache(sim_checker *ck, unsigned cluster, const sim_cache *cache)
{
    if (cluster >= BH_CLUSTERS)
        return;
    if (!ck->recs[cluster])
        ck->recs[cluster] = calloc(SIM_CACHE_LINES, sizeof(cache_rec));
    ck->caches[cluster] = ck->recs[cluster] ? cache : NULL;
}

void sim_checker_at(sim_checker *ck, const sim_site *site)
{
    if (site)
        ck->at = *site;
    else
        memset(&ck->at, 0, sizeof ck->at);
}

/* ---- findings -------------------------------------------------------------- */

static void report(sim_checker *ck, uint16_t kind, unsigned bank, uint64_t addr, unsigned bytes,
                   const sim_site *at, const sim_site *writer, const sim_site *fill)
{
    seen_key k = {kind, bank, sim_cache_line_of(addr), at->pc};
    for (unsigned i = 0; i < ck->nfound; i++)
        if (ck->seen[i].kind == k.kind && ck->seen[i].bank == k.bank && ck->seen[i].line == k.line &&
            ck->seen[i].pc == k.pc)
            return;
    if (ck->nfound == SIM_CHECKER_MAX)
        return;
    ck->seen[ck->nfound] = k;
    sim_handover *h = &ck->found[ck->nfound++];
    memset(h, 0, sizeof *h);
    h->kind = kind;
    h->bytes = (uint16_t)bytes;
    h->bank = bank;
    h->bank_address = addr;
    h->at = *at;
    if (writer)
        h->writer = *writer;
    if (fill)
        h->fill = *fill;
}

const sim_handover *sim_checker_found(const sim_checker *ck, unsigned *n)
{
    *n = ck->nfound;
    return ck->found;
}

/* The first of n bytes that differ, or n. */
static unsigned first_difference(const uint8_t *a, const uint8_t *b, unsigned n, uint64_t skip)
{
    for (unsigned i = 0; i < n; i++)
        if (!((skip >> i) & 1u) && a[i] != b[i])
            return i;
    return n;
}

/* ---- a cluster's cache ----------------------------------------------------- */

static cache_rec *rec_of(sim_checker *ck, unsigned cluster, unsigned i)
{
    return cluster < BH_CLUSTERS && ck->recs[cluster] && ck->caches[cluster]
               ? &ck->recs[cluster][i]
               : NULL;
}

void sim_checker_filled(sim_checker *ck, unsigned cluster, unsigned i, uint64_t line)
{
    cache_rec *r = rec_of(ck, cluster, i);
    if (!r)
        return;
    const sim_cache *c = ck->caches[cluster];
    /* The fill read DRAM around every other cluster's cache. */
    sim_checker_read(ck, c->bank, line, BH_LINE_BYTES, cluster);
    r->fill_version = version_of(ck, c->bank, line);
    r->dirty = 0;
    r->fill = ck->at;
    memset(&r->store, 0, sizeof r->store);
}

void sim_checker_stored(sim_checker *ck, unsigned cluster, unsigned i, uint64_t addr,
                        unsigned size)
{
    cache_rec *r = rec_of(ck, cluster, i);
    if (!r)
        return;
    uint64_t mask = size >= 64u ? ~0ull : ((1ull << size) - 1u);
    r->dirty |= mask << (addr % BH_LINE_BYTES);
    r->store = ck->at;
}

void sim_checker_hit(sim_checker *ck, unsigned cluster, unsigned i, uint64_t addr, unsigned size)
{
    cache_rec *r = rec_of(ck, cluster, i);
    if (!r)
        return;
    const sim_cache *c = ck->caches[cluster];
    uint64_t line = sim_cache_line_of(addr);
    const line_rec *w = find(ck, c->bank, line);
    if (!w || w->version <= r->fill_version)
        return; /* nobody wrote DRAM since the fill */
    unsigned off = (unsigned)(addr % BH_LINE_BYTES);
    uint8_t whole[BH_LINE_BYTES];
    sim_dram_read_line(ck->dram, c->bank, line, whole);
    unsigned d = first_difference(&c->data[i][off], whole + off, size, r->dirty >> off);
    if (d < size)
        report(ck, SIM_HANDOVER_STALE_READ, c->bank, addr + d, size - d, &ck->at, &w->writer,
               &r->fill);
}

void sim_checker_write_back(sim_checker *ck, unsigned cluster, unsigned i)
{
    cache_rec *r = rec_of(ck, cluster, i);
    if (!r)
        return;
    const sim_cache *c = ck->caches[cluster];
    uint64_t line = c->tag[i] & ~(uint64_t)SIM_CACHE_STATE_BITS;
    const line_rec *w = find(ck, c->bank, line);
    if (w && w->version > r->fill_version) {
        uint8_t whole[BH_LINE_BYTES];
        sim_dram_read_line(ck->dram, c->bank, line, whole);
        unsigned d = first_difference(c->data[i], whole, BH_LINE_BYTES, r->dirty);
        if (d < BH_LINE_BYTES) {
            sim_site at = r->store;
            at.ps = ck->at.ps; /* when it is written back */
            report(ck, SIM_HANDOVER_LOST_WRITE, c->bank, line + d, BH_LINE_BYTES - d, &at,
                   &w->writer, &r->fill);
        }
    }
    written(ck, c->bank, line, &r->store);
    r->dirty = 0;
}

void sim_checker_read(sim_checker *ck, unsigned bank, uint64_t addr, uint64_t n, unsigned except)
{
    for (uint64_t line = sim_cache_line_of(addr); line < addr + n; line += BH_LINE_BYTES) {
        for (unsigned cl = 1; cl < BH_CLUSTERS; cl++) {
            const sim_cache *c = ck->caches[cl];
            if (cl == except || !c || c->bank != bank)
                continue;
            unsigned i = sim_cache_index(line);
            if ((c->tag[i] & ~(uint64_t)SIM_CACHE_VALID) != (line | SIM_CACHE_DIRTY))
                continue; /* not held dirty */
            const cache_rec *r = &ck->recs[cl][i];
            uint64_t from = addr > line ? addr - line : 0;
            uint64_t to = addr + n < line + BH_LINE_BYTES ? addr + n - line : BH_LINE_BYTES;
            uint8_t whole[BH_LINE_BYTES];
            sim_dram_read_line(ck->dram, bank, line, whole);
            for (uint64_t b = from; b < to; b++) {
                if (((r->dirty >> b) & 1u) && c->data[i][b] != whole[b]) {
                    report(ck, SIM_HANDOVER_UNFLUSHED_READ, bank, line + b, (unsigned)(to - b),
                           &ck->at, &r->store, NULL);
                    break;
                }
            }
        }
    }
}
