/* ks_trap: one process-wide handler for the signals of a fault (SIGSEGV,
 * SIGBUS, SIGILL, SIGFPE, SIGABRT), shared by the parts of kmrun that run
 * code they do not trust on a thread: the host fallback's threads
 * (lib/backends/host_trap.c) and the Tensix grid's handlers (device/sim/grid/grid_trap.c).
 *
 * Each thread has a stack of claims, the innermost first.  A fault goes to
 * the faulting thread's innermost claim, which takes it (its function
 * jumps away and never returns), mends it (returns true: it made the
 * interrupted context right to go on, as the host fallback does for a
 * division RISC-V defines), or passes it on (returns false) to the next
 * one out.  When none takes it, the signal's default action: kmrun crashes, as
 * a program does on its own bug.
 *
 *   static __thread ks_trap_claim mine = {.fn = on_fault};
 *   ks_trap_push(&mine);   ... untrusted code ...   ks_trap_pop(&mine);
 *
 * A claim's function runs in the signal handler, on the thread's
 * alternate signal stack: only what a signal handler may do.  The handler
 * is installed at the first push (SA_SIGINFO | SA_ONSTACK | SA_NODEFER: a
 * claim that jumps away leaves the signal unblocked), and each thread that
 * pushes gets its alternate stack once (64 KiB below a guard page, freed
 * when the thread exits), so that a stack overflow, which leaves no stack
 * to run a handler on, can be claimed too.  Without memory for it a fault
 * is still claimed; only an overflow stays a crash.
 *
 * The other signals kmrun sends itself, named here so that they stay
 * apart: KS_TRAP_SAMPLE_SIGNAL (host_trap.c: where a stuck host thread
 * runs) and KS_TRAP_SPIN_SIGNAL (grid_trap.c: a handler that never gives
 * way). */
#ifndef KS_TRAP_H
#define KS_TRAP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define KS_TRAP_SAMPLE_SIGNAL (SIGRTMIN + 1)
#define KS_TRAP_SPIN_SIGNAL (SIGRTMIN + 2)

typedef struct ks_trap_claim ks_trap_claim;
struct ks_trap_claim {
    /* Jumps away to take the fault; true when it mended the context and
     * the interrupted code goes on; false to pass it on. */
    bool (*fn)(ks_trap_claim *self, int sig, siginfo_t *info, void *uctx);
    ks_trap_claim *outer; /* ks_trap's own */
};

/* c becomes the calling thread's innermost claim (c->fn set). */
void ks_trap_push(ks_trap_claim *c);

/* The calling thread's innermost claim, c, goes (a claim that is not the
 * innermost: nothing happens). */
void ks_trap_pop(ks_trap_claim *c);

/* Gives the calling thread its alternate signal stack, if it has none
 * yet (ks_trap_push does): for a handler of kmrun's own signals. */
void ks_trap_alt_stack(void);

/* The pc and the stack pointer of the interrupted context a handler's
 * third argument points at (0 on a host this does not know). */
uint64_t ks_trap_pc(const void *uctx);
uint64_t ks_trap_sp(const void *uctx);

#endif
