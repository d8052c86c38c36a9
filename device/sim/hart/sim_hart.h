/* sim_hart: one RV64IMAFDCV + Zicsr + Zifencei + Zba + Zbb hart in machine
 * mode (the X280 core; the vector unit, VLEN 512, is sim_vec.h's: what of
 * it is not implemented yet traps as illegal).
 *
 * Instructions are fetched only from the hart's code range (the image area
 * of local memory on a cluster; the ELF's text for `kmrun exec`) and are
 * decoded once, into blocks the hot loop runs from, shared by the harts of
 * one memory with the same code range; a store into code is seen after
 * fence.i (by any of them) or sim_hart_flush_icache, which drop the
 * decoded code.  A fetch outside the code range is an instruction access
 * fault.
 *
 * Each hart has the debug spec's trigger module (tselect, tdata1-3,
 * tinfo): SIM_HART_TRIGGERS address-match triggers (type 2, mcontrol) on
 * execute, load and store, which raise a breakpoint exception before the
 * instruction or access (hart_trigger.c; device/sim/README.md, "Triggers").
 *
 * Each hart has physical memory protection: SIM_HART_PMP entries
 * (pmpcfg0, pmpaddr0-7), of which, in machine mode, only the locked ones
 * check anything: an access or fetch one denies is an access fault
 * (hart_pmp.c; device/sim/README.md, "PMP").
 *
 * Traps go to mtvec (direct mode) with mcause, mepc and mtval set;
 * misaligned loads and stores trap (as the card's regions do).  Modeled
 * time: one cycle per instruction plus each access's latency (sim_mem.h),
 * plus the extra cycles of long operations (multiply, divide, FP); the
 * table is in hart_internal.h and device/sim/README.md, "The hart". */
#ifndef SIM_HART_H
#define SIM_HART_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_mem.h"
#include "sim_reg.h"
#include "sim_trace.h"

/* mcause values (exceptions; interrupts are not modeled). */
enum {
    SIM_CAUSE_FETCH_MISALIGNED = 0,
    SIM_CAUSE_FETCH_ACCESS = 1,
    SIM_CAUSE_ILLEGAL = 2,
    SIM_CAUSE_BREAKPOINT = 3,
    SIM_CAUSE_LOAD_MISALIGNED = 4,
    SIM_CAUSE_LOAD_ACCESS = 5,
    SIM_CAUSE_STORE_MISALIGNED = 6,
    SIM_CAUSE_STORE_ACCESS = 7,
    SIM_CAUSE_ECALL_M = 11,
};

typedef enum sim_hart_state {
    SIM_HART_RUNNING,
    SIM_HART_WFI,     /* waiting in wfi: sim_hart_wake() resumes it */
    SIM_HART_HALTED,  /* stopped by its owner (sim_hart_halt) */
} sim_hart_state;

struct sim_icache; /* the decoded instructions (hart_block.c) */

/* The trigger module.  Four triggers per hart (the SiFive core
 * complexes' manuals' figure; the X280's is not published), each an
 * address-match trigger (tdata1 type 2, mcontrol); tdata1's fields: */
#define SIM_HART_TRIGGERS 4
#define SIM_MC_TYPE2 (2ull << 60)       /* type: address/data match */
#define SIM_MC_DMODE (1ull << 59)       /* only debug mode may write it */
#define SIM_MC_HIT (1ull << 20)         /* set when it fires */
#define SIM_MC_ACTION_SHIFT 12          /* 0: breakpoint exception; 1: debug mode */
#define SIM_MC_ACTION (15ull << SIM_MC_ACTION_SHIFT)
#define SIM_MC_MATCH_SHIFT 7            /* 0: equal; 2: at or above; 3: below */
#define SIM_MC_MATCH (15ull << SIM_MC_MATCH_SHIFT)
#define SIM_MC_M (1ull << 6)            /* matches in machine mode */
#define SIM_MC_EXECUTE (1ull << 2)
#define SIM_MC_STORE (1ull << 1)
#define SIM_MC_LOAD (1ull << 0)
typedef struct sim_trigger {
    uint64_t tdata1, tdata2; /* as read: always a legal value */
} sim_trigger;

