/* Tests for lib/expect/: a run's JSON and regions against a manifest's
 * expect: (km_expect.c) — every kind of difference with its exact text
 * and file:line:col, items of the other backend left out, what every run
 * must give beyond the items — and what kmrun test needs around it
 * (km_suite.c): the programs under a folder, shards, a case's text and
 * TAP lines, the JUnit report. */
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

#include "km_expect.h"
#include "km_suite.h"
#include "expect_fixture.h"
#include "manifest_fixture.h"

static const char *const sources[] = {"a.c", NULL};


/* A run's JSON: thread 1 returned [42, 7] and printed two lines, thread
 * 2 as given, the command as given, the wild writes (NULL: none). */
static char *run_json(const char *backend, const char *thread2, const char *command,
                      const char *wild)
{
    char *s = NULL;
    int n = asprintf(&s,
                     "{\"backend\": \"%s\", \"run_dir\": \"/nowhere\", \"threads\": ["
                     "{\"cluster\": 1, \"state\": \"returned\", \"code\": 0, \"words\": [42, 7], "
                     "\"message\": null},"
                     "%s],"
                     "\"prints\": [{\"cluster\": 1, \"text\": \"sum 42\"}, "
                     "{\"cluster\": 2, \"text\": \"other\"}, {\"cluster\": 1, \"text\": \"done\"}],"
                     "\"commands\": [%s], \"kernel_faults\": [], \"wild_writes\": %s, "
                     "\"handover\": null}",
                     backend, thread2, command, wild ? wild : "[]");
    assert_true(n > 0);
    return s;
}

#define T2_OK "{\"cluster\": 2, \"state\": \"returned\", \"code\": 0, \"words\": []}"
#define CMD_OK                                                                                 \
    "{\"index\": 0, \"handler\": \"sum\", \"handle\": 1, \"event\": \"done\", \"reason\": 0, " \
    "\"result\": 3072}"

/* The regions of the run: out of cluster 1 is 01 02 .. 10, of cluster 2
 * absent. */
