/* kmrun_json: the public C API's program as JSON (include/kmrun.h,
 * kmrun_program_json) — the program model as `kmrun validate --json`
 * prints it, its ports' dealing as the run JSON lists it (km_ports_json:
 * the same function). */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "api_internal.h"
#include "km_json.h"
#include "km_ports.h"
#include "km_run_json.h"

/* cJSON returns NULL when out of memory; so does every helper here, and
 * an adder given NULL adds nothing: the caller watches every allocation
 * (km_json_watch) and drops a document that came out short. */

static cJSON *strings(char *const *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateString(v[i]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

static cJSON *words(const uint32_t *v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

static const char *init_name(km_init_kind k)
{
    switch (k) {
    case KM_INIT_ZERO: return "zero";
    case KM_INIT_FILE: return "file";
    case KM_INIT_WORDS: return "words";
    case KM_INIT_FILL: return "fill";
    case KM_INIT_BYTES: return "bytes"; /* built in code: never a manifest's */
    }
    return "unknown";
}

/* A new object at the end of array a; NULL (a freed) when memory ran
 * out. */
static cJSON *append_object(cJSON *a)
{
    cJSON *o = cJSON_CreateObject();
    if (!cJSON_AddItemToArray(a, o)) {
        cJSON_Delete(o);
        cJSON_Delete(a);
        return NULL;
    }
    return o;
}

/* {name, size, init: "zero"|"file"|"words"|"fill", file | words | fill} */
static cJSON *regions(const km_region *r, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *o = append_object(a);
        if (!o)
            return NULL;
        cJSON_AddStringToObject(o, "name", r[i].name);
        cJSON_AddNumberToObject(o, "size", (double)r[i].size);
        cJSON_AddStringToObject(o, "init", init_name(r[i].init));
        if (r[i].init == KM_INIT_FILE)
            cJSON_AddStringToObject(o, "file", r[i].file);
        else if (r[i].init == KM_INIT_WORDS)
            cJSON_AddItemToObject(o, "words", words(r[i].words, r[i].nwords));
        else if (r[i].init == KM_INIT_FILL)
            cJSON_AddNumberToObject(o, "fill", r[i].fill);
    }
    return a;
}

static cJSON *thread_json(const km_thread *t)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *clusters = cJSON_CreateArray();
    cJSON_AddItemToObject(o, "clusters", clusters);
    for (size_t i = 0; clusters && i < t->nclusters; i++)
        cJSON_AddItemToArray(clusters, cJSON_CreateNumber(t->clusters[i]));
    cJSON_AddItemToObject(o, "sources", strings(t->sources, t->nsources));
    cJSON_AddItemToObject(o, "regions", regions(t->regions, t->nregions));
    cJSON_AddItemToObject(o, "shared", strings(t->shared, t->nshared));
    cJSON_AddItemToObject(o, "words", words(t->words, t->nwords));
    cJSON_AddNumberToObject(o, "deadline_us", (double)t->deadline_us);
    cJSON_AddStringToObject(o, "prefetch",
                            t->prefetch == KM_PREFETCH_KEEP ? "keep" : "default");
    cJSON_AddStringToObject(o, "ring", t->ring == KM_RING_CACHED ? "cached" : "remote");
    cJSON_AddItemToObject(o, "cflags", strings(t->cflags, t->ncflags));
    cJSON_AddStringToObject(o, "compiler", t->compiler == KM_COMPILER_CLANG ? "clang" : "gcc");
    return o;
}

/* null without `ports:`; {kind: "default"} or {kind: "serve", serve: [...]},
 * with the dealing that follows: which X280 core serves which Tensix cores,
 * as the run JSON's `ports` lists it (the same function). */
static cJSON *ports_json(const km_program *program)
{
    const km_ports *p = &program->ports;
    km_port_dealing dealing;
    if (!km_ports_deal(program, &dealing))
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "kind", p->kind == KM_PORTS_SERVE ? "serve" : "default");
    if (p->kind == KM_PORTS_SERVE) {
        cJSON *a = cJSON_AddArrayToObject(o, "serve");
        for (size_t i = 0; a && i < p->nserve; i++) {
            cJSON *s = cJSON_CreateObject();
            if (!cJSON_AddItemToArray(a, s)) {
                cJSON_Delete(s);
                break;
            }
            cJSON_AddNumberToObject(s, "core", p->serve[i].core);
            cJSON_AddNumberToObject(s, "cluster", p->serve[i].cluster);
            cJSON_AddNumberToObject(s, "x280_core", p->serve[i].x280_core);
        }
    }
    cJSON_AddItemToObject(o, "dealing", km_ports_json(program, &dealing));
    return o;
}

