/* kmx_host_core.c: the calls any core may make (the argument block,
 * regions, clusters, the timer, the stop), the result block, and the
 * library's error and stop bookkeeping: the card's kmx_core.c on the
 * host.
 *
 * kmx_time is CLOCK_MONOTONIC since the thread's start (after ctx->ready),
 * in 50 MHz ticks (BH_TICKS_PER_SECOND): the thread's deadline is wall time
 * here, while the card's kernel side moves on modeled time through
 * ctx->step.  The stop word reads as written from the run's timeout on
 * that clock (ctx->timeout_ns): the thread sees its timeout when its clock
 * gets there, not when kmrun's thread, which the host's scheduler may
 * hold back for milliseconds, gets to write the word; and the timeout's
 * word (KMX_HOST_STOP_TIMEOUT), which kmrun writes on its own clock,
 * started before the thread's, is not seen before then. */
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "kmx_host_internal.h"

_Static_assert(1000000000u % BH_TICKS_PER_SECOND == 0, "a tick is a whole number of ns");
#define NS_PER_TICK (1000000000u / BH_TICKS_PER_SECOND)

void kmx_host_arm(uint32_t core, sigjmp_buf *jmp) {
    kmx_host_armed = jmp;
    kmx_host.ctx->trap_arm(kmx_host.ctx->ops, core, jmp);
}

uint64_t kmx_host_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void kmx_host_poll_time(struct timespec *at) {
    clock_gettime(CLOCK_MONOTONIC, at);
    at->tv_nsec += KMX_HOST_POLL_NS;
    if (at->tv_nsec >= 1000000000L) {
        at->tv_sec += 1;
        at->tv_nsec -= 1000000000L;
    }
}

const uint32_t *kmx_args_get(uint32_t *nwords) {
    const kmx_args *a = kmx_host.ctx->args;
    uint32_t n = a->nwords;
    if (nwords != NULL) {
        *nwords = kmx_args_words(n);
    }
    return a->words;
}

void *kmx_region(uint32_t id, uint64_t *bytes) {
    const kmx_host_ctx *ctx = kmx_host.ctx;
    if (!kmx_region_size(ctx->args, id, bytes)) {
        return NULL;
    }
    return ctx->region[id];
}

int kmx_region_address(uint32_t id, uint32_t *bank, uint64_t *bank_address) {
    return kmx_region_where(kmx_host.ctx->args, id, bank, bank_address);
}

int kmx_cluster(void) {
    return (int)kmx_host.ctx->args->cluster;
}

uint32_t kmx_clusters(void) {
    return kmx_host.ctx->args->clusters;
}

int kmx_lead(void) {
    return (int)kmx_host.ctx->args->lead;
}

uint64_t kmx_time(void) {
    uint64_t now = kmx_host_now_ns();
    uint64_t start = kmx_host.start_ns;
    return now > start ? (now - start) / NS_PER_TICK : 0;
}

int kmx_host_stop_status(void) {
    uint32_t word = *kmx_host.ctx->stop;
    uint64_t timeout = kmx_host.timeout_ns, deadline = kmx_host.deadline;
    if ((word != 0 && (word != KMX_HOST_STOP_TIMEOUT || timeout == 0)) ||
        __atomic_load_n(&kmx_host.stop, __ATOMIC_ACQUIRE) != 0) {
        return KMX_STOPPED;
    }
    if (timeout == 0 && deadline == 0) {
        return KMX_OK;
    }
    uint64_t now = kmx_host_now_ns(), start = kmx_host.start_ns;
    uint64_t elapsed = now > start ? now - start : 0;
    if (timeout != 0 && elapsed >= timeout) {
        return KMX_STOPPED; /* the timeout's stop word, written or not yet */
    }
    if (deadline != 0 && elapsed / NS_PER_TICK >= deadline) {
        return KMX_LATE;
    }
    return KMX_OK;
}

int kmx_host_timed_status(uint64_t ticks) {
    uint64_t timeout = kmx_host.timeout_ns, deadline = kmx_host.deadline;
    if (timeout != 0 && ticks * NS_PER_TICK >= timeout) {
        return KMX_STOPPED;
    }
    if (deadline != 0 && ticks >= deadline) {
        return KMX_LATE;
    }
    return KMX_OK;
}

int kmx_stop_requested(void) {
    return kmx_host_stop_status() != KMX_OK;
}

/* The card's fences: every access before is seen before every one after. */
static void fence(void) {
    atomic_thread_fence(memory_order_seq_cst);
}

/* The card's kmx__error, with the call and its caller of a `parallel`
 * error (else 0, 0). */
static void error_at(uint32_t error, uint32_t detail, uint32_t call, uint64_t pc) {
    if (__atomic_exchange_n(&kmx_host.error_claim, 1u, __ATOMIC_SEQ_CST) == 0) {
        volatile kmx_result_block *r = kmx_host.ctx->result;
        KMX_ERROR_PUT(r, kmx_host_core >= 0 ? (uint32_t)kmx_host_core : 0u, error, detail, call,
                      pc, fence);
    }
    __atomic_store_n(&kmx_host.stop, (uint32_t)KMX_STOPPED, __ATOMIC_SEQ_CST);
}

void kmx_host_error(uint32_t error, uint32_t detail) {
    error_at(error, detail, KMX_API_NONE, 0);
}

uint32_t kmx_host_error_stop(void) {
    return __atomic_load_n(&kmx_host.stop, __ATOMIC_SEQ_CST);
}

void kmx_host_ended(int status) {
    if (kmx_status_ends_run(status)) {
        uint32_t none = 0;
        __atomic_compare_exchange_n(&kmx_host.ended, &none, (uint32_t)status, 0,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
}

int kmx_host_core0_only(uint32_t call, uint64_t pc) {
    if (kmx_host_core != 0 || kmx_host.in_parallel) {
        error_at(KMX_ERROR_PARALLEL, kmx_host_core >= 0 ? (uint32_t)kmx_host_core : 0u, call, pc);
        return KMX_STOPPED;
    }
    return KMX_OK;
}

void kmx_progress(uint32_t where) {
    uint64_t now = kmx_time();
    kmx_progress_put(kmx_host.ctx->result, where, now, fence);
}

int kmx_result(uint32_t first, const uint32_t *words, uint32_t count) {
    return kmx_result_put(kmx_host.ctx->result, first, words, count);
}
