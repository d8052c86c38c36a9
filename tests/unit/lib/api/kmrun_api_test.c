/* Tests for the public C API (include/kmrun.h, lib/api/): every function
 * and every refusal — a bad manifest (file:line:col), a missing one, the
 * card backend, a bad opts size, bad timeouts, reads before the stop,
 * unknown clusters and regions, a second load, NULL arguments — and real
 * runs of programs/01_hello and programs/02_parallel_sum on the simulated
 * card and on the host fallback: results, region bytes, region addresses
 * as the run JSON states them, the run folder as `kmrun run` writes it.
 * Runs from the top of the tree (tests/run does), with a cache and runs
 * folder of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_fixture.h"
#include "kmrun.h"
#include "kmrun_tools.h"

#define HELLO "programs/01_hello/program.yaml"
#define SUM "programs/02_parallel_sum/program.yaml"


static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = (len + 4096 + 1) * 2;
            text = realloc(text, cap);
            assert_non_null(text);
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    text[len] = 0;
    if (n)
        *n = len;
    return text;
}

static void versions_and_null_errors(void **state)
{
    (void)state;
    assert_string_equal(kmrun_version(), KMRUN_VERSION);
    assert_int_equal(kmrun_api_version(), KMRUN_API_VERSION);
    assert_int_equal(kmrun_error_status(NULL), KMRUN_OK);
    assert_string_equal(kmrun_error_message(NULL), "");
    kmrun_error_free(NULL);
    kmrun_program_free(NULL);
    kmrun_session_close(NULL);
    kmrun_run_free(NULL);
    kmrun_session_opts_init(NULL);
}

static void a_bad_manifest_gives_every_error_with_its_position(void **state)
{
    (void)state;
    char dir[128], path[160];
    snprintf(dir, sizeof dir, "%s/bad", root);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/program.yaml", dir);
    write_file(path, "name: bad\nthreads:\n  - cluster: 9\n    sources: [x.c]\n    bogus: 1\n");
    kmrun_program *p = (kmrun_program *)&p;
    kmrun_error *e = NULL;
    kmrun_status st = kmrun_program_load(path, &p, &e);
    assert_null(p);
    assert_int_equal(st, KMRUN_USAGE);
    const char *m = kmrun_error_message(e);
    char line[512];
    snprintf(line, sizeof line, "%s:3:14: bad cluster '9' (expected 1, 2 or 3)\n%s:4:15: ", path,
             path);
    if (strncmp(m, line, strlen(line)) != 0)
        fail_msg("message: %s", m);
    snprintf(line, sizeof line, "\n%s:5:5: unknown key 'bogus' in a thread", path);
    assert_non_null(strstr(m, line));
    assert_null(strchr(m, '^')); /* no carets: lines, one an error */
    assert_int_not_equal(m[strlen(m) - 1], '\n');
    kmrun_error_free(e);
}

static void a_missing_manifest_is_a_system_error(void **state)
{
    (void)state;
    kmrun_program *p = NULL;
    kmrun_error *e = NULL;
    kmrun_status st = kmrun_program_load("/nonexistent/program.yaml", &p, &e);
    assert_null(p);
    expect_error(st, &e, KMRUN_SYSTEM, "cannot read manifest '/nonexistent/program.yaml'");
    /* err NULL: the status all the same. */
    assert_int_equal(kmrun_program_load("/nonexistent/program.yaml", &p, NULL), KMRUN_SYSTEM);
}

static void a_program_tells_its_name_and_clusters(void **state)
{
    (void)state;
    kmrun_program *p = load_program(HELLO);
    assert_string_equal(kmrun_program_name(p), "hello");
    assert_int_equal(kmrun_program_clusters(p), 1);
    assert_int_equal(kmrun_program_cluster(p, 0), 1);
    assert_int_equal(kmrun_program_cluster(p, 1), -1);
    kmrun_program_free(p);
    assert_null(kmrun_program_name(NULL));
    assert_int_equal(kmrun_program_clusters(NULL), 0);
    assert_int_equal(kmrun_program_cluster(NULL, 0), -1);
}

