/* Tests for device/sim/card/sim_card_debug.c and sim_cluster_debug.c: a card's
 * observers see every probe, watch, step and trap of the work cores, may
 * change the sets from inside an event, read registers and memory as a
 * core does — and the observed run ends exactly where the plain one does
 * (every core's pc, cycles, instructions, registers).  An observer may
 * leave from inside its event: the cores then run as if nobody had ever
 * observed, and park as they would (a trap loop costs no time to
 * simulate). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "counting_card.h"
#include "sim_card_debug.h"
#include "sim_card_internal.h"

typedef struct core_end {
    uint64_t pc, cycle, instret, a0;
} core_end;

static void ends_of(sim_card *card, core_end out[BH_CLUSTER_CORES])
{
    for (unsigned k = 0; k < BH_CLUSTER_CORES; k++) {
        assert_int_equal(sim_card_debug_get_reg(card, 1, k, SIM_REG_PC, 0, &out[k].pc), 0);
        assert_int_equal(sim_card_debug_get_reg(card, 1, k, SIM_REG_CSR, 0xb00, &out[k].cycle), 0);
        assert_int_equal(sim_card_debug_get_reg(card, 1, k, SIM_REG_CSR, 0xb02, &out[k].instret),
                         0);
        assert_int_equal(sim_card_debug_get_reg(card, 1, k, SIM_REG_X, 10, &out[k].a0), 0);
    }
}

#define SPAN_PS (200ull * 1000 * 1000) /* 200 us: every core is done */

static void plain_ends(core_end out[BH_CLUSTER_CORES])
{
    sim_card *card = card_new();
    sim_card_step(card, SPAN_PS);
    ends_of(card, out);
    sim_card_free(card);
}

/* An observer that counts, checks and meddles. */
typedef struct seen {
    sim_card *card;
    unsigned probes[BH_CLUSTER_CORES], watches, steps, traps, pauses;
    uint64_t last_ps[BH_CLUSTER_CORES];
    uint64_t step_pc; /* the last step's pc */
    bool drop_probes_at; /* after this many of core 0's probes: none */
    unsigned drop_after;
    uint64_t trap_cause, trap_pc;
} seen;

static void observe(void *ctx, const sim_card_event *ev)
{
    seen *s = ctx;
    assert_int_equal(ev->cluster, 1);
    assert_true(ev->core < BH_CLUSTER_CORES);
    assert_true(ev->ps >= s->last_ps[ev->core]); /* a core's time never goes back */
    s->last_ps[ev->core] = ev->ps;
    uint64_t pc = 0;
    assert_int_equal(sim_card_debug_get_reg(s->card, 1, ev->core, SIM_REG_PC, 0, &pc), 0);
    assert_int_equal(pc, ev->pc);
    switch (ev->kind) {
    case SIM_CARD_AT_PROBE:
        assert_int_equal(ev->pc, LOOP);
        if (++s->probes[ev->core] == s->drop_after && ev->core == 0 && s->drop_probes_at)
            assert_int_equal(sim_card_debug_probes(s->card, SIM_CARD_DEBUGGER, 1, NULL, 0, NULL),
                             KS_OK);
        break;
    case SIM_CARD_AT_WATCH: {
        assert_int_equal(ev->core, 2);
        assert_int_equal(ev->pc, STORE);
        assert_true(ev->store);
        /* before the store: memory holds the count before a0's */
        uint64_t a0 = 0, word = 0;
        assert_int_equal(sim_card_debug_get_reg(s->card, 1, 2, SIM_REG_X, 10, &a0), 0);
        assert_int_equal(sim_card_debug_read(s->card, 1, 2, WORDS + 16, &word, 8), 0);
        assert_int_equal(word, a0 - 1);
        s->watches++;
        break;
    }
    case SIM_CARD_AT_STEP:
        assert_int_equal(ev->core, 1);
        if (s->steps++ == 40) /* enough: run free from here */
            sim_card_debug_step(s->card, 1, 1, false);
        s->step_pc = ev->pc;
        break;
    case SIM_CARD_AT_TRAP:
        s->traps++;
        s->trap_cause = ev->cause;
        s->trap_pc = ev->pc;
        break;
    case SIM_CARD_AT_PAUSE: s->pauses++; break;
    case SIM_CARD_AT_STUCK: fail(); break;
    }
}

