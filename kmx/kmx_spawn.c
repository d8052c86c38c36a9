/* kmx_spawn.c: spawn and join on one cluster (spec "Twelve cores").
 *
 * One mailbox line per core in LIM (kmx_spawn_mailbox).  Core 0 writes the
 * call, a release fence, then posted + 1; the core sees posted != done,
 * takes an acquire fence, runs the call, a release fence, done = posted;
 * core 0's join sees done == posted and takes an acquire fence.  So what
 * core 0 wrote before the spawn is seen by the function, and what the
 * function wrote is seen by core 0 after the join.  kmx_parallel is spawn
 * on 1 to 3, the function on core 0, and join.  A join that ends after a
 * library error stopped the run returns KMX_STOPPED (kmx_rules.h,
 * kmx_joined): one read of the runtime's stop after the wait.
 *
 * LIM costs about 30 cycles a word, so the hot paths read as little of it
 * as they can: only core 0 writes `posted`, so it never reads it back
 * after a post (the value it wrote is in a register); a core's state
 * (alive, halted) need not be read before a post, because a core leaves
 * its loop or halts only once the run is stopping, which the stop check
 * sees (a trap records the stop before it sets `halted`); a wait looks at
 * `done` on every turn and at the rest on every KMX_WAIT_CHECK_EVERY-th;
 * a post stores `kind` and `posted` as one word (kmx__post).  kmx_parallel
 * keeps no frame up to the call of the function on core 0 (its checks and
 * posts call nothing but the error, a tail call), and the part that calls
 * it saves only its return address: a saved register is a store and a
 * load of the stack, in LIM. */
#include "kmx_internal.h"

int kmx_spawn(int core, kmx_function function, void *arg) {
    KMX_ENTRY_OR_RETURN(kmx__core0_only(KMX_API_SPAWN, KMX_LEAF_CALLER()),
                        !kmx_worker_core(core) || function == 0,
                        kmx__stop_status());
    uint32_t posted;
    if (!kmx__idle(core, &posted)) {
        return KMX_FULL;
    }
    kmx__post(core, posted, KMX_CALL_SPAWN, (uint64_t)(uintptr_t)function,
              (uint64_t)(uintptr_t)arg);
    return KMX_OK;
}

int kmx_join(int core) {
    KMX_CALLER_OR_RETURN(kmx__core0_only(KMX_API_JOIN, KMX_CALLER()), !kmx_worker_core(core));
    int status = kmx__wait_done(core, KMX_MAILBOX(core)->posted);
    return kmx_joined(status, KMX_PRIVATE->stop);
}

/* The join of kmx_parallel, on its own so that kmx_parallel keeps
 * nothing but its return address across the call of `function`: every
 * register saved around a call is a store and a load of the stack, in
 * LIM.  Each core's posted count is read back from its mailbox (one load)
 * rather than kept (a store and a load). */
static __attribute__((noinline)) int join_workers(void) {
    int result = KMX_OK;
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        result = kmx_first_failure(result, kmx__wait_idle(core));
    }
    return kmx_joined(result, KMX_PRIVATE->stop);
}

/* kmx_parallel's function on core 0, then the join (the only frame
 * kmx_parallel makes: the return address). */
static __attribute__((noinline)) int run_on_core0(kmx_function function, void *arg) {
    kmx__private_here()->in_parallel = 1;
    function(0, arg);
    kmx__private_here()->in_parallel = 0;
    return join_workers();
}

int kmx_parallel(kmx_function function, void *arg) {
    KMX_ENTRY_OR_RETURN(kmx__core0_only(KMX_API_PARALLEL, KMX_LEAF_CALLER()), function == 0,
                        kmx__stop_status());
    uint32_t posted1, posted2, posted3;
    if (!kmx__idle(1, &posted1) || !kmx__idle(2, &posted2) || !kmx__idle(3, &posted3)) {
        return KMX_FULL; /* nothing started */
    }
    _Static_assert(BH_CLUSTER_CORES == 4u, "cores 1 to 3 are spelled out");
    volatile kmx_private *p = KMX_PRIVATE;
    p->parallel_function = (uint64_t)(uintptr_t)function;
    p->parallel_arg = (uint64_t)(uintptr_t)arg;
    kmx__release();
    *KMX_CALL_WORD(1) = KMX_CALL_PARALLEL | (uint64_t)(posted1 + 1u) << 32;
    *KMX_CALL_WORD(2) = KMX_CALL_PARALLEL | (uint64_t)(posted2 + 1u) << 32;
    *KMX_CALL_WORD(3) = KMX_CALL_PARALLEL | (uint64_t)(posted3 + 1u) << 32;
    return run_on_core0(function, arg);
}
