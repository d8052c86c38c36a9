/* Tests for lib/manifest/km_ports.c: the X280 ports' dealing (default over one, two
 * and three clusters, a serve map, none), each cluster's ports settings in
 * its argument block (through km_plan) and the ports area the host writes
 * into its local memory; and the run JSON's `ports` and `port_waits`
 * (lib/run/km_run_json.c).  That the sim backend writes the area where the
 * runtime reads it is tested end to end in tests/cli/ports_table.bats. */
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
#include "km_plan.h"
#include "km_ports.h"
#include "km_run_json.h"
#include "km_session.h"
#include "manifest_fixture.h"

static km_program *load(const char *yaml)
{
    static const char *const sources[] = {"t.c", NULL};
    return fixture_program(yaml, sources);
}

/* Core `core` goes to (cluster, x280_core). */
static void served_by(const km_port_dealing *d, unsigned core, int cluster, int x280_core)
{
    if (d->cluster[core] != cluster || d->x280_core[core] != x280_core)
        fail_msg("core %u: served by (%d, %d), expected (%d, %d)", core, d->cluster[core],
                 d->x280_core[core], cluster, x280_core);
}

/* cores first..last go to (cluster, x280_core). */
static void block(const km_port_dealing *d, unsigned first, unsigned last, int cluster,
                  int x280_core)
{
    for (unsigned core = first; core <= last; core++)
        served_by(d, core, cluster, x280_core);
}

static void default_over_one_cluster_is_thirty_each(void **state)
{
    (void)state;
    km_program *p = load("name: t\n"
                         "threads:\n"
                         "  - cluster: 2\n"
                         "    sources: [t.c]\n"
                         "ports: default\n");
    km_port_dealing d;
    assert_true(km_ports_deal(p, &d));
    block(&d, 0, 29, 2, 0);
    block(&d, 30, 59, 2, 1);
    block(&d, 60, 89, 2, 2);
    block(&d, 90, 119, 2, 3);
    assert_int_equal(km_ports_served(&d, 2), 120);
    assert_int_equal(km_ports_served(&d, 1), 0);
    km_program_free(p);
}

static void default_over_two_clusters_is_fifteen_each(void **state)
{
    (void)state;
    /* clusters ascending, whatever the manifest's order */
    km_program *p = load("name: t\n"
                         "threads:\n"
                         "  - cluster: 3\n"
                         "    sources: [t.c]\n"
                         "  - cluster: 1\n"
                         "    sources: [t.c]\n"
                         "ports: default\n");
    km_port_dealing d;
    assert_true(km_ports_deal(p, &d));
    for (unsigned k = 0; k < 8; k++)
        block(&d, 15 * k, 15 * k + 14, k < 4 ? 1 : 3, (int)(k % 4));
    assert_int_equal(km_ports_served(&d, 1), 60);
    assert_int_equal(km_ports_served(&d, 2), 0);
    assert_int_equal(km_ports_served(&d, 3), 60);
    km_program_free(p);
}

static const char three[] = "name: t\n"
                            "threads:\n"
                            "  - clusters: [3, 2]\n"
                            "    sources: [t.c]\n"
                            "  - cluster: 1\n"
                            "    sources: [t.c]\n"
                            "ports: default\n";

static void default_over_three_clusters_is_ten_each(void **state)
{
    (void)state;
    km_program *p = load(three);
    km_port_dealing d;
    assert_true(km_ports_deal(p, &d));
    for (unsigned k = 0; k < 12; k++)
        block(&d, 10 * k, 10 * k + 9, 1 + (int)(k / 4), (int)(k % 4));
    served_by(&d, 39, 1, 3);
    block(&d, 40, 49, 2, 0);
    served_by(&d, 119, 3, 3);
    km_program_free(p);
}

static const char serve[] = "name: t\n"
                            "threads:\n"
                            "  - cluster: 1\n"
                            "    sources: [t.c]\n"
                            "  - clusters: [2, 3]\n"
                            "    sources: [t.c]\n"
                            "ports:\n"
                            "  serve:\n"
                            "    119: [2, 1]\n"
                            "    0: [2, 0]\n"
                            "    5: [3, 3]\n"
                            "    64: [2, 3]\n";

