/* km_error: failure messages and positioned diagnostics (km_error.h). */
#include "km_error.h"
#include "ks_file.h"
#include "ks_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    /* A key or a value of the manifest quoted raw is shown escaped. */
    if (message && !ks_shows_as_is(message, strlen(message), KS_SHOW_LINES)) {
        size_t n = strlen(message) * 4 + 1;
        char *shown = malloc(n);
        if (shown)
            ks_escape(shown, n, message, strlen(message), KS_SHOW_LINES);
        free(message);
        message = shown;
    }
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

/* A file's text, kept while the diagnostics name the same file. */
typedef struct shown {
    const char *file;
    char *text;
    size_t len;
} shown;

/* Far beyond a manifest's 16 MiB: only shows a line, never reads a
 * wrong path whole. */
#define SHOWN_MAX (32u << 20)

static void load(shown *s, const char *file)
{
    if (s->file && strcmp(s->file, file) == 0)
        return;
    free(s->text);
    *s = (shown){.file = file};
    struct stat st;
    const char *kind;
    int fd = ks_open_regular(file, &st, &kind);
    if (fd < 0)
        return;
    size_t size = st.st_size > SHOWN_MAX ? SHOWN_MAX : (size_t)st.st_size;
    char *buf = malloc(size + 1);
    ssize_t n = buf ? read(fd, buf, size) : -1;
    close(fd);
    s->text = buf;
    s->len = n > 0 ? (size_t)n : 0;
}

/* Line `want` (1-based) of the text, split as its positions were counted
 * (ks_line_break: libyaml's breaks, not only LF); false if there is none. */
static bool find_line(const shown *s, int want, const char **line, size_t *len)
{
    if (!s->text)
        return false;
    size_t i = 0;
    for (int at = 1; at < want; at++) {
        size_t b = 0;
        while (i < s->len && !(b = ks_line_break(s->text + i, s->len - i)))
            i++;
        if (i == s->len)
            return false;
        i += b;
    }
    size_t end = i;
    while (end < s->len && !ks_line_break(s->text + end, s->len - end))
        end++;
    *line = s->text + i;
    *len = end - i;
    return true;
}

/* The source line as it is shown (its control bytes escaped, its tabs
 * kept), then a caret under column `col` (in characters, as libyaml
 * counts them): each character is matched by as many spaces as it is
 * shown wide, a tab by a tab. */
static void show_line(FILE *out, const char *text, size_t len, int col)
{
    char piece[KS_SHOWN_MAX];
    size_t k;
    fputs("  ", out);
    for (size_t i = 0; i < len;) {
        i += ks_show_next(text + i, len - i, KS_SHOW_LINES, piece, &k);
        fputs(piece, out);
    }
    fputs("\n  ", out);
    int at = 1;
    for (size_t i = 0; i < len && at < col; at++) {
        i += ks_show_next(text + i, len - i, KS_SHOW_LINES, piece, &k);
        if (piece[0] == '\t')
            fputc('\t', out);
        else if (piece[0] == '\\') /* escaped: one column a piece byte */
            fprintf(out, "%*s", (int)k, "");
        else
            fputc(' ', out); /* a printable character, one column */
    }
    fputs("^\n", out);
}

/* Every diagnostic's `file:line:col: message` line, with (show_source) the
 * source line and a caret after each, then the count of dropped ones: the
 * one writer of km_diags_print and km_diags_text. */
static void write_diags(const km_diags *d, FILE *out, bool show_source)
{
    shown s = {0};
    for (size_t i = 0; i < d->count; i++) {
        const km_diag *g = &d->items[i];
        char file_shown[1024];
        const char *file = g->file ? ks_escape(file_shown, sizeof file_shown, g->file,
                                               strlen(g->file), 0)
                                   : "<input>";
        if (g->line > 0)
            fprintf(out, "%s:%d:%d: %s\n", file, g->line, g->col,
                    g->message ? g->message : "out of memory");
        else
            fprintf(out, "%s: %s\n", file,
                    g->message ? g->message : "out of memory");
        const char *text;
        size_t len;
        if (!show_source || g->line <= 0 || !g->file)
            continue;
        load(&s, g->file);
        if (!find_line(&s, g->line, &text, &len))
            continue;
        if (len > 1023)
            len = 1023;
        show_line(out, text, len, g->col);
    }
    free(s.text);
    if (d->dropped)
        fprintf(out, "... and %zu more error%s\n", d->dropped,
                d->dropped == 1 ? "" : "s");
}

void km_diags_print(const km_diags *d, FILE *out)
{
    write_diags(d, out, true);
}

char *km_diags_text(const km_diags *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    write_diags(d, f, false);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    /* One line a diagnostic, without the last one's newline. */
    if (len && text[len - 1] == '\n')
        text[len - 1] = 0;
    return text;
}