static void null_arguments_are_usage_errors(void **state)
{
    (void)state;
    kmrun_error *e = NULL;
    kmrun_program *p = NULL;
    expect_error(kmrun_program_load(NULL, &p, &e), &e, KMRUN_USAGE, "path is NULL");
    expect_error(kmrun_program_load(HELLO, NULL, &e), &e, KMRUN_USAGE, "out is NULL");
    assert_int_equal(kmrun_program_load(NULL, NULL, NULL), KMRUN_USAGE);
    expect_error(kmrun_session_open(NULL, NULL, &e), &e, KMRUN_USAGE, "out is NULL");
    kmrun_run *r = (kmrun_run *)&r;
    expect_error(kmrun_session_load(NULL, NULL, &r, &e), &e, KMRUN_USAGE, "session is NULL");
    assert_null(r);
    kmrun_session *s = open_session(KMRUN_BACKEND_SIM, false);
    expect_error(kmrun_session_load(s, NULL, &r, &e), &e, KMRUN_USAGE, "program is NULL");
    p = load_program(HELLO);
    expect_error(kmrun_session_load(s, p, NULL, &e), &e, KMRUN_USAGE, "out is NULL");
    expect_error(kmrun_run_wait(NULL, 0, &e), &e, KMRUN_USAGE, "run is NULL");
    kmrun_thread_result t;
    expect_error(kmrun_run_result(NULL, 0, &t, &e), &e, KMRUN_USAGE, "run is NULL");
    const void *data = &data;
    size_t bytes = 1;
    expect_error(kmrun_run_read(NULL, 1, "out", &data, &bytes, &e), &e, KMRUN_USAGE,
                 "run is NULL");
    assert_null(data);
    assert_int_equal(bytes, 0);
    unsigned bank;
    uint64_t address;
    expect_error(kmrun_run_region_address(NULL, 1, "out", &bank, &address, &e), &e, KMRUN_USAGE,
                 "run is NULL");
    assert_false(kmrun_run_stopped(NULL));
    assert_false(kmrun_run_ok(NULL));
    assert_null(kmrun_run_json(NULL));
    assert_null(kmrun_run_id(NULL));
    assert_null(kmrun_run_folder(NULL));
    assert_null(kmrun_run_folder_error(NULL));
    kmrun_program_free(p);
    kmrun_session_close(s);
}

static void sessions_refuse_the_card_a_bad_size_and_bad_options(void **state)
{
    (void)state;
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    assert_int_equal(o.size, sizeof o);
    assert_int_equal(o.backend, KMRUN_BACKEND_SIM);
    assert_null(o.cache_dir);
    kmrun_session *s = (kmrun_session *)&s;
    kmrun_error *e = NULL;
    o.backend = KMRUN_BACKEND_CARD;
    expect_error(kmrun_session_open(&o, &s, &e), &e, KMRUN_USAGE,
                 "the 'card' backend is not available in this kmrun");
    assert_null(s);
    o.backend = (kmrun_backend)7;
    expect_error(kmrun_session_open(&o, &s, &e), &e, KMRUN_USAGE, "unknown backend 7");
    kmrun_session_opts_init(&o);
    o.size = sizeof o - 8;
    expect_error(kmrun_session_open(&o, &s, &e), &e, KMRUN_USAGE, "kmrun_session_opts size");
    o.size = 0;
    assert_int_equal(kmrun_session_open(&o, &s, NULL), KMRUN_USAGE);
    kmrun_session_opts_init(&o);
    o.wall_timeout_seconds = NAN;
    expect_error(kmrun_session_open(&o, &s, &e), &e, KMRUN_USAGE, "invalid wall timeout nan");
    o.wall_timeout_seconds = INFINITY;
    expect_error(kmrun_session_open(&o, &s, &e), &e, KMRUN_USAGE, "invalid wall timeout inf");
    /* An unusable cache is said at the open. */
    kmrun_session_opts_init(&o);
    o.cache_dir = "/dev/null/cache";
    assert_int_equal(kmrun_session_open(&o, &s, &e), KMRUN_SYSTEM);
    assert_non_null(strstr(kmrun_error_message(e), "/dev/null/cache"));
    kmrun_error_free(e);
    assert_null(s);
}

