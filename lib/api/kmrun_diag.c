/* kmrun_diag: the public C API's diagnostics (include/kmrun.h,
 * "Diagnostics") — a finding with its place, as a tool reads it.  A
 * kmrun_diagnostic is the library's own km_diag (lib/base/km_error.h): an
 * error's are the items of its list, made when the error is
 * (km_api_error_found); a run's findings are made on demand from the
 * card's records, their source lines shown from the working folder as a
 * compiler's are (lib/build/build_diag.c). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_internal.h"
#include "km_build.h"
#include "km_fs.h"
#include "km_handover.h"
#include "km_json.h"
#include "km_kernel_fault.h"
#include "km_wild.h"
#include "ks_text.h"

_Static_assert((int)KMRUN_SEVERITY_ERROR == (int)KM_SEVERITY_ERROR &&
                   (int)KMRUN_SEVERITY_WARNING == (int)KM_SEVERITY_WARNING &&
                   (int)KMRUN_SEVERITY_NOTE == (int)KM_SEVERITY_NOTE,
               "one set of severities");
_Static_assert((int)KMRUN_STYLE_PLAIN == KM_STYLE_PLAIN && (int)KMRUN_STYLE_BAD == KM_STYLE_BAD &&
                   (int)KMRUN_STYLE_WARN == KM_STYLE_WARN &&
                   (int)KMRUN_STYLE_LOCUS == KM_STYLE_LOCUS &&
                   (int)KMRUN_STYLE_NOTE == KM_STYLE_NOTE &&
                   (int)KMRUN_STYLE_CARET == KM_STYLE_CARET,
               "one set of styles");
_Static_assert((int)KMRUN_COLOR_ALWAYS == KM_COLOR_ALWAYS &&
                   (int)KMRUN_COLOR_NEVER == KM_COLOR_NEVER,
               "one set of colours");

const char *kmrun_severity_name(kmrun_severity s)
{
    return km_severity_name((km_severity)s);
}

size_t kmrun_error_diagnostics(const kmrun_error *e)
{
    return e ? e->diags.count : 0;
}

const kmrun_diagnostic *kmrun_error_diagnostic(const kmrun_error *e, size_t i)
{
    if (!e || i >= e->diags.count)
        return NULL;
    return (const kmrun_diagnostic *)&e->diags.items[i];
}

kmrun_severity kmrun_diagnostic_severity(const kmrun_diagnostic *d)
{
    return d ? (kmrun_severity)d->g.severity : KMRUN_SEVERITY_ERROR;
}

const char *kmrun_diagnostic_code(const kmrun_diagnostic *d)
{
    return d && d->g.code ? d->g.code : "kmrun.internal";
}

const char *kmrun_diagnostic_message(const kmrun_diagnostic *d)
{
    return d && d->g.message ? d->g.message : "";
}

const char *kmrun_diagnostic_file(const kmrun_diagnostic *d)
{
    return d ? d->g.file : NULL;
}

int kmrun_diagnostic_line(const kmrun_diagnostic *d)
{
    return d && d->g.line > 0 ? d->g.line : 0;
}

int kmrun_diagnostic_column(const kmrun_diagnostic *d)
{
    return d && d->g.line > 0 && d->g.col > 0 ? d->g.col : 0;
}

int kmrun_diagnostic_end_column(const kmrun_diagnostic *d)
{
    return d && d->g.line > 0 && d->g.end_col > 0 ? d->g.end_col : 0;
}

const char *kmrun_diagnostic_text(const kmrun_diagnostic *d)
{
    return d ? d->g.text : NULL;
}

const char *kmrun_diagnostic_option(const kmrun_diagnostic *d)
{
    return d ? d->g.option : NULL;
}

size_t kmrun_diagnostic_children(const kmrun_diagnostic *d)
{
    return d ? d->g.nchildren : 0;
}

const kmrun_diagnostic *kmrun_diagnostic_child(const kmrun_diagnostic *d, size_t i)
{
    if (!d || i >= d->g.nchildren)
        return NULL;
    return (const kmrun_diagnostic *)&d->g.children[i];
}

/* A string as kmrun shows text (ks_escape: a byte that is not printable
 * as \ooo, newlines and tabs kept), so that the JSON is UTF-8 a terminal
 * may show; null for none.  False when memory ran out (nothing added). */
static bool add_text(cJSON *o, const char *key, const char *value)
{
    if (!value)
        return cJSON_AddNullToObject(o, key) != NULL;
    size_t len = strlen(value), n = len * 4 + 1;
    char *shown = malloc(n);
    bool added = shown && cJSON_AddStringToObject(
                              o, key, ks_escape(shown, n, value, len, KS_SHOW_LINES)) != NULL;
    free(shown);
    return added;
}

static void add_number(cJSON *o, const char *key, int value)
{
    if (value > 0)
        cJSON_AddNumberToObject(o, key, value);
    else
        cJSON_AddNullToObject(o, key);
}

/* The object kmrun_diagnostic_json prints: every key always there, in
 * one order.  A key that could not be added leaves the object short:
 * kmrun_diagnostic_json's watch sees the cJSON ones, *ok add_text's. */
