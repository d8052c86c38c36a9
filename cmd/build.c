/* kmrun build: a program's images and kernels through the cache.  One JSON
 * document on stdout; a short summary, warnings and (on a terminal)
 * Ninja's progress on stderr. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_stderr.h"
#include "km_build.h"
#include "ks_text.h"
#include "kmx_layout.h"

typedef struct progress {
    int live; /* a status line is on the terminal, to overwrite */
} progress;

static void on_progress(const char *line, void *ctx)
{
    progress *p = ctx;
    cmd_stderr_control(stderr, "\r\033[K");
    fputs(line, stderr);
    fflush(stderr);
    p->live = 1;
}

static void on_output(const char *line, void *ctx)
{
    progress *p = ctx;
    if (p->live) {
        cmd_stderr_control(stderr, "\r\033[K");
        p->live = 0;
    }
    fprintf(stderr, "%s\n", line);
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

static void print_json(const km_program *p, const km_build_result *r, const km_cache *c)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "program", p->name);
    cJSON_AddStringToObject(doc, "manifest", p->manifest);
    cJSON_AddStringToObject(doc, "cache", c->root);
    cJSON_AddStringToObject(doc, "handlers_header", r->handlers_header);
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
    char *text = cJSON_Print(doc);
    printf("%s\n", text);
    free(text);
    cJSON_Delete(doc);
}

static void print_summary(const km_program *p, const km_build_result *r)
{
    fprintf(stderr, "%s: %u built, %u from the cache\n", p->name, r->misses, r->hits);
    for (size_t i = 0; i < r->nthreads; i++) {
        const km_built *b = &r->threads[i];
        char bytes[32], limit[32];
        ks_thousands(b->bytes, bytes, sizeof bytes);
        ks_thousands(BH_IMAGE_MAX_BYTES, limit, sizeof limit);
        fprintf(stderr, "  thread %zu (cluster%s", i, p->threads[i].nclusters > 1 ? "s" : "");
        for (size_t k = 0; k < p->threads[i].nclusters; k++)
            fprintf(stderr, "%s%d", k ? ", " : " ", p->threads[i].clusters[k]);
        fprintf(stderr, "): %s of %s bytes, %s %.12s\n", bytes, limit,
                b->hit ? "cached" : "built", b->sha256);
    }
    if (r->has_kernels)
        fprintf(stderr, "  kernels: %zu handler%s, %s %.12s\n", p->kernels.nhandlers,
                p->kernels.nhandlers == 1 ? "" : "s", r->kernels.hit ? "cached" : "built",
                r->kernels.sha256);
}

int cmd_build(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"jobs", required_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"host", no_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    km_build_opts opts = {0};
    int quiet = 0, c;
    while ((c = getopt_long(argc, argv, ":j:q", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1024)
                return cmd_usage_error("build", "invalid job count %s (expected 1 to 1024)",
                                      KS_QUOTED(optarg));
            opts.jobs = (int)v;
            break;
        }
        case 'q':
            quiet = 1;
            break;
        case 'H':
            opts.host = true;
            break;
        default:
            return cmd_option_error("build", c, argv, longopts);
        }
    }
    km_program *p = NULL;
    int rc = cmd_load_one_manifest("build", argc, argv, &p);
    if (rc != KM_OK)
        return rc;
    km_cache cache;
    km_error err = {0};
    rc = cmd_open_km_cache(&cache, &err);
    progress pr = {0};
    opts.ctx = &pr;
    opts.output = on_output;
    if (!quiet && isatty(2))
        opts.progress = on_progress;
    km_build_result r = {0};
    if (rc == KM_OK)
        rc = km_build(p, &cache, &opts, &r, &err);
    if (pr.live)
        cmd_stderr_control(stderr, "\r\033[K");
    if (rc == KM_OK) {
        print_json(p, &r, &cache);
        if (!quiet)
            print_summary(p, &r);
    } else {
        fprintf(stderr, "kmrun: %s\n", err.message);
    }
    km_build_result_free(&r);
    if (cache.root)
        km_cache_close(&cache);
    km_program_free(p);
    return rc;
}
