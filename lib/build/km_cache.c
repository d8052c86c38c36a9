/* km_cache: entries and records of the content-addressed cache (km_cache.h).
 * Every path below the root is reached from the root's descriptor without
 * following links (km_fs_at.h). */
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
#include "km_fs_at.h"
#include "km_json.h"
#include "km_remote.h"
#include "ks_text.h"

#define ENTRY_FORMAT 1
#define ENTRY_JSON "entry.json"
char *km_cache_default_root(km_error *err)
{
    const char *env = getenv("KMRUN_CACHE");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (!(env && *env) && !(xdg && *xdg) && !(home && *home)) {
        km_fail(err, KM_EXIT_SYSTEM,
                "cannot find a cache folder: set KMRUN_CACHE, XDG_CACHE_HOME or HOME");
        return NULL;
    }
    char *root = env && *env   ? strdup(env)
                 : xdg && *xdg ? ks_strf("%s/kmrun", xdg)
                               : ks_strf("%s/.cache/kmrun", home);
    if (!root) /* not another folder than the one named: none */
        km_fail(err, KM_EXIT_SYSTEM, "out of memory finding the cache folder");
    return root;
}

int km_cache_open(km_cache *c, const char *root, km_error *err)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    char *r = root ? strdup(root) : km_cache_default_root(err);
    if (!r)
        return KM_EXIT_SYSTEM;
    /* The root is the user's choice (a link to it is theirs to make);
     * everything below it is kmrun's, reached from its descriptor. */
    int rc = km_mkdir_p(r, err);
    int fd = rc == KM_OK ? open(r, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (rc == KM_OK && fd < 0)
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot open the cache '%s'", r);
    static const char *const dirs[] = {"objects", "direct", "tmp"};
    for (size_t i = 0; rc == KM_OK && i < sizeof dirs / sizeof dirs[0]; i++) {
        int d = km_at_dir(fd, dirs[i], true, r, err);
        if (d < 0)
            rc = KM_EXIT_SYSTEM;
        else
            close(d);
    }
    if (rc != KM_OK) {
        if (fd >= 0)
            close(fd);
        free(r);
        return rc;
    }
    /* Backup and indexing tools skip a folder with this tag. */
    struct stat st;
    if (fstatat(fd, "CACHEDIR.TAG", &st, AT_SYMLINK_NOFOLLOW) != 0) {
        static const char text[] = "Signature: 8a477f597d28d172789f06886806bc55\n"
                                   "# kmrun's build cache; see 'kmrun cache'.\n";
        km_at_write(fd, "CACHEDIR.TAG", text, sizeof text - 1, false, r, NULL);
    }
    c->root = r;
    c->fd = fd;
    return KM_OK;
}

void km_cache_close(km_cache *c)
{
    if (c->fd >= 0)
        km_cache_count(c, 0, 0); /* the pending counters */
    km_cache_remote_close(c);
    for (size_t i = 0; i < c->npins; i++)
        close(c->pins[i]);
    free(c->pins);
    c->pins = NULL;
    c->npins = 0;
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
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

/* root/objects/ab/cdef... for a key; NULL when memory ran out. */
static char *keyed_path(const km_cache *c, const char *kind, const char *hex)
{
    return ks_strf("%s/%s/%.2s/%s", c->root, kind, hex, hex + 2);
}

int km_cache_shard(km_cache *c, const char *kind, const char *hex, bool create, km_error *err)
{
    char rel[32];
    snprintf(rel, sizeof rel, "%s/%.2s", kind, hex);
    return km_at_dir(c->fd, rel, create, c->root, err);
}

/* Two opens of the same folder or file? */
static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Releases this handle's own pin on the entry at dir/name, if it has one. */
static void unpin(km_cache *c, int dir, const char *name)
{
    struct stat st, pst;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    for (size_t i = 0; i < c->npins; i++) {
        if (fstat(c->pins[i], &pst) == 0 && same_file(&st, &pst)) {
            close(c->pins[i]);
            c->pins[i] = c->pins[--c->npins];
            return;
        }
    }
}

int km_cache_take(int dir, const char *name)
{
    int fd = openat(dir, name, KM_AT_DIR_FLAGS);
    if (fd < 0)
        return errno == ELOOP || errno == ENOTDIR ? -2 : -1; /* not a folder: nothing to lock */
    struct stat a, b;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        errno = EBUSY;
        return -1;
    }
    /* Still the one at dir/name, not one moved away meanwhile. */
    if (fstat(fd, &a) != 0 || fstatat(dir, name, &b, AT_SYMLINK_NOFOLLOW) != 0 ||
        !same_file(&a, &b)) {
        close(fd);
        errno = ENOENT;
        return -1;
    }
    return fd;
}

