/* cache_admin: stats, gc and clear for `kmrun cache` (km_cache.h). */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_internal.h"
#include "km_fs.h"

typedef struct entry {
    char *dir;
    char hex[KM_HEX_LEN];
    uint64_t bytes;
    struct timespec used;
} entry;

/* Calls fn for each two-level keyed path under root/kind (objects/ab/cd..). */
static void walk(const char *root, const char *kind,
                 void (*fn)(const char *path, const char *hex, void *ctx), void *ctx)
{
    char *base = km_path_join(root, kind);
    DIR *top = opendir(base);
    if (!top) {
        free(base);
        return;
    }
    struct dirent *a;
    while ((a = readdir(top))) {
        if (strlen(a->d_name) != 2)
            continue;
        char *sub = km_path_join(base, a->d_name);
        DIR *d = opendir(sub);
        struct dirent *b;
        while (d && (b = readdir(d))) {
            if (strlen(b->d_name) != 62)
                continue;
            char hex[KM_HEX_LEN];
            memcpy(hex, a->d_name, 2); /* lengths checked above */
            memcpy(hex + 2, b->d_name, 63);
            char *path = km_path_join(sub, b->d_name);
            fn(path, hex, ctx);
            free(path);
        }
        if (d)
            closedir(d);
        free(sub);
    }
    closedir(top);
    free(base);
}

typedef struct entries {
    entry *items;
    size_t n, cap;
} entries;

static void collect(const char *path, const char *hex, void *ctx)
{
    entries *es = ctx;
    if (es->n == es->cap)
        es->items = realloc(es->items, (es->cap = es->cap ? es->cap * 2 : 64) * sizeof *es->items);
    entry *e = &es->items[es->n++];
    e->dir = strdup(path);
    memcpy(e->hex, hex, KM_HEX_LEN);
    e->bytes = km_tree_bytes(path);
    char *ej = km_path_join(path, "entry.json");
    struct stat st;
    e->used = stat(ej, &st) == 0 ? st.st_mtim : (struct timespec){0, 0};
    free(ej);
}

static void count_one(const char *path, const char *hex, void *ctx)
{
    (void)path, (void)hex;
    ++*(uint64_t *)ctx;
}

static void free_entries(entries *es)
{
    for (size_t i = 0; i < es->n; i++)
        free(es->items[i].dir);
    free(es->items);
}

int km_cache_stats_get(km_cache *c, km_cache_stats *s, km_error *err)
{
    (void)err;
    memset(s, 0, sizeof *s);
    entries es = {0};
    walk(c->root, "objects", collect, &es);
    s->entries = es.n;
    for (size_t i = 0; i < es.n; i++)
        s->entry_bytes += es.items[i].bytes;
    free_entries(&es);
    walk(c->root, "direct", count_one, &s->records);
    char *work = km_path_join(c->root, "work");
    s->work_bytes = km_tree_bytes(work);
    free(work);
    km_cache_read_counters(c, &s->hits, &s->misses);
    return KM_OK;
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

typedef struct orphans {
    km_cache *c;
} orphans;

/* A record leads to the entry named on its first line; without that entry
 * it can only cost a lookup, so it goes. */
static void drop_orphan(const char *path, const char *hex, void *ctx)
{
    (void)hex;
    km_cache *c = ((orphans *)ctx)->c;
    FILE *f = fopen(path, "r");
    char line[80] = "";
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = 0;
        fclose(f);
    }
    line[strcspn(line, "\n")] = 0;
    km_digest d;
    int keep = km_digest_parse(line, &d) == 0;
    if (keep) {
        char *p = NULL;
        if (asprintf(&p, "%s/objects/%.2s/%s", c->root, line, line + 2) < 0)
            abort();
        struct stat st;
        keep = stat(p, &st) == 0;
        free(p);
    }
    if (!keep)
        remove(path);
}

/* "name.tmp.XXXXXX": km_write_file_atomic's temporary, left by a kill. */
static int is_temporary(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    return n > 11 && strncmp(base + n - 11, ".tmp.", 5) == 0;
}

static int drop_temporary(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (type == FTW_F && is_temporary(path))
        remove(path);
    return 0;
}

/* What killed writers left; only called with the cache held exclusive,
 * when no writer is alive. */
static void drop_leftovers(km_cache *c)
{
    char *tmp = km_path_join(c->root, "tmp");
    DIR *d = opendir(tmp);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *path = km_path_join(tmp, e->d_name);
        km_rm_rf(path);
        free(path);
    }
    if (d)
        closedir(d);
    free(tmp);
    nftw(c->root, drop_temporary, 16, FTW_PHYS);
}

int km_cache_gc(km_cache *c, uint64_t max_bytes, uint64_t *removed, km_error *err)
{
    int hold = km_cache_hold(c, true, err);
    if (hold < 0)
        return KM_EXIT_SYSTEM;
    drop_leftovers(c);
    entries es = {0};
    walk(c->root, "objects", collect, &es);
    qsort(es.items, es.n, sizeof *es.items, oldest_first);
    uint64_t total = 0;
    for (size_t i = 0; i < es.n; i++)
        total += es.items[i].bytes;
    *removed = 0;
    for (size_t i = 0; i < es.n && total > max_bytes; i++) {
        if (km_cache_discard(c, es.items[i].dir) != 0)
            continue; /* another user's: it stays, and so does its size */
        total -= es.items[i].bytes;
        ++*removed;
    }
    free_entries(&es);
    orphans o = {c};
    walk(c->root, "direct", drop_orphan, &o);
    close(hold);
    return KM_OK;
}

int km_cache_clear(km_cache *c, km_error *err)
{
    int hold = km_cache_hold(c, true, err);
    if (hold < 0)
        return KM_EXIT_SYSTEM;
    static const char *const dirs[] = {"objects", "direct", "toolchains", "work", "tmp"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char *d = km_path_join(c->root, dirs[i]);
        /* Rename first so that a concurrent build sees all or nothing. */
        char *gone = NULL;
        if (asprintf(&gone, "%s.clearing.%d", d, (int)getpid()) < 0)
            abort();
        if (rename(d, gone) == 0)
            km_rm_rf(gone);
        free(gone);
        free(d);
    }
    char *stats = km_path_join(c->root, "stats");
    remove(stats);
    free(stats);
    static const char *const keep[] = {"objects", "direct", "tmp"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        char *d = km_path_join(c->root, keep[i]);
        int rc = km_mkdir_p(d, err);
        free(d);
        if (rc != KM_OK) {
            close(hold);
            return rc;
        }
    }
    close(hold);
    return KM_OK;
}
