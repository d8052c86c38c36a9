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

#define RING_LINE(address) ((address) & ~(uint64_t)(BH_LINE_BYTES - 1u))

static int pow2(uint32_t v) {
    return v != 0 && (v & (v - 1u)) == 0;
}

/* [at, at + bytes) inside the bank and whole lines. */
static int bank_lines(uint64_t at, uint64_t bytes) {
    return at % BH_LINE_BYTES == 0 && at < BH_BANK_BYTES && bytes <= BH_BANK_BYTES - at;
}

/* [at, at + bytes) clear of every region and of the check line. */
static int clear_of_regions(uint64_t at, uint64_t bytes) {
    const volatile kmx_args *a = KMX_ARGS;
    uint64_t line = a->check.bank_address;
    if (at < line + BH_LINE_BYTES && line < at + bytes) {
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
    uint64_t base = d->commands & ~(uint64_t)(BH_NOC_WINDOW_BYTES - 1u);
    uint64_t commands_end = d->commands + (uint64_t)d->command_depth * sizeof(km_command_line);
    if (d->window != KMX_WINDOW_RING || d->counts != KMX_LIM_RING_COUNTS ||
        d->events != KMX_LIM_RING_EVENTS ||
        d->event_depth * (uint32_t)sizeof(km_event_t) > KMX_LIM_RING_EVENTS_BYTES ||
        d->commands % BH_LINE_BYTES != 0 || d->read_line % BH_LINE_BYTES != 0 ||
        commands_end > base + BH_NOC_WINDOW_BYTES || d->read_line < base ||
        d->read_line + BH_LINE_BYTES > base + BH_NOC_WINDOW_BYTES ||
        (d->read_line < commands_end && d->commands < d->read_line + BH_LINE_BYTES)) {
        return 0;
    }
    /* Target first, mode last: the mode's store makes the window take it. */
    volatile bh_noc_window_reg *w = KMX_P(bh_noc_window_reg, BH_NOC_WINDOW_REG(KMX_WINDOW_RING));
    w->address = base;
    w->x = d->noc_x;
    w->y = d->noc_y;
    kmx__fence();
    w->mode = BH_NOC_POSTED;
    kmx__fence();
    uint64_t window = BH_NOC_WINDOW(KMX_WINDOW_RING);
    p->ring_commands = window + (d->commands - base);
    p->ring_read_line = window + (d->read_line - base);
    p->ring_counts = d->counts;
    p->ring_events = d->events;
    return 1;
}

static int open_cached(const volatile kmx_ring_descriptor *d, volatile kmx_private *p) {
    uint64_t commands = (uint64_t)d->command_depth * sizeof(km_command_line);
    uint64_t events = (uint64_t)d->event_depth * sizeof(km_event_t);
    if (!bank_lines(d->commands, commands) || !bank_lines(d->read_line, BH_LINE_BYTES) ||
        !bank_lines(d->counts, BH_LINE_BYTES) || !bank_lines(d->events, events) ||
        !clear_of_regions(d->commands, commands) || !clear_of_regions(d->read_line, BH_LINE_BYTES) ||
        !clear_of_regions(d->counts, BH_LINE_BYTES) || !clear_of_regions(d->events, events)) {
        return 0;
    }
    p->ring_commands = BH_DRAM_CACHED(d->commands);
    p->ring_read_line = BH_DRAM_CACHED(d->read_line);
    p->ring_counts = BH_DRAM_CACHED(d->counts);
    p->ring_events = BH_DRAM_CACHED(d->events);
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
    int ok = kmx_ring_kind_known(kind) && pow2(d->command_depth) &&
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

/* Core 0 with a ring: KMX_OK; else the status the call returns (`call`
 * and `pc` name the call for a `parallel` error). */
static int ring_caller(uint32_t call, uint64_t pc) {
    int status = kmx__core0_only(call, pc);
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
        kmx__sweep_lines(RING_LINE(address), RING_LINE(address) + BH_LINE_BYTES);
    }
}

/* Writes back a line we wrote, so the kernel reads it from the bank. */
static void push_line(uint64_t address) {
    if (cached()) {
        kmx__sweep_lines(RING_LINE(address), RING_LINE(address) + BH_LINE_BYTES);
    }
}

int kmx_submit(const km_command_t *command, uint32_t *handle) {
    int status = ring_caller(KMX_API_SUBMIT, KMX_CALLER());
    if (status != KMX_OK) {
        return status;
    }
    if (command == 0 || handle == 0) {
        return KMX_BAD;
    }
    /* A thread that retries KMX_FULL in a loop still ends at a stop. */
    KMX_RETURN_IF_STOPPING(kmx__stop_status(), kmx__ended);
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

/* Nothing came on this turn of a wait: the stop, the thread's deadline
 * and the call's every few turns (an empty turn is one LIM read). */
static int idle(uint64_t deadline, unsigned turn) {
    if (turn % KMX_WAIT_CHECK_EVERY != 0) {
        return KMX_OK;
    }
    int status = kmx__stop_status();
    if (status == KMX_OK && deadline != 0 && kmx_time() >= deadline) {
        status = KMX_LATE;
    }
    kmx__ended(status);
    return status;
}

static const kmx_ring_access access = {peek, take, idle};

/* Core 0's alone (ring_caller checked): its taken events as plain memory. */
static kmx_events *taken_events(void) {
    return (kmx_events *)(uintptr_t)&KMX_PRIVATE->ring_events_taken;
}

/* One look: nothing there ends the "wait" at once. */
static int idle_once(uint64_t deadline, unsigned turn) {
    (void)deadline, (void)turn;
    return KMX_EMPTY;
}

static const kmx_ring_access look_once = {peek, take, idle_once};

int kmx__ring_look(uint32_t handle, kmx_event *event) {
    if (KMX_PRIVATE->ring_kind == KMX_RING_NONE) {
        return KMX_EMPTY;
    }
    return kmx_events_wait(taken_events(), &look_once, handle, 0, event);
}

int kmx_wait(uint32_t handle, uint64_t deadline, kmx_event *event) {
    int status = ring_caller(KMX_API_WAIT, KMX_CALLER());
    if (status != KMX_OK) {
        return status;
    }
    if (event == 0 || handle == 0 || handle > KMX_PRIVATE->ring_submitted) {
        return KMX_BAD;
    }
    return kmx_events_wait(taken_events(), &access, handle, deadline, event);
}

int kmx_poll(kmx_event *event) {
    int status = ring_caller(KMX_API_POLL, KMX_CALLER());
    if (status != KMX_OK) {
        return status;
    }
    if (event == 0) {
        return KMX_BAD;
    }
    return kmx_events_poll(taken_events(), &access, event);
}
