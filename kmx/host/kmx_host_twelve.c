/* kmx_host_twelve.c: twelve cores across clusters on the host (the card's
 * kmx_twelve.c): kmx_parallel_all, kmx_serve, kmx_push.
 *
 * Where the card's clusters write each other's LIM lines through NoC
 * windows, the copies of the fallback kmrun loaded (one per cluster) talk
 * through kmrun's cluster bus (kmx_host.h: serve_begin, serve_next,
 * serve_done, serving, post, done, push).  The rules are the card's:
 *
 * - kmx_parallel_all: core 0 of the lead only (from cores 1-3 or inside
 *   kmx_parallel's function: the library error `parallel`, KMX_STOPPED);
 *   KMX_BAD on another cluster or for a NULL function; the stop's status
 *   (nothing started) once the run is stopping; KMX_FULL (nothing started)
 *   while one of our cores 1-3 is busy.  The first call waits until every
 *   other cluster of the image serves.  A call posts (function as an
 *   offset from this object's base: the other clusters run their own
 *   copies of it; arg; a new sequence) to each, runs the function on our
 *   four cores as kmx_parallel does, then waits for each one's done line:
 *   the first status that is not KMX_OK, ours first.
 * - kmx_serve: core 0 only; KMX_BAD on the lead (or when the lead does
 *   not run this image); KMX_OK at once once the END came; else it serves:
 *   each new call line runs on its four cores (KMX_BAD for an op that is
 *   not a call or no function, KMX_FULL if one of its cores 1-3 is busy)
 *   and its status goes back on its done line, until the END (KMX_OK) or
 *   the stop or the deadline (recorded).  The call line is looked at
 *   before the stop, every turn, the first too (the card looks at the stop
 *   first on entry: an END already posted wins here, see below).
 * - The END: when the lead's kmx_main returns, kmx_host_run posts END to
 *   every other cluster, serving or not yet.
 * - kmx_push: any core.  KMX_BAD for a cluster not running this image, a
 *   bad id, an offset or size not a multiple of 64, a range past the
 *   region's end, a NULL or unaligned source with bytes > 0; on the lead a
 *   push to another cluster first waits until it serves (the stop's or the
 *   deadline's status, recorded); on another cluster only inside a call
 *   (KMX_BAD otherwise).  The bytes go into the target's region in the
 *   card's DRAM, around every cache: the receiver invalidates first.
 *
 * Every wait goes round a bounded wait of kmrun's and the stop and the
 * deadline; a wait they end records it (kmx_host_ended), so the run ends
 * stopped or late.
 *
 * Who comes first, a line or the deadline.  On the card a wait polls the
 * stop and the deadline every few turns, so a line written after its
 * deadline (or after the timeout's stop) is never seen before them: the
 * wait ends late (stopped).  Here a wait may sleep through both and wake
 * to find the line, and the host's scheduler decides which it saw first.
 * So each line of the bus says when its writer wrote it (kmx_time, which
 * counts from the writer's start-up as the reader's from its own, as the
 * card's clusters' clocks count from their common start), and a wait that
 * finds a line written at or after its deadline or its timeout's stop
 * ends as the card's would have (kmx_host_timed_status), whatever it woke
 * to first.  The stop kmrun asks for another thread's failure has no such
 * time; it is looked at as before. */
#include <dlfcn.h>
#include <stdint.h>

#include "kmx_host_internal.h"

/* This copy's load address: function pointers cross the bus as offsets
 * from it (each cluster loaded its own copy of the same object). */
static uintptr_t object_base(void) {
    Dl_info info;
    if (dladdr((void *)&kmx_host, &info) != 0 && info.dli_fbase != NULL) {
        return (uintptr_t)info.dli_fbase;
    }
    return 0;
}

/* The other clusters of this image (kmx_rules.h). */
static uint32_t other_clusters(void) {
    return kmx_other_clusters(kmx_host.ctx->args);
}

/* Until every cluster of `mask` serves (KMX_OK), or the stop or the
 * deadline (recorded), which comes first also when it began serving after
 * them. */
static int wait_serving(uint32_t mask) {
    const kmx_host_ctx *ctx = kmx_host.ctx;
    KMX_EACH_CLUSTER(c, mask) {
        uint64_t since = 0;
        while (!ctx->serving(ctx->ops, c, &since)) {
            KMX_RETURN_IF_STOPPING(kmx_host_stop_status(), kmx_host_ended);
        }
        KMX_RETURN_IF_STOPPING(kmx_host_timed_status(since), kmx_host_ended);
    }
    return KMX_OK;
}

/* The lead: until cluster c's done line says `sequence`: its status; or
 * the stop or the deadline (recorded), also when the line came after
 * them. */
static int wait_cluster(uint32_t c, uint32_t sequence) {
    const kmx_host_ctx *ctx = kmx_host.ctx;
    for (;;) {
        int status = KMX_OK;
        uint64_t at = 0;
        if (ctx->done(ctx->ops, c, sequence, &status, &at)) {
            KMX_RETURN_IF_STOPPING(kmx_host_timed_status(at), kmx_host_ended);
            return status;
        }
        KMX_RETURN_IF_STOPPING(kmx_host_stop_status(), kmx_host_ended);
    }
}

