/* build_keys: cache keys for `kmrun build`, in ccache's direct mode.
 *
 * The direct key covers what is known before compiling: kmrun's version,
 * the compiler's identity, the kmx runtime's content, the flags, the
 * generated handler header, and each source's content and its path
 * relative to the manifest (that path reaches the bytes through __FILE__
 * and the debug information; the manifest's own location never does, as
 * -ffile-prefix-map rewrites it).  The headers a compile read are known
 * only after it: they are recorded (from the compiler's dependency files)
 * in a record under the direct key, each with its content's SHA-256, and
 * the entry's key is the direct key plus that list.  A lookup re-hashes
 * every recorded header; one changed byte is a miss.  The list also names
 * the places where a new file would shadow a recorded header
 * (build_search.c), which a lookup checks are still empty; a target whose
 * files ask __has_include is recorded in preprocessor mode (build_cpp.c). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_internal.h"
#include "km_depfile.h"
#include "km_fs.h"
#include "km_image.h"
#include "ks_grow.h"
#include "ks_text.h"

/* Whether the flags tell the compiler that sources are in another
 * encoding (UTF-16 text has NUL bytes). */
static bool other_charset(const km_target *t)
{
    for (size_t i = 0; i < t->nflags; i++)
        if (strncmp(t->flags[i], "-finput-charset=", 16) == 0)
            return true;
    return false;
}

static int out_of_memory(const km_target *t, km_error *err)
{
    return km_fail(err, KM_EXIT_SYSTEM, "out of memory keeping the %s in the cache",
                   t->display);
}

int km_target_direct_key(km_build_ctx *b, km_target *t, km_error *err)
{
    km_hasher h;
    km_hasher_init(&h);
    km_hasher_str(&h, t->kind == KM_TARGET_IMAGE     ? "kmrun-image-1"
                      : t->kind == KM_TARGET_KERNELS ? "kmrun-kernels-1"
                                                     : "kmrun-host-1");
    km_hasher_str(&h, KMRUN_VERSION);
    km_hasher_digest(&h, &t->cc->id);
    if (t->kind == KM_TARGET_IMAGE && t->cc != &b->rv)
        km_hasher_digest(&h, &b->rv.id); /* gcc links what clang compiled */
    km_hasher_digest(&h, &b->data.kmx_id);
    if (t->kind == KM_TARGET_HOST)
        km_hasher_digest(&h, &b->data.kmx_host_id);
    km_hasher_str(&h, b->header);
    /* The environment that steers the compiler's search and output. */
    static const char *const env[] = {
        "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
        "GCC_EXEC_PREFIX", "COMPILER_PATH", "LIBRARY_PATH", "SOURCE_DATE_EPOCH",
    };
    for (size_t i = 0; i < sizeof env / sizeof *env; i++) {
        const char *v = getenv(env[i]);
        km_hasher_str(&h, env[i]);
        km_hasher_str(&h, v ? v : "\001unset");
    }
    km_hasher_u64(&h, t->nflags);
    for (size_t i = 0; i < t->nflags; i++)
        km_hasher_str(&h, t->flags[i]);
    if (t->kind == KM_TARGET_KERNELS) {
        /* The handlers the shared object must define decide its check. */
        for (size_t i = 0; i < b->p->kernels.nhandlers; i++)
            km_hasher_str(&h, b->p->kernels.handlers[i]);
    }
    km_hasher_u64(&h, t->nsources);
    bool text = !other_charset(t);
    int rc = KM_OK;
    for (size_t i = 0; rc == KM_OK && i < t->nsources; i++) {
        char *path = t->sources[i][0] == '/' ? NULL : km_path_join(b->root, t->sources[i]);
        if (t->sources[i][0] != '/' && !path) {
            rc = out_of_memory(t, err);
            break;
        }
        km_digest d = {{0}};
        long long nul = -1;
        /* An unreadable source fails the compile, which says so better.
         * A NUL byte is no C: the compiler would warn, ignore it and echo
         * the line it is on in full, eight bytes a NUL ("<U+0000>"), which
         * for a large file takes minutes and gigabytes. */
        errno = 0;
        if (km_hash_text_file(t->sources[i][0] == '/' ? t->sources[i] : path, &d,
                              text ? &nul : NULL, NULL) != KM_OK &&
            errno == ENOMEM)
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory hashing '%s' (a source of the %s)",
                         t->sources[i], t->display);
        free(path);
        if (rc == KM_OK && nul >= 0)
            rc = km_fail(err, KM_EXIT_BUILD,
                         "'%s' (a source of the %s) is not a text file: a NUL byte at offset "
                         "%lld (expected C source)",
                         t->sources[i], t->display, nul);
        km_hasher_str(&h, t->sources[i]);
        km_hasher_digest(&h, &d);
    }
    if (!km_hasher_final(&h, &t->dkey) && rc == KM_OK)
        rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory making the cache key of the %s",
                     t->display);
    return rc;
}

