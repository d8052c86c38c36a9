/* fpu_host: the host FPU's fast path for sim_fpu (fpu.c) — internal.
 *
 * Each function computes one operation on the host (x86-64 SSE2, and
 * FMA3 for the fused multiply-add) and returns the result's bits, ORing
 * the exception flags the host raised into *flags, in fflags' layout.
 * With flags NULL the flags are not read at all: reading MXCSR (stmxcsr)
 * costs several times the operation, and the caller knows when it does
 * not need them (fpu.c: fflags.NX already set and a result that cannot
 * carry another flag).  The callers guarantee the common case: rounding
 * mode RNE (or RTZ for the truncating conversions, which ignore the
 * mode), no NaN operand, singles properly NaN-boxed (the functions read
 * the low 32 bits).  The caller also canonicalises a NaN result (the
 * host's default NaN has the sign bit set; RISC-V's canonical NaN has
 * not).
 *
 * Ordering: each operation is ONE `asm volatile` statement that loads
 * MXCSR with 0x1f80 (every exception masked and its flag clear, round to
 * nearest, no DAZ, no FTZ), does the operation and (flags wanted) stores
 * MXCSR.  The compiler sees neither the operation nor the flags as C
 * floating point, so it can neither constant-fold the operation, nor move
 * it across the flag reads, nor drop it: no -frounding-math, fenv or
 * volatile variables needed, whatever the optimisation flags
 * (-ffast-math included).  Loading MXCSR each time also means the
 * thread's own MXCSR (rounding mode, DAZ/FTZ) never matters.
 *
 * The fast path is used only when sim_fpu_host_on says so: on x86-64,
 * after a probe at start-up (fpu_host.c) found that the flags read back
 * are the ones IEEE 754 and RISC-V give for a few known operations.
 * Valgrind, for one, computes the values right but not the flags; the
 * probe then fails and everything takes fpu_soft.c.  On other hosts (or
 * built with -DSIM_FPU_NO_HOST) the functions are stubs and the fast
 * path is never enabled. */
#ifndef SIM_FPU_HOST_H
#define SIM_FPU_HOST_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(SIM_FPU_NO_HOST)
#define SIM_FPU_HOST_X86 1
#else
#define SIM_FPU_HOST_X86 0
#endif

/* Whether the host path may be used at all (probe passed and not turned
 * off by sim_fpu_set_host), and whether it may be used for the fused
 * multiply-add (the host has FMA3 and it passed its probe too). */
extern bool sim_fpu_host_on, sim_fpu_host_fma_on;

/* Runs the probe; true when the host's flags are faithful.  *fma_ok:
 * also its fused multiply-add. */
bool sim_fpu_host_probe(bool *fma_ok);

#if SIM_FPU_HOST_X86

/* MXCSR's flags to fflags: IE NV, DE (a denormal operand) nothing, ZE DZ,
 * OE OF, UE UF, PE NX. */
static inline uint32_t host_flags(uint32_t mxcsr)
{
    return ((mxcsr & 1) << 4) | ((mxcsr >> 2 & 1) << 3) | ((mxcsr >> 3 & 1) << 2) |
           ((mxcsr >> 4 & 1) << 1) | ((mxcsr >> 5) & 1);
}

#define SIM_MXCSR_CLEAN 0x1f80u

/* Binary operation on scalars (x86 "op src, dst": xmm0 = xmm0 op xmm1;
 * the one-operand ones, sqrt and the conversions, read xmm1).  WI, WO:
 * the width of the input and the output, "d" (movd, a single in the low
 * 32 bits of a 32-bit register, which zero-extends) or "q". */
