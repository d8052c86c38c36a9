/* fpu_jit: sim_fpu_jit_emit (sim_fpu.h), the F and D instructions in the
 * translated code (hart_jit.c) as host SSE2 (and FMA3, when the start-up
 * probe found it: fpu_host.c checks CPUID and the host's answers) in line,
 * for the common case fpu_quick.c takes, with the same checks:
 *
 *   - fadd, fsub, fmul, fdiv, fsqrt, the four fused multiply-adds and
 *     fcvt.s.d, S and D: when the rounding mode is RNE (the rm field, or
 *     rm dynamic and fcsr.frm RNE) and fflags.NX is already set, and the
 *     host's result can carry no flag but NX (finite and above the
 *     smallest normal in magnitude: s_quiet, d_quiet in fpu_ops.h).  Then
 *     the result is the host's, correctly rounded in RNE (MXCSR is 0x1f80
 *     while translated code runs: hart_jit.c loads it on entry), and the
 *     one flag it can carry is set already; a NaN, an infinity, a zero, a
 *     subnormal or 2^emin (where tininess after rounding, RISC-V's, and
 *     the host's may differ) is no such result.  Singles must be properly
 *     NaN-boxed (a bad box reads as the canonical NaN);
 *   - fsgnj, fsgnjn, fsgnjx (fmv, fneg, fabs) of D, and of S with boxed
 *     operands; fmv.x.w, fmv.x.d, fmv.w.x, fmv.d.x: bit work, no flag;
 *   - feq, flt, fle of S and D with no NaN operand (ucomis: unordered is
 *     the parity flag): no flag possible;
 *   - fcvt.d.s of a boxed non-NaN, fcvt.d.w, fcvt.d.wu: exact, no flag, in
 *     any valid rounding mode;
 *   - fcvt.w and fcvt.l of S and D in RNE (static, or dynamic with frm
 *     RNE) or static RTZ (C's casts) with NX set, when the host's answer
 *     is not its out-of-range value.
 *
 * Every check that fails jumps to one out-of-line stub that calls
 * sim_fpu_run, the handler's path, which computes everything again from
 * the registers (nothing is written before the last check) with the exact
 * flags, canonical NaNs and all five rounding modes; so does mstatus.FS
 * other than Dirty (Off: the call refuses and the handler traps; Initial
 * or Clean: the call makes it Dirty, after which the fast path needs no
 * store to mstatus).  Nothing here is modelled:
 * the cycles are the block's static cost, as for the call.
 *
 * Host registers as hart_jit.c says: rbx the hart (h->x first), rax, rcx,
 * rdx scratch; xmm0 and xmm1 scratch (nothing else in translated code
 * uses them; calls out may clobber them). */
#include "sim_fpu.h"

#include <stddef.h>

#include "fpu_host.h"
#include "fpu_ops.h"
#include "fpu_soft.h"

#if defined(__x86_64__) && defined(__linux__) && !defined(KMRUN_NO_JIT) && SIM_FPU_HOST_X86
#include "hart_jit_emit.h"

#define HART(field) ((int32_t)offsetof(sim_hart, field))
#define FR(r) (HART(f) + (int32_t)(8 * (r)))
#define XREG(r) ((int32_t)(8 * (r)))

enum { XMM0 = 0, XMM1 = 1, MAX_FAIL = 6, CC_P = 0xa };

/* The fast path being emitted: its failure jumps. */
typedef struct fj {
    tr *t;
    jx *j;
    const sim_insn *d;
    uint8_t *fail[MAX_FAIL];
    unsigned nfail;
} fj;

static void fail_if(fj *f, unsigned cc)
{
    f->fail[f->nfail++] = jx_jcc(f->j, cc);
}

/* prefix 0F op xmm, [rbx + disp] (movsd F2 10, addsd F2 58, ucomisd 66 2E, ...) */
static void sse_mem(jx *j, unsigned pfx, unsigned op, int xmm, int32_t disp)
{
    jx_mem(j, pfx, false, 0x0f, (int)op, xmm, JX_RBX, JX_NONE, 0, disp);
}

/* movq rax, xmm0 (w) / movd eax, xmm0 */
static void movq_rax_xmm0(jx *j, bool w)
{
    jx_b(j, 0x66);
    jx_reg(j, w, 0x0f, 0x7e, XMM0, JX_RAX);
}

