/* sim_marks.c: byte ranges with a mask and a writer (sim_marks.h). */
#include "sim_marks.h"

#include <stdlib.h>
#include <string.h>

void sim_marks_free(sim_marks *m)
{
    free(m->v);
    *m = (sim_marks){0};
}

/* The first range whose end is past `at`. */
static size_t first_past(const sim_marks *m, uint64_t at)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid].to <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const sim_mark *sim_marks_find(const sim_marks *m, uint64_t from, uint64_t to, uint8_t bits)
{
    for (size_t i = first_past(m, from); i < m->n && m->v[i].from < to; i++)
        if (m->v[i].mask & bits)
            return &m->v[i];
    return NULL;
}

/* Appends a piece to out, joined to the last one when it continues it
 * with the same mask (the later writer kept). */
static void put(sim_mark *out, size_t *n, uint64_t from, uint64_t to, uint8_t mask,
                const sim_site *writer)
{
    if (from >= to || mask == 0)
        return;
    if (*n > 0 && out[*n - 1].to == from && out[*n - 1].mask == mask) {
        out[*n - 1].to = to;
        if (writer->ps >= out[*n - 1].writer.ps)
            out[*n - 1].writer = *writer;
        return;
    }
    out[(*n)++] = (sim_mark){.from = from, .to = to, .mask = mask, .writer = *writer};
}

int sim_marks_change(sim_marks *m, uint64_t from, uint64_t to, uint8_t set, uint8_t clear,
                     const sim_site *writer)
{
    if (from >= to)
        return 0;
    /* The ranges that overlap [from, to), with a neighbour either side
     * that may join: i..j. */
    size_t i = first_past(m, from), j = i;
    while (j < m->n && m->v[j].from < to)
        j++;
    size_t lo = i > 0 ? i - 1 : 0, hi = j < m->n ? j + 1 : j;
    /* At most: each range split in three, a gap before each and after. */
    size_t most = 3 * (hi - lo) + (j - i) + 2;
    sim_mark *out = malloc(most * sizeof *out);
    if (!out)
        return -1;
    size_t n = 0;
    uint8_t fresh = (uint8_t)(set & ~clear); /* where nothing was marked */
    uint64_t at = from; /* the first byte of [from, to) not yet put */
    for (size_t k = lo; k < hi; k++) {
        const sim_mark *r = &m->v[k];
        if (r->to <= from || r->from >= to) { /* a neighbour: as it is */
            if (r->from >= to && at < to) {
                put(out, &n, at, to, fresh, writer); /* the gap before it */
                at = to;
            }
            put(out, &n, r->from, r->to, r->mask, &r->writer);
            continue;
        }
        put(out, &n, r->from, r->from > from ? r->from : from, r->mask, &r->writer);
        if (r->from > at)
            put(out, &n, at, r->from, fresh, writer); /* a gap inside */
        uint64_t a = r->from > from ? r->from : from, b = r->to < to ? r->to : to;
        uint8_t mask = (uint8_t)((r->mask | set) & ~clear);
        put(out, &n, a, b, mask, set ? writer : &r->writer);
        put(out, &n, b, r->to, r->mask, &r->writer);
        at = b;
    }
    if (at < to)
        put(out, &n, at, to, fresh, writer);
    /* Splice out[0..n) in place of v[lo..hi). */
    size_t total = m->n - (hi - lo) + n;
    if (total > m->cap) {
        size_t cap = m->cap ? m->cap : 16;
        while (cap < total)
            cap *= 2;
        sim_mark *v = realloc(m->v, cap * sizeof *v);
        if (!v) {
            free(out);
            return -1;
        }
        m->v = v;
        m->cap = cap;
    }
    if (m->n > hi) /* (never with no ranges: memmove of NULL is undefined) */
        memmove(m->v + lo + n, m->v + hi, (m->n - hi) * sizeof *m->v);
    if (n > 0)
        memcpy(m->v + lo, out, n * sizeof *out);
    m->n = total;
    free(out);
    return 0;
}
