/* sim_trace: an X280 core's retired instruction as the simulator records
 * it for an instruction trace — the same record for the card's traced
 * cores (sim_card_params' trace) and `kmrun exec`'s hart — and that record
 * as a line of Spike's commit log.  A record says everything a commit log
 * says (pc, bits, the registers and CSRs written, the memory read and
 * written) and when the instruction started, in modeled cycles; nothing
 * else.  Recording never changes what the core does or when. */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

/* One retired instruction as a commit log records it (Spike's
 * --log-commits, which co-simulation scripts read): the registers and
 * CSRs it wrote, in Spike's order, and the memory it read and wrote. */
#define SIM_COMMIT_MAX_WRITES 4
typedef struct sim_commit_write {
    char file; /* 'x', 'f', or 'c' (a CSR) */
    unsigned num;
    uint64_t value;
} sim_commit_write;
typedef struct sim_commit {
    uint64_t pc;
    uint32_t bits; /* 16 bits for a compressed instruction */
    unsigned len;  /* 2 or 4 */
    unsigned nwrites;
    sim_commit_write writes[SIM_COMMIT_MAX_WRITES];
    bool load;
    uint64_t load_addr;
    bool store;
    uint64_t store_addr, store_value;
    unsigned store_size;
    /* When it started: the hart's own cycle count (mcycle) as a hart
     * records it; the card's traced cores give the cluster's clock
     * instead (cycles of the X280 clock since the cluster was made), the
     * one clock all four cores of a cluster share. */
    uint64_t cycle;
} sim_commit;

/* A traced core's retired instruction, in order: cluster 1..3, core 0..3.
 * Returns false to stop that core's trace (it runs on untraced from the
 * next instruction, with the same results and times). */
typedef bool (*sim_trace_fn)(void *ctx, unsigned cluster, unsigned core, const sim_commit *c);

/* c as one line of Spike's commit log for core `core` (its mhartid),
 * without the newline, into buf (n bytes, at least SIM_COMMIT_TEXT_MAX);
 * returns its length. */
#define SIM_COMMIT_TEXT_MAX 256
unsigned sim_commit_text(const sim_commit *c, unsigned core, char *buf, unsigned n);

#endif
