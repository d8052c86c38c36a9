/* kmx_host.h: the contract between kmrun and a thread built for the host
 * fallback (spec "From the host": "A thread is developed this way first,
 * and its card result is checked against it bit for bit").
 *
 * `kmrun build` compiles the thread's sources with the host compiler
 * against the same kmx.h and links them with the fallback runtime
 * (kmx/host/, libkmx_host.a) into a shared object.  kmrun loads one copy
 * per cluster, fills a kmx_host_ctx and calls kmx_host_run on a thread of
 * its own: the runtime runs kmx_main on that thread as core 0 and cores 1
 * to 3 on threads it starts, with the card runtime's rules and errors, and
 * writes the result block as the card runtime does (kmx_layout.h section
 * 5), so one reader turns both into a thread result.
 *
 * Memory.  `region[id]` is the thread's own copy of region id — what its
 * cluster's cache would hold.  The card's DRAM is the simulated card's
 * (the grid reads and writes it); the copy and DRAM meet only where they
 * would on the card: kmx_flush writes the copy's changed lines to DRAM,
 * kmx_invalidate does that and then reloads every line from DRAM, and
 * kmx_host_run flushes every region at the end.  A thread that forgets one
 * reads stale bytes here as it would on the card.
 *
 * Every callback may be called from any of the four cores' threads; kmrun
 * serialises them (the cluster bus's under a lock of its own, which its
 * waits release).  None is called after kmx_host_run returns. */
#ifndef KMX_HOST_H
#define KMX_HOST_H

#include <setjmp.h>
#include <stdint.h>

#include "kmx_layout.h"

#define KMX_HOST_ABI 6u

/* What kmrun writes into a thread's stop word (kmx_host_ctx.stop). */
#define KMX_HOST_STOP_ASKED 1u
#define KMX_HOST_STOP_TIMEOUT 2u

/* The stack of every thread that runs thread code (core 0's, which kmrun
 * starts, and cores 1-3's, which the runtime starts): big and known, under
 * a guard of PROT_NONE pages wide enough that a large frame does not step
 * over it, so that an overflow faults on the guard (a trap: kmrun's
 * handler runs on an alternate signal stack) instead of writing into
 * another thread's memory. */
#define KMX_HOST_STACK_BYTES (8u << 20)
#define KMX_HOST_GUARD_BYTES (1u << 20)

/* A trap on the host: a signal where the card would have trapped.  The
 * result block's trap_mcause is KMX_HOST_TRAP_CAUSE(signal number), its
 * trap_mepc the host pc, its trap_mtval the faulting address. */
#define KMX_HOST_TRAP_BASE 0x484F0000u /* "HO" */
#define KMX_HOST_TRAP_CAUSE(signo) (KMX_HOST_TRAP_BASE | (uint32_t)(signo))
#define KMX_HOST_TRAP_SIGNAL(cause) ((int)((cause) & 0xFFFFu))
#define KMX_HOST_IS_TRAP_CAUSE(cause) (((cause) & 0xFFFF0000u) == KMX_HOST_TRAP_BASE)

/* A call line of the cluster bus (twelve cores): what the lead posted to
 * one other cluster.  `function` is an offset from the base of the
 * fallback's object (each cluster runs its own copy of the same object:
 * the lead subtracts its base, the server adds its own); op is
 * KMX_CLUSTER_CALL or KMX_CLUSTER_END; sequence 0: nothing posted yet;
 * ticks: the lead's kmx_time when it posted (every line of the bus says
 * when its writer wrote it, on its own clock: see kmx_host_twelve.c). */
typedef struct kmx_host_call {
    uint64_t function;
    uint64_t arg;
    uint32_t sequence;
    uint32_t op;
    uint64_t ticks;
} kmx_host_call;

