/* cluster_fixture: a cluster on its own bank, for the cluster's tests
 * (sim_cluster_test, sim_cluster_harts_test): made and unmade, and its
 * memory read and written as a hart or the host would.  cmocka must be
 * included first. */
#ifndef CLUSTER_FIXTURE_H
#define CLUSTER_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "sim_checker.h"
#include "sim_clock.h"
#include "sim_cluster.h"

#define KIB 1024ull

/* ---- Fixtures -------------------------------------------------------------- */

typedef struct fixture {
    sim_dram own;   /* the card's banks, unless shared */
    sim_dram *dram; /* the banks the cluster uses */
    sim_cluster_mem *cm;
    sim_hart fake[BH_CLUSTER_CORES];
} fixture;

/* A cluster's memory with four fake harts, on `card` (NULL: its own). */
static fixture *make_on(sim_dram *card, unsigned cluster, unsigned mhz)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    sim_dram_init(&f->own);
    f->dram = card != NULL ? card : &f->own;
    f->cm = malloc(sizeof *f->cm);
    assert_non_null(f->cm);
    ks_error err = {0};
    assert_int_equal(sim_cluster_mem_init(f->cm, f->dram, cluster, mhz, &err), KS_OK);
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        f->fake[i].hartid = i;
        f->fake[i].mem = &f->cm->mem;
        f->fake[i].state = SIM_HART_RUNNING;
        f->cm->mem.harts[i] = &f->fake[i];
    }
    f->cm->mem.nharts = BH_CLUSTER_CORES;
    return f;
}

static fixture *make(unsigned cluster, unsigned mhz)
{
    return make_on(NULL, cluster, mhz);
}

static inline void unmake(fixture *f)
{
    sim_cluster_mem_free(f->cm);
    free(f->cm);
    sim_dram_free(&f->own);
    free(f);
}

static inline int setup(void **state)
{
    *state = make(1, SIM_MHZ_DEFAULT);
    return 0;
}

static inline int teardown(void **state)
{
    unmake(*state);
    return 0;
}

static inline uint64_t ld(fixture *f, unsigned hart, uint64_t addr, unsigned size)
{
    uint64_t v = 0xDEADBEEF;
    assert_int_equal(sim_cluster_mem_load(&f->cm->mem, &f->fake[hart], addr, size, &v), 0);
    return v;
}

static inline void st(fixture *f, unsigned hart, uint64_t addr, unsigned size, uint64_t v)
{
    assert_int_equal(sim_cluster_mem_store(&f->cm->mem, &f->fake[hart], addr, size, v), 0);
}

static inline uint64_t dram64(fixture *f, unsigned bank, uint64_t addr)
{
    uint64_t v = 0;
    assert_int_equal(sim_dram_read(f->dram, bank, addr, &v, 8, NULL), KS_OK);
    return v;
}

static inline void host64(fixture *f, unsigned bank, uint64_t addr, uint64_t v)
{
    assert_int_equal(sim_dram_write(f->dram, bank, addr, &v, 8, NULL), KS_OK);
}


#endif
