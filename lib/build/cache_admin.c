/* cache_admin: stats, gc and clear for `kmrun cache` (km_cache.h).  Every
 * folder is walked from the root's descriptor, links never followed: a
 * link where the cache keeps a folder is an error naming it, and a link
 * inside an entry or tmp/ is removed as itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_internal.h"
#include "km_fs.h"
#include "km_fs_at.h"
#include "ks_grow.h"
#include "ks_text.h"

typedef void (*entry_fn)(int shard, const char *name, const char *hex, void *ctx);

typedef struct walk_ctx {
    km_cache *c;
    const char *kind;
    entry_fn fn;
    void *ctx;
    const char *prefix; /* the shard's two hex digits, inside a shard */
    km_error *err;
    int rc;
} walk_ctx;

static int each_keyed(int shard, const char *name, void *ctx)
{
    walk_ctx *w = ctx;
    if (strlen(name) != 62)
        return 0;
    char hex[KM_HEX_LEN];
    memcpy(hex, w->prefix, 2);
    memcpy(hex + 2, name, 63);
    w->fn(shard, name, hex, w->ctx);
    return 0;
}

static int each_shard(int kind, const char *name, void *ctx)
{
    walk_ctx *w = ctx;
    if (strlen(name) != 2 || w->rc != KM_OK)
        return 0;
    int shard = openat(kind, name, KM_AT_DIR_FLAGS);
    if (shard < 0) {
        struct stat st;
        if (fstatat(kind, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
            char *rel = ks_strf("%s/%s", w->kind, name);
            if (!rel) {
                w->rc = km_fail(w->err, KM_EXIT_SYSTEM, "out of memory walking the cache '%s'",
                                w->c->root);
            } else {
                w->rc = km_at_fail_link(w->err, w->c->root, rel);
                free(rel);
            }
        }
        return 0;
    }
    w->prefix = name;
    km_at_each(shard, each_keyed, w);
    close(shard);
    return 0;
}

/* Calls fn for each two-level keyed name under the root's kind
 * (objects/ab/cd..); an error when kind or a shard is a link. */
static int walk(km_cache *c, const char *kind, entry_fn fn, void *ctx, km_error *err)
{
    int fd = km_at_dir(c->fd, kind, false, c->root, err);
    if (fd < 0)
        return errno == ENOENT ? KM_OK : KM_EXIT_SYSTEM;
    walk_ctx w = {c, kind, fn, ctx, NULL, err, KM_OK};
    km_at_each(fd, each_shard, &w);
    close(fd);
    return w.rc;
}

typedef struct entry {
    char hex[KM_HEX_LEN];
    uint64_t bytes;
    struct timespec used;
} entry;

typedef struct entries {
    entry *items;
    size_t n, cap;
} entries;

static void collect(int shard, const char *name, const char *hex, void *ctx)
{
    entries *es = ctx;
    if (!KS_GROW(es->items, es->cap, es->n + 1))
        return; /* counted short: gc removes less, never more */
    entry *e = &es->items[es->n++];
    memcpy(e->hex, hex, KM_HEX_LEN);
    e->bytes = km_at_tree_bytes(shard, name);
    e->used = (struct timespec){0, 0};
    int fd = openat(shard, name, KM_AT_DIR_FLAGS);
    struct stat st;
    if (fd >= 0 && fstatat(fd, "entry.json", &st, AT_SYMLINK_NOFOLLOW) == 0)
        e->used = st.st_mtim;
    if (fd >= 0)
        close(fd);
}

static void count_one(int shard, const char *name, const char *hex, void *ctx)
{
    (void)shard, (void)name, (void)hex;
    ++*(uint64_t *)ctx;
}

int km_cache_stats_get(km_cache *c, km_cache_stats *s, km_error *err)
{
    memset(s, 0, sizeof *s);
    entries es = {0};
    int rc = walk(c, "objects", collect, &es, err);
    s->entries = es.n;
    for (size_t i = 0; i < es.n; i++)
        s->entry_bytes += es.items[i].bytes;
    free(es.items);
    if (rc == KM_OK)
        rc = walk(c, "direct", count_one, &s->records, err);
    s->work_bytes = km_at_tree_bytes(c->fd, "work");
    uint64_t v[KM_COUNTERS] = {0};
    km_cache_read_counters(c, v);
    s->hits = v[KM_COUNT_HITS];
    s->misses = v[KM_COUNT_MISSES];
    s->remote_hits = v[KM_COUNT_REMOTE_HITS];
    s->remote_misses = v[KM_COUNT_REMOTE_MISSES];
    s->remote_errors = v[KM_COUNT_REMOTE_ERRORS];
    s->remote_stored = v[KM_COUNT_REMOTE_STORED];
    s->results_reused = v[KM_COUNT_RESULTS_REUSED];
    return rc;
}

static int oldest_first(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->used.tv_sec != b->used.tv_sec)
        return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    if (a->used.tv_nsec != b->used.tv_nsec)
        return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
    return strcmp(a->hex, b->hex);
}

/* A record leads to the entry named on its first line; without that entry
 * it can only cost a lookup, so it goes. */
