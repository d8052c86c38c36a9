/* yaml_edit: values of a YAML text replaced in place (yaml_edit.h).  The
 * text is read once with yaml_tree, whose nodes carry libyaml's start and
 * end marks; each edit becomes a few splices (a range of bytes and what
 * goes there instead), checked not to overlap and made in one pass into
 * a new text. */
#include "yaml_edit.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"
#include "ks_grow.h"
#include "ks_text.h"
#include "yaml_tree.h"

typedef struct splice {
    size_t at, end; /* bytes [at, end) of the old text */
    char *text;     /* what replaces them (allocated) */
} splice;

typedef struct editor {
    const char *file, *text;
    size_t len;
    size_t *lines; /* the byte where each line starts */
    size_t nlines;
    splice *s;
    size_t n, cap;
    km_error *err;
    int rc;
} editor;

static bool fail(editor *e, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(editor *e, int rc, const char *fmt, ...)
{
    if (e->rc != KM_OK)
        return false;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    e->rc = km_fail(e->err, rc, "%s", msg);
    return false;
}

static bool oom(editor *e)
{
    return fail(e, KM_EXIT_SYSTEM, "out of memory editing '%s'", e->file);
}

/* Where each line starts: libyaml's breaks are \n, \r\n and \r. */
static bool index_lines(editor *e)
{
    size_t cap = 0;
    if (!KS_GROW(e->lines, cap, e->nlines + 1))
        return oom(e);
    e->lines[e->nlines++] = 0;
    for (size_t i = 0; i < e->len; i++) {
        if (e->text[i] != '\n' && e->text[i] != '\r')
            continue;
        if (e->text[i] == '\r' && i + 1 < e->len && e->text[i + 1] == '\n')
            i++;
        if (!KS_GROW(e->lines, cap, e->nlines + 1))
            return oom(e);
        e->lines[e->nlines++] = i + 1;
    }
    return true;
}

/* The byte of 1-based line and column (columns count characters). */
static size_t byte_at(const editor *e, int line, int col)
{
    if (line < 1 || (size_t)line > e->nlines)
        return e->len;
    size_t at = e->lines[line - 1];
    for (int c = 1; c < col && at < e->len && e->text[at] != '\n' && e->text[at] != '\r'; c++) {
        at++;
        while (at < e->len && ((unsigned char)e->text[at] & 0xc0) == 0x80)
            at++;
    }
    return at;
}

static size_t start_of(const editor *e, const km_yaml_node *n)
{
    return byte_at(e, n->line, n->col);
}

static size_t end_of(const editor *e, const km_yaml_node *n)
{
    return byte_at(e, n->end_line, n->end_col);
}

/* The end of the line holding byte `at` (its line break, or the end). */
static size_t eol(const editor *e, size_t at)
{
    while (at < e->len && e->text[at] != '\n' && e->text[at] != '\r')
        at++;
    return at;
}

/* The length of the line break at `at` (0 at the end). */
static size_t break_len(const editor *e, size_t at)
{
    if (at >= e->len)
        return 0;
    return e->text[at] == '\r' && at + 1 < e->len && e->text[at + 1] == '\n' ? 2 : 1;
}

static size_t line_start(const editor *e, size_t at)
{
    while (at > 0 && e->text[at - 1] != '\n' && e->text[at - 1] != '\r')
        at--;
    return at;
}

static bool add(editor *e, size_t at, size_t end, char *text)
{
    if (!text)
        return oom(e);
    if (!KS_GROW(e->s, e->cap, e->n + 1)) {
        free(text);
        return oom(e);
    }
    e->s[e->n++] = (splice){at, end, text};
    return true;
}

/* ---- values ------------------------------------------------------------ */

static bool int_of(const char *s, long long *v)
{
    uint64_t u;
    bool negative = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (km_parse_uint(s, INT64_MAX, &u) != KM_UNITS_OK)
        return false;
    *v = negative ? -(long long)u : (long long)u;
    return true;
}

/* Whether scalar n holds item (read as kind). */
static bool holds(const km_yaml_node *n, km_yaml_value_kind kind, const char *item)
{
    if (n->kind != KM_YAML_SCALAR)
        return false;
    long long a, b;
    switch (kind) {
    case KM_YAML_VALUE_INT:
        return !n->quoted && int_of(n->text, &a) && int_of(item, &b) && a == b;
    case KM_YAML_VALUE_HEX:
        return strcasecmp(n->text, item) == 0;
    case KM_YAML_VALUE_TEXT:
        return strcmp(n->text, item) == 0;
    case KM_YAML_VALUE_NULL:
        return !n->quoted && km_yaml_scalar_type(n) == KM_YAML_NULL;
    }
    return false;
}

bool km_yaml_plain_ok(const char *text)
{
    static const char more[] = " _./+=()-";
    size_t len = strlen(text);
    if (len == 0 || text[len - 1] == ' ')
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        bool alnum = (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
        if (!alnum && (i == 0 || !strchr(more, c)))
            return false;
    }
    km_yaml_node n = {.kind = KM_YAML_SCALAR, .text = (char *)text};
    km_yaml_type t = km_yaml_scalar_type(&n);
    return t != KM_YAML_NULL && t != KM_YAML_BOOL;
}

static char *double_quoted(const char *s)
{
    size_t cap = 4 * strlen(s) + 3, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    out[n++] = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[n++] = '\\';
            out[n++] = (char)c;
        } else if (c == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else if (c == '\t') {
            out[n++] = '\\';
            out[n++] = 't';
        } else if (c < 0x20 || c == 0x7f) {
            n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
        } else {
            out[n++] = (char)c;
        }
    }
    out[n++] = '"';
    out[n] = 0;
    return out;
}

