/* km_profile_show: what `kmrun profile` shows of a profile — the top
 * table, annotated source, the flame graph SVG (km_profile.h). */
#include "km_profile.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km_fs.h"
#include "ks_grow.h"

/* ---- a growing text ----------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t len, cap;
    bool failed;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = t->cap - t->len;
        int k = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->failed = true;
            return;
        }
        if (t->s && (size_t)k < room) {
            t->len += (size_t)k;
            return;
        }
        if (!KS_GROW(t->s, t->cap, t->len + (size_t)k + 1)) {
            t->failed = true;
            return;
        }
    }
}

static char *done(text *t)
{
    if (t->failed) {
        free(t->s);
        return NULL;
    }
    if (!t->s)
        return strdup("");
    return t->s;
}

/* v with thousands separated by commas. */
static const char *commas(uint64_t v, char buf[32])
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    int o = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = 0;
    return buf;
}

/* ---- frames -------------------------------------------------------------------- */

/* A frame "function (file:line)" taken apart: function, file, line (0:
 * none).  Copies into the caller's buffers. */
static void split_frame(const char *frame, size_t len, char *fn, size_t nfn, char *file,
                        size_t nfile, unsigned *line)
{
    char f[1024];
    if (len >= sizeof f)
        len = sizeof f - 1;
    memcpy(f, frame, len);
    f[len] = 0;
    char *trap = strstr(f, " [trap]");
    if (trap)
        *trap = 0;
    *line = 0;
    file[0] = 0;
    char *open = strrchr(f, '(');
    size_t flen = strlen(f);
    if (open && open > f && open[-1] == ' ' && flen && f[flen - 1] == ')') {
        f[flen - 1] = 0;
        char *colon = strrchr(open + 1, ':');
        if (colon) {
            *colon = 0;
            *line = (unsigned)strtoul(colon + 1, NULL, 10);
        }
        snprintf(file, nfile, "%s", open + 1);
        open[-1] = 0;
    }
    snprintf(fn, nfn, "%s", f);
}

/* ---- the top table -------------------------------------------------------------- */

typedef struct top_row {
    const char *frame; /* into a stack */
    size_t len;
    uint64_t cycles, instructions, stalls, traps;
} top_row;

