/* hart_profile: a profiled hart runs as an unprofiled one (the same
 * registers, cycles, instructions, stalls, traps, at any slicing of the
 * run), its profile adds up to its counters, the stretches count what
 * stepping each instruction counts, the shadow stack names the call
 * sites, and an idle skip counts its periods as stepping them would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hart_rig.h"
#include "rv_assemble.h"
#include "sim_hart.h"
#include "sim_profile.h"

/* Calls two levels deep, loads and stores with latency (data RAM, the
 * device), a multiply and a divide, a trap and its mret, then wfi. */
static const char PROGRAM[] =
    "    la t0, handler\n"
    "    csrw mtvec, t0\n"
    "    li s0, 0x80100000\n"
    "    li s1, 20\n"
    "1:  call work\n"
    "    addi s1, s1, -1\n"
    "    bnez s1, 1b\n"
    "    .4byte 0x00100073\n" /* ebreak, 4 bytes */
    "    wfi\n"
    "2:  j 2b\n"
    "work:\n"
    "    addi sp, sp, -16\n"
    "    sd ra, 8(sp)\n"
    "    call leaf\n"
    "    ld ra, 8(sp)\n"
    "    addi sp, sp, 16\n"
    "    ret\n"
    "leaf:\n"
    "    lw t1, 0(s0)\n"
    "    addi t1, t1, 3\n"
    "    mul t2, t1, t1\n"
    "    div t2, t2, t1\n"
    "    sw t2, 0(s0)\n"
    "    li t3, 0x10000000\n"
    "    lw t4, 0(t3)\n"
    "    ret\n"
    ".balign 4\n"
    "handler:\n"
    "    csrr t0, mepc\n"
    "    addi t0, t0, 4\n"
    "    csrw mepc, t0\n"
    "    mret\n";

static uint8_t code[1024];
static size_t ncode;

static int setup(void **state)
{
    (void)state;
    ncode = rv_assemble("", PROGRAM, RIG_CODE_BASE, code, sizeof code);
    return 0;
}

static rig *new_rig(void)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    memcpy(r->code, code, ncode);
    rig_init_mem(r, 64, false);
    r->mem.ram[1].latency = RIG_DATA_LATENCY;
    assert_int_equal(sim_hart_init(&r->h, &r->mem, 0, RIG_CODE_BASE, RIG_CODE_BASE,
                                   RIG_CODE_SIZE), 0);
    r->h.x[2] = RIG_DATA_BASE + RIG_DATA_SIZE; /* sp */
    return r;
}

static void free_rig(rig *r)
{
    sim_hart_free(&r->h);
    free(r);
}

typedef struct sums {
    sim_profile_count all;
    unsigned rows, deepest;
    uint64_t leaf_mem; /* memory stalls under two call sites: leaf's */
} sums;

static void sum_row(void *ctx, const uint64_t *frames, unsigned n, const sim_profile_count *c)
{
    (void)frames;
    sums *s = ctx;
    s->all.cycles += c->cycles;
    s->all.instructions += c->instructions;
    s->all.memory_stall_cycles += c->memory_stall_cycles;
    s->all.traps += c->traps;
    s->rows++;
    if (n > s->deepest)
        s->deepest = n;
    if (n == 3)
        s->leaf_mem += c->memory_stall_cycles;
}

/* The program run profiled in slices of `slice` cycles: the same hart as
 * a plain run, and a profile that adds up to it. */
static void profiled_is_plain(uint64_t slice, bool step)
{
    if (step)
        setenv("KMRUN_PROFILE", "step", 1);
    rig *plain = new_rig(), *r = new_rig();
    sim_profile *p = sim_profile_new();
    unsetenv("KMRUN_PROFILE");
    assert_non_null(p);
    while (plain->h.state == SIM_HART_RUNNING)
        sim_hart_run(&plain->h, plain->h.cycle + slice);
    while (r->h.state == SIM_HART_RUNNING)
        sim_profile_run(p, &r->h, r->h.cycle + slice, 0);
    assert_int_equal(r->h.cycle, plain->h.cycle);
    assert_int_equal(r->h.instret, plain->h.instret);
    assert_int_equal(r->h.mem_cycles, plain->h.mem_cycles);
    assert_int_equal(r->h.traps, plain->h.traps);
    assert_memory_equal(r->h.x, plain->h.x, sizeof r->h.x);
    sums s = {0};
    sim_profile_each(p, sum_row, &s);
    assert_int_equal(s.all.cycles, r->h.cycle);
    assert_int_equal(s.all.instructions, r->h.instret);
    assert_int_equal(s.all.memory_stall_cycles, r->h.mem_cycles);
    assert_int_equal(s.all.traps, 1);
    assert_true(r->h.mem_cycles > 0);
    /* _start -> work -> leaf: two call sites and the instruction */
    assert_int_equal(s.deepest, 3);
    /* leaf's lw and sw of data RAM and lw of the device, 20 calls */
    assert_int_equal(s.leaf_mem, 20 * (2 * RIG_DATA_LATENCY + RIG_DEV_LATENCY));
    size_t nb = 0;
    const sim_profile_count *b = sim_profile_buckets(p, &nb);
    assert_int_equal(nb, 1);
    assert_int_equal(b[0].cycles, r->h.cycle);
    sim_profile_free(p);
    free_rig(plain);
    free_rig(r);
}

static void whole_runs(void **state)
{
    (void)state;
    profiled_is_plain(1u << 20, false);
}

static void sliced_runs(void **state)
{
    (void)state;
    for (uint64_t slice = 1; slice < 40; slice += 3)
        profiled_is_plain(slice, false);
}

