/* ks_text: building messages — a bounded text appended to piece by piece
 * (a too-long message ends in "..."), and numbers with thousands
 * separators ("126,976"), as every size kmrun reports is written. */
#ifndef KS_TEXT_H
#define KS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "ks_error.h"

typedef struct ks_text {
    char buf[sizeof(((ks_error *)0)->message)];
    size_t len;
} ks_text;

void ks_text_add(ks_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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

#endif
