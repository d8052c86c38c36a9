/* Tests for device/sim/cluster/sim_cluster.c with real harts: the
 * bandwidth calibration, wfi, quanta, determinism, and harts parked in
 * idle loops (cluster_fixture.h's cluster). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_fixture.h"

/* ---- With harts ---------------------------------------------------------- */

/* Each hart reads its 32 bytes of parameters at KMX_LIM_ARGS + 32 * hartid
 * (first, end: cached addresses), sums the 64-bit words of [first, end),
 * stores the sum and mtime after them, and parks in wfi:
 *
 *     csrr t0, mhartid;  slli t0, t0, 5;  lui t1, 0x801F;  add t1, t1, t0
 *     ld a0, 0(t1);  ld a1, 8(t1);  li a2, 0;  bgeu a0, a1, 2f
 *  1: ld t2, 0(a0);  add a2, a2, t2;  addi a0, a0, 8;  bltu a0, a1, 1b
 *  2: sd a2, 16(t1);  lui t4, 0x200C;  ld t3, -8(t4);  sd t3, 24(t1)
 *  3: wfi;  j 3b
 */
static const uint32_t stream_program[] = {
    0xf14022f3, 0x00529293, 0x0801f337, 0x00530333, 0x00033503, 0x00833583,
    0x00000613, 0x00b57a63, 0x00053383, 0x00760633, 0x00850513, 0xfeb56ae3,
    0x00c33823, 0x0200ceb7, 0xff8ebe03, 0x01c33c23, 0x10500073, 0xffdff06f,
};

typedef struct params {
    uint64_t first, end, sum, mtime;
} params;

typedef struct outcome {
    uint64_t cycles[BH_CLUSTER_CORES], instret[BH_CLUSTER_CORES], sum[BH_CLUSTER_CORES], mtime[BH_CLUSTER_CORES];
    uint64_t now_ps, hits, misses;
} outcome;

/* A card with one cluster running the stream program: hart i reads
 * `bytes[i]` at bank address first[i], whose words hold their index.  The
 * prefetchers at the recommended values (as kmx start-up sets them) or,
 * with `reset`, at their reset values. */
static outcome run_streams_as(unsigned mhz, const uint64_t first[BH_CLUSTER_CORES],
                              const uint64_t bytes[BH_CLUSTER_CORES], bool reset)
{
    sim_dram dram;
    sim_dram_init(&dram);
    sim_cluster *c = NULL;
    ks_error err = {0};
    assert_int_equal(sim_cluster_create(&c, &dram, 1, mhz, &err), KS_OK);
    if (!reset) {
        uint32_t regs[BH_CLUSTER_CORES][2];
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
            regs[i][0] = BH_L2PF_BASIC_RECOMMENDED;
            regs[i][1] = BH_L2PF_ADDITIONAL_RECOMMENDED;
        }
        sim_cluster_mem_prefetch_set(&c->m, regs);
    }
    assert_int_equal(sim_cluster_write_lim(c, KMX_LIM_IMAGE, stream_program,
                                           sizeof stream_program, &err), KS_OK);
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        params p = {BH_DRAM_CACHED(first[i]), BH_DRAM_CACHED(first[i] + bytes[i]), 0, 0};
        assert_int_equal(sim_cluster_write_lim(c, KMX_LIM_ARGS + i * sizeof p, &p, sizeof p, &err),
                         KS_OK);
        for (uint64_t w = 0; w < bytes[i] / 8; w++) {
            uint64_t v = first[i] / 8 + w;
            assert_int_equal(sim_dram_write(&dram, 6, first[i] + w * 8, &v, 8, &err), KS_OK);
        }
    }
    assert_int_equal(sim_cluster_reset_harts(c, KMX_LIM_IMAGE, &err), KS_OK);
    for (int k = 0; k < 1000 && sim_cluster_busy(c); k++) {
        sim_cluster_step(c, sim_cluster_now_ps(c) + 10 * BH_PS_PER_US);
    }
    assert_false(sim_cluster_busy(c));

    outcome o = {0};
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        const sim_hart *h = sim_cluster_hart(c, i);
        assert_int_equal(h->state, SIM_HART_WFI);
        assert_false(h->trapped);
        params p;
        assert_int_equal(sim_cluster_read_lim(c, KMX_LIM_ARGS + i * sizeof p, &p, sizeof p, &err),
                         KS_OK);
        o.cycles[i] = h->cycle;
        o.instret[i] = h->instret;
        o.sum[i] = p.sum;
        o.mtime[i] = p.mtime;
        uint64_t n = bytes[i] / 8, base = first[i] / 8;
        assert_true(p.sum == n * base + n * (n - 1) / 2);
    }
    o.now_ps = sim_cluster_now_ps(c);
    o.hits = sim_cluster_cache(c)->stats.hits;
    o.misses = sim_cluster_cache(c)->stats.misses;
    assert_false(sim_cluster_failed(c, NULL));
    sim_cluster_destroy(c);
    sim_dram_free(&dram);
    return o;
}

