/* kmx_host_internal.h: what the host fallback runtime's files share (not
 * installed).  The fallback mirrors the card runtime (the files of kmx/) call for
 * call: the same status codes, the same library errors, the same result
 * block; where the card keeps its state in LIM (kmx_private, the spawn
 * mailboxes), the fallback keeps it in one process-global struct (kmrun
 * loads one copy of the shared object per cluster) guarded by a mutex for
 * what crosses threads, and atomics for the stop and the error.
 *
 * Every symbol here is hidden: a thread's shared object exports only the
 * kmx.h calls and kmx_host_run, and its own references to the runtime's
 * state bind inside the object. */
#ifndef KMX_HOST_INTERNAL_H
#define KMX_HOST_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "kmx.h"
#include "kmx_host.h"
#include "kmx_rules.h"
#include "kmx_shared.h"

#define KMX_HOST_HIDDEN __attribute__((visibility("hidden")))

/* A wait on a condition variable wakes at least this often to look at
 * the host's stop word and the deadline, which nothing signals. */
#define KMX_HOST_POLL_NS 1000000L

/* One of cores 1-3: the card's spawn mailbox.  Busy while posted != done.
 * Under kmx_host.lock. */
typedef struct kmx_host_worker {
    pthread_t thread;
    int started;       /* pthread_create succeeded */
    uint32_t posted;   /* calls handed over */
    uint32_t done;     /* calls returned */
    kmx_function function;          /* a spawn: function(core, arg) */
    void *arg;
    kmx_cluster_function all;       /* else kmx_parallel_all's: all(cluster, core, all_arg) */
    uint64_t all_arg;
} kmx_host_worker;

typedef struct kmx_host_state {
    kmx_host_ctx *ctx;
    uint64_t start_ns;   /* CLOCK_MONOTONIC of kmx_time's 0: the thread's start */
    uint64_t timeout_ns; /* the run's timeout on that clock (ctx); 0: none */
    uint64_t deadline;   /* absolute ticks; 0: none */
    uint32_t stop;       /* atomic: KMX_STOPPED once a library error stopped the run */
    uint32_t ended;      /* atomic: KMX_STOPPED / KMX_LATE, the first wait that ended so */
    uint32_t error_claim;       /* atomic: the first library error */
    uint32_t unsupported_claim; /* atomic: the first unsupported call */
    int in_parallel;     /* core 0 only: inside kmx_parallel's function */
    int regions_ok;      /* the region checks passed */
    int ring;            /* the argument block has a ring */

    /* cores 1-3 */
    pthread_mutex_t lock;
    pthread_cond_t posted_cond; /* core 0 -> workers: a call, or the end */
    pthread_cond_t done_cond;   /* workers -> core 0: a call returned */
    int finished;               /* the run ended: workers leave */
    kmx_host_worker workers[BH_CLUSTER_CORES]; /* [0] unused */

    /* the ring (core 0's alone, as on the card) */
    uint32_t ring_highest;   /* the highest handle submitted */
    int ring_has_next;       /* an event taken from ctx->poll, still "in the ring" */
    km_event_t ring_next;
    kmx_events ring_taken;   /* kept events and a wake (kmx_shared.h) */

    /* twelve cores (kmx_host_twelve.c; core 0's but twelve_in_call) */
    int twelve_ready;         /* the lead: every other cluster served; a server: the END came */
    uint32_t twelve_others;   /* the lead: the other clusters, bit c for cluster c */
    uint32_t twelve_sequence; /* the lead: the last call posted; a server: the last seen */
    uint32_t twelve_in_call;  /* atomic: a server runs a call (kmx_push may) */
} kmx_host_state;

extern kmx_host_state kmx_host KMX_HOST_HIDDEN;
/* The calling thread's core: 0 on kmx_host_run's thread, 1-3 on the
 * workers; -1 on any other thread. */
extern _Thread_local int kmx_host_core KMX_HOST_HIDDEN;

