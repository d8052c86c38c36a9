/* Tests for device/sim/dispatcher/sim_dispatcher.c: the command ring's protocol, the
 * job queue, busy rejections and wakes, results, timeouts, the round-robin
 * loop and determinism.  The grid is a fake behind sim_job_ops; the
 * "thread" is sim_ring_host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "sim_clock.h"
#include "sim_dispatcher.h"

/* ---- a fake grid: a job runs a0 ns, returns a1, a2 = 1 never ends,
 * a2 = 2 reports a grid-side timeout.  Handlers 1..5 exist. ---- */
#define FAKE_JOBS 64
typedef struct fake_grid {
    struct {
        bool running;
        km_command_t c;
        uint64_t end;
    } job[FAKE_JOBS];
    unsigned cap; /* jobs at once */
    unsigned submits, cancels;
} fake_grid;

static bool fake_known(void *ctx, uint32_t handler)
{
    (void)ctx;
    return handler >= 1 && handler <= 5;
}

static bool fake_overlap(uint32_t a, uint32_t b)
{
    return KM_GROUP_FIRST(a) < KM_GROUP_FIRST(b) + KM_GROUP_COUNT(b) &&
           KM_GROUP_FIRST(b) < KM_GROUP_FIRST(a) + KM_GROUP_COUNT(a);
}

static bool fake_can_take(void *ctx, uint32_t first, uint32_t count, bool exclusive)
{
    fake_grid *g = ctx;
    unsigned n = 0;
    for (unsigned j = 0; j < FAKE_JOBS; j++) {
        if (!g->job[j].running) {
            continue;
        }
        n++;
        if (exclusive && fake_overlap(g->job[j].c.group, KM_GROUP(first, count))) {
            return false;
        }
    }
    return n < g->cap;
}

static void fake_submit(void *ctx, uint32_t job, const km_command_t *c, uint64_t now)
{
    fake_grid *g = ctx;
    assert_true(job < FAKE_JOBS);
    assert_false(g->job[job].running);
    g->job[job].running = true;
    g->job[job].c = *c;
    g->job[job].end = c->a2 == 1 ? UINT64_MAX : now + (uint64_t)c->a0 * 1000u;
    g->submits++;
}

static bool fake_poll(void *ctx, uint64_t now, uint32_t *job, uint32_t *result, bool *timed_out,
                      uint64_t *end, uint16_t *where)
{
    *where = KM_WHERE_NONE;
    fake_grid *g = ctx;
    int best = -1;
    for (unsigned j = 0; j < FAKE_JOBS; j++) {
        if (g->job[j].running && g->job[j].end <= now &&
            (best < 0 || g->job[j].end < g->job[best].end)) {
            best = (int)j;
        }
    }
    if (best < 0) {
        return false;
    }
    g->job[best].running = false;
    *job = (uint32_t)best;
    *result = g->job[best].c.a1;
    *timed_out = g->job[best].c.a2 == 2;
    *end = g->job[best].end;
    return true;
}

static uint16_t fake_cancel(void *ctx, uint32_t job, uint64_t now)
{
    fake_grid *g = ctx;
    (void)now;
    g->job[job].running = false;
    g->cancels++;
    return KM_WHERE_NONE;
}

/* ---- rings in flat buffers: commands side and events side apart ---- */
#define CMD_BASE 0x08000000u
#define EV_BASE 0x08100000u
typedef struct rig {
    fake_grid grid;
    sim_dispatcher *d;
    uint8_t cmd_bytes[SIM_DISPATCH_RINGS][8192];
    uint8_t ev_bytes[SIM_DISPATCH_RINGS][8192];
    sim_ring_buffer cmd_buf[SIM_DISPATCH_RINGS], ev_buf[SIM_DISPATCH_RINGS];
    sim_ring_mem cmd_mem[SIM_DISPATCH_RINGS], ev_mem[SIM_DISPATCH_RINGS];
    kmx_ring_descriptor desc[SIM_DISPATCH_RINGS];
    sim_ring_host host[SIM_DISPATCH_RINGS];
    uint64_t t; /* the test's clock */
} rig;

static rig R;

