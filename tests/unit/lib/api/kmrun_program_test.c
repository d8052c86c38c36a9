/* Tests for programs built in code (include/kmrun.h's kmrun_program_new
 * and its parts; lib/api/kmrun_program.c, lib/manifest/manifest_code.c):
 * programs/01_hello, 02_parallel_sum (its region's bytes given in memory)
 * and 03_ring (kernels as a folder) built in code run as their manifests
 * do — the same run JSON but for run, run_dir and wall_seconds; region
 * bytes from memory reach the card and the host fallback; and every
 * builder error, each naming the part, leaves the program as it was.
 * Runs from the top of the tree (tests/run does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_fixture.h"
#include "kmrun.h"
#include "kmrun_tools.h"

static void ok(kmrun_status st, kmrun_error **e, const char *what)
{
    if (st != KMRUN_OK)
        fail_msg("%s: %s", what, kmrun_error_message(*e));
    assert_null(*e);
}

/* The call returned `st` and set *ep to an error of that status whose
 * message is `text` exactly, or holds it (prefix '~'); freed. */
static void expect_message(kmrun_status got, kmrun_error **ep, kmrun_status st, const char *text)
{
    kmrun_error *e = *ep;
    *ep = NULL;
    if (!e)
        fail_msg("status %d and no error (expected %d: %s)", got, st, text);
    if (got != st)
        fail_msg("status %d (expected %d): %s", got, st, kmrun_error_message(e));
    assert_int_equal(kmrun_error_status(e), st);
    const char *m = kmrun_error_message(e);
    if (text[0] == '~' ? !strstr(m, text + 1) : strcmp(m, text) != 0)
        fail_msg("message: %s\nexpected: %s", m, text);
    kmrun_error_free(e);
}

/* A run of p on `backend` to its stop: its JSON without what differs
 * from run to run (allocated), and, when `region` is named, that region's
 * bytes of cluster 1 (allocated, *n). */
static char *run_json(const kmrun_program *p, kmrun_backend backend, const char *region,
                      void **bytes, size_t *n)
{
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.backend = backend;
    o.cache_dir = cache;
    o.runs_dir = runs;
    kmrun_session *s = NULL;
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    ok(kmrun_session_open(&o, &s, &e), &e, "open");
    ok(kmrun_session_load(s, p, &r, &e), &e, "load");
    ok(kmrun_run_wait(r, 0, &e), &e, "wait");
    assert_true(kmrun_run_ok(r));
    if (region) {
        const void *data;
        ok(kmrun_run_read(r, 1, region, &data, n, &e), &e, "read");
        *bytes = malloc(*n);
        memcpy(*bytes, data, *n);
    }
    cJSON *doc = cJSON_Parse(kmrun_run_json(r));
    assert_non_null(doc);
    cJSON_DeleteItemFromObject(doc, "run");
    cJSON_DeleteItemFromObject(doc, "run_dir");
    cJSON_DeleteItemFromObject(doc, "wall_seconds");
    if (backend == KMRUN_BACKEND_HOST) { /* the host's times */
        cJSON_DeleteItemFromObject(doc, "device_microseconds");
        cJSON_DeleteItemFromObject(doc, "stats");
        cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(doc, "threads"))
        {
            cJSON_DeleteItemFromObject(t, "where_microseconds");
            cJSON_DeleteItemFromObject(t, "microseconds");
        }
    }
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    kmrun_run_free(r);
    kmrun_session_close(s);
    return text;
}

static char *manifest_json(const char *path, kmrun_backend backend)
{
    kmrun_program *p = NULL;
    kmrun_error *e = NULL;
    ok(kmrun_program_load(path, &p, &e), &e, path);
    char *json = run_json(p, backend, NULL, NULL, NULL);
    kmrun_program_free(p);
    return json;
}

static kmrun_program *new_program(const char *name, const char *folder)
{
    kmrun_program *p = NULL;
    kmrun_error *e = NULL;
    ok(kmrun_program_new(name, &p, &e), &e, "kmrun_program_new");
    if (folder)
        ok(kmrun_program_set_root(p, folder, &e), &e, "kmrun_program_set_root");
    return p;
}

