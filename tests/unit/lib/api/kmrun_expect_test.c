/* Tests for include/kmrun.h's expected results and kmrun test's parts
 * (lib/api/kmrun_expect.c, kmrun_new.c): a manifest's expect: read back,
 * a stopped run held to it in memory and from its JSON and run folder
 * (the same verdict), a broken expectation at its file:line:col, the
 * programs under programs/, shards, a case's lines, the JUnit report, and
 * a new program from each template that runs and holds at once.  Runs
 * from the top of the tree, with a cache and runs folder of its own
 * (api_fixture.h). */
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

#include "api_fixture.h"
#include "kmrun.h"
#include "kmrun_tools.h"

#define HELLO "programs/01_hello/program.yaml"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Runs p on backend to its stop; the run (its session in *s). */
static kmrun_run *run_on(kmrun_program *p, kmrun_backend backend, kmrun_session **s)
{
    *s = open_session(backend, true);
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    if (kmrun_session_load(*s, p, &r, &e) != KMRUN_OK)
        fail_msg("kmrun_session_load: %s", kmrun_error_message(e));
    if (kmrun_run_wait(r, 0, &e) != KMRUN_OK)
        fail_msg("kmrun_run_wait: %s", kmrun_error_message(e));
    return r;
}

static void a_manifests_expect_read_back(void **state)
{
    (void)state;
    kmrun_program *p = load_program(HELLO);
    assert_true(kmrun_program_has_expect(p));
    kmrun_backend b[2];
    assert_int_equal(kmrun_program_expect_backends(p, b), 2);
    assert_int_equal(b[0], KMRUN_BACKEND_SIM);
    assert_int_equal(b[1], KMRUN_BACKEND_HOST);
    kmrun_program_free(p);
    p = load_program("programs/10_x280_ports/one.yaml");
    assert_int_equal(kmrun_program_expect_backends(p, b), 1);
    assert_int_equal(b[0], KMRUN_BACKEND_SIM);
    kmrun_program_free(p);
    /* A program built in code has none. */
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_program_new("code", &p, &e), KMRUN_OK);
    assert_false(kmrun_program_has_expect(p));
    assert_int_equal(kmrun_program_expect_backends(p, b), 0);
    kmrun_program_free(p);
    assert_false(kmrun_program_has_expect(NULL));
}

static void a_run_held_in_memory_and_from_its_folder(void **state)
{
    (void)state;
    kmrun_program *p = load_program(HELLO);
    kmrun_session *s;
    kmrun_run *r = run_on(p, KMRUN_BACKEND_SIM, &s);
    kmrun_verdict *v = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_expect_run(p, r, &v, &e), KMRUN_OK);
    assert_null(e);
    assert_string_equal(kmrun_verdict_backend(v), "sim");
    assert_int_equal(kmrun_verdict_checked(v), 5); /* state, code, words, first, sha256 */
    assert_int_equal(kmrun_verdict_mismatches(v), 0);
    assert_string_equal(kmrun_verdict_folder(v), kmrun_run_folder(r));
    kmrun_mismatch m;
    assert_false(kmrun_verdict_mismatch(v, 0, &m));
    kmrun_verdict_free(v);
    /* The JSON kmrun run prints, its regions from the folder it names. */
    assert_int_equal(kmrun_expect_json(p, kmrun_run_json(r), NULL, &v, &e), KMRUN_OK);
    assert_int_equal(kmrun_verdict_checked(v), 5);
    assert_int_equal(kmrun_verdict_mismatches(v), 0);
    assert_string_equal(kmrun_verdict_folder(v), kmrun_run_folder(r));
    kmrun_verdict_free(v);
    /* Without a folder, each region expectation is a difference. */
    char *json = strdup(kmrun_run_json(r));
    char *dir = strstr(json, "\"run_dir\"");
    assert_non_null(dir);
    memcpy(dir, "\"run_xxx\"", 9);
    assert_int_equal(kmrun_expect_json(p, json, NULL, &v, &e), KMRUN_OK);
    assert_null(kmrun_verdict_folder(v));
    assert_int_equal(kmrun_verdict_mismatches(v), 2);
    assert_true(kmrun_verdict_mismatch(v, 0, &m));
    assert_non_null(strstr(m.text, "region 'out' of cluster 1: expected first bytes "
                                   "00000000070000000e000000, got no bytes: no run folder to "
                                   "read it from"));
    kmrun_verdict_free(v);
    free(json);
    expect_error(kmrun_expect_json(p, "{}", NULL, &v, &e), &e, KMRUN_USAGE, "not a run's JSON");
    expect_error(kmrun_expect_run(p, NULL, &v, &e), &e, KMRUN_USAGE, "the run is NULL");
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
}

