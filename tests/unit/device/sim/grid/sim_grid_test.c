/* Tests for device/sim/grid/sim_grid.c and grid_builtins.c: the Tensix grid, its
 * built-in handlers, a program's handler from a kernels object built here,
 * coroutine waits, time limits, busy cores, determinism, and a job the
 * host has no memory for. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_clock.h"
#include "sim_grid.h"
#include "test_memory.h"

#define US (1000000ull) /* picoseconds */
#define MS (1000u * US)

static sim_dram dram;
static sim_grid *grid;

static int setup(void **state)
{
    (void)state;
    sim_dram_init(&dram);
    grid = sim_grid_create(&dram, SIM_GRID_MHZ);
    return grid ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    sim_grid_free(grid);
    sim_dram_free(&dram);
    return 0;
}

static km_command_t command(uint32_t handler, uint32_t flags, unsigned first, unsigned count)
{
    km_command_t c;
    memset(&c, 0, sizeof c);
    c.hdr = KM_HDR(handler, flags);
    c.group = KM_GROUP(first, count);
    return c;
}

/* Submits, steps until the job is done (at most `until`), returns it. */
static sim_grid_done run(const km_command_t *c, uint32_t id, uint64_t limit, uint64_t now)
{
    assert_int_equal(sim_grid_submit(grid, id, c, limit, now), KM_REASON_NONE);
    sim_grid_step(grid, now + 10000 * MS);
    sim_grid_done d, more;
    assert_true(sim_grid_poll_done(grid, &d));
    assert_int_equal(d.job_id, id);
    assert_false(sim_grid_poll_done(grid, &more));
    assert_int_equal(sim_grid_jobs(grid), 0);
    return d;
}

/* What km_compute(cycles) spends: rounded up to whole picoseconds. */
static uint64_t compute_ps(uint64_t cycles)
{
    uint64_t ps = sim_cycles_to_ps(cycles, SIM_GRID_MHZ);
    return sim_ps_to_cycles(ps, SIM_GRID_MHZ) < cycles ? ps + 1 : ps;
}

/* As run, with other jobs still running (they are not polled). */
static sim_grid_done run_more(const km_command_t *c, uint32_t id, uint64_t now)
{
    unsigned before = sim_grid_jobs(grid);
    assert_int_equal(sim_grid_submit(grid, id, c, 0, now), KM_REASON_NONE);
    sim_grid_step(grid, now + 100 * MS);
    sim_grid_done d;
    assert_true(sim_grid_poll_done(grid, &d));
    assert_int_equal(d.job_id, id);
    assert_int_equal(sim_grid_jobs(grid), before);
    return d;
}

static const unsigned groups[][2] = {{0, 1}, {3, 1}, {10, 7}, {0, BH_GRID_CORES}};
#define NGROUPS (sizeof groups / sizeof groups[0])

static void nop_ends_after_the_launch(void **state)
{
    (void)state;
    uint64_t launch = sim_cycles_to_ps(SIM_GRID_LAUNCH_CYCLES, SIM_GRID_MHZ) + 1;
    for (unsigned g = 0; g < NGROUPS; g++) {
        km_command_t c = command(KM_HANDLER_NOP, KM_FLAG_RESULT, groups[g][0], groups[g][1]);
        sim_grid_done d = run(&c, 100 + g, 0, 5 * US);
        assert_false(d.timed_out);
        assert_int_equal(d.result, 0);
        assert_int_equal(d.end_ps, 5 * US + launch);
    }
}

