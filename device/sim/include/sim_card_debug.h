/* sim_card_debug: looking into the work clusters' X280 cores while the
 * card runs, and holding them — what kmrun's debugger (`kmrun run --gdb`)
 * and its timeline (`kmrun run --timeline`) are built on.
 *
 * An observer is a function the card calls from inside sim_card_step, on
 * the owner's thread, at an event of one core: before an instruction at a
 * probed pc, before an access to a watched range, after each instruction
 * of a core being stepped, before a trap is taken, and when a pause was
 * asked for.  While it is called, the core is as of the event (its pc,
 * registers and time), every other core is between two instructions, and
 * nothing runs: the callee may take as long as it likes (a debugger waits
 * there for its client), read and write registers and memory through the
 * functions below (the core's pc too: it goes on from there), and change
 * the probes, watches and stepping (they take effect before the core's
 * next instruction).  It must not step the card.
 *
 * Observing costs no modeled time and changes nothing a program sees: a
 * run with observers, paused and stepped, gives the same results and the
 * same modeled times as one without.  A card nobody observes pays one
 * pointer test per quantum. */
#ifndef SIM_CARD_DEBUG_H
#define SIM_CARD_DEBUG_H

#include <stdbool.h>
#include <stdint.h>

#include "ks_error.h"
#include "sim_card.h"
#include "sim_reg.h"

/* Who observes: each has its own probes, and may come and go on its own. */
typedef enum sim_card_observer {
    SIM_CARD_DEBUGGER, /* probes, watches, stepping, traps, pauses */
    SIM_CARD_TIMELINE, /* probes only */
    SIM_CARD_OBSERVERS
} sim_card_observer;

typedef enum sim_card_event_kind {
    SIM_CARD_AT_PROBE, /* before the instruction at pc, a probe of the observer's */
    SIM_CARD_AT_WATCH, /* before the instruction at pc reaches watch `watch` (store or load) */
    SIM_CARD_AT_STEP,  /* a stepped core ran one instruction (or took a trap): pc is the next */
    SIM_CARD_AT_TRAP,  /* before a trap is taken: pc is the trapping instruction's */
    SIM_CARD_AT_PAUSE, /* sim_card_debug_pause was asked: core is a running core (or 0) */
    SIM_CARD_AT_STUCK, /* the host gave up on the cluster (sim_card_debug_stuck): core is
                          core 0 if it still runs, else the first that does (or 0) */
} sim_card_event_kind;

typedef struct sim_card_event {
    sim_card_event_kind kind;
    unsigned cluster, core; /* work cluster 1..3, core 0..3 */
    uint64_t pc;
    uint64_t ps;      /* the core's modeled time, picoseconds from the card's start */
    unsigned watch;   /* AT_WATCH: the watch's index in the last sim_card_debug_watch */
    bool store;       /* AT_WATCH: a store (else a load) */
    uint64_t cause;   /* AT_TRAP: mcause */
    uint64_t tval;    /* AT_TRAP: mtval */
} sim_card_event;

typedef void (*sim_card_observe_fn)(void *ctx, const sim_card_event *ev);

/* The observer `who` is fn(ctx) from now on (fn NULL: no more; its probes,
 * watches, stepping and trap catching go).  Applies to every work cluster,
 * added now or later.  An observer may leave from inside its own event:
 * when the last one has left, each cluster lets go of its cores' hooks
 * before their next instruction, and from then on the card runs as one
 * nobody ever observed (a waiting core, or one in a trap loop, parks). */
void sim_card_debug_observe(sim_card *card, sim_card_observer who, sim_card_observe_fn fn,
                            void *ctx);

/* Observer `who`'s probes on work cluster `cluster`: pcs[0..n) in its
 * image (any order; replaces the last set).  KS_OK, KS_ERR_INPUT for a
 * cluster not added, KS_ERR_SYSTEM when memory is lacking (the old set
 * stays). */
