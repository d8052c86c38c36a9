/* kmx_spawn.c: spawn and join on one cluster (spec "Twelve cores").
 *
 * One mailbox line per core in LIM (kmx_spawn_mailbox).  Core 0 writes the
 * call, a release fence, then posted + 1; the core sees posted != done,
 * takes an acquire fence, runs the call, a release fence, done = posted;
 * core 0's join sees done == posted and takes an acquire fence.  So what
 * core 0 wrote before the spawn is seen by the function, and what the
 * function wrote is seen by core 0 after the join.  kmx_parallel is spawn
 * on 1 to 3, the function on core 0, and join. */
#include "kmx_internal.h"

int kmx__busy(int core) {
    volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
    return mb->posted != mb->done;
}

void kmx__post(int core, uint32_t kind, uint64_t function, uint64_t arg) {
    volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
    uint32_t next = mb->posted + 1u;
    mb->function = function;
    mb->arg = arg;
    mb->kind = kind;
    kmx__release();
    mb->posted = next;
}

/* Waits until core `core` is idle: KMX_OK; KMX_STOPPED when it left its
 * loop or trapped; KMX_STOPPED / KMX_LATE at a stop or the deadline. */
static int wait_idle(int core) {
    volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
    for (;;) {
        if (!kmx__busy(core)) {
            kmx__acquire();
            return KMX_OK;
        }
        if (mb->halted || !mb->alive) {
            kmx__ended(KMX_STOPPED);
            return KMX_STOPPED;
        }
        int status = kmx__stop_status();
        if (status != KMX_OK) {
            kmx__ended(status);
            return status;
        }
    }
}

/* Whether core `core` can take a call now: KMX_OK, KMX_FULL, KMX_STOPPED. */
static int ready(int core) {
    volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
    if (kmx__busy(core)) {
        return KMX_FULL;
    }
    if (mb->halted || !mb->alive) {
        return KMX_STOPPED;
    }
    return KMX_OK;
}

int kmx_spawn(int core, kmx_function function, void *arg) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    if (core < 1 || core >= (int)KMX_CORES || function == 0) {
        return KMX_BAD;
    }
    status = kmx__stop_status();
    if (status != KMX_OK) {
        return status;
    }
    status = ready(core);
    if (status != KMX_OK) {
        return status;
    }
    kmx__post(core, KMX_CALL_SPAWN, (uint64_t)(uintptr_t)function, (uint64_t)(uintptr_t)arg);
    return KMX_OK;
}

int kmx_join(int core) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    if (core < 1 || core >= (int)KMX_CORES) {
        return KMX_BAD;
    }
    return wait_idle(core);
}

int kmx_parallel(kmx_function function, void *arg) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    if (function == 0) {
        return KMX_BAD;
    }
    status = kmx__stop_status();
    if (status != KMX_OK) {
        return status;
    }
    for (int core = 1; core < (int)KMX_CORES; core++) {
        status = ready(core);
        if (status != KMX_OK) {
            return status;
        }
    }
    for (int core = 1; core < (int)KMX_CORES; core++) {
        kmx__post(core, KMX_CALL_SPAWN, (uint64_t)(uintptr_t)function,
                  (uint64_t)(uintptr_t)arg);
    }
    volatile kmx_private *p = KMX_PRIVATE;
    p->in_parallel = 1;
    function(0, arg);
    p->in_parallel = 0;
    int result = KMX_OK;
    for (int core = 1; core < (int)KMX_CORES; core++) {
        status = wait_idle(core);
        if (result == KMX_OK) {
            result = status;
        }
    }
    return result;
}
