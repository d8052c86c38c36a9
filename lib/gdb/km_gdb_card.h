/* km_gdb_card: the GDB target of `kmrun run --gdb` — every core of every
 * work cluster a thread runs on is a GDB thread, over a simulated card
 * whose run goes on in another thread of kmrun's (the run's).
 *
 * All-stop, by holding the run itself: when a core meets a breakpoint, a
 * watch, the end of a step, a trap or a pause, the run's thread waits
 * inside the card's observer (sim_card_debug.h) until GDB resumes it; no
 * core runs meanwhile and no modeled time passes, so a debugged run
 * gives the same results and modeled times as one without.  Breakpoints
 * of both kinds are the card's probes and watchpoints its watches, each
 * stopping before the instruction; a step is one instruction of one
 * core.  Resuming one thread alone (GDB's vCont;c:T and vCont;s:T) runs
 * the whole card until that thread stops: the other cores run too (the
 * card has one clock), but their breakpoints and watches are passed
 * over meanwhile, as GDB expects of threads it did not resume.
 *
 * Breakpoints and watches apply to the clusters whose image is the one
 * GDB debugs (the first thread's, whose ELF kmrun names): another image
 * has other code at the same addresses.
 *
 *   GDB thread (the server)                the run's thread
 *   km_gdb_card_new(card, ...)
 *   km_gdb_serve_fd(fd, ops, t)            km_gdb_card_wait_start(t)
 *     resume -> lets the run go            km_session_run(...)  (held at events)
 *                                          km_gdb_card_ended(t, code)
 *   km_gdb_card_free(t) once both are done */
#ifndef KM_GDB_CARD_H
#define KM_GDB_CARD_H

#include <stdbool.h>

#include "km_gdb.h"
#include "sim_card.h"

typedef struct km_gdb_card km_gdb_card;

/* A target over `card` (which must outlive it) for the work clusters
 * clusters[0..n) (ascending); debugged[i]: cluster clusters[i] runs the
 * debugged image.  NULL when memory is lacking. */
km_gdb_card *km_gdb_card_new(sim_card *card, const unsigned *clusters, const bool *debugged,
                             unsigned n);
void km_gdb_card_free(km_gdb_card *t);

const km_gdb_target_ops *km_gdb_card_ops(void);

/* Where the monitor commands find a pc's source line: fn(ctx, the core's
 * cluster, pc, ...) (km_gdb.h); without it they show pcs alone. */
void km_gdb_card_lookup(km_gdb_card *t, km_gdb_lookup fn, void *ctx);

/* The run's thread, before the run: waits until GDB first resumes (or
 * the session ends without). */
void km_gdb_card_wait_start(km_gdb_card *t);

/* The run's thread, after the run: the program ended with `exit_code`
 * (GDB sees the process exit); every later resume says so. */
void km_gdb_card_ended(km_gdb_card *t, int exit_code);

/* The GDB thread, when its session is over without the program's end
 * (detached, or the client gone): the run goes on free, no longer held,
 * and no longer observed — what the debugger left set (points, triggers)
 * goes and the run's thread lets go of the card as it wakes, so the rest
 * is the run without a debugger, at its speed. */
void km_gdb_card_release(km_gdb_card *t);

#endif