static outcome run_streams(unsigned mhz, const uint64_t first[BH_CLUSTER_CORES],
                           const uint64_t bytes[BH_CLUSTER_CORES])
{
    return run_streams_as(mhz, first, bytes, false);
}

static double gbps(const outcome *o, unsigned mhz, const uint64_t bytes[BH_CLUSTER_CORES])
{
    uint64_t total = 0, longest = 0;
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        total += bytes[i];
        longest = o->cycles[i] > longest ? o->cycles[i] : longest;
    }
    return (double)total / (double)sim_cycles_to_ps(longest, mhz) * 1000.0;
}

static void harts_stream_at_the_calibrated_rates(void **state)
{
    (void)state;
    /* Partitions 160 KiB apart, so that they sit off each other's place
     * in the 128 KiB way (the spec's advice). */
    const uint64_t first[BH_CLUSTER_CORES] = {0, 160 * KIB, 320 * KIB, 480 * KIB};
    const uint64_t four[BH_CLUSTER_CORES] = {128 * KIB, 128 * KIB, 128 * KIB, 128 * KIB};
    const uint64_t one[BH_CLUSTER_CORES] = {512 * KIB, 0, 0, 0};

    outcome o = run_streams(SIM_MHZ_DEFAULT, first, four);
    double rate = gbps(&o, SIM_MHZ_DEFAULT, four);
    print_message("# four cores, 1000 MHz: %.3f GB/s (%llu misses)\n", rate,
                  (unsigned long long)o.misses);
    assert_true(rate > 1.1 && rate < 1.3);
    assert_true(o.misses == 4 * 128 * KIB / BH_LINE_BYTES);

    o = run_streams(SIM_MHZ_FAST, first, four);
    rate = gbps(&o, SIM_MHZ_FAST, four);
    print_message("# four cores, 1750 MHz: %.3f GB/s\n", rate);
    assert_true(rate > 1.2 && rate < 1.4);

    o = run_streams(SIM_MHZ_DEFAULT, first, one);
    rate = gbps(&o, SIM_MHZ_DEFAULT, one);
    print_message("# one core, 1000 MHz: %.3f GB/s\n", rate);
    assert_true(rate > 0.65 && rate < 0.8);
    /* The spec: about 20 % faster than with the prefetcher's reset values. */
    outcome off = run_streams_as(SIM_MHZ_DEFAULT, first, one, true);
    double slow = gbps(&off, SIM_MHZ_DEFAULT, one);
    print_message("# one core, 1000 MHz, prefetcher at reset: %.3f GB/s (%.2fx)\n", slow,
                  rate / slow);
    assert_true(rate / slow > 1.15 && rate / slow < 1.3);
    /* The mtime the harts read agrees with their clocks: the idle cores
     * read it at once, core 0 just before its last cycles. */
    assert_true(o.mtime[1] < 10);
    uint64_t end = sim_ps_to_mtime(sim_cycles_to_ps(o.cycles[0], SIM_MHZ_DEFAULT));
    assert_true(o.mtime[0] <= end && o.mtime[0] + 2 >= end);
}

