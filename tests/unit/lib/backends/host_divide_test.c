/* Tests for host_divide.c: real x86 divisions that fault, completed by
 * host_divide_complete from a SIGFPE handler as kmrun's trap handler
 * does; each encoding the decoder knows (widths 8 to 64, div and idiv,
 * register, high-byte register, REX registers, memory through a base,
 * SIB, RIP-relative), C's own divisions, and the faults it must leave
 * alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "host_internal.h"

#if defined(__x86_64__)

/* C's divisions that x86 faults on, compiled as real divisions even in a
 * sanitizer build (UBSan would report them before the hardware faults). */
#if defined(__clang__)
#define REAL_DIVISIONS __attribute__((no_sanitize("integer-divide-by-zero", "signed-integer-overflow")))
#else
#define REAL_DIVISIONS __attribute__((no_sanitize_undefined))
#endif

static sigjmp_buf left;
static volatile int completed, refused;

static void on_fpe(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)info;
    if (host_divide_complete(uctx)) {
        completed++;
        return;
    }
    refused++;
    siglongjmp(left, 1);
}

/* In the test itself: cmocka installs its own SIGFPE handler around each
 * test and fixture. */
/* Valgrind delivers SIGFPE with a context it does not take back: a
 * handler that completes the division and returns resumes at a wild pc
 * there.  tests/run says when it runs a test under valgrind. */
static void skip_under_valgrind(void)
{
    if (getenv("KMRUN_UNDER_VALGRIND")) {
        print_message("skipped under valgrind: it cannot resume from a SIGFPE handler that "
                      "changed the registers (run without valgrind: make test)\n");
        skip();
    }
}

static void catch_fpe(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fpe;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGFPE, &sa, NULL);
    completed = refused = 0;
}

REAL_DIVISIONS static void c_division_by_zero(void **state)
{
    (void)state;
    skip_under_valgrind();
    catch_fpe();
    volatile int32_t zero = 0, seven = 7, minus7 = -7;
    volatile int64_t zero64 = 0, big = INT64_C(1) << 40;
    volatile uint32_t uzero = 0, useven = 7;
    volatile uint64_t uzero64 = 0, ubig = UINT64_C(1) << 63;
    assert_int_equal(seven / zero, -1);
    assert_int_equal(seven % zero, 7);
    assert_int_equal(minus7 / zero, -1);
    assert_int_equal(minus7 % zero, -7);
    assert_true(big / zero64 == -1);
    assert_true(big % zero64 == big);
    assert_true(useven / uzero == UINT32_MAX);
    assert_true(useven % uzero == 7u);
    assert_true(ubig / uzero64 == UINT64_MAX);
    assert_true(ubig % uzero64 == ubig);
    assert_int_equal(refused, 0);
    assert_true(completed >= 10);
}

REAL_DIVISIONS static void c_signed_overflow(void **state)
{
    (void)state;
    skip_under_valgrind();
    catch_fpe();
    volatile int32_t min = INT32_MIN, minus1 = -1;
    volatile int64_t min64 = INT64_MIN, minus1_64 = -1;
    assert_int_equal(min / minus1, INT32_MIN);
    assert_int_equal(min % minus1, 0);
    assert_true(min64 / minus1_64 == INT64_MIN);
    assert_true(min64 % minus1_64 == 0);
    assert_int_equal(refused, 0);
    assert_true(completed >= 4);
}

/* One division instruction by hand: rax, rdx in and out. */
#define DIVIDE(insn, ax, dx, ...) __asm__ volatile(insn : "+a"(ax), "+d"(dx) : __VA_ARGS__ : "cc", "memory")

static uint64_t zero_memory[2] = {0, 0};