static void fill_covers_the_range_with_the_pattern(void **state)
{
    (void)state;
    /* Odd sizes: the last share is short, some cores get nothing. */
    const uint64_t sizes[] = {100, 65537, 1000003};
    for (unsigned g = 0; g < NGROUPS; g++) {
        uint64_t bytes = sizes[g % 3];
        uint64_t base = 0x100000 * (g + 1) + 3; /* unaligned on purpose */
        km_command_t c = command(KM_HANDLER_FILL, KM_FLAG_RESULT, groups[g][0], groups[g][1]);
        c.a0 = 2;
        c.a1 = (uint32_t)base;
        c.a3 = (uint32_t)bytes;
        c.a4 = 0x44332211u;
        sim_grid_done d = run(&c, g, 0, 0);
        assert_int_equal(d.result, 0);
        uint8_t *buf = malloc(bytes + 2);
        assert_int_equal(sim_dram_read(&dram, 2, base - 1, buf, bytes + 2, NULL), KS_OK);
        assert_int_equal(buf[0], 0);
        assert_int_equal(buf[bytes + 1], 0);
        for (uint64_t i = 0; i < bytes; i++)
            if (buf[1 + i] != 0x11 + 0x11 * (i % 4))
                fail_msg("group %u: byte %llu is %#x", g, (unsigned long long)i, buf[1 + i]);
        free(buf);
    }
    /* Outside a bank: the leader counts the failed shares. */
    km_command_t c = command(KM_HANDLER_FILL, KM_FLAG_RESULT, 0, 4);
    c.a0 = 8;
    c.a3 = 4096;
    assert_int_equal(run(&c, 9, 0, 0).result, 4);
}

static void copy_moves_the_range(void **state)
{
    (void)state;
    uint64_t bytes = 300001;
    uint8_t *src = malloc(bytes), *dst = malloc(bytes);
    for (uint64_t i = 0; i < bytes; i++)
        src[i] = (uint8_t)(i * 7 + i / 251);
    assert_int_equal(sim_dram_write(&dram, 1, 0x5000, src, bytes, NULL), KS_OK);
    for (unsigned g = 0; g < NGROUPS; g++) {
        uint64_t to = 0x100000000ull - 0x1000000 * (g + 1);
        km_command_t c = command(KM_HANDLER_COPY, 0, groups[g][0], groups[g][1]);
        c.a0 = 1;
        c.a1 = 0x5000;
        c.a3 = 4;
        c.a4 = (uint32_t)to;
        c.a5 = (uint32_t)(to >> 32);
        c.a6 = (uint32_t)bytes;
        assert_false(run(&c, g, 0, 0).timed_out);
        memset(dst, 0, bytes);
        assert_int_equal(sim_dram_read(&dram, 4, to, dst, bytes, NULL), KS_OK);
        assert_memory_equal(src, dst, bytes);
    }
    free(src);
    free(dst);
}

static void sum_is_the_leaders_result(void **state)
{
    (void)state;
    uint32_t words = 100003;
    uint32_t *w = malloc(4 * words), expect = 0;
    for (uint32_t i = 0; i < words; i++) {
        w[i] = i * 2654435761u;
        expect += w[i];
    }
    assert_int_equal(sim_dram_write(&dram, 7, 0x40000, w, 4ull * words, NULL), KS_OK);
    uint64_t one_core = 0, start = 0;
    for (unsigned g = 0; g < NGROUPS; g++) {
        km_command_t c = command(KM_HANDLER_SUM, KM_FLAG_RESULT, groups[g][0], groups[g][1]);
        c.a0 = 7;
        c.a1 = 0x40000;
        c.a3 = words;
        /* One after the other, as time goes on the card (the bank's queue
         * remembers what the jobs before booked). */
        sim_grid_done d = run(&c, g, 0, start);
        assert_int_equal(d.result, expect);
        if (groups[g][1] == 1)
            one_core = d.end_ps - start;
        else /* a group shares the work */
            assert_true(d.end_ps - start < one_core);
        if (groups[g][1] == BH_GRID_CORES) /* bank-bound: a line a ns */
            assert_true(d.end_ps - start >= 4ull * words / 64u * SIM_BANK_LINE_PS);
        start = d.end_ps;
    }
    free(w);
}

/* Two groups reading 64 KiB each at once: on one bank they queue behind
 * each other, on two banks neither waits; alone each takes the same. */