static void a_serve_map_names_them_and_no_other(void **state)
{
    (void)state;
    km_program *p = load(serve);
    km_port_dealing d;
    assert_true(km_ports_deal(p, &d));
    served_by(&d, 0, 2, 0);
    served_by(&d, 5, 3, 3);
    served_by(&d, 64, 2, 3);
    served_by(&d, 119, 2, 1);
    for (unsigned core = 0; core < BH_GRID_CORES; core++)
        if (core != 0 && core != 5 && core != 64 && core != 119)
            served_by(&d, core, 0, 0);
    assert_int_equal(km_ports_served(&d, 1), 0);
    assert_int_equal(km_ports_served(&d, 2), 3);
    assert_int_equal(km_ports_served(&d, 3), 1);
    km_program_free(p);
}

static void no_ports_no_dealing_and_a_pull_implies_the_default(void **state)
{
    (void)state;
    km_program *p = load("name: t\n"
                         "threads:\n"
                         "  - cluster: 1\n"
                         "    sources: [t.c]\n");
    km_port_dealing d;
    memset(&d, 0xAB, sizeof d);
    assert_false(km_ports_deal(p, &d));
    for (unsigned core = 0; core < BH_GRID_CORES; core++)
        served_by(&d, core, 0, 0);
    km_plan plan;
    assert_int_equal(km_plan_make(p, &plan, NULL), KM_OK);
    assert_false(plan.has_ports);
    kmx_args a;
    km_plan_args(p, &plan, 1, 1, &a);
    kmx_ports_settings zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&a.ports, &zero, sizeof zero);
    km_program_free(p);

    p = load("name: t\n"
             "threads:\n"
             "  - cluster: 1\n"
             "    sources: [t.c]\n"
             "pull: {units: 10, per: 1}\n");
    assert_true(km_ports_deal(p, &d));
    block(&d, 0, 29, 1, 0);
    block(&d, 90, 119, 1, 3);
    km_program_free(p);
}

/* Entry `core` of a cluster's table. */
static void entry(const kmx_ports_area *a, unsigned core, unsigned x280_core, unsigned window)
{
    const kmx_port_entry *e = &a->table[core];
    if (e->x280_core != x280_core || e->window != window)
        fail_msg("table[%u]: x280_core %u, window %u; expected %u, %u", core, e->x280_core,
                 e->window, x280_core, window);
}

/* What the host writes but the table: zero. */
static void rest_is_zero(const kmx_ports_area *a)
{
    static const kmx_ports_area zero;
    assert_memory_equal(&a->line, &zero.line, sizeof zero.line);
    assert_memory_equal(a->mailbox, zero.mailbox, sizeof zero.mailbox);
    assert_memory_equal(a->reserved, zero.reserved, sizeof zero.reserved);
    for (unsigned core = 0; core < BH_GRID_CORES; core++) {
        assert_int_equal(a->table[core].reserved0, 0);
        assert_int_equal(a->table[core].reserved1, 0);
        /* every core's tile, served or not */
        assert_int_equal(a->table[core].noc_x, BH_TENSIX_TILE_X(core));
        assert_int_equal(a->table[core].noc_y, BH_TENSIX_TILE_Y(core));
    }
}

static void settings(const kmx_args *a, unsigned served, unsigned cores)
{
    assert_int_equal(a->ports.enabled, 1);
    assert_int_equal(a->ports.served, served);
    assert_int_equal(a->ports.window_first, KMX_WINDOW_PORTS_FIRST);
    assert_int_equal(a->ports.cores, cores);
    assert_int_equal(a->ports.control, KM_CONTROL_X280_L1);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(a->ports.reserved[i], 0);
}

