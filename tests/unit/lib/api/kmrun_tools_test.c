/* Tests for what include/kmrun.h gives a tool like kmrun(1) beyond a run
 * (lib/api/kmrun_text.c, kmrun_folders.c, kmrun_json.c, kmrun_build.c,
 * kmrun_report.c, kmrun_exec.c): text shown as kmrun shows it, a
 * manifest's errors with their source lines, the program as JSON, the
 * build cache, a build through it, a stopped run's folder read back, a
 * run's findings, summary and instruction trace, and a bare ELF's
 * refusals.  Runs from the top of the tree, with a cache and runs folder
 * of its own (api_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_fixture.h"
#include "kmrun.h"
#include "kmrun_tools.h"

#define HELLO "programs/01_hello/program.yaml"

static void text_as_kmrun_shows_it(void **state)
{
    (void)state;
    char buf[KMRUN_QUOTE_BYTES];
    assert_string_equal(kmrun_quote(buf, sizeof buf, "o\001ut"), "'o\\001ut'");
    assert_string_equal(kmrun_quote(buf, sizeof buf, NULL), "(none)");
    assert_string_equal(kmrun_escape(buf, sizeof buf, "a\033b\n", 4, 0), "a\\033b\\012");
    assert_string_equal(kmrun_escape(buf, sizeof buf, "a\033b\n", 4, KMRUN_SHOW_LINES),
                        "a\\033b\n");
    char out[KMRUN_SHOWN_MAX];
    size_t len = 0;
    assert_int_equal(kmrun_show_next("\377x", 2, 0, out, &len), 1);
    assert_string_equal(out, "\\377");
    assert_string_equal(kmrun_thousands(126976, buf, sizeof buf), "126,976");
    uint64_t v = 0;
    const char *hint = "unset";
    assert_true(kmrun_parse_size("512MiB", &v, &hint));
    assert_int_equal(v, 512u << 20);
    assert_null(hint);
    assert_false(kmrun_parse_size("4MB", &v, &hint));
    assert_string_equal(hint, "MiB");
    assert_false(kmrun_parse_size("lots", &v, NULL));
    assert_string_equal(kmrun_format_size(4096, buf, sizeof buf), "4 KiB");
    const char *names[] = {"stats", "path", "gc", "clear"};
    assert_string_equal(kmrun_suggest("stat", names, 4), "stats");
    assert_null(kmrun_suggest("zzzzzzzz", names, 4));
    assert_true(kmrun_seconds_valid(0.5));
    assert_false(kmrun_seconds_valid(0));
    assert_false(kmrun_seconds_valid(KMRUN_SECONDS_MAX * 2));
    assert_int_equal(kmrun_image_limit(), 126976);
    assert_string_equal(kmrun_image_target(), "riscv64-unknown-elf");
    assert_non_null(strstr(kmrun_image_arch(), "-march=rv64"));
}

static void a_manifests_errors_come_with_their_source_lines(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/bad.yaml", root);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("name: bad\nthreads:\n  - cluster: 7\n    sources: [t.c]\n", f);
    assert_int_equal(fclose(f), 0);
    kmrun_program *p = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_program_load(path, &p, &e), KMRUN_USAGE);
    const char *detail = kmrun_error_detail(e);
    assert_non_null(detail);
    /* each of the message's lines, then its source line and a caret */
    const char *m = kmrun_error_message(e);
    size_t first = strcspn(m, "\n");
    assert_true(first > 0 && strncmp(detail, m, first) == 0 && detail[first] == '\n');
    assert_non_null(strstr(m, "bad cluster '7'"));
    assert_non_null(strstr(detail, "  - cluster: 7\n"));
    assert_non_null(strstr(detail, "^\n"));
    kmrun_error_free(e);
    /* a missing file has no positioned lines */
    assert_int_equal(kmrun_program_load("/nonexistent/x.yaml", &p, &e), KMRUN_SYSTEM);
    assert_null(kmrun_error_detail(e));
    kmrun_error_free(e);
    assert_null(kmrun_error_detail(NULL));
}

static void the_program_as_json(void **state)
{
    (void)state;
    kmrun_program *p = load_program(HELLO);
    char *text = NULL;
    assert_int_equal(kmrun_program_json(p, &text, NULL), KMRUN_OK);
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "manifest")->valuestring, HELLO);
    assert_string_equal(cJSON_GetObjectItem(doc, "name")->valuestring, "hello");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "threads")), 1);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc, "ports")));
    cJSON_Delete(doc);
    free(text);
    assert_false(kmrun_program_checks_handover(p));
    kmrun_program_free(p);
    kmrun_program *code = NULL;
    assert_int_equal(kmrun_program_new("code", &code, NULL), KMRUN_OK);
    assert_int_equal(kmrun_program_json(code, &text, NULL), KMRUN_OK);
    doc = cJSON_Parse(text);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc, "manifest")));
    cJSON_Delete(doc);
    free(text);
    kmrun_program_free(code);
    kmrun_error *e = NULL;
    expect_error(kmrun_program_json(NULL, &text, &e), &e, KMRUN_USAGE, "the program is NULL");
}

