/* kmx_internal.h: what the runtime's own files share (not installed).
 *
 * Every area of LIM the runtime touches is reached through a volatile
 * pointer: it is shared with the other cores, the host and the NoC, and is
 * uncached.  Ordering across cores uses the fences below (RVWMO): a
 * release fence before a store that hands something over, an acquire
 * fence after the load that sees it.  The runtime's own state lives in
 * the private area (KMX_LIM_PRIVATE), never in .bss; core 0 zeroes it
 * before anything else runs. */
#ifndef KMX_INTERNAL_H
#define KMX_INTERNAL_H

#include <stdint.h>

#include "kmx.h"
#include "kmx_rules.h"
#include "kmx_shared.h"

/* The runtime's private state, at KMX_LIM_PRIVATE (layout is its own). */
typedef struct kmx_private {
    uint64_t boot;        /* the args nonce once core 0's checks passed */
    uint64_t deadline;    /* absolute mtime ticks; 0: none */
    uint32_t done;        /* core 0 has ended the run: cores 1-3 leave */
    uint32_t stop;        /* KMX_STOPPED: an error or a trap stopped the run */
    uint32_t ended;       /* KMX_STOPPED / KMX_LATE: a library wait ended so */
    uint32_t in_parallel; /* core 0 is inside kmx_parallel's function */
    uint32_t error_claim; /* atomic: the first library error */
    uint32_t trap_claim;  /* atomic: the first trap */
    uint32_t regions_ok;  /* the region checks passed: sweeps are safe */
    uint32_t in_trap[BH_CLUSTER_CORES];
    uint32_t reserved0;
    uint64_t sweep_begin[BH_CLUSTER_CORES]; /* KMX_CALL_SWEEP: each core's share */
    uint64_t sweep_end[BH_CLUSTER_CORES];
    /* KMX_CALL_PARALLEL: kmx_parallel's function and arg, one copy for
     * cores 1 to 3 (written only while all three are idle). */
    uint64_t parallel_function;
    uint64_t parallel_arg;
    /* The ring (kmx_ring.c), core 0's alone.  Addresses as core 0 reaches
     * them: through the window or the cached DRAM window. */
    uint64_t ring_commands;    /* command slot 0 */
    uint64_t ring_read_line;
    uint64_t ring_counts;
    uint64_t ring_events;      /* event slot 0 */
    uint32_t ring_kind;        /* KMX_RING_*; NONE until start-up opened it */
    uint32_t ring_command_depth;
    uint32_t ring_event_depth;
    uint32_t ring_submitted;   /* the last command's number */
    uint32_t ring_taken;       /* events taken from the ring */
    kmx_events ring_events_taken; /* kept events and a wake (kmx_shared.h) */
    /* Twelve cores (kmx_twelve.c).  The lead: windows KMX_WINDOW_CLUSTER(c)
     * onto the other clusters' LIMs once `twelve_open`; `twelve_ready` once
     * every other cluster served; the last call's number and the function
     * and arg its call lines hold (a call whose are the same writes only
     * the number).  Another cluster: KMX_WINDOW_CLUSTER(lead) onto the
     * lead's LIM once `twelve_open`; `twelve_in_call` while it runs one of
     * the lead's calls (kmx_push is allowed then), `twelve_ready` once it
     * saw the END, `twelve_sequence` the last call it saw. */
    uint64_t twelve_function;
    uint64_t twelve_arg;
    uint32_t twelve_open;
    uint32_t twelve_ready;
    uint32_t twelve_sequence;
    uint32_t twelve_sent;      /* the lead: function and arg are in every call line */
    uint32_t twelve_in_call;
    uint32_t twelve_status;    /* another cluster: the status its done line holds */
    uint32_t twelve_others;    /* the lead, once ready: the other clusters, bit c */
    uint32_t reserved1;
    /* X280 ports (kmx_ports.c).  The lead's core 0 during kmx_port_run:
     * the command's handle (0: no serve), how the serve ended (KMX_OK: by
     * the event, in port_event; KMX_STOPPED, KMX_LATE), its looks.  Every
     * core: its kmx_port_open calls, for the stop check every fourth. */
    uint32_t port_handle;
    uint32_t port_status;
    uint64_t port_watch;       /* the ring's next event slot (low word) and its
                                  index (high word), or 0: look the long way */
    uint32_t port_looks[BH_CLUSTER_CORES];
    kmx_event port_event;
} kmx_private;
_Static_assert(sizeof(kmx_private) <= KMX_LIM_PRIVATE_BYTES, "private state fits");
_Static_assert(sizeof(kmx_private) % 8u == 0, "private state is whole words");

