/* km_expect: a run's JSON and regions against the program's `expect:`
 * (km_expect.h).  Read in the manifest's order: threads, regions,
 * commands, then what every run must give (states and events nobody
 * named, the card's findings). */
#include "km_expect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "km_json.h"
#include "kmx_layout.h"
#include "ks_grow.h"
#include "ks_text.h"

#define SHORT_LIST 8 /* word lists shown whole up to this length */

typedef struct cmp {
    const km_program *p;
    km_verdict *v;
    unsigned on; /* the run's backend, KM_EXPECT_ON_* */
    bool oom;
} cmp;

static void fix_free(km_fix *f)
{
    for (size_t i = 0; i < f->nold; i++)
        free(f->old[i]);
    for (size_t i = 0; i < f->nnow; i++)
        free(f->now[i]);
    free(f->old);
    free(f->now);
    *f = (km_fix){0};
}

/* A fix of the item (its backends `on`) from `old_kind` items to `kind`
 * ones, its items pushed after. */
static km_fix fix_of(unsigned on, bool list, km_yaml_value_kind old_kind, km_yaml_value_kind kind)
{
    return (km_fix){.ok = true, .on = on, .list = list, .old_kind = old_kind, .kind = kind};
}

/* Item s (allocated, taken over) at the end of *items. */
static void push(cmp *c, char ***items, size_t *n, char *s)
{
    char **more = s ? realloc(*items, (*n + 1) * sizeof *more) : NULL;
    if (!more) {
        free(s);
        c->oom = true;
        return;
    }
    *items = more;
    more[(*n)++] = s;
}

static void old_item(cmp *c, km_fix *f, char *s)
{
    push(c, &f->old, &f->nold, s);
}

static void now_item(cmp *c, km_fix *f, char *s)
{
    push(c, &f->now, &f->nnow, s);
}

/* One difference: `expected` and `got` are allocated (taken over), and
 * so is *fix (NULL: a failure, no value). */
static void differ_as(cmp *c, km_pos pos, const char *subject, char *expected, char *got,
                      km_fix *fix)
{
    km_verdict *v = c->v;
    km_fix none = {0};
    if (!fix)
        fix = &none;
    if (!expected || !got || c->oom || !KS_GROW(v->items, v->cap, v->n + 1)) {
        free(expected);
        free(got);
        fix_free(fix);
        c->oom = true;
        return;
    }
    km_mismatch *m = &v->items[v->n];
    *m = (km_mismatch){.pos = pos, .subject = strdup(subject), .expected = expected, .got = got,
                       .fix = *fix};
    m->text = ks_strf("%s:%d:%d: %s: expected %s, got %s", v->file, pos.line, pos.col, subject,
                      expected, got);
    if (!m->subject || !m->text) {
        free(m->subject);
        free(m->text);
        free(expected);
        free(got);
        fix_free(fix);
        c->oom = true;
        return;
    }
    v->n++;
}

static void differ(cmp *c, km_pos pos, const char *subject, char *expected, char *got)
{
    differ_as(c, pos, subject, expected, got, NULL);
}

static bool applies(const cmp *c, unsigned on)
{
    return on == 0 || (on & c->on);
}

static const cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* The element of array `list` whose `key` is the number v, or NULL. */
static const cJSON *find_by(const cJSON *list, const char *key, double v)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, list) {
        const cJSON *k = item(e, key);
        if (cJSON_IsNumber(k) && k->valuedouble == v)
            return e;
    }
    return NULL;
}

/* ---- threads -------------------------------------------------------- */

/* A thread's state as a difference shows it: 'trapped' (its message). */
static char *state_text(const cJSON *t)
{
    const char *state = cJSON_GetStringValue(item(t, "state"));
    const char *message = cJSON_GetStringValue(item(t, "message"));
    char quoted[KS_QUOTE_BYTES];
    ks_quote(quoted, sizeof quoted, state ? state : "?");
    if (!message || !*message)
        return strdup(quoted);
    char shown[512];
    ks_escape(shown, sizeof shown, message, strlen(message), 0);
    return ks_strf("%s (%s)", quoted, shown);
}