int km_cache_discard(km_cache *c, int dir, const char *name)
{
    unpin(c, dir, name);
    int lock = km_cache_take(dir, name);
    if (lock == -1)
        return -1; /* in use (EBUSY), gone, or unreadable */
    int tmp = km_at_dir(c->fd, "tmp", false, NULL, NULL), saved = errno;
    char *away = NULL;
    int rc = -1;
    if (tmp >= 0 && km_at_mkdtemp(tmp, "discard", &away) == 0) {
        int into = openat(tmp, away, KM_AT_DIR_FLAGS);
        rc = into >= 0 ? renameat(dir, name, into, "entry") : -1;
        saved = errno;
        if (into >= 0)
            close(into);
        km_at_rm_rf(tmp, away);
    } else {
        saved = errno;
    }
    free(away);
    if (tmp >= 0)
        close(tmp);
    if (lock >= 0)
        close(lock);
    errno = saved;
    return rc;
}

typedef enum verdict { ENTRY_OK, ENTRY_BAD, ENTRY_UNCHECKED } verdict;

/* Whether an error reading an entry's file says the entry is bad (a file
 * missing or of the wrong kind) or only that it could not be checked now
 * (memory, descriptors, I/O): only the first may condemn it. */
static verdict verdict_of_errno(int e)
{
    return e == ENOENT || e == ELOOP || e == ENOTDIR || e == EISDIR || e == EINVAL
               ? ENTRY_BAD
               : ENTRY_UNCHECKED;
}

