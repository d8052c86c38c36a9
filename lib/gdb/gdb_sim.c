/* gdb_sim: GDB's registers and points for the simulated harts
 * (gdb_sim.h). */
#include "gdb_sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

_Static_assert(SIM_REG_V_PARTS * 8 == KM_GDB_VLENB, "GDB's vector registers are the harts'");

static const km_gdb_sim_regs *regs(void *ctx)
{
    return (const km_gdb_sim_regs *)ctx; /* the context's first member */
}

int km_gdb_sim_read_reg(void *ctx, int thread, int regno, uint64_t *value)
{
    sim_reg_file file;
    unsigned num;
    if (km_gdb_sim_reg(regno, &file, &num) != 0)
        return -1;
    return regs(ctx)->get(ctx, thread, file, num, value);
}

int km_gdb_sim_write_reg(void *ctx, int thread, int regno, uint64_t value)
{
    sim_reg_file file;
    unsigned num;
    if (km_gdb_sim_reg(regno, &file, &num) != 0)
        return -1;
    return regs(ctx)->set(ctx, thread, file, num, value);
}

int km_gdb_sim_read_vreg(void *ctx, int thread, unsigned v, uint8_t *bytes)
{
    if (v >= 32)
        return -1;
    for (unsigned k = 0; k < SIM_REG_V_PARTS; k++) {
        uint64_t part;
        if (regs(ctx)->get(ctx, thread, SIM_REG_V, v * SIM_REG_V_PARTS + k, &part) != 0)
            return -1;
        memcpy(bytes + 8 * k, &part, 8); /* little-endian, as the harts' */
    }
    return 0;
}

int km_gdb_sim_write_vreg(void *ctx, int thread, unsigned v, const uint8_t *bytes)
{
    if (v >= 32)
        return -1;
    for (unsigned k = 0; k < SIM_REG_V_PARTS; k++) {
        uint64_t part;
        memcpy(&part, bytes + 8 * k, 8);
        if (regs(ctx)->set(ctx, thread, SIM_REG_V, v * SIM_REG_V_PARTS + k, part) != 0)
            return -1;
    }
    return 0;
}

int km_gdb_sim_reg(int regno, sim_reg_file *file, unsigned *num)
{
    if (regno >= KM_GDB_REG_X0 && regno < KM_GDB_REG_X0 + 32) {
        *file = SIM_REG_X;
        *num = (unsigned)(regno - KM_GDB_REG_X0);
    } else if (regno == KM_GDB_REG_PC) {
        *file = SIM_REG_PC;
        *num = 0;
    } else if (regno >= KM_GDB_REG_F0 && regno < KM_GDB_REG_F0 + 32) {
        *file = SIM_REG_F;
        *num = (unsigned)(regno - KM_GDB_REG_F0);
    } else if (regno >= KM_GDB_REG_V0 && regno < KM_GDB_REG_V0 + 32) {
        *file = SIM_REG_V;
        *num = (unsigned)(regno - KM_GDB_REG_V0) * SIM_REG_V_PARTS;
    } else if (regno >= KM_GDB_REG_CSR0 && regno < KM_GDB_REG_CSR0 + 4096) {
        *file = SIM_REG_CSR;
        *num = (unsigned)(regno - KM_GDB_REG_CSR0);
    } else {
        return -1;
    }
    return 0;
}

void km_gdb_sim_status(const sim_core_status *in, km_gdb_status *out)
{
    static const char *const states[] = {
        [SIM_CORE_IDLE] = "idle", [SIM_CORE_RUNNING] = "running",
        [SIM_CORE_WAITING] = "waiting", [SIM_CORE_HALTED] = "halted",
    };
    *out = (km_gdb_status){
        .state = (unsigned)in->state < sizeof states / sizeof *states ? states[in->state] : "?",
        .pc = in->pc,
        .instructions = in->instructions,
        .cycles = in->cycles,
        .mem_cycles = in->mem_cycles,
        .ps = in->ps,
    };
}

static bool is_break(km_gdb_point type)
{
    return type == KM_GDB_SW_BREAK || type == KM_GDB_HW_BREAK;
}

km_gdb_point_set *km_gdb_points_find(km_gdb_points *s, km_gdb_point type, uint64_t addr)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->p[i].type == type && s->p[i].addr == addr)
            return &s->p[i];
    return NULL;
}

