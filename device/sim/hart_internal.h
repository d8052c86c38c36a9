/* hart_internal: what the hart's files share — the decoded-instruction
 * cache entry and its dense operation enum, the cost table of modeled
 * time, the mstatus bits, and the functions the hot loop (sim_hart.c) calls
 * out to: the decoder (hart_decode.c, rvc.c), CSRs (hart_csr.c), traps
 * and memory slow paths (hart_trap.c, hart_mem.c).  Not for other
 * modules: they use sim_hart.h. */
#ifndef SIM_HART_INTERNAL_H
#define SIM_HART_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sim_hart.h"

/* Modeled time, the one table: cycles an instruction costs.  Every
 * instruction costs SIM_COST_INSN; a load, store, LR/SC or AMO adds its
 * memory's latency (sim_ram.latency for RAM, whatever a device callback
 * adds); the long integer operations add the extras below; FP operations
 * add what sim_fpu_exec reports.  Taking a trap costs SIM_COST_TRAP (the
 * trapping instruction does not retire), so a trap loop still advances
 * time.  device/sim/README.md restates this table. */
enum {
    SIM_COST_INSN = 1,
    SIM_COST_MUL = 3,  /* extra: mul, mulh, mulhsu, mulhu, mulw */
    SIM_COST_DIV = 20, /* extra: div, divu, rem, remu and their W forms */
    SIM_COST_TRAP = 1,
};

/* mstatus fields this hart implements (machine mode only). */
#define SIM_MSTATUS_MIE (1ull << 3)
#define SIM_MSTATUS_MPIE (1ull << 7)
#define SIM_MSTATUS_VS (3ull << 9)
#define SIM_MSTATUS_MPP (3ull << 11)
#define SIM_MSTATUS_FS (3ull << 13)
#define SIM_MSTATUS_SD (1ull << 63)

/* The operations the hot loop dispatches on.  Dense and small, so the
 * switch compiles to one jump table.  Compressed instructions are
 * expanded to their 32-bit equivalents first and share these. */
typedef enum sim_op {
    SIM_OP_UNDECODED = 0, /* a zeroed cache entry: decode on first use */
    SIM_OP_ILLEGAL,
    SIM_OP_FETCH_FAULT, /* imm: offset of the faulting address from pc */
    SIM_OP_NOP,         /* fence, hints, ALU ops writing x0 */
    SIM_OP_LUI, SIM_OP_AUIPC, SIM_OP_JAL, SIM_OP_JALR,
    SIM_OP_BEQ, SIM_OP_BNE, SIM_OP_BLT, SIM_OP_BGE, SIM_OP_BLTU, SIM_OP_BGEU,
    SIM_OP_LB, SIM_OP_LH, SIM_OP_LW, SIM_OP_LD, SIM_OP_LBU, SIM_OP_LHU, SIM_OP_LWU,
    SIM_OP_SB, SIM_OP_SH, SIM_OP_SW, SIM_OP_SD,
    SIM_OP_ADDI, SIM_OP_SLTI, SIM_OP_SLTIU, SIM_OP_XORI, SIM_OP_ORI, SIM_OP_ANDI,
    SIM_OP_SLLI, SIM_OP_SRLI, SIM_OP_SRAI,
    SIM_OP_ADDIW, SIM_OP_SLLIW, SIM_OP_SRLIW, SIM_OP_SRAIW,
    SIM_OP_ADD, SIM_OP_SUB, SIM_OP_SLL, SIM_OP_SLT, SIM_OP_SLTU, SIM_OP_XOR,
    SIM_OP_SRL, SIM_OP_SRA, SIM_OP_OR, SIM_OP_AND,
    SIM_OP_ADDW, SIM_OP_SUBW, SIM_OP_SLLW, SIM_OP_SRLW, SIM_OP_SRAW,
    /* M */
    SIM_OP_MUL, SIM_OP_MULH, SIM_OP_MULHSU, SIM_OP_MULHU,
    SIM_OP_DIV, SIM_OP_DIVU, SIM_OP_REM, SIM_OP_REMU,
    SIM_OP_MULW, SIM_OP_DIVW, SIM_OP_DIVUW, SIM_OP_REMW, SIM_OP_REMUW,
    /* A: imm holds the access size (4 or 8); for AMOs rs2's funct5 is in
     * the entry's aux field */
    SIM_OP_LR, SIM_OP_SC, SIM_OP_AMO,
    /* Zba */
    SIM_OP_SH1ADD, SIM_OP_SH2ADD, SIM_OP_SH3ADD,
    SIM_OP_ADD_UW, SIM_OP_SH1ADD_UW, SIM_OP_SH2ADD_UW, SIM_OP_SH3ADD_UW,
    SIM_OP_SLLI_UW,
    /* Zbb */
    SIM_OP_ANDN, SIM_OP_ORN, SIM_OP_XNOR,
    SIM_OP_CLZ, SIM_OP_CTZ, SIM_OP_CPOP, SIM_OP_CLZW, SIM_OP_CTZW, SIM_OP_CPOPW,
    SIM_OP_MAX, SIM_OP_MAXU, SIM_OP_MIN, SIM_OP_MINU,
    SIM_OP_SEXT_B, SIM_OP_SEXT_H, SIM_OP_ZEXT_H,
    SIM_OP_ROL, SIM_OP_ROR, SIM_OP_ROLW, SIM_OP_RORW, SIM_OP_RORI, SIM_OP_RORIW,
    SIM_OP_ORC_B, SIM_OP_REV8,
    /* system */
    SIM_OP_FENCE_I, SIM_OP_ECALL, SIM_OP_EBREAK, SIM_OP_MRET, SIM_OP_WFI,
    SIM_OP_CSR, /* aux: funct3; imm: the CSR number; rs1: register or uimm */
    /* F and D */
    SIM_OP_FLW, SIM_OP_FLD, SIM_OP_FSW, SIM_OP_FSD,
    SIM_OP_FPU, /* OP-FP and the fused multiply-adds: sim_fpu_exec(bits) */
    SIM_OP_COUNT
} sim_op;

