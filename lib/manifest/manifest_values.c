/* manifest_values: the manifest's typed values and the wording of their
 * errors (manifest_internal.h), so that every field says it the same way. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_suggest.h"
#include "ks_file.h"
#include "ks_text.h"
#include "manifest_internal.h"
#include "units.h"

#define SIZE_EXPECTED \
    "a whole number of bytes, or a whole number and B, KiB, MiB or GiB"
#define DEADLINE_EXPECTED "a number of seconds, or a number and s, ms or us"

static void vdiag(km_mctx *c, const char *code, const km_yaml_node *at, const char *fmt,
                  va_list ap)
{
    char *message = ks_vstrf(fmt, ap);
    km_diags_add_code(c->diags, code, c->file, at ? at->line : 0, at ? at->col : 0, "%s",
                      message ? message : "out of memory");
    free(message);
}

void km_mdiag(km_mctx *c, const km_yaml_node *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(c, KM_MANIFEST_INVALID, at, fmt, ap);
    va_end(ap);
}

void km_mdiag_code(km_mctx *c, const char *code, const km_yaml_node *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(c, code, at, fmt, ap);
    va_end(ap);
}

void *km_mcalloc(km_mctx *c, size_t n, size_t size)
{
    void *v = calloc(n ? n : 1, size);
    if (!v)
        c->oom = true;
    return v;
}

char *km_mstrdup(km_mctx *c, const char *s)
{
    char *d = strdup(s);
    if (!d)
        c->oom = true;
    return d;
}

/* Joins words[0..n) as "a, b or c" into buf. */
static const char *join_or(const char *const *words, size_t n, char *buf,
                           size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && used < size; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int k = snprintf(buf + used, size - used, "%s%s", sep, words[i]);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    return buf;
}

void km_mkeys(km_mctx *c, const km_yaml_node *map, const char *const *keys,
              size_t n, const char *where)
{
    for (size_t i = 0; i < map->n; i++) {
        const km_yaml_node *key = map->pairs[i].key;
        bool known = false;
        for (size_t k = 0; k < n && !known; k++)
            known = strcmp(key->text, keys[k]) == 0;
        if (known)
            continue;
        const char *close = km_suggest(key->text, keys, n);
        if (close) {
            km_mdiag_code(c, "manifest.unknown-key", key,
                          "unknown key '%s' %s (did you mean '%s'?)",
                     key->text, where, close);
        } else {
            char list[512];
            km_mdiag_code(c, "manifest.unknown-key", key, "unknown key '%s' %s (expected %s)",
                          key->text,
                     where, join_or(keys, n, list, sizeof list));
        }
    }
}

void km_mmissing(km_mctx *c, const km_yaml_node *map, const char *key,
                 const char *where, const char *expected)
{
    /* A misspelt key was reported with this one as its "did you mean". */
    const char *const candidate[] = {key};
    for (size_t i = 0; i < map->n; i++)
        if (km_suggest(map->pairs[i].key->text, candidate, 1))
            return;
    km_mdiag_code(c, "manifest.missing-key", map, "missing '%s' %s (expected %s)", key, where,
                  expected);
}

static bool got(km_mctx *c, const km_yaml_node *n, const char *what,
                const char *expected)
{
    if (!n->reported)
        km_mdiag_code(c, "manifest.wrong-type", n, "bad %s: got %s (expected %s)", what,
                 km_yaml_describe(n), expected);
    return false;
}

bool km_mis_map(km_mctx *c, const km_yaml_node *n, const char *what,
                const char *expected)
{
    return n->kind == KM_YAML_MAP || got(c, n, what, expected);
}

bool km_mis_list(km_mctx *c, const km_yaml_node *n, const char *what,
                 const char *expected)
{
    return n->kind == KM_YAML_LIST || got(c, n, what, expected);
}

bool km_mis_string(km_mctx *c, const km_yaml_node *n, const char *what,
                   const char *expected)
{
    if (n->kind == KM_YAML_SCALAR && !n->reported &&
        km_yaml_scalar_type(n) == KM_YAML_STR)
        return true;
    return got(c, n, what, expected);
}

/* A plain scalar that may be a number: its text is then parsed.  Quoted
 * text is a string to every YAML reader, so a number is never quoted. */
static bool numeric(const km_yaml_node *n)
{
    if (n->kind != KM_YAML_SCALAR || n->quoted || n->reported)
        return false;
    km_yaml_type t = km_yaml_scalar_type(n);
    return t != KM_YAML_NULL && t != KM_YAML_BOOL;
}

