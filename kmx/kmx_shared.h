/* kmx_shared.h: rules the card runtime (the files of kmx/) and the host
 * fallback's runtime (kmx/host/) must follow the same way, written once (not
 * installed).  Each runtime keeps its own state and its own way of
 * reaching the ring; what a thread sees of it — the final state of a run,
 * which event kmx_wait and kmx_poll return, what they keep — comes from
 * here, so the two cannot drift apart and `kmrun check` compares like
 * with like.  The rest of the shared rules (argument checks, errors, the
 * walks, the result words) are kmx_rules.h.  Freestanding: no libc,
 * nothing but kmx.h. */
#ifndef KMX_SHARED_H
#define KMX_SHARED_H

#include "kmx.h"

/* The final state of a run: a trap first, then a library error, then how
 * it ended (a wait that ended stopped or late — `ended` — or the stop or
 * the deadline by the time kmx_main returned), else done. */
static inline uint32_t kmx_final_state(uint32_t traps, uint32_t error, uint32_t ended,
                                       int status_at_return) {
    if (traps != 0) {
        return KMX_STATE_TRAPPED;
    }
    if (error != KMX_ERROR_NONE) {
        return KMX_STATE_FAILED;
    }
    if (ended == KMX_LATE || status_at_return == KMX_LATE) {
        return KMX_STATE_LATE;
    }
    if (ended == KMX_STOPPED || status_at_return == KMX_STOPPED) {
        return KMX_STATE_STOPPED;
    }
    return KMX_STATE_DONE;
}

/* ---- the events a thread has taken from its ring -------------------------
 * kmx_wait keeps other handles' events, up to KMX_RING_KEPT, in arrival
 * order, and a wake it passed over; kmx_poll returns the kept ones first,
 * then the wake, then the ring's next. */
typedef struct kmx_events {
    uint32_t wake; /* a wake taken and not yet returned by kmx_poll */
    uint32_t head, count;
    km_event_t kept[KMX_RING_KEPT];
} kmx_events;

/* How a runtime reaches its ring: peek (the next whole event, not taken:
 * KMX_OK or KMX_EMPTY), take (the one peek gave), and idle (nothing came
 * on this turn: KMX_OK to go on waiting, or the status that ends the wait
 * — the stop, the thread's deadline, the call's `deadline`). */
typedef struct kmx_ring_access {
    int (*peek)(km_event_t *e);
    void (*take)(void);
    int (*idle)(uint64_t deadline, unsigned turn);
} kmx_ring_access;

static inline void kmx_event_out(const km_event_t *e, kmx_event *out) {
    out->kind = e->kind;
    out->reason = e->reason;
    out->handle = e->handle;
    out->ticks = e->ticks;
}

static inline void kmx_event_copy(km_event_t *to, const km_event_t *from) {
    to->index = from->index;
    to->kind = from->kind;
    to->reason = from->reason;
    to->handle = from->handle;
    to->ticks = from->ticks;
}

static inline void kmx_events_keep(kmx_events *s, const km_event_t *e) {
    kmx_event_copy(&s->kept[(s->head + s->count) % KMX_RING_KEPT], e);
    s->count++;
}

/* Removes kept event n (0 = the oldest) into *out; the rest keep their
 * order. */
static inline void kmx_events_unkeep(kmx_events *s, uint32_t n, kmx_event *out) {
    kmx_event_out(&s->kept[(s->head + n) % KMX_RING_KEPT], out);
    for (uint32_t k = n; k > 0; k--) {
        kmx_event_copy(&s->kept[(s->head + k) % KMX_RING_KEPT],
                       &s->kept[(s->head + k - 1u) % KMX_RING_KEPT]);
    }
    s->head = (s->head + 1u) % KMX_RING_KEPT;
    s->count--;
}

/* kmx_wait's rules, once the caller's checks passed: KMX_OK with *out,
 * KMX_FULL (KMX_RING_KEPT kept and the next is another handle's: it stays
 * in the ring), or what idle ended the wait with. */
static inline int kmx_events_wait(kmx_events *s, const kmx_ring_access *ring, uint32_t handle,
                                  uint64_t deadline, kmx_event *out) {
    for (uint32_t n = 0; n < s->count; n++) {
        if (s->kept[(s->head + n) % KMX_RING_KEPT].handle == handle) {
            kmx_events_unkeep(s, n, out);
            return KMX_OK;
        }
    }
    for (unsigned turn = 1;; turn++) {
        km_event_t e;
        if (ring->peek(&e) == KMX_OK) {
            if (e.kind == KMX_EVENT_WAKE) {
                ring->take();
                s->wake = 1; /* for kmx_poll: the thread resubmits after it */
                continue;
            }
            if (e.handle == handle) {
                ring->take();
                kmx_event_out(&e, out);
                return KMX_OK;
            }
            if (s->count == KMX_RING_KEPT) {
                return KMX_FULL; /* left in the ring: kmx_poll takes it in turn */
            }
            ring->take();
            kmx_events_keep(s, &e);
            turn = 0;
            continue;
        }
        int status = ring->idle(deadline, turn);
        if (status != KMX_OK) {
            return status;
        }
    }
}

/* kmx_poll's rules: KMX_OK with *out, or KMX_EMPTY. */
static inline int kmx_events_poll(kmx_events *s, const kmx_ring_access *ring, kmx_event *out) {
    if (s->count > 0) {
        kmx_events_unkeep(s, 0, out);
        return KMX_OK;
    }
    km_event_t e;
    if (s->wake == 0 && ring->peek(&e) == KMX_OK) {
        ring->take();
        if (e.kind != KMX_EVENT_WAKE) {
            kmx_event_out(&e, out);
            return KMX_OK;
        }
        s->wake = 1;
    }
    if (s->wake != 0) {
        s->wake = 0;
        out->kind = KMX_EVENT_WAKE;
        out->reason = KM_REASON_NONE;
        out->handle = 0;
        out->ticks = 0;
        return KMX_OK;
    }
    return KMX_EMPTY;
}

#endif