/* programs/01_hello/program.yaml, in code. */
static kmrun_program *hello(void)
{
    kmrun_program *p = new_program("hello", "programs/01_hello");
    static const int clusters[] = {1};
    static const char *const sources[] = {"thread/hello.c"};
    static const kmrun_region_spec regions[] = {{.name = "out", .size = 4096}};
    static const uint32_t words[] = {7, 6};
    kmrun_thread_spec t;
    kmrun_thread_spec_init(&t);
    t.clusters = clusters, t.nclusters = 1;
    t.sources = sources, t.nsources = 1;
    t.regions = regions, t.nregions = 1;
    t.words = words, t.nwords = 2;
    t.deadline_seconds = 1.0;
    kmrun_error *e = NULL;
    ok(kmrun_program_thread(p, &t, &e), &e, "kmrun_program_thread");
    return p;
}

static void hello_in_code_runs_as_its_manifest(void **state)
{
    (void)state;
    kmrun_program *p = hello();
    assert_string_equal(kmrun_program_name(p), "hello");
    assert_int_equal(kmrun_program_clusters(p), 1);
    assert_int_equal(kmrun_program_cluster(p, 0), 1);
    kmrun_error *e = NULL;
    ok(kmrun_program_check(p, &e), &e, "check");
    char *code = run_json(p, KMRUN_BACKEND_SIM, NULL, NULL, NULL);
    char *manifest = manifest_json("programs/01_hello/program.yaml", KMRUN_BACKEND_SIM);
    assert_string_equal(code, manifest);
    free(code);
    free(manifest);
    /* Loaded once: it cannot change any more. */
    expect_message(kmrun_program_set_x280_mhz(p, 1750, &e), &e, KMRUN_USAGE,
                 "program 'hello' has been loaded: it cannot change any more (expected its "
                 "parts added before its first load)");
    kmrun_program_free(p);
}

/* 02_parallel_sum's {fill: 0x9e3779b9, size: 1MiB}, as bytes in memory. */
static void parallel_sum_with_its_bytes_in_memory(void **state)
{
    (void)state;
    enum { SIZE = 1 << 20 };
    uint8_t *fill = malloc(SIZE);
    for (size_t i = 0; i < SIZE; i++)
        fill[i] = (uint8_t)(0x9e3779b9u >> (8 * (i % 4)));
    kmrun_program *p = new_program("parallel_sum", "programs/02_parallel_sum");
    static const int clusters[] = {1};
    static const char *const sources[] = {"thread/sum.c"};
    kmrun_region_spec regions[] = {{.name = "data", .bytes = fill, .nbytes = SIZE}};
    kmrun_thread_spec t;
    kmrun_thread_spec_init(&t);
    t.clusters = clusters, t.nclusters = 1;
    t.sources = sources, t.nsources = 1;
    t.regions = regions, t.nregions = 1;
    t.deadline_seconds = 1;
    kmrun_error *e = NULL;
    ok(kmrun_program_thread(p, &t, &e), &e, "thread");
    memset(fill, 0, SIZE); /* copied: the caller's may change */
    void *data = NULL;
    size_t n = 0;
    char *code = run_json(p, KMRUN_BACKEND_SIM, "data", &data, &n);
    char *manifest = manifest_json("programs/02_parallel_sum/program.yaml", KMRUN_BACKEND_SIM);
    assert_string_equal(code, manifest);
    assert_int_equal(n, SIZE);
    assert_int_equal(((uint32_t *)data)[12345], 0x9e3779b9u);
    free(code);
    free(manifest);
    free(data);
    kmrun_program_free(p);
    free(fill);
}

/* Bytes shorter than the region, then zeros; on the host fallback too;
 * and 03_ring's kernels named by their folder. */
static void bytes_then_zeros_on_both_backends(void **state)
{
    (void)state;
    for (int backend = 0; backend < 2; backend++) {
        kmrun_program *p = new_program("sum_some", "programs/02_parallel_sum");
        const uint32_t words[] = {5, 6, 7, 8};
        kmrun_error *e = NULL;
        ok(kmrun_program_region(p, "data", 4096, words, sizeof words, &e), &e, "region");
        static const int clusters[] = {1};
        static const char *const sources[] = {"thread/sum.c"};
        static const char *const shared[] = {"data"};
        kmrun_thread_spec t;
        kmrun_thread_spec_init(&t);
        t.clusters = clusters, t.nclusters = 1;
        t.sources = sources, t.nsources = 1;
        t.shared = shared, t.nshared = 1;
        ok(kmrun_program_thread(p, &t, &e), &e, "thread");
        void *data = NULL;
        size_t n = 0;
        char *json = run_json(p, backend ? KMRUN_BACKEND_HOST : KMRUN_BACKEND_SIM, "data", &data,
                              &n);
        assert_int_equal(n, 4096);
        const uint32_t *got = data;
        assert_int_equal(got[0], 5);
        assert_int_equal(got[3], 8);
        assert_int_equal(got[4], 0);
        assert_int_equal(got[1023], 0);
        assert_non_null(strstr(json, "\"words\":[26,0,"));
        free(json);
        free(data);
        kmrun_program_free(p);
    }
}