static void rig_params(sim_dispatcher_params *p)
{
    sim_dispatcher_params_default(p);
    p->jobs.ctx = &R.grid;
    p->jobs.handler_known = fake_known;
    p->jobs.can_take = fake_can_take;
    p->jobs.submit = fake_submit;
    p->jobs.poll_done = fake_poll;
    p->jobs.cancel = fake_cancel;
}

static void rig_start(const sim_dispatcher_params *p, uint32_t depth, uint32_t event_depth)
{
    if (R.d) {
        sim_dispatcher_free(R.d);
    }
    memset(&R, 0, sizeof R);
    R.grid.cap = 8;
    R.d = sim_dispatcher_create(p);
    assert_non_null(R.d);
    for (unsigned i = 0; i < SIM_DISPATCH_RINGS; i++) {
        R.cmd_buf[i] = (sim_ring_buffer){R.cmd_bytes[i], CMD_BASE, sizeof R.cmd_bytes[i]};
        R.ev_buf[i] = (sim_ring_buffer){R.ev_bytes[i], EV_BASE, sizeof R.ev_bytes[i]};
        R.cmd_mem[i] = sim_ring_buffer_mem(&R.cmd_buf[i]);
        R.ev_mem[i] = sim_ring_buffer_mem(&R.ev_buf[i]);
        kmx_ring_descriptor *dsc = &R.desc[i];
        memset(dsc, 0, sizeof *dsc);
        dsc->kind = KMX_RING_REMOTE;
        dsc->command_depth = depth;
        dsc->event_depth = event_depth;
        dsc->read_line = CMD_BASE;
        dsc->commands = CMD_BASE + 0x40;
        dsc->counts = EV_BASE;
        dsc->events = EV_BASE + 0x40;
        assert_true(sim_dispatcher_attach_ring(R.d, i, &R.cmd_mem[i], &R.ev_mem[i], dsc));
        sim_ring_host_init(&R.host[i], &R.cmd_mem[i], &R.ev_mem[i], dsc);
    }
}

static void rig_default(void)
{
    sim_dispatcher_params p;
    rig_params(&p);
    rig_start(&p, 8, 16);
}

static int teardown(void **state)
{
    (void)state;
    sim_dispatcher_free(R.d);
    R.d = NULL;
    return 0;
}

static km_command_t cmd(uint32_t handler, uint32_t flags, uint32_t first, uint32_t count,
                        uint32_t ns, uint32_t result)
{
    km_command_t c;
    memset(&c, 0, sizeof c);
    c.hdr = KM_HDR(handler, flags);
    c.group = KM_GROUP(first, count);
    c.a0 = ns;
    c.a1 = result;
    return c;
}

static uint32_t submit(unsigned ring, km_command_t c)
{
    uint32_t h = 0;
    assert_int_equal(sim_ring_host_submit(&R.host[ring], &c, &h), SIM_RING_OK);
    return h;
}

/* Advance the test's clock by `ns`, running the dispatcher. */
static void advance(uint64_t ns)
{
    R.t += ns * 1000u;
    sim_dispatcher_step(R.d, R.t);
}

/* Every event of `ring` available now, into out (returns how many). */
static unsigned drain(unsigned ring, km_event_t *out, unsigned max)
{
    unsigned n = 0;
    km_event_t e;
    while (n < max && sim_ring_host_poll(&R.host[ring], &e) == SIM_RING_OK) {
        out[n++] = e;
    }
    return n;
}

static kmx_ring_counts counts_of(unsigned ring)
{
    kmx_ring_counts c;
    memcpy(&c, R.ev_bytes[ring], sizeof c);
    return c;
}

/* ---- tests ---- */

static void slot_reuse_at_depth(void **state)
{
    (void)state;
    sim_dispatcher_params p;
    rig_params(&p);
    rig_start(&p, 4, 8);
    const uint32_t total = 3 * 4;
    uint32_t sent = 0, got = 0, full = 0;
    km_event_t ev[16];
    for (int round = 0; round < 2000 && got < total; round++) {
        while (sent < total) {
            km_command_t c = cmd(KM_HANDLER_NOP, 0, sent % 100, 4, 2000, 0);
            uint32_t h;
            int rc = sim_ring_host_submit(&R.host[1], &c, &h);
            if (rc == SIM_RING_FULL) {
                full++;
                break;
            }
            assert_int_equal(h, sent + 1);
            sent++;
        }
        advance(500);
        unsigned n = drain(1, ev, 16);
        for (unsigned k = 0; k < n; k++) {
            assert_int_equal(ev[k].kind, KM_EVENT_DONE);
            assert_int_equal(ev[k].handle, got + 1); /* same lengths: in order */
            assert_int_equal(ev[k].ticks, 2000 * 1000 / SIM_PS_PER_TICK);
            got++;
        }
    }
    assert_int_equal(got, total);
    assert_true(full > 0); /* the writer did wait for its slot */
    assert_int_equal(counts_of(1).consumed, total);
    assert_int_equal(counts_of(1).events, total);
}

