/* kmx_host_ring.c: the command ring on the host (the card's kmx_ring.c),
 * over kmrun's host ring: ctx->submit, ctx->poll and ctx->step.
 *
 * The rules are the card's, call for call — what kmx_wait and kmx_poll
 * return and keep is kmx_shared.h, the card's own code: core 0 only (the error
 * `parallel`, KMX_STOPPED otherwise); KMX_BAD without a ring (the argument
 * block's ring kind is KMX_RING_NONE) or for NULL pointers, handle 0 or a
 * handle never submitted; kmx_submit returns the stop's status (recorded
 * as how the run ended) once the run is stopping; kmx_wait keeps other
 * handles' events for kmx_poll, up to KMX_RING_KEPT, and returns KMX_FULL,
 * leaving the event in the ring, when the keep is full and the next event
 * is another handle's; it passes a wake over and keeps it (one flag, as on
 * the card) for kmx_poll; it ends at its deadline (0: none but the
 * thread's) or the thread's, or a stop, as late or stopped, which the
 * run's final state records.  kmx_poll returns the kept events first, in
 * order, then a wake, then the ring's next.
 *
 * The card's "peek, then take" becomes a one-event look-ahead: ctx->poll
 * takes an event from the host ring, and one kmx_wait could not keep
 * stays in `ring_next`, still "in the ring" for the next look.
 *
 * Time: on the card the kernel runs beside the thread; here it moves only
 * when the thread's side calls ctx->step.  So a wait steps between polls,
 * and a kmx_submit that finds the ring full and a kmx_poll that finds it
 * empty each step once before they return: a thread that retries them in
 * a loop sees the kernel move, as it would on the card. */
#include <stddef.h>

#include "kmx_host_internal.h"

void kmx_host_ring_reset(void) {
    kmx_host.ring_highest = 0;
    kmx_host.ring_has_next = 0;
    kmx_host.ring_taken.wake = 0;
    kmx_host.ring_taken.head = 0;
    kmx_host.ring_taken.count = 0;
}

/* Core 0 with a ring: KMX_OK; else the status the call returns (`call`
 * and `pc` name the call for a `parallel` error). */
static int ring_caller(uint32_t call, uint64_t pc) {
    int status = kmx_host_core0_only(call, pc);
    if (status != KMX_OK) {
        return status;
    }
    return kmx_host.ring ? KMX_OK : KMX_BAD;
}

static void step(void) {
    const kmx_host_ctx *ctx = kmx_host.ctx;
    ctx->step(ctx->ops);
}

int kmx_submit(const km_command_t *command, uint32_t *handle) {
    int status = ring_caller(KMX_API_SUBMIT, KMX_CALLER());
    if (status != KMX_OK) {
        return status;
    }
    if (command == NULL || handle == NULL) {
        return KMX_BAD;
    }
    /* A thread that retries KMX_FULL in a loop still ends at a stop. */
    KMX_RETURN_IF_STOPPING(kmx_host_stop_status(), kmx_host_ended);
    const kmx_host_ctx *ctx = kmx_host.ctx;
    uint32_t h = 0;
    status = ctx->submit(ctx->ops, command, &h);
    if (status == KMX_OK) {
        if (h > kmx_host.ring_highest) {
            kmx_host.ring_highest = h;
        }
        *handle = h;
    } else if (status == KMX_FULL) {
        step(); /* the kernel moves on while the thread retries */
    }
    return status;
}

/* The ring's next event, without taking it: KMX_OK and *e, or KMX_EMPTY. */
static int peek(km_event_t *e) {
    if (!kmx_host.ring_has_next) {
        const kmx_host_ctx *ctx = kmx_host.ctx;
        km_event_t next = {0};
        if (ctx->poll(ctx->ops, &next) != KMX_OK) {
            return KMX_EMPTY;
        }
        kmx_host.ring_next = next;
        kmx_host.ring_has_next = 1;
    }
    *e = kmx_host.ring_next;
    return KMX_OK;
}

/* Takes the event peek returned. */
static void take(void) {
    kmx_host.ring_has_next = 0;
}

/* Nothing came on this turn of a wait: the stop, the thread's deadline
 * and the call's, then the kernel moves on one pass (the host's time
 * passes while it does). */
static int idle(uint64_t deadline, unsigned turn) {
    (void)turn;
    int status = kmx_host_stop_status();
    if (status == KMX_OK && deadline != 0 && kmx_time() >= deadline) {
        status = KMX_LATE;
    }
    if (status != KMX_OK) {
        kmx_host_ended(status);
        return status;
    }
    step();
    return KMX_OK;
}

static const kmx_ring_access access = {peek, take, idle};

int kmx_wait(uint32_t handle, uint64_t deadline, kmx_event *event) {
    int status = ring_caller(KMX_API_WAIT, KMX_CALLER());
    if (status != KMX_OK) {
        return status;
    }
    if (event == NULL || handle == 0 || handle > kmx_host.ring_highest) {
        return KMX_BAD;
    }
    return kmx_events_wait(&kmx_host.ring_taken, &access, handle, deadline, event);
}

int kmx_poll(kmx_event *event) {
    int status = ring_caller(KMX_API_POLL, KMX_CALLER());
    if (status != KMX_OK) {
        return status;
    }
    if (event == NULL) {
        return KMX_BAD;
    }
    status = kmx_events_poll(&kmx_host.ring_taken, &access, event);
    if (status == KMX_EMPTY) {
        step(); /* nothing yet: the kernel moves on while the thread polls again */
    }
    return status;
}