static void a_bank_is_shared_by_everyone_on_it(void **state)
{
    (void)state;
    uint64_t took[3];
    for (unsigned k = 0; k < 3; k++) {
        sim_dram_free(&dram);
        sim_dram_init(&dram);
        sim_grid_free(grid);
        grid = sim_grid_create(&dram, SIM_GRID_MHZ);
        km_command_t a = command(KM_HANDLER_SUM, KM_FLAG_RESULT, 0, 16);
        a.a0 = 2;
        a.a3 = 16384;
        km_command_t b = a;
        b.group = KM_GROUP(16, 16);
        b.a0 = k == 2 ? 3 : 2; /* k 1: the same bank, k 2: another */
        assert_int_equal(sim_grid_submit(grid, 1, &a, 0, 0), KM_REASON_NONE);
        if (k > 0)
            assert_int_equal(sim_grid_submit(grid, 2, &b, 0, 0), KM_REASON_NONE);
        sim_grid_step(grid, 100 * MS);
        sim_grid_done d;
        took[k] = 0;
        while (sim_grid_poll_done(grid, &d))
            took[k] = d.end_ps > took[k] ? d.end_ps : took[k];
    }
    /* 16 cores on 64 KiB: 1,024 lines, about 1 us of the bank's. */
    assert_true(took[1] > took[0] + 500000);
    assert_int_equal(took[2], took[0]);
}

static void spend_blocks_only_its_core(void **state)
{
    (void)state;
    km_command_t s = command(KM_HANDLER_SPEND, 0, 0, 1);
    s.a0 = 1000000; /* 1 ms */
    km_command_t n = command(KM_HANDLER_NOP, 0, 1, 1);
    assert_int_equal(sim_grid_submit(grid, 1, &s, 0, 0), KM_REASON_NONE);
    assert_int_equal(sim_grid_submit(grid, 2, &n, 0, 0), KM_REASON_NONE);
    sim_grid_step(grid, 10 * US);
    sim_grid_done d;
    assert_true(sim_grid_poll_done(grid, &d));
    assert_int_equal(d.job_id, 2);
    assert_true(d.end_ps < 1 * US);
    assert_false(sim_grid_poll_done(grid, &d));
    assert_true(sim_grid_busy(grid, 0, 1));
    assert_false(sim_grid_busy(grid, 1, 119));
    assert_true(sim_grid_next_ps(grid) >= 10 * US);
    sim_grid_step(grid, 2 * MS);
    assert_true(sim_grid_poll_done(grid, &d));
    assert_int_equal(d.job_id, 1);
    assert_true(d.end_ps >= 1 * MS && d.end_ps < 1 * MS + 1 * US);
    assert_false(sim_grid_busy(grid, 0, BH_GRID_CORES));
}

static void a_job_past_its_limit_times_out(void **state)
{
    (void)state;
    km_command_t s = command(KM_HANDLER_SPEND, KM_FLAG_RESULT, 20, 30);
    s.a0 = 1000000;
    assert_int_equal(sim_grid_submit(grid, 5, &s, 100 * US, 3 * US), KM_REASON_NONE);
    assert_int_equal(sim_grid_next_ps(grid), 3 * US);
    sim_grid_step(grid, 50 * US);
    sim_grid_done d;
    assert_false(sim_grid_poll_done(grid, &d));
    sim_grid_step(grid, 103 * US); /* the deadline is the step's end */
    assert_true(sim_grid_poll_done(grid, &d));
    assert_int_equal(d.job_id, 5);
    assert_true(d.timed_out);
    assert_int_equal(d.end_ps, 103 * US);
    assert_false(sim_grid_busy(grid, 0, BH_GRID_CORES));
    /* The cut-off cores run the next job from the start. */
    km_command_t c = command(KM_HANDLER_SUM, KM_FLAG_RESULT, 20, 30);
    c.a3 = 1000;
    d = run(&c, 6, 100 * US, 200 * US);
    assert_false(d.timed_out);
    assert_int_equal(d.result, 0);
}