/* FMA3: v<op>213s{s,d} xmm0, xmm1, [rbx + disp]: xmm0 = xmm1 * xmm0 +- m */
static void fma213(jx *j, bool dbl, unsigned op, int32_t disp)
{
    jx_b(j, 0xc4);
    jx_b(j, 0xe2);                                /* R X B set (none extended), map 0F38 */
    jx_b(j, (dbl ? 0x80u : 0) | (0xfu & ~(unsigned)XMM1) << 3 | 0x01u); /* W, vvvv, L0, 66 */
    jx_b(j, op);
    jx_modrm_mem(j, XMM0, JX_RBX, JX_NONE, 0, disp);
}

/* mstatus.FS Dirty, the state every FP instruction leaves it in: then
 * none writes it.  Off (the call refuses: the handler traps), Initial or
 * Clean (the call makes it Dirty) go to the call. */
static void fs_dirty(fj *f)
{
    jx_mem(f->j, 0, false, 0x8b, -1, JX_RAX, JX_RBX, JX_NONE, 0, HART(mstatus)); /* mov eax */
    jx_alu_imm(f->j, false, JX_AND, JX_RAX, (int32_t)SIM_MSTATUS_FS);
    jx_alu_imm(f->j, false, JX_CMP, JX_RAX, (int32_t)SIM_MSTATUS_FS);
    fail_if(f, JX_CC_NE);
}

/* The rounding mode RNE and NX set: fcsr's bits under the rm field's mask
 * (fpu_quick.c's rne_nx_mask) read NX alone.  False: a static mode other
 * than RNE, which the call takes. */
static bool rne_nx(fj *f, unsigned rm)
{
    unsigned mask = rm == SIM_RM_RNE ? SIM_FF_NX : rm == 7 ? 0xe0u | SIM_FF_NX : 0;
    if (!mask)
        return false;
    jx_mem(f->j, 0, false, 0x8b, -1, JX_RAX, JX_RBX, JX_NONE, 0, HART(fcsr)); /* mov eax */
    jx_alu_imm(f->j, false, JX_AND, JX_RAX, (int32_t)mask);
    jx_alu_imm(f->j, false, JX_CMP, JX_RAX, SIM_FF_NX);
    fail_if(f, JX_CC_NE);
    return true;
}

/* The singles f[a], f[b], f[c] all NaN-boxed (a == b == c for fewer). */
static void boxed(fj *f, unsigned a, unsigned b, unsigned c)
{
    jx *j = f->j;
    jx_load(j, JX_RAX, JX_RBX, FR(a));
    if (b != a)
        jx_alu_mem(j, true, JX_AND, JX_RAX, JX_RBX, FR(b));
    if (c != a && c != b)
        jx_alu_mem(j, true, JX_AND, JX_RAX, JX_RBX, FR(c));
    jx_shift_imm(j, true, JX_SHR, JX_RAX, 32);
    jx_alu_imm(j, false, JX_CMP, JX_RAX, -1);
    fail_if(f, JX_CC_NE);
}

/* rax = xmm0's result; not quiet (d_quiet, s_quiet) to the call; a
 * single NaN-boxed. */
static void quiet_result(fj *f, bool dbl)
{
    jx *j = f->j;
    movq_rax_xmm0(j, dbl);
    if (dbl) { /* (|r| << 1) - 2 * (2^emin + ulp) < 2 * (inf - 2^emin - ulp), unsigned */
        jx_lea(j, JX_RCX, JX_RAX, JX_RAX, 0, 0);
        jx_mov_imm(j, JX_RDX, (uint64_t)-0x0020000000000002ll);
        jx_alu(j, true, JX_ADD, JX_RCX, JX_RDX);
        jx_mov_imm(j, JX_RDX, 0xffbffffffffffffeull);
        jx_alu(j, true, JX_CMP, JX_RCX, JX_RDX);
        fail_if(f, JX_CC_AE);
    } else {
        jx_mem(j, 0, false, 0x8d, -1, JX_RCX, JX_RAX, JX_RAX, 0, 0); /* lea ecx, [rax + rax] */
        jx_alu_imm(j, false, JX_SUB, JX_RCX, 0x01000002);
        jx_alu_imm(j, false, JX_CMP, JX_RCX, (int32_t)0xfdfffffeu);
        fail_if(f, JX_CC_AE);
        jx_mov_imm(j, JX_RCX, sim_fpu_box(0));
        jx_alu(j, true, JX_OR, JX_RAX, JX_RCX);
    }
}

