/* jit_x86: the x86-64 instructions the block translator (hart_jit.c)
 * emits, encoded into a byte buffer: moves between registers and memory
 * at [base + index * scale + disp], the integer ALU, shifts, compares,
 * setcc/cmovcc, jumps with 32-bit displacements patched later, and the
 * few others a RISC-V integer instruction needs.  Nothing here knows the
 * hart; tests/unit/device/sim/hart/jit_x86_test.c checks each form's bytes against GNU
 * as.
 *
 * The caller makes room first (jx_room): the encoders write without
 * checking, so one guest instruction's code is checked once. */
#ifndef JIT_X86_H
#define JIT_X86_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Host registers by their encoding number. */
enum {
    JX_RAX, JX_RCX, JX_RDX, JX_RBX, JX_RSP, JX_RBP, JX_RSI, JX_RDI,
    JX_R8, JX_R9, JX_R10, JX_R11, JX_R12, JX_R13, JX_R14, JX_R15,
};
#define JX_NONE (-1) /* no index register */

/* Condition codes (the low nibble of jcc, setcc, cmovcc). */
enum {
    JX_CC_B = 0x2, JX_CC_AE = 0x3, JX_CC_E = 0x4, JX_CC_NE = 0x5,
    JX_CC_BE = 0x6, JX_CC_A = 0x7,
    JX_CC_L = 0xc, JX_CC_GE = 0xd, JX_CC_LE = 0xe, JX_CC_G = 0xf,
};

/* Group-1 ALU operations: the /digit of 81/83 and the base opcode
 * (+3 for "reg, r/m", +1 for "r/m, reg"). */
enum { JX_ADD = 0, JX_OR = 1, JX_AND = 4, JX_SUB = 5, JX_XOR = 6, JX_CMP = 7 };
/* Group-2 shifts and rotates: the /digit of C1/D3. */
enum { JX_ROL = 0, JX_ROR = 1, JX_SHL = 4, JX_SHR = 5, JX_SAR = 7 };

typedef struct jx {
    uint8_t *p;         /* the next byte */
    const uint8_t *end; /* one past the buffer */
} jx;

static inline bool jx_room(const jx *j, unsigned n)
{
    return (size_t)(j->end - j->p) >= n;
}

static inline void jx_b(jx *j, unsigned b)
{
    *j->p++ = (uint8_t)b;
}

static inline void jx_u32(jx *j, uint32_t v)
{
    memcpy(j->p, &v, 4);
    j->p += 4;
}

static inline void jx_u64(jx *j, uint64_t v)
{
    memcpy(j->p, &v, 8);
    j->p += 8;
}

static inline bool jx_fits8(int64_t v)
{
    return v >= -128 && v <= 127;
}

/* A REX prefix when one is needed: w (64-bit operand), and the high bits
 * of reg, index and base.  `force`: a byte register beyond bl. */
static inline void jx_rex(jx *j, bool w, int reg, int index, int base, bool force)
{
    unsigned rex = 0x40u | (w ? 8u : 0) | ((reg & 8) ? 4u : 0) | ((index >= 0 && (index & 8)) ? 2u : 0) |
                   ((base & 8) ? 1u : 0);
    if (rex != 0x40u || force)
        jx_b(j, rex);
}

/* ModRM (and SIB, displacement) for `reg` (a register or a /digit) and
 * the memory operand [base + index << scale + disp]. */
static inline void jx_modrm_mem(jx *j, int reg, int base, int index, unsigned scale, int32_t disp)
{
    unsigned mod = disp == 0 && (base & 7) != JX_RBP ? 0u : jx_fits8(disp) ? 1u : 2u;
    bool sib = index >= 0 || (base & 7) == JX_RSP;
    jx_b(j, mod << 6 | (unsigned)(reg & 7) << 3 | (sib ? 4u : (unsigned)(base & 7)));
    if (sib)
        jx_b(j, scale << 6 | (unsigned)(index >= 0 ? index & 7 : JX_RSP) << 3 | (unsigned)(base & 7));
    if (mod == 1)
        jx_b(j, (uint8_t)(int8_t)disp);
    else if (mod == 2)
        jx_u32(j, (uint32_t)disp);
}

/* An instruction of one or two opcode bytes (op2 < 0: one) with a
 * memory operand; `pfx` 0x66 for a 16-bit operand, else 0. */