/* Physical memory protection (hart_pmp.c): the entries and their
 * granularity, 2^(SIM_PMP_G + 2) bytes (4 KiB) — our choice, the X280's
 * manual not being public (device/sim/README.md, "PMP") — and a pmpcfg
 * byte's fields. */
#define SIM_HART_PMP 8
#define SIM_PMP_G 10
#define SIM_PMP_R 0x01u
#define SIM_PMP_W 0x02u
#define SIM_PMP_X 0x04u
#define SIM_PMP_A 0x18u /* 0 off, 0x08 TOR, 0x10 NA4, 0x18 NAPOT */
#define SIM_PMP_L 0x80u /* locked: read-only until reset, and checked in machine mode */


/* Bytes of a vector register (VLEN 512 bits, the X280's): the `vlenb` CSR. */
#define SIM_VLENB 64

typedef struct sim_hart {
    uint64_t x[32];
    uint64_t f[32]; /* single values NaN-boxed */
    uint64_t pc;
    uint32_t fcsr;  /* frm in bits 7:5, fflags in 4:0 */
    uint64_t mstatus, mtvec, mepc, mcause, mtval, mscratch, mie, mip;
    uint64_t cycle;   /* modeled cycles since reset */
    uint64_t instret; /* instructions retired */
    uint64_t traps;   /* traps taken: they retire nothing, yet take time */
    /* Of `cycle`, the cycles memory accesses added: each load's, store's,
     * AMO's latency (sim_mem.h: a RAM range's, a device's), beyond the
     * SIM_COST_INSN every instruction costs (the run JSON's
     * memory_stall_cycles). */
    uint64_t mem_cycles;
    /* SIM_MEM_VLOAD or SIM_MEM_VSTORE while a vector load or store makes
     * its accesses (sim_mem.h), else 0. */
    uint8_t vmem;
    /* mcycle/minstret read cycle/instret plus these: a CSR write moves
     * the view, never the modeled time the owner schedules by. */
    uint64_t mcycle_offset, minstret_offset;
    uint32_t hartid;
    sim_hart_state state;
    bool reserved;        /* an LR's reservation is held (set with mem->reserved_any) */
    uint64_t reservation; /* its 64-byte line's address */
    /* The last trap taken (for reports; the CSRs hold the same). */
    bool trapped;
    uint64_t trap_cause, trap_epc, trap_tval;
    sim_mem *mem;
    uint64_t code_base, code_size;
    struct sim_icache *icache;
    /* While sim_hart_step runs an instruction: where its accesses go. */
    sim_commit *commit;
    /* The index in mem->ram of the range the last access to RAM reached:
     * a run starts with it in its one-entry cache. */
    unsigned ram_hint;
    /* Called before an instruction at a probed pc (sim_hart_set_probes);
     * true stops the run there (sim_hart_run returns with the hart
     * running, at that pc, the instruction not begun). */
    bool (*probe)(void *ctx, struct sim_hart *h);
    void *probe_ctx;
    /* Watched memory: before a load or store (an AMO is both) that
     * overlaps one of watches[0..nwatches) reaches memory, watch(ctx, h,
     * the watch's index, store) is called with the hart as of the
     * instruction's start; like a probe, it may hold the hart, and true
     * stops the run before the instruction.  While any is set, every access
     * takes the slow path that checks them. */
    const struct sim_watch *watches;
    unsigned nwatches;
    bool (*watch)(void *ctx, struct sim_hart *h, unsigned index, bool store);
    void *watch_ctx;
    /* Called before a trap is taken, with the hart as of the trapping
     * instruction's start (pc, registers) but for mepc, mcause and mtval,
     * which already hold what the trap sets (a debugger stopped there
     * reads them so; the trap sets them again as it is taken, so a write
     * to them there is lost); like a probe, it may hold the hart.  True ends the run once the trap is taken (the hart running,
     * at mtvec).  Traps are the slow path: this costs the rest nothing. */
    bool (*on_trap)(void *ctx, struct sim_hart *h, uint64_t cause, uint64_t tval);
    void *trap_ctx;
    /* The trigger module (hart_trigger.c): the triggers, tselect, and how
     * many are armed (action 0 in machine mode) on execute and on loads
     * or stores: the hot loop looks at those counts only. */
    sim_trigger trig[SIM_HART_TRIGGERS];
    unsigned tselect;
    unsigned trig_exec, trig_mem;
    /* Physical memory protection (hart_pmp.c): each entry's pmpcfg byte
     * and pmpaddr, as written (legal values), and how many entries may
     * deny machine mode anything (locked, matching something, without
     * one of R, W, X): the hot loop looks at that count only (0: nothing
     * is checked). */
    uint8_t pmpcfg[SIM_HART_PMP];
    uint64_t pmpaddr[SIM_HART_PMP];
    unsigned pmp_deny;
    /* Nonzero while every load and store must reach the slow path that
     * checks it: trig_mem or pmp_deny is (hart_trigger.c and hart_pmp.c
     * keep it), so that the hot loop tests one field for both. */
    unsigned checks_mem;
    /* The vector unit's state (sim_vec.h), last: the scalar fields the hot
     * loop touches stay together ahead of these 2 KiB.  vtype bit 63 is
     * vill; vxrm and vxsat are vcsr's two fields.  Register r's byte b is
     * v[r][b], and a register group is contiguous: element i of the group
     * at r is at &v[r][0] + i * SEW/8. */
    uint64_t vtype, vl, vstart;
    uint8_t vxrm, vxsat;
    /* 8-byte aligned, not 64: a hart (and a cluster, an exec) lives in
     * malloc'd memory, which promises 16 */
    _Alignas(8) uint8_t v[32][SIM_VLENB];
} sim_hart;

