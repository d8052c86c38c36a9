/* kmx_twelve.c: twelve cores across clusters (spec "Twelve cores"):
 * kmx_parallel_all, kmx_serve, kmx_push.
 *
 * The clusters that run one image talk through their LIMs' cluster lines
 * (kmx_layout.h, kmx_cluster_lines at KMX_LIM_CLUSTER_LINES), reached
 * through NoC windows (kmx_peer in the argument block says where):
 *
 * - Another cluster's kmx_serve opens KMX_WINDOW_CLUSTER(lead) onto the
 *   lead's LIM (non-posted) and writes its done[self].serving = 1 there.
 * - The lead's first kmx_parallel_all opens KMX_WINDOW_CLUSTER(c) onto
 *   each other cluster c's LIM (non-posted) and waits until every one
 *   serves.  A call writes the call line into each: function, arg, lead,
 *   a fence, then sequence and op as one 8-byte store (so a server never
 *   sees a new number with an old op).  A call whose function and arg are
 *   the ones the lines already hold writes that last store only: every
 *   store through a non-posted window waits a NoC round trip.
 * - A server sees the new sequence in its own LIM (an acquire fence after
 *   it), runs the function on its four cores as kmx_parallel does (cores
 *   1 to 3 through their mailboxes, KMX_CALL_ALL; core 0 itself), then
 *   writes done[self].status (only when it differs from the last it wrote:
 *   the host zeroed it, and 0 is KMX_OK), a fence, and done[self].done =
 *   sequence into the lead's LIM.  The lead, after its own four cores,
 *   waits for each done number and takes the first status that is not
 *   KMX_OK.
 * - When the lead's kmx_main returns, start-up's end writes an END call
 *   line (kmx__twelve_end) into every other cluster of the image, serving
 *   or not yet: its kmx_serve returns KMX_OK now, or at once when it
 *   starts serving later.
 *
 * Every wait polls one word of LIM a turn and the stop and the thread's
 * deadline every KMX_WAIT_CHECK_EVERY turns; a wait they end records it
 * (kmx__ended), so the run ends stopped or late.
 *
 * kmx_push stores in 512-byte vector stores (e8, m8 at VLEN 512: each
 * one posted NoC write of its bytes) through window KMX_WINDOW_PUSH(core)
 * (posted), re-pointed for each 2 MiB span, onto the first port of the
 * peer's bank (NoC address = peer bank_base + the region's bank address in
 * that cluster + offset); then the last line (64 bytes, one vector store)
 * once more through KMX_WINDOW_PUSH_ACK(core) (non-posted), whose store
 * returns once acknowledged.  Each core has its own two windows, so the
 * four cores of a cluster may push at the same time.  Who may push when
 * (kmx.h): the lead, once the target serves (it waits for that, as
 * kmx_parallel_all's first call does); another cluster, only in a call. */
#include "kmx_internal.h"

#define LINES KMX_P(kmx_cluster_lines, KMX_LIM_CLUSTER_LINES)

/* The other clusters of this image (kmx_rules.h); called, not inlined,
 * as when it was spelled out here. */
static __attribute__((noinline)) uint32_t other_clusters(void) {
    return kmx_other_clusters(KMX_ARGS);
}

/* Cluster c's cluster lines in its LIM, as the core reaches them through
 * KMX_WINDOW_CLUSTER(c); open: point the window there first. */
static volatile kmx_cluster_lines *cluster_lines(uint32_t c, int open) {
    const volatile kmx_peer *q = &KMX_ARGS->peers[c - 1u];
    uint64_t at = q->lim + (KMX_LIM_CLUSTER_LINES - BH_LIM_BASE);
    uint64_t base = at & ~(uint64_t)(BH_NOC_WINDOW_BYTES - 1u);
    if (open) {
        return KMX_P(kmx_cluster_lines,
                     kmx__open_window(KMX_WINDOW_CLUSTER(c), q->noc_x, q->noc_y, at, BH_NOC_NONPOSTED));
    }
    return KMX_P(kmx_cluster_lines, BH_NOC_WINDOW(KMX_WINDOW_CLUSTER(c)) + (at - base));
}