/* "[1, 2, 3]" of n words. */
static char *words_text(const uint32_t *w, size_t n)
{
    size_t cap = 2 + 12 * n + 1;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t used = (size_t)snprintf(s, cap, "[");
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(s + used, cap - used, "%s%u", i ? ", " : "", w[i]);
    snprintf(s + used, cap - used, "]");
    return s;
}

static void compare_words(cmp *c, const km_expect_thread *x, const cJSON *t, const char *subject)
{
    const cJSON *list = item(t, "words");
    size_t n = (size_t)cJSON_GetArraySize(list);
    uint32_t got[KMX_MAX_RESULT_WORDS];
    if (n > KMX_MAX_RESULT_WORDS)
        n = KMX_MAX_RESULT_WORDS;
    for (size_t i = 0; i < n; i++)
        got[i] = (uint32_t)cJSON_GetArrayItem(list, (int)i)->valuedouble;
    size_t first = 0;
    while (first < n && first < x->nwords && got[first] == x->words[first])
        first++;
    if (first == n && first == x->nwords)
        return;
    km_fix fix = fix_of(x->on, true, KM_YAML_VALUE_INT, KM_YAML_VALUE_INT);
    for (size_t i = 0; i < x->nwords; i++)
        old_item(c, &fix, ks_strf("%u", x->words[i]));
    for (size_t i = 0; i < n; i++)
        now_item(c, &fix, ks_strf("%u", got[i]));
    if (x->nwords <= SHORT_LIST && n <= SHORT_LIST) {
        char *w = words_text(x->words, x->nwords);
        differ_as(c, x->words_pos, subject, w ? ks_strf("words %s", w) : NULL,
                  words_text(got, n), &fix);
        free(w);
    } else if (n != x->nwords) {
        char *w = words_text(x->words, x->nwords), *g = words_text(got, n);
        differ_as(c, x->words_pos, subject, ks_strf("%zu words", x->nwords),
                  g && w ? ks_strf("%zu words, the first difference at word %zu (%s)", n, first,
                                   g)
                         : NULL,
                  &fix);
        free(w);
        free(g);
    } else {
        differ_as(c, x->words_pos, subject,
                  ks_strf("word %zu to be %u", first, x->words[first]),
                  ks_strf("%u", got[first]), &fix);
    }
}

/* The texts of cluster's prints, in the run JSON's order. */
static void compare_prints(cmp *c, const km_expect_thread *x, const cJSON *doc,
                           const char *subject)
{
    const cJSON *p;
    km_fix fix = fix_of(x->on, true, KM_YAML_VALUE_TEXT, KM_YAML_VALUE_TEXT);
    cJSON_ArrayForEach(p, item(doc, "prints")) {
        const cJSON *cl = item(p, "cluster");
        if (!cJSON_IsNumber(cl) || cl->valueint != x->cluster)
            continue;
        const char *text = cJSON_GetStringValue(item(p, "text"));
        /* A line of its own in the manifest, or no value to bless. */
        fix.ok &= fix.nnow < KM_EXPECT_PRINTS_MAX && !(text && strchr(text, '\n'));
        now_item(c, &fix, strdup(text ? text : ""));
    }
    for (size_t i = 0; i < x->nprints; i++)
        old_item(c, &fix, strdup(x->prints[i]));
    char a[KS_QUOTE_BYTES], b[KS_QUOTE_BYTES];
    size_t i = 0;
    while (!c->oom && i < fix.nnow && i < x->nprints && strcmp(fix.now[i], x->prints[i]) == 0)
        i++;
    if (c->oom || (i == fix.nnow && i == x->nprints)) {
        fix_free(&fix);
        return;
    }
    if (i == x->nprints)
        differ_as(c, x->prints_pos, subject,
                  ks_strf("%zu print%s", x->nprints, x->nprints == 1 ? "" : "s"),
                  ks_strf("more, the next %s", ks_quote(b, sizeof b, fix.now[i])), &fix);
    else if (i < fix.nnow)
        differ_as(c, x->prints_pos, subject,
                  ks_strf("print %zu %s", i + 1, ks_quote(a, sizeof a, x->prints[i])),
                  strdup(ks_quote(b, sizeof b, fix.now[i])), &fix);
    else
        differ_as(c, x->prints_pos, subject,
                  ks_strf("print %zu %s", i + 1, ks_quote(a, sizeof a, x->prints[i])),
                  ks_strf("%zu print%s", i, i == 1 ? "" : "s"), &fix);
}