static void ring_with_its_kernels_folder(void **state)
{
    (void)state;
    kmrun_program *p = new_program("ring", "programs/03_ring");
    static const char *const kernels[] = {"kernels/"};
    static const char *const handlers[] = {"collatz"};
    kmrun_error *e = NULL;
    ok(kmrun_program_kernels(p, kernels, 1, handlers, 1, NULL, 0, &e), &e, "kernels");
    static const int clusters[] = {1};
    static const char *const sources[] = {"thread/ring.c"};
    static const kmrun_region_spec regions[] = {{.name = "live", .size = 4096},
                                                {.name = "counts", .size = 1024}};
    static const uint32_t words[] = {1000, 8};
    kmrun_thread_spec t;
    kmrun_thread_spec_init(&t);
    t.clusters = clusters, t.nclusters = 1;
    t.sources = sources, t.nsources = 1;
    t.regions = regions, t.nregions = 2;
    t.words = words, t.nwords = 2;
    t.deadline_seconds = 1;
    ok(kmrun_program_thread(p, &t, &e), &e, "thread");
    char *code = run_json(p, KMRUN_BACKEND_SIM, NULL, NULL, NULL);
    char *manifest = manifest_json("programs/03_ring/program.yaml", KMRUN_BACKEND_SIM);
    assert_string_equal(code, manifest);
    free(code);
    free(manifest);
    kmrun_program_free(p);
}

/* A thread spec on `cluster` with one source of 01_hello. */
static kmrun_thread_spec one(const int *cluster)
{
    static const char *const sources[] = {"thread/hello.c"};
    kmrun_thread_spec t;
    kmrun_thread_spec_init(&t);
    t.clusters = cluster, t.nclusters = 1;
    t.sources = sources, t.nsources = 1;
    return t;
}

