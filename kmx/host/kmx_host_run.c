/* kmx_host_run.c: the host fallback's start and end of a run (the card's
 * start.c).
 *
 * kmx_host_run checks the ctx (-1, nothing ran, when it is not usable),
 * starts cores 1-3 on threads of their own, parked until kmx_spawn gives
 * them work (the error that stopped one, nothing ran, when one cannot
 * start), waits for the run's start (ctx->ready; what it returns when the
 * run is called off), starts the thread's clock (kmx_time's 0, start-up),
 * then does what the card's core 0 does: records the start,
 * checks that the argument block is this run's (error `args`), marks the
 * run running, records the prefetcher decision, checks every region (errors
 * `region`, `bank`) and the ring's kind (error `ring`), calls kmx_main(0)
 * on the calling thread, records its code, posts the END to the other
 * clusters of the image if it leads (twelve cores), lets spawned work
 * finish (at most KMX_SETTLE_TICKS after a stop or the deadline),
 * flushes every region through ctx->flush and writes the final state
 * last, after a release fence.  It returns once the workers' threads have
 * left, so no callback is called after it returns — but for a core whose
 * function never returned (ctx->left_running, kmx_host.h): its thread is
 * left running, as the card's core is, and kmrun keeps everything it may
 * touch.
 *
 * Not mirrored: the bank check line (the fallback reads no DRAM of its
 * own: its regions are kmrun's copies) and the ring descriptor's addresses
 * and depths (the ring is kmrun's host ring, reached through callbacks). */
#include <setjmp.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "kmx_host_internal.h"

kmx_host_state kmx_host;
_Thread_local int kmx_host_core = -1;
_Thread_local sigjmp_buf *kmx_host_armed;

/* One run at a time per copy of the runtime. */
static atomic_int running;

static volatile kmx_result_block *result_block(void) {
    return kmx_host.ctx->result;
}

/* The card's kmx__args_valid, for the cluster kmrun loaded this copy for. */
static int args_valid(const kmx_host_ctx *ctx) {
    return kmx_args_sealed(ctx->args, ctx->result) && ctx->args->cluster == ctx->cluster;
}

/* The card's check_regions, without the bank check line: every region in
 * range and in this cluster's bank. */
static int check_regions(const kmx_args *a) {
    if (kmx_cluster_bank(a->cluster) != (int)a->bank) {
        kmx_host_error(KMX_ERROR_BANK, KMX_DETAIL_CHECK_LINE);
        return 0;
    }
    for (uint32_t id = 0; id < a->nregions; id++) {
        const kmx_region_entry *e = &a->regions[id];
        uint32_t error = KMX_REGION_OUTSIDE_BANK(e->bank_address, e->bytes) ? KMX_ERROR_REGION
                         : e->bank != a->bank                             ? KMX_ERROR_BANK
                                                                          : KMX_ERROR_NONE;
        if (error != KMX_ERROR_NONE) {
            kmx_host_error(error, id);
            return 0;
        }
    }
    return 1;
}

/* The ring's kind: none, or one the card knows (its addresses are the
 * card's business; here the ring is ctx->submit/poll/step). */
static int check_ring(const kmx_args *a) {
    uint32_t kind = a->ring.kind;
    if (kind != KMX_RING_NONE && !kmx_ring_kind_known(kind)) {
        kmx_host_error(KMX_ERROR_RING, kind);
        return 0;
    }
    kmx_host.ring = kind != KMX_RING_NONE;
    return 1;
}

/* The final state (kmx_shared.h, the card runtime's too). */
static uint32_t final_state(int status_at_return) {
    volatile kmx_result_block *r = result_block();
    return kmx_final_state(__atomic_load_n(&r->traps, __ATOMIC_ACQUIRE), r->error,
                           __atomic_load_n(&kmx_host.ended, __ATOMIC_ACQUIRE), status_at_return);
}

/* The state is the last thing written: a reader that sees a final one
 * sees everything else. */
static void end_run(uint32_t state) {
    volatile kmx_result_block *r = result_block();
    r->end_ticks = kmx_time();
    atomic_thread_fence(memory_order_seq_cst);
    __atomic_store_n(&r->state, state, __ATOMIC_RELEASE);
    atomic_thread_fence(memory_order_seq_cst);
}

static int ctx_usable(const kmx_host_ctx *ctx) {
    if (ctx == NULL || ctx->abi != KMX_HOST_ABI || ctx->args == NULL || ctx->result == NULL ||
        ctx->stop == NULL || ctx->ready == NULL || ctx->flush == NULL || ctx->invalidate == NULL ||
        ctx->submit == NULL || ctx->poll == NULL || ctx->step == NULL ||
        ctx->unsupported == NULL || ctx->trap_arm == NULL || ctx->trap == NULL ||
        ctx->serve_begin == NULL ||
        ctx->serve_next == NULL || ctx->serve_done == NULL || ctx->serving == NULL ||
        ctx->post == NULL || ctx->done == NULL || ctx->push == NULL || ctx->quit == NULL ||
        ctx->print == NULL) {
        return 0;
    }
    uint32_t n = ctx->args->nregions;
    for (uint32_t id = 0; id < n && id < KMX_MAX_REGIONS; id++) {
        if (ctx->region[id] == NULL) {
            return 0;
        }
    }
    return 1;
}

