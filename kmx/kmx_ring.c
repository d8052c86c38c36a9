/* kmx_ring.c: the thread's command ring (spec "The command ring";
 * kmx_layout.h section 3 is the protocol, KMX_DISPATCH_RING_AREA where the
 * session puts it).
 *
 * Core 0 alone writes commands and reads events, so the ring's state is
 * plain words of the private area.  kmx_submit writes a command's 48
 * bytes of words, then (after a fence) its number and landing words as two
 * 8-byte stores: whichever lands first, the kernel takes the line only
 * when both have (the number and ~number must agree), and the landing
 * words tie them to the words.  An event is taken when its index reads
 * the same before and after its fields; `taken` then goes to the read
 * line, which frees the slot.
 *
 * KMX_RING_REMOTE: command lines and read line through the NoC window
 * start-up opened (posted stores), counts and events in our own LIM;
 * nothing is cached, nothing is swept.  KMX_RING_CACHED: all four in
 * cached lines of our bank, so a command line is flushed after it is
 * written, and the counts line and an event's line are dropped before each
 * read (the kernel writes them around the cache). */
#include "kmx_internal.h"

#define RING_LINE(address) ((address) & ~(uint64_t)(KMX_LINE_BYTES - 1u))

static int pow2(uint32_t v) {
    return v != 0 && (v & (v - 1u)) == 0;
}

/* [at, at + bytes) inside the bank and whole lines. */
static int bank_lines(uint64_t at, uint64_t bytes) {
    return at % KMX_LINE_BYTES == 0 && at < KMX_BANK_BYTES && bytes <= KMX_BANK_BYTES - at;
}

/* [at, at + bytes) clear of every region and of the check line. */
static int clear_of_regions(uint64_t at, uint64_t bytes) {
    const volatile kmx_args *a = KMX_ARGS;
    uint64_t line = a->check.bank_address;
    if (at < line + KMX_LINE_BYTES && line < at + bytes) {
        return 0;
    }
    for (uint32_t id = 0; id < a->nregions; id++) {
        uint64_t r = a->regions[id].bank_address;
        if (at < r + a->regions[id].bytes && r < at + bytes) {
            return 0;
        }
    }
    return 1;
}

static int open_remote(const volatile kmx_ring_descriptor *d, volatile kmx_private *p) {
    uint64_t base = d->commands & ~(uint64_t)(KMX_NOC_WINDOW_BYTES - 1u);
    uint64_t commands_end = d->commands + (uint64_t)d->command_depth * sizeof(km_command_line);
    if (d->window != KMX_WINDOW_RING || d->counts != KMX_LIM_RING_COUNTS ||
        d->events != KMX_LIM_RING_EVENTS ||
        d->event_depth * (uint32_t)sizeof(km_event_t) > KMX_LIM_RING_EVENTS_BYTES ||
        d->commands % KMX_LINE_BYTES != 0 || d->read_line % KMX_LINE_BYTES != 0 ||
        commands_end > base + KMX_NOC_WINDOW_BYTES || d->read_line < base ||
        d->read_line + KMX_LINE_BYTES > base + KMX_NOC_WINDOW_BYTES ||
        (d->read_line < commands_end && d->commands < d->read_line + KMX_LINE_BYTES)) {
        return 0;
    }
    /* Target first, mode last: the mode's store makes the window take it. */
    volatile kmx_noc_window_reg *w = KMX_P(kmx_noc_window_reg, KMX_NOC_WINDOW_REG(KMX_WINDOW_RING));
    w->address = base;
    w->x = d->noc_x;
    w->y = d->noc_y;
    kmx__fence();
    w->mode = KMX_NOC_POSTED;
    kmx__fence();
    uint64_t window = KMX_NOC_WINDOW(KMX_WINDOW_RING);
    p->ring_commands = window + (d->commands - base);
    p->ring_read_line = window + (d->read_line - base);
    p->ring_counts = d->counts;
    p->ring_events = d->events;
    return 1;
}

static int open_cached(const volatile kmx_ring_descriptor *d, volatile kmx_private *p) {
    uint64_t commands = (uint64_t)d->command_depth * sizeof(km_command_line);
    uint64_t events = (uint64_t)d->event_depth * sizeof(km_event_t);
    if (!bank_lines(d->commands, commands) || !bank_lines(d->read_line, KMX_LINE_BYTES) ||
        !bank_lines(d->counts, KMX_LINE_BYTES) || !bank_lines(d->events, events) ||
        !clear_of_regions(d->commands, commands) || !clear_of_regions(d->read_line, KMX_LINE_BYTES) ||
        !clear_of_regions(d->counts, KMX_LINE_BYTES) || !clear_of_regions(d->events, events)) {
        return 0;
    }
    p->ring_commands = KMX_DRAM_CACHED(d->commands);
    p->ring_read_line = KMX_DRAM_CACHED(d->read_line);
    p->ring_counts = KMX_DRAM_CACHED(d->counts);
    p->ring_events = KMX_DRAM_CACHED(d->events);
    return 1;
}

