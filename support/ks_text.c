/* ks_text: bounded messages and grouped numbers (ks_text.h). */
#include "ks_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ks_text_add(ks_text *t, const char *fmt, ...)
{
    if (t->len >= sizeof t->buf - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof t->buf - t->len) {
        t->len = sizeof t->buf - 1;
        memcpy(t->buf + t->len - 3, "...", 3);
    } else {
        t->len += (size_t)n;
    }
}

char *ks_thousands(uint64_t v, char *buf, size_t n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    char out[40];
    size_t o = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = 0;
    snprintf(buf, n, "%s", out);
    return buf;
}

size_t ks_line_break(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    if (u[0] == '\r')
        return n >= 2 && u[1] == '\n' ? 2 : 1;
    if (u[0] == '\n')
        return 1;
    if (n >= 2 && u[0] == 0xc2 && u[1] == 0x85)
        return 2;
    if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
        return 3;
    return 0;
}

void ks_text_position(const char *text, size_t len, size_t offset, int *line,
                      int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < offset && i < len;) {
        size_t b = ks_line_break(text + i, len - i);
        if (b) {
            ++*line;
            *col = 1;
            i += b;
            continue;
        }
        if (ks_char_start(text[i]))
            ++*col;
        i++;
    }
}