static void runs_are_deterministic(void **state)
{
    (void)state;
    const uint64_t first[BH_CLUSTER_CORES] = {0, 100 * KIB, 128 * KIB, 300 * KIB};
    const uint64_t bytes[BH_CLUSTER_CORES] = {40 * KIB, 72 * KIB, 8 * KIB, 64 * KIB};
    outcome a = run_streams(SIM_MHZ_DEFAULT, first, bytes);
    outcome b = run_streams(SIM_MHZ_DEFAULT, first, bytes);
    assert_memory_equal(&a, &b, sizeof a);
    outcome c = run_streams(SIM_MHZ_FAST, first, bytes);
    outcome d = run_streams(SIM_MHZ_FAST, first, bytes);
    assert_memory_equal(&c, &d, sizeof c);
}

/* wfi: the cycle count stands, the clock goes on; steps are whole
 * quanta, and how a run is cut into steps changes nothing. */
static void wfi_and_quanta(void **state)
{
    (void)state;
    sim_dram dram;
    sim_dram_init(&dram);
    sim_cluster *a = NULL, *b = NULL;
    assert_int_equal(sim_cluster_create(&a, &dram, 1, SIM_MHZ_DEFAULT, NULL), KS_OK);
    assert_int_equal(sim_cluster_create(&b, &dram, 2, SIM_MHZ_DEFAULT, NULL), KS_OK);
    for (sim_cluster *c = a; c != NULL; c = c == a ? b : NULL) {
        assert_int_equal(sim_cluster_write_lim(c, KMX_LIM_IMAGE, stream_program,
                                               sizeof stream_program, NULL), KS_OK);
        params p = {BH_DRAM_CACHED(0), BH_DRAM_CACHED(4096), 0, 0};
        assert_int_equal(sim_cluster_write_lim(c, KMX_LIM_ARGS, &p, sizeof p, NULL), KS_OK);
        assert_int_equal(sim_cluster_reset_harts(c, KMX_LIM_IMAGE, NULL), KS_OK);
    }
    sim_cluster_step(a, 1); /* one picosecond: one whole quantum */
    assert_true(sim_cluster_now_ps(a) == SIM_CLUSTER_QUANTUM * 1000ull);
    sim_cluster_step(a, 1); /* already there */
    assert_true(sim_cluster_now_ps(a) == SIM_CLUSTER_QUANTUM * 1000ull);

    for (uint64_t t = 0; t <= 200 * BH_PS_PER_US; t += 777777) {
        sim_cluster_step(a, t);
    }
    sim_cluster_step(a, 200 * BH_PS_PER_US);
    sim_cluster_step(b, 200 * BH_PS_PER_US);
    assert_true(sim_cluster_now_ps(a) == sim_cluster_now_ps(b));
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        const sim_hart *ha = sim_cluster_hart(a, i), *hb = sim_cluster_hart(b, i);
        assert_int_equal(ha->state, SIM_HART_WFI);
        assert_true(ha->cycle == hb->cycle && ha->instret == hb->instret);
        /* every clock is at the cluster's time */
        assert_true(sim_cluster_mem_time(&a->m, ha) == a->m.now);
    }
    /* Core 0 summed 4 KiB; the others nothing.  Their cycle counts stand
     * still in wfi while the cluster's time goes on. */
    uint64_t before = sim_cluster_hart(a, 0)->cycle;
    assert_true(before < a->m.now);
    sim_cluster_step(a, sim_cluster_now_ps(a) + BH_PS_PER_US * 1000);
    assert_true(sim_cluster_hart(a, 0)->cycle == before);
    assert_true(sim_cluster_mtime(a) == sim_ps_to_mtime(sim_cluster_now_ps(a)));
    assert_true(sim_cluster_mem_mtime(&a->m.mem, sim_cluster_hart(a, 0)) == sim_cluster_mtime(a));
    /* A woken hart goes on from the cluster's time. */
    sim_hart_wake(sim_cluster_hart(a, 0));
    assert_true(sim_cluster_busy(a));
    sim_cluster_step(a, sim_cluster_now_ps(a) + 1);
    assert_int_equal(sim_cluster_hart(a, 0)->state, SIM_HART_WFI); /* j 3b; wfi */
    assert_true(sim_cluster_hart(a, 0)->cycle > before);

    /* Stop word: the host's request lands in the stop line. */
    sim_cluster_request_stop(a);
    kmx_stop_line stop;
    assert_int_equal(sim_cluster_read_lim(a, KMX_LIM_STOP, &stop, sizeof stop, NULL), KS_OK);
    assert_int_equal(stop.stop, KMX_STOP_HOST);

    sim_cluster_destroy(a);
    sim_cluster_destroy(b);
    sim_dram_free(&dram);
}

