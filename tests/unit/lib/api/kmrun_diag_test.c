/* Tests for the public C API's diagnostics (include/kmrun.h,
 * "Diagnostics"; lib/api/kmrun_diag.c): a manifest's errors, a failed
 * build's findings (the compilers' and kmrun's word), a build's warnings
 * through the callback, any failure's one, a run's findings — each with
 * its severity, code, place, source text and notes, as JSON and shown
 * piece by piece; the options that grew taken at their old size;
 * compile_commands.json.  Runs from the top of the tree, with a cache and
 * runs folder of its own (api_fixture.h). */
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

/* A path shown as kmrun shows it (relative to the working folder when the
 * two share a first folder, else absolute: where the tests run decides)
 * names `path`. */
static void names_file(const char *shown, const char *path)
{
    assert_non_null(shown);
    char *a = realpath(shown, NULL), *b = realpath(path, NULL);
    if (!a || !b || strcmp(a, b) != 0)
        fail_msg("'%s' does not name '%s'", shown, path);
    free(a);
    free(b);
}
#include "kmrun.h"
#include "kmrun_tools.h"

/* Writes `text` to root/name (its folder made first); returns the path. */
static const char *put_file(const char *name, const char *text)
{
    static char path[256];
    char cmd[300];
    snprintf(path, sizeof path, "%s/%s", root, name);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static const char manifest[] = "name: diag\n"
                               "threads:\n"
                               "  - cluster: 1\n"
                               "    sources: [thread/a.c]\n";

/* A program whose thread is `source`; loaded. */
static kmrun_program *program_of(const char *source)
{
    put_file("thread/a.c", source);
    return load_program(put_file("program.yaml", manifest));
}

static kmrun_cache *open_cache(void)
{
    kmrun_cache *c = NULL;
    assert_int_equal(kmrun_cache_open(cache, &c, NULL), KMRUN_OK);
    return c;
}

static cJSON *json_of(const kmrun_diagnostic *d)
{
    char *text = kmrun_diagnostic_json(d);
    assert_non_null(text);
    assert_null(strchr(text, '\n'));
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

static const char *str(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static int num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* The pieces kmrun_diagnostic_show gives, as text; the styles seen. */
typedef struct shown {
    char text[2048];
    unsigned styles; /* a bit a style */
} shown;

static void gather(const char *text, kmrun_style style, void *ctx)
{
    shown *s = ctx;
    strncat(s->text, text, sizeof s->text - strlen(s->text) - 1);
    s->styles |= 1u << style;
}

static void a_manifests_errors_are_diagnostics(void **state)
{
    (void)state;
    const char *path = put_file("bad.yaml", "name: bad\n"
                                            "threads:\n"
                                            "  - cluster: 7\n"
                                            "    sourcs: [thread/a.c]\n");
    kmrun_program *p = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_program_load(path, &p, &e), KMRUN_USAGE);
    assert_int_equal(kmrun_error_diagnostics(e), 2);
    assert_null(kmrun_error_diagnostic(e, 2));
    const kmrun_diagnostic *d = kmrun_error_diagnostic(e, 0);
    assert_int_equal(kmrun_diagnostic_severity(d), KMRUN_SEVERITY_ERROR);
    assert_string_equal(kmrun_severity_name(kmrun_diagnostic_severity(d)), "error");
    assert_string_equal(kmrun_diagnostic_code(d), "manifest.bad-value");
    assert_string_equal(kmrun_diagnostic_file(d), path);
    assert_int_equal(kmrun_diagnostic_line(d), 3);
    assert_int_equal(kmrun_diagnostic_column(d), 14);
    assert_string_equal(kmrun_diagnostic_text(d), "  - cluster: 7");
    assert_null(kmrun_diagnostic_option(d));
    assert_int_equal(kmrun_diagnostic_children(d), 0);
    d = kmrun_error_diagnostic(e, 1);
    assert_string_equal(kmrun_diagnostic_code(d), "manifest.unknown-key");
    assert_int_equal(kmrun_diagnostic_line(d), 4);
    assert_int_equal(kmrun_diagnostic_column(d), 5);
    cJSON *j = json_of(d);
    assert_string_equal(str(j, "severity"), "error");
    assert_string_equal(str(j, "code"), "manifest.unknown-key");
    assert_string_equal(str(j, "file"), path);
    assert_int_equal(num(j, "line"), 4);
    assert_int_equal(num(j, "column"), 5);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "end_column")));
    assert_string_equal(str(j, "text"), "    sourcs: [thread/a.c]");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "children")), 0);
    cJSON_Delete(j);
    /* shown piece by piece: the detail's text, its place and caret marked */
    shown all = {"", 0};
    for (size_t i = 0; i < kmrun_error_diagnostics(e); i++)
        kmrun_diagnostic_show(kmrun_error_diagnostic(e, i), gather, &all);
    assert_string_equal(all.text, kmrun_error_detail(e));
    assert_true(all.styles & (1u << KMRUN_STYLE_LOCUS));
    assert_true(all.styles & (1u << KMRUN_STYLE_CARET));
    kmrun_error_free(e);
}

