/* kmx_rules.h: the rules of the thread API that the card runtime (the
 * files of kmx/) and the host fallback's runtime (kmx/host/) both apply,
 * written once (not installed): which arguments a call refuses and in
 * what order it looks, which error a check records, the walk over the
 * other clusters, how the result block's words and marker are written,
 * how long the end waits for cores 1-3.  kmx_shared.h holds the rest
 * (the final state, the ring's events).
 *
 * What differs between the two — where the state lives, how a wait
 * waits, which fence orders a store — comes in as an argument: a value,
 * an expression evaluated only when the rule gets to it, or a function.
 * On the card each rule must compile to the instructions it did when the
 * card's files spelled it out, so that no modeled time moves: a rule is a
 * static inline function where that holds, and a macro where it does not
 * (GCC weighs an inline function's branches before inlining it, which
 * moved the card's blocks and in places added instructions or LIM
 * reads) — the conditions the card branches on, and the checks that
 * return from their caller (named ..._OR_RETURN, RETURN_IF_...).
 * Argument blocks are read through const volatile pointers (the card's
 * are in LIM; the host's plain pointers convert).  Freestanding: nothing
 * but kmx.h. */
#ifndef KMX_RULES_H
#define KMX_RULES_H

#include "kmx.h"

/* ---- the argument block -------------------------------------------------- */

/* Whether the argument block is this run's: its magic, layout, seal and
 * nonce (the result block's `r` too), the cluster, the clusters and
 * their lead (the lowest of them), the counts in range. */
static inline int kmx_args_sealed(const volatile kmx_args *a,
                                  const volatile kmx_result_block *r) {
    uint64_t nonce = a->nonce;
    return a->magic == KMX_ARGS_MAGIC && a->version == KMX_LAYOUT_VERSION &&
           a->seal.seal == KMX_ARGS_SEAL && a->seal.nonce == nonce &&
           r->nonce == nonce && a->cluster >= 1 &&
           a->cluster <= BH_WORK_CLUSTERS &&
           (a->clusters & ~0xEu) == 0 && (a->clusters & (1u << a->cluster)) != 0 &&
           a->lead >= 1 && a->lead <= a->cluster &&
           (a->clusters & (1u << a->lead)) != 0 &&
           (a->clusters & ((1u << a->lead) - 1u)) == 0 &&
           a->nregions <= KMX_MAX_REGIONS && a->nwords <= KMX_MAX_WORDS;
}

/* kmx_args_get's count: a block that claims more words has only these. */
static inline uint32_t kmx_args_words(uint32_t nwords) {
    return nwords <= KMX_MAX_WORDS ? nwords : KMX_MAX_WORDS;
}

/* The thread's deadline in kmx_time ticks: `deadline` ticks after start-up
 * (0: none).  (A macro: the card reads the argument block's word twice,
 * as it always has.) */
#define KMX_DEADLINE_AT(start, deadline) ((deadline) != 0 ? (start) + (deadline) : 0)

/* The prefetcher decision start-up records: the host's "keep", else set
 * (start.c's hook writes the registers then; the host fallback has none
 * to write and adds KMX_PREFETCH_NOT_WRITTEN). */
static inline uint32_t kmx_prefetch_decision(uint32_t prefetch) {
    return prefetch == KMX_PREFETCH_KEEP ? KMX_PREFETCH_KEEP : KMX_PREFETCH_SET;
}

/* The bank a work cluster's regions live in; -1 for any other cluster. */
static inline int kmx_cluster_bank(uint32_t cluster) {
    return cluster == 1 ? 6 : (cluster == 2 || cluster == 3) ? 7 : -1;
}

/* Start-up's checks of each region entry, in order, after the block's
 * bank is the cluster's (kmx_cluster_bank; error `bank`, detail
 * KMX_DETAIL_CHECK_LINE): non-empty, on a line and inside the bank (else
 * error `region`, its id: this macro, over the entry's `at` and `bytes`
 * read once), then in the block's bank (else error `bank`, its id).  (A
 * macro: as a function the card's start-up loop takes more
 * instructions.)  The card then checks the entry against its bank check
 * line, which the host fallback has none of. */
