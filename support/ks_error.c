/* ks_error: failure messages below lib/ (ks_error.h). */
#include "ks_error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ks_text.h"

void ks_format(char *buf, size_t n, int errnum, const char *fmt, va_list ap)
{
    int len = vsnprintf(buf, n, fmt, ap);
    if (errnum != 0 && len >= 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, ": %s", strerror(errnum));
    /* A name put in raw (a user's, a run folder's) is shown escaped all
     * the same: the message is safe wherever it goes. */
    size_t used = strnlen(buf, n);
    if (n && !ks_shows_as_is(buf, used, KS_SHOW_LINES)) {
        char raw[KS_MESSAGE_BYTES];
        size_t keep = used < sizeof raw ? used : sizeof raw - 1;
        memcpy(raw, buf, keep);
        ks_escape(buf, n, raw, keep, KS_SHOW_LINES);
    }
}

static int fail(ks_error *err, ks_status status, int errnum, const char *fmt, va_list ap)
{
    if (err) {
        ks_format(err->message, sizeof err->message, errnum, fmt, ap);
        err->status = status;
    }
    return (int)status;
}

int ks_fail(ks_error *err, ks_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = fail(err, status, 0, fmt, ap);
    va_end(ap);
    return rc;
}

int ks_fail_errno(ks_error *err, ks_status status, const char *fmt, ...)
{
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    int rc = fail(err, status, saved, fmt, ap);
    va_end(ap);
    errno = saved;
    return rc;
}
