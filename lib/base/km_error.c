/* km_error: failure messages and positioned diagnostics (km_error.h). */
#include "km_error.h"
#include "ks_file.h"
#include "ks_grow.h"
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
        err->code = NULL;
    }
    return status;
}

int km_fail_code(km_error *err, int status, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = fail(err, status, 0, fmt, ap);
    va_end(ap);
    if (err)
        err->code = code;
    return rc;
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
        err->code = NULL;
    }
    return status;
}

const char *km_severity_name(km_severity s)
{
    return s == KM_SEVERITY_WARNING ? "warning" : s == KM_SEVERITY_NOTE ? "note" : "error";
}

km_diag *km_diags_push(km_diags *d)
{
    size_t limit = d->limit ? d->limit : KM_DIAG_CAP;
    if (d->count >= limit || !KS_GROW(d->items, d->cap, d->count + 1)) {
        d->dropped++;
        return NULL;
    }
    km_diag *g = &d->items[d->count++];
    memset(g, 0, sizeof *g);
    return g;
}

km_diag *km_diag_add_child(km_diag *g)
{
    km_diag *more = realloc(g->children, (g->nchildren + 1) * sizeof *more);
    if (!more)
        return NULL;
    g->children = more;
    km_diag *c = &more[g->nchildren++];
    memset(c, 0, sizeof *c);
    c->severity = KM_SEVERITY_NOTE;
    return c;
}

static void add(km_diags *d, const char *code, const char *file, int line, int col,
                const char *fmt, va_list ap)
{
    km_diag *g = km_diags_push(d);
    if (!g)
        return;
    char *message = ks_vstrf(fmt, ap);
    /* A key or a value of the manifest quoted raw is shown escaped. */
    if (message && !ks_shows_as_is(message, strlen(message), KS_SHOW_LINES)) {
        size_t n = strlen(message) * 4 + 1;
        char *shown = malloc(n);
        if (shown)
            ks_escape(shown, n, message, strlen(message), KS_SHOW_LINES);
        free(message);
        message = shown;
    }
    g->file = file ? strdup(file) : NULL;
    if (file && !g->file) { /* not a finding without its place: "out of memory" */
        free(message);
        message = NULL;
    }
    g->line = line;
    g->col = col;
    g->message = message;
    g->code = code;
}

void km_diags_add(km_diags *d, const char *file, int line, int col,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, NULL, file, line, col, fmt, ap);
    va_end(ap);
}

void km_diags_add_code(km_diags *d, const char *code, const char *file, int line, int col,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, code, file, line, col, fmt, ap);
    va_end(ap);
}

void km_diag_free(km_diag *g)
{
    free(g->file);
    free(g->message);
    free(g->option);
    free(g->text);
    for (size_t i = 0; i < g->nchildren; i++)
        km_diag_free(&g->children[i]);
    free(g->children);
    memset(g, 0, sizeof *g);
}

#define diag_free km_diag_free

static bool dup_or_null(char **to, const char *from)
{
    *to = from ? strdup(from) : NULL;
    return !from || *to;
}

bool km_diag_copy(km_diag *to, const km_diag *from)
{
    *to = *from;
    to->file = to->message = to->option = to->text = NULL;
    to->children = NULL;
    to->nchildren = 0;
    bool ok = dup_or_null(&to->file, from->file) && dup_or_null(&to->message, from->message) &&
              dup_or_null(&to->option, from->option) && dup_or_null(&to->text, from->text);
    if (ok && from->nchildren) {
        to->children = calloc(from->nchildren, sizeof *to->children);
        ok = to->children != NULL;
        for (size_t i = 0; ok && i < from->nchildren; i++) {
            ok = km_diag_copy(&to->children[i], &from->children[i]);
            if (ok)
                to->nchildren++;
        }
    }
    if (!ok)
        km_diag_free(to);
    return ok;
}