static void torn_line_is_not_taken(void **state)
{
    (void)state;
    rig_default();
    km_command_t c = cmd(KM_HANDLER_NOP, 0, 0, 1, 0, 0);
    uint64_t at = R.desc[0].commands + 1 * sizeof(km_command_line);
    km_command_line line;
    memset(&line, 0, sizeof line);
    line.sequence = 1;
    line.land[0] = c.hdr;
    line.land[1] = c.group;
    line.land[2] = ~1u;
    /* The number and landing words arrived, the words not yet. */
    R.cmd_mem[0].write(R.cmd_mem[0].ctx, at + 48, &line.sequence, 16);
    advance(50000);
    assert_int_equal(counts_of(0).consumed, 0);
    /* The words, but the last 16 bytes half-landed (~sequence missing). */
    line.command = c;
    line.land[2] = 0;
    R.cmd_mem[0].write(R.cmd_mem[0].ctx, at, &line, sizeof line);
    advance(50000);
    assert_int_equal(counts_of(0).consumed, 0);
    /* Whole. */
    line.land[2] = ~1u;
    R.cmd_mem[0].write(R.cmd_mem[0].ctx, at, &line, sizeof line);
    advance(50000);
    assert_int_equal(counts_of(0).consumed, 1);
    km_event_t ev[2];
    assert_int_equal(drain(0, ev, 2), 1);
    assert_int_equal(ev[0].kind, KM_EVENT_DONE);
    assert_int_equal(ev[0].handle, 1);
}

/* The events side logs its writes; a reader hook rewrites the index
 * between the reader's first and last look. */
typedef struct logged {
    sim_ring_mem inner;
    uint64_t at[64];
    size_t bytes[64];
    uint32_t first_word[64];
    unsigned n;
    int reads;          /* reads of the hooked slot */
    uint64_t hook_slot; /* 0: no hook */
} logged;

static void logged_read(void *ctx, uint64_t address, void *out, size_t bytes)
{
    logged *l = ctx;
    l->inner.read(l->inner.ctx, address, out, bytes);
    if (l->hook_slot && address >= l->hook_slot && address < l->hook_slot + 16 && ++l->reads == 2) {
        uint32_t other = 0; /* the writer starts over the slot */
        l->inner.write(l->inner.ctx, l->hook_slot, &other, 4);
    }
}

static void logged_write(void *ctx, uint64_t address, const void *in, size_t bytes)
{
    logged *l = ctx;
    if (l->n < 64) {
        l->at[l->n] = address;
        l->bytes[l->n] = bytes;
        l->first_word[l->n] = 0;
        memcpy(&l->first_word[l->n], in, bytes < 4 ? bytes : 4);
        l->n++;
    }
    l->inner.write(l->inner.ctx, address, in, bytes);
}

