/* Tests for device/sim/grid/grid_port.c: the Tensix cores' X280 ports — a
 * message slot taking its two halves as one landing, what a core sees
 * before and after a landing, ask and answer by sequence, the wait limit
 * and the stop with where they gave up, the sending kernel, a core with no
 * X280 core, and the messages a core sends landing in its X280 core's
 * mailbox line.  The X280 side is played by the test through
 * sim_grid_tile_store and sim_grid_next_landing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "grid_internal.h"
#include "sim_clock.h"
#include "sim_grid.h"
#include "sim_noc.h"

#define US (1000000ull) /* picoseconds */
#define MS (1000u * US)
#define TEST_HANDLER KM_HANDLER_FIRST_PROGRAM

static sim_dram dram;
static sim_grid *grid;

/* What the test handler did, by core. */
static struct {
    bool ok[4];
    km_x280_msg_t got[4];
    unsigned where[4];
    uint64_t at_ps[4];
} seen;

static int setup(void **state)
{
    (void)state;
    sim_dram_init(&dram);
    grid = sim_grid_create(&dram, SIM_GRID_MHZ);
    if (!grid)
        return -1;
    km_port_dealing d;
    memset(&d, 0, sizeof d);
    for (unsigned core = 0; core < 3; core++) { /* core 3: no X280 core */
        d.cluster[core] = 1;
        d.x280_core[core] = (uint8_t)core;
    }
    sim_grid_set_ports(grid, &d);
    memset(&seen, 0, sizeof seen);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sim_grid_free(grid);
    sim_dram_free(&dram);
    return 0;
}

/* The handler under test: command a0 says what it does. */
enum { ASK, WAIT_TELL, LOOK, BOTH_KERNELS, PULL, TELLS };
static void handler(km_core *core, const km_command_t *c)
{
    unsigned id = km_core_id(core);
    km_port *reader = km_port_of(core, KM_KERNEL_READER);
    if (c->a0 == ASK) {
        seen.ok[id] = km_port_call(reader, 10u + id, 20u, 30u, &seen.got[id]);
    } else if (c->a0 == WAIT_TELL) {
        seen.ok[id] = km_port_wait(reader, &seen.got[id]);
    } else if (c->a0 == LOOK) {
        seen.ok[id] = km_port_look(reader, &seen.got[id]);
    } else if (c->a0 == TELLS) {
        seen.ok[id] = true;
        for (uint32_t i = 0; i < c->a1; i++)
            seen.ok[id] = seen.ok[id] && km_port_tell(reader, i, 0, 0);
    } else if (c->a0 == PULL) {
        /* Two ranges then none; each next() returns with the following
         * ask already on its way. */
        uint32_t first = 0;
        seen.got[id].w[0] = km_port_next(reader, &first);
        seen.got[id].w[1] = first;
        seen.got[id].w[2] = km_port_next(reader, &first);
        seen.ok[id] = km_port_next(reader, &first) == 0;
    } else {
        km_port *writer = km_port_of(core, KM_KERNEL_WRITER);
        seen.ok[id] = !km_port_tell(writer, 1, 2, 3) && km_port_tell(reader, 4, 5, 6);
    }
    seen.where[id] = km_port_where(core);
    seen.at_ps[id] = km_time_ps(core);
}

static void start_with(unsigned what, uint32_t a1, unsigned first, unsigned count, uint64_t now)
{
    grid->handlers[TEST_HANDLER] = handler;
    km_command_t c;
    memset(&c, 0, sizeof c);
    c.hdr = KM_HDR(TEST_HANDLER, 0);
    c.group = KM_GROUP(first, count);
    c.a0 = what;
    c.a1 = a1;
    assert_int_equal(sim_grid_submit(grid, 1, &c, 0, now), KM_REASON_NONE);
}

static void start(unsigned what, unsigned first, unsigned count, uint64_t now)
{
    start_with(what, 0, first, count, now);
}

static sim_grid_done finish(uint64_t until)
{
    sim_grid_step(grid, until);
    sim_grid_done d;
    assert_true(sim_grid_poll_done(grid, &d));
    return d;
}