static void a_broken_expectation_at_its_line(void **state)
{
    (void)state;
    char dir[128], path[160], source[4096], yaml[8192];
    snprintf(dir, sizeof dir, "%s/broken", root);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/program.yaml", dir);
    assert_non_null(realpath("programs/01_hello/thread/hello.c", source));
    snprintf(yaml, sizeof yaml,
             "name: hello\n"
             "threads:\n"
             "  - cluster: 1\n"
             "    sources: [%s]\n"
             "    regions: {out: 4KiB}\n"
             "    words: [7, 6]\n"
             "expect:\n"
             "  threads:\n"
             "    - {cluster: 1, words: [43]}\n",
             source);
    write_file(path, yaml);
    kmrun_program *p = load_program(path);
    kmrun_session *s;
    kmrun_run *r = run_on(p, KMRUN_BACKEND_HOST, &s);
    kmrun_verdict *v = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_expect_run(p, r, &v, &e), KMRUN_OK);
    assert_string_equal(kmrun_verdict_backend(v), "host");
    assert_int_equal(kmrun_verdict_mismatches(v), 1);
    kmrun_mismatch m;
    assert_true(kmrun_verdict_mismatch(v, 0, &m));
    assert_string_equal(m.file, path);
    assert_int_equal(m.line, 9);
    assert_int_equal(m.col, 27);
    assert_string_equal(m.subject, "thread on cluster 1");
    assert_string_equal(m.expected, "words [43]");
    assert_string_equal(m.got, "[42]");
    char text[512];
    snprintf(text, sizeof text, "%s:9:27: thread on cluster 1: expected words [43], got [42]",
             path);
    assert_string_equal(m.text, text);
    /* The same as a diagnostic, for a tool. */
    kmrun_diagnostic *d = kmrun_verdict_diagnostic(v, 0);
    assert_non_null(d);
    assert_string_equal(kmrun_diagnostic_code(d), "test.mismatch");
    assert_int_equal(kmrun_diagnostic_severity(d), KMRUN_SEVERITY_ERROR);
    assert_string_equal(kmrun_diagnostic_file(d), path);
    assert_int_equal(kmrun_diagnostic_line(d), 9);
    assert_int_equal(kmrun_diagnostic_column(d), 27);
    assert_string_equal(kmrun_diagnostic_message(d),
                        "thread on cluster 1: expected words [43], got [42]");
    assert_string_equal(kmrun_diagnostic_text(d), "    - {cluster: 1, words: [43]}");
    kmrun_diagnostic_free(d);
    assert_null(kmrun_verdict_diagnostic(v, 1));
    kmrun_verdict_free(v);
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
}