static void each_builder_error_names_its_part(void **state)
{
    (void)state;
    kmrun_program *p = NULL;
    kmrun_error *e = NULL;
    expect_message(kmrun_program_new("a/b", &p, &e), &e, KMRUN_USAGE,
                 "program: bad name 'a/b' (expected letters, digits, '_', '.' and '-', at most "
                 "64 characters)");
    assert_null(p);
    expect_message(kmrun_program_new(NULL, &p, &e), &e, KMRUN_USAGE, "~the name is NULL");
    p = hello(); /* thread 1 on cluster 1, sources from 01_hello */
    static const int c1[] = {1}, c2[] = {2}, c4[] = {4}, c13[] = {1, 3};
    kmrun_thread_spec t = one(c1);
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: cluster 1 already runs thread 1 (expected one thread per cluster)");
    t = one(c4);
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: bad cluster '4' (expected 1, 2 or 3)");
    t = one(c2);
    t.nclusters = 0;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: missing 'cluster' in a thread (expected cluster: N, or clusters: "
                 "[N, ...])");
    t = one(c2);
    static const char *const shared[] = {"dta"};
    t.shared = shared, t.nshared = 1;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: unknown shared region 'dta' (expected a region of the top-level "
                 "regions)");
    ok(kmrun_program_region(p, "data", 4096, NULL, 0, &e), &e, "region");
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: unknown shared region 'dta' (did you mean 'data'?)");
    t = one(c13);
    t.nclusters = 2;
    static const char *const data[] = {"data"};
    t.shared = data, t.nshared = 1;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: cluster 1 already runs thread 1 (expected one thread per "
                 "cluster)");
    t = one(c2);
    static const char *const missing[] = {"thread/none.c"};
    t.sources = missing;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: cannot read source file 'thread/none.c': No such file or directory");
    t = one(c2);
    t.nsources = 0;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: empty sources (expected at least one source file)");
    t = one(c2);
    uint32_t words[65] = {0};
    t.words = words, t.nwords = 65;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: too many words (expected at most 64)");
    t = one(c2);
    t.deadline_seconds = -1;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: bad deadline '-1' (expected more than 0)");
    t.deadline_seconds = 1e-9;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "~thread 2: bad deadline '1.0000000000000001e-09' (expected a number of seconds");
    t.deadline_seconds = 100000;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: bad deadline '100000' (expected at most 86400 s)");
    t = one(c2);
    t.compiler = (kmrun_compiler)7;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: bad compiler '7' (expected gcc or clang)");
    t = one(c2);
    kmrun_region_spec big[] = {{.name = "big", .size = 5ull << 30}};
    t.regions = big, t.nregions = 1;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: bad size '5368709120' (expected at most 4 GiB)");
    uint8_t five[5] = {0};
    kmrun_region_spec odd[] = {{.name = "odd", .bytes = five, .nbytes = 5}};
    t.regions = odd;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: region 'odd' has 5 bytes of initial contents (expected a multiple of "
                 "4, or a size to pad it to)");
    kmrun_region_spec over[] = {{.name = "over", .size = 4, .bytes = five, .nbytes = 5}};
    t.regions = over;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: bad size '4' of region 'over' (expected at least its 5 bytes of "
                 "initial contents)");
    kmrun_region_spec bad_name[] = {{.name = "no-dash", .size = 4}};
    t.regions = bad_name;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: bad region name 'no-dash' (expected a C identifier of at most 64 "
                 "characters)");
    kmrun_region_spec unnamed[] = {{.size = 4}};
    t.regions = unnamed;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: region 1 has no name (NULL)");
    t = one(c2);
    t.nwords = 2;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "thread 2: words is NULL with a count of more than 0");
    t.size = 8;
    expect_message(kmrun_program_thread(p, &t, &e), &e, KMRUN_USAGE,
                 "~invalid kmrun_thread_spec size 8");
    expect_message(kmrun_program_region(p, "data", 8, NULL, 0, &e), &e, KMRUN_USAGE,
                 "region 'data': duplicate region 'data' (expected each name once)");
    kmrun_program_free(p);
}

