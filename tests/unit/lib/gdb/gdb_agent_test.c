/* Tests for lib/gdb/gdb_agent.c (GDB's agent expressions, as conditional
 * breakpoints send them) and the points' conditions of gdb_sim.c, against
 * the fake target of gdb_fake.h: every bytecode a condition uses, GDB's
 * own encoding of `x == 3`, and each way an expression fails (an unknown
 * opcode, memory not there, division by zero, a stack too short, a jump
 * out, a loop), which stops the thread rather than passing it over. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_fake.h"
#include "gdb_sim.h"
#include "km_gdb.h"

static fake_target *target(void)
{
    static fake_target t;
    fake_init(&t);
    return &t;
}

/* The value of the bytecode on thread 0; -1 when it fails. */
static int eval(fake_target *t, const uint8_t *code, size_t n, uint64_t *v)
{
    return km_gdb_agent_eval(code, n, &fake_ops, t, 0, v);
}

#define EVAL(t, v, ...)                                                                      \
    ({                                                                                       \
        const uint8_t code_[] = {__VA_ARGS__};                                               \
        eval((t), code_, sizeof code_, (v));                                                 \
    })

static void arithmetic(void **state)
{
    (void)state;
    fake_target *t = target();
    uint64_t v;
    /* const8 7, const16 0x0102, add, end */
    assert_int_equal(EVAL(t, &v, 0x22, 7, 0x23, 1, 2, 0x02, 0x27), 0);
    assert_int_equal(v, 0x109);
    /* const32, const64 (most significant byte first), sub */
    assert_int_equal(EVAL(t, &v, 0x25, 0, 0, 0, 1, 0, 0, 0, 0, 0x24, 0, 0, 0, 1, 0x03, 0x27), 0);
    assert_int_equal(v, 0xffffffffull);
    /* mul, div_signed (-7 / 2 = -3), rem_signed (-7 % 2 = -1): -7 as ext 8 of 0xf9 */
    assert_int_equal(EVAL(t, &v, 0x22, 6, 0x22, 7, 0x04, 0x27), 0);
    assert_int_equal(v, 42);
    assert_int_equal(EVAL(t, &v, 0x22, 0xf9, 0x16, 8, 0x22, 2, 0x05, 0x27), 0);
    assert_int_equal((int64_t)v, -3);
    assert_int_equal(EVAL(t, &v, 0x22, 0xf9, 0x16, 8, 0x22, 2, 0x07, 0x27), 0);
    assert_int_equal((int64_t)v, -1);
    /* div_unsigned, rem_unsigned */
    assert_int_equal(EVAL(t, &v, 0x22, 100, 0x22, 7, 0x06, 0x27), 0);
    assert_int_equal(v, 14);
    assert_int_equal(EVAL(t, &v, 0x22, 100, 0x22, 7, 0x08, 0x27), 0);
    assert_int_equal(v, 2);
    /* lsh, rsh_signed of -16, rsh_unsigned */
    assert_int_equal(EVAL(t, &v, 0x22, 3, 0x22, 4, 0x09, 0x27), 0);
    assert_int_equal(v, 48);
    assert_int_equal(EVAL(t, &v, 0x22, 0xf0, 0x16, 8, 0x22, 2, 0x0a, 0x27), 0);
    assert_int_equal((int64_t)v, -4);
    assert_int_equal(EVAL(t, &v, 0x22, 0xf0, 0x22, 2, 0x0b, 0x27), 0);
    assert_int_equal(v, 0x3c);
    /* bit_and, bit_or, bit_xor, bit_not, zero_ext */
    assert_int_equal(EVAL(t, &v, 0x22, 0x0c, 0x22, 0x0a, 0x0f, 0x27), 0);
    assert_int_equal(v, 8);
    assert_int_equal(EVAL(t, &v, 0x22, 0x0c, 0x22, 0x0a, 0x10, 0x27), 0);
    assert_int_equal(v, 14);
    assert_int_equal(EVAL(t, &v, 0x22, 0x0c, 0x22, 0x0a, 0x11, 0x27), 0);
    assert_int_equal(v, 6);
    assert_int_equal(EVAL(t, &v, 0x22, 0, 0x12, 0x2a, 12, 0x27), 0);
    assert_int_equal(v, 0xfff);
}

