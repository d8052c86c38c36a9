/* bench/iss: four harts of one simulated cluster (device/sim/cluster/sim_cluster.h)
 * running four_harts.S from local memory, all at once, stepped by the
 * cluster's clock as `kmrun run` steps them.  Built by bench/iss against
 * the build's libsim.a and libks.a.
 *
 *   four_harts IMAGE.elf   prints "NANOSECONDS INSTRUCTIONS CHECKSUM"
 *   four_harts IMAGE.elf MICROSECONDS
 *                          (a wait loop, spin.S: the harts never finish)
 *                          runs them for that much modeled time and
 *                          prints "NANOSECONDS INSTRUCTIONS 0"
 *
 * The wall time covers the stepping only (not creating the cluster or
 * loading the image).  Exit status 1 when a hart did not finish (a trap
 * loop, say) within 10 modeled seconds, or the harts' checksums differ;
 * with MICROSECONDS, when a hart is not still running at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ks_elf.h"
#include "sim_clock.h"
#include "sim_cluster.h"

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: four_harts IMAGE.elf [MICROSECONDS]\n");
        return 2;
    }
    const bool spin = argc == 3;
    ks_error err = {0};
    ks_elf e;
    if (ks_elf_open(&e, argv[1], argv[1], &err) != KS_OK) {
        fprintf(stderr, "four_harts: %s\n", err.message);
        return 1;
    }
    sim_dram dram;
    sim_dram_init(&dram);
    sim_cluster *c;
    if (sim_cluster_create(&c, &dram, 1, SIM_MHZ_DEFAULT, &err) != KS_OK) {
        fprintf(stderr, "four_harts: %s\n", err.message);
        return 1;
    }
    for (size_t i = 0; i < e.phnum; i++) {
        const Elf64_Phdr *p = &e.ph[i];
        if (p->p_type == PT_LOAD && p->p_filesz &&
            sim_cluster_write_lim(c, p->p_vaddr, e.data + p->p_offset, p->p_filesz,
                                  &err) != KS_OK) {
            fprintf(stderr, "four_harts: %s\n", err.message);
            return 1;
        }
    }
    if (sim_cluster_reset_harts(c, e.eh.e_entry, &err) != KS_OK) {
        fprintf(stderr, "four_harts: %s\n", err.message);
        return 1;
    }
    const uint64_t limit_ps = spin ? strtoull(argv[2], NULL, 10) * BH_PS_PER_US
                                   : 10ull * 1000 * 1000 * BH_PS_PER_US; /* 10 s */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (sim_cluster_busy(c) && sim_cluster_now_ps(c) < limit_ps)
        sim_cluster_step(c, sim_cluster_now_ps(c) + 1000 * BH_PS_PER_US);
    clock_gettime(CLOCK_MONOTONIC, &t1);

    uint64_t n = 0, sum = spin ? 0 : sim_cluster_hart(c, 0)->x[10];
    int rc = 0;
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        const sim_hart *h = sim_cluster_hart(c, i);
        n += h->instret;
        if (spin ? h->state != SIM_HART_RUNNING
                 : h->state != SIM_HART_WFI || h->x[10] != sum) {
            fprintf(stderr, "four_harts: hart %u %s (pc 0x%llx, mcause %llu)\n", i,
                    spin ? "left the wait loop" : "did not finish the loop",
                    (unsigned long long)h->pc, (unsigned long long)h->mcause);
            rc = 1;
        }
    }
    printf("%lld %llu %llu\n",
           (long long)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)),
           (unsigned long long)n, (unsigned long long)sum);
    sim_cluster_destroy(c);
    sim_dram_free(&dram);
    ks_elf_close(&e);
    return rc;
}
