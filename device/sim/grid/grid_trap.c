/* grid_trap: the program's handlers contained (grid_internal.h) — a
 * handler that faults, and one that never gives way, are taken out of
 * their core, which halts for good, and listed (sim_grid_faults); kmrun
 * lives on.  device/sim/README.md, "Faults and endless handlers", says
 * what the card does and what is modeled.
 *
 * A handler runs natively, on its core's stack, on whichever host thread
 * steps the grid (the sim backend's main thread; a host fallback's thread
 * inside its ring calls).  While a step runs cores, the grid's claim is
 * that thread's innermost on the process's fault handler (ks_trap.h); a
 * fault while a core is on its stack (grid_current) is the handler's: the
 * claim notes the signal, its address and pc in the core, halts it and
 * jumps to the grid's side of the switch, as the core's giving way would.
 * The core's frames are left where they were (as a time limit leaves
 * them), its job never ends.
 *
 * A handler that never calls anything that costs modeled time never gives
 * way, so modeled time stands still and no deadline can come: the
 * watchdog, a host thread of the grid's, looks every WATCH_MS; when one
 * core has been on its stack for the spin limit (sim_grid_set_spin_limit)
 * without a switch, it sends the stepping thread KS_TRAP_SPIN_SIGNAL.
 * That handler takes the core out only when the interrupted pc is in the
 * kernels' object's code — the handler's own instructions, which hold no
 * lock of kmrun's or libc's — and lets it go on otherwise (inside a
 * km_* call, malloc, a system call: a lock may be held there); the
 * watchdog asks again every RETRY_MS.  A handler that never comes back
 * from a library or system call cannot be taken out (the README's
 * limits). */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "grid_internal.h"
#include "grid_switch.h"
#include "ks_trap.h"

#ifdef GRID_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#define WATCH_MS 50u
#define RETRY_MS 10u

__thread km_core *grid_current;

struct grid_trap {
    ks_trap_claim claim; /* first: the claim is the trap */
    sim_grid *g;
    uintptr_t lo, hi; /* the kernels' object's executable segments (one span) */
    /* What the stepping thread shows the watchdog. */
    uint32_t in_core;  /* atomic: a core is on its stack */
    uint64_t resumes;  /* atomic: switches into cores so far */
    pthread_t runner;  /* the thread that switched last (written with in_core) */
    /* The watchdog's ask: take out the core of switch `spin_resume`. */
    uint32_t spin_asked;  /* atomic */
    uint64_t spin_resume; /* atomic */
    unsigned spin_ms;     /* 0: no watchdog */
    bool watching;
    pthread_t watchdog;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool quit;
    sim_handler_fault faults[SIM_HANDLER_FAULTS_KEPT];
    unsigned nfaults, more;
};

/* ---- stacks with a guard ---- */