typedef struct seen {
    unsigned progress, lines;
    uint32_t last_marker;
    double last_us;
} seen;

static void on_progress(int cluster, uint32_t marker, double us, void *ctx)
{
    seen *s = ctx;
    assert_int_equal(cluster, 1);
    s->progress++;
    s->last_marker = marker;
    s->last_us = us;
}

static void on_line(const char *line, void *ctx)
{
    (void)line;
    ((seen *)ctx)->lines++;
}

/* The run JSON's region `name` of `cluster`. */
static const cJSON *json_region(const cJSON *doc, int cluster, const char *name)
{
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItem(doc, "regions")) {
        if (cJSON_GetObjectItem(g, "cluster")->valueint == cluster &&
            strcmp(cJSON_GetObjectItem(g, "name")->valuestring, name) == 0)
            return g;
    }
    return NULL;
}

/* Before the stop: nothing is read; the addresses are known. */
static void refused_before_the_stop(kmrun_run *r)
{
    kmrun_error *e = NULL;
    assert_false(kmrun_run_stopped(r));
    assert_false(kmrun_run_ok(r));
    assert_null(kmrun_run_json(r));
    assert_null(kmrun_run_id(r));
    assert_null(kmrun_run_folder(r));
    kmrun_thread_result t;
    expect_error(kmrun_run_result(r, 0, &t, &e), &e, KMRUN_USAGE,
                 "the thread on cluster 1 has no result yet");
    const void *data;
    size_t bytes;
    expect_error(kmrun_run_read(r, 1, "out", &data, &bytes, &e), &e, KMRUN_USAGE,
                 "region 'out' cannot be read before the run has stopped");
    unsigned bank = 0;
    uint64_t address = 0;
    assert_int_equal(kmrun_run_region_address(r, 1, "out", &bank, &address, &e), KMRUN_OK);
    assert_null(e);
    assert_int_equal(bank, 6); /* cluster 1's bank */
    assert_true(address >= 0x01000000u);
}

/* 01_hello on `backend`: its result word 42 (7 * 6), region `out` 7 * i,
 * where the JSON says it is; the run folder as `kmrun run` writes it. */