static void compares_and_stack(void **state)
{
    (void)state;
    fake_target *t = target();
    uint64_t v;
    /* equal, less_signed (-1 < 1), less_unsigned (0xff.. < 1 is false), log_not */
    assert_int_equal(EVAL(t, &v, 0x22, 5, 0x22, 5, 0x13, 0x27), 0);
    assert_int_equal(v, 1);
    assert_int_equal(EVAL(t, &v, 0x22, 0xff, 0x16, 8, 0x22, 1, 0x14, 0x27), 0);
    assert_int_equal(v, 1);
    assert_int_equal(EVAL(t, &v, 0x22, 0xff, 0x16, 8, 0x22, 1, 0x15, 0x27), 0);
    assert_int_equal(v, 0);
    assert_int_equal(EVAL(t, &v, 0x22, 9, 0x0e, 0x27), 0);
    assert_int_equal(v, 0);
    /* dup, pop, swap (2 - 5 after the swap is 3), pick 1, rot */
    assert_int_equal(EVAL(t, &v, 0x22, 4, 0x28, 0x02, 0x27), 0);
    assert_int_equal(v, 8);
    assert_int_equal(EVAL(t, &v, 0x22, 4, 0x22, 9, 0x29, 0x27), 0);
    assert_int_equal(v, 4);
    assert_int_equal(EVAL(t, &v, 0x22, 2, 0x22, 5, 0x2b, 0x03, 0x27), 0);
    assert_int_equal(v, 3);
    assert_int_equal(EVAL(t, &v, 0x22, 7, 0x22, 1, 0x32, 1, 0x27), 0);
    assert_int_equal(v, 7);
    /* a b c -> c a b: then the top is b */
    assert_int_equal(EVAL(t, &v, 0x22, 1, 0x22, 2, 0x22, 3, 0x33, 0x27), 0);
    assert_int_equal(v, 2);
    /* if_goto over a const (taken), goto */
    assert_int_equal(EVAL(t, &v, 0x22, 1, 0x20, 0, 8, 0x22, 5, 0x27, 0x22, 6, 0x27), 0);
    assert_int_equal(v, 6);
    assert_int_equal(EVAL(t, &v, 0x22, 0, 0x20, 0, 8, 0x22, 5, 0x27, 0x22, 6, 0x27), 0);
    assert_int_equal(v, 5);
    assert_int_equal(EVAL(t, &v, 0x21, 0, 5, 0x22, 1, 0x22, 2, 0x27), 0);
    assert_int_equal(v, 2);
}

