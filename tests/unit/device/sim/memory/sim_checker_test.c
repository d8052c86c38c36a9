/* Tests for device/sim/memory/sim_checker.c: the hand-over checker on a
 * cluster's memory map (sim_cluster_mem with the checker) — a stale read
 * after another agent's write with its three sites, none after the
 * invalidate or when the bytes read are the same, a lost write over a
 * push, an unflushed read by a handler and by the other cluster on the
 * shared bank, one finding per (kind, line, pc), contiguous lines of one
 * hazard as one finding, and latent reads of lines another wrote since the
 * cluster's last sweep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sim_checker.h"
#include "sim_clock.h"
#include "sim_cluster_mem.h"

typedef struct fixture {
    sim_dram dram;
    sim_checker *ck;
    sim_cluster_mem cm[2]; /* clusters 2 and 3: both on bank 7 */
    sim_hart harts[2][BH_CLUSTER_CORES]; /* core 1 of each does the accesses */
} fixture;

#define HART(f, k) (&(f)->harts[k][1])

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    ks_error err = {0};
    sim_dram_init(&f->dram);
    f->ck = sim_checker_create(&f->dram);
    assert_non_null(f->ck);
    for (unsigned k = 0; k < 2; k++) {
        assert_int_equal(sim_cluster_mem_init(&f->cm[k], &f->dram, k + 2u, SIM_MHZ_DEFAULT, &err),
                         KS_OK);
        sim_cluster_mem_set_checker(&f->cm[k], f->ck);
        sim_checker_add_cache(f->ck, k + 2u, &f->cm[k].cache);
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
            f->harts[k][i].hartid = i;
            f->harts[k][i].mem = &f->cm[k].mem;
            f->harts[k][i].state = SIM_HART_RUNNING;
            f->cm[k].mem.harts[i] = &f->harts[k][i];
        }
        f->cm[k].mem.nharts = BH_CLUSTER_CORES;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    for (unsigned k = 0; k < 2; k++)
        sim_cluster_mem_free(&f->cm[k]);
    sim_checker_free(f->ck);
    sim_dram_free(&f->dram);
    free(f);
    return 0;
}

static uint64_t load(fixture *f, unsigned k, uint64_t pc, uint64_t bank_address)
{
    uint64_t v = 0;
    HART(f, k)->pc = pc;
    assert_int_equal(sim_cluster_mem_load(&f->cm[k].mem, HART(f, k),
                                          BH_DRAM_CACHED(bank_address), 4, &v),
                     0);
    return v;
}

static void store(fixture *f, unsigned k, uint64_t pc, uint64_t bank_address, uint32_t v)
{
    HART(f, k)->pc = pc;
    assert_int_equal(sim_cluster_mem_store(&f->cm[k].mem, HART(f, k),
                                           BH_DRAM_CACHED(bank_address), 4, v),
                     0);
}

static void flush(fixture *f, unsigned k, uint64_t pc, uint64_t bank_address)
{
    HART(f, k)->pc = pc;
    assert_int_equal(sim_cluster_mem_store(&f->cm[k].mem, HART(f, k), BH_FLUSH64, 8,
                                           BH_DRAM_CACHED(bank_address)),
                     0);
}

/* A handler (core 5, handler 16, call at 0x40) writes DRAM around the caches. */
static void handler_writes(fixture *f, uint64_t bank_address, uint32_t v)
{
    sim_checker_at(f->ck, &(sim_site){.kind = SIM_SITE_HANDLER, .core = 5, .handler = 16,
                                      .pc = 0x40, .ps = 7});
    assert_int_equal(sim_dram_write(&f->dram, 7, bank_address, &v, 4, NULL), KS_OK);
    sim_checker_at(f->ck, NULL);
}

static const sim_handover *found(fixture *f, unsigned *n)
{
    return sim_checker_found(f->ck, n);
}

static void a_stale_read_names_all_three(void **state)
{
    fixture *f = *state;
    assert_int_equal(load(f, 0, 0x100, 0x1040), 0); /* the fill */
    handler_writes(f, 0x1044, 9);
    assert_int_equal(load(f, 0, 0x104, 0x1040), 0); /* other bytes: the same, no finding */
    unsigned n;
    found(f, &n);
    assert_int_equal(n, 0);
    assert_int_equal(load(f, 0, 0x108, 0x1044), 0); /* stale: DRAM holds 9 */
    assert_int_equal(load(f, 0, 0x108, 0x1044), 0); /* the same pc: once */
    const sim_handover *h = found(f, &n);
    assert_int_equal(n, 1);
    assert_int_equal(h->kind, SIM_HANDOVER_STALE_READ);
    assert_int_equal(h->bank, 7);
    assert_int_equal(h->bank_address, 0x1044);
    assert_int_equal(h->at.kind, SIM_SITE_X280);
    assert_int_equal(h->at.cluster, 2);
    assert_int_equal(h->at.core, 1);
    assert_int_equal(h->at.pc, 0x108);
    assert_int_equal(h->writer.kind, SIM_SITE_HANDLER);
    assert_int_equal(h->writer.pc, 0x40);
    assert_int_equal(h->writer.handler, 16);
    assert_int_equal(h->fill.pc, 0x100);
    /* After the invalidate (FLUSH64 of a clean line), the new value. */
    flush(f, 0, 0x10c, 0x1040);
    assert_int_equal(load(f, 0, 0x110, 0x1044), 9);
    found(f, &n);
    assert_int_equal(n, 1);
}

