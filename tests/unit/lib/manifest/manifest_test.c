/* Tests for the manifest (lib/manifest/manifest*.c): every accepted form
 * read into the model field by field (the bad ones are
 * manifest_errors_test's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "manifest_load.h"

static void full_program(void **state)
{
    (void)state;
    km_program *p = load_ok(OK_DIR "full/program.yaml");
    assert_string_equal(p->manifest, OK_DIR "full/program.yaml");
    assert_true(p->root[0] == '/');
    assert_non_null(strstr(p->root, "/tests/fixtures/manifests/ok/full"));
    assert_string_equal(p->name, "full-1.0_x");
    assert_int_equal(p->x280_mhz, 1750);
    assert_true(p->debug_build);

    /* kernels */
    assert_int_equal(p->kernels.nsources, 2);
    assert_path(p->kernels.sources[0], p, "kernels/k.c");
    assert_path(p->kernels.sources[1], p, "kernels/scan.c"); /* "./" dropped */
    assert_int_equal(p->kernels.nhandlers, 2);
    assert_string_equal(p->kernels.handlers[0], "double");
    assert_string_equal(p->kernels.handlers[1], "scan");
    assert_int_equal(p->kernels.ncflags, 2);
    assert_string_equal(p->kernels.cflags[0], "-O2");
    assert_string_equal(p->kernels.cflags[1], "-DK=1");
    assert_int_equal(p->kernels.pos.line, 6);
    assert_int_equal(p->kernels.pos.col, 3);

    /* program regions */
    assert_int_equal(p->nregions, 2);
    assert_string_equal(p->regions[0].name, "data");
    assert_int_equal(p->regions[0].size, 1 << 20);
    assert_int_equal(p->regions[0].init, KM_INIT_ZERO);
    assert_int_equal(p->regions[0].pos.line, 10);
    assert_int_equal(p->regions[0].pos.col, 3);
    assert_string_equal(p->regions[1].name, "extra");
    assert_int_equal(p->regions[1].init, KM_INIT_WORDS);
    assert_int_equal(p->regions[1].size, 16);
    assert_int_equal(p->regions[1].nwords, 1);
    assert_int_equal(p->regions[1].words[0], 7);
    assert_ptr_equal(km_program_region(p, "extra"), &p->regions[1]);
    assert_null(km_program_region(p, "counts"));

    /* thread 1: every region form */
    assert_int_equal(p->nthreads, 2);
    const km_thread *t = &p->threads[0];
    assert_int_equal(t->pos.line, 13);
    assert_int_equal(t->pos.col, 5);
    assert_int_equal(t->nclusters, 1);
    assert_int_equal(t->clusters[0], 1);
    assert_int_equal(t->nsources, 1);
    assert_path(t->sources[0], p, "thread/hello.c");
    assert_int_equal(t->nregions, 11);
    const km_region *r = t->regions;
    assert_string_equal(r[0].name, "counts");
    assert_int_equal(r[0].init, KM_INIT_ZERO);
    assert_int_equal(r[0].size, 4096);
    assert_int_equal(r[0].pos.line, 16);
    assert_int_equal(r[0].pos.col, 7);
    assert_string_equal(r[1].name, "table");
    assert_int_equal(r[1].init, KM_INIT_FILE);
    assert_path(r[1].file, p, "data/table.bin");
    assert_int_equal(r[1].size, 8); /* the file's size */
    assert_string_equal(r[2].name, "padded");
    assert_int_equal(r[2].init, KM_INIT_FILE);
    assert_int_equal(r[2].size, 64);
    assert_string_equal(r[3].name, "seeds");
    assert_int_equal(r[3].init, KM_INIT_WORDS);
    assert_int_equal(r[3].nwords, 3);
    assert_int_equal(r[3].words[0], 1);
    assert_int_equal(r[3].words[1], 2);
    assert_int_equal(r[3].words[2], 0xff);
    assert_int_equal(r[3].size, 12);
    assert_string_equal(r[4].name, "seeds_padded");
    assert_int_equal(r[4].words[0], 0xffffffffu);
    assert_int_equal(r[4].size, 8);
    assert_string_equal(r[5].name, "scratch");
    assert_int_equal(r[5].init, KM_INIT_FILL);
    assert_int_equal(r[5].fill, 0xdeadbeefu);
    assert_int_equal(r[5].size, 64 * 1024);
    assert_string_equal(r[6].name, "out");
    assert_int_equal(r[6].init, KM_INIT_ZERO);
    assert_int_equal(r[6].size, 4096);
    assert_int_equal(r[7].size, 12);
    assert_int_equal(r[8].size, 0x100);
    assert_int_equal(r[9].size, 1ull << 30);
    assert_string_equal(r[10].name, "log");
    assert_null(r[0].file);
    assert_null(r[0].words);
    assert_int_equal(t->nshared, 0);
    assert_int_equal(t->nwords, 4);
    assert_int_equal(t->words[0], 4);
    assert_int_equal(t->words[1], 16);
    assert_int_equal(t->words[2], 0xffffffffu);
    assert_int_equal(t->words[3], 0);
    assert_int_equal(t->deadline_us, 5000000);
    assert_int_equal(t->prefetch, KM_PREFETCH_KEEP);
    assert_int_equal(t->ncflags, 2);
    assert_string_equal(t->cflags[0], "-O3");
    assert_string_equal(t->cflags[1], "-DN=4");

    /* thread 2: clusters, shared, fractional seconds */
    t = &p->threads[1];
    assert_int_equal(t->nclusters, 2);
    assert_int_equal(t->clusters[0], 2);
    assert_int_equal(t->clusters[1], 3);
    assert_int_equal(t->nsources, 2);
    assert_path(t->sources[0], p, "thread/pass.c");
    assert_path(t->sources[1], p, "thread/hello.c");
    assert_int_equal(t->nregions, 2);
    assert_string_equal(t->regions[0].name, "own");
    assert_int_equal(t->regions[0].size, 4096);
    assert_int_equal(t->nshared, 2);
    assert_string_equal(t->shared[0], "data");
    assert_string_equal(t->shared[1], "extra");
    assert_int_equal(t->nwords, 0);
    assert_int_equal(t->deadline_us, 2500000);
    assert_int_equal(t->prefetch, KM_PREFETCH_DEFAULT);
    assert_int_equal(t->ncflags, 0);
    assert_ptr_equal(km_program_thread_on(p, 1), &p->threads[0]);
    assert_ptr_equal(km_program_thread_on(p, 2), &p->threads[1]);
    assert_ptr_equal(km_program_thread_on(p, 3), &p->threads[1]);
    assert_null(km_program_thread_on(p, 0));

    /* ports and pull */
    assert_int_equal(p->ports.kind, KM_PORTS_DEFAULT);
    assert_int_equal(p->ports.nserve, 0);
    assert_int_equal(p->ports.pos.line, 40);
    assert_int_equal(p->ports.pos.col, 8);
    assert_true(p->pull.present);
    assert_int_equal(p->pull.units, 31000);
    assert_int_equal(p->pull.per, 16);
    assert_int_equal(p->pull.mode, KM_PULL_MODE_LOG);
    assert_string_equal(p->pull.log, "log");
    assert_int_equal(p->pull.pos.line, 42);

    /* commands */
    assert_int_equal(p->ncommands, 3);
    const km_host_command *c = &p->commands[0];
    assert_string_equal(c->handler, "fill");
    assert_int_equal(c->handler_id, KM_HANDLER_FILL);
    assert_int_equal(c->first, 0);
    assert_int_equal(c->count, 120);
    assert_int_equal(c->nargs, 10);
    for (int i = 0; i < 10; i++)
        assert_int_equal(c->args[i], i + 1);
    assert_true(c->result);
    assert_true(c->exclusive);
    assert_false(c->wait);
    assert_int_equal(c->pos.line, 47);
    assert_int_equal(c->pos.col, 5);
    c = &p->commands[1];
    assert_string_equal(c->handler, "scan");
    assert_int_equal(c->handler_id, KM_HANDLER_FIRST_PROGRAM + 1);
    assert_int_equal(c->first, 10);
    assert_int_equal(c->count, 5);
    assert_int_equal(c->nargs, 0);
    assert_false(c->result);
    assert_false(c->exclusive);
    assert_true(c->wait);
    c = &p->commands[2];
    assert_int_equal(c->handler_id, KM_HANDLER_FIRST_PROGRAM);
    assert_int_equal(c->first, 0); /* the whole grid by default */
    assert_int_equal(c->count, BH_GRID_CORES);
    km_program_free(p);
}

