/* hart_run_ops: what the hot loop's handlers compute (hart_run.h): the
 * integer helpers (sign extension, the M and Zbb operations' corner
 * cases), the X-macro lists of the operations whose handler is one
 * expression of its sources (ALU, branches, loads, stores) and
 * LIKELY/UNLIKELY.  Included by hart_run.h only, once per copy of the
 * loop; no state. */
#ifndef SIM_HART_RUN_OPS_H
#define SIM_HART_RUN_OPS_H

#include <stdint.h>

static inline uint64_t sext32(uint64_t v)
{
    return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
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

/* The operations whose handler is one expression of its sources (s1 the
 * value of rs1, s2 of rs2), written once here and expanded by sim_hart_run
 * into a plain form and the forms that take a source from a forwarded
 * value, f0 or f1 (sim_handlers): one source and an immediate, ... */
#define SIM_ALU1(X)                                                                            \
    X(ADDI, s1 + IMM) X(SLTI, (int64_t)s1 < (int64_t)IMM) X(SLTIU, s1 < IMM)                   \
    X(XORI, s1 ^ IMM) X(ORI, s1 | IMM) X(ANDI, s1 & IMM)                                       \
    X(SLLI, s1 << d->imm) X(SRLI, s1 >> d->imm) X(SRAI, (uint64_t)((int64_t)s1 >> d->imm))     \
    X(ADDIW, sext32(s1 + IMM)) X(SLLIW, sext32((uint32_t)s1 << d->imm))                        \
    X(SRLIW, sext32((uint32_t)s1 >> d->imm))                                                   \
    X(SRAIW, (uint64_t)(int64_t)((int32_t)s1 >> d->imm))                                       \
    X(SLLI_UW, (uint64_t)(uint32_t)s1 << d->imm)                                               \
    X(CLZ, s1 ? (uint64_t)__builtin_clzll(s1) : 64)                                            \
    X(CTZ, s1 ? (uint64_t)__builtin_ctzll(s1) : 64)                                            \
    X(CPOP, (uint64_t)__builtin_popcountll(s1))                                                \
    X(CLZW, (uint32_t)s1 ? (uint64_t)__builtin_clz((uint32_t)s1) : 32)                         \
    X(CTZW, (uint32_t)s1 ? (uint64_t)__builtin_ctz((uint32_t)s1) : 32)                         \
    X(CPOPW, (uint64_t)__builtin_popcount((uint32_t)s1))                                       \
    X(SEXT_B, (uint64_t)(int64_t)(int8_t)s1) X(SEXT_H, (uint64_t)(int64_t)(int16_t)s1)         \
    X(ZEXT_H, (uint16_t)s1) X(RORI, ror64(s1, (unsigned)d->imm))                               \
    X(RORIW, sext32(ror32((uint32_t)s1, (unsigned)d->imm))) X(ORC_B, orc_b(s1))                \
    X(REV8, __builtin_bswap64(s1))
/* ... two sources (M's extra cycles are in the entry's static cost,
 * hart_block.c), ... */
#define SIM_ALU2(X)                                                                            \
    X(ADD, s1 + s2) X(SUB, s1 - s2) X(SLL, s1 << (s2 & 63))                                    \
    X(SLT, (int64_t)s1 < (int64_t)s2) X(SLTU, s1 < s2) X(XOR, s1 ^ s2)                         \
    X(SRL, s1 >> (s2 & 63)) X(SRA, (uint64_t)((int64_t)s1 >> (s2 & 63))) X(OR, s1 | s2)        \
    X(AND, s1 & s2) X(ADDW, sext32(s1 + s2)) X(SUBW, sext32(s1 - s2))                          \
    X(SLLW, sext32((uint32_t)s1 << (s2 & 31))) X(SRLW, sext32((uint32_t)s1 >> (s2 & 31)))      \
    X(SRAW, (uint64_t)(int64_t)((int32_t)s1 >> (s2 & 31)))                                     \
    X(MUL, s1 * s2)                                                                            \
    X(MULH, (uint64_t)(((__int128)(int64_t)s1 * (__int128)(int64_t)s2) >> 64))                 \
    X(MULHSU, (uint64_t)(((__int128)(int64_t)s1 * (__int128)s2) >> 64))                        \
    X(MULHU, (uint64_t)(((unsigned __int128)s1 * s2) >> 64))                                   \
    X(MULW, sext32((uint32_t)s1 * (uint32_t)s2))                                               \
    X(DIV, div_s(s1, s2)) X(DIVU, s2 ? s1 / s2 : UINT64_MAX) X(REM, rem_s(s1, s2))             \
    X(REMU, s2 ? s1 % s2 : s1) X(DIVW, divw_s(s1, s2))                                         \
    X(DIVUW, (uint32_t)s2 ? sext32((uint32_t)s1 / (uint32_t)s2) : UINT64_MAX)                  \
    X(REMW, remw_s(s1, s2))                                                                    \
    X(REMUW, sext32((uint32_t)s2 ? (uint32_t)s1 % (uint32_t)s2 : (uint32_t)s1))                \
    X(SH1ADD, (s1 << 1) + s2) X(SH2ADD, (s1 << 2) + s2) X(SH3ADD, (s1 << 3) + s2)              \
    X(ADD_UW, (uint64_t)(uint32_t)s1 + s2) X(SH1ADD_UW, ((uint64_t)(uint32_t)s1 << 1) + s2)    \
    X(SH2ADD_UW, ((uint64_t)(uint32_t)s1 << 2) + s2)                                           \
    X(SH3ADD_UW, ((uint64_t)(uint32_t)s1 << 3) + s2)                                           \
    X(ANDN, s1 & ~s2) X(ORN, s1 | ~s2) X(XNOR, ~(s1 ^ s2))                                     \
    X(MAX, (int64_t)s1 > (int64_t)s2 ? s1 : s2) X(MAXU, s1 > s2 ? s1 : s2)                     \
    X(MIN, (int64_t)s1 < (int64_t)s2 ? s1 : s2) X(MINU, s1 < s2 ? s1 : s2)                     \
    X(ROL, rol64(s1, (unsigned)s2)) X(ROR, ror64(s1, (unsigned)s2))                            \
    X(ROLW, sext32(rol32((uint32_t)s1, (unsigned)s2)))                                         \
    X(RORW, sext32(ror32((uint32_t)s1, (unsigned)s2)))
/* ... the branches' conditions, ... */
#define SIM_BRANCHES(X)                                                                        \
    X(BEQ, s1 == s2) X(BNE, s1 != s2) X(BLT, (int64_t)s1 < (int64_t)s2)                        \
    X(BGE, (int64_t)s1 >= (int64_t)s2) X(BLTU, s1 < s2) X(BGEU, s1 >= s2)
/* ... the loads (size, type read, the value it leaves, the raw `t`
 * extended) and the stores (size, type written). */
#define SIM_LOADS(X)                                                                           \
    X(LB, 1, int8_t, (uint64_t)(int64_t)t) X(LH, 2, int16_t, (uint64_t)(int64_t)t)             \
    X(LW, 4, int32_t, (uint64_t)(int64_t)t) X(LD, 8, uint64_t, t) X(LBU, 1, uint8_t, t)        \
    X(LHU, 2, uint16_t, t) X(LWU, 4, uint32_t, t)
#define SIM_STORES(X) X(SB, 1, uint8_t) X(SH, 2, uint16_t) X(SW, 4, uint32_t) X(SD, 8, uint64_t)

static inline uint64_t load_extend(unsigned op, uint64_t raw)
{
    switch (op) {
    case SIM_OP_LB: return (uint64_t)(int64_t)(int8_t)raw;
    case SIM_OP_LH: return (uint64_t)(int64_t)(int16_t)raw;
    case SIM_OP_LW: return sext32(raw);
    default: return raw; /* LD and the unsigned loads */
    }
}

#define LIKELY(c) __builtin_expect(!!(c), 1)
#define UNLIKELY(c) __builtin_expect(!!(c), 0)

#endif
