/* kmx_ports.c: X280 ports (spec "X280 ports"); the pull over them is
 * kmx_pull.c.
 *
 * The host wrote this cluster's ports table into the ports area
 * (kmx_layout.h section 7: which X280 core of this cluster serves each
 * Tensix core, its tile, its window; KMX_PORT_NONE for the rest) and the
 * settings into the argument block.  Start-up opens one posted window a
 * served core onto its tile (KMX_WINDOW_PORTS_FIRST on); the end clears
 * them.
 *
 * Tensix -> X280: a core's ask and tell land, 16 bytes at once, in its
 * mailbox line in our LIM.  A look reads sequence and first word as one
 * 8-byte load, the other two words as another, then the sequence again:
 * a message that landed between the loads is not taken (it is seen on the
 * next look).
 *
 * X280 -> Tensix: an answer or a tell is two 8-byte stores through the
 * core's window into its control block's slot, low half first; the slot
 * lands the 16 bytes as one write with the high half (never torn).
 *
 * The serve: kmx_port_run writes OPEN and a new sequence into every
 * cluster's ports line, submits the command and runs the function on
 * every core of the group (kmx_parallel_all).  Every fourth
 * kmx_port_open, the lead's core 0 looks at its ring for the command's
 * event (and at the stop and the deadline), and when it comes writes
 * ENDED into every cluster's ports line; any other core looks at the stop
 * and the deadline.  A core's kmx_port_open returns 0 once its line is not
 * OPEN, and nothing is stored into a Tensix core when it is not. */
#include "kmx_internal.h"

#define PORTS KMX_P(kmx_ports_area, KMX_LIM_PORTS)
#define LOOK_EVERY 4u
/* A mailbox field's address as a number: read as 8-byte halves. */
#define MAILBOX_AT(core, field)                                                               \
    (KMX_LIM_PORTS + offsetof(kmx_ports_area, mailbox) +                                       \
     (uint64_t)(core) * sizeof(kmx_port_mailbox) + offsetof(kmx_port_mailbox, field))

/* ---- start-up and end ------------------------------------------------------ */

/* Opens (mode posted) or closes (BH_NOC_OFF) the window onto every core
 * the table says this cluster serves, checking each entry: how many, or
 * -1 - core for the first bad entry. */
static int each_served(uint32_t mode) {
    const volatile kmx_ports_settings *s = &KMX_ARGS->ports;
    volatile kmx_ports_area *a = PORTS;
    uint32_t served = 0;
    for (uint32_t core = 0; core < BH_GRID_CORES; core++) {
        volatile kmx_port_entry *e = &a->table[core];
        uint32_t x280 = e->x280_core;
        if (x280 == KMX_PORT_NONE) {
            continue;
        }
        uint32_t window = e->window;
        if (x280 >= BH_CLUSTER_CORES || window < KMX_WINDOW_PORTS_FIRST ||
            window >= KMX_WINDOW_PORTS_FIRST + KMX_WINDOW_PORTS_COUNT || core >= s->cores) {
            return -1 - (int)core;
        }
        if (mode == BH_NOC_OFF) {
            KMX_P(bh_noc_window_reg, BH_NOC_WINDOW_REG(window))->mode = BH_NOC_OFF;
        } else {
            (void)kmx__open_window(window, e->noc_x, e->noc_y, KM_CONTROL_X280_L1, mode);
        }
        served++;
    }
    return (int)served;
}

int kmx__ports_open(void) {
    const volatile kmx_ports_settings *s = &KMX_ARGS->ports;
    if (!s->enabled) {
        return 1;
    }
    uint32_t detail = BH_GRID_CORES;
    if (s->window_first == KMX_WINDOW_PORTS_FIRST && s->control == KM_CONTROL_X280_L1 &&
        s->cores <= BH_GRID_CORES && s->served <= KMX_WINDOW_PORTS_COUNT) {
        int served = each_served(BH_NOC_POSTED);
        if (served == (int)s->served) {
            kmx__fence();
            return 1;
        }
        detail = served < 0 ? (uint32_t)(-1 - served) : BH_GRID_CORES;
    }
    kmx__error(KMX_ERROR_PORTS, detail);
    return 0;
}

void kmx__ports_close(void) {
    if (KMX_ARGS->ports.enabled) {
        kmx__fence(); /* what was stored through them has left */
        (void)each_served(BH_NOC_OFF);
    }
}

/* ---- the table ------------------------------------------------------------- */

int kmx_port_cores(void) {
    return (int)KMX_ARGS->ports.cores;
}

int kmx_port_owner(int core) {
    if ((unsigned)core >= BH_GRID_CORES) {
        return -1;
    }
    uint32_t x280 = PORTS->table[core].x280_core;
    return x280 == KMX_PORT_NONE ? -1 : (int)x280;
}

/* The window onto `core` when the calling X280 core serves it, else 0
 * (one LIM read: the entry's first eight bytes). */