/* Idle parking (sim_cluster.c, hart_idle.c).  Core 0 stores for a while,
 * then waits as core 1 does (a turn counter, a second look every 8th
 * turn); core 2 spins on the flag; core 3 sleeps in wfi.  Flag and stop
 * words at KMX_LIM_ARGS and + 8:
 *
 *     csrr t0, mhartid;  li s1, 0x0801f000;  li a3, 0;  beqz t0, busy
 *     li t1, 3;  beq t0, t1, sleep;  li t1, 2;  beq t0, t1, spin
 *  turns: 1: andi a4, a5, 7;  bnez a4, 2f;  lw a4, 8(s1);  bnez a4, out
 *     2: addiw a5, a5, 1;  lw a4, 0(s1);  beq a4, a3, 1b;  j out
 *  spin: 3: lw a4, 0(s1);  beqz a4, 3b;  j out
 *  busy: li t2, 2000;  4: sw t2, 16(s1);  addi t2, t2, -1;  bnez t2, 4b;  j turns
 *  out: addi a6, a6, 1
 *  sleep: 5: wfi;  j 5b
 */
static const uint32_t idle_program[] = {
    0xf14022f3, 0x0801f4b7, 0x85634681, 0x430d0202, 0x02628b63, 0x8c634309, 0xf7130062,
    0xe3190077, 0xe30d4498, 0x40982785, 0xfed709e3, 0x4098a821, 0xa809df7d, 0x7d000393,
    0x0074a823, 0x9de313fd, 0xbfe1fe03, 0x00730805, 0xbff51050,
};

static sim_cluster *idle_cluster(sim_dram *dram, unsigned cluster)
{
    sim_cluster *c = NULL;
    assert_int_equal(sim_cluster_create(&c, dram, cluster, SIM_MHZ_DEFAULT, NULL), KS_OK);
    assert_int_equal(sim_cluster_write_lim(c, KMX_LIM_IMAGE, idle_program, sizeof idle_program,
                                           NULL), KS_OK);
    assert_int_equal(sim_cluster_reset_harts(c, KMX_LIM_IMAGE, NULL), KS_OK);
    return c;
}

static void same_clusters(sim_cluster *a, sim_cluster *b)
{
    (void)sim_cluster_hart(a, 0); /* (brings parked harts up to date) */
    (void)sim_cluster_hart(b, 0);
    assert_true(a->m.now == b->m.now);
    assert_memory_equal(a->m.offset, b->m.offset, sizeof a->m.offset);
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        const sim_hart *ha = &a->harts[i], *hb = &b->harts[i];
        assert_int_equal(ha->state, hb->state);
        assert_int_equal(ha->pc, hb->pc);
        assert_int_equal(ha->cycle, hb->cycle);
        assert_int_equal(ha->instret, hb->instret);
        assert_int_equal(ha->mem_cycles, hb->mem_cycles);
        assert_memory_equal(ha->x, hb->x, sizeof ha->x);
    }
}

static bool no_line(void *ctx, unsigned cluster, unsigned core, const sim_commit *c)
{
    (void)ctx, (void)cluster, (void)core, (void)c;
    return true;
}

/* Traced (never parked: a traced core's every instruction is logged) and
 * not traced (parked while its harts wait), stepped a quantum at a time
 * and in long steps: the same harts at every common point, before and
 * after the host sets the flag, and after a look at a hart mid-wait. */
