/* hart_jit_emit: what each entry of a decoded block becomes in translated
 * code (hart_jit_emit.h), op by op, as its handler in sim_hart.c does it:
 * the integer operations, branches and jumps, loads and stores through
 * the RAM cache and the cached window, FP loads and stores and the FPU,
 * and the stubs off the straight path. */
#include <stddef.h>

#include "hart_internal.h"
#include "sim_fpu.h"

#if defined(__x86_64__) && defined(__linux__) && !defined(KMRUN_NO_JIT)
#include "hart_jit_emit.h"

/* rax = x[r] */
static void get(jx *j, int host, unsigned r)
{
    if (r == 0)
        jx_mov_imm(j, host, 0);
    else
        jx_load(j, host, JX_RBX, XR(r));
}

/* x[rd] = host (rd is never x0 for what the decoder leaves) */
static void put(jx *j, int host, unsigned rd)
{
    if (rd != 0)
        jx_store(j, host, JX_RBX, XR(rd));
}

/* A RAM access's latency (r11), into cycle and the memory cycles. */
static void latency(tr *t)
{
    jx_alu(&t->j, true, JX_ADD, JX_R12, JX_R11);
    jx_alu(&t->j, true, JX_ADD, JX_R14, JX_R11);
}

/* After a latency: past the block's stop, the rest of the block one
 * instruction at a time (the hot loop's overrun, then step mode).  A
 * stepped translation checks each entry's start instead. */
static void stop_check(tr *t, const sim_insn *d)
{
    if (t->stepped)
        return;
    jx_alu(&t->j, true, JX_CMP, JX_R12, JX_RSI);
    exit_if(t, JX_CC_AE, SIM_JIT_OVERRUN, d);
}

/* rdx = the offset of x[rs1] + imm in the RAM cache's range, rax the
 * address; a misaligned address exits to d's handler, and so does a miss,
 * or (`cached`) it goes to a stub that tries the cached window: the
 * stub's index, whose `back` the caller sets. */
static unsigned address(tr *t, const sim_insn *d, unsigned size, bool cached)
{
    jx *j = &t->j;
    get(j, JX_RAX, d->rs1);
    if (d->imm)
        jx_lea(j, JX_RAX, JX_RAX, JX_NONE, 0, d->imm);
    jx_mov(j, JX_RDX, JX_RAX);
    jx_alu(j, true, JX_SUB, JX_RDX, JX_R8);
    jx_alu(j, true, JX_CMP, JX_RDX, JX_R9);
    unsigned miss = t->nstubs;
    if (cached)
        add_stub(t, jx_jcc(j, JX_CC_AE), STUB_CACHED, 0, d, NULL);
    else
        exit_if(t, JX_CC_AE, SIM_JIT_ENTER, d);
    if (size > 1) {
        jx_test8(j, JX_RAX, size - 1);
        exit_if(t, JX_CC_NE, SIM_JIT_ENTER, d);
    }
    return miss;
}

static unsigned mem_size(unsigned op)
{
    switch (op) {
    case SIM_OP_LB: case SIM_OP_LBU: case SIM_OP_SB: return 1;
    case SIM_OP_LH: case SIM_OP_LHU: case SIM_OP_SH: return 2;
    case SIM_OP_LD: case SIM_OP_SD: return 8;
    default: return 4;
    }
}