bool km_mu32(km_mctx *c, const km_yaml_node *n, const char *what,
             uint32_t *out)
{
    static const char expected[] = "an unsigned 32-bit integer";
    if (!numeric(n))
        return got(c, n, what, expected);
    uint64_t v;
    switch (km_parse_uint(n->text, UINT32_MAX, &v)) {
    case KM_UNITS_OK:
        *out = (uint32_t)v;
        return true;
    case KM_UNITS_RANGE:
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected at most 0xffffffff)", what,
                 n->text);
        return false;
    default:
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected %s)", what, n->text, expected);
        return false;
    }
}

bool km_mint(km_mctx *c, const km_yaml_node *n, const char *what, long lo,
             long hi, const char *expected, long *out)
{
    if (!numeric(n))
        return got(c, n, what, expected);
    uint64_t v;
    if (km_parse_uint(n->text, UINT32_MAX, &v) != KM_UNITS_OK ||
        (long)v < lo || (long)v > hi) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected %s)", what, n->text, expected);
        return false;
    }
    *out = (long)v;
    return true;
}

bool km_mbool(km_mctx *c, const km_yaml_node *n, const char *what, bool *out)
{
    static const char expected[] = "true or false";
    if (n->kind != KM_YAML_SCALAR || n->quoted || n->reported)
        return got(c, n, what, expected);
    if (km_yaml_scalar_type(n) != KM_YAML_BOOL) {
        if (km_yaml_scalar_type(n) == KM_YAML_NULL)
            return got(c, n, what, expected);
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected %s)", what, n->text, expected);
        return false;
    }
    *out = tolower((unsigned char)n->text[0]) == 't';
    return true;
}

bool km_menum(km_mctx *c, const km_yaml_node *n, const char *what,
              const char *const *names, size_t count, const char *expected,
              int *out)
{
    if (!km_mis_string(c, n, what, expected))
        return false;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(n->text, names[i]) == 0) {
            *out = (int)i;
            return true;
        }
    }
    const char *close = km_suggest(n->text, names, count);
    if (close)
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (did you mean '%s'?)", what, n->text,
                 close);
    else
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected %s)", what, n->text, expected);
    return false;
}

bool km_msize(km_mctx *c, const km_yaml_node *n, const char *what,
              uint64_t *out)
{
    if (n->kind != KM_YAML_SCALAR || n->reported ||
        km_yaml_scalar_type(n) == KM_YAML_NULL ||
        km_yaml_scalar_type(n) == KM_YAML_BOOL)
        return got(c, n, what, SIZE_EXPECTED);
    uint64_t v;
    bool has_unit;
    const char *hint;
    switch (km_parse_size(n->text, &v, &has_unit, &hint)) {
    case KM_UNITS_OK:
        break;
    case KM_UNITS_RANGE:
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected at most 4 GiB)", what, n->text);
        return false;
    case KM_UNITS_UNIT:
        if (hint) {
            int digits = (int)strcspn(n->text, "abcdefghijklmnopqrstuvwxyz"
                                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
            km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (did you mean '%.*s%s'? sizes are "
                           "binary)",
                     what, n->text, digits, n->text, hint);
            return false;
        }
        /* fall through */
    default:
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected %s)", what, n->text,
                 SIZE_EXPECTED);
        return false;
    }
    if (n->quoted && !has_unit) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s': a quoted number (expected it unquoted, "
                       "or with a unit such as KiB)",
                 what, n->text);
        return false;
    }
    if (v == 0) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected more than 0 bytes)", what,
                 n->text);
        return false;
    }
    if (v > KM_REGION_MAX_BYTES) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected at most 4 GiB)", what, n->text);
        return false;
    }
    if (v % 4) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected a multiple of 4 bytes)", what,
                 n->text);
        return false;
    }
    *out = v;
    return true;
}

