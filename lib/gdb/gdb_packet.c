/* gdb_packet: the protocol's encodings — hex, binary escapes — and the
 * reply: built in a fixed buffer, framed with its checksum, sent, kept
 * for a retransmission when the client answers '-'. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gdb_internal.h"

static const char hexchars[] = "0123456789abcdef";

int gdb_hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int gdb_parse_hex(const char **p, const char *end, uint64_t *value)
{
    uint64_t v = 0;
    int digits = 0;
    const char *s = *p;
    for (; s < end; s++) {
        int d = gdb_hex_digit((unsigned char)*s);
        if (d < 0)
            break;
        if (++digits > 16)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    if (digits == 0)
        return -1;
    *p = s;
    *value = v;
    return 0;
}

int gdb_parse_bytes(const char *hex, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int hi = gdb_hex_digit((unsigned char)hex[2 * i]);
        int lo = gdb_hex_digit((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

long gdb_unescape(char *data, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '}') {
            if (++i == n)
                return -1;
            data[out++] = (char)(data[i] ^ 0x20);
        } else {
            data[out++] = data[i];
        }
    }
    return (long)out;
}

void gdb_reply_reset(km_gdb *g)
{
    g->reply_len = 0;
    g->reply_over = false;
    g->reply[0] = '\0';
}

size_t gdb_reply_room(const km_gdb *g)
{
    return KM_GDB_PACKET_SIZE - g->reply_len;
}

static void put_bytes(km_gdb *g, const char *s, size_t n)
{
    if (n > gdb_reply_room(g)) {
        g->reply_over = true;
        return;
    }
    memcpy(g->reply + g->reply_len, s, n);
    g->reply_len += n;
    g->reply[g->reply_len] = '\0';
}

void gdb_put(km_gdb *g, const char *text)
{
    put_bytes(g, text, strlen(text));
}

void gdb_putf(km_gdb *g, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        g->reply_over = true;
        return;
    }
    put_bytes(g, buf, (size_t)n);
}

void gdb_put_hex(km_gdb *g, const uint8_t *bytes, size_t n)
{
    if (2 * n > gdb_reply_room(g)) {
        g->reply_over = true;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        g->reply[g->reply_len++] = hexchars[bytes[i] >> 4];
        g->reply[g->reply_len++] = hexchars[bytes[i] & 15];
    }
    g->reply[g->reply_len] = '\0';
}

void gdb_put_le(km_gdb *g, uint64_t value, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes && i < 8; i++)
        b[i] = (uint8_t)(value >> (8 * i));
    gdb_put_hex(g, b, (size_t)bytes);
}

size_t gdb_put_escaped(km_gdb *g, const char *data, size_t n)
{
    size_t i = 0;
    for (; i < n; i++) {
        char c = data[i];
        bool esc = c == '#' || c == '$' || c == '}' || c == '*';
        if (gdb_reply_room(g) < (esc ? 2u : 1u))
            break;
        if (esc) {
            g->reply[g->reply_len++] = '}';
            c ^= 0x20;
        }
        g->reply[g->reply_len++] = c;
    }
    g->reply[g->reply_len] = '\0';
    return i;
}

void gdb_error(km_gdb *g, int code)
{
    gdb_reply_reset(g);
    gdb_putf(g, "E%02x", code & 0xff);
}

void gdb_send_raw(km_gdb *g, const char *bytes, size_t n)
{
    if (g->state == KM_GDB_LOST)
        return;
    if (g->io.write(g->io.arg, bytes, n) != 0)
        g->state = KM_GDB_LOST;
}

void gdb_send_reply(km_gdb *g)
{
    /* A reply that did not fit is a bug of the server, not the client's:
     * still, the client gets an answer and the session goes on. */
    if (g->reply_over)
        gdb_error(g, GDB_E_TOO_LONG);
    uint8_t sum = 0;
    g->framed[0] = '$';
    memcpy(g->framed + 1, g->reply, g->reply_len);
    for (size_t i = 0; i < g->reply_len; i++)
        sum = (uint8_t)(sum + (uint8_t)g->reply[i]);
    size_t at = 1 + g->reply_len;
    g->framed[at++] = '#';
    g->framed[at++] = hexchars[sum >> 4];
    g->framed[at++] = hexchars[sum & 15];
    g->framed_len = at;
    gdb_send_raw(g, g->framed, g->framed_len);
}
