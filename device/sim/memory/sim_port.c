/* sim_port.c: the read port's calendar and the prefetch streams
 * (sim_port.h). */
#include "sim_port.h"

#include <string.h>

_Static_assert(SIM_PORT_SLOTS % 64u == 0, "whole words of slots");

void sim_port_init(sim_port *p, uint64_t slot_cycles)
{
    memset(p, 0, sizeof *p);
    p->slot_cycles = slot_cycles > 0 ? slot_cycles : 1;
}

static bool slot_busy(const sim_port *p, uint64_t s)
{
    uint64_t bit = s % SIM_PORT_SLOTS;
    return (p->busy[bit / 64u] >> (bit % 64u)) & 1u;
}

static void slot_set(sim_port *p, uint64_t s, bool busy)
{
    uint64_t bit = s % SIM_PORT_SLOTS;
    uint64_t mask = (uint64_t)1 << (bit % 64u);
    if (busy) {
        p->busy[bit / 64u] |= mask;
    } else {
        p->busy[bit / 64u] &= ~mask;
    }
}

/* Moves the calendar forward so that slot s fits in it; the slots it
 * forgets are long past for every core (the cluster's harts are never a
 * calendar apart). */
static void slide_to(sim_port *p, uint64_t s)
{
    if (s < p->base + SIM_PORT_SLOTS) {
        return;
    }
    uint64_t base = s - SIM_PORT_SLOTS + 1u;
    if (base - p->base >= SIM_PORT_SLOTS) {
        memset(p->busy, 0, sizeof p->busy);
    } else {
        for (uint64_t old = p->base; old < base; old++) {
            slot_set(p, old, false);
        }
    }
    p->base = base;
}

uint64_t sim_port_book(sim_port *p, uint64_t now)
{
    uint64_t s = now / p->slot_cycles;
    if (s < p->base) {
        s = p->base; /* forgotten slots count as taken */
    }
    slide_to(p, s);
    while (slot_busy(p, s)) {
        s++;
        slide_to(p, s);
    }
    slot_set(p, s, true);
    uint64_t begin = s * p->slot_cycles;
    uint64_t wait = begin > now ? begin - now : 0;
    p->booked++;
    p->waited += wait;
    return wait;
}

void sim_streams_init(sim_streams *s)
{
    memset(s, 0, sizeof *s);
}

bool sim_streams_miss(sim_streams *s, uint64_t line)
{
    /* Most recently used first: a stream in use is never the one a stray
     * miss replaces. */
    unsigned i = 0;
    bool continues = false;
    for (; i < SIM_PORT_STREAMS; i++) {
        uint64_t next = s->next[i];
        if (next != 0 && line >= next && line - next < SIM_PORT_STREAM_REACH) {
            continues = true;
            break;
        }
    }
    if (i == SIM_PORT_STREAMS) {
        i = SIM_PORT_STREAMS - 1u; /* the least recently used goes */
    }
    memmove(&s->next[1], &s->next[0], i * sizeof s->next[0]);
    s->next[0] = line + 1;
    return continues;
}
