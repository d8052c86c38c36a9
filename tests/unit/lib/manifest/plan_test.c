/* Tests for lib/manifest/km_plan.c: region placement and argument blocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "km_fs.h"
#include "km_plan.h"
#include "manifest_fixture.h"

static km_program *load(const char *yaml)
{
    static const char *const sources[] = {"t.c", NULL};
    return fixture_program(yaml, sources);
}

static const char three[] =
    "name: plan\n"
    "regions:\n"
    "  data: 100\n"
    "threads:\n"
    "  - clusters: [3, 2]\n"
    "    sources: [t.c]\n"
    "    regions: {own: 4KiB}\n"
    "    shared: [data]\n"
    "    words: [5, 6]\n"
    "    deadline: 2ms\n"
    "  - cluster: 1\n"
    "    sources: [t.c]\n"
    "    regions: {a: 8, b: 4}\n"
    "    prefetch: keep\n";

static void placement_follows_the_banks(void **state)
{
    (void)state;
    km_program *p = load(three);
    km_plan plan;
    km_error err = {0};
    assert_int_equal(km_plan_make(p, &plan, &err), KM_OK);
    assert_int_equal(plan.nclusters, 3);
    const km_cluster_plan *c1 = km_plan_cluster(&plan, 1), *c2 = km_plan_cluster(&plan, 2),
                          *c3 = km_plan_cluster(&plan, 3);
    assert_int_equal(c1->bank, 6);
    assert_int_equal(c2->bank, 7);
    assert_int_equal(c3->bank, 7);
    /* bank 6: check line, a, b */
    assert_int_equal(c1->check_address, KM_TENSOR_BASE);
    assert_int_equal(c1->regions[0].bank_address, KM_TENSOR_BASE + 64);
    assert_int_equal(c1->regions[1].bank_address, KM_TENSOR_BASE + 128);
    /* bank 7: two check lines, the shared region once, then each own */
    assert_int_equal(c2->check_address, KM_TENSOR_BASE);
    assert_int_equal(c3->check_address, KM_TENSOR_BASE + 64);
    assert_int_equal(c2->nregions, 2);
    assert_int_equal(c2->regions[1].bank_address, KM_TENSOR_BASE + 128);
    assert_int_equal(c3->regions[1].bank_address, KM_TENSOR_BASE + 128);
    assert_true(c2->regions[1].shared);
    assert_int_equal(c2->regions[0].bank_address, KM_TENSOR_BASE + 256); /* 128 + ALIGN64(100) */
    assert_int_equal(c3->regions[0].bank_address, KM_TENSOR_BASE + 256 + 4096);
    for (unsigned i = 0; i < plan.nclusters; i++)
        for (unsigned r = 0; r < plan.clusters[i].nregions; r++)
            assert_int_equal(plan.clusters[i].regions[r].bank_address % 64, 0);
    km_program_free(p);
}

/* Interleaved regions: one base in every bank, past everything else, in
 * manifest order; the threads' placement is as without them. */
static void interleaved_tensors_come_last_in_every_bank(void **state)
{
    (void)state;
    static const char yaml[] =
        "name: plan\n"
        "regions:\n"
        "  counters: {size: 476KiB, placement: interleaved, page_size: 4KiB}\n"
        "  data: 100\n"
        "  tiles: {size: 100, placement: interleaved}\n"
        "threads:\n"
        "  - cluster: 1\n"
        "    sources: [t.c]\n"
        "    regions: {a: 8KiB}\n"
        "    shared: [data]\n";
    km_program *p = load(yaml);
    assert_non_null(p);
    km_plan plan;
    assert_int_equal(km_plan_make(p, &plan, NULL), KM_OK);
    const km_cluster_plan *c1 = km_plan_cluster(&plan, 1);
    /* bank 6: check line, data, a — the thread's regions only. */
    assert_int_equal(c1->nregions, 2);
    assert_int_equal(c1->regions[1].bank_address, KM_TENSOR_BASE + 64);
    assert_int_equal(c1->regions[0].bank_address, KM_TENSOR_BASE + 64 + 128);
    uint64_t end6 = KM_TENSOR_BASE + 64 + 128 + 8192;
    assert_int_equal(plan.ntensors, 2);
    assert_string_equal(plan.tensors[0].name, "counters");
    assert_int_equal(plan.tensors[0].base, end6);
    assert_int_equal(plan.tensors[0].page_size, 4096);
    assert_int_equal(plan.tensors[0].bytes, 476 * 1024);
    /* 119 pages: 15 in bank 0, so 15 pages a bank; the next one after. */
    assert_string_equal(plan.tensors[1].name, "tiles");
    assert_int_equal(plan.tensors[1].page_size, KM_PAGE_SIZE_DEFAULT);
    assert_int_equal(plan.tensors[1].base, end6 + 15 * 4096);
    for (unsigned b = 0; b < 8; b++)
        assert_int_equal(plan.tensor_bytes[b],
                         end6 + 15 * 4096 + KM_PAGE_SIZE_DEFAULT - KM_TENSOR_BASE);
    km_program_free(p);
}