static inline void jx_mem(jx *j, unsigned pfx, bool w, int op1, int op2, int reg, int base, int index,
                          unsigned scale, int32_t disp)
{
    if (pfx)
        jx_b(j, pfx);
    jx_rex(j, w, reg, index, base, false);
    jx_b(j, (unsigned)op1);
    if (op2 >= 0)
        jx_b(j, (unsigned)op2);
    jx_modrm_mem(j, reg, base, index, scale, disp);
}

/* The same with a register operand (ModRM mod 11): reg, rm. */
static inline void jx_reg(jx *j, bool w, int op1, int op2, int reg, int rm)
{
    jx_rex(j, w, reg, JX_NONE, rm, false);
    jx_b(j, (unsigned)op1);
    if (op2 >= 0)
        jx_b(j, (unsigned)op2);
    jx_b(j, 0xc0u | (unsigned)(reg & 7) << 3 | (unsigned)(rm & 7));
}

/* mov r64, [base + disp] / mov [base + disp], r64 */
static inline void jx_load(jx *j, int r, int base, int32_t disp)
{
    jx_mem(j, 0, true, 0x8b, -1, r, base, JX_NONE, 0, disp);
}
static inline void jx_store(jx *j, int r, int base, int32_t disp)
{
    jx_mem(j, 0, true, 0x89, -1, r, base, JX_NONE, 0, disp);
}
/* mov r64, r64 */
static inline void jx_mov(jx *j, int dst, int src)
{
    jx_reg(j, true, 0x89, -1, src, dst);
}
/* mov r64, imm: the shortest form that gives the 64-bit value */
static inline void jx_mov_imm(jx *j, int r, uint64_t v)
{
    if (v == 0) { /* xor r32, r32 */
        jx_reg(j, false, 0x31, -1, r, r);
    } else if (v <= UINT32_MAX) { /* mov r32, imm32 zero-extends */
        jx_rex(j, false, 0, JX_NONE, r, false);
        jx_b(j, 0xb8u + (unsigned)(r & 7));
        jx_u32(j, (uint32_t)v);
    } else if ((int64_t)v == (int32_t)v) { /* mov r/m64, imm32 sign-extends */
        jx_reg(j, true, 0xc7, -1, 0, r);
        jx_u32(j, (uint32_t)v);
    } else {
        jx_rex(j, true, 0, JX_NONE, r, false);
        jx_b(j, 0xb8u + (unsigned)(r & 7));
        jx_u64(j, v);
    }
}
/* mov qword [base + disp], imm32 (sign-extended) */
static inline void jx_store_imm(jx *j, int base, int32_t disp, int32_t v)
{
    jx_mem(j, 0, true, 0xc7, -1, 0, base, JX_NONE, 0, disp);
    jx_u32(j, (uint32_t)v);
}
/* ALU r64, [base + disp] (w: 64-bit, else 32-bit) */
static inline void jx_alu_mem(jx *j, bool w, unsigned op, int r, int base, int32_t disp)
{
    jx_mem(j, 0, w, (int)(op << 3 | 3), -1, r, base, JX_NONE, 0, disp);
}
/* ALU dst, src */
static inline void jx_alu(jx *j, bool w, unsigned op, int dst, int src)
{
    jx_reg(j, w, (int)(op << 3 | 1), -1, src, dst);
}
/* ALU r, imm32 (sign-extended; the imm8 form when it fits) */
static inline void jx_alu_imm(jx *j, bool w, unsigned op, int r, int32_t v)
{
    if (jx_fits8(v)) {
        jx_reg(j, w, 0x83, -1, (int)op, r);
        jx_b(j, (uint8_t)(int8_t)v);
    } else {
        jx_reg(j, w, 0x81, -1, (int)op, r);
        jx_u32(j, (uint32_t)v);
    }
}
/* shift or rotate r by imm8 / by cl */
static inline void jx_shift_imm(jx *j, bool w, unsigned op, int r, unsigned n)
{
    jx_reg(j, w, 0xc1, -1, (int)op, r);
    jx_b(j, n);
}
static inline void jx_shift_cl(jx *j, bool w, unsigned op, int r)
{
    jx_reg(j, w, 0xd3, -1, (int)op, r);
}
/* imul r, [base + disp] */
static inline void jx_imul_mem(jx *j, bool w, int r, int base, int32_t disp)
{
    jx_mem(j, 0, w, 0x0f, 0xaf, r, base, JX_NONE, 0, disp);
}
/* lea r, [base + index << scale + disp] */
static inline void jx_lea(jx *j, int r, int base, int index, unsigned scale, int32_t disp)
{
    jx_mem(j, 0, true, 0x8d, -1, r, base, index, scale, disp);
}
/* movsxd r64, r32 (the 32-bit results of the W operations) */
static inline void jx_sext32(jx *j, int dst, int src)
{
    jx_reg(j, true, 0x63, -1, dst, src);
}
/* setcc r8 then movzx r32, r8: r = the condition, 0 or 1 (r below rsp) */
static inline void jx_setcc(jx *j, unsigned cc, int r)
{
    jx_reg(j, false, 0x0f, (int)(0x90 | cc), 0, r);
    jx_reg(j, false, 0x0f, 0xb6, r, r);
}
/* cmovcc dst, src */
static inline void jx_cmov(jx *j, unsigned cc, int dst, int src)
{
    jx_reg(j, true, 0x0f, (int)(0x40 | cc), dst, src);
}
/* not r64; bswap r64 */
static inline void jx_not(jx *j, int r)
{
    jx_reg(j, true, 0xf7, -1, 2, r);
}
static inline void jx_bswap(jx *j, int r)
{
    jx_rex(j, true, 0, JX_NONE, r, false);
    jx_b(j, 0x0f);
    jx_b(j, 0xc8u + (unsigned)(r & 7));
}
/* test r8, imm8 (r below rsp) */
static inline void jx_test8(jx *j, int r, unsigned v)
{
    jx_reg(j, false, 0xf6, -1, 0, r);
    jx_b(j, v);
}
/* ALU qword [base + disp], imm8 (sign-extended) */
static inline void jx_alu_mem_imm8(jx *j, unsigned op, int base, int32_t disp, int8_t v)
{
    jx_mem(j, 0, true, 0x83, -1, (int)op, base, JX_NONE, 0, disp);
    jx_b(j, (uint8_t)v);
}
/* test byte [base + disp], imm8 */
static inline void jx_test8_mem(jx *j, int base, int32_t disp, unsigned v)
{
    jx_mem(j, 0, false, 0xf6, -1, 0, base, JX_NONE, 0, disp);
    jx_b(j, v);
}
/* cmp byte [base + disp], imm8 */
static inline void jx_cmp8_mem(jx *j, int base, int32_t disp, unsigned v)
{
    jx_mem(j, 0, false, 0x80, -1, 7, base, JX_NONE, 0, disp);
    jx_b(j, v);
}
/* push/pop r64 */
static inline void jx_push(jx *j, int r)
{
    jx_rex(j, false, 0, JX_NONE, r, false);
    jx_b(j, 0x50u + (unsigned)(r & 7));
}
static inline void jx_pop(jx *j, int r)
{
    jx_rex(j, false, 0, JX_NONE, r, false);
    jx_b(j, 0x58u + (unsigned)(r & 7));
}

