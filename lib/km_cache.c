/* km_cache: entries and records of the content-addressed cache (km_cache.h). */
#include "km_cache.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_internal.h"
#include "km_fs.h"

#define ENTRY_FORMAT 1
#define ENTRY_JSON "entry.json"

char *km_cache_default_root(km_error *err)
{
    const char *env = getenv("KMRUN_CACHE");
    if (env && *env)
        return strdup(env);
    char *root = NULL;
    env = getenv("XDG_CACHE_HOME");
    if (env && *env && asprintf(&root, "%s/kmrun", env) >= 0)
        return root;
    env = getenv("HOME");
    if (env && *env && asprintf(&root, "%s/.cache/kmrun", env) >= 0)
        return root;
    km_fail(err, KM_EXIT_SYSTEM,
            "cannot find a cache folder: set KMRUN_CACHE, XDG_CACHE_HOME or HOME");
    return NULL;
}

int km_cache_open(km_cache *c, const char *root, km_error *err)
{
    memset(c, 0, sizeof *c);
    char *r = root ? strdup(root) : km_cache_default_root(err);
    if (!r)
        return KM_EXIT_SYSTEM;
    static const char *const dirs[] = {"objects", "direct", "tmp"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char *d = km_path_join(r, dirs[i]);
        int rc = km_mkdir_p(d, err);
        free(d);
        if (rc != KM_OK) {
            free(r);
            return rc;
        }
    }
    /* Backup and indexing tools skip a folder with this tag. */
    char *tag = km_path_join(r, "CACHEDIR.TAG");
    if (access(tag, F_OK) != 0) {
        static const char text[] = "Signature: 8a477f597d28d172789f06886806bc55\n"
                                   "# kmrun's build cache; see 'kmrun cache'.\n";
        km_write_file_atomic(tag, text, sizeof text - 1, NULL);
    }
    free(tag);
    c->root = r;
    return KM_OK;
}

void km_cache_close(km_cache *c)
{
    free(c->root);
    c->root = NULL;
}

static void warn(km_cache *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn(km_cache *c, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->warn)
        c->warn(msg, c->warn_ctx);
}

/* objects/ab/cdef... for a key. */
static char *keyed_path(const km_cache *c, const char *kind, const km_digest *key)
{
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    char *p = NULL;
    if (asprintf(&p, "%s/%s/%.2s/%s", c->root, kind, hex, hex + 2) < 0)
        abort();
    return p;
}

/* Moves a broken entry out of the way in one step, then deletes it, so no
 * reader ever sees it half removed. */
int km_cache_discard(km_cache *c, const char *dir)
{
    char *tmp = NULL;
    int rc = -1, saved = 0;
    if (asprintf(&tmp, "%s/tmp/discard.XXXXXX", c->root) < 0)
        abort();
    if (mkdtemp(tmp)) {
        char *dest = km_path_join(tmp, "entry");
        rc = rename(dir, dest);
        saved = errno;
        if (rc == 0)
            km_rm_rf(tmp);
        else
            rmdir(tmp);
        free(dest);
    } else {
        saved = errno;
    }
    free(tmp);
    errno = saved;
    return rc;
}

/* Checks an entry folder against its entry.json; NULL and a reason in why
 * when it does not hold. */
static cJSON *verify(const char *dir, const km_digest *key, char *why, size_t n)
{
    char *path = km_path_join(dir, ENTRY_JSON), *text = NULL;
    int rc = km_read_file(path, &text, NULL, NULL);
    free(path);
    if (rc != KM_OK) {
        snprintf(why, n, "its %s is missing", ENTRY_JSON);
        return NULL;
    }
    cJSON *doc = cJSON_Parse(text);
    free(text);
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(doc, "key");
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files");
    if (!doc || !cJSON_IsString(k) || strcmp(k->valuestring, hex) != 0 ||
        !cJSON_IsArray(files)) {
        snprintf(why, n, "its %s is damaged", ENTRY_JSON);
        cJSON_Delete(doc);
        return NULL;
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, files) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(f, "name");
        const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(f, "bytes");
        const cJSON *sha = cJSON_GetObjectItemCaseSensitive(f, "sha256");
        if (!cJSON_IsString(name) || !cJSON_IsNumber(bytes) || !cJSON_IsString(sha) ||
            strchr(name->valuestring, '/')) {
            snprintf(why, n, "its %s is damaged", ENTRY_JSON);
            cJSON_Delete(doc);
            return NULL;
        }
        char *fp = km_path_join(dir, name->valuestring);
        struct stat st;
        km_digest d;
        char got[KM_HEX_LEN] = "";
        int ok = stat(fp, &st) == 0 && (double)st.st_size == bytes->valuedouble &&
                 km_hash_file(fp, &d, NULL) == KM_OK;
        if (ok)
            km_digest_hex(&d, got);
        free(fp);
        if (!ok || strcmp(got, sha->valuestring) != 0) {
            snprintf(why, n, "'%s' does not match its checksum", name->valuestring);
            cJSON_Delete(doc);
            return NULL;
        }
    }
    return doc;
}

