/* grid_internal.h: what the grid's own files share — the grid and its
 * cores (sim_grid.c), the X280 ports of its cores (grid_port.c) and the
 * built-in handlers (grid_builtins.c) — and nothing else. */
#ifndef GRID_INTERNAL_H
#define GRID_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <ucontext.h>

#include "km_card_io.h"
#include "km_device.h"
#include "sim_grid.h"

/* AddressSanitizer must be told about each switch of stacks (sim_grid.c). */
#if defined(__SANITIZE_ADDRESS__)
#define GRID_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GRID_ASAN 1
#endif
#endif

enum core_state {
    CORE_IDLE,     /* no job */
    CORE_READY,    /* in its handler, runs when furthest behind */
    CORE_BLOCKED,  /* the leader, waiting for its group */
    CORE_WAITING,  /* in a port wait: runs again at wake_ps (or earlier, woken) */
    CORE_RETURNED, /* returned from its handler; the job goes on */
    CORE_HALTED,   /* its handler faulted or never gave way: taken out for good,
                      its job never ends (grid_trap.c) */
};

typedef struct grid_job {
    bool active;
    uint32_t id;
    km_command_t command;
    km_handler_fn fn;
    unsigned first, count;
    uint64_t deadline_ps; /* UINT64_MAX: no limit */
    uint32_t result;      /* the leader's word */
    unsigned returned;    /* cores back from the handler */
    uint64_t end_ps;      /* the latest of their times */
    uint16_t where;       /* KM_WHERE_* of the first port wait that gave up */
    uint64_t scratch[BH_GRID_CORES];
} grid_job;

/* A message slot of a core's KM_CONTROL_X280 area, as the X280 core's
 * 16-byte NoC writes land in it: the newest landing and the one before
 * (a reader earlier than the newest's landing sees the one before). */
typedef struct grid_slot {
    km_x280_msg_t now, before;
    uint64_t now_ps, before_ps; /* when they land */
    uint64_t low;  /* the low half the window holds until the high one */
    bool low_held;
} grid_slot;

struct km_port {
    km_core *core;
    unsigned kernel; /* KM_KERNEL_READER or KM_KERNEL_WRITER */
};

/* A core's X280 port (grid_port.c). */
typedef struct grid_port {
    uint8_t cluster, x280_core; /* who serves it; cluster 0: nobody */
    grid_slot tell, answer;     /* KM_X280_TELL_OFFSET, KM_X280_ANSWER_OFFSET */
    uint32_t asked, told;       /* the sequence of its last ask, last tell */
    uint32_t seen_tell;         /* the last X280 tell it looked at */
    uint64_t sent_land_ps;      /* its last message lands then */
    int sender;                 /* the job's sending kernel; -1 until km_port_of */
    bool pulling;               /* km_port_next's ask for a range is in flight */
    uint16_t where;             /* this job's last give-up */
    const grid_slot *watching;  /* the slot a waiting core waits on */
    uint16_t waiting;           /* KM_WHERE_* of the wait it is in, or NONE */
    km_port ports[2];           /* by kernel */
} grid_port;

struct km_core {
    sim_grid *grid;
    unsigned id;
    enum core_state state;
    uint64_t time_ps;
    uint64_t busy_ps;  /* of its time, what grid_spend_ps spent (sim_grid_stats) */
    uint64_t handlers; /* handlers it started */
    uint64_t wake_ps; /* CORE_WAITING */
    uint64_t begin_ps, end_ps; /* its part of the job: from the start, to its return */
    grid_job *job;
    ucontext_t context; /* the first entry onto its stack */
    jmp_buf jmp;        /* where it gave way */
    bool entered;       /* on its stack since the job began: resume by jmp */
    void *stack; /* SIM_GRID_STACK_BYTES above a guard page, from the core's first job */
#ifdef GRID_ASAN
    void *fake_stack;
#endif
    grid_port port;
    /* Inside a km_* call that reaches the handler's memory (its pointers):
     * the call's return address, so that a fault there names the
     * handler's line (grid_trap.c); else NULL. */
    const void *call_from;
    /* How it was taken out (SIM_HANDLER_*; 0: not, or recorded), written
     * by grid_trap.c's signal handlers. */
    uint8_t halt_kind;
    int halt_sig;
    uint64_t halt_addr, halt_pc;
    uint64_t halt_return; /* pc outside the object: a return address into it on the stack */
};

/* Messages on their way from the cores to their X280 cores' mailbox
 * lines, in the order they were sent, which is the order they land (the
 * grid runs the core furthest behind; every message flies as long): a
 * ring.  A core has one in flight but may send the next as soon as the
 * grid has reached the last one's landing, before the card took it: with
 * live clusters the card takes them every quantum, so a core has at most
 * two here.  With none (every thread ended) nobody takes them; the ring
 * then keeps the newest. */
#define GRID_LANDINGS 1024u

/* The leaves of the grid's tournament of runnable cores (sim_grid.c). */
#define GRID_LEAVES 128u
_Static_assert(BH_GRID_CORES <= GRID_LEAVES, "every core is a leaf");