/* Jumps.  jx_jcc and jx_jmp leave a 32-bit displacement to patch and
 * return where it is; jx_patch points it at `to`. */
static inline uint8_t *jx_jcc(jx *j, unsigned cc)
{
    jx_b(j, 0x0f);
    jx_b(j, 0x80u | cc);
    uint8_t *at = j->p;
    jx_u32(j, 0);
    return at;
}
static inline uint8_t *jx_jmp(jx *j)
{
    jx_b(j, 0xe9);
    uint8_t *at = j->p;
    jx_u32(j, 0);
    return at;
}
static inline void jx_patch(uint8_t *at, const uint8_t *to)
{
    int32_t rel = (int32_t)(to - (at + 4));
    memcpy(at, &rel, 4);
}
/* jmp qword [rip + disp] and cmp r64, [rip + disp]: both return their
 * displacement for jx_patch to point at the memory operand. */
static inline uint8_t *jx_jmp_rip(jx *j)
{
    jx_b(j, 0xff);
    jx_b(j, 0x25);
    uint8_t *at = j->p;
    jx_u32(j, 0);
    return at;
}
static inline uint8_t *jx_cmp_rip(jx *j, int r)
{
    jx_rex(j, true, r, JX_NONE, 0, false);
    jx_b(j, 0x3b);
    jx_b(j, (unsigned)(r & 7) << 3 | 5);
    uint8_t *at = j->p;
    jx_u32(j, 0);
    return at;
}
/* jmp r64; call [base + disp] */
static inline void jx_jmp_reg(jx *j, int r)
{
    jx_reg(j, false, 0xff, -1, 4, r);
}
static inline void jx_call_mem(jx *j, int base, int32_t disp)
{
    jx_mem(j, 0, false, 0xff, -1, 2, base, JX_NONE, 0, disp);
}

#endif
