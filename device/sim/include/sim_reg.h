/* sim_reg: how a debugger names a simulated hart's registers, and what
 * it sees of the hart's progress — the one naming `kmrun exec`'s hart
 * (sim_exec.h) and the card's cores (sim_card_debug.h) share, so that
 * kmrun's GDB targets translate GDB's register numbers, and report a
 * core's state (its monitor commands), once. */
#ifndef SIM_REG_H
#define SIM_REG_H

typedef enum sim_reg_file {
    SIM_REG_X,   /* x0..x31 */
    SIM_REG_F,   /* f0..f31, as stored (singles NaN-boxed) */
    SIM_REG_PC,  /* num 0 */
    SIM_REG_CSR, /* by CSR number, as the CSR instructions see them */
    SIM_REG_V,   /* the vector registers, 64 bits at a time: num r * SIM_REG_V_PARTS + k
                    is v<r>'s bytes 8k..8k+7 (little-endian; element 0 first) */
} sim_reg_file;

/* The 64-bit parts of a vector register (VLEN 512: vlenb 64 bytes). */
#define SIM_REG_V_PARTS 8

/* A hart's progress as a debugger's status shows it. */
typedef enum sim_core_state {
    SIM_CORE_IDLE,    /* not started (a card's core before the thread) */
    SIM_CORE_RUNNING,
    SIM_CORE_WAITING, /* in wfi */
    SIM_CORE_HALTED,
} sim_core_state;

typedef struct sim_core_status {
    sim_core_state state;
    uint64_t pc;
    uint64_t instructions, cycles; /* retired, modeled, since its start */
    uint64_t mem_cycles;           /* of cycles, memory's stalls */
    uint64_t traps;
    uint64_t ps; /* its modeled time: picoseconds from the card's (the run's) start */
} sim_core_status;

#endif
