/* sim_calendar.c: a window of equal slots, each free or taken
 * (sim_calendar.h). */
#include "sim_calendar.h"

#include <string.h>

static bool busy_at(const sim_calendar_rule *r, const uint64_t *busy, uint64_t s)
{
    uint64_t bit = s % r->slots;
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
            busy[(old % r->slots) / 64u] = 0;
    } else {
        for (uint64_t old = *base; old < to; old++) {
            uint64_t bit = old % r->slots;
            busy[bit / 64u] &= ~((uint64_t)1 << (bit % 64u));
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
        uint64_t bit = s % r->slots;
        s += r->slide_ahead && bit % 64u == 0 && busy[bit / 64u] == UINT64_MAX ? 64u : 1u;
        slide_to(r, base, busy, s);
    }
    uint64_t bit = s % r->slots;
    busy[bit / 64u] |= (uint64_t)1 << (bit % 64u);
    return s;
}