#define KMX_REGION_OUTSIDE_BANK(at, bytes)                                  \
    ((bytes) == 0 || (at) % BH_LINE_BYTES != 0 || (at) >= BH_BANK_BYTES || \
     (bytes) > BH_BANK_BYTES - (at))

/* The ring kinds a thread can use (KMX_RING_NONE: no ring, no calls). */
static inline int kmx_ring_kind_known(uint32_t kind) {
    return kind == KMX_RING_REMOTE || kind == KMX_RING_CACHED;
}

/* ---- regions --------------------------------------------------------------- */

/* An id the calls refuse.  (A macro, as the checks below: the card's
 * branches stay where they were.) */
#define KMX_REGION_UNKNOWN(a, id) ((id) >= (a)->nregions || (id) >= KMX_MAX_REGIONS)

/* kmx_region's size: 1 and *bytes (if asked), or 0 and *bytes = 0 for an
 * unknown id. */
static inline int kmx_region_size(const volatile kmx_args *a, uint32_t id, uint64_t *bytes) {
    if (KMX_REGION_UNKNOWN(a, id)) {
        if (bytes != 0) {
            *bytes = 0;
        }
        return 0;
    }
    if (bytes != 0) {
        *bytes = a->regions[id].bytes;
    }
    return 1;
}

/* kmx_region_address, whole. */
static inline int kmx_region_where(const volatile kmx_args *a, uint32_t id, uint32_t *bank,
                                   uint64_t *bank_address) {
    if (KMX_REGION_UNKNOWN(a, id)) {
        return KMX_BAD;
    }
    if (bank != 0) {
        *bank = a->regions[id].bank;
    }
    if (bank_address != 0) {
        *bank_address = a->regions[id].bank_address;
    }
    return KMX_OK;
}

/* [offset, offset + bytes) leaves a region of `size` bytes.  (A macro:
 * as a function it moves the card's branches about.) */
#define KMX_RANGE_OUTSIDE(size, offset, bytes) ((offset) > (size) || (bytes) > (size) - (offset))

/* A range widened outwards to whole 64-byte lines: its first line's
 * start and the end of its last. */
static inline uint64_t kmx_line_floor(uint64_t at) {
    return at & ~(uint64_t)(BH_LINE_BYTES - 1u);
}

static inline uint64_t kmx_line_ceil(uint64_t end) {
    return (end + BH_LINE_BYTES - 1u) & ~(uint64_t)(BH_LINE_BYTES - 1u);
}

/* ---- the result block ------------------------------------------------------ */

/* kmx_result: words [first, first + count) of the result, nwords grown to
 * cover them; KMX_BAD (nothing written) past KMX_MAX_RESULT_WORDS or for
 * NULL words. */
static inline int kmx_result_put(volatile kmx_result_block *r, uint32_t first,
                                 const uint32_t *words, uint32_t count) {
    if (first > KMX_MAX_RESULT_WORDS || count > KMX_MAX_RESULT_WORDS - first ||
        (count != 0 && words == 0)) {
        return KMX_BAD;
    }
    for (uint32_t i = 0; i < count; i++) {
        r->words[first + i] = words[i];
    }
    if (first + count > r->nwords) {
        r->nwords = first + count;
    }
    return KMX_OK;
}

/* kmx_progress: a reader may look at the block at any store, so
 * where_ticks is 0 while the marker changes and it never pairs a new time
 * with the old marker or the reverse (kmx_layout.h); a marker's time is
 * never 0. */
static inline void kmx_progress_put(volatile kmx_result_block *r, uint32_t where, uint64_t now,
                                    void (*fence)(void)) {
    r->where_ticks = 0;
    fence();
    r->where = where;
    fence();
    r->where_ticks = now != 0 ? now : 1;
}

/* The first library error of a run (its caller won the claim): the core
 * and detail first — and for a `parallel` error the call (KMX_API_*) and
 * its return address, else 0 and 0 — the error last, so a reader that
 * sees the error sees them.  (A macro, `fence` a function: the card's
 * error path keeps its shape.) */