static void idle_harts_park_exactly(void **state)
{
    (void)state;
    sim_dram dram;
    sim_dram_init(&dram);
    sim_cluster *a = idle_cluster(&dram, 1), *b = idle_cluster(&dram, 2);
    sim_cluster *q = idle_cluster(&dram, 3);
    sim_cluster_trace(a, 1u << 3, no_line, NULL); /* core 3 sleeps: the trace is empty */
    static const uint64_t at[] = {3000003, 3100000, 3100100, 5000000};
    for (size_t s = 0; s < sizeof at / sizeof *at; s++) {
        while (a->m.now < at[s])
            sim_cluster_step_cycles(a, a->m.now + SIM_CLUSTER_QUANTUM);
        while (q->m.now < at[s])
            sim_cluster_step_cycles(q, q->m.now + SIM_CLUSTER_QUANTUM);
        sim_cluster_step_cycles(b, at[s]);
        if (s == 2) { /* the host's write, to parked harts: the waits end */
            assert_true(b->idle_parked && q->idle_parked);
            uint32_t one = 1;
            assert_int_equal(sim_cluster_write_lim(a, KMX_LIM_ARGS, &one, 4, NULL), KS_OK);
            assert_int_equal(sim_cluster_write_lim(b, KMX_LIM_ARGS, &one, 4, NULL), KS_OK);
            assert_int_equal(sim_cluster_write_lim(q, KMX_LIM_ARGS, &one, 4, NULL), KS_OK);
        }
        same_clusters(a, b);
        same_clusters(a, q);
    }
    assert_int_equal(a->idle_quanta, 0);
    assert_true(b->idle_quanta > 40000 && q->idle_quanta > 40000);
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        assert_int_equal(sim_cluster_hart(b, i)->state, SIM_HART_WFI);
        assert_int_equal(sim_cluster_hart(b, i)->x[16], i != 3); /* a6: left the wait */
    }
    sim_cluster_destroy(a);
    sim_cluster_destroy(b);
    sim_cluster_destroy(q);
    sim_dram_free(&dram);
}

/* Harts that wait while another works and then releases them: core
 * `releaser` (the word at KMX_LIM_ARGS + 32) stores for a while and then
 * sets the flag itself; the even cores wait as kmx's workers do, the odd
 * ones spin:
 *
 *     csrr t0, mhartid;  li s1, 0x0801f000;  li a3, 0;  lw t1, 32(s1)
 *     beq t0, t1, busy;  andi t1, t0, 1;  bnez t1, spin
 *  turns: 1: andi a4, a5, 7;  bnez a4, 2f;  lw a4, 8(s1);  bnez a4, out
 *     2: addiw a5, a5, 1;  lw a4, 0(s1);  beq a4, a3, 1b;  j out
 *  spin: 3: lw a4, 0(s1);  beqz a4, 3b;  j out
 *  busy: li t2, 3000;  4: sw t2, 16(s1);  addi t2, t2, -1;  bnez t2, 4b
 *     li t3, 1;  sw t3, 0(s1)
 *  out: addi a6, a6, 1;  5: wfi;  j 5b
 */
static const uint32_t release_program[] = {
    0xf14022f3, 0x0801f4b7, 0xa3034681, 0x83630204, 0xf3130262, 0x1c630012, 0xf7130003,
    0xe3190077, 0xe7054498, 0x40982785, 0xfed709e3, 0x4098a839, 0xa821df7d, 0x839b6385,
    0xa823bb83, 0x13fd0074, 0xfe039de3, 0xa0234e05, 0x080501c4, 0x10500073, 0x0000bff5,
};

static sim_cluster *release_cluster(sim_dram *dram, unsigned cluster, uint32_t releaser)
{
    sim_cluster *c = NULL;
    assert_int_equal(sim_cluster_create(&c, dram, cluster, SIM_MHZ_DEFAULT, NULL), KS_OK);
    assert_int_equal(sim_cluster_write_lim(c, KMX_LIM_IMAGE, release_program,
                                           sizeof release_program, NULL), KS_OK);
    assert_int_equal(sim_cluster_write_lim(c, KMX_LIM_ARGS + 32, &releaser, 4, NULL), KS_OK);
    assert_int_equal(sim_cluster_reset_harts(c, KMX_LIM_IMAGE, NULL), KS_OK);
    return c;
}

