/* km_gdb_exec: the GDB target of `kmrun exec --gdb` (km_gdb_exec.h). */
#include "km_gdb_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdb_sim.h"

struct km_gdb_exec {
    km_gdb_sim_regs regs; /* first: gdb_sim.h reads it through the context */
    sim_exec *x;
    uint64_t max;
    km_gdb_points points;
    km_gdb_lookup lookup; /* for the monitor's sources (NULL: none) */
    void *lookup_ctx;
    bool ended;
    sim_exec_result result;
};

static int get(void *ctx, int thread, sim_reg_file file, unsigned num, uint64_t *value);
static int set(void *ctx, int thread, sim_reg_file file, unsigned num, uint64_t value);

km_gdb_exec *km_gdb_exec_new(sim_exec *x, uint64_t max_instructions)
{
    km_gdb_exec *t = calloc(1, sizeof *t);
    if (t) {
        t->x = x;
        t->regs = (km_gdb_sim_regs){get, set};
        t->max = max_instructions;
    }
    return t;
}

void km_gdb_exec_free(km_gdb_exec *t)
{
    free(t);
}

bool km_gdb_exec_ended(const km_gdb_exec *t, sim_exec_result *r)
{
    if (t->ended)
        *r = t->result;
    return t->ended;
}

static int thread_count(void *ctx)
{
    (void)ctx;
    return 1;
}

static int thread_name(void *ctx, int thread, char *name, size_t size)
{
    (void)ctx;
    (void)thread;
    snprintf(name, size, "hart 0");
    return 0;
}

static int get(void *ctx, int thread, sim_reg_file file, unsigned num, uint64_t *value)
{
    (void)thread;
    return sim_exec_get_reg(((km_gdb_exec *)ctx)->x, file, num, value);
}

static int set(void *ctx, int thread, sim_reg_file file, unsigned num, uint64_t value)
{
    (void)thread;
    return sim_exec_set_reg(((km_gdb_exec *)ctx)->x, file, num, value);
}

static int read_mem(void *ctx, int thread, uint64_t addr, uint8_t *buf, size_t n)
{
    km_gdb_exec *t = ctx;
    (void)thread;
    return sim_exec_read_mem(t->x, addr, buf, n);
}

static int write_mem(void *ctx, int thread, uint64_t addr, const uint8_t *buf, size_t n)
{
    km_gdb_exec *t = ctx;
    (void)thread;
    return sim_exec_write_mem(t->x, addr, buf, n);
}

/* The hart's breakpoints and watches from the points. */
static int apply_points(km_gdb_exec *t)
{
    uint64_t breaks[KM_GDB_MAX_POINTS];
    sim_exec_watch watches[KM_GDB_MAX_POINTS];
    unsigned nb = km_gdb_points_breaks(&t->points, breaks), nw = 0;
    for (const km_gdb_point_set *p; (p = km_gdb_points_watch(&t->points, nw)) != NULL;) {
        bool execute, load, store;
        km_gdb_point_access(p->type, &execute, &load, &store);
        watches[nw++] = (sim_exec_watch){p->addr, p->len ? p->len : 1, load, store};
    }
    if (sim_exec_set_breaks(t->x, breaks, nb) != 0 || sim_exec_set_watches(t->x, watches, nw) != 0)
        return -1;
    return 0;
}

/* A hardware breakpoint or watchpoint takes one of the hart's triggers,
 * as on an X280 (whose debugger has no others): when none is free (the
 * program's and the earlier points' hold them all), GDB gets an error.
 * The stop itself is the probe or watch, which moves no modeled time. */
static int insert_point(void *ctx, km_gdb_point type, uint64_t addr, uint64_t kind)
{
    km_gdb_exec *t = ctx;
    if (km_gdb_points_find(&t->points, type, addr))
        return 0;
    /* a hardware point holds one of the hart's triggers, as on an X280 */
    int trigger = -1;
    if (type != KM_GDB_SW_BREAK) {
        bool execute, load, store;
        km_gdb_point_access(type, &execute, &load, &store);
        trigger = sim_exec_claim_trigger(t->x, execute, load, store, addr);
        if (trigger < 0)
            return -1;
    }
    if (km_gdb_points_insert(&t->points, type, addr, kind) != 0) {
        sim_exec_release_trigger(t->x, trigger);
        return -1;
    }
    km_gdb_points_find(&t->points, type, addr)->trigger = trigger;
    if (apply_points(t) != 0) {
        sim_exec_release_trigger(t->x, trigger);
        (void)km_gdb_points_remove(&t->points, type, addr);
        (void)apply_points(t);
        return -1;
    }
    return 0;
}

static int remove_point(void *ctx, km_gdb_point type, uint64_t addr, uint64_t kind)
{
    km_gdb_exec *t = ctx;
    (void)kind;
    km_gdb_point_set *p = km_gdb_points_find(&t->points, type, addr);
    if (!p)
        return -1;
    sim_exec_release_trigger(t->x, p->trigger);
    (void)km_gdb_points_remove(&t->points, type, addr);
    return apply_points(t);
}