static void a_cancelled_job_frees_its_cores_silently(void **state)
{
    (void)state;
    km_command_t s = command(KM_HANDLER_SPEND, 0, 0, 120);
    s.a0 = 1000000;
    assert_int_equal(sim_grid_submit(grid, 8, &s, 0, 0), KM_REASON_NONE);
    sim_grid_step(grid, 10 * US);
    uint16_t where = 99;
    assert_false(sim_grid_cancel(grid, 9, &where));
    assert_true(sim_grid_cancel(grid, 8, &where));
    assert_int_equal(where, KM_WHERE_NONE);
    assert_false(sim_grid_busy(grid, 0, BH_GRID_CORES));
    assert_int_equal(sim_grid_next_ps(grid), UINT64_MAX);
    sim_grid_step(grid, 2 * MS);
    sim_grid_done d;
    assert_false(sim_grid_poll_done(grid, &d));
    km_command_t n = command(KM_HANDLER_NOP, KM_FLAG_RESULT, 0, 120);
    assert_false(run(&n, 10, 0, 2 * MS).timed_out);
    assert_true(sim_grid_handler_known(grid, KM_HANDLER_SPEND));
    assert_false(sim_grid_handler_known(grid, 0));
    assert_false(sim_grid_handler_known(grid, KM_HANDLER_FIRST_PROGRAM));
    assert_false(sim_grid_handler_known(grid, 256));
}

/* The recorder hears each core's part of each job once, as the job ends:
 * from the start to its return, or to the deadline when cut off. */
static sim_card_moment heard[8];
static unsigned nheard;
static void hear(void *ctx, const sim_card_moment *m)
{
    (void)ctx;
    if (nheard < 8)
        heard[nheard] = *m;
    nheard++;
}

static void the_recorder_hears_each_cores_part(void **state)
{
    (void)state;
    nheard = 0;
    sim_grid_record(grid, hear, NULL);
    km_command_t n = command(KM_HANDLER_NOP, 0, 4, 2);
    sim_grid_done d = run(&n, 3, 0, 5 * US);
    assert_int_equal(nheard, 2);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(heard[i].kind, SIM_MOMENT_HANDLER);
        assert_int_equal(heard[i].job, 3);
        assert_int_equal(heard[i].core, 4 + i);
        assert_int_equal(heard[i].handler, KM_HANDLER_NOP);
        assert_int_equal(heard[i].leader, i == 0);
        assert_int_equal(heard[i].begin_ps, 5 * US);
        assert_true(heard[i].end_ps > heard[i].begin_ps && heard[i].end_ps <= d.end_ps);
    }
    /* cut off at its deadline */
    nheard = 0;
    km_command_t s = command(KM_HANDLER_SPEND, 0, 0, 1);
    s.a0 = 1000000;
    assert_int_equal(sim_grid_submit(grid, 4, &s, 100 * US, 10 * US), KM_REASON_NONE);
    sim_grid_step(grid, 110 * US);
    assert_int_equal(nheard, 1);
    assert_int_equal(heard[0].begin_ps, 10 * US);
    assert_int_equal(heard[0].end_ps, 110 * US);
    assert_true(sim_grid_poll_done(grid, &d) && d.timed_out);
    /* off: nothing more */
    sim_grid_record(grid, NULL, NULL);
    nheard = 0;
    run(&n, 5, 0, 200 * US);
    assert_int_equal(nheard, 0);
}

static void stop_ends_spend_early(void **state)
{
    (void)state;
    km_command_t s = command(KM_HANDLER_SPEND, 0, 0, 2);
    s.a0 = 1000000;
    assert_int_equal(sim_grid_submit(grid, 1, &s, 0, 0), KM_REASON_NONE);
    sim_grid_step(grid, 10 * US);
    sim_grid_set_stop(grid, true);
    sim_grid_step(grid, 20 * US);
    sim_grid_done d;
    assert_true(sim_grid_poll_done(grid, &d));
    assert_false(d.timed_out);
    assert_true(d.end_ps > 10 * US && d.end_ps < 12 * US);
}