#define HOST_BIN(name, insn, WI, WO)                                                  \
    static inline uint64_t name(uint64_t a, uint64_t b, uint32_t *flags)              \
    {                                                                                 \
        uint32_t clean = SIM_MXCSR_CLEAN, csr = 0;                                    \
        uint64_t r;                                                                   \
        if (!flags) {                                                                 \
            __asm__ volatile("ldmxcsr %[clean]\n\t"                                   \
                         "mov" #WI " %" HOST_REG_##WI "[a], %%xmm0\n\t"               \
                         "mov" #WI " %" HOST_REG_##WI "[b], %%xmm1\n\t"               \
                         insn " %%xmm1, %%xmm0\n\t"                                   \
                         "mov" #WO " %%xmm0, %" HOST_REG_##WO "[r]"                   \
                         : [r] "=r"(r)                                                \
                         : [a] "r"(a), [b] "r"(b), [clean] "m"(clean)                 \
                         : "xmm0", "xmm1");                                           \
            return r;                                                                 \
        }                                                                             \
        __asm__ volatile("ldmxcsr %[clean]\n\t"                                       \
                         "mov" #WI " %" HOST_REG_##WI "[a], %%xmm0\n\t"               \
                         "mov" #WI " %" HOST_REG_##WI "[b], %%xmm1\n\t"               \
                         insn " %%xmm1, %%xmm0\n\t"                                   \
                         "stmxcsr %[csr]\n\t"                                         \
                         "mov" #WO " %%xmm0, %" HOST_REG_##WO "[r]"                   \
                         : [r] "=r"(r), [csr] "=m"(csr)                               \
                         : [a] "r"(a), [b] "r"(b), [clean] "m"(clean)                 \
                         : "xmm0", "xmm1");                                           \
        *flags |= host_flags(csr);                                                    \
        return r;                                                                     \
    }
#define HOST_REG_d "k"
#define HOST_REG_q "q"

HOST_BIN(host_add_s, "addss", d, d)
HOST_BIN(host_sub_s, "subss", d, d)
HOST_BIN(host_mul_s, "mulss", d, d)
HOST_BIN(host_div_s, "divss", d, d)
HOST_BIN(host_add_d, "addsd", q, q)
HOST_BIN(host_sub_d, "subsd", q, q)
HOST_BIN(host_mul_d, "mulsd", q, q)
HOST_BIN(host_div_d, "divsd", q, q)
/* sqrt: `b` is the operand (pass it as a too). */
HOST_BIN(host_sqrt_s, "sqrtss", d, d)
HOST_BIN(host_sqrt_d, "sqrtsd", q, q)
/* fcvt.s.d and fcvt.d.s: the operand in b, as for sqrt. */
HOST_BIN(host_d_to_s, "cvtsd2ss", q, d)
HOST_BIN(host_s_to_d, "cvtss2sd", d, q)

/* a * b + c, one rounding (FMA3: xmm0 = xmm0 * xmm1 + xmm2). */
#define HOST_FMA(name, insn, W)                                                       \
    static inline uint64_t name(uint64_t a, uint64_t b, uint64_t c, uint32_t *flags)  \
    {                                                                                 \
        uint32_t clean = SIM_MXCSR_CLEAN, csr = 0;                                    \
        uint64_t r;                                                                   \
        if (!flags) {                                                                 \
            __asm__ volatile("ldmxcsr %[clean]\n\t"                                   \
                         "mov" #W " %" HOST_REG_##W "[a], %%xmm0\n\t"                 \
                         "mov" #W " %" HOST_REG_##W "[b], %%xmm1\n\t"                 \
                         "mov" #W " %" HOST_REG_##W "[c], %%xmm2\n\t"                 \
                         insn " %%xmm2, %%xmm1, %%xmm0\n\t"                           \
                         "mov" #W " %%xmm0, %" HOST_REG_##W "[r]"                     \
                         : [r] "=r"(r)                                                \
                         : [a] "r"(a), [b] "r"(b), [c] "r"(c), [clean] "m"(clean)     \
                         : "xmm0", "xmm1", "xmm2");                                   \
            return r;                                                                 \
        }                                                                             \
        __asm__ volatile("ldmxcsr %[clean]\n\t"                                       \
                         "mov" #W " %" HOST_REG_##W "[a], %%xmm0\n\t"                 \
                         "mov" #W " %" HOST_REG_##W "[b], %%xmm1\n\t"                 \
                         "mov" #W " %" HOST_REG_##W "[c], %%xmm2\n\t"                 \
                         insn " %%xmm2, %%xmm1, %%xmm0\n\t"                           \
                         "stmxcsr %[csr]\n\t"                                         \
                         "mov" #W " %%xmm0, %" HOST_REG_##W "[r]"                     \
                         : [r] "=r"(r), [csr] "=m"(csr)                               \
                         : [a] "r"(a), [b] "r"(b), [c] "r"(c), [clean] "m"(clean)     \
                         : "xmm0", "xmm1", "xmm2");                                   \
        *flags |= host_flags(csr);                                                    \
        return r;                                                                     \
    }