static void minimal_defaults(void **state)
{
    (void)state;
    km_program *p = load_ok(OK_DIR "minimal/program.yaml");
    assert_string_equal(p->name, "minimal");
    assert_int_equal(p->x280_mhz, 1000);
    assert_false(p->check_handover);
    assert_false(p->debug_build); /* build: release, the default */
    assert_int_equal(p->kernels.nsources, 0);
    assert_int_equal(p->kernels.nhandlers, 0);
    assert_int_equal(p->nregions, 0);
    assert_int_equal(p->nthreads, 1);
    const km_thread *t = &p->threads[0];
    assert_int_equal(t->nclusters, 1);
    assert_int_equal(t->clusters[0], 3);
    assert_int_equal(t->nregions, 0);
    assert_int_equal(t->nshared, 0);
    assert_int_equal(t->nwords, 0);
    assert_int_equal(t->deadline_us, 0);
    assert_int_equal(t->prefetch, KM_PREFETCH_DEFAULT);
    assert_int_equal(t->ncflags, 0);
    assert_int_equal(t->compiler, KM_COMPILER_GCC);
    assert_int_equal(p->ports.kind, KM_PORTS_NONE);
    assert_false(p->pull.present);
    assert_int_equal(p->ncommands, 0);
    km_program_free(p);
}

