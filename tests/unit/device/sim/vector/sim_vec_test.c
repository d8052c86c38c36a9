/* Tests for the vector unit (device/sim/vector/vec_*.c) where the instruction
 * tests (tests/isa/rvv_*.S, whose RAM costs nothing) cannot look: the
 * modeled time of vector instructions (the datapath's beats, memory
 * latency once per 64-byte line), elements through the device callbacks
 * and a device halting the hart, watches seeing every element before any
 * access, another hart's reservation, the commit record, the state at
 * reset, and the decoder's reserved encodings.  Programs are assembled at
 * test time (rv_assemble.h, -march with v) and run on hart_rig.h's bench,
 * its device RIG_DEV_MAX bytes with no timer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hart_rig.h"
#include "rv_assemble.h"
#include "fpu_soft.h"
#include "hart_internal.h"
#include "sim_hart.h"
#include "sim_mem.h"
#include "sim_vec.h"
#include "vec_internal.h"

/* Assembles src at RIG_CODE_BASE into out; returns its size. */
static size_t assemble(const char *src, uint8_t *out, size_t max)
{
    return rv_assemble("", src, RIG_CODE_BASE, out, max);
}

/* A hart at RIG_CODE_BASE running src (which ends in wfi), VS and FS on,
 * a0 = RIG_DATA_BASE, a1 = RIG_DEV_BASE. */
static rig *rig_new(const char *src)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_true(assemble(src, r->code, RIG_CODE_SIZE - 4) > 0);
    uint32_t wfi = 0x10500073; /* mtvec's: a trap ends the run there */
    memcpy(r->code + RIG_CODE_SIZE - 4, &wfi, 4);
    rig_init_mem(r, RIG_DEV_MAX, false);
    assert_int_equal(
        sim_hart_init(&r->h, &r->mem, 0, RIG_CODE_BASE, RIG_CODE_BASE, RIG_CODE_SIZE), 0);
    r->h.mstatus |= SIM_MSTATUS_VS | SIM_MSTATUS_FS;
    r->h.mtvec = RIG_CODE_BASE + RIG_CODE_SIZE - 4;
    r->h.x[10] = RIG_DATA_BASE;
    r->h.x[11] = RIG_DEV_BASE;
    for (unsigned i = 0; i < RIG_DATA_SIZE; i++)
        r->data[i] = (uint8_t)i;
    return r;
}

static void rig_free(rig *r)
{
    sim_hart_free(&r->h);
    if (r->other.mem)
        sim_hart_free(&r->other);
    free(r);
}

static void run_to_wfi(rig *r)
{
    sim_hart_state st = sim_hart_run(&r->h, r->h.cycle + 1000000);
    if (r->h.trapped)
        print_message("trapped: mcause %llu mepc 0x%llx mtval 0x%llx\n",
                      (unsigned long long)r->h.trap_cause, (unsigned long long)r->h.trap_epc,
                      (unsigned long long)r->h.trap_tval);
    assert_false(r->h.trapped);
    assert_int_equal(st, SIM_HART_WFI);
}

/* The cycles and memory cycles `body` takes (then wfi), a0 = RIG_DATA_BASE
 * + off. */
static void timed(const char *body, uint64_t off, uint64_t cycles, uint64_t mem_cycles)
{
    char src[512];
    snprintf(src, sizeof src, "%s\nwfi\n", body);
    rig *r = rig_new(src);
    r->h.x[10] += off;
    run_to_wfi(r);
    if (r->h.cycle != cycles || r->h.mem_cycles != mem_cycles)
        print_message("`%s`: %llu cycles (%llu memory), want %llu (%llu)\n", body,
                      (unsigned long long)r->h.cycle, (unsigned long long)r->h.mem_cycles,
                      (unsigned long long)cycles, (unsigned long long)mem_cycles);
    assert_int_equal(r->h.cycle, cycles);
    assert_int_equal(r->h.mem_cycles, mem_cycles);
    rig_free(r);
}

/* Every instruction 1 cycle (vsetvli, wfi); a vector instruction one
 * more for each 256-bit beat past its first; memory latency once per
 * line run. */
static void modeled_time(void **state)
{
    (void)state;
    const char *e32 = "vsetvli t0, zero, e32, m1, ta, ma\n";
    char b[256];
    /* 16 x 32 bits = 2 beats, one line */
    snprintf(b, sizeof b, "%svle32.v v1, (a0)", e32);
    timed(b, 0, 1 + (2 + RIG_DATA_LATENCY) + 1, RIG_DATA_LATENCY);
    /* the same 64 bytes across two lines */
    timed(b, 32, 1 + (2 + 2 * RIG_DATA_LATENCY) + 1, 2 * RIG_DATA_LATENCY);
    snprintf(b, sizeof b, "%svse32.v v1, (a0)", e32);
    timed(b, 0, 1 + (2 + RIG_DATA_LATENCY) + 1, RIG_DATA_LATENCY);
    /* stride 64: every element its own line */
    timed("vsetivli t0, 4, e32, m1, ta, ma\nli t1, 64\nvlse32.v v1, (a0), t1", 0,
          1 + 1 + (1 + 4 * RIG_DATA_LATENCY) + 1, 4 * RIG_DATA_LATENCY);
    /* stride 0: one line, charged once */
    timed("vsetivli t0, 8, e64, m1, ta, ma\nvlse64.v v1, (a0), zero", 0,
          1 + (2 + RIG_DATA_LATENCY) + 1, RIG_DATA_LATENCY);
    /* masked off: no access, no latency */
    timed("vsetivli t0, 8, e64, m1, ta, ma\nvmv.v.i v0, 0\nvle64.v v1, (a0), v0.t", 0,
          1 + 2 + 2 + 1, 0);
    /* whole registers: 8 x 64 bytes = 16 beats, 8 lines */
    timed("vl8re64.v v8, (a0)", 0, (16 + 8 * RIG_DATA_LATENCY) + 1, 8 * RIG_DATA_LATENCY);
    /* e64 m8 add: 64 x 64 bits = 16 beats */
    timed("vsetvli t0, zero, e64, m8, ta, ma\nvadd.vv v8, v16, v16", 0, 1 + 16 + 1, 0);
    /* vl 1: one beat whatever LMUL */
    timed("vsetivli t0, 1, e64, m8, ta, ma\nvadd.vv v8, v16, v16", 0, 1 + 1 + 1, 0);
    /* a multiply adds SIM_COST_MUL once; a divide SIM_VCOST_DIV a beat */
    snprintf(b, sizeof b, "%svmul.vv v1, v2, v3", e32);
    timed(b, 0, 1 + (2 + SIM_COST_MUL) + 1, 0);
    snprintf(b, sizeof b, "%svdivu.vv v1, v2, v3", e32);
    timed(b, 0, 1 + (2 + 2 * SIM_VCOST_DIV) + 1, 0);
    /* a mask instruction: vl bits */
    timed("vsetvli t0, zero, e8, m8, ta, ma\nvmand.mm v1, v2, v3", 0, 1 + 2 + 1, 0);
}

