/* Tests for lib/run/km_handover.c and the run JSON's `handover` entries:
 * the hand-over checker's records (sim_card.h) named after a program's
 * plan — the region copy, its id and offset, the kind, the missing call —
 * and the diagnostic line, from hand-made records (no simulator). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "km_fs.h"
#include "km_handover.h"
#include "manifest_fixture.h"
#include "km_plan.h"
#include "km_run_json.h"

static km_program *prog;
static km_plan plan;

static const char manifest[] =
    "name: ho\n"
    "kernels:\n"
    "  sources: [k.c]\n"
    "  handlers: [load]\n"
    "regions:\n"
    "  acc: 256\n"
    "threads:\n"
    "  - clusters: [2, 3]\n"
    "    sources: [t.c]\n"
    "    regions: {own: 4KiB}\n"
    "    shared: [acc]\n"
    "  - cluster: 1\n"
    "    sources: [t.c]\n"
    "    regions: {data: 8KiB, out: 64}\n";

static int setup(void **state)
{
    (void)state;
    static const char *const sources[] = {"t.c", "k.c", NULL};
    prog = fixture_program(manifest, sources);
    km_error err = {0};
    assert_int_equal(km_plan_make(prog, &plan, &err), KM_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    km_program_free(prog);
    return 0;
}

static const km_placed *region(int cluster, const char *name)
{
    const km_cluster_plan *cp = km_plan_cluster(&plan, cluster);
    assert_non_null(cp);
    for (uint32_t k = 0; k < cp->nregions; k++)
        if (strcmp(cp->regions[k].region->name, name) == 0)
            return &cp->regions[k];
    fail_msg("no region %s on cluster %d", name, cluster);
    return NULL;
}

static sim_site x280(unsigned cluster, unsigned core, uint64_t pc, uint64_t ps)
{
    return (sim_site){.kind = SIM_SITE_X280, .cluster = (uint8_t)cluster, .core = (uint16_t)core,
                      .pc = pc, .ps = ps};
}

static sim_site handler(unsigned core, uint32_t id, uint64_t pc, uint64_t ps)
{
    return (sim_site){.kind = SIM_SITE_HANDLER, .core = (uint16_t)core, .handler = id, .pc = pc,
                      .ps = ps};
}

static sim_site host(void)
{
    return (sim_site){.kind = SIM_SITE_HOST};
}

static sim_handover record(uint16_t kind, const km_placed *pl, uint64_t offset, sim_site at,
                           sim_site writer, sim_site fill)
{
    return (sim_handover){.kind = kind, .bytes = 8, .bank = pl->bank,
                          .bank_address = pl->bank_address + offset, .at = at, .writer = writer,
                          .fill = fill};
}

static void set_source(km_site *s, const char *file, unsigned line)
{
    s->source.known = true;
    snprintf(s->source.file, sizeof s->source.file, "%s", file);
    s->source.line = line;
}

static const char *line_of(const km_handover *h)
{
    static char buf[2048];
    km_handover_line(h, buf, sizeof buf);
    return buf;
}

static void kind_names(void **state)
{
    (void)state;
    assert_string_equal(km_handover_kind_name(KM_HANDOVER_STALE_READ), "stale_read");
    assert_string_equal(km_handover_kind_name(KM_HANDOVER_STALE_SHARED_READ),
                        "stale_shared_read");
    assert_string_equal(km_handover_kind_name(KM_HANDOVER_LOST_WRITE), "lost_write");
    assert_string_equal(km_handover_kind_name(KM_HANDOVER_UNFLUSHED_READ), "unflushed_read");
    assert_string_equal(km_handover_kind_name(KM_HANDOVER_UNKNOWN), "unknown");
    assert_string_equal(km_handover_kind_name((km_handover_kind)99), "unknown");
}

static void microseconds_to_a_tenth(void **state)
{
    (void)state;
    char us[40];
    km_ps_us_text(1204500000ull, us, sizeof us);
    assert_string_equal(us, "1,204.5");
    km_ps_us_text(980149999ull, us, sizeof us);
    assert_string_equal(us, "980.1");
    km_ps_us_text(980150000ull, us, sizeof us);
    assert_string_equal(us, "980.2");
    km_ps_us_text(0, us, sizeof us);
    assert_string_equal(us, "0.0");
    km_ps_us_text(999950000ull, us, sizeof us);
    assert_string_equal(us, "1,000.0");
}

/* The example, word for word. */
static void stale_read_names_region_writer_and_fill(void **state)
{
    (void)state;
    const km_placed *data = region(1, "data");
    sim_handover rec = record(SIM_HANDOVER_STALE_READ, data, 0x1040, x280(1, 2, 0x1a4, 1300000000),
                              handler(5, 16, 0x2f0, 1204500000ull), x280(1, 2, 0x160, 980100000ull));
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.kind, KM_HANDOVER_STALE_READ);
    assert_true(h.has_region);
    assert_string_equal(h.region, "data");
    assert_int_equal(h.id, 0);
    assert_int_equal(h.cluster, 1);
    assert_int_equal(h.offset, 0x1040);
    assert_int_equal(h.bytes, 8);
    assert_string_equal(h.missing, "kmx_invalidate(0)");
    assert_int_equal(h.writer.kind, KM_SITE_HANDLER);
    assert_string_equal(h.writer.handler, "load");
    assert_int_equal(h.fill.kind, KM_SITE_X280);
    assert_false(h.at.source.known); /* no tool ran */
    set_source(&h.at, "thread/sum.c", 42);
    set_source(&h.writer, "kernels/fill.c", 17);
    set_source(&h.fill, "thread/sum.c", 30);
    assert_string_equal(line_of(&h),
                        "thread/sum.c:42: stale read of region 'data' +0x1040 (cluster 1 core 2): "
                        "handler 'load' wrote it at kernels/fill.c:17, 1,204.5 \xc2\xb5s; the cache "
                        "filled it at thread/sum.c:30, 980.1 \xc2\xb5s; kmx_invalidate(0) is "
                        "missing between them");
}