struct sim_grid {
    sim_dram *dram;
    unsigned mhz;
    bool stop;
    uint64_t stepped_ps; /* the until_ps of the last step */
    km_core cores[BH_GRID_CORES];
    /* Active groups never overlap, so a job is known by its first core. */
    grid_job jobs[BH_GRID_CORES];
    unsigned njobs;
    /* The active jobs' first cores, ascending (njobs of them): the cores
     * that may run are theirs, found in grid order without a look at
     * every core. */
    uint8_t active[BH_GRID_CORES];
    _Static_assert(BH_GRID_CORES <= 256, "a first core fits a byte");
    /* What the last sim_grid_step left (quiet: nothing changed the cores
     * or the jobs since): no core can run before quiet_at, no job times
     * out before quiet_deadline, so a step to a time below both does
     * nothing (with X280 ports the card steps the grid every quantum).
     * Whatever changes a core or a job from outside a step clears it. */
    bool quiet;
    uint64_t quiet_at, quiet_deadline;
    /* When each core can run next, by core id (grid order): its time when
     * ready, its wake when waiting, UINT64_MAX when it cannot run (no
     * active job, blocked, returned, halted) or not before its job's
     * deadline; past the cores, UINT64_MAX.  Above them a tournament:
     * run_win[n] (n from 1) is the core of least (run_at, id) under node n
     * (its children 2n and 2n + 1; node GRID_LEAVES + i is core i), so
     * run_win[1] is the core a step runs next, the one a look at every
     * core would find.  grid_note_core keeps both at every change of a
     * core's state, time, wake or job. */
    uint64_t run_at[GRID_LEAVES];
    uint8_t run_win[GRID_LEAVES];
    km_handler_fn handlers[KM_HANDLER_MAX + 1];
    void *so; /* the kernels' object, or NULL */
    const km_region_place *regions; /* km_region_address's table (the owner's) */
    unsigned nregions;
    const km_tensor_place *tensors; /* km_tensor_of's table (the owner's) */
    unsigned ntensors;
    jmp_buf main_jmp; /* the grid's side of a switch */
#ifdef GRID_ASAN
    const void *main_bottom;
    size_t main_size;
#endif
    sim_grid_done *done; /* done[head..ndone): not yet polled */
    size_t head, ndone, cap; /* cap: room for every job running to end too */
    /* The model's own failure (sim_grid_failed), the first; KS_OK while
     * there is none. */
    ks_error failure;
    /* The hand-over checker (sim_grid_set_checker), or NULL; the kernels'
     * object's load address, for a handler's call sites. */
    struct sim_checker *checker;
    sim_card_moment_fn record; /* sim_grid_record */
    void *record_ctx;
    uintptr_t so_base;
    /* X280 ports (grid_port.c). */
    bool ports;
    sim_grid_landing landings[GRID_LANDINGS];
    unsigned landing_head, nlandings;
    km_port_gave_up gave_up[KM_PORT_WAITS_KEPT];
    unsigned ngave_up;
    /* Each core's print buffer (KM_PRINT_L1 of its L1, grid_print.c),
     * allocated at its first km_print; NULL until then. */
    kmx_print_buffer *prints[BH_GRID_CORES];
    /* Bytes over the NoC (sim_grid_stats). */
    uint64_t bank_bytes, mailbox_bytes;
    /* The program's handlers contained (grid_trap.c): NULL until kernels
     * are loaded (the built-ins are trusted); the spin limit. */
    struct grid_trap *trap;
    unsigned spin_ms;
};

/* ---- grid_trap.c: faults and endless handlers ----
 *
 * grid_trap_open at a load of the kernels (g->so_base and the object's
 * code span, the watchdog); grid_trap_close at the grid's end.  While a
 * step runs cores, grid_trap_step_begin/_end hold the grid's claim on
 * the thread's faults; around each switch into a core
 * grid_trap_resuming/_resumed tell the watchdog and note a core that was
 * taken out (CORE_HALTED).  grid_current: the core on its stack, on this
 * thread. */
typedef struct grid_trap grid_trap;
extern __thread km_core *grid_current;
int grid_trap_open(sim_grid *g, void *so, ks_error *err);
void grid_trap_close(sim_grid *g);
void grid_trap_step_begin(sim_grid *g);
void grid_trap_step_end(sim_grid *g);
void grid_trap_resuming(sim_grid *g, km_core *c);
void grid_trap_resumed(sim_grid *g, km_core *c);
/* A core's stack: SIM_GRID_STACK_BYTES above a guard page (NULL: no
 * memory); freed with grid_stack_free (NULL is fine). */
void *grid_stack_alloc(void);
void grid_stack_free(void *stack);
/* The grid's model cannot go on as it should (sim_grid_failed says
 * "the Tensix grid: what" with status): the first failure is kept. */
void grid_fail(sim_grid *g, ks_status status, const char *what);

/* The built-in handlers, indexed by id (NULL where none). */
extern const km_handler_fn sim_grid_builtins[KM_HANDLER_FIRST_PROGRAM];

/* The job's scratch: one 64-bit word per core of the group, by group
 * index, zero at the start; how a group's cores share partial results. */
uint64_t *sim_grid_scratch(km_core *core);

/* The leader waits until every other core of its group has returned from
 * its handler; its time becomes the latest of theirs if that is later.
 * Does nothing on another core (they would wait for the leader forever). */
void sim_grid_wait_members(km_core *core);

/* The core's entry of grid->run_at from its state, time, wake and job,
 * after any of them changed. */
void grid_note_core(const km_core *core);

/* The core's time moves on by ps and the grid picks whoever is now
 * furthest behind (every modeled cost ends here). */
void grid_spend_ps(km_core *core, uint64_t ps);

/* The core waits (CORE_WAITING) until wake_ps or until a landing on the
 * slot it watches wakes it earlier; on return its time is the later of
 * its own and the wake. */
void grid_wait(km_core *core, uint64_t wake_ps);

/* A job starts on the core: its port's per-job state is reset. */
void grid_port_start_job(km_core *core);

/* The core's job is cut off: a port wait it was in gave up at the
 * command's limit (recorded as any give-up). */
void grid_port_cut(km_core *core);

#endif