/* A recorded header's name: "./x" under the manifest's folder, "@data/x"
 * under kmrun's data folder, else the absolute path (the toolchain's own
 * headers).  These names are what makes a moved program still hit.  The
 * path is the one the compiler found, symlinks unresolved: a lookup opens
 * it again the same way, so a retargeted symlinked folder is a miss.
 * Into *name (allocated; NULL: none to record); false when memory ran
 * out. */
static bool path_name(km_build_ctx *b, const char *dep, char **name)
{
    *name = NULL;
    char *path = dep[0] == '/' ? strdup(dep) : km_path_join(b->root, dep);
    if (!path)
        return false;
    const char *rel;
    bool ok = true;
    if (km_path_under(path, b->gen))
        ok = true; /* the generated header is in the direct key already */
    else if ((rel = km_path_under(path, b->root)))
        ok = (*name = ks_strf("./%s", rel)) != NULL;
    else if ((rel = km_path_under(path, b->data.dir)))
        ok = (*name = ks_strf("@data/%s", rel)) != NULL;
    else
        ok = (*name = strdup(path)) != NULL;
    free(path);
    return ok;
}

/* path_name's, for a header the compiler read (none when it is no longer
 * readable). */
static bool header_name(km_build_ctx *b, const char *dep, char **name)
{
    *name = NULL;
    char *path = dep[0] == '/' ? strdup(dep) : km_path_join(b->root, dep);
    if (!path)
        return false;
    int readable = access(path, R_OK) == 0;
    free(path);
    return !readable || path_name(b, dep, name);
}

/* A header that must still not be there: a record line with this in place
 * of a SHA-256. */
#define ABSENT "----------------------------------------------------------------"

/* A record alternative whose only line after the key is this is in
 * preprocessor mode (build_cpp.c). */
