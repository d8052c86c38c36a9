/* grid: the Tensix grid (sim_grid.h) and the handlers' API (km_device.h).
 *
 * Each core runs its handler on its own stack: the grid switches into the
 * core that is furthest behind in modeled time and the core switches back
 * at its next modeled cost.  One host thread, a fixed choice of the next
 * core: a run is deterministic.  A core's stack is entered the first time
 * with ucontext (setcontext onto a makecontext'd stack); every switch after
 * that is _setjmp/_longjmp, which saves no signal mask: swapcontext's
 * system call made a switch cost about 1.6 us, and a handler that gives way
 * every modeled microsecond (the built-in spend) made a 120-core command of
 * 10 ms take 3.8 s of real time.  The switches live in grid_switch.c, built
 * without _FORTIFY_SOURCE, whose checked longjmp refuses them. */
#include "sim_grid.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "grid_internal.h"
#include "grid_switch.h"
#include "ks_grow.h"
#include "sim_checker.h"
#include "sim_clock.h"

/* AddressSanitizer must be told about each switch of stacks, or it takes
 * the coroutine's frames for the main stack's and reports false errors
 * (and a reused stack keeps the poison of frames cut off by a timeout);
 * grid_internal.h says whether it is on. */
#ifdef GRID_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

void grid_fail(sim_grid *g, ks_status status, const char *what)
{
    if (g->failure.status == KS_OK)
        ks_fail(&g->failure, status, "the Tensix grid: %s", what);
}

bool sim_grid_failed(const sim_grid *g, ks_error *err)
{
    if (g->failure.status != KS_OK && err)
        *err = g->failure;
    return g->failure.status != KS_OK;
}

/* ---- coroutines ---- */

/* Into a core's coroutine and back when it next gives way. */
static void resume(sim_grid *g, km_core *c)
{
#ifdef GRID_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, c->stack, SIM_GRID_STACK_BYTES);
#endif
    if (g->trap)
        grid_trap_resuming(g, c);
    if (c->entered) {
        grid_switch(g->main_jmp, c->jmp);
    } else if (!(c->entered = grid_switch_enter(g->main_jmp, &c->context))) {
        /* setcontext refused a context getcontext and makecontext made
         * (it fails only on a bad signal mask): the core cannot run, and
         * its job never ends.  Taken out, as a faulting handler is, and
         * the run fails with it. */
        c->state = CORE_HALTED;
        grid_fail(g, KS_ERR_BUG, "a core's coroutine could not be entered (setcontext failed)");
    }
#ifdef GRID_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    if (g->trap)
        grid_trap_resumed(g, c);
}

/* From a core back to the grid; `last`: never resumed again. */
static void give_way(km_core *c, bool last)
{
    sim_grid *g = c->grid;
#ifdef GRID_ASAN
    __sanitizer_start_switch_fiber(last ? NULL : &c->fake_stack, g->main_bottom, g->main_size);
#else
    (void)last;
#endif
    grid_switch(c->jmp, g->main_jmp);
#ifdef GRID_ASAN
    __sanitizer_finish_switch_fiber(c->fake_stack, &g->main_bottom, &g->main_size);
#endif
}

static void finish_core(km_core *c);

/* makecontext passes int arguments only: the core's address in two. */
static void core_entry(unsigned lo, unsigned hi)
{
    km_core *c = (km_core *)(uintptr_t)((uint64_t)lo | (uint64_t)hi << 32);
#ifdef GRID_ASAN
    __sanitizer_finish_switch_fiber(NULL, &c->grid->main_bottom, &c->grid->main_size);
#endif
    grid_job *j = c->job;
    c->handlers++;
    km_compute(c, SIM_GRID_LAUNCH_CYCLES);
    j->fn(c, &j->command);
    finish_core(c);
    /* A returned core is never resumed (it is CORE_RETURNED until its job
     * ends, and a new job makes it a new context); were it, this stack
     * must not be returned from (uc_link is NULL: the thread would end). */
    for (;;) {
        give_way(c, true);
        grid_fail(c->grid, KS_ERR_BUG, "a core was resumed after its handler returned");
    }
}