void km_cache_reject(km_cache *c, const km_digest *key, const char *why)
{
    char *dir = keyed_path(c, "objects", key);
    if (km_cache_discard(c, dir) == 0)
        warn(c, "cache entry '%s' is corrupt (%s); removing it and building again", dir, why);
    else
        warn(c, "cache entry '%s' is corrupt (%s) and cannot be removed (%s); building again "
                "without it",
             dir, why, strerror(errno));
    free(dir);
}

int km_cache_get(km_cache *c, const km_digest *key, char **entry_dir, cJSON **meta)
{
    char *dir = keyed_path(c, "objects", key);
    struct stat st;
    if (stat(dir, &st) != 0) {
        free(dir);
        return KM_CACHE_MISS;
    }
    char why[512];
    cJSON *doc = verify(dir, key, why, sizeof why);
    if (!doc) {
        km_cache_reject(c, key, why);
        free(dir);
        return KM_CACHE_MISS;
    }
    /* Its time says when it was last used, for gc's least-recently-used. */
    char *ej = km_path_join(dir, ENTRY_JSON);
    utimensat(AT_FDCWD, ej, NULL, 0);
    free(ej);
    if (meta)
        *meta = cJSON_DetachItemFromObjectCaseSensitive(doc, "meta");
    cJSON_Delete(doc);
    if (entry_dir)
        *entry_dir = dir;
    else
        free(dir);
    return KM_OK;
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int km_cache_put(km_cache *c, const km_digest *key, const km_cache_file *files,
                 size_t nfiles, const cJSON *meta, char **entry_dir, km_error *err)
{
    char *tmp = NULL;
    if (asprintf(&tmp, "%s/tmp/entry.XXXXXX", c->root) < 0)
        abort();
    if (!mkdtemp(tmp)) {
        int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write to the cache '%s'", c->root);
        free(tmp);
        return rc;
    }
    chmod(tmp, 0755);
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "format", ENTRY_FORMAT);
    cJSON_AddStringToObject(doc, "key", hex);
    cJSON *list = cJSON_AddArrayToObject(doc, "files");
    int rc = KM_OK;
    for (size_t i = 0; i < nfiles && rc == KM_OK; i++) {
        char *dest = km_path_join(tmp, files[i].name);
        km_digest d;
        struct stat st;
        rc = km_copy_file(files[i].path, dest, err);
        if (rc == KM_OK)
            rc = km_hash_file(dest, &d, err);
        if (rc == KM_OK && stat(dest, &st) != 0)
            rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", dest);
        if (rc == KM_OK) {
            char dh[KM_HEX_LEN];
            km_digest_hex(&d, dh);
            cJSON *f = cJSON_CreateObject();
            cJSON_AddStringToObject(f, "name", files[i].name);
            cJSON_AddNumberToObject(f, "bytes", (double)st.st_size);
            cJSON_AddStringToObject(f, "sha256", dh);
            cJSON_AddItemToArray(list, f);
        }
        free(dest);
    }
    if (rc == KM_OK) {
        cJSON_AddItemToObject(doc, "meta", meta ? cJSON_Duplicate(meta, 1) : cJSON_CreateObject());
        char *text = cJSON_Print(doc);
        char *ej = km_path_join(tmp, ENTRY_JSON);
        rc = km_write_file_atomic(ej, text, strlen(text), err);
        free(ej);
        free(text);
    }
    cJSON_Delete(doc);
    char *dir = keyed_path(c, "objects", key);
    if (rc == KM_OK) {
        char *parent = km_dirname(dir);
        rc = km_mkdir_p(parent, err);
        if (rc == KM_OK)
            fsync_dir(tmp);
        /* One rename publishes the whole entry.  When it is taken, another
         * build stored the same key first: keep a good one, replace a bad. */
        bool placed = false, stuck = false;
        for (int attempt = 0; rc == KM_OK && !placed && !stuck && attempt < 3; attempt++) {
            if (rename(tmp, dir) == 0) {
                fsync_dir(parent);
                placed = true;
                break;
            }
            struct stat st;
            int saved = errno;
            /* Taken, or in a folder we may not change (a shared cache). */
            if (saved != ENOTEMPTY && saved != EEXIST && stat(dir, &st) != 0) {
                errno = saved;
                rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot store '%s' in the cache", dir);
                break;
            }
            char why[512];
            cJSON *other = verify(dir, key, why, sizeof why);
            if (other) {
                cJSON_Delete(other);
                placed = true; /* a racing writer's, as good as ours */
                break;
            }
            stuck = km_cache_discard(c, dir) != 0;
        }
        if (rc == KM_OK && !placed) {
            /* A corrupt entry that cannot be removed is never served: this
             * build's entry stays where it was written (gc removes it). */
            warn(c, "cannot replace the corrupt cache entry '%s'; this build's copy is '%s'",
                 dir, tmp);
            free(dir);
            dir = tmp;
            tmp = NULL;
        }
        free(parent);
    }
    if (tmp)
        km_rm_rf(tmp);
    free(tmp);
    if (rc == KM_OK && entry_dir)
        *entry_dir = dir;
    else
        free(dir);
    return rc;
}