static void unknown_sources_say_pc_and_question_mark(void **state)
{
    (void)state;
    const km_placed *out = region(1, "out");
    sim_handover rec = record(SIM_HANDOVER_STALE_READ, out, 8, x280(1, 0, 0x100, 5000000),
                              handler(3, 200, 0x40, 4000000), x280(1, 0, 0x90, 1000000));
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.id, 1);
    assert_null(h.writer.handler); /* an id that names none */
    assert_string_equal(line_of(&h),
                        "?: stale read of region 'out' +0x8 (cluster 1 core 0): handler 200 wrote "
                        "it at pc 0x40, 4.0 \xc2\xb5s; the cache filled it at pc 0x90, 1.0 \xc2\xb5s; "
                        "kmx_invalidate(1) is missing between them");
}

static void shared_region_written_by_the_other_cluster(void **state)
{
    (void)state;
    const km_placed *acc2 = region(2, "acc"), *acc3 = region(3, "acc");
    assert_int_equal(acc2->bank_address, acc3->bank_address); /* one copy in bank 7 */
    sim_handover rec = record(SIM_HANDOVER_STALE_READ, acc3, 0x40, x280(3, 1, 0x200, 9000000),
                              x280(2, 0, 0x300, 8000000), x280(3, 1, 0x1f0, 7000000));
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.kind, KM_HANDOVER_STALE_SHARED_READ);
    assert_int_equal(h.cluster, 3); /* the reader's copy: it must invalidate */
    assert_int_equal(h.id, acc3->id);
    assert_int_equal(h.id, 1); /* own first, then shared */
    assert_int_equal(h.offset, 0x40);
    assert_string_equal(h.missing, "kmx_invalidate(1)");
    set_source(&h.at, "thread/t.c", 9);
    set_source(&h.writer, "thread/t.c", 5);
    set_source(&h.fill, "thread/t.c", 8);
    assert_string_equal(line_of(&h),
                        "thread/t.c:9: stale read of shared region 'acc' +0x40 (cluster 3 core 1): "
                        "cluster 2 core 0 wrote it at thread/t.c:5, 8.0 \xc2\xb5s; the cache filled "
                        "it at thread/t.c:8, 7.0 \xc2\xb5s; kmx_invalidate(1) is missing between "
                        "them");
    /* The same shared region written by a handler: a plain stale read. */
    rec.writer = handler(0, 16, 0x10, 8000000);
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.kind, KM_HANDOVER_STALE_READ);
    /* Read on cluster 2: cluster 2's copy. */
    rec.at = x280(2, 3, 0x200, 9000000);
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.cluster, 2);
}

static void lost_write_under_a_handler(void **state)
{
    (void)state;
    const km_placed *data = region(1, "data");
    sim_handover rec = record(SIM_HANDOVER_LOST_WRITE, data, 0x80, x280(1, 0, 0x120, 12300000),
                              handler(7, 16, 0x55, 10100000), x280(1, 0, 0x110, 2000000));
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.kind, KM_HANDOVER_LOST_WRITE);
    assert_false(h.push);
    assert_string_equal(h.missing, "kmx_flush(0)");
    set_source(&h.at, "thread/sum.c", 50);
    set_source(&h.writer, "kernels/fill.c", 17);
    set_source(&h.fill, "thread/sum.c", 30);
    assert_string_equal(line_of(&h),
                        "thread/sum.c:50: lost write to region 'data' +0x80 (cluster 1 core 0): its "
                        "dirty line, written back at 12.3 \xc2\xb5s, overwrote what handler 'load' "
                        "wrote at kernels/fill.c:17, 10.1 \xc2\xb5s; the cache filled it at "
                        "thread/sum.c:30, 2.0 \xc2\xb5s; kmx_flush(0) is missing before the "
                        "hand-over");
}

