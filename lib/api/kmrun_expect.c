/* kmrun_expect: the public C API's expected results (include/kmrun.h,
 * "Expected results") — a run held to its manifest's `expect:`
 * (km_expect.h), in memory or as `kmrun run` left it, and what `kmrun
 * test` needs around it: its programs, shards and reports (km_suite.h). */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "km_bless.h"
#include "km_expect.h"
#include "km_rundir.h"
#include "km_suite.h"
#include "ks_text.h"

static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

bool kmrun_program_has_expect(const kmrun_program *p)
{
    return p && p->p->expect.present;
}

size_t kmrun_program_expect_backends(const kmrun_program *p, kmrun_backend out[2])
{
    if (!kmrun_program_has_expect(p))
        return 0;
    size_t n = 0;
    if (p->p->expect.backends & KM_EXPECT_ON_SIM)
        out[n++] = KMRUN_BACKEND_SIM;
    if (p->p->expect.backends & KM_EXPECT_ON_HOST)
        out[n++] = KMRUN_BACKEND_HOST;
    return n;
}

/* ---- the comparison --------------------------------------------------- */

struct kmrun_verdict {
    km_verdict v;
    char *folder; /* the run folder its regions were read from; NULL: none */
};

_Static_assert(KM_EXPECT_UNIT == KM_REGION_UNIT, "a copy's data map is the one km_expect reads");

/* A region from a run in memory (kmrun_run_read), with its copy's data
 * map: what was never written is hashed unread. */
static int read_run(void *ctx, const char *name, int cluster, const void **data, size_t *bytes,
                    void **owned, const uint64_t **map, void **owned_map, km_error *err)
{
    const kmrun_run *r = ctx;
    kmrun_error *e = NULL;
    *owned = NULL;
    *owned_map = NULL;
    kmrun_status rc = kmrun_run_read(r, cluster, name, data, bytes, &e);
    if (rc != KMRUN_OK)
        km_fail(err, rc, "%s", kmrun_error_message(e));
    for (size_t i = 0; rc == KMRUN_OK && i < r->ncopies; i++)
        if (r->copies[i].bytes == *data)
            *map = r->copies[i].data;
    kmrun_error_free(e);
    return rc;
}

/* A region from a run folder (km_rundir_region_mapped: its holes hashed
 * unread). */
static int read_folder(void *ctx, const char *name, int cluster, const void **data,
                       size_t *bytes, void **owned, const uint64_t **map, void **owned_map,
                       km_error *err)
{
    char *d = NULL;
    uint64_t *m = NULL;
    int got = 0;
    int rc = km_rundir_region_mapped(ctx, name, cluster, &d, bytes, &got, &m, err);
    *data = d;
    *owned = d;
    *map = m;
    *owned_map = m;
    return rc;
}

static kmrun_status compare(const kmrun_program *p, const char *json, km_expect_reader read,
                            void *ctx, kmrun_verdict **out, kmrun_error **err)
{
    kmrun_verdict *v = calloc(1, sizeof *v);
    if (!v)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a verdict");
    km_error e = {0};
    int rc = km_expect_check(p->p, json, read, ctx, &v->v, &e);
    if (rc != KM_OK) {
        kmrun_verdict_free(v);
        return km_api_fail(err, rc, &e);
    }
    *out = v;
    return KMRUN_OK;
}

kmrun_status kmrun_expect_run(const kmrun_program *p, const kmrun_run *r, kmrun_verdict **out,
                              kmrun_error **err)
{
    clear(err);
    if (!out || !p || !r)
        return km_api_usage(err, "kmrun_expect_run: %s is NULL",
                            !out ? "out" : !p ? "the program" : "the run");
    *out = NULL;
    const char *json = kmrun_run_json(r);
    if (!json)
        return km_api_usage(err, "the run has not stopped (expected a run after its stop)");
    kmrun_status rc = compare(p, json, read_run, (void *)r, out, err);
    const char *folder = kmrun_run_folder(r);
    if (rc == KMRUN_OK && folder && !((*out)->folder = strdup(folder))) {
        kmrun_verdict_free(*out);
        *out = NULL;
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a verdict");
    }
    return rc;
}