void km_diags_free(km_diags *d)
{
    for (size_t i = 0; i < d->count; i++)
        diag_free(&d->items[i]);
    free(d->items);
    d->items = NULL;
    d->count = 0;
    d->cap = 0;
    d->dropped = 0;
}

void km_diags_move(km_diags *to, km_diags *from)
{
    for (size_t i = 0; i < from->count; i++) {
        km_diag *g = km_diags_push(to);
        if (g)
            *g = from->items[i];
        else
            diag_free(&from->items[i]);
    }
    to->dropped += from->dropped;
    free(from->items);
    from->items = NULL;
    from->count = from->cap = from->dropped = 0;
}

/* Far beyond a manifest's 16 MiB: only shows a line, never reads a
 * wrong path whole. */
#define SHOWN_MAX (32u << 20)

static void load(km_source_lines *s, const char *file)
{
    if (s->file && strcmp(s->file, file) == 0)
        return;
    km_source_lines_free(s);
    s->file = strdup(file);
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

void km_source_lines_free(km_source_lines *s)
{
    free(s->file);
    free(s->text);
    *s = (km_source_lines){0};
}

/* Line `want` (1-based) of the text, split as its positions were counted
 * (ks_line_break: libyaml's breaks, not only LF); false if there is none. */
bool km_source_line(km_source_lines *s, const char *file, int want, const char **line,
                    size_t *len)
{
    if (!file || want <= 0)
        return false;
    load(s, file);
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

static void read_text(km_diag *g, km_source_lines *lines)
{
    const char *text;
    size_t len;
    if (!g->text && g->file && g->line > 0 && km_source_line(lines, g->file, g->line, &text, &len))
        g->text = strndup(text, len > 4096 ? 4096 : len);
    for (size_t i = 0; i < g->nchildren; i++)
        read_text(&g->children[i], lines);
}

void km_diags_read_text(km_diags *d)
{
    km_source_lines lines = {0};
    for (size_t i = 0; i < d->count; i++)
        read_text(&d->items[i], &lines);
    km_source_lines_free(&lines);
}

typedef struct shower {
    km_put_fn put;
    void *ctx;
} shower;

static void put(const shower *o, int style, const char *text)
{
    o->put(text, style, o->ctx);
}

/* The source line as it is shown (its control bytes escaped, its tabs
 * kept), then a caret under column `col` (in characters, as libyaml
 * counts them): each character is matched by as many spaces as it is
 * shown wide, a tab by a tab. */
static void show_line(const shower *o, const char *text, size_t len, int col)
{
    char piece[KS_SHOWN_MAX];
    size_t k;
    put(o, KM_STYLE_PLAIN, "  ");
    for (size_t i = 0; i < len;) {
        i += ks_show_next(text + i, len - i, KS_SHOW_LINES, piece, &k);
        put(o, KM_STYLE_PLAIN, piece);
    }
    put(o, KM_STYLE_PLAIN, "\n  ");
    int at = 1;
    for (size_t i = 0; i < len && at < col; at++) {
        i += ks_show_next(text + i, len - i, KS_SHOW_LINES, piece, &k);
        if (piece[0] == '\t')
            put(o, KM_STYLE_PLAIN, "\t");
        else if (piece[0] == '\\') { /* escaped: one column a piece byte */
            char spaces[KS_SHOWN_MAX];
            snprintf(spaces, sizeof spaces, "%*s", (int)k, "");
            put(o, KM_STYLE_PLAIN, spaces);
        } else {
            put(o, KM_STYLE_PLAIN, " "); /* a printable character, one column */
        }
    }
    put(o, KM_STYLE_CARET, "^");
    put(o, KM_STYLE_PLAIN, "\n");
}

/* One diagnostic's `file:line:col: message` line (a warning's and a
 * note's message after their word), with (lines not NULL) its source line
 * and a caret, then its notes. */
static void show_one(const km_diag *g, km_source_lines *lines, const shower *o)
{
    char file_shown[1024], locus[1100];
    /* Without a file, no place: the message alone. */
    if (g->file) {
        const char *file = ks_escape(file_shown, sizeof file_shown, g->file, strlen(g->file), 0);
        if (g->line > 0 && g->col > 0)
            snprintf(locus, sizeof locus, "%s:%d:%d:", file, g->line, g->col);
        else if (g->line > 0)
            snprintf(locus, sizeof locus, "%s:%d:", file, g->line);
        else
            snprintf(locus, sizeof locus, "%s:", file);
        put(o, KM_STYLE_LOCUS, locus);
        put(o, KM_STYLE_PLAIN, " ");
    }
    if (g->severity == KM_SEVERITY_ERROR && g->label) {
        put(o, KM_STYLE_BAD, "error:");
        put(o, KM_STYLE_PLAIN, " ");
    } else if (g->severity == KM_SEVERITY_WARNING) {
        put(o, KM_STYLE_WARN, "warning:");
        put(o, KM_STYLE_PLAIN, " ");
    } else if (g->severity == KM_SEVERITY_NOTE) {
        put(o, KM_STYLE_NOTE, "note:");
        put(o, KM_STYLE_PLAIN, " ");
    }
    put(o, KM_STYLE_PLAIN, g->message ? g->message : "out of memory");
    if (g->option) {
        put(o, KM_STYLE_PLAIN, " [");
        put(o, g->severity == KM_SEVERITY_WARNING ? KM_STYLE_WARN : KM_STYLE_BAD, g->option);
        put(o, KM_STYLE_PLAIN, "]");
    }
    put(o, KM_STYLE_PLAIN, "\n");
    /* The line and a caret under its column; without a column, neither
     * (the message says where). */
    const char *text = g->text;
    size_t len = text ? strlen(text) : 0;
    if (g->col > 0 && (text || (lines && g->line > 0 && g->file &&
                                km_source_line(lines, g->file, g->line, &text, &len))))
        show_line(o, text, len > 1023 ? 1023 : len, g->col);
    for (size_t i = 0; i < g->nchildren; i++)
        show_one(&g->children[i], lines, o);
}

void km_diag_show(const km_diag *g, km_source_lines *lines, km_put_fn fn, void *ctx)
{
    shower o = {fn, ctx};
    show_one(g, lines, &o);
}

/* Every diagnostic, with (show_source) the source line and a caret after
 * each, then the count of dropped ones: the one writer of km_diags_show,
 * km_diags_print and km_diags_text. */
static void show_all(const km_diags *d, bool show_source, km_put_fn fn, void *ctx)
{
    shower o = {fn, ctx};
    km_source_lines lines = {0};
    for (size_t i = 0; i < d->count; i++)
        show_one(&d->items[i], show_source ? &lines : NULL, &o);
    km_source_lines_free(&lines);
    if (d->dropped) {
        char more[64];
        snprintf(more, sizeof more, "... and %zu more error%s\n", d->dropped,
                 d->dropped == 1 ? "" : "s");
        put(&o, KM_STYLE_PLAIN, more);
    }
}

static void put_file(const char *text, int style, void *ctx)
{
    (void)style;
    fputs(text, ctx);
}

void km_diags_show(const km_diags *d, km_put_fn fn, void *ctx)
{
    show_all(d, true, fn, ctx);
}

void km_diags_print(const km_diags *d, FILE *out)
{
    show_all(d, true, put_file, out);
}

char *km_diags_text(const km_diags *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    show_all(d, false, put_file, f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    /* One line a diagnostic, without the last one's newline. */
    if (len && text[len - 1] == '\n')
        text[len - 1] = 0;
    return text;
}

void km_vnote(km_note_fn note, void *ctx, const char *fmt, va_list ap)
{
    if (!note)
        return;
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    note(line, ctx);
}