#define KMX_ERROR_PUT(r, core_, error_, detail_, call_, pc_, fence) \
    do {                                                            \
        (r)->error_core = (core_);                                  \
        (r)->error_detail = (detail_);                              \
        (r)->error_call = (call_);                                  \
        (r)->error_pc = (pc_);                                      \
        fence();                                                    \
        (r)->error = (error_);                                      \
    } while (0)

/* The return address of the kmx.h call this is expanded in: where a
 * `parallel` error says the call was made (its caller's line). */
#define KMX_CALLER() ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* Which statuses end a library wait the run's final state records. */
static inline int kmx_status_ends_run(int status) {
    return status == KMX_STOPPED || status == KMX_LATE;
}

/* ---- handing work to cores ------------------------------------------------- */

/* The entry of a core-0 call that waits on cores (kmx_join) in its
 * order: the caller (core0_only: KMX_OK, or the error `parallel`
 * recorded and KMX_STOPPED), then its arguments (refused: KMX_BAD).
 * Returns from the calling function on either; `refused` is evaluated
 * only once the caller passed. */
#define KMX_CALLER_OR_RETURN(core0_only, refused) \
    do {                                          \
        int kmx_caller_ = (core0_only);           \
        if (kmx_caller_ != KMX_OK) {              \
            return kmx_caller_;                   \
        }                                         \
        if (refused) {                            \
            return KMX_BAD;                       \
        }                                         \
    } while (0)

/* The entry of a call that hands work over (kmx_spawn, kmx_parallel,
 * kmx_parallel_all): the same, then the stop (its status: nothing
 * started).  The caller then returns KMX_FULL, nothing started, if a core
 * it needs is busy. */
#define KMX_ENTRY_OR_RETURN(core0_only, refused, stop_status) \
    do {                                                      \
        KMX_CALLER_OR_RETURN(core0_only, refused);            \
        int kmx_entry_ = (stop_status);                       \
        if (kmx_entry_ != KMX_OK) {                           \
            return kmx_entry_;                                \
        }                                                     \
    } while (0)

/* A library wait's look at the stop: once the run is stopping (the
 * stop's status, or KMX_LATE at the thread's deadline), the wait returns
 * that status from the calling function, recorded by ended() as how a
 * wait ended (the run's final state). */
#define KMX_RETURN_IF_STOPPING(stop_status, ended) \
    do {                                           \
        int kmx_stop_ = (stop_status);             \
        if (kmx_stop_ != KMX_OK) {                 \
            ended(kmx_stop_);                      \
            return kmx_stop_;                      \
        }                                          \
    } while (0)

/* What a call that waited for cores returns (kmx_join; kmx_parallel's and
 * kmx_parallel_all's join of cores 1-3, a served call's too): once a
 * library error or a trap stopped the run (`error_stop`, the runtime's
 * own stop, read after the wait ended: `status`), KMX_STOPPED, whether or
 * not the cores had returned; else the wait's status.  Without it the
 * call returned KMX_OK or KMX_STOPPED as the wait happened to see the
 * core's return or the stop first — a race of timing, which the card and
 * the host ran differently.  The error is recorded before the core that
 * made it returns, so the join that sees the return sees the error. */
static inline int kmx_joined(int status, uint32_t error_stop) {
    return error_stop != 0 ? KMX_STOPPED : status;
}

/* Cores 1 to 3: the ones kmx_spawn and kmx_join take. */
static inline int kmx_worker_core(int core) {
    return core >= 1 && core < (int)BH_CLUSTER_CORES;
}

/* A join of several: the first status that is not KMX_OK, in the order
 * they come (core 0's or the lead's own first). */
static inline int kmx_first_failure(int result, int status) {
    return result == KMX_OK ? status : result;
}

/* After kmx_main returned, core 0 lets cores 1-3 finish what they run
 * before it flushes the regions; after a stop or the deadline, at most
 * this long. */
#define KMX_SETTLE_TICKS (BH_TICKS_PER_SECOND / 10u)

/* One look of that wait once the run is stopping, at time `now`: 1 when
 * the settle time is over; `limit` (a variable, 0 before the first look)
 * holds when it ends.  (A macro: the card's branches stay where they
 * were.) */