/* The cache counts a vector access's run of elements within one line as
 * one hit, as the cost model charges it once: inline hits (mem.cached)
 * and hits the device's callbacks count alike.  Elements on other lines
 * (strided, a group over several lines) are a hit each. */
static void cached_hits(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        uint64_t hits, elements;
    } cases[] = {
        {"vsetvli t0, zero, e32, m1, ta, ma\nvle32.v v1, (a1)", 1, 16},
        /* line 1: DEV_HALT is in line 0 */
        {"vsetvli t0, zero, e8, m1, ta, ma\naddi a1, a1, 64\nvse8.v v1, (a1)", 1, 64},
        {"vsetvli t0, zero, e64, m1, ta, ma\nvle64.v v1, (a1)", 1, 8},
        {"vsetivli t0, 8, e32, m1, ta, ma\naddi a1, a1, 48\nvle32.v v1, (a1)", 2, 8},
        {"vsetivli t0, 2, e32, m1, ta, ma\nli t1, 64\nvlse32.v v1, (a1), t1", 2, 2},
        {"vsetivli t0, 8, e32, m1, ta, ma\nli t1, 4\nvlse32.v v1, (a1), t1", 1, 8},
        {"vsetvli t0, zero, e32, m2, ta, ma\nvle32.v v2, (a1)", 2, 32},
    };
    for (unsigned k = 0; k < 2 * sizeof cases / sizeof cases[0]; k++) {
        bool callbacks = k % 2; /* the inline path, then the callbacks */
        char src[256];
        snprintf(src, sizeof src, "%s\nwfi\n", cases[k / 2].body);
        rig *r = rig_new(src);
        r->mem.cached = (sim_mem_cached){.base = RIG_DEV_BASE, .size = sizeof r->lines,
                                         .tag = r->tag, .data = &r->lines[0][0],
                                         .hits = &r->hits, .mask = RIG_CACHE_LINES - 1u,
                                         .latency = RIG_DEV_LATENCY};
        if (callbacks) {
            r->dev_hits = true; /* tags empty: every element takes the device */
        } else {
            for (unsigned i = 0; i < RIG_CACHE_LINES; i++)
                r->tag[i] = (uint64_t)i * 64u | SIM_MEM_LINE_VALID;
        }
        run_to_wfi(r);
        if (r->hits != cases[k / 2].hits)
            print_message("`%s` (%s): %llu hits\n", cases[k / 2].body,
                          callbacks ? "callbacks" : "inline", (unsigned long long)r->hits);
        assert_int_equal(r->hits, cases[k / 2].hits);
        assert_int_equal(r->dev_loads + r->dev_stores, callbacks ? cases[k / 2].elements : 0);
        rig_free(r);
    }
}

/* A unit-stride access's elements after the first in a line move at
 * once when the inline cache hit serves them: the same bytes as one at a
 * time, from a line's middle into the next, and a store's line dirty. */
static void cached_line_bytes(void **state)
{
    (void)state;
    rig *r = rig_new("vsetivli t0, 8, e32, m1, ta, ma\naddi a1, a1, 40\nvle32.v v2, (a1)\n"
                     "addi a1, a1, 48\nvse32.v v2, (a1)\nwfi");
    r->mem.cached = (sim_mem_cached){.base = RIG_DEV_BASE, .size = sizeof r->lines,
                                     .tag = r->tag, .data = &r->lines[0][0],
                                     .hits = &r->hits, .mask = RIG_CACHE_LINES - 1u,
                                     .latency = RIG_DEV_LATENCY};
    for (unsigned i = 0; i < RIG_CACHE_LINES; i++)
        r->tag[i] = (uint64_t)i * 64u | SIM_MEM_LINE_VALID;
    uint8_t *bytes = &r->lines[0][0];
    for (unsigned i = 0; i < sizeof r->lines; i++)
        bytes[i] = (uint8_t)(i * 7u + 3u);
    uint8_t want[32];
    memcpy(want, bytes + 40, sizeof want);
    run_to_wfi(r);
    assert_memory_equal(&r->h.v[2][0], want, sizeof want); /* 8 words from 40, two lines */
    assert_memory_equal(bytes + 88, want, sizeof want);    /* stored at 88, line 1 */
    assert_int_equal(r->hits, 3);                          /* lines 0, 1; then 1 */
    assert_false(r->tag[0] & SIM_MEM_LINE_DIRTY);
    assert_true(r->tag[1] & SIM_MEM_LINE_DIRTY);
    rig_free(r);
}

/* Elements reach a device one access each, at its EEW; its latency is
 * charged once per line. */
