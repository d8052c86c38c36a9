/* grid_port: the Tensix cores' X280 ports (km_device.h's port calls,
 * sim_grid.h's ports part) — spec "X280 ports".
 *
 * Tensix core -> X280 core: a send is a NoC write, which the core waits to
 * see acknowledged (SIM_GRID_PORT_SEND_PS: through the cluster's bridge
 * into its LIM, longer than a write into a bank); its 16 bytes land in
 * the mailbox line SIM_NOC_LAND_PS after it is issued, as
 * one landing the card writes into the cluster's LIM (sim_grid_next_landing).
 * One message of a core is in flight at a time: a send while the last one
 * has not landed waits for it (KM_WHERE_X280_SEND).
 *
 * X280 core -> Tensix core: the X280 core's window stores into the
 * control block's KM_CONTROL_X280 area.  A slot takes a message as the
 * two 8-byte halves of one 16-byte write: the low half is held, the high
 * half lands both at at_ps + SIM_NOC_LAND_PS, so a core never sees a new
 * sequence with old words.  The slot keeps the landing before the newest,
 * which a core looking earlier than the newest's landing still sees.
 *
 * A wait looks at its slot, and when there is nothing for it sleeps until
 * the wait limit, or until a landing on that slot wakes it at
 * land + SIM_GRID_PORT_LOOK_CYCLES, or until the stop (sim_grid_set_stop).
 * The grid is always stepped up to a time before the clusters are (the
 * card's lockstep), and a landing is at least SIM_NOC_LAND_PS after its
 * store, more than the card's quantum: a core never misses a store made
 * at or before the time it looks. */
#include <string.h>

#include "grid_internal.h"
#include "sim_clock.h"
#include "sim_noc.h"

_Static_assert(sizeof(km_x280_msg_t) == 16u, "a message is one 16-byte write");

static uint64_t cycles_ps(const km_core *c, uint64_t cycles)
{
    return sim_cycles_to_ps(cycles, c->grid->mhz);
}

void sim_grid_set_ports(sim_grid *g, const km_port_dealing *d)
{
    g->ports = d != NULL;
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        grid_port *p = &g->cores[i].port;
        bool served = d && d->cluster[i] >= 1 && d->cluster[i] <= BH_WORK_CLUSTERS &&
                      d->x280_core[i] < BH_CLUSTER_CORES;
        p->cluster = served ? d->cluster[i] : 0;
        p->x280_core = served ? d->x280_core[i] : 0;
    }
}

void grid_port_start_job(km_core *c)
{
    grid_port *p = &c->port;
    p->sender = -1;
    p->pulling = false;
    p->waiting = KM_WHERE_NONE;
    p->where = KM_WHERE_NONE;
    p->watching = NULL;
    for (unsigned k = 0; k < 2; k++)
        p->ports[k] = (km_port){c, k};
}

/* ---- what a core sees ---- */

/* The message a core looking at `at` sees in the slot (sequence 0: none). */
static km_x280_msg_t visible(const grid_slot *s, uint64_t at)
{
    if (s->now_ps <= at)
        return s->now;
    if (s->before_ps <= at)
        return s->before;
    return (km_x280_msg_t){0};
}

/* The next landing on the slot after `at` (UINT64_MAX: none known). */
static uint64_t next_landing(const grid_slot *s, uint64_t at)
{
    if (s->before_ps > at)
        return s->before_ps;
    return s->now_ps > at ? s->now_ps : UINT64_MAX;
}

/* Records a give-up (the run's list, the job's first, the core's last). */
static void gave_up(km_core *c, uint16_t where, uint16_t why)
{
    sim_grid *g = c->grid;
    c->port.where = where;
    if (c->job->where == KM_WHERE_NONE)
        c->job->where = where;
    if (g->ngave_up < KM_PORT_WAITS_KEPT)
        g->gave_up[g->ngave_up++] = (km_port_gave_up){
            .core = c->id,
            .handler = KM_HDR_HANDLER(c->job->command.hdr),
            .where = where,
            .why = why,
            .ps = c->time_ps,
        };
}

void grid_port_cut(km_core *c)
{
    if (c->state == CORE_WAITING && c->port.waiting != KM_WHERE_NONE)
        gave_up(c, c->port.waiting, KM_PORT_GAVE_UP_LIMIT);
}

/* Waits on slot s (or only for the time when s is NULL) until ready(),
 * the wait limit or the stop.  True when ready. */
typedef bool (*ready_fn)(km_core *c);
static bool wait_until(km_core *c, const grid_slot *s, ready_fn ready, uint16_t where)
{
    uint64_t limit = c->time_ps + (uint64_t)KM_PORT_WAIT_LIMIT_NS * 1000u;
    for (;;) {
        if (ready(c))
            return true;
        if (c->grid->stop) {
            gave_up(c, where, KM_PORT_GAVE_UP_STOP);
            return false;
        }
        if (c->time_ps >= limit) {
            gave_up(c, where, KM_PORT_GAVE_UP_LIMIT);
            return false;
        }
        uint64_t wake = limit;
        uint64_t land = s ? next_landing(s, c->time_ps) : c->port.sent_land_ps;
        if (land != UINT64_MAX && land > c->time_ps) {
            uint64_t seen = land + cycles_ps(c, SIM_GRID_PORT_LOOK_CYCLES);
            if (seen < wake)
                wake = seen;
        }
        c->port.watching = s;
        c->port.waiting = where;
        grid_wait(c, wake);
        c->port.watching = NULL;
        c->port.waiting = KM_WHERE_NONE;
    }
}