#define KMX_SETTLE_OVER(limit, now) \
    ((limit) == 0 ? ((limit) = (now) + KMX_SETTLE_TICKS, 0) : (now) >= (limit))

/* ---- twelve cores ---------------------------------------------------------- */

/* The other clusters of this image, bit c for cluster c, each one the
 * argument block also describes (peers[c - 1].present). */
static inline uint32_t kmx_other_clusters(const volatile kmx_args *a) {
    uint32_t mask = a->clusters & ~(1u << a->cluster);
    uint32_t others = 0;
    for (uint32_t c = 1; c <= BH_WORK_CLUSTERS; c++) {
        if ((mask >> c) & 1u && a->peers[c - 1u].present) {
            others |= 1u << c;
        }
    }
    return others;
}

/* for each cluster c of `mask` (bit c), in order: `KMX_EACH_CLUSTER(c,
 * mask) { ... }` (the if/else keeps a following else off it). */
#define KMX_EACH_CLUSTER(c, mask)                            \
    for (uint32_t c = 1; c <= BH_WORK_CLUSTERS; c++)        \
        if ((((mask) >> c) & 1u) == 0) {                     \
        } else

/* The clusters the lead's END goes to when its kmx_main returned: the
 * other clusters (`others`, evaluated on the lead only); none elsewhere. */
#define KMX_END_TARGETS(others) (kmx_cluster() == kmx_lead() ? (others) : 0u)

/* kmx_parallel_all's arguments: the lead only, a function. */
#define KMX_PARALLEL_ALL_REFUSED(function) (kmx_cluster() != kmx_lead() || (function) == 0)

/* kmx_serve's: not the lead (`self`, `lead` as read from `a`), and the
 * lead runs this image. */
#define KMX_SERVE_REFUSED(a, self, lead) ((self) == (lead) || !(a)->peers[(lead) - 1u].present)

/* A server's call line it cannot run: not a call, or no function
 * (KMX_BAD on its done line; KMX_FULL if one of its cores is busy). */
#define KMX_CALL_REFUSED(op, function) ((op) != KMX_CLUSTER_CALL || (function) == 0)

/* kmx_push's arguments: a cluster running this image and a known region
 * (the same image: the same regions; then its `size`), whole lines
 * inside it, and an 8-byte aligned source for any bytes (kmx.h's
 * contract since pushes stored words; the vector stores need no
 * alignment, but a thread keeps one rule on both runtimes). */
#define KMX_PUSH_TARGET_REFUSED(a, cluster, id)                                        \
    ((cluster) < 1 || (cluster) > (int)BH_WORK_CLUSTERS ||                            \
     (((a)->clusters >> (cluster)) & 1u) == 0 || !(a)->peers[(cluster) - 1].present || \
     (id) >= (a)->nregions || (id) >= KMX_MAX_REGIONS)
#define KMX_PUSH_RANGE_REFUSED(size, offset, source, bytes)             \
    ((offset) % BH_LINE_BYTES != 0 || (bytes) % BH_LINE_BYTES != 0 || \
     KMX_RANGE_OUTSIDE(size, offset, bytes) ||                          \
     ((bytes) != 0 && ((source) == 0 || (uintptr_t)(source) % 8u != 0)))

/* Who may push when (kmx.h): the lead, to another cluster once it serves
 * (wait_serving(mask)'s status: the stop's or the deadline's, recorded),
 * to itself at once; another cluster only inside a kmx_parallel_all call
 * (the expression in_call; KMX_BAD otherwise).  Returns from the calling
 * function unless the push may go on. */
#define KMX_PUSH_ALLOWED_OR_RETURN(a, cluster, wait_serving, in_call) \
    do {                                                             \
        if ((a)->cluster == (a)->lead) {                             \
            if ((uint32_t)(cluster) != (a)->cluster) {               \
                int kmx_push_ = wait_serving(1u << (cluster));       \
                if (kmx_push_ != KMX_OK) {                           \
                    return kmx_push_;                                \
                }                                                    \
            }                                                        \
        } else if (!(in_call)) {                                     \
            return KMX_BAD;                                          \
        }                                                            \
    } while (0)

#endif
