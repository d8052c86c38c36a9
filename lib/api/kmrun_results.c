/* kmrun_results: the public C API's remote storage and results reused
 * (include/kmrun_tools.h, "The build cache" and "Results reused"): a
 * run's key, and its JSON stored as a cache entry (result.json, and
 * regions.json: each run-folder file's SHA-256), locally and remotely. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api_internal.h"
#include "km_cache.h"
#include "km_fs.h"
#include "km_hash.h"
#include "km_json.h"
#include "km_remote.h"

static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

kmrun_status kmrun_cache_set_remote(kmrun_cache *c, const char *url, kmrun_error **err)
{
    clear(err);
    if (!c)
        return km_api_usage(err, "kmrun_cache_set_remote: the cache is NULL");
    km_cache *kc = km_api_cache(c);
    km_cache_remote_close(kc);
    km_cache_set_remote(kc, url);
    if (url && *url) {
        /* A URL of another form is the caller's mistake, told now. */
        km_error e = {0};
        km_remote *r = NULL;
        int rc = km_remote_open(url, &r, &e);
        km_remote_close(r);
        if (rc != KM_OK)
            return km_api_fail(err, rc, &e);
    }
    return KMRUN_OK;
}

void kmrun_cache_set_note(kmrun_cache *c, void (*note)(const char *line, void *ctx), void *ctx)
{
    if (c)
        km_cache_set_note(km_api_cache(c), note, ctx);
}

/* ---- the key ------------------------------------------------------------------ */

/* The file's content, and its path as `shown` (relative to the program's
 * folder: a program checked out elsewhere has the same key). */
static int hash_file_into(km_hasher *h, const char *path, const char *shown, km_error *err)
{
    km_digest d;
    int rc = km_hash_file(path, &d, err);
    km_hasher_str(h, shown);
    km_hasher_digest(h, &d);
    return rc;
}

/* path below root as "./rest", else path. */
static const char *below(const char *path, const char *root, char *buf, size_t n)
{
    const char *rest = root ? km_path_under(path, root) : NULL;
    if (!rest)
        return path;
    snprintf(buf, n, "./%s", rest);
    return buf;
}

/* Every "file" member's file in the program's JSON (a region's bytes). */
static int hash_files(km_hasher *h, const cJSON *j, const char *root, km_error *err)
{
    int rc = KM_OK;
    const cJSON *it;
    cJSON_ArrayForEach(it, j) {
        if (rc != KM_OK)
            break;
        char buf[4096];
        if (it->string && strcmp(it->string, "file") == 0 && cJSON_IsString(it))
            rc = hash_file_into(h, it->valuestring,
                                below(it->valuestring, root, buf, sizeof buf), err);
        else if (cJSON_IsObject(it) || cJSON_IsArray(it))
            rc = hash_files(h, it, root, err);
    }
    return rc;
}

/* The strings of j that name paths below root, rewritten "./rest". */
static void relative_paths(cJSON *j, const char *root)
{
    cJSON *it;
    cJSON_ArrayForEach(it, j) {
        char buf[4096];
        const char *shown;
        if (cJSON_IsString(it) && (shown = below(it->valuestring, root, buf, sizeof buf)) == buf)
            cJSON_SetValuestring(it, buf);
        else if (cJSON_IsObject(it) || cJSON_IsArray(it))
            relative_paths(it, root);
    }
}

static void hash_built(km_hasher *h, const kmrun_built *x)
{
    km_hasher_str(h, x->sha256);
}