static void drop_orphan(int shard, const char *name, const char *hex, void *ctx)
{
    (void)hex;
    km_cache *c = ctx;
    int fd = openat(shard, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    char line[80] = "";
    ssize_t n = fd >= 0 ? pread(fd, line, sizeof line - 1, 0) : -1;
    line[n > 0 ? n : 0] = 0;
    if (fd >= 0)
        close(fd);
    line[strcspn(line, "\n")] = 0;
    km_digest d;
    bool keep = km_digest_parse(line, &d) == 0;
    if (keep) {
        int objects = km_cache_shard(c, "objects", line, false, NULL);
        struct stat st;
        keep = objects >= 0 && fstatat(objects, line + 2, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (objects >= 0)
            close(objects);
    }
    if (!keep)
        unlinkat(shard, name, 0);
}

/* "name.tmp.XXXXXX": an atomic write's temporary, left by a kill. */
static bool is_temporary(const char *name)
{
    size_t n = strlen(name);
    return n > 11 && strncmp(name + n - 11, ".tmp.", 5) == 0;
}

static int drop_temporaries(int dir, const char *name, void *ctx)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    if (S_ISREG(st.st_mode) && is_temporary(name)) {
        unlinkat(dir, name, 0);
    } else if (S_ISDIR(st.st_mode)) {
        int fd = openat(dir, name, KM_AT_DIR_FLAGS);
        if (fd >= 0) {
            km_at_each(fd, drop_temporaries, ctx);
            close(fd);
        }
    }
    return 0;
}

/* One thing in tmp/: a killed writer's, unless it is pinned (a build's
 * copy that could not replace a corrupt entry, still in use). */
static int drop_in_tmp(int tmp, const char *name, void *ctx)
{
    (void)ctx;
    int lock = km_cache_take(tmp, name);
    if (lock == -1 && errno == EBUSY)
        return 0;
    km_at_rm_rf(tmp, name);
    if (lock >= 0)
        close(lock);
    return 0;
}

/* What killed writers left; only called with the cache held exclusive,
 * when no writer is alive. */
static int drop_leftovers(km_cache *c, km_error *err)
{
    int tmp = km_at_dir(c->fd, "tmp", true, c->root, err);
    if (tmp < 0)
        return KM_EXIT_SYSTEM;
    km_at_each(tmp, drop_in_tmp, NULL);
    close(tmp);
    km_at_each(c->fd, drop_temporaries, NULL);
    return KM_OK;
}

/* Removes the entries, oldest first, until the rest take at most
 * max_bytes; *kept counts those in use. */
static int shrink(km_cache *c, uint64_t max_bytes, uint64_t *removed, uint64_t *kept,
                  km_error *err)
{
    entries es = {0};
    int rc = walk(c, "objects", collect, &es, err);
    if (es.n)
        qsort(es.items, es.n, sizeof *es.items, oldest_first);
    uint64_t total = 0;
    for (size_t i = 0; i < es.n; i++)
        total += es.items[i].bytes;
    for (size_t i = 0; rc == KM_OK && i < es.n && total > max_bytes; i++) {
        int shard = km_cache_shard(c, "objects", es.items[i].hex, false, NULL);
        int gone = shard >= 0 ? km_cache_discard(c, shard, es.items[i].hex + 2) : -1;
        int why = errno;
        if (shard >= 0)
            close(shard);
        if (gone != 0) {
            if (why == EBUSY)
                ++*kept; /* in use: it stays, and so does its size */
            continue;    /* or another user's */
        }
        total -= es.items[i].bytes;
        ++*removed;
    }
    free(es.items);
    return rc;
}

int km_cache_gc(km_cache *c, uint64_t max_bytes, uint64_t *removed, uint64_t *kept,
                km_error *err)
{
    uint64_t r = 0, k = 0;
    int hold = km_cache_hold(c, true, err);
    if (hold < 0)
        return KM_EXIT_SYSTEM;
    int rc = drop_leftovers(c, err);
    if (rc == KM_OK)
        rc = shrink(c, max_bytes, &r, &k, err);
    if (rc == KM_OK)
        rc = walk(c, "direct", drop_orphan, c, err);
    close(hold);
    if (removed)
        *removed = r;
    if (kept)
        *kept = k;
    return rc;
}

int km_cache_clear(km_cache *c, uint64_t *kept, km_error *err)
{
    uint64_t removed = 0, k = 0;
    int hold = km_cache_hold(c, true, err);
    if (hold < 0)
        return KM_EXIT_SYSTEM;
    int rc = drop_leftovers(c, err);
    if (rc == KM_OK)
        rc = shrink(c, 0, &removed, &k, err);
    static const char *const dirs[] = {"direct", "toolchains", "work"};
    for (size_t i = 0; rc == KM_OK && i < sizeof dirs / sizeof dirs[0]; i++) {
        /* Renamed first so that a reader sees all or nothing; a link in
         * its place is renamed and removed as itself. */
        char gone[64];
        snprintf(gone, sizeof gone, "%s.clearing.%d", dirs[i], (int)getpid());
        if (renameat(c->fd, dirs[i], c->fd, gone) == 0)
            km_at_rm_rf(c->fd, gone);
    }
    unlinkat(c->fd, "stats", 0);
    static const char *const keep[] = {"objects", "direct", "tmp"};
    for (size_t i = 0; rc == KM_OK && i < sizeof keep / sizeof keep[0]; i++) {
        int d = km_at_dir(c->fd, keep[i], true, c->root, err);
        if (d < 0)
            rc = KM_EXIT_SYSTEM;
        else
            close(d);
    }
    close(hold);
    if (kept)
        *kept = k;
    return rc;
}