typedef struct kmx_host_ctx {
    uint32_t abi;            /* KMX_HOST_ABI */
    uint32_t cluster;        /* 1..3 */
    const kmx_args *args;    /* the argument block the card would get */
    void *region[KMX_MAX_REGIONS]; /* the thread's copies, args->nregions of them */
    kmx_result_block *result; /* zero but the nonce; the runtime fills it */
    /* Non-zero once the host asks the thread to stop: KMX_HOST_STOP_ASKED
     * (another thread failed, a stuck one, the wall-clock limit), or
     * KMX_HOST_STOP_TIMEOUT (the run's timeout, timeout_ns below). */
    volatile uint32_t *stop;
    /* The run's timeout on the thread's own clock, in ns (0: none).  Each
     * thread's kmx_time counts from its own start-up, as each of a card's
     * clusters counts from the card's start, where they start together:
     * the host starts its threads within microseconds of each other
     * (`ready`), but a busy host may run one later, and its time, its
     * deadline and its timeout are then later too.  From timeout_ns on the
     * runtime reads the stop word as written, so the thread sees its
     * timeout when its clock gets there, however late kmrun's thread gets
     * to write the word; and a KMX_HOST_STOP_TIMEOUT written before that
     * (on kmrun's clock, which started first) is not seen before it. */
    uint64_t timeout_ns;
    /* Written by kmx_host_run before it returns: bit c set when core c
     * was still in thread code (a spawn or a kmx_parallel function that
     * never returned, not even KMX_SETTLE_TICKS after the stop or the
     * deadline; the card's core spins on, while its core 0 ends the run).
     * Its host thread cannot be stopped: it runs on, with this ctx, the
     * region copies and every callback, until the process exits, so
     * kmrun must free none of them; and the copy of the runtime it runs
     * in refuses another run.  0: every core of the run has left. */
    uint32_t left_running;

    void *ops; /* the first argument of every callback */
    /* Called once, on kmx_host_run's thread, when cores 1-3's threads are
     * made and before anything of the run happens: returns when the run
     * starts (kmrun starts every cluster's at once, having set
     * timeout_ns), 0; or non-zero, the run called off: kmx_host_run then
     * returns that, nothing ran.  What takes a busy host long (new
     * threads, their stacks) is done before the thread's clock starts. */
    int (*ready)(void *ops);
    /* Region lines changing hands (offsets and sizes in bytes, whole 64-byte
     * lines: the runtime rounds outwards as the card's sweeps do). */
    void (*flush)(void *ops, uint32_t id, uint64_t offset, uint64_t bytes);
    void (*invalidate)(void *ops, uint32_t id, uint64_t offset, uint64_t bytes);
    /* The ring (core 0 only; the runtime enforces it): submit a command
     * through the host ring — KMX_OK with *handle, or KMX_FULL; take the
     * next event if there is one — KMX_OK or KMX_EMPTY; run the card's
     * kernel side (dispatcher, grid) one pass on, which is how modeled time
     * moves while the thread waits. */
    int (*submit)(void *ops, const km_command_t *command, uint32_t *handle);
    int (*poll)(void *ops, km_event_t *event);
    void (*step)(void *ops);
    /* A call the fallback cannot honour (X280 ports, the pull: the spec
     * says such threads run on the card).  kmrun records
     * `call` (its name, e.g. "kmx_port_open") for its error message; the
     * runtime then stops the run (state failed). */
    void (*unsupported)(void *ops, const char *call);
    /* Traps.  Each of the runtime's threads (core 0, cores 1-3) calls
     * trap_arm(ops, core, jmp) before it runs thread code, with a buffer it
     * set with sigsetjmp(*jmp, 1), and trap_arm(ops, core, NULL) after.
     * When code on an armed thread faults (SIGSEGV, SIGBUS, SIGILL,
     * SIGFPE), kmrun records the first trap in the result block (the card
     * runtime's trap_* fields, traps counted) and siglongjmps to *jmp with
     * 1: the runtime then does what the card's trap handler does (error
     * `trap`, the run stops, core 0 settles, flushes and ends `trapped`;
     * another core halts).  A fault on an unarmed thread is kmrun's own
     * crash.  Arming also gives the calling thread an alternate signal
     * stack (sigaltstack), kept until it exits, so a stack overflow traps
     * too. */
    void (*trap_arm)(void *ops, uint32_t core, sigjmp_buf *jmp);
    /* A trap the runtime found itself, with no signal: a misaligned
     * access the thread's alignment checks caught (kmx_host_align.c;
     * `mcause` the card's: 4 load, 6 store, `mepc` the pc of the check
     * in thread code, `mtval` the address).  Called on the armed thread
     * of core `core`; kmrun records it as it records a fault's (the first
     * trap, traps counted) and disarms the thread; the runtime then
     * siglongjmps to its armed buffer with 1, as after a fault. */
    void (*trap)(void *ops, uint32_t core, uint64_t mcause, uint64_t mepc, uint64_t mtval);
    /* Twelve cores (kmx_parallel_all, kmx_serve, kmx_push): the cluster
     * bus between the clusters that run one image, kmrun's, as the
     * clusters' LIM lines are on the card.  The runtime keeps the card's
     * rules (kmx_twelve.c) and its own counts; kmrun keeps, per cluster,
     * whether it serves, the call line the lead last posted to it, and its
     * done line (sequence and status).  The calls that wait return 0 after
     * a short bounded wait (a millisecond or so; they may return at
     * once) so that the runtime looks at the stop and the deadline between
     * them; none holds kmrun's card lock while it waits.
     * Each line keeps the kmx_time its writer gave (`ticks`), and a
     *   reader gets it with the line.
     * - serve_begin: this cluster serves (the lead's wait for it ends),
     *   since `ticks`.
     * - serve_next: 1 and *call once this cluster's call line holds a
     *   sequence other than `seen`; else 0.
     * - serve_done: this cluster's done line: `sequence`, `status`,
     *   written at `ticks`.
     * - serving: 1 and *ticks once cluster `cluster` serves; else 0.
     * - post: writes the call line of cluster `cluster` (the lead's).
     * - done: 1, *status and *ticks once cluster `cluster`'s done line
     *   says `sequence`; else 0.
     * - push: stores `bytes` from `source` into cluster `cluster`'s region
     *   `id` at `offset` in the card's DRAM (not into that thread's copy:
     *   it invalidates before reading, as on the card); the runtime checked
     *   the arguments; KMX_OK, or KMX_BAD if kmrun finds no such region. */
    void (*serve_begin)(void *ops, uint64_t ticks);
    int (*serve_next)(void *ops, uint32_t seen, kmx_host_call *call);
    void (*serve_done)(void *ops, uint32_t sequence, int status, uint64_t ticks);
    int (*serving)(void *ops, uint32_t cluster, uint64_t *ticks);
    void (*post)(void *ops, uint32_t cluster, const kmx_host_call *call);
    int (*done)(void *ops, uint32_t cluster, uint32_t sequence, int *status, uint64_t *ticks);
    int (*push)(void *ops, uint32_t cluster, uint32_t id, uint64_t offset, const void *source,
                uint64_t bytes);
    /* Thread code called exit, _exit, _Exit, quick_exit (`code` its
     * status) or abort (`code` 0), which on the host would end kmrun's
     * process: the fallback's link wraps them (kmx_host_exit.c), and the
     * runtime tells kmrun the call, its status and `pc`, an address inside
     * the call instruction, on the calling thread, while it is armed.
     * Then abort raises SIGABRT, a trap like the others (`pc` is its
     * trap_mepc); an exit records the error `host` and the thread's core
     * leaves its code as a trap's would, the thread ending `failed`. */
    void (*quit)(void *ops, const char *call, int code, uint64_t pc);
    /* kmx_print from core `core`: a record of n slots as
     * kmx_print_encode writes it (kmx_print_format.h; `format` a pointer
     * into the fallback's object, `when` 0: kmrun stamps its own time).
     * KMX_OK, or KMX_FULL when the core's buffer had no room (kmrun
     * counts the drop); never waits but for kmrun's lock. */
    int (*print)(void *ops, uint32_t core, uint64_t *rec, unsigned n);
} kmx_host_ctx;