static void the_programs_shards_and_reports(void **state)
{
    (void)state;
    const char *paths[] = {"programs"};
    kmrun_test_list *l = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_test_find(paths, 1, &l, &e), KMRUN_OK);
    assert_true(kmrun_test_count(l) >= 16);
    assert_string_equal(kmrun_test_path(l, 0), HELLO);
    for (size_t i = 1; i < kmrun_test_count(l); i++)
        assert_true(strcmp(kmrun_test_path(l, i - 1), kmrun_test_path(l, i)) < 0);
    assert_null(kmrun_test_path(l, kmrun_test_count(l)));
    kmrun_test_list_free(l);
    const char *missing[] = {"no/such/folder"};
    expect_error(kmrun_test_find(missing, 1, &l, &e), &e, KMRUN_USAGE,
                 "no file or folder 'no/such/folder'");
    unsigned i = 0, n = 0;
    assert_true(kmrun_test_shard_parse("2/3", &i, &n));
    assert_int_equal(i, 2);
    assert_int_equal(n, 3);
    assert_false(kmrun_test_shard_parse("3/2", &i, &n));
    assert_true(kmrun_test_in_shard(4, 2, 3));
    assert_false(kmrun_test_in_shard(4, 1, 3));

    kmrun_test_case c;
    kmrun_test_case_init(&c);
    assert_int_equal(c.size, sizeof c);
    c.manifest = HELLO;
    c.backend = "sim";
    c.seconds = 0.414;
    char *line = kmrun_test_line(&c, KMRUN_TEST_TEXT, 1);
    assert_string_equal(line, "ok   programs/01_hello/program.yaml [sim] 0.41 s");
    free(line);
    line = kmrun_test_line(&c, KMRUN_TEST_TAP, 7);
    assert_string_equal(line, "ok 7 - programs/01_hello/program.yaml [sim]");
    free(line);
    char path[160];
    snprintf(path, sizeof path, "%s/junit.xml", root);
    assert_int_equal(kmrun_test_junit(path, &c, 1, &e), KMRUN_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    c.size = 1;
    assert_null(kmrun_test_line(&c, KMRUN_TEST_TEXT, 1));
    expect_error(kmrun_test_junit(path, &c, 1, &e), &e, KMRUN_USAGE,
                 "invalid kmrun_test_case size");
}

/* A new program from `template`, run on `backend`, holds at once. */
static void new_program_holds(const char *template, kmrun_backend backend)
{
    char folder[160], manifest[192];
    snprintf(folder, sizeof folder, "%s/new_%s", root, template);
    for (char *c = folder + strlen(root); *c; c++)
        if (*c == '-')
            *c = '_';
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_new_program(folder, template, &e), KMRUN_OK);
    snprintf(manifest, sizeof manifest, "%s/program.yaml", folder);
    kmrun_program *p = load_program(manifest);
    assert_string_equal(kmrun_program_name(p), strrchr(folder, '/') + 1);
    kmrun_session *s;
    kmrun_run *r = run_on(p, backend, &s);
    assert_true(kmrun_run_ok(r));
    kmrun_verdict *v = NULL;
    assert_int_equal(kmrun_expect_run(p, r, &v, &e), KMRUN_OK);
    kmrun_mismatch m;
    for (size_t i = 0; kmrun_verdict_mismatch(v, i, &m); i++)
        print_message("%s\n", m.text);
    assert_int_equal(kmrun_verdict_mismatches(v), 0);
    assert_true(kmrun_verdict_checked(v) > 0);
    kmrun_verdict_free(v);
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
    /* Again: the folder is there, and stays as it is. */
    expect_error(kmrun_new_program(folder, template, &e), &e, KMRUN_USAGE, "already exists");
}

static void a_new_program_from_each_template(void **state)
{
    (void)state;
    new_program_holds("thread", KMRUN_BACKEND_SIM);
    new_program_holds("host-fed", KMRUN_BACKEND_HOST);
    new_program_holds("ports", KMRUN_BACKEND_SIM);
    char folder[160];
    snprintf(folder, sizeof folder, "%s/other", root);
    kmrun_error *e = NULL;
    expect_error(kmrun_new_program(folder, "gpu", &e), &e, KMRUN_USAGE,
                 "unknown template 'gpu' (expected host-fed, ports or thread)");
    snprintf(folder, sizeof folder, "%s/bad name", root);
    expect_error(kmrun_new_program(folder, NULL, &e), &e, KMRUN_USAGE, "bad program name");
    expect_error(kmrun_new_program("", NULL, &e), &e, KMRUN_USAGE, "an empty folder name");
    snprintf(folder, sizeof folder, "%s/no/such/parent", root);
    expect_error(kmrun_new_program(folder, NULL, &e), &e, KMRUN_SYSTEM, "cannot make folder");
    struct stat st;
    assert_int_not_equal(stat(folder, &st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_manifests_expect_read_back),
        cmocka_unit_test(a_run_held_in_memory_and_from_its_folder),
        cmocka_unit_test(a_broken_expectation_at_its_line),
        cmocka_unit_test(the_programs_shards_and_reports),
        cmocka_unit_test(a_new_program_from_each_template),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