static void events_are_written_and_read_consistently(void **state)
{
    (void)state;
    rig_default();
    static logged log;
    memset(&log, 0, sizeof log);
    log.inner = R.ev_mem[2];
    sim_ring_mem m = {&log, logged_read, logged_write};
    assert_true(sim_dispatcher_attach_ring(R.d, 2, &R.cmd_mem[2], &m, &R.desc[2]));
    sim_ring_host_init(&R.host[2], &R.cmd_mem[2], &m, &R.desc[2]);
    uint32_t h = submit(2, cmd(KM_HANDLER_NOP, KM_FLAG_RESULT, 0, 1, 100, 0x1234));
    log.n = 0;
    uint64_t slot = R.desc[2].events + (h % 16) * 16;
    while (counts_of(2).events == 0) {
        advance(1000);
    }
    /* The event's slot: index 0, then the fields, then the index. */
    unsigned k = 0;
    while (k < log.n && log.at[k] != slot) {
        k++;
    }
    assert_true(k + 2 < log.n);
    assert_int_equal(log.bytes[k], 4);
    assert_int_equal(log.first_word[k], 0);
    assert_int_equal(log.at[k + 1], slot + 4);
    assert_int_equal(log.bytes[k + 1], 12);
    assert_int_equal(log.at[k + 2], slot);
    assert_int_equal(log.first_word[k + 2], 1);
    /* Rewritten under the reader (between its two index reads): not taken. */
    log.hook_slot = slot;
    km_event_t e;
    assert_int_equal(sim_ring_host_poll(&R.host[2], &e), SIM_RING_EMPTY);
    uint32_t taken;
    memcpy(&taken, R.cmd_bytes[2], 4);
    assert_int_equal(taken, 0);
    uint32_t one = 1; /* the writer finished: index back */
    R.ev_mem[2].write(R.ev_mem[2].ctx, slot, &one, 4);
    log.hook_slot = 0;
    assert_int_equal(sim_ring_host_poll(&R.host[2], &e), SIM_RING_OK);
    assert_int_equal(e.index, 1);
    assert_int_equal(e.handle, h);
    assert_int_equal(e.ticks, 0x1234);
    memcpy(&taken, R.cmd_bytes[2], 4);
    assert_int_equal(taken, 1);
}

static void full_event_ring_holds_events(void **state)
{
    (void)state;
    sim_dispatcher_params p;
    rig_params(&p);
    rig_start(&p, 8, 2);
    for (int i = 0; i < 5; i++) {
        submit(0, cmd(KM_HANDLER_NOP, 0, (uint32_t)i * 2, 2, 0, 0));
    }
    advance(200000);
    assert_int_equal(counts_of(0).consumed, 5);
    assert_int_equal(counts_of(0).events, 2); /* taken 0: two slots */
    sim_dispatcher_stats s;
    sim_dispatcher_get_stats(R.d, &s);
    assert_true(s.held[0] > 0);
    assert_int_equal(s.jobs_in_use, 3); /* their events keep their slots */
    km_event_t ev[8];
    unsigned got = drain(0, ev, 8);
    assert_int_equal(got, 2);
    for (int round = 0; round < 10 && got < 5; round++) {
        advance(20000);
        got += drain(0, ev + got, 8 - got);
    }
    assert_int_equal(got, 5);
    for (unsigned k = 0; k < 5; k++) {
        assert_int_equal(ev[k].index, k + 1);
        assert_int_equal(ev[k].handle, k + 1);
        assert_int_equal(ev[k].kind, KM_EVENT_DONE);
    }
}

static void busy_is_reason_11_then_one_wake(void **state)
{
    (void)state;
    sim_dispatcher_params p;
    rig_params(&p);
    p.job_slots = 2;
    p.queue_depth = 2;
    rig_start(&p, 8, 16);
    submit(1, cmd(KM_HANDLER_SPEND, 0, 0, 1, 100000, 0));
    submit(1, cmd(KM_HANDLER_SPEND, 0, 1, 1, 200000, 0));
    submit(1, cmd(KM_HANDLER_SPEND, 0, 2, 1, 1000, 0));
    submit(1, cmd(KM_HANDLER_SPEND, 0, 3, 1, 1000, 0));
    km_event_t ev[16];
    unsigned got = 0;
    for (int i = 0; i < 400; i++) {
        advance(1000);
        got += drain(1, ev + got, 16 - got);
    }
    /* 3 and 4 rejected at once; 1 done; one wake; 2 done. */
    assert_int_equal(got, 5);
    assert_int_equal(ev[0].kind, KM_EVENT_REJECTED);
    assert_int_equal(ev[0].reason, KM_REASON_BUSY);
    assert_int_equal(ev[0].handle, 3);
    assert_int_equal(ev[1].kind, KM_EVENT_REJECTED);
    assert_int_equal(ev[1].reason, 11);
    assert_int_equal(ev[1].handle, 4);
    assert_int_equal(ev[2].kind, KM_EVENT_DONE);
    assert_int_equal(ev[2].handle, 1);
    assert_int_equal(ev[3].kind, KMX_EVENT_WAKE);
    assert_int_equal(ev[3].handle, 0);
    assert_int_equal(ev[4].kind, KM_EVENT_DONE);
    assert_int_equal(ev[4].handle, 2);
    sim_dispatcher_stats s;
    sim_dispatcher_get_stats(R.d, &s);
    assert_int_equal(s.wakes[1], 1);
    assert_int_equal(s.rejected_busy[1], 2);
    /* A later rejection earns a new wake, one again. */
    submit(1, cmd(KM_HANDLER_SPEND, 0, 0, 1, 100000, 0));
    submit(1, cmd(KM_HANDLER_SPEND, 0, 1, 1, 100000, 0));
    submit(1, cmd(KM_HANDLER_SPEND, 0, 2, 1, 100000, 0));
    got = 0;
    for (int i = 0; i < 300; i++) {
        advance(1000);
        got += drain(1, ev + got, 16 - got);
    }
    unsigned wakes = 0;
    for (unsigned k = 0; k < got; k++) {
        wakes += ev[k].kind == KMX_EVENT_WAKE;
    }
    assert_int_equal(wakes, 1);
    assert_int_equal(ev[0].reason, KM_REASON_BUSY);
}