static size_t page_bytes(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

void *grid_stack_alloc(void)
{
    size_t page = page_bytes();
    uint8_t *m = mmap(NULL, SIM_GRID_STACK_BYTES + page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    if (mprotect(m, page, PROT_NONE) != 0) {
        munmap(m, SIM_GRID_STACK_BYTES + page);
        return NULL;
    }
    return m + page;
}

void grid_stack_free(void *stack)
{
    if (stack)
        munmap((uint8_t *)stack - page_bytes(), SIM_GRID_STACK_BYTES + page_bytes());
}

/* ---- taking a core out (in a signal handler) ---- */

/* A fault outside the handler's code with no noted call (libc's memcpy
 * or abort called by the handler itself): the handler's innermost call
 * is the first word from the interrupted stack pointer up to the top of
 * the core's stack that points into the object's code — a return address
 * in all but odd cases (a code pointer a libc frame keeps).  Reading the
 * core's own stack is safe here. */
static uintptr_t handler_return(const km_core *c, const grid_trap *t, uint64_t sp)
{
    uintptr_t lo = (uintptr_t)c->stack, hi = lo + SIM_GRID_STACK_BYTES;
    if (sp < lo || sp >= hi)
        return 0;
    for (const uintptr_t *w = (const uintptr_t *)(uintptr_t)(sp & ~(uint64_t)7);
         (uintptr_t)w < hi; w++)
        if (*w >= t->lo && *w < t->hi)
            return *w;
    return 0;
}

/* The core halts and the thread goes back to the grid's side of the
 * switch, as if the core had given way. */
static void take_out(km_core *c, uint8_t kind, int sig, uint64_t addr, const void *uctx)
{
    sim_grid *g = c->grid;
    uint64_t pc = ks_trap_pc(uctx);
    c->halt_kind = kind;
    c->halt_sig = sig;
    c->halt_addr = addr;
    c->halt_pc = pc;
    c->halt_return = pc >= g->trap->lo && pc < g->trap->hi
                         ? 0
                         : handler_return(c, g->trap, ks_trap_sp(uctx));
    c->state = CORE_HALTED;
    grid_current = NULL;
#ifdef GRID_ASAN
    __sanitizer_start_switch_fiber(NULL, g->main_bottom, g->main_size);
#endif
    grid_switch_leave(g->main_jmp);
}

static bool on_fault(ks_trap_claim *self, int sig, siginfo_t *info, void *uctx)
{
    grid_trap *t = (grid_trap *)self;
    km_core *c = grid_current;
    if (!c || c->grid != t->g)
        return false; /* not a handler's: the grid's own code, or another grid */
    take_out(c, SIM_HANDLER_FAULT, sig, sig == SIGABRT ? 0 : (uint64_t)(uintptr_t)info->si_addr,
             uctx);
    return false; /* (take_out jumps away) */
}

static void on_spin(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)info;
    km_core *c = grid_current;
    if (!c || !c->grid->trap)
        return;
    grid_trap *t = c->grid->trap;
    if (!__atomic_load_n(&t->spin_asked, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&t->resumes, __ATOMIC_RELAXED) !=
            __atomic_load_n(&t->spin_resume, __ATOMIC_RELAXED))
        return; /* it gave way since */
    uintptr_t pc = (uintptr_t)ks_trap_pc(uctx);
    if (pc < t->lo || pc >= t->hi)
        return; /* not in the handler's own code: a lock may be held, later */
    __atomic_store_n(&t->spin_asked, 0u, __ATOMIC_RELEASE);
    take_out(c, SIM_HANDLER_SPIN, 0, 0, uctx);
}

static void install_spin(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_spin;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(KS_TRAP_SPIN_SIGNAL, &sa, NULL);
}

/* ---- the watchdog ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *watch(void *arg)
{
    grid_trap *t = arg;
    bool have = false, asked = false;
    uint64_t seen = 0;
    double since = 0;
    pthread_mutex_lock(&t->lock);
    while (!t->quit) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        long ns = (long)(asked ? RETRY_MS : WATCH_MS) * 1000000L;
        until.tv_nsec += ns;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&t->cond, &t->lock, &until);
        if (t->quit)
            break;
        bool in = __atomic_load_n(&t->in_core, __ATOMIC_ACQUIRE) != 0;
        uint64_t r = __atomic_load_n(&t->resumes, __ATOMIC_ACQUIRE);
        if (!in || !have || r != seen) {
            have = in;
            seen = r;
            since = now_s();
            asked = false;
            continue;
        }
        if ((now_s() - since) * 1000.0 < (double)t->spin_ms)
            continue;
        __atomic_store_n(&t->spin_resume, r, __ATOMIC_RELAXED);
        __atomic_store_n(&t->spin_asked, 1u, __ATOMIC_RELEASE);
        asked = true;
        /* Still the same switch (it may have given way meanwhile). */
        if (__atomic_load_n(&t->in_core, __ATOMIC_ACQUIRE) &&
            __atomic_load_n(&t->resumes, __ATOMIC_ACQUIRE) == r)
            pthread_kill(t->runner, KS_TRAP_SPIN_SIGNAL);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

static void stop_watching(grid_trap *t)
{
    if (!t->watching)
        return;
    pthread_mutex_lock(&t->lock);
    t->quit = true;
    pthread_cond_signal(&t->cond);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->watchdog, NULL);
    t->watching = false;
    t->quit = false;
}

static void start_watching(grid_trap *t)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (t->watching || t->spin_ms == 0)
        return;
    pthread_once(&once, install_spin);
    /* Without the watchdog (no thread to be had) an endless handler hangs
     * as before; everything else works. */
    t->watching = pthread_create(&t->watchdog, NULL, watch, t) == 0;
}

/* ---- the kernels' object ---- */

typedef struct code_span {
    uintptr_t base, lo, hi;
} code_span;

static int find_code(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    code_span *s = arg;
    if (info->dlpi_addr != s->base)
        return 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = s->base + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (s->lo == 0 || lo < s->lo)
            s->lo = lo;
        if (hi > s->hi)
            s->hi = hi;
    }
    return 1;
}

