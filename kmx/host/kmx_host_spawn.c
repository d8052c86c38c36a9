/* kmx_host_spawn.c: spawn and join on the host (the card's kmx_spawn.c and
 * the workers' loop of start.c).
 *
 * Cores 1-3 are threads started when the run starts; each waits on a
 * condition variable for what kmx_spawn posts (the card's spawn mailbox:
 * posted and done counts, busy while they differ) until the run ends: a
 * spawn's function(core, arg), or kmx_parallel_all's function(cluster,
 * core, arg) (kmx_host_local_all, the card's KMX_CALL_ALL).  The
 * mutex orders what core 0 wrote before a spawn before the function, and
 * what the function wrote before core 0's join.  Core 0's waits (join,
 * kmx_parallel, the end's settle) wake on each return and at least every
 * KMX_HOST_POLL_NS to look at the stop and the deadline.
 *
 * A core whose function never returns (a loop that never polls the stop)
 * is left running at the end, as the card's core is: core 0 gives it
 * KMX_SETTLE_TICKS after the stop or the deadline, as the card's does,
 * then ends the run; kmx_host_workers_end detaches its thread instead of
 * joining it (a join would wait for ever) and says so (kmx_host.h,
 * left_running).
 *
 * The rules are the card's: only core 0 outside kmx_parallel's function
 * (the error `parallel`, KMX_STOPPED otherwise); KMX_BAD for a core other
 * than 1-3 or a NULL function; the stop's status (nothing started) once the
 * run is stopping; KMX_FULL while the core still runs its last spawn, and
 * from kmx_parallel (nothing started) while any does; a join returns KMX_OK
 * once the core has returned, else the stop's or the deadline's status,
 * which the run's final state records — and KMX_STOPPED, whatever the
 * cores did, once a library error or a trap stopped the run (kmx_rules.h,
 * kmx_joined). */
#include <setjmp.h>
#include <stdint.h>

#include "kmx_host_internal.h"

/* Runs one call with this core's trap armed: 1 if it returned, 0 if it
 * trapped (kmrun recorded the trap; the error `trap` stops the run) or
 * exited (kmx_host_exit.c recorded the error `host`, which stops it). */
static int run_call(int core, kmx_function function, void *arg, kmx_cluster_function all,
                    uint64_t all_arg) {
    sigjmp_buf jmp;
    kmx_host_ctx *ctx = kmx_host.ctx;
    int left = sigsetjmp(jmp, 1);
    if (left == 0) {
        kmx_host_arm((uint32_t)core, &jmp);
        if (all != NULL) {
            all(kmx_cluster(), core, all_arg);
        } else {
            function(core, arg);
        }
        kmx_host_arm((uint32_t)core, NULL);
        return 1;
    }
    kmx_host_armed = NULL;
    if (left != KMX_HOST_QUIT) {
        kmx_host_error(KMX_ERROR_TRAP, (uint32_t)ctx->result->trap_mcause);
    }
    return 0;
}

static void *worker_main(void *arg) {
    int core = (int)(intptr_t)arg;
    kmx_host_worker *w = &kmx_host.workers[core];
    kmx_host_core = core;
    pthread_mutex_lock(&kmx_host.lock);
    for (;;) {
        if (w->posted != w->done) {
            uint32_t posted = w->posted;
            kmx_function function = w->function;
            void *function_arg = w->arg;
            kmx_cluster_function all = w->all;
            uint64_t all_arg = w->all_arg;
            pthread_mutex_unlock(&kmx_host.lock);
            int returned = run_call(core, function, function_arg, all, all_arg);
            pthread_mutex_lock(&kmx_host.lock);
            w->done = posted;
            pthread_cond_broadcast(&kmx_host.done_cond);
            if (!returned) {
                break; /* the card halts a core that trapped */
            }
            continue;
        }
        if (kmx_host.finished) {
            break;
        }
        pthread_cond_wait(&kmx_host.posted_cond, &kmx_host.lock);
    }
    pthread_mutex_unlock(&kmx_host.lock);
    return NULL;
}

uint32_t kmx_host_workers_end(void) {
    uint32_t left = 0;
    pthread_mutex_lock(&kmx_host.lock);
    kmx_host.finished = 1;
    pthread_cond_broadcast(&kmx_host.posted_cond);
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        kmx_host_worker *w = &kmx_host.workers[core];
        if (w->started && w->posted != w->done) {
            left |= 1u << core; /* still in thread code: it may never leave */
        }
    }
    pthread_mutex_unlock(&kmx_host.lock);
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        kmx_host_worker *w = &kmx_host.workers[core];
        if (!w->started) {
            continue;
        }
        if (left & (1u << core)) {
            pthread_detach(w->thread); /* its end, if it comes, frees it */
        } else {
            pthread_join(w->thread, NULL);
        }
        w->started = 0;
    }
    return left;
}

/* Each worker's stack is the size kmx_host.h promises, under its guard.
 * 0, or the error of the call that failed (EAGAIN from pthread_create: a
 * process or memory limit); then no worker runs. */
int kmx_host_workers_start(void) {
    pthread_attr_t attr;
    int rc = pthread_attr_init(&attr);
    if (rc != 0) {
        return rc;
    }
    rc = pthread_attr_setstacksize(&attr, KMX_HOST_STACK_BYTES);
    if (rc == 0) {
        rc = pthread_attr_setguardsize(&attr, KMX_HOST_GUARD_BYTES);
    }
    for (int core = 1; rc == 0 && core < (int)BH_CLUSTER_CORES; core++) {
        kmx_host_worker *w = &kmx_host.workers[core];
        rc = pthread_create(&w->thread, &attr, worker_main, (void *)(intptr_t)core);
        if (rc != 0) {
            kmx_host_workers_end();
        } else {
            w->started = 1;
        }
    }
    pthread_attr_destroy(&attr);
    return rc;
}