/* The X280 side: a message into core's slot as its two 8-byte halves. */
static void x280_store(unsigned core, uint32_t offset, km_x280_msg_t m, uint64_t at)
{
    uint64_t half[2];
    memcpy(half, &m, sizeof half);
    assert_int_equal(sim_grid_tile_store(grid, core, KM_CONTROL_X280_L1 + offset, 8, half[0], at),
                     0);
    assert_int_equal(
        sim_grid_tile_store(grid, core, KM_CONTROL_X280_L1 + offset + 8, 8, half[1], at), 0);
}

static uint64_t slot_word(unsigned core, uint32_t offset, unsigned word, uint64_t at)
{
    uint64_t v = 0;
    assert_int_equal(sim_grid_tile_load(grid, core, KM_CONTROL_X280_L1 + offset + 4u * word, 4,
                                        &v, at),
                     0);
    return v;
}

static void a_slot_lands_both_halves_at_once(void **state)
{
    (void)state;
    uint64_t low = (uint64_t)7 | (uint64_t)70 << 32, high = (uint64_t)71 | (uint64_t)72 << 32;
    assert_int_equal(sim_grid_tile_store(grid, 0, KM_CONTROL_X280_L1, 8, low, 1 * US), 0);
    /* The low half alone is held: nothing has landed, even much later. */
    assert_int_equal(slot_word(0, KM_X280_TELL_OFFSET, 0, 100 * US), 0);
    assert_int_equal(sim_grid_tile_store(grid, 0, KM_CONTROL_X280_L1 + 8, 8, high, 2 * US), 0);
    uint64_t lands = 2 * US + SIM_NOC_LAND_PS;
    assert_int_equal(slot_word(0, KM_X280_TELL_OFFSET, 0, lands - 1), 0);
    assert_int_equal(slot_word(0, KM_X280_TELL_OFFSET, 0, lands), 7);
    assert_int_equal(slot_word(0, KM_X280_TELL_OFFSET, 3, lands), 72);
    /* A newer one: before it lands the older is seen, whole. */
    x280_store(0, KM_X280_TELL_OFFSET, (km_x280_msg_t){8, {80, 81, 82}}, 3 * US);
    assert_int_equal(slot_word(0, KM_X280_TELL_OFFSET, 1, 3 * US + SIM_NOC_LAND_PS - 1), 70);
    assert_int_equal(slot_word(0, KM_X280_TELL_OFFSET, 1, 3 * US + SIM_NOC_LAND_PS), 80);
}

static void a_slot_refuses_what_is_not_a_message(void **state)
{
    (void)state;
    /* A high half with no low half, a 4-byte store, outside the area,
     * past the grid: faults. */
    assert_int_equal(sim_grid_tile_store(grid, 1, KM_CONTROL_X280_L1 + 24, 8, 1, 0), -1);
    assert_int_equal(sim_grid_tile_store(grid, 1, KM_CONTROL_X280_L1, 4, 1, 0), -1);
    assert_int_equal(sim_grid_tile_store(grid, 1, KM_CONTROL_X280_L1 + 32, 8, 1, 0), -1);
    assert_int_equal(sim_grid_tile_store(grid, 1, KM_CONTROL_L1, 8, 1, 0), -1);
    assert_int_equal(sim_grid_tile_store(grid, BH_GRID_CORES, KM_CONTROL_X280_L1, 8, 1, 0), -1);
    uint64_t v;
    assert_int_equal(sim_grid_tile_load(grid, 1, KM_CONTROL_X280_L1 + 2, 4, &v, 0), -1);
}