HOST_FMA(host_fma_s, "vfmadd213ss", d)
HOST_FMA(host_fma_d, "vfmadd213sd", q)

/* Float to integer: cvt (RNE, MXCSR's mode) or cvtt (truncation, RTZ),
 * 32- or 64-bit signed.  The host's answer for out of range and NaN is
 * the "integer indefinite" (the most negative value) with IE: the caller
 * takes the soft path whenever it sees that value. */
#define HOST_TO_INT(name, insn, W, reg)                                               \
    static inline int64_t name(uint64_t a, uint32_t *flags)                           \
    {                                                                                 \
        uint32_t clean = SIM_MXCSR_CLEAN, csr = 0;                                    \
        int64_t r;                                                                    \
        if (!flags) {                                                                 \
            __asm__ volatile("ldmxcsr %[clean]\n\t"                                   \
                         "mov" #W " %" HOST_REG_##W "[a], %%xmm0\n\t"                 \
                         insn " %%xmm0, %" reg "[r]\n\t"                              \
                         ""                                                           \
                         : [r] "=r"(r)                                                \
                         : [a] "r"(a), [clean] "m"(clean)                             \
                         : "xmm0");                                                   \
            return r;                                                                 \
        }                                                                             \
        __asm__ volatile("ldmxcsr %[clean]\n\t"                                       \
                         "mov" #W " %" HOST_REG_##W "[a], %%xmm0\n\t"                 \
                         insn " %%xmm0, %" reg "[r]\n\t"                              \
                         "stmxcsr %[csr]"                                             \
                         : [r] "=r"(r), [csr] "=m"(csr)                               \
                         : [a] "r"(a), [clean] "m"(clean)                             \
                         : "xmm0");                                                   \
        *flags |= host_flags(csr);                                                    \
        return r;                                                                     \
    }
/* %k: the 32-bit name of the register; the result is sign-extended. */
static inline int64_t host_sext32(int64_t r)
{
    return (int32_t)(uint32_t)r;
}
HOST_TO_INT(host_s_to_w_raw, "cvtss2si", d, "k")
HOST_TO_INT(host_s_to_w_rtz_raw, "cvttss2si", d, "k")
HOST_TO_INT(host_d_to_w_raw, "cvtsd2si", q, "k")
HOST_TO_INT(host_d_to_w_rtz_raw, "cvttsd2si", q, "k")
HOST_TO_INT(host_s_to_l, "cvtss2si", d, "q")
HOST_TO_INT(host_s_to_l_rtz, "cvttss2si", d, "q")
HOST_TO_INT(host_d_to_l, "cvtsd2si", q, "q")
HOST_TO_INT(host_d_to_l_rtz, "cvttsd2si", q, "q")