#define CPP_MODE "cpp"

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static char *header_path(km_build_ctx *b, const char *name)
{
    if (name[0] == '.' && name[1] == '/')
        return km_path_join(b->root, name + 2);
    if (strncmp(name, "@data/", 6) == 0)
        return km_path_join(b->data.dir, name + 6);
    return strdup(name);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entry key: the direct key and every recorded header; false when
 * memory ran out. */
static bool entry_key(const km_digest *dkey, char **lines, size_t n, km_digest *out)
{
    km_hasher h;
    km_hasher_init(&h);
    km_hasher_str(&h, "kmrun-entry-1");
    km_hasher_digest(&h, dkey);
    km_hasher_u64(&h, n);
    for (size_t i = 0; i < n; i++)
        km_hasher_str(&h, lines[i]);
    return km_hasher_final(&h, out);
}

static bool fill_built(km_target *t, const char *dir, const cJSON *meta,
                       const km_digest *key, bool hit)
{
    km_built *r = t->built;
    r->hit = hit;
    km_digest_hex(key, r->key);
    free(r->path);
    r->path = km_path_join(dir, km_target_file(t->kind));
    if (!r->path)
        return false;
    const cJSON *v;
    v = cJSON_GetObjectItemCaseSensitive(meta, "sha256");
    snprintf(r->sha256, sizeof r->sha256, "%s", cJSON_IsString(v) ? v->valuestring : "");
#define NUM(field)                                                   \
    v = cJSON_GetObjectItemCaseSensitive(meta, #field);              \
    r->field = cJSON_IsNumber(v) ? (uint64_t)v->valuedouble : 0;
    NUM(bytes)
    NUM(text)
    NUM(rodata)
    NUM(data)
#undef NUM
    return true;
}

/* Whether an intact entry's metadata tells the truth about its file: what
 * a build reports (the SHA-256, the image's sizes) is measured again, not
 * taken from entry.json on trust.  KM_OK; KM_CACHE_MISS and why not; or,
 * when it could not be measured (memory, I/O: nothing said about the
 * entry), the error in err. */
static int meta_mismatch(const km_target *t, const char *dir, const cJSON *meta,
                         const char **why, km_error *err)
{
    *why = NULL;
    char *path = km_path_join(dir, km_target_file(t->kind));
    if (!path)
        return out_of_memory(t, err);
    km_digest d;
    char hex[KM_HEX_LEN] = "";
    const cJSON *sha = cJSON_GetObjectItemCaseSensitive(meta, "sha256");
    int rc = km_hash_file(path, &d, err);
    if (rc == KM_OK) {
        km_digest_hex(&d, hex);
        if (!cJSON_IsString(sha) || strcmp(sha->valuestring, hex) != 0)
            *why = "its recorded sha256 is not its file's";
    }
    km_image_info info;
    if (rc == KM_OK && !*why && t->kind == KM_TARGET_IMAGE) {
        km_error e = {0};
        int checked = km_image_check(path, t->display, &info, &e);
        if (checked == KM_EXIT_BUILD)
            *why = "its image does not pass the image checks";
        else if (checked != KM_OK)
            rc = km_fail(err, checked, "cannot check the cache entry '%s' (it is left as it is): "
                         "%s", dir, e.message);
        const struct { const char *name; uint64_t value; } sizes[] = {
            {"bytes", info.loadable_bytes}, {"text", info.text_bytes},
            {"rodata", info.rodata_bytes}, {"data", info.data_bytes},
        };
        for (size_t i = 0; rc == KM_OK && !*why && i < sizeof sizes / sizeof *sizes; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, sizes[i].name);
            if (!cJSON_IsNumber(v) || (uint64_t)v->valuedouble != sizes[i].value)
                *why = "its recorded sizes are not its image's";
        }
    }
    free(path);
    return rc != KM_OK ? rc : *why ? KM_CACHE_MISS : KM_OK;
}

/* A record's header line, "sha256 name" (or ABSENT and the name): 1 when
 * the header still has that content (is still absent), else 0 (also when
 * memory ran out: a miss is never wrong). */
static int header_holds(km_build_ctx *b, char *line)
{
    if (strlen(line) < 66 || line[64] != ' ')
        return 0;
    km_digest want, got;
    line[64] = 0;
    char *path = header_path(b, line + 65);
    int ok;
    if (!path)
        ok = 0;
    else if (strcmp(line, ABSENT) == 0)
        ok = !exists(path);
    else
        ok = km_digest_parse(line, &want) == 0 && km_hash_file(path, &got, NULL) == KM_OK &&
             memcmp(&want, &got, sizeof want) == 0;
    free(path);
    line[64] = ' ';
    return ok;
}

/* One alternative of a record: its entry key, then "sha256 name" per
 * header, sorted.  KM_OK with the entry filled in when every header still
 * has its recorded content and the entry is intact; KM_CACHE_MISS; or an
 * error (the entry could not be checked) in err. */
static int lookup_block(km_build_ctx *b, km_target *t, char *block, bool remote, km_error *err)
{
    char **lines = NULL;
    size_t n = 0, cap = 0;
    km_digest ekey;
    int ok = 1;
    char *save = NULL, *line = strtok_r(block, "\n", &save);
    if (!line || km_digest_parse(line, &ekey) != 0)
        ok = 0;
    while (ok && (line = strtok_r(NULL, "\n", &save))) {
        if (strcmp(line, CPP_MODE) != 0)
            ok = header_holds(b, line); /* (not a header's line: 0, a miss) */
        if (!KS_GROW(lines, cap, n + 1)) {
            free(lines);
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory checking the record of the %s",
                           t->display);
        }
        lines[n++] = line;
    }
    int rc = KM_CACHE_MISS;
    if (ok) {
        km_digest check;
        /* Preprocessor mode: the entry is the one for today's output. */
        if (n == 1 && strcmp(lines[0], CPP_MODE) == 0) {
            if (!t->cpp_rc)
                t->cpp_rc = km_cpp_key(b, t, &t->cpp_key) == KM_OK ? 1 : -1;
            ekey = t->cpp_key;
            ok = t->cpp_rc == 1;
        }
        if (n == 1 && strcmp(lines[0], CPP_MODE) == 0)
            check = ekey;
        else if (!entry_key(&t->dkey, lines, n, &check))
            ok = false; /* no key to check against: looked up as a miss */
        char *dir = NULL;
        cJSON *meta = NULL;
        const char *why = NULL;
        bool usable = ok && memcmp(&check, &ekey, sizeof check) == 0, fetched = false;
        int got = usable ? km_cache_get(b->c, &ekey, &dir, &meta, err) : KM_CACHE_MISS;
        /* Not here: the remote's, checked and stored here, then checked
         * again as any entry here is. */
        if (got == KM_CACHE_MISS && usable && remote &&
            km_cache_remote_entry(b->c, &ekey, t->display) == KM_OK) {
            fetched = true;
            got = km_cache_get(b->c, &ekey, &dir, &meta, err);
        } else if (remote && ok && !usable) {
            km_cache_note(b->c, "%s: the remote's record does not lead to an entry here (its "
                          "headers are not this machine's)", t->display);
            km_cache_add(b->c, KM_COUNT_REMOTE_MISSES, 1);
        }
        if (got == KM_OK)
            got = meta_mismatch(t, dir, meta, &why, err);
        /* The kernels' object from elsewhere: held to the check a build
         * here makes before it stores one (the handlers it must define). */
        if (got == KM_OK && fetched && t->kind == KM_TARGET_KERNELS) {
            char *so = km_path_join(dir, km_target_file(t->kind));
            km_error e = {0};
            if (!so) {
                got = out_of_memory(t, err);
            } else if (km_so_check_handlers(so, (const char *const *)b->p->kernels.handlers,
                                     b->p->kernels.nhandlers, &e) != KM_OK) {
                why = "its kernels' object does not pass the kernels' checks";
                got = KM_CACHE_MISS;
            }
            free(so);
        }
        if (got == KM_CACHE_MISS && why)
            km_cache_reject(b->c, &ekey, why);
        else if (got == KM_OK && !fill_built(t, dir, meta, &ekey, true))
            got = out_of_memory(t, err);
        if (fetched) {
            km_cache_add(b->c, got == KM_OK ? KM_COUNT_REMOTE_HITS : KM_COUNT_REMOTE_ERRORS, 1);
            if (got != KM_OK)
                km_cache_note(b->c, "%s: the remote's entry is refused (%s); building here",
                              t->display, why ? why : "it cannot be checked");
        }
        rc = got;
        free(dir);
        cJSON_Delete(meta);
    }
    free(lines);
    return rc;
}