/* rax = the value load `op` reads at [base + index] */
static void load_from(jx *j, unsigned op, int base, int index)
{
    switch (op) {
    case SIM_OP_LB: jx_mem(j, 0, true, 0x0f, 0xbe, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LBU: jx_mem(j, 0, false, 0x0f, 0xb6, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LH: jx_mem(j, 0, true, 0x0f, 0xbf, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LHU: jx_mem(j, 0, false, 0x0f, 0xb7, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LW: jx_mem(j, 0, true, 0x63, -1, JX_RAX, base, index, 0, 0); break;
    case SIM_OP_LWU: jx_mem(j, 0, false, 0x8b, -1, JX_RAX, base, index, 0, 0); break;
    default: jx_mem(j, 0, true, 0x8b, -1, JX_RAX, base, index, 0, 0); break;
    }
}

/* [base + index] = rcx's low `size` bytes */
static void store_to(jx *j, unsigned size, int base, int index)
{
    switch (size) {
    case 1: jx_mem(j, 0, false, 0x88, -1, JX_RCX, base, index, 0, 0); break;
    case 2: jx_mem(j, 0x66, false, 0x89, -1, JX_RCX, base, index, 0, 0); break;
    case 4: jx_mem(j, 0, false, 0x89, -1, JX_RCX, base, index, 0, 0); break;
    default: jx_mem(j, 0, true, 0x89, -1, JX_RCX, base, index, 0, 0); break;
    }
}

static bool emit_load(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    if (d->rd == 0) /* the slow path's (sim_handlers.load_x0) */
        return false;
    unsigned miss = address(t, d, mem_size(d->op), true);
    load_from(j, d->op, JX_R10, JX_RDX);
    put(j, JX_RAX, d->rd);
    latency(t);
    t->stubs[miss].back = j->p;
    stop_check(t, d);
    return true;
}

/* Calls fn (System V: rdi, rsi, rdx as the caller set them) from d's
 * code: r8-r11 kept across it (the stack stays 16-aligned: four pushes),
 * rsi (the stop) made again after it; rax its result. */
static void call_c(tr *t, const sim_insn *d, const void *fn)
{
    jx *j = &t->j;
    static const int keep[] = {JX_R8, JX_R9, JX_R10, JX_R11};
    for (unsigned k = 0; k < 4; k++)
        jx_push(j, keep[k]);
    jx_mov_imm(j, JX_RAX, (uint64_t)(uintptr_t)fn);
    jx_reg(j, false, 0xff, -1, 2, JX_RAX); /* call rax */
    for (unsigned k = 4; k-- > 0;)
        jx_pop(j, keep[k]);
    jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, d->last_cost);
}

/* sim_mem_note_store(m, h, rdx) */
static void note_store(tr *t, const sim_insn *d)
{
    jx_load(&t->j, JX_RDI, JX_R15, REG(m));
    jx_mov(&t->j, JX_RSI, JX_RBX); /* h: x is its first field */
    call_c(t, d, (const void *)sim_mem_note_store);
}

/* After a store through the RAM cache (rdx its offset there): when other
 * harts share the memory, a stub tells them (note_store) and comes back. */
static void noted(tr *t, const sim_insn *d)
{
    jx_cmp8_mem(&t->j, JX_R15, REG(others), 0);
    uint8_t *at = jx_jcc(&t->j, JX_CC_NE);
    add_stub(t, at, STUB_NOTE, 0, d, t->j.p);
}

static bool emit_store(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    unsigned size = mem_size(d->op);
    unsigned miss = address(t, d, size, true);
    get(j, JX_RCX, d->rs2);
    store_to(j, size, JX_R10, JX_RDX);
    latency(t);
    noted(t, d);
    t->stubs[miss].back = j->p;
    stop_check(t, d);
    return true;
}

/* A load or store the RAM cache missed (rax its address), served from
 * the cluster's cached window as the handlers' slow path does: a hit
 * counts, a store marks its line dirty, the access costs the window's
 * latency; anything else exits to d's handler. */
static void emit_cached(tr *t, const stub *s)
{
    jx *j = &t->j;
    const sim_insn *d = s->d;
    bool store = d->op >= SIM_OP_SB && d->op <= SIM_OP_SD;
    unsigned size = mem_size(d->op);
#define C(field) ((int32_t)offsetof(sim_mem_cached, field))
    if (size > 1) {
        jx_test8(j, JX_RAX, size - 1);
        exit_if(t, JX_CC_NE, SIM_JIT_ENTER, d);
    }
    jx_load(j, JX_RDI, JX_R15, REG(cached));
    jx_mov(j, JX_RDX, JX_RAX);
    jx_alu_mem(j, true, JX_SUB, JX_RDX, JX_RDI, C(base));
    jx_alu_mem(j, true, JX_CMP, JX_RDX, JX_RDI, C(size));
    exit_if(t, JX_CC_AE, SIM_JIT_ENTER, d);
    jx_mov(j, JX_RCX, JX_RDX); /* rcx = the line's index */
    jx_shift_imm(j, true, JX_SHR, JX_RCX, 6);
    jx_alu_mem(j, false, JX_AND, JX_RCX, JX_RDI, C(mask));
    jx_load(j, JX_RAX, JX_RDI, C(tag)); /* rax = &tag[i] */
    jx_lea(j, JX_RAX, JX_RAX, JX_RCX, 3, 0);
    jx_test8_mem(j, JX_RAX, 0, SIM_MEM_LINE_VALID);
    exit_if(t, JX_CC_E, SIM_JIT_ENTER, d);
    jx_load(j, JX_RSI, JX_RAX, 0); /* the line's address is the offset's */
    jx_alu(j, true, JX_XOR, JX_RSI, JX_RDX);
    jx_alu_imm(j, true, JX_AND, JX_RSI, -64);
    exit_if(t, JX_CC_NE, SIM_JIT_ENTER, d);
    jx_load(j, JX_RSI, JX_RDI, C(hits));
    jx_alu_mem_imm8(j, JX_ADD, JX_RSI, 0, 1);
    if (store)
        jx_alu_mem_imm8(j, JX_OR, JX_RAX, 0, SIM_MEM_LINE_DIRTY);
    jx_shift_imm(j, true, JX_SHL, JX_RCX, 6); /* rdx = the bytes' host address */
    jx_alu_mem(j, true, JX_ADD, JX_RCX, JX_RDI, C(data));
    jx_alu_imm(j, false, JX_AND, JX_RDX, 63);
    jx_alu(j, true, JX_ADD, JX_RDX, JX_RCX);
    if (store) {
        get(j, JX_RCX, d->rs2);
        store_to(j, size, JX_RDX, JX_NONE);
    } else {
        load_from(j, d->op, JX_RDX, JX_NONE);
        put(j, JX_RAX, d->rd);
    }
    jx_mem(j, 0, false, 0x8b, -1, JX_RAX, JX_RDI, JX_NONE, 0, C(latency));
    jx_alu(j, true, JX_ADD, JX_R12, JX_RAX);
    jx_alu(j, true, JX_ADD, JX_R14, JX_RAX);
    if (store) { /* the address again (the store changed no register) */
        jx_cmp8_mem(j, JX_R15, REG(others), 0);
        uint8_t *alone = jx_jcc(j, JX_CC_E);
        get(j, JX_RDX, d->rs1);
        if (d->imm)
            jx_lea(j, JX_RDX, JX_RDX, JX_NONE, 0, d->imm);
        note_store(t, d);
        jx_patch(alone, j->p);
    }
    jx_lea(j, JX_RSI, JX_RBP, JX_NONE, 0, d->last_cost);
    jx_patch(jx_jmp(j), s->back);
#undef C
}

/* A hart's own fields off rbx, which points at x[], its first field. */
_Static_assert(offsetof(sim_hart, x) == 0, "rbx holds h->x and h alike");
#define HART(field) ((int32_t)offsetof(sim_hart, field))
#define FR(r) (HART(f) + (int32_t)(8 * (r)))

/* test dword [h->mstatus], FS: jz (the FPU off) exits to d's handler */
static void fpu_on(tr *t, const sim_insn *d)
{
    jx_mem(&t->j, 0, false, 0xf7, -1, 0, JX_RBX, JX_NONE, 0, HART(mstatus));
    jx_u32(&t->j, (uint32_t)SIM_MSTATUS_FS);
    exit_if(t, JX_CC_E, SIM_JIT_ENTER, d);
}

/* FLW/FLD/FSW/FSD: as the hot loop's FP_LOAD and FP_STORE. */
static bool emit_fp_mem(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    bool load = d->op == SIM_OP_FLW || d->op == SIM_OP_FLD;
    bool dbl = d->op == SIM_OP_FLD || d->op == SIM_OP_FSD;
    address(t, d, dbl ? 8 : 4, false);
    fpu_on(t, d);
    if (load) {
        load_from(j, dbl ? SIM_OP_LD : SIM_OP_LWU, JX_R10, JX_RDX);
        if (!dbl) { /* NaN-boxed */
            jx_mov_imm(j, JX_RCX, sim_fpu_box(0));
            jx_alu(j, true, JX_OR, JX_RAX, JX_RCX);
        }
        jx_store(j, JX_RAX, JX_RBX, FR(d->rd));
        /* or dword [h->mstatus], FS: Dirty (the value the handler leaves) */
        jx_mem(j, 0, false, 0x81, -1, JX_OR, JX_RBX, JX_NONE, 0, HART(mstatus));
        jx_u32(j, (uint32_t)SIM_MSTATUS_FS);
        latency(t);
    } else {
        jx_load(j, JX_RCX, JX_RBX, FR(d->rs2));
        store_to(j, dbl ? 8 : 4, JX_R10, JX_RDX);
        latency(t);
        noted(t, d);
    }
    stop_check(t, d);
    return true;
}

/* The FPU operations, through a call: 0 done, else nothing was done and
 * d's handler takes the trap. */
static int fpu_op(sim_hart *h, const sim_insn *d)
{
    if ((h->mstatus & SIM_MSTATUS_FS) == 0 || sim_fpu_run(h, &d->fpu))
        return 1;
    if ((h->mstatus & SIM_MSTATUS_FS) != SIM_MSTATUS_FS)
        h->mstatus |= SIM_MSTATUS_FS;
    h->x[0] = 0;
    return 0;
}

/* The call to fpu_op and, when it refuses, the exit to d's handler. */
static void fpu_call(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    jx_mov(j, JX_RDI, JX_RBX); /* h */
    jx_mov_imm(j, JX_RSI, (uint64_t)(uintptr_t)d);
    call_c(t, d, (const void *)fpu_op);
    jx_alu(j, false, JX_OR, JX_RAX, JX_RAX); /* test eax */
    exit_if(t, JX_CC_NE, SIM_JIT_ENTER, d);
}

/* The FPU's own translation of the common case (sim_fpu_jit_emit, with
 * the call in a stub for the rest), else the call alone. */
static bool emit_fpu(tr *t, const sim_insn *d)
{
    if (!sim_fpu_jit_emit(t, d))
        fpu_call(t, d);
    return true;
}

/* The branches' x86 conditions: rs1 compared with rs2. */
static int branch_cc(unsigned op)
{
    switch (op) {
    case SIM_OP_BEQ: return JX_CC_E;
    case SIM_OP_BNE: return JX_CC_NE;
    case SIM_OP_BLT: return JX_CC_L;
    case SIM_OP_BGE: return JX_CC_GE;
    case SIM_OP_BLTU: return JX_CC_B;
    case SIM_OP_BGEU: return JX_CC_AE;
    default: return -1;
    }
}

/* Two-source operations that are one x86 ALU instruction with a memory
 * source (64-bit, or 32-bit and sign-extended for the W forms). */
static bool alu2_simple(unsigned op, unsigned *x86, bool *w32)
{
    *w32 = false;
    switch (op) {
    case SIM_OP_ADD: *x86 = JX_ADD; return true;
    case SIM_OP_SUB: *x86 = JX_SUB; return true;
    case SIM_OP_XOR: *x86 = JX_XOR; return true;
    case SIM_OP_OR: *x86 = JX_OR; return true;
    case SIM_OP_AND: *x86 = JX_AND; return true;
    case SIM_OP_ADDW: *x86 = JX_ADD; *w32 = true; return true;
    case SIM_OP_SUBW: *x86 = JX_SUB; *w32 = true; return true;
    default: return false;
    }
}

static bool alu1_simple(unsigned op, unsigned *x86)
{
    switch (op) {
    case SIM_OP_ADDI: *x86 = JX_ADD; return true;
    case SIM_OP_XORI: *x86 = JX_XOR; return true;
    case SIM_OP_ORI: *x86 = JX_OR; return true;
    case SIM_OP_ANDI: *x86 = JX_AND; return true;
    default: return false;
    }
}

static bool shift_of(unsigned op, unsigned *x86, bool *w32)
{
    *w32 = false;
    switch (op) {
    case SIM_OP_SLL: case SIM_OP_SLLI: *x86 = JX_SHL; return true;
    case SIM_OP_SRL: case SIM_OP_SRLI: *x86 = JX_SHR; return true;
    case SIM_OP_SRA: case SIM_OP_SRAI: *x86 = JX_SAR; return true;
    case SIM_OP_ROL: *x86 = JX_ROL; return true;
    case SIM_OP_ROR: case SIM_OP_RORI: *x86 = JX_ROR; return true;
    case SIM_OP_SLLW: case SIM_OP_SLLIW: *x86 = JX_SHL; *w32 = true; return true;
    case SIM_OP_SRLW: case SIM_OP_SRLIW: *x86 = JX_SHR; *w32 = true; return true;
    case SIM_OP_SRAW: case SIM_OP_SRAIW: *x86 = JX_SAR; *w32 = true; return true;
    case SIM_OP_ROLW: *x86 = JX_ROL; *w32 = true; return true;
    case SIM_OP_RORW: case SIM_OP_RORIW: *x86 = JX_ROR; *w32 = true; return true;
    default: return false;
    }
}

static bool shift_by_imm(unsigned op)
{
    switch (op) {
    case SIM_OP_SLLI: case SIM_OP_SRLI: case SIM_OP_SRAI: case SIM_OP_RORI:
    case SIM_OP_SLLIW: case SIM_OP_SRLIW: case SIM_OP_SRAIW: case SIM_OP_RORIW:
        return true;
    default:
        return false;
    }
}

/* The integer operations: rax = the result, then x[rd]. */
static bool emit_alu(tr *t, const sim_insn *d)
{
    jx *j = &t->j;
    unsigned op = d->op, x86;
    bool w32;
    const int32_t imm = d->imm;
    if (alu2_simple(op, &x86, &w32)) {
        get(j, JX_RAX, d->rs1);
        jx_alu_mem(j, !w32, x86, JX_RAX, JX_RBX, XR(d->rs2));
        if (w32)
            jx_sext32(j, JX_RAX, JX_RAX);
    } else if (alu1_simple(op, &x86)) {
        if (d->rs1 == 0 && x86 != JX_AND) { /* li: 0 op imm is imm */
            jx_mov_imm(j, JX_RAX, (uint64_t)(int64_t)imm);
        } else {
            get(j, JX_RAX, d->rs1);
            jx_alu_imm(j, true, x86, JX_RAX, imm);
        }
    } else if (shift_of(op, &x86, &w32)) {
        get(j, JX_RAX, d->rs1);
        if (shift_by_imm(op)) {
            jx_shift_imm(j, !w32, x86, JX_RAX, (unsigned)imm & 63);
        } else {
            get(j, JX_RCX, d->rs2); /* x86 masks the count as RISC-V does */
            jx_shift_cl(j, !w32, x86, JX_RAX);
        }
        if (w32)
            jx_sext32(j, JX_RAX, JX_RAX);
    } else {
        switch (op) {
        case SIM_OP_LUI:
            jx_store_imm(j, JX_RBX, XR(d->rd), imm);
            return true;
        case SIM_OP_AUIPC:
            jx_mov_imm(j, JX_RAX, d->pc + (uint64_t)(int64_t)imm);
            break;
        case SIM_OP_ADDIW:
            get(j, JX_RAX, d->rs1);
            jx_alu_imm(j, false, JX_ADD, JX_RAX, imm);
            jx_sext32(j, JX_RAX, JX_RAX);
            break;
        case SIM_OP_SLT: case SIM_OP_SLTU:
            get(j, JX_RAX, d->rs1);
            jx_alu_mem(j, true, JX_CMP, JX_RAX, JX_RBX, XR(d->rs2));
            jx_setcc(j, op == SIM_OP_SLT ? JX_CC_L : JX_CC_B, JX_RAX);
            break;
        case SIM_OP_SLTI: case SIM_OP_SLTIU:
            get(j, JX_RAX, d->rs1);
            jx_alu_imm(j, true, JX_CMP, JX_RAX, imm); /* imm sign-extended either way */
            jx_setcc(j, op == SIM_OP_SLTI ? JX_CC_L : JX_CC_B, JX_RAX);
            break;
        case SIM_OP_MUL: case SIM_OP_MULW:
            get(j, JX_RAX, d->rs1);
            jx_imul_mem(j, op == SIM_OP_MUL, JX_RAX, JX_RBX, XR(d->rs2));
            if (op == SIM_OP_MULW)
                jx_sext32(j, JX_RAX, JX_RAX);
            break;
        case SIM_OP_SH1ADD: case SIM_OP_SH2ADD: case SIM_OP_SH3ADD:
        case SIM_OP_ADD_UW: case SIM_OP_SH1ADD_UW: case SIM_OP_SH2ADD_UW: case SIM_OP_SH3ADD_UW: {
            bool uw = op == SIM_OP_ADD_UW || op >= SIM_OP_SH1ADD_UW;
            unsigned sh = op == SIM_OP_SH1ADD || op == SIM_OP_SH1ADD_UW ? 1
                          : op == SIM_OP_SH2ADD || op == SIM_OP_SH2ADD_UW ? 2
                          : op == SIM_OP_SH3ADD || op == SIM_OP_SH3ADD_UW ? 3 : 0;
            if (uw) /* mov eax, [x + rs1]: the low word, zero-extended */
                jx_mem(j, 0, false, 0x8b, -1, JX_RAX, JX_RBX, JX_NONE, 0, XR(d->rs1));
            else
                get(j, JX_RAX, d->rs1);
            get(j, JX_RCX, d->rs2);
            jx_lea(j, JX_RAX, JX_RCX, JX_RAX, sh, 0);
            break;
        }
        case SIM_OP_SLLI_UW:
            jx_mem(j, 0, false, 0x8b, -1, JX_RAX, JX_RBX, JX_NONE, 0, XR(d->rs1));
            jx_shift_imm(j, true, JX_SHL, JX_RAX, (unsigned)imm & 63);
            break;
        case SIM_OP_ANDN: case SIM_OP_ORN:
            get(j, JX_RAX, d->rs2);
            jx_not(j, JX_RAX);
            jx_alu_mem(j, true, op == SIM_OP_ANDN ? JX_AND : JX_OR, JX_RAX, JX_RBX, XR(d->rs1));
            break;
        case SIM_OP_XNOR:
            get(j, JX_RAX, d->rs1);
            jx_alu_mem(j, true, JX_XOR, JX_RAX, JX_RBX, XR(d->rs2));
            jx_not(j, JX_RAX);
            break;
        case SIM_OP_MAX: case SIM_OP_MAXU: case SIM_OP_MIN: case SIM_OP_MINU: {
            /* rax = rs1; take rs2 when it is the one wanted */
            static const unsigned take[] = {JX_CC_L, JX_CC_B, JX_CC_G, JX_CC_A};
            get(j, JX_RAX, d->rs1);
            get(j, JX_RCX, d->rs2);
            jx_alu(j, true, JX_CMP, JX_RAX, JX_RCX);
            jx_cmov(j, take[op - SIM_OP_MAX], JX_RAX, JX_RCX);
            break;
        }
        case SIM_OP_SEXT_B: case SIM_OP_SEXT_H:
            jx_mem(j, 0, true, 0x0f, op == SIM_OP_SEXT_B ? 0xbe : 0xbf, JX_RAX, JX_RBX, JX_NONE, 0,
                   XR(d->rs1));
            break;
        case SIM_OP_ZEXT_H:
            jx_mem(j, 0, false, 0x0f, 0xb7, JX_RAX, JX_RBX, JX_NONE, 0, XR(d->rs1));
            break;
        case SIM_OP_REV8:
            get(j, JX_RAX, d->rs1);
            jx_bswap(j, JX_RAX);
            break;
        default:
            return false;
        }
    }
    put(j, JX_RAX, d->rd);
    return true;
}

bool sim_jit_emit_insn(tr *t, const sim_insn *d, const sim_handlers *hs)
{
    jx *j = &t->j;
    int cc = branch_cc(d->op);
    if (cc >= 0) {
        get(j, JX_RAX, d->rs1);
        jx_alu_mem(j, true, JX_CMP, JX_RAX, JX_RBX, XR(d->rs2));
        add_stub(t, jx_jcc(j, (unsigned)cc), STUB_TAKEN, 0, d, NULL);
        return true;
    }
    switch (d->op) {
    case SIM_OP_NOP:
        return true;
    case SIM_OP_LB: case SIM_OP_LH: case SIM_OP_LW: case SIM_OP_LD:
    case SIM_OP_LBU: case SIM_OP_LHU: case SIM_OP_LWU:
        return emit_load(t, d);
    case SIM_OP_SB: case SIM_OP_SH: case SIM_OP_SW: case SIM_OP_SD:
        return emit_store(t, d);
    case SIM_OP_FLW: case SIM_OP_FLD: case SIM_OP_FSW: case SIM_OP_FSD:
        return emit_fp_mem(t, d);
    case SIM_OP_FPU:
        return emit_fpu(t, d);
    case SIM_OP_JAL:
        if (d->rd) {
            jx_mov_imm(j, JX_RAX, d->pc + d->len);
            put(j, JX_RAX, d->rd);
        }
        if (d->run != hs->jal_on) /* else the block goes on at its target */
            jump_slot(t, d);
        return true;
    case SIM_OP_JALR:
        /* on at the target its slot was linked to, else back to the
         * handlers' jalr with the target (the link may have taken rs1) */
        get(j, JX_RAX, d->rs1);
        if (d->imm)
            jx_lea(j, JX_RAX, JX_RAX, JX_NONE, 0, d->imm);
        jx_alu_imm(j, true, JX_AND, JX_RAX, -2);
        if (d->rd) {
            jx_mov_imm(j, JX_RCX, d->pc + d->len);
            put(j, JX_RCX, d->rd);
        }
        compare_slot_pc(t, d);
        add_stub(t, jx_jcc(j, JX_CC_NE), STUB_JALR, 0, d, NULL);
        jump_slot(t, d);
        return true;
    case SIM_OP_BLOCK_END:
        jump_slot(t, d);
        return true;
    default:
        return emit_alu(t, d);
    }
}

void sim_jit_emit_exit(tr *t, const sim_insn *d, unsigned why)
{
    if (t->stepped && why == SIM_JIT_ENTER) /* d's handler, in step mode */
        why = SIM_JIT_RESTEP;
    jx_mov_imm(&t->j, JX_RDI, (uint64_t)(uintptr_t)d);
    jx_mov_imm(&t->j, JX_RAX, why);
    jx_patch(jx_jmp(&t->j), t->exit);
}

void sim_jit_emit_stub(tr *t, const stub *s)
{
    jx *j = &t->j;
    switch (s->kind) {
    case STUB_EXIT:
        sim_jit_emit_exit(t, s->d, s->why);
        break;
    case STUB_TAKEN: /* what the block's entries after it added */
        jx_alu_imm(j, true, JX_SUB, JX_R12, (int32_t)s->d[1].cost_rest);
        jx_alu_imm(j, true, JX_SUB, JX_R13, (int32_t)s->d[1].n_rest);
        jump_slot(t, s->d);
        break;
    case STUB_CACHED:
        emit_cached(t, s);
        break;
    case STUB_JALR:
        jx_store(j, JX_RAX, JX_R15, REG(target));
        sim_jit_emit_exit(t, s->d, SIM_JIT_JALR);
        break;
    case STUB_FPU:
        fpu_call(t, s->d);
        jx_patch(jx_jmp(j), s->back);
        break;
    case STUB_JOIN:
        break;
    case STUB_STEPPED:
        t->step_jmp = jx_jmp_rip(j);
        t->step_exit = j->p;
        sim_jit_emit_exit(t, s->d, SIM_JIT_STEP);
        break;
    case STUB_NOTE: /* rdx: the offset in the RAM cache's range */
        jx_lea(j, JX_RDX, JX_RDX, JX_R8, 0, 0);
        note_store(t, s->d);
        jx_patch(jx_jmp(j), s->back);
        break;
    }
}

#endif