/* A new coroutine for c's handler, on its stack (sim_grid_submit made
 * it). */
static void start_core(km_core *c)
{
#ifdef GRID_ASAN
    /* A job cut off by its time limit left its frames' poison here. */
    ASAN_UNPOISON_MEMORY_REGION(c->stack, SIM_GRID_STACK_BYTES);
    c->fake_stack = NULL;
#endif
    c->entered = false;
    getcontext(&c->context);
    c->context.uc_stack.ss_sp = c->stack;
    c->context.uc_stack.ss_size = SIM_GRID_STACK_BYTES;
    c->context.uc_link = NULL;
    uint64_t p = (uint64_t)(uintptr_t)c;
    makecontext(&c->context, (void (*)(void))core_entry, 2, (unsigned)(p & 0xFFFFFFFFu),
                (unsigned)(p >> 32));
}

/* ---- jobs ---- */

/* When a core can run next: its time when ready, its wake when waiting. */
static bool runnable_at(const km_core *c, uint64_t *at)
{
    if (c->state == CORE_READY) {
        *at = c->time_ps;
        return true;
    }
    if (c->state == CORE_WAITING) {
        *at = c->wake_ps > c->time_ps ? c->wake_ps : c->time_ps;
        return true;
    }
    return false;
}

/* The tournament's winners above leaf i, again: of two, the later core
 * wins only when strictly behind (the earlier core wins a tie). */
static void replay(sim_grid *g, unsigned i)
{
    for (unsigned n = (GRID_LEAVES + i) / 2; n >= 1; n /= 2) {
        unsigned l = 2 * n, r = l + 1;
        unsigned a = l >= GRID_LEAVES ? l - GRID_LEAVES : g->run_win[l];
        unsigned b = r >= GRID_LEAVES ? r - GRID_LEAVES : g->run_win[r];
        g->run_win[n] = (uint8_t)(g->run_at[b] < g->run_at[a] ? b : a);
    }
}

void grid_note_core(const km_core *c)
{
    sim_grid *g = c->grid;
    uint64_t at;
    if (!(c->job && c->job->active && runnable_at(c, &at) && at < c->job->deadline_ps))
        at = UINT64_MAX;
    if (g->run_at[c->id] != at) {
        g->run_at[c->id] = at;
        replay(g, c->id);
    }
}

static void push_done(sim_grid *g, uint32_t id, uint32_t result, uint64_t end_ps, bool timed_out,
                      uint16_t where)
{
    if (g->head == g->ndone)
        g->head = g->ndone = 0;
    if (g->ndone == g->cap && g->head > 0) {
        memmove(g->done, g->done + g->head, (g->ndone - g->head) * sizeof *g->done);
        g->ndone -= g->head;
        g->head = 0;
    }
    /* sim_grid_submit made room for every running job's end: none here
     * would be a broken count, not memory. */
    if (g->ndone == g->cap) {
        grid_fail(g, KS_ERR_BUG, "no room for a finished job's report");
        return;
    }
    g->done[g->ndone++] = (sim_grid_done){id, result, end_ps, timed_out, where};
}

/* A core's part of a job that ends: to the recorder, if any.  A core cut
 * off before its return ends at cut_ps (the job's deadline), or where its
 * time got to (a cancel: 0). */
static void record_part(sim_grid *g, grid_job *j, km_core *c, uint64_t cut_ps)
{
    uint64_t end = c->state == CORE_RETURNED ? c->end_ps : cut_ps ? cut_ps : c->time_ps;
    sim_card_moment m = {
        .kind = SIM_MOMENT_HANDLER,
        .job = j->id,
        .core = c->id,
        .handler = KM_HDR_HANDLER(j->command.hdr),
        .leader = c->id == j->first,
        .begin_ps = c->begin_ps,
        .end_ps = end > c->begin_ps ? end : c->begin_ps,
    };
    g->record(g->record_ctx, &m);
}