/* ---- A fallback that is a function of the host program ---------------------
 * The spec's host fallback given as a function (kmrun.h's
 * kmrun_host_fallback: a C callback, or a Python function through the
 * kmrun package) rather than as sources.  kmrun builds such a thread's
 * object from kmx_fallback.c (shipped in fallback/ beside this header),
 * whose kmx_main calls through the object's KMX_HOST_FALLBACK_HOOK, which
 * kmrun sets in each cluster's copy once it is loaded.  The call runs on
 * core 0's thread inside kmx_host_run, with the runtime's rules: its
 * regions are the thread's copies (kmx_host_run flushes them at the end),
 * its commands go through the thread's ring. */
#define KMX_HOST_FALLBACK_HOOK "kmx_host_fallback_hook"

typedef struct kmx_host_fallback_io {
    uint32_t cluster;
    void *region[KMX_MAX_REGIONS]; /* the thread's copies, by region id */
    uint64_t bytes[KMX_MAX_REGIONS];
    uint32_t bank[KMX_MAX_REGIONS];     /* where each is in DRAM (kmx_region_address) */
    uint64_t address[KMX_MAX_REGIONS];
    uint32_t nregions;
    const uint32_t *words; /* the program's words */
    uint32_t nwords;
    /* The thread's ring and clock, as kmx_submit, kmx_wait (event: a
     * km_event_t; its `index` 0), kmx_poll, kmx_time and
     * kmx_stop_requested give them. */
    int (*submit)(const km_command_t *command, uint32_t *handle);
    int (*wait)(uint32_t handle, uint64_t deadline, km_event_t *event);
    int (*poll)(km_event_t *event);
    uint64_t (*time)(void);
    int (*stop_requested)(void);
    /* The hand-overs, as kmx_flush and kmx_invalidate: the copy's lines
     * to DRAM, and DRAM's into the copy. */
    int (*flush)(uint32_t id);
    int (*invalidate)(uint32_t id);
    /* What the call gives back: the result words (kmx_result's), and its
     * code (kmx_main's return) as the hook's return value. */
    uint32_t out[KMX_MAX_RESULT_WORDS];
    uint32_t nout;
} kmx_host_fallback_io;

typedef struct kmx_host_fallback {
    int (*call)(void *ctx, kmx_host_fallback_io *io); /* NULL: none set (the thread fails) */
    void *ctx;
} kmx_host_fallback;

/* Runs the thread to its end and fills ctx->result (its state last).
 * Returns 0; -1 when ctx is not usable (wrong abi, NULL fields); when
 * the threads of cores 1-3 cannot be started, the error number that
 * stopped them (EAGAIN from pthread_create: a process or memory limit);
 * or what ctx->ready returned to call the run off.  When it does not
 * return 0, nothing ran and ctx->result is untouched. */
int kmx_host_run(kmx_host_ctx *ctx);

#endif