static void stepped_runs(void **state)
{
    (void)state;
    profiled_is_plain(1u << 20, true);
    profiled_is_plain(7, true);
}

/* Rows in one canonical order, to compare two profiles. */
typedef struct rowset {
    char lines[256][160];
    unsigned n;
} rowset;

static void keep_row(void *ctx, const uint64_t *frames, unsigned n, const sim_profile_count *c)
{
    rowset *r = ctx;
    assert_true(r->n < 256);
    int k = 0;
    for (unsigned i = 0; i < n; i++)
        k += snprintf(r->lines[r->n] + k, sizeof r->lines[0] - (size_t)k, "%llx;",
                      (unsigned long long)frames[i]);
    snprintf(r->lines[r->n] + k, sizeof r->lines[0] - (size_t)k, " %llu %llu %llu %llu",
             (unsigned long long)c->cycles, (unsigned long long)c->instructions,
             (unsigned long long)c->memory_stall_cycles, (unsigned long long)c->traps);
    r->n++;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Merges rows of one stack and pc (a stretch and a cell may both have
 * some): sums by key. */
static void canonical(rowset *r)
{
    qsort(r->lines, r->n, sizeof r->lines[0], by_text);
    rowset out = {.n = 0};
    for (unsigned i = 0; i < r->n; i++) {
        char key[160];
        unsigned long long v[4];
        char *sp = strchr(r->lines[i], ' ');
        snprintf(key, sizeof key, "%.*s", (int)(sp - r->lines[i]), r->lines[i]);
        assert_int_equal(sscanf(sp, " %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3]), 4);
        if (out.n && strncmp(out.lines[out.n - 1], key, strlen(key)) == 0 &&
            out.lines[out.n - 1][strlen(key)] == ' ') {
            unsigned long long w[4];
            sscanf(strchr(out.lines[out.n - 1], ' '), " %llu %llu %llu %llu", &w[0], &w[1],
                   &w[2], &w[3]);
            for (int k = 0; k < 4; k++)
                v[k] += w[k];
            out.n--;
        }
        int w = snprintf(out.lines[out.n++], sizeof out.lines[0], "%s %llu %llu %llu %llu", key,
                         v[0], v[1], v[2], v[3]);
        assert_true(w > 0 && (size_t)w < sizeof out.lines[0]);
    }
    *r = out;
}

static void stretches_count_as_steps(void **state)
{
    (void)state;
    static rowset fast, stepped;
    memset(&fast, 0, sizeof fast);
    memset(&stepped, 0, sizeof stepped);
    for (int step = 0; step < 2; step++) {
        if (step)
            setenv("KMRUN_PROFILE", "step", 1);
        rig *r = new_rig();
        sim_profile *p = sim_profile_new();
        unsetenv("KMRUN_PROFILE");
        while (r->h.state == SIM_HART_RUNNING)
            sim_profile_run(p, &r->h, r->h.cycle + 1000, 0);
        sim_profile_each(p, keep_row, step ? &stepped : &fast);
        sim_profile_free(p);
        free_rig(r);
    }
    canonical(&fast);
    canonical(&stepped);
    assert_int_equal(fast.n, stepped.n);
    for (unsigned i = 0; i < fast.n; i++)
        assert_string_equal(fast.lines[i], stepped.lines[i]);
}

/* A spin loop on a RAM word, proven and skipped: the profile counts the
 * skipped periods, and says what stepping them says. */
static void idle_skip_counts_periods(void **state)
{
    (void)state;
    uint8_t spin[256];
    size_t n = rv_assemble("", "li s0, 0x80100000\n1: lw t0, 0(s0)\n beqz t0, 1b\n j .\n",
                           RIG_CODE_BASE, spin, sizeof spin);
    rowset *got[2];
    for (int step = 0; step < 2; step++) {
        rig *r = calloc(1, sizeof *r);
        memcpy(r->code, spin, n);
        rig_init_mem(r, 64, false);
        assert_int_equal(sim_hart_init(&r->h, &r->mem, 0, RIG_CODE_BASE, RIG_CODE_BASE,
                                       RIG_CODE_SIZE), 0);
        if (step)
            setenv("KMRUN_PROFILE", "step", 1);
        sim_profile *p = sim_profile_new();
        unsetenv("KMRUN_PROFILE");
        sim_profile_run(p, &r->h, 40, 0);
        sim_idle proof;
        assert_true(sim_hart_idle_prove(&r->h, &proof));
        uint64_t k = sim_profile_idle_skip(p, &r->h, &proof, 100000, 0);
        if (step)
            assert_int_equal(k, 0);
        else
            assert_true(k > 1000);
        sim_profile_run(p, &r->h, 100000, 0);
        sums s = {0};
        sim_profile_each(p, sum_row, &s);
        assert_int_equal(s.all.cycles, r->h.cycle);
        assert_int_equal(s.all.instructions, r->h.instret);
        assert_int_equal(s.all.memory_stall_cycles, r->h.mem_cycles);
        got[step] = calloc(1, sizeof(rowset));
        sim_profile_each(p, keep_row, got[step]);
        canonical(got[step]);
        sim_profile_free(p);
        sim_hart_free(&r->h);
        free(r);
    }
    assert_int_equal(got[0]->n, got[1]->n);
    for (unsigned i = 0; i < got[0]->n; i++)
        assert_string_equal(got[0]->lines[i], got[1]->lines[i]);
    free(got[0]);
    free(got[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_runs),
        cmocka_unit_test(sliced_runs),
        cmocka_unit_test(stepped_runs),
        cmocka_unit_test(stretches_count_as_steps),
        cmocka_unit_test(idle_skip_counts_periods),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