static void device_elements(void **state)
{
    (void)state;
    rig *r = rig_new("vsetivli t0, 8, e64, m1, ta, ma\nvle64.v v1, (a1)\n"
                     "vsetivli t0, 4, e16, m1, ta, ma\nvse16.v v1, (a1)\nwfi");
    for (unsigned i = 0; i < RIG_DEV_MAX; i++)
        r->dev[i] = (uint8_t)(0x80 + i);
    run_to_wfi(r);
    assert_int_equal(r->dev_loads, 8);
    assert_int_equal(r->dev_stores, 4);
    assert_int_equal(r->h.mem_cycles, 2 * RIG_DEV_LATENCY);
    assert_memory_equal(r->h.v[1], r->dev, 64);
    rig_free(r);
}

/* A device that halts the hart inside a vector store: the instruction
 * completes (every element stored) and retires, the run returns. */
static void device_halts(void **state)
{
    (void)state;
    rig *r = rig_new("vsetivli t0, 16, e64, m2, ta, ma\nvse64.v v2, (a1)\nwfi");
    uint8_t pat[128];
    for (unsigned i = 0; i < sizeof pat; i++)
        pat[i] = (uint8_t)i;
    memcpy(r->h.v + 2, pat, sizeof pat); /* v2 and v3 */
    assert_int_equal(sim_hart_run(&r->h, 1000000), SIM_HART_HALTED);
    assert_int_equal(r->dev_stores, 16);
    assert_memory_equal(r->dev, pat, 128);
    assert_int_equal(r->h.instret, 2);
    assert_int_equal(r->h.pc, RIG_CODE_BASE + 8);
    rig_free(r);
}

/* A unit-stride, whole-register or mask store into a device that takes
 * one write is that one write of all its bytes (vstart on), at the
 * device's cost; a later scalar store lands after it; a masked or strided
 * store still goes element by element. */
static void device_one_write(void **state)
{
    (void)state;
    rig *r = rig_new("vsetvli t0, zero, e8, m2, ta, ma\nvse8.v v2, (a1)\nsd a0, 8(a1)\n"
                     "vsetivli t0, 2, e64, m1, ta, ma\nvse64.v v1, (a1), v0.t\n"
                     "li t1, 16\nvsse64.v v1, (a1), t1\nvs1r.v v1, (a1)\n"
                     "vsetivli t0, 8, e8, m1, ta, ma\nvsm.v v1, (a1)\nwfi");
    r->mem.store_bytes = rig_store_bytes;
    uint8_t pat[128];
    for (unsigned i = 0; i < sizeof pat; i++)
        pat[i] = (uint8_t)(0x40 + i);
    memcpy(r->h.v + 2, pat, sizeof pat); /* v2, v3 */
    memset(r->h.v[0], 0x01, 64); /* mask: element 0 only */
    memset(r->h.v[1], 0x77, 64);
    run_to_wfi(r);
    assert_int_equal(r->nlog, 1 + 1 + 1 + 2 + 1 + 1);
    assert_true(r->log[0].one); /* vse8: 128 bytes, one write */
    assert_int_equal(r->log[0].addr, RIG_DEV_BASE);
    assert_int_equal(r->log[0].n, 128);
    assert_false(r->log[1].one); /* sd: after it */
    assert_int_equal(r->log[1].addr, RIG_DEV_BASE + 8);
    assert_false(r->log[2].one); /* masked: element 0 alone */
    assert_int_equal(r->log[2].n, 8);
    assert_false(r->log[3].one); /* strided: two elements */
    assert_int_equal(r->log[4].addr, RIG_DEV_BASE + 16);
    assert_true(r->log[5].one); /* vs1r.v: one register */
    assert_int_equal(r->log[5].n, 64);
    assert_true(r->log[6].one); /* vsm.v: one byte */
    assert_int_equal(r->log[6].n, 1);
    assert_int_equal(r->dev[64], 0x40 + 64); /* the vse8's, past vs1r's */
    assert_int_equal(r->dev[63], 0x77);
    rig_free(r);

    /* Its cost is the device's, once (2 lines: + RIG_DEV_LINE), and the
     * datapath's beats: 128 bytes, 4 beats (1 + 3). */
    r = rig_new("vsetvli t0, zero, e8, m2, ta, ma\nvse8.v v2, (a1)\nwfi");
    r->mem.store_bytes = rig_store_bytes;
    run_to_wfi(r);
    assert_int_equal(r->h.mem_cycles, RIG_DEV_LATENCY + RIG_DEV_LINE);
    assert_int_equal(r->h.cycle, 1 + (1 + 3 + RIG_DEV_LATENCY + RIG_DEV_LINE) + 1);
    rig_free(r);

    /* vstart 4: the bytes of elements 4 on. */
    r = rig_new("vsetivli t0, 8, e32, m1, ta, ma\ncsrwi vstart, 4\nvse32.v v1, (a1)\nwfi");
    r->mem.store_bytes = rig_store_bytes;
    memset(r->h.v[1], 0x99, 64);
    run_to_wfi(r);
    assert_int_equal(r->nlog, 1);
    assert_int_equal(r->log[0].addr, RIG_DEV_BASE + 16);
    assert_int_equal(r->log[0].n, 16);
    assert_int_equal(r->dev[15], 0);
    assert_int_equal(r->dev[16], 0x99);
    rig_free(r);
}

/* A store the device will not take whole (it runs past the device's
 * end) goes element by element: the elements before the fault land,
 * the faulting one traps with its index in vstart. */
static void device_element_fault(void **state)
{
    (void)state;
    rig *r = rig_new("addi a1, a1, 64\nvsetivli t0, 16, e64, m2, ta, ma\nvse64.v v2, (a1)\nwfi");
    r->mem.store_bytes = rig_store_bytes;
    memset(r->h.v + 2, 0x5c, 128);
    assert_int_equal(sim_hart_run(&r->h, 1000000), SIM_HART_WFI);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.trap_cause, SIM_CAUSE_STORE_ACCESS);
    assert_int_equal(r->h.trap_tval, RIG_DEV_BASE + 128);
    assert_int_equal(r->h.vstart, 8);
    assert_int_equal(r->dev_stores, 8);
    assert_int_equal(r->dev[127], 0x5c);
    assert_int_equal(r->dev[63], 0);
    rig_free(r);
}