int grid_trap_open(sim_grid *g, void *so, ks_error *err)
{
    struct link_map *map = NULL;
    if (dlinfo(so, RTLD_DI_LINKMAP, &map) != 0 || !map)
        return ks_fail(err, KS_ERR_IMAGE, "cannot find where the kernels' object was loaded: %s",
                       dlerror());
    code_span span = {.base = (uintptr_t)map->l_addr};
    dl_iterate_phdr(find_code, &span);
    if (!g->trap) {
        g->trap = calloc(1, sizeof *g->trap);
        if (!g->trap)
            return ks_fail(err, KS_ERR_SYSTEM, "out of memory for the Tensix grid");
        g->trap->claim.fn = on_fault;
        g->trap->g = g;
        pthread_mutex_init(&g->trap->lock, NULL);
        pthread_cond_init(&g->trap->cond, NULL);
    }
    g->so_base = span.base;
    g->trap->lo = span.lo;
    g->trap->hi = span.hi;
    g->trap->spin_ms = g->spin_ms;
    start_watching(g->trap);
    return KS_OK;
}

void grid_trap_close(sim_grid *g)
{
    grid_trap *t = g->trap;
    if (!t)
        return;
    stop_watching(t);
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->cond);
    free(t);
    g->trap = NULL;
}

void sim_grid_set_spin_limit(sim_grid *g, unsigned ms)
{
    g->spin_ms = ms;
    if (!g->trap)
        return;
    stop_watching(g->trap);
    g->trap->spin_ms = ms;
    start_watching(g->trap);
}

/* ---- around a step and each switch ---- */

void grid_trap_step_begin(sim_grid *g)
{
    ks_trap_push(&g->trap->claim);
}

void grid_trap_step_end(sim_grid *g)
{
    ks_trap_pop(&g->trap->claim);
}

void grid_trap_resuming(sim_grid *g, km_core *c)
{
    grid_trap *t = g->trap;
    t->runner = pthread_self();
    __atomic_add_fetch(&t->resumes, 1u, __ATOMIC_RELEASE);
    __atomic_store_n(&t->in_core, 1u, __ATOMIC_RELEASE);
    grid_current = c;
}

/* The core came back from its stack; if it was taken out, the record. */
void grid_trap_resumed(sim_grid *g, km_core *c)
{
    grid_trap *t = g->trap;
    grid_current = NULL;
    __atomic_store_n(&t->in_core, 0u, __ATOMIC_RELEASE);
    if (c->state != CORE_HALTED || c->halt_kind == 0)
        return;
    sim_handler_fault f = {
        .kind = c->halt_kind,
        .core = (uint16_t)c->id,
        .handler = KM_HDR_HANDLER(c->job->command.hdr),
        .job = c->job->id,
        .signal = c->halt_sig,
        .address = c->halt_addr,
        .ps = c->time_ps,
    };
    c->halt_kind = 0; /* recorded */
    /* Outside the object: the handler's call into the card's API, else
     * its innermost call found on its stack. */
    uintptr_t pc = (uintptr_t)c->halt_pc,
              from = c->call_from ? (uintptr_t)c->call_from : (uintptr_t)c->halt_return;
    if (pc >= t->lo && pc < t->hi) {
        f.in_kernels = true;
        f.pc = pc - g->so_base;
    } else {
        f.pc = pc;
        /* Its function, else its object (libc's memcpy variants are
         * local symbols). */
        Dl_info info;
        if (dladdr((void *)pc, &info) != 0) {
            const char *name = info.dli_sname, *slash;
            if (!name && info.dli_fname)
                name = (slash = strrchr(info.dli_fname, '/')) ? slash + 1 : info.dli_fname;
            if (name)
                strncpy(f.symbol, name, sizeof f.symbol - 1);
        }
        if (from >= t->lo && from < t->hi)
            f.call = from - g->so_base;
    }
    uintptr_t guard = (uintptr_t)c->stack - page_bytes();
    f.stack_overflow = f.kind == SIM_HANDLER_FAULT && f.address >= guard &&
                       f.address < (uintptr_t)c->stack;
    if (t->nfaults < SIM_HANDLER_FAULTS_KEPT)
        t->faults[t->nfaults++] = f;
    else
        t->more++;
}

const sim_handler_fault *sim_grid_faults(const sim_grid *g, unsigned *n, unsigned *more)
{
    *n = g->trap ? g->trap->nfaults : 0;
    if (more)
        *more = g->trap ? g->trap->more : 0;
    return g->trap ? g->trap->faults : NULL;
}