kmrun_status kmrun_result_key(const kmrun_build *b, const kmrun_program *p, const char *backend,
                              char key[65], kmrun_error **err)
{
    clear(err);
    if (!b || !p || !backend || !key)
        return km_api_usage(err, "kmrun_result_key: an argument is NULL");
    km_hasher h;
    km_hasher_init(&h);
    km_hasher_str(&h, "kmrun-result-1");
    km_hasher_str(&h, KMRUN_VERSION);
    km_hasher_str(&h, backend);
    km_error e = {0};
    int rc = KM_OK;
    /* The code that runs it: kmrun's own object, the simulator inside. */
    Dl_info info;
    if (dladdr((void *)kmrun_result_key, &info) && info.dli_fname && *info.dli_fname &&
        strchr(info.dli_fname, '/'))
        rc = hash_file_into(&h, info.dli_fname, "kmrun", &e);
    else
        rc = hash_file_into(&h, "/proc/self/exe", "kmrun", &e);
    kmrun_built x;
    for (size_t i = 0; kmrun_build_image(b, i, false, &x); i++) {
        hash_built(&h, &x);
        if (strcmp(backend, "host") == 0 && kmrun_build_image(b, i, true, &x))
            hash_built(&h, &x);
    }
    if (kmrun_build_kernels(b, &x))
        hash_built(&h, &x);
    char *json = NULL;
    kmrun_error *pe = NULL;
    if (kmrun_program_json(p, &json, &pe) != KMRUN_OK) {
        kmrun_error_free(pe);
        km_digest d;
        (void)km_hasher_final(&h, &d); /* frees it */
        return km_api_error(err, KMRUN_SYSTEM, "cannot describe the program for its result key");
    }
    /* The program as its JSON says, its paths relative to its folder (the
     * manifest's, absolute), the manifest's own path (as given) left out. */
    km_json_mark m = km_json_watch();
    cJSON *doc = cJSON_Parse(json);
    free(json);
    if (rc == KM_OK && !doc)
        rc = km_fail(&e, KM_EXIT_SYSTEM, "out of memory making the result key");
    cJSON *manifest = cJSON_DetachItemFromObjectCaseSensitive(doc, "manifest");
    char *root = NULL;
    if (cJSON_IsString(manifest)) {
        char *real = realpath(manifest->valuestring, NULL);
        root = real ? km_dirname(real) : NULL;
        if (rc == KM_OK && ((real && !root) || (!real && errno == ENOMEM)))
            rc = km_fail(&e, KM_EXIT_SYSTEM, "out of memory making the result key");
        free(real);
    }
    if (rc == KM_OK && cJSON_IsString(manifest))
        rc = hash_file_into(&h, manifest->valuestring, "manifest", &e); /* its expect: too */
    if (rc == KM_OK)
        rc = hash_files(&h, doc, root, &e);
    relative_paths(doc, root);
    char *text = rc == KM_OK && !km_json_ran_out(m) ? cJSON_PrintUnformatted(doc) : NULL;
    if (rc == KM_OK && !text)
        rc = km_fail(&e, KM_EXIT_SYSTEM, "out of memory making the result key");
    km_hasher_str(&h, text ? text : "");
    free(text);
    free(root);
    cJSON_Delete(manifest);
    cJSON_Delete(doc);
    if (rc != KM_OK) {
        km_digest d;
        (void)km_hasher_final(&h, &d); /* frees it; the failure is rc's */
        return km_api_fail(err, rc, &e);
    }
    km_digest d;
    if (!km_hasher_final(&h, &d))
        return km_api_error(err, KMRUN_SYSTEM, "out of memory making the result key");
    km_digest_hex(&d, key);
    return KMRUN_OK;
}

/* ---- the results ------------------------------------------------------------- */

/* The entry's key for a result's key: its own namespace.  KM_OK,
 * KM_EXIT_USAGE (not a key) or KM_EXIT_SYSTEM (out of memory). */
static int entry_key(const char *key, km_digest *out)
{
    km_digest k;
    if (!key || km_digest_parse(key, &k) != 0)
        return KM_EXIT_USAGE;
    km_hasher h;
    km_hasher_init(&h);
    km_hasher_str(&h, "kmrun-result-entry-1");
    km_hasher_digest(&h, &k);
    return km_hasher_final(&h, out) ? KM_OK : KM_EXIT_SYSTEM;
}