static bool on_watch(void *ctx, sim_hart *h, unsigned index, bool store)
{
    rig *r = ctx;
    (void)h;
    (void)index;
    (void)store;
    r->watch_calls++;
    return true;
}

/* A watch on one element stops the run before the instruction: nothing
 * stored, not even the elements before it. */
static void watch_first(void **state)
{
    (void)state;
    rig *r = rig_new("vsetivli t0, 4, e32, m1, ta, ma\nvse32.v v1, (a0)\nwfi");
    memset(r->h.v[1], 0xee, 64);
    static const sim_watch w = {RIG_DATA_BASE + 8, 4, false, true};
    r->h.watches = &w;
    r->h.nwatches = 1;
    r->h.watch = on_watch;
    r->h.watch_ctx = r;
    assert_int_equal(sim_hart_run(&r->h, 1000000), SIM_HART_RUNNING);
    assert_int_equal(r->watch_calls, 1);
    assert_int_equal(r->h.pc, RIG_CODE_BASE + 4);
    assert_int_equal(r->h.instret, 1);
    assert_int_equal(r->data[0], 0);
    assert_int_equal(r->h.vstart, 0);
    r->h.nwatches = 0; /* gone: the store runs */
    run_to_wfi(r);
    assert_int_equal(r->data[0], 0xee);
    assert_int_equal(r->data[15], 0xee);
    assert_int_equal(r->data[16], 16);
    rig_free(r);
}

/* A vector store ends another hart's reservation on the line. */
static void reservation(void **state)
{
    (void)state;
    rig *r = rig_new("vsetivli t0, 1, e8, m1, ta, ma\nvse8.v v1, (a0)\nwfi");
    assert_int_equal(
        sim_hart_init(&r->other, &r->mem, 1, RIG_CODE_BASE, RIG_CODE_BASE, RIG_CODE_SIZE), 0);
    r->other.reserved = true;
    r->other.reservation = RIG_DATA_BASE;
    r->h.x[10] += 63;
    run_to_wfi(r);
    assert_false(r->other.reserved);
    rig_free(r);
}

/* A step records what a vector instruction writes to x (vset*, vmv.x.s),
 * and nothing for one that writes only vector state. */
static void step_commit(void **state)
{
    (void)state;
    rig *r = rig_new("vsetivli t0, 3, e8, m1, ta, ma\nvadd.vi v1, v1, 1\nvmv.x.s t1, v1\n"
                     "vsetivli t0, 3, e32, m1, ta, ma\nvfmv.f.s fa0, v1\nwfi");
    sim_commit c;
    assert_true(sim_hart_step(&r->h, 1000, &c));
    assert_int_equal(c.nwrites, 1); /* t0 (VS was Dirty already) */
    assert_int_equal(c.writes[0].file, 'x');
    assert_int_equal(c.writes[0].num, 5);
    assert_int_equal(c.writes[0].value, 3);
    assert_true(sim_hart_step(&r->h, 1000, &c));
    assert_int_equal(c.nwrites, 0);
    assert_true(sim_hart_step(&r->h, 1000, &c));
    assert_int_equal(c.nwrites, 1);
    assert_int_equal(c.writes[0].num, 6);
    assert_int_equal(c.writes[0].value, 1);
    assert_true(sim_hart_step(&r->h, 1000, &c));
    assert_true(sim_hart_step(&r->h, 1000, &c));
    assert_int_equal(c.nwrites, 1);
    assert_int_equal(c.writes[0].file, 'f');
    assert_int_equal(c.writes[0].num, 10);
    assert_int_equal(c.writes[0].value, 0xffffffff00010101ull); /* bytes 1, 1, 1, 0 */
    rig_free(r);
}

/* At reset vtype is vill and vl 0, so vector arithmetic traps until a
 * vsetvl; VS starts Off. */
static void reset_state(void **state)
{
    (void)state;
    rig *r = rig_new("vadd.vv v1, v2, v3\nwfi");
    assert_int_equal(r->h.vtype, 1ull << 63);
    assert_int_equal(r->h.vl, 0);
    assert_int_equal(sim_hart_run(&r->h, 1000), SIM_HART_WFI);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.trap_cause, SIM_CAUSE_ILLEGAL);
    assert_int_equal(r->h.trap_epc, RIG_CODE_BASE);
    rig_free(r);
    sim_hart h;
    sim_mem m;
    memset(&m, 0, sizeof m);
    assert_int_equal(sim_hart_init(&h, &m, 0, 0, 0, 64), 0);
    assert_int_equal(h.mstatus & SIM_MSTATUS_VS, 0);
    sim_hart_free(&h);
}