static void compare_thread(cmp *c, const km_expect_thread *x, const cJSON *doc)
{
    char subject[64];
    snprintf(subject, sizeof subject, "thread on cluster %d", x->cluster);
    const cJSON *t = find_by(item(doc, "threads"), "cluster", x->cluster);
    if (!t) {
        c->v->checked++;
        differ(c, x->pos, subject, strdup("its result"), strdup("none in the run"));
        return;
    }
    if (x->state) {
        c->v->checked++;
        const char *state = cJSON_GetStringValue(item(t, "state"));
        /* A thread that should have returned and did not is a failure. */
        km_fix fix = fix_of(x->on, false, KM_YAML_VALUE_TEXT, KM_YAML_VALUE_TEXT);
        fix.ok = state && strcmp(x->state, "returned") != 0;
        if (!state || strcmp(state, x->state) != 0) {
            old_item(c, &fix, strdup(x->state));
            now_item(c, &fix, strdup(state ? state : ""));
            differ_as(c, x->state_pos, subject, ks_strf("state '%s'", x->state), state_text(t),
                      &fix);
        }
    }
    if (x->has_code) {
        c->v->checked++;
        const cJSON *code = item(t, "code");
        if (!cJSON_IsNumber(code))
            differ(c, x->code_pos, subject, ks_strf("code %d", x->code),
                   strdup("none (kmx_main did not return)"));
        else if (code->valuedouble != x->code) {
            km_fix fix = fix_of(x->on, false, KM_YAML_VALUE_INT, KM_YAML_VALUE_INT);
            old_item(c, &fix, ks_strf("%d", x->code));
            now_item(c, &fix, ks_strf("%.0f", code->valuedouble));
            differ_as(c, x->code_pos, subject, ks_strf("code %d", x->code),
                      ks_strf("%.0f", code->valuedouble), &fix);
        }
    }
    if (x->has_words) {
        c->v->checked++;
        compare_words(c, x, t, subject);
    }
    if (x->has_prints) {
        c->v->checked++;
        compare_prints(c, x, doc, subject);
    }
}

/* ---- regions -------------------------------------------------------- */

static void hex(const uint8_t *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = 0;
}

static bool may_hold(const uint64_t *map, size_t unit)
{
    return !map || (map[unit / 64] >> (unit % 64) & 1u);
}

/* The SHA-256 of n bytes, the units outside map (km_expect_reader) hashed
 * as the zeros they are, without reading them. */
static bool sha256_hex(const void *data, size_t n, const uint64_t *map, char out[65])
{
    static const unsigned char zeros[KM_EXPECT_UNIT];
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    const unsigned char *p = data;
    for (size_t at = 0, end; ok && at < n; at = end) {
        bool held = may_hold(map, at / KM_EXPECT_UNIT);
        end = at;
        do /* a unit of zeros, or a run of units that may hold data */
            end = n - end > KM_EXPECT_UNIT ? end + KM_EXPECT_UNIT : n;
        while (held && end < n && may_hold(map, end / KM_EXPECT_UNIT));
        ok = EVP_DigestUpdate(ctx, held ? p + at : zeros, end - at);
    }
    ok = ok && EVP_DigestFinal_ex(ctx, md, &len) && len == 32;
    EVP_MD_CTX_free(ctx);
    if (ok)
        hex(md, 32, out);
    return ok;
}