/* The entry.json of the entry folder fd, parsed. */
static verdict read_entry_json(int fd, cJSON **doc, char *why, size_t n, km_error *err)
{
    *doc = NULL;
    int jf = openat(fd, ENTRY_JSON, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    char *text = NULL;
    km_error e = {0};
    int rc = jf < 0 ? km_fail_errno(&e, KM_EXIT_SYSTEM, "cannot open its %s", ENTRY_JSON)
                    : km_read_fd(jf, ENTRY_JSON, &text, NULL, &e);
    int saved = errno;
    if (jf >= 0)
        close(jf);
    if (rc != KM_OK) {
        verdict v = jf < 0 || saved == EINVAL ? verdict_of_errno(saved) : ENTRY_UNCHECKED;
        snprintf(why, n, "its %s is %s", ENTRY_JSON,
                 saved == ENOENT ? "missing" : "not a regular file");
        if (v == ENTRY_UNCHECKED)
            km_fail(err, KM_EXIT_SYSTEM, "%s", e.message);
        return v;
    }
    /* a parse that failed because memory ran out says nothing about the
     * text, and must not condemn an entry */
    km_json_mark m = km_json_watch();
    *doc = cJSON_Parse(text);
    free(text);
    if (!*doc && km_json_ran_out(m)) {
        km_fail(err, KM_EXIT_SYSTEM, "out of memory reading its %s", ENTRY_JSON);
        return ENTRY_UNCHECKED;
    }
    return ENTRY_OK;
}

/* Checks the entry folder fd against its entry.json: ENTRY_OK with the
 * document in *out, ENTRY_BAD with a reason in why, or ENTRY_UNCHECKED
 * with err saying what ran out or failed. */
static verdict verify(int fd, const char *hex, cJSON **out, char *why, size_t n, km_error *err)
{
    cJSON *doc;
    verdict v = read_entry_json(fd, &doc, why, n, err);
    if (v != ENTRY_OK)
        return v;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(doc, "key");
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files");
    if (!doc || !cJSON_IsString(k) || strcmp(k->valuestring, hex) != 0 ||
        !cJSON_IsArray(files)) {
        snprintf(why, n, "its %s is damaged", ENTRY_JSON);
        cJSON_Delete(doc);
        return ENTRY_BAD;
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
            return ENTRY_BAD;
        }
        int ff = openat(fd, name->valuestring, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        km_digest d;
        char got[KM_HEX_LEN] = "";
        km_error e = {0};
        if (ff < 0 || fstat(ff, &st) != 0 || !S_ISREG(st.st_mode)) {
            v = ff < 0 ? verdict_of_errno(errno) : ENTRY_BAD;
            if (v == ENTRY_UNCHECKED)
                km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read its '%s'", name->valuestring);
        } else if ((double)st.st_size != bytes->valuedouble) {
            v = ENTRY_BAD;
        } else if (km_hash_fd(ff, name->valuestring, &d, &e) != KM_OK) {
            v = ENTRY_UNCHECKED;
            km_fail(err, KM_EXIT_SYSTEM, "%s", e.message);
        } else {
            km_digest_hex(&d, got);
            v = strcmp(got, sha->valuestring) == 0 ? ENTRY_OK : ENTRY_BAD;
        }
        if (ff >= 0)
            close(ff);
        if (v != ENTRY_OK) {
            snprintf(why, n, "'%s' does not match its checksum", name->valuestring);
            cJSON_Delete(doc);
            return v;
        }
    }
    *out = doc;
    return ENTRY_OK;
}

/* The entry at dir/name opened and locked shared: a pin, which gc and
 * clear (km_cache_take) respect.  -1 when it is not there (any more). */
static int pin_open(int dir, const char *name, int *open_errno)
{
    int fd = openat(dir, name, KM_AT_DIR_FLAGS);
    *open_errno = fd < 0 ? errno : 0;
    if (fd < 0)
        return -1;
    struct stat a, b;
    /* A discard holds it exclusive while it moves it: after the wait, it
     * must still be the one in place. */
    if (flock(fd, LOCK_SH) != 0 || fstat(fd, &a) != 0 ||
        fstatat(dir, name, &b, AT_SYMLINK_NOFOLLOW) != 0 || !same_file(&a, &b)) {
        close(fd);
        *open_errno = ENOENT;
        return -1;
    }
    return fd;
}

static void keep_pin(km_cache *c, int fd)
{
    int *more = realloc(c->pins, (c->npins + 1) * sizeof *more);
    if (!more) {
        close(fd); /* unpinned: at worst a concurrent gc makes us rebuild */
        return;
    }
    c->pins = more;
    c->pins[c->npins++] = fd;
}

static void reject_at(km_cache *c, int shard, const char *hex, const char *why)
{
    if (km_cache_discard(c, shard, hex + 2) == 0 || errno == ENOENT)
        warn(c, "cache entry '%s/objects/%.2s/%s' is corrupt (%s); removing it and building "
                "again",
             c->root, hex, hex + 2, why);
    else
        warn(c, "cache entry '%s/objects/%.2s/%s' is corrupt (%s) and cannot be removed (%s); "
                "building again without it",
             c->root, hex, hex + 2, why, strerror(errno));
}

void km_cache_reject(km_cache *c, const km_digest *key, const char *why)
{
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    int shard = km_cache_shard(c, "objects", hex, false, NULL);
    if (shard >= 0) {
        reject_at(c, shard, hex, why);
        close(shard);
    }
}

int km_cache_get(km_cache *c, const km_digest *key, char **entry_dir, cJSON **meta,
                 km_error *err)
{
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    km_error e = {0};
    int shard = km_cache_shard(c, "objects", hex, false, &e);
    if (shard < 0)
        return errno == ENOENT ? KM_CACHE_MISS : km_fail(err, KM_EXIT_SYSTEM, "%s", e.message);
    int open_errno;
    int fd = pin_open(shard, hex + 2, &open_errno);
    if (fd < 0) {
        int rc = KM_CACHE_MISS;
        if (open_errno == ELOOP || open_errno == ENOTDIR)
            reject_at(c, shard, hex, "it is not a folder"); /* a link or a file: removed */
        else if (open_errno != ENOENT) {
            errno = open_errno;
            rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot open the cache entry '%s/objects/"
                               "%.2s/%s'", c->root, hex, hex + 2);
        }
        close(shard);
        return rc;
    }
    char why[512];
    cJSON *doc = NULL;
    verdict v = verify(fd, hex, &doc, why, sizeof why, &e);
    if (v != ENTRY_OK) {
        close(fd);
        int rc = KM_CACHE_MISS;
        if (v == ENTRY_BAD)
            reject_at(c, shard, hex, why);
        else
            rc = km_fail(err, KM_EXIT_SYSTEM, "cannot check the cache entry '%s/objects/%.2s/%s' "
                         "(it is left as it is): %s", c->root, hex, hex + 2, e.message);
        close(shard);
        return rc;
    }
    close(shard);
    char *dir = entry_dir ? keyed_path(c, "objects", hex) : NULL;
    if (entry_dir && !dir) {
        close(fd);
        cJSON_Delete(doc);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory naming the cache entry '%s/objects/"
                       "%.2s/%s'", c->root, hex, hex + 2);
    }
    /* Its time says when it was last used, for gc's least-recently-used. */
    utimensat(fd, ENTRY_JSON, NULL, AT_SYMLINK_NOFOLLOW);
    keep_pin(c, fd);
    if (meta)
        *meta = cJSON_DetachItemFromObjectCaseSensitive(doc, "meta");
    cJSON_Delete(doc);
    if (entry_dir)
        *entry_dir = dir;
    return KM_OK;
}