#define KMX_P(type, address) ((volatile type *)(uintptr_t)(address))
#define KMX_ARGS KMX_P(const kmx_args, KMX_LIM_ARGS)
#define KMX_RESULT KMX_P(kmx_result_block, KMX_LIM_RESULT)
#define KMX_STOP_LINE KMX_P(kmx_stop_line, KMX_LIM_STOP)
#define KMX_MAILBOX(core) KMX_P(kmx_spawn_mailbox, KMX_LIM_SPAWN + 64u * (uint32_t)(core))
#define KMX_PRIVATE KMX_P(kmx_private, KMX_LIM_PRIVATE)

/* Below this many lines a sweep is not worth handing to other cores. */
#define KMX_SPREAD_MIN_LINES 256u
/* A wait (a worker for its next call, core 0 for a join) reads its one
 * word of LIM every turn and the stop, the deadline and the other core's
 * state every this many turns: noticing a call or a return costs one LIM
 * read, not six. */
#define KMX_WAIT_CHECK_EVERY 8u

static inline uint64_t kmx__hart(void) {
    uint64_t hart;
    __asm__ volatile("csrr %0, mhartid" : "=r"(hart));
    return hart;
}

/* Everything before (memory and I/O) is seen before everything after. */
static inline void kmx__fence(void) {
    __asm__ volatile("fence iorw, iorw" ::: "memory");
}
/* Before a store that hands data over. */
static inline void kmx__release(void) {
    __asm__ volatile("fence iorw, ow" ::: "memory");
}
/* After the load that saw the hand-over. */
static inline void kmx__acquire(void) {
    __asm__ volatile("fence ir, iorw" ::: "memory");
}

/* Never returns: the core waits for a reset. */
__attribute__((noreturn)) void kmx__park(void);

/* The hot paths (a wait's turn, a spawn) are inline: a call saves and
 * restores registers on the stack, which is in LIM at about 30 cycles a
 * word, and would cost more than the work. */

/* KMX_OK, KMX_STOPPED (stop line, or the runtime's own stop), KMX_LATE
 * (the thread's deadline). */
static inline int kmx__stop_status(void) {
    if (KMX_STOP_LINE->stop != 0 || KMX_PRIVATE->stop != 0) {
        return KMX_STOPPED;
    }
    uint64_t deadline = KMX_PRIVATE->deadline;
    if (deadline != 0 && *(volatile uint64_t *)(uintptr_t)BH_MTIME >= deadline) {
        return KMX_LATE;
    }
    return KMX_OK;
}

/* Records a library error (the first one wins) and stops the run. */
void kmx__error(uint32_t error, uint32_t detail);

/* Records that a library wait ended with KMX_STOPPED / KMX_LATE (inline:
 * a wait that calls nothing saves no registers). */
static inline void kmx__ended(int status) {
    if (kmx_status_ends_run(status)) {
        volatile kmx_private *p = KMX_PRIVATE;
        if (p->ended == 0) {
            p->ended = (uint32_t)status;
        }
    }
}

/* Records the error `parallel`, made by kmx.h call `call` (KMX_API_*)
 * returning to `pc` (KMX_CALLER()), and returns KMX_STOPPED. */
int kmx__not_core0(uint32_t call, uint64_t pc);

/* The return address of a call that makes no call of its own before it
 * reads this (only tail calls): KMX_CALLER() without the frame that
 * __builtin_return_address makes the compiler keep (a store and a load
 * of the stack, in LIM, on every call). */
#define KMX_LEAF_CALLER()                                \
    __extension__({                                      \
        uint64_t kmx_ra_;                                \
        __asm__("mv %0, ra" : "=r"(kmx_ra_));            \
        kmx_ra_;                                         \
    })