static void compare_region(cmp *c, const km_expect_region *x, km_expect_reader read, void *ctx)
{
    char subject[KS_QUOTE_BYTES + 32];
    char quoted[KS_QUOTE_BYTES];
    snprintf(subject, sizeof subject, "region %s of cluster %d",
             ks_quote(quoted, sizeof quoted, x->name), x->cluster);
    const void *data = NULL;
    void *owned = NULL, *owned_map = NULL;
    const uint64_t *map = NULL;
    size_t bytes = 0;
    km_error e = {0};
    int rc = read ? read(ctx, x->name, x->cluster, &data, &bytes, &owned, &map, &owned_map, &e)
                  : km_fail(&e, KM_EXIT_USAGE, "no run folder to read it from");
    if (x->sha256) {
        c->v->checked++;
        char got[65];
        if (rc != KM_OK)
            differ(c, x->sha256_pos, subject, ks_strf("sha256 %s", x->sha256),
                   ks_strf("no bytes: %s", e.message));
        else if (!sha256_hex(data, bytes, map, got))
            c->oom = true;
        else if (strcmp(got, x->sha256) != 0) {
            km_fix fix = fix_of(x->on, false, KM_YAML_VALUE_HEX, KM_YAML_VALUE_HEX);
            old_item(c, &fix, strdup(x->sha256));
            now_item(c, &fix, strdup(got));
            differ_as(c, x->sha256_pos, subject, ks_strf("sha256 %s", x->sha256), strdup(got),
                      &fix);
        }
    }
    if (x->first) {
        c->v->checked++;
        char want[2 * KM_EXPECT_FIRST_MAX + 1], got[2 * KM_EXPECT_FIRST_MAX + 1];
        hex(x->first, x->nfirst, want);
        size_t n = bytes < x->nfirst ? bytes : x->nfirst;
        if (rc != KM_OK)
            differ(c, x->first_pos, subject, ks_strf("first bytes %s", want),
                   ks_strf("no bytes: %s", e.message));
        else if (bytes < x->nfirst || memcmp(data, x->first, x->nfirst) != 0) {
            hex(data, n, got);
            /* As many bytes as the item names (a shorter region: no value). */
            km_fix fix = fix_of(x->on, false, KM_YAML_VALUE_HEX, KM_YAML_VALUE_HEX);
            fix.ok = bytes >= x->nfirst;
            old_item(c, &fix, strdup(want));
            now_item(c, &fix, strdup(got));
            differ_as(c, x->first_pos, subject, ks_strf("first bytes %s", want),
                      bytes < x->nfirst ? ks_strf("%zu bytes in all: %s", bytes, got)
                                        : strdup(got),
                      &fix);
        }
    }
    free(owned);
    free(owned_map);
}

/* ---- commands ------------------------------------------------------- */

static char *event_text(const cJSON *cmd)
{
    const char *event = cJSON_GetStringValue(item(cmd, "event"));
    const cJSON *reason = item(cmd, "reason");
    if (!event)
        return strdup("no event (the run stopped first)");
    if (strcmp(event, "rejected") == 0 && cJSON_IsNumber(reason))
        return ks_strf("'%s' (reason %d)", event, reason->valueint);
    return ks_strf("'%s'", event);
}

static void command_subject(const km_program *p, uint32_t handle, char *buf, size_t n)
{
    const char *handler = handle >= 1 && handle <= p->ncommands
                              ? p->commands[handle - 1].handler
                              : NULL;
    char quoted[KS_QUOTE_BYTES];
    if (handler)
        snprintf(buf, n, "command %u (%s)", handle, ks_quote(quoted, sizeof quoted, handler));
    else
        snprintf(buf, n, "command %u", handle);
}

