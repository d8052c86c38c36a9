/* Tests for lib/gdb/km_gdb_card.c (and lib/gdb/gdb_sim.c): the target of `kmrun
 * run --gdb` over a real simulated card whose run goes on in a thread of
 * its own, driven here through the target's ops as the GDB server drives
 * them — breakpoints on every core, a step of one core while the others
 * keep still, a watch, the end — and the held run ending exactly where the
 * plain one does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "counting_card.h"
#include "km_gdb_card.h"
#include "gdb_sim.h"
#include "sim_card_debug.h"

#define SPAN_PS (200ull * 1000 * 1000)

typedef struct rig {
    sim_card *card;
    km_gdb_card *t;
    const km_gdb_target_ops *ops;
    pthread_t run;
} rig;

static void *run_card(void *arg)
{
    rig *r = arg;
    km_gdb_card_wait_start(r->t);
    /* the run driver's slices, as the session steps the card */
    for (uint64_t ps = 0; ps < SPAN_PS; ps += SPAN_PS / 16)
        sim_card_step(r->card, ps + SPAN_PS / 16);
    km_gdb_card_ended(r->t, 0);
    return NULL;
}

static void rig_start(rig *r)
{
    r->card = card_new();
    unsigned cluster = 1;
    bool debugged = true;
    r->t = km_gdb_card_new(r->card, &cluster, &debugged, 1);
    assert_non_null(r->t);
    r->ops = km_gdb_card_ops();
    assert_int_equal(pthread_create(&r->run, NULL, run_card, r), 0);
}

static void rig_end(rig *r)
{
    pthread_join(r->run, NULL);
    km_gdb_card_free(r->t);
    sim_card_free(r->card);
}

static uint64_t reg(rig *r, int thread, int regno)
{
    uint64_t v = 0;
    assert_int_equal(r->ops->read_reg(r->t, thread, regno, &v), 0);
    return v;
}

static km_gdb_stop resume(rig *r, int thread, bool step, bool others)
{
    km_gdb_stop stop;
    km_gdb_resume how = {thread, step, others};
    assert_int_equal(r->ops->resume(r->t, &how, NULL, NULL, &stop), 0);
    return stop;
}