typedef struct sim_watch {
    uint64_t addr, len;
    bool load, store; /* which accesses it watches */
} sim_watch;

/* Resets the hart: registers zero (vector ones, vl and vstart too; vtype
 * vill, as RVV recommends), pc = reset_pc, mstatus with FS and VS off, code range [code_base, code_base + code_size).  Registers the hart
 * in mem->harts (if not there yet) so that stores clear its LR
 * reservation; sim_hart_free takes it out.  Returns 0, or -1 when memory
 * for the decoded cache or a slot in mem->harts is lacking. */
int sim_hart_init(sim_hart *h, sim_mem *mem, uint32_t hartid, uint64_t reset_pc,
                  uint64_t code_base, uint64_t code_size);
void sim_hart_free(sim_hart *h);

/* Runs until h->cycle reaches until_cycle, or the hart is no longer
 * running (wfi, halted).  Returns the state. */
sim_hart_state sim_hart_run(sim_hart *h, uint64_t until_cycle);

/* Runs one instruction, if h is running and it starts before
 * until_cycle, exactly as sim_hart_run would (the same modeled time).
 * Returns true and fills *c when it retired; false when nothing retired
 * (a trap was taken, or nothing ran). */
bool sim_hart_step(sim_hart *h, uint64_t until_cycle, sim_commit *c);

/* sim_hart_run(h, until_cycle), an instruction at a time, each one that
 * retires handed to `line` as a line of Spike's commit log for core
 * `core` (but for one at skip_pc, an owner's own code: 0 for none). */
void sim_hart_run_traced(sim_hart *h, uint64_t until_cycle, unsigned core, uint64_t skip_pc,
                         void (*line)(void *ctx, const char *text), void *ctx);