static void an_ask_lands_in_the_mailbox_and_waits_for_its_own_answer(void **state)
{
    (void)state;
    start(ASK, 2, 1, 0);
    sim_grid_step(grid, 5 * US);
    sim_grid_landing l;
    assert_false(sim_grid_next_landing(grid, SIM_NOC_LAND_PS - 1, &l)); /* not yet */
    assert_true(sim_grid_next_landing(grid, 5 * US, &l));
    assert_int_equal(l.cluster, 1);
    assert_int_equal(l.lim_address, KMX_LIM_PORTS + offsetof(kmx_ports_area, mailbox) +
                                        2u * sizeof(kmx_port_mailbox) +
                                        offsetof(kmx_port_mailbox, ask));
    assert_int_equal(l.message.sequence, 1);
    assert_int_equal(l.message.w[0], 12);
    assert_int_equal(l.message.w[2], 30);
    assert_false(sim_grid_next_landing(grid, 5 * US, &l)); /* taken */
    /* An answer with another number is not the answer ... */
    x280_store(2, KM_X280_ANSWER_OFFSET, (km_x280_msg_t){2, {99, 0, 0}}, 6 * US);
    sim_grid_step(grid, 20 * US);
    assert_int_equal(sim_grid_jobs(grid), 1);
    /* ... this one is, seen SIM_GRID_PORT_LOOK_CYCLES after it lands. */
    x280_store(2, KM_X280_ANSWER_OFFSET, (km_x280_msg_t){1, {24, 0, 0}}, 30 * US);
    sim_grid_done d = finish(100 * US);
    assert_int_equal(d.where, KM_WHERE_NONE);
    assert_true(seen.ok[2]);
    assert_int_equal(seen.got[2].w[0], 24);
    assert_true(seen.at_ps[2] >= 30 * US + SIM_NOC_LAND_PS);
    assert_true(seen.at_ps[2] < 30 * US + SIM_NOC_LAND_PS + 100000u);
}

static void a_wait_gives_up_at_the_limit_and_says_where(void **state)
{
    (void)state;
    start(ASK, 0, 2, 0);
    sim_grid_done d = finish(20 * MS);
    assert_false(seen.ok[0]);
    assert_false(seen.ok[1]);
    assert_int_equal(seen.where[0], KM_WHERE_X280_ANSWER);
    assert_true(seen.at_ps[0] >= (uint64_t)KM_PORT_WAIT_LIMIT_NS * 1000u);
    assert_int_equal(d.where, KM_WHERE_X280_ANSWER);
    unsigned n;
    const km_port_gave_up *g = sim_grid_port_waits(grid, &n);
    assert_int_equal(n, 2);
    assert_int_equal(g[0].core, 0);
    assert_int_equal(g[0].handler, TEST_HANDLER);
    assert_int_equal(g[0].why, KM_PORT_GAVE_UP_LIMIT);
    assert_int_equal(g[1].core, 1);
}

static void a_wait_gives_up_at_the_stop(void **state)
{
    (void)state;
    start(WAIT_TELL, 1, 1, 0);
    sim_grid_step(grid, 50 * US);
    sim_grid_set_stop(grid, true);
    finish(100 * US);
    assert_false(seen.ok[1]);
    assert_int_equal(seen.where[1], KM_WHERE_X280_TELL);
    assert_true(seen.at_ps[1] <= 50 * US + 100000u); /* at once, not at the limit */
    unsigned n;
    const km_port_gave_up *g = sim_grid_port_waits(grid, &n);
    assert_int_equal(n, 1);
    assert_int_equal(g[0].why, KM_PORT_GAVE_UP_STOP);
}

static void a_tell_is_seen_once_and_only_the_newest(void **state)
{
    (void)state;
    x280_store(0, KM_X280_TELL_OFFSET, (km_x280_msg_t){1, {1, 0, 0}}, 0);
    x280_store(0, KM_X280_TELL_OFFSET, (km_x280_msg_t){2, {2, 0, 0}}, 1 * US);
    start(LOOK, 0, 1, 10 * US);
    finish(100 * US);
    assert_true(seen.ok[0]);
    assert_int_equal(seen.got[0].w[0], 2); /* the newest; the first is lost */
    start(LOOK, 0, 1, 200 * US);
    finish(300 * US);
    assert_false(seen.ok[0]); /* seen already: nothing newer */
    assert_int_equal(seen.where[0], KM_WHERE_NONE);
    /* A wait wakes for the next one. */
    start(WAIT_TELL, 0, 1, 400 * US);
    sim_grid_step(grid, 450 * US);
    x280_store(0, KM_X280_TELL_OFFSET, (km_x280_msg_t){3, {3, 0, 0}}, 450 * US);
    finish(600 * US);
    assert_true(seen.ok[0]);
    assert_int_equal(seen.got[0].w[0], 3);
}