static void more_builder_errors(void **state)
{
    (void)state;
    kmrun_program *p = hello();
    kmrun_error *e = NULL;
    expect_message(kmrun_program_region(p, "Data", 0, NULL, 0, &e), &e, KMRUN_USAGE,
                 "region 'Data': bad size '0' (expected more than 0 bytes)");
    expect_message(kmrun_program_region(p, "x", 0, "abc", 0, &e), &e, KMRUN_USAGE,
                 "region 'x': region 'x' has no initial bytes (expected at least 4, or a size)");
    expect_message(kmrun_program_region(p, "x", 0, NULL, 4, &e), &e, KMRUN_USAGE,
                 "region 'x': bytes is NULL with a count of 4");
    expect_message(kmrun_program_set_x280_mhz(p, 1200, &e), &e, KMRUN_USAGE,
                 "x280_mhz: bad x280_mhz '1200' (expected 1000 or 1750)");
    static const char *const handlers[] = {"nop"};
    static const char *const sources[] = {"thread/hello.c"};
    expect_message(kmrun_program_kernels(p, sources, 1, handlers, 1, NULL, 0, &e), &e,
                 KMRUN_USAGE,
                 "kernels: handler name 'nop' is a built-in's (expected a name other than nop, "
                 "fill, copy, sum and spend)");
    static const char *const folder[] = {"."};
    expect_message(kmrun_program_kernels(p, folder, 1, NULL, 0, NULL, 0, &e), &e, KMRUN_USAGE,
                 "kernels: folder '.' has no C source (expected the handlers' *.c files)");
    kmrun_command_spec c;
    kmrun_command_spec_init(&c);
    c.handler = "colatz";
    expect_message(kmrun_program_command(p, &c, &e), &e, KMRUN_USAGE,
                 "command 1: unknown handler 'colatz' (expected a handler of kernels or a "
                 "built-in: nop, fill, copy, sum, spend)");
    c.handler = "nop";
    c.first = 100, c.count = 30;
    expect_message(kmrun_program_command(p, &c, &e), &e, KMRUN_USAGE,
                 "command 1: bad group: cores 100 to 129 (expected first + count at most 120)");
    kmrun_serve serve[] = {{.core = 3, .cluster = 2, .x280_core = 0}};
    expect_message(kmrun_program_ports(p, serve, 1, &e), &e, KMRUN_USAGE,
                 "ports: cluster 2 runs no thread (expected one of 1)");
    serve[0].cluster = 1, serve[0].x280_core = 4;
    expect_message(kmrun_program_ports(p, serve, 1, &e), &e, KMRUN_USAGE,
                 "ports: bad x280_core '4' (expected 0 to 3)");
    expect_message(kmrun_program_pull(p, 100, 1, KMRUN_PULL_LOG, "log", &e), &e, KMRUN_USAGE,
                 "pull: pull log 'log' is not a region of the thread on cluster 1 (expected a "
                 "region every thread has, own or shared)");
    /* The refusals left the program as it was: it still runs. */
    assert_int_equal(kmrun_program_clusters(p), 1);
    char *json = run_json(p, KMRUN_BACKEND_SIM, NULL, NULL, NULL);
    assert_non_null(strstr(json, "\"words\":[42]"));
    free(json);
    kmrun_program_free(p);

    /* A manifest's program cannot change. */
    ok(kmrun_program_load("programs/01_hello/program.yaml", &p, &e), &e, "load");
    expect_message(kmrun_program_region(p, "x", 4, NULL, 0, &e), &e, KMRUN_USAGE,
                 "program 'hello' was read from manifest 'programs/01_hello/program.yaml': it "
                 "cannot change (expected a program made by kmrun_program_new)");
    ok(kmrun_program_check(p, &e), &e, "a manifest's check");
    kmrun_program_free(p);

    /* The whole program's rules: at the check, and at the load. */
    p = new_program("empty", NULL);
    expect_message(kmrun_program_check(p, &e), &e, KMRUN_USAGE,
                 "program 'empty': nothing to run (expected at least one thread or one command)");
    expect_message(kmrun_program_set_root(p, "/nonexistent", &e), &e, KMRUN_USAGE,
                 "bad root '/nonexistent': No such file or directory (expected a folder)");
    kmrun_session_opts o;
    kmrun_session_opts_init(&o);
    o.cache_dir = cache;
    o.runs_dir = runs;
    kmrun_session *s = NULL;
    kmrun_run *r = NULL;
    ok(kmrun_session_open(&o, &s, &e), &e, "open");
    expect_message(kmrun_session_load(s, p, &r, &e), &e, KMRUN_USAGE,
                 "program 'empty': nothing to run (expected at least one thread or one command)");
    assert_null(r);
    kmrun_program_free(p);
    p = new_program("banks", "programs/01_hello");
    static const int c23[] = {2, 3};
    kmrun_thread_spec t = one(c23);
    t.nclusters = 2;
    kmrun_region_spec regions[] = {{.name = "a", .size = 1ull << 30},
                                   {.name = "big", .size = 2ull << 30}};
    t.regions = regions, t.nregions = 2;
    ok(kmrun_program_thread(p, &t, &e), &e, "thread");
    expect_message(kmrun_session_load(s, p, &r, &e), &e, KMRUN_USAGE,
                 "program 'banks': bank 7 is over 4 GiB with region 'a' (expected at most 4 GiB "
                 "a bank, its first 16 MiB and each thread's check line and ring included)");
    kmrun_program_free(p);
    kmrun_session_close(s);
}

/* A host-fed program in code: 04_host_fed's shape, commands only. */
static void commands_only(void **state)
{
    (void)state;
    kmrun_program *p = new_program("fed", NULL);
    kmrun_command_spec c;
    kmrun_command_spec_init(&c);
    c.handler = "nop";
    c.result = true;
    kmrun_error *e = NULL;
    ok(kmrun_program_command(p, &c, &e), &e, "command");
    assert_int_equal(kmrun_program_clusters(p), 0);
    char *json = run_json(p, KMRUN_BACKEND_SIM, NULL, NULL, NULL);
    assert_non_null(strstr(json, "\"handler\":\"nop\""));
    free(json);
    kmrun_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hello_in_code_runs_as_its_manifest),
        cmocka_unit_test(parallel_sum_with_its_bytes_in_memory),
        cmocka_unit_test(bytes_then_zeros_on_both_backends),
        cmocka_unit_test(ring_with_its_kernels_folder),
        cmocka_unit_test(each_builder_error_names_its_part),
        cmocka_unit_test(more_builder_errors),
        cmocka_unit_test(commands_only),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