static uint32_t window_of(int core) {
    _Static_assert(offsetof(kmx_port_entry, x280_core) == 0 &&
                       offsetof(kmx_port_entry, window) == 4,
                   "an entry's owner and window in one 8-byte load");
    if ((unsigned)core >= BH_GRID_CORES) {
        return 0;
    }
    uint64_t entry = *KMX_P(uint64_t, KMX_LIM_PORTS + offsetof(kmx_ports_area, table) +
                                          (uint64_t)core * sizeof(kmx_port_entry));
    if ((entry & 0xFFu) != kmx__hart()) {
        return 0;
    }
    return (uint32_t)(entry >> 32) & 0xFFFFu;
}

static int serving(void) {
    return PORTS->line.state == KMX_PORTS_OPEN;
}

/* A message into the core's control block through its window. */
static void store_message(uint32_t window, uint32_t offset, uint32_t sequence, uint32_t w0,
                          uint32_t w1, uint32_t w2) {
    volatile uint64_t *slot = KMX_P(uint64_t, BH_NOC_WINDOW(window) + KM_CONTROL_X280_L1 + offset);
    slot[0] = (uint64_t)sequence | (uint64_t)w0 << 32;
    slot[1] = (uint64_t)w1 | (uint64_t)w2 << 32;
}

/* A message as its two 8-byte halves into the caller's *message. */
static void write_message(kmx_message *message, uint64_t low, uint64_t high) {
    uint32_t sequence = (uint32_t)low;
    if (((uintptr_t)message & 7u) == 0) {
        /* Two stores, not four: the caller's message is on its stack, in
         * LIM, at 30 cycles a store. */
        volatile uint64_t *to = KMX_P(uint64_t, message);
        to[0] = low;
        to[1] = high;
    } else {
        message->sequence = sequence;
        message->w[0] = (uint32_t)(low >> 32);
        message->w[1] = (uint32_t)high;
        message->w[2] = (uint32_t)(high >> 32);
    }
}

/* The rest of a message in our mailbox line (a tell) whose first half read
 * `low`: KMX_OK and *message as it was at one instant, or KMX_EMPTY when a
 * newer one landed as we read (the next look takes it). */
static int read_rest(uint64_t from, uint64_t low, kmx_message *message) {
    volatile uint64_t *half = KMX_P(uint64_t, from);
    kmx__acquire();
    uint64_t high = half[1];
    kmx__acquire();
    if ((uint32_t)half[0] != (uint32_t)low) {
        return KMX_EMPTY;
    }
    write_message(message, low, high);
    return KMX_OK;
}

/* ---- the calls ------------------------------------------------------------- */

int kmx_port_tell(int core, uint32_t w0, uint32_t w1, uint32_t w2) {
    uint32_t window = window_of(core);
    if (window == 0 || !serving()) {
        return KMX_BAD;
    }
    /* The sequence: one atomic add on `told` (one LIM transaction, not a
     * load and a store; only this X280 core writes it). */
    volatile uint32_t *told = KMX_P(uint32_t, MAILBOX_AT(core, told));
    uint32_t sequence = __atomic_add_fetch(told, 1u, __ATOMIC_RELAXED);
    if (sequence == 0) {
        sequence = __atomic_add_fetch(told, 1u, __ATOMIC_RELAXED); /* 0 is "none" */
    }
    store_message(window, KM_X280_TELL_OFFSET, sequence, w0, w1, w2);
    return KMX_OK;
}

int kmx_port_asked(int core, kmx_message *message) {
    if (window_of(core) == 0 || message == 0) {
        return KMX_BAD;
    }
    uint64_t high, low = kmx__ask_look((uint32_t)core, &high);
    if (low == 0) {
        return KMX_EMPTY;
    }
    write_message(message, low, high);
    return KMX_OK;
}

int kmx_port_answer(int core, uint32_t sequence, uint32_t w0, uint32_t w1, uint32_t w2) {
    uint32_t window = window_of(core);
    if (window == 0 || !serving()) {
        return KMX_BAD;
    }
    store_message(window, KM_X280_ANSWER_OFFSET, sequence, w0, w1, w2);
    PORTS->mailbox[core].answered = sequence;
    return KMX_OK;
}

/* One look for a tell newer than the last one looked at (sequences
 * wrap): KMX_OK and *message, or KMX_EMPTY. */
static inline int look_tell(int core, kmx_message *message) {
    volatile kmx_port_mailbox *m = &PORTS->mailbox[core];
    uint64_t low = *KMX_P(uint64_t, MAILBOX_AT(core, tell));
    uint32_t sequence = (uint32_t)low;
    if (sequence == 0 || (int32_t)(sequence - m->seen_tell) <= 0 ||
        read_rest(MAILBOX_AT(core, tell), low, message) != KMX_OK) {
        return KMX_EMPTY;
    }
    m->seen_tell = sequence;
    return KMX_OK;
}

/* Looks until a tell, the deadline, the stop or the thread's deadline
 * (not inlined: the one look keeps no frame on the stack, which is LIM). */
