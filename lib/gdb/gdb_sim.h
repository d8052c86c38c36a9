/* gdb_sim: what kmrun's two GDB targets on simulated harts share
 * (`kmrun exec --gdb`, km_gdb_exec.h; `kmrun run --gdb`, km_gdb_card.h):
 * GDB's register numbers as the simulator names registers, and the set
 * of breakpoints and watchpoints GDB has inserted. */
#ifndef KM_GDB_SIM_H
#define KM_GDB_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "km_gdb.h"
#include "sim_reg.h"

/* GDB's register number (KM_GDB_REG_*) as a file and a number; 0, or -1
 * for a number the harts do not have. */
int km_gdb_sim_reg(int regno, sim_reg_file *file, unsigned *num);

/* A target's own register access (the file and number sim_reg.h names),
 * as the FIRST member of its context: km_gdb_sim_read_reg and the three
 * after it take such a context and serve as the target's ops
 * (km_gdb_target_ops' read_reg, write_reg, read_vreg, write_vreg), GDB's
 * register numbers turned into the simulator's once for both targets. */
typedef int (*km_gdb_sim_get)(void *ctx, int thread, sim_reg_file file, unsigned num,
                              uint64_t *value);
typedef int (*km_gdb_sim_set)(void *ctx, int thread, sim_reg_file file, unsigned num,
                              uint64_t value);
typedef struct km_gdb_sim_regs {
    km_gdb_sim_get get;
    km_gdb_sim_set set;
} km_gdb_sim_regs;
/* 0, or -1 (a number the harts do not have, or the access failed). */
int km_gdb_sim_read_reg(void *ctx, int thread, int regno, uint64_t *value);
int km_gdb_sim_write_reg(void *ctx, int thread, int regno, uint64_t value);
/* A vector register: its 64-bit parts in turn, little-endian. */
int km_gdb_sim_read_vreg(void *ctx, int thread, unsigned v, uint8_t *bytes);
int km_gdb_sim_write_vreg(void *ctx, int thread, unsigned v, const uint8_t *bytes);

/* A hart's status (sim_reg.h) as the monitor commands show it. */
void km_gdb_sim_status(const sim_core_status *in, km_gdb_status *out);

/* The points GDB inserted (Z packets): a kind, an address, and for a
 * watch its length; at most KM_GDB_MAX_POINTS. */
#define KM_GDB_MAX_POINTS 64
typedef struct km_gdb_point_set {
    km_gdb_point type;
    uint64_t addr, len;
    int trigger; /* the hart's trigger a hardware point holds (-1: none) */
    km_gdb_conds conds; /* a breakpoint's (count 0: none) */
} km_gdb_point_set;
typedef struct km_gdb_points {
    km_gdb_point_set p[KM_GDB_MAX_POINTS];
    unsigned n;
} km_gdb_points;

/* 0, or -1 when the set is full (inserting one already there is 0); a new
 * point holds no trigger. */
int km_gdb_points_insert(km_gdb_points *s, km_gdb_point type, uint64_t addr, uint64_t len);
/* The point of that kind at addr, or NULL. */
km_gdb_point_set *km_gdb_points_find(km_gdb_points *s, km_gdb_point type, uint64_t addr);
/* 0, or -1 when no such point is there. */
int km_gdb_points_remove(km_gdb_points *s, km_gdb_point type, uint64_t addr);
void km_gdb_points_clear(km_gdb_points *s);
/* The conditions of the point of that kind at addr (replacing its last
 * ones): 0, or -1 when there is no such point. */
int km_gdb_points_condition(km_gdb_points *s, km_gdb_point type, uint64_t addr,
                            const km_gdb_conds *c);
/* Whether `thread`, at a breakpoint's pc, stops there: some breakpoint at
 * pc has no conditions, or one of its conditions, evaluated on the
 * thread (ops, ctx: the target's), is non-zero or cannot be evaluated
 * (km_gdb.h, km_gdb_conds).  False: every condition there is zero; the
 * thread runs on, and the client never hears of it. */
bool km_gdb_points_break_stops(const km_gdb_points *s, uint64_t pc, const km_gdb_target_ops *ops,
                               void *ctx, int thread);

/* The breakpoints' addresses (either kind) into pcs; how many. */
unsigned km_gdb_points_breaks(const km_gdb_points *s, uint64_t pcs[KM_GDB_MAX_POINTS]);
/* The breakpoint at pc (a hardware one if both kinds are there), or NULL. */
const km_gdb_point_set *km_gdb_points_break_at(const km_gdb_points *s, uint64_t pc);
/* The index-th watchpoint, in the order the targets hand them to the
 * simulator (their watch numbers), or NULL past the last. */
const km_gdb_point_set *km_gdb_points_watch(const km_gdb_points *s, unsigned index);

/* What a point of that kind looks at: instructions (a hardware
 * breakpoint), loads, stores — as a trigger and a watch take them; a
 * software breakpoint, nothing. */
void km_gdb_point_access(km_gdb_point type, bool *execute, bool *load, bool *store);

/* The stop a simulator's breakpoint at pc makes (a hardware one's when a
 * hardware point is there), and the one its watch `index` makes (a store
 * or a load, when the point is gone since). */
void km_gdb_points_break_stop(const km_gdb_points *s, uint64_t pc, km_gdb_stop *stop);
void km_gdb_points_watch_stop(const km_gdb_points *s, unsigned index, bool store,
                              km_gdb_stop *stop);

#endif