/* Encodings reserved whatever the state decode as illegal. */
static void decode_reserved(void **state)
{
    (void)state;
    sim_vec_insn vi;
    static const struct {
        uint32_t insn;
        int want;
    } t[] = {
        {0x022180d7, 0},                 /* vadd.vv v1, v2, v3 */
        {0x0205e087, 0},                 /* vle32.v v1, (a1) */
        {0x1205e087, SIM_CAUSE_ILLEGAL}, /* mew: EEW 128 */
        {0x2285e087, 0},                 /* vl2re32.v v1, (a1) */
        {0x4285e087, SIM_CAUSE_ILLEGAL}, /* whole registers: 3 */
        {0x0285e087 & ~(1u << 25), SIM_CAUSE_ILLEGAL}, /* vl1re32 masked */
        {0x0285d0a7 | (5u << 12), SIM_CAUSE_ILLEGAL},  /* vs1r with EEW 16 */
        {0x02b58007, 0},                 /* vlm.v v0, (a1) */
        {0x22b58007, SIM_CAUSE_ILLEGAL}, /* vlm.v with nf 2 */
        {0x0305e0a7, SIM_CAUSE_ILLEGAL}, /* fault-only-first store */
        {0x022090d7, 0},                 /* vfadd.vv v1, v2, v1 */
        {0xc22090d7, 0},                 /* vfwadd.vv v1, v2, v1 */
        {0x4e2210d7, 0},                 /* vfrsqrt7.v v1, v2 */
        {0x4e2290d7, 0},                 /* vfrec7.v v1, v2 */
        {0x4e2310d7, SIM_CAUSE_ILLEGAL}, /* VFUNARY1 vs1 6: nothing */
        {0x4e2250d7, SIM_CAUSE_ILLEGAL}, /* vfrsqrt7 has no .vf form */
        {0x0e2180d7, SIM_CAUSE_ILLEGAL}, /* vrsub.vv does not exist */
        {0x9e2130d7, SIM_CAUSE_ILLEGAL}, /* vmv<nr>r.v, nr 3 */
        {0x9e2030d7, 0},                 /* vmv1r.v v1, v2 */
        {0x5e2080d7, SIM_CAUSE_ILLEGAL}, /* vmv.v.v with vs2 != 0 */
        {0x83f572d7, SIM_CAUSE_ILLEGAL}, /* OPCFG 10xxxxx other than vsetvl */
        {0x80b572d7, 0},                 /* vsetvl t0, a0, a1 */
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        int got = sim_vec_decode(t[i].insn, &vi);
        if (got != t[i].want)
            print_message("0x%08x: got %d, want %d\n", t[i].insn, got, t[i].want);
        assert_int_equal(got, t[i].want);
    }
}

/* The random cross-check of vector floating point against the scalar
 * FPU: one program runs a vector operation over 128 halves (e16 m4), 64
 * singles (e32 m4) or 32 doubles (e64 m4) of operands A, B, C, then the scalar instruction
 * over the same elements in a loop; results and the fflags each
 * accumulated must be equal, in every rounding mode.  The operands mix
 * the special values (zeros, infinities, NaNs quiet and signaling,
 * subnormals, the extremes) with random ones, some of them close to each
 * other so that sums cancel and round. */
typedef struct fp_case {
    const char *vec;    /* operands: v8 = A, v16 = B, v24 = C (the result) */
    const char *scalar; /* on fa0 = A, fa1 = B, fa2 = C into fa3 (or t1) */
    int kind;           /* FP_ARITH, FP_CMP (t1 0/1), FP_TOINT (t1), FP_FROMINT (t1 in) */
    unsigned rsz;       /* the result's bytes, when not the operands' */
} fp_case;
#define FP_STRIDE 512u
enum { FP_ARITH, FP_CMP, FP_TOINT, FP_FROMINT };

static uint64_t lcg_state = 0x2545f4914f6cdd1dull;
static uint64_t lcg(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return lcg_state >> 11 ^ lcg_state << 21;
}

static uint64_t fp_operand(unsigned sz, uint64_t near)
{
    static const uint16_t h_special[] = {0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfd00,
                                         0x0001, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x3c00,
                                         0xbc00, 0x7800, 0xf800};
    const bool d = sz == 8;
    static const uint32_t s_special[] = {0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                                         0x7f800001, 0xffa00000, 0x00000001, 0x807fffff,
                                         0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000,
                                         0xbf800000, 0x4f000000, 0xcf000000};
    static const uint64_t d_special[] = {0, 1ull << 63, 0x7ff0000000000000ull,
                                         0xfff0000000000000ull, 0x7ff8000000000000ull,
                                         0x7ff0000000000001ull, 0xfff4000000000000ull, 1,
                                         0x800fffffffffffffull, 0x0010000000000000ull,
                                         0x7fefffffffffffffull, 0xffefffffffffffffull,
                                         0x3ff0000000000000ull, 0xbff0000000000000ull,
                                         0x43e0000000000000ull, 0xc3e0000000000000ull};
    uint64_t r = lcg();
    if (sz == 2) {
        switch (r % 8) {
        case 0: case 1: return h_special[r / 8 % 16];
        case 2: case 3: return (uint16_t)((near + (r >> 8) % 7 - 3) ^ ((r >> 20) & 1 ? 0x8000 : 0));
        case 4: return (uint16_t)((0xcu + (r >> 40) % 8) << 10 | (r & 0x3ff) | (r >> 63) << 15);
        default: return (uint16_t)r;
        }
    }
    switch (r % 8) {
    case 0: case 1: return d ? d_special[r / 8 % 16] : s_special[r / 8 % 16];
    case 2: case 3: /* near `near`: a few ulps off, either sign */
        return (near + (r >> 8) % 7 - 3) ^ ((r >> 20) & 1 ? (d ? 1ull << 63 : 1u << 31) : 0);
    case 4: /* moderate magnitudes: exponent around 1 */
        return d ? (0x3f0ull + (r >> 40) % 32) << 52 | (r & ((1ull << 52) - 1))
                 : (uint32_t)((0x70u + (r >> 40) % 32) << 23 | (r & 0x7fffff)) | (r >> 63) << 31;
    default: return d ? r : (uint32_t)r;
    }
}

