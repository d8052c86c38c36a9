/* km_gdb_exec: the GDB target of `kmrun exec --gdb` — one thread, the
 * hart of a sim_exec (sim_exec.h).  Breakpoints of either kind are the
 * hart's probes, watchpoints its watches, both stopping before the
 * instruction (as RISC-V triggers with timing "before" do, which GDB
 * expects); a step is one instruction.  Each hardware breakpoint and
 * watchpoint also takes one of the hart's triggers, as on an X280: when
 * none is free, GDB is told no.  The trigger CSRs GDB reads and writes
 * are the hart's.  Nothing the debugger does moves
 * modeled time, so a program run to its end under GDB gives the result
 * it gives without. */
#ifndef KM_GDB_EXEC_H
#define KM_GDB_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "km_gdb.h"
#include "sim_exec.h"

typedef struct km_gdb_exec km_gdb_exec;

/* A target over x (which must outlive it), bounded as sim_exec_run is;
 * NULL when memory is lacking. */
km_gdb_exec *km_gdb_exec_new(sim_exec *x, uint64_t max_instructions);
void km_gdb_exec_free(km_gdb_exec *t);

/* The ops to hand km_gdb_serve_fd with the target as ctx. */
const km_gdb_target_ops *km_gdb_exec_ops(void);

/* Where the monitor commands find a pc's source line: fn(ctx, 0, pc,
 * ...) (km_gdb.h); without it they show pcs alone. */
void km_gdb_exec_lookup(km_gdb_exec *t, km_gdb_lookup fn, void *ctx);

/* After the session: true with *r when the program ran to an end under
 * the debugger; false when it did not (detached or the client left: the
 * caller runs it on; killed: it stops where it is). */
bool km_gdb_exec_ended(const km_gdb_exec *t, sim_exec_result *r);

#endif
