/* sim_dispatcher: cluster 0's persistent kernel (sim_dispatcher.h). */
#include "sim_dispatcher.h"

#include <stdlib.h>
#include <string.h>

#include "sim_clock.h"

/* ---- memory ------------------------------------------------------------------ */

static void buffer_read(void *ctx, uint64_t address, void *out, size_t bytes)
{
    sim_ring_buffer *b = ctx;
    if (address < b->base || address - b->base > b->size || bytes > b->size - (address - b->base)) {
        memset(out, 0, bytes);
        return;
    }
    memcpy(out, b->bytes + (address - b->base), bytes);
}

static void buffer_write(void *ctx, uint64_t address, const void *in, size_t bytes)
{
    sim_ring_buffer *b = ctx;
    if (address < b->base || address - b->base > b->size || bytes > b->size - (address - b->base)) {
        return;
    }
    memcpy(b->bytes + (address - b->base), in, bytes);
}

sim_ring_mem sim_ring_buffer_mem(sim_ring_buffer *buffer)
{
    sim_ring_mem m = {buffer, buffer_read, buffer_write};
    return m;
}

/* ---- state ------------------------------------------------------------------- */

enum job_state { JOB_FREE, JOB_QUEUED, JOB_RUNNING, JOB_ENDED };

/* Why a ring was rejected busy since its last wake.  A job slot freeing
 * answers every cause (an overlapping job ended, or a slot is free); the
 * queue handing a job to the grid answers only a full queue, so a thread
 * is not woken for a resubmission that must fail again. */
#define OWED_QUEUE 1u
#define OWED_OTHER 2u

typedef struct job {
    enum job_state state;
    unsigned ring;
    uint32_t handle;
    km_command_t command;
    uint64_t start_ps; /* handed to the grid */
} job;

/* An event waiting for its slot in a ring's event ring.  A job's event
 * keeps the job's slot until it is written (the slot frees then), so the
 * number of held events is bounded by the slots plus the few rejections
 * and the one wake the take rule below lets in. */
typedef struct held_event {
    km_event_t event;
    int job; /* -1: a rejection or a wake */
} held_event;

#define HELD_MAX (SIM_DISPATCH_JOBS_MAX + SIM_DISPATCH_HELD_EXTRA)

typedef struct ring {
    bool attached;
    sim_ring_mem cmd, ev;
    kmx_ring_descriptor desc;
    uint32_t consumed;     /* commands taken */
    uint32_t events;       /* events written */
    uint32_t taken_seen;   /* the reader's `taken` as last read */
    unsigned wake_owed;    /* rejected busy since the last wake: OWED_* of why */
    uint32_t outstanding;  /* this ring's jobs whose event is not held yet */
    held_event held[HELD_MAX];
    uint32_t held_head, held_count;
} ring;

struct sim_dispatcher {
    sim_dispatcher_params p;
    uint64_t cost_ps[SIM_DISPATCH_COSTS];
    uint64_t now;  /* within a pass: the time so far; between passes: the next start */
    uint64_t pass;
    bool stopping;
    ring rings[SIM_DISPATCH_RINGS];
    job jobs[SIM_DISPATCH_JOBS_MAX];
    uint32_t queue[SIM_DISPATCH_JOBS_MAX]; /* job ids, FIFO */
    uint32_t queue_head, queue_count;
    sim_dispatcher_stats stats;
    sim_card_moment_fn record; /* sim_dispatcher_record */
    void *record_ctx;
    bool worked; /* this pass did something (for the recorder) */
};

bool sim_dispatcher_job_command(const sim_dispatcher *d, uint32_t slot, unsigned *ring_id,
                                uint32_t *handle)
{
    if (slot >= d->p.job_slots || d->jobs[slot].state != JOB_RUNNING) {
        return false;
    }
    *ring_id = d->jobs[slot].ring;
    *handle = d->jobs[slot].handle;
    return true;
}

void sim_dispatcher_record(sim_dispatcher *d, sim_card_moment_fn fn, void *ctx)
{
    d->record = fn;
    d->record_ctx = ctx;
}

/* What happened to command (ring, handle), to the recorder. */
static void moment(sim_dispatcher *d, unsigned kind, unsigned ring_id, uint32_t handle,
                   uint32_t job_id, uint16_t event)
{
    d->worked = true;
    if (!d->record)
        return;
    sim_card_moment m = {.kind = kind, .ring = ring_id, .handle = handle, .job = job_id,
                         .event = event, .begin_ps = d->now, .end_ps = d->now};
    d->record(d->record_ctx, &m);
}