static void fp_crosscheck_one(const fp_case *c, unsigned sz)
{
    const bool d = sz == 8;
    const char *fname = sz == 2 ? "H" : d ? "D" : "S";
    /* the operands' element bytes and count (e32 m4 or e64 m4), the
     * result's bytes; the five arrays (A, B, C, the vector's results,
     * the scalar's) and the two fflags at FP_STRIDE apart */
    unsigned n = 256 / sz, rsz = c->rsz ? c->rsz : sz;
    const char *ld = d ? "fld" : sz == 4 ? "flw" : "flh", *ild = d ? "ld" : sz == 4 ? "lw" : "lh";
    const char *rlmul = rsz > sz ? "m8" : rsz < sz ? "m2" : "m4";
    char src[2048];
    snprintf(src, sizeof src,
             "li t0, %u\nadd a1, a0, t0\nadd a2, a1, t0\nadd a3, a2, t0\n"
             "add a4, a3, t0\nadd a5, a4, t0\n"
             "csrw frm, s1\ncsrwi fflags, 0\n"
             "li t0, %u\nvsetvli zero, t0, e%u, m4, ta, ma\n"
             "vle%u.v v8, (a0)\nvle%u.v v16, (a1)\nvle%u.v v24, (a2)\n%s\n"
             "vsetvli zero, t0, e%u, %s, ta, ma\n"
             "vse%u.v v24, (a3)\ncsrr t0, fflags\nsd t0, 0(a5)\ncsrwi fflags, 0\n"
             "li t2, %u\n"
             "1: %s fa0, 0(a0)\n%s fa1, 0(a1)\n%s fa2, 0(a2)\n%s t1, 0(a0)\n%s\n"
             "%s\n"
             "addi a0, a0, %u\naddi a1, a1, %u\naddi a2, a2, %u\naddi a4, a4, %u\n"
             "addi t2, t2, -1\nbnez t2, 1b\n"
             "csrr t0, fflags\nsd t0, 8(a5)\nwfi\n",
             FP_STRIDE, n, 8 * sz, 8 * sz, 8 * sz, 8 * sz, c->vec, 8 * rsz, rlmul, 8 * rsz, n,
             ld, ld, ld, ild, c->scalar,
             c->kind == FP_ARITH || c->kind == FP_FROMINT
                 ? (rsz == 8 ? "fsd fa3, 0(a4)" : rsz == 4 ? "fsw fa3, 0(a4)" : "fsh fa3, 0(a4)")
                 : (rsz == 8 ? "sd t1, 0(a4)" : rsz == 4 ? "sw t1, 0(a4)" : "sh t1, 0(a4)"),
             sz, sz, sz, rsz);
    rig *r = rig_new(src);
    for (unsigned rm = 0; rm <= 4; rm++) {
    if (rm) { /* the same program again, in the next rounding mode */
        sim_hart_free(&r->h);
        assert_int_equal(
        sim_hart_init(&r->h, &r->mem, 0, RIG_CODE_BASE, RIG_CODE_BASE, RIG_CODE_SIZE), 0);
        r->h.mstatus |= SIM_MSTATUS_VS | SIM_MSTATUS_FS;
        r->h.mtvec = RIG_CODE_BASE + RIG_CODE_SIZE - 4;
        r->h.x[10] = RIG_DATA_BASE;
    }
    r->h.x[9] = rm;
    /* operands: A, B, C of n elements each, B and C near A */
    for (unsigned i = 0; i < n; i++) {
        uint64_t a = fp_operand(sz, 0);
        if (c->kind == FP_FROMINT)
            a = lcg() >> (lcg() % 64);
        uint64_t b = fp_operand(sz, a), cc = fp_operand(sz, a);
        memcpy(r->data + i * sz, &a, sz);
        memcpy(r->data + FP_STRIDE + i * sz, &b, sz);
        memcpy(r->data + 2 * FP_STRIDE + i * sz, &cc, sz);
    }
    run_to_wfi(r);
    const uint8_t *vres = r->data + 3 * FP_STRIDE, *sres = r->data + 4 * FP_STRIDE;
    uint64_t vflags, sflags;
    memcpy(&vflags, r->data + 5 * FP_STRIDE, 8);
    memcpy(&sflags, r->data + 5 * FP_STRIDE + 8, 8);
    for (unsigned i = 0; i < n; i++) {
        uint64_t v = 0, s = 0;
        memcpy(&v, vres + i * rsz, rsz);
        memcpy(&s, sres + i * rsz, rsz);
        if (v != s)
            print_message("`%s` (%s, rm %u) element %u: 0x%llx, scalar 0x%llx\n", c->vec,
                          fname, rm, i, (unsigned long long)v, (unsigned long long)s);
        assert_int_equal(v, s);
    }
    if (vflags != sflags)
        print_message("`%s` (%s, rm %u): fflags 0x%llx, scalar 0x%llx\n", c->vec, fname,
                      rm, (unsigned long long)vflags, (unsigned long long)sflags);
    assert_int_equal(vflags, sflags);
    }
    rig_free(r);
}