kmrun_status kmrun_expect_json(const kmrun_program *p, const char *run_json, const char *folder,
                               kmrun_verdict **out, kmrun_error **err)
{
    clear(err);
    if (!out || !p || !run_json)
        return km_api_usage(err, "kmrun_expect_json: %s is NULL",
                            !out ? "out" : !p ? "the program" : "the run's JSON");
    *out = NULL;
    bool oom = false;
    char *dir = folder ? strdup(folder) : km_expect_run_dir(run_json, &oom);
    if ((folder && !dir) || oom)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a verdict");
    kmrun_status rc = compare(p, run_json, dir ? read_folder : NULL, dir, out, err);
    if (rc == KMRUN_OK)
        (*out)->folder = dir;
    else
        free(dir);
    return rc;
}

const char *kmrun_verdict_backend(const kmrun_verdict *v)
{
    return v ? v->v.backend : NULL;
}

const char *kmrun_verdict_folder(const kmrun_verdict *v)
{
    return v ? v->folder : NULL;
}

size_t kmrun_verdict_checked(const kmrun_verdict *v)
{
    return v ? v->v.checked : 0;
}

size_t kmrun_verdict_mismatches(const kmrun_verdict *v)
{
    return v ? v->v.n : 0;
}

bool kmrun_verdict_mismatch(const kmrun_verdict *v, size_t i, kmrun_mismatch *out)
{
    if (!v || i >= v->v.n || !out)
        return false;
    const km_mismatch *m = &v->v.items[i];
    *out = (kmrun_mismatch){
        .file = v->v.file,
        .line = m->pos.line,
        .col = m->pos.col,
        .subject = m->subject,
        .expected = m->expected,
        .got = m->got,
        .text = m->text,
    };
    return true;
}

kmrun_diagnostic *kmrun_verdict_diagnostic(const kmrun_verdict *v, size_t i)
{
    if (!v || i >= v->v.n)
        return NULL;
    const km_mismatch *m = &v->v.items[i];
    kmrun_diagnostic *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->g.code = "test.mismatch";
    d->g.severity = KM_SEVERITY_ERROR;
    d->g.line = m->pos.line;
    d->g.col = m->pos.col;
    d->g.file = strdup(v->v.file);
    d->g.message = ks_strf("%s: expected %s, got %s", m->subject, m->expected, m->got);
    if (!d->g.file || !d->g.message) {
        kmrun_diagnostic_free(d);
        return NULL;
    }
    km_diags one = {.items = &d->g, .count = 1, .cap = 1};
    km_diags_read_text(&one); /* the expectation's line, as the file has it now */
    return d;
}

void kmrun_verdict_free(kmrun_verdict *v)
{
    if (!v)
        return;
    km_verdict_free(&v->v);
    free(v->folder);
    free(v);
}

bool kmrun_verdict_blessable(const kmrun_verdict *v, size_t i)
{
    return v && i < v->v.n && v->v.items[i].fix.ok;
}

/* ---- blessing ------------------------------------------------------------- */

struct kmrun_blessing {
    km_bless b;
};

kmrun_status kmrun_blessing_new(const kmrun_program *p, kmrun_blessing **out,
                                kmrun_error **err)
{
    clear(err);
    if (!out || !p)
        return km_api_usage(err, "kmrun_blessing_new: %s is NULL", !out ? "out" : "the program");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a blessing");
    km_bless_init(&(*out)->b, p->p);
    return KMRUN_OK;
}

kmrun_status kmrun_blessing_add(kmrun_blessing *b, const kmrun_verdict *v, kmrun_error **err)
{
    clear(err);
    if (!b || !v)
        return km_api_usage(err, "kmrun_blessing_add: %s is NULL", !b ? "the blessing" : "v");
    km_error e = {0};
    int rc = km_bless_add(&b->b, &v->v, &e);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}

kmrun_status kmrun_blessing_passed(kmrun_blessing *b, kmrun_backend backend, kmrun_error **err)
{
    clear(err);
    if (!b)
        return km_api_usage(err, "kmrun_blessing_passed: the blessing is NULL");
    km_error e = {0};
    int rc = km_bless_passed(&b->b, backend == KMRUN_BACKEND_HOST ? KM_EXPECT_ON_HOST
                                                                  : KM_EXPECT_ON_SIM, &e);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}