/* One decoded instruction: 16 bytes, so that an entry per halfword of a
 * 124 KiB image is about 1 MiB. */
typedef struct sim_insn {
    uint8_t op; /* sim_op */
    uint8_t rd, rs1, rs2;
    int32_t imm;
    uint32_t bits; /* the encoding as fetched (16 bits for RVC): mtval */
    uint8_t len;   /* 2 or 4 */
    uint8_t aux;   /* op-specific: AMO funct5, CSR funct3 */
    uint16_t pad;
} sim_insn;

/* The decoded cache: one entry per halfword of the code range, entry i
 * for pc = code_base + 2 * i.  [lo, hi) bounds the entries decoded since
 * the last flush, so that fence.i clears only those. */
struct sim_icache {
    size_t n;
    size_t lo, hi;
    sim_insn insn[];
};

/* rvc.c: the 32-bit instruction a compressed one stands for, or 0 when
 * `c` is reserved or illegal (0 is itself illegal as a 32-bit word). */
uint32_t sim_rvc_expand(uint16_t c);

/* hart_decode.c: decodes the 32-bit encoding `insn` into *d (op, fields,
 * len 4, bits).  The caller fixes len and bits for an expanded RVC. */
void sim_decode(sim_insn *d, uint32_t insn);

/* hart_decode.c: fills the cache entry for pc (inside the code range),
 * fetching its bits from RAM; a fetch that reaches outside the code range
 * or RAM becomes SIM_OP_FETCH_FAULT. */
void sim_icache_fill(sim_hart *h, uint64_t pc);

/* hart_csr.c: executes the CSR instruction *d (h->pc/cycle/instret are
 * current).  Returns 0 or SIM_CAUSE_ILLEGAL. */
int sim_hart_csr(sim_hart *h, const sim_insn *d);

/* hart_trap.c: takes the trap: mepc = h->pc, mcause, mtval, mstatus
 * MPIE/MIE, pc = mtvec; records it in h->trap_*. */
void sim_hart_trap(sim_hart *h, uint64_t cause, uint64_t tval);

/* hart_trap.c: mret: MIE = MPIE, MPIE = 1, pc = mepc. */
void sim_hart_mret(sim_hart *h);

/* hart_mem.c: the RAM range holding [addr, addr + size), or -1. */
int sim_mem_find_ram(const sim_mem *m, uint64_t addr, unsigned size);

/* hart_mem.c: the slow paths of a load and a store of `size` bytes at an
 * aligned addr: RAM range `ram` (sim_mem_find_ram's answer, found by the
 * caller, which also wants it), else (-1) the device callbacks.  Return 0
 * or the trap cause.  h->cycle is current and gets the access's latency. */
int sim_hart_load_slow(sim_hart *h, int ram, uint64_t addr, unsigned size, uint64_t *value);
int sim_hart_store_slow(sim_hart *h, int ram, uint64_t addr, unsigned size, uint64_t value);

/* hart_mem.c: LR, SC and AMOs (*d; h->pc/cycle current).  Return 0 or
 * the trap cause, with *tval set. */
int sim_hart_atomic(sim_hart *h, const sim_insn *d, uint64_t *tval);

/* hart_mem.c: FP loads and stores (FLW/FLD/FSW/FSD and their compressed
 * forms).  Return 0 or the trap cause, with *tval set. */
int sim_hart_fp_mem(sim_hart *h, const sim_insn *d, uint64_t *tval);

#endif