static void fp_crosscheck(void **state)
{
    (void)state;
    static const struct {
        const char *vec, *s, *d;
        int kind;
    } t[] = {
        {"vfadd.vv v24, v8, v16", "fadd.s fa3, fa0, fa1", "fadd.d fa3, fa0, fa1", FP_ARITH},
        {"vfsub.vv v24, v8, v16", "fsub.s fa3, fa0, fa1", "fsub.d fa3, fa0, fa1", FP_ARITH},
        {"vfmul.vv v24, v8, v16", "fmul.s fa3, fa0, fa1", "fmul.d fa3, fa0, fa1", FP_ARITH},
        {"vfdiv.vv v24, v8, v16", "fdiv.s fa3, fa0, fa1", "fdiv.d fa3, fa0, fa1", FP_ARITH},
        {"vfsqrt.v v24, v8", "fsqrt.s fa3, fa0", "fsqrt.d fa3, fa0", FP_ARITH},
        {"vfmin.vv v24, v8, v16", "fmin.s fa3, fa0, fa1", "fmin.d fa3, fa0, fa1", FP_ARITH},
        {"vfmax.vv v24, v8, v16", "fmax.s fa3, fa0, fa1", "fmax.d fa3, fa0, fa1", FP_ARITH},
        {"vfsgnj.vv v24, v8, v16", "fsgnj.s fa3, fa0, fa1", "fsgnj.d fa3, fa0, fa1", FP_ARITH},
        {"vfsgnjn.vv v24, v8, v16", "fsgnjn.s fa3, fa0, fa1", "fsgnjn.d fa3, fa0, fa1", FP_ARITH},
        {"vfsgnjx.vv v24, v8, v16", "fsgnjx.s fa3, fa0, fa1", "fsgnjx.d fa3, fa0, fa1", FP_ARITH},
        /* vd = C: vfmacc = B * A + C, ...; vfmadd = B * C + A, ... */
        {"vfmacc.vv v24, v16, v8", "fmadd.s fa3, fa1, fa0, fa2", "fmadd.d fa3, fa1, fa0, fa2",
         FP_ARITH},
        {"vfnmacc.vv v24, v16, v8", "fnmadd.s fa3, fa1, fa0, fa2", "fnmadd.d fa3, fa1, fa0, fa2",
         FP_ARITH},
        {"vfmsac.vv v24, v16, v8", "fmsub.s fa3, fa1, fa0, fa2", "fmsub.d fa3, fa1, fa0, fa2",
         FP_ARITH},
        {"vfnmsac.vv v24, v16, v8", "fnmsub.s fa3, fa1, fa0, fa2", "fnmsub.d fa3, fa1, fa0, fa2",
         FP_ARITH},
        {"vfmadd.vv v24, v16, v8", "fmadd.s fa3, fa1, fa2, fa0", "fmadd.d fa3, fa1, fa2, fa0",
         FP_ARITH},
        {"vfnmadd.vv v24, v16, v8", "fnmadd.s fa3, fa1, fa2, fa0", "fnmadd.d fa3, fa1, fa2, fa0",
         FP_ARITH},
        {"vfmsub.vv v24, v16, v8", "fmsub.s fa3, fa1, fa2, fa0", "fmsub.d fa3, fa1, fa2, fa0",
         FP_ARITH},
        {"vfnmsub.vv v24, v16, v8", "fnmsub.s fa3, fa1, fa2, fa0", "fnmsub.d fa3, fa1, fa2, fa0",
         FP_ARITH},
        /* compares into v0, then 0/1 elements */
        {"vmfeq.vv v0, v8, v16\nvmv.v.i v24, 0\nvmerge.vim v24, v24, 1, v0",
         "feq.s t1, fa0, fa1", "feq.d t1, fa0, fa1", FP_CMP},
        {"vmflt.vv v0, v8, v16\nvmv.v.i v24, 0\nvmerge.vim v24, v24, 1, v0",
         "flt.s t1, fa0, fa1", "flt.d t1, fa0, fa1", FP_CMP},
        {"vmfle.vv v0, v8, v16\nvmv.v.i v24, 0\nvmerge.vim v24, v24, 1, v0",
         "fle.s t1, fa0, fa1", "fle.d t1, fa0, fa1", FP_CMP},
        {"vfclass.v v24, v8", "fclass.s t1, fa0", "fclass.d t1, fa0", FP_CMP},
        /* conversions at SEW */
        {"vfcvt.x.f.v v24, v8", "fcvt.w.s t1, fa0, dyn", "fcvt.l.d t1, fa0, dyn", FP_TOINT},
        {"vfcvt.xu.f.v v24, v8", "fcvt.wu.s t1, fa0, dyn", "fcvt.lu.d t1, fa0, dyn", FP_TOINT},
        {"vfcvt.rtz.x.f.v v24, v8", "fcvt.w.s t1, fa0, rtz", "fcvt.l.d t1, fa0, rtz", FP_TOINT},
        {"vfcvt.f.x.v v24, v8", "fcvt.s.w fa3, t1, dyn", "fcvt.d.l fa3, t1, dyn", FP_FROMINT},
        {"vfcvt.f.xu.v v24, v8", "fcvt.s.wu fa3, t1, dyn", "fcvt.d.lu fa3, t1, dyn",
         FP_FROMINT},
        {NULL, NULL, NULL, 0}, /* the rest: singles in, doubles out, or back */
    };
    static const fp_case wide[] = {
        {"vfwadd.vv v24, v8, v16", "fcvt.d.s fa0, fa0\nfcvt.d.s fa1, fa1\nfadd.d fa3, fa0, fa1",
         FP_ARITH, 8},
        {"vfwsub.vv v24, v8, v16", "fcvt.d.s fa0, fa0\nfcvt.d.s fa1, fa1\nfsub.d fa3, fa0, fa1",
         FP_ARITH, 8},
        {"vfwmul.vv v24, v8, v16", "fcvt.d.s fa0, fa0\nfcvt.d.s fa1, fa1\nfmul.d fa3, fa0, fa1",
         FP_ARITH, 8},
        {"vfwcvt.f.f.v v24, v8", "fcvt.d.s fa3, fa0", FP_ARITH, 8},
        {"vfwcvt.x.f.v v24, v8", "fcvt.l.s t1, fa0, dyn", FP_TOINT, 8},
        {"vfwcvt.rtz.xu.f.v v24, v8", "fcvt.lu.s t1, fa0, rtz", FP_TOINT, 8},
        {"vfwcvt.f.x.v v24, v8", "fcvt.d.w fa3, t1", FP_FROMINT, 8},
    };
    static const fp_case narrow[] = {
        {"vsetvli zero, t0, e32, m2, ta, ma\nvfncvt.f.f.w v24, v8", "fcvt.s.d fa3, fa0, dyn",
         FP_ARITH, 4},
        {"vsetvli zero, t0, e32, m2, ta, ma\nvfncvt.x.f.w v24, v8", "fcvt.w.d t1, fa0, dyn",
         FP_TOINT, 4},
        {"vsetvli zero, t0, e32, m2, ta, ma\nvfncvt.rtz.xu.f.w v24, v8",
         "fcvt.wu.d t1, fa0, rtz", FP_TOINT, 4},
        {"vsetvli zero, t0, e32, m2, ta, ma\nvfncvt.f.x.w v24, v8", "fcvt.s.l fa3, t1, dyn",
         FP_FROMINT, 4},
    };
    /* Zvfh: halves to singles and back, against fcvt.s.h and fcvt.h.s */
    static const fp_case wide_h[] = {
        {"vfwadd.vv v24, v8, v16", "fcvt.s.h fa0, fa0\nfcvt.s.h fa1, fa1\nfadd.s fa3, fa0, fa1",
         FP_ARITH, 4},
        {"vfwmul.vv v24, v8, v16", "fcvt.s.h fa0, fa0\nfcvt.s.h fa1, fa1\nfmul.s fa3, fa0, fa1",
         FP_ARITH, 4},
        {"vfwcvt.f.f.v v24, v8", "fcvt.s.h fa3, fa0", FP_ARITH, 4},
        {"vfwcvt.x.f.v v24, v8", "fcvt.w.h t1, fa0, dyn", FP_TOINT, 4},
    };
    static const fp_case narrow_h[] = {
        {"vsetvli zero, t0, e16, m2, ta, ma\nvfncvt.f.f.w v24, v8", "fcvt.h.s fa3, fa0, dyn",
         FP_ARITH, 2},
        {"vsetvli zero, t0, e16, m2, ta, ma\nvfncvt.f.x.w v24, v8", "fcvt.h.w fa3, t1, dyn",
         FP_FROMINT, 2},
    };
    for (size_t i = 0; i < sizeof wide / sizeof *wide; i++)
        fp_crosscheck_one(&wide[i], 4);
    for (size_t i = 0; i < sizeof narrow / sizeof *narrow; i++)
        fp_crosscheck_one(&narrow[i], 8);
    for (size_t i = 0; i < sizeof wide_h / sizeof *wide_h; i++)
        fp_crosscheck_one(&wide_h[i], 2);
    for (size_t i = 0; i < sizeof narrow_h / sizeof *narrow_h; i++)
        fp_crosscheck_one(&narrow_h[i], 4);
    for (size_t i = 0; t[i].vec; i++) {
        for (int d = 0; d <= 1; d++) {
            fp_case c = {t[i].vec, d ? t[i].d : t[i].s, t[i].kind, 0};
            fp_crosscheck_one(&c, d ? 8 : 4);
        }
        /* at SEW 16 the same against the .h instruction, but for the
         * integer conversions (16-bit integers, which no scalar has) */
        if (t[i].kind == FP_TOINT || t[i].kind == FP_FROMINT)
            continue;
        char h[128];
        snprintf(h, sizeof h, "%s", t[i].s);
        for (char *p = h; (p = strstr(p, ".s ")) != NULL; p++)
            p[1] = 'h';
        fp_case c = {t[i].vec, h, t[i].kind, 0};
        fp_crosscheck_one(&c, 2);
    }
}

