/* sim_exec: a bare-metal RV64 ELF on one simulated hart (`kmrun exec`).
 *
 * Loading: every PT_LOAD segment becomes RAM where it asks (page-granular
 * ranges; memsz beyond filesz zeroed; overlapping or adjacent pages share
 * a range), plus a 64 KiB stack of RAM just below the lowest loaded page
 * (above the highest one when there is no room below) with sp at its top.
 * The hart fetches from the span of everything loaded (device/sim/README.md,
 * "kmrun exec"); pc starts at the
 * entry point; mhartid is 0; every other register and CSR is as at reset
 * (mstatus.FS off: a program that uses F or D turns FS on), but for
 * mtvec, which points at kmrun's catch point (below).
 *
 * Ending: the HTIF `tohost` convention, as Spike has it: the program's
 * 64-bit `tohost` symbol is a device (its 64-byte line is split out of the
 * RAM); after any store that touches it, a value v with bit 0 set ends
 * the run with exit code v >> 1 (riscv-tests write 1 to pass and
 * (n << 1) | 1 when test n fails).  Other values are only stored.  A run
 * also ends at the instruction bound ("limit"), in `wfi` (no interrupt can
 * wake it: "wfi"), or at a trap taken before the program installed a
 * handler, which is reported ("trap").  With a handler, traps go to it
 * as on the card.  Addresses nothing answers are access faults.
 *
 * No handler: mtvec starts at the catch point, a word just past the
 * code (in the code range) holding `sd zero, 0(zero)`; that store, made
 * from there, reaches the exec device, which records mcause, mepc and
 * mtval and halts the hart (the catch instruction is not counted).  A
 * program that sets mtvec to 0 and traps loops on fetch faults at 0; that
 * too ends the run (within about a million cycles, which count), reported
 * as the fetch fault at 0. */
#ifndef SIM_EXEC_H
#define SIM_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "ks_error.h"
#include "sim_profile.h"
#include "sim_reg.h"

#define SIM_EXEC_STACK_SIZE (64u * 1024u)
#define SIM_EXEC_MAX_BYTES (1024ull * 1024 * 1024) /* of RAM, in all */

typedef enum sim_exec_end {
    SIM_EXEC_EXIT,  /* the program wrote tohost */
    SIM_EXEC_LIMIT, /* max_instructions retired or trapped */
    SIM_EXEC_TRAP,  /* a trap with no handler (mtvec 0) */
    SIM_EXEC_WFI,   /* wfi, which nothing can wake */
} sim_exec_end;

typedef struct sim_exec_result {
    sim_exec_end end;
    uint64_t exit_code; /* SIM_EXEC_EXIT only */
    uint64_t instructions, cycles;
    uint64_t traps; /* taken; with instructions, what the bound counts */
    uint64_t mcause, mepc, mtval; /* SIM_EXEC_TRAP only */
} sim_exec_result;

typedef struct sim_exec sim_exec;

/* A hart with the ELF at `path` loaded into its memory, reset.  KS_OK,
 * KS_ERR_SYSTEM (cannot read it) or KS_ERR_IMAGE (not a loadable
 * RV64 executable: what is wrong is in err).  *no_tohost is set when it
 * has no `tohost` symbol (it can end only by trap, wfi or the bound).
 * On failure there is nothing to free. */
int sim_exec_open(sim_exec **out, const char *path, bool *no_tohost, ks_error *err);

/* Runs until an end (above) or until instructions retired plus traps
 * taken reach `max_instructions` (a trap loop retires nothing). */
void sim_exec_run(sim_exec *x, uint64_t max_instructions, sim_exec_result *r);

/* From now on, each instruction the program retires is also handed to
 * `line` as one line of Spike's commit log (no newline; core 0), in
 * order; kmrun's catch point is not the program's and is left out.  The
 * run is the same, instruction for instruction, only slower. */
void sim_exec_trace(sim_exec *x, void (*line)(void *ctx, const char *text), void *ctx);

/* From now on the hart is profiled exactly (sim_profile.h: every cycle
 * by instruction and call stack; an instruction at a time, the same run)
 * by sim_exec_run, instead of traced; sim_exec_profile_of reads it (NULL:
 * not profiled).  KS_OK or KS_ERR_SYSTEM. */