/* The lead: its windows onto every other cluster, once. */
static void open_clusters(uint32_t others) {
    volatile kmx_private *p = KMX_PRIVATE;
    if (p->twelve_open) {
        return;
    }
    KMX_EACH_CLUSTER(c, others) {
        (void)cluster_lines(c, 1);
    }
    p->twelve_open = 1;
}

/* The lead: until every cluster of `mask` has written done[c].serving = 1
 * into our LIM (KMX_OK), or the stop or the deadline (recorded). */
static int wait_serving(uint32_t mask) {
    volatile kmx_cluster_lines *l = LINES;
    for (unsigned turn = 1;; turn++) {
        int all = 1;
        for (uint32_t c = 1; c <= BH_WORK_CLUSTERS; c++) {
            if ((mask >> c) & 1u && l->done[c].serving != 1u) {
                all = 0;
                break;
            }
        }
        if (all) {
            kmx__acquire();
            return KMX_OK;
        }
        if (turn % KMX_WAIT_CHECK_EVERY == 0) {
            KMX_RETURN_IF_STOPPING(kmx__stop_status(), kmx__ended);
        }
    }
}

/* Cores 1 to 3 idle (their posted counts in *p1..*p3), as kmx_parallel:
 * three scalars, not an array on the stack, which is in LIM. */
static inline __attribute__((always_inline)) int local_idle(uint32_t *p1, uint32_t *p2,
                                                            uint32_t *p3) {
    _Static_assert(BH_CLUSTER_CORES == 4u, "cores 1 to 3 are spelled out");
    return kmx__idle(1, p1) && kmx__idle(2, p2) && kmx__idle(3, p3);
}

/* The join of run_here, on its own so that run_here keeps little across
 * the call of the function (as kmx_spawn.c's join_workers). */
static __attribute__((noinline)) int join_here(void) {
    int result = KMX_OK;
    for (int core = 1; core < (int)BH_CLUSTER_CORES; core++) {
        result = kmx_first_failure(result, kmx__wait_done(core, KMX_MAILBOX(core)->posted));
    }
    return kmx_joined(result, KMX_PRIVATE->stop);
}

/* function(cluster, core, arg) on this cluster's four cores, which
 * local_idle found idle: as kmx_parallel. */
static int run_here(uint32_t p1, uint32_t p2, uint32_t p3, uint64_t function, uint64_t arg) {
    kmx__post(1, p1, KMX_CALL_ALL, function, arg);
    kmx__post(2, p2, KMX_CALL_ALL, function, arg);
    kmx__post(3, p3, KMX_CALL_ALL, function, arg);
    KMX_PRIVATE->in_parallel = 1;
    ((kmx_cluster_function)(uintptr_t)function)((int)KMX_ARGS->cluster, 0, arg);
    KMX_PRIVATE->in_parallel = 0;
    return join_here();
}

/* The lead: until cluster c's done line says `sequence`: its status; or
 * the stop or the deadline (recorded). */
static int wait_cluster(uint32_t c, uint32_t sequence) {
    volatile kmx_cluster_done *d = &LINES->done[c];
    for (unsigned turn = 1;; turn++) {
        if (d->done == sequence) {
            kmx__acquire();
            return (int)d->status;
        }
        if (turn % KMX_WAIT_CHECK_EVERY == 0) {
            KMX_RETURN_IF_STOPPING(kmx__stop_status(), kmx__ended);
        }
    }
}

/* The lead: writes a call line into cluster c's LIM; whole: function, arg
 * and lead too, else only sequence and op (one 8-byte store, last). */
static void send_call(uint32_t c, uint32_t op, uint32_t sequence, uint64_t function,
                      uint64_t arg, int whole) {
    volatile uint64_t *w = (volatile uint64_t *)&cluster_lines(c, 0)->call;
    _Static_assert(offsetof(kmx_cluster_call, function) == 0 &&
                       offsetof(kmx_cluster_call, arg) == 8 &&
                       offsetof(kmx_cluster_call, sequence) == 16 &&
                       offsetof(kmx_cluster_call, op) == 20 &&
                       offsetof(kmx_cluster_call, lead) == 24,
                   "the call line as 8-byte words");
    if (whole) {
        w[0] = function;
        w[1] = arg;
        w[3] = (uint64_t)KMX_ARGS->lead;
        kmx__release();
    }
    w[2] = (uint64_t)sequence | (uint64_t)op << 32;
}

