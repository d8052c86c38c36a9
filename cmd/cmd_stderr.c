/* cmd_stderr: the filter in front of stderr (cmd_stderr.h). */
#include "cmd_stderr.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "kmrun.h"
#include "kmrun_tools.h"

static FILE *raw;     /* the stderr the filter writes to */
static FILE *guarded; /* the filter, now stderr */

/* The first bytes of a UTF-8 character that one write cut from the rest
 * (the next write may bring them); under the filter's stream lock. */
static char held[4];
static size_t nheld;

/* What is shown, gathered to be written a piece at a time. */
typedef struct shown_out {
    char buf[4096];
    size_t len;
} shown_out;

static void out_flush(shown_out *o)
{
    if (o->len)
        fwrite(o->buf, 1, o->len, raw);
    o->len = 0;
}

/* Bytes shown as they are. */
static void out_plain(shown_out *o, const char *s, size_t len)
{
    if (o->len + len > sizeof o->buf) {
        out_flush(o);
        if (len > sizeof o->buf) {
            fwrite(s, 1, len, raw);
            return;
        }
    }
    memcpy(o->buf + o->len, s, len);
    o->len += len;
}

/* Shows the character at s[0..len) into o; returns the bytes it covers. */
static size_t show_one(shown_out *o, const char *s, size_t len)
{
    char shown[KMRUN_SHOWN_MAX];
    size_t k;
    size_t used = kmrun_show_next(s, len, KMRUN_SHOW_LINES, shown, &k);
    if (o->len + k > sizeof o->buf)
        out_flush(o);
    memcpy(o->buf + o->len, shown, k);
    o->len += k;
    return used;
}

/* Whether s[0..len) (len < 4) is the start of a UTF-8 character that
 * more bytes may complete: a lead byte and continuations, too few. */
static bool cut_short(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t want = u[0] >= 0xc2 && u[0] <= 0xdf   ? 2
                  : u[0] >= 0xe0 && u[0] <= 0xef ? 3
                  : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4
                                                 : 0;
    if (len >= want)
        return false;
    for (size_t i = 1; i < len; i++)
        if ((u[i] & 0xc0) != 0x80)
            return false;
    return true;
}

/* The bytes held, shown as they are now (escaped: nothing came to
 * complete them). */
static void release_held(shown_out *o)
{
    for (size_t i = 0; i < nheld;)
        i += show_one(o, held + i, nheld - i);
    nheld = 0;
}

static ssize_t filter_write(void *cookie, const char *buf, size_t size)
{
    (void)cookie;
    shown_out o;
    o.len = 0;
    size_t i = 0;
    /* A character begun by the last write: complete it from this one. */
    while (nheld && i < size) {
        char joined[8];
        size_t take = size - i < 4 ? size - i : 4;
        memcpy(joined, held, nheld);
        memcpy(joined + nheld, buf + i, take);
        if (cut_short(joined, nheld + take) && nheld + take < 4) {
            memcpy(held + nheld, buf + i, take);
            nheld += take;
            i += take;
            break;
        }
        size_t used = show_one(&o, joined, nheld + take);
        if (used >= nheld) {
            i += used - nheld;
            nheld = 0;
        } else {
            memmove(held, held + used, nheld - used);
            nheld -= used;
        }
    }
    while (i < size) {
        /* Plain ASCII, the common case, as it is. */
        size_t j = i;
        while (j < size && (unsigned char)buf[j] < 0x7f &&
               ((unsigned char)buf[j] >= 0x20 || buf[j] == '\n' || buf[j] == '\t'))
            j++;
        if (j > i) {
            out_plain(&o, buf + i, j - i);
            i = j;
            continue;
        }
        if (size - i < 4 && cut_short(buf + i, size - i)) {
            memcpy(held, buf + i, size - i);
            nheld = size - i;
            break;
        }
        i += show_one(&o, buf + i, size - i);
    }
    out_flush(&o);
    return (ssize_t)size;
}

/* Writes out what is held; the caller holds the filter's lock. */
static void drain(void)
{
    shown_out o;
    o.len = 0;
    release_held(&o);
    out_flush(&o);
}

static void release_at_exit(void)
{
    if (!guarded)
        return;
    flockfile(guarded);
    drain();
    funlockfile(guarded);
}

void cmd_stderr_guard(void)
{
    if (guarded)
        return;
    cookie_io_functions_t io = {.write = filter_write};
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return;
    setvbuf(f, NULL, _IONBF, 0);
    raw = stderr;
    guarded = f;
    stderr = f; /* glibc: stderr is a variable one may set */
    atexit(release_at_exit);
}

void cmd_stderr_control(FILE *f, const char *sequence)
{
    if (!guarded || f != guarded) {
        fputs(sequence, f);
        return;
    }
    flockfile(guarded);
    drain();
    fputs(sequence, raw);
    funlockfile(guarded);
}