static void breaks_steps_watches_and_the_end(void **state)
{
    (void)state;
    /* the plain run's ends */
    sim_card *plain = card_new();
    sim_card_step(plain, SPAN_PS);
    uint64_t plain_cycle[BH_CLUSTER_CORES];
    for (unsigned k = 0; k < BH_CLUSTER_CORES; k++)
        assert_int_equal(sim_card_debug_get_reg(plain, 1, k, SIM_REG_CSR, 0xb00, &plain_cycle[k]),
                         0);
    sim_card_free(plain);

    rig r;
    rig_start(&r);
    assert_int_equal(r.ops->thread_count(r.t), 4);
    char name[32];
    assert_int_equal(r.ops->thread_name(r.t, 2, name, sizeof name), 0);
    assert_string_equal(name, "c1.2");
    /* halted at the reset pc */
    assert_int_equal(reg(&r, 3, KM_GDB_REG_PC), CODE);

    /* a breakpoint at the loop: the first core there stops the run */
    assert_int_equal(r.ops->insert_point(r.t, KM_GDB_SW_BREAK, LOOP, 4), 0);
    km_gdb_stop s = resume(&r, -1, false, true);
    assert_int_equal(s.reason, KM_GDB_STOP_BREAK);
    assert_int_equal(reg(&r, s.thread, KM_GDB_REG_PC), LOOP);
    assert_int_equal(reg(&r, s.thread, KM_GDB_REG_X0 + 10), 0); /* before the first addi */

    /* step thread 1 alone, three times: it moves an instruction each */
    assert_int_equal(r.ops->remove_point(r.t, KM_GDB_SW_BREAK, LOOP, 4), 0);
    uint64_t pc = reg(&r, 1, KM_GDB_REG_PC);
    for (int i = 0; i < 3; i++) {
        s = resume(&r, 1, true, false);
        assert_int_equal(s.reason, KM_GDB_STOP_STEP);
        assert_int_equal(s.thread, 1);
        uint64_t next = reg(&r, 1, KM_GDB_REG_PC);
        assert_true(next != pc);
        pc = next;
    }

    /* a watch on core 2's word: stops before its store, as core 2 */
    assert_int_equal(r.ops->insert_point(r.t, KM_GDB_WATCH_WRITE, WORDS + 16, 8), 0);
    s = resume(&r, -1, false, true);
    assert_int_equal(s.reason, KM_GDB_STOP_WATCH);
    assert_int_equal(s.thread, 2);
    assert_int_equal(s.watch, KM_GDB_WATCH_WRITE);
    assert_int_equal(s.addr, WORDS + 16);
    assert_int_equal(reg(&r, 2, KM_GDB_REG_PC), STORE);
    uint64_t word = 1;
    assert_int_equal(r.ops->read_mem(r.t, 2, WORDS + 16, (uint8_t *)&word, 8), 0);
    assert_int_equal(word + 1, reg(&r, 2, KM_GDB_REG_X0 + 10));
    assert_int_equal(r.ops->remove_point(r.t, KM_GDB_WATCH_WRITE, WORDS + 16, 8), 0);
    assert_int_equal(r.ops->remove_point(r.t, KM_GDB_WATCH_WRITE, WORDS + 16, 8), -1);

    /* core 3's misaligned load: a trap stop before it is taken */
    s = resume(&r, -1, false, true);
    assert_int_equal(s.reason, KM_GDB_STOP_TRAP);
    assert_int_equal(s.thread, 3);
    assert_int_equal(s.cause, 4);

    /* to the end, as the plain run */
    s = resume(&r, -1, false, true);
    assert_int_equal(s.reason, KM_GDB_STOP_EXITED);
    assert_int_equal(s.exit_code, 0);
    for (unsigned k = 0; k < BH_CLUSTER_CORES; k++)
        assert_int_equal(reg(&r, (int)k, KM_GDB_REG_CSR0 + 0xb00), plain_cycle[k]);
    rig_end(&r);
}

static void detach_runs_free(void **state)
{
    (void)state;
    rig r;
    rig_start(&r);
    assert_int_equal(r.ops->insert_point(r.t, KM_GDB_HW_BREAK, LOOP, 4), 0);
    km_gdb_stop s = resume(&r, -1, false, true);
    assert_int_equal(s.reason, KM_GDB_STOP_HW_BREAK);
    /* four triggers a core: the hbreak took one, three more fit, a fifth not */
    for (uint64_t a = 0; a < 3; a++)
        assert_int_equal(r.ops->insert_point(r.t, KM_GDB_WATCH_WRITE, WORDS + 8 * a, 8), 0);
    assert_int_equal(r.ops->insert_point(r.t, KM_GDB_HW_BREAK, LOOP + 4, 4), -1);
    assert_int_equal(r.ops->insert_point(r.t, KM_GDB_SW_BREAK, LOOP + 4, 4), 0); /* none */
    assert_int_equal(r.ops->remove_point(r.t, KM_GDB_WATCH_WRITE, WORDS, 8), 0);
    assert_int_equal(r.ops->insert_point(r.t, KM_GDB_HW_BREAK, LOOP + 4, 4), 0);
    assert_int_equal(r.ops->write_reg(r.t, 0, KM_GDB_REG_TSELECT, 3), -1); /* the program's */
    r.ops->detach(r.t); /* the run goes on without stopping at the loop */
    rig_end(&r);
}

