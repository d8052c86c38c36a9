/* hart: the life of a hart (init, free, wake, halt, dropping the decoded
 * cache) and its hot loop, sim_hart_run.
 *
 * The loop keeps pc, cycle and instret in locals and dispatches with one
 * switch on the decoded entry's dense op (hart_internal.h): the compiler
 * makes it a jump table, and a computed-goto version measured no faster
 * (README, "The hart").  Everything rare leaves the loop through a
 * function: decoding, CSRs, atomics, FP, device accesses, traps; before
 * such a call the locals are written back to the hart (SYNC) because the
 * callee, or a device callback behind it, reads or advances them.
 *
 * Loads and stores hit a one-entry cache of the last RAM range they
 * reached (base, host pointer, latency): one subtraction and one compare
 * for the common case.  Everything else goes to the slow paths, which
 * also check alignment and refill that cache. */
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"
#include "sim_fpu.h"

int sim_hart_init(sim_hart *h, sim_mem *mem, uint32_t hartid, uint64_t reset_pc,
                  uint64_t code_base, uint64_t code_size)
{
    memset(h, 0, sizeof *h);
    h->mem = mem;
    h->hartid = hartid;
    h->pc = reset_pc;
    h->code_base = code_base;
    h->code_size = code_size;
    h->state = SIM_HART_RUNNING;

    uint64_t n = code_size / 2 + 1;
    if (n > (SIZE_MAX - sizeof(struct sim_icache)) / sizeof(sim_insn))
        return -1;
    h->icache = calloc(1, sizeof(struct sim_icache) + (size_t)n * sizeof(sim_insn));
    if (!h->icache)
        return -1;
    h->icache->n = (size_t)n;
    h->icache->lo = (size_t)n;
    h->icache->hi = 0;

    for (unsigned i = 0; i < mem->nharts; i++)
        if (mem->harts[i] == h)
            return 0;
    if (mem->nharts >= SIM_MEM_MAX_HARTS) {
        sim_hart_free(h);
        return -1;
    }
    mem->harts[mem->nharts++] = h;
    return 0;
}

void sim_hart_free(sim_hart *h)
{
    sim_mem *m = h->mem;
    if (m) {
        for (unsigned i = 0; i < m->nharts; i++) {
            if (m->harts[i] == h) {
                memmove(&m->harts[i], &m->harts[i + 1], (m->nharts - i - 1) * sizeof *m->harts);
                m->nharts--;
                break;
            }
        }
    }
    free(h->icache);
    h->icache = NULL;
}

void sim_hart_wake(sim_hart *h)
{
    if (h->state == SIM_HART_WFI)
        h->state = SIM_HART_RUNNING;
}

void sim_hart_halt(sim_hart *h)
{
    h->state = SIM_HART_HALTED;
}

void sim_hart_flush_icache(sim_hart *h)
{
    struct sim_icache *ic = h->icache;
    if (!ic)
        return;
    if (ic->hi > ic->lo)
        memset(&ic->insn[ic->lo], 0, (ic->hi - ic->lo) * sizeof(sim_insn));
    ic->lo = ic->n;
    ic->hi = 0;
}

static inline uint64_t sext32(uint64_t v)
{
    return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
}

static inline uint64_t load_extend(unsigned op, uint64_t raw)
{
    switch (op) {
    case SIM_OP_LB: return (uint64_t)(int64_t)(int8_t)raw;
    case SIM_OP_LH: return (uint64_t)(int64_t)(int16_t)raw;
    case SIM_OP_LW: return sext32(raw);
    default: return raw; /* LD and the unsigned loads */
    }
}

static inline uint64_t div_s(uint64_t a, uint64_t b)
{
    if (b == 0)
        return UINT64_MAX;
    if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
        return a;
    return (uint64_t)((int64_t)a / (int64_t)b);
}

static inline uint64_t rem_s(uint64_t a, uint64_t b)
{
    if (b == 0)
        return a;
    if ((int64_t)a == INT64_MIN && (int64_t)b == -1)
        return 0;
    return (uint64_t)((int64_t)a % (int64_t)b);
}

static inline uint64_t divw_s(uint64_t a, uint64_t b)
{
    int32_t x = (int32_t)a, y = (int32_t)b;
    if (y == 0)
        return UINT64_MAX;
    if (x == INT32_MIN && y == -1)
        return (uint64_t)(int64_t)x;
    return (uint64_t)(int64_t)(x / y);
}