static void release_job(sim_grid *g, grid_job *j, uint64_t cut_ps)
{
    for (unsigned i = 0; i < j->count; i++) {
        km_core *c = &g->cores[j->first + i];
        if (g->record)
            record_part(g, j, c, cut_ps);
        if (c->state != CORE_HALTED) /* a halted core stays so, busy */
            c->state = CORE_IDLE;
        c->job = NULL;
        grid_note_core(c);
    }
    j->active = false;
    unsigned k = 0;
    while (g->active[k] != j->first)
        k++;
    memmove(&g->active[k], &g->active[k + 1], (g->njobs - k - 1) * sizeof g->active[0]);
    g->njobs--;
}

static void end_job(sim_grid *g, grid_job *j, uint64_t end_ps, bool timed_out)
{
    for (unsigned k = 0; timed_out && k < j->count; k++)
        grid_port_cut(&g->cores[j->first + k]);
    push_done(g, j->id, timed_out ? 0 : j->result, end_ps, timed_out, j->where);
    release_job(g, j, end_ps);
}

/* Runs on the core's own stack, after its handler returned. */
static void finish_core(km_core *c)
{
    sim_grid *g = c->grid;
    grid_job *j = c->job;
    c->state = CORE_RETURNED;
    c->end_ps = c->time_ps;
    j->returned++;
    if (c->time_ps > j->end_ps)
        j->end_ps = c->time_ps;
    km_core *leader = &g->cores[j->first];
    if (j->returned == j->count - 1 && leader->state == CORE_BLOCKED) {
        leader->state = CORE_READY;
        if (j->end_ps > leader->time_ps)
            leader->time_ps = j->end_ps;
        grid_note_core(leader);
    }
}

void sim_grid_wait_members(km_core *c)
{
    grid_job *j = c->job;
    if (c->id != j->first)
        return;
    if (j->returned < j->count - 1) {
        c->state = CORE_BLOCKED;
        give_way(c, false); /* finish_core wakes us, at the latest time */
    } else if (j->end_ps > c->time_ps) {
        c->time_ps = j->end_ps;
    }
}

uint64_t *sim_grid_scratch(km_core *c)
{
    return c->job->scratch;
}

/* ---- the grid ---- */

sim_grid *sim_grid_create(sim_dram *dram, unsigned mhz)
{
    sim_grid *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->dram = dram;
    g->mhz = mhz ? mhz : SIM_GRID_MHZ;
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        g->cores[i].grid = g;
        g->cores[i].id = i;
    }
    for (unsigned i = 0; i < GRID_LEAVES; i++) {
        g->run_at[i] = UINT64_MAX; /* no job (past the cores: none) */
        replay(g, i);
    }
    for (unsigned i = 0; i < KM_HANDLER_FIRST_PROGRAM; i++)
        g->handlers[i] = sim_grid_builtins[i];
    return g;
}

void sim_grid_free(sim_grid *g)
{
    if (!g)
        return;
    /* (A core taken out is off its stack: nothing runs there.) */
    grid_trap_close(g);
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        grid_stack_free(g->cores[i].stack);
        free(g->prints[i]);
    }
    if (g->so)
        dlclose(g->so);
    free(g->done);
    free(g);
}

/* The kernels' object leaves the km_device.h functions undefined, and
 * dlopen looks them up in the global scope: the program and what was
 * loaded with it (kmrun holds them and exports them with -rdynamic; a
 * program linked with libkmrun.so has the library there, which exports
 * them).  A program that dlopened libkmrun.so itself without RTLD_GLOBAL
 * (Python's ctypes does) leaves them out of it: the object that holds them
 * is made global first.  RTLD_NOLOAD loads nothing; where a program holds
 * them itself, it finds nothing or the program, already global. */
static void grid_export_device_api(void)
{
    unsigned (*fn)(const km_core *) = km_core_id;
    void *address;
    memcpy(&address, &fn, sizeof address);
    Dl_info info;
    if (!dladdr(address, &info) || !info.dli_fname || !info.dli_fname[0])
        return;
    void *self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
    if (self)
        dlclose(self);
}

