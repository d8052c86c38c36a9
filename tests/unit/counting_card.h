/* counting_card: a simulated card for the debugger's tests
 * (sim_card_debug_test.c, km_gdb_card_test.c) — one work cluster whose
 * cores run a tiny assembly program, started and ready to step.  cmocka
 * must be included first. */
#ifndef COUNTING_CARD_H
#define COUNTING_CARD_H

#include "rv_assemble.h"
#include "sim_card.h"

/* Each core counts to 1000 in a0, storing every count into its own word
 * of LIM at WORDS + 8 * core; then waits in wfi.  `loop` is at +0x40,
 * the store at +0x44; core 3 then executes a misaligned load (a trap). */
#define CODE KMX_LIM_IMAGE
#define LOOP (CODE + 0x40)
#define STORE (CODE + 0x44)
#define WORDS (BH_LIM_BASE + 0x100000u)
#define COUNT 1000u
static const char program[] = ".option norvc\n"
                              "csrr t0, mhartid\n"
                              "li t1, 0x08100000\n"
                              "slli t2, t0, 3\n"
                              "add t1, t1, t2\n"
                              "li a0, 0\n"
                              "li t3, 1000\n"
                              "j loop\n"
                              ".org 0x40\n"
                              "loop: addi a0, a0, 1\n"
                              "sd a0, 0(t1)\n"
                              "blt a0, t3, loop\n"
                              "li t4, 3\n"
                              "bne t0, t4, park\n"
                              "la t5, park\n"
                              "csrw mtvec, t5\n"
                              "ld t6, 1(t1)\n"
                              "park: wfi\n"
                              "j park\n";

static inline sim_card *card_new(void)
{
    static uint8_t code[4096];
    static size_t n;
    if (n == 0)
        n = rv_assemble("", program, CODE, code, sizeof code);
    sim_card_params params = {.mhz = SIM_MHZ_DEFAULT};
    sim_card *card = NULL;
    ks_error err = {0};
    assert_int_equal(sim_card_create(&card, &params, &err), KS_OK);
    assert_int_equal(sim_card_add_cluster(card, 1, &err), KS_OK);
    assert_int_equal(sim_card_write_lim(card, 1, CODE, code, n, &err), KS_OK);
    assert_int_equal(sim_card_start(card, &err), KS_OK);
    return card;
}

#endif
