/* Tests for support/ks_text.c's showing of names and messages (issue 26,
 * item 2): a control byte, DEL, a C1 control or a byte that is not
 * well-formed UTF-8 never comes out raw; printable text and UTF-8 do; a
 * quoted name reads back as the name in bash's $'...'.  And ks_strf /
 * ks_vstrf: a new, free()-able string formatted as printf would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ks_text.h"

static const char *quoted(const char *name)
{
    static char buf[KS_QUOTE_BYTES];
    return ks_quote(buf, sizeof buf, name);
}

static const char *escaped(const char *s, unsigned how)
{
    static char buf[256];
    return ks_escape(buf, sizeof buf, s, strlen(s), how);
}

/* Nothing below 0x20, no DEL, no byte 0x80-0x9f after 0xc2, no byte
 * that does not belong to well-formed UTF-8: checked byte by byte,
 * independently of ks_show_next. */
static void assert_terminal_safe(const char *s, int lines_kept)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; u[i]; i++) {
        if (lines_kept && (u[i] == '\n' || u[i] == '\t'))
            continue;
        if (u[i] < 0x20 || u[i] == 0x7f)
            fail_msg("raw byte 0x%02x at %zu of \"%s\"", u[i], i, s);
        if (u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] < 0xa0)
            fail_msg("raw C1 control at %zu of \"%s\"", i, s);
    }
}

static void test_a_control_byte_is_escaped_in_octal(void **state)
{
    (void)state;
    assert_string_equal(quoted("o\001ut"), "'o\\001ut'");
    assert_string_equal(quoted("\033[31mred"), "'\\033[31mred'");
    assert_string_equal(quoted("del\177"), "'del\\177'");
    assert_string_equal(quoted("a\nb\tc\rd"), "'a\\012b\\011c\\015d'");
}

static void test_printable_text_and_utf8_are_kept(void **state)
{
    (void)state;
    assert_string_equal(quoted("counts"), "'counts'");
    assert_string_equal(quoted("/tmp/runs/20261201T000000Z-abcdef"),
                        "'/tmp/runs/20261201T000000Z-abcdef'");
    assert_string_equal(quoted("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x99\x82"),
                        "'caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x99\x82'");
    assert_string_equal(quoted(""), "''");
    assert_string_equal(quoted(NULL), "(none)");
}

static void test_bytes_that_are_not_utf8_are_escaped(void **state)
{
    (void)state;
    assert_string_equal(quoted("\xff"), "'\\377'");
    assert_string_equal(quoted("a\x80z"), "'a\\200z'");          /* lone continuation */
    assert_string_equal(quoted("\xe2\x82z"), "'\\342\\202z'");   /* cut short */
    assert_string_equal(quoted("\xe2\x82"), "'\\342\\202'");     /* at the end */
    assert_string_equal(quoted("\xc0\xaf"), "'\\300\\257'");     /* overlong '/' */
    assert_string_equal(quoted("\xed\xa0\x80"), "'\\355\\240\\200'"); /* a surrogate */
    assert_string_equal(quoted("\xf4\x90\x80\x80"), "'\\364\\220\\200\\200'"); /* > U+10FFFF */
}

static void test_a_c1_control_is_escaped(void **state)
{
    (void)state;
    /* U+009B is CSI, which a terminal may obey as ESC [ */
    assert_string_equal(quoted("a\xc2\x9b" "31m"), "'a\\302\\23331m'");
    assert_string_equal(quoted("\xc2\x85"), "'\\302\\205'"); /* NEL */
    assert_string_equal(quoted("\xc2\xa0"), "'\xc2\xa0'");    /* NBSP: printable */
}

static void test_quote_and_backslash_are_escaped_inside_quotes_only(void **state)
{
    (void)state;
    assert_string_equal(quoted("it's a\\b"), "'it\\'s a\\\\b'");
    assert_string_equal(escaped("it's a\\b", 0), "it's a\\b");
}

static void test_a_message_keeps_its_lines_and_tabs(void **state)
{
    (void)state;
    assert_string_equal(escaped("line 1\n\tline 2\r\n\033[2J", KS_SHOW_LINES),
                        "line 1\n\tline 2\\015\n\\033[2J");
    assert_true(ks_shows_as_is("a\n\tb", 4, KS_SHOW_LINES));
    assert_false(ks_shows_as_is("a\n\tb", 4, 0));
    assert_false(ks_shows_as_is("\xff", 1, KS_SHOW_LINES));
    assert_true(ks_shows_as_is("caf\xc3\xa9", 5, 0));
}

/* Every byte value, alone and between letters: the result is safe. */
static void test_every_byte_comes_out_safe(void **state)
{
    (void)state;
    for (int c = 1; c < 256; c++) {
        char name[4] = {'a', (char)c, 'z', 0};
        assert_terminal_safe(quoted(name), 0);
        assert_terminal_safe(escaped(name, KS_SHOW_LINES), 1);
    }
}

/* Too long: cut between characters, never inside an escape or a UTF-8
 * sequence, ending in "..." (and the closing quote). */