/* ---- sending ---- */

static bool sent_landed(km_core *c)
{
    return c->port.sent_land_ps <= c->time_ps;
}

/* Whether the core has an X280 core; refused (recorded) when not. */
static bool has_x280(km_core *c)
{
    if (c->port.cluster != 0)
        return true;
    gave_up(c, KM_WHERE_X280_NONE, KM_PORT_GAVE_UP_REFUSED);
    return false;
}

/* Whether `port` may send now: its core has an X280 core, the port's
 * kernel is the sender, the last message has landed (it waits). */
static bool may_send(km_port *port)
{
    km_core *c = port->core;
    grid_port *p = &c->port;
    if (!has_x280(c))
        return false;
    if (p->sender != (int)port->kernel) {
        gave_up(c, KM_WHERE_X280_OWNER, KM_PORT_GAVE_UP_REFUSED);
        return false;
    }
    return wait_until(c, NULL, sent_landed, KM_WHERE_X280_SEND);
}

/* Issues the message into the mailbox line's `offset` (ask or tell). */
static void send(km_core *c, uint32_t offset, km_x280_msg_t m)
{
    grid_port *p = &c->port;
    uint64_t land = c->time_ps + SIM_NOC_LAND_PS;
    p->sent_land_ps = land;
    sim_grid *g = c->grid;
    if (g->nlandings == GRID_LANDINGS) { /* nobody takes them (grid_internal.h) */
        g->landing_head = (g->landing_head + 1u) % GRID_LANDINGS;
        g->nlandings--;
    }
    g->landings[(g->landing_head + g->nlandings++) % GRID_LANDINGS] = (sim_grid_landing){
        .cluster = p->cluster,
        .lim_address = KMX_LIM_PORTS + offsetof(kmx_ports_area, mailbox) +
                       (uint64_t)c->id * sizeof(kmx_port_mailbox) + offset,
        .message = m,
        .land_ps = land,
    };
    /* The core goes on once the write is acknowledged: the cluster's
     * bridge has written it into the LIM and answered (a bank takes a
     * write sooner: SIM_GRID_NOC_WRITE_PS).  The message is on its way
     * meanwhile and lands before the acknowledgement comes back. */
    g->mailbox_bytes += sizeof m;
    grid_spend_ps(c, SIM_GRID_PORT_SEND_PS + cycles_ps(c, 1));
}

bool sim_grid_next_landing(sim_grid *g, uint64_t up_to_ps, sim_grid_landing *out)
{
    if (g->nlandings == 0 || g->landings[g->landing_head].land_ps > up_to_ps)
        return false;
    *out = g->landings[g->landing_head];
    g->landing_head = (g->landing_head + 1u) % GRID_LANDINGS;
    g->nlandings--;
    return true;
}

static bool answered(km_core *c)
{
    return visible(&c->port.answer, c->time_ps).sequence == c->port.asked;
}

/* The next sequence number after *last (0 is "none" in a slot). */
static uint32_t next_sequence(uint32_t *last)
{
    *last = *last + 1u == 0 ? 1u : *last + 1u;
    return *last;
}

/* An ask: the next sequence number, its message on its way. */
static void ask(km_core *c, uint32_t w0, uint32_t w1, uint32_t w2)
{
    uint32_t sequence = next_sequence(&c->port.asked);
    send(c, offsetof(kmx_port_mailbox, ask), (km_x280_msg_t){sequence, {w0, w1, w2}});
}

/* The answer to the core's ask, when it comes (false: the wait gave up). */
static bool take_answer(km_core *c, km_x280_msg_t *answer)
{
    if (!wait_until(c, &c->port.answer, answered, KM_WHERE_X280_ANSWER))
        return false;
    grid_spend_ps(c, cycles_ps(c, SIM_GRID_PORT_LOOK_CYCLES));
    if (answer)
        *answer = visible(&c->port.answer, c->time_ps);
    return true;
}

/* ---- km_device.h ---- */

km_port *km_port_of(km_core *c, unsigned kernel)
{
    if (kernel > KM_KERNEL_WRITER)
        return NULL;
    if (c->port.sender < 0)
        c->port.sender = (int)kernel;
    return &c->port.ports[kernel];
}

bool km_port_call(km_port *port, uint32_t w0, uint32_t w1, uint32_t w2, km_x280_msg_t *answer)
{
    km_core *c = port->core;
    if (!may_send(port))
        return false;
    ask(c, w0, w1, w2);
    c->call_from = __builtin_return_address(0); /* *answer is the handler's */
    bool ok = take_answer(c, answer);
    c->call_from = NULL;
    return ok;
}

