/* kmx_print_format.h: the one reading of a print's format string, and the
 * one writer of a print record (kmx_layout.h section 8), shared by every
 * side that prints — kmx_print on the card and on the host fallback,
 * km_print in the simulated grid — and by the one side that formats (the
 * simulator's drain), so that which argument lands in which slot cannot
 * differ between them.  Freestanding C (the card's runtime includes it):
 * static inline, no libc, no loop a compiler turns into memcpy or memset.
 *
 * The format set: %d, %u, %x (lowercase hex), %s, %c and %%, each with
 * optional flags '-' (left-justify in the width) and '0' (pad numbers with
 * zeros), a width of at most two digits, and a length 'l' or 'll' for
 * 64-bit arguments (long, long long, int64_t, uint64_t on LP64).  Anything
 * else after a '%' (a precision, 'h', 'z', %p, %f, ...) is not a
 * conversion: it is printed as written and takes no argument, so a print
 * never reads an argument the writer did not write. */
#ifndef KMX_PRINT_FORMAT_H
#define KMX_PRINT_FORMAT_H

#include <stdarg.h>
#include <stdint.h>

#include "kmx_layout.h"

typedef struct kmx_print_spec {
    char conv;          /* 'd', 'u', 'x', 's', 'c', '%', or 0: not a conversion */
    uint8_t left;       /* '-' */
    uint8_t zero;       /* '0' */
    uint8_t wide;       /* 'l' or 'll': a 64-bit argument */
    unsigned width;     /* 0..99 */
    unsigned length;    /* the characters of the format it took, its '%' included */
} kmx_print_spec;

/* The conversion at f, which points at a '%'. */
static inline void kmx_print_parse(const char *f, kmx_print_spec *s)
{
    unsigned i = 1;
    s->conv = 0;
    s->left = s->zero = s->wide = 0;
    s->width = 0;
    for (;; i++) {
        if (f[i] == '-')
            s->left = 1;
        else if (f[i] == '0')
            s->zero = 1;
        else
            break;
    }
    for (unsigned d = 0; d < 2 && f[i] >= '0' && f[i] <= '9'; d++, i++)
        s->width = s->width * 10u + (unsigned)(f[i] - '0');
    if (f[i] == 'l') {
        s->wide = 1;
        i++;
        if (f[i] == 'l')
            i++;
    }
    char c = f[i];
    if (c == 'd' || c == 'u' || c == 'x' || c == 's' || c == 'c' || c == '%') {
        s->conv = c;
        s->length = i + 1;
    } else {
        s->length = 1; /* the '%' alone is text; what follows is read as text */
    }
}

/* A print into rec (KMX_PRINT_RECORD_MAX_SLOTS slots): the record's head
 * and its arguments as kmx_layout.h section 8 says.  Strings are cut at
 * KMX_PRINT_STRING_MAX bytes and to the room left; arguments past the
 * room are left out (the record says KMX_PRINT_CUT).  Returns the slots
 * written (head included). */
static inline unsigned kmx_print_encode(uint64_t *rec, const char *format, va_list ap,
                                        uint64_t when)
{
    unsigned n = KMX_PRINT_HEAD_SLOTS;
    uint32_t flags = 0;
    for (const char *f = format; *f; f++) {
        if (*f != '%')
            continue;
        kmx_print_spec s;
        kmx_print_parse(f, &s);
        f += s.length - 1;
        if (s.conv == 0 || s.conv == '%')
            continue;
        uint64_t v;
        if (s.conv == 's') {
            const char *str = va_arg(ap, const char *);
            if (!str)
                str = "(null)";
            if (n >= KMX_PRINT_RECORD_MAX_SLOTS) {
                flags |= KMX_PRINT_CUT;
                continue;
            }
            unsigned room = (KMX_PRINT_RECORD_MAX_SLOTS - n - 1u) * 8u;
            if (room > KMX_PRINT_STRING_MAX)
                room = KMX_PRINT_STRING_MAX;
            unsigned len = 0, at = n + 1u;
            uint64_t word = 0;
            while (len < room && str[len]) {
                word |= (uint64_t)(unsigned char)str[len] << (8u * (len % 8u));
                len++;
                if (len % 8u == 0) {
                    rec[at++] = word;
                    word = 0;
                }
            }
            if (len % 8u)
                rec[at++] = word;
            rec[n] = len;
            n = at;
            continue;
        }
        if (s.conv == 'd')
            v = s.wide ? (uint64_t)va_arg(ap, long long) : (uint64_t)(int64_t)va_arg(ap, int);
        else if (s.conv == 'c')
            v = (unsigned char)va_arg(ap, int);
        else
            v = s.wide ? (uint64_t)va_arg(ap, unsigned long long) : va_arg(ap, unsigned int);
        if (n >= KMX_PRINT_RECORD_MAX_SLOTS) {
            flags |= KMX_PRINT_CUT;
            continue;
        }
        rec[n++] = v;
    }
    kmx_print_record head = {(uint16_t)n, KMX_PRINT_MAGIC, flags, (uint64_t)(uintptr_t)format,
                             when};
    rec[0] = (uint64_t)head.slots | (uint64_t)head.magic << 16 | (uint64_t)head.flags << 32;
    rec[1] = head.format;
    rec[2] = head.when;
    return n;
}

#endif