static char *single_quoted(const char *s)
{
    char *out = malloc(2 * strlen(s) + 3), *o = out;
    if (!out)
        return NULL;
    *o++ = '\'';
    for (; *s; s++) {
        if (*s == '\'')
            *o++ = '\'';
        *o++ = *s;
    }
    *o++ = '\'';
    *o = 0;
    return out;
}

static bool printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    return true;
}

/* Item as a scalar in the style of `like` (0 plain, '\'' or '"'). */
static char *render(km_yaml_value_kind kind, const char *item, char like)
{
    switch (kind) {
    case KM_YAML_VALUE_NULL:
        return strdup("null");
    case KM_YAML_VALUE_INT:
        return strdup(item);
    case KM_YAML_VALUE_HEX:
    case KM_YAML_VALUE_TEXT:
        break;
    }
    if (like == '\'' && printable(item))
        return single_quoted(item);
    if (like == '"' || (kind == KM_YAML_VALUE_TEXT && !km_yaml_plain_ok(item)))
        return double_quoted(item);
    if (like == '\'')
        return double_quoted(item);
    return strdup(item);
}

/* ---- finding a value ------------------------------------------------------ */

typedef struct found {
    const km_yaml_node *node, *key; /* key: the mapping key whose value it is */
} found;

static bool find(const km_yaml_node *n, const km_yaml_node *key, int line, int col,
                 km_yaml_kind kind, found *out)
{
    if (!n)
        return false;
    if (n->line == line && n->col == col && n->kind == kind) {
        *out = (found){n, key};
        return true;
    }
    for (size_t i = 0; n->kind == KM_YAML_LIST && i < n->n; i++)
        if (find(n->items[i], NULL, line, col, kind, out))
            return true;
    for (size_t i = 0; n->kind == KM_YAML_MAP && i < n->n; i++)
        if (find(n->pairs[i].value, n->pairs[i].key, line, col, kind, out))
            return true;
    return false;
}

static bool rewritable(editor *e, const km_yaml_node *n)
{
    if (n->style == '|' || n->style == '>')
        return fail(e, KM_EXIT_USAGE,
                    "%s:%d:%d: a block scalar (expected a plain or quoted one to rewrite in "
                    "place)", e->file, n->line, n->col);
    if (start_of(e, n) >= end_of(e, n))
        return fail(e, KM_EXIT_USAGE,
                    "%s:%d:%d: an empty value (expected one written out, such as null, to "
                    "rewrite in place)", e->file, n->line, n->col);
    return true;
}

static bool edit_scalar(editor *e, const km_yaml_node *n, const km_yaml_edit *x)
{
    if (!rewritable(e, n))
        return false;
    if (holds(n, x->now.kind, x->now.items[0]))
        return true;
    return add(e, start_of(e, n), end_of(e, n), render(x->now.kind, x->now.items[0], n->style));
}

