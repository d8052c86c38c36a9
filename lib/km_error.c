/* km_error: failure messages and positioned diagnostics (km_error.h). */
#include "km_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int fail(km_error *err, int status, int errnum, const char *fmt, va_list ap)
{
    if (err) {
        ks_format(err->message, sizeof err->message, errnum, fmt, ap);
        err->status = status;
    }
    return status;
}

int km_fail(km_error *err, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = fail(err, status, 0, fmt, ap);
    va_end(ap);
    return rc;
}

int km_fail_errno(km_error *err, int status, const char *fmt, ...)
{
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    int rc = fail(err, status, saved, fmt, ap);
    va_end(ap);
    errno = saved;
    return rc;
}

int km_exit_of(ks_status status)
{
    switch (status) {
    case KS_OK:
        return KM_OK;
    case KS_ERR_IMAGE:
        return KM_EXIT_BUILD;
    case KS_ERR_INPUT:
        return KM_EXIT_USAGE;
    case KS_ERR_SYSTEM:
        return KM_EXIT_SYSTEM;
    case KS_ERR_BUG:
        break;
    }
    return KM_EXIT_INTERNAL;
}

int km_fail_from(km_error *err, const ks_error *from)
{
    int status = km_exit_of(from->status);
    if (err && status != KM_OK) {
        memcpy(err->message, from->message, sizeof err->message);
        err->status = status;
    }
    return status;
}

void km_diags_add(km_diags *d, const char *file, int line, int col,
                  const char *fmt, ...)
{
    if (d->count == KM_DIAG_CAP) {
        d->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    char *message = NULL;
    if (vasprintf(&message, fmt, ap) < 0)
        message = NULL;
    va_end(ap);
    km_diag *g = &d->items[d->count++];
    g->file = file ? strdup(file) : NULL;
    g->line = line;
    g->col = col;
    g->message = message;
}

void km_diags_free(km_diags *d)
{
    for (size_t i = 0; i < d->count; i++) {
        free(d->items[i].file);
        free(d->items[i].message);
    }
    d->count = 0;
    d->dropped = 0;
}

/* Reads line `want` (1-based) of `path` into buf; false if it cannot. */
static int read_line(const char *path, int want, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int line = 1, ok = 0;
    while (fgets(buf, (int)n, f)) {
        size_t len = strlen(buf);
        int whole = len > 0 && buf[len - 1] == '\n';
        if (line == want) {
            buf[strcspn(buf, "\r\n")] = 0;
            ok = 1;
            break;
        }
        if (whole)
            line++;
    }
    fclose(f);
    return ok;
}

void km_diags_print(const km_diags *d, FILE *out)
{
    for (size_t i = 0; i < d->count; i++) {
        const km_diag *g = &d->items[i];
        const char *file = g->file ? g->file : "<input>";
        if (g->line > 0)
            fprintf(out, "%s:%d:%d: %s\n", file, g->line, g->col,
                    g->message ? g->message : "out of memory");
        else
            fprintf(out, "%s: %s\n", file,
                    g->message ? g->message : "out of memory");
        char text[1024];
        if (g->line > 0 && g->file && read_line(g->file, g->line, text, sizeof text)) {
            fprintf(out, "  %s\n  ", text);
            /* Tabs stay tabs so the caret lines up under them. */
            for (int c = 1; c < g->col && text[c - 1]; c++)
                fputc(text[c - 1] == '\t' ? '\t' : ' ', out);
            fputs("^\n", out);
        }
    }
    if (d->dropped)
        fprintf(out, "... and %zu more error%s\n", d->dropped,
                d->dropped == 1 ? "" : "s");
}
