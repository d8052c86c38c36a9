/* api_fixture: what the public C API's tests share (tests/unit/lib/api/):
 * a temporary folder per test binary with its own build cache and runs
 * folder (setup, teardown), a session on it, a program loaded, and the
 * check of a refusal's status and message.  Static: each test includes it
 * once. */
#ifndef API_FIXTURE_H
#define API_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmrun.h"

static char root[64];
static char cache[128], runs[128];

__attribute__((unused)) static int setup(void **state)
{
    (void)state;
    strcpy(root, "/tmp/kmrun-api-test.XXXXXX");
    if (!mkdtemp(root))
        return -1;
    snprintf(cache, sizeof cache, "%s/cache", root);
    snprintf(runs, sizeof runs, "%s/runs", root);
    return 0;
}

__attribute__((unused)) static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* A session on `backend` with the test's folders. */
__attribute__((unused)) static kmrun_session *open_session(kmrun_backend backend, bool folder)
{
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.backend = backend;
    o.cache_dir = cache;
    o.runs_dir = runs;
    o.no_run_folder = !folder;
    kmrun_session *s = NULL;
    kmrun_error *e = NULL;
    kmrun_status st = kmrun_session_open(&o, &s, &e);
    if (st != KMRUN_OK)
        fail_msg("kmrun_session_open: %s", kmrun_error_message(e));
    assert_null(e);
    assert_non_null(s);
    return s;
}

__attribute__((unused)) static kmrun_program *load_program(const char *path)
{
    kmrun_program *p = NULL;
    kmrun_error *e = NULL;
    if (kmrun_program_load(path, &p, &e) != KMRUN_OK)
        fail_msg("kmrun_program_load %s: %s", path, kmrun_error_message(e));
    assert_null(e);
    return p;
}

/* The call returned `st` and set *ep to an error of that status whose
 * message holds `text`; freed (ep: the call's argument is read after it). */
__attribute__((unused)) static void expect_error(kmrun_status got, kmrun_error **ep, kmrun_status st, const char *text)
{
    kmrun_error *e = *ep;
    *ep = NULL;
    assert_int_equal(got, st);
    assert_non_null(e);
    assert_int_equal(kmrun_error_status(e), st);
    if (!strstr(kmrun_error_message(e), text))
        fail_msg("expected '%s' in the message: %s", text, kmrun_error_message(e));
    kmrun_error_free(e);
}

#endif
