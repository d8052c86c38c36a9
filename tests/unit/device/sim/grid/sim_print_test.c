/* Tests for device/sim/grid/sim_print.c and kmx/include/kmx_print_format.h:
 * a print's record as every writer encodes it and its text as the drain
 * formats it — each conversion, flag, width and length of the format set,
 * what is not a conversion, cut strings and records, a full buffer that
 * drops and counts, a ring that wraps, and the drain's time order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmx_print_format.h"
#include "sim_card.h"
#include "sim_print.h"

/* Encodes a print as kmx_print does, then formats it as the drain does. */
static unsigned encode(uint64_t *rec, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    unsigned n = kmx_print_encode(rec, format, ap, 77);
    va_end(ap);
    return n;
}

static const char *text_of(const uint64_t *rec, unsigned n)
{
    static char out[1200];
    const char *format = (const char *)(uintptr_t)rec[1];
    sim_print_format(format, rec + KMX_PRINT_HEAD_SLOTS, n - KMX_PRINT_HEAD_SLOTS,
                     (rec[0] >> 32) & KMX_PRINT_CUT, out, sizeof out);
    return out;
}

#define SAYS(expected, ...)                                                   \
    do {                                                                      \
        uint64_t rec_[KMX_PRINT_RECORD_MAX_SLOTS];                            \
        unsigned n_ = encode(rec_, __VA_ARGS__);                              \
        assert_string_equal(text_of(rec_, n_), expected);                     \
    } while (0)

static void test_conversions(void **state)
{
    (void)state;
    SAYS("-5 7 beef z hi %", "%d %u %x %c %s %%", -5, 7u, 0xbeefu, 'z', "hi");
    SAYS("4294967295 ffffffff -2147483648", "%u %x %d", 4294967295u, 0xffffffffu,
         (int)-2147483648ll);
    SAYS("-9223372036854775808 18446744073709551615 123456789abc", "%lld %llu %lx",
         (long long)INT64_MIN, (unsigned long long)UINT64_MAX, 0x123456789abcul);
    SAYS("no arguments at all", "no arguments at all");
    SAYS("", "");
}

static void test_flags_and_widths(void **state)
{
    (void)state;
    SAYS("[   42][42   ][00042][-0042][  -42]", "[%5d][%-5d][%05d][%05d][%5d]", 42, 42, 42, -42,
         -42);
    SAYS("[0000beef][beef    ][   hi][hi   ][  x][x  ]", "[%08x][%-8x][%5s][%-5s][%3c][%-3c]",
         0xbeefu, 0xbeefu, "hi", "hi", 'x', 'x');
    SAYS("[   hi]", "[%05s]", "hi"); /* '0' pads numbers only */
    SAYS("[toolong]", "[%3s]", "toolong");
    SAYS("[0000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "00000000000001]",
         "[%099d]", 1);
}

static void test_not_conversions(void **state)
{
    (void)state;
    /* Printed as written and take no argument: the next conversion gets it. */
    SAYS("%.3d 5", "%.3d %d", 5);
    SAYS("%p %f %hd 9", "%p %f %hd %d", 9);
    SAYS("100%", "100%");
    SAYS("%%5 %", "%%%%%d %%", 5);
}

static void test_strings(void **state)
{
    (void)state;
    SAYS("(null)|", "%s|", (const char *)NULL);
    char long_text[400];
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = 0;
    uint64_t rec[KMX_PRINT_RECORD_MAX_SLOTS];
    unsigned n = encode(rec, "%s", long_text);
    /* Cut at KMX_PRINT_STRING_MAX bytes: 3 + 1 + 32 slots. */
    assert_int_equal(n, 3 + 1 + KMX_PRINT_STRING_MAX / 8);
    assert_int_equal(strlen(text_of(rec, n)), KMX_PRINT_STRING_MAX);
    /* Two long strings: the second is cut to the room left, then the record
     * is full: the rest is left out and the text ends in "...". */
    n = encode(rec, "%s|%s|%d", long_text, long_text, 5);
    assert_int_equal(n, KMX_PRINT_RECORD_MAX_SLOTS);
    const char *t = text_of(rec, n);
    assert_int_equal(strlen(t), KMX_PRINT_STRING_MAX + 1 + (KMX_PRINT_RECORD_MAX_SLOTS - 3 - 1 -
                                                            KMX_PRINT_STRING_MAX / 8 - 1) * 8 +
                                    1 + 3);
    assert_string_equal(t + strlen(t) - 4, "|...");
}

static void test_one_line(void **state)
{
    (void)state;
    SAYS("done", "done\n");
    SAYS("two lines\tand a tab", "two\nlines\tand a tab");
}

static void test_record_head(void **state)
{
    (void)state;
    uint64_t rec[KMX_PRINT_RECORD_MAX_SLOTS];
    const char *format = "%d and %s";
    unsigned n = encode(rec, format, 3, "0123456789");
    assert_int_equal(n, 3 + 1 + 1 + 2);
    assert_int_equal(rec[0] & 0xFFFF, n);
    assert_int_equal(rec[0] >> 16 & 0xFFFF, KMX_PRINT_MAGIC);
    assert_int_equal(rec[0] >> 32, 0);
    assert_true(rec[1] == (uint64_t)(uintptr_t)format);
    assert_int_equal(rec[2], 77);
    assert_int_equal(rec[3], 3);
    assert_int_equal(rec[4], 10);
    assert_memory_equal(&rec[5], "0123456789", 10);
}