int kmx__twelve_ready(void) {
    volatile kmx_private *p = KMX_PRIVATE;
    if (!p->twelve_ready) {
        uint32_t all = other_clusters();
        open_clusters(all);
        int status = wait_serving(all);
        if (status != KMX_OK) {
            return status;
        }
        p->twelve_others = all;
        p->twelve_ready = 1;
    }
    return KMX_OK;
}

volatile void *kmx__peer_lim(uint32_t c, uint64_t lim_address) {
    const volatile kmx_peer *q = &KMX_ARGS->peers[c - 1u];
    uint64_t at = q->lim + (lim_address - BH_LIM_BASE);
    uint64_t base = (q->lim + (KMX_LIM_CLUSTER_LINES - BH_LIM_BASE)) &
                    ~(uint64_t)(BH_NOC_WINDOW_BYTES - 1u);
    return KMX_P(uint8_t, BH_NOC_WINDOW(KMX_WINDOW_CLUSTER(c)) + (at - base));
}

int kmx_parallel_all(kmx_cluster_function function, uint64_t arg) {
    KMX_ENTRY_OR_RETURN(kmx__core0_only(KMX_API_PARALLEL_ALL, KMX_CALLER()),
                        KMX_PARALLEL_ALL_REFUSED(function),
                        kmx__stop_status());
    uint32_t p1, p2, p3;
    if (!local_idle(&p1, &p2, &p3)) {
        return KMX_FULL; /* nothing started */
    }
    volatile kmx_private *p = KMX_PRIVATE;
    int status = kmx__twelve_ready();
    if (status != KMX_OK) {
        return status;
    }
    uint32_t others = p->twelve_others;
    uint64_t f = (uint64_t)(uintptr_t)function;
    uint32_t sequence = p->twelve_sequence + 1u;
    p->twelve_sequence = sequence;
    int whole = !p->twelve_sent || p->twelve_function != f || p->twelve_arg != arg;
    KMX_EACH_CLUSTER(c, others) {
        send_call(c, KMX_CLUSTER_CALL, sequence, f, arg, whole);
    }
    if (whole) {
        p->twelve_function = f;
        p->twelve_arg = arg;
        p->twelve_sent = 1;
    }
    int result = run_here(p1, p2, p3, f, arg);
    KMX_EACH_CLUSTER(c, others) {
        result = kmx_first_failure(result, wait_cluster(c, sequence));
    }
    return result;
}

int kmx_serve(void) {
    int status = kmx__core0_only(KMX_API_SERVE, KMX_CALLER());
    if (status != KMX_OK) {
        return status;
    }
    const volatile kmx_args *a = KMX_ARGS;
    uint32_t self = a->cluster, lead = a->lead;
    if (KMX_SERVE_REFUSED(a, self, lead)) {
        return KMX_BAD;
    }
    volatile kmx_private *p = KMX_PRIVATE;
    if (p->twelve_ready) {
        return KMX_OK; /* the END came already */
    }
    KMX_RETURN_IF_STOPPING(kmx__stop_status(), kmx__ended);
    volatile kmx_cluster_done *mine = &cluster_lines(lead, !p->twelve_open)->done[self];
    p->twelve_open = 1;
    mine->serving = 1;
    volatile kmx_cluster_call *call = &LINES->call;
    uint32_t seen = p->twelve_sequence;
    for (unsigned turn = 1;; turn++) {
        uint32_t sequence = call->sequence;
        if (sequence != seen) {
            kmx__acquire();
            uint32_t op = call->op;
            uint64_t function = call->function;
            uint64_t arg = call->arg;
            seen = sequence;
            p->twelve_sequence = sequence;
            if (op == KMX_CLUSTER_END) {
                p->twelve_ready = 1;
                return KMX_OK;
            }
            uint32_t p1, p2, p3;
            if (KMX_CALL_REFUSED(op, function)) {
                status = KMX_BAD;
            } else if (!local_idle(&p1, &p2, &p3)) {
                status = KMX_FULL;
            } else {
                p->twelve_in_call = 1;
                status = run_here(p1, p2, p3, function, arg);
                p->twelve_in_call = 0;
            }
            if ((uint32_t)status != p->twelve_status) {
                mine->status = (uint32_t)status;
                p->twelve_status = (uint32_t)status;
            }
            kmx__release();
            mine->done = sequence;
            turn = 0;
            continue;
        }
        if (turn % KMX_WAIT_CHECK_EVERY == 0) {
            KMX_RETURN_IF_STOPPING(kmx__stop_status(), kmx__ended);
        }
    }
}