static cJSON *pull_json(const km_pull *p)
{
    if (!p->present)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    static const char *const modes[] = {"count", "log", "replay"};
    cJSON_AddNumberToObject(o, "units", p->units);
    cJSON_AddNumberToObject(o, "per", p->per);
    cJSON_AddStringToObject(o, "mode", (unsigned)p->mode < 3 ? modes[p->mode] : "unknown");
    if (p->log)
        cJSON_AddStringToObject(o, "log", p->log);
    else
        cJSON_AddNullToObject(o, "log");
    return o;
}

static cJSON *commands_json(const km_host_command *c, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++) {
        cJSON *o = append_object(a);
        if (!o)
            return NULL;
        cJSON_AddStringToObject(o, "handler", c[i].handler);
        cJSON_AddNumberToObject(o, "handler_id", c[i].handler_id);
        cJSON_AddNumberToObject(o, "first", c[i].first);
        cJSON_AddNumberToObject(o, "count", c[i].count);
        cJSON_AddItemToObject(o, "args", words(c[i].args, c[i].nargs));
        cJSON_AddBoolToObject(o, "result", c[i].result);
        cJSON_AddBoolToObject(o, "exclusive", c[i].exclusive);
        cJSON_AddBoolToObject(o, "wait", c[i].wait);
    }
    return a;
}

static cJSON *program_json(const km_program *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (p->manifest)
        cJSON_AddStringToObject(o, "manifest", p->manifest);
    else
        cJSON_AddNullToObject(o, "manifest");
    cJSON_AddStringToObject(o, "name", p->name);
    cJSON_AddNumberToObject(o, "x280_mhz", p->x280_mhz);
    cJSON *kernels = cJSON_AddObjectToObject(o, "kernels");
    if (kernels) {
        cJSON_AddItemToObject(kernels, "sources",
                              strings(p->kernels.sources, p->kernels.nsources));
        cJSON_AddItemToObject(kernels, "handlers",
                              strings(p->kernels.handlers, p->kernels.nhandlers));
        cJSON_AddItemToObject(kernels, "cflags",
                              strings(p->kernels.cflags, p->kernels.ncflags));
    }
    cJSON_AddItemToObject(o, "regions", regions(p->regions, p->nregions));
    cJSON *threads = cJSON_AddArrayToObject(o, "threads");
    for (size_t i = 0; threads && i < p->nthreads; i++)
        cJSON_AddItemToArray(threads, thread_json(&p->threads[i]));
    cJSON_AddItemToObject(o, "ports", ports_json(p));
    cJSON_AddItemToObject(o, "pull", pull_json(&p->pull));
    cJSON_AddItemToObject(o, "commands", commands_json(p->commands, p->ncommands));
    return o;
}

kmrun_status kmrun_program_json(const kmrun_program *p, char **json, kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!p || !json)
        return km_api_usage(err, "kmrun_program_json: %s is NULL", !p ? "the program" : "json");
    *json = NULL;
    km_json_mark m = km_json_watch();
    cJSON *doc = program_json(p->p);
    char *text = doc && !km_json_ran_out(m) ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (!text)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the program's JSON");
    *json = text;
    return KMRUN_OK;
}