static void exclusive_overlap_then_accepted(void **state)
{
    (void)state;
    rig_default();
    submit(1, cmd(KM_HANDLER_SPEND, KM_FLAG_EXCLUSIVE, 0, 10, 50000, 0));
    advance(30000);
    submit(1, cmd(KM_HANDLER_SPEND, 0, 5, 10, 1000, 0));                 /* joins an exclusive group */
    submit(1, cmd(KM_HANDLER_SPEND, KM_FLAG_EXCLUSIVE, 9, 1, 1000, 0));  /* exclusive into it */
    submit(1, cmd(KM_HANDLER_SPEND, KM_FLAG_EXCLUSIVE, 10, 5, 1000, 0)); /* beside it: fine */
    km_event_t ev[16];
    unsigned got = 0;
    for (int i = 0; i < 100 && got < 5; i++) {
        advance(1000);
        got += drain(1, ev + got, 16 - got);
    }
    assert_int_equal(got, 5);
    assert_int_equal(ev[0].kind, KM_EVENT_REJECTED);
    assert_int_equal(ev[0].reason, KM_REASON_BUSY);
    assert_int_equal(ev[0].handle, 2);
    assert_int_equal(ev[1].reason, KM_REASON_BUSY);
    assert_int_equal(ev[1].handle, 3);
    assert_int_equal(ev[2].kind, KM_EVENT_DONE);
    assert_int_equal(ev[2].handle, 4);
    /* Its slot freed: the one wake (4 going to the grid was no cause: the
     * rejections were not for a full queue). */
    assert_int_equal(ev[3].kind, KMX_EVENT_WAKE);
    assert_int_equal(ev[4].kind, KM_EVENT_DONE);
    assert_int_equal(ev[4].handle, 1);
    /* After the first finished, the overlapping command is accepted. */
    uint32_t h = submit(1, cmd(KM_HANDLER_SPEND, KM_FLAG_EXCLUSIVE, 5, 10, 1000, 0));
    got = 0;
    for (int i = 0; i < 100 && got < 1; i++) {
        advance(1000);
        got += drain(1, ev, 16);
    }
    assert_int_equal(ev[0].kind, KM_EVENT_DONE);
    assert_int_equal(ev[0].handle, h);
}

static km_event_t one_event(unsigned ring)
{
    km_event_t e;
    memset(&e, 0, sizeof e);
    for (int i = 0; i < 10000; i++) {
        advance(1000);
        if (sim_ring_host_poll(&R.host[ring], &e) == SIM_RING_OK) {
            return e;
        }
    }
    fail_msg("no event");
    return e;
}

static void result_word_or_run_time_in_ticks(void **state)
{
    (void)state;
    rig_default();
    uint32_t h = submit(3, cmd(KM_HANDLER_SUM, KM_FLAG_RESULT, 0, 4, 20000, 0xDEADBEEFu));
    km_event_t e = one_event(3);
    assert_int_equal(e.kind, KM_EVENT_DONE);
    assert_int_equal(e.handle, h);
    assert_int_equal(e.ticks, 0xDEADBEEFu);
    h = submit(3, cmd(KM_HANDLER_SUM, 0, 0, 4, 20000, 0xDEADBEEFu));
    e = one_event(3);
    assert_int_equal(e.handle, h);
    assert_int_equal(e.ticks, 20000 * 1000 / SIM_PS_PER_TICK); /* 1,000 ticks of 50 MHz */
}