static void a_dirty_line_written_back_over_a_push_is_a_lost_write(void **state)
{
    fixture *f = *state;
    store(f, 0, 0x200, 0x2000, 1); /* dirty, word 0 */
    handler_writes(f, 0x2008, 5);  /* someone writes word 2 of the line */
    flush(f, 0, 0x204, 0x2000);    /* the write-back puts word 2's old 0 back */
    unsigned n;
    const sim_handover *h = found(f, &n);
    assert_int_equal(n, 1);
    assert_int_equal(h->kind, SIM_HANDOVER_LOST_WRITE);
    assert_int_equal(h->bank_address, 0x2008);
    assert_int_equal(h->at.pc, 0x200); /* the store that dirtied the line */
    assert_int_equal(h->writer.kind, SIM_SITE_HANDLER);
    uint32_t v = 1;
    assert_int_equal(sim_dram_read(&f->dram, 7, 0x2008, &v, 4, NULL), KS_OK);
    assert_int_equal(v, 0); /* as on the card: lost */
}

static void a_handler_reading_a_dirty_line_is_an_unflushed_read(void **state)
{
    fixture *f = *state;
    store(f, 0, 0x300, 0x3000, 42);
    uint32_t v = 1;
    sim_checker_at(f->ck, &(sim_site){.kind = SIM_SITE_HANDLER, .core = 3, .pc = 0x80});
    sim_checker_read(f->ck, 7, 0x3004, 8, 0); /* other bytes: nothing */
    sim_checker_read(f->ck, 7, 0x3000, 4, 0);
    sim_checker_at(f->ck, NULL);
    unsigned n;
    const sim_handover *h = found(f, &n);
    assert_int_equal(n, 1);
    assert_int_equal(h->kind, SIM_HANDOVER_UNFLUSHED_READ);
    assert_int_equal(h->bank_address, 0x3000);
    assert_int_equal(h->at.pc, 0x80);
    assert_int_equal(h->writer.pc, 0x300);
    /* After the flush, nothing more. */
    flush(f, 0, 0x304, 0x3000);
    sim_checker_read(f->ck, 7, 0x3000, 4, 0);
    found(f, &n);
    assert_int_equal(n, 1);
    (void)v;
}

static void the_other_cluster_on_the_shared_bank(void **state)
{
    fixture *f = *state;
    store(f, 0, 0x400, 0x4000, 7); /* cluster 2 writes, does not flush */
    assert_int_equal(load(f, 1, 0x500, 0x4000), 0); /* cluster 3's fill reads old DRAM */
    unsigned n;
    const sim_handover *h = found(f, &n);
    assert_int_equal(n, 1);
    assert_int_equal(h->kind, SIM_HANDOVER_UNFLUSHED_READ);
    assert_int_equal(h->at.cluster, 3);
    assert_int_equal(h->writer.cluster, 2);
    /* Cluster 2 flushes; cluster 3 reads its old copy without the invalidate. */
    flush(f, 0, 0x404, 0x4000);
    assert_int_equal(load(f, 1, 0x504, 0x4000), 0);
    h = found(f, &n);
    assert_int_equal(n, 2);
    assert_int_equal(h[1].kind, SIM_HANDOVER_STALE_READ);
    assert_int_equal(h[1].writer.cluster, 2);
    assert_int_equal(h[1].writer.pc, 0x400);
}

static void own_data_raises_nothing(void **state)
{
    fixture *f = *state;
    for (uint32_t i = 0; i < 4096; i++)
        store(f, 0, 0x600, 0x10000 + 4u * i, i); /* evictions of its own lines */
    for (uint32_t i = 0; i < 4096; i++)
        assert_int_equal(load(f, 0, 0x604, 0x10000 + 4u * i), i);
    unsigned n;
    found(f, &n);
    assert_int_equal(n, 0);
}

/* A handler reads 1 KiB a cluster left dirty, 16 lines in a loop (its
 * one pc): one finding, its range and its lines; the same walked down is
 * one too; and two runs of one hazard that come to touch are one. */
