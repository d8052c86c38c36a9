/* sim_prefetch: the registers (reset values, writable bits, offsets), the
 * enables by access kind, training on a stride within the window (up and
 * down), the distance (what a demand waits for a prefetch issued d lines
 * earlier) and its growth, and the least recently used stream going. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "blackhole.h"
#include "sim_prefetch.h"

#define NEAR 60u
#define FAR 250u

static void recommended(sim_prefetch *p)
{
    sim_prefetch_reset(p, NEAR, FAR, 4);
    assert_true(sim_prefetch_write(p, BH_L2PF_BASIC, BH_L2PF_BASIC_RECOMMENDED));
    assert_true(sim_prefetch_write(p, BH_L2PF_ADDITIONAL, BH_L2PF_ADDITIONAL_RECOMMENDED));
}

static void registers_reset_and_write(void **state)
{
    (void)state;
    sim_prefetch p;
    uint32_t v;
    sim_prefetch_reset(&p, NEAR, FAR, 4);
    assert_true(sim_prefetch_read(&p, BH_L2PF_BASIC, &v) && v == 0x14A0Cu);
    assert_true(sim_prefetch_read(&p, BH_L2PF_ADDITIONAL, &v) && v == 0xC45Eu);
    assert_false(sim_prefetch_read(&p, 8, &v));
    assert_false(sim_prefetch_write(&p, 0x1FFC, 1));
    /* read-only bits stay 0 */
    assert_true(sim_prefetch_write(&p, BH_L2PF_BASIC, 0xFFFFFFFFu));
    assert_true(sim_prefetch_read(&p, BH_L2PF_BASIC, &v) && v == 0x700FFFFDu);
    assert_true(sim_prefetch_write(&p, BH_L2PF_ADDITIONAL, 0xFFFFFFFFu));
    assert_true(sim_prefetch_read(&p, BH_L2PF_ADDITIONAL, &v) && v == 0x003FFFFFu);
    /* forgetting the streams keeps the registers */
    sim_prefetch_forget(&p);
    assert_true(sim_prefetch_read(&p, BH_L2PF_ADDITIONAL, &v) && v == 0x003FFFFFu);
}

/* At reset no kind is enabled: a walk is never covered. */
static void off_at_reset(void **state)
{
    (void)state;
    sim_prefetch p;
    uint64_t wait;
    sim_prefetch_reset(&p, NEAR, FAR, 4);
    for (uint64_t i = 0; i < 32; i++) {
        assert_false(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, 100 + i, i * 100, &wait));
        assert_false(sim_prefetch_miss(&p, SIM_PF_VECTOR_STORE, 900 + i, i * 100, &wait));
    }
    assert_int_equal(p.issued, 0);
}

/* Recommended: the second miss trains (stride 1), the third on are
 * covered; the prefetch of line k was issued at the second miss, so a
 * demand soon after waits for what is left of NEAR. */
static void an_ascending_walk(void **state)
{
    (void)state;
    sim_prefetch p;
    uint64_t wait;
    recommended(&p);
    assert_false(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, 1000, 0, &wait));
    assert_false(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, 1001, 100, &wait)); /* trains */
    assert_int_equal(p.issued, 4); /* initialDist 4 */
    assert_true(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, 1002, 120, &wait));
    assert_int_equal(wait, 100 + NEAR - 120);
    assert_true(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, 1003, 300, &wait));
    assert_int_equal(wait, 0);
    assert_int_equal(p.covered, 2);
    /* a kind not enabled is not followed */
    sim_prefetch_write(&p, BH_L2PF_BASIC, BH_L2PF_BASIC_RECOMMENDED & ~1u);
    assert_false(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, 1004, 400, &wait));
}

/* Down, and by 3 lines: both are strides; a stride of `window` lines
 * (6) or more is not; a stride other than 1..4 up is a FAR fetch. */
static void strides_and_the_window(void **state)
{
    (void)state;
    sim_prefetch p;
    uint64_t wait;
    recommended(&p);
    sim_prefetch_miss(&p, SIM_PF_SCALAR_STORE, 5000, 0, &wait);
    sim_prefetch_miss(&p, SIM_PF_SCALAR_STORE, 4997, 10, &wait); /* stride -3 */
    assert_true(sim_prefetch_miss(&p, SIM_PF_SCALAR_STORE, 4994, 20, &wait));
    assert_int_equal(wait, 10 + FAR - 20);
    assert_true(sim_prefetch_miss(&p, SIM_PF_SCALAR_STORE, 4991, 1000, &wait));
    assert_int_equal(wait, 0);

    sim_prefetch_reset(&p, NEAR, FAR, 4);
    recommended(&p);
    sim_prefetch_miss(&p, SIM_PF_VECTOR_LOAD, 100, 0, &wait);
    sim_prefetch_miss(&p, SIM_PF_VECTOR_LOAD, 106, 10, &wait); /* 6 lines: outside */
    assert_false(sim_prefetch_miss(&p, SIM_PF_VECTOR_LOAD, 112, 20, &wait));
    assert_int_equal(p.issued, 0);
}

/* A demand that keeps finding its prefetch in flight grows the distance:
 * hitMSHRThrd (4) such demands, +1 each time below linToExpThrd (5),
 * doubling from there, never past maxAllowedDist (24). */
static void the_distance_grows(void **state)
{
    (void)state;
    sim_prefetch p;
    uint64_t wait;
    recommended(&p);
    uint64_t t = 0, line = 7000;
    sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, line++, t, &wait);
    sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, line++, t, &wait);
    const sim_pf_stream *s = &p.s[p.order[0]];
    assert_int_equal(s->dist, 4);
    for (int i = 0; i < 4; i++) { /* a core faster than its stream: every demand waits */
        t += 1;
        assert_true(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, line++, t, &wait) && wait > 0);
    }
    assert_int_equal(s->dist, 5);
    for (int i = 0; i < 4 * 8; i++) {
        t += 1;
        sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, line++, t, &wait);
    }
    assert_int_equal(s->dist, 24); /* 5 -> 10 -> 20 -> 24 (capped) and stays */
    assert_true(s->front - s->k == 24);
}

/* Eight streams a hart: a ninth takes the least recently used's place. */
static void eight_streams(void **state)
{
    (void)state;
    sim_prefetch p;
    uint64_t wait;
    recommended(&p);
    for (uint64_t i = 0; i < 8; i++) { /* eight trained streams, far apart */
        sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, i * 1000, 0, &wait);
        sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, i * 1000 + 1, 0, &wait);
    }
    for (uint64_t i = 0; i < 8; i++)
        assert_true(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, i * 1000 + 2, 1000, &wait));
    sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, 50000, 2000, &wait); /* replaces stream 0 */
    assert_false(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, 3, 2000, &wait));
    assert_true(sim_prefetch_miss(&p, SIM_PF_SCALAR_LOAD, 7003, 2000, &wait));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registers_reset_and_write),
        cmocka_unit_test(off_at_reset),
        cmocka_unit_test(an_ascending_walk),
        cmocka_unit_test(strides_and_the_window),
        cmocka_unit_test(the_distance_grows),
        cmocka_unit_test(eight_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