/* The address of the runtime's private state, made again where it is
 * used: a constant kept across a call would be a saved register. */
static inline __attribute__((always_inline)) volatile kmx_private *kmx__private_here(void) {
    uintptr_t at;
    __asm__ volatile("li %0, %1" : "=r"(at) : "i"(KMX_LIM_PRIVATE));
    return (volatile kmx_private *)at;
}

/* KMX_OK on core 0 outside kmx_parallel's function; else records the
 * error `parallel` (with the call and pc) and returns KMX_STOPPED. */
static inline int kmx__core0_only(uint32_t call, uint64_t pc) {
    if (kmx__hart() != 0 || KMX_PRIVATE->in_parallel) {
        int status = kmx__not_core0(call, pc);
        if (status == KMX_OK) {
            __builtin_unreachable(); /* it returns KMX_STOPPED: the caller's return
                                        of it is a tail call, and a call that
                                        reaches no other keeps no frame */
        }
        return status;
    }
    return KMX_OK;
}

/* Points NoC window `window` at (x, y), NoC address `address` (the window
 * starts at its 2 MiB boundary), in `mode`; returns the core's address of
 * `address` through it.  Target first, mode last: the store of `mode`
 * makes the window take the new target. */
static inline uint64_t kmx__open_window(uint32_t window, uint32_t x, uint32_t y,
                                        uint64_t address, uint32_t mode) {
    uint64_t base = address & ~(uint64_t)(BH_NOC_WINDOW_BYTES - 1u);
    volatile bh_noc_window_reg *w = KMX_P(bh_noc_window_reg, BH_NOC_WINDOW_REG(window));
    w->address = base;
    w->x = (uint16_t)x;
    w->y = (uint16_t)y;
    kmx__fence();
    w->mode = mode;
    kmx__fence();
    return BH_NOC_WINDOW(window) + (address - base);
}

/* The lead, core 0: the windows onto every other cluster of the image are
 * open and every one serves (kmx_parallel_all's first call does it);
 * KMX_OK, or the stop or the deadline (recorded). */
int kmx__twelve_ready(void);
/* Cluster c's LIM address lim_address through KMX_WINDOW_CLUSTER(c)
 * (open: kmx__twelve_ready). */
volatile void *kmx__peer_lim(uint32_t c, uint64_t lim_address);

/* X280 ports (kmx_ports.c): start-up opens a window onto each Tensix core
 * this cluster serves (0: a bad table, error recorded); the end clears
 * them. */
int kmx__ports_open(void);
void kmx__ports_close(void);

/* A look at Tensix core `core`'s ask in our mailbox line (kmx_port_asked
 * and the pull): the ask waiting for its answer — pending until answered
 * with its own number — as its two 8-byte halves (sequence and w[0] in
 * the low one), or 0 when there is none.  It reads the sequence, the
 * other half, then the sequence again: a newer ask that landed between
 * the loads is not taken torn (the next look takes it). */
static inline uint64_t kmx__ask_look(uint32_t core, uint64_t *high) {
    uint64_t at = KMX_LIM_PORTS + offsetof(kmx_ports_area, mailbox) +
                  (uint64_t)core * sizeof(kmx_port_mailbox);
    volatile uint64_t *ask = KMX_P(uint64_t, at + offsetof(kmx_port_mailbox, ask));
    uint32_t answered = *KMX_P(uint32_t, at + offsetof(kmx_port_mailbox, answered));
    uint64_t low = ask[0];
    uint32_t sequence = (uint32_t)low;
    if (sequence == 0 || sequence == answered) {
        return 0;
    }
    kmx__acquire();
    *high = ask[1];
    kmx__acquire();
    return (uint32_t)ask[0] == sequence ? low : 0;
}

/* The lead's core 0 (any time, also inside a parallel function): the
 * event of command `handle` if it is in the ring now (KMX_OK, taken), else
 * KMX_EMPTY; other events are kept for kmx_wait and kmx_poll as they
 * keep them (kmx_shared.h). */
int kmx__ring_look(uint32_t handle, kmx_event *event);

/* Whether the argument block is this run's (read-only; any core). */
int kmx__args_valid(void);

