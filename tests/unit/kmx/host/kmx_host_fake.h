/* kmx_host_fake.h: the harness of the host fallback runtime's unit tests
 * (kmx_host_test.c, kmx_host_twin_test.c), each of which includes it once:
 * a fake kmx_host_ctx (regions in arrays, a ring in memory whose tiny
 * kernel turns each submitted command into a DONE event after a number of
 * steps, flush and invalidate calls recorded, a cluster bus that records
 * posts and plays a server's calls) and kmx_main, which runs the body a
 * test chose.  A body records what it sees with EXPECT (a failed cmocka
 * assertion would jump out of kmx_host_run with its threads running); the
 * test asserts after the run. */
#ifndef KMX_HOST_FAKE_H
#define KMX_HOST_FAKE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kmx.h"
#include "kmx_host.h"

/* ---- what a body saw ------------------------------------------------------ */

static int failures;
static int first_failure_line;
static __attribute__((unused)) pthread_mutex_t expect_lock = PTHREAD_MUTEX_INITIALIZER;

#define EXPECT(cond)                                                           \
    do {                                                                       \
        if (!(cond)) {                                                         \
            pthread_mutex_lock(&expect_lock);                                  \
            if (failures++ == 0) {                                             \
                first_failure_line = __LINE__;                                 \
            }                                                                  \
            fprintf(stderr, "# EXPECT failed at line %d: %s\n", __LINE__, #cond); \
            pthread_mutex_unlock(&expect_lock);                                \
        }                                                                      \
    } while (0)

#define ASSERT_NO_FAILURES()                                                   \
    do {                                                                       \
        if (failures != 0) {                                                   \
            fail_msg("%d EXPECT failed, first at line %d", failures,           \
                     first_failure_line);                                      \
        }                                                                      \
    } while (0)

static int (*body)(int core);
static int main_calls;

int kmx_main(int core) {
    main_calls++;
    return body != NULL ? body(core) : 0;
}

/* ---- the fake ctx --------------------------------------------------------- */

#define REGIONS 3
#define REGION_BYTES 4096u
#define MAX_CALLS 256
#define MAX_FLIGHT 128
#define MAX_EVENTS 512
#define NEVER 0xFFFFFFFFu

/* Command words the fake kernel reads: a0 the result word, a1 the steps
 * until it is done (NEVER: never), a2 non-zero: a wake event first. */
typedef struct call {
    int invalidate;
    uint32_t id;
    uint64_t offset, bytes;
} call;

typedef struct flight {
    uint32_t handle;
    uint32_t steps_left;
    uint32_t result;
    uint32_t wake;
} flight;

typedef struct fake {
    pthread_mutex_t lock;
    call calls[MAX_CALLS];
    int ncalls;
    uint32_t capacity; /* in flight at most, else KMX_FULL */
    uint32_t submitted;
    flight flights[MAX_FLIGHT];
    int nflights;
    km_event_t events[MAX_EVENTS];
    int event_head, event_count;
    uint32_t event_index;
    uint32_t steps;
    uint32_t stop_at_step; /* 0: never */
    int unsupported_calls;
    char unsupported_name[64];
    /* the cluster bus */
    uint32_t serving;        /* bit c: cluster c serves */
    uint64_t serving_ticks;  /* since when (every one) */
    uint64_t done_ticks;     /* when every done line was written */
    int done_status;         /* what every other cluster reports */
    int serve_begins;
    kmx_host_call script[8]; /* a server's call lines, in order */
    int nscript, script_next;
    struct { uint32_t cluster; kmx_host_call call; } posts[16];
    int nposts;
    struct { uint32_t sequence; int status; } dones[8];
    int ndones;
    struct { uint32_t cluster, id; uint64_t offset, bytes; uint32_t first; } pushes[8];
    int npushes;
} fake;

static fake f;
static uint8_t region_mem[REGIONS][REGION_BYTES] __attribute__((aligned(64)));
static kmx_args args;
static kmx_result_block result;
static volatile uint32_t stop_word;
static kmx_host_ctx ctx;

static void fake_flush(void *ops, uint32_t id, uint64_t offset, uint64_t bytes) {
    fake *k = ops;
    pthread_mutex_lock(&k->lock);
    if (k->ncalls < MAX_CALLS) {
        k->calls[k->ncalls++] = (call){0, id, offset, bytes};
    }
    pthread_mutex_unlock(&k->lock);
}

static void fake_invalidate(void *ops, uint32_t id, uint64_t offset, uint64_t bytes) {
    fake *k = ops;
    pthread_mutex_lock(&k->lock);
    if (k->ncalls < MAX_CALLS) {
        k->calls[k->ncalls++] = (call){1, id, offset, bytes};
    }
    pthread_mutex_unlock(&k->lock);
}

static int fake_submit(void *ops, const km_command_t *command, uint32_t *handle) {
    fake *k = ops;
    if ((uint32_t)k->nflights >= k->capacity || k->nflights >= MAX_FLIGHT) {
        return KMX_FULL;
    }
    uint32_t h = ++k->submitted;
    k->flights[k->nflights++] = (flight){h, command->a1, command->a0, command->a2};
    *handle = h;
    return KMX_OK;
}

static void emit(fake *k, uint16_t kind, uint32_t handle, uint32_t ticks) {
    if (k->event_count < MAX_EVENTS) {
        km_event_t *e = &k->events[(k->event_head + k->event_count) % MAX_EVENTS];
        *e = (km_event_t){++k->event_index, kind, 0, handle, ticks};
        k->event_count++;
    }
}

static int fake_poll(void *ops, km_event_t *event) {
    fake *k = ops;
    if (k->event_count == 0) {
        return KMX_EMPTY;
    }
    *event = k->events[k->event_head];
    k->event_head = (k->event_head + 1) % MAX_EVENTS;
    k->event_count--;
    return KMX_OK;
}

static void fake_step(void *ops) {
    fake *k = ops;
    k->steps++;
    if (k->stop_at_step != 0 && k->steps >= k->stop_at_step) {
        stop_word = 1;
    }
    int kept = 0;
    for (int i = 0; i < k->nflights; i++) {
        flight *fl = &k->flights[i];
        if (fl->steps_left != NEVER && fl->steps_left > 0) {
            fl->steps_left--;
        }
        if (fl->steps_left == 0) {
            if (fl->wake) {
                emit(k, KMX_EVENT_WAKE, 0, 0);
            }
            emit(k, KM_EVENT_DONE, fl->handle, fl->result);
        } else {
            k->flights[kept++] = *fl;
        }
    }
    k->nflights = kept;
}

static void fake_unsupported(void *ops, const char *name) {
    fake *k = ops;
    k->unsupported_calls++;
    snprintf(k->unsupported_name, sizeof k->unsupported_name, "%s", name);
}

/* The cluster bus: the lead's side sees the clusters of f.serving serve
 * and finish every posted call with f.done_status; a server's side gets
 * f.script's call lines one by one.  A wait that finds nothing naps 0.1 ms
 * (kmrun's wait up to 1 ms). */
static void nap(void) {
    struct timespec t = {0, 100000};
    nanosleep(&t, NULL);
}

static void fake_serve_begin(void *ops, uint64_t ticks) {
    fake *k = ops;
    (void)ticks;
    pthread_mutex_lock(&k->lock);
    k->serve_begins++;
    pthread_mutex_unlock(&k->lock);
}

static int fake_serve_next(void *ops, uint32_t seen, kmx_host_call *line) {
    fake *k = ops;
    pthread_mutex_lock(&k->lock);
    int found = k->script_next < k->nscript && k->script[k->script_next].sequence != seen;
    if (found) {
        *line = k->script[k->script_next++];
    }
    pthread_mutex_unlock(&k->lock);
    if (!found) {
        nap();
    }
    return found;
}

static void fake_serve_done(void *ops, uint32_t sequence, int status, uint64_t ticks) {
    fake *k = ops;
    (void)ticks;
    pthread_mutex_lock(&k->lock);
    if (k->ndones < 8) {
        k->dones[k->ndones].sequence = sequence;
        k->dones[k->ndones++].status = status;
    }
    pthread_mutex_unlock(&k->lock);
}

static int fake_serving(void *ops, uint32_t cluster, uint64_t *ticks) {
    fake *k = ops;
    pthread_mutex_lock(&k->lock);
    int serving = (k->serving >> cluster) & 1u;
    *ticks = k->serving_ticks;
    pthread_mutex_unlock(&k->lock);
    if (!serving) {
        nap();
    }
    return serving;
}

static void fake_post(void *ops, uint32_t cluster, const kmx_host_call *line) {
    fake *k = ops;
    pthread_mutex_lock(&k->lock);
    if (k->nposts < 16) {
        k->posts[k->nposts].cluster = cluster;
        k->posts[k->nposts++].call = *line;
    }
    pthread_mutex_unlock(&k->lock);
}

static int fake_done(void *ops, uint32_t cluster, uint32_t sequence, int *status,
                     uint64_t *ticks) {
    fake *k = ops;
    int posted = 0;
    pthread_mutex_lock(&k->lock);
    for (int i = 0; i < k->nposts; i++) {
        posted |= k->posts[i].cluster == cluster && k->posts[i].call.sequence == sequence;
    }
    pthread_mutex_unlock(&k->lock);
    if (posted) {
        *status = k->done_status;
        *ticks = k->done_ticks;
    }
    return posted;
}

static int fake_push(void *ops, uint32_t cluster, uint32_t id, uint64_t offset,
                     const void *source, uint64_t bytes) {
    fake *k = ops;
    pthread_mutex_lock(&k->lock);
    if (k->npushes < 8) {
        uint32_t first;
        memcpy(&first, source, sizeof first);
        k->pushes[k->npushes].cluster = cluster;
        k->pushes[k->npushes].id = id;
        k->pushes[k->npushes].offset = offset;
        k->pushes[k->npushes].bytes = bytes;
        k->pushes[k->npushes++].first = first;
    }
    pthread_mutex_unlock(&k->lock);
    return KMX_OK;
}

/* Traps without signals: the fake arms as kmrun does; fake_fault does
 * what kmrun's handler does on a fault (records the trap, jumps back). */
static __thread sigjmp_buf *fake_armed;
static int trap_arms;

static int fake_print(void *ops, uint32_t core, uint64_t *rec, unsigned n) {
    (void)ops;
    (void)core;
    (void)rec;
    (void)n;
    return KMX_OK;
}

static void fake_quit(void *ops, const char *what, int code, uint64_t pc) {
    (void)ops;
    (void)what;
    (void)code;
    (void)pc;
}

static void fake_trap_arm(void *ops, uint32_t core, sigjmp_buf *jmp) {
    (void)ops;
    (void)core;
    fake_armed = jmp;
    if (jmp != NULL) {
        __atomic_fetch_add(&trap_arms, 1, __ATOMIC_SEQ_CST);
    }
}

static __attribute__((unused)) void fake_fault(uint32_t core) {
    sigjmp_buf *jmp = fake_armed;
    fake_armed = NULL;
    uint32_t none = 0;
    if (__atomic_compare_exchange_n(&result.traps, &none, 1u, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST)) {
        result.trap_mcause = KMX_HOST_TRAP_CAUSE(SIGSEGV);
        result.trap_core = core;
    }
    siglongjmp(*jmp, 1);
}

/* ctx->ready: the run starts at once. */
static int fake_ready(void *ops) {
    (void)ops;
    return 0;
}

/* ctx->trap: the runtime's own trap (a misaligned access), recorded as
 * fake_fault records a fault; the runtime jumps back itself. */
static void fake_trap(void *ops, uint32_t core, uint64_t mcause, uint64_t mepc, uint64_t mtval) {
    (void)ops;
    fake_armed = NULL;
    uint32_t none = 0;
    if (__atomic_compare_exchange_n(&result.traps, &none, 1u, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST)) {
        result.trap_mcause = mcause;
        result.trap_mepc = mepc;
        result.trap_mtval = mtval;
        result.trap_core = core;
    }
}

#define NONCE 0x0123456789ABCDEFull

static int setup(void **state) {
    (void)state;
    failures = 0;
    first_failure_line = 0;
    main_calls = 0;
    body = NULL;
    memset(&f, 0, sizeof f);
    pthread_mutex_init(&f.lock, NULL);
    f.capacity = 64;
    memset(region_mem, 0, sizeof region_mem);
    memset(&args, 0, sizeof args);
    args.magic = KMX_ARGS_MAGIC;
    args.version = KMX_LAYOUT_VERSION;
    args.nonce = NONCE;
    args.cluster = 1;
    args.clusters = 1u << 1;
    args.lead = 1;
    args.bank = 6;
    args.nregions = REGIONS;
    args.nwords = 2;
    args.words[0] = 7;
    args.words[1] = 6;
    args.check.bank_address = 0x100000;
    args.check.value = 0x55;
    args.ring.kind = KMX_RING_REMOTE;
    args.ring.command_depth = KMX_RING_COMMAND_DEPTH;
    args.ring.event_depth = KMX_RING_EVENT_DEPTH;
    for (uint32_t i = 0; i < REGIONS; i++) {
        args.regions[i].bank_address = 0x10000u * (i + 1u);
        args.regions[i].bytes = REGION_BYTES;
        args.regions[i].bank = 6;
    }
    args.regions[2].bytes = 100; /* not whole lines */
    args.seal.nonce = NONCE;
    args.seal.seal = KMX_ARGS_SEAL;
    memset(&result, 0, sizeof result);
    result.nonce = NONCE;
    stop_word = 0;
    memset(&ctx, 0, sizeof ctx);
    ctx.abi = KMX_HOST_ABI;
    ctx.cluster = 1;
    ctx.args = &args;
    for (int i = 0; i < REGIONS; i++) {
        ctx.region[i] = region_mem[i];
    }
    ctx.result = &result;
    ctx.stop = &stop_word;
    ctx.ops = &f;
    ctx.ready = fake_ready;
    ctx.flush = fake_flush;
    ctx.invalidate = fake_invalidate;
    ctx.submit = fake_submit;
    ctx.poll = fake_poll;
    ctx.step = fake_step;
    ctx.unsupported = fake_unsupported;
    ctx.trap_arm = fake_trap_arm;
    ctx.trap = fake_trap;
    ctx.serve_begin = fake_serve_begin;
    ctx.serve_next = fake_serve_next;
    ctx.serve_done = fake_serve_done;
    ctx.serving = fake_serving;
    ctx.post = fake_post;
    ctx.done = fake_done;
    ctx.push = fake_push;
    ctx.quit = fake_quit;
    ctx.print = fake_print;
    trap_arms = 0;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    pthread_mutex_destroy(&f.lock);
    return 0;
}

static void run(int (*b)(int core)) {
    body = b;
    assert_int_equal(kmx_host_run(&ctx), 0);
    ASSERT_NO_FAILURES();
    assert_true(KMX_STATE_FINAL(result.state));
}

/* CLOCK_MONOTONIC in nanoseconds. */
static __attribute__((unused)) uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Once a library error stopped the run, a join may end before the core
 * returned: wait (bounded) for the function's last store. */
static __attribute__((unused)) void wait_set(volatile int *flag) {
    uint64_t until = kmx_time() + BH_TICKS_PER_SECOND * 5ull;
    while (*flag == -1 && kmx_time() < until) {
        sched_yield();
    }
}

#endif