/* A signed 64-bit integer to a format, rounded (RNE). */
#define HOST_FROM_INT(name, insn, W)                                                  \
    static inline uint64_t name(int64_t v, uint32_t *flags)                           \
    {                                                                                 \
        uint32_t clean = SIM_MXCSR_CLEAN, csr = 0;                                    \
        uint64_t r;                                                                   \
        if (!flags) {                                                                 \
            __asm__ volatile("ldmxcsr %[clean]\n\t"                                   \
                         "xorps %%xmm0, %%xmm0\n\t" insn " %[v], %%xmm0\n\t"          \
                         "mov" #W " %%xmm0, %" HOST_REG_##W "[r]"                     \
                         : [r] "=r"(r)                                                \
                         : [v] "r"(v), [clean] "m"(clean)                             \
                         : "xmm0");                                                   \
            return r;                                                                 \
        }                                                                             \
        __asm__ volatile("ldmxcsr %[clean]\n\t"                                       \
                         "xorps %%xmm0, %%xmm0\n\t" insn " %[v], %%xmm0\n\t"          \
                         "stmxcsr %[csr]\n\t"                                         \
                         "mov" #W " %%xmm0, %" HOST_REG_##W "[r]"                     \
                         : [r] "=r"(r), [csr] "=m"(csr)                               \
                         : [v] "r"(v), [clean] "m"(clean)                             \
                         : "xmm0");                                                   \
        *flags |= host_flags(csr);                                                    \
        return r;                                                                     \
    }
HOST_FROM_INT(host_l_to_s, "cvtsi2ssq", d)
HOST_FROM_INT(host_l_to_d, "cvtsi2sdq", q)

/* The quick forms, for fpu_quick.c: the operation alone, no flags read
 * (the caller uses them only where the flags cannot matter).  The
 * operands are read from the f registers in memory straight into xmm
 * registers (a single from the low half of its register: the caller
 * checks the boxing) and the result comes back in one, for
 * host_quick_store_d to write, and as bits in *bits, for the caller's
 * checks: the value goes from one operation to the next without a trip
 * through an integer register, which would lengthen every chain of
 * dependent operations.  MXCSR is loaded all the same (cheap, unlike
 * storing it): the thread's own never matters.  The result register is
 * first loaded with a whole movsd / movss, which clears the rest of it:
 * no dependency on whatever it held before. */
static const uint32_t host_mxcsr_clean = SIM_MXCSR_CLEAN;
/* W: "sd" or "ss"; B: the instruction that copies the result's bits to
 * an integer register. */
#define HOST_QUICK_BITS_sd "movq %[r], %[bits]"
#define HOST_QUICK_BITS_ss "movd %[r], %k[bits]"
#define HOST_QUICK2(name, insn, T, W)                                                 \
    static inline T name(const uint64_t *a, const uint64_t *b, uint64_t *bits)        \
    {                                                                                 \
        T r;                                                                          \
        __asm__ volatile("ldmxcsr %[clean]\n\t"                                       \
                         "mov" #W " %[a], %[r]\n\t" insn " %[b], %[r]\n\t"             \
                         HOST_QUICK_BITS_##W                                          \
                         : [r] "=&x"(r), [bits] "=r"(*bits)                           \
                         : [a] "m"(*a), [b] "m"(*b), [clean] "m"(host_mxcsr_clean));  \
        return r;                                                                     \
    }
HOST_QUICK2(host_quick_add_d, "addsd", double, sd)
HOST_QUICK2(host_quick_sub_d, "subsd", double, sd)
HOST_QUICK2(host_quick_mul_d, "mulsd", double, sd)
HOST_QUICK2(host_quick_div_d, "divsd", double, sd)
HOST_QUICK2(host_quick_add_s, "addss", float, ss)
HOST_QUICK2(host_quick_sub_s, "subss", float, ss)
HOST_QUICK2(host_quick_mul_s, "mulss", float, ss)
HOST_QUICK2(host_quick_div_s, "divss", float, ss)
#define HOST_QUICK1(name, insn, T, W)                                                 \
    static inline T name(const uint64_t *a, uint64_t *bits)                           \
    {                                                                                 \
        T r;                                                                          \
        __asm__ volatile("ldmxcsr %[clean]\n\t"                                       \
                         "mov" #W " %[a], %[r]\n\t" insn " %[r], %[r]\n\t"             \
                         HOST_QUICK_BITS_##W                                          \
                         : [r] "=&x"(r), [bits] "=r"(*bits)                           \
                         : [a] "m"(*a), [clean] "m"(host_mxcsr_clean));               \
        return r;                                                                     \
    }