int km_gdb_points_insert(km_gdb_points *s, km_gdb_point type, uint64_t addr, uint64_t len)
{
    if (km_gdb_points_find(s, type, addr))
        return 0;
    if (s->n == KM_GDB_MAX_POINTS)
        return -1;
    s->p[s->n] = (km_gdb_point_set){.type = type, .addr = addr, .len = len, .trigger = -1};
    s->n++;
    return 0;
}

int km_gdb_points_remove(km_gdb_points *s, km_gdb_point type, uint64_t addr)
{
    for (unsigned i = 0; i < s->n; i++) {
        if (s->p[i].type == type && s->p[i].addr == addr) {
            /* keep the order: watch numbers follow it */
            for (unsigned k = i + 1; k < s->n; k++)
                s->p[k - 1] = s->p[k];
            s->n--;
            return 0;
        }
    }
    return -1;
}

int km_gdb_points_condition(km_gdb_points *s, km_gdb_point type, uint64_t addr,
                            const km_gdb_conds *c)
{
    km_gdb_point_set *p = km_gdb_points_find(s, type, addr);
    if (!p)
        return -1;
    p->conds = *c;
    return 0;
}

/* Whether one of p's conditions holds (or fails to evaluate). */
static bool holds(const km_gdb_point_set *p, const km_gdb_target_ops *ops, void *ctx, int thread)
{
    size_t at = 0;
    for (unsigned i = 0; i < p->conds.count; i++) {
        uint64_t v;
        if (km_gdb_agent_eval(p->conds.code + at, p->conds.n[i], ops, ctx, thread, &v) != 0 ||
            v != 0)
            return true;
        at += p->conds.n[i];
    }
    return false;
}

bool km_gdb_points_break_stops(const km_gdb_points *s, uint64_t pc, const km_gdb_target_ops *ops,
                               void *ctx, int thread)
{
    bool any = false;
    for (unsigned i = 0; i < s->n; i++) {
        const km_gdb_point_set *p = &s->p[i];
        if (!is_break(p->type) || p->addr != pc)
            continue;
        any = true;
        if (p->conds.count == 0 || holds(p, ops, ctx, thread))
            return true;
    }
    return !any; /* no breakpoint there: not ours to hold back */
}

void km_gdb_points_clear(km_gdb_points *s)
{
    s->n = 0;
}

unsigned km_gdb_points_breaks(const km_gdb_points *s, uint64_t pcs[KM_GDB_MAX_POINTS])
{
    unsigned n = 0;
    for (unsigned i = 0; i < s->n; i++)
        if (is_break(s->p[i].type))
            pcs[n++] = s->p[i].addr;
    return n;
}

const km_gdb_point_set *km_gdb_points_break_at(const km_gdb_points *s, uint64_t pc)
{
    const km_gdb_point_set *found = NULL;
    for (unsigned i = 0; i < s->n; i++)
        if (is_break(s->p[i].type) && s->p[i].addr == pc &&
            (!found || s->p[i].type == KM_GDB_HW_BREAK))
            found = &s->p[i];
    return found;
}

const km_gdb_point_set *km_gdb_points_watch(const km_gdb_points *s, unsigned index)
{
    for (unsigned i = 0; i < s->n; i++)
        if (!is_break(s->p[i].type) && index-- == 0)
            return &s->p[i];
    return NULL;
}

void km_gdb_point_access(km_gdb_point type, bool *execute, bool *load, bool *store)
{
    *execute = type == KM_GDB_HW_BREAK;
    *load = type == KM_GDB_WATCH_READ || type == KM_GDB_WATCH_ACCESS;
    *store = type == KM_GDB_WATCH_WRITE || type == KM_GDB_WATCH_ACCESS;
}

void km_gdb_points_break_stop(const km_gdb_points *s, uint64_t pc, km_gdb_stop *stop)
{
    const km_gdb_point_set *p = km_gdb_points_break_at(s, pc);
    stop->reason = p && p->type == KM_GDB_HW_BREAK ? KM_GDB_STOP_HW_BREAK : KM_GDB_STOP_BREAK;
}

void km_gdb_points_watch_stop(const km_gdb_points *s, unsigned index, bool store,
                              km_gdb_stop *stop)
{
    const km_gdb_point_set *p = km_gdb_points_watch(s, index);
    stop->reason = KM_GDB_STOP_WATCH;
    stop->watch = p ? p->type : store ? KM_GDB_WATCH_WRITE : KM_GDB_WATCH_READ;
    stop->addr = p ? p->addr : 0;
}