/* What a traced cluster's records said, per core. */
typedef struct counted {
    uint64_t records[BH_CLUSTER_CORES], last_cycle[BH_CLUSTER_CORES], stop_after;
    unsigned cluster;
    bool in_order;
} counted;

static bool count_records(void *ctx, unsigned cluster, unsigned core, const sim_commit *c)
{
    counted *k = ctx;
    k->cluster = cluster;
    if (k->records[core] && c->cycle <= k->last_cycle[core])
        k->in_order = false;
    k->last_cycle[core] = c->cycle;
    return ++k->records[core] < k->stop_after || core != 0;
}

/* Several cores traced at once, one of them stopping its trace: every
 * record comes, in each core's order in the cluster's clock, a stopped
 * core runs on untraced, and the harts end as an untraced cluster's. */
static void traced_cores_and_a_stopped_trace_run_the_same(void **state)
{
    (void)state;
    sim_dram dram;
    sim_dram_init(&dram);
    sim_cluster *a = release_cluster(&dram, 1, 0);
    sim_cluster *b = release_cluster(&dram, 2, 0);
    counted k = {.stop_after = 500, .in_order = true};
    sim_cluster_trace(a, 0xb, count_records, &k); /* cores 0, 1 and 3 */
    static const uint64_t at[] = {20000, 50001, 400000};
    for (size_t s = 0; s < sizeof at / sizeof *at; s++) {
        while (a->m.now < at[s])
            sim_cluster_step_cycles(a, a->m.now + SIM_CLUSTER_QUANTUM);
        sim_cluster_step_cycles(b, at[s]);
        same_clusters(a, b);
    }
    assert_true(k.in_order);
    assert_int_equal(k.cluster, 1);
    assert_int_equal(k.records[0], 500);                      /* stopped there */
    assert_int_equal(a->trace_cores, 0xa);                    /* and left the mask */
    assert_int_equal(k.records[2], 0);                        /* never traced */
    assert_int_equal(k.records[1], sim_cluster_hart(a, 1)->instret); /* every one */
    assert_int_equal(k.records[3], sim_cluster_hart(a, 3)->instret);
    assert_true(sim_cluster_hart(a, 0)->instret > 500);
    sim_cluster_destroy(a);
    sim_cluster_destroy(b);
    sim_dram_free(&dram);
}

/* Parked harts see another hart's store exactly when they would have:
 * one before them in the quantum (core 0 releases) and one after them
 * (core 3 releases), against the traced cluster, never parked. */
static void parked_harts_see_stores_in_time(void **state)
{
    (void)state;
    for (uint32_t releaser = 0; releaser < BH_CLUSTER_CORES; releaser += 3) {
        sim_dram dram;
        sim_dram_init(&dram);
        sim_cluster *a = release_cluster(&dram, 1, releaser);
        sim_cluster *b = release_cluster(&dram, 2, releaser);
        sim_cluster_trace(a, 1u << releaser, no_line, NULL);
        static const uint64_t at[] = {20000, 50001, 120000, 400000};
        for (size_t s = 0; s < sizeof at / sizeof *at; s++) {
            while (a->m.now < at[s])
                sim_cluster_step_cycles(a, a->m.now + SIM_CLUSTER_QUANTUM);
            while (b->m.now < at[s])
                sim_cluster_step_cycles(b, b->m.now + SIM_CLUSTER_QUANTUM);
            same_clusters(a, b);
        }
        assert_int_equal(a->idle_quanta, 0);
        assert_true(b->idle_quanta > 1000);
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
            assert_int_equal(sim_cluster_hart(b, i)->state, SIM_HART_WFI);
            assert_int_equal(sim_cluster_hart(b, i)->x[16], 1); /* a6: left the wait */
        }
        sim_cluster_destroy(a);
        sim_cluster_destroy(b);
        sim_dram_free(&dram);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(harts_stream_at_the_calibrated_rates),
        cmocka_unit_test(runs_are_deterministic),
        cmocka_unit_test(wfi_and_quanta),
        cmocka_unit_test(idle_harts_park_exactly),
        cmocka_unit_test(parked_harts_see_stores_in_time),
        cmocka_unit_test(traced_cores_and_a_stopped_trace_run_the_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