bool km_mdeadline(km_mctx *c, const km_yaml_node *n, uint64_t *out_us)
{
    static const char what[] = "deadline";
    if (n->kind != KM_YAML_SCALAR || n->reported ||
        km_yaml_scalar_type(n) == KM_YAML_NULL ||
        km_yaml_scalar_type(n) == KM_YAML_BOOL)
        return got(c, n, what, DEADLINE_EXPECTED);
    uint64_t us;
    bool has_unit = false;
    const char *why = NULL;
    if (n->text[0] == '-') {
        why = "more than 0";
    } else {
        switch (km_parse_duration(n->text, KM_DEADLINE_MAX_US, &us, &has_unit)) {
        case KM_UNITS_OK:
            if (us == 0)
                why = "more than 0";
            break;
        case KM_UNITS_RANGE:
            why = "at most 86400 s";
            break;
        case KM_UNITS_FRACTION:
            why = "a whole number of microseconds";
            break;
        default:
            why = DEADLINE_EXPECTED;
            break;
        }
    }
    if (why) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected %s)", what, n->text, why);
        return false;
    }
    if (n->quoted && !has_unit) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s': a quoted number (expected it unquoted, "
                       "or with a unit such as s)",
                 what, n->text);
        return false;
    }
    *out_us = us;
    return true;
}

char **km_mflags(km_mctx *c, const km_yaml_node *n, const char *what,
                 size_t *count)
{
    *count = 0;
    if (!km_mis_list(c, n, what, "a list of compiler flags"))
        return NULL;
    char **v = km_mcalloc(c, n->n, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n->n; i++) {
        const km_yaml_node *item = n->items[i];
        if (!km_mis_string(c, item, "compiler flag", "a flag such as -O2"))
            continue;
        if (!item->text[0]) {
            km_mdiag_code(c, "manifest.bad-value", item, "bad compiler flag '' (expected a flag such as "
                              "-O2)");
            continue;
        }
        if ((v[*count] = km_mstrdup(c, item->text)))
            ++*count;
    }
    return v;
}

/* `rel` against the manifest's folder, unless it is absolute. */
static char *resolve(km_mctx *c, const char *rel)
{
    char *path = NULL;
    if (rel[0] == '/') {
        path = strdup(rel);
    } else {
        const char *r = rel;
        while (r[0] == '.' && r[1] == '/') /* "./a.c" is "a.c" */
            r += 2 + strspn(r + 2, "/");
        const char *root = c->p->root;
        path = ks_strf("%s%s%s", root, strcmp(root, "/") ? "/" : "", r);
    }
    if (!path)
        c->oom = true;
    return path;
}

char *km_mfile(km_mctx *c, const km_yaml_node *n, const char *what,
               uint64_t *bytes)
{
    if (!km_mis_string(c, n, what, "a file path"))
        return NULL;
    if (!n->text[0]) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '' (expected a file path)", what);
        return NULL;
    }
    /* A newline would split a line of build.ninja, of a depfile, of every
     * message naming the file; no real source path holds one. */
    for (const char *t = n->text; *t; t++) {
        if ((unsigned char)*t < 0x20 || *t == 0x7f) {
            km_mdiag_code(c, "manifest.bad-value", n, "bad %s: it holds a control character, 0x%02x "
                           "(expected a file path without one, such as a "
                           "newline)", what, (unsigned)(unsigned char)*t);
            return NULL;
        }
    }
    char *path = resolve(c, n->text);
    if (!path)
        return NULL;
    struct stat st;
    const char *kind;
    int fd = ks_open_regular(path, &st, &kind), error = fd < 0 ? errno : 0;
    if (fd >= 0)
        close(fd);
    if (fd < 0) {
        if (kind)
            km_mdiag_code(c, "manifest.file", n, "cannot read %s '%s': it is %s (expected a "
                     "regular file)", what, n->text, kind);
        else
            km_mdiag_code(c, "manifest.file", n, "cannot read %s '%s': %s", what, n->text,
                     strerror(error));
        free(path);
        return NULL;
    }
    if (bytes)
        *bytes = (uint64_t)st.st_size;
    return path;
}

char **km_mfiles(km_mctx *c, const km_yaml_node *n, const char *list_what,
                 const char *what, const char *expected, size_t *count)
{
    *count = 0;
    if (!km_mis_list(c, n, list_what, expected))
        return NULL;
    char **v = km_mcalloc(c, n->n, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n->n; i++) {
        char *path = km_mfile(c, n->items[i], what, NULL);
        if (!path)
            continue;
        size_t j = 0;
        while (j < *count && strcmp(v[j], path) != 0)
            j++;
        if (j < *count) {
            km_mdiag_code(c, "manifest.duplicate", n->items[i], "%s '%s' is listed twice (expected each "
                                     "file once)",
                     what, n->items[i]->text);
            free(path);
            continue;
        }
        v[(*count)++] = path;
    }
    return v;
}

bool km_is_identifier(const char *s)
{
    if (!isalpha((unsigned char)s[0]) && s[0] != '_')
        return false;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    return true;
}