/* A record keeps the last RECORD_ALTERNATIVES header sets seen for one
 * direct key, newest first, separated by blank lines: a header switched
 * back and forth (a configuration header, a git checkout) hits both ways. */
#define RECORD_ALTERNATIVES 8
#define BLOCK_SEP "\n\n"

/* Each alternative of a record's text (consumed) until one hits. */
static int lookup_text(km_build_ctx *b, km_target *t, char *text, bool remote, km_error *err)
{
    int rc = KM_CACHE_MISS;
    for (char *block = text; block && *block && rc == KM_CACHE_MISS;) {
        char *next = strstr(block, BLOCK_SEP);
        if (next) {
            *next = 0;
            next += strlen(BLOCK_SEP);
        }
        rc = lookup_block(b, t, block, remote, err);
        block = next;
    }
    return rc;
}

int km_target_lookup(km_build_ctx *b, km_target *t, km_error *err)
{
    char *text = NULL;
    int rc = KM_CACHE_MISS;
    if (km_cache_record_get(b->c, &t->dkey, &text) == KM_OK)
        rc = lookup_text(b, t, text, false, err);
    free(text);
    text = NULL;
    /* A local miss: the remote's record, its entries fetched as needed
     * (once: a second lookup, after the work folder's lock, is for what a
     * concurrent build here stored). */
    if (rc != KM_CACHE_MISS || t->remote_asked)
        return rc;
    t->remote_asked = true;
    if (km_cache_remote_record(b->c, &t->dkey, t->display, &text) != KM_OK)
        return rc;
    char *copy = strdup(text);
    rc = copy ? lookup_text(b, t, copy, true, err) : KM_CACHE_MISS;
    free(copy);
    if (rc == KM_OK)
        km_cache_record_put(b->c, &t->dkey, text, NULL); /* the next lookup is local */
    free(text);
    return rc;
}