static void lost_write_under_a_push_is_the_receivers(void **state)
{
    (void)state;
    const km_placed *out = region(1, "out");
    sim_handover rec = record(SIM_HANDOVER_LOST_WRITE, out, 0, x280(1, 2, 0x120, 30000000),
                              x280(3, 0, 0x400, 20000000), (sim_site){0});
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.kind, KM_HANDOVER_LOST_WRITE);
    assert_true(h.push);
    assert_int_equal(h.cluster, 1); /* the receiver's copy */
    assert_string_equal(h.missing, "kmx_flush(1)");
    assert_int_equal(h.fill.kind, KM_SITE_NONE);
    assert_string_equal(line_of(&h),
                        "?: lost write to region 'out' +0x0 (cluster 1 core 2): its dirty line, "
                        "written back at 30.0 \xc2\xb5s, overwrote what cluster 3 core 0 pushed at "
                        "pc 0x400, 20.0 \xc2\xb5s; the receiver's kmx_flush(1) is missing "
                        "before the push");
}

static void unflushed_reads_by_each_reader(void **state)
{
    (void)state;
    const km_placed *data = region(1, "data");
    sim_handover rec = record(SIM_HANDOVER_UNFLUSHED_READ, data, 0x200,
                              handler(5, 16, 0x99, 20100000), x280(1, 3, 0x180, 15000000),
                              x280(1, 3, 0x170, 1000000));
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.kind, KM_HANDOVER_UNFLUSHED_READ);
    assert_int_equal(h.cluster, 1); /* the writer's copy: it must flush */
    assert_string_equal(h.missing, "kmx_flush(0)");
    assert_int_equal(h.fill.kind, KM_SITE_NONE); /* no fill for this kind */
    set_source(&h.at, "kernels/sum.c", 12);
    set_source(&h.writer, "thread/main.c", 25);
    assert_string_equal(line_of(&h),
                        "kernels/sum.c:12: unflushed read of region 'data' +0x200 (handler 'load' "
                        "on Tensix core 5) at 20.1 \xc2\xb5s: cluster 1 core 3 wrote it at "
                        "thread/main.c:25, 15.0 \xc2\xb5s and held it dirty; kmx_flush(0) is "
                        "missing before the kmx_submit");
    rec.at = host();
    rec.at.ps = 40000000;
    km_handover_name(prog, &plan, &rec, &h);
    assert_non_null(strstr(line_of(&h), "?: unflushed read of region 'data' +0x200 (the host) at "
                                        "40.0 \xc2\xb5s: "));
    assert_non_null(strstr(line_of(&h), "kmx_flush(0) is missing before the end"));
    /* A shared line read by the other cluster: the writer's copy and id. */
    const km_placed *acc = region(2, "acc");
    rec = record(SIM_HANDOVER_UNFLUSHED_READ, acc, 0, x280(3, 0, 0x10, 5000000),
                 x280(2, 1, 0x20, 4000000), (sim_site){0});
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.cluster, 2);
    assert_string_equal(h.missing, "kmx_flush(1)");
    assert_non_null(strstr(line_of(&h), "kmx_flush(1) is missing before cluster 3 reads it"));
}

static void host_writer_and_no_region(void **state)
{
    (void)state;
    const km_cluster_plan *c1 = km_plan_cluster(&plan, 1);
    sim_handover rec = {.kind = SIM_HANDOVER_STALE_READ, .bytes = 4, .bank = c1->bank,
                        .bank_address = c1->check_address + 4, .at = x280(1, 0, 0x10, 3000000),
                        .writer = host(), .fill = x280(1, 0, 0x8, 1000000)};
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    assert_false(h.has_region);
    assert_string_equal(h.missing, "kmx_invalidate");
    char expect[256];
    snprintf(expect, sizeof expect,
             "?: stale read of bank 6 address 0x%llx (cluster 1 core 0): the host wrote it (the "
             "host's initial contents), 0.0 \xc2\xb5s; the cache filled it at pc 0x8, 1.0 \xc2\xb5s; "
             "kmx_invalidate is missing between them",
             (unsigned long long)c1->check_address + 4);
    assert_string_equal(line_of(&h), expect);
    /* Past a region's end: not that region. */
    const km_placed *out = region(1, "out");
    rec.bank_address = out->bank_address + out->region->size;
    km_handover_name(prog, &plan, &rec, &h);
    assert_false(h.has_region && strcmp(h.region, "out") == 0);
}

