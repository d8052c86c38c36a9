/* km_driver: the policy of a run, written once for every backend — start,
 * progress markers, the timeout and the stop, stopping the others after a
 * failure, the grace after a stop and the stuck result with its message,
 * the wall-clock limit, the final results and the device time.
 *
 * A backend (the simulated card, the host fallback, one day a real card)
 * fills km_driver_hooks: how time goes forward, how a thread's result
 * block is read, how a stop is asked, where a stuck thread's core is.  The
 * driver decides everything else, so two backends cannot differ in what a
 * run means — which is what `kmrun check` compares.
 *
 * The loop: while a thread has no final state, or host-fed commands are
 * pending before the timeout, time goes forward one slice (or, when
 * nothing can change before the next timeout or grace, straight to it);
 * then the driver reads every running thread's result block: a new
 * progress marker is reported, a final state becomes the thread's result
 * (a failure — km_state_stops_others — asks every other thread to stop);
 * a thread still running at the timeout is asked to stop, and one still
 * running `grace` after its stop is stuck (and the others are asked to
 * stop).  A Tensix handler the card took out (kernel_faults: it faulted,
 * or never gave way) fails the run the same way: the kernel stops, every
 * thread still running is asked to stop, and no host-fed command is
 * waited for any more.  Deterministic whenever the backend's time is.
 *
 * Stopped, one rule for every core: a thread has stopped once its block
 * holds a final state (core 0 writes it last) and none of cores 1-3 still
 * runs a call it was given (in_call: a spawn's, kmx_parallel's,
 * kmx_parallel_all's or a serve's function).  Core 0 gives up waiting
 * for such a core a while after a stop or the deadline and writes its
 * final state all the same, so a final state alone is not the end: the
 * thread is asked to stop then (if it was not) and, like one whose core 0
 * never wrote a state, is stuck if a core still runs `grace` after the
 * stop.  A stuck result lists every core that did not stop (core 0 while
 * no final state is written), each with its pc and source line, and names
 * the first of them that still runs (else the first). */
#ifndef KM_DRIVER_H
#define KM_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "km_error.h"
#include "km_session.h"
#include "kmx_layout.h"
#include "sim_card.h"

/* Where a stuck thread is: the core the message names, and its pc. */
typedef struct km_driver_where {
    unsigned core;
    bool pc_known;
    uint64_t pc;     /* as the result reports it (an offset in a host object) */
    bool running;    /* the core still runs (else every core waits or is halted) */
    km_source source; /* of pc */
    /* It runs in a trap loop: what is at pc (its trap handler, mtvec)
     * traps too, with this cause ("instruction access fault"). */
    bool trap_loop;
    char trap_name[64];
} km_driver_where;

/* A Tensix handler that runs this long in real time without giving way (a
 * call that spends modeled time) is endless: the card takes its core out
 * (sim_card_params.handler_spin_ms; km_kernel_fault.h).  Modeled time
 * stands still while a handler runs natively, so no modeled deadline can
 * end it; 1 s of the host's time is far beyond any handler's work between
 * two such calls. */
#define KM_HANDLER_SPIN_MS 1000u

typedef struct km_driver_hooks {
    void *ctx;
    /* This run's nonce: the host wrote it into every result block, and
     * nothing of the runtime's writes it again, so a block that holds
     * another was overwritten (a stack overflow, a wild pointer) and
     * nothing in it is believed: the thread has failed. */
    uint64_t nonce;
    /* Time: modeled (the driver's own count, moved by `advance`; the
     * results are the same every run) or the host's (`now` reads it). */
    bool modeled;
    uint64_t (*now)(void *ctx); /* picoseconds since the start; NULL when modeled */
    uint64_t slice_ps;          /* how far one look is from the next */
    /* Optional: starts the threads (the card's started at load);
     * timeout_ps is when the driver will ask the ones still running to
     * stop (a backend on the host's time may let its threads see that
     * stop on their own clock, not only when the driver gets to write
     * it). */
    int (*start)(void *ctx, uint64_t timeout_ps, km_error *err);
    /* Moves time to until_ps (modeled), or lets the threads go on a
     * while (the host's). */
    void (*advance)(void *ctx, uint64_t until_ps);
    /* Whether anything can change before an outside event (a stop, a
     * timeout): false lets modeled time jump. */
    bool (*busy)(void *ctx);
    /* Host-fed commands still without their event. */
    bool (*commands_pending)(void *ctx);
    /* The kernel stops (the timeout passed, or the run ended). */
    void (*stop_kernel)(void *ctx);
    /* Thread i's result block as it stands (a backend's own failure:
     * not KM_OK). */
    int (*read_block)(void *ctx, unsigned i, kmx_result_block *out, km_error *err);
    /* Writes thread i's stop word. */
    void (*ask_stop)(void *ctx, unsigned i);
    /* Optional: how long after another thread's failure thread i is asked
     * to stop (0: at once). */
    uint64_t (*stop_delay_ps)(void *ctx, unsigned i);
    /* The backend's part of a result built from the block: the trap's
     * name and source, a `parallel` error's source (error_pc - 1 looked
     * up, a pc inside the call), a message.  Called for a final state and
     * for a stuck thread (before it is marked stuck); then the driver
     * writes the message a result without one has (km_result_explain). */
    void (*describe)(void *ctx, unsigned i, km_thread_result *r);
    /* Where stuck thread i is: the one core the result lists.  Optional
     * with locate_core (then used only when no core is found unstopped). */
    void (*locate)(void *ctx, unsigned i, km_driver_where *w);
    /* Optional: whether core `core` (1..BH_CLUSTER_CORES-1) of thread i
     * still runs a call it was given — one that has not returned, on a
     * core that has not trapped and does not wait in wfi.  NULL: cores
     * 1-3 are never held to the stop (only core 0 is, by the block). */
    bool (*in_call)(void *ctx, unsigned i, unsigned core);
    /* Optional: where core `core` of stuck thread i is; called for each
     * core that did not stop.  NULL: `locate` gives the one core the
     * result lists. */
    void (*locate_core)(void *ctx, unsigned i, unsigned core, km_driver_where *w);
    /* The host is done with thread i (stopped, or stuck): nothing of it
     * runs on, as far as the backend can make it. */
    void (*retire)(void *ctx, unsigned i, bool stuck);
    /* Optional: how many Tensix handlers the card has taken out so far
     * (faulted, or endless): the first one fails the run — the kernel
     * stops and every thread still running is asked to stop, as after a
     * thread's failure (the core is halted for good and its command never
     * ends, so the grid is no longer whole). */
    unsigned (*kernel_faults)(void *ctx);
    /* Optional: drains the card's prints (sim_card_drain_prints), each to
     * fn; the driver calls it every KM_PRINT_DRAIN_PS of modeled time (at
     * every look on the host's time) and once after the stop. */
    void (*drain_prints)(void *ctx, sim_card_print_fn fn, void *fn_ctx);
    /* Optional, after the loop: host-fed command results and instruction
     * counts into r. */
    void (*finish)(void *ctx, km_run_result *r);
    /* Optional: thread i's timeout moved to timeout_ps (km_drive_timeout;
     * the one given to `start` until then). */
    void (*timeout)(void *ctx, unsigned i, uint64_t timeout_ps);
} km_driver_hooks;

