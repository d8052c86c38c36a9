/* gdb_agent: GDB's agent expressions (the GDB manual, "Agent
 * Expressions"), as conditional breakpoints send them (Z0 and Z1 with a
 * cond_list) — a stack machine of 64-bit integers over the bytecode, with
 * the target's registers (`reg`: GDB's register numbers, as the target
 * description gives them) and memory (`ref8`..`ref64`: the stopped
 * thread's view, little-endian).
 *
 * What a condition needs is here: the constants, reg, the refs, the
 * integer arithmetic, shifts, logic and compares, ext and zero_ext, the
 * jumps, and the stack's own (dup, pop, swap, pick, rot), ending at
 * `end`.  What is not for conditions (trace*, getv/setv, printf, the
 * floating-point ones) or unknown fails, as do division by zero, memory
 * or a register the thread has not, a stack over- or underflow, a jump
 * out of the expression, running off its end, and KM_GDB_AGENT_STEPS
 * bytecodes run (a loop): the caller stops the thread, as GDB stops
 * when it cannot evaluate a condition itself (km_gdb.h). */
#include <string.h>

#include "gdb_internal.h"

enum {
    AX_ADD = 0x02, AX_SUB = 0x03, AX_MUL = 0x04, AX_DIV_SIGNED = 0x05, AX_DIV_UNSIGNED = 0x06,
    AX_REM_SIGNED = 0x07, AX_REM_UNSIGNED = 0x08, AX_LSH = 0x09, AX_RSH_SIGNED = 0x0a,
    AX_RSH_UNSIGNED = 0x0b, AX_LOG_NOT = 0x0e, AX_BIT_AND = 0x0f, AX_BIT_OR = 0x10,
    AX_BIT_XOR = 0x11, AX_BIT_NOT = 0x12, AX_EQUAL = 0x13, AX_LESS_SIGNED = 0x14,
    AX_LESS_UNSIGNED = 0x15, AX_EXT = 0x16, AX_REF8 = 0x17, AX_REF16 = 0x18, AX_REF32 = 0x19,
    AX_REF64 = 0x1a, AX_IF_GOTO = 0x20, AX_GOTO = 0x21, AX_CONST8 = 0x22, AX_CONST16 = 0x23,
    AX_CONST32 = 0x24, AX_CONST64 = 0x25, AX_REG = 0x26, AX_END = 0x27, AX_DUP = 0x28,
    AX_POP = 0x29, AX_ZERO_EXT = 0x2a, AX_SWAP = 0x2b, AX_PICK = 0x32, AX_ROT = 0x33,
};

#define STACK 64

/* The operand of `bytes` bytes at code[at], most significant first. */
static bool operand(const uint8_t *code, size_t n, size_t at, unsigned bytes, uint64_t *v)
{
    if (at + bytes > n)
        return false;
    *v = 0;
    for (unsigned i = 0; i < bytes; i++)
        *v = *v << 8 | code[at + i];
    return true;
}

/* v's low `bits` bits, sign-extended (ext) or not (zero_ext). */
static uint64_t extend(uint64_t v, uint64_t bits, bool sign)
{
    if (bits == 0 || bits >= 64)
        return bits == 0 ? 0 : v;
    uint64_t mask = (1ull << bits) - 1;
    v &= mask;
    if (sign && (v >> (bits - 1) & 1))
        v |= ~mask;
    return v;
}

static int binary(uint8_t op, uint64_t a, uint64_t b, uint64_t *r)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (op) {
    case AX_ADD: *r = a + b; return 0;
    case AX_SUB: *r = a - b; return 0;
    case AX_MUL: *r = a * b; return 0;
    case AX_DIV_SIGNED:
    case AX_REM_SIGNED:
        if (b == 0)
            return -1;
        if (sa == INT64_MIN && sb == -1) /* overflows in C: wraps, as RISC-V's div does */
            *r = op == AX_DIV_SIGNED ? a : 0;
        else
            *r = op == AX_DIV_SIGNED ? (uint64_t)(sa / sb) : (uint64_t)(sa % sb);
        return 0;
    case AX_DIV_UNSIGNED:
    case AX_REM_UNSIGNED:
        if (b == 0)
            return -1;
        *r = op == AX_DIV_UNSIGNED ? a / b : a % b;
        return 0;
    case AX_LSH: *r = b >= 64 ? 0 : a << b; return 0;
    case AX_RSH_SIGNED: *r = (uint64_t)(sa >> (b >= 64 ? 63 : b)); return 0;
    case AX_RSH_UNSIGNED: *r = b >= 64 ? 0 : a >> b; return 0;
    case AX_BIT_AND: *r = a & b; return 0;
    case AX_BIT_OR: *r = a | b; return 0;
    case AX_BIT_XOR: *r = a ^ b; return 0;
    case AX_EQUAL: *r = a == b; return 0;
    case AX_LESS_SIGNED: *r = sa < sb; return 0;
    case AX_LESS_UNSIGNED: *r = a < b; return 0;
    default: return -1;
    }
}

