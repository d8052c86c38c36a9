/* hart: the hart's hot loop, sim_hart_run (its life — init, free, wake,
 * halt, the decoded cache's flushes — is hart_life.c's).  The loop's body
 * is hart_run.h, compiled here as it is and in hart_profile.c with a note
 * at each instruction (a profiled hart's copy).
 *
 * The loop keeps pc, cycle and instret in locals and runs decoded blocks
 * (hart_block.c): each entry holds its handler's address, and each
 * handler ends in its own computed goto to the next entry's (README, "The
 * hot loop"); a block's instruction count and static cost are added once,
 * on entering it.  The last two results ride in locals too (f0, f1), and
 * an entry reads a source from them when its block says one holds it.
 * Everything rare leaves the loop through a
 * function: decoding, CSRs, atomics, FP, device accesses, traps; before
 * such a call the locals are written back to the hart (SYNC) because the
 * callee, or a device callback behind it, reads or advances them.
 *
 * Where blocks are translated to host code (hart_jit.c), entering a
 * block at an entry that has a translation runs that instead (BLOCK:
 * `translated`), and the loop takes the run back where it stops, at an
 * entry, as if the handlers had run up to there.
 *
 * Loads and stores hit a one-entry cache of the last RAM range they
 * reached (base, host pointer, latency): one subtraction and one compare
 * for the common case.  Everything else goes to the slow paths, which
 * also check alignment and refill that cache. */
#include <string.h>

#include "hart_internal.h"
#include "sim_fpu.h"

#define SIM_RUN_SIGNATURE sim_hart_state sim_hart_run(sim_hart *h, uint64_t until_cycle)
#define RUN_TRANSLATED 1
#define RUN_LOCALS
#define RUN_ENTER(d) ((void)0)
#define RUN_AT(d) ((void)0)
#define RUN_DISPATCH(pc) ((void)0)
#define RUN_LAT(c, m) ((void)0)
#define RUN_TRAP_AT(pc) ((void)0)
#define RUN_END() ((void)0)
#include "hart_run.h"
