/* hart_program: the harness sim_hart_test and hart_stop_test share —
 * programs assembled at test time (rv_assemble.h) run on hart_rig.h's
 * bench, its device DEV_SIZE bytes with a timer; mtvec starts at a `wfi`
 * stub, so a trap ends a run as a program's final `wfi` does; and tables
 * of snippets (run_table).  cmocka must be included first. */
#ifndef HART_PROGRAM_H
#define HART_PROGRAM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"
#include "hart_rig.h"
#include "rv_assemble.h"
#include "sim_hart.h"
#include "sim_mem.h"


#define TRAP_STUB 0x2000u /* offset of the wfi that mtvec points at */
#define SCRATCH (RIG_DATA_BASE + 0x800)
#define DEV_SIZE 64u /* the device here: a load at 64 faults */

enum { RA = 1, SP = 2, T0 = 5, T1 = 6, A0 = 10, A1 = 11, A2 = 12, T5 = 30, T6 = 31 };

/* Assembles `src` (after the harness's prologue) linked at RIG_CODE_BASE
 * and returns the bytes of .text; asserts on a toolchain failure. */
static inline size_t assemble(const char *src, uint8_t *out, size_t max)
{
    char prologue[128];
    snprintf(prologue, sizeof prologue, "li s11, 0x%llx\nli s10, 0x%llx\n",
             (unsigned long long)RIG_DATA_BASE, (unsigned long long)SCRATCH);
    return rv_assemble(prologue, src, RIG_CODE_BASE, out, max);
}

static inline void hart_start(rig *r, sim_hart *h, uint32_t id, uint64_t pc)
{
    assert_int_equal(sim_hart_init(h, &r->mem, id, pc, RIG_CODE_BASE, RIG_CODE_SIZE), 0);
    h->mtvec = RIG_CODE_BASE + TRAP_STUB;
}

static rig *rig_new(const char *src)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    size_t n = assemble(src, r->code, TRAP_STUB);
    assert_true(n > 0 && n < TRAP_STUB);
    uint32_t wfi = 0x10500073;
    memcpy(r->code + TRAP_STUB, &wfi, 4);
    rig_init_mem(r, DEV_SIZE, true);
    hart_start(r, &r->h, 0, RIG_CODE_BASE);
    return r;
}

static inline void rig_free(rig *r)
{
    sim_hart_free(&r->h);
    free(r);
}

/* Runs h until it waits in wfi (a program's end, or the trap stub). */
static inline void run_hart(sim_hart *h)
{
    sim_hart_state st = sim_hart_run(h, h->cycle + 10000000);
    assert_int_equal(st, SIM_HART_WFI);
}

/* Runs h in calls of `quantum` cycles each until it stops running. */
static inline void run_in_quanta(sim_hart *h, unsigned quantum)
{
    while (sim_hart_run(h, h->cycle + quantum) == SIM_HART_RUNNING)
        ;
}

/* h ran as ref did: the same time, count and registers. */
static inline void assert_same_run(const sim_hart *h, const sim_hart *ref)
{
    assert_int_equal(h->cycle, ref->cycle);
    assert_int_equal(h->instret, ref->instret);
    assert_memory_equal(h->x, ref->x, sizeof h->x);
}

static inline uint64_t data64(const rig *r, uint64_t addr)
{
    uint64_t v;
    memcpy(&v, r->data + (addr - RIG_DATA_BASE), 8);
    return v;
}

typedef struct snippet {
    const char *code;
    uint64_t want; /* a0 after the snippet */
} snippet;

/* Runs a table of snippets as one program (see the top) and checks each. */
static inline void run_table(const snippet *t, size_t n)
{
    size_t cap = 1 << 16, len = 0;
    char *src = malloc(cap);
    assert_non_null(src);
    src[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int k = snprintf(src + len, cap - len, "%s\nsd a0, 0(s11)\naddi s11, s11, 8\n", t[i].code);
        assert_true(k > 0 && (size_t)k < cap - len);
        len += (size_t)k;
    }
    snprintf(src + len, cap - len, "wfi\n");
    rig *r = rig_new(src);
    free(src);
    run_hart(&r->h);
    if (r->h.trapped)
        print_message("trapped: mcause %llu mepc 0x%llx mtval 0x%llx\n",
                      (unsigned long long)r->h.mcause, (unsigned long long)r->h.mepc,
                      (unsigned long long)r->h.mtval);
    assert_false(r->h.trapped);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t got = data64(r, RIG_DATA_BASE + 8 * i);
        if (got != t[i].want) {
            print_message("snippet %zu `%s`: got 0x%llx, want 0x%llx\n", i, t[i].code,
                          (unsigned long long)got, (unsigned long long)t[i].want);
            bad++;
        }
    }
    rig_free(r);
    assert_int_equal(bad, 0);
}

#define RUN_TABLE(t) run_table(t, sizeof(t) / sizeof *(t))


/* A program that loads, stores, multiplies, divides, reads the device,
 * takes an ecall every eighth turn and ends in wfi: what the tests of
 * stops and quanta run. */
static const char exact_program[] =
    "la t0, 3f; csrw mtvec, t0\n"
    "li s0, 0; li s1, 40; li s2, 0x10000000; li t2, 0\n"
    "1: ld a0, 0(s10); addi a0, a0, 3; sd a0, 0(s10); mul a1, a0, s1\n"
    "lw a2, 0(s2); div a3, a1, s1; addi s0, s0, 1; andi t1, s0, 7\n"
    "bnez t1, 2f; ecall\n"
    "2: addi t2, t2, 1; c.addi t2, 1; j 5f; addi t2, t2, 100\n"
    "5: blt s0, s1, 1b; j 6f; 7: wfi; 6: addi t2, t2, 3; j 7b\n"
    ".balign 4; 3: csrr t0, mepc; addi t0, t0, 4; csrw mepc, t0; mret";

#endif
