/* build_cpp: the preprocessor-mode key, for a target whose compile direct
 * mode cannot vouch for.  A source or header that asks __has_include
 * depends on files that may not exist yet: no dependency file names them,
 * so no record can prove them still absent.  Such a target's entry key is
 * the hash of what the preprocessor makes of each source, computed again
 * on every lookup (as ccache's preprocessor mode does). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_internal.h"
#include "km_fs.h"
#include "km_proc.h"
#include "ks_text.h"

bool km_cpp_needed(char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *text = NULL;
        size_t len = 0;
        if (km_read_file(paths[i], &text, &len, NULL) != KM_OK)
            return true; /* unreadable now: nothing direct mode can prove */
        bool asks = memmem(text, len, "__has_include", 13) != NULL;
        free(text);
        if (asks)
            return true;
    }
    return false;
}

/* The preprocessed text of one source, hashed; KM_OK, KM_CACHE_MISS (the
 * preprocessor failed, or no temporary file) or KM_EXIT_SYSTEM (out of
 * memory). */
static int preprocess(km_build_ctx *b, const km_target *t, size_t s, km_hasher *h)
{
    char *out = ks_strf("%s/cpp.XXXXXX", b->work);
    if (!out)
        return KM_EXIT_SYSTEM;
    int fd = mkstemp(out);
    if (fd < 0) {
        free(out);
        return KM_CACHE_MISS;
    }
    close(fd);
    char **argv = calloc(t->nflags + 6, sizeof *argv);
    bool ok = argv != NULL;
    size_t a = 0;
    if (ok)
        argv[a++] = t->cc->path;
    for (size_t i = 0; ok && i < t->nflags; i++)
        ok = (argv[a++] = km_flag_expand(b, t->flags[i])) != NULL;
    if (!ok) {
        unlink(out);
        for (size_t i = 1; argv && i <= t->nflags; i++)
            free(argv[i]);
        free(argv);
        free(out);
        return KM_EXIT_SYSTEM;
    }
    argv[a++] = "-E";
    argv[a++] = t->sources[s];
    argv[a++] = "-o";
    argv[a++] = out;
    int status = 0, rc = KM_CACHE_MISS;
    km_digest d;
    if (km_proc_run(argv, b->root, NULL, &status, NULL, NULL, NULL) == KM_OK && status == 0) {
        errno = 0;
        if (km_hash_file(out, &d, NULL) == KM_OK) {
            km_hasher_digest(h, &d);
            rc = KM_OK;
        } else if (errno == ENOMEM) {
            rc = KM_EXIT_SYSTEM;
        }
    }
    unlink(out);
    for (size_t i = 1; i <= t->nflags; i++)
        free(argv[i]);
    free(argv);
    free(out);
    return rc;
}

int km_cpp_key(km_build_ctx *b, const km_target *t, km_digest *key)
{
    km_hasher h;
    km_hasher_init(&h);
    km_hasher_str(&h, "kmrun-cpp-1");
    km_hasher_digest(&h, &t->dkey);
    int rc = KM_OK;
    for (size_t s = 0; rc == KM_OK && s < t->nsources; s++)
        rc = preprocess(b, t, s, &h);
    if (!km_hasher_final(&h, key) && rc == KM_OK)
        rc = KM_EXIT_SYSTEM;
    return rc;
}