static unsigned warnings;
static void on_warning(const char *message, void *ctx)
{
    (void)message;
    (void)ctx;
    warnings++;
}

static void a_build_through_the_cache(void **state)
{
    (void)state;
    kmrun_cache *c = NULL;
    assert_int_equal(kmrun_cache_open(cache, &c, NULL), KMRUN_OK);
    assert_string_equal(kmrun_cache_folder(c), cache);
    kmrun_cache_set_warning(c, on_warning, NULL);
    kmrun_program *p = NULL;
    assert_int_equal(kmrun_program_load(HELLO, &p, NULL), KMRUN_OK);
    kmrun_build_opts o;
    kmrun_build_opts_init(&o);
    assert_int_equal(o.size, sizeof o);
    kmrun_build *b = NULL;
    kmrun_error *e = NULL;
    if (kmrun_build_program(c, p, &o, &b, &e) != KMRUN_OK)
        fail_msg("kmrun_build_program: %s", kmrun_error_message(e));
    kmrun_built img;
    assert_true(kmrun_build_image(b, 0, false, &img));
    assert_int_equal(strlen(img.sha256), 64);
    assert_true(img.bytes > 0 && img.bytes <= kmrun_image_limit());
    assert_non_null(strstr(img.path, cache));
    assert_false(kmrun_build_image(b, 1, false, &img));
    assert_false(kmrun_build_image(b, 0, true, &img)); /* no host objects asked */
    cJSON *doc = cJSON_Parse(kmrun_build_json(b));
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "program")->valuestring, "hello");
    cJSON_Delete(doc);
    kmrun_build_free(b);
    /* again: from the cache */
    assert_int_equal(kmrun_build_program(c, p, NULL, &b, NULL), KMRUN_OK);
    assert_true(kmrun_build_image(b, 0, false, &img));
    assert_true(img.hit);
    kmrun_build_free(b);
    o.jobs = -1;
    assert_int_equal(kmrun_build_program(c, p, &o, &b, &e), KMRUN_USAGE);
    kmrun_error_free(e);
    kmrun_cache_stats st;
    assert_int_equal(kmrun_cache_stats_get(c, &st, NULL), KMRUN_OK);
    assert_true(st.entries >= 1 && st.hits >= 1);
    uint64_t removed = 0, kept = 0;
    assert_int_equal(kmrun_cache_gc(c, UINT64_MAX, &removed, &kept, NULL), KMRUN_OK);
    assert_int_equal(removed, 0);
    assert_int_equal(kmrun_cache_clear(c, &kept, NULL), KMRUN_OK);
    assert_true(kept >= 1); /* this handle's entries stay pinned */
    assert_int_equal(warnings, 0);
    kmrun_program_free(p);
    kmrun_cache_close(c);
    kmrun_cache_close(NULL);
}

typedef struct pieces {
    char text[4096];
    unsigned titles;
} pieces;

static void put(const char *text, kmrun_style style, void *ctx)
{
    pieces *p = ctx;
    strncat(p->text, text, sizeof p->text - strlen(p->text) - 1);
    p->titles += style == KMRUN_STYLE_TITLE;
}