int km_gdb_agent_eval(const uint8_t *code, size_t n, const km_gdb_target_ops *ops, void *ctx,
                      int thread, uint64_t *value)
{
    uint64_t st[STACK];
    unsigned sp = 0; /* items on the stack */
    size_t pc = 0;
    for (unsigned steps = 0; steps < KM_GDB_AGENT_STEPS; steps++) {
        if (pc >= n)
            return -1; /* ran off the end without `end` */
        uint8_t op = code[pc++];
        uint64_t a, b, r;
        switch (op) {
        case AX_CONST8:
        case AX_CONST16:
        case AX_CONST32:
        case AX_CONST64: {
            unsigned bytes = 1u << (op - AX_CONST8);
            if (sp == STACK || !operand(code, n, pc, bytes, &a))
                return -1;
            pc += bytes;
            st[sp++] = a;
            break;
        }
        case AX_REG:
            if (sp == STACK || !operand(code, n, pc, 2, &a) || !ops->read_reg ||
                ops->read_reg(ctx, thread, (int)a, &r) != 0)
                return -1;
            pc += 2;
            st[sp++] = r;
            break;
        case AX_REF8:
        case AX_REF16:
        case AX_REF32:
        case AX_REF64: {
            unsigned bytes = 1u << (op - AX_REF8);
            uint8_t buf[8];
            if (sp == 0 || !ops->read_mem || ops->read_mem(ctx, thread, st[sp - 1], buf, bytes) != 0)
                return -1;
            r = 0;
            for (unsigned i = bytes; i-- > 0;) /* little-endian: the X280's */
                r = r << 8 | buf[i];
            st[sp - 1] = r;
            break;
        }
        case AX_EXT:
        case AX_ZERO_EXT:
            if (sp == 0 || !operand(code, n, pc, 1, &a))
                return -1;
            pc += 1;
            st[sp - 1] = extend(st[sp - 1], a, op == AX_EXT);
            break;
        case AX_LOG_NOT:
        case AX_BIT_NOT:
            if (sp == 0)
                return -1;
            st[sp - 1] = op == AX_LOG_NOT ? st[sp - 1] == 0 : ~st[sp - 1];
            break;
        case AX_IF_GOTO:
        case AX_GOTO:
            if (!operand(code, n, pc, 2, &a) || a >= n || (op == AX_IF_GOTO && sp == 0))
                return -1;
            pc += 2;
            if (op == AX_GOTO || st[--sp] != 0)
                pc = (size_t)a;
            break;
        case AX_END:
            if (sp == 0)
                return -1;
            *value = st[sp - 1];
            return 0;
        case AX_DUP:
            if (sp == 0 || sp == STACK)
                return -1;
            st[sp] = st[sp - 1];
            sp++;
            break;
        case AX_POP:
            if (sp == 0)
                return -1;
            sp--;
            break;
        case AX_SWAP:
            if (sp < 2)
                return -1;
            a = st[sp - 1];
            st[sp - 1] = st[sp - 2];
            st[sp - 2] = a;
            break;
        case AX_PICK: /* a ... b => a ... b a, with n items between */
            if (!operand(code, n, pc, 1, &a) || a >= sp || sp == STACK)
                return -1;
            pc += 1;
            st[sp] = st[sp - 1 - a];
            sp++;
            break;
        case AX_ROT: /* a b c => c a b */
            if (sp < 3)
                return -1;
            a = st[sp - 1];
            st[sp - 1] = st[sp - 2];
            st[sp - 2] = st[sp - 3];
            st[sp - 3] = a;
            break;
        default:
            if (sp < 2)
                return -1;
            b = st[sp - 1];
            a = st[sp - 2];
            if (binary(op, a, b, &r) != 0)
                return -1; /* unknown, not for conditions, or division by zero */
            st[sp - 2] = r;
            sp--;
            break;
        }
    }
    return -1;
}