/* Spawn mailboxes.  busy: posted != done.  idle: the same test, giving
 * the posted count of an idle core.  post: hands core `core`, idle at
 * `posted`, a call; returns the new posted count (kmx_spawn.c says why
 * core 0 never reads `posted` back). */
static inline int kmx__busy(int core) {
    volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
    return mb->posted != mb->done;
}

/* The 8-byte word of a mailbox that holds kind (low) and posted. */
#define KMX_CALL_WORD(core) \
    KMX_P(uint64_t, (uintptr_t)KMX_MAILBOX(core) + offsetof(kmx_spawn_mailbox, kind))

/* One load: kind 0 (the core wrote it before done = posted) and posted. */
static inline int kmx__idle(int core, uint32_t *posted) {
    uint64_t word = *KMX_CALL_WORD(core);
    if ((uint32_t)word != 0) {
        return 0;
    }
    *posted = (uint32_t)(word >> 32);
    return 1;
}

/* `kind` and `posted` share one aligned 8-byte word of the line: one
 * store (a LIM access, about 30 cycles) hands over both, after the
 * release fence that orders function and arg before it; the worker that
 * sees the new `posted` sees its `kind` (the store is single-copy atomic). */
_Static_assert(offsetof(kmx_spawn_mailbox, kind) % 8u == 0 &&
                   offsetof(kmx_spawn_mailbox, posted) == offsetof(kmx_spawn_mailbox, kind) + 4u,
               "kind and posted in one 8-byte word, kind low");
static inline uint32_t kmx__post(int core, uint32_t posted, uint32_t kind, uint64_t function,
                                 uint64_t arg) {
    volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
    uint32_t next = posted + 1u;
    mb->function = function;
    mb->arg = arg;
    kmx__release();
    *KMX_CALL_WORD(core) = (uint64_t)kind | (uint64_t)next << 32;
    return next;
}


/* Start-up (core 0): checks the ring line and opens the ring's window.
 * 1, or 0 after recording the error `ring`. */
int kmx__ring_open(void);

/* Until core `core` has done `posted` (idle: its kind is 0 again) (KMX_OK),
 * left its loop or halted (KMX_STOPPED), or the run is stopping
 * (KMX_STOPPED, KMX_LATE): a join's wait (kmx_spawn.c, kmx_twelve.c). */
static inline __attribute__((always_inline)) int kmx__wait_until(int core, uint32_t posted,
                                                                 int idle) {
    volatile kmx_spawn_mailbox *mb = KMX_MAILBOX(core);
    for (unsigned turn = 1;; turn++) {
        if (idle ? mb->kind == 0 : mb->done == posted) {
            kmx__acquire();
            return KMX_OK;
        }
        if (turn % KMX_WAIT_CHECK_EVERY != 0) {
            continue;
        }
        if (mb->halted || !mb->alive) {
            kmx__ended(KMX_STOPPED);
            return KMX_STOPPED;
        }
        KMX_RETURN_IF_STOPPING(kmx__stop_status(), kmx__ended);
    }
}

/* As kmx__wait_until, for a call posted with done = posted. */
static inline __attribute__((always_inline)) int kmx__wait_done(int core, uint32_t posted) {
    return kmx__wait_until(core, posted, 0);
}

/* As kmx__wait_done, for a call posted with kmx__post: until the core's
 * kind is 0 again (it is written before done, one load a turn). */
static inline __attribute__((always_inline)) int kmx__wait_idle(int core) {
    return kmx__wait_until(core, 0, 1);
}

/* FLUSH64 sweeps over [begin, end), 64-byte aligned cached addresses
 * (kmx_cache.c): this core alone, or spread over the idle cores
 * (kmx__sweep, which returns KMX_OK: the region calls end in it). */
void kmx__sweep_lines(uint64_t begin, uint64_t end);
int kmx__sweep(uint64_t begin, uint64_t end);
void kmx__flush_all_regions(void);

/* Twelve cores (kmx_twelve.c): on the lead, once kmx_main has returned,
 * writes the END call line into every other cluster of the image (a
 * kmx_serve there returns, now or when it starts).  Nothing elsewhere. */
void kmx__twelve_end(void);

#endif