static void any_failure_has_one(void **state)
{
    (void)state;
    kmrun_program *p = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_program_load("/nonexistent/program.yaml", &p, &e), KMRUN_SYSTEM);
    assert_int_equal(kmrun_error_diagnostics(e), 1);
    const kmrun_diagnostic *d = kmrun_error_diagnostic(e, 0);
    assert_string_equal(kmrun_diagnostic_code(d), "kmrun.system");
    assert_string_equal(kmrun_diagnostic_message(d), kmrun_error_message(e));
    assert_null(kmrun_diagnostic_file(d));
    assert_int_equal(kmrun_diagnostic_line(d), 0);
    kmrun_error_free(e);
    assert_int_equal(kmrun_error_diagnostics(NULL), 0);
}

/* A failed build's findings are its error's, never the callback's. */
static void never_called(const kmrun_diagnostic *d, void *ctx)
{
    (void)ctx;
    fail_msg("a failed build's finding given to the callback: %s", kmrun_diagnostic_message(d));
}

static void a_failed_builds_findings(void **state)
{
    (void)state;
    kmrun_program *p = program_of("int kmx_main(int core)\n{\n    retur 1;\n}\n");
    kmrun_cache *c = open_cache();
    char source[300];
    snprintf(source, sizeof source, "%s/thread/a.c", root);
    /* text and JSON alike (the JSON through the callback's option) */
    for (int structured = 0; structured < 2; structured++) {
        kmrun_build_opts o;
        kmrun_build_opts_init(&o);
        if (structured)
            o.diagnostic = never_called;
        kmrun_build *b = NULL;
        kmrun_error *e = NULL;
        assert_int_equal(kmrun_build_program(c, p, &o, &b, &e), KMRUN_BUILD);
        size_t n = kmrun_error_diagnostics(e);
        assert_true(n >= 2);
        const kmrun_diagnostic *d = kmrun_error_diagnostic(e, 0);
        assert_string_equal(kmrun_diagnostic_code(d), "build.compile");
        names_file(kmrun_diagnostic_file(d), source);
        assert_int_equal(kmrun_diagnostic_line(d), 3);
        assert_int_equal(kmrun_diagnostic_column(d), 5);
        assert_string_equal(kmrun_diagnostic_text(d), "    retur 1;");
        assert_non_null(strstr(kmrun_diagnostic_message(d), "retur"));
        assert_int_equal(kmrun_diagnostic_children(d), 1); /* gcc's note */
        assert_int_equal(kmrun_diagnostic_severity(kmrun_diagnostic_child(d, 0)),
                         KMRUN_SEVERITY_NOTE);
        d = kmrun_error_diagnostic(e, n - 1);
        assert_string_equal(kmrun_diagnostic_code(d), "build.failed");
        names_file(kmrun_diagnostic_file(d), source);
        assert_non_null(strstr(kmrun_diagnostic_message(d), "cannot compile"));
        /* the message: never the JSON, the compiler's words */
        assert_null(strstr(kmrun_error_message(e), "\"kind\""));
        assert_non_null(strstr(kmrun_error_message(e), ":3:5: error: "));
        assert_null(kmrun_error_detail(e));
        kmrun_error_free(e);
    }
    /* with the compilers' colours: the detail holds them, the message not */
    kmrun_build_opts o;
    kmrun_build_opts_init(&o);
    o.color = KMRUN_COLOR_ALWAYS;
    kmrun_build *b = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_build_program(c, p, &o, &b, &e), KMRUN_BUILD);
    assert_null(strchr(kmrun_error_message(e), '\033'));
    assert_non_null(kmrun_error_detail(e));
    assert_non_null(strstr(kmrun_error_detail(e), "\033["));
    kmrun_error_free(e);
    o.color = (kmrun_color)9;
    e = NULL;
    expect_error(kmrun_build_program(c, p, &o, &b, &e), &e, KMRUN_USAGE, "invalid color");
    kmrun_cache_close(c);
    kmrun_program_free(p);
}

typedef struct seen {
    int n;
    char code[64], option[64];
    kmrun_severity severity;
} seen;

static void on_diagnostic(const kmrun_diagnostic *d, void *ctx)
{
    seen *s = ctx;
    s->n++;
    snprintf(s->code, sizeof s->code, "%s", kmrun_diagnostic_code(d));
    snprintf(s->option, sizeof s->option, "%s",
             kmrun_diagnostic_option(d) ? kmrun_diagnostic_option(d) : "");
    s->severity = kmrun_diagnostic_severity(d);
}

