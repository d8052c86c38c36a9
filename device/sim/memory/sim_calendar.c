/* sim_calendar.c: a window of equal slots, each free or taken
 * (sim_calendar.h). */
#include "sim_calendar.h"

#include <string.h>

/* Slot s's bit: s % slots, a mask where slots is a power of two (every
 * user's: a division costs the host more than the rest of a take). */
static uint64_t bit_of(const sim_calendar_rule *r, uint64_t s)
{
    return (r->slots & (r->slots - 1u)) == 0 ? s & (r->slots - 1u) : s % r->slots;
}

static bool busy_at(const sim_calendar_rule *r, const uint64_t *busy, uint64_t s)
{
    uint64_t bit = bit_of(r, s);
    return (busy[bit / 64u] >> (bit % 64u)) & 1u;
}

/* Moves the window forward so that slot s fits, forgetting the slots it
 * leaves behind. */
static void slide_to(const sim_calendar_rule *r, uint64_t *base, uint64_t *busy, uint64_t s)
{
    if (s < *base + r->slots)
        return;
    uint64_t to = r->slide_ahead ? (s - r->slots + 1u + r->slots / 4u) & ~(uint64_t)63u
                                 : s - r->slots + 1u;
    if (to - *base >= r->slots) {
        memset(busy, 0, r->slots / 8u);
    } else if (r->slide_ahead) {
        for (uint64_t old = *base; old < to; old += 64u) /* whole words */
            busy[bit_of(r, old) / 64u] = 0;
    } else {
        /* the bits of slots *base .. to - 1, fewer than the window's, a
         * word's run at a time (slots is a multiple of 64: a run never
         * wraps inside a word) */
        uint64_t n = to - *base, bit = bit_of(r, *base);
        while (n > 0) {
            uint64_t at = bit % 64u, k = 64u - at < n ? 64u - at : n;
            uint64_t ones = k == 64u ? UINT64_MAX : (((uint64_t)1 << k) - 1u) << at;
            busy[bit / 64u] &= ~ones;
            n -= k;
            bit += k;
            if (bit == r->slots)
                bit = 0;
        }
    }
    *base = to;
}

uint64_t sim_calendar_take(const sim_calendar_rule *r, uint64_t *base, uint64_t *busy,
                           uint64_t s)
{
    if (s < *base) {
        if (!r->past_taken)
            return s;
        s = *base;
    }
    slide_to(r, base, busy, s);
    while (busy_at(r, busy, s)) {
        /* A whole busy word at once when s starts it — only where the
         * window moves by words: then the word is all inside it, while a
         * window that moves just far enough may still hold, in the word's
         * later bits, older slots that the next steps forget. */
        uint64_t bit = bit_of(r, s);
        s += r->slide_ahead && bit % 64u == 0 && busy[bit / 64u] == UINT64_MAX ? 64u : 1u;
        slide_to(r, base, busy, s);
    }
    uint64_t bit = bit_of(r, s);
    busy[bit / 64u] |= (uint64_t)1 << (bit % 64u);
    return s;
}
