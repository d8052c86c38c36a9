/* manifest_fixture.h: a manifest loaded from text, for the unit tests of
 * what the program model feeds (the plan, the ports, the checker's
 * naming): the manifest and empty source files written into a fresh
 * folder under /tmp, loaded, and the folder removed. */
#ifndef MANIFEST_FIXTURE_H
#define MANIFEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km_fs.h"
#include "km_program.h"

/* The program of `yaml`, whose source files `sources` (NULL-terminated)
 * exist, empty; the test fails when it does not load. */
static inline km_program *fixture_program(const char *yaml, const char *const *sources)
{
    char dir[64] = "/tmp/kmrun-unit-test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (const char *const *s = sources; s && *s; s++) {
        char *f = km_path_join(dir, *s);
        assert_int_equal(km_write_file_atomic(f, "", 0, NULL), KM_OK);
        free(f);
    }
    char *man = km_path_join(dir, "program.yaml");
    assert_int_equal(km_write_file_atomic(man, yaml, strlen(yaml), NULL), KM_OK);
    km_program *p = NULL;
    km_diags d = {0};
    km_error err = {0};
    int rc = km_manifest_load(man, &p, &d, &err);
    if (rc != KM_OK)
        km_diags_print(&d, stderr);
    assert_int_equal(rc, KM_OK);
    km_diags_free(&d);
    free(man);
    km_rm_rf(dir);
    return p;
}

#endif
