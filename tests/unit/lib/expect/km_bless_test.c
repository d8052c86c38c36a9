/* Tests for lib/expect/km_bless.c (and the fixes km_expect.c gives each
 * difference): which differences are values; a manifest rewritten to
 * what the runs gave, only those bytes, its mode kept; runs refused
 * together (a failure, backends that disagree, a backend that did not
 * run), the file then untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_bless.h"
#include "km_fs.h"
#include "expect_fixture.h"
#include "manifest_fixture.h"


typedef struct fixture {
    char dir[64];
    char *manifest;
    km_program *p;
} fixture;

static void load(fixture *f, const char *expect, mode_t mode)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/kmrun-bless-test.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    char *src = km_path_join(f->dir, "a.c");
    assert_int_equal(km_write_file_atomic(src, "", 0, NULL), KM_OK);
    free(src);
    f->manifest = km_path_join(f->dir, "program.yaml");
    char *yaml = NULL;
    assert_true(asprintf(&yaml, "%s%s", EXPECT_PROGRAM, expect) > 0);
    assert_int_equal(km_write_file_atomic(f->manifest, yaml, strlen(yaml), NULL), KM_OK);
    assert_int_equal(chmod(f->manifest, mode), 0);
    free(yaml);
    km_diags d = {0};
    km_error err = {0};
    int rc = km_manifest_load(f->manifest, &f->p, &d, &err);
    if (rc != KM_OK)
        km_diags_print(&d, stderr);
    assert_int_equal(rc, KM_OK);
    km_diags_free(&d);
}

static char *text_of(const fixture *f)
{
    char *text = NULL;
    size_t n = 0;
    assert_int_equal(km_read_file(f->manifest, &text, &n, NULL), KM_OK);
    return text;
}

static void unload(fixture *f)
{
    km_program_free(f->p);
    free(f->manifest);
    km_rm_rf(f->dir);
}

/* A run: thread 1 as given, thread 2 returned [5], prints, the command. */
static char *run_json(const char *backend, const char *thread1, const char *result)
{
    char *s = NULL;
    assert_true(asprintf(&s,
                         "{\"backend\": \"%s\", \"threads\": [%s, "
                         "{\"cluster\": 2, \"state\": \"returned\", \"code\": 0, \"words\": [5]}],"
                         "\"prints\": [{\"cluster\": 1, \"text\": \"sum: 42\"}, "
                         "{\"cluster\": 1, \"text\": \"done\"}],"
                         "\"commands\": [{\"index\": 0, \"event\": \"done\", \"result\": %s}],"
                         "\"kernel_faults\": [], \"wild_writes\": [], \"handover\": null}",
                         backend, thread1, result) > 0);
    return s;
}

#define T1(words) \
    "{\"cluster\": 1, \"state\": \"returned\", \"code\": 3, \"words\": " words "}"