static __attribute__((noinline)) int wait_tell(int core, kmx_message *message,
                                               uint64_t deadline) {
    for (unsigned turn = 1;; turn++) {
        if (look_tell(core, message) == KMX_OK) {
            return KMX_OK;
        }
        if (kmx_time() >= deadline) {
            return KMX_EMPTY;
        }
        if (turn % KMX_WAIT_CHECK_EVERY == 0) {
            KMX_RETURN_IF_STOPPING(kmx__stop_status(), kmx__ended);
        }
    }
}

int kmx_port_told(int core, kmx_message *message, uint64_t deadline) {
    if (window_of(core) == 0 || message == 0) {
        return KMX_BAD;
    }
    int status = look_tell(core, message);
    if (status == KMX_OK || deadline == 0) {
        return status;
    }
    return wait_tell(core, message, deadline);
}

/* ---- the serve ------------------------------------------------------------- */

/* The lead: `state` into every cluster's ports line (8 bytes: state and
 * sequence; the others' through their windows, non-posted). */
static void set_lines(uint32_t state, uint32_t sequence) {
    uint64_t line = (uint64_t)state | (uint64_t)sequence << 32;
    *KMX_P(uint64_t, KMX_LIM_PORTS + offsetof(kmx_ports_area, line)) = line;
    KMX_EACH_CLUSTER(c, KMX_PRIVATE->twelve_others) {
        *(volatile uint64_t *)kmx__peer_lim(c, KMX_LIM_PORTS) = line;
    }
}

/* Where the ring's next event will land, for the quick look: the slot's
 * address and the index it will carry (a ring in our LIM; a cached one is
 * always looked at the long way). */
static void watch_ring(void) {
    volatile kmx_private *p = KMX_PRIVATE;
    uint32_t want = p->ring_taken + 1u;
    p->port_watch = p->ring_kind != KMX_RING_REMOTE
                        ? 0
                        : (p->ring_events + (uint64_t)(want % p->ring_event_depth) *
                                                sizeof(km_event_t)) |
                              (uint64_t)want << 32;
}

/* The lead's core 0, every fourth kmx_port_open, when the ring's next
 * slot has an event or the quick look cannot tell: the stop, the
 * deadline, the command's event.  0 once the serve ended (ENDED
 * everywhere). */
static __attribute__((noinline)) int lead_look(void) {
    volatile kmx_private *p = KMX_PRIVATE;
    int status = kmx__stop_status();
    if (status == KMX_OK) {
        kmx_event event;
        int found = kmx__ring_look(p->port_handle, &event);
        watch_ring(); /* whatever was taken (a wake, another command's event) */
        if (found != KMX_OK) {
            return 1;
        }
        p->port_event = event;
    } else {
        kmx__ended(status);
    }
    p->port_status = (uint32_t)status;
    p->port_handle = 0;
    set_lines(KMX_PORTS_ENDED, PORTS->line.sequence);
    return 0;
}

int kmx_port_open(void) {
    if (!serving()) {
        return 0;
    }
    uint64_t core = kmx__hart();
    volatile kmx_private *p = KMX_PRIVATE;
    uint32_t looks = p->port_looks[core] + 1u;
    p->port_looks[core] = looks;
    if (looks % LOOK_EVERY != 0) {
        return 1;
    }
    int status = kmx__stop_status();
    if (core == 0 && p->port_handle != 0) {
        /* The quick look: one read of the slot the next event lands in. */
        uint64_t watch = p->port_watch;
        if (status == KMX_OK && watch != 0 &&
            KMX_P(km_event_t, (uint32_t)watch)->index != (uint32_t)(watch >> 32)) {
            return 1;
        }
        return lead_look();
    }
    kmx__ended(status);
    return status == KMX_OK;
}

int kmx_port_run(const km_command_t *command, kmx_cluster_function function, uint64_t arg,
                 kmx_event *event) {
    KMX_ENTRY_OR_RETURN(kmx__core0_only(KMX_API_PORT_RUN, KMX_CALLER()),
                        KMX_PARALLEL_ALL_REFUSED(function),
                        kmx__stop_status());
    if (command == 0 || event == 0 || !KMX_ARGS->ports.enabled) {
        return KMX_BAD;
    }
    int status = kmx__twelve_ready();
    if (status != KMX_OK) {
        return status;
    }
    uint32_t handle;
    status = kmx_submit(command, &handle);
    if (status != KMX_OK) {
        return status;
    }
    volatile kmx_private *p = KMX_PRIVATE;
    p->port_status = KMX_OK;
    p->port_handle = handle;
    watch_ring();
    set_lines(KMX_PORTS_OPEN, PORTS->line.sequence + 1u);
    status = kmx_parallel_all(function, arg);
    if (p->port_handle != 0) {
        /* Every function returned before the event: the serve ends now,
         * and the event is waited for. */
        p->port_handle = 0;
        set_lines(KMX_PORTS_ENDED, PORTS->line.sequence);
        int waited = kmx_wait(handle, 0, event);
        return status != KMX_OK ? status : waited;
    }
    if (p->port_status != KMX_OK) {
        return (int)p->port_status;
    }
    if (status != KMX_OK) {
        return status;
    }
    *event = p->port_event;
    return KMX_OK;
}
