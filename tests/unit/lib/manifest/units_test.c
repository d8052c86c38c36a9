/* Tests for lib/manifest/units.c: numbers, sizes and durations of the manifest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "units.h"

static void numbers(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t max;
        km_units_status status;
        uint64_t value;
    } cases[] = {
        {"0", UINT32_MAX, KM_UNITS_OK, 0},
        {"42", UINT32_MAX, KM_UNITS_OK, 42},
        {"0x1F", UINT32_MAX, KM_UNITS_OK, 31},
        {"0xdeadbeef", UINT32_MAX, KM_UNITS_OK, 0xdeadbeef},
        {"4294967295", UINT32_MAX, KM_UNITS_OK, UINT32_MAX},
        {"0xffffffff", UINT32_MAX, KM_UNITS_OK, UINT32_MAX},
        {"18446744073709551615", UINT64_MAX, KM_UNITS_OK, UINT64_MAX},
        {"4294967296", UINT32_MAX, KM_UNITS_RANGE, 0},
        {"0x100000000", UINT32_MAX, KM_UNITS_RANGE, 0},
        {"18446744073709551616", UINT64_MAX, KM_UNITS_RANGE, 0},
        {"4", 3, KM_UNITS_RANGE, 0},
        {"010", UINT32_MAX, KM_UNITS_SYNTAX, 0}, /* octal to YAML 1.1 */
        {"", UINT32_MAX, KM_UNITS_SYNTAX, 0},
        {"0x", UINT32_MAX, KM_UNITS_SYNTAX, 0},
        {"0X10", UINT32_MAX, KM_UNITS_SYNTAX, 0},
        {"-1", UINT32_MAX, KM_UNITS_SYNTAX, 0},
        {"+1", UINT32_MAX, KM_UNITS_SYNTAX, 0},
        {"1e3", UINT32_MAX, KM_UNITS_SYNTAX, 0},
        {"1_000", UINT32_MAX, KM_UNITS_SYNTAX, 0},
        {"12 ", UINT32_MAX, KM_UNITS_SYNTAX, 0},
        {"0xfg", UINT32_MAX, KM_UNITS_SYNTAX, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t v = 12345;
        km_units_status st = km_parse_uint(cases[i].text, cases[i].max, &v);
        if (st != cases[i].status)
            print_message("'%s': %d\n", cases[i].text, st);
        assert_int_equal(st, cases[i].status);
        if (st == KM_UNITS_OK)
            assert_int_equal(v, cases[i].value);
    }
}

static void sizes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        km_units_status status;
        uint64_t value;
        bool has_unit;
        const char *hint;
    } cases[] = {
        {"4096", KM_UNITS_OK, 4096, false, NULL},
        {"0x1000", KM_UNITS_OK, 4096, false, NULL},
        {"0", KM_UNITS_OK, 0, false, NULL}, /* the caller refuses it */
        {"12B", KM_UNITS_OK, 12, true, NULL},
        {"4KiB", KM_UNITS_OK, 4096, true, NULL},
        {"4 KiB", KM_UNITS_OK, 4096, true, NULL},
        {"1MiB", KM_UNITS_OK, 1 << 20, true, NULL},
        {"4GiB", KM_UNITS_OK, 4ull << 30, true, NULL},
        {"4294967297GiB", KM_UNITS_RANGE, 0, true, NULL},
        {"99999999999999999999", KM_UNITS_RANGE, 0, false, NULL},
        {"1.5MiB", KM_UNITS_SYNTAX, 0, false, NULL},
        {"1.5 MiB", KM_UNITS_SYNTAX, 0, false, NULL},
        {"4  KiB", KM_UNITS_SYNTAX, 0, false, NULL},
        {"KiB", KM_UNITS_SYNTAX, 0, false, NULL},
        {"010KiB", KM_UNITS_SYNTAX, 0, false, NULL},
        {"0x10KiB", KM_UNITS_SYNTAX, 0, false, NULL},
        {"-4KiB", KM_UNITS_SYNTAX, 0, false, NULL},
        {"4Ki B", KM_UNITS_SYNTAX, 0, false, NULL},
        {"4kB", KM_UNITS_UNIT, 0, false, "KiB"},
        {"4KB", KM_UNITS_UNIT, 0, false, "KiB"},
        {"4 k", KM_UNITS_UNIT, 0, false, "KiB"},
        {"4KIB", KM_UNITS_UNIT, 0, false, "KiB"},
        {"4MB", KM_UNITS_UNIT, 0, false, "MiB"},
        {"4 mb", KM_UNITS_UNIT, 0, false, "MiB"},
        {"4GB", KM_UNITS_UNIT, 0, false, "GiB"},
        {"4b", KM_UNITS_UNIT, 0, false, "B"},
        {"4 TiB", KM_UNITS_UNIT, 0, false, NULL},
        {"4 bytes", KM_UNITS_UNIT, 0, false, "B"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t v = 12345;
        bool has_unit = !cases[i].has_unit;
        const char *hint = "x";
        km_units_status st = km_parse_size(cases[i].text, &v, &has_unit, &hint);
        if (st != cases[i].status)
            print_message("'%s': %d\n", cases[i].text, st);
        assert_int_equal(st, cases[i].status);
        if (st == KM_UNITS_OK) {
            assert_int_equal(v, cases[i].value);
            assert_int_equal(has_unit, cases[i].has_unit);
        }
        if (st == KM_UNITS_UNIT) {
            if (cases[i].hint)
                assert_string_equal(hint, cases[i].hint);
            else
                assert_null(hint);
        }
    }
}