/* How the program's end looks to GDB: an exit is the process's exit; a
 * trap with no handler, a wait nothing ends and the bound are stops (the
 * next resume finds the process gone). */
static void end_stop(km_gdb_exec *t, const sim_exec_result *r, km_gdb_stop *stop)
{
    bool first = !t->ended;
    t->ended = true;
    t->result = *r;
    if (r->end == SIM_EXEC_EXIT || !first) {
        stop->reason = KM_GDB_STOP_EXITED;
        stop->exit_code = r->end == SIM_EXEC_EXIT ? (int)(r->exit_code & 0xff) : 1;
    } else if (r->end == SIM_EXEC_TRAP) {
        stop->reason = KM_GDB_STOP_TRAP;
        stop->cause = r->mcause;
        /* The hart waits at the catch point, the run over: GDB is shown
         * the trapping instruction (mepc), as the card's trap stops show
         * it, with mcause, mepc and mtval as the trap set them. */
        (void)sim_exec_set_reg(t->x, SIM_REG_PC, 0, r->mepc);
    } else {
        stop->reason = KM_GDB_STOP_STUCK;
    }
}

static int condition_point(void *ctx, km_gdb_point type, uint64_t addr, const km_gdb_conds *c)
{
    return km_gdb_points_condition(&((km_gdb_exec *)ctx)->points, type, addr, c);
}

static const km_gdb_target_ops ops;

static int resume(void *ctx, const km_gdb_resume *how, km_gdb_poll poll, void *poll_arg,
                  km_gdb_stop *stop)
{
    km_gdb_exec *t = ctx;
    memset(stop, 0, sizeof *stop);
    stop->thread = 0;
    if (t->ended) {
        end_stop(t, &t->result, stop);
        return 0;
    }
    sim_exec_event ev;
    uint64_t pc = 0;
    for (bool step = how->step;;) {
        sim_exec_debug(t->x, step, t->max, poll, poll_arg, &ev);
        (void)sim_exec_get_reg(t->x, SIM_REG_PC, 0, &pc);
        /* A breakpoint whose conditions are all false: past it, on. */
        if (!how->step && ev.stop == SIM_EXEC_STOP_BREAK &&
            !km_gdb_points_break_stops(&t->points, pc, &ops, t, 0)) {
            step = true;
            continue;
        }
        if (step && !how->step && ev.stop == SIM_EXEC_STOP_STEP) {
            step = false; /* stepped over it: the continue goes on */
            continue;
        }
        break;
    }
    switch (ev.stop) {
    case SIM_EXEC_STOP_BREAK: km_gdb_points_break_stop(&t->points, pc, stop); break;
    case SIM_EXEC_STOP_WATCH:
        km_gdb_points_watch_stop(&t->points, ev.watch, ev.store, stop);
        break;
    case SIM_EXEC_STOP_STEP: stop->reason = KM_GDB_STOP_STEP; break;
    case SIM_EXEC_STOP_PAUSE: stop->reason = KM_GDB_STOP_INTERRUPT; break;
    case SIM_EXEC_STOP_END: end_stop(t, &ev.result, stop); break;
    }
    return 0;
}

/* D: the points go; the caller runs the program on. */
static void detach(void *ctx)
{
    km_gdb_exec *t = ctx;
    for (unsigned i = 0; i < t->points.n; i++)
        sim_exec_release_trigger(t->x, t->points.p[i].trigger);
    km_gdb_points_clear(&t->points);
    (void)apply_points(t);
}

static void kill_target(void *ctx)
{
    (void)ctx;
}

static int status(void *ctx, int thread, km_gdb_status *st)
{
    sim_core_status s;
    (void)thread;
    sim_exec_status(((km_gdb_exec *)ctx)->x, &s);
    km_gdb_sim_status(&s, st);
    return 0;
}

static int source_of(void *ctx, int thread, uint64_t pc, km_gdb_source *src)
{
    km_gdb_exec *t = ctx;
    (void)thread;
    return t->lookup ? t->lookup(t->lookup_ctx, 0, pc, src) : -1;
}

void km_gdb_exec_lookup(km_gdb_exec *t, km_gdb_lookup fn, void *ctx)
{
    t->lookup = fn;
    t->lookup_ctx = ctx;
}

static const km_gdb_target_ops ops = {
    .thread_count = thread_count,
    .thread_name = thread_name,
    .read_reg = km_gdb_sim_read_reg,
    .write_reg = km_gdb_sim_write_reg,
    .read_vreg = km_gdb_sim_read_vreg,
    .write_vreg = km_gdb_sim_write_vreg,
    .read_mem = read_mem,
    .write_mem = write_mem,
    .insert_point = insert_point,
    .remove_point = remove_point,
    .condition_point = condition_point,
    .resume = resume,
    .status = status,
    .source_of = source_of,
    .detach = detach,
    .kill = kill_target,
};

const km_gdb_target_ops *km_gdb_exec_ops(void)
{
    return &ops;
}