/* What a core's sigsetjmp returns when its code left it: 1 kmrun's trap
 * handler (a fault, or abort's SIGABRT), KMX_HOST_QUIT an exit
 * (kmx_host_exit.c). */
#define KMX_HOST_QUIT 2

/* The calling thread's armed buffer while it runs thread code, else NULL:
 * where an exit leaves to. */
extern _Thread_local sigjmp_buf *kmx_host_armed KMX_HOST_HIDDEN;

/* ctx->trap_arm for this thread, remembering the buffer. */
void kmx_host_arm(uint32_t core, sigjmp_buf *jmp) KMX_HOST_HIDDEN;

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t kmx_host_now_ns(void) KMX_HOST_HIDDEN;

/* KMX_OK, KMX_STOPPED (the host's stop word, or the runtime's own stop),
 * KMX_LATE (the thread's deadline): the card's kmx__stop_status. */
int kmx_host_stop_status(void) KMX_HOST_HIDDEN;

/* The stop's status as of kmx_time `ticks` from what has a time: the
 * timeout's stop (KMX_STOPPED) from timeout_ns, the deadline (KMX_LATE);
 * KMX_OK before both.  A line of the cluster bus written at `ticks` came
 * after them when this is not KMX_OK (kmx_host_twelve.c). */
int kmx_host_timed_status(uint64_t ticks) KMX_HOST_HIDDEN;

/* Records a library error (the first one wins) and stops the run. */
void kmx_host_error(uint32_t error, uint32_t detail) KMX_HOST_HIDDEN;

/* Records that a library wait ended with KMX_STOPPED / KMX_LATE. */
void kmx_host_ended(int status) KMX_HOST_HIDDEN;

/* KMX_OK on core 0 outside kmx_parallel's function; else records the
 * error `parallel`, made by kmx.h call `call` (KMX_API_*) returning to
 * `pc` (KMX_CALLER()), and returns KMX_STOPPED. */
int kmx_host_core0_only(uint32_t call, uint64_t pc) KMX_HOST_HIDDEN;

/* The runtime's own stop (an error or a trap stopped the run): the card's
 * KMX_PRIVATE->stop, for kmx_joined. */
uint32_t kmx_host_error_stop(void) KMX_HOST_HIDDEN;

/* An absolute CLOCK_MONOTONIC time KMX_HOST_POLL_NS from now, for
 * pthread_cond_timedwait. */
void kmx_host_poll_time(struct timespec *at) KMX_HOST_HIDDEN;

/* kmx_host_spawn.c: the workers' threads. */
int kmx_host_workers_start(void) KMX_HOST_HIDDEN; /* 0, or the error (none left running) */
void kmx_host_workers_settle(void) KMX_HOST_HIDDEN;
/* The end: the workers leave and are joined; one still in thread code
 * (a function that never returned) is detached instead.  Returns those,
 * bit c for core c (kmx_host.h, left_running). */
uint32_t kmx_host_workers_end(void) KMX_HOST_HIDDEN;
/* kmx_parallel_all's part on this cluster (core 0): 1 if cores 1-3 are
 * idle; then all(cluster, core, arg) on the four cores, joined (KMX_OK, or
 * the stop's or the deadline's status). */
int kmx_host_local_idle(void) KMX_HOST_HIDDEN;
int kmx_host_local_all(kmx_cluster_function all, uint64_t arg) KMX_HOST_HIDDEN;

/* kmx_host_twelve.c: the lead's END to the other clusters, when its
 * kmx_main returned (start.c's kmx__twelve_end). */
void kmx_host_twelve_end(void) KMX_HOST_HIDDEN;

/* kmx_host_cache.c: the end of the run's flush of every region. */
void kmx_host_flush_all_regions(void) KMX_HOST_HIDDEN;

/* kmx_host_ring.c: the ring's state at the start. */
void kmx_host_ring_reset(void) KMX_HOST_HIDDEN;

#endif