/* The arithmetic: xmm0 = the result, then quiet_result. */
static bool arith(fj *f, const sim_fpu_insn *fi, unsigned kind, bool dbl)
{
    jx *j = f->j;
    const unsigned ld = dbl ? 0xf2 : 0xf3; /* movsd / movss, and the op's prefix */
    if (kind >= K_FMADD && kind <= K_FNMADD && !sim_fpu_host_fma_on)
        return false;
    if (!rne_nx(f, fi->rm))
        return false;
    if (!dbl) {
        if (kind == K_CVT_FF) /* fcvt.s.d: a double operand */
            ;
        else if (kind >= K_FMADD && kind <= K_FNMADD)
            boxed(f, fi->rs1, fi->rs2, fi->rs3);
        else if (kind == K_SQRT)
            boxed(f, fi->rs1, fi->rs1, fi->rs1);
        else
            boxed(f, fi->rs1, fi->rs2, fi->rs2);
    }
    switch (kind) {
    case K_ADD: case K_SUB: case K_MUL: case K_DIV: {
        static const uint8_t op[] = {0x58, 0x5c, 0x59, 0x5e};
        sse_mem(j, ld, 0x10, XMM0, FR(fi->rs1));
        sse_mem(j, ld, op[kind - K_ADD], XMM0, FR(fi->rs2));
        break;
    }
    case K_SQRT:
        sse_mem(j, ld, 0x51, XMM0, FR(fi->rs1));
        break;
    case K_CVT_FF: /* fmt S: cvtsd2ss */
        sse_mem(j, 0xf2, 0x5a, XMM0, FR(fi->rs1));
        break;
    default: { /* rs1 * rs2 + rs3: vfmadd213 (A9), vfmsub213 (AB); the negated
                * products: RISC-V's fnmsub is x86's fnmadd (AD), fnmadd fnmsub (AF) */
        static const uint8_t op[] = {0xa9, 0xab, 0xad, 0xaf};
        sse_mem(j, ld, 0x10, XMM0, FR(fi->rs1));
        sse_mem(j, ld, 0x10, XMM1, FR(fi->rs2));
        fma213(j, dbl, op[kind - K_FMADD], FR(fi->rs3));
        break;
    }
    }
    quiet_result(f, dbl);
    jx_store(j, JX_RAX, JX_RBX, FR(fi->rd));
    return true;
}

/* Sign injection: rax = f[rs1] with its sign from f[rs2] (kind: as is,
 * negated, xored), the bits of a single boxed. */
static void sign_inject(fj *f, const sim_fpu_insn *fi, unsigned kind, bool dbl)
{
    jx *j = f->j;
    const unsigned top = dbl ? 63 : 31;
    if (!dbl)
        boxed(f, fi->rs1, fi->rs2, fi->rs2);
    jx_load(j, JX_RAX, JX_RBX, FR(fi->rs1));
    if (fi->rs1 == fi->rs2 && kind == K_SGNJ) {
        /* fmv: the value as it is */
    } else if (fi->rs1 == fi->rs2) { /* fneg (btc), fabs (btr) */
        jx_reg(j, true, 0x0f, 0xba, kind == K_SGNJN ? 7 : 6, JX_RAX);
        jx_b(j, top);
    } else {
        jx_load(j, JX_RCX, JX_RBX, FR(fi->rs2));
        if (kind == K_SGNJN)
            jx_not(j, JX_RCX);
        jx_shift_imm(j, dbl, JX_SHR, JX_RCX, top); /* the sign alone, in place */
        jx_shift_imm(j, dbl, JX_SHL, JX_RCX, top);
        if (kind != K_SGNJX) {
            jx_reg(j, true, 0x0f, 0xba, 6, JX_RAX); /* btr rax, top */
            jx_b(j, top);
        }
        jx_alu(j, true, kind == K_SGNJX ? JX_XOR : JX_OR, JX_RAX, JX_RCX);
    }
    /* a single's upper half stays all ones: only bit 31 changed */
    jx_store(j, JX_RAX, JX_RBX, FR(fi->rd));
}