int sim_grid_load_kernels(sim_grid *g, const char *so_path, const char *const names[],
                          unsigned n, ks_error *err)
{
    if (g->njobs)
        return ks_fail(err, KS_ERR_BUG, "grid: kernels loaded while %u jobs run",
                       g->njobs);
    if (n > KM_HANDLER_MAX + 1 - KM_HANDLER_FIRST_PROGRAM)
        return ks_fail(err, KS_ERR_INPUT, "%s: %u handlers, at most %u", so_path, n,
                       KM_HANDLER_MAX + 1 - KM_HANDLER_FIRST_PROGRAM);
    grid_export_device_api();
    void *so = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    if (!so)
        return ks_fail(err, KS_ERR_IMAGE, "cannot load the kernels: %s", dlerror());
    km_handler_fn fns[KM_HANDLER_MAX + 1];
    for (unsigned i = 0; i < n; i++) {
        char symbol[256];
        snprintf(symbol, sizeof symbol, "km_handler_%s", names[i]);
        void *f = dlsym(so, symbol);
        if (!f) {
            dlclose(so);
            return ks_fail(err, KS_ERR_IMAGE, "%s: no handler %s (%s)", so_path, names[i],
                           symbol);
        }
        /* POSIX guarantees a dlsym'd function converts back. */
        memcpy(&fns[i], &f, sizeof f);
    }
    /* Where it is (g->so_base), and its handlers contained from now on. */
    int rc = grid_trap_open(g, so, err);
    if (rc != KS_OK) {
        dlclose(so);
        return rc;
    }
    if (g->so)
        dlclose(g->so);
    g->so = so;
    for (unsigned i = KM_HANDLER_FIRST_PROGRAM; i <= KM_HANDLER_MAX; i++)
        g->handlers[i] = i - KM_HANDLER_FIRST_PROGRAM < n ? fns[i - KM_HANDLER_FIRST_PROGRAM]
                                                          : NULL;
    return KS_OK;
}

bool sim_grid_handler_known(const sim_grid *g, uint32_t handler)
{
    return handler <= KM_HANDLER_MAX && g->handlers[handler] != NULL;
}

bool sim_grid_cancel(sim_grid *g, uint32_t job_id, uint16_t *where)
{
    g->quiet = false; /* its cores change */
    for (unsigned i = 0; i < BH_GRID_CORES; i++)
        if (g->jobs[i].active && g->jobs[i].id == job_id) {
            grid_job *j = &g->jobs[i];
            for (unsigned k = 0; k < j->count; k++)
                grid_port_cut(&g->cores[j->first + k]);
            if (where)
                *where = j->where;
            release_job(g, j, 0);
            return true;
        }
    return false;
}

bool sim_grid_busy(const sim_grid *g, unsigned first, unsigned count)
{
    for (unsigned i = first; i < BH_GRID_CORES && i - first < count; i++)
        if (g->cores[i].state != CORE_IDLE)
            return true;
    return false;
}