/* sim_hart_run(h, until_cycle), an instruction at a time, each one that
 * retires handed to rec(ctx, commit) with commit->cycle the hart's cycle
 * at its start plus `clock_offset` (sim_trace.h); when rec returns false
 * the rest runs untraced.  Returns false when rec did. */
bool sim_hart_run_recorded(sim_hart *h, uint64_t until_cycle, uint64_t clock_offset,
                           bool (*rec)(void *ctx, const sim_commit *c), void *ctx);

/* The value a CSR instruction reading `csr` would see now; false when
 * the hart has no such CSR.  For tracers and debuggers. */
bool sim_hart_csr_read(sim_hart *h, unsigned csr, uint64_t *value);

/* A debugger's reads and writes of the registers (sim_reg.h): 0, or -1
 * for a register the hart does not have (or, writing, one a debugger may
 * not change: x0 and the CSRs that are the program's own keep their
 * value).  A write of pc drops bit 0, as jalr does. */
int sim_hart_get_reg(sim_hart *h, sim_reg_file file, unsigned num, uint64_t *value);
int sim_hart_set_reg(sim_hart *h, sim_reg_file file, unsigned num, uint64_t value);

/* The hart's state, pc and counts (sim_reg.h); ps is the owner's to set
 * (0 here). */
void sim_hart_status(const sim_hart *h, sim_core_status *st);

/* wfi -> running (a wake event: the owner's interrupt or software
 * interrupt); a no-op in any other state. */
void sim_hart_wake(sim_hart *h);

/* Stops the hart for good (state SIM_HART_HALTED); sim_hart_run then
 * returns at once.  Safe inside a device callback: the instruction that
 * made the access completes, then the run returns. */
void sim_hart_halt(sim_hart *h);

/* Probes: before an instruction at one of pcs[0..n) runs, h->probe (if
 * set) is called with the hart as of that instruction's start (pc, cycle,
 * instret, registers).  The callee may take its time (a debugger holds the
 * hart there; modeled time does not move) and may read and write
 * registers and memory, but not pc; returning true stops the run before
 * the instruction (the next run meets the probe again).  A probe is no instruction and costs
 * nothing.  The set belongs to the decoded code, so harts that share it
 * share the set; it replaces the last one and drops what was decoded.
 * Returns 0, or -1 when memory is lacking (the old set stays). */
int sim_hart_set_probes(sim_hart *h, const uint64_t *pcs, unsigned n);

/* The trigger module as a debugger (debug mode) sees it: trigger i's
 * tdata1 and tdata2; a write may set dmode (then the program's writes to
 * that trigger are ignored) and action 1 (enter debug mode: the hart
 * itself does nothing on it, the owner's probes and watches stand for
 * it).  tdata1 is made legal as a CSR write would (write any, read
 * legal).  For when the hart is not running; returns 0, or -1 when i is
 * no trigger. */
int sim_hart_trigger_get(const sim_hart *h, unsigned i, uint64_t *tdata1, uint64_t *tdata2);
int sim_hart_trigger_set(sim_hart *h, unsigned i, uint64_t tdata1, uint64_t tdata2);

/* A debugger's hardware breakpoint or watchpoint takes a trigger as an
 * external debugger's does (dmode, action 1 "enter debug mode", on
 * execute, load and/or store at addr), while its stop is the owner's
 * probe or watch (the hart does nothing on action 1, and such a trigger
 * changes no decoded code, so this is safe while the hart is held inside
 * a callback).  A trigger is free when neither the program nor a debugger
 * uses it (execute, load, store and dmode clear); the last free one is
 * taken, leaving the low ones to the program.  Returns its index, or -1
 * when none is free; release gives it back cleared (-1: nothing). */