static int by_cycles(const void *a, const void *b)
{
    const top_row *x = a, *y = b;
    if (x->cycles != y->cycles)
        return x->cycles > y->cycles ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->frame, y->frame, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int by_frame(const void *a, const void *b)
{
    const top_row *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->frame, y->frame, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The rows of core `core` by their instruction's frame, most cycles
 * first; *total the cycles of all; NULL (with *n 0) when none or out of
 * memory (*failed). */
static top_row *top_rows(const km_profile *p, const char *core, size_t *n, uint64_t *total,
                         bool *failed)
{
    *n = 0;
    *total = 0;
    *failed = false;
    top_row *rows = malloc((p->n ? p->n : 1) * sizeof *rows);
    if (!rows) {
        *failed = true;
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++) {
        const km_profile_row *r = &p->rows[i];
        if (!km_profile_on_core(r, core))
            continue;
        top_row *t = &rows[k++];
        km_profile_leaf_of(r->stack, &t->frame, &t->len);
        t->cycles = r->cycles;
        t->instructions = r->instructions;
        t->stalls = r->memory_stall_cycles;
        t->traps = r->traps;
        *total += r->cycles;
    }
    if (k) {
        qsort(rows, k, sizeof *rows, by_frame);
        size_t w = 0;
        for (size_t i = 1; i < k; i++) {
            if (by_frame(&rows[w], &rows[i]) == 0) {
                rows[w].cycles += rows[i].cycles;
                rows[w].instructions += rows[i].instructions;
                rows[w].stalls += rows[i].stalls;
                rows[w].traps += rows[i].traps;
            } else {
                rows[++w] = rows[i];
            }
        }
        k = w + 1;
        qsort(rows, k, sizeof *rows, by_cycles);
    }
    *n = k;
    return rows;
}

static double share(uint64_t part, uint64_t total)
{
    return total ? 100.0 * (double)part / (double)total : 0.0;
}

char *km_profile_top_text(const km_profile *p, const char *core, unsigned limit)
{
    size_t n;
    uint64_t total;
    bool failed;
    top_row *rows = top_rows(p, core, &n, &total, &failed);
    if (failed)
        return NULL;
    text t = {0};
    char a[32], b[32], c[32];
    add(&t, "%s: %s cycles\n", core ? core : "every core", commas(total, a));
    add(&t, "%15s %7s %15s %13s %6s  %s\n", "cycles", "share", "memory stall", "instructions",
        "traps", "function (file:line)");
    for (size_t i = 0; i < n && (!limit || i < limit); i++) {
        const top_row *r = &rows[i];
        add(&t, "%15s %6.2f%% %15s %13s %6" PRIu64 "  %.*s\n", commas(r->cycles, a),
            share(r->cycles, total), commas(r->stalls, b), commas(r->instructions, c), r->traps,
            (int)r->len, r->frame);
    }
    if (limit && n > limit)
        add(&t, "(%zu more lines: --limit 0 shows them all)\n", n - limit);
    free(rows);
    return done(&t);
}

char *km_profile_top_json(const km_profile *p, const char *core, unsigned limit)
{
    size_t n;
    uint64_t total;
    bool failed;
    top_row *rows = top_rows(p, core, &n, &total, &failed);
    if (failed)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    bool ok = o && (core ? cJSON_AddStringToObject(o, "core", core)
                         : cJSON_AddNullToObject(o, "core")) &&
              cJSON_AddNumberToObject(o, "cycles", (double)total);
    cJSON *a = ok ? cJSON_AddArrayToObject(o, "rows") : NULL;
    ok = a != NULL;
    for (size_t i = 0; ok && i < n && (!limit || i < limit); i++) {
        const top_row *r = &rows[i];
        char fn[512], file[512], frame[1024];
        unsigned line;
        split_frame(r->frame, r->len, fn, sizeof fn, file, sizeof file, &line);
        snprintf(frame, sizeof frame, "%.*s", (int)r->len, r->frame);
        cJSON *e = cJSON_CreateObject();
        ok = e && cJSON_AddItemToArray(a, e) && cJSON_AddStringToObject(e, "frame", frame) &&
             cJSON_AddStringToObject(e, "function", fn) &&
             (file[0] ? cJSON_AddStringToObject(e, "file", file) != NULL
                      : cJSON_AddNullToObject(e, "file") != NULL) &&
             (line ? cJSON_AddNumberToObject(e, "line", line) != NULL
                   : cJSON_AddNullToObject(e, "line") != NULL) &&
             cJSON_AddNumberToObject(e, "cycles", (double)r->cycles) &&
             cJSON_AddNumberToObject(e, "share", share(r->cycles, total)) &&
             cJSON_AddNumberToObject(e, "instructions", (double)r->instructions) &&
             cJSON_AddNumberToObject(e, "memory_stall_cycles", (double)r->stalls) &&
             cJSON_AddNumberToObject(e, "traps", (double)r->traps);
    }
    char *s = ok ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    free(rows);
    return s;
}

/* ---- annotated source ------------------------------------------------------------ */

/* Whether a frame's file names the source at `path`: the same, or one
 * ends in the other after a '/'. */
static bool same_file(const char *frame_file, const char *path)
{
    size_t a = strlen(frame_file), b = strlen(path);
    if (!a || !b)
        return false;
    if (a == b)
        return strcmp(frame_file, path) == 0;
    const char *longer = a > b ? frame_file : path, *shorter = a > b ? path : frame_file;
    size_t nl = a > b ? a : b, ns = a > b ? b : a;
    return strcmp(longer + nl - ns, shorter) == 0 && longer[nl - ns - 1] == '/';
}

int km_profile_annotate(const km_profile *p, const char *core, const char *source, char **out,
                        km_error *err)
{
    *out = NULL;
    char *src = NULL;
    size_t n = 0;
    int rc = km_read_file(source, &src, &n, err);
    if (rc != KM_OK)
        return km_fail(err, KM_EXIT_USAGE, "cannot read the source '%s' to annotate", source);
    unsigned nlines = 1;
    for (size_t i = 0; i < n; i++)
        nlines += src[i] == '\n';
    uint64_t *self = calloc(nlines + 1, sizeof *self), *total = calloc(nlines + 1, sizeof *total);
    unsigned *seen = calloc(nlines + 1, sizeof *seen);
    if (!self || !total || !seen) {
        free(src);
        free(self);
        free(total);
        free(seen);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory annotating '%s'", source);
    }
    uint64_t all = 0, named = 0;
    char fn[512], file[512];
    unsigned line;
    for (size_t i = 0; i < p->n; i++) {
        const km_profile_row *r = &p->rows[i];
        if (!km_profile_on_core(r, core))
            continue;
        all += r->cycles;
        /* every line of the file on the stack counts it once in total; the
         * instruction's own line, in self */
        const char *f = strchr(r->stack, ';');
        while (f) {
            const char *next = strchr(f + 1, ';');
            size_t len = next ? (size_t)(next - f - 1) : strlen(f + 1);
            split_frame(f + 1, len, fn, sizeof fn, file, sizeof file, &line);
            if (line && line <= nlines && same_file(file, source)) {
                if (seen[line] != i + 1) {
                    seen[line] = (unsigned)(i + 1);
                    total[line] += r->cycles;
                }
                if (!next) {
                    self[line] += r->cycles;
                    named += r->cycles;
                }
            }
            f = next;
        }
    }
    text t = {0};
    if (named == 0 && all) {
        bool any = false;
        for (unsigned k = 1; k <= nlines && !any; k++)
            any = total[k] != 0;
        if (!any)
            rc = km_fail(err, KM_EXIT_USAGE,
                         "the profile names no line of '%s' (its frames name the files as the "
                         "image's debug information does: 'kmrun profile' lists them)",
                         source);
    }
    if (rc == KM_OK) {
        char a[32], b[32];
        add(&t, "%s: %s of %s cycles%s%s on its lines\n", source, commas(named, a),
            commas(all, b), core ? " of core " : "", core ? core : "");
        add(&t, "%15s %7s %15s  %5s  %s\n", "self", "share", "total", "line", "source");
        const char *l = src;
        for (unsigned k = 1; k <= nlines && *l; k++) {
            const char *e = strchr(l, '\n');
            int len = e ? (int)(e - l) : (int)strlen(l);
            if (self[k] || total[k])
                add(&t, "%15s %6.2f%% %15s  %5u  %.*s\n", commas(self[k], a),
                    share(self[k], all), commas(total[k], b), k, len, l);
            else
                add(&t, "%15s %7s %15s  %5u  %.*s\n", "", "", "", k, len, l);
            l = e ? e + 1 : l + len;
        }
        *out = done(&t);
        if (!*out)
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory annotating '%s'", source);
    }
    free(src);
    free(self);
    free(total);
    free(seen);
    return rc;
}