static void each_cluster_gets_its_table_and_settings(void **state)
{
    (void)state;
    km_program *p = load(three);
    km_plan plan;
    assert_int_equal(km_plan_make(p, &plan, NULL), KM_OK);
    assert_true(plan.has_ports);
    kmx_args a;
    kmx_ports_area *area = malloc(sizeof *area);
    assert_non_null(area);

    /* cluster 2 serves cores 40..79, windows 56.. in grid order */
    km_plan_args(p, &plan, 2, 7, &a);
    settings(&a, 40, 80);
    km_ports_area_of(&plan.ports, 2, area);
    rest_is_zero(area);
    for (unsigned core = 0; core < 40; core++)
        entry(area, core, KMX_PORT_NONE, 0);
    for (unsigned core = 40; core < 80; core++)
        entry(area, core, (core - 40) / 10, KMX_WINDOW_PORTS_FIRST + core - 40);
    for (unsigned core = 80; core < 120; core++)
        entry(area, core, KMX_PORT_NONE, 0);
    /* each cluster ranks its own cores from the first window */
    km_plan_args(p, &plan, 1, 7, &a);
    settings(&a, 40, 40);
    km_ports_area_of(&plan.ports, 1, area);
    entry(area, 0, 0, KMX_WINDOW_PORTS_FIRST);
    entry(area, 39, 3, KMX_WINDOW_PORTS_FIRST + 39);
    entry(area, 40, KMX_PORT_NONE, 0);
    km_plan_args(p, &plan, 3, 7, &a);
    settings(&a, 40, 120);
    km_ports_area_of(&plan.ports, 3, area);
    entry(area, 79, KMX_PORT_NONE, 0);
    entry(area, 80, 0, KMX_WINDOW_PORTS_FIRST);
    entry(area, 119, 3, KMX_WINDOW_PORTS_FIRST + 39);
    km_program_free(p);

    /* A serve map: ranks skip the cores the cluster does not serve; a
     * cluster that serves none still has ports enabled, with nothing. */
    p = load(serve);
    assert_int_equal(km_plan_make(p, &plan, NULL), KM_OK);
    km_plan_args(p, &plan, 2, 7, &a);
    settings(&a, 3, 120);
    km_ports_area_of(&plan.ports, 2, area);
    rest_is_zero(area);
    entry(area, 0, 0, KMX_WINDOW_PORTS_FIRST);
    entry(area, 5, KMX_PORT_NONE, 0);
    entry(area, 64, 3, KMX_WINDOW_PORTS_FIRST + 1);
    entry(area, 119, 1, KMX_WINDOW_PORTS_FIRST + 2);
    km_plan_args(p, &plan, 3, 7, &a);
    settings(&a, 1, 6);
    km_ports_area_of(&plan.ports, 3, area);
    entry(area, 0, KMX_PORT_NONE, 0);
    entry(area, 5, 3, KMX_WINDOW_PORTS_FIRST);
    km_plan_args(p, &plan, 1, 7, &a);
    settings(&a, 0, 0);
    km_ports_area_of(&plan.ports, 1, area);
    rest_is_zero(area);
    for (unsigned core = 0; core < BH_GRID_CORES; core++)
        entry(area, core, KMX_PORT_NONE, 0);
    free(area);
    km_program_free(p);
}

static void one_cluster_may_serve_the_whole_grid(void **state)
{
    (void)state;
    /* The window rule (at most KMX_WINDOW_PORTS_COUNT cores a cluster)
     * leaves room for the whole grid on one cluster: served 120, cores
     * 120, the last window 175. */
    km_port_dealing d;
    memset(&d, 0, sizeof d);
    for (unsigned core = 0; core < BH_GRID_CORES; core++)
        d.cluster[core] = 1;
    kmx_ports_settings s;
    km_error err = {0};
    assert_int_equal(km_ports_settings_of(&d, 1, &s, &err), KM_OK);
    assert_int_equal(s.served, 120);
    assert_int_equal(s.cores, 120);
    kmx_ports_area *area = malloc(sizeof *area);
    assert_non_null(area);
    km_ports_area_of(&d, 1, area);
    entry(area, 119, 0, 175);
    free(area);
}