static bool is_cpp_block(const char *block)
{
    size_t n = strlen(block);
    while (n && block[n - 1] == '\n')
        n--;
    return n > 4 && strncmp(block + n - 4, "\n" CPP_MODE, 4) == 0;
}

/* The record with `block` first and the older alternatives after it,
 * without the one that leads to the same entry. */
static char *record_text(km_build_ctx *b, km_target *t, const char *block)
{
    char *old = NULL, *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    fputs(block, f);
    int kept = 1;
    if (km_cache_record_get(b->c, &t->dkey, &old) == KM_OK) {
        for (char *p = old; p && *p && kept < RECORD_ALTERNATIVES;) {
            char *next = strstr(p, BLOCK_SEP);
            if (next) {
                *next = 0;
                next += strlen(BLOCK_SEP);
            }
            /* Preprocessor-mode alternatives all lead to today's output's
             * entry: one is enough. */
            bool cpp_twice = is_cpp_block(block) && is_cpp_block(p);
            if (strncmp(p, block, 64) != 0 && !cpp_twice) {
                fprintf(f, "\n%s\n", p);
                kept++;
            }
            p = next;
        }
    }
    free(old);
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static bool add_line(km_paths *lines, const char *hex, const char *name)
{
    return km_paths_add(lines, ks_strf("%s %s", hex, name));
}

static bool add_dir(km_paths *dirs, const char *path)
{
    char *d = km_dirname(path);
    for (size_t i = 0; d && i < dirs->n; i++)
        if (strcmp(dirs->items[i], d) == 0) {
            free(d);
            return true;
        }
    return km_paths_add(dirs, d);
}

/* Every prerequisite but the sources (in the key already) of a finished
 * target's compiles, as its dependency files name them. */
static int compile_deps(km_target *t, km_paths *deps, km_error *err)
{
    for (size_t i = 0; i < t->nsources; i++) {
        char *dfile = ks_strf("%s.d", t->objs[i]), *text = NULL;
        if (!dfile)
            return out_of_memory(t, err);
        int rc = km_read_file(dfile, &text, NULL, err);
        free(dfile);
        if (rc != KM_OK)
            return rc;
        char **d;
        size_t nd;
        int parsed = km_depfile_parse(text, &d, &nd);
        free(text);
        if (parsed == KM_DEPFILE_NO_MEMORY)
            return out_of_memory(t, err);
        if (parsed != 0)
            return km_fail(err, KM_EXIT_INTERNAL, "cannot parse the dependency file of '%s'",
                           t->objs[i]);
        /* The first prerequisite is the source itself. */
        bool kept = true;
        for (size_t k = 1; kept && k < nd; k++)
            kept = km_paths_add(deps, strdup(d[k]));
        km_depfile_free(d, nd);
        if (!kept)
            return out_of_memory(t, err);
    }
    return KM_OK;
}

/* The header lines of a finished compile: each header the compiler read
 * with its content's SHA-256, and each place where a new file would now
 * shadow one of them (build_search.c), which must stay empty. */
static int recorded_headers(km_build_ctx *b, km_target *t, km_paths *lines, km_error *err)
{
    memset(lines, 0, sizeof *lines);
    km_paths deps = {0}, dirs = {0}, cands = {0};
    int rc = compile_deps(t, &deps, err);
    bool kept = true;
    for (size_t i = 0; kept && i < t->nsources; i++)
        kept = add_dir(&dirs, t->sources[i]);
    for (size_t i = 0; kept && i < deps.n; i++)
        kept = add_dir(&dirs, deps.items[i]);
    if (rc == KM_OK && !kept)
        rc = out_of_memory(t, err);
    km_search search = {0};
    if (rc == KM_OK)
        rc = km_search_order(b, t, &search, err);
    for (size_t k = 0; rc == KM_OK && k < deps.n; k++) {
        char *name = NULL;
        if (!header_name(b, deps.items[k], &name)) {
            rc = out_of_memory(t, err);
            break;
        }
        if (!name)
            continue;
        char *path = header_path(b, name);
        km_digest d;
        rc = path ? km_hash_file(path, &d, err) : out_of_memory(t, err);
        free(path);
        if (rc == KM_OK) {
            char hex[KM_HEX_LEN];
            km_digest_hex(&d, hex);
            if (!add_line(lines, hex, name))
                rc = out_of_memory(t, err);
        }
        free(name);
        if (rc == KM_OK &&
            !km_search_candidates(&search, dirs.items, dirs.n, deps.items[k], &cands))
            rc = out_of_memory(t, err);
    }
    for (size_t k = 0; rc == KM_OK && k < cands.n; k++) {
        char *name = NULL, *path = NULL;
        if (!path_name(b, cands.items[k], &name) || (name && !(path = header_path(b, name))))
            rc = out_of_memory(t, err);
        /* One there now was passed over (an <> include skips the includer's
         * folder): it cannot be what shadows. */
        else if (path && !exists(path) && !add_line(lines, ABSENT, name))
            rc = out_of_memory(t, err);
        free(path);
        free(name);
    }
    km_paths_free(&deps);
    km_paths_free(&dirs);
    km_paths_free(&cands);
    km_search_free(&search);
    if (lines->n > 1) /* (lines->items is NULL when a compile read no header) */
        qsort(lines->items, lines->n, sizeof *lines->items, by_name);
    size_t w = 0; /* a header two sources include is recorded once */
    for (size_t i = 0; i < lines->n; i++) {
        if (w && strcmp(lines->items[w - 1], lines->items[i]) == 0)
            free(lines->items[i]);
        else
            lines->items[w++] = lines->items[i];
    }
    lines->n = w;
    if (rc != KM_OK)
        km_paths_free(lines);
    return rc;
}

int km_target_store(km_build_ctx *b, km_target *t, km_error *err)
{
    km_paths lines;
    int rc = recorded_headers(b, t, &lines, err);
    if (rc != KM_OK)
        return rc;
    km_digest ekey, file_hash;
    /* Every file the compile read, for __has_include. */
    char **read = malloc((t->nsources + lines.n + 1) * sizeof *read);
    if (!read) {
        km_paths_free(&lines);
        return out_of_memory(t, err);
    }
    size_t nread = 0;
    bool named = true;
    for (size_t i = 0; named && i < t->nsources; i++)
        named = (read[nread++] = t->sources[i][0] == '/' ? strdup(t->sources[i])
                                                          : km_path_join(b->root, t->sources[i]));
    for (size_t i = 0; named && i < lines.n; i++)
        if (strncmp(lines.items[i], ABSENT, 64) != 0)
            named = (read[nread++] = header_path(b, lines.items[i] + 65));
    bool cpp = named && km_cpp_needed(read, nread);
    for (size_t i = 0; i < nread; i++)
        free(read[i]);
    free(read);
    if (!named) {
        km_paths_free(&lines);
        return out_of_memory(t, err);
    }
    if (cpp) {
        for (size_t i = 0; i < lines.n; i++)
            free(lines.items[i]);
        lines.n = 0;
        int cpp_rc = KM_OK;
        if (!km_paths_add(&lines, strdup(CPP_MODE)))
            rc = out_of_memory(t, err);
        else if ((cpp_rc = km_cpp_key(b, t, &ekey)) == KM_EXIT_SYSTEM)
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory preprocessing the sources of the %s",
                         t->display);
        else if (cpp_rc != KM_OK)
            rc = km_fail(err, KM_EXIT_BUILD, "cannot preprocess the sources of the %s",
                         t->display);
    } else if (!entry_key(&t->dkey, lines.items, lines.n, &ekey)) {
        rc = out_of_memory(t, err);
    }
    cJSON *meta = cJSON_CreateObject();
    if (rc == KM_OK)
        rc = km_hash_file(t->out, &file_hash, err);
    if (rc == KM_OK) {
        char hex[KM_HEX_LEN];
        km_digest_hex(&file_hash, hex);
        cJSON_AddStringToObject(meta, "sha256", hex);
        if (t->kind == KM_TARGET_IMAGE) {
            km_image_info info;
            rc = km_image_check(t->out, t->display, &info, err);
            cJSON_AddNumberToObject(meta, "bytes", (double)info.loadable_bytes);
            cJSON_AddNumberToObject(meta, "text", (double)info.text_bytes);
            cJSON_AddNumberToObject(meta, "rodata", (double)info.rodata_bytes);
            cJSON_AddNumberToObject(meta, "data", (double)info.data_bytes);
        } else if (t->kind == KM_TARGET_KERNELS) {
            rc = km_so_check_handlers(t->out, (const char *const *)b->p->kernels.handlers,
                                      b->p->kernels.nhandlers, err);
        }
    }
    char *dir = NULL;
    if (rc == KM_OK) {
        km_cache_file f = {km_target_file(t->kind), t->out, NULL, 0};
        rc = km_cache_put(b->c, &ekey, &f, 1, meta, &dir, err);
        if (rc == KM_OK)
            km_cache_remote_put_entry(b->c, &ekey, &f, 1, meta, t->display);
    }
    if (rc == KM_OK) {
        /* The record goes last: it must never lead to a missing entry. */
        char *block = NULL, hex[KM_HEX_LEN];
        size_t blen = 0;
        FILE *f = open_memstream(&block, &blen);
        km_digest_hex(&ekey, hex);
        if (f) {
            fprintf(f, "%s\n", hex);
            for (size_t i = 0; i < lines.n; i++)
                fprintf(f, "%s\n", lines.items[i]);
            if (fclose(f) != 0) {
                free(block);
                block = NULL;
            }
        }
        /* (no record: the entry stored is found by the next build that
         * compiles it, never a wrong one) */
        char *text = block ? record_text(b, t, block) : NULL;
        rc = text ? km_cache_record_put(b->c, &t->dkey, text, err) : out_of_memory(t, err);
        if (rc == KM_OK)
            km_cache_remote_put_record(b->c, &t->dkey, text);
        free(text);
        free(block);
        if (rc == KM_OK && !fill_built(t, dir, meta, &ekey, false))
            rc = out_of_memory(t, err);
    }
    free(dir);
    cJSON_Delete(meta);
    km_paths_free(&lines);
    return rc;
}