/* Runs core 0's part between the start and kmx_main's return; the
 * state to end with. */
static uint32_t core0(kmx_host_ctx *ctx) {
    volatile kmx_result_block *r = result_block();
    const kmx_args *a = ctx->args;
    /* Start-up is the thread's clock's 0 (kmx_host.h, timeout_ns): its
     * deadline and every time it writes on the cluster bus count from the
     * same instant, however long the host then takes to get here. */
    uint64_t start = 0;

    r->start_ticks = start;
    if (!args_valid(ctx)) {
        kmx_host_error(KMX_ERROR_ARGS, 0);
        return KMX_STATE_FAILED;
    }
    kmx_host.deadline = KMX_DEADLINE_AT(start, a->deadline);
    atomic_thread_fence(memory_order_seq_cst);
    __atomic_store_n(&r->state, KMX_STATE_RUNNING, __ATOMIC_RELEASE);

    r->prefetch = kmx_prefetch_decision(a->prefetch) | KMX_PREFETCH_NOT_WRITTEN; /* no prefetcher */
    if (!check_regions(a)) {
        return KMX_STATE_FAILED;
    }
    kmx_host.regions_ok = 1;
    if (!check_ring(a)) {
        return KMX_STATE_FAILED;
    }

    int code = kmx_main(0);
    int status = kmx_host_stop_status();
    r->code = code;
    kmx_host.in_parallel = 0;
    kmx_host_twelve_end(); /* the lead: the others' kmx_serve returns */

    kmx_host_workers_settle();
    kmx_host_flush_all_regions();
    return final_state(status);
}

/* Core 0 with its trap armed: what the card's trap handler does when
 * core 0's code faults — error `trap`, the others settle, every region is
 * flushed (if the checks had passed), the state is `trapped`.  An exit in
 * core 0's code ends the same way, but `failed` with the error `host` it
 * recorded. */
static uint32_t core0_armed(kmx_host_ctx *ctx) {
    static sigjmp_buf jmp;
    int left = sigsetjmp(jmp, 1);
    if (left == 0) {
        kmx_host_arm(0, &jmp);
        uint32_t state = core0(ctx);
        kmx_host_arm(0, NULL);
        return state;
    }
    kmx_host_armed = NULL;
    if (left != KMX_HOST_QUIT) {
        kmx_host_error(KMX_ERROR_TRAP, (uint32_t)ctx->result->trap_mcause);
    }
    kmx_host.in_parallel = 0;
    kmx_host_workers_settle();
    if (kmx_host.regions_ok) {
        kmx_host_flush_all_regions();
    }
    return left == KMX_HOST_QUIT ? final_state(KMX_STOPPED) : KMX_STATE_TRAPPED;
}

int kmx_host_run(kmx_host_ctx *ctx) {
    if (!ctx_usable(ctx)) {
        return -1;
    }
    int idle = 0;
    if (!atomic_compare_exchange_strong(&running, &idle, 1)) {
        return -1; /* a run of this copy is still going */
    }

    memset(&kmx_host, 0, sizeof kmx_host);
    kmx_host.ctx = ctx;
    kmx_host_ring_reset();
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&kmx_host.lock, NULL);
    pthread_cond_init(&kmx_host.posted_cond, &attr);
    pthread_cond_init(&kmx_host.done_cond, &attr);
    pthread_condattr_destroy(&attr);
    kmx_host_core = 0;

    /* Nothing ran when the workers cannot start: the result block is as
     * kmrun wrote it, and kmrun says why (kmx_host.h). */
    int rc = kmx_host_workers_start();
    uint32_t left = 0;
    if (rc == 0 && (rc = ctx->ready(ctx->ops)) != 0) {
        kmx_host_workers_end(); /* called off: they leave, idle */
    } else if (rc == 0) {
        kmx_host.start_ns = kmx_host_now_ns(); /* kmx_time's 0 */
        kmx_host.timeout_ns = ctx->timeout_ns;
        uint32_t state = core0_armed(ctx);
        end_run(state);
        left = kmx_host_workers_end();
    }
    ctx->left_running = left;
    kmx_host_core = -1;
    if (left != 0) {
        /* A core still runs thread code, and may yet call the runtime:
         * its state stays as it is, and this copy runs no other run
         * (`running` stays taken). */
        return 0;
    }

    pthread_cond_destroy(&kmx_host.done_cond);
    pthread_cond_destroy(&kmx_host.posted_cond);
    pthread_mutex_destroy(&kmx_host.lock);
    kmx_host.ctx = NULL;
    atomic_store(&running, 0);
    return rc;
}
