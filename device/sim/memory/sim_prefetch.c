/* sim_prefetch.c: a hart's L2 stride prefetcher (sim_prefetch.h). */
#include "sim_prefetch.h"

#include <stddef.h>
#include <string.h>

#include "blackhole.h"

_Static_assert(SIM_PF_RING > 0x3Fu, "the ring holds the longest distance the fields allow");

void sim_prefetch_forget(sim_prefetch *p)
{
    memset(p->s, 0, sizeof p->s);
    for (unsigned i = 0; i < SIM_PF_STREAMS; i++) {
        p->order[i] = (uint8_t)i;
    }
}

void sim_prefetch_reset(sim_prefetch *p, uint64_t near, uint64_t far, uint32_t reach)
{
    memset(p, 0, sizeof *p);
    p->basic = BH_L2PF_BASIC_RESET;
    p->additional = BH_L2PF_ADDITIONAL_RESET;
    p->near = near;
    p->far = far;
    p->reach = reach;
    sim_prefetch_forget(p);
}

bool sim_prefetch_read(const sim_prefetch *p, uint32_t offset, uint32_t *value)
{
    if (offset == BH_L2PF_BASIC) {
        *value = p->basic;
    } else if (offset == BH_L2PF_ADDITIONAL) {
        *value = p->additional;
    } else {
        return false;
    }
    return true;
}

bool sim_prefetch_write(sim_prefetch *p, uint32_t offset, uint32_t value)
{
    if (offset == BH_L2PF_BASIC) {
        p->basic = value & BH_L2PF_BASIC_MASK;
    } else if (offset == BH_L2PF_ADDITIONAL) {
        p->additional = value & BH_L2PF_ADDITIONAL_MASK;
    } else {
        return false;
    }
    return true;
}

static bool enabled(const sim_prefetch *p, sim_pf_kind kind)
{
    switch (kind) {
    case SIM_PF_SCALAR_LOAD:
        return BH_L2PF_SCALAR_LOADS(p->basic) != 0;
    case SIM_PF_SCALAR_STORE:
        return BH_L2PF_SCALAR_STORES(p->additional) != 0;
    case SIM_PF_VECTOR_LOAD:
        return BH_L2PF_VECTOR_LOADS(p->additional) != 0;
    case SIM_PF_VECTOR_STORE:
        return BH_L2PF_VECTOR_STORES(p->additional) != 0;
    }
    return false;
}

/* Stream order[pos] becomes the most recently used. */
static sim_pf_stream *touch(sim_prefetch *p, unsigned pos)
{
    uint8_t s = p->order[pos];
    memmove(&p->order[1], &p->order[0], pos);
    p->order[0] = s;
    return &p->s[s];
}

/* Prefetches up to `dist` lines past demand index s->k, issued at now. */
static void issue(sim_prefetch *p, sim_pf_stream *s, uint64_t now)
{
    for (uint64_t i = s->front + 1u; i <= s->k + s->dist; i++) {
        s->issued[i % SIM_PF_RING] = now;
        p->issued++;
    }
    if (s->k + s->dist > s->front) {
        s->front = s->k + s->dist;
    }
}

static void grow(const sim_prefetch *p, sim_pf_stream *s)
{
    uint32_t max = BH_L2PF_MAX_DIST(p->basic);
    uint32_t dist = s->dist < BH_L2PF_LIN_TO_EXP(p->basic) || s->dist == 0 ? s->dist + 1u
                                                                            : s->dist * 2u;
    s->dist = dist < max ? dist : max > s->dist ? max : s->dist;
}

static uint64_t fetch_cycles(const sim_prefetch *p, int64_t stride)
{
    return stride > 0 && (uint64_t)stride <= p->reach ? p->near : p->far;
}

bool sim_prefetch_miss(sim_prefetch *p, sim_pf_kind kind, uint64_t line, uint64_t now,
                       uint64_t *wait)
{
    *wait = 0;
    if (!enabled(p, kind)) {
        return false;
    }
    line++; /* 0 marks a free entry */
    /* A trained stream it continues. */
    for (unsigned pos = 0; pos < SIM_PF_STREAMS; pos++) {
        sim_pf_stream *s = &p->s[p->order[pos]];
        if (s->line == 0 || s->stride == 0 || line != s->line + (uint64_t)s->stride) {
            continue;
        }
        s = touch(p, pos);
        s->k++;
        s->line = line;
        bool covered = s->k <= s->front;
        if (covered) {
            uint64_t arrives = s->issued[s->k % SIM_PF_RING] + fetch_cycles(p, s->stride);
            if (arrives > now) {
                *wait = arrives - now;
                uint32_t threshold = BH_L2PF_HIT_MSHR(p->additional);
                if (++s->in_flight >= threshold) {
                    s->in_flight = 0;
                    grow(p, s);
                }
            }
            p->covered++;
        }
        issue(p, s, now);
        return covered;
    }
    /* An untrained one it trains: a stride less than `window` lines. */
    uint64_t window = BH_L2PF_WINDOW(p->additional);
    for (unsigned pos = 0; pos < SIM_PF_STREAMS; pos++) {
        sim_pf_stream *s = &p->s[p->order[pos]];
        if (s->line == 0 || s->stride != 0 || line == s->line) {
            continue;
        }
        uint64_t gap = line > s->line ? line - s->line : s->line - line;
        if (gap >= window) {
            continue;
        }
        s = touch(p, pos);
        s->stride = line > s->line ? (int64_t)gap : -(int64_t)gap;
        s->line = line;
        s->dist = BH_L2PF_INITIAL_DIST(p->basic);
        s->in_flight = 0;
        s->k = 0;
        s->front = 0;
        issue(p, s, now);
        return false;
    }
    /* A new stream, in place of the least recently used. */
    sim_pf_stream *s = touch(p, SIM_PF_STREAMS - 1u);
    memset(s, 0, offsetof(sim_pf_stream, issued));
    s->line = line;
    return false;
}