int kmx__ring_open(void) {
    const volatile kmx_ring_descriptor *d = &KMX_ARGS->ring;
    volatile kmx_private *p = KMX_PRIVATE;
    uint32_t kind = d->kind;
    p->ring_kind = KMX_RING_NONE;
    if (kind == KMX_RING_NONE) {
        return 1;
    }
    int ok = (kind == KMX_RING_REMOTE || kind == KMX_RING_CACHED) && pow2(d->command_depth) &&
             d->command_depth <= KMX_RING_COMMANDS_MAX && pow2(d->event_depth) &&
             d->event_depth <= KMX_RING_EVENTS_MAX;
    if (ok) {
        ok = kind == KMX_RING_REMOTE ? open_remote(d, p) : open_cached(d, p);
    }
    if (!ok) {
        kmx__error(KMX_ERROR_RING, kind);
        return 0;
    }
    p->ring_command_depth = d->command_depth;
    p->ring_event_depth = d->event_depth;
    kmx__fence();
    p->ring_kind = kind;
    return 1;
}

/* ---- the calls ------------------------------------------------------------ */

/* Core 0 with a ring: KMX_OK; else the status the call returns. */
static int ring_caller(void) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    return KMX_PRIVATE->ring_kind == KMX_RING_NONE ? KMX_BAD : KMX_OK;
}

static int cached(void) {
    return KMX_PRIVATE->ring_kind == KMX_RING_CACHED;
}

/* Drops a line the kernel writes around the cache, so the next read
 * fetches it from the bank. */
static void drop_line(uint64_t address) {
    if (cached()) {
        kmx__sweep_lines(RING_LINE(address), RING_LINE(address) + KMX_LINE_BYTES);
    }
}

/* Writes back a line we wrote, so the kernel reads it from the bank. */
static void push_line(uint64_t address) {
    if (cached()) {
        kmx__sweep_lines(RING_LINE(address), RING_LINE(address) + KMX_LINE_BYTES);
    }
}

int kmx_submit(const km_command_t *command, uint32_t *handle) {
    int status = ring_caller();
    if (status != KMX_OK) {
        return status;
    }
    if (command == 0 || handle == 0) {
        return KMX_BAD;
    }
    /* A thread that retries KMX_FULL in a loop still ends at a stop. */
    status = kmx__stop_status();
    if (status != KMX_OK) {
        kmx__ended(status);
        return status;
    }
    volatile kmx_private *p = KMX_PRIVATE;
    uint32_t i = p->ring_submitted + 1u;
    uint32_t depth = p->ring_command_depth;
    if (i > depth) {
        /* Slot i % depth still holds command i - depth until consumed. */
        drop_line(p->ring_counts);
        uint32_t consumed = KMX_P(kmx_ring_counts, p->ring_counts)->consumed;
        if (consumed < i - depth) {
            return KMX_FULL;
        }
        kmx__acquire();
    }
    uint64_t at = p->ring_commands + (uint64_t)(i % depth) * sizeof(km_command_line);
    volatile uint64_t *line = KMX_P(uint64_t, at);
    const uint32_t *words = &command->hdr;
    for (unsigned k = 0; k < sizeof(km_command_t) / 8u; k++) {
        line[k] = (uint64_t)words[2 * k] | (uint64_t)words[2 * k + 1] << 32;
    }
    kmx__release(); /* the words land before the number */
    line[6] = (uint64_t)i | (uint64_t)command->hdr << 32;   /* sequence, land[0] */
    line[7] = (uint64_t)command->group | (uint64_t)~i << 32; /* land[1], land[2] */
    push_line(at);
    p->ring_submitted = i;
    *handle = i;
    return KMX_OK;
}

/* The ring's next event if it is whole: KMX_OK and *e, without taking it. */
static int peek(km_event_t *e) {
    volatile kmx_private *p = KMX_PRIVATE;
    uint32_t want = p->ring_taken + 1u;
    uint64_t at = p->ring_events + (uint64_t)(want % p->ring_event_depth) * sizeof(km_event_t);
    volatile km_event_t *slot = KMX_P(km_event_t, at);
    drop_line(at);
    if (slot->index != want) {
        return KMX_EMPTY;
    }
    kmx__acquire();
    e->kind = slot->kind;
    e->reason = slot->reason;
    e->handle = slot->handle;
    e->ticks = slot->ticks;
    kmx__acquire();
    if (slot->index != want) {
        return KMX_EMPTY; /* rewritten while we read: not this event */
    }
    e->index = want;
    return KMX_OK;
}