bool km_port_tell(km_port *port, uint32_t w0, uint32_t w1, uint32_t w2)
{
    km_core *c = port->core;
    if (!may_send(port))
        return false;
    uint32_t sequence = next_sequence(&c->port.told);
    send(c, offsetof(kmx_port_mailbox, tell), (km_x280_msg_t){sequence, {w0, w1, w2}});
    return true;
}

/* The pull's ask for a range, when the port may send. */
static bool ask_range(km_port *port)
{
    if (!may_send(port))
        return false;
    ask(port->core, KM_PULL_ASK, 0, 0);
    port->core->port.pulling = true;
    return true;
}

uint32_t km_port_next(km_port *port, uint32_t *first)
{
    km_core *c = port->core;
    km_x280_msg_t range;
    if (!c->port.pulling && !ask_range(port))
        return 0;
    c->port.pulling = false;
    if (!take_answer(c, &range) || range.w[1] == 0)
        return 0; /* the wait gave up, or none left */
    /* The following range's ask goes now: its answer comes while this
     * range runs. */
    (void)ask_range(port);
    if (first)
        *first = range.w[0];
    return range.w[1];
}

/* A tell newer than the last one the core saw (sequences wrap). */
static bool newer_tell(km_core *c)
{
    km_x280_msg_t m = visible(&c->port.tell, c->time_ps);
    return m.sequence != 0 && (int32_t)(m.sequence - c->port.seen_tell) > 0;
}

static void take_tell(km_core *c, km_x280_msg_t *message)
{
    km_x280_msg_t m = visible(&c->port.tell, c->time_ps);
    c->port.seen_tell = m.sequence;
    if (message)
        *message = m;
}

bool km_port_look(km_port *port, km_x280_msg_t *message)
{
    km_core *c = port->core;
    if (!has_x280(c))
        return false;
    grid_spend_ps(c, cycles_ps(c, SIM_GRID_PORT_LOOK_CYCLES));
    if (!newer_tell(c))
        return false;
    take_tell(c, message);
    return true;
}

bool km_port_wait(km_port *port, km_x280_msg_t *message)
{
    km_core *c = port->core;
    if (!has_x280(c) || !wait_until(c, &c->port.tell, newer_tell, KM_WHERE_X280_TELL))
        return false;
    grid_spend_ps(c, cycles_ps(c, SIM_GRID_PORT_LOOK_CYCLES));
    take_tell(c, message);
    return true;
}

unsigned km_port_where(const km_core *c)
{
    return c->port.where;
}

/* ---- the control blocks on the NoC ---- */

/* The slot of the KM_CONTROL_X280 area at NoC address addr, or NULL. */
static grid_slot *slot_at(km_core *c, uint64_t addr, uint64_t *within)
{
    if (addr < KM_CONTROL_X280_L1 || addr - KM_CONTROL_X280_L1 >= 32u)
        return NULL;
    uint64_t at = addr - KM_CONTROL_X280_L1;
    *within = at % 16u;
    return at < 16u ? &c->port.tell : &c->port.answer;
}

int sim_grid_tile_load(void *ctx, unsigned core, uint64_t addr, unsigned size, uint64_t *value,
                       uint64_t at_ps)
{
    sim_grid *g = ctx;
    uint64_t within;
    grid_slot *s = core < BH_GRID_CORES ? slot_at(&g->cores[core], addr, &within) : NULL;
    if (!s || within % size != 0)
        return -1;
    km_x280_msg_t m = visible(s, at_ps);
    uint64_t v = 0;
    memcpy(&v, (const uint8_t *)&m + within, size);
    *value = v;
    return 0;
}

int sim_grid_tile_store(void *ctx, unsigned core, uint64_t addr, unsigned size, uint64_t value,
                        uint64_t at_ps)
{
    sim_grid *g = ctx;
    g->quiet = false; /* a core waiting on the slot may wake sooner */
    uint64_t within;
    km_core *c = core < BH_GRID_CORES ? &g->cores[core] : NULL;
    grid_slot *s = c ? slot_at(c, addr, &within) : NULL;
    if (!s || size != 8u)
        return -1; /* a slot takes its message as two 8-byte halves */
    if (within == 0) {
        s->low = value;
        s->low_held = true;
        return 0;
    }
    if (!s->low_held)
        return -1; /* a high half with no low half before it: no message */
    km_x280_msg_t m;
    memcpy(&m, &s->low, 8);
    memcpy((uint8_t *)&m + 8, &value, 8);
    s->low_held = false;
    s->before = s->now;
    s->before_ps = s->now_ps;
    s->now = m;
    s->now_ps = at_ps + SIM_NOC_LAND_PS;
    /* A core waiting on this slot looks again once it has landed. */
    if (c->state == CORE_WAITING && c->port.watching == s) {
        uint64_t seen = s->now_ps + cycles_ps(c, SIM_GRID_PORT_LOOK_CYCLES);
        if (seen < c->wake_ps) {
            c->wake_ps = seen;
            grid_note_core(c);
        }
    }
    return 0;
}

const km_port_gave_up *sim_grid_port_waits(const sim_grid *g, unsigned *n)
{
    *n = g->ngave_up;
    return g->gave_up;
}