static void points_and_registers(void **state)
{
    (void)state;
    km_gdb_points p = {0};
    assert_int_equal(km_gdb_points_insert(&p, KM_GDB_WATCH_READ, 0x100, 4), 0);
    assert_int_equal(km_gdb_points_insert(&p, KM_GDB_SW_BREAK, 0x200, 2), 0);
    assert_int_equal(km_gdb_points_insert(&p, KM_GDB_WATCH_WRITE, 0x300, 8), 0);
    assert_int_equal(km_gdb_points_insert(&p, KM_GDB_HW_BREAK, 0x200, 4), 0);
    assert_int_equal(km_gdb_points_insert(&p, KM_GDB_SW_BREAK, 0x200, 2), 0); /* again */
    assert_int_equal(p.n, 4);
    assert_int_equal(km_gdb_points_break_at(&p, 0x200)->type, KM_GDB_HW_BREAK);
    assert_null(km_gdb_points_break_at(&p, 0x100));
    uint64_t pcs[KM_GDB_MAX_POINTS];
    assert_int_equal(km_gdb_points_breaks(&p, pcs), 2);
    /* watch numbers follow insertion, and survive a removal before them */
    assert_int_equal(km_gdb_points_watch(&p, 1)->addr, 0x300);
    assert_int_equal(km_gdb_points_remove(&p, KM_GDB_SW_BREAK, 0x200), 0);
    assert_int_equal(km_gdb_points_watch(&p, 0)->addr, 0x100);
    assert_int_equal(km_gdb_points_watch(&p, 1)->addr, 0x300);
    assert_null(km_gdb_points_watch(&p, 2));
    for (unsigned i = p.n; i < KM_GDB_MAX_POINTS; i++)
        assert_int_equal(km_gdb_points_insert(&p, KM_GDB_SW_BREAK, 0x1000 + 2 * i, 2), 0);
    assert_int_equal(km_gdb_points_insert(&p, KM_GDB_SW_BREAK, 0x9000, 2), -1); /* full */

    /* what each kind looks at, and the stops they make */
    bool x, l, st;
    km_gdb_point_access(KM_GDB_WATCH_ACCESS, &x, &l, &st);
    assert_true(!x && l && st);
    km_gdb_point_access(KM_GDB_HW_BREAK, &x, &l, &st);
    assert_true(x && !l && !st);
    km_gdb_point_access(KM_GDB_SW_BREAK, &x, &l, &st);
    assert_true(!x && !l && !st);
    km_gdb_stop stop = {0};
    km_gdb_points_watch_stop(&p, 1, false, &stop);
    assert_int_equal(stop.reason, KM_GDB_STOP_WATCH);
    assert_int_equal(stop.watch, KM_GDB_WATCH_WRITE);
    assert_int_equal(stop.addr, 0x300);
    km_gdb_points_watch_stop(&p, 9, true, &stop); /* gone since: by the access */
    assert_int_equal(stop.watch, KM_GDB_WATCH_WRITE);
    assert_int_equal(stop.addr, 0);
    km_gdb_points_break_stop(&p, 0x200, &stop); /* the hardware one stays */
    assert_int_equal(stop.reason, KM_GDB_STOP_HW_BREAK);

    sim_reg_file f;
    unsigned n;
    assert_int_equal(km_gdb_sim_reg(KM_GDB_REG_PC, &f, &n), 0);
    assert_int_equal(f, SIM_REG_PC);
    assert_int_equal(km_gdb_sim_reg(KM_GDB_REG_F0 + 31, &f, &n), 0);
    assert_int_equal(f, SIM_REG_F);
    assert_int_equal(n, 31);
    assert_int_equal(km_gdb_sim_reg(KM_GDB_REG_FCSR, &f, &n), 0);
    assert_int_equal(f, SIM_REG_CSR);
    assert_int_equal(n, 3);
    assert_int_equal(km_gdb_sim_reg(KM_GDB_REG_CSR0 + 4096, &f, &n), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(breaks_steps_watches_and_the_end),
        cmocka_unit_test(detach_runs_free),
        cmocka_unit_test(points_and_registers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
