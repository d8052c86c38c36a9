/* sim_profile: an exact profile of one X280 core — every cycle, retired
 * instruction, memory stall cycle and trap it spent, attributed to the
 * instruction it spent them on and to the call stack that instruction ran
 * under (device/sim/hart/hart_profile.c; device/sim/README.md,
 * "Profiles").  Nothing is sampled: the sums over a core's profile are its
 * counters (sim_card.h's stats) exactly.  A profiled core runs an
 * instruction at a time with the same results and modeled times as
 * without.
 *
 * The call stack is a shadow stack kept from the RISC-V return-address
 * hints (the unprivileged spec's table for jal/jalr and x1/x5): a jal or
 * jalr that writes x1 or x5 pushes its call site; a jalr through x1 or x5
 * that writes neither pops (to the frame that return goes back to, when
 * one below the top does: a longjmp-like unwind; else one frame); a jalr
 * that writes one link register and reads the other pops then pushes (a
 * coroutine swap).  A tail call (a jump that links nothing) pushes
 * nothing: the callee takes its caller's place, as in the source.  A trap
 * pushes a frame for the trapping instruction (flagged
 * SIM_PROFILE_TRAP_FRAME); mret pops down through the last such frame.
 * Stacks deeper than SIM_PROFILE_MAX_DEPTH keep their first frames and
 * count the rest as unseen pushes, which the matching pops consume. */
#ifndef SIM_PROFILE_H
#define SIM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_PROFILE_MAX_DEPTH 256u
/* Set in a frame's address: the frame is a trap taken at that address
 * (the handler's frames are above it), not a call. */
#define SIM_PROFILE_TRAP_FRAME (1ull << 63)
/* The width of a profile's time buckets, in cluster cycles. */
#define SIM_PROFILE_BUCKET_CYCLES 65536u

typedef struct sim_profile_count {
    uint64_t cycles, instructions, memory_stall_cycles, traps;
} sim_profile_count;

typedef struct sim_profile sim_profile;

/* An empty profile; NULL when memory is lacking. */
sim_profile *sim_profile_new(void);
void sim_profile_free(sim_profile *p); /* NULL is fine */
/* Forgets everything (the core was reset: its counters start again).
 * sim_profile_failed then says whether its tables could be had: a profile
 * that failed here must not run. */
void sim_profile_clear(sim_profile *p);
/* Whether memory ran out while it grew: then it is short of some counts. */
bool sim_profile_failed(const sim_profile *p);

/* Calls fn for each call stack and instruction that spent anything:
 * frames[0] the outermost call site ... frames[n - 2] the innermost one,
 * frames[n - 1] the instruction (n >= 1), and what it spent there.  In no
 * particular order, and one stack and instruction may come more than once
 * (what it spent is then the sum). */
typedef void sim_profile_row_fn(void *ctx, const uint64_t *frames, unsigned n,
                                const sim_profile_count *count);
void sim_profile_each(const sim_profile *p, sim_profile_row_fn *fn, void *ctx);

/* What the core spent in each SIM_PROFILE_BUCKET_CYCLES of its cluster's
 * time (bucket k: cluster cycles [k * width, (k + 1) * width)), by the
 * cluster cycle each instruction started at; *n of them. */
const sim_profile_count *sim_profile_buckets(const sim_profile *p, size_t *n);

/* For the simulator's owners of harts (sim_cluster.c, sim_exec.c): runs
 * hart h as sim_hart_run(h, until_cycle) would, an instruction at a time,
 * adding what each spent to p; `offset` is what the hart's cycles add to
 * make its cluster's (for the buckets). */
struct sim_hart;
void sim_profile_run(sim_profile *p, struct sim_hart *h, uint64_t until_cycle, uint64_t offset);
/* sim_hart_idle_skip(h, idle, until_cycle) for a profiled hart, the same
 * skip with its steps in p (the prefix and first period stepped, the rest
 * counted as that period again).  Returns the periods skipped. */
struct sim_idle;
uint64_t sim_profile_idle_skip(sim_profile *p, struct sim_hart *h, const struct sim_idle *idle,
                               uint64_t until_cycle, uint64_t offset);

#endif