static int reader(void *ctx, const char *name, int cluster, const void **data, size_t *bytes,
                  void **owned, const uint64_t **map, void **owned_map, km_error *err)
{
    (void)ctx, (void)name, (void)cluster, (void)map, (void)owned_map, (void)err;
    static const unsigned char out[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    *owned = NULL;
    *data = out;
    *bytes = sizeof out;
    return KM_OK;
}

static km_verdict check(const fixture *f, const char *json)
{
    km_verdict v;
    km_error e = {0};
    if (km_expect_check(f->p, json, reader, NULL, &v, &e) != KM_OK)
        fail_msg("km_expect_check: %s", e.message);
    return v;
}

static const char every_value[] =
    "expect:   # what a run gives\n"
    "  threads:\n"
    "    - cluster: 1\n"
    "      code: 0          # exit\n"
    "      words: [42, 0x7]\n"
    "      prints:\n"
    "        - 'sum 41'     # its quotes kept\n"
    "    - {cluster: 2, words: [1, 2, 3]}\n"
    "  regions:\n"
    "    - name: out\n"
    "      cluster: 1\n"
    "      first: '0a02'\n"
    "      sha256: \"0000000000000000000000000000000000000000000000000000000000000000\"\n"
    "  commands:\n"
    "    - {handle: 1, result: null}\n";

static void every_value_in_place(void **state)
{
    (void)state;
    fixture f;
    load(&f, every_value, 0640);
    char *json = run_json("sim", T1("[42, 7, 9]"), "12");
    km_verdict v = check(&f, json);
    assert_int_equal(v.n, 7);
    for (size_t i = 0; i < v.n; i++)
        assert_true(v.items[i].fix.ok);
    km_bless b;
    km_bless_init(&b, f.p);
    km_error e = {0};
    assert_int_equal(km_bless_add(&b, &v, &e), KM_OK);
    if (km_bless_write(&b, &e) != KM_OK)
        fail_msg("km_bless_write: %s", e.message);
    assert_int_equal(b.written, 7);
    char *text = text_of(&f);
    assert_string_equal(text, EXPECT_PROGRAM
                        "expect:   # what a run gives\n"
                        "  threads:\n"
                        "    - cluster: 1\n"
                        "      code: 3          # exit\n"
                        "      words: [42, 0x7, 9]\n"
                        "      prints:\n"
                        "        - 'sum: 42'     # its quotes kept\n"
                        "        - 'done'\n"
                        "    - {cluster: 2, words: [5]}\n"
                        "  regions:\n"
                        "    - name: out\n"
                        "      cluster: 1\n"
                        "      first: '0102'\n"
                        "      sha256: \"5dfbabeedf318bf33c0927c43d7630f51b82f351740301354fa3d7fc5"
                        "1f0132e\"\n"
                        "  commands:\n"
                        "    - {handle: 1, result: 12}\n");
    struct stat st;
    assert_int_equal(stat(f.manifest, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    free(text);
    km_bless_free(&b);
    km_verdict_free(&v);
    free(json);
    unload(&f);
}

/* Refused: the file as it was. */
static void refused(const fixture *f, km_bless *b, const char *why)
{
    char *before = text_of(f);
    km_error e = {0};
    assert_int_equal(km_bless_write(b, &e), KM_EXIT_FAILED);
    if (!strstr(e.message, why))
        fail_msg("'%s' says nothing of '%s'", e.message, why);
    char *after = text_of(f);
    assert_string_equal(after, before);
    free(before);
    free(after);
}

static void failures_are_no_values(void **state)
{
    (void)state;
    fixture f;
    load(&f, "expect:\n  threads:\n    - {cluster: 1, state: returned, code: 1}\n"
             "  commands:\n    - {handle: 1, event: done}\n", 0644);
    /* A thread that should have returned, and did not: no code either. */
    char *json = run_json("sim", "{\"cluster\": 1, \"state\": \"trapped\", \"code\": null, "
                                 "\"words\": []}", "1");
    km_verdict v = check(&f, json);
    assert_true(v.n >= 2);
    for (size_t i = 0; i < v.n; i++)
        assert_false(v.items[i].fix.ok);
    km_bless b;
    km_bless_init(&b, f.p);
    km_error e = {0};
    assert_int_equal(km_bless_add(&b, &v, &e), KM_OK);
    refused(&f, &b, "a failure, not a value to bless");
    km_bless_free(&b);
    km_verdict_free(&v);
    free(json);
    unload(&f);
}

static void a_state_other_than_returned_is_a_value(void **state)
{
    (void)state;
    fixture f;
    load(&f, "expect:\n  threads:\n    - {cluster: 1, state: stuck}\n", 0644);
    char *json = run_json("sim", "{\"cluster\": 1, \"state\": \"trapped\", \"code\": null, "
                                 "\"words\": []}", "1");
    km_verdict v = check(&f, json);
    assert_int_equal(v.n, 1);
    assert_true(v.items[0].fix.ok);
    km_bless b;
    km_bless_init(&b, f.p);
    km_error e = {0};
    assert_int_equal(km_bless_add(&b, &v, &e), KM_OK);
    assert_int_equal(km_bless_write(&b, &e), KM_OK);
    char *text = text_of(&f);
    assert_non_null(strstr(text, "{cluster: 1, state: trapped}"));
    free(text);
    km_bless_free(&b);
    km_verdict_free(&v);
    free(json);
    unload(&f);
}

static void backends_must_agree(void **state)
{
    (void)state;
    fixture f;
    load(&f, "expect:\n  backends: [sim, host]\n  threads:\n    - {cluster: 1, words: [1]}\n"
             "    - {cluster: 2, words: [5]}\n", 0644);
    char *sim = run_json("sim", T1("[2]"), "1"), *host = run_json("host", T1("[3]"), "1");
    char *host_same = run_json("host", T1("[2]"), "1"), *host_keeps = run_json("host", T1("[1]"), "1");
    km_verdict vs = check(&f, sim), vh = check(&f, host), vsame = check(&f, host_same),
               vkeeps = check(&f, host_keeps);
    km_error e = {0};
    km_bless b;
    /* Different values. */
    km_bless_init(&b, f.p);
    assert_int_equal(km_bless_add(&b, &vs, &e), KM_OK);
    assert_int_equal(km_bless_add(&b, &vh, &e), KM_OK);
    refused(&f, &b, "sim and host give different values");
    km_bless_free(&b);
    /* Host keeps the manifest's value. */
    km_bless_init(&b, f.p);
    assert_int_equal(km_bless_add(&b, &vs, &e), KM_OK);
    assert_int_equal(km_bless_add(&b, &vkeeps, &e), KM_OK);
    refused(&f, &b, "sim gives a new value, host the manifest's");
    km_bless_free(&b);
    /* Host passed without a verdict (a reused result): the same. */
    km_bless_init(&b, f.p);
    assert_int_equal(km_bless_add(&b, &vs, &e), KM_OK);
    assert_int_equal(km_bless_passed(&b, KM_EXPECT_ON_HOST, &e), KM_OK);
    refused(&f, &b, "host the manifest's");
    km_bless_free(&b);
    /* Host did not run (--backend sim). */
    km_bless_init(&b, f.p);
    assert_int_equal(km_bless_add(&b, &vs, &e), KM_OK);
    refused(&f, &b, "applies to host too, which did not run");
    /* A backend twice. */
    assert_int_equal(km_bless_add(&b, &vs, &e), KM_EXIT_USAGE);
    km_bless_free(&b);
    /* Both agree: blessed. */
    km_bless_init(&b, f.p);
    assert_int_equal(km_bless_add(&b, &vs, &e), KM_OK);
    assert_int_equal(km_bless_add(&b, &vsame, &e), KM_OK);
    assert_int_equal(km_bless_write(&b, &e), KM_OK);
    assert_int_equal(b.written, 1);
    char *text = text_of(&f);
    assert_non_null(strstr(text, "{cluster: 1, words: [2]}"));
    free(text);
    km_bless_free(&b);
    km_verdict_free(&vs);
    km_verdict_free(&vh);
    km_verdict_free(&vsame);
    km_verdict_free(&vkeeps);
    free(sim);
    free(host);
    free(host_same);
    free(host_keeps);
    unload(&f);
}

static void an_item_of_one_backend(void **state)
{
    (void)state;
    fixture f;
    load(&f, "expect:\n  backends: [sim, host]\n  threads:\n"
             "    - {cluster: 1, words: [1], backend: sim}\n"
             "    - {cluster: 1, words: [2], backend: host}\n", 0644);
    char *sim = run_json("sim", T1("[7]"), "1");
    km_verdict v = check(&f, sim);
    km_error e = {0};
    km_bless b;
    km_bless_init(&b, f.p);
    assert_int_equal(km_bless_add(&b, &v, &e), KM_OK);
    if (km_bless_write(&b, &e) != KM_OK)
        fail_msg("%s", e.message);
    char *text = text_of(&f);
    assert_non_null(strstr(text, "{cluster: 1, words: [7], backend: sim}\n"
                                 "    - {cluster: 1, words: [2], backend: host}\n"));
    free(text);
    km_bless_free(&b);
    km_verdict_free(&v);
    free(sim);
    unload(&f);
}

static void a_changed_file_is_not_rewritten(void **state)
{
    (void)state;
    fixture f;
    load(&f, "expect:\n  threads:\n    - {cluster: 1, words: [1]}\n", 0644);
    char *json = run_json("sim", T1("[2]"), "1");
    km_verdict v = check(&f, json);
    /* Someone edits the value meanwhile. */
    const char *edited = EXPECT_PROGRAM "expect:\n  threads:\n    - {cluster: 1, words: [9]}\n";
    assert_int_equal(km_write_file_atomic(f.manifest, edited, strlen(edited), NULL), KM_OK);
    km_error e = {0};
    km_bless b;
    km_bless_init(&b, f.p);
    assert_int_equal(km_bless_add(&b, &v, &e), KM_OK);
    assert_int_equal(km_bless_write(&b, &e), KM_EXIT_USAGE);
    assert_non_null(strstr(e.message, "changed since"));
    char *text = text_of(&f);
    assert_string_equal(text, edited);
    free(text);
    km_bless_free(&b);
    km_verdict_free(&v);
    free(json);
    unload(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_value_in_place),
        cmocka_unit_test(failures_are_no_values),
        cmocka_unit_test(a_state_other_than_returned_is_a_value),
        cmocka_unit_test(backends_must_agree),
        cmocka_unit_test(an_item_of_one_backend),
        cmocka_unit_test(a_changed_file_is_not_rewritten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