static const sim_dispatch_timing default_timing = {
#define SIM_DISPATCH_COST_CYCLES(name, cycles, ps, what) [SIM_DISPATCH_##name] = cycles,
    .cycles = {SIM_DISPATCH_TIMING_TABLE(SIM_DISPATCH_COST_CYCLES)},
#undef SIM_DISPATCH_COST_CYCLES
#define SIM_DISPATCH_COST_PS(name, cycles, ps, what) [SIM_DISPATCH_##name] = ps,
    .ps = {SIM_DISPATCH_TIMING_TABLE(SIM_DISPATCH_COST_PS)},
#undef SIM_DISPATCH_COST_PS
};

void sim_dispatcher_params_default(sim_dispatcher_params *params)
{
    memset(params, 0, sizeof *params);
    params->mhz = SIM_MHZ_DEFAULT;
    params->job_slots = 16;
    params->queue_depth = 8;
    params->time_limit_ps = BH_PS_PER_SECOND;
    params->takes_per_look = 4;
    params->timing = default_timing;
}

static void spend(sim_dispatcher *d, sim_dispatch_cost c)
{
    d->now += d->cost_ps[c];
}

sim_dispatcher *sim_dispatcher_create(const sim_dispatcher_params *params)
{
    const sim_job_ops *o = &params->jobs;
    if (!sim_mhz_valid(params->mhz) || params->job_slots == 0 ||
        params->job_slots > SIM_DISPATCH_JOBS_MAX || params->queue_depth == 0 ||
        params->queue_depth > params->job_slots || params->takes_per_look == 0 ||
        params->time_limit_ps == 0 || !o->handler_known || !o->can_take || !o->submit ||
        !o->poll_done) {
        return NULL;
    }
    sim_dispatcher *d = calloc(1, sizeof *d);
    if (!d) {
        return NULL;
    }
    d->p = *params;
    /* The table is turned into picoseconds once, at this clock, so a
     * pass's cost is a sum of integers and the same on every host. */
    for (unsigned c = 0; c < SIM_DISPATCH_COSTS; c++) {
        d->cost_ps[c] = sim_cycles_to_ps(params->timing.cycles[c], params->mhz) + params->timing.ps[c];
    }
    return d;
}

void sim_dispatcher_free(sim_dispatcher *d)
{
    free(d);
}