HOST_QUICK1(host_quick_sqrt_d, "sqrtsd", double, sd)
HOST_QUICK1(host_quick_sqrt_s, "sqrtss", float, ss)
/* The fused multiply-adds, FMA3 (r = t * r + c in its 213 form):
 * fmadd a*b+c vfmadd, fmsub a*b-c vfmsub, fnmsub -(a*b)+c vfnmadd,
 * fnmadd -(a*b)-c vfnmsub, one rounding each.  x86 negates the exact
 * product as RISC-V does; the one place the two could differ, the sign
 * of an exact zero, never reaches the caller (a zero result is not one
 * it keeps). */
#define HOST_QUICK3(name, insn, T, W)                                                 \
    static inline T name(const uint64_t *a, const uint64_t *b, const uint64_t *c,     \
                         uint64_t *bits)                                              \
    {                                                                                 \
        T r, t;                                                                       \
        __asm__ volatile("ldmxcsr %[clean]\n\t"                                       \
                         "mov" #W " %[a], %[r]\n\t"                                    \
                         "mov" #W " %[b], %[t]\n\t" insn " %[c], %[t], %[r]\n\t"       \
                         HOST_QUICK_BITS_##W                                          \
                         : [r] "=&x"(r), [t] "=&x"(t), [bits] "=r"(*bits)             \
                         : [a] "m"(*a), [b] "m"(*b), [c] "m"(*c),                     \
                           [clean] "m"(host_mxcsr_clean));                            \
        return r;                                                                     \
    }
HOST_QUICK3(host_quick_fmadd_d, "vfmadd213sd", double, sd)
HOST_QUICK3(host_quick_fmsub_d, "vfmsub213sd", double, sd)
HOST_QUICK3(host_quick_fnmsub_d, "vfnmadd213sd", double, sd)
HOST_QUICK3(host_quick_fnmadd_d, "vfnmsub213sd", double, sd)
HOST_QUICK3(host_quick_fmadd_s, "vfmadd213ss", float, ss)
HOST_QUICK3(host_quick_fmsub_s, "vfmsub213ss", float, ss)
HOST_QUICK3(host_quick_fnmsub_s, "vfnmadd213ss", float, ss)
HOST_QUICK3(host_quick_fnmadd_s, "vfnmsub213ss", float, ss)
/* A double result into an f register, from its xmm register. */
static inline void host_quick_store_d(uint64_t *dst, double v)
{
    __asm__("movsd %[v], %[dst]" : [dst] "=m"(*dst) : [v] "x"(v));
}

#else /* no fast path on this host: never called (sim_fpu_host_on is false) */

#define HOST_STUB2(name)                                                              \
    static inline uint64_t name(uint64_t a, uint64_t b, uint32_t *flags)              \
    {                                                                                 \
        (void)a, (void)b, (void)flags;                                                \
        return 0;                                                                     \
    }
HOST_STUB2(host_add_s)
HOST_STUB2(host_sub_s)
HOST_STUB2(host_mul_s)
HOST_STUB2(host_div_s)
HOST_STUB2(host_add_d)
HOST_STUB2(host_sub_d)
HOST_STUB2(host_mul_d)
HOST_STUB2(host_div_d)
HOST_STUB2(host_sqrt_s)
HOST_STUB2(host_sqrt_d)
HOST_STUB2(host_d_to_s)
HOST_STUB2(host_s_to_d)
#define HOST_STUB3(name)                                                              \
    static inline uint64_t name(uint64_t a, uint64_t b, uint64_t c, uint32_t *flags)  \
    {                                                                                 \
        (void)a, (void)b, (void)c, (void)flags;                                       \
        return 0;                                                                     \
    }