/* expect: read into the model, each value with its place. */
static void expectations(void **state)
{
    (void)state;
    km_program *p = load_ok(OK_DIR "expect/program.yaml");
    const km_expect *e = &p->expect;
    assert_true(e->present);
    assert_int_equal(e->pos.line, 15);
    assert_int_equal(e->pos.col, 1);
    assert_int_equal(e->backends, KM_EXPECT_ON_SIM | KM_EXPECT_ON_HOST);
    assert_int_equal(e->nthreads, 2);
    const km_expect_thread *t = &e->threads[0];
    assert_int_equal(t->cluster, 2);
    assert_int_equal(t->on, 0);
    assert_string_equal(t->state, "returned");
    assert_int_equal(t->state_pos.line, 19);
    assert_int_equal(t->state_pos.col, 14);
    assert_true(t->has_code);
    assert_int_equal(t->code, -1);
    assert_true(t->has_words);
    assert_int_equal(t->nwords, 3);
    assert_int_equal(t->words[1], 4294967295u);
    assert_int_equal(t->words[2], 16);
    assert_int_equal(t->words_pos.line, 21);
    assert_true(t->has_prints);
    assert_int_equal(t->nprints, 3);
    assert_string_equal(t->prints[0], "sum 42");
    assert_string_equal(t->prints[1], "7");
    assert_string_equal(t->prints[2], "it's");
    t = &e->threads[1];
    assert_int_equal(t->cluster, 3);
    assert_int_equal(t->on, KM_EXPECT_ON_HOST);
    assert_string_equal(t->state, "stopped");
    assert_false(t->has_code || t->has_words || t->has_prints);
    assert_int_equal(e->nregions, 2);
    const km_expect_region *r = &e->regions[0];
    assert_string_equal(r->name, "out");
    assert_int_equal(r->cluster, 3);
    assert_string_equal(r->sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_int_equal(r->sha256_pos.line, 27);
    assert_int_equal(r->nfirst, 3);
    assert_int_equal(r->first[0], 0x0a);
    assert_int_equal(r->first[1], 0x0b);
    assert_int_equal(r->first[2], 0x0c);
    r = &e->regions[1];
    assert_string_equal(r->name, "table"); /* shared: cluster 2's copy */
    assert_int_equal(r->cluster, 2);
    assert_int_equal(r->on, KM_EXPECT_ON_SIM);
    assert_null(r->sha256);
    assert_int_equal(e->ncommands, 3);
    assert_int_equal(e->commands[0].handle, 1);
    assert_string_equal(e->commands[0].event, "done");
    assert_false(e->commands[0].has_result);
    assert_string_equal(e->commands[1].event, "rejected");
    assert_true(e->commands[1].has_result && e->commands[1].result_none);
    assert_int_equal(e->commands[2].on, KM_EXPECT_ON_SIM);
    assert_true(e->commands[2].has_result && !e->commands[2].result_none);
    assert_int_equal(e->commands[2].result, 3072);
    assert_int_equal(e->commands[2].result_pos.line, 33);
    assert_int_equal(e->commands[2].result_pos.col, 41);
    km_program_free(p);
    /* Without expect:, none; with it alone, the defaults. */
    p = load_ok(OK_DIR "minimal/program.yaml");
    assert_false(p->expect.present);
    km_program_free(p);
}

static void host_fed_commands(void **state)
{
    (void)state;
    km_program *p = load_ok(OK_DIR "commands/program.yaml");
    assert_int_equal(p->nthreads, 0);
    assert_int_equal(p->ncommands, 4);
    assert_int_equal(p->commands[0].handler_id, KM_HANDLER_NOP);
    assert_int_equal(p->commands[0].count, 120);
    assert_true(p->commands[0].wait);
    assert_int_equal(p->commands[1].handler_id, KM_HANDLER_SPEND);
    assert_int_equal(p->commands[1].first, 0);
    assert_int_equal(p->commands[1].count, 1);
    assert_int_equal(p->commands[1].nargs, 1);
    assert_int_equal(p->commands[1].args[0], 1000);
    assert_true(p->commands[1].result);
    assert_int_equal(p->commands[2].handler_id, KM_HANDLER_SUM);
    assert_int_equal(p->commands[2].first, 119);
    assert_int_equal(p->commands[2].count, 1);
    assert_false(p->commands[2].wait);
    assert_int_equal(p->commands[3].handler_id, KM_HANDLER_COPY);
    assert_int_equal(p->commands[3].nargs, 0);
    assert_false(p->commands[3].exclusive);
    assert_int_equal(p->ports.kind, KM_PORTS_NONE);
    km_program_free(p);
}

static void ports_serve_and_count_pull(void **state)
{
    (void)state;
    km_program *p = load_ok(OK_DIR "serve/program.yaml");
    assert_int_equal(p->threads[0].nclusters, 2);
    assert_int_equal(p->threads[0].nshared, 1);
    assert_int_equal(p->threads[0].deadline_us, 250);
    assert_int_equal(p->ports.kind, KM_PORTS_SERVE);
    assert_int_equal(p->ports.nserve, 3);
    const km_port_serve *s = p->ports.serve;
    assert_int_equal(s[0].core, 0);
    assert_int_equal(s[0].cluster, 2);
    assert_int_equal(s[0].x280_core, 0);
    assert_int_equal(s[0].pos.line, 16);
    assert_int_equal(s[0].pos.col, 5);
    assert_int_equal(s[1].core, 5);
    assert_int_equal(s[1].cluster, 3);
    assert_int_equal(s[1].x280_core, 3);
    assert_int_equal(s[2].core, 0x77);
    assert_int_equal(s[2].cluster, 2);
    assert_int_equal(s[2].x280_core, 1);
    assert_true(p->pull.present);
    assert_int_equal(p->pull.units, 100);
    assert_int_equal(p->pull.per, 1);
    assert_int_equal(p->pull.mode, KM_PULL_MODE_COUNT);
    assert_null(p->pull.log);
    assert_int_equal(p->commands[0].handler_id, KM_HANDLER_FIRST_PROGRAM);
    km_program_free(p);
}

static void pull_implies_default_ports(void **state)
{
    (void)state;
    km_program *p = load_ok(OK_DIR "replay/program.yaml");
    assert_int_equal(p->threads[0].deadline_us, 500000);
    assert_int_equal(p->threads[0].regions[0].size, 8192);
    assert_int_equal(p->threads[0].regions[0].init, KM_INIT_ZERO);
    assert_int_equal(p->ports.kind, KM_PORTS_DEFAULT);
    assert_int_equal(p->ports.pos.line, p->pull.pos.line);
    assert_int_equal(p->pull.mode, KM_PULL_MODE_REPLAY);
    assert_string_equal(p->pull.log, "pull_log");
    km_program_free(p);
}

/* Forms that are right but not in the fixtures. */
static void accepted_edges(void **state)
{
    (void)state;
    static const char *const ok[] = {
        /* 16 regions in all, own and shared: the limit itself */
        "name: t\nregions: {s: 4}\nthreads:\n  - cluster: 1\n"
        "    sources: [thread/a.c]\n    shared: [s]\n    regions: {r0: 4, "
        "r1: 4, r2: 4, r3: 4, r4: 4, r5: 4, r6: 4, r7: 4, r8: 4, r9: 4, "
        "r10: 4, r11: 4, r12: 4, r13: 4, r14: 4}\n",
        /* a shared region for both threads of bank 7, entered apart */
        "name: t\nregions: {s: 4}\nthreads:\n"
        "  - {cluster: 2, sources: [thread/a.c], shared: [s]}\n"
        "  - {cluster: 3, sources: [thread/b.c], shared: [s]}\n",
        /* 4 GiB less 32 MiB in bank 6: its first 16 MiB, the check line
         * and the ring leave room for it (exactly 4 GiB does not) */
        "name: t\nthreads:\n  - cluster: 1\n    sources: [thread/a.c]\n"
        "    regions: {a: 2GiB, b: 2016 MiB}\n",
        /* quoted sizes and deadlines with units; absolute paths */
        "name: t\nthreads:\n  - cluster: 2\n    sources: [thread/a.c]\n"
        "    regions: {a: \"4 KiB\"}\n    deadline: \"1.5 s\"\n",
        "name: \"0\"\ncommands: [{handler: nop, group: [119, 1]}]\n",
        "name: t\nx280_mhz: 1000\ncommands: []\nthreads:\n"
        "  - {cluster: 1, sources: [thread/a.c], deadline: 0.000001}\n",
        /* both compilers */
        "name: t\nthreads:\n  - {cluster: 1, sources: [thread/a.c], compiler: clang}\n"
        "  - {cluster: 2, sources: [thread/b.c], compiler: gcc}\n",
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        km_program *p = NULL;
        km_diags d = {0};
        km_error e = {0};
        int rc = load(ok[i], &p, &d, &e);
        for (size_t k = 0; k < d.count; k++)
            print_message("case %zu: %d:%d: %s\n", i, d.items[k].line,
                          d.items[k].col, d.items[k].message);
        assert_int_equal(rc, KM_OK);
        assert_non_null(p);
        km_program_free(p);
        km_diags_free(&d);
    }
}

static void absolute_paths_stay(void **state)
{
    (void)state;
    char yaml[PATH_MAX * 2];
    snprintf(yaml, sizeof yaml,
             "name: t\nthreads:\n  - cluster: 1\n    sources: ['%s/thread/a.c']\n",
             tmp);
    km_program *p = NULL;
    km_diags d = {0};
    km_error e = {0};
    assert_int_equal(load(yaml, &p, &d, &e), KM_OK);
    char want[PATH_MAX + 16];
    snprintf(want, sizeof want, "%s/thread/a.c", tmp);
    assert_string_equal(p->threads[0].sources[0], want);
    km_program_free(p);
}

static void cluster_banks(void **state)
{
    (void)state;
    assert_int_equal(km_cluster_bank(1), 6);
    assert_int_equal(km_cluster_bank(2), 7);
    assert_int_equal(km_cluster_bank(3), 7);
    assert_int_equal(km_cluster_bank(0), -1);
    assert_int_equal(km_cluster_bank(4), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(full_program),
        cmocka_unit_test(minimal_defaults),
        cmocka_unit_test(host_fed_commands),
        cmocka_unit_test(expectations),
        cmocka_unit_test(ports_serve_and_count_pull),
        cmocka_unit_test(pull_implies_default_ports),
        cmocka_unit_test(accepted_edges),
        cmocka_unit_test(absolute_paths_stay),
        cmocka_unit_test(cluster_banks),
    };
    return cmocka_run_group_tests(tests, make_folder, remove_folder);
}
