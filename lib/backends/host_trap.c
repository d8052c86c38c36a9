/* host_trap: traps of a host fallback (host_internal.h).  A host thread
 * of a fallback arms its claim on the process's fault handler (ks_trap.h)
 * while it runs thread code (kmx_host.h, trap_arm); the claim records the
 * first trap in that thread's result block, as the card runtime's trap
 * handler does, and jumps back into the runtime.  A fault the thread's
 * claim passes on (it is not armed), or that no claim takes, is kmrun's
 * own: a crash.  A stack overflow faults on the thread's guard with no
 * stack left: ks_trap gives the thread an alternate signal stack.
 *
 * Not every SIGFPE is a trap: x86 faults on an integer division by zero
 * and on the signed overflow, which RISC-V defines; the claim completes
 * such a division with the card's result and the thread goes on
 * (host_divide.c). */
#include "host_internal.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ks_trap.h"

typedef struct armed_trap {
    sigjmp_buf *jmp;
    host_thread *t;
    uint32_t core;
    uint64_t quit_pc; /* abort's call (host_cb_quit): its SIGABRT's pc */
} armed_trap;

static __thread armed_trap armed;

/* Records a trap of armed thread t (the first one's fields; every one
 * counted) and disarms the thread: a fault while the runtime recovers is
 * a crash. */
static void record(host_thread *t, uint64_t mcause, uint64_t mepc, uint64_t mtval)
{
    armed.jmp = NULL;
    if (__atomic_exchange_n(&t->trap_claim, 1u, __ATOMIC_SEQ_CST) == 0) {
        t->result.trap_mcause = mcause;
        t->result.trap_mepc = mepc;
        t->result.trap_mtval = mtval;
        t->result.trap_core = armed.core;
    }
    __atomic_fetch_add(&t->result.traps, 1u, __ATOMIC_SEQ_CST);
}

/* The thread's claim: SIGABRT too (ks_trap's signals), so thread code's
 * abort (kmx_host_exit.c) and libc's own (assert, the fortify and
 * stack-protector checks) end the thread, not kmrun. */
static bool on_trap(ks_trap_claim *self, int sig, siginfo_t *info, void *uctx)
{
    (void)self;
    sigjmp_buf *jmp = armed.jmp;
    host_thread *t = armed.t;
    if (!jmp || !t)
        return false; /* not armed: not a fallback's */
    /* An integer division RISC-V defines (by zero, the signed overflow):
     * the card's result, and the thread goes on (host_divide.c). */
    if (sig == SIGFPE && (info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF) &&
        host_divide_complete(uctx))
        return true;
    /* SIGABRT has no faulting address (si_addr is the sender's pid). */
    record(t, KMX_HOST_TRAP_CAUSE(sig),
           sig == SIGABRT && armed.quit_pc ? armed.quit_pc : ks_trap_pc(uctx),
           sig == SIGABRT ? 0 : (uint64_t)(uintptr_t)info->si_addr);
    siglongjmp(*jmp, 1);
}

static __thread ks_trap_claim claim = {.fn = on_trap};
static __thread bool claimed;

void host_cb_trap_arm(void *ops, uint32_t core, sigjmp_buf *jmp)
{
    /* Its claim, once: the thread's outermost (a grid's, while the thread
     * steps the card, is inside it). */
    if (jmp && !claimed) {
        ks_trap_push(&claim);
        claimed = true;
    }
    armed.t = jmp ? ops : NULL;
    armed.core = core;
    armed.quit_pc = 0;
    armed.jmp = jmp;
}

/* Thread code called an exit or abort (kmx_host.h, quit), on this armed
 * thread: the first such call names the thread's end in its message. */
void host_cb_quit(void *ops, const char *call, int code, uint64_t pc)
{
    host_thread *t = ops;
    bool aborts = strcmp(call, "abort") == 0;
    armed.quit_pc = aborts ? pc : 0;
    pthread_mutex_lock(&t->b->lock);
    if (!t->called[0]) {
        if (aborts)
            snprintf(t->called, sizeof t->called, "%s()", call);
        else
            snprintf(t->called, sizeof t->called, "%s(%d)", call, code);
    }
    pthread_mutex_unlock(&t->b->lock);
}

/* A trap the runtime found itself (kmx_host.h, trap): a misaligned
 * access, with the card's cause. */
void host_cb_trap(void *ops, uint32_t core, uint64_t mcause, uint64_t mepc, uint64_t mtval)
{
    host_thread *t = ops;
    if (armed.t == t)
        armed.core = core;
    record(t, mcause, mepc, mtval);
}

/* Where core 0 of a stuck fallback is: a signal of its own stops its
 * thread for a moment and takes the pc from the interrupted context. */
#define SAMPLE_SIGNAL KS_TRAP_SAMPLE_SIGNAL
static volatile uint64_t sampled_pc;
static volatile sig_atomic_t sampled;

static void on_sample(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)info;
    sampled_pc = ks_trap_pc(uctx);
    sampled = 1;
}

/* The pc core 0 of `t` runs at, or 0 when it cannot be had within 100 ms. */
uint64_t host_sample_pc(host_thread *t)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SAMPLE_SIGNAL, &sa, NULL);
    sampled = 0;
    if (pthread_kill(t->tid, SAMPLE_SIGNAL) != 0)
        return 0;
    for (int i = 0; i < 1000 && !sampled; i++) {
        struct timespec nap = {0, 100000};
        nanosleep(&nap, NULL);
    }
    return sampled ? sampled_pc : 0;
}