static void observed_run_is_the_plain_run(void **state)
{
    (void)state;
    core_end plain[BH_CLUSTER_CORES], observed[BH_CLUSTER_CORES];
    plain_ends(plain);
    for (unsigned k = 0; k < 3; k++)
        assert_int_equal(plain[k].a0, COUNT);

    sim_card *card = card_new();
    seen s = {.card = card, .drop_probes_at = true, .drop_after = 500};
    ks_error err = {0};
    sim_card_debug_observe(card, SIM_CARD_DEBUGGER, observe, &s);
    sim_card_debug_catch_traps(card, true);
    uint64_t loop = LOOP;
    assert_int_equal(sim_card_debug_probes(card, SIM_CARD_DEBUGGER, 1, &loop, 1, &err), KS_OK);
    sim_card_watch w = {WORDS + 16, 8, false, true};
    assert_int_equal(sim_card_debug_watch(card, 1, &w, 1, &err), KS_OK);
    sim_card_debug_step(card, 1, 1, true);
    sim_card_debug_pause(card);
    sim_card_step(card, SPAN_PS);
    ends_of(card, observed);

    /* the same run, to the cycle */
    assert_memory_equal(plain, observed, sizeof plain);
    /* core 0's probes until it dropped them (for every core: one set) */
    assert_int_equal(s.probes[0], 500);
    assert_true(s.probes[2] <= 500 + 1);
    assert_int_equal(s.watches, COUNT); /* core 2's stores, each once */
    assert_int_equal(s.steps, 41);
    assert_int_equal(s.pauses, 1);
    assert_int_equal(s.traps, 1); /* core 3's misaligned load */
    assert_int_equal(s.trap_cause, 4);
    uint64_t mcause = 0;
    assert_int_equal(sim_card_debug_get_reg(card, 1, 3, SIM_REG_CSR, 0x342, &mcause), 0);
    assert_int_equal(mcause, 4);
    uint64_t mepc = 0;
    assert_int_equal(sim_card_debug_get_reg(card, 1, 3, SIM_REG_CSR, 0x341, &mepc), 0);
    assert_int_equal(mepc, s.trap_pc);
    sim_card_free(card);
}

static void memory_as_a_core_sees_it(void **state)
{
    (void)state;
    sim_card *card = card_new();
    sim_card_step(card, SPAN_PS);
    uint64_t word = 0;
    assert_int_equal(sim_card_debug_read(card, 1, 0, WORDS + 8, &word, 8), 0);
    assert_int_equal(word, COUNT);
    /* the cached window: a write lands where the core's load finds it */
    uint32_t v = 0x12345678, back = 0;
    uint64_t cached = BH_DRAM_CACHED(0x1000), uncached = BH_DRAM_UNCACHED(0x1000);
    assert_int_equal(sim_card_debug_write(card, 1, 0, cached, &v, 4), 0);
    assert_int_equal(sim_card_debug_read(card, 1, 0, cached, &back, 4), 0);
    assert_int_equal(back, v);
    /* no line held: it went to the bank, which the uncached window shows */
    assert_int_equal(sim_card_debug_read(card, 1, 0, uncached, &back, 4), 0);
    assert_int_equal(back, v);
    /* places a debugger cannot reach, and bad cores */
    assert_int_equal(sim_card_debug_read(card, 1, 0, 0x10, &back, 4), -1);
    assert_int_equal(sim_card_debug_read(card, 1, 0, BH_LIM_BASE + BH_LIM_BYTES - 2, &back, 4),
                     -1);
    assert_int_equal(sim_card_debug_read(card, 2, 0, WORDS, &back, 4), -1);
    assert_int_equal(sim_card_debug_read(card, 1, 4, WORDS, &back, 4), -1);
    /* registers: x0 stays zero, pc writes drop bit 0 */
    uint64_t x0 = 1;
    assert_int_equal(sim_card_debug_set_reg(card, 1, 0, SIM_REG_X, 0, 5), 0);
    assert_int_equal(sim_card_debug_get_reg(card, 1, 0, SIM_REG_X, 0, &x0), 0);
    assert_int_equal(x0, 0);
    assert_int_equal(sim_card_debug_get_reg(card, 1, 0, SIM_REG_X, 32, &x0), -1);
    sim_card_free(card);
}