int sim_exec_profile(sim_exec *x, ks_error *err);
const sim_profile *sim_exec_profile_of(const sim_exec *x);

void sim_exec_free(sim_exec *x); /* NULL is fine */

/* ---- a debugger's hold on the hart (kmrun exec --gdb) ---------------------
 * None of it moves modeled time or changes what the program does: a run
 * stopped at breakpoints and watches and stepped goes on exactly as the
 * plain run. */

/* 0, or -1 for a register the hart does not have (or, writing, cannot
 * be written: x0 and read-only CSRs keep their value).  The trigger
 * CSRs are the hart's own: tselect, tdata1 and tdata2 are written as a
 * debugger in debug mode writes them (tdata1 may take dmode and action
 * 1). */
int sim_exec_get_reg(sim_exec *x, sim_reg_file file, unsigned num, uint64_t *value);
int sim_exec_set_reg(sim_exec *x, sim_reg_file file, unsigned num, uint64_t value);

/* Memory as the hart sees it: its RAM and the tohost line; 0, or -1 when
 * any byte of [addr, addr + n) is elsewhere (then nothing is done).  A
 * write drops the decoded code (it may be code). */
int sim_exec_read_mem(sim_exec *x, uint64_t addr, void *buf, uint64_t n);
int sim_exec_write_mem(sim_exec *x, uint64_t addr, const void *buf, uint64_t n);

/* The breakpoints (pcs) and watches now set, replacing the last ones;
 * 0, or -1 when memory is lacking. */
typedef struct sim_exec_watch {
    uint64_t addr, len;
    bool load, store;
} sim_exec_watch;
int sim_exec_set_breaks(sim_exec *x, const uint64_t *pcs, unsigned n);
int sim_exec_set_watches(sim_exec *x, const sim_exec_watch *w, unsigned n);

/* A debugger's hardware breakpoint or watchpoint takes one of the hart's
 * triggers, as on an X280 (a dmode trigger with action 1, "enter debug
 * mode", on execute, load and/or store at addr), while its stop is still
 * a breakpoint or a watch above (which move no modeled time; the hart does
 * nothing on action 1).  A trigger is free when neither the program nor
 * the debugger uses it (its execute, load and store bits clear, dmode
 * clear); the last free one is taken, leaving the low ones to the
 * program, which usually starts at 0.  Returns its index, or -1 when none
 * is free.  sim_exec_release_trigger gives it back (cleared). */
int sim_exec_claim_trigger(sim_exec *x, bool execute, bool load, bool store, uint64_t addr);
void sim_exec_release_trigger(sim_exec *x, int index);

/* Why sim_exec_debug returned. */
typedef enum sim_exec_stop {
    SIM_EXEC_STOP_BREAK, /* before the instruction at a breakpoint */
    SIM_EXEC_STOP_WATCH, /* before the access a watch met (stop_watch) */
    SIM_EXEC_STOP_STEP,  /* the one instruction (or trap) asked for ran */
    SIM_EXEC_STOP_PAUSE, /* pause() said so */
    SIM_EXEC_STOP_END,   /* the run is over: *r */
} sim_exec_stop;

typedef struct sim_exec_event {
    sim_exec_stop stop;
    unsigned watch; /* SIM_EXEC_STOP_WATCH: the watch's index */
    bool store;     /* ... and whether the access was a store */
    sim_exec_result result; /* SIM_EXEC_STOP_END: as sim_exec_run's */
} sim_exec_event;

/* Runs on from where the hart is, as sim_exec_run would, until a
 * breakpoint, a watch, the end, or pause(ctx) (asked between stretches of
 * at most about a million cycles; NULL: never); with `step`, one
 * instruction (a breakpoint at the pc it starts from does not stop it). */
void sim_exec_debug(sim_exec *x, bool step, uint64_t max_instructions,
                    bool (*pause)(void *ctx), void *ctx, sim_exec_event *ev);

/* The hart's state and counts now (sim_reg.h; ps: its cycles at the
 * hart's 1000 MHz). */
void sim_exec_status(sim_exec *x, sim_core_status *st);

/* "exit", "limit", "trap", "wfi". */
const char *sim_exec_end_name(sim_exec_end end);

/* "illegal instruction", "load access fault", ...; "exception N" for a
 * cause the hart does not raise. */
const char *sim_cause_name(uint64_t mcause, char *buf, unsigned n);

#endif