static void args_carry_the_thread(void **state)
{
    (void)state;
    km_program *p = load(three);
    km_plan plan;
    assert_int_equal(km_plan_make(p, &plan, NULL), KM_OK);
    kmx_args a;
    km_plan_args(p, &plan, 3, 0x1234, &a);
    assert_int_equal(a.magic, KMX_ARGS_MAGIC);
    assert_int_equal(a.cluster, 3);
    assert_int_equal(a.clusters, (1u << 2) | (1u << 3));
    assert_int_equal(a.lead, 2);
    assert_int_equal(a.bank, 7);
    assert_int_equal(a.deadline, 2000 * 50); /* 2 ms of 50 MHz ticks */
    assert_int_equal(a.nwords, 2);
    assert_int_equal(a.words[1], 6);
    assert_int_equal(a.nregions, 2);
    assert_int_equal(a.regions[1].flags, KMX_REGION_SHARED);
    assert_int_equal(a.seal.nonce, 0x1234);
    assert_int_equal(a.seal.seal, KMX_ARGS_SEAL);
    assert_int_equal(a.check.value, km_plan_check_value(0x1234, 3));
    assert_true(a.peers[1].present && a.peers[2].present && !a.peers[0].present);
    /* Each present peer: its tile, its bank's first port, its LIM on the
     * NoC, its copies of the regions; an absent one stays zero. */
    assert_int_equal(a.peers[1].noc_x, 8);
    assert_int_equal(a.peers[1].noc_y, 5);
    assert_int_equal(a.peers[2].noc_x, 8);
    assert_int_equal(a.peers[2].noc_y, 7);
    assert_int_equal(a.peers[1].bank, 7);
    assert_int_equal(a.peers[2].bank, 7);
    assert_int_equal(a.peers[1].bank_x, BH_BANK_TILE_X(7u));
    assert_int_equal(a.peers[1].bank_y, BH_BANK_TILE_Y(7u));
    assert_int_equal(a.peers[2].bank_x, 9);
    assert_int_equal(a.peers[2].bank_y, 5);
    assert_int_equal(a.peers[1].lim, BH_NOC_LIM_BASE);
    assert_int_equal(a.peers[2].lim, BH_NOC_LIM_BASE);
    assert_int_equal(a.peers[1].bank_base, 0);
    assert_int_equal(a.peers[1].region_bank_address[0], KM_TENSOR_BASE + 256);
    assert_int_equal(a.peers[2].region_bank_address[0], KM_TENSOR_BASE + 256 + 4096);
    assert_int_equal(a.peers[2].region_bank_address[1], KM_TENSOR_BASE + 128);
    assert_int_equal(a.peers[0].noc_x, 0);
    assert_int_equal(a.peers[0].lim, 0);
    km_plan_args(p, &plan, 1, 0x1234, &a);
    assert_true(a.peers[0].present && !a.peers[1].present && !a.peers[2].present);
    assert_int_equal(a.peers[0].noc_y, 9);
    assert_int_equal(a.peers[0].bank, 6);
    assert_int_equal(a.peers[0].bank_x, 9);
    assert_int_equal(a.peers[0].bank_y, 9);
    km_plan_args(p, &plan, 1, 0x1234, &a);
    assert_int_equal(a.prefetch, KMX_PREFETCH_KEEP);
    assert_int_equal(a.deadline, 0);
    km_program_free(p);
}

static void check_values_differ(void **state)
{
    (void)state;
    assert_int_not_equal(km_plan_check_value(1, 1), km_plan_check_value(1, 2));
    assert_int_not_equal(km_plan_check_value(1, 1), km_plan_check_value(2, 1));
    assert_int_not_equal(km_plan_check_value(0, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(placement_follows_the_banks),
        cmocka_unit_test(interleaved_tensors_come_last_in_every_bank),
        cmocka_unit_test(args_carry_the_thread),
        cmocka_unit_test(check_values_differ),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