static void a_run_read_back_from_its_folder(void **state)
{
    (void)state;
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.cache_dir = cache;
    o.runs_dir = runs;
    o.trace_instructions = true;
    o.trace_cluster = 1;
    o.trace_core = 0;
    kmrun_session *s = NULL;
    assert_int_equal(kmrun_session_open(&o, &s, NULL), KMRUN_OK);
    kmrun_program *p = NULL;
    assert_int_equal(kmrun_program_load(HELLO, &p, NULL), KMRUN_OK);
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    if (kmrun_session_load(s, p, &r, &e) != KMRUN_OK)
        fail_msg("kmrun_session_load: %s", kmrun_error_message(e));
    assert_int_equal(kmrun_run_wait(r, 0, NULL), KMRUN_OK);
    assert_true(kmrun_run_ok(r));
    /* the trace, in the folder */
    assert_null(kmrun_run_trace_error(r));
    assert_null(kmrun_run_timeline_error(r));
    assert_int_equal(kmrun_run_timeline_dropped(r, NULL), 0);
    const char *trace = kmrun_run_trace_file(r);
    assert_non_null(trace);
    FILE *f = fopen(trace, "r");
    assert_non_null(f);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    /* no findings */
    uint64_t more = 1;
    assert_int_equal(kmrun_run_findings(r, KMRUN_FINDING_HANDOVER, &more), 0);
    assert_int_equal(more, 0);
    char buf[64] = "x";
    assert_string_equal(kmrun_run_finding(r, KMRUN_FINDING_WILD_WRITE, 0, buf, sizeof buf), "");
    /* the summary */
    pieces pc = {"", 0};
    kmrun_run_summary(r, 1.5, put, &pc);
    assert_int_equal(pc.titles, 1);
    assert_true(strncmp(pc.text, "hello: ", 7) == 0);
    assert_non_null(strstr(pc.text, "  cluster 1: returned"));
    assert_non_null(strstr(pc.text, kmrun_run_folder(r)));
    /* the folder, read back as read-region reads it */
    char *folder = NULL;
    assert_int_equal(kmrun_run_folder_find(runs, NULL, &folder, NULL), KMRUN_OK);
    assert_string_equal(folder, kmrun_run_folder(r));
    const cJSON *region;
    cJSON *doc = cJSON_Parse(kmrun_run_json(r));
    cJSON_ArrayForEach(region, cJSON_GetObjectItem(doc, "regions")) {
        const char *name = cJSON_GetObjectItem(region, "name")->valuestring;
        int cluster = cJSON_GetObjectItem(region, "cluster")->valueint;
        void *data = NULL;
        size_t n = 0;
        int got = 0;
        assert_int_equal(kmrun_run_folder_read(folder, name, 0, &data, &n, &got, NULL),
                         KMRUN_OK);
        const void *live;
        size_t live_n;
        assert_int_equal(kmrun_run_read(r, cluster, name, &live, &live_n, NULL), KMRUN_OK);
        assert_int_equal(n, live_n);
        assert_int_equal(got, cluster);
        assert_memory_equal(data, live, n);
        free(data);
    }
    cJSON_Delete(doc);
    void *data = NULL;
    size_t n = 0;
    assert_int_equal(kmrun_run_folder_read(folder, "nosuch", 0, &data, &n, NULL, &e),
                     KMRUN_USAGE);
    kmrun_error_free(e);
    free(folder);
    assert_int_equal(kmrun_run_folder_find(runs, "no-such-run", &folder, &e), KMRUN_USAGE);
    kmrun_error_free(e);
    char *folders = kmrun_runs_folder(runs);
    assert_string_equal(folders, runs);
    free(folders);
    kmrun_runs_sweep(runs);
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
}

static void the_trace_and_the_timeline_are_the_cards(void **state)
{
    (void)state;
    /* the defaults need neither */
    kmrun_session_close(open_session(KMRUN_BACKEND_HOST, false));
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.backend = KMRUN_BACKEND_HOST;
    o.cache_dir = cache;
    o.runs_dir = runs;
    o.timeline = "/tmp/never-written.json";
    kmrun_session *s = NULL;
    assert_int_equal(kmrun_session_open(&o, &s, NULL), KMRUN_OK);
    kmrun_program *p = NULL;
    assert_int_equal(kmrun_program_load(HELLO, &p, NULL), KMRUN_OK);
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_session_load(s, p, &r, &e), KMRUN_USAGE);
    assert_null(r);
    kmrun_error_free(e);
    kmrun_session_close(s);
    o.timeline = "";
    assert_int_equal(kmrun_session_open(&o, &s, &e), KMRUN_USAGE);
    kmrun_error_free(e);
    o.timeline = NULL;
    o.jobs = 2000;
    expect_error(kmrun_session_open(&o, &s, &e), &e, KMRUN_USAGE, "invalid job count 2000");
    kmrun_program_free(p);
}

static void a_bare_elf_refused(void **state)
{
    (void)state;
    kmrun_exec *x = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_exec_open("/nonexistent/t.elf", &x, NULL, &e), KMRUN_SYSTEM);
    assert_null(x);
    kmrun_error_free(e);
    assert_int_equal(kmrun_exec_open(HELLO, &x, NULL, &e), KMRUN_BUILD);
    kmrun_error_free(e);
    kmrun_exec_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_as_kmrun_shows_it),
        cmocka_unit_test(a_manifests_errors_come_with_their_source_lines),
        cmocka_unit_test(the_program_as_json),
        cmocka_unit_test(a_build_through_the_cache),
        cmocka_unit_test(a_run_read_back_from_its_folder),
        cmocka_unit_test(the_trace_and_the_timeline_are_the_cards),
        cmocka_unit_test(a_bare_elf_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