/* ---- lists ---------------------------------------------------------------- */

/* The '-' of a block list's item, and the indentation before it. */
static bool dash_of(editor *e, const km_yaml_node *item, size_t *dash, size_t *start)
{
    size_t at = start_of(e, item);
    while (at > 0 && (e->text[at - 1] == ' ' || e->text[at - 1] == '\t'))
        at--;
    if (at == 0 || e->text[at - 1] != '-')
        return fail(e, KM_EXIT_USAGE, "%s:%d:%d: no '-' before the item (expected a block "
                                      "list's item)", e->file, item->line, item->col);
    *dash = at - 1;
    *start = line_start(e, *dash);
    for (size_t i = *start; i < *dash; i++)
        if (e->text[i] != ' ' && e->text[i] != '\t')
            return fail(e, KM_EXIT_USAGE,
                        "%s:%d:%d: the item shares its line with another value (expected "
                        "each item on a line of its own to rewrite the list in place)",
                        e->file, item->line, item->col);
    return true;
}

static bool append_block(editor *e, const km_yaml_node *last, const km_yaml_edit *x, size_t m)
{
    size_t dash, start;
    if (!dash_of(e, last, &dash, &start))
        return false;
    size_t at = eol(e, end_of(e, last)), item = start_of(e, last);
    const char *nl = break_len(e, at) == 2 ? "\r\n" : "\n";
    char *text = strdup("");
    for (size_t i = m; text && i < x->now.n; i++) {
        char *v = render(x->now.kind, x->now.items[i], last->style);
        char *more = v ? ks_strf("%s%s%.*s-%.*s%s", text, nl, (int)(dash - start),
                                 e->text + start, (int)(item - dash - 1), e->text + dash + 1, v)
                       : NULL;
        free(v);
        free(text);
        text = more;
    }
    return add(e, at, at, text);
}

static bool truncate_block(editor *e, const km_yaml_node *list, const km_yaml_node *key,
                           size_t k)
{
    for (size_t i = k; i < list->n; i++) {
        size_t dash, start;
        if (!dash_of(e, list->items[i], &dash, &start))
            return false;
        size_t end = eol(e, end_of(e, list->items[i]));
        size_t nl = break_len(e, end);
        if (nl)
            end += nl;
        else if (start > 0) /* the last line: its break before goes */
            start -= start >= 2 && e->text[start - 2] == '\r' && e->text[start - 1] == '\n' ? 2 : 1;
        if (!add(e, start, end, strdup("")))
            return false;
    }
    if (k > 0)
        return true;
    /* No item left: the key's value is `[]`. */
    size_t at = key ? end_of(e, key) : e->len;
    while (at < e->len && (e->text[at] == ' ' || e->text[at] == '\t'))
        at++;
    if (!key || at >= e->len || e->text[at] != ':')
        return fail(e, KM_EXIT_USAGE, "%s:%d:%d: no key before the list (expected `key:` to "
                                      "write [] after)", e->file, list->line, list->col);
    return add(e, at + 1, at + 1, strdup(" []"));
}

static bool edit_list(editor *e, const km_yaml_node *list, const km_yaml_node *key,
                      const km_yaml_edit *x)
{
    size_t m = list->n, k = x->now.n;
    for (size_t i = 0; i < m; i++)
        if (!rewritable(e, list->items[i]))
            return false;
    for (size_t i = 0; i < m && i < k; i++)
        if (!holds(list->items[i], x->now.kind, x->now.items[i]) &&
            !add(e, start_of(e, list->items[i]), end_of(e, list->items[i]),
                 render(x->now.kind, x->now.items[i], list->items[i]->style)))
            return false;
    bool flow = list->style == '[';
    if (k > m && !flow)
        return append_block(e, list->items[m - 1], x, m);
    if (k > m) {
        char like = m ? list->items[m - 1]->style : 0;
        char *text = strdup("");
        for (size_t i = m; text && i < k; i++) {
            char *v = render(x->now.kind, x->now.items[i], like);
            char *more = v ? ks_strf("%s%s%s", text, i || m ? ", " : "", v) : NULL;
            free(v);
            free(text);
            text = more;
        }
        size_t at = m ? end_of(e, list->items[m - 1]) : start_of(e, list) + 1;
        return add(e, at, at, text);
    }
    if (k < m && !flow)
        return truncate_block(e, list, key, k);
    if (k < m)
        return add(e, k ? end_of(e, list->items[k - 1]) : start_of(e, list->items[0]),
                   end_of(e, list->items[m - 1]), strdup(""));
    return true;
}