static void contiguous_lines_of_one_hazard_are_one_finding(void **state)
{
    fixture *f = *state;
    for (uint32_t i = 0; i < 256; i++)
        store(f, 0, 0x700, 0x8000 + 4u * i, i + 1);
    sim_checker_at(f->ck, &(sim_site){.kind = SIM_SITE_HANDLER, .core = 3, .pc = 0x90});
    for (uint32_t i = 0; i < 256; i++)
        sim_checker_read(f->ck, 7, 0x8000 + 4u * i, 4, 0);
    sim_checker_at(f->ck, NULL);
    unsigned n;
    const sim_handover *h = found(f, &n);
    assert_int_equal(n, 1);
    assert_int_equal(h->kind, SIM_HANDOVER_UNFLUSHED_READ);
    assert_int_equal(h->bank_address, 0x8000);
    assert_int_equal(h->end_address, 0x8400);
    assert_int_equal(h->lines, 16);
    /* walked down, from another pc: one more */
    sim_checker_at(f->ck, &(sim_site){.kind = SIM_SITE_HANDLER, .core = 3, .pc = 0x94});
    for (uint32_t i = 256; i-- > 0;)
        sim_checker_read(f->ck, 7, 0x8000 + 4u * i, 4, 0);
    sim_checker_at(f->ck, NULL);
    h = found(f, &n);
    assert_int_equal(n, 2);
    assert_int_equal(h[1].bank_address, 0x8000);
    assert_int_equal(h[1].end_address, 0x8400);
    assert_int_equal(h[1].lines, 16);
    /* two halves read by two cores of one pc, interleaved: one finding */
    for (uint32_t i = 0; i < 256; i++)
        store(f, 0, 0x704, 0xa000 + 4u * i, i + 1);
    for (uint32_t i = 0; i < 128; i++) {
        sim_checker_at(f->ck, &(sim_site){.kind = SIM_SITE_HANDLER, .core = 4, .pc = 0x98});
        sim_checker_read(f->ck, 7, 0xa000 + 4u * i, 4, 0);
        sim_checker_at(f->ck, &(sim_site){.kind = SIM_SITE_HANDLER, .core = 5, .pc = 0x98});
        sim_checker_read(f->ck, 7, 0xa200 + 4u * i, 4, 0);
    }
    sim_checker_at(f->ck, NULL);
    h = found(f, &n);
    assert_int_equal(n, 3);
    assert_int_equal(h[2].bank_address, 0xa000);
    assert_int_equal(h[2].end_address, 0xa400);
    assert_int_equal(h[2].lines, 16);
}

/* Lines a handler wrote, loaded by a cluster that never swept them: right
 * bytes (the cache held none), a latent read, once per line, as one
 * finding; swept first, nothing; the cluster's own writes, nothing. */
static void a_load_of_what_another_wrote_unswept_is_latent(void **state)
{
    fixture *f = *state;
    for (uint32_t i = 0; i < 64; i++)
        handler_writes(f, 0xc000 + 4u * i, 100 + i); /* 4 lines */
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(load(f, 0, 0x800, 0xc000 + 4u * i), 100 + i);
    for (uint32_t i = 0; i < 64; i++)
        load(f, 0, 0x804, 0xc000 + 4u * i); /* again, another pc: once per line */
    unsigned n;
    const sim_handover *h = found(f, &n);
    assert_int_equal(n, 1);
    assert_int_equal(h->kind, SIM_HANDOVER_LATENT_READ);
    assert_int_equal(h->bank_address, 0xc000);
    assert_int_equal(h->end_address, 0xc100);
    assert_int_equal(h->lines, 4);
    assert_int_equal(h->at.cluster, 2);
    assert_int_equal(h->at.pc, 0x800);
    assert_int_equal(h->writer.kind, SIM_SITE_HANDLER);
    /* the other cluster has not swept them either */
    load(f, 1, 0x900, 0xc000);
    h = found(f, &n);
    assert_int_equal(n, 2);
    assert_int_equal(h[1].at.cluster, 3);
    /* written again, swept (kmx_invalidate), read: nothing */
    handler_writes(f, 0xc040, 7);
    flush(f, 0, 0x808, 0xc040);
    assert_int_equal(load(f, 0, 0x80c, 0xc040), 7);
    /* a cluster's own uncached write to a line it holds: its cache is
     * stale all the same (a stale read when the bytes differ) */
    found(f, &n);
    assert_int_equal(n, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_stale_read_names_all_three, setup, teardown),
        cmocka_unit_test_setup_teardown(a_dirty_line_written_back_over_a_push_is_a_lost_write,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_handler_reading_a_dirty_line_is_an_unflushed_read,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(the_other_cluster_on_the_shared_bank, setup, teardown),
        cmocka_unit_test_setup_teardown(own_data_raises_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(contiguous_lines_of_one_hazard_are_one_finding, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_load_of_what_another_wrote_unswept_is_latent, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