static void a_builds_warnings_through_the_callback(void **state)
{
    (void)state;
    kmrun_program *p = program_of("static int unused(void) { return 1; }\n"
                                  "int kmx_main(int core) { return core; }\n");
    kmrun_cache *c = open_cache();
    seen s = {0};
    kmrun_build_opts o;
    kmrun_build_opts_init(&o);
    o.diagnostic = on_diagnostic;
    o.ctx = &s;
    o.compile_commands = true;
    kmrun_build *b = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_build_program(c, p, &o, &b, &e), KMRUN_OK);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.code, "build.compile");
    assert_string_equal(s.option, "-Wunused-function");
    assert_int_equal(s.severity, KMRUN_SEVERITY_WARNING);
    /* compile_commands.json beside the manifest, named in the JSON */
    const char *db = kmrun_build_compile_commands(b);
    assert_non_null(db);
    char want[300];
    snprintf(want, sizeof want, "%s/compile_commands.json", root);
    names_file(db, want);
    cJSON *doc = cJSON_Parse(kmrun_build_json(b));
    names_file(str(doc, "compile_commands"), want);
    cJSON_Delete(doc);
    FILE *f = fopen(db, "r");
    assert_non_null(f);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    cJSON *cdb = cJSON_Parse(text);
    assert_int_equal(cJSON_GetArraySize(cdb), 1);
    const cJSON *entry = cJSON_GetArrayItem(cdb, 0);
    snprintf(want, sizeof want, "%s/thread/a.c", root);
    assert_string_equal(str(entry, "file"), want);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(entry, "arguments");
    assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetArrayItem(args, 0)), "gcc"));
    cJSON_Delete(cdb);
    kmrun_build_free(b);
    /* a caller of the older, smaller kmrun_build_opts: taken, no database */
    kmrun_build_opts old;
    kmrun_build_opts_init(&old);
    old.size = offsetof(kmrun_build_opts, diagnostic);
    b = NULL;
    assert_int_equal(kmrun_build_program(c, p, &old, &b, &e), KMRUN_OK);
    assert_null(kmrun_build_compile_commands(b));
    kmrun_build_free(b);
    old.size = offsetof(kmrun_build_opts, diagnostic) + 1;
    expect_error(kmrun_build_program(c, p, &old, &b, &e), &e, KMRUN_USAGE,
                 "invalid kmrun_build_opts size");
    kmrun_cache_close(c);
    kmrun_program_free(p);
}

static void a_sessions_options_of_the_older_size(void **state)
{
    (void)state;
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.cache_dir = cache;
    o.no_run_folder = true;
    o.size = offsetof(kmrun_session_opts, diagnostic);
    kmrun_session *s = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_session_open(&o, &s, &e), KMRUN_OK);
    kmrun_session_close(s);
    kmrun_session_opts_init(&o);
    o.color = (kmrun_color)-1;
    expect_error(kmrun_session_open(&o, &s, &e), &e, KMRUN_USAGE, "invalid color");
}

static void a_runs_finding_is_a_diagnostic(void **state)
{
    (void)state;
    kmrun_program *p = load_program("tests/fixtures/hazards/stale.yaml");
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.cache_dir = cache;
    o.no_run_folder = true;
    o.check_handover = true;
    kmrun_session *s = NULL;
    kmrun_run *r = NULL;
    assert_int_equal(kmrun_session_open(&o, &s, NULL), KMRUN_OK);
    assert_int_equal(kmrun_session_load(s, p, &r, NULL), KMRUN_OK);
    assert_int_equal(kmrun_run_wait(r, 0, NULL), KMRUN_OK);
    assert_int_equal(kmrun_run_findings(r, KMRUN_FINDING_HANDOVER, NULL), 1);
    kmrun_diagnostic *d = kmrun_run_finding_diagnostic(r, KMRUN_FINDING_HANDOVER, 0);
    assert_non_null(d);
    assert_string_equal(kmrun_diagnostic_code(d), "run.handover");
    /* from the top of the tree, the working folder */
    assert_string_equal(kmrun_diagnostic_file(d), "tests/fixtures/hazards/thread/stale.c");
    assert_int_equal(kmrun_diagnostic_line(d), 15);
    assert_int_equal(kmrun_diagnostic_column(d), 0);
    assert_non_null(kmrun_diagnostic_text(d));
    assert_non_null(strstr(kmrun_diagnostic_message(d), "tests/fixtures/hazards/thread/stale.c:14"));
    char line[2048];
    kmrun_run_finding(r, KMRUN_FINDING_HANDOVER, 0, line, sizeof line);
    assert_non_null(strstr(line, "tests/fixtures/hazards/thread/stale.c:15: stale read"));
    kmrun_diagnostic_free(d);
    assert_null(kmrun_run_finding_diagnostic(r, KMRUN_FINDING_HANDOVER, 1));
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_manifests_errors_are_diagnostics),
        cmocka_unit_test(any_failure_has_one),
        cmocka_unit_test(a_failed_builds_findings),
        cmocka_unit_test(a_builds_warnings_through_the_callback),
        cmocka_unit_test(a_sessions_options_of_the_older_size),
        cmocka_unit_test(a_runs_finding_is_a_diagnostic),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
