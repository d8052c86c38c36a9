/* sim_checker.c: the hand-over checker (sim_checker.h). */
#include "sim_checker.h"

#include <stdlib.h>
#include <string.h>

#include "sim_marks.h"

/* A cached line of a cluster.  `foreign`: someone else wrote the line's
 * DRAM copy since the fill (marked at the write, for every cache holding
 * the line, so a hit costs one test). */
typedef struct cache_rec {
    bool foreign;
    uint64_t written;        /* foreign: bit b, byte b of DRAM written since the fill */
    uint64_t dirty;          /* bit b: byte b stored since the fill */
    sim_site fill, store;    /* the load that filled it, the last store */
    sim_site writer;         /* foreign: the last one who wrote DRAM */
} cache_rec;

struct sim_checker {
    sim_dram *dram;
    sim_site at; /* the access in progress */
    const sim_cache *caches[BH_CLUSTERS];
    cache_rec *recs[BH_CLUSTERS]; /* SIM_CACHE_LINES each */
    sim_handover found[SIM_CHECKER_MAX];
    unsigned nfound;
    /* Latent reads: per bank, bit c over the bytes someone other than
     * cluster c wrote since c last swept their line. */
    sim_marks marks[BH_DRAM_BANKS];
    bool stale_now; /* the load in progress was reported stale */
};

/* The mask of every cluster with a cache but `except` (0: none). */
static uint8_t others(const sim_checker *ck, unsigned except)
{
    uint8_t m = 0;
    for (unsigned cl = 1; cl < BH_CLUSTERS; cl++)
        if (cl != except && ck->caches[cl])
            m |= (uint8_t)(1u << cl);
    return m;
}

/* DRAM line `line` of `bank` written by `by` (not cluster `except`'s own
 * write-back): every other cache that holds it now holds a copy someone
 * else changed. */
static void written(sim_checker *ck, unsigned bank, uint64_t line, uint64_t bytes,
                    const sim_site *by, unsigned except)
{
    /* The bytes written, a contiguous run (a write's or a whole line). */
    unsigned lo = (unsigned)__builtin_ctzll(bytes), hi = 64u - (unsigned)__builtin_clzll(bytes);
    sim_marks_change(&ck->marks[bank], line + lo, line + hi, others(ck, except), 0, by);
    unsigned i = sim_cache_index(line);
    for (unsigned cl = 1; cl < BH_CLUSTERS; cl++) {
        const sim_cache *c = ck->caches[cl];
        if (cl == except || !c || c->bank != bank || !sim_cache_holds(c, i, line))
            continue;
        ck->recs[cl][i].foreign = true;
        ck->recs[cl][i].written |= bytes;
        ck->recs[cl][i].writer = *by;
    }
}

static void watch(void *ctx, unsigned bank, uint64_t addr, uint64_t n, const void *writer)
{
    (void)writer;
    sim_checker *ck = ctx;
    for (uint64_t line = sim_cache_line_of(addr); line < addr + n; line += BH_LINE_BYTES) {
        uint64_t from = addr > line ? addr - line : 0;
        uint64_t to = addr + n < line + BH_LINE_BYTES ? addr + n - line : BH_LINE_BYTES;
        uint64_t bytes = (to - from >= 64u ? ~0ull : ((1ull << (to - from)) - 1u)) << from;
        written(ck, bank, line, bytes, &ck->at, 0);
    }
}

sim_checker *sim_checker_create(sim_dram *dram)
{
    sim_checker *ck = calloc(1, sizeof *ck);
    if (!ck)
        return NULL;
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
    for (unsigned b = 0; b < BH_DRAM_BANKS; b++)
        sim_marks_free(&ck->marks[b]);
    free(ck);
}

bool sim_checker_add_cache(sim_checker *ck, unsigned cluster, const sim_cache *cache)
{
    if (cluster >= BH_CLUSTERS)
        return true;
    if (!ck->recs[cluster])
        ck->recs[cluster] = calloc(SIM_CACHE_LINES, sizeof(cache_rec));
    ck->caches[cluster] = ck->recs[cluster] ? cache : NULL;
    return ck->recs[cluster] != NULL;
}

void sim_checker_at(sim_checker *ck, const sim_site *site)
{
    if (!ck)
        return;
    if (site)
        ck->at = *site;
    else
        memset(&ck->at, 0, sizeof ck->at);
}

/* ---- findings -------------------------------------------------------------- */

/* Whether two findings are of one hazard: the same kind and bank, the
 * same instruction (the cores of a kmx_parallel share it) and the same
 * writer. */
static bool same_hazard(const sim_handover *h, uint16_t kind, unsigned bank, const sim_site *at,
                        const sim_site *writer)
{
    return h->kind == kind && h->bank == bank && h->at.kind == at->kind &&
           h->at.cluster == at->cluster && h->at.pc == at->pc && h->writer.kind == writer->kind &&
           h->writer.cluster == writer->cluster && h->writer.pc == writer->pc;
}

static uint64_t first_line(const sim_handover *h)
{
    return sim_cache_line_of(h->bank_address);
}

static uint64_t last_line(const sim_handover *h)
{
    return sim_cache_line_of(h->end_address - 1u);
}

/* Finding k grew: another of the same hazard that now touches it (the
 * quarter of the next core) becomes part of it. */
static void merge_touching(sim_checker *ck, unsigned k)
{
    sim_handover *h = &ck->found[k];
    for (unsigned g = 0; g < ck->nfound; g++) {
        sim_handover *o = &ck->found[g];
        if (g == k || !same_hazard(o, h->kind, h->bank, &h->at, &h->writer))
            continue;
        if (first_line(o) == last_line(h) + BH_LINE_BYTES) {
            h->end_address = o->end_address;
        } else if (last_line(o) + BH_LINE_BYTES == first_line(h)) {
            h->bank_address = o->bank_address;
            h->bytes = o->bytes;
            if (o->at.ps < h->at.ps)
                h->at = o->at;
        } else {
            continue;
        }
        h->lines += o->lines;
        memmove(o, o + 1, (ck->nfound - g - 1) * sizeof *o);
        ck->nfound--;
        return; /* one at most each side; the other on a later line */
    }
}

