/* host_internal: what the host backend's files share (backend_host.c and
 * the host_*.c it is made of) — a thread's host side and the backend.
 *
 * backend_host.c   load, the ring callbacks, the run driver's hooks
 * host_copy.c      the region copies: what the cluster's cache would hold
 *                  (kmx_flush, kmx_invalidate, kmx_push)
 * host_bus.c       the cluster bus of twelve cores
 * host_trap.c      the trap handler (faults, SIGABRT, on an alternate
 *                  signal stack), thread code's exits and aborts, and the
 *                  pc of a stuck thread
 * host_object.c    a fallback's shared object: loaded, and its source lines
 * host_divide.c    an integer division that faulted (SIGFPE), completed
 *                  with RISC-V's result
 *
 * Locks: `lock` guards the card (DRAM, the kernel side, the rings);
 * `bus_lock` the cluster bus, and is never held with `lock`, so a cluster
 * waiting on the bus keeps no other from the card. */
#ifndef HOST_INTERNAL_H
#define HOST_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends.h"
#include "kmx_host.h"
#include "session_internal.h"

typedef int (*host_run_fn)(kmx_host_ctx *ctx);

struct host_backend;

typedef struct host_thread {
    struct host_backend *b;
    const km_cluster_plan *cp;
    void *so;
    host_run_fn run;
    kmx_args args;
    kmx_result_block result;
    volatile uint32_t stop;
    kmx_host_ctx ctx;
    uint8_t *copy[KMX_MAX_REGIONS]; /* what the thread sees */
    void *copy_mapping[KMX_MAX_REGIONS]; /* the copy with its guards (host_copy.c) */
    size_t copy_mapping_bytes[KMX_MAX_REGIONS];
    uint8_t *base[KMX_MAX_REGIONS]; /* DRAM as the copy last saw it */
    pthread_t tid;
    bool started, joined;
    int no_threads; /* atomic: kmx_host_run could not start cores 1-3 (its error) */
    char unsupported[64]; /* the first call the fallback could not honour */
    char called[64];      /* the first exit or abort of thread code, e.g. "exit(3)" */
    uint32_t trap_claim;  /* atomic: the first trap is recorded */
    bool readied;         /* counted in the backend's `ready` (under its lock) */
    uint64_t timeout_ps;  /* its timeout, from the start (under the lock) */
} host_thread;

/* One cluster's lines on the cluster bus (twelve cores), as its LIM and
 * the lead's hold them on the card. */
typedef struct host_bus {
    bool serving;       /* its kmx_serve began */
    uint64_t serving_ticks; /* when (the server's kmx_time) */
    kmx_host_call call; /* the lead's last call line to it (with its time) */
    uint32_t done;      /* its done line: the last sequence it finished */
    int status;         /* and that call's status */
    uint64_t done_ticks; /* when the done line was written */
} host_bus;

typedef struct host_backend {
    km_session *s;
    struct sim_card *card; /* abandoned with the backend (host_free): kept reachable */
    pthread_mutex_t lock;
    host_thread threads[BH_WORK_CLUSTERS];
    unsigned nthreads;
    double start;  /* wall seconds when the threads started */
    bool leak;     /* a host thread may still run: nothing may be freed */
    /* The start (backend_host.c), under `lock`: `ready` threads are
     * ready to run (kmx_host.h, ready) or ended without it; they wait
     * until `go` (`cancelled`: the run is called off, they leave without
     * running anything). */
    pthread_cond_t start_cond;
    unsigned ready;
    bool go, cancelled;
    pthread_mutex_t bus_lock;
    pthread_cond_t bus_cond;             /* any line changed */
    host_bus bus[BH_WORK_CLUSTERS + 1]; /* [cluster], [0] unused */
} host_backend;

/* host_copy.c: each region's two copies, as DRAM holds it at the start;
 * the callbacks of kmx_flush, kmx_invalidate and kmx_push. */
int host_copy_init(host_thread *t, km_error *err);
void host_copy_free(host_thread *t);
void host_cb_flush(void *ops, uint32_t id, uint64_t offset, uint64_t bytes);
void host_cb_invalidate(void *ops, uint32_t id, uint64_t offset, uint64_t bytes);
int host_cb_push(void *ops, uint32_t cluster, uint32_t id, uint64_t offset, const void *source,
                 uint64_t bytes);

/* host_bus.c: the bus's callbacks, and whether the lead told t's cluster
 * to end. */
void host_bus_init(host_backend *b);
void host_bus_destroy(host_backend *b);
void host_bus_fill(kmx_host_ctx *c);
bool host_bus_told_to_end(host_thread *t);

/* host_trap.c: the trap, trap_arm and quit callbacks; the pc core 0 of t runs at
 * (0 when it cannot be had). */
void host_cb_trap_arm(void *ops, uint32_t core, sigjmp_buf *jmp);
void host_cb_trap(void *ops, uint32_t core, uint64_t mcause, uint64_t mepc, uint64_t mtval);
void host_cb_quit(void *ops, const char *call, int code, uint64_t pc);
uint64_t host_sample_pc(host_thread *t);

/* host_divide.c: completes the integer division that raised SIGFPE in
 * the signal context uctx (a ucontext_t) as RISC-V defines it — by zero:
 * the quotient all ones, the remainder the dividend; the most negative
 * value by -1: the quotient that value, the remainder 0 — and moves its
 * pc past it: true.  False, nothing changed, for anything it cannot
 * complete soundly (host_divide.c says what), which stays a trap. */
bool host_divide_complete(void *uctx);

/* host_object.c: loads the fallback of t's thread (a copy of its own:
 * dlopen of one path gives one set of globals); the source line of a pc
 * in it, and the pc as an offset in the object (the pc itself outside
 * it, e.g. in libc). */
const char *host_object_path(const km_session *s, const km_cluster_plan *cp);
int host_object_load(host_thread *t, const char *path, km_error *err);
uint64_t host_object_source(const host_thread *t, uint64_t pc, km_source *src);

#endif