static void encodings(void **state)
{
    (void)state;
    skip_under_valgrind();
    catch_fpe();
    uint64_t ax, dx;

    /* 8 bits: AX / r8 -> AL quotient, AH remainder; the rest kept */
    ax = 0xABCD00000000FFF5u; /* AL -11, AH its sign extension */
    dx = 0x1111;
    DIVIDE("idivb %b2", ax, dx, "c"(0));
    assert_true((ax & 0xFFFFu) == 0xF5FFu && ax >> 16 == 0xABCD00000000u && dx == 0x1111);
    /* AH as the divisor (no REX), unsigned */
    ax = 0x0009;
    DIVIDE("divb %%ah", ax, dx, "b"(0)); /* AH is 0: divides by zero */
    assert_true((ax & 0xFFFFu) == 0x09FFu);
    /* SIL (REX 0x40) */
    ax = 0x0009;
    DIVIDE("divb %%sil", ax, dx, "S"(0x100)); /* SIL 0 */
    assert_true((ax & 0xFFFFu) == 0x09FFu);

    /* 16 bits: DX:AX; the high bits of both kept */
    ax = 0x5555000000008000u; /* AX = -32768 */
    dx = 0x666600000000FFFFu;
    DIVIDE("idivw %w2", ax, dx, "c"(0xFFFF)); /* by -1 */
    assert_true(ax == 0x5555000000008000u && dx == 0x6666000000000000u);

    /* 32 bits: EAX, EDX zero-extended */
    ax = 0xFFFFFFFF00000007u;
    dx = 0xFFFFFFFF00000000u;
    DIVIDE("divl %2", ax, dx, "r"(0));
    assert_true(ax == 0xFFFFFFFFu && dx == 7u);
    /* r9d (REX.B), signed, negative dividend */
    ax = 0xFFFFFFF9u; /* -7 */
    dx = 0xFFFFFFFFu;
    register uint64_t r9 __asm__("r9") = 0;
    DIVIDE("idivl %%r9d", ax, dx, "r"(r9));
    assert_true(ax == 0xFFFFFFFFu && dx == 0xFFFFFFF9u);

    /* 64 bits: memory, RIP-relative */
    ax = 5;
    dx = 0;
    DIVIDE("divq zero_memory(%%rip)", ax, dx, "m"(zero_memory));
    assert_true(ax == UINT64_MAX && dx == 5);
    /* memory through a base and a displacement */
    ax = 6;
    dx = 0;
    DIVIDE("divq 8(%2)", ax, dx, "r"(zero_memory));
    assert_true(ax == UINT64_MAX && dx == 6);
    /* memory through SIB (base + index * 8), REX.X with r10 */
    ax = (uint64_t)INT64_MIN;
    dx = UINT64_MAX;
    register uint64_t r10 __asm__("r10") = 1;
    DIVIDE("idivq (%2,%%r10,8)", ax, dx, "r"(zero_memory), "r"(r10));
    assert_true(ax == UINT64_MAX && dx == (uint64_t)INT64_MIN);
    assert_int_equal(refused, 0);
    assert_int_equal(completed, 9);
}

/* A dividend wider than C's (EDX not the extension of EAX): x86's
 * quotient overflow, not a division RISC-V has; it stays a fault. */
static void wider_dividend_is_left_alone(void **state)
{
    (void)state;
    catch_fpe();
    volatile uint64_t ax = 0, dx = 1;
    if (sigsetjmp(left, 1) == 0) {
        uint64_t a = ax, d = dx;
        DIVIDE("divl %2", a, d, "r"(1));
        fail_msg("the division did not fault");
    }
    assert_int_equal(refused, 1);
    assert_int_equal(completed, 0);
    /* by zero too, the same */
    if (sigsetjmp(left, 1) == 0) {
        uint64_t a = ax, d = dx;
        DIVIDE("divl %2", a, d, "r"(0));
        fail_msg("the division did not fault");
    }
    assert_int_equal(refused, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(c_division_by_zero),
        cmocka_unit_test(c_signed_overflow),
        cmocka_unit_test(encodings),
        cmocka_unit_test(wider_dividend_is_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    return 0; /* only x86-64 completes divisions */
}

#endif