/* The run JSON: `ports` per X280 core, `port_waits` as the card gave them. */
static void run_json_lists_the_dealing_and_the_waits(void **state)
{
    (void)state;
    km_program *p = load("name: t\n"
                         "kernels:\n"
                         "  sources: [t.c]\n"
                         "  handlers: [ask, look]\n"
                         "threads:\n"
                         "  - cluster: 3\n"
                         "    sources: [t.c]\n"
                         "ports: default\n");
    km_plan plan;
    assert_int_equal(km_plan_make(p, &plan, NULL), KM_OK);
    km_run_result r;
    memset(&r, 0, sizeof r);
    r.port_waits[0] = (km_port_gave_up){5, KM_HANDLER_FIRST_PROGRAM + 1, KM_WHERE_X280_ANSWER,
                                        KM_PORT_GAVE_UP_LIMIT, 10001500000ull};
    r.port_waits[1] = (km_port_gave_up){119, KM_HANDLER_NOP, KM_WHERE_X280_OWNER,
                                        KM_PORT_GAVE_UP_REFUSED, 2000000};
    r.port_waits[2] = (km_port_gave_up){7, 200, 99, 9, 1};
    r.nport_waits = 3;
    km_run_info info = {.run_id = "id", .run_dir = "dir"};
    char *text = km_run_json(p, &plan, &r, &info);
    assert_non_null(strstr(text, "\"microseconds\":\t10001.5"));
    cJSON *doc = cJSON_Parse(text);
    assert_non_null(doc);
    cJSON *ports = cJSON_GetObjectItem(doc, "ports");
    assert_int_equal(cJSON_GetArraySize(ports), 4);
    for (int x = 0; x < 4; x++) {
        cJSON *o = cJSON_GetArrayItem(ports, x);
        assert_int_equal(cJSON_GetObjectItem(o, "cluster")->valueint, 3);
        assert_int_equal(cJSON_GetObjectItem(o, "x280_core")->valueint, x);
        cJSON *cores = cJSON_GetObjectItem(o, "cores");
        assert_int_equal(cJSON_GetArraySize(cores), 30);
        for (int i = 0; i < 30; i++)
            assert_int_equal(cJSON_GetArrayItem(cores, i)->valueint, 30 * x + i);
    }
    cJSON *waits = cJSON_GetObjectItem(doc, "port_waits");
    assert_int_equal(cJSON_GetArraySize(waits), 3);
    cJSON *w = cJSON_GetArrayItem(waits, 0);
    assert_int_equal(cJSON_GetObjectItem(w, "core")->valueint, 5);
    assert_string_equal(cJSON_GetObjectItem(w, "handler")->valuestring, "look");
    assert_string_equal(cJSON_GetObjectItem(w, "where")->valuestring, "x280_answer");
    assert_string_equal(cJSON_GetObjectItem(w, "why")->valuestring, "limit");
    w = cJSON_GetArrayItem(waits, 1);
    assert_string_equal(cJSON_GetObjectItem(w, "handler")->valuestring, "nop");
    assert_string_equal(cJSON_GetObjectItem(w, "where")->valuestring, "x280_owner");
    assert_string_equal(cJSON_GetObjectItem(w, "why")->valuestring, "refused");
    assert_true(cJSON_GetObjectItem(w, "microseconds")->valuedouble == 2.0);
    /* what this kmrun cannot name is said so, not guessed */
    w = cJSON_GetArrayItem(waits, 2);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(w, "handler")));
    assert_string_equal(cJSON_GetObjectItem(w, "where")->valuestring, "unknown");
    assert_string_equal(cJSON_GetObjectItem(w, "why")->valuestring, "unknown");
    cJSON_Delete(doc);
    free(text);

    /* no ports: null, and no waits */
    plan.has_ports = false;
    r.nport_waits = 0;
    text = km_run_json(p, &plan, &r, &info);
    doc = cJSON_Parse(text);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc, "ports")));
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(doc, "port_waits")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "port_waits")), 0);
    cJSON_Delete(doc);
    free(text);
    km_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_over_one_cluster_is_thirty_each),
        cmocka_unit_test(default_over_two_clusters_is_fifteen_each),
        cmocka_unit_test(default_over_three_clusters_is_ten_each),
        cmocka_unit_test(a_serve_map_names_them_and_no_other),
        cmocka_unit_test(no_ports_no_dealing_and_a_pull_implies_the_default),
        cmocka_unit_test(each_cluster_gets_its_table_and_settings),
        cmocka_unit_test(one_cluster_may_serve_the_whole_grid),
        cmocka_unit_test(run_json_lists_the_dealing_and_the_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
