/* ks_trap: the process-wide fault handler and each thread's claims
 * (ks_trap.h). */
#include "ks_trap.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/* The alternate signal stack: the handler, a claim and little else run on
 * it; a guard page below it. */
#define ALT_STACK_BYTES (64u * 1024u)

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

static __thread ks_trap_claim *innermost;

uint64_t ks_trap_pc(const void *uctx)
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

uint64_t ks_trap_sp(const void *uctx)
{
#if defined(__x86_64__)
    return (uint64_t)((const ucontext_t *)uctx)->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    return (uint64_t)((const ucontext_t *)uctx)->uc_mcontext.sp;
#else
    (void)uctx;
    return 0;
#endif
}

static void on_fault(int sig, siginfo_t *info, void *uctx)
{
    for (ks_trap_claim *c = innermost; c; c = c->outer)
        if (c->fn(c, sig, info, uctx))
            return; /* mended: the interrupted code goes on */
    signal(sig, SIG_DFL); /* nobody's: kmrun's own crash */
    raise(sig);
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

static void install(void)
{
    pthread_key_create(&alt_key, free_alt_stack);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
        sigaction(fault_signals[i], &sa, NULL);
}

static pthread_once_t installed = PTHREAD_ONCE_INIT;

void ks_trap_alt_stack(void)
{
    static __thread bool has_alt_stack;
    pthread_once(&installed, install);
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

void ks_trap_push(ks_trap_claim *c)
{
    ks_trap_alt_stack();
    c->outer = innermost;
    __atomic_signal_fence(__ATOMIC_SEQ_CST); /* a signal sees c whole */
    innermost = c;
}

void ks_trap_pop(ks_trap_claim *c)
{
    if (innermost == c)
        innermost = c->outer;
}