HOST_STUB3(host_fma_s)
HOST_STUB3(host_fma_d)
#define HOST_STUB_TO(name)                                                            \
    static inline int64_t name(uint64_t a, uint32_t *flags)                           \
    {                                                                                 \
        (void)a, (void)flags;                                                         \
        return 0;                                                                     \
    }
static inline int64_t host_sext32(int64_t r)
{
    return r;
}
HOST_STUB_TO(host_s_to_w_raw)
HOST_STUB_TO(host_s_to_w_rtz_raw)
HOST_STUB_TO(host_d_to_w_raw)
HOST_STUB_TO(host_d_to_w_rtz_raw)
HOST_STUB_TO(host_s_to_l)
HOST_STUB_TO(host_s_to_l_rtz)
HOST_STUB_TO(host_d_to_l)
HOST_STUB_TO(host_d_to_l_rtz)
#define HOST_STUB_FROM(name)                                                          \
    static inline uint64_t name(int64_t v, uint32_t *flags)                           \
    {                                                                                 \
        (void)v, (void)flags;                                                         \
        return 0;                                                                     \
    }
HOST_STUB_FROM(host_l_to_s)
HOST_STUB_FROM(host_l_to_d)

/* The quick forms: the same shapes. */
#define HOST_QUICK_STUB2(name, T)                                                     \
    static inline T name(const uint64_t *a, const uint64_t *b, uint64_t *bits)        \
    {                                                                                 \
        (void)a, (void)b;                                                             \
        *bits = 0;                                                                    \
        return 0;                                                                     \
    }
HOST_QUICK_STUB2(host_quick_add_d, double)
HOST_QUICK_STUB2(host_quick_sub_d, double)
HOST_QUICK_STUB2(host_quick_mul_d, double)
HOST_QUICK_STUB2(host_quick_div_d, double)
HOST_QUICK_STUB2(host_quick_add_s, float)
HOST_QUICK_STUB2(host_quick_sub_s, float)
HOST_QUICK_STUB2(host_quick_mul_s, float)
HOST_QUICK_STUB2(host_quick_div_s, float)
#define HOST_QUICK_STUB1(name, T)                                                     \
    static inline T name(const uint64_t *a, uint64_t *bits)                           \
    {                                                                                 \
        (void)a;                                                                      \
        *bits = 0;                                                                    \
        return 0;                                                                     \
    }
HOST_QUICK_STUB1(host_quick_sqrt_d, double)
HOST_QUICK_STUB1(host_quick_sqrt_s, float)
#define HOST_QUICK_STUB3(name, T)                                                     \
    static inline T name(const uint64_t *a, const uint64_t *b, const uint64_t *c,     \
                         uint64_t *bits)                                              \
    {                                                                                 \
        (void)a, (void)b, (void)c;                                                    \
        *bits = 0;                                                                    \
        return 0;                                                                     \
    }
HOST_QUICK_STUB3(host_quick_fmadd_d, double)
HOST_QUICK_STUB3(host_quick_fmsub_d, double)
HOST_QUICK_STUB3(host_quick_fnmsub_d, double)
HOST_QUICK_STUB3(host_quick_fnmadd_d, double)
HOST_QUICK_STUB3(host_quick_fmadd_s, float)
HOST_QUICK_STUB3(host_quick_fmsub_s, float)
HOST_QUICK_STUB3(host_quick_fnmsub_s, float)
HOST_QUICK_STUB3(host_quick_fnmadd_s, float)
static inline void host_quick_store_d(uint64_t *dst, double v)
{
    (void)dst, (void)v;
}

#endif

#endif