/* feq, flt, fle: ucomis f[rs1], f[rs2]; unordered (a NaN) to the call. */
static void compare(fj *f, const sim_fpu_insn *fi, unsigned kind, bool dbl)
{
    jx *j = f->j;
    if (!dbl)
        boxed(f, fi->rs1, fi->rs2, fi->rs2);
    sse_mem(j, dbl ? 0xf2 : 0xf3, 0x10, XMM0, FR(fi->rs1));
    sse_mem(j, dbl ? 0x66 : 0, 0x2e, XMM0, FR(fi->rs2));
    fail_if(f, CC_P); /* jp: unordered */
    if (fi->rd != 0) {
        jx_setcc(j, kind == K_EQ ? JX_CC_E : kind == K_LT ? JX_CC_B : JX_CC_BE, JX_RAX);
        jx_store(j, JX_RAX, JX_RBX, XREG(fi->rd));
    }
}

/* fcvt.w, fcvt.l (to signed integers) of S and D, RNE (cvts*2si) or RTZ
 * (cvtts*2si) with NX set: the host's out-of-range answer, the most
 * negative integer, to the call (it saturates and raises NV, or finds the
 * genuine value); in range, NX is the one flag possible. */
static bool to_int(fj *f, const sim_fpu_insn *fi, unsigned kind, bool dbl)
{
    jx *j = f->j;
    const bool l = kind == K_CVT_L;
    if (fi->rm == SIM_RM_RTZ) { /* fflags.NX set */
        jx_test8_mem(j, JX_RBX, HART(fcsr), SIM_FF_NX);
        fail_if(f, JX_CC_E);
    } else if (!rne_nx(f, fi->rm)) {
        return false;
    }
    if (!dbl)
        boxed(f, fi->rs1, fi->rs1, fi->rs1);
    jx_mem(j, dbl ? 0xf2 : 0xf3, l, 0x0f, fi->rm == SIM_RM_RTZ ? 0x2c : 0x2d, JX_RAX, JX_RBX,
           JX_NONE, 0, FR(fi->rs1));
    if (l) {
        jx_mov_imm(j, JX_RCX, 0x8000000000000000ull);
        jx_alu(j, true, JX_CMP, JX_RAX, JX_RCX);
    } else {
        jx_alu_imm(j, false, JX_CMP, JX_RAX, INT32_MIN);
    }
    fail_if(f, JX_CC_E);
    if (fi->rd != 0) {
        if (!l)
            jx_sext32(j, JX_RAX, JX_RAX);
        jx_store(j, JX_RAX, JX_RBX, XREG(fi->rd));
    }
    return true;
}

/* The exact conversions to D, no flag possible, in any valid rounding
 * mode (a dynamic one with frm reserved to the call, which refuses):
 * fcvt.d.s of a boxed non-NaN single, fcvt.d.w, fcvt.d.wu. */
static void to_double(fj *f, const sim_fpu_insn *fi, unsigned kind)
{
    jx *j = f->j;
    if (fi->rm == 7) { /* frm <= RMM */
        jx_mem(j, 0, false, 0x8b, -1, JX_RAX, JX_RBX, JX_NONE, 0, HART(fcsr));
        jx_alu_imm(j, false, JX_AND, JX_RAX, 0xe0);
        jx_alu_imm(j, false, JX_CMP, JX_RAX, SIM_RM_RMM << 5);
        fail_if(f, JX_CC_A);
    }
    if (kind == K_CVT_FF) {
        boxed(f, fi->rs1, fi->rs1, fi->rs1);
        sse_mem(j, 0xf3, 0x10, XMM0, FR(fi->rs1));   /* movss */
        jx_reg(j, false, 0x0f, 0x2e, XMM0, XMM0);     /* ucomiss xmm0, xmm0 */
        fail_if(f, CC_P);                             /* a NaN */
        jx_b(j, 0xf3);
        jx_reg(j, false, 0x0f, 0x5a, XMM0, XMM0);     /* cvtss2sd xmm0, xmm0 */
    } else {
        if (fi->rs1 == 0)
            jx_mov_imm(j, JX_RAX, 0);
        else if (kind == K_CVT_FW) /* movsxd rax, dword [x] */
            jx_mem(j, 0, true, 0x63, -1, JX_RAX, JX_RBX, JX_NONE, 0, XREG(fi->rs1));
        else /* mov eax, dword [x]: zero-extended */
            jx_mem(j, 0, false, 0x8b, -1, JX_RAX, JX_RBX, JX_NONE, 0, XREG(fi->rs1));
        jx_b(j, 0xf2);
        jx_reg(j, true, 0x0f, 0x2a, XMM0, JX_RAX);    /* cvtsi2sd xmm0, rax: exact */
    }
    movq_rax_xmm0(j, true);
    jx_store(j, JX_RAX, JX_RBX, FR(fi->rd));
}