/* Copies files into the new entry folder fd and writes its entry.json. */
static int fill_entry(int fd, const char *shown, const char *hex, const km_cache_file *files,
                      size_t nfiles, const cJSON *meta, km_error *err)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON *list = doc && cJSON_AddNumberToObject(doc, "format", ENTRY_FORMAT) &&
                          cJSON_AddStringToObject(doc, "key", hex)
                      ? cJSON_AddArrayToObject(doc, "files")
                      : NULL;
    int rc = list ? KM_OK : km_fail(err, KM_EXIT_SYSTEM, "out of memory writing a cache entry");
    for (size_t i = 0; i < nfiles && rc == KM_OK; i++) {
        char *data = NULL;
        size_t n = 0;
        if (files[i].path) {
            rc = km_read_file(files[i].path, &data, &n, err);
        } else if (!(data = malloc(files[i].bytes ? files[i].bytes : 1))) {
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory writing a cache entry");
        } else {
            memcpy(data, files[i].data, files[i].bytes);
            n = files[i].bytes;
        }
        if (rc == KM_OK)
            rc = km_at_write(fd, files[i].name, data, n, false, shown, err);
        if (rc == KM_OK) {
            km_hasher h;
            km_digest d;
            char dh[KM_HEX_LEN];
            km_hasher_init(&h);
            km_hasher_bytes(&h, data, n);
            bool ok = km_hasher_final(&h, &d);
            km_digest_hex(&d, dh);
            cJSON *f = ok ? cJSON_CreateObject() : NULL;
            ok = f && cJSON_AddStringToObject(f, "name", files[i].name) &&
                 cJSON_AddNumberToObject(f, "bytes", (double)n) &&
                 cJSON_AddStringToObject(f, "sha256", dh);
            if (!ok || !cJSON_AddItemToArray(list, f)) {
                cJSON_Delete(f); /* not in the list */
                rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory writing a cache entry");
            }
        }
        free(data);
    }
    if (rc == KM_OK) {
        cJSON *m = meta ? cJSON_Duplicate(meta, 1) : cJSON_CreateObject();
        if (!m || !cJSON_AddItemToObject(doc, "meta", m)) {
            cJSON_Delete(m);
            m = NULL;
        }
        char *text = m ? cJSON_Print(doc) : NULL;
        rc = text ? km_at_write(fd, ENTRY_JSON, text, strlen(text), false, shown, err)
                  : km_fail(err, KM_EXIT_SYSTEM, "out of memory writing a cache entry");
        free(text);
    }
    cJSON_Delete(doc);
    if (rc == KM_OK)
        fsync(fd);
    return rc;
}

/* Publishes tmp/<name> as objects/ab/<rest>: one rename.  When the key is
 * taken, another build stored it first: keep a good one, replace a bad.
 * *placed false (and KM_OK) when a corrupt entry holds the key and cannot
 * be removed. */