static void bad_submissions_are_rejected(void **state)
{
    (void)state;
    km_command_t s = command(KM_HANDLER_SPEND, 0, 10, 10);
    s.a0 = 1000;
    assert_int_equal(sim_grid_submit(grid, 1, &s, 0, 0), KM_REASON_NONE);
    km_command_t c = command(KM_HANDLER_NOP, 0, 15, 2);
    assert_int_equal(sim_grid_submit(grid, 2, &c, 0, 0), KM_REASON_BUSY);
    c = command(KM_HANDLER_NOP, 0, 0, 11);
    assert_int_equal(sim_grid_submit(grid, 2, &c, 0, 0), KM_REASON_BUSY);
    c = command(KM_HANDLER_NOP, 0, 20, 100);
    assert_int_equal(sim_grid_submit(grid, 2, &c, 0, 0), KM_REASON_NONE);
    c = command(KM_HANDLER_NOP, 0, 0, 0);
    assert_int_equal(sim_grid_submit(grid, 3, &c, 0, 0), KM_REASON_GROUP);
    c = command(KM_HANDLER_NOP, 0, 119, 2);
    assert_int_equal(sim_grid_submit(grid, 3, &c, 0, 0), KM_REASON_GROUP);
    c = command(KM_HANDLER_NOP, 0, 120, 1);
    assert_int_equal(sim_grid_submit(grid, 3, &c, 0, 0), KM_REASON_GROUP);
    c = command(0, 0, 0, 1);
    assert_int_equal(sim_grid_submit(grid, 3, &c, 0, 0), KM_REASON_HANDLER);
    c = command(9, 0, 0, 1);
    assert_int_equal(sim_grid_submit(grid, 3, &c, 0, 0), KM_REASON_HANDLER);
    c = command(KM_HANDLER_FIRST_PROGRAM, 0, 0, 1); /* no kernels loaded */
    assert_int_equal(sim_grid_submit(grid, 3, &c, 0, 0), KM_REASON_HANDLER);
    c = command(KM_HANDLER_NOP, 0x80, 0, 1);
    assert_int_equal(sim_grid_submit(grid, 3, &c, 0, 0), KM_REASON_FLAGS);
    assert_int_equal(sim_grid_jobs(grid), 2);
    sim_grid_step(grid, 1 * MS);
    assert_int_equal(sim_grid_jobs(grid), 0);
    sim_grid_done a, b;
    assert_true(sim_grid_poll_done(grid, &a));
    assert_true(sim_grid_poll_done(grid, &b));
    assert_true(a.end_ps <= b.end_ps); /* in end-time order */
    assert_int_equal(a.job_id, 2);
    assert_int_equal(b.job_id, 1);
}

/* A mixed load; returns the finished jobs in order. */
static unsigned mixed_load(sim_grid_done *out, unsigned max)
{
    sim_dram d;
    sim_dram_init(&d);
    sim_grid *g = sim_grid_create(&d, SIM_GRID_MHZ);
    for (uint32_t i = 0; i < 8; i++) {
        km_command_t c = command(1 + i % 5, KM_FLAG_RESULT, i * 15, 15);
        /* One layout that suits every built-in: a0 bank (spend: ns),
         * a3 bytes or words (copy: bank), a6 copy's bytes. */
        c.a0 = i % 5 == KM_HANDLER_SPEND - 1 ? 30000 : i;
        c.a1 = 0x1000 * i;
        c.a3 = i % 5 == KM_HANDLER_COPY - 1 ? 7 : 77777;
        c.a4 = 0x2000 * i;
        c.a6 = 20000 + i;
        assert_int_equal(sim_grid_submit(g, i, &c, i == 4 ? 20 * US : 0, i * 1000), KM_REASON_NONE);
    }
    unsigned n = 0;
    for (uint64_t t = 7 * US; sim_grid_jobs(g); t += 7 * US) {
        sim_grid_step(g, t);
        while (n < max && sim_grid_poll_done(g, &out[n]))
            n++;
    }
    sim_grid_free(g);
    sim_dram_free(&d);
    return n;
}