uint32_t sim_grid_submit(sim_grid *g, uint32_t job_id, const km_command_t *command,
                         uint64_t time_limit_ps, uint64_t now_ps)
{
    g->quiet = false; /* a job may start */
    uint32_t handler = KM_HDR_HANDLER(command->hdr);
    unsigned first = KM_GROUP_FIRST(command->group), count = KM_GROUP_COUNT(command->group);
    if ((KM_HDR_FLAGS(command->hdr) & ~KM_FLAGS_ALL) || (command->hdr >> 16))
        return KM_REASON_FLAGS;
    if (!g->handlers[handler])
        return KM_REASON_HANDLER;
    if (count == 0 || first >= BH_GRID_CORES || count > BH_GRID_CORES - first)
        return KM_REASON_GROUP;
    if (sim_grid_busy(g, first, count))
        return KM_REASON_BUSY;
    /* What the job needs from the host first, nothing started: a stack
     * for each core, room for its end's report (and every running job's:
     * push_done never grows the list).  Out of memory refuses it and
     * fails the run (sim_grid_failed). */
    bool room = KS_GROW(g->done, g->cap, g->ndone - g->head + g->njobs + 1);
    for (unsigned i = 0; room && i < count; i++) {
        km_core *c = &g->cores[first + i];
        if (!c->stack)
            room = (c->stack = grid_stack_alloc()) != NULL;
    }
    if (!room) {
        grid_fail(g, KS_ERR_SYSTEM, "out of memory starting a job (a core's stack, its report)");
        return KM_REASON_STOPPING;
    }
    grid_job *j = &g->jobs[first];
    *j = (grid_job){
        .active = true,
        .id = job_id,
        .command = *command,
        .fn = g->handlers[handler],
        .first = first,
        .count = count,
        .deadline_ps = time_limit_ps && time_limit_ps <= UINT64_MAX - now_ps
                           ? now_ps + time_limit_ps
                           : UINT64_MAX,
        .end_ps = now_ps,
    };
    for (unsigned i = 0; i < count; i++) {
        km_core *c = &g->cores[first + i];
        start_core(c); /* its stack is there */
        c->job = j;
        c->time_ps = now_ps;
        c->begin_ps = now_ps;
        c->state = CORE_READY;
        grid_port_start_job(c);
        grid_note_core(c);
    }
    unsigned k = g->njobs;
    for (; k > 0 && g->active[k - 1] > first; k--)
        g->active[k] = g->active[k - 1];
    g->active[k] = (uint8_t)first;
    g->njobs++;
    return KM_REASON_NONE;
}

static int done_order(const void *a, const void *b)
{
    const sim_grid_done *x = a, *y = b;
    if (x->end_ps != y->end_ps)
        return x->end_ps < y->end_ps ? -1 : 1;
    return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

void sim_grid_step(sim_grid *g, uint64_t until_ps)
{
    if (until_ps > g->stepped_ps)
        g->stepped_ps = until_ps;
    /* (With X280 ports the card steps the grid every quantum: an idle
     * grid must cost nothing.) */
    if (g->quiet && until_ps <= g->quiet_at && until_ps < g->quiet_deadline)
        return; /* no core runs, no job times out (the done queue is as sorted) */
    g->quiet = false;
    bool claimed = g->trap && g->njobs > 0;
    if (claimed)
        grid_trap_step_begin(g);
    /* the least time a core that can run has, at or past until_ps */
    uint64_t later_at = UINT64_MAX;
    for (; g->njobs > 0;) {
        /* The core furthest behind, the first in grid order of a tie
         * (g->run_win[1]); none before until_ps: it is the least later. */
        unsigned next = g->run_win[1];
        uint64_t next_at = g->run_at[next];
        if (next_at >= until_ps) {
            later_at = next_at;
            break;
        }
        km_core *c = &g->cores[next];
        if (c->state == CORE_WAITING) {
            c->time_ps = next_at;
            c->state = CORE_READY;
        }
        resume(g, c);
        grid_note_core(c); /* whatever it did to itself */
        grid_job *j = c->job;
        if (c->state == CORE_RETURNED && j->returned == j->count)
            end_job(g, j, j->end_ps, false);
    }
    if (claimed)
        grid_trap_step_end(g);
    /* A job still running past its deadline has every core there (or
     * waiting for one that is): it timed out. */
    bool timed_out = false;
    uint64_t deadline = UINT64_MAX;
    uint8_t firsts[BH_GRID_CORES]; /* (an ended job leaves the list) */
    unsigned n = g->njobs;
    memcpy(firsts, g->active, n * sizeof firsts[0]);
    for (unsigned a = 0; a < n; a++) {
        grid_job *j = &g->jobs[firsts[a]];
        if (j->active && j->deadline_ps <= until_ps) {
            end_job(g, j, j->deadline_ps, true);
            timed_out = true;
        } else if (j->active && j->deadline_ps < deadline) {
            deadline = j->deadline_ps;
        }
    }
    /* Quiet until the earliest of those, unless a time-out just changed
     * the cores (with no job left, no core can run). */
    g->quiet = !timed_out;
    g->quiet_at = g->njobs > 0 ? later_at : UINT64_MAX;
    g->quiet_deadline = deadline;
    /* In end-time order, with what is still unpolled from before. */
    if (g->ndone - g->head > 1) /* (qsort must not see a NULL array) */
        qsort(g->done + g->head, g->ndone - g->head, sizeof *g->done, done_order);
}

uint64_t sim_grid_next_ps(const sim_grid *g)
{
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        const km_core *c = &g->cores[i];
        uint64_t at;
        if (runnable_at(c, &at) && at < next)
            next = at;
        if (g->jobs[i].active && g->jobs[i].deadline_ps < next)
            next = g->jobs[i].deadline_ps;
    }
    return next;
}

