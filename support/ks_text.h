/* ks_text: building messages — a bounded text appended to piece by piece
 * (a too-long message ends in "..."), numbers with thousands separators
 * ("126,976"), as every size kmrun reports is written, and names and
 * messages shown so that nothing a user, a manifest or a run folder put in
 * them reaches a terminal raw (ks_show_next, ks_escape, ks_quote); and a
 * new string formatted as printf would, or NULL (ks_strf, ks_vstrf). */
#ifndef KS_TEXT_H
#define KS_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ks_error.h"

typedef struct ks_text {
    char buf[sizeof(((ks_error *)0)->message)];
    size_t len;
} ks_text;

void ks_text_add(ks_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A new string (malloc'd: the caller frees it) formatted as printf
 * would, or NULL when memory ran out, never an undefined pointer as
 * asprintf leaves.  ks_vstrf leaves ap as vasprintf does (indeterminate:
 * va_end it, va_copy before to use it again). */
char *ks_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *ks_vstrf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Writes v with thousands separators into buf; returns buf. */
char *ks_thousands(uint64_t v, char *buf, size_t n);

/* The length of the line break at s[0..n) (0: none), as YAML, and so
 * libyaml's positions, count them: CR LF as one, a lone CR, LF, and in
 * UTF-8 NEL (U+0085), LS (U+2028) and PS (U+2029).  What shows a
 * manifest's line must split lines by the same rule as its positions. */
size_t ks_line_break(const char *s, size_t n);

/* True for a byte that starts a character (not a UTF-8 continuation):
 * libyaml's columns count characters. */
static inline int ks_char_start(char c)
{
    return ((unsigned char)c & 0xc0) != 0x80;
}

/* The 1-based line and column (in characters) of byte `offset` of a
 * text, by ks_line_break's rule. */
void ks_text_position(const char *text, size_t len, size_t offset, int *line,
                      int *col);

/* ---- showing names and messages ----------------------------------------
 *
 * What kmrun shows is printable.  A byte that is not — a control byte
 * (below 0x20), DEL (0x7f), either byte of a C1 control (U+0080..U+009F,
 * which a terminal may obey as ESC [ and the like), or a byte that is not
 * part of well-formed UTF-8 — is written as a backslash and three octal
 * digits, as C and bash's $'...' read them: "\001", "\033", "\177",
 * "\302\233", "\377".  Printable ASCII and well-formed UTF-8 are kept. */

/* Keep '\n' and '\t' (the lines of a message, a source line's tabs). */
#define KS_SHOW_LINES 1u
/* Escape the backslash and the single quote too ("\\", "\'"): inside
 * ks_quote's quotes, so that what is shown reads back as the name. */
#define KS_SHOW_QUOTED 2u

/* The most a character is shown as (two escaped bytes), with its NUL. */
#define KS_SHOWN_MAX 12

/* The next character of s[0..len) as it is shown: writes its shown form
 * into out (NUL-terminated), its length in *outlen, and returns the bytes
 * of s it covers (1 to 4; 0 only when len is 0). */
size_t ks_show_next(const char *s, size_t len, unsigned how, char out[KS_SHOWN_MAX],
                    size_t *outlen);

/* Whether s[0..len) is shown as it is (nothing to escape). */
bool ks_shows_as_is(const char *s, size_t len, unsigned how);

/* s[0..len) as it is shown, into buf (n bytes, NUL-terminated; a text too
 * long ends in "..." and never in part of an escape); returns buf. */
char *ks_escape(char *buf, size_t n, const char *s, size_t len, unsigned how);

/* `name` as every message shows a name or a path: between single quotes,
 * escaped with KS_SHOW_QUOTED ('o\001ut', 'it\'s'); with a $ before it,
 * bash reads it back as the name ($'o\001ut').  A NULL name is "(none)".
 * Into buf (n bytes; a name too long ends in "...'"); returns buf. */
char *ks_quote(char *buf, size_t n, const char *name);

/* A buffer that lives to the end of the enclosing block, for a name in a
 * message: km_fail(err, st, "no region %s", KS_QUOTED(name)). */
#define KS_QUOTE_BYTES 1024
#define KS_QUOTED(name) ks_quote((char[KS_QUOTE_BYTES]){0}, KS_QUOTE_BYTES, (name))

#endif