/* Takes the event peek returned: the kernel may reuse its slot. */
static void take(void) {
    volatile kmx_private *p = KMX_PRIVATE;
    uint32_t taken = p->ring_taken + 1u;
    p->ring_taken = taken;
    kmx__fence(); /* the event's reads are done before the slot is given back */
    KMX_P(kmx_ring_read_line, p->ring_read_line)->taken = taken;
    push_line(p->ring_read_line);
}

static void to_event(const km_event_t *e, kmx_event *out) {
    out->kind = e->kind;
    out->reason = e->reason;
    out->handle = e->handle;
    out->ticks = e->ticks;
}

static void keep(const km_event_t *e) {
    volatile kmx_private *p = KMX_PRIVATE;
    volatile km_event_t *k = &p->ring_kept[(p->ring_kept_head + p->ring_kept_count) % KMX_RING_KEPT];
    k->index = e->index;
    k->kind = e->kind;
    k->reason = e->reason;
    k->handle = e->handle;
    k->ticks = e->ticks;
    p->ring_kept_count++;
}

/* Removes kept event n (0 = the oldest) into *out, keeping the order. */
static void unkeep(uint32_t n, kmx_event *out) {
    volatile kmx_private *p = KMX_PRIVATE;
    uint32_t head = p->ring_kept_head;
    volatile km_event_t *kept = p->ring_kept;
    const volatile km_event_t *e = &kept[(head + n) % KMX_RING_KEPT];
    out->kind = e->kind;
    out->reason = e->reason;
    out->handle = e->handle;
    out->ticks = e->ticks;
    /* Close the gap from the front: the older ones move up one. */
    for (uint32_t k = n; k > 0; k--) {
        volatile km_event_t *to = &kept[(head + k) % KMX_RING_KEPT];
        const volatile km_event_t *from = &kept[(head + k - 1u) % KMX_RING_KEPT];
        to->index = from->index;
        to->kind = from->kind;
        to->reason = from->reason;
        to->handle = from->handle;
        to->ticks = from->ticks;
    }
    p->ring_kept_head = (head + 1u) % KMX_RING_KEPT;
    p->ring_kept_count--;
}

int kmx_wait(uint32_t handle, uint64_t deadline, kmx_event *event) {
    int status = ring_caller();
    if (status != KMX_OK) {
        return status;
    }
    volatile kmx_private *p = KMX_PRIVATE;
    if (event == 0 || handle == 0 || handle > p->ring_submitted) {
        return KMX_BAD;
    }
    for (uint32_t n = 0; n < p->ring_kept_count; n++) {
        if (p->ring_kept[(p->ring_kept_head + n) % KMX_RING_KEPT].handle == handle) {
            unkeep(n, event);
            return KMX_OK;
        }
    }
    for (unsigned turn = 1;; turn++) {
        km_event_t e;
        if (peek(&e) == KMX_OK) {
            if (e.kind == KMX_EVENT_WAKE) {
                take();
                p->ring_wake = 1; /* for kmx_poll: the thread resubmits after it */
                continue;
            }
            if (e.handle == handle) {
                take();
                to_event(&e, event);
                return KMX_OK;
            }
            if (p->ring_kept_count == KMX_RING_KEPT) {
                /* Left in the ring, not lost: kmx_poll takes it in turn. */
                return KMX_FULL;
            }
            take();
            keep(&e);
            turn = 0;
            continue;
        }
        /* The stop, the thread's deadline and the call's every few turns:
         * an empty turn is one LIM read. */
        if (turn % KMX_WAIT_CHECK_EVERY == 0) {
            status = kmx__stop_status();
            if (status == KMX_OK && deadline != 0 && kmx_time() >= deadline) {
                status = KMX_LATE;
            }
            if (status != KMX_OK) {
                kmx__ended(status);
                return status;
            }
        }
    }
}

int kmx_poll(kmx_event *event) {
    int status = ring_caller();
    if (status != KMX_OK) {
        return status;
    }
    volatile kmx_private *p = KMX_PRIVATE;
    if (event == 0) {
        return KMX_BAD;
    }
    if (p->ring_kept_count > 0) {
        unkeep(0, event);
        return KMX_OK;
    }
    km_event_t e;
    if (p->ring_wake == 0 && peek(&e) == KMX_OK) {
        take();
        if (e.kind != KMX_EVENT_WAKE) {
            to_event(&e, event);
            return KMX_OK;
        }
        p->ring_wake = 1;
    }
    if (p->ring_wake != 0) {
        p->ring_wake = 0;
        event->kind = KMX_EVENT_WAKE;
        event->reason = KM_REASON_NONE;
        event->handle = 0;
        event->ticks = 0;
        return KMX_OK;
    }
    return KMX_EMPTY;
}