/* The moves between the register files: the raw bits. */
static void move(fj *f, const sim_fpu_insn *fi, unsigned kind, bool dbl)
{
    jx *j = f->j;
    if (kind == K_MV_X) {
        if (fi->rd == 0)
            return;
        if (dbl)
            jx_load(j, JX_RAX, JX_RBX, FR(fi->rs1));
        else /* movsxd rax, dword [f] */
            jx_mem(j, 0, true, 0x63, -1, JX_RAX, JX_RBX, JX_NONE, 0, FR(fi->rs1));
        jx_store(j, JX_RAX, JX_RBX, XREG(fi->rd));
        return;
    }
    if (fi->rs1 == 0)
        jx_mov_imm(j, JX_RAX, 0);
    else if (dbl)
        jx_load(j, JX_RAX, JX_RBX, XREG(fi->rs1));
    else /* mov eax, dword [x]: zero-extended */
        jx_mem(j, 0, false, 0x8b, -1, JX_RAX, JX_RBX, JX_NONE, 0, XREG(fi->rs1));
    if (!dbl) {
        jx_mov_imm(j, JX_RCX, sim_fpu_box(0));
        jx_alu(j, true, JX_OR, JX_RAX, JX_RCX);
    }
    jx_store(j, JX_RAX, JX_RBX, FR(fi->rd));
}

bool sim_fpu_jit_emit(struct tr *t, const struct sim_insn *d)
{
    const sim_fpu_insn *fi = &d->fpu;
    if (!sim_fpu_host_on || fi->op >= OP_H)
        return false;
    const unsigned kind = fi->op >> 1;
    const bool dbl = fi->op & 1;
    fj f = {.t = t, .j = &t->j, .d = d, .nfail = 0};
    uint8_t *const mark = t->j.p;
    fs_dirty(&f);
    bool done = true;
    switch (kind) {
    case K_ADD: case K_SUB: case K_MUL: case K_DIV: case K_SQRT:
    case K_FMADD: case K_FMSUB: case K_FNMSUB: case K_FNMADD:
        done = arith(&f, fi, kind, dbl);
        break;
    case K_CVT_FF: /* fcvt.s.d rounds, fcvt.d.s is exact */
        if (dbl)
            to_double(&f, fi, kind);
        else
            done = arith(&f, fi, kind, false);
        break;
    case K_CVT_FW: case K_CVT_FWU:
        if (dbl)
            to_double(&f, fi, kind);
        else
            done = false;
        break;
    case K_CVT_W: case K_CVT_L:
        done = (fi->rm == SIM_RM_RNE || fi->rm == SIM_RM_RTZ || fi->rm == 7) &&
               to_int(&f, fi, kind, dbl);
        break;
    case K_SGNJ: case K_SGNJN: case K_SGNJX:
        sign_inject(&f, fi, kind, dbl);
        break;
    case K_EQ: case K_LT: case K_LE:
        compare(&f, fi, kind, dbl);
        break;
    case K_MV_X: case K_MV_F:
        move(&f, fi, kind, dbl);
        break;
    default:
        done = false;
        break;
    }
    if (!done) {
        t->j.p = mark;
        return false;
    }
    fpu_declined(t, f.fail, f.nfail, d, f.j->p);
    return true;
}

#else /* no translated code on this host */

bool sim_fpu_jit_emit(struct tr *t, const struct sim_insn *d)
{
    (void)t;
    (void)d;
    return false;
}

#endif
