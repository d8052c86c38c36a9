/* sim_port.c: the read port's calendar and the prefetch streams
 * (sim_port.h). */
#include "sim_port.h"

#include <string.h>

#include "sim_calendar.h"

_Static_assert(SIM_PORT_SLOTS % 64u == 0, "whole words of slots");

void sim_port_init(sim_port *p, uint64_t slot_cycles)
{
    memset(p, 0, sizeof *p);
    p->slot_cycles = slot_cycles > 0 ? slot_cycles : 1;
}

/* The port's calendar: just far enough when it moves (the cluster's harts
 * are never a calendar apart), and a slot it forgot counts as taken. */
static const sim_calendar_rule port_rule = {SIM_PORT_SLOTS, false, true};

uint64_t sim_port_book(sim_port *p, uint64_t now)
{
    uint64_t s = sim_calendar_take(&port_rule, &p->base, p->busy, now / p->slot_cycles);
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