int sim_hart_trigger_claim(sim_hart *h, bool execute, bool load, bool store, uint64_t addr);
void sim_hart_trigger_release(sim_hart *h, int index);
/* The debugger's trigger claimed with those arguments, or -1. */
int sim_hart_trigger_claimed(const sim_hart *h, bool execute, bool load, bool store, uint64_t addr);

/* Drops the decoded instructions (after the owner wrote code). */
void sim_hart_flush_icache(sim_hart *h);

/* Clears every hart's reservation on the 64-byte line of addr, except
 * `writer`'s own (a store by anyone, or a NoC write: writer NULL). */
void sim_mem_note_store(sim_mem *m, const sim_hart *writer, uint64_t addr);
/* Whether a hart of m other than h holds a reservation now (at once
 * false while m->reserved_any is). */
bool sim_mem_others_reserved(sim_mem *m, const sim_hart *h);

/* Idle loops (hart_idle.c).  A hart spinning in a wait loop — loads of
 * RAM at fixed addresses, compares, a turn counter, no stores — would run
 * the same turns until someone else writes that RAM.  sim_hart_idle_prove
 * proves that from the hart's state now (without changing it or memory):
 * after a prefix to the loop's head `pc`, every period of turns starts
 * with registers x + k * dx (k = 0 .. max_periods, modulo 2^64; but
 * time_regs, which hold the mtime the last period read) and costs
 * exactly period_cycles, period_instret and period_mem_cycles.  Harts with
 * a probe, watches, a commit record or probed code are never proven.
 * sim_hart_idle_skip then advances h by the prefix and the most whole
 * periods whose instructions all start before until_cycle, exactly as
 * sim_hart_run(h, until_cycle) would have run them, provided the bytes
 * the proof loaded (`loads`) read the same meanwhile (the caller's to
 * ensure), and h has not run since the proof; it returns the periods
 * skipped (0: h unchanged).  A sim_hart_run to until_cycle after it ends
 * where the run alone would have.  mtime, an 8-byte load at
 * mem->mtime_addr, is the one device load a proof accepts.
 *
 * A trap loop is proven too (sim_hart_trap_loop), unless a trap hook
 * (on_trap) or a commit record would see its traps: its period is one
 * trap (period_traps 1, SIM_COST_TRAP cycles, no instruction), its
 * registers never change, and it has no bound. */
#define SIM_IDLE_LOADS_MAX 16
typedef struct sim_idle {
    uint64_t pc;
    uint64_t prefix_cycles, prefix_instret, prefix_mem_cycles;
    uint64_t x[32], dx[32];
    uint64_t period_cycles, period_instret, period_mem_cycles;
    uint64_t period_traps; /* a trap loop's: 1 */
    uint64_t max_periods;
    /* Registers that end a period holding mtime (a load at
     * mem->mtime_addr), read in period 0 at the hart's cycle
     * time_cycle[r] (in period k, k * period_cycles later). */
    uint32_t time_regs;
    uint64_t time_cycle[32];
    /* Every RAM load the prefix and a period make (the same each
     * period): where, how many bytes, what it read.  While these bytes
     * stay as they were, the proof holds. */
    unsigned nloads;
    struct sim_idle_load {
        uint64_t addr, value;
        unsigned size;
    } loads[SIM_IDLE_LOADS_MAX];
} sim_idle;
bool sim_hart_idle_prove(const sim_hart *h, sim_idle *p);
/* Whether h spins in a trap loop that changes nothing but time: its pc is
 * mtvec's, what is there traps whatever the registers hold (a fetch
 * outside the code range, an illegal instruction, ecall, ebreak), and the
 * trap leaves the CSRs as they are (mepc, mcause and mtval already its,
 * MIE and MPIE clear).  *cause (if not NULL): its mcause.  Only a reset
 * ends such a loop. */
bool sim_hart_trap_loop(const sim_hart *h, uint64_t *cause);
uint64_t sim_hart_idle_skip(sim_hart *h, const sim_idle *p, uint64_t until_cycle);

#endif