static void run_hello(kmrun_backend backend)
{
    kmrun_session *s = open_session(backend, true);
    kmrun_program *p = load_program(HELLO);
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_session_load(s, p, &r, &e), KMRUN_OK);
    assert_null(e);
    refused_before_the_stop(r);
    /* One run at a time. */
    kmrun_run *r2 = (kmrun_run *)&r2;
    expect_error(kmrun_session_load(s, p, &r2, &e), &e, KMRUN_USAGE, "has a run already");
    assert_null(r2);
    /* Timeouts as --timeout takes them. */
    expect_error(kmrun_run_wait(r, -1, &e), &e, KMRUN_USAGE, "invalid timeout -1");
    expect_error(kmrun_run_wait(r, NAN, &e), &e, KMRUN_USAGE, "invalid timeout nan");
    expect_error(kmrun_run_wait(r, INFINITY, &e), &e, KMRUN_USAGE, "invalid timeout inf");
    assert_false(kmrun_run_stopped(r));
    assert_int_equal(kmrun_run_wait(r, 0, &e), KMRUN_OK);
    assert_null(e);
    assert_true(kmrun_run_stopped(r));
    assert_true(kmrun_run_ok(r));
    /* Again: nothing more. */
    assert_int_equal(kmrun_run_wait(r, -1, &e), KMRUN_OK);

    kmrun_thread_result t;
    assert_int_equal(kmrun_run_result(r, 0, &t, &e), KMRUN_OK);
    assert_int_equal(t.cluster, 1);
    assert_true(t.ran);
    assert_string_equal(t.state, "returned");
    assert_null(t.error);
    assert_true(t.has_code);
    assert_int_equal(t.code, 0);
    assert_int_equal(t.nwords, 1);
    assert_int_equal(t.words[0], 42);
    assert_int_equal(t.where, 2);
    assert_true(t.where_microseconds > 0);
    assert_true(t.microseconds >= t.where_microseconds);
    expect_error(kmrun_run_result(r, 1, &t, &e), &e, KMRUN_USAGE, "no result 1");

    const void *data = NULL;
    size_t bytes = 0;
    assert_int_equal(kmrun_run_read(r, 1, "out", &data, &bytes, &e), KMRUN_OK);
    assert_int_equal(bytes, 4096);
    const uint32_t *w = data; /* the run's until kmrun_run_free */
    for (uint32_t i = 0; i < 1024; i++)
        if (w[i] != 7 * i)
            fail_msg("out[%u] = %u, not %u", i, w[i], 7 * i);
    expect_error(kmrun_run_read(r, 2, "out", &data, &bytes, &e), &e, KMRUN_USAGE,
                 "program 'hello' has no thread on cluster 2 (its threads are on cluster 1)");
    expect_error(kmrun_run_read(r, 1, "ouy", &data, &bytes, &e), &e, KMRUN_USAGE,
                 "the thread on cluster 1 has no region 'ouy' (did you mean 'out'?)");
    unsigned bank;
    uint64_t address;
    expect_error(kmrun_run_region_address(r, 1, "zzzzzz", &bank, &address, &e), &e, KMRUN_USAGE,
                 "no region 'zzzzzz'");
    expect_error(kmrun_run_region_address(r, 3, "out", &bank, &address, &e), &e, KMRUN_USAGE,
                 "no thread on cluster 3");

    /* The JSON: this run's, with the region where the API says it is. */
    const char *json = kmrun_run_json(r);
    assert_non_null(json);
    cJSON *doc = cJSON_Parse(json);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "run")->valuestring, kmrun_run_id(r));
    assert_string_equal(cJSON_GetObjectItem(doc, "backend")->valuestring,
                        backend == KMRUN_BACKEND_SIM ? "sim" : "host");
    const cJSON *words = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "threads"), 0),
                                             "words");
    assert_int_equal(cJSON_GetArraySize(words), 1);
    assert_int_equal(cJSON_GetArrayItem(words, 0)->valuedouble, 42);
    assert_int_equal(kmrun_run_region_address(r, 1, "out", &bank, &address, &e), KMRUN_OK);
    const cJSON *g = json_region(doc, 1, "out");
    assert_non_null(g);
    assert_int_equal(cJSON_GetObjectItem(g, "bank")->valueint, bank);
    assert_true(cJSON_GetObjectItem(g, "bank_address")->valuedouble == (double)address);
    assert_int_equal(cJSON_GetObjectItem(g, "bytes")->valueint, 4096);

    /* The folder: <runs>/<id>, its result.json the JSON, its region the bytes. */
    const char *folder = kmrun_run_folder(r);
    assert_non_null(folder);
    assert_null(kmrun_run_folder_error(r));
    char want[256], path[512];
    snprintf(want, sizeof want, "%s/%s", runs, kmrun_run_id(r));
    assert_string_equal(folder, want);
    assert_string_equal(cJSON_GetObjectItem(doc, "run_dir")->valuestring, folder);
    snprintf(path, sizeof path, "%s/result.json", folder);
    char *kept = read_file(path, NULL);
    assert_non_null(kept);
    size_t n = strlen(json);
    assert_true(strncmp(kept, json, n) == 0 && (kept[n] == 0 || strcmp(kept + n, "\n") == 0));
    free(kept);
    snprintf(path, sizeof path, "%s/regions/cluster1/out.bin", folder);
    size_t len = 0;
    char *bin = read_file(path, &len);
    assert_non_null(bin);
    assert_int_equal(len, 4096);
    assert_memory_equal(bin, w, 4096);
    free(bin);
    snprintf(path, sizeof path, "%s/prints.txt", folder);
    assert_int_equal(access(path, R_OK), 0);
    cJSON_Delete(doc);

    /* Freed, the session loads again: a new run, a new id. */
    char id[64];
    snprintf(id, sizeof id, "%s", kmrun_run_id(r));
    kmrun_run_free(r);
    assert_int_equal(kmrun_session_load(s, p, &r, &e), KMRUN_OK);
    assert_int_equal(kmrun_run_wait(r, 2, &e), KMRUN_OK);
    assert_true(kmrun_run_ok(r));
    assert_non_null(kmrun_run_id(r));
    kmrun_run_free(r);
    kmrun_program_free(p);
    kmrun_session_close(s);
}

