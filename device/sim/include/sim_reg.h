/* sim_reg: how a debugger names a simulated hart's registers — the one
 * naming `kmrun exec`'s hart (sim_exec.h) and the card's cores
 * (sim_card_debug.h) share, so that kmrun's GDB targets translate GDB's
 * register numbers once. */
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

#endif