kmrun_status kmrun_cache_result_get(kmrun_cache *c, const char *key, char **run_json,
                                    kmrun_error **err)
{
    clear(err);
    if (!c || !run_json)
        return km_api_usage(err, "kmrun_cache_result_get: an argument is NULL");
    *run_json = NULL;
    km_digest ek;
    int known = entry_key(key, &ek);
    if (known == KM_EXIT_SYSTEM)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory looking up a result");
    if (known != KM_OK)
        return km_api_usage(err, "kmrun_cache_result_get: '%s' is not a key", key ? key : "");
    km_cache *kc = km_api_cache(c);
    km_error e = {0};
    char *dir = NULL;
    int rc = km_cache_get(kc, &ek, &dir, NULL, &e);
    bool fetched = false;
    if (rc == KM_CACHE_MISS && km_cache_remote_entry(kc, &ek, "result") == KM_OK) {
        fetched = true;
        rc = km_cache_get(kc, &ek, &dir, NULL, &e);
    }
    if (rc != KM_OK) {
        if (rc != KM_CACHE_MISS)
            return km_api_fail(err, rc, &e);
        return KMRUN_FAILED;
    }
    char *path = km_path_join(dir, "result.json"), *text = NULL;
    free(dir);
    if (!path)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory looking up a result");
    rc = km_read_file(path, &text, NULL, &e);
    bool short_of_memory = rc != KM_OK && errno == ENOMEM;
    free(path);
    km_json_mark m = km_json_watch();
    cJSON *doc = rc == KM_OK ? cJSON_Parse(text) : NULL;
    if (short_of_memory || (!doc && km_json_ran_out(m))) { /* nothing of the entry: kept */
        free(text);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory looking up a result");
    }
    if (!doc) {
        free(text);
        km_cache_reject(kc, &ek, "its result.json is not JSON");
        if (fetched)
            km_cache_add(kc, KM_COUNT_REMOTE_ERRORS, 1);
        return KMRUN_FAILED;
    }
    cJSON_Delete(doc);
    if (fetched)
        km_cache_add(kc, KM_COUNT_REMOTE_HITS, 1);
    km_cache_add(kc, KM_COUNT_RESULTS_REUSED, 1);
    km_cache_count(kc, 0, 0);
    *run_json = text;
    return KMRUN_OK;
}

/* {"name": sha256} of each regular file of the run folder. */
static char *folder_digests(const char *folder)
{
    cJSON *o = cJSON_CreateObject();
    DIR *d = o && folder ? opendir(folder) : NULL;
    struct dirent *de;
    bool ok = o != NULL;
    while (ok && d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *path = km_path_join(folder, de->d_name);
        struct stat st;
        km_digest dg;
        char hex[KM_HEX_LEN];
        ok = path != NULL;
        if (ok && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            errno = 0;
            if (km_hash_file(path, &dg, NULL) == KM_OK) {
                km_digest_hex(&dg, hex);
                ok = cJSON_AddStringToObject(o, de->d_name, hex) != NULL;
            } else {
                ok = errno != ENOMEM;
            }
        }
        free(path);
    }
    if (d)
        closedir(d);
    char *text = ok ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    return text;
}

kmrun_status kmrun_cache_result_put(kmrun_cache *c, const char *key, const char *run_json,
                                    const char *run_folder, kmrun_error **err)
{
    clear(err);
    if (!c || !run_json)
        return km_api_usage(err, "kmrun_cache_result_put: an argument is NULL");
    km_digest ek;
    int known = entry_key(key, &ek);
    if (known == KM_EXIT_SYSTEM)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a result");
    if (known != KM_OK)
        return km_api_usage(err, "kmrun_cache_result_put: '%s' is not a key", key ? key : "");
    char *regions = folder_digests(run_folder);
    if (!regions)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a result");
    km_cache_file files[] = {
        {.name = "result.json", .data = run_json, .bytes = strlen(run_json)},
        {.name = "regions.json", .data = regions, .bytes = strlen(regions)},
    };
    km_cache *kc = km_api_cache(c);
    km_error e = {0};
    char *dir = NULL;
    int rc = km_cache_put(kc, &ek, files, 2, NULL, &dir, &e);
    free(dir);
    if (rc == KM_OK)
        km_cache_remote_put_entry(kc, &ek, files, 2, NULL, "result");
    km_cache_count(kc, 0, 0);
    free(regions);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}