static cJSON *json_of(const kmrun_diagnostic *d, bool *ok)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "severity", kmrun_severity_name(kmrun_diagnostic_severity(d)));
    cJSON_AddStringToObject(o, "code", kmrun_diagnostic_code(d));
    *ok &= add_text(o, "message", kmrun_diagnostic_message(d));
    *ok &= add_text(o, "file", kmrun_diagnostic_file(d));
    add_number(o, "line", kmrun_diagnostic_line(d));
    add_number(o, "column", kmrun_diagnostic_column(d));
    add_number(o, "end_column", kmrun_diagnostic_end_column(d));
    *ok &= add_text(o, "text", kmrun_diagnostic_text(d));
    *ok &= add_text(o, "option", kmrun_diagnostic_option(d));
    cJSON *children = cJSON_AddArrayToObject(o, "children");
    for (size_t i = 0; children && i < kmrun_diagnostic_children(d); i++) {
        cJSON *child = json_of(kmrun_diagnostic_child(d, i), ok);
        if (!cJSON_AddItemToArray(children, child)) {
            cJSON_Delete(child);
            *ok = false;
        }
    }
    return o;
}

char *kmrun_diagnostic_json(const kmrun_diagnostic *d)
{
    if (!d)
        return NULL;
    km_json_mark m = km_json_watch();
    bool ok = true;
    cJSON *o = json_of(d, &ok);
    char *text = o && ok && !km_json_ran_out(m) ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return text;
}

typedef struct painter {
    void (*put)(const char *text, kmrun_style style, void *ctx);
    void *ctx;
} painter;

static void paint(const char *text, int style, void *ctx)
{
    const painter *p = ctx;
    p->put(text, (kmrun_style)style, p->ctx);
}

void kmrun_diagnostic_show(const kmrun_diagnostic *d,
                           void (*put)(const char *text, kmrun_style style, void *ctx), void *ctx)
{
    if (!d || !put)
        return;
    painter p = {put, ctx};
    km_diag_show(&d->g, NULL, paint, &p);
}

void kmrun_diagnostic_free(kmrun_diagnostic *d)
{
    if (!d)
        return;
    km_diag_free(&d->g);
    free(d);
}

/* ---- A run's findings ------------------------------------------------------ */

/* The folder the program's compiles ran in (its sources' names in the
 * debug information are relative to it), and the working folder. */
typedef struct places {
    char *root, *cwd;
} places;

static places places_of(const kmrun_run *r)
{
    places p = {realpath(r->program->p->root, NULL), getcwd(NULL, 0)};
    return p;
}

static void places_free(places *p)
{
    free(p->root);
    free(p->cwd);
}

/* Whether s[0..len) is the name of a file of the program. */
static bool program_file(const places *p, const char *s, size_t len)
{
    char *name = strndup(s, len);
    char *abs = name && name[0] != '/' && p->root ? km_path_join(p->root, name) : NULL;
    bool yes = abs && access(abs, F_OK) == 0;
    free(abs);
    free(name);
    return yes;
}

/* line with every "file:N" of a program's file shown from the working
 * folder (km_diag_path), into buf (n bytes). */
static void show_places(const places *p, const char *line, char *buf, size_t n)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) {
        snprintf(buf, n, "%s", line);
        return;
    }
    const char *copied = line;
    for (const char *c = strchr(line, ':'); c; c = strchr(c + 1, ':')) {
        if (c[1] < '0' || c[1] > '9')
            continue;
        const char *start = c;
        while (start > copied && !strchr(" \t(,;'\"", start[-1]))
            start--;
        if (start == c || !program_file(p, start, (size_t)(c - start)))
            continue;
        char *name = strndup(start, (size_t)(c - start));
        char *shown = name ? km_diag_path(name, p->root, p->cwd) : NULL;
        fwrite(copied, 1, (size_t)(start - copied), f);
        if (shown)
            fputs(shown, f);
        else /* short of memory: the name as the line has it, not none */
            fwrite(start, 1, (size_t)(c - start), f);
        copied = c;
        free(shown);
        free(name);
    }
    fputs(copied, f);
    if (fclose(f) == 0)
        snprintf(buf, n, "%s", out);
    else
        snprintf(buf, n, "%s", line);
    free(out);
}

void km_api_finding_line(const kmrun_run *r, char *line, size_t n)
{
    places p = places_of(r);
    char *copy = strdup(line);
    if (copy)
        show_places(&p, copy, line, n);
    free(copy);
    places_free(&p);
}

kmrun_diagnostic *kmrun_run_finding_diagnostic(const kmrun_run *r, kmrun_finding kind, size_t i)
{
    if (i >= kmrun_run_findings(r, kind, NULL))
        return NULL;
    const km_run_result *res = &r->result;
    const km_source *src;
    const char *code;
    char line[4096];
    if (kind == KMRUN_FINDING_HANDOVER) {
        src = &res->handovers[i].at.source;
        code = "run.handover";
        km_handover_line(&res->handovers[i], line, sizeof line);
    } else if (kind == KMRUN_FINDING_WILD_WRITE) {
        src = &res->wild_writes[i].writer.source;
        code = "run.wild-write";
        km_wild_line(&res->wild_writes[i], line, sizeof line);
    } else {
        src = &res->kernel_faults[i].source;
        code = "run.kernel-fault";
        km_kernel_fault_line(&res->kernel_faults[i], line, sizeof line);
    }
    kmrun_diagnostic *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    places p = places_of(r);
    /* the message: the line past its own "file:line: " (or "?: ") */
    const char *message = strstr(line, ": ");
    message = message ? message + 2 : line;
    char shown[sizeof line];
    show_places(&p, message, shown, sizeof shown);
    d->g.code = code;
    d->g.message = strdup(shown);
    if (src->known) {
        d->g.file = km_diag_path(src->file, p.root, p.cwd);
        d->g.line = (int)src->line;
    }
    places_free(&p);
    km_diags one = {.items = &d->g, .count = 1, .cap = 1};
    km_diags_read_text(&one);
    if (!d->g.message || (src->known && !d->g.file)) { /* not a finding without its place */
        kmrun_diagnostic_free(d);
        return NULL;
    }
    return d;
}