static void report(sim_checker *ck, uint16_t kind, unsigned bank, uint64_t addr, unsigned bytes,
                   const sim_site *at, const sim_site *writer, const sim_site *fill)
{
    static const sim_site none;
    const sim_site *w = writer ? writer : &none;
    uint64_t line = sim_cache_line_of(addr), end = addr + bytes;
    /* A line of a finding already made, or the next one of its run. */
    for (unsigned k = ck->nfound; k-- > 0;) {
        sim_handover *h = &ck->found[k];
        if (!same_hazard(h, kind, bank, at, w) || line + BH_LINE_BYTES < first_line(h) ||
            line > last_line(h) + BH_LINE_BYTES)
            continue;
        if (line + BH_LINE_BYTES == first_line(h)) { /* before it: a loop walking down */
            h->bank_address = addr;
            h->bytes = (uint16_t)bytes;
            h->at = *at;
        } else if (line == last_line(h) + BH_LINE_BYTES) {
            h->end_address = end;
        } else { /* a line it has: its ends may grow */
            if (line == last_line(h) && end > h->end_address)
                h->end_address = end;
            if (line == first_line(h) && addr < h->bank_address) {
                h->bank_address = addr;
                h->bytes = (uint16_t)bytes;
            }
            return;
        }
        h->lines++;
        merge_touching(ck, k);
        return;
    }
    if (ck->nfound == SIM_CHECKER_MAX)
        return;
    sim_handover *h = &ck->found[ck->nfound++];
    memset(h, 0, sizeof *h);
    h->kind = kind;
    h->bytes = (uint16_t)bytes;
    h->bank = bank;
    h->bank_address = addr;
    h->end_address = end;
    h->lines = 1;
    h->at = *at;
    h->writer = *w;
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
    r->foreign = false;
    r->written = 0;
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
    ck->stale_now = false;
    cache_rec *r = rec_of(ck, cluster, i);
    if (!r)
        return;
    if (!r->foreign)
        return; /* nobody wrote DRAM since the fill */
    const sim_cache *c = ck->caches[cluster];
    uint64_t line = sim_cache_line_of(addr);
    unsigned off = (unsigned)(addr % BH_LINE_BYTES);
    uint8_t whole[BH_LINE_BYTES];
    sim_dram_read_line(ck->dram, c->bank, line, whole);
    unsigned d = first_difference(&c->data[i][off], whole + off, size, r->dirty >> off);
    if (d < size) {
        report(ck, SIM_HANDOVER_STALE_READ, c->bank, addr + d, size - d, &ck->at, &r->writer,
               &r->fill);
        ck->stale_now = true;
    }
}

void sim_checker_loaded(sim_checker *ck, unsigned cluster, uint64_t addr, unsigned size)
{
    const sim_cache *c = cluster < BH_CLUSTERS ? ck->caches[cluster] : NULL;
    if (!c)
        return;
    sim_marks *m = &ck->marks[c->bank];
    uint8_t bit = (uint8_t)(1u << cluster);
    const sim_mark *w = sim_marks_find(m, addr, addr + size, bit);
    bool stale = ck->stale_now;
    ck->stale_now = false;
    if (!w)
        return;
    /* once per cluster and line: the line's bytes the other side wrote */
    uint64_t line = sim_cache_line_of(addr);
    if (!stale) {
        uint64_t from = w->from > line ? w->from : line;
        uint64_t to = w->to < line + BH_LINE_BYTES ? w->to : line + BH_LINE_BYTES;
        report(ck, SIM_HANDOVER_LATENT_READ, c->bank, from, (unsigned)(to - from), &ck->at,
               &w->writer, NULL);
    }
    sim_marks_change(m, line, line + BH_LINE_BYTES, 0, bit, &ck->at);
}

void sim_checker_swept(sim_checker *ck, unsigned cluster, uint64_t line)
{
    const sim_cache *c = cluster < BH_CLUSTERS ? ck->caches[cluster] : NULL;
    if (c)
        sim_marks_change(&ck->marks[c->bank], line, line + BH_LINE_BYTES, 0,
                         (uint8_t)(1u << cluster), &ck->at);
}

void sim_checker_write_back(sim_checker *ck, unsigned cluster, unsigned i)
{
    cache_rec *r = rec_of(ck, cluster, i);
    if (!r)
        return;
    const sim_cache *c = ck->caches[cluster];
    uint64_t line = c->tag[i] & ~(uint64_t)SIM_CACHE_STATE_BITS;
    if (r->foreign) {
        uint8_t whole[BH_LINE_BYTES];
        sim_dram_read_line(ck->dram, c->bank, line, whole);
        /* The bytes the other side wrote; its own dirty ones among them
         * win, unless that write came after its last store. */
        uint64_t own = r->writer.ps > r->store.ps ? 0 : r->dirty;
        unsigned d = first_difference(c->data[i], whole, BH_LINE_BYTES, ~r->written | own);
        if (d < BH_LINE_BYTES) {
            sim_site at = r->store;
            at.ps = ck->at.ps; /* when it is written back */
            report(ck, SIM_HANDOVER_LOST_WRITE, c->bank, line + d, BH_LINE_BYTES - d, &at,
                   &r->writer, &r->fill);
        }
    }
    written(ck, c->bank, line, ~0ull, &r->store, cluster);
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
