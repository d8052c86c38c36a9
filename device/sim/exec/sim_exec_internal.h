/* sim_exec_internal: the one-hart machine of `kmrun exec` as its two
 * files share it — loading and running (sim_exec.c), a debugger's hold
 * on it (sim_exec_debug.c). */
#ifndef SIM_EXEC_INTERNAL_H
#define SIM_EXEC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_exec.h"
#include "sim_hart.h"
#include "sim_mem.h"

#define PAGE 4096u
#define LINE 64u
#define CYCLES_PER_MTIME_TICK 20u /* 1000 MHz core, 50 MHz mtime */
#define SLICE (1ull << 20)        /* cycles a sim_hart_run call may go on */
/* The most memory the hart fetches from: the span of everything loaded,
 * when it is at most this (the decoded code keeps a slot per halfword of
 * it); else only the code segments (sim_exec.c, is_code). */
#define FETCH_SPAN_MAX (256ull << 20)

struct sim_exec {
    sim_mem mem;
    sim_hart hart;
    bool hart_ready;
    /* The RAM buffers (a range split around tohost shares one). */
    uint8_t *buf[SIM_MEM_MAX_RAM + 2];
    unsigned nbuf;
    uint64_t entry, code_base, code_size, stack_base, stack_top;
    /* tohost: its address, and its 64-byte line (the device). */
    bool has_tohost;
    uint64_t tohost, line;
    uint8_t *line_host; /* the line's bytes */
    bool exited;
    uint64_t exit_code;
    /* The catch point (0: none could be placed) and what it caught: a
     * trap taken while mtvec is the catch point (on_trap, which sets
     * caught_at_trap until sim_exec_ended reads the hart's counts), or a
     * jump to it (its store reaches the device). */
    uint64_t catcher;
    bool caught, caught_at_trap;
    uint64_t caught_cause, caught_epc, caught_tval, caught_instret, caught_cycle;
    /* sim_exec_profile's profile, or NULL */
    struct sim_profile *profile;
    /* sim_exec_trace's receiver, or NULL */
    void (*trace)(void *ctx, const char *text);
    void *trace_ctx;
    /* sim_exec_debug: the breakpoints and watches set, and why the run
     * last stopped (the probe's and the watch's callbacks say) */
    uint64_t *breaks;
    unsigned nbreaks;
    sim_watch *watches;
    unsigned nwatches;
    sim_exec_stop stop;
    unsigned stop_watch;
    bool stop_store;
};

/* Whether the run is over (the program ended, trapped with no handler,
 * waits in wfi or reached the bound); if so *r says how. */
bool sim_exec_ended(sim_exec *x, uint64_t max_instructions, sim_exec_result *r);

/* The end of the next stretch sim_hart_run may go on: at most SLICE
 * cycles, and no more than the steps the bound leaves (every instruction
 * and trap takes at least a cycle). */
uint64_t sim_exec_slice_end(const sim_exec *x, uint64_t max_instructions);

#endif
