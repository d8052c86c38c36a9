/* kmrun_build: the public C API's builds (include/kmrun.h, "Builds") — a
 * program's images and kernels through the cache (km_build), and the
 * document `kmrun build` prints of them, written here once. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "api_internal.h"
#include "km_build.h"
#include "km_json.h"
#include "kmx_layout.h"

struct kmrun_build {
    km_build_result r;
    char *json;
    /* The caller's callbacks while it builds (the library's are given
     * the build, which passes its ctx on). */
    void (*diagnostic)(const kmrun_diagnostic *d, void *ctx);
    void (*output)(const char *line, void *ctx);
    void (*progress)(const char *line, void *ctx);
    void *ctx;
};

static void on_diagnostic(const km_diag *d, void *ctx)
{
    const struct kmrun_build *b = ctx;
    b->diagnostic((const kmrun_diagnostic *)d, b->ctx);
}

static void on_output(const char *line, void *ctx)
{
    const struct kmrun_build *b = ctx;
    b->output(line, b->ctx);
}

static void on_progress(const char *line, void *ctx)
{
    const struct kmrun_build *b = ctx;
    b->progress(line, b->ctx);
}

void kmrun_build_opts_init(kmrun_build_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
}

uint64_t kmrun_image_limit(void)
{
    return BH_IMAGE_MAX_BYTES;
}

static cJSON *built_json(const km_built *b)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "cache", b->hit ? "hit" : "miss");
    cJSON_AddStringToObject(o, "sha256", b->sha256);
    cJSON_AddStringToObject(o, "key", b->key);
    cJSON_AddStringToObject(o, "path", b->path);
    return o;
}

/* The document `kmrun build` prints; NULL when memory runs out for any
 * part of it. */
static char *build_json(const km_program *p, const km_build_result *r, const km_cache *c)
{
    km_json_mark m = km_json_watch();
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "program", p->name);
    if (p->manifest)
        cJSON_AddStringToObject(doc, "manifest", p->manifest);
    else
        cJSON_AddNullToObject(doc, "manifest");
    cJSON_AddStringToObject(doc, "cache", c->root);
    cJSON_AddStringToObject(doc, "handlers_header", r->handlers_header);
    cJSON_AddStringToObject(doc, "profile", r->debug ? "debug" : "release");
    cJSON *threads = cJSON_AddArrayToObject(doc, "threads");
    for (size_t i = 0; i < r->nthreads; i++) {
        const km_thread *t = &p->threads[i];
        const km_built *b = &r->threads[i];
        cJSON *o = cJSON_CreateObject();
        cJSON *cl = cJSON_AddArrayToObject(o, "clusters");
        for (size_t k = 0; k < t->nclusters; k++)
            cJSON_AddItemToArray(cl, cJSON_CreateNumber(t->clusters[k]));
        cJSON *img = built_json(b);
        cJSON_AddNumberToObject(img, "bytes", (double)b->bytes);
        cJSON_AddNumberToObject(img, "limit", BH_IMAGE_MAX_BYTES);
        cJSON_AddNumberToObject(img, "text", (double)b->text);
        cJSON_AddNumberToObject(img, "rodata", (double)b->rodata);
        cJSON_AddNumberToObject(img, "data", (double)b->data);
        cJSON_AddItemToObject(o, "image", img);
        if (r->has_hosts)
            cJSON_AddItemToObject(o, "host", built_json(&r->hosts[i]));
        cJSON_AddItemToArray(threads, o);
    }
    if (r->has_kernels) {
        cJSON *k = built_json(&r->kernels);
        cJSON *hs = cJSON_AddArrayToObject(k, "handlers");
        for (size_t i = 0; i < p->kernels.nhandlers; i++)
            cJSON_AddItemToArray(hs, cJSON_CreateString(p->kernels.handlers[i]));
        cJSON_AddItemToObject(doc, "kernels", k);
    } else {
        cJSON_AddNullToObject(doc, "kernels");
    }
    cJSON_AddNumberToObject(doc, "hits", r->hits);
    cJSON_AddNumberToObject(doc, "misses", r->misses);
    if (r->compile_commands)
        cJSON_AddStringToObject(doc, "compile_commands", r->compile_commands);
    char *text = km_json_ran_out(m) ? NULL : cJSON_Print(doc);
    cJSON_Delete(doc);
    return text;
}