/* The recorder: a command taken, started as a job, its event written, in
 * that order and in time order, each inside a pass it hears of after; a
 * rejected one taken and answered; idle passes not heard of. */
static sim_card_moment moments[64];
static unsigned nmoments;
static void hear(void *ctx, const sim_card_moment *m)
{
    (void)ctx;
    if (nmoments < 64)
        moments[nmoments] = *m;
    nmoments++;
}

static void the_recorder_hears_what_happens_to_a_command(void **state)
{
    (void)state;
    rig_default();
    nmoments = 0;
    sim_dispatcher_record(R.d, hear, NULL);
    advance(50000); /* idle: nothing heard */
    assert_int_equal(nmoments, 0);
    uint32_t h = submit(2, cmd(KM_HANDLER_SUM, 0, 0, 4, 20000, 0));
    uint32_t bad = submit(2, cmd(0, 0, 0, 4, 0, 0)); /* no handler 0: rejected */
    (void)one_event(2);
    (void)one_event(2);
    assert_true(nmoments <= 64);
    int taken = -1, started = -1, event = -1, rejected = -1;
    uint64_t last = 0, pass_begin = 0;
    unsigned passes = 0;
    for (unsigned i = 0; i < nmoments; i++) {
        const sim_card_moment *m = &moments[i];
        if (m->kind == SIM_MOMENT_PASS) {
            assert_true(m->begin_ps < m->end_ps && m->begin_ps >= pass_begin);
            pass_begin = m->end_ps;
            passes++;
            continue;
        }
        assert_int_equal(m->ring, 2);
        assert_true(m->begin_ps >= last && m->begin_ps >= pass_begin);
        last = m->begin_ps;
        if (m->kind == SIM_MOMENT_TAKEN && m->handle == h)
            taken = (int)i;
        else if (m->kind == SIM_MOMENT_STARTED && m->handle == h)
            started = (int)i;
        else if (m->kind == SIM_MOMENT_EVENT && m->handle == h && m->event == KM_EVENT_DONE)
            event = (int)i;
        else if (m->kind == SIM_MOMENT_EVENT && m->handle == bad &&
                 m->event == KM_EVENT_REJECTED)
            rejected = (int)i;
    }
    assert_true(taken >= 0 && taken < started && started < event && rejected > taken);
    assert_true(passes >= 2 && passes < 20);
    sim_dispatcher_record(R.d, NULL, NULL);
}

static void timeouts(void **state)
{
    (void)state;
    sim_dispatcher_params p;
    rig_params(&p);
    p.time_limit_ps = 50 * BH_PS_PER_US;
    rig_start(&p, 8, 16);
    km_command_t c = cmd(KM_HANDLER_SPEND, 0, 0, 2, 0, 0);
    c.a2 = 1; /* never ends */
    submit(0, c);
    km_event_t e = one_event(0);
    assert_int_equal(e.kind, KM_EVENT_TIMEOUT);
    assert_true(e.ticks >= 50 * 50);
    assert_int_equal(R.grid.cancels, 1);
    /* Ends, but too late. */
    submit(0, cmd(KM_HANDLER_SPEND, KM_FLAG_RESULT, 0, 2, 50001, 7));
    e = one_event(0);
    assert_int_equal(e.kind, KM_EVENT_TIMEOUT);
    /* The grid says it timed out. */
    c = cmd(KM_HANDLER_SPEND, 0, 0, 2, 10, 0);
    c.a2 = 2;
    submit(0, c);
    e = one_event(0);
    assert_int_equal(e.kind, KM_EVENT_TIMEOUT);
    /* In time. */
    submit(0, cmd(KM_HANDLER_SPEND, KM_FLAG_RESULT, 0, 2, 49000, 7));
    e = one_event(0);
    assert_int_equal(e.kind, KM_EVENT_DONE);
    assert_int_equal(e.ticks, 7);
}

