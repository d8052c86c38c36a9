/* host_trap: traps of a host fallback (host_internal.h).  One
 * process-wide handler for the faults a card would trap on.  A host
 * thread of a fallback arms it (kmx_host.h, trap_arm) while it runs thread
 * code; the handler records the first trap in that thread's result block,
 * as the card runtime's trap handler does, and jumps back into the runtime.
 * A fault anywhere else is kmrun's own: the default action, a crash.
 *
 * A stack overflow faults on the thread's guard with no stack left to run
 * a handler on, which the kernel answers by killing the process: each
 * thread that arms gets an alternate signal stack of its own (the handler
 * is SA_ONSTACK), kept until the thread exits.
 *
 * Not every SIGFPE is a trap: x86 faults on an integer division by zero
 * and on the signed overflow, which RISC-V defines; the handler completes
 * such a division with the card's result and returns (host_divide.c). */
#include "host_internal.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* The alternate signal stack: the handler, siglongjmp and little else run
 * on it; a guard page below it. */
#define ALT_STACK_BYTES (64u * 1024u)

typedef struct armed_trap {
    sigjmp_buf *jmp;
    host_thread *t;
    uint32_t core;
    uint64_t quit_pc; /* abort's call (host_cb_quit): its SIGABRT's pc */
} armed_trap;

static __thread armed_trap armed;

/* SIGABRT too: thread code's abort (kmx_host_exit.c) and libc's own
 * (assert, the fortify and stack-protector checks) end the thread, not
 * kmrun. */
static const int trap_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

static uint64_t fault_pc(const void *uctx)
{
#if defined(__x86_64__)
    return (uint64_t)((const ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uint64_t)((const ucontext_t *)uctx)->uc_mcontext.pc;
#else
    (void)uctx;
    return 0;
#endif
}

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

static void on_trap(int sig, siginfo_t *info, void *uctx)
{
    sigjmp_buf *jmp = armed.jmp;
    host_thread *t = armed.t;
    if (!jmp || !t) {
        signal(sig, SIG_DFL); /* not a fallback's: kmrun's own crash */
        raise(sig);
        return;
    }
    /* An integer division RISC-V defines (by zero, the signed overflow):
     * the card's result, and the thread goes on (host_divide.c). */
    if (sig == SIGFPE && (info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF) &&
        host_divide_complete(uctx))
        return;
    /* SIGABRT has no faulting address (si_addr is the sender's pid). */
    record(t, KMX_HOST_TRAP_CAUSE(sig),
           sig == SIGABRT && armed.quit_pc ? armed.quit_pc : fault_pc(uctx),
           sig == SIGABRT ? 0 : (uint64_t)(uintptr_t)info->si_addr);
    siglongjmp(*jmp, 1);
}

static void install_trap_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof trap_signals / sizeof trap_signals[0]; i++)
        sigaction(trap_signals[i], &sa, NULL);
}

static pthread_key_t alt_key; /* the thread's alternate stack's mapping */

static size_t alt_mapping_bytes(void)
{
    return ALT_STACK_BYTES + (size_t)sysconf(_SC_PAGESIZE);
}

/* At a thread's exit: its alternate stack goes with it. */
static void free_alt_stack(void *mapping)
{
    stack_t off;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, NULL);
    munmap(mapping, alt_mapping_bytes());
}

static void install_once(void)
{
    pthread_key_create(&alt_key, free_alt_stack);
    install_trap_handler();
}

/* Gives the calling thread its alternate signal stack, once.  Without one
 * (no memory) a trap still traps; only an overflow stays a crash. */
static void ensure_alt_stack(void)
{
    static __thread bool has_alt_stack;
    if (has_alt_stack)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *m = mmap(NULL, alt_mapping_bytes(), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (m == MAP_FAILED)
        return;
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = m + page;
    ss.ss_size = ALT_STACK_BYTES;
    if (mprotect(m, page, PROT_NONE) != 0 || sigaltstack(&ss, NULL) != 0) {
        munmap(m, alt_mapping_bytes());
        return;
    }
    /* Without the key the stack stays until kmrun exits: still in use. */
    pthread_setspecific(alt_key, m);
    has_alt_stack = true;
}

void host_cb_trap_arm(void *ops, uint32_t core, sigjmp_buf *jmp)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_once);
    if (jmp)
        ensure_alt_stack();
    armed.t = jmp ? ops : NULL;
    armed.core = core;
    armed.quit_pc = 0;
    armed.jmp = jmp;
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

/* Where core 0 of a stuck fallback is: a signal of its own stops its
 * thread for a moment and takes the pc from the interrupted context. */
#define SAMPLE_SIGNAL (SIGRTMIN + 1)
static volatile uint64_t sampled_pc;
static volatile sig_atomic_t sampled;

static void on_sample(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)info;
    sampled_pc = fault_pc(uctx);
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