/* vfrec7.v and vfrsqrt7.v (vec_est.c): each of the spec's 128 table
 * entries is its interval's midpoint estimate, round(2^8 / (1 + (i +
 * 0.5) / 128)) - 128 and its square-root counterpart (an independent
 * derivation of the tables), in all three formats; and over random normal
 * inputs of every exponent the estimates are within 2^-7 of 1/x and
 * 1/sqrt(x). */
static void estimates(void **state)
{
    (void)state;
    for (unsigned i = 0; i < 128; i++) {
        long want = lround(256.0 / (1.0 + (i + 0.5) / 128.0)) - 128;
        want = want > 127 ? 127 : want;
        uint32_t fl = 0;
        uint64_t r = vec_frec7(SIM_FP_S, 0x3f800000u | (uint64_t)i << 16, SIM_RM_RNE, &fl);
        assert_int_equal(r, (126ull << 23) | (uint64_t)want << 16);
        r = vec_frec7(SIM_FP_D, 0x3ff0000000000000ull | (uint64_t)i << 45, SIM_RM_RNE, &fl);
        assert_int_equal(r, (1022ull << 52) | (uint64_t)want << 45);
        r = vec_frec7(SIM_FP_H, 0x3c00u | (uint64_t)i << 3, SIM_RM_RNE, &fl);
        assert_int_equal(r, (14ull << 10) | (uint64_t)want << 3);
        /* rsqrt: index bit 6 is the exponent's LSB (1: x in [1, 2)) */
        double x = (1.0 + ((i & 63) + 0.5) / 64.0) * (i < 64 ? 2.0 : 1.0), y = 1.0 / sqrt(x);
        while (y < 1.0)
            y *= 2.0;
        want = lround((y - 1.0) * 128.0);
        want = want > 127 ? 127 : want;
        uint64_t e = i < 64 ? 128 : 127;
        r = vec_frsqrt7(SIM_FP_S, e << 23 | (uint64_t)(i & 63) << 17, &fl);
        assert_int_equal(r & 0x7fffff, (uint64_t)want << 16);
        r = vec_frsqrt7(SIM_FP_H, (e - 112) << 10 | (uint64_t)(i & 63) << 4, &fl);
        assert_int_equal(r & 0x3ff, (uint64_t)want << 3);
        assert_int_equal(fl, 0);
    }
    srand(7);
    for (unsigned k = 0; k < 20000; k++) {
        uint64_t bits = ((uint64_t)rand() << 33 ^ (uint64_t)rand() << 11 ^ (uint64_t)rand()) &
                        0x7fffffffffffffffull;
        double x, est;
        uint32_t fl = 0;
        memcpy(&x, &bits, 8);
        if (!isnormal(x) || !isnormal(1.0 / x))
            continue;
        uint64_t r = vec_frec7(SIM_FP_D, bits, SIM_RM_RNE, &fl);
        memcpy(&est, &r, 8);
        assert_true(fabs(est * x - 1.0) <= 1.0 / 128);
        r = vec_frsqrt7(SIM_FP_D, bits, &fl);
        memcpy(&est, &r, 8);
        assert_true(fabs(est * sqrt(x) - 1.0) <= 1.0 / 128);
        assert_int_equal(fl, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(modeled_time),   cmocka_unit_test(device_elements),
        cmocka_unit_test(device_halts),   cmocka_unit_test(watch_first),
        cmocka_unit_test(reservation),    cmocka_unit_test(step_commit),
        cmocka_unit_test(reset_state),    cmocka_unit_test(decode_reserved),
        cmocka_unit_test(fp_crosscheck),  cmocka_unit_test(device_one_write),
        cmocka_unit_test(device_element_fault), cmocka_unit_test(estimates),
        cmocka_unit_test(cached_hits),
        cmocka_unit_test(cached_line_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