static void test_a_long_name_is_cut_between_characters(void **state)
{
    (void)state;
    char buf[16];
    ks_escape(buf, sizeof buf, "\001\001\001\001", 4, 0);
    assert_string_equal(buf, "\\001\\001\\001..."); /* 15 bytes and NUL */
    ks_escape(buf, sizeof buf, "\001\001\001", 3, 0);
    assert_string_equal(buf, "\\001\\001\\001"); /* fits: no dots */
    ks_escape(buf, sizeof buf, "abcdefghij\xe6\x97\xa5\xe6\x97\xa5", 16, 0);
    assert_string_equal(buf, "abcdefghij..."); /* not a part of the first character */
    ks_escape(buf, sizeof buf, "abcdefgh\xe6\x97\xa5\xe6\x97\xa5z", 14, 0);
    assert_string_equal(buf, "abcdefgh\xe6\x97\xa5\xe6\x97\xa5"); /* fits */
    ks_quote(buf, sizeof buf, "abcdefghijklmnopqrstuvwxyz");
    assert_string_equal(buf, "'abcdefghij...'");
    assert_int_equal(strlen(buf), sizeof buf - 1);
    char tiny[3];
    ks_escape(tiny, sizeof tiny, "abc", 3, 0);
    assert_string_equal(tiny, "..");
}

/* The macro: a buffer per use, so that two names fit in one message. */
static void test_two_quoted_names_in_one_message(void **state)
{
    (void)state;
    char msg[128];
    snprintf(msg, sizeof msg, "no region %s in the run %s", KS_QUOTED("o\001ut"),
             KS_QUOTED("/r\033uns"));
    assert_string_equal(msg, "no region 'o\\001ut' in the run '/r\\033uns'");
}

/* What is shown reads back: bash's $'...' of a quoted name is the name,
 * byte for byte (the promise of ks_quote). */
static void test_a_quoted_name_reads_back_in_bash(void **state)
{
    (void)state;
    char name[300];
    size_t n = 0;
    for (int c = 1; c < 256; c++)
        name[n++] = (char)c;
    memcpy(name + n, "caf\xc3\xa9 it's", 10);
    n += 10;
    name[n] = 0;
    char shown[KS_QUOTE_BYTES * 2];
    ks_quote(shown, sizeof shown, name);
    char dir[] = "/tmp/ks-text-test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char script[160], out[160], cmd[400];
    snprintf(script, sizeof script, "%s/show.sh", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f, "printf '%%s' $%s >'%s'\n", shown, out);
    fclose(f);
    snprintf(cmd, sizeof cmd, "bash '%s'", script);
    assert_int_equal(system(cmd), 0);
    f = fopen(out, "rb");
    assert_non_null(f);
    char back[400];
    size_t got = fread(back, 1, sizeof back, f);
    fclose(f);
    remove(script);
    remove(out);
    rmdir(dir);
    assert_int_equal(got, n);
    assert_memory_equal(back, name, n);
}

/* ks_strf formats as printf would, into a new string that free() takes. */
static void test_strf_formats_a_new_string(void **state)
{
    (void)state;
    char *s = ks_strf("%s/%.2s/%d-%zu%%", "root", "abcdef", -7, (size_t)42);
    assert_non_null(s);
    assert_string_equal(s, "root/ab/-7-42%");
    free(s);

    char *empty = ks_strf("%s", "");
    assert_non_null(empty);
    assert_string_equal(empty, "");
    free(empty);
}

/* Far longer than ks_text's bounded buffer: nothing is cut. */
static void test_strf_is_not_bounded(void **state)
{
    (void)state;
    char big[10000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char *s = ks_strf("<%s>", big);
    assert_non_null(s);
    assert_int_equal(strlen(s), sizeof big + 1);
    assert_int_equal(s[0], '<');
    assert_int_equal(s[sizeof big], '>');
    free(s);
}

static char *vstrf_through(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *vstrf_through(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = ks_vstrf(fmt, ap);
    va_end(ap);
    return s;
}

/* ks_vstrf takes a va_list, for a function that formats its own
 * arguments. */
static void test_vstrf_formats_a_va_list(void **state)
{
    (void)state;
    char *s = vstrf_through("%s: expected %u, got %#x", "x5", 3u, 255u);
    assert_non_null(s);
    assert_string_equal(s, "x5: expected 3, got 0xff");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_control_byte_is_escaped_in_octal),
        cmocka_unit_test(test_printable_text_and_utf8_are_kept),
        cmocka_unit_test(test_bytes_that_are_not_utf8_are_escaped),
        cmocka_unit_test(test_a_c1_control_is_escaped),
        cmocka_unit_test(test_quote_and_backslash_are_escaped_inside_quotes_only),
        cmocka_unit_test(test_a_message_keeps_its_lines_and_tabs),
        cmocka_unit_test(test_every_byte_comes_out_safe),
        cmocka_unit_test(test_a_long_name_is_cut_between_characters),
        cmocka_unit_test(test_two_quoted_names_in_one_message),
        cmocka_unit_test(test_a_quoted_name_reads_back_in_bash),
        cmocka_unit_test(test_strf_formats_a_new_string),
        cmocka_unit_test(test_strf_is_not_bounded),
        cmocka_unit_test(test_vstrf_formats_a_va_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