static void bad_commands_are_rejected_with_reasons(void **state)
{
    (void)state;
    rig_default();
    struct {
        km_command_t c;
        uint16_t reason;
    } cases[] = {
        {cmd(0, 0, 0, 1, 0, 0), KM_REASON_HANDLER},
        {cmd(200, 0, 0, 1, 0, 0), KM_REASON_HANDLER},
        {cmd(KM_HANDLER_NOP, 0, 0, 0, 0, 0), KM_REASON_GROUP},
        {cmd(KM_HANDLER_NOP, 0, 100, 21, 0, 0), KM_REASON_GROUP},
        {cmd(KM_HANDLER_NOP, 0x04, 0, 1, 0, 0), KM_REASON_FLAGS},
        {cmd(KM_HANDLER_NOP, 0, 119, 1, 0, 0), KM_REASON_NONE},
    };
    km_command_t high = cmd(KM_HANDLER_NOP, 0, 0, 1, 0, 0);
    high.hdr |= 1u << 16; /* reserved hdr bits */
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint32_t h = submit(0, cases[k].c);
        km_event_t e = one_event(0);
        assert_int_equal(e.handle, h);
        if (cases[k].reason == KM_REASON_NONE) {
            assert_int_equal(e.kind, KM_EVENT_DONE);
        } else {
            assert_int_equal(e.kind, KM_EVENT_REJECTED);
            assert_int_equal(e.reason, cases[k].reason);
        }
    }
    submit(0, high);
    km_event_t e = one_event(0);
    assert_int_equal(e.kind, KM_EVENT_REJECTED);
    assert_int_equal(e.reason, KM_REASON_FLAGS);
    /* Stopping. */
    sim_dispatcher_stop(R.d);
    submit(0, cmd(KM_HANDLER_NOP, 0, 0, 1, 0, 0));
    e = one_event(0);
    assert_int_equal(e.kind, KM_EVENT_REJECTED);
    assert_int_equal(e.reason, KM_REASON_STOPPING);
    assert_int_equal(R.grid.submits, 1);
}

/* Run exactly one pass. */
static void one_pass(void)
{
    sim_dispatcher_stats s;
    sim_dispatcher_get_stats(R.d, &s);
    R.t = s.now_ps;
    sim_dispatcher_step(R.d, R.t);
}

static void round_robin_is_fair(void **state)
{
    (void)state;
    sim_dispatcher_params p;
    rig_params(&p);
    p.takes_per_look = 1;
    p.job_slots = 64;
    p.queue_depth = 64;
    rig_start(&p, 16, 64);
    R.grid.cap = 64;
    for (unsigned ring = 0; ring < 4; ring++) {
        for (unsigned k = 0; k < 12; k++) {
            submit(ring, cmd(KM_HANDLER_NOP, 0, k, 1, 1000000, 0));
        }
    }
    for (unsigned pass = 0; pass < 12; pass++) {
        sim_dispatcher_stats before, after;
        sim_dispatcher_get_stats(R.d, &before);
        one_pass();
        sim_dispatcher_get_stats(R.d, &after);
        unsigned work = sim_dispatcher_work_ring_of_pass(pass);
        assert_int_equal(work, pass % 4);
        assert_int_equal(after.taken[0] - before.taken[0], 1);
        for (unsigned ring = 1; ring < 4; ring++) {
            assert_int_equal(after.taken[ring] - before.taken[ring], ring == work ? 1 : 0);
        }
    }
    sim_dispatcher_stats s;
    sim_dispatcher_get_stats(R.d, &s);
    assert_int_equal(s.passes, 12);
    assert_int_equal(s.taken[0], 12);
    assert_int_equal(s.looks[0], 12);
    for (unsigned ring = 1; ring < 4; ring++) {
        assert_int_equal(s.taken[ring], 3);
        assert_int_equal(s.looks[ring], 3);
    }
}