static void test_missing_slots(void **state)
{
    (void)state;
    uint64_t slots[1] = {5};
    char out[64];
    sim_print_format("%d and %d", slots, 1, false, out, sizeof out);
    assert_string_equal(out, "5 and ...");
    uint64_t str[2] = {100, 0}; /* a string longer than the slots that follow */
    sim_print_format("<%s>", str, 2, false, out, sizeof out);
    assert_string_equal(out, "<...");
    sim_print_format("%d", slots, 1, true, out, sizeof out);
    assert_string_equal(out, "5...");
    sim_print_format("0123456789", NULL, 0, false, out, 5);
    assert_string_equal(out, "0123");
}

static int count;
static char seen[8][64];
static void collect(const sim_print_item *item, void *ctx)
{
    (void)ctx;
    snprintf(seen[count++ % 8], sizeof seen[0], "%u.%u@%llu %s", item->cluster, item->core,
             (unsigned long long)item->ps, item->text);
}

static bool read_host(void *ctx, uint64_t address, char *out, size_t cap)
{
    (void)ctx;
    snprintf(out, cap, "%s", (const char *)(uintptr_t)address);
    return true;
}

static void test_full_buffer_drops(void **state)
{
    (void)state;
    kmx_print_buffer *b = calloc(1, sizeof *b);
    uint64_t rec[KMX_PRINT_RECORD_MAX_SLOTS];
    unsigned n = encode(rec, "%d", 1); /* 4 slots: 126 fit in 504 */
    unsigned kept = 0;
    for (int i = 0; i < 200; i++)
        kept += sim_print_put(b, rec, n);
    assert_int_equal(kept, KMX_PRINT_SLOTS / 4);
    assert_int_equal(b->line.dropped, 200 - KMX_PRINT_SLOTS / 4);
    assert_int_equal(b->line.head, KMX_PRINT_SLOTS / 4 * 4);
    sim_print_queue q = {0};
    sim_print_drain_buffer(&q, b, SIM_PRINT_X280, 1, 2, 1000, read_host, NULL);
    assert_int_equal(q.n, KMX_PRINT_SLOTS / 4);
    assert_int_equal(b->line.tail, b->line.head);
    count = 0;
    sim_print_flush(&q, collect, NULL);
    assert_int_equal(count, KMX_PRINT_SLOTS / 4);
    assert_string_equal(seen[0], "1.2@77000 1");
    /* Room again: the ring wraps (504 is not a multiple of 29). */
    for (int round = 0; round < 5; round++) {
        char text[201];
        memset(text, 'a' + round, 200);
        text[200] = 0;
        n = encode(rec, "%s", text);
        assert_int_equal(n, 29);
        for (int i = 0; i < 17; i++)
            assert_true(sim_print_put(b, rec, n));
        assert_false(sim_print_put(b, rec, n));
        sim_print_drain_buffer(&q, b, SIM_PRINT_X280, 1, 2, 1, read_host, NULL);
        assert_int_equal(q.n, 17);
        for (size_t i = 0; i < q.n; i++)
            assert_string_equal(q.items[i].text, text);
        sim_print_flush(&q, NULL, NULL);
    }
    assert_int_equal(b->line.dropped, 200 - KMX_PRINT_SLOTS / 4 + 5);
    sim_print_queue_free(&q);
    free(b);
}

static void test_drain_in_time_order(void **state)
{
    (void)state;
    kmx_print_buffer *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    uint64_t rec[KMX_PRINT_RECORD_MAX_SLOTS];
    unsigned n;
    n = encode(rec, "a%d", 1);
    rec[2] = 30;
    sim_print_put(a, rec, n);
    n = encode(rec, "a%d", 2);
    rec[2] = 10;
    sim_print_put(a, rec, n);
    n = encode(rec, "b%d", 1);
    rec[2] = 10;
    sim_print_put(b, rec, n);
    /* A record that is not one: the rest of the buffer is skipped. */
    uint64_t junk[3] = {3, 0, 0};
    sim_print_put(b, junk, 3);
    n = encode(rec, "b%d", 2);
    sim_print_put(b, rec, n);
    sim_print_queue q = {0};
    sim_print_drain_buffer(&q, b, SIM_PRINT_TENSIX, 0, 5, 1, read_host, NULL);
    sim_print_drain_buffer(&q, a, SIM_PRINT_X280, 3, 0, 1, read_host, NULL);
    count = 0;
    sim_print_flush(&q, collect, NULL);
    assert_int_equal(count, 3);
    assert_string_equal(seen[0], "3.0@10 a2");
    assert_string_equal(seen[1], "0.5@10 b1");
    assert_string_equal(seen[2], "3.0@30 a1");
    assert_int_equal(b->line.tail, b->line.head);
    sim_print_queue_free(&q);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_flags_and_widths),
        cmocka_unit_test(test_not_conversions),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_one_line),
        cmocka_unit_test(test_record_head),
        cmocka_unit_test(test_missing_slots),
        cmocka_unit_test(test_full_buffer_drops),
        cmocka_unit_test(test_drain_in_time_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