static void hello_on_the_simulated_card(void **state)
{
    (void)state;
    run_hello(KMRUN_BACKEND_SIM);
}

static void hello_on_the_host_fallback(void **state)
{
    (void)state;
    run_hello(KMRUN_BACKEND_HOST);
}

/* 02_parallel_sum on `backend`: 262144 words of 0x9e3779b9 summed, the
 * checksum sum(data[i] * (i + 1)) mod 2^32, the region untouched. */
static void run_sum(kmrun_backend backend)
{
    uint64_t sum = 0;
    uint32_t weighted = 0;
    for (uint32_t i = 0; i < 262144; i++) {
        sum += 0x9e3779b9u;
        weighted += 0x9e3779b9u * (i + 1);
    }
    kmrun_session *s = open_session(backend, false);
    kmrun_program *p = load_program(SUM);
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_session_load(s, p, &r, &e), KMRUN_OK);
    assert_int_equal(kmrun_run_wait(r, 0, &e), KMRUN_OK);
    assert_true(kmrun_run_ok(r));
    kmrun_thread_result t;
    assert_int_equal(kmrun_run_result(r, 0, &t, &e), KMRUN_OK);
    assert_string_equal(t.state, "returned");
    assert_int_equal(t.nwords, 3);
    assert_int_equal(t.words[0], (uint32_t)sum);
    assert_int_equal(t.words[1], (uint32_t)(sum >> 32));
    assert_int_equal(t.words[2], weighted);
    const void *data;
    size_t bytes;
    assert_int_equal(kmrun_run_read(r, 1, "data", &data, &bytes, &e), KMRUN_OK);
    assert_int_equal(bytes, 1u << 20);
    for (size_t i = 0; i < bytes / 4; i++)
        if (((const uint32_t *)data)[i] != 0x9e3779b9u)
            fail_msg("data[%zu] = %#x", i, ((const uint32_t *)data)[i]);
    /* No folder asked for: none, and no error for it; the JSON all the same. */
    assert_null(kmrun_run_folder(r));
    assert_null(kmrun_run_folder_error(r));
    assert_non_null(kmrun_run_id(r));
    assert_non_null(strstr(kmrun_run_json(r), "\"program\":\t\"parallel_sum\""));
    kmrun_run_free(r);
    kmrun_program_free(p);
    kmrun_session_close(s);
}

static void parallel_sum_on_the_simulated_card(void **state)
{
    (void)state;
    run_sum(KMRUN_BACKEND_SIM);
}

static void parallel_sum_on_the_host_fallback(void **state)
{
    (void)state;
    run_sum(KMRUN_BACKEND_HOST);
}

/* The defaults: $KMRUN_CACHE and $KMRUN_RUNS; the callbacks called. */
static void defaults_come_from_the_environment(void **state)
{
    (void)state;
    char envruns[160];
    snprintf(envruns, sizeof envruns, "%s/envruns", root);
    assert_int_equal(setenv("KMRUN_CACHE", cache, 1), 0);
    assert_int_equal(setenv("KMRUN_RUNS", envruns, 1), 0);
    seen saw = {0};
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.callbacks.progress = on_progress;
    o.callbacks.build_output = on_line;
    o.callbacks.ctx = &saw;
    kmrun_session *s = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_session_open(&o, &s, &e), KMRUN_OK);
    kmrun_program *p = load_program(HELLO);
    kmrun_run *r = NULL;
    assert_int_equal(kmrun_session_load(s, p, &r, &e), KMRUN_OK);
    assert_int_equal(kmrun_run_wait(r, 0, &e), KMRUN_OK);
    assert_true(saw.progress >= 1);
    assert_int_equal(saw.last_marker, 2);
    kmrun_thread_result t;
    assert_int_equal(kmrun_run_result(r, 0, &t, &e), KMRUN_OK);
    assert_true(fabs(saw.last_us - t.where_microseconds) < 1e-6);
    char want[256];
    snprintf(want, sizeof want, "%s/%s", envruns, kmrun_run_id(r));
    assert_string_equal(kmrun_run_folder(r), want);
    /* Closed before its run: the run stays readable, freed on its own. */
    kmrun_session_close(s);
    const void *data;
    size_t bytes;
    assert_int_equal(kmrun_run_read(r, 1, "out", &data, &bytes, &e), KMRUN_OK);
    kmrun_run_free(r);
    kmrun_program_free(p);
    /* With no session options at all, the same folders. */
    assert_int_equal(kmrun_session_open(NULL, &s, &e), KMRUN_OK);
    kmrun_session_close(s);
}