static void one_kernel_sends_and_a_core_without_an_x280_core_refuses(void **state)
{
    (void)state;
    start(BOTH_KERNELS, 1, 1, 0);
    finish(100 * US);
    assert_true(seen.ok[1]); /* the writer refused, the reader sent */
    assert_int_equal(seen.where[1], KM_WHERE_X280_OWNER);
    start(ASK, 3, 1, 200 * US);
    sim_grid_done d = finish(300 * US);
    assert_false(seen.ok[3]);
    assert_int_equal(seen.where[3], KM_WHERE_X280_NONE);
    assert_int_equal(d.where, KM_WHERE_X280_NONE);
    unsigned n;
    const km_port_gave_up *g = sim_grid_port_waits(grid, &n);
    assert_int_equal(n, 2);
    assert_int_equal(g[0].why, KM_PORT_GAVE_UP_REFUSED);
    assert_int_equal(g[1].where, KM_WHERE_X280_NONE);
}

static void next_keeps_one_ask_in_flight(void **state)
{
    (void)state;
    start(PULL, 1, 1, 0);
    sim_grid_landing l;
    /* Each ask is answered when it lands: range (10, 4), (20, 3), none. */
    uint32_t answers[3][2] = {{10, 4}, {20, 3}, {0, 0}};
    uint64_t t = 0;
    for (unsigned i = 0; i < 3; i++) {
        t += 10 * US;
        sim_grid_step(grid, t);
        assert_true(sim_grid_next_landing(grid, t, &l));
        assert_int_equal(l.message.sequence, i + 1);
        assert_int_equal(l.message.w[0], KM_PULL_ASK);
        assert_false(sim_grid_next_landing(grid, t, &l)); /* one in flight */
        x280_store(1, KM_X280_ANSWER_OFFSET,
                   (km_x280_msg_t){i + 1, {answers[i][0], answers[i][1], 0}}, t);
    }
    finish(t + 100 * US);
    assert_int_equal(seen.got[1].w[0], 4);
    assert_int_equal(seen.got[1].w[1], 10);
    assert_int_equal(seen.got[1].w[2], 3);
    assert_true(seen.ok[1]);
    assert_false(sim_grid_next_landing(grid, UINT64_MAX, &l)); /* no ask after none */
}

/* A send (here a tell) holds its core until the write into the X280
 * LIM is acknowledged, SIM_GRID_PORT_SEND_PS (longer than a write into a
 * bank), plus its cycle; the message lands long before that. */
static void a_send_waits_for_its_acknowledgement(void **state)
{
    (void)state;
    _Static_assert(SIM_GRID_PORT_SEND_PS > SIM_GRID_NOC_WRITE_PS &&
                       SIM_GRID_PORT_SEND_PS > SIM_NOC_LAND_PS,
                   "a send is acknowledged after it lands, later than a bank write");
    start_with(TELLS, 1, 0, 1, 0);
    finish(100 * US);
    assert_true(seen.ok[0]);
    uint64_t one = seen.at_ps[0];
    start_with(TELLS, 3, 0, 1, 200 * US);
    finish(300 * US);
    assert_true(seen.ok[0]);
    uint64_t cycle = (1000000u + SIM_GRID_MHZ - 1u) / SIM_GRID_MHZ;
    uint64_t each = seen.at_ps[0] - 200 * US - one;
    assert_true(each >= 2 * SIM_GRID_PORT_SEND_PS && each <= 2 * (SIM_GRID_PORT_SEND_PS + cycle));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_slot_lands_both_halves_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(a_slot_refuses_what_is_not_a_message, setup, teardown),
        cmocka_unit_test_setup_teardown(an_ask_lands_in_the_mailbox_and_waits_for_its_own_answer,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_wait_gives_up_at_the_limit_and_says_where, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_wait_gives_up_at_the_stop, setup, teardown),
        cmocka_unit_test_setup_teardown(a_tell_is_seen_once_and_only_the_newest, setup, teardown),
        cmocka_unit_test_setup_teardown(one_kernel_sends_and_a_core_without_an_x280_core_refuses,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(next_keeps_one_ask_in_flight, setup, teardown),
        cmocka_unit_test_setup_teardown(a_send_waits_for_its_acknowledgement, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