static void compare_command(cmp *c, const km_expect_command *x, const cJSON *doc)
{
    char subject[KS_QUOTE_BYTES + 32];
    command_subject(c->p, x->handle, subject, sizeof subject);
    const cJSON *cmd = find_by(item(doc, "commands"), "index", x->handle - 1.0);
    if (!cmd) {
        c->v->checked++;
        differ(c, x->pos, subject, strdup("its event"), strdup("none listed in the run"));
        return;
    }
    if (x->event) {
        c->v->checked++;
        const char *event = cJSON_GetStringValue(item(cmd, "event"));
        /* A command that should have been done and was not is a failure. */
        km_fix fix = fix_of(x->on, false, KM_YAML_VALUE_TEXT, KM_YAML_VALUE_TEXT);
        fix.ok = event && strcmp(x->event, "done") != 0;
        if (!event || strcmp(event, x->event) != 0) {
            old_item(c, &fix, strdup(x->event));
            now_item(c, &fix, strdup(event ? event : ""));
            differ_as(c, x->event_pos, subject, ks_strf("event '%s'", x->event),
                      event_text(cmd), &fix);
        }
    }
    if (x->has_result) {
        c->v->checked++;
        const cJSON *r = item(cmd, "result");
        bool none = !cJSON_IsNumber(r);
        if (x->result_none == none && (none || r->valuedouble == x->result))
            return;
        km_fix fix = fix_of(x->on, false, x->result_none ? KM_YAML_VALUE_NULL : KM_YAML_VALUE_INT,
                            none ? KM_YAML_VALUE_NULL : KM_YAML_VALUE_INT);
        old_item(c, &fix, x->result_none ? strdup("null") : ks_strf("%u", x->result));
        now_item(c, &fix, none ? strdup("null") : ks_strf("%.0f", r->valuedouble));
        differ_as(c, x->result_pos, subject,
                  x->result_none ? strdup("no result word") : ks_strf("result %u", x->result),
                  none ? strdup("no result word") : ks_strf("%.0f", r->valuedouble), &fix);
    }
}

/* ---- what every run must give ----------------------------------------- */

/* The item for `cluster` that applies, the last one naming a state if
 * any does. */
static const km_expect_thread *thread_item(const cmp *c, int cluster, bool *has_state)
{
    const km_expect_thread *found = NULL;
    *has_state = false;
    const km_expect *e = &c->p->expect;
    for (size_t i = 0; i < e->nthreads; i++) {
        const km_expect_thread *x = &e->threads[i];
        if (x->cluster != cluster || !applies(c, x->on))
            continue;
        if (!found || x->state)
            found = x;
        *has_state |= x->state != NULL;
    }
    return found;
}

static const km_expect_command *command_item(const cmp *c, uint32_t handle, bool *has_event)
{
    const km_expect_command *found = NULL;
    *has_event = false;
    const km_expect *e = &c->p->expect;
    for (size_t i = 0; i < e->ncommands; i++) {
        const km_expect_command *x = &e->commands[i];
        if (x->handle != handle || !applies(c, x->on))
            continue;
        if (!found || x->event)
            found = x;
        *has_event |= x->event != NULL;
    }
    return found;
}

static void compare_unnamed(cmp *c, const cJSON *doc)
{
    const km_expect *e = &c->p->expect;
    const cJSON *t;
    cJSON_ArrayForEach(t, item(doc, "threads")) {
        const cJSON *cl = item(t, "cluster");
        const char *state = cJSON_GetStringValue(item(t, "state"));
        bool named;
        const km_expect_thread *x = thread_item(c, cl ? cl->valueint : 0, &named);
        if (named || (state && strcmp(state, "returned") == 0))
            continue;
        char subject[64];
        snprintf(subject, sizeof subject, "thread on cluster %d", cl ? cl->valueint : 0);
        differ(c, x ? x->pos : e->pos, subject, strdup("state 'returned' (no other named)"),
               state_text(t));
    }
    const cJSON *cmd;
    cJSON_ArrayForEach(cmd, item(doc, "commands")) {
        const cJSON *index = item(cmd, "index");
        const char *event = cJSON_GetStringValue(item(cmd, "event"));
        uint32_t handle = cJSON_IsNumber(index) ? (uint32_t)index->valuedouble + 1 : 0;
        bool named;
        const km_expect_command *x = command_item(c, handle, &named);
        if (named || (event && strcmp(event, "done") == 0))
            continue;
        char subject[KS_QUOTE_BYTES + 32];
        command_subject(c->p, handle, subject, sizeof subject);
        differ(c, x ? x->pos : e->pos, subject, strdup("event 'done' (no other named)"),
               event_text(cmd));
    }
    static const struct {
        const char *key, *one, *many;
    } findings[] = {
        {"kernel_faults", "Tensix handler taken out", "Tensix handlers taken out"},
        {"wild_writes", "wild write", "wild writes"},
        {"handover", "hand-over finding", "hand-over findings"},
    };
    for (size_t i = 0; i < sizeof findings / sizeof *findings; i++) {
        int n = cJSON_GetArraySize(item(doc, findings[i].key));
        if (n > 0)
            differ(c, e->pos, "the run", ks_strf("no %s", findings[i].many),
                   ks_strf("%d %s (the run JSON's %s)", n, n == 1 ? findings[i].one
                                                                  : findings[i].many,
                           findings[i].key));
    }
}