int sim_card_debug_probes(sim_card *card, sim_card_observer who, unsigned cluster,
                          const uint64_t *pcs, unsigned n, ks_error *err);

/* The debugger's watches on work cluster `cluster` (replacing the last
 * ones): an access by any of its cores that overlaps [addr, addr + len)
 * at the core's address (the window it used: a cached-window watch does
 * not see the uncached window's accesses to the same byte).  Errors as
 * sim_card_debug_probes. */
typedef struct sim_card_watch {
    uint64_t addr, len;
    bool load, store;
} sim_card_watch;
int sim_card_debug_watch(sim_card *card, unsigned cluster, const sim_card_watch *w, unsigned n,
                         ks_error *err);

/* Core `core` of `cluster` runs one instruction at a time and reports
 * each (AT_STEP) while `on`; its results and times are the same. */
void sim_card_debug_step(sim_card *card, unsigned cluster, unsigned core, bool on);

/* A hardware breakpoint or watchpoint of the debugger's takes a trigger
 * of every core of `cluster`, as an external debugger's does on an X280
 * (sim_hart_trigger_claim: the stop itself is still a probe or a watch).
 * 0, or -1 when some core has none free (then none is taken).  Release
 * gives them back. */
int sim_card_debug_claim_trigger(sim_card *card, unsigned cluster, bool execute, bool load,
                                 bool store, uint64_t addr);
void sim_card_debug_release_trigger(sim_card *card, unsigned cluster, bool execute, bool load,
                                    bool store, uint64_t addr);

/* Traps are reported (AT_TRAP) while `on`. */
void sim_card_debug_catch_traps(sim_card *card, bool on);

/* Asks for an AT_PAUSE event at the next quantum any work cluster runs.
 * The one function another thread may call while the card runs. */
void sim_card_debug_pause(sim_card *card);

/* The host's run policy found cluster `cluster`'s thread stuck (it did
 * not end within the grace after the stop word), before it parks the
 * cluster: the debugger sees AT_STUCK, on the owner's thread, outside any
 * step. */
void sim_card_debug_stuck(sim_card *card, unsigned cluster);

/* A core's registers (sim_reg.h): 0, or -1 for a cluster not added, a bad
 * core, or a register it does not have (writing: one a debugger may not
 * change, and the trigger CSRs, which are the program's here). */
int sim_card_debug_get_reg(sim_card *card, unsigned cluster, unsigned core, sim_reg_file file,
                           unsigned num, uint64_t *value);
int sim_card_debug_set_reg(sim_card *card, unsigned cluster, unsigned core, sim_reg_file file,
                           unsigned num, uint64_t value);

/* Memory as core `core` of `cluster` sees it, moving no time and no
 * cache state: its LIM; the cached DRAM window (a line its cluster's
 * cache holds from there, else the bank); the uncached window (the
 * bank); mtime.  Not the NoC windows or the device registers.  0, or -1
 * when any byte of [addr, addr + n) is elsewhere (nothing done).  A write
 * to a cached line writes the cached copy (as the core's store would,
 * without dirtying it anew) and drops the decoded code when it may be
 * code. */
int sim_card_debug_read(sim_card *card, unsigned cluster, unsigned core, uint64_t addr,
                        void *buf, uint64_t n);
int sim_card_debug_write(sim_card *card, unsigned cluster, unsigned core, uint64_t addr,
                         const void *buf, uint64_t n);

/* The state of a core: whether it was started, runs, waits (wfi), or is
 * halted; for a debugger's thread list.  -1 for no such core. */
int sim_card_debug_state(const sim_card *card, unsigned cluster, unsigned core, bool *running);

/* A core's state, pc, counts and modeled time (sim_reg.h; a core not
 * started yet is SIM_CORE_IDLE with the rest 0): 0, or -1 for a cluster
 * not added or a bad core. */
int sim_card_debug_status(sim_card *card, unsigned cluster, unsigned core, sim_core_status *st);

#endif