static inline uint64_t remw_s(uint64_t a, uint64_t b)
{
    int32_t x = (int32_t)a, y = (int32_t)b;
    if (y == 0)
        return (uint64_t)(int64_t)x;
    if (x == INT32_MIN && y == -1)
        return 0;
    return (uint64_t)(int64_t)(x % y);
}

static inline uint64_t rol64(uint64_t v, unsigned s)
{
    s &= 63;
    return s ? (v << s) | (v >> (64 - s)) : v;
}

static inline uint64_t ror64(uint64_t v, unsigned s)
{
    s &= 63;
    return s ? (v >> s) | (v << (64 - s)) : v;
}

static inline uint32_t rol32(uint32_t v, unsigned s)
{
    s &= 31;
    return s ? (v << s) | (v >> (32 - s)) : v;
}

static inline uint32_t ror32(uint32_t v, unsigned s)
{
    s &= 31;
    return s ? (v >> s) | (v << (32 - s)) : v;
}

static inline uint64_t orc_b(uint64_t v)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < 64; i += 8)
        if ((v >> i) & 0xff)
            r |= 0xffull << i;
    return r;
}

#define LIKELY(c) __builtin_expect(!!(c), 1)
#define UNLIKELY(c) __builtin_expect(!!(c), 0)

sim_hart_state sim_hart_run(sim_hart *h, uint64_t until_cycle)
{
    if (h->state != SIM_HART_RUNNING || !h->icache)
        return h->state;

    sim_mem *const m = h->mem;
    uint64_t *const x = h->x;
    sim_insn *const icache = h->icache->insn;
    const uint64_t cbase = h->code_base, csize = h->code_size;
    uint64_t pc = h->pc, cycle = h->cycle, instret = h->instret;
    uint64_t mcycles = h->mem_cycles; /* of cycle: what memory accesses added */
    uint64_t limit = until_cycle; /* set to 0 to stop after this instruction */

    /* The last RAM range a load or store reached: an access at offset o
     * from rbase hits when o < rlen (room for 8 bytes at o). */
    uint64_t rbase = 0, rlen = 0, rlat = 0;
    uint8_t *rhost = NULL;

    /* Only stores that could break another hart's reservation need
     * sim_mem_note_store on the fast path. */
    bool others = false;
    for (unsigned i = 0; i < m->nharts; i++)
        if (m->harts[i] != h)
            others = true;

    uint64_t cause = 0, tval = 0;
    uint64_t mem_addr = 0, mem_val = 0;
    unsigned mem_size = 0;

    /* Inside the loop pc stays even (jalr clears bit 0, offsets are
     * even, mepc and mtvec are kept aligned), which the cache's index
     * relies on; only the owner could have set an odd one. */
    if (UNLIKELY(pc & 1)) {
        sim_hart_trap(h, SIM_CAUSE_FETCH_MISALIGNED, pc);
        pc = h->pc;
        cycle += SIM_COST_TRAP;
    }

#define SYNC() (h->pc = pc, h->cycle = cycle, h->instret = instret, h->mem_cycles = mcycles)
#define RD x[d->rd]
#define RS1 x[d->rs1]
#define RS2 x[d->rs2]
#define IMM ((uint64_t)(int64_t)d->imm)
#define NEXT                                                                                   \
    pc += d->len;                                                                              \
    break
#define REFILL(r)                                                                              \
    (rbase = (r)->base, rlen = (r)->size >= 8 ? (r)->size - 7 : 0, rhost = (r)->host,        \
     rlat = (r)->latency)
#define LOAD(n, type, conv)                                                                    \
    {                                                                                          \
        uint64_t a = RS1 + IMM, o = a - rbase;                                                 \
        if (LIKELY(o < rlen) && LIKELY(!(a & ((n) - 1)))) {                                    \
            type t;                                                                            \
            memcpy(&t, rhost + o, n);                                                          \
            RD = conv;                                                                         \
            x[0] = 0;                                                                          \
            cycle += rlat;                                                                     \
            mcycles += rlat;                                                                   \
            NEXT;                                                                              \
        }                                                                                      \
        mem_addr = a;                                                                          \
        mem_size = n;                                                                          \
        goto load_slow;                                                                        \
    }
#define STORE(n, type)                                                                         \
    {                                                                                          \
        uint64_t a = RS1 + IMM, o = a - rbase;                                                 \
        type t = (type)RS2;                                                                    \
        if (LIKELY(o < rlen) && LIKELY(!(a & ((n) - 1)))) {                                    \
            memcpy(rhost + o, &t, n);                                                          \
            cycle += rlat;                                                                     \
            mcycles += rlat;                                                                   \
            if (others)                                                                        \
                sim_mem_note_store(m, h, a);                                                   \
            NEXT;                                                                              \
        }                                                                                      \
        mem_addr = a;                                                                          \
        mem_size = n;                                                                          \
        mem_val = t;                                                                           \
        goto store_slow;                                                                       \
    }

    while (cycle < limit) {
        uint64_t off = pc - cbase;
        if (UNLIKELY(off >= csize)) {
            cause = SIM_CAUSE_FETCH_ACCESS;
            tval = pc;
            goto trap;
        }
        const sim_insn *d = &icache[off >> 1];
        switch ((sim_op)d->op) {
        case SIM_OP_UNDECODED: sim_icache_fill(h, pc); continue;
        case SIM_OP_ILLEGAL:
            cause = SIM_CAUSE_ILLEGAL;
            tval = d->bits;
            goto trap;
        case SIM_OP_FETCH_FAULT:
            cause = SIM_CAUSE_FETCH_ACCESS;
            tval = pc + IMM;
            goto trap;
        case SIM_OP_NOP: NEXT;

        case SIM_OP_LUI: RD = IMM; NEXT;
        case SIM_OP_AUIPC: RD = pc + IMM; NEXT;
        case SIM_OP_JAL: {
            uint64_t link = pc + d->len;
            pc += IMM;
            x[d->rd] = link;
            x[0] = 0;
            break;
        }
        case SIM_OP_JALR: {
            uint64_t link = pc + d->len;
            pc = (RS1 + IMM) & ~(uint64_t)1;
            x[d->rd] = link;
            x[0] = 0;
            break;
        }
        case SIM_OP_BEQ: pc += RS1 == RS2 ? IMM : d->len; break;
        case SIM_OP_BNE: pc += RS1 != RS2 ? IMM : d->len; break;
        case SIM_OP_BLT: pc += (int64_t)RS1 < (int64_t)RS2 ? IMM : d->len; break;
        case SIM_OP_BGE: pc += (int64_t)RS1 >= (int64_t)RS2 ? IMM : d->len; break;
        case SIM_OP_BLTU: pc += RS1 < RS2 ? IMM : d->len; break;
        case SIM_OP_BGEU: pc += RS1 >= RS2 ? IMM : d->len; break;

        case SIM_OP_LB: LOAD(1, int8_t, (uint64_t)(int64_t)t)
        case SIM_OP_LH: LOAD(2, int16_t, (uint64_t)(int64_t)t)
        case SIM_OP_LW: LOAD(4, int32_t, (uint64_t)(int64_t)t)
        case SIM_OP_LD: LOAD(8, uint64_t, t)
        case SIM_OP_LBU: LOAD(1, uint8_t, t)
        case SIM_OP_LHU: LOAD(2, uint16_t, t)
        case SIM_OP_LWU: LOAD(4, uint32_t, t)
        case SIM_OP_SB: STORE(1, uint8_t)
        case SIM_OP_SH: STORE(2, uint16_t)
        case SIM_OP_SW: STORE(4, uint32_t)
        case SIM_OP_SD: STORE(8, uint64_t)

        case SIM_OP_ADDI: RD = RS1 + IMM; NEXT;
        case SIM_OP_SLTI: RD = (int64_t)RS1 < (int64_t)IMM; NEXT;
        case SIM_OP_SLTIU: RD = RS1 < IMM; NEXT;
        case SIM_OP_XORI: RD = RS1 ^ IMM; NEXT;
        case SIM_OP_ORI: RD = RS1 | IMM; NEXT;
        case SIM_OP_ANDI: RD = RS1 & IMM; NEXT;
        case SIM_OP_SLLI: RD = RS1 << d->imm; NEXT;
        case SIM_OP_SRLI: RD = RS1 >> d->imm; NEXT;
        case SIM_OP_SRAI: RD = (uint64_t)((int64_t)RS1 >> d->imm); NEXT;
        case SIM_OP_ADDIW: RD = sext32(RS1 + IMM); NEXT;
        case SIM_OP_SLLIW: RD = sext32((uint32_t)RS1 << d->imm); NEXT;
        case SIM_OP_SRLIW: RD = sext32((uint32_t)RS1 >> d->imm); NEXT;
        case SIM_OP_SRAIW: RD = (uint64_t)(int64_t)((int32_t)RS1 >> d->imm); NEXT;

        case SIM_OP_ADD: RD = RS1 + RS2; NEXT;
        case SIM_OP_SUB: RD = RS1 - RS2; NEXT;
        case SIM_OP_SLL: RD = RS1 << (RS2 & 63); NEXT;
        case SIM_OP_SLT: RD = (int64_t)RS1 < (int64_t)RS2; NEXT;
        case SIM_OP_SLTU: RD = RS1 < RS2; NEXT;
        case SIM_OP_XOR: RD = RS1 ^ RS2; NEXT;
        case SIM_OP_SRL: RD = RS1 >> (RS2 & 63); NEXT;
        case SIM_OP_SRA: RD = (uint64_t)((int64_t)RS1 >> (RS2 & 63)); NEXT;
        case SIM_OP_OR: RD = RS1 | RS2; NEXT;
        case SIM_OP_AND: RD = RS1 & RS2; NEXT;
        case SIM_OP_ADDW: RD = sext32(RS1 + RS2); NEXT;
        case SIM_OP_SUBW: RD = sext32(RS1 - RS2); NEXT;
        case SIM_OP_SLLW: RD = sext32((uint32_t)RS1 << (RS2 & 31)); NEXT;
        case SIM_OP_SRLW: RD = sext32((uint32_t)RS1 >> (RS2 & 31)); NEXT;
        case SIM_OP_SRAW: RD = (uint64_t)(int64_t)((int32_t)RS1 >> (RS2 & 31)); NEXT;

        case SIM_OP_MUL:
            RD = RS1 * RS2;
            cycle += SIM_COST_MUL;
            NEXT;
        case SIM_OP_MULH:
            RD = (uint64_t)(((__int128)(int64_t)RS1 * (__int128)(int64_t)RS2) >> 64);
            cycle += SIM_COST_MUL;
            NEXT;
        case SIM_OP_MULHSU:
            RD = (uint64_t)(((__int128)(int64_t)RS1 * (__int128)RS2) >> 64);
            cycle += SIM_COST_MUL;
            NEXT;
        case SIM_OP_MULHU:
            RD = (uint64_t)(((unsigned __int128)RS1 * RS2) >> 64);
            cycle += SIM_COST_MUL;
            NEXT;
        case SIM_OP_MULW:
            RD = sext32((uint32_t)RS1 * (uint32_t)RS2);
            cycle += SIM_COST_MUL;
            NEXT;
        case SIM_OP_DIV:
            RD = div_s(RS1, RS2);
            cycle += SIM_COST_DIV;
            NEXT;
        case SIM_OP_DIVU:
            RD = RS2 ? RS1 / RS2 : UINT64_MAX;
            cycle += SIM_COST_DIV;
            NEXT;
        case SIM_OP_REM:
            RD = rem_s(RS1, RS2);
            cycle += SIM_COST_DIV;
            NEXT;
        case SIM_OP_REMU:
            RD = RS2 ? RS1 % RS2 : RS1;
            cycle += SIM_COST_DIV;
            NEXT;
        case SIM_OP_DIVW:
            RD = divw_s(RS1, RS2);
            cycle += SIM_COST_DIV;
            NEXT;
        case SIM_OP_DIVUW:
            RD = (uint32_t)RS2 ? sext32((uint32_t)RS1 / (uint32_t)RS2) : UINT64_MAX;
            cycle += SIM_COST_DIV;
            NEXT;
        case SIM_OP_REMW:
            RD = remw_s(RS1, RS2);
            cycle += SIM_COST_DIV;
            NEXT;
        case SIM_OP_REMUW:
            RD = sext32((uint32_t)RS2 ? (uint32_t)RS1 % (uint32_t)RS2 : (uint32_t)RS1);
            cycle += SIM_COST_DIV;
            NEXT;

        /* Slow paths that may trap or stop the hart: atomics and FP
         * loads and stores. */
        case SIM_OP_LR:
        case SIM_OP_SC:
        case SIM_OP_AMO:
        case SIM_OP_FLW:
        case SIM_OP_FLD:
        case SIM_OP_FSW:
        case SIM_OP_FSD: {
            unsigned len = d->len;
            SYNC();
            int rc = d->op == SIM_OP_LR || d->op == SIM_OP_SC || d->op == SIM_OP_AMO
                         ? sim_hart_atomic(h, d, &tval)
                         : sim_hart_fp_mem(h, d, &tval);
            mcycles += h->cycle - cycle;
            cycle = h->cycle;
            if (rc) {
                cause = (uint64_t)rc;
                goto trap;
            }
            if (h->state != SIM_HART_RUNNING)
                limit = 0;
            pc += len;
            break;
        }

        case SIM_OP_SH1ADD: RD = (RS1 << 1) + RS2; NEXT;
        case SIM_OP_SH2ADD: RD = (RS1 << 2) + RS2; NEXT;
        case SIM_OP_SH3ADD: RD = (RS1 << 3) + RS2; NEXT;
        case SIM_OP_ADD_UW: RD = (uint64_t)(uint32_t)RS1 + RS2; NEXT;
        case SIM_OP_SH1ADD_UW: RD = ((uint64_t)(uint32_t)RS1 << 1) + RS2; NEXT;
        case SIM_OP_SH2ADD_UW: RD = ((uint64_t)(uint32_t)RS1 << 2) + RS2; NEXT;
        case SIM_OP_SH3ADD_UW: RD = ((uint64_t)(uint32_t)RS1 << 3) + RS2; NEXT;
        case SIM_OP_SLLI_UW: RD = (uint64_t)(uint32_t)RS1 << d->imm; NEXT;

        case SIM_OP_ANDN: RD = RS1 & ~RS2; NEXT;
        case SIM_OP_ORN: RD = RS1 | ~RS2; NEXT;
        case SIM_OP_XNOR: RD = ~(RS1 ^ RS2); NEXT;
        case SIM_OP_CLZ: RD = RS1 ? (uint64_t)__builtin_clzll(RS1) : 64; NEXT;
        case SIM_OP_CTZ: RD = RS1 ? (uint64_t)__builtin_ctzll(RS1) : 64; NEXT;
        case SIM_OP_CPOP: RD = (uint64_t)__builtin_popcountll(RS1); NEXT;
        case SIM_OP_CLZW: RD = (uint32_t)RS1 ? (uint64_t)__builtin_clz((uint32_t)RS1) : 32; NEXT;
        case SIM_OP_CTZW: RD = (uint32_t)RS1 ? (uint64_t)__builtin_ctz((uint32_t)RS1) : 32; NEXT;
        case SIM_OP_CPOPW: RD = (uint64_t)__builtin_popcount((uint32_t)RS1); NEXT;
        case SIM_OP_MAX: RD = (int64_t)RS1 > (int64_t)RS2 ? RS1 : RS2; NEXT;
        case SIM_OP_MAXU: RD = RS1 > RS2 ? RS1 : RS2; NEXT;
        case SIM_OP_MIN: RD = (int64_t)RS1 < (int64_t)RS2 ? RS1 : RS2; NEXT;
        case SIM_OP_MINU: RD = RS1 < RS2 ? RS1 : RS2; NEXT;
        case SIM_OP_SEXT_B: RD = (uint64_t)(int64_t)(int8_t)RS1; NEXT;
        case SIM_OP_SEXT_H: RD = (uint64_t)(int64_t)(int16_t)RS1; NEXT;
        case SIM_OP_ZEXT_H: RD = (uint16_t)RS1; NEXT;
        case SIM_OP_ROL: RD = rol64(RS1, (unsigned)RS2); NEXT;
        case SIM_OP_ROR: RD = ror64(RS1, (unsigned)RS2); NEXT;
        case SIM_OP_RORI: RD = ror64(RS1, (unsigned)d->imm); NEXT;
        case SIM_OP_ROLW: RD = sext32(rol32((uint32_t)RS1, (unsigned)RS2)); NEXT;
        case SIM_OP_RORW: RD = sext32(ror32((uint32_t)RS1, (unsigned)RS2)); NEXT;
        case SIM_OP_RORIW: RD = sext32(ror32((uint32_t)RS1, (unsigned)d->imm)); NEXT;
        case SIM_OP_ORC_B: RD = orc_b(RS1); NEXT;
        case SIM_OP_REV8: RD = __builtin_bswap64(RS1); NEXT;

        case SIM_OP_FENCE_I: {
            unsigned len = d->len; /* the entry is about to be cleared */
            sim_hart_flush_icache(h);
            pc += len;
            break;
        }
        case SIM_OP_ECALL:
            cause = SIM_CAUSE_ECALL_M;
            tval = 0;
            goto trap;
        case SIM_OP_EBREAK:
            cause = SIM_CAUSE_BREAKPOINT;
            tval = pc; /* as Spike does */
            goto trap;
        case SIM_OP_MRET:
            SYNC();
            sim_hart_mret(h);
            pc = h->pc;
            break;
        case SIM_OP_WFI:
            /* No interrupt is modeled: the owner wakes the hart. */
            h->state = SIM_HART_WFI;
            limit = 0;
            NEXT;
        case SIM_OP_CSR:
            SYNC();
            if (sim_hart_csr(h, d)) {
                cause = SIM_CAUSE_ILLEGAL;
                tval = d->bits;
                goto trap;
            }
            NEXT;

        case SIM_OP_FPU: {
            uint32_t extra = 0;
            if ((h->mstatus & SIM_MSTATUS_FS) == 0 || sim_fpu_exec(h, d->bits, &extra)) {
                cause = SIM_CAUSE_ILLEGAL;
                tval = d->bits;
                goto trap;
            }
            h->mstatus |= SIM_MSTATUS_FS; /* Dirty */
            x[0] = 0;
            cycle += extra;
            NEXT;
        }
        default: __builtin_unreachable();
        }
    retire:
        cycle += SIM_COST_INSN;
        instret++;
        continue;

    load_slow: {
        /* a miss of the RAM cache, a device, or a misaligned address */
        unsigned op = d->op, rd = d->rd, len = d->len;
        if (mem_addr & (mem_size - 1)) {
            cause = SIM_CAUSE_LOAD_MISALIGNED;
            tval = mem_addr;
            goto trap;
        }
        int ri = sim_mem_find_ram(m, mem_addr, mem_size);
        if (ri >= 0)
            REFILL(&m->ram[ri]);
        uint64_t raw = 0;
        SYNC();
        int rc = sim_hart_load_slow(h, ri, mem_addr, mem_size, &raw);
        mcycles += h->cycle - cycle;
        cycle = h->cycle;
        if (rc) {
            cause = (uint64_t)rc;
            tval = mem_addr;
            goto trap;
        }
        if (h->state != SIM_HART_RUNNING)
            limit = 0;
        x[rd] = load_extend(op, raw);
        x[0] = 0;
        pc += len;
        goto retire;
    }

    store_slow: {
        unsigned len = d->len;
        if (mem_addr & (mem_size - 1)) {
            cause = SIM_CAUSE_STORE_MISALIGNED;
            tval = mem_addr;
            goto trap;
        }
        int ri = sim_mem_find_ram(m, mem_addr, mem_size);
        if (ri >= 0)
            REFILL(&m->ram[ri]);
        SYNC();
        int rc = sim_hart_store_slow(h, ri, mem_addr, mem_size, mem_val);
        mcycles += h->cycle - cycle;
        cycle = h->cycle;
        if (rc) {
            cause = (uint64_t)rc;
            tval = mem_addr;
            goto trap;
        }
        sim_mem_note_store(m, h, mem_addr);
        if (h->state != SIM_HART_RUNNING)
            limit = 0;
        pc += len;
        goto retire;
    }

    trap:
        SYNC();
        sim_hart_trap(h, cause, tval);
        pc = h->pc;
        cycle += SIM_COST_TRAP;
        if (h->state != SIM_HART_RUNNING) /* a device halted it, then faulted */
            limit = 0;
    }
    SYNC();
    return h->state;
#undef SYNC
#undef RD
#undef RS1
#undef RS2
#undef IMM
#undef NEXT
#undef REFILL
#undef LOAD
#undef STORE
}