static void durations(void **state)
{
    (void)state;
    const uint64_t day = 86400ull * 1000000;
    static const struct {
        const char *text;
        km_units_status status;
        uint64_t us;
        bool has_unit;
    } cases[] = {
        {"5s", KM_UNITS_OK, 5000000, true},
        {"5 s", KM_UNITS_OK, 5000000, true},
        {"500ms", KM_UNITS_OK, 500000, true},
        {"250us", KM_UNITS_OK, 250, true},
        {"5", KM_UNITS_OK, 5000000, false},
        {"2.5", KM_UNITS_OK, 2500000, false},
        {".5", KM_UNITS_OK, 500000, false},
        {"5.", KM_UNITS_OK, 5000000, false},
        {"1.5s", KM_UNITS_OK, 1500000, true},
        {"0.25ms", KM_UNITS_OK, 250, true},
        {"0.000001", KM_UNITS_OK, 1, false},
        {"1.000us", KM_UNITS_OK, 1, true},
        {"0", KM_UNITS_OK, 0, false}, /* the caller refuses it */
        {"86400", KM_UNITS_OK, 86400ull * 1000000, false},
        {"86400.000001", KM_UNITS_RANGE, 0, false},
        {"86401s", KM_UNITS_RANGE, 0, true},
        {"99999999999999999999999s", KM_UNITS_RANGE, 0, true},
        {"0.0000015", KM_UNITS_FRACTION, 0, false},
        {"1.5us", KM_UNITS_FRACTION, 0, true},
        {"0.0001ms", KM_UNITS_FRACTION, 0, true},
        {"5m", KM_UNITS_SYNTAX, 0, false},
        {"5 min", KM_UNITS_SYNTAX, 0, false},
        {"5s ", KM_UNITS_SYNTAX, 0, false},
        {"5 ", KM_UNITS_SYNTAX, 0, false},
        {"", KM_UNITS_SYNTAX, 0, false},
        {".", KM_UNITS_SYNTAX, 0, false},
        {"s", KM_UNITS_SYNTAX, 0, false},
        {"1e3", KM_UNITS_SYNTAX, 0, false},
        {"-1", KM_UNITS_SYNTAX, 0, false},
        {"1..2", KM_UNITS_SYNTAX, 0, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t us = 12345;
        bool has_unit = !cases[i].has_unit;
        km_units_status st = km_parse_duration(cases[i].text, day, &us, &has_unit);
        if (st != cases[i].status)
            print_message("'%s': %d\n", cases[i].text, st);
        assert_int_equal(st, cases[i].status);
        if (st == KM_UNITS_OK) {
            assert_int_equal(us, cases[i].us);
            assert_int_equal(has_unit, cases[i].has_unit);
        }
    }
}

static void formatted_sizes(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(km_format_size(4ull << 30, buf, sizeof buf), "4 GiB");
    assert_string_equal(km_format_size(3 << 20, buf, sizeof buf), "3 MiB");
    assert_string_equal(km_format_size(64 << 10, buf, sizeof buf), "64 KiB");
    assert_string_equal(km_format_size(4100, buf, sizeof buf), "4100 bytes");
    assert_string_equal(km_format_size(0, buf, sizeof buf), "0 bytes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers),
        cmocka_unit_test(sizes),
        cmocka_unit_test(durations),
        cmocka_unit_test(formatted_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