static void same_jobs_same_times(void **state)
{
    (void)state;
    sim_grid_done a[16], b[16];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    unsigned na = mixed_load(a, 16), nb = mixed_load(b, 16);
    assert_int_equal(na, 8);
    assert_int_equal(nb, 8);
    unsigned timed_out = 0;
    for (unsigned i = 0; i < na; i++) {
        assert_int_equal(a[i].job_id, b[i].job_id);
        assert_int_equal(a[i].end_ps, b[i].end_ps);
        assert_int_equal(a[i].result, b[i].result);
        assert_int_equal(a[i].timed_out, b[i].timed_out);
        if (i)
            assert_true(a[i - 1].end_ps <= a[i].end_ps);
        timed_out += a[i].timed_out;
    }
    assert_int_equal(timed_out, 1); /* job 4: 30 µs of spend, 20 µs allowed */
}

/* ---- a program's kernels, built here ---- */

static const char kernel_source[] =
    "#include \"km_device.h\"\n"
    "/* Every core doubles its word of a0/a1.. into a3/a4..; the leader\n"
    " * returns a2 doubled. */\n"
    "KM_HANDLER(double_it)\n"
    "{\n"
    "    unsigned i = km_group_index(core);\n"
    "    uint32_t w;\n"
    "    uint64_t from = KM_ARG_ADDRESS(command->a1, 0) + 4 * i;\n"
    "    uint64_t to = KM_ARG_ADDRESS(command->a4, 0) + 4 * i;\n"
    "    if (km_noc_read(core, command->a0, from, &w, 4) != 0)\n"
    "        return;\n"
    "    km_compute(core, 10);\n"
    "    w *= 2;\n"
    "    km_noc_write(core, command->a3, to, &w, 4);\n"
    "    km_set_result(core, km_command(core)->a2 * 2 + (km_is_leader(core) ? 0 : 1));\n"
    "}\n"
    "KM_HANDLER(who) { km_set_result(core, 1000 + km_core_id(core) + km_group_count(core)); }\n"
    "/* A store through a null pointer, after the launch. */\n"
    "KM_HANDLER(crash)\n"
    "{\n"
    "    km_compute(core, 5);\n"
    "    *(volatile uint32_t *)(uintptr_t)(16u + command->a0) = 1;\n"
    "}\n"
    "/* A loop with no modeled cost. */\n"
    "KM_HANDLER(forever)\n"
    "{\n"
    "    volatile unsigned n = 0;\n"
    "    for (;;)\n"
    "        n++;\n"
    "}\n";

static char so_dir[64];
static char so_path[128];

static int build_kernels(void **state)
{
    (void)state;
    strcpy(so_dir, "/tmp/sim_grid_test.XXXXXX");
    if (!mkdtemp(so_dir))
        return -1;
    char src[128], cmd[512];
    snprintf(src, sizeof src, "%s/kernels.c", so_dir);
    snprintf(so_path, sizeof so_path, "%s/kernels.so", so_dir);
    FILE *f = fopen(src, "w");
    if (!f)
        return -1;
    fputs(kernel_source, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -shared -fPIC -Wall -Werror -Idevice/include -Ikmx/include %s -o %s",
             src, so_path);
    if (system(cmd) != 0)
        return -1;
    return setup(state);
}

static int remove_kernels(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", so_dir);
    if (system(cmd) != 0)
        return -1;
    return teardown(state);
}