/* A mixed run on all four rings; its events and end time. */
static void scenario(uint64_t step_ns, km_event_t *log, unsigned *n, uint64_t *end)
{
    sim_dispatcher_params p;
    rig_params(&p);
    p.job_slots = 4;
    p.queue_depth = 2;
    rig_start(&p, 4, 4);
    *n = 0;
    unsigned sent[4] = {0};
    for (uint64_t t = 0; t < 400000; t += step_ns) {
        for (unsigned ring = 0; ring < 4; ring++) {
            if (sent[ring] < 10) {
                km_command_t c = cmd(1 + sent[ring] % 5, sent[ring] % 3 == 0 ? KM_FLAG_EXCLUSIVE : 0,
                                     ring * 3, 4, 3000 * (ring + 1), sent[ring]);
                uint32_t h;
                if (sim_ring_host_submit(&R.host[ring], &c, &h) == SIM_RING_OK) {
                    sent[ring]++;
                }
            }
        }
        advance(step_ns);
        if ((t / step_ns) % 3 == 0) {
            for (unsigned ring = 0; ring < 4; ring++) {
                *n += drain(ring, log + *n, 4);
            }
        }
    }
    sim_dispatcher_stats s;
    sim_dispatcher_get_stats(R.d, &s);
    *end = s.now_ps;
}

static void deterministic(void **state)
{
    (void)state;
    static km_event_t a[1024], b[1024];
    unsigned na, nb;
    uint64_t ea, eb;
    scenario(700, a, &na, &ea);
    scenario(700, b, &nb, &eb);
    assert_true(na > 20);
    assert_int_equal(na, nb);
    assert_int_equal(ea, eb);
    assert_memory_equal(a, b, na * sizeof a[0]);
}

/* The spec's figure: rounds of two commands on a work cluster's ring,
 * each submitted and waited for in turn, back to back — the mean of
 * `rounds` rounds after a first one (which starts at an arbitrary phase of
 * the loop; the others start where the last one left off, so each is 8
 * passes).  A no-op of `job_ns` on the grid, a reader that polls every
 * 100 ns; the thread's own costs are not modeled here (bench/ring runs
 * the same end to end). */
static double round_of_two_us(unsigned mhz, uint32_t job_ns, unsigned rounds)
{
    sim_dispatcher_params p;
    rig_params(&p);
    p.mhz = mhz;
    rig_start(&p, 8, 16);
    advance(50000); /* idle passes first */
    uint64_t start = 0;
    for (unsigned r = 0; r <= rounds; r++) {
        if (r == 1) {
            start = R.t;
        }
        for (int k = 0; k < 2; k++) {
            uint32_t h = submit(1, cmd(KM_HANDLER_NOP, 0, 0, 1, job_ns, 0));
            km_event_t e;
            for (;;) {
                advance(100);
                if (sim_ring_host_poll(&R.host[1], &e) == SIM_RING_OK) {
                    break;
                }
            }
            assert_int_equal(e.handle, h);
        }
    }
    return (double)(R.t - start) / BH_PS_PER_US / rounds;
}

static void a_round_of_two(void **state)
{
    (void)state;
    double slow = round_of_two_us(SIM_MHZ_DEFAULT, 1000, 32);
    double fast = round_of_two_us(SIM_MHZ_FAST, 1000, 32);
    print_message("# a round of two commands: %.2f us at 1000 MHz, %.2f at 1750 "
                  "(spec: about 53 and 50)\n", slow, fast);
    /* Modeled time is exact, so these bounds only catch a table edited
     * without the README's calibration being redone (bench/ring measures
     * the same end to end, 53.0 and 50.0; here all four rings are
     * attached, so the empty looks at rings 2 and 3 add about 0.5 us). */
    assert_true(slow > 52 && slow < 54.5);
    assert_true(fast > 49 && fast < 51.5);
    assert_true(slow - fast > 2 && slow - fast < 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(slot_reuse_at_depth, teardown),
        cmocka_unit_test_teardown(torn_line_is_not_taken, teardown),
        cmocka_unit_test_teardown(events_are_written_and_read_consistently, teardown),
        cmocka_unit_test_teardown(full_event_ring_holds_events, teardown),
        cmocka_unit_test_teardown(busy_is_reason_11_then_one_wake, teardown),
        cmocka_unit_test_teardown(exclusive_overlap_then_accepted, teardown),
        cmocka_unit_test_teardown(result_word_or_run_time_in_ticks, teardown),
        cmocka_unit_test_teardown(timeouts, teardown),
        cmocka_unit_test_teardown(the_recorder_hears_what_happens_to_a_command, teardown),
        cmocka_unit_test_teardown(bad_commands_are_rejected_with_reasons, teardown),
        cmocka_unit_test_teardown(round_robin_is_fair, teardown),
        cmocka_unit_test_teardown(deterministic, teardown),
        cmocka_unit_test_teardown(a_round_of_two, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
