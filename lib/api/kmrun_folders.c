/* kmrun_folders: the public C API's folders (include/kmrun.h, "Run
 * folders" and "The build cache") — a stopped run's folder found and
 * read as `kmrun read-region` reads it (km_rundir.h), and the build cache
 * handled as `kmrun cache` handles it (km_cache.h): thin handles over the
 * library's own, every failure a kmrun_error. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "km_rundir.h"

static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

/* ---- Run folders -------------------------------------------------------- */

char *kmrun_runs_folder(const char *runs_dir)
{
    return km_runs_root(runs_dir);
}

kmrun_status kmrun_run_folder_find(const char *runs_dir, const char *run, char **folder,
                                   kmrun_error **err)
{
    clear(err);
    if (!folder)
        return km_api_usage(err, "kmrun_run_folder_find: folder is NULL");
    *folder = NULL;
    char *runs = km_runs_root(runs_dir);
    if (!runs)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the runs folder");
    km_error e = {0};
    int rc = km_rundir_find(runs, run, folder, &e);
    free(runs);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}

kmrun_status kmrun_run_folder_read(const char *folder, const char *name, int cluster, void **data,
                                   size_t *bytes, int *got_cluster, kmrun_error **err)
{
    clear(err);
    if (data)
        *data = NULL;
    if (bytes)
        *bytes = 0;
    if (!folder || !name || !data || !bytes)
        return km_api_usage(err, "kmrun_run_folder_read: %s is NULL",
                            !folder ? "the folder"
                            : !name ? "the region's name"
                            : !data ? "data"
                                    : "bytes");
    char *d = NULL;
    int got = 0;
    km_error e = {0};
    int rc = km_rundir_region(folder, name, cluster, &d, bytes, &got, &e);
    if (rc != KM_OK)
        return km_api_fail(err, rc, &e);
    *data = d;
    if (got_cluster)
        *got_cluster = got;
    return KMRUN_OK;
}

void kmrun_runs_sweep(const char *runs_dir)
{
    char *runs = km_runs_root(runs_dir);
    if (runs)
        km_rundir_sweep(runs);
    free(runs);
}

/* ---- The build cache ---------------------------------------------------- */

struct kmrun_cache {
    km_cache c;
    void (*warn)(const char *message, void *ctx);
    void *warn_ctx;
};

static void on_warning(const char *message, void *ctx)
{
    kmrun_cache *h = ctx;
    if (h->warn)
        h->warn(message, h->warn_ctx);
}

kmrun_status kmrun_cache_open(const char *folder, kmrun_cache **out, kmrun_error **err)
{
    clear(err);
    if (!out)
        return km_api_usage(err, "kmrun_cache_open: out is NULL");
    *out = NULL;
    kmrun_cache *h = calloc(1, sizeof *h);
    if (!h)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the cache");
    km_error e = {0};
    int rc = km_cache_open(&h->c, folder && *folder ? folder : NULL, &e);
    if (rc != KM_OK) {
        if (h->c.root)
            km_cache_close(&h->c);
        free(h);
        return km_api_fail(err, rc, &e);
    }
    h->c.warn = on_warning;
    h->c.warn_ctx = h;
    *out = h;
    return KMRUN_OK;
}

void kmrun_cache_close(kmrun_cache *c)
{
    if (!c)
        return;
    km_cache_close(&c->c);
    free(c);
}

void kmrun_cache_set_warning(kmrun_cache *c, void (*warn)(const char *message, void *ctx),
                             void *ctx)
{
    if (!c)
        return;
    c->warn = warn;
    c->warn_ctx = ctx;
}

const char *kmrun_cache_folder(const kmrun_cache *c)
{
    return c ? c->c.root : NULL;
}

km_cache *km_api_cache(kmrun_cache *c)
{
    return &c->c;
}

kmrun_status kmrun_cache_stats_get(kmrun_cache *c, kmrun_cache_stats *out, kmrun_error **err)
{
    clear(err);
    if (!c || !out)
        return km_api_usage(err, "kmrun_cache_stats_get: %s is NULL", !c ? "the cache" : "out");
    km_cache_stats s;
    km_error e = {0};
    int rc = km_cache_stats_get(&c->c, &s, &e);
    if (rc != KM_OK)
        return km_api_fail(err, rc, &e);
    *out = (kmrun_cache_stats){
        .entries = s.entries,
        .entry_bytes = s.entry_bytes,
        .records = s.records,
        .work_bytes = s.work_bytes,
        .hits = s.hits,
        .misses = s.misses,
        .remote_hits = s.remote_hits,
        .remote_misses = s.remote_misses,
        .remote_errors = s.remote_errors,
        .remote_stored = s.remote_stored,
        .results_reused = s.results_reused,
    };
    return KMRUN_OK;
}

kmrun_status kmrun_cache_gc(kmrun_cache *c, uint64_t max_bytes, uint64_t *removed,
                            uint64_t *kept, kmrun_error **err)
{
    clear(err);
    if (!c)
        return km_api_usage(err, "kmrun_cache_gc: the cache is NULL");
    km_error e = {0};
    int rc = km_cache_gc(&c->c, max_bytes, removed, kept, &e);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}

kmrun_status kmrun_cache_clear(kmrun_cache *c, uint64_t *kept, kmrun_error **err)
{
    clear(err);
    if (!c)
        return km_api_usage(err, "kmrun_cache_clear: the cache is NULL");
    km_error e = {0};
    int rc = km_cache_clear(&c->c, kept, &e);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}