bool sim_grid_poll_done(sim_grid *g, sim_grid_done *done)
{
    if (g->head == g->ndone)
        return false;
    *done = g->done[g->head++];
    return true;
}

unsigned sim_grid_jobs(const sim_grid *g)
{
    return g->njobs;
}

void sim_grid_set_stop(sim_grid *g, bool stop)
{
    g->quiet = false; /* its cores change */
    g->stop = stop;
    if (!stop)
        return;
    /* A port wait watches the stop flag: it gives up now. */
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        km_core *c = &g->cores[i];
        if (c->state == CORE_WAITING && c->wake_ps > g->stepped_ps) {
            c->wake_ps = g->stepped_ps;
            grid_note_core(c);
        }
    }
}

/* ---- km_device.h ---- */

const km_command_t *km_command(const km_core *c) { return &c->job->command; }
unsigned km_core_id(const km_core *c) { return c->id; }
unsigned km_group_first(const km_core *c) { return c->job->first; }
unsigned km_group_count(const km_core *c) { return c->job->count; }
unsigned km_group_index(const km_core *c) { return c->id - c->job->first; }
bool km_is_leader(const km_core *c) { return c->id == c->job->first; }
uint32_t km_result(const km_core *c) { return c->job->result; }
uint64_t km_time_ps(const km_core *c) { return c->time_ps; }
bool km_stop_requested(const km_core *c) { return c->grid->stop; }

void sim_grid_set_regions(sim_grid *g, const km_region_place *table, unsigned n)
{
    g->regions = table;
    g->nregions = n;
}

int km_region_address(const km_core *c, int cluster, const char *name, unsigned *bank,
                      uint64_t *bank_address, uint64_t *bytes)
{
    const sim_grid *g = c->grid;
    ((km_core *)c)->call_from = __builtin_return_address(0); /* name and the outs are the handler's */
    int found = -1;
    for (unsigned i = 0; found < 0 && name && i < g->nregions; i++) {
        const km_region_place *r = &g->regions[i];
        if (r->cluster != cluster || strcmp(r->name, name) != 0)
            continue;
        if (bank)
            *bank = r->bank;
        if (bank_address)
            *bank_address = r->bank_address;
        if (bytes)
            *bytes = r->bytes;
        found = 0;
    }
    ((km_core *)c)->call_from = NULL;
    return found;
}

void km_set_result(km_core *c, uint32_t word)
{
    if (c->id == c->job->first)
        c->job->result = word;
}

void grid_spend_ps(km_core *c, uint64_t ps)
{
    c->time_ps = ps > UINT64_MAX - c->time_ps ? UINT64_MAX : c->time_ps + ps;
    c->busy_ps += ps;
    give_way(c, false);
}

void grid_wait(km_core *c, uint64_t wake_ps)
{
    c->wake_ps = wake_ps;
    c->state = CORE_WAITING;
    give_way(c, false); /* sim_grid_step makes it READY at its wake */
}

void km_compute(km_core *c, uint64_t cycles)
{
    /* Rounded up: any work takes at least the cycle it started in. */
    uint64_t ps = sim_cycles_to_ps(cycles, c->grid->mhz);
    if (sim_ps_to_cycles(ps, c->grid->mhz) < cycles)
        ps++;
    grid_spend_ps(c, ps);
}

void km_spend_ns(km_core *c, uint64_t ns)
{
    grid_spend_ps(c, ns > UINT64_MAX / 1000u ? UINT64_MAX : ns * 1000u);
}