static int publish(km_cache *c, int tmp, const char *name, int shard, const char *hex,
                   bool *placed, km_error *err)
{
    *placed = false;
    for (int attempt = 0; attempt < 3; attempt++) {
        if (renameat(tmp, name, shard, hex + 2) == 0) {
            fsync(shard);
            *placed = true;
            return KM_OK;
        }
        int saved = errno;
        struct stat st;
        /* Taken, or in a folder we may not change (a shared cache). */
        if (saved != ENOTEMPTY && saved != EEXIST && saved != ENOTDIR &&
            fstatat(shard, hex + 2, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            errno = saved;
            return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot store '%s/objects/%.2s/%s' in the "
                                 "cache", c->root, hex, hex + 2);
        }
        int open_errno, other = pin_open(shard, hex + 2, &open_errno);
        char why[512];
        cJSON *doc = NULL;
        km_error e = {0};
        verdict v = other >= 0 ? verify(other, hex, &doc, why, sizeof why, &e) : ENTRY_BAD;
        cJSON_Delete(doc);
        if (other >= 0)
            close(other);
        if (v == ENTRY_OK) {
            *placed = true; /* a racing writer's, as good as ours */
            return KM_OK;
        }
        if (v == ENTRY_UNCHECKED)
            return km_fail(err, KM_EXIT_SYSTEM, "cannot check the cache entry '%s/objects/%.2s/%s' "
                           "(it is left as it is): %s", c->root, hex, hex + 2, e.message);
        if (km_cache_discard(c, shard, hex + 2) != 0 && errno != ENOENT)
            return KM_OK;
    }
    return KM_OK;
}

int km_cache_put(km_cache *c, const km_digest *key, const km_cache_file *files,
                 size_t nfiles, const cJSON *meta, char **entry_dir, km_error *err)
{
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    int tmp = km_at_dir(c->fd, "tmp", false, c->root, err);
    if (tmp < 0)
        return KM_EXIT_SYSTEM;
    char *name = NULL;
    if (km_at_mkdtemp(tmp, "entry", &name) != 0) {
        close(tmp);
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write to the cache '%s'", c->root);
    }
    char *shown = ks_strf("%s/tmp/%s", c->root, name);
    if (!shown) {
        km_at_rm_rf(tmp, name);
        close(tmp);
        free(name);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory writing to the cache '%s'", c->root);
    }
    int fd = openat(tmp, name, KM_AT_DIR_FLAGS);
    int rc = fd < 0 ? km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write '%s'", shown)
                    : fill_entry(fd, shown, hex, files, nfiles, meta, err);
    if (fd >= 0)
        close(fd);
    int shard = rc == KM_OK ? km_cache_shard(c, "objects", hex, true, err) : -1;
    if (rc == KM_OK && shard < 0)
        rc = KM_EXIT_SYSTEM;
    bool placed = false;
    if (rc == KM_OK)
        rc = publish(c, tmp, name, shard, hex, &placed, err);
    char *dir = NULL;
    if (rc == KM_OK && placed) {
        int open_errno, pin = pin_open(shard, hex + 2, &open_errno);
        if (pin >= 0)
            keep_pin(c, pin);
        /* (stored: running out of memory naming it loses nothing) */
        dir = keyed_path(c, "objects", hex);
        if (!dir)
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory naming the cache entry '%s/objects/"
                         "%.2s/%s'", c->root, hex, hex + 2);
    } else if (rc == KM_OK) {
        /* A corrupt entry that cannot be removed is never served: this
         * build's entry stays where it was written, pinned (gc removes it
         * once no one uses it). */
        warn(c, "cannot replace the corrupt cache entry '%s/objects/%.2s/%s'; this build's copy "
                "is '%s'",
             c->root, hex, hex + 2, shown);
        int open_errno, pin = pin_open(tmp, name, &open_errno);
        if (pin >= 0)
            keep_pin(c, pin);
        dir = shown;
        shown = NULL;
        free(name);
        name = NULL;
    }
    if (name)
        km_at_rm_rf(tmp, name); /* gone already when it was renamed */
    if (shard >= 0)
        close(shard);
    close(tmp);
    free(name);
    free(shown);
    if (rc == KM_OK && entry_dir)
        *entry_dir = dir;
    else
        free(dir);
    return rc;
}

