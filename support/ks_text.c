/* ks_text: bounded messages, formatted strings, grouped numbers, shown
 * names (ks_text.h). */
#include "ks_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

char *ks_vstrf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        return NULL; /* s is undefined then */
    return s;
}

char *ks_strf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = ks_vstrf(fmt, ap);
    va_end(ap);
    return s;
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

/* The length of the well-formed UTF-8 character at u[0..len) of two or
 * more bytes (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF); 0 when u[0] does not start one. */
static size_t utf8_length(const unsigned char *u, size_t len)
{
    unsigned char c = u[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : 0x80;
        hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : 0x80;
        hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (len < n || u[1] < lo || u[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((u[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

static size_t octal(unsigned char c, char *out)
{
    out[0] = '\\';
    out[1] = (char)('0' + (c >> 6));
    out[2] = (char)('0' + ((c >> 3) & 7));
    out[3] = (char)('0' + (c & 7));
    return 4;
}

size_t ks_show_next(const char *s, size_t len, unsigned how, char out[KS_SHOWN_MAX],
                    size_t *outlen)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t o = 0, used = 1;
    if (len == 0) {
        used = 0;
    } else if (u[0] >= 0x80) {
        size_t n = utf8_length(u, len);
        if (n == 2 && u[0] == 0xc2 && u[1] < 0xa0) { /* a C1 control */
            o += octal(u[0], out + o);
            o += octal(u[1], out + o);
            used = 2;
        } else if (n) {
            memcpy(out, s, n);
            o = used = n;
        } else {
            o = octal(u[0], out);
        }
    } else if (u[0] < 0x20 || u[0] == 0x7f) {
        if ((how & KS_SHOW_LINES) && (u[0] == '\n' || u[0] == '\t'))
            out[o++] = s[0];
        else
            o = octal(u[0], out);
    } else if ((how & KS_SHOW_QUOTED) && (u[0] == '\\' || u[0] == '\'')) {
        out[o++] = '\\';
        out[o++] = s[0];
    } else {
        out[o++] = s[0];
    }
    out[o] = 0;
    *outlen = o;
    return used;
}

bool ks_shows_as_is(const char *s, size_t len, unsigned how)
{
    char shown[KS_SHOWN_MAX];
    for (size_t i = 0, o; i < len;) {
        size_t n = ks_show_next(s + i, len - i, how, shown, &o);
        if (o != n || memcmp(shown, s + i, n) != 0)
            return false;
        i += n;
    }
    return true;
}

char *ks_escape(char *buf, size_t n, const char *s, size_t len, unsigned how)
{
    if (n == 0)
        return buf;
    char shown[KS_SHOWN_MAX];
    size_t o = 0, i = 0, k;
    /* Everything fits: the common case. */
    while (i < len) {
        size_t used = ks_show_next(s + i, len - i, how, shown, &k);
        if (o + k > n - 1)
            break;
        memcpy(buf + o, shown, k);
        o += k;
        i += used;
    }
    if (i < len) {
        /* Too long: whole characters up to room for "...". */
        size_t room = n - 1 >= 3 ? n - 1 - 3 : 0;
        o = 0;
        for (i = 0; i < len;) {
            size_t used = ks_show_next(s + i, len - i, how, shown, &k);
            if (o + k > room)
                break;
            memcpy(buf + o, shown, k);
            o += k;
            i += used;
        }
        size_t dots = n - 1 - o < 3 ? n - 1 - o : 3;
        memcpy(buf + o, "...", dots);
        o += dots;
    }
    buf[o] = 0;
    return buf;
}

char *ks_quote(char *buf, size_t n, const char *name)
{
    if (!name) {
        snprintf(buf, n, "(none)");
        return buf;
    }
    if (n < 3) {
        if (n)
            buf[0] = 0;
        return buf;
    }
    buf[0] = '\'';
    ks_escape(buf + 1, n - 2, name, strlen(name), KS_SHOW_QUOTED);
    size_t o = 1 + strlen(buf + 1);
    buf[o++] = '\'';
    buf[o] = 0;
    return buf;
}