static bool in_bank(unsigned bank, uint64_t address, uint64_t n)
{
    return bank < BH_DRAM_BANKS && address <= BH_BANK_BYTES && n <= BH_BANK_BYTES - address;
}

/* Moving n bytes of `bank` from now on: the core's NoC link (32 bytes a
 * Tensix cycle), or, when the bank's queue serves the request later than
 * that (other cores or clusters on the bank: sim_bank.h), until the bank
 * has served it.  Alone on its bank the link is always the slower. */
static uint64_t transfer_ps(km_core *c, unsigned bank, uint64_t address, uint64_t n)
{
    uint64_t cycles = (n + SIM_GRID_NOC_BYTES_PER_CYCLE - 1) / SIM_GRID_NOC_BYTES_PER_CYCLE;
    uint64_t link = sim_cycles_to_ps(cycles, c->grid->mhz);
    uint64_t served = sim_dram_bank(c->grid->dram, bank, address, n, c->time_ps);
    uint64_t queued = served > c->time_ps ? served - c->time_ps : 0;
    return queued > link ? queued : link;
}

void sim_grid_set_checker(sim_grid *g, struct sim_checker *checker)
{
    g->checker = checker;
}

void sim_grid_record(sim_grid *g, sim_card_moment_fn fn, void *ctx)
{
    g->record = fn;
    g->record_ctx = ctx;
}

/* The checker's site for a handler's call from `from` (its return
 * address): an offset in the kernels' object, 0 outside it (a built-in). */
static void check_at(km_core *c, void *from)
{
    Dl_info info;
    uintptr_t pc = (uintptr_t)from;
    bool in_so = c->grid->so_base && dladdr(from, &info) != 0 &&
                 (uintptr_t)info.dli_fbase == c->grid->so_base;
    sim_site site = {.kind = SIM_SITE_HANDLER,
                     .core = (uint16_t)c->id,
                     .handler = KM_HDR_HANDLER(c->job->command.hdr),
                     .pc = in_so ? pc - c->grid->so_base : 0,
                     .ps = c->time_ps};
    sim_checker_at(c->grid->checker, &site);
}

int km_noc_read(km_core *c, unsigned bank, uint64_t bank_address, void *dst, uint64_t n)
{
    if (!in_bank(bank, bank_address, n))
        return -1;
    void *from = __builtin_return_address(0);
    c->grid->bank_bytes += n;
    grid_spend_ps(c, SIM_GRID_NOC_READ_PS + transfer_ps(c, bank, bank_address, n));
    if (c->grid->checker) {
        check_at(c, from);
        sim_checker_read(c->grid->checker, bank, bank_address, n, 0);
        sim_checker_at(c->grid->checker, NULL);
    }
    /* The bytes as they are when the read completes, into the handler's
     * memory (a fault there names its call: grid_trap.c). */
    c->call_from = from;
    int rc = sim_dram_read(c->grid->dram, bank, bank_address, dst, n, NULL) == KS_OK ? 0 : -1;
    c->call_from = NULL;
    return rc;
}

int km_noc_write(km_core *c, unsigned bank, uint64_t bank_address, const void *src, uint64_t n)
{
    if (!in_bank(bank, bank_address, n))
        return -1;
    void *from = __builtin_return_address(0);
    c->grid->bank_bytes += n;
    grid_spend_ps(c, SIM_GRID_NOC_WRITE_PS + transfer_ps(c, bank, bank_address, n));
    if (c->grid->checker)
        check_at(c, from); /* the checker's watch records the write */
    c->call_from = from; /* src is the handler's (grid_trap.c) */
    int rc = sim_dram_write(c->grid->dram, bank, bank_address, src, n, NULL) == KS_OK ? 0 : -1;
    c->call_from = NULL;
    if (c->grid->checker)
        sim_checker_at(c->grid->checker, NULL);
    return rc;
}

void sim_grid_get_stats(const sim_grid *g, sim_grid_stats *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        out->busy_ps[i] = g->cores[i].busy_ps;
        out->handlers[i] = g->cores[i].handlers;
    }
    out->bank_bytes = g->bank_bytes;
    out->mailbox_bytes = g->mailbox_bytes;
}