int km_cache_record_get(km_cache *c, const km_digest *key, char **text)
{
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    int shard = km_cache_shard(c, "direct", hex, false, NULL);
    int fd = shard >= 0 ? openat(shard, hex + 2, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                        : -1;
    int rc = fd >= 0 ? km_read_fd(fd, "record", text, NULL, NULL) : KM_CACHE_MISS;
    if (fd >= 0)
        close(fd);
    if (shard >= 0)
        close(shard);
    return rc == KM_OK ? KM_OK : KM_CACHE_MISS;
}

int km_cache_record_put(km_cache *c, const km_digest *key, const char *text,
                        km_error *err)
{
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    int shard = km_cache_shard(c, "direct", hex, true, err);
    if (shard < 0)
        return KM_EXIT_SYSTEM;
    char *shown = ks_strf("%s/direct/%.2s", c->root, hex);
    if (!shown) {
        close(shard);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory writing to the cache '%s'", c->root);
    }
    int rc = km_at_write(shard, hex + 2, text, strlen(text), false, shown, err);
    free(shown);
    close(shard);
    return rc;
}

/* A file of the root's own (lock, stats): opened without following a link,
 * read-write, or read-only in another user's shared cache. */
static int root_file(km_cache *c, const char *name, bool read_only_ok, km_error *err)
{
    int fd = openat(c->fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && read_only_ok && errno != ELOOP)
        fd = openat(c->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ELOOP)
        km_at_fail_link(err, c->root, name);
    else if (fd < 0)
        km_fail_errno(err, KM_EXIT_SYSTEM, "cannot open '%s/%s'", c->root, name);
    return fd;
}

int km_cache_hold(km_cache *c, bool exclusive, km_error *err)
{
    int fd = root_file(c, "lock", true, err);
    if (fd >= 0 && flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0) {
        km_fail_errno(err, KM_EXIT_SYSTEM, "cannot lock the cache '%s/lock'", c->root);
        close(fd);
        fd = -1;
    }
    return fd;
}

char *km_cache_subdir(km_cache *c, const char *name, km_error *err)
{
    int fd = km_at_dir(c->fd, name, true, c->root, err);
    if (fd < 0)
        return NULL;
    close(fd);
    char *path = km_path_join(c->root, name);
    if (!path)
        km_fail(err, KM_EXIT_SYSTEM, "out of memory naming '%s/%s'", c->root, name);
    return path;
}

int km_cache_check_links(km_cache *c, const char *name, km_error *err)
{
    char *found = NULL;
    int there = km_at_find_link(c->fd, name, &found);
    if (there < 0)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory looking for links in '%s/%s'",
                       c->root, name);
    if (there == 0)
        return KM_OK;
    int rc = km_at_fail_link(err, c->root, found);
    free(found);
    return rc;
}

/* The counters file ("hits N misses N remote_hits N ..."), read and
 * rewritten under an exclusive lock so that concurrent builds add up;
 * add (may be NULL) added, the sums in out (may be NULL). */
static const char *const counter_names[KM_COUNTERS] = {
    "hits", "misses", "remote_hits", "remote_misses", "remote_errors", "remote_stored",
    "results_reused",
};

static int stats_io(km_cache *c, const uint64_t *add, uint64_t *out)
{
    int fd = root_file(c, "stats", false, NULL);
    if (fd < 0)
        return -1;
    flock(fd, LOCK_EX);
    char buf[1024] = "";
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    uint64_t v[KM_COUNTERS] = {0};
    if (n > 0) {
        buf[n] = 0;
        char *save = NULL, *name = strtok_r(buf, " \n", &save);
        for (char *num; name && (num = strtok_r(NULL, " \n", &save));
             name = strtok_r(NULL, " \n", &save))
            for (int i = 0; i < KM_COUNTERS; i++)
                if (strcmp(name, counter_names[i]) == 0)
                    v[i] = strtoull(num, NULL, 10);
    }
    bool any = false;
    for (int i = 0; add && i < KM_COUNTERS; i++) {
        v[i] += add[i];
        any |= add[i] != 0;
    }
    if (any) {
        int len = 0;
        for (int i = 0; i < KM_COUNTERS; i++)
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s %llu", i ? " " : "",
                            counter_names[i], (unsigned long long)v[i]);
        len += snprintf(buf + len, sizeof buf - (size_t)len, "\n");
        if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)len, 0) != len)
            memset(v, 0, sizeof v);
    }
    close(fd);
    if (out)
        memcpy(out, v, sizeof v);
    return 0;
}

void km_cache_add(km_cache *c, enum km_counter which, unsigned n)
{
    c->pending[which] += n;
}

void km_cache_count(km_cache *c, unsigned hits, unsigned misses)
{
    c->pending[KM_COUNT_HITS] += hits;
    c->pending[KM_COUNT_MISSES] += misses;
    if (stats_io(c, c->pending, NULL) == 0)
        memset(c->pending, 0, sizeof c->pending);
}