kmrun_status kmrun_blessing_write(kmrun_blessing *b, size_t *written, kmrun_error **err)
{
    clear(err);
    if (written)
        *written = 0;
    if (!b)
        return km_api_usage(err, "kmrun_blessing_write: the blessing is NULL");
    km_error e = {0};
    int rc = km_bless_write(&b->b, &e);
    if (written)
        *written = b->b.written;
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}

void kmrun_blessing_free(kmrun_blessing *b)
{
    if (!b)
        return;
    km_bless_free(&b->b);
    free(b);
}

/* ---- kmrun test's programs, shards and reports -------------------------- */

struct kmrun_test_list {
    km_suite_list l;
};

kmrun_status kmrun_test_find(const char *const *paths, size_t n, kmrun_test_list **out,
                             kmrun_error **err)
{
    clear(err);
    if (!out || (!paths && n))
        return km_api_usage(err, "kmrun_test_find: %s is NULL", !out ? "out" : "paths");
    *out = NULL;
    kmrun_test_list *l = calloc(1, sizeof *l);
    if (!l)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory finding programs");
    km_error e = {0};
    int rc = km_suite_find(paths, n, &l->l, &e);
    if (rc != KM_OK) {
        free(l);
        return km_api_fail(err, rc, &e);
    }
    *out = l;
    return KMRUN_OK;
}

size_t kmrun_test_count(const kmrun_test_list *l)
{
    return l ? l->l.n : 0;
}

const char *kmrun_test_path(const kmrun_test_list *l, size_t i)
{
    return l && i < l->l.n ? l->l.paths[i] : NULL;
}

void kmrun_test_list_free(kmrun_test_list *l)
{
    if (!l)
        return;
    km_suite_list_free(&l->l);
    free(l);
}

bool kmrun_test_shard_parse(const char *text, unsigned *index, unsigned *count)
{
    unsigned i, n;
    if (!km_suite_shard_parse(text, &i, &n))
        return false;
    if (index)
        *index = i;
    if (count)
        *count = n;
    return true;
}

bool kmrun_test_in_shard(size_t i, unsigned index, unsigned count)
{
    return km_suite_in_shard(i, index, count);
}

void kmrun_test_case_init(kmrun_test_case *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
}

static km_case case_of(const kmrun_test_case *c)
{
    static const km_case_outcome outcome[] = {KM_CASE_PASS, KM_CASE_FAIL, KM_CASE_SKIP,
                                              KM_CASE_BLESSED};
    return (km_case){
        .manifest = c->manifest ? c->manifest : "(no manifest)",
        .backend = c->backend,
        .outcome = (unsigned)c->outcome < 4 ? outcome[c->outcome] : KM_CASE_FAIL,
        .seconds = c->seconds,
        .summary = c->summary,
        .detail = c->detail,
        .more = c->more,
        .run_folder = c->run_folder,
        .reused = c->size >= offsetof(kmrun_test_case, reused) + sizeof c->reused && c->reused,
    };
}

char *kmrun_test_line(const kmrun_test_case *c, kmrun_test_format f, size_t number)
{
    if (!c || c->size != sizeof *c)
        return NULL;
    km_case k = case_of(c);
    return km_suite_line(&k, f == KMRUN_TEST_TAP, number);
}

kmrun_status kmrun_test_junit(const char *path, const kmrun_test_case *cases, size_t n,
                              kmrun_error **err)
{
    clear(err);
    if (!path || !*path || (!cases && n))
        return km_api_usage(err, "kmrun_test_junit: %s", !path || !*path ? "no file named"
                                                                         : "cases is NULL");
    for (size_t i = 0; i < n; i++)
        if (cases[i].size != sizeof *cases)
            return km_api_usage(err,
                                "invalid kmrun_test_case size %zu (expected %zu: set it with "
                                "kmrun_test_case_init)",
                                cases[i].size, sizeof *cases);
    km_case *k = calloc(n ? n : 1, sizeof *k);
    if (!k)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the JUnit report");
    for (size_t i = 0; i < n; i++)
        k[i] = case_of(&cases[i]);
    km_error e = {0};
    int rc = km_suite_junit(path, k, n, &e);
    free(k);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}