/* A run folder that cannot be written does not lose the run. */
static void a_folder_that_cannot_be_written_is_said_not_fatal(void **state)
{
    (void)state;
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.cache_dir = cache;
    o.runs_dir = "/dev/null/runs";
    kmrun_session *s = NULL;
    kmrun_error *e = NULL;
    assert_int_equal(kmrun_session_open(&o, &s, &e), KMRUN_OK);
    kmrun_program *p = load_program(HELLO);
    kmrun_run *r = NULL;
    assert_int_equal(kmrun_session_load(s, p, &r, &e), KMRUN_OK);
    assert_int_equal(kmrun_run_wait(r, 0, &e), KMRUN_OK);
    assert_true(kmrun_run_ok(r));
    assert_null(kmrun_run_folder(r));
    assert_non_null(kmrun_run_folder_error(r));
    assert_non_null(strstr(kmrun_run_folder_error(r), "/dev/null/runs"));
    assert_non_null(kmrun_run_json(r));
    kmrun_run_free(r);
    kmrun_program_free(p);
    kmrun_session_close(s);
}

/* A source that does not compile: KMRUN_BUILD with the compiler's words,
 * and the session free for the next load. */
static void a_compile_error_is_a_build_error(void **state)
{
    (void)state;
    char dir[128], path[160];
    snprintf(dir, sizeof dir, "%s/broken", root);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/bad.c", dir);
    write_file(path, "#include \"kmx.h\"\nint kmx_main(int core) { return nothing_here; }\n");
    snprintf(path, sizeof path, "%s/program.yaml", dir);
    write_file(path, "name: broken\nthreads:\n  - cluster: 1\n    sources: [bad.c]\n");
    kmrun_program *p = load_program(path);
    kmrun_session *s = open_session(KMRUN_BACKEND_SIM, true);
    kmrun_run *r = (kmrun_run *)&r;
    kmrun_error *e = NULL;
    expect_error(kmrun_session_load(s, p, &r, &e), &e, KMRUN_BUILD, "nothing_here");
    assert_null(r);
    kmrun_program *hello = load_program(HELLO);
    assert_int_equal(kmrun_session_load(s, hello, &r, &e), KMRUN_OK);
    kmrun_run_free(r);
    kmrun_program_free(hello);
    kmrun_program_free(p);
    kmrun_session_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(versions_and_null_errors),
        cmocka_unit_test(a_bad_manifest_gives_every_error_with_its_position),
        cmocka_unit_test(a_missing_manifest_is_a_system_error),
        cmocka_unit_test(a_program_tells_its_name_and_clusters),
        cmocka_unit_test(null_arguments_are_usage_errors),
        cmocka_unit_test(sessions_refuse_the_card_a_bad_size_and_bad_options),
        cmocka_unit_test(hello_on_the_simulated_card),
        cmocka_unit_test(hello_on_the_host_fallback),
        cmocka_unit_test(parallel_sum_on_the_simulated_card),
        cmocka_unit_test(parallel_sum_on_the_host_fallback),
        cmocka_unit_test(defaults_come_from_the_environment),
        cmocka_unit_test(a_folder_that_cannot_be_written_is_said_not_fatal),
        cmocka_unit_test(a_compile_error_is_a_build_error),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