static bool pow2(uint32_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

bool sim_dispatcher_attach_ring(sim_dispatcher *d, unsigned ring_id, const sim_ring_mem *commands_side,
                                const sim_ring_mem *events_side, const kmx_ring_descriptor *desc)
{
    if (ring_id >= SIM_DISPATCH_RINGS || !commands_side || !events_side || !desc ||
        desc->kind == KMX_RING_NONE || !pow2(desc->command_depth) ||
        desc->command_depth > KMX_RING_COMMANDS_MAX || !pow2(desc->event_depth) ||
        desc->event_depth > KMX_RING_EVENTS_MAX) {
        return false;
    }
    ring *r = &d->rings[ring_id];
    memset(r, 0, sizeof *r);
    r->attached = true;
    r->cmd = *commands_side;
    r->ev = *events_side;
    r->desc = *desc;
    return true;
}

void sim_dispatcher_stop(sim_dispatcher *d)
{
    d->stopping = true;
}

unsigned sim_dispatcher_work_ring_of_pass(uint64_t pass)
{
    return (unsigned)(pass % 4u);
}

void sim_dispatcher_get_stats(const sim_dispatcher *d, sim_dispatcher_stats *out)
{
    *out = d->stats;
    out->now_ps = d->now;
    uint32_t used = 0;
    for (uint32_t j = 0; j < d->p.job_slots; j++) {
        used += d->jobs[j].state != JOB_FREE;
    }
    out->jobs_in_use = used;
}

/* ---- events ------------------------------------------------------------------ */

static void hold(sim_dispatcher *d, unsigned ring_id, uint16_t kind, uint16_t reason,
                 uint32_t handle, uint32_t ticks, int job_id)
{
    ring *r = &d->rings[ring_id];
    /* The take rule (can_take_from) leaves room; this cannot overflow. */
    held_event *h = &r->held[(r->held_head + r->held_count) % HELD_MAX];
    r->held_count++;
    memset(h, 0, sizeof *h);
    h->event.kind = kind;
    h->event.reason = reason;
    h->event.handle = handle;
    h->event.ticks = ticks;
    h->job = job_id;
}

/* Something the busy rejections wait for happened (`what`: a slot freed,
 * OWED_QUEUE | OWED_OTHER; the queue handed a job to the grid, OWED_QUEUE):
 * each ring rejected busy for such a cause since its last wake gets one
 * wake, after the events already held. */
static void wake_all(sim_dispatcher *d, unsigned what)
{
    for (unsigned i = 0; i < SIM_DISPATCH_RINGS; i++) {
        ring *r = &d->rings[i];
        if (r->attached && (r->wake_owed & what)) {
            r->wake_owed = 0;
            hold(d, i, KMX_EVENT_WAKE, KM_REASON_NONE, 0, 0, -1);
            d->stats.wakes[i]++;
        }
    }
}

static void write_counts(sim_dispatcher *d, ring *r)
{
    uint32_t two[2] = {r->consumed, r->events};
    r->ev.write(r->ev.ctx, r->desc.counts + offsetof(kmx_ring_counts, consumed), two, sizeof two);
    spend(d, SIM_DISPATCH_NOC_WRITE);
}

/* Write the ring's held events in order while the reader has freed their
 * slots.  Event e may go to slot e % depth once taken >= e - depth. */
static void flush_held(sim_dispatcher *d, unsigned ring_id)
{
    ring *r = &d->rings[ring_id];
    bool wrote = false;
    bool freed = false;
    while (r->held_count > 0) {
        uint32_t e = r->events + 1;
        uint32_t depth = r->desc.event_depth;
        if (e - r->taken_seen > depth) {
            /* Only the reader frees a slot: look at its line again (it is
             * cheap, in our own LIM) before holding the event. */
            uint32_t taken;
            r->cmd.read(r->cmd.ctx, r->desc.read_line + offsetof(kmx_ring_read_line, taken), &taken,
                        sizeof taken);
            spend(d, SIM_DISPATCH_READ_LINE);
            r->taken_seen = taken;
            if (e - taken > depth) {
                d->stats.held[ring_id]++;
                break;
            }
        }
        held_event *h = &r->held[r->held_head];
        h->event.index = e;
        uint64_t at = r->desc.events + (uint64_t)(e % depth) * sizeof(km_event_t);
        /* Index first, then fields, then index last.  The first store
         * writes 0, not e: a reader that saw index e before the fields
         * landed and e again after would take stale fields.  The slot's
         * old event (e - depth) is no longer wanted, and 0 is never an
         * event's number. */
        uint32_t zero = 0;
        r->ev.write(r->ev.ctx, at, &zero, sizeof zero);
        r->ev.write(r->ev.ctx, at + 4, (const uint8_t *)&h->event + 4, sizeof(km_event_t) - 4);
        r->ev.write(r->ev.ctx, at, &e, sizeof e);
        spend(d, SIM_DISPATCH_NOC_WRITE);
        r->events = e;
        d->stats.events[ring_id]++;
        if (h->event.kind != KMX_EVENT_WAKE)
            moment(d, SIM_MOMENT_EVENT, ring_id, h->event.handle, 0, h->event.kind);
        if (h->job >= 0) {
            d->jobs[h->job].state = JOB_FREE;
            freed = true;
        }
        r->held_head = (r->held_head + 1) % HELD_MAX;
        r->held_count--;
        wrote = true;
    }
    if (wrote) {
        write_counts(d, r);
    }
    if (freed) {
        wake_all(d, OWED_QUEUE | OWED_OTHER);
    }
}

/* ---- the grid ---------------------------------------------------------------- */

static uint32_t run_ticks(uint64_t start, uint64_t end)
{
    uint64_t t = end > start ? (end - start) / SIM_PS_PER_TICK : 0;
    return t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

static void job_ended(sim_dispatcher *d, uint32_t j, uint32_t result, bool timed_out, uint64_t end,
                      uint16_t where)
{
    job *jb = &d->jobs[j];
    ring *r = &d->rings[jb->ring];
    uint32_t ticks = run_ticks(jb->start_ps, end);
    bool late = timed_out || end - jb->start_ps > d->p.time_limit_ps;
    uint16_t kind = late ? KM_EVENT_TIMEOUT : KM_EVENT_DONE;
    if (!late && (KM_HDR_FLAGS(jb->command.hdr) & KM_FLAG_RESULT)) {
        ticks = result;
    }
    jb->state = JOB_ENDED;
    r->outstanding--;
    d->worked = true;
    hold(d, jb->ring, kind, where, jb->handle, ticks, (int)j);
}

static void collect_done(sim_dispatcher *d)
{
    uint32_t j, result;
    bool timed_out;
    uint64_t end;
    uint16_t where = KM_WHERE_NONE;
    while (d->p.jobs.poll_done(d->p.jobs.ctx, d->now, &j, &result, &timed_out, &end, &where)) {
        spend(d, SIM_DISPATCH_GRID_DONE);
        if (j < d->p.job_slots && d->jobs[j].state == JOB_RUNNING) {
            job_ended(d, j, result, timed_out, end, where);
        }
    }
    /* The limit is the kernel's, not only the grid's: a job the grid
     * never ends still returns its event, and its cores get the stop. */
    for (j = 0; j < d->p.job_slots; j++) {
        job *jb = &d->jobs[j];
        if (jb->state == JOB_RUNNING && d->now - jb->start_ps > d->p.time_limit_ps) {
            uint16_t cut = KM_WHERE_NONE;
            if (d->p.jobs.cancel) {
                cut = d->p.jobs.cancel(d->p.jobs.ctx, j, d->now);
            }
            job_ended(d, j, 0, true, d->now, cut);
        }
    }
}

/* Hand queued jobs to the grid in order; the head waits for its group. */
static void feed_grid(sim_dispatcher *d)
{
    bool moved = false;
    while (d->queue_count > 0) {
        uint32_t j = d->queue[d->queue_head];
        job *jb = &d->jobs[j];
        uint32_t g = jb->command.group;
        bool exclusive = (KM_HDR_FLAGS(jb->command.hdr) & KM_FLAG_EXCLUSIVE) != 0;
        if (!d->p.jobs.can_take(d->p.jobs.ctx, KM_GROUP_FIRST(g), KM_GROUP_COUNT(g), exclusive)) {
            break;
        }
        spend(d, SIM_DISPATCH_GRID_SUBMIT);
        jb->state = JOB_RUNNING;
        jb->start_ps = d->now;
        d->p.jobs.submit(d->p.jobs.ctx, j, &jb->command, d->now);
        moment(d, SIM_MOMENT_STARTED, jb->ring, jb->handle, j, 0);
        d->queue_head = (d->queue_head + 1) % SIM_DISPATCH_JOBS_MAX;
        d->queue_count--;
        moved = true;
    }
    if (moved) {
        wake_all(d, OWED_QUEUE);
    }
}

/* ---- taking commands ------------------------------------------------------------ */

static bool overlaps(uint32_t a, uint32_t b)
{
    uint32_t af = KM_GROUP_FIRST(a), ac = KM_GROUP_COUNT(a);
    uint32_t bf = KM_GROUP_FIRST(b), bc = KM_GROUP_COUNT(b);
    return af < bf + bc && bf < af + ac;
}

static uint16_t check(const sim_dispatcher *d, const km_command_t *c)
{
    uint32_t handler = KM_HDR_HANDLER(c->hdr);
    uint32_t first = KM_GROUP_FIRST(c->group), count = KM_GROUP_COUNT(c->group);
    if (handler == 0 || !d->p.jobs.handler_known(d->p.jobs.ctx, handler)) {
        return KM_REASON_HANDLER;
    }
    if (count == 0 || first + count > BH_GRID_CORES) {
        return KM_REASON_GROUP;
    }
    /* hdr bits 16..31 are reserved (0): set, they are flags we do not know. */
    if ((KM_HDR_FLAGS(c->hdr) & ~KM_FLAGS_ALL) != 0 || (c->hdr >> 16) != 0) {
        return KM_REASON_FLAGS;
    }
    return KM_REASON_NONE;
}

/* A free job slot for `c`, or -1 and why not (OWED_*): an overlap with an
 * exclusive command in flight or no free slot first, a full queue last. */
static int busy_or_slot(const sim_dispatcher *d, const km_command_t *c, unsigned *why)
{
    *why = OWED_OTHER;
    bool exclusive = (KM_HDR_FLAGS(c->hdr) & KM_FLAG_EXCLUSIVE) != 0;
    int free_slot = -1;
    for (uint32_t j = 0; j < d->p.job_slots; j++) {
        const job *jb = &d->jobs[j];
        if (jb->state == JOB_FREE) {
            if (free_slot < 0) {
                free_slot = (int)j;
            }
            continue;
        }
        /* In flight = queued or running.  Exclusion works both ways: an
         * exclusive command may not join a group in use, and nothing may
         * join an exclusive one's. */
        if ((jb->state == JOB_QUEUED || jb->state == JOB_RUNNING) &&
            (exclusive || (KM_HDR_FLAGS(jb->command.hdr) & KM_FLAG_EXCLUSIVE)) &&
            overlaps(c->group, jb->command.group)) {
            return -1;
        }
    }
    if (free_slot >= 0 && d->queue_count >= d->p.queue_depth) {
        *why = OWED_QUEUE;
        return -1;
    }
    return free_slot;
}

/* Take a command only when its events fit among the held ones: its own,
 * and a wake. */
static bool room_to_take(const ring *r)
{
    return r->held_count + r->outstanding + 2 <= HELD_MAX;
}

static void look(sim_dispatcher *d, unsigned ring_id)
{
    ring *r = &d->rings[ring_id];
    d->stats.looks[ring_id]++;
    bool took = false;
    for (uint32_t n = 0; n < d->p.takes_per_look && room_to_take(r); n++) {
        uint32_t i = r->consumed + 1;
        uint64_t at = r->desc.commands + (uint64_t)(i % r->desc.command_depth) * sizeof(km_command_line);
        km_command_line line;
        r->cmd.read(r->cmd.ctx, at + offsetof(km_command_line, sequence), &line.sequence, 16);
        spend(d, SIM_DISPATCH_LINE_LOOK);
        if (line.sequence != i || line.land[2] != ~i) {
            break; /* not written yet, or its last 16 bytes have not landed */
        }
        r->cmd.read(r->cmd.ctx, at, &line.command, sizeof line.command);
        spend(d, SIM_DISPATCH_LINE_TAKE);
        if (line.land[0] != line.command.hdr || line.land[1] != line.command.group) {
            /* A torn line: the words are not (all) this command's yet.  It
             * is not a command; wait for it. */
            break;
        }
        r->consumed = i;
        d->stats.taken[ring_id]++;
        moment(d, SIM_MOMENT_TAKEN, ring_id, i, 0, 0);
        took = true;
        uint16_t reason = d->stopping ? KM_REASON_STOPPING : check(d, &line.command);
        if (reason != KM_REASON_NONE) {
            hold(d, ring_id, KM_EVENT_REJECTED, reason, i, 0, -1);
            continue;
        }
        unsigned why;
        int j = busy_or_slot(d, &line.command, &why);
        if (j < 0) {
            hold(d, ring_id, KM_EVENT_REJECTED, KM_REASON_BUSY, i, 0, -1);
            r->wake_owed |= why;
            d->stats.rejected_busy[ring_id]++;
            continue;
        }
        job *jb = &d->jobs[j];
        memset(jb, 0, sizeof *jb);
        jb->state = JOB_QUEUED;
        jb->ring = ring_id;
        jb->handle = i;
        jb->command = line.command;
        r->outstanding++;
        d->queue[(d->queue_head + d->queue_count) % SIM_DISPATCH_JOBS_MAX] = (uint32_t)j;
        d->queue_count++;
    }
    if (took) {
        /* consumed goes out before the events of this look, so a writer
         * waiting for its slot hears as soon as possible. */
        write_counts(d, r);
    }
}

/* ---- the loop ------------------------------------------------------------------ */

static void run_pass(sim_dispatcher *d)
{
    uint64_t begin = d->now;
    d->worked = false;
    spend(d, SIM_DISPATCH_PASS);
    spend(d, SIM_DISPATCH_GRID_POLL);
    collect_done(d);
    feed_grid(d);
    unsigned work = sim_dispatcher_work_ring_of_pass(d->pass);
    if (d->p.sync) {
        d->p.sync(d->p.sync_ctx, d->now);
    }
    if (d->rings[0].attached) {
        look(d, 0);
    }
    if (work != 0 && d->rings[work].attached) {
        look(d, work);
    }
    /* What was just accepted may start at once. */
    feed_grid(d);
    for (unsigned i = 0; i < SIM_DISPATCH_RINGS; i++) {
        if (d->rings[i].attached && d->rings[i].held_count > 0) {
            flush_held(d, i);
        }
    }
    d->pass++;
    d->stats.passes++;
    if (d->record && d->worked) {
        sim_card_moment m = {.kind = SIM_MOMENT_PASS, .begin_ps = begin, .end_ps = d->now};
        d->record(d->record_ctx, &m);
    }
}

uint64_t sim_dispatcher_step(sim_dispatcher *d, uint64_t until_ps)
{
    while (d->now <= until_ps) {
        run_pass(d);
    }
    return d->now;
}