int km_cache_record_get(km_cache *c, const km_digest *key, char **text)
{
    char *path = keyed_path(c, "direct", key);
    int rc = km_read_file(path, text, NULL, NULL);
    free(path);
    return rc == KM_OK ? KM_OK : KM_CACHE_MISS;
}

int km_cache_record_put(km_cache *c, const km_digest *key, const char *text,
                        km_error *err)
{
    char *path = keyed_path(c, "direct", key);
    char *parent = km_dirname(path);
    int rc = km_mkdir_p(parent, err);
    if (rc == KM_OK)
        rc = km_write_file_atomic(path, text, strlen(text), err);
    free(parent);
    free(path);
    return rc;
}

int km_cache_hold(km_cache *c, bool exclusive, km_error *err)
{
    char *path = km_path_join(c->root, "lock");
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        fd = open(path, O_RDONLY | O_CLOEXEC); /* another user's shared cache */
    int rc = fd < 0 ? -1 : flock(fd, exclusive ? LOCK_EX : LOCK_SH);
    if (rc != 0) {
        km_fail_errno(err, KM_EXIT_SYSTEM, "cannot lock the cache '%s'", path);
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    free(path);
    return fd;
}

char *km_cache_subdir(km_cache *c, const char *name, km_error *err)
{
    char *p = km_path_join(c->root, name);
    if (km_mkdir_p(p, err) != KM_OK) {
        free(p);
        return NULL;
    }
    return p;
}

/* The counters file, read and rewritten under an exclusive lock so that
 * concurrent builds add up. */
static int stats_io(km_cache *c, unsigned add_hits, unsigned add_misses,
                    uint64_t *hits, uint64_t *misses)
{
    char *path = km_path_join(c->root, "stats");
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    free(path);
    if (fd < 0)
        return -1;
    flock(fd, LOCK_EX);
    char buf[128] = "";
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    unsigned long long h = 0, m = 0;
    if (n > 0) {
        buf[n] = 0;
        sscanf(buf, "hits %llu misses %llu", &h, &m);
    }
    if (add_hits || add_misses) {
        h += add_hits;
        m += add_misses;
        int len = snprintf(buf, sizeof buf, "hits %llu misses %llu\n", h, m);
        if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)len, 0) != len)
            h = m = 0;
    }
    close(fd);
    if (hits)
        *hits = h;
    if (misses)
        *misses = m;
    return 0;
}

void km_cache_count(km_cache *c, unsigned hits, unsigned misses)
{
    stats_io(c, hits, misses, NULL, NULL);
}

int km_cache_read_counters(km_cache *c, uint64_t *hits, uint64_t *misses)
{
    return stats_io(c, 0, 0, hits, misses);
}