/* ---- the edits ------------------------------------------------------------ */

static bool holds_old(const km_yaml_node *n, const km_yaml_value *old)
{
    if (!old->list)
        return old->n == 1 && holds(n, old->kind, old->items[0]);
    if (n->kind != KM_YAML_LIST || n->n != old->n)
        return false;
    for (size_t i = 0; i < n->n; i++)
        if (!holds(n->items[i], old->kind, old->items[i]))
            return false;
    return true;
}

static bool edit_one(editor *e, const km_yaml_node *root, const km_yaml_edit *x)
{
    found f;
    km_yaml_kind kind = x->old.list ? KM_YAML_LIST : KM_YAML_SCALAR;
    if (x->old.list != x->now.list || (!x->now.list && x->now.n != 1))
        return fail(e, KM_EXIT_USAGE, "%s:%d:%d: a list and a scalar (expected the same kind)",
                    e->file, x->line, x->col);
    if (!find(root, NULL, x->line, x->col, kind, &f))
        return fail(e, KM_EXIT_USAGE, "%s:%d:%d: no %s starts here (the file changed since "
                                      "it was read?)",
                    e->file, x->line, x->col, x->old.list ? "list" : "scalar");
    if (!holds_old(f.node, &x->old))
        return fail(e, KM_EXIT_USAGE, "%s:%d:%d: the value is no longer the one read (the file "
                                      "changed since?)",
                    e->file, x->line, x->col);
    return x->now.list ? edit_list(e, f.node, f.key, x) : edit_scalar(e, f.node, x);
}

static int by_place(const void *a, const void *b)
{
    const splice *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

static bool apply(editor *e, char **out, size_t *out_len)
{
    qsort(e->s, e->n, sizeof *e->s, by_place);
    size_t size = e->len + 1;
    for (size_t i = 0; i < e->n; i++) {
        if (i && e->s[i].at < e->s[i - 1].end)
            return fail(e, KM_EXIT_USAGE, "%s: two edits of the same value (expected one)",
                        e->file);
        size += strlen(e->s[i].text);
    }
    char *text = malloc(size), *o = text;
    if (!text)
        return oom(e);
    size_t from = 0;
    for (size_t i = 0; i < e->n; i++) {
        memcpy(o, e->text + from, e->s[i].at - from);
        o += e->s[i].at - from;
        size_t n = strlen(e->s[i].text);
        memcpy(o, e->s[i].text, n);
        o += n;
        from = e->s[i].end;
    }
    memcpy(o, e->text + from, e->len - from);
    o += e->len - from;
    *o = 0;
    *out = text;
    *out_len = (size_t)(o - text);
    return true;
}

int km_yaml_edit_text(const char *file, const char *text, size_t len, const km_yaml_edit *edits,
                      size_t n, char **out, size_t *out_len, km_error *err)
{
    *out = NULL;
    *out_len = 0;
    editor e = {.file = file, .text = text, .len = len, .err = err, .rc = KM_OK};
    km_yaml_node *root = NULL;
    km_diags diags = {0};
    km_error load_err = {0};
    int rc = km_yaml_load(file, text, len, &root, &diags, &load_err);
    if (rc == KM_EXIT_SYSTEM)
        e.rc = km_fail(err, rc, "%s", load_err.message);
    else if (rc != KM_OK || diags.count)
        fail(&e, KM_EXIT_USAGE, "%s: does not read as a manifest's YAML%s%s", file,
             diags.count ? ": " : "", diags.count ? diags.items[0].message : "");
    km_diags_free(&diags);
    if (e.rc == KM_OK && index_lines(&e))
        for (size_t i = 0; i < n && edit_one(&e, root, &edits[i]); i++)
            ;
    if (e.rc == KM_OK)
        apply(&e, out, out_len);
    km_yaml_free(root);
    for (size_t i = 0; i < e.n; i++)
        free(e.s[i].text);
    free(e.s);
    free(e.lines);
    return e.rc;
}