/* The differences in the manifest's order (stable: one place's keep
 * theirs). */
static void sort_by_place(km_verdict *v)
{
    for (size_t i = 1; i < v->n; i++) {
        km_mismatch m = v->items[i];
        size_t j = i;
        while (j > 0 && (v->items[j - 1].pos.line > m.pos.line ||
                         (v->items[j - 1].pos.line == m.pos.line &&
                          v->items[j - 1].pos.col > m.pos.col))) {
            v->items[j] = v->items[j - 1];
            j--;
        }
        v->items[j] = m;
    }
}

int km_expect_check(const km_program *p, const char *run_json, km_expect_reader read, void *ctx,
                    km_verdict *out, km_error *err)
{
    *out = (km_verdict){0};
    km_json_mark m = km_json_watch();
    cJSON *doc = run_json ? cJSON_Parse(run_json) : NULL;
    if (!doc && km_json_ran_out(m))
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the run's JSON");
    const char *backend = cJSON_GetStringValue(item(doc, "backend"));
    if (!doc || !backend || !cJSON_IsArray(item(doc, "threads"))) {
        cJSON_Delete(doc);
        return km_fail(err, KM_EXIT_USAGE,
                       "not a run's JSON (expected the document kmrun run prints)");
    }
    out->file = strdup(p->manifest ? p->manifest : p->name ? p->name : "(program)");
    out->backend = strdup(backend);
    cmp c = {.p = p, .v = out,
             .on = strcmp(backend, "host") == 0 ? KM_EXPECT_ON_HOST : KM_EXPECT_ON_SIM,
             .oom = !out->file || !out->backend};
    const km_expect *e = &p->expect;
    for (size_t i = 0; i < e->nthreads && !c.oom; i++)
        if (applies(&c, e->threads[i].on))
            compare_thread(&c, &e->threads[i], doc);
    for (size_t i = 0; i < e->nregions && !c.oom; i++)
        if (applies(&c, e->regions[i].on))
            compare_region(&c, &e->regions[i], read, ctx);
    for (size_t i = 0; i < e->ncommands && !c.oom; i++)
        if (applies(&c, e->commands[i].on))
            compare_command(&c, &e->commands[i], doc);
    if (!c.oom)
        compare_unnamed(&c, doc);
    cJSON_Delete(doc);
    sort_by_place(out);
    if (c.oom)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory comparing a run with %s",
                       KS_QUOTED(out->file));
    return KM_OK;
}

void km_verdict_free(km_verdict *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        fix_free(&v->items[i].fix);
        free(v->items[i].subject);
        free(v->items[i].expected);
        free(v->items[i].got);
        free(v->items[i].text);
    }
    free(v->items);
    free(v->file);
    free(v->backend);
    *v = (km_verdict){0};
}

char *km_expect_run_dir(const char *run_json, bool *oom)
{
    km_json_mark m = km_json_watch();
    cJSON *doc = run_json ? cJSON_Parse(run_json) : NULL;
    const char *dir = cJSON_GetStringValue(item(doc, "run_dir"));
    char *copy = dir && *dir ? strdup(dir) : NULL;
    *oom = (!doc && km_json_ran_out(m)) || (dir && *dir && !copy);
    cJSON_Delete(doc);
    return copy;
}