static void unknown_kind_is_kept(void **state)
{
    (void)state;
    const km_placed *data = region(1, "data");
    sim_handover rec = record(77, data, 0, x280(1, 0, 0x10, 0), host(), (sim_site){0});
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.kind, KM_HANDOVER_UNKNOWN);
    assert_string_equal(h.missing, "");
    assert_non_null(strstr(line_of(&h), "(card record kind 77)"));
    cJSON *o = km_handover_json(&h);
    assert_string_equal(cJSON_GetObjectItem(o, "kind")->valuestring, "unknown");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "missing")));
    cJSON_Delete(o);
}

static void json_of_a_finding(void **state)
{
    (void)state;
    const km_placed *data = region(1, "data");
    sim_handover rec = record(SIM_HANDOVER_STALE_READ, data, 0x1040, x280(1, 2, 0x1a4, 1300000000),
                              handler(5, 16, 0x2f0, 1204500000ull), host());
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    set_source(&h.at, "thread/sum.c", 42);
    cJSON *o = km_handover_json(&h);
    char *text = cJSON_PrintUnformatted(o);
    char expect[2048];
    snprintf(expect, sizeof expect,
             "{\"kind\":\"stale_read\",\"region\":\"data\",\"id\":0,\"cluster\":1,\"offset\":4160,"
             "\"bytes\":8,\"bank\":6,\"bank_address\":%llu,\"end_offset\":4168,"
             "\"end_address\":%llu,\"lines\":1,"
             "\"at\":{\"kind\":\"x280\",\"cluster\":1,\"core\":2,\"handler\":null,\"pc\":420,"
             "\"source\":{\"file\":\"thread/sum.c\",\"line\":42,\"function\":null},"
             "\"microseconds\":1300},"
             "\"writer\":{\"kind\":\"handler\",\"cluster\":null,\"core\":5,\"handler\":\"load\","
             "\"pc\":752,\"source\":null,\"microseconds\":1204.5},"
             "\"fill\":{\"kind\":\"host\",\"cluster\":null,\"core\":null,\"handler\":null,"
             "\"pc\":null,\"source\":null,\"microseconds\":0},"
             "\"missing\":\"kmx_invalidate(0)\"}",
             (unsigned long long)data->bank_address + 0x1040,
             (unsigned long long)data->bank_address + 0x1048);
    assert_string_equal(text, expect);
    free(text);
    cJSON_Delete(o);
}

/* A run of lines is one finding: its range and count in the line, and a
 * latent read names the call it lacks. */
static void lines_and_latent(void **state)
{
    (void)state;
    const km_placed *data = region(1, "data");
    sim_handover rec = record(SIM_HANDOVER_UNFLUSHED_READ, data, 0x400, x280(1, 0, 0x120, 9000000),
                              x280(1, 0, 0x100, 8000000), (sim_site){0});
    rec.end_address = data->bank_address + 0x800;
    rec.lines = 16;
    km_handover h;
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.offset, 0x400);
    assert_int_equal(h.end_offset, 0x800);
    assert_int_equal(h.lines, 16);
    char line[1024];
    km_handover_line(&h, line, sizeof line);
    assert_non_null(strstr(line, "unflushed read of region 'data' +0x400..+0x800 (16 lines) (cluster 1 core 0)"));

    rec = record(SIM_HANDOVER_LATENT_READ, data, 0, x280(1, 2, 0x1a4, 1300000000), host(),
                 (sim_site){0});
    rec.end_address = data->bank_address + 0x100000;
    rec.lines = 16384;
    km_handover_name(prog, &plan, &rec, &h);
    assert_int_equal(h.kind, KM_HANDOVER_LATENT_READ);
    assert_string_equal(km_handover_kind_name(h.kind), "latent_read");
    assert_string_equal(h.missing, "kmx_invalidate(0)");
    km_handover_line(&h, line, sizeof line);
    assert_non_null(strstr(line, "latent stale read of region 'data' +0x0..+0x100000 (16384 lines) (cluster 1 core 2)"));
    assert_non_null(strstr(line, "the host wrote it"));
    assert_non_null(strstr(line, "kmx_invalidate(0) is missing before the read"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kind_names),
        cmocka_unit_test(microseconds_to_a_tenth),
        cmocka_unit_test(stale_read_names_region_writer_and_fill),
        cmocka_unit_test(unknown_sources_say_pc_and_question_mark),
        cmocka_unit_test(shared_region_written_by_the_other_cluster),
        cmocka_unit_test(lost_write_under_a_handler),
        cmocka_unit_test(lost_write_under_a_push_is_the_receivers),
        cmocka_unit_test(unflushed_reads_by_each_reader),
        cmocka_unit_test(host_writer_and_no_region),
        cmocka_unit_test(unknown_kind_is_kept),
        cmocka_unit_test(json_of_a_finding),
        cmocka_unit_test(lines_and_latent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