static void a_program_handler_runs_from_its_object(void **state)
{
    (void)state;
    const char *names[] = {"double_it", "who"};
    ks_error err;
    assert_int_equal(sim_grid_load_kernels(grid, so_path, names, 2, &err), KS_OK);
    uint32_t in[40], out[40];
    for (unsigned i = 0; i < 40; i++)
        in[i] = 3 * i + 1;
    assert_int_equal(sim_dram_write(&dram, 6, 0x800, in, sizeof in, NULL), KS_OK);
    km_command_t c = command(KM_HANDLER_FIRST_PROGRAM, KM_FLAG_RESULT, 50, 40);
    c.a0 = 6;
    c.a1 = 0x800;
    c.a2 = 21;
    c.a3 = 0;
    c.a4 = 0x9000;
    sim_grid_done d = run(&c, 77, 0, 0);
    assert_int_equal(d.result, 42);
    assert_int_equal(sim_dram_read(&dram, 0, 0x9000, out, sizeof out, NULL), KS_OK);
    for (unsigned i = 0; i < 40; i++)
        assert_int_equal(out[i], 2 * in[i]);

    c = command(KM_HANDLER_FIRST_PROGRAM + 1, KM_FLAG_RESULT, 7, 3);
    assert_int_equal(run(&c, 78, 0, 0).result, 1010);
    assert_true(sim_grid_handler_known(grid, KM_HANDLER_FIRST_PROGRAM + 1));
    c = command(KM_HANDLER_FIRST_PROGRAM + 2, 0, 0, 1);
    assert_int_equal(sim_grid_submit(grid, 79, &c, 0, 0), KM_REASON_HANDLER);

    /* A name the object lacks: an error, the loaded handlers stay. */
    const char *bad[] = {"double_it", "triple_it"};
    assert_int_equal(sim_grid_load_kernels(grid, so_path, bad, 2, &err), KS_ERR_IMAGE);
    assert_non_null(strstr(err.message, "triple_it"));
    assert_int_equal(sim_grid_load_kernels(grid, "/nonexistent/k.so", names, 2, &err),
                     KS_ERR_IMAGE);
    c = command(KM_HANDLER_FIRST_PROGRAM + 1, KM_FLAG_RESULT, 0, 1);
    assert_int_equal(run(&c, 80, 0, 0).result, 1001);
}

/* A handler that faults, or that never gives way (past the spin limit,
 * in real time), is taken out: its core halts for good (busy), its job
 * never ends, the record says how; the rest of the grid goes on, and a
 * cancel releases the job's other cores. */
static void faulting_and_endless_handlers_are_taken_out(void **state)
{
    (void)state;
    const char *names[] = {"double_it", "who", "crash", "forever"};
    ks_error err;
    sim_grid_set_spin_limit(grid, 200);
    assert_int_equal(sim_grid_load_kernels(grid, so_path, names, 4, &err), KS_OK);
    km_command_t c = command(KM_HANDLER_FIRST_PROGRAM + 2, KM_FLAG_RESULT, 3, 2);
    assert_int_equal(sim_grid_submit(grid, 5, &c, 0, 0), KM_REASON_NONE);
    sim_grid_step(grid, 10 * MS);
    sim_grid_done d;
    assert_false(sim_grid_poll_done(grid, &d));
    unsigned n = 9, more = 9;
    const sim_handler_fault *f = sim_grid_faults(grid, &n, &more);
    assert_int_equal(n, 2); /* both cores of the group */
    assert_int_equal(more, 0);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(f[i].kind, SIM_HANDLER_FAULT);
        assert_int_equal(f[i].core, 3 + i);
        assert_int_equal(f[i].handler, KM_HANDLER_FIRST_PROGRAM + 2);
        assert_int_equal(f[i].job, 5);
        assert_int_equal(f[i].signal, SIGSEGV);
        assert_int_equal(f[i].address, 16);
        assert_true(f[i].in_kernels);
        assert_false(f[i].stack_overflow);
        assert_int_equal(f[i].ps, compute_ps(SIM_GRID_LAUNCH_CYCLES) + compute_ps(5));
    }
    assert_true(sim_grid_busy(grid, 3, 1));
    assert_int_equal(sim_grid_jobs(grid), 1);
    /* The rest of the grid works. */
    c = command(KM_HANDLER_FIRST_PROGRAM + 1, KM_FLAG_RESULT, 20, 1);
    assert_int_equal(run_more(&c, 6, 10 * MS).result, 1021);
    /* An endless loop, taken out after the spin limit. */
    c = command(KM_HANDLER_FIRST_PROGRAM + 3, 0, 30, 1);
    assert_int_equal(sim_grid_submit(grid, 7, &c, 0, 20 * MS), KM_REASON_NONE);
    sim_grid_step(grid, 30 * MS);
    f = sim_grid_faults(grid, &n, NULL);
    assert_int_equal(n, 3);
    assert_int_equal(f[2].kind, SIM_HANDLER_SPIN);
    assert_int_equal(f[2].core, 30);
    assert_true(f[2].in_kernels);
    assert_false(sim_grid_poll_done(grid, &d));
    /* A cancel releases the jobs; the halted cores stay busy. */
    assert_true(sim_grid_cancel(grid, 5, NULL));
    assert_true(sim_grid_cancel(grid, 7, NULL));
    assert_int_equal(sim_grid_jobs(grid), 0);
    assert_true(sim_grid_busy(grid, 3, 2));
    assert_true(sim_grid_busy(grid, 30, 1));
    c = command(KM_HANDLER_NOP, 0, 30, 1);
    assert_int_equal(sim_grid_submit(grid, 8, &c, 0, 30 * MS), KM_REASON_BUSY);
}