int km_cache_read_counters(km_cache *c, uint64_t counters[KM_COUNTERS])
{
    return stats_io(c, NULL, counters);
}

/* ---- remote storage (km_cache.h; lib/remote/km_remote.h) ------------------------- */

void km_cache_set_remote(km_cache *c, const char *url)
{
    free(c->remote_url);
    c->remote_url = url ? strdup(url) : NULL;
    c->remote_set = url != NULL;
}

static void remote_note(const char *line, void *ctx)
{
    km_cache *c = ctx;
    if (c->note)
        c->note(line, c->note_ctx);
}

void km_cache_set_note(km_cache *c, void (*note)(const char *line, void *ctx), void *ctx)
{
    c->note = note;
    c->note_ctx = ctx;
}

void km_cache_note(km_cache *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    km_vnote(c->note, c->note_ctx, fmt, ap);
    va_end(ap);
}

struct km_remote *km_cache_remote(km_cache *c)
{
    if (c->remote_tried)
        return c->remote;
    c->remote_tried = true;
    const char *from = NULL;
    errno = 0;
    char *url = c->remote_set ? (*c->remote_url ? strdup(c->remote_url) : NULL)
                              : km_remote_configured(NULL, &from);
    if (!url && errno == ENOMEM) /* a remote is only ever a warning away */
        warn(c, "out of memory finding the remote storage; building without it");
    if (!url)
        return NULL;
    km_error e = {0};
    if (km_remote_open(url, &c->remote, &e) != KM_OK)
        warn(c, "%s%s%s%s; building without it", e.message, from ? " (from " : "",
             from ? from : "", from ? ")" : "");
    else
        km_remote_set_note(c->remote, remote_note, c);
    if (c->remote)
        km_cache_note(c, "remote storage %s (%s, %s%s)", km_remote_shown(c->remote),
                      from ? from : "--remote-storage", km_remote_read_only(c->remote)
                      ? "read-only, " : "", km_remote_compression());
    free(url);
    return c->remote;
}

void km_cache_remote_close(km_cache *c)
{
    km_remote_close(c->remote);
    c->remote = NULL;
    c->remote_tried = false;
    free(c->remote_url);
    c->remote_url = NULL;
}

/* "kmrun:1:KIND:HEX", the remote's key. */
static void remote_key(char out[96], const char *kind, const char *hex)
{
    snprintf(out, 96, "kmrun:1:%s:%s", kind, hex);
}

/* GET and unpack the kind's value for hex: KM_OK and u filled, or
 * KM_CACHE_MISS (counted, told). */
static int remote_fetch(km_cache *c, const char *kind, const char *hex, const char *what,
                        km_remote_unpacked *u)
{
    km_remote *r = km_cache_remote(c);
    if (!r)
        return KM_CACHE_MISS;
    if (km_remote_off(r)) {
        km_cache_note(c, "%s: remote lookup skipped (the remote is off after %u failures)",
                      what, km_remote_failures(r));
        return KM_CACHE_MISS;
    }
    char key[96];
    remote_key(key, kind, hex);
    char *value = NULL;
    size_t len = 0;
    int rc = km_remote_get(r, key, &value, &len);
    if (rc == KM_REMOTE_MISS) {
        km_cache_add(c, KM_COUNT_REMOTE_MISSES, 1);
        km_cache_note(c, "%s: remote miss (no %s %.16s...)", what, kind, hex);
        return KM_CACHE_MISS;
    }
    if (rc != KM_OK) {
        km_cache_add(c, KM_COUNT_REMOTE_ERRORS, 1);
        km_cache_note(c, "%s: remote lookup failed (above); building here", what);
        return KM_CACHE_MISS;
    }
    char why[256];
    rc = km_remote_unpack(value, len, kind, hex, u, why, sizeof why);
    free(value);
    if (rc != KM_OK) {
        km_cache_add(c, KM_COUNT_REMOTE_ERRORS, 1);
        km_cache_note(c, "%s: remote %s %.16s... refused (%s); building here", what, kind, hex,
                      why);
        return KM_CACHE_MISS;
    }
    return KM_OK;
}

