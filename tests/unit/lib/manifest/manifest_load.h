/* manifest_load: the harness of the manifest's tests (manifest_test,
 * manifest_errors_test): a temporary folder with the files manifests
 * name, made before the tests and removed after, and manifests loaded
 * from text or from tests/fixtures/manifests/ok/.  cmocka must be
 * included first. */
#ifndef MANIFEST_LOAD_H
#define MANIFEST_LOAD_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_handlers.h"
#include "km_program.h"
#include "kmx_layout.h"

#define OK_DIR "tests/fixtures/manifests/ok/"

static char tmp[256];           /* a folder with the files manifests name */
static char manifest[512];      /* tmp/program.yaml */

static inline void write_file(const char *rel, const void *bytes, size_t n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", tmp, rel);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

static inline int make_folder(void **state)
{
    (void)state;
    snprintf(tmp, sizeof tmp, "%s/km-manifest-test.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmp))
        return -1;
    char path[PATH_MAX];
    const char *dirs[] = {"thread", "kernels", "data"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", tmp, dirs[i]);
        if (mkdir(path, 0755))
            return -1;
    }
    snprintf(manifest, sizeof manifest, "%s/program.yaml", tmp);
    write_file("thread/a.c", "int x;\n", 7);
    write_file("thread/b.c", "int y;\n", 7);
    write_file("kernels/k.c", "int z;\n", 7);
    write_file("data/t.bin", "\1\0\0\0\2\0\0\0", 8);
    write_file("data/odd.bin", "123456", 6);
    write_file("data/empty.bin", "", 0);
    return 0;
}

static inline int remove_folder(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    return system(cmd);
}

/* Loads `yaml` as tmp/program.yaml. */
static inline int load(const char *yaml, km_program **p, km_diags *d, km_error *e)
{
    write_file("program.yaml", yaml, strlen(yaml));
    return km_manifest_load(manifest, p, d, e);
}

static inline km_program *load_ok(const char *path)
{
    km_program *p = NULL;
    km_diags d = {0};
    km_error e = {0};
    int rc = km_manifest_load(path, &p, &d, &e);
    for (size_t i = 0; i < d.count; i++)
        print_message("%d:%d: %s\n", d.items[i].line, d.items[i].col,
                      d.items[i].message);
    assert_int_equal(rc, KM_OK);
    assert_int_equal(d.count, 0);
    assert_non_null(p);
    km_diags_free(&d);
    return p;
}

/* Ends with `suffix`: resolved paths are absolute, under the fixture. */
static inline void assert_path(const char *path, const km_program *p, const char *rel)
{
    char want[PATH_MAX];
    snprintf(want, sizeof want, "%s/%s", p->root, rel);
    assert_string_equal(path, want);
}

/* --- accepted forms ----------------------------------------------- */


#endif