static void registers_and_memory(void **state)
{
    (void)state;
    fake_target *t = target();
    uint64_t v;
    /* GDB's `x == 3` for x in a0: reg 10, zero_ext 32, const8 3, zero_ext 32, equal, end */
    t->hart[0].x[10] = 3;
    assert_int_equal(EVAL(t, &v, 0x26, 0, 10, 0x2a, 32, 0x22, 3, 0x2a, 32, 0x13, 0x27), 0);
    assert_int_equal(v, 1);
    t->hart[0].x[10] = 0x100000003ull; /* the high half is not x's */
    assert_int_equal(EVAL(t, &v, 0x26, 0, 10, 0x2a, 32, 0x22, 3, 0x2a, 32, 0x13, 0x27), 0);
    assert_int_equal(v, 1);
    t->hart[0].x[10] = 4;
    assert_int_equal(EVAL(t, &v, 0x26, 0, 10, 0x2a, 32, 0x22, 3, 0x2a, 32, 0x13, 0x27), 0);
    assert_int_equal(v, 0);
    /* ref8..ref64 at gp (FAKE_DATA), little-endian */
    const uint8_t word[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    memcpy(t->mem[0] + (FAKE_DATA - FAKE_BASE), word, 8);
    for (uint8_t op = 0x17; op <= 0x1a; op++) {
        assert_int_equal(EVAL(t, &v, 0x26, 0, 3, op, 0x27), 0);
        unsigned bytes = 1u << (op - 0x17);
        uint64_t want = 0;
        memcpy(&want, word, bytes);
        assert_int_equal(v, want);
    }
    /* ref16 then ext 16: sign-extended */
    assert_int_equal(EVAL(t, &v, 0x26, 0, 3, 0x22, 6, 0x02, 0x18, 0x16, 16, 0x27), 0);
    assert_int_equal(v, 0xffffffffffff8877ull);
}

static void failures(void **state)
{
    (void)state;
    fake_target *t = target();
    uint64_t v;
    assert_int_equal(EVAL(t, &v, 0x22, 1, 0x0c, 0x27), -1);             /* trace: not ours */
    assert_int_equal(EVAL(t, &v, 0x22, 1, 0xee, 0x27), -1);             /* unknown */
    assert_int_equal(EVAL(t, &v, 0x22, 1, 0x22, 0, 0x05, 0x27), -1);    /* division by zero */
    assert_int_equal(EVAL(t, &v, 0x22, 1, 0x22, 0, 0x08, 0x27), -1);    /* remainder by zero */
    assert_int_equal(EVAL(t, &v, 0x22, 8, 0x19, 0x27), -1);             /* memory not there */
    assert_int_equal(EVAL(t, &v, 0x26, 0x7f, 0xff, 0x27), -1);          /* no such register */
    assert_int_equal(EVAL(t, &v, 0x02, 0x27), -1);                      /* stack too short */
    assert_int_equal(EVAL(t, &v, 0x27), -1);                            /* end of nothing */
    assert_int_equal(EVAL(t, &v, 0x22, 1), -1);                         /* no end */
    assert_int_equal(EVAL(t, &v, 0x22), -1);                            /* a cut operand */
    assert_int_equal(EVAL(t, &v, 0x21, 0x10, 0, 0x27), -1);             /* a jump out */
    assert_int_equal(EVAL(t, &v, 0x21, 0, 0), -1);                      /* a loop */
    assert_int_equal(EVAL(t, &v, 0x22, 1, 0x32, 1, 0x27), -1);          /* pick too deep */
    uint8_t deep[2 * 70 + 1];
    for (unsigned i = 0; i < 70; i++)
        deep[2 * i] = 0x22, deep[2 * i + 1] = 1;
    deep[140] = 0x27;
    assert_int_equal(eval(t, deep, sizeof deep, &v), -1); /* the stack overflows */
    assert_int_equal(eval(t, deep + 2 * 7, sizeof deep - 2 * 7, &v), 0); /* 63 fit */
}

/* A condition's bytes, for a point. */
static void set_cond(km_gdb_conds *c, const uint8_t *code, uint16_t n)
{
    memset(c, 0, sizeof *c);
    c->count = 1;
    c->n[0] = n;
    memcpy(c->code, code, n);
}

static void points_stop_only_when_a_condition_holds(void **state)
{
    (void)state;
    fake_target *t = target();
    static km_gdb_points s;
    memset(&s, 0, sizeof s);
    const uint8_t a0_is_3[] = {0x26, 0, 10, 0x22, 3, 0x13, 0x27};
    const uint8_t broken[] = {0x22, 1, 0xee, 0x27};
    km_gdb_conds c;
    assert_int_equal(km_gdb_points_insert(&s, KM_GDB_SW_BREAK, 0x100, 4), 0);
    /* unconditional: always */
    assert_true(km_gdb_points_break_stops(&s, 0x100, &fake_ops, t, 0));
    set_cond(&c, a0_is_3, sizeof a0_is_3);
    assert_int_equal(km_gdb_points_condition(&s, KM_GDB_SW_BREAK, 0x100, &c), 0);
    t->hart[0].x[10] = 2;
    assert_false(km_gdb_points_break_stops(&s, 0x100, &fake_ops, t, 0));
    t->hart[0].x[10] = 3;
    assert_true(km_gdb_points_break_stops(&s, 0x100, &fake_ops, t, 0));
    /* thread 1's a0 is its own */
    assert_false(km_gdb_points_break_stops(&s, 0x100, &fake_ops, t, 1));
    /* two conditions: either */
    c.count = 2;
    c.n[1] = sizeof broken;
    memcpy(c.code + sizeof a0_is_3, broken, sizeof broken);
    assert_int_equal(km_gdb_points_condition(&s, KM_GDB_SW_BREAK, 0x100, &c), 0);
    t->hart[0].x[10] = 2;
    assert_true(km_gdb_points_break_stops(&s, 0x100, &fake_ops, t, 0)); /* the broken one stops */
    /* a hardware breakpoint without conditions at the same pc stops too */
    set_cond(&c, a0_is_3, sizeof a0_is_3);
    assert_int_equal(km_gdb_points_condition(&s, KM_GDB_SW_BREAK, 0x100, &c), 0);
    assert_false(km_gdb_points_break_stops(&s, 0x100, &fake_ops, t, 0));
    assert_int_equal(km_gdb_points_insert(&s, KM_GDB_HW_BREAK, 0x100, 4), 0);
    assert_true(km_gdb_points_break_stops(&s, 0x100, &fake_ops, t, 0));
    /* no such point to condition */
    assert_int_equal(km_gdb_points_condition(&s, KM_GDB_SW_BREAK, 0x104, &c), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arithmetic),
        cmocka_unit_test(compares_and_stack),
        cmocka_unit_test(registers_and_memory),
        cmocka_unit_test(failures),
        cmocka_unit_test(points_stop_only_when_a_condition_holds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