int km_cache_remote_entry(km_cache *c, const km_digest *key, const char *what)
{
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    km_remote_unpacked u;
    if (remote_fetch(c, "entry", hex, what, &u) != KM_OK)
        return KM_CACHE_MISS;
    km_cache_file *files = calloc(u.nfiles ? u.nfiles : 1, sizeof *files);
    int rc = files ? KM_OK : KM_CACHE_MISS;
    for (size_t i = 0; files && i < u.nfiles; i++)
        files[i] = (km_cache_file){.name = u.files[i].name, .data = u.files[i].data,
                                   .bytes = u.files[i].bytes};
    km_error e = {0};
    char *dir = NULL;
    if (rc == KM_OK &&
        km_cache_put(c, key, files, u.nfiles,
                     cJSON_GetObjectItemCaseSensitive(u.meta, "meta"), &dir, &e) != KM_OK) {
        km_cache_note(c, "%s: the remote's entry cannot be stored here (%s); building here",
                      what, e.message);
        km_cache_add(c, KM_COUNT_REMOTE_ERRORS, 1);
        rc = KM_CACHE_MISS;
    }
    if (rc == KM_OK)
        km_cache_note(c, "%s: remote hit (entry %.16s..., %zu file%s checked)", what, hex,
                      u.nfiles, u.nfiles == 1 ? "" : "s");
    free(dir);
    free(files);
    km_remote_unpacked_free(&u);
    return rc;
}

int km_cache_remote_record(km_cache *c, const km_digest *key, const char *what, char **text)
{
    *text = NULL;
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    km_remote_unpacked u;
    if (remote_fetch(c, "record", hex, what, &u) != KM_OK)
        return KM_CACHE_MISS;
    int rc = KM_CACHE_MISS;
    if (u.nfiles == 1 && strcmp(u.files[0].name, "record") == 0 &&
        !memchr(u.files[0].data, 0, u.files[0].bytes))
        *text = strndup(u.files[0].data, u.files[0].bytes);
    if (*text)
        rc = KM_OK;
    else {
        km_cache_add(c, KM_COUNT_REMOTE_ERRORS, 1);
        km_cache_note(c, "%s: remote record %.16s... refused (not one record); building here",
                      what, hex);
    }
    km_remote_unpacked_free(&u);
    return rc;
}

/* SET the kind's value for hex. */
static void remote_store(km_cache *c, const char *kind, const char *hex, const char *what,
                         const km_remote_file *files, size_t nfiles, const cJSON *meta)
{
    km_remote *r = km_cache_remote(c);
    if (!r || km_remote_read_only(r) || km_remote_off(r))
        return;
    size_t len = 0;
    char *value = km_remote_pack(kind, hex, files, nfiles, meta, &len);
    char key[96];
    remote_key(key, kind, hex);
    if (value && km_remote_set(r, key, value, len) == KM_OK) {
        if (strcmp(kind, "record") != 0)
            km_cache_add(c, KM_COUNT_REMOTE_STORED, 1);
        km_cache_note(c, "%s: stored remotely (%s %.16s..., %zu bytes)", what, kind, hex, len);
    } else {
        km_cache_add(c, KM_COUNT_REMOTE_ERRORS, 1);
    }
    free(value);
}

void km_cache_remote_put_entry(km_cache *c, const km_digest *key, const km_cache_file *files,
                               size_t nfiles, const cJSON *meta, const char *what)
{
    km_remote *r = km_cache_remote(c);
    if (!r || km_remote_read_only(r) || km_remote_off(r))
        return;
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    km_remote_file *rf = calloc(nfiles ? nfiles : 1, sizeof *rf);
    char **data = calloc(nfiles ? nfiles : 1, sizeof *data);
    bool ok = rf && data;
    for (size_t i = 0; ok && i < nfiles; i++) {
        size_t n = files[i].bytes;
        if (files[i].path)
            ok = km_read_file(files[i].path, &data[i], &n, NULL) == KM_OK;
        rf[i] = (km_remote_file){files[i].name, files[i].path ? data[i] : files[i].data, n};
    }
    if (ok)
        remote_store(c, "entry", hex, what, rf, nfiles, meta);
    for (size_t i = 0; data && i < nfiles; i++)
        free(data[i]);
    free(data);
    free(rf);
}

void km_cache_remote_put_record(km_cache *c, const km_digest *key, const char *text)
{
    char hex[KM_HEX_LEN];
    km_digest_hex(key, hex);
    km_remote_file f = {"record", text, strlen(text)};
    remote_store(c, "record", hex, "record", &f, 1, NULL);
}