static int reader(void *ctx, const char *name, int cluster, const void **data, size_t *bytes,
                  void **owned, const uint64_t **map, void **owned_map, km_error *err)
{
    (void)ctx, (void)map, (void)owned_map;
    static const unsigned char out[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    *owned = NULL;
    if (strcmp(name, "out") != 0 || cluster != 1)
        return km_fail(err, KM_EXIT_USAGE, "no copy of '%s' on cluster %d", name, cluster);
    *data = out;
    *bytes = sizeof out;
    return KM_OK;
}

/* The verdict of `expect` (from line 8) on the run `json`. */
static km_verdict check(const char *expect, const char *json)
{
    char *yaml = NULL;
    assert_true(asprintf(&yaml, "%s%s", EXPECT_PROGRAM, expect) > 0);
    km_program *p = fixture_program(yaml, sources);
    km_verdict v;
    km_error e = {0};
    int rc = km_expect_check(p, json, reader, NULL, &v, &e);
    if (rc != KM_OK)
        fail_msg("km_expect_check: %s", e.message);
    /* The texts name the manifest: compare from the line on. */
    for (size_t i = 0; i < v.n; i++) {
        const char *colon = strstr(v.items[i].text, "program.yaml:");
        assert_non_null(colon);
        memmove(v.items[i].text, colon + strlen("program.yaml:"),
                strlen(colon + strlen("program.yaml:")) + 1);
    }
    km_program_free(p);
    free(yaml);
    return v;
}

/* The verdict has exactly the differences texts[] (NULL-terminated). */
static void expect_texts(const km_verdict *v, const char *const *texts)
{
    size_t n = 0;
    while (texts[n])
        n++;
    for (size_t i = 0; i < v->n; i++)
        print_message("  got %s\n", v->items[i].text);
    assert_int_equal(v->n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(v->items[i].text, texts[i]);
}

static void a_run_that_holds(void **state)
{
    (void)state;
    char *json = run_json("sim", T2_OK, CMD_OK, NULL);
    km_verdict v = check("expect:\n"
                         "  threads:\n"
                         "    - {cluster: 1, state: returned, code: 0, words: [42, 7],\n"
                         "       prints: [sum 42, done]}\n"
                         "    - {cluster: 2, words: [], prints: [other]}\n"
                         "  regions:\n"
                         "    - {name: out, cluster: 1, first: \"0102\",\n"
                         "       sha256: \"" /* sha256 of 01..10 */
                         "5dfbabeedf318bf33c0927c43d7630f51b82f351740301354fa3d7fc51f0132e\"}\n"
                         "  commands:\n"
                         "    - {handle: 1, event: done, result: 3072}\n",
                         json);
    const char *const none[] = {NULL};
    expect_texts(&v, none);
    assert_int_equal(v.checked, 10);
    assert_string_equal(v.backend, "sim");
    km_verdict_free(&v);
    free(json);
}

static void each_difference_at_its_line(void **state)
{
    (void)state;
    char *json = run_json("sim",
                          "{\"cluster\": 2, \"state\": \"trapped\", \"code\": null, \"words\": [], "
                          "\"message\": \"load access fault at a.c:3\"}",
                          "{\"index\": 0, \"handler\": \"sum\", \"handle\": 1, \"event\": "
                          "\"rejected\", \"reason\": 3, \"result\": null}",
                          NULL);
    km_verdict v = check("expect:\n"                                                     /* 8 */
                         "  threads:\n"                                                  /* 9 */
                         "    - cluster: 1\n"                                            /* 10 */
                         "      words: [42]\n"                                           /* 11 */
                         "      prints: [sum 42, finished]\n"                            /* 12 */
                         "    - cluster: 2\n"                                            /* 13 */
                         "      state: returned\n"                                       /* 14 */
                         "      code: 0\n"                                               /* 15 */
                         "  regions:\n"                                                  /* 16 */
                         "    - name: out\n"                                             /* 17 */
                         "      cluster: 1\n"                                            /* 18 */
                         "      first: \"0103\"\n"                                       /* 19 */
                         "    - {name: out, cluster: 2, sha256: \""                      /* 20 */
                         "5dfbabeedf318bf33c0927c43d7630f51b82f351740301354fa3d7fc51f0132e\"}\n"
                         "  commands:\n"                                                 /* 21 */
                         "    - {handle: 1, event: done, result: 3072}\n",               /* 22 */
                         json);
    const char *const texts[] = {
        "11:14: thread on cluster 1: expected words [42], got [42, 7]",
        "12:15: thread on cluster 1: expected print 2 'finished', got 'done'",
        "14:14: thread on cluster 2: expected state 'returned', got 'trapped' (load access "
        "fault at a.c:3)",
        "15:13: thread on cluster 2: expected code 0, got none (kmx_main did not return)",
        "19:14: region 'out' of cluster 1: expected first bytes 0103, got 0102",
        "20:39: region 'out' of cluster 2: expected sha256 "
        "5dfbabeedf318bf33c0927c43d7630f51b82f351740301354fa3d7fc51f0132e, got no bytes: no copy "
        "of 'out' on cluster 2",
        "22:26: command 1 ('sum'): expected event 'done', got 'rejected' (reason 3)",
        "22:40: command 1 ('sum'): expected result 3072, got no result word",
        NULL,
    };
    expect_texts(&v, texts);
    assert_int_equal(v.items[0].pos.line, 11);
    assert_int_equal(v.items[0].pos.col, 14);
    assert_string_equal(v.items[0].subject, "thread on cluster 1");
    assert_string_equal(v.items[0].expected, "words [42]");
    assert_string_equal(v.items[0].got, "[42, 7]");
    km_verdict_free(&v);
    free(json);
}

static void long_lists_and_prints(void **state)
{
    (void)state;
    char *json = run_json("sim", T2_OK, CMD_OK, NULL);
    km_verdict v = check("expect:\n"
                         "  threads:\n"
                         "    - {cluster: 1, words: [42, 8, 0, 0, 0, 0, 0, 0, 0, 0]}\n"
                         "    - {cluster: 1, prints: [sum 42]}\n"
                         "    - {cluster: 2, prints: [other, more, again]}\n"
                         "  commands:\n"
                         "    - {handle: 1, result: ~}\n",
                         json);
    const char *const texts[] = {
        "10:27: thread on cluster 1: expected 10 words, got 2 words, the first difference at "
        "word 1 ([42, 7])",
        "11:28: thread on cluster 1: expected 1 print, got more, the next 'done'",
        "12:28: thread on cluster 2: expected print 2 'more', got 1 print",
        "14:27: command 1 ('sum'): expected no result word, got 3072",
        NULL,
    };
    expect_texts(&v, texts);
    km_verdict_free(&v);
    free(json);
}

static void the_other_backends_items_are_left_out(void **state)
{
    (void)state;
    const char *expect = "expect:\n"
                         "  backends: [sim, host]\n"
                         "  threads:\n"
                         "    - {cluster: 1, backend: sim, words: [42, 7]}\n"
                         "    - {cluster: 1, backend: host, words: [1]}\n"
                         "    - {cluster: 1, code: 0}\n";
    char *json = run_json("sim", T2_OK, CMD_OK, NULL);
    km_verdict v = check(expect, json);
    assert_int_equal(v.n, 0);
    assert_int_equal(v.checked, 2);
    km_verdict_free(&v);
    free(json);
    json = run_json("host", T2_OK, CMD_OK, NULL);
    v = check(expect, json);
    const char *const texts[] = {
        "12:42: thread on cluster 1: expected words [1], got [42, 7]",
        NULL,
    };
    expect_texts(&v, texts);
    assert_string_equal(v.backend, "host");
    km_verdict_free(&v);
    free(json);
}

static void every_run_must_go_well(void **state)
{
    (void)state;
    const char *stuck = "{\"cluster\": 2, \"state\": \"stuck\", \"code\": null, \"words\": []}";
    const char *no_event = "{\"index\": 0, \"handler\": \"sum\", \"handle\": 1, \"event\": null, "
                           "\"reason\": null, \"result\": null}";
    char *with = run_json("sim", stuck, no_event, "[{}]");
    char *json = run_json("sim", stuck, no_event, NULL);
    km_verdict v = check("expect:\n"
                         "  threads:\n"
                         "    - {cluster: 1, code: 0}\n",
                         with);
    const char *const texts[] = {
        "8:1: thread on cluster 2: expected state 'returned' (no other named), got 'stuck'",
        "8:1: command 1 ('sum'): expected event 'done' (no other named), got no event (the run "
        "stopped first)",
        "8:1: the run: expected no wild writes, got 1 wild write (the run JSON's wild_writes)",
        NULL,
    };
    expect_texts(&v, texts);
    km_verdict_free(&v);
    /* Named, a state or an event other than the usual is what must come. */
    v = check("expect:\n"
              "  threads:\n"
              "    - {cluster: 2, state: stuck}\n"
              "  commands:\n"
              "    - {handle: 1, backend: host, event: timeout}\n",
              json);
    const char *const texts2[] = {
        "12:7: command 1 ('sum'): expected event 'done' (no other named), got no event (the run "
        "stopped first)",
        NULL,
    };
    /* the host item does not apply on sim: the command is unnamed there */
    assert_int_equal(v.n, 1);
    assert_non_null(strstr(v.items[0].text, texts2[0] + strlen("12:7: ")));
    km_verdict_free(&v);
    free(with);
    free(json);
}

static void not_a_runs_json(void **state)
{
    (void)state;
    km_program *p = fixture_program(EXPECT_PROGRAM "expect: {}\n", sources);
    km_verdict v;
    km_error e = {0};
    assert_int_equal(km_expect_check(p, "{\"threads\": []}", reader, NULL, &v, &e),
                     KM_EXIT_USAGE);
    assert_non_null(strstr(e.message, "not a run's JSON"));
    assert_int_equal(km_expect_check(p, "nonsense", reader, NULL, &v, &e), KM_EXIT_USAGE);
    km_verdict_free(&v);
    bool oom = true;
    char *dir = km_expect_run_dir("{\"run_dir\": \".kmrun/runs/x\"}", &oom);
    assert_string_equal(dir, ".kmrun/runs/x");
    assert_false(oom);
    free(dir);
    oom = true;
    assert_null(km_expect_run_dir("{}", &oom));
    assert_false(oom);
    oom = true;
    assert_null(km_expect_run_dir("nonsense", &oom));
    assert_false(oom);
    km_program_free(p);
}

/* ---- km_suite ------------------------------------------------------------ */

static void put(const char *dir, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char *folder = km_dirname(path);
    assert_int_equal(km_mkdir_p(folder, NULL), KM_OK);
    free(folder);
    assert_int_equal(km_write_file_atomic(path, text, strlen(text), NULL), KM_OK);
}

static void the_programs_under_a_folder(void **state)
{
    (void)state;
    char dir[64] = "/tmp/kmrun-suite-test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    put(dir, "b/program.yaml", "name: b\n");
    put(dir, "a/z.yaml", "name: z\nexpect:\n");
    put(dir, "a/program.yaml", "name: a\n");
    put(dir, "a/other.yaml", "name: other\n  expect: no\n"); /* not top-level */
    put(dir, "a/notes.txt", "expect:\n");
    put(dir, ".hidden/program.yaml", "name: h\n");
    put(dir, "a/.kmrun/program.yaml", "name: h\n");
    char sub[128];
    snprintf(sub, sizeof sub, "%s/a/z.yaml", dir);
    const char *paths[] = {dir, sub};
    km_suite_list l;
    km_error e = {0};
    assert_int_equal(km_suite_find(paths, 2, &l, &e), KM_OK);
    assert_int_equal(l.n, 3); /* a/z.yaml once */
    const char *want[] = {"a/program.yaml", "a/z.yaml", "b/program.yaml"};
    for (size_t i = 0; i < 3; i++) {
        char full[256];
        snprintf(full, sizeof full, "%s/%s", dir, want[i]);
        assert_string_equal(l.paths[i], full);
    }
    km_suite_list_free(&l);
    const char *missing[] = {"/nonexistent/kmrun"};
    assert_int_equal(km_suite_find(missing, 1, &l, &e), KM_EXIT_USAGE);
    assert_non_null(strstr(e.message, "no file or folder '/nonexistent/kmrun'"));
    char empty[128];
    snprintf(empty, sizeof empty, "%s/.hidden", dir);
    const char *none[] = {empty};
    assert_int_equal(km_suite_find(none, 1, &l, &e), KM_OK); /* program.yaml in it */
    km_suite_list_free(&l);
    km_rm_rf(dir);
}

static void shards(void **state)
{
    (void)state;
    unsigned i, n;
    assert_true(km_suite_shard_parse("1/2", &i, &n));
    assert_int_equal(i, 1);
    assert_int_equal(n, 2);
    assert_true(km_suite_shard_parse("7/7", &i, &n));
    const char *bad[] = {"3/2", "0/2", "1/0", "1", "/2", "1/", "a/b", "1/2x", "-1/2", "1/2000000",
                         ""};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        assert_false(km_suite_shard_parse(bad[k], &i, &n));
    /* Disjoint and covering, for every N up to 5 over 13 programs. */
    for (unsigned count = 1; count <= 5; count++) {
        for (size_t p = 0; p < 13; p++) {
            unsigned in = 0;
            for (unsigned s = 1; s <= count; s++)
                in += km_suite_in_shard(p, s, count);
            assert_int_equal(in, 1);
        }
    }
    assert_true(km_suite_in_shard(0, 1, 2));
    assert_true(km_suite_in_shard(1, 2, 2));
    assert_true(km_suite_in_shard(2, 1, 2));
}

static void lines_and_reports(void **state)
{
    (void)state;
    km_case cases[] = {
        {.manifest = "programs/01_hello/program.yaml", .backend = "sim",
         .outcome = KM_CASE_PASS, .seconds = 0.414},
        {.manifest = "p/#1/program.yaml", .backend = "host", .outcome = KM_CASE_FAIL,
         .seconds = 1.5, .summary = "p/#1/program.yaml:3:4: x: expected \"a\" & <b>, got c",
         .detail = "first\nsecond\001", .more = 1, .run_folder = "runs/r1"},
        {.manifest = "program.yaml", .outcome = KM_CASE_SKIP, .summary = "no expect:"},
    };
    char *s = km_suite_line(&cases[0], false, 1);
    assert_string_equal(s, "ok   programs/01_hello/program.yaml [sim] 0.41 s");
    free(s);
    s = km_suite_line(&cases[1], false, 2);
    assert_string_equal(s, "FAIL p/#1/program.yaml [host] 1.50 s\n"
                           "     p/#1/program.yaml:3:4: x: expected \"a\" & <b>, got c\n"
                           "     (1 more difference)\n"
                           "     run folder runs/r1");
    free(s);
    s = km_suite_line(&cases[2], false, 3);
    assert_string_equal(s, "skip program.yaml (no expect:)");
    free(s);
    s = km_suite_line(&cases[0], true, 1);
    assert_string_equal(s, "ok 1 - programs/01_hello/program.yaml [sim]");
    free(s);
    s = km_suite_line(&cases[1], true, 2);
    assert_string_equal(s, "not ok 2 - p/\\#1/program.yaml [host]\n"
                           "  ---\n"
                           "  message: \"p/#1/program.yaml:3:4: x: expected \\\"a\\\" & <b>, got c\"\n"
                           "  severity: fail\n"
                           "  seconds: 1.50\n"
                           "  run_folder: \"runs/r1\"\n"
                           "  detail:\n"
                           "    - \"first\"\n"
                           "    - \"second\\\\001\"\n"
                           "  ...");
    free(s);
    s = km_suite_line(&cases[2], true, 3);
    assert_string_equal(s, "ok 3 - program.yaml # SKIP no expect:");
    free(s);
    s = km_suite_junit_text(cases, 3);
    print_message("%s", s);
    assert_non_null(strstr(s, "<testsuites name=\"kmrun test\" tests=\"3\" failures=\"1\" "
                              "errors=\"0\" skipped=\"1\" time=\"1.914\">"));
    assert_non_null(strstr(s, "<testcase classname=\"programs.01_hello\" name=\"program.yaml "
                              "[sim]\" file=\"programs/01_hello/program.yaml\" time=\"0.414\"/>"));
    assert_non_null(strstr(s, "<testcase classname=\"p.#1\" name=\"program.yaml [host]\""));
    assert_non_null(strstr(s, "<failure message=\"p/#1/program.yaml:3:4: x: expected "
                              "&quot;a&quot; &amp; &lt;b&gt;, got c\" type=\"kmrun test\">first\n"
                              "second\\001\nrun folder: runs/r1</failure>"));
    assert_non_null(strstr(s, "<testcase classname=\"kmrun\" name=\"program.yaml\""));
    assert_non_null(strstr(s, "<skipped message=\"no expect:\"/>"));
    free(s);
    char dir[64] = "/tmp/kmrun-junit-test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/junit.xml", dir);
    km_error e = {0};
    assert_int_equal(km_suite_junit(path, cases, 3, &e), KM_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/no/such/junit.xml", dir);
    assert_int_equal(km_suite_junit(path, cases, 3, &e), KM_EXIT_SYSTEM);
    km_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_run_that_holds),
        cmocka_unit_test(each_difference_at_its_line),
        cmocka_unit_test(long_lists_and_prints),
        cmocka_unit_test(the_other_backends_items_are_left_out),
        cmocka_unit_test(every_run_must_go_well),
        cmocka_unit_test(not_a_runs_json),
        cmocka_unit_test(the_programs_under_a_folder),
        cmocka_unit_test(shards),
        cmocka_unit_test(lines_and_reports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