/* How often the prints are drained in modeled time: as a card's host
 * would poll the buffers over PCIe, not at every look (1 µs), so that a
 * burst of prints fills a buffer and drops as it would on a card.  A
 * buffer holds 504 slots (126 prints of one number, 17 of a 200-byte
 * string) a drain: a core that prints a number every 4 µs keeps up. */
#define KM_PRINT_DRAIN_PS (500ull * BH_PS_PER_US)

/* Runs threads on clusters[0..n) to their final states.  timeout_ps: when
 * the ones still running are asked to stop, and the kernel stops; grace_ps:
 * then how long before one is stuck.  KM_OK with r filled (whatever the
 * threads' states), or the backend's failure, or KM_EXIT_SYSTEM when the
 * wall timeout passed.  The one-call form of what follows. */
int km_drive(const km_driver_hooks *h, const int *clusters, unsigned n, const km_run_opts *o,
             uint64_t timeout_ps, uint64_t grace_ps, km_run_result *r, km_error *err);

/* ---- a run the host steers --------------------------------------------------
 * The same loop, a piece at a time, for a host that acts between the
 * pieces (submits commands, reads a thread's result, decides when to
 * stop): km_drive_begin starts the threads; km_drive_until runs looks
 * until a goal holds or time reaches a horizon; the timeouts and the
 * kernel's stop can be moved at any point; km_drive_end stops the kernel
 * and fills what comes after the loop.  Time moves only inside
 * km_drive_until, so a run steered the same way gives the same results,
 * whatever the host does in between (modeled time). */
typedef struct km_steer km_steer;

/* Every thread (km_drive_timeout's i). */
#define KM_DRIVE_ALL UINT32_MAX

/* Starts the threads (h->start), each to be asked to stop at timeout_ps
 * (UINT64_MAX: never, until moved); the kernel runs until
 * km_drive_kernel_stop says.  r is filled as the run goes (a thread's
 * result once km_drive_thread_done) and must outlive the drive. */
int km_drive_begin(km_steer **out, const km_driver_hooks *h, const int *clusters, unsigned n,
                   const km_run_opts *o, uint64_t timeout_ps, uint64_t grace_ps,
                   km_run_result *r, km_error *err);
/* Thread i (or KM_DRIVE_ALL) is asked to stop at at_ps if it runs then
 * (at once when at_ps is past). */
void km_drive_timeout(km_steer *d, unsigned i, uint64_t at_ps);
/* The kernel stops at at_ps (its commands not yet taken are rejected,
 * pending ones never end). */
void km_drive_kernel_stop(km_steer *d, uint64_t at_ps);
/* How long a stopped thread has before it is stuck, from now on. */
void km_drive_grace(km_steer *d, uint64_t grace_ps);

/* A goal: true ends km_drive_until. */
typedef bool (*km_drive_goal)(const km_steer *d, void *ctx);
/* The goal of the one-call run: every thread is done, and no host-fed
 * command can still end (none pending, or the kernel stopped). */
bool km_drive_settled(const km_steer *d, void *ctx);

/* Looks until goal(d, ctx) holds (checked before each look) or time has
 * reached until_ps (UINT64_MAX: none).  KM_OK; a backend's failure; or
 * KM_EXIT_SYSTEM when one call took longer than the run options' wall
 * timeout (the threads are asked to stop; the drive may only be ended). */
int km_drive_until(km_steer *d, km_drive_goal goal, void *ctx, uint64_t until_ps, km_error *err);

uint64_t km_drive_now(const km_steer *d); /* picoseconds since the start */
bool km_drive_thread_done(const km_steer *d, unsigned i); /* final (or stuck) */
bool km_drive_threads_done(const km_steer *d);
/* The kernel still takes commands: not stopped, and no handler taken out. */
bool km_drive_kernel_live(const km_steer *d);

/* The kernel stops, the last prints are drained, the device time and the
 * backend's finish fill r.  Called once; after it only km_drive_free. */
void km_drive_end(km_steer *d);
void km_drive_free(km_steer *d);

#endif