void kmx__twelve_end(void) {
    uint32_t others = KMX_END_TARGETS(other_clusters());
    if (others == 0) {
        return;
    }
    volatile kmx_private *p = KMX_PRIVATE;
    open_clusters(others);
    uint32_t sequence = p->twelve_sequence + 1u;
    p->twelve_sequence = sequence;
    kmx__release();
    KMX_EACH_CLUSTER(c, others) {
        send_call(c, KMX_CLUSTER_END, sequence, 0, 0, 0);
    }
}

/* The lead's wait for the target to serve, as a push needs it: no call
 * once every other cluster serves (the push then makes no call before its
 * stores, so its return address register still names the thread's call,
 * which the hand-over checker reports). */
static inline __attribute__((always_inline)) int push_target_serving(uint32_t mask) {
    volatile kmx_private *p = KMX_PRIVATE;
    if (p->twelve_ready && (p->twelve_others & mask) == mask) {
        return KMX_OK;
    }
    return wait_serving(mask);
}

/* n bytes from `from` to `to` in vector stores of up to 512 bytes (e8,
 * m8: eight 64-byte registers), each one NoC write when `to` is a
 * window.  v0-v7 need no clobbers (gcc 12 knows no vector registers, and
 * the calling convention leaves every vector register to the callee;
 * nothing of this runtime keeps a vector live). */
static void store_vectors(uint8_t *to, const uint8_t *from, uint64_t n)
{
    while (n != 0) {
        uint64_t vl;
        __asm__ volatile("vsetvli %0, %3, e8, m8, ta, ma\n\t"
                         "vle8.v v0, (%2)\n\t"
                         "vse8.v v0, (%1)"
                         : "=&r"(vl)
                         : "r"(to), "r"(from), "r"(n)
                         : "memory");
        to += vl;
        from += vl;
        n -= vl;
    }
}

int kmx_push(int cluster, uint32_t id, uint64_t offset, const void *source,
             uint64_t bytes) {
    const volatile kmx_args *a = KMX_ARGS;
    if (KMX_PUSH_TARGET_REFUSED(a, cluster, id)) {
        return KMX_BAD;
    }
    uint64_t size = a->regions[id].bytes;
    if (KMX_PUSH_RANGE_REFUSED(size, offset, source, bytes)) {
        return KMX_BAD;
    }
    KMX_PUSH_ALLOWED_OR_RETURN(a, cluster, push_target_serving, KMX_PRIVATE->twelve_in_call);
    if (bytes == 0) {
        return KMX_OK;
    }
    const volatile kmx_peer *q = &a->peers[cluster - 1];
    uint32_t core = (uint32_t)kmx__hart();
    uint32_t x = q->bank_x, y = q->bank_y;
    uint64_t target = q->bank_base + q->region_bank_address[id] + offset;
    const uint8_t *from = (const uint8_t *)source;
    kmx__fence(); /* what this core wrote before is in the source */
    for (uint64_t done = 0; done < bytes;) {
        uint64_t at = target + done;
        uint64_t span = BH_NOC_WINDOW_BYTES - (at & (BH_NOC_WINDOW_BYTES - 1u));
        if (span > bytes - done) {
            span = bytes - done;
        }
        uint8_t *to = (uint8_t *)kmx__open_window(KMX_WINDOW_PUSH(core), x, y, at, BH_NOC_POSTED);
        store_vectors(to, from + done, span);
        done += span;
    }
    /* The last line again, non-posted: one vector store, one write, which
     * returns once acknowledged; one core's stores to one tile arrive in
     * order, so every store before it has landed. */
    uint64_t last = bytes - BH_LINE_BYTES;
    store_vectors((uint8_t *)kmx__open_window(KMX_WINDOW_PUSH_ACK(core), x, y, target + last,
                                              BH_NOC_NONPOSTED),
                  from + last, BH_LINE_BYTES);
    kmx__fence();
    return KMX_OK;
}
