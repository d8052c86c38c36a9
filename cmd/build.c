/* kmrun build: a program's images and kernels through the cache.  One JSON
 * document on stdout; a short summary, warnings and (on a terminal)
 * Ninja's progress on stderr. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_diag.h"
#include "cmd_opts.h"
#include "cmd_stderr.h"

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
    cmd_diag_compiler_line(line); /* with its colours, when painting */
}

/* --message-format=json: a compiler's finding, a line (cmd_diag.h). */
static void on_diagnostic(const kmrun_diagnostic *d, void *ctx)
{
    (void)ctx;
    cmd_diag_print(d);
}

static const cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* `sha256`'s first 12 hex digits and whether it was built or cached, of
 * a thing built in the build's JSON. */
static void built_text(const cJSON *b, char *out, size_t n)
{
    const char *sha = cJSON_GetStringValue(item(b, "sha256"));
    const char *cache = cJSON_GetStringValue(item(b, "cache"));
    snprintf(out, n, "%s %.12s", cache && strcmp(cache, "hit") == 0 ? "cached" : "built",
             sha ? sha : "");
}

/* The few lines on stderr after the JSON, of the build's JSON
 * (kmrun_build_json). */
static void print_summary(const cJSON *doc)
{
    fprintf(stderr, "%s: %d built, %d from the cache\n",
            cJSON_GetStringValue(item(doc, "program")), item(doc, "misses")->valueint,
            item(doc, "hits")->valueint);
    size_t i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, item(doc, "threads")) {
        const cJSON *img = item(t, "image"), *clusters = item(t, "clusters");
        char bytes[32], limit[32], built[48];
        kmrun_thousands((uint64_t)item(img, "bytes")->valuedouble, bytes, sizeof bytes);
        kmrun_thousands(kmrun_image_limit(), limit, sizeof limit);
        built_text(img, built, sizeof built);
        fprintf(stderr, "  thread %zu (cluster%s", i++,
                cJSON_GetArraySize(clusters) > 1 ? "s" : "");
        int k = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, clusters)
            fprintf(stderr, "%s%d", k++ ? ", " : " ", c->valueint);
        fprintf(stderr, "): %s of %s bytes, %s\n", bytes, limit, built);
    }
    const cJSON *k = item(doc, "kernels");
    if (cJSON_IsObject(k)) {
        int n = cJSON_GetArraySize(item(k, "handlers"));
        char built[48];
        built_text(k, built, sizeof built);
        fprintf(stderr, "  kernels: %d handler%s, %s\n", n, n == 1 ? "" : "s", built);
    }
    const char *commands = cJSON_GetStringValue(item(doc, "compile_commands"));
    if (commands)
        fprintf(stderr, "  compile commands: %s\n", commands);
}

int cmd_build(int argc, char **argv)
{
    kmrun_build_opts opts;
    kmrun_build_opts_init(&opts);
    int quiet = 0, c;
    const char *remote = NULL;
    bool verbose = false;
    cmd_opts o;
    cmd_opts_start(&o, "build", argc, argv);
    while ((c = cmd_opts_next(&o)) != CMD_OPTS_END) {
        switch (c) {
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1024)
                return cmd_usage_error("build", "invalid job count %s (expected 1 to 1024)",
                                      CMD_QUOTED(optarg));
            opts.jobs = (int)v;
            break;
        }
        case 'q':
            quiet = 1;
            break;
        case 'H':
            opts.host = true;
            break;
        case 'D':
            opts.debug = true;
            break;
        case 'C':
            opts.compile_commands = true;
            break;
        case 'S':
            remote = optarg;
            break;
        case 'v':
            verbose = true;
            break;
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    kmrun_program *p = NULL;
    int rc = cmd_load_one_program("build", argc, argv, &p);
    if (rc != KMRUN_OK)
        return rc;
    kmrun_cache *cache = NULL;
    rc = cmd_open_cache(&cache);
    if (rc == KMRUN_OK)
        rc = cmd_cache_remote(cache, "build", remote, verbose);
    progress pr = {0};
    opts.ctx = &pr;
    opts.output = on_output;
    if (!quiet && isatty(2) && !cmd_diag_json())
        opts.progress = on_progress;
    /* how the findings are told (cmd_diag.h) */
    opts.color = cmd_diag_compiler_color();
    if (cmd_diag_json())
        opts.diagnostic = on_diagnostic;
    kmrun_build *b = NULL;
    kmrun_error *err = NULL;
    if (rc == KMRUN_OK) {
        rc = kmrun_build_program(cache, p, &opts, &b, &err);
        if (rc != KMRUN_OK)
            cmd_diag_error(err);
    }
    if (pr.live)
        cmd_stderr_control(stderr, "\r\033[K");
    if (rc == KMRUN_OK) {
        printf("%s\n", kmrun_build_json(b));
        /* the summary is a person's: not in JSON lines */
        cJSON *doc = quiet || cmd_diag_json() ? NULL : cJSON_Parse(kmrun_build_json(b));
        if (doc)
            print_summary(doc);
        cJSON_Delete(doc);
    }
    kmrun_error_free(err);
    kmrun_build_free(b);
    kmrun_cache_close(cache);
    kmrun_program_free(p);
    return rc;
}