static void post_all(uint32_t others, uint32_t op, uint32_t sequence, uint64_t function,
                     uint64_t arg) {
    const kmx_host_ctx *ctx = kmx_host.ctx;
    kmx_host_call call = {function, arg, sequence, op, kmx_time()};
    KMX_EACH_CLUSTER(c, others) {
        ctx->post(ctx->ops, c, &call);
    }
}

int kmx_parallel_all(kmx_cluster_function function, uint64_t arg) {
    KMX_ENTRY_OR_RETURN(kmx_host_core0_only(KMX_API_PARALLEL_ALL, KMX_CALLER()),
                        KMX_PARALLEL_ALL_REFUSED(function),
                        kmx_host_stop_status());
    if (!kmx_host_local_idle()) {
        return KMX_FULL; /* nothing started */
    }
    if (!kmx_host.twelve_ready) {
        uint32_t all = other_clusters();
        int status = wait_serving(all);
        if (status != KMX_OK) {
            return status;
        }
        kmx_host.twelve_others = all;
        kmx_host.twelve_ready = 1;
    }
    uint32_t others = kmx_host.twelve_others;
    uint32_t sequence = ++kmx_host.twelve_sequence;
    uint64_t offset = (uint64_t)((uintptr_t)function - object_base());
    post_all(others, KMX_CLUSTER_CALL, sequence, offset, arg);
    int result = kmx_host_local_all(function, arg);
    KMX_EACH_CLUSTER(c, others) {
        result = kmx_first_failure(result, wait_cluster(c, sequence));
    }
    return result;
}

/* A server: one call line's status. */
static int serve_call(const kmx_host_call *call) {
    if (KMX_CALL_REFUSED(call->op, call->function)) {
        return KMX_BAD;
    }
    if (!kmx_host_local_idle()) {
        return KMX_FULL;
    }
    kmx_cluster_function function =
        (kmx_cluster_function)(object_base() + (uintptr_t)call->function);
    __atomic_store_n(&kmx_host.twelve_in_call, 1u, __ATOMIC_SEQ_CST);
    int status = kmx_host_local_all(function, call->arg);
    __atomic_store_n(&kmx_host.twelve_in_call, 0u, __ATOMIC_SEQ_CST);
    return status;
}

int kmx_serve(void) {
    int status = kmx_host_core0_only(KMX_API_SERVE, KMX_CALLER());
    if (status != KMX_OK) {
        return status;
    }
    const kmx_host_ctx *ctx = kmx_host.ctx;
    const kmx_args *a = ctx->args;
    uint32_t self = a->cluster, lead = a->lead;
    if (KMX_SERVE_REFUSED(a, self, lead)) {
        return KMX_BAD;
    }
    if (kmx_host.twelve_ready) {
        return KMX_OK; /* the END came already */
    }
    /* No stop check before the first look at the call line: an END the
     * lead posted before this cluster came to serve is KMX_OK even once
     * kmrun asked it to stop (the lead's end may stop the others: on the
     * card they are serving by then; here their threads may lag). */
    ctx->serve_begin(ctx->ops, kmx_time());
    for (;;) {
        kmx_host_call call;
        if (ctx->serve_next(ctx->ops, kmx_host.twelve_sequence, &call)) {
            /* A line the lead wrote after this thread's deadline or timeout
             * is one the card would not have seen before them. */
            KMX_RETURN_IF_STOPPING(kmx_host_timed_status(call.ticks), kmx_host_ended);
            kmx_host.twelve_sequence = call.sequence;
            if (call.op == KMX_CLUSTER_END) {
                kmx_host.twelve_ready = 1;
                return KMX_OK;
            }
            int served = serve_call(&call);
            ctx->serve_done(ctx->ops, call.sequence, served, kmx_time());
            continue;
        }
        KMX_RETURN_IF_STOPPING(kmx_host_stop_status(), kmx_host_ended);
    }
}

void kmx_host_twelve_end(void) {
    uint32_t others = KMX_END_TARGETS(other_clusters());
    if (others == 0) {
        return;
    }
    uint32_t sequence = ++kmx_host.twelve_sequence;
    post_all(others, KMX_CLUSTER_END, sequence, 0, 0);
}

int kmx_push(int cluster, uint32_t id, uint64_t offset, const void *source, uint64_t bytes) {
    const kmx_host_ctx *ctx = kmx_host.ctx;
    const kmx_args *a = ctx->args;
    if (KMX_PUSH_TARGET_REFUSED(a, cluster, id) ||
        KMX_PUSH_RANGE_REFUSED(a->regions[id].bytes, offset, source, bytes)) {
        return KMX_BAD;
    }
    KMX_PUSH_ALLOWED_OR_RETURN(a, cluster, wait_serving,
                               __atomic_load_n(&kmx_host.twelve_in_call, __ATOMIC_SEQ_CST) != 0);
    if (bytes == 0) {
        return KMX_OK;
    }
    return ctx->push(ctx->ops, (uint32_t)cluster, id, offset, source, bytes);
}