kmrun_status kmrun_build_program(kmrun_cache *c, kmrun_program *p, const kmrun_build_opts *o,
                                 kmrun_build **out, kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!c || !p || !out)
        return km_api_usage(err, "kmrun_build_program: %s is NULL",
                            !c ? "the cache" : !p ? "the program" : "out");
    *out = NULL;
    kmrun_build_opts defaults;
    kmrun_build_opts_init(&defaults);
    if (!o)
        o = &defaults;
    kmrun_build_opts given;
    kmrun_status st = km_api_opts_copy(&given, o, offsetof(kmrun_build_opts, diagnostic),
                                       sizeof given, offsetof(kmrun_build_opts, color),
                                       "kmrun_build_opts", err);
    if (st != KMRUN_OK)
        return st;
    o = &given;
    if (o->jobs < 0 || o->jobs > 1024)
        return km_api_usage(err, "invalid job count %d (expected 1 to 1024, or 0: Ninja's)",
                            o->jobs);
    kmrun_status ready = km_api_program_ready(p, err);
    if (ready != KMRUN_OK)
        return ready;
    kmrun_build *b = calloc(1, sizeof *b);
    if (!b)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a build");
    km_diags found = {.limit = SIZE_MAX};
    b->diagnostic = o->diagnostic;
    b->output = o->output;
    b->progress = o->progress;
    b->ctx = o->ctx;
    km_build_opts bo = {
        .jobs = o->jobs,
        .host = o->host,
        .progress = o->progress ? on_progress : NULL,
        .output = o->output ? on_output : NULL,
        .diagnostic = o->diagnostic ? on_diagnostic : NULL,
        .color = (int)o->color,
        .failure = &found,
        .compile_commands = o->compile_commands,
        .debug = o->debug,
        .ctx = b,
    };
    char *painted = NULL; /* the failure's message in the compilers' colours */
    bo.painted = &painted;
    km_error e = {0};
    km_cache *kc = km_api_cache(c);
    int rc = km_build(p->p, kc, &bo, &b->r, &e);
    if (rc == KM_OK && !(b->json = build_json(p->p, &b->r, kc)))
        rc = km_fail(&e, KM_EXIT_SYSTEM, "out of memory for the build's JSON");
    if (rc != KM_OK) {
        kmrun_build_free(b);
        rc = km_api_error_found(err, rc, e.message, painted, &found, e.code);
        free(painted);
        return (kmrun_status)rc;
    }
    km_diags_free(&found);
    *out = b;
    return KMRUN_OK;
}

void kmrun_build_free(kmrun_build *b)
{
    if (!b)
        return;
    km_build_result_free(&b->r);
    free(b->json);
    free(b);
}

static void built_out(const km_built *b, kmrun_built *out)
{
    *out = (kmrun_built){
        .hit = b->hit,
        .sha256 = b->sha256,
        .key = b->key,
        .path = b->path,
        .bytes = b->bytes,
        .text = b->text,
        .rodata = b->rodata,
        .data = b->data,
    };
}

bool kmrun_build_image(const kmrun_build *b, size_t i, bool host, kmrun_built *out)
{
    if (!b || !out || i >= b->r.nthreads || (host && !b->r.has_hosts))
        return false;
    built_out(host ? &b->r.hosts[i] : &b->r.threads[i], out);
    return true;
}

bool kmrun_build_kernels(const kmrun_build *b, kmrun_built *out)
{
    if (!b || !out || !b->r.has_kernels)
        return false;
    built_out(&b->r.kernels, out);
    return true;
}

const char *kmrun_build_compile_commands(const kmrun_build *b)
{
    return b ? b->r.compile_commands : NULL;
}

const char *kmrun_build_json(const kmrun_build *b)
{
    return b ? b->json : NULL;
}