/* Under the lock: core `core` is running a call. */
static int busy(int core) {
    const kmx_host_worker *w = &kmx_host.workers[core];
    return w->posted != w->done;
}

/* Under the lock: hands idle core `core` a call. */
static void post(int core, kmx_function function, void *arg) {
    kmx_host_worker *w = &kmx_host.workers[core];
    w->function = function;
    w->arg = arg;
    w->all = NULL;
    w->all_arg = 0;
    w->posted++;
}

/* Under the lock: the same with a kmx_parallel_all call. */
static void post_all(int core, kmx_cluster_function all, uint64_t arg) {
    kmx_host_worker *w = &kmx_host.workers[core];
    w->function = NULL;
    w->arg = NULL;
    w->all = all;
    w->all_arg = arg;
    w->posted++;
}

/* Until core `core` has done `posted` (KMX_OK), or the run is stopping
 * (KMX_STOPPED, KMX_LATE, recorded as how a wait ended). */
static int wait_done(int core, uint32_t posted) {
    const kmx_host_worker *w = &kmx_host.workers[core];
    pthread_mutex_lock(&kmx_host.lock);
    for (;;) {
        if (w->done == posted) {
            pthread_mutex_unlock(&kmx_host.lock);
            return KMX_OK;
        }
        int status = kmx_host_stop_status();
        if (status != KMX_OK) {
            pthread_mutex_unlock(&kmx_host.lock);
            kmx_host_ended(status);
            return status;
        }
        struct timespec at;
        kmx_host_poll_time(&at);
        pthread_cond_timedwait(&kmx_host.done_cond, &kmx_host.lock, &at);
    }
}

static uint32_t posted_count(int core) {
    pthread_mutex_lock(&kmx_host.lock);
    uint32_t posted = kmx_host.workers[core].posted;
    pthread_mutex_unlock(&kmx_host.lock);
    return posted;
}

/* Core 0 after its own part: waits for each of cores 1-3 in turn (the
 * card's join_workers). */
static int join_workers(void) {
    int result = KMX_OK;
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        result = kmx_first_failure(result, wait_done(core, posted_count(core)));
    }
    return kmx_joined(result, kmx_host_error_stop());
}

int kmx_spawn(int core, kmx_function function, void *arg) {
    KMX_ENTRY_OR_RETURN(kmx_host_core0_only(KMX_API_SPAWN, KMX_CALLER()),
                        !kmx_worker_core(core) || function == NULL, kmx_host_stop_status());
    pthread_mutex_lock(&kmx_host.lock);
    if (busy(core)) {
        pthread_mutex_unlock(&kmx_host.lock);
        return KMX_FULL;
    }
    post(core, function, arg);
    pthread_cond_broadcast(&kmx_host.posted_cond);
    pthread_mutex_unlock(&kmx_host.lock);
    return KMX_OK;
}

int kmx_join(int core) {
    KMX_CALLER_OR_RETURN(kmx_host_core0_only(KMX_API_JOIN, KMX_CALLER()), !kmx_worker_core(core));
    int status = wait_done(core, posted_count(core));
    return kmx_joined(status, kmx_host_error_stop());
}

int kmx_parallel(kmx_function function, void *arg) {
    KMX_ENTRY_OR_RETURN(kmx_host_core0_only(KMX_API_PARALLEL, KMX_CALLER()), function == NULL,
                        kmx_host_stop_status());
    pthread_mutex_lock(&kmx_host.lock);
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        if (busy(core)) {
            pthread_mutex_unlock(&kmx_host.lock);
            return KMX_FULL; /* nothing started */
        }
    }
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        post(core, function, arg);
    }
    pthread_cond_broadcast(&kmx_host.posted_cond);
    pthread_mutex_unlock(&kmx_host.lock);

    kmx_host.in_parallel = 1;
    function(0, arg);
    kmx_host.in_parallel = 0;

    return join_workers();
}

int kmx_host_local_idle(void) {
    int idle = 1;
    pthread_mutex_lock(&kmx_host.lock);
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        idle = idle && !busy(core);
    }
    pthread_mutex_unlock(&kmx_host.lock);
    return idle;
}

/* Core 0, its cores 1-3 idle (kmx_host_local_idle: only core 0 posts). */
int kmx_host_local_all(kmx_cluster_function all, uint64_t arg) {
    pthread_mutex_lock(&kmx_host.lock);
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        post_all(core, all, arg);
    }
    pthread_cond_broadcast(&kmx_host.posted_cond);
    pthread_mutex_unlock(&kmx_host.lock);

    kmx_host.in_parallel = 1;
    all(kmx_cluster(), 0, arg);
    kmx_host.in_parallel = 0;

    return join_workers();
}

/* After kmx_main returned: lets cores 1-3 return from what they run before
 * the regions are flushed.  Ends when each is idle; after a stop or the
 * deadline, at most KMX_SETTLE_TICKS later (a core stuck in its
 * function past that keeps kmx_host_run from returning, not the state from
 * being written). */
void kmx_host_workers_settle(void) {
    uint64_t limit = 0;
    pthread_mutex_lock(&kmx_host.lock);
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        while (busy(core)) {
            if (kmx_host_stop_status() != KMX_OK) {
                uint64_t now = kmx_time();
                if (KMX_SETTLE_OVER(limit, now)) {
                    break;
                }
            }
            struct timespec at;
            kmx_host_poll_time(&at);
            pthread_cond_timedwait(&kmx_host.done_cond, &kmx_host.lock, &at);
        }
    }
    pthread_mutex_unlock(&kmx_host.lock);
}