/* Out of memory for a job's 120 core stacks (256 KiB each): the job is
 * refused with nothing started, and the grid says why, once, as the
 * host's failure.  In a child whose address space may grow by 4 MiB. */
static void a_job_without_memory_is_refused_and_the_grid_fails(void **state)
{
    (void)state;
    TEST_SKIP_UNLESS_LIMITABLE();
    uint64_t now = test_mapped_bytes();
    assert_true(now > 0);
    assert_false(sim_grid_failed(grid, NULL));
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit r = {now + (4u << 20), now + (4u << 20)};
        if (setrlimit(RLIMIT_AS, &r) != 0)
            _exit(10);
        km_command_t c = command(KM_HANDLER_NOP, 0, 0, BH_GRID_CORES);
        if (sim_grid_submit(grid, 1, &c, 0, 0) != KM_REASON_STOPPING)
            _exit(11);
        ks_error e = {0};
        if (sim_grid_jobs(grid) != 0 || !sim_grid_failed(grid, &e))
            _exit(12);
        if (e.status != KS_ERR_SYSTEM || !strstr(e.message, "out of memory"))
            _exit(13);
        /* the first failure is kept; a smaller job still fits */
        c = command(KM_HANDLER_NOP, 0, 0, 1);
        if (sim_grid_submit(grid, 2, &c, 0, 0) != KM_REASON_NONE)
            _exit(14);
        sim_grid_step(grid, 10 * MS);
        sim_grid_done d;
        if (!sim_grid_poll_done(grid, &d) || d.job_id != 2 || !sim_grid_failed(grid, &e) ||
            e.status != KS_ERR_SYSTEM)
            _exit(15);
        _exit(0);
    }
    test_child_ok(pid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(nop_ends_after_the_launch, setup, teardown),
        cmocka_unit_test_setup_teardown(fill_covers_the_range_with_the_pattern, setup, teardown),
        cmocka_unit_test_setup_teardown(copy_moves_the_range, setup, teardown),
        cmocka_unit_test_setup_teardown(sum_is_the_leaders_result, setup, teardown),
        cmocka_unit_test_setup_teardown(a_bank_is_shared_by_everyone_on_it, setup, teardown),
        cmocka_unit_test_setup_teardown(spend_blocks_only_its_core, setup, teardown),
        cmocka_unit_test_setup_teardown(a_job_past_its_limit_times_out, setup, teardown),
        cmocka_unit_test_setup_teardown(a_cancelled_job_frees_its_cores_silently, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(stop_ends_spend_early, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_submissions_are_rejected, setup, teardown),
        cmocka_unit_test_setup_teardown(a_job_without_memory_is_refused_and_the_grid_fails, setup,
                                        teardown),
        cmocka_unit_test(same_jobs_same_times),
        cmocka_unit_test_setup_teardown(the_recorder_hears_each_cores_part, setup, teardown),
        cmocka_unit_test_setup_teardown(faulting_and_endless_handlers_are_taken_out,
                                        build_kernels, remove_kernels),
        cmocka_unit_test_setup_teardown(a_program_handler_runs_from_its_object, build_kernels,
                                        remove_kernels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
