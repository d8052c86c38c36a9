/* km_toolchain: compiler identities and the data folder (km_toolchain.h). */
#include "km_toolchain.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_fs.h"
#include "km_proc.h"
#include "ks_text.h"

/* Everything stat says that changes when the file does. */
static void signature(const struct stat *st, const char *path, char *out, size_t n)
{
    snprintf(out, n, "%s %lld %llu %llu %lld.%09ld", path, (long long)st->st_size,
             (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
             (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
}

static int run_capture(const char *tool, const char *arg, char **out, km_error *err)
{
    char *argv[] = {(char *)tool, (char *)arg, NULL};
    int status = 0;
    int rc = km_proc_run(argv, NULL, out, &status, NULL, NULL, err);
    if (rc == KM_OK && status != 0) {
        rc = km_fail(err, KM_EXIT_SYSTEM, "'%s %s' failed (exit status %d): %s", tool,
                     arg, status, *out);
        free(*out);
        *out = NULL;
    }
    return rc;
}

int km_tool_identify(km_cache *c, const char *name, km_tool *out, km_error *err)
{
    memset(out, 0, sizeof *out);
    char *path = km_proc_which(name);
    if (!path && errno == ENOMEM)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory finding the compiler '%s'", name);
    if (!path)
        return km_fail(err, KM_EXIT_SYSTEM,
                       "cannot find the compiler '%s' (install it: see the README's set-up)",
                       name);
    struct stat st;
    if (stat(path, &st) != 0) {
        int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", path);
        free(path);
        return rc;
    }
    char sig[4200];
    signature(&st, path, sig, sizeof sig);
    km_hasher h;
    km_hasher_init(&h);
    km_hasher_str(&h, sig);
    km_digest memo_key;
    if (!km_hasher_final(&h, &memo_key)) {
        free(path);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory identifying the compiler '%s'", name);
    }
    char memo_hex[KM_HEX_LEN];
    km_digest_hex(&memo_key, memo_hex);

    char *memo_dir = km_cache_subdir(c, "toolchains", err);
    if (!memo_dir) {
        free(path);
        return KM_EXIT_SYSTEM;
    }
    char *memo = km_path_join(memo_dir, memo_hex);
    free(memo_dir);
    if (!memo) {
        free(path);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory identifying the compiler '%s'", name);
    }
    char *text = NULL;
    /* The memo: the signature line, the identity, the version line. */
    if (km_read_file(memo, &text, NULL, NULL) == KM_OK) {
        char *l1 = text, *l2 = strchr(l1, '\n'), *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
        if (l2 && l3) {
            *l2 = *l3 = 0;
            char *end = strchr(l3 + 1, '\n');
            if (end)
                *end = 0;
            if (strcmp(l1, sig) == 0 && km_digest_parse(l2 + 1, &out->id) == 0) {
                char *version = strdup(l3 + 1);
                free(text);
                free(memo);
                if (!version) {
                    free(path);
                    return km_fail(err, KM_EXIT_SYSTEM,
                                   "out of memory identifying the compiler '%s'", name);
                }
                out->path = path;
                out->version = version;
                return KM_OK;
            }
        }
        free(text);
    }

    char *version = NULL, *machine = NULL;
    km_digest driver;
    int rc = run_capture(path, "--version", &version, err);
    if (rc == KM_OK)
        rc = run_capture(path, "-dumpmachine", &machine, err);
    if (rc == KM_OK)
        rc = km_hash_file(path, &driver, err);
    if (rc == KM_OK) {
        km_hasher_init(&h);
        km_hasher_str(&h, "kmrun-toolchain-1");
        km_hasher_str(&h, version);
        km_hasher_str(&h, machine);
        km_hasher_digest(&h, &driver);
        version[strcspn(version, "\n")] = 0;
        if (!km_hasher_final(&h, &out->id) || !(out->version = strdup(version)))
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory identifying the compiler '%s'",
                         name);
    }
    if (rc == KM_OK) {
        out->path = path;
        char hex[KM_HEX_LEN];
        km_digest_hex(&out->id, hex);
        char *m = ks_strf("%s\n%s\n%s\n", sig, hex, out->version);
        if (m) {
            km_write_file_atomic(memo, m, strlen(m), NULL); /* only a memo */
            free(m);
        }
    } else {
        free(path);
    }
    free(version);
    free(machine);
    free(memo);
    return rc;
}

void km_tool_free(km_tool *t)
{
    free(t->path);
    free(t->version);
    memset(t, 0, sizeof *t);
}

/* `prefix`/share/kmrun, if it holds the kmx runtime's linker script. */
static char *data_under(const char *prefix)
{
    char *dir = ks_strf("%s/share/kmrun", prefix);
    if (!dir)
        return NULL;
    char *probe = km_path_join(dir, "kmx/kmx.ld");
    bool found = probe && access(probe, R_OK) == 0;
    free(probe);
    if (!found) {
        free(dir);
        return NULL;
    }
    return dir;
}

/* The data folder of the installation that holds `file` (a program in
 * PREFIX/bin, a library in PREFIX/lib or a multiarch PREFIX/lib/TRIPLE). */
static char *data_beside(const char *file)
{
    char *dir = km_dirname(file), *up = dir ? km_dirname(dir) : NULL;
    char *up2 = up ? km_dirname(up) : NULL;
    char *found = up ? data_under(up) : NULL;
    if (!found && up2)
        found = data_under(up2);
    free(dir);
    free(up);
    free(up2);
    return found;
}

/* KMRUN_DATA; else the share/kmrun of the installation kmrun's code was
 * loaded from: libkmrun.so's when a program links the shared library
 * (dladdr), else the running program's (kmrun itself, or a program linked
 * with libkmrun.a from the same prefix).  When none holds the runtime,
 * the program's, for the message that says what is missing. */
static char *data_dir(void)
{
    const char *env = getenv("KMRUN_DATA");
    if (env && *env)
        return strdup(env);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    Dl_info info;
    if (dladdr((void *)data_dir, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
        strcmp(info.dli_fname, exe) != 0) {
        char *dir = data_beside(info.dli_fname);
        if (dir)
            return dir;
    }
    if (n <= 0)
        return NULL;
    char *dir = data_beside(exe);
    if (dir)
        return dir;
    char *bin = km_dirname(exe), *prefix = km_dirname(bin);
    if (prefix)
        dir = ks_strf("%s/share/kmrun", prefix);
    free(bin);
    free(prefix);
    return dir;
}

int km_data_find(km_data *d, km_error *err)
{
    memset(d, 0, sizeof *d);
    d->dir = data_dir();
    if (!d->dir)
        return km_fail(err, KM_EXIT_SYSTEM, "cannot find kmrun's data folder: set KMRUN_DATA");
    d->kmx_include = km_path_join(d->dir, "kmx/include");
    d->kmx_lib = km_path_join(d->dir, "kmx/lib/libkmx.a");
    d->kmx_ld = km_path_join(d->dir, "kmx/kmx.ld");
    d->device_include = km_path_join(d->dir, "device/include");
    d->kmx_host_dir = km_path_join(d->dir, "kmx/host");
    d->kmx_host_lib = km_path_join(d->dir, "kmx/host/libkmx_host.a");
    d->kmx_fallback_src = km_path_join(d->dir, "kmx/host/fallback/kmx_fallback.c");
    if (!d->kmx_include || !d->kmx_lib || !d->kmx_ld || !d->device_include ||
        !d->kmx_host_dir || !d->kmx_host_lib || !d->kmx_fallback_src) {
        km_data_free(d);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory finding kmrun's data folder");
    }
    /* Only a host fallback build needs it (km_build.c says so if missing). */
    d->has_kmx_host = km_hash_file(d->kmx_host_lib, &d->kmx_host_id, NULL) == KM_OK;
    km_digest lib, ld;
    int rc = km_hash_file(d->kmx_lib, &lib, err);
    if (rc == KM_OK)
        rc = km_hash_file(d->kmx_ld, &ld, err);
    if (rc != KM_OK) {
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "%s", err->message);
        km_data_free(d);
        return km_fail(err, KM_EXIT_SYSTEM,
                       "the kmx runtime is missing (%s): run 'make', or set KMRUN_DATA to "
                       "the folder that holds kmx/",
                       msg);
    }
    km_hasher h;
    km_hasher_init(&h);
    km_hasher_digest(&h, &lib);
    km_hasher_digest(&h, &ld);
    if (!km_hasher_final(&h, &d->kmx_id)) {
        km_data_free(d);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory identifying the kmx runtime");
    }
    return KM_OK;
}

void km_data_free(km_data *d)
{
    free(d->dir);
    free(d->kmx_include);
    free(d->kmx_lib);
    free(d->kmx_ld);
    free(d->device_include);
    free(d->kmx_host_dir);
    free(d->kmx_host_lib);
    free(d->kmx_fallback_src);
    memset(d, 0, sizeof *d);
}