/* A pc written at a probe is where the core goes on (a debugger's jump):
 * core 0, at its loop's first turn, is sent past the loop. */
static void jump(void *ctx, const sim_card_event *ev)
{
    sim_card *card = ctx;
    assert_int_equal(ev->kind, SIM_CARD_AT_PROBE);
    assert_int_equal(ev->pc, LOOP);
    assert_int_equal(sim_card_debug_set_reg(card, 1, ev->core, SIM_REG_PC, 0, LOOP + 12), 0);
    assert_int_equal(sim_card_debug_probes(card, SIM_CARD_DEBUGGER, 1, NULL, 0, NULL), KS_OK);
}

static void a_pc_written_at_a_probe_is_where_the_core_goes_on(void **state)
{
    (void)state;
    sim_card *card = card_new();
    sim_card_debug_observe(card, SIM_CARD_DEBUGGER, jump, card);
    uint64_t loop = LOOP;
    assert_int_equal(sim_card_debug_probes(card, SIM_CARD_DEBUGGER, 1, &loop, 1, NULL), KS_OK);
    sim_card_step(card, SPAN_PS);
    core_end ends[BH_CLUSTER_CORES];
    ends_of(card, ends);
    assert_int_equal(ends[0].a0, 0); /* core 0, the first there: no turn */
    assert_int_equal(ends[1].a0, COUNT);
    sim_card_free(card);
}

/* Core 0's pc set wild before the start (as a debugger may): its fetch
 * faults, to mtvec 0, which faults too — a trap loop only a reset ends.
 * The observer catches traps and leaves at the third. */
#define WILD 0xfffffffffffffffeull
#define LONG_PS (2000ull * 1000 * 1000 * 1000) /* 2 s: 2e9 traps */

typedef struct leaver {
    sim_card *card;
    unsigned traps;
} leaver;

static void leave_at_third_trap(void *ctx, const sim_card_event *ev)
{
    leaver *l = ctx;
    assert_int_equal(ev->kind, SIM_CARD_AT_TRAP);
    assert_int_equal(ev->core, 0);
    assert_int_equal(ev->cause, 1); /* instruction access fault */
    assert_int_equal(ev->pc, ++l->traps == 1 ? WILD : 0);
    if (l->traps == 3)
        sim_card_debug_observe(l->card, SIM_CARD_DEBUGGER, NULL, NULL);
}

static void trap_loop_parks_once_the_observer_left(void **state)
{
    (void)state;
    core_end plain[BH_CLUSTER_CORES], left[BH_CLUSTER_CORES];
    sim_card *card = card_new();
    assert_int_equal(sim_card_debug_set_reg(card, 1, 0, SIM_REG_PC, 0, WILD), 0);
    sim_card_step(card, LONG_PS);
    ends_of(card, plain);
    sim_card_free(card);

    card = card_new();
    leaver l = {.card = card};
    sim_card_debug_observe(card, SIM_CARD_DEBUGGER, leave_at_third_trap, &l);
    sim_card_debug_catch_traps(card, true);
    assert_int_equal(sim_card_debug_set_reg(card, 1, 0, SIM_REG_PC, 0, WILD), 0);
    sim_card_step(card, LONG_PS);
    assert_int_equal(l.traps, 3); /* none reported after it left */
    assert_null(card->clusters[1]->hooks);
    /* core 0 parked: 2 s of quanta passed without running it */
    assert_true(card->clusters[1]->idle_quanta > 30000000);
    ends_of(card, left);
    assert_memory_equal(plain, left, sizeof plain);
    sim_card_core core;
    sim_card_core_at(card, 1, 0, &core);
    assert_true(core.running && core.trap_loop);
    assert_int_equal(core.trap_cause, 1);
    assert_int_equal(core.pc, 0);
    assert_true(sim_cluster_hart(card->clusters[1], 0)->traps >= 2000000000ull);
    sim_card_free(card);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(observed_run_is_the_plain_run),
        cmocka_unit_test(memory_as_a_core_sees_it),
        cmocka_unit_test(trap_loop_parks_once_the_observer_left),
        cmocka_unit_test(a_pc_written_at_a_probe_is_where_the_core_goes_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
