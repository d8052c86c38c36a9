/* fpu_host: the start-up probe that decides whether sim_fpu's host fast
 * path is used (fpu_host.h says what the fast path is).
 *
 * A few operations whose results and flags are known from IEEE 754 with
 * RISC-V's choices (tininess after rounding, UF only with NX) run through
 * the very functions the fast path uses; the fast path is turned on only
 * if every one gives the expected bits and flags.  Valgrind's memcheck,
 * which does not model MXCSR's flags, fails it; so would a host whose
 * MXCSR had DAZ or FTZ forced on (the functions load their own MXCSR, so
 * only an emulator can get this wrong). */
#include "fpu_host.h"

#include "sim_fpu.h"

bool sim_fpu_host_on, sim_fpu_host_fma_on;
static bool probe_ok, probe_fma_ok;

#if SIM_FPU_HOST_X86

enum { NX = 1, UF = 2, OF = 4, DZ = 8, NV = 16 };

typedef struct probe_case {
    char op; /* + * / s(qrt) c(vt d->s) */
    uint64_t a, b;
    uint64_t want;
    uint32_t flags;
} probe_case;

static const probe_case probe_d[] = {
    /* exact: no flag */
    {'+', 0x3ff0000000000000ull, 0x3ff0000000000000ull, 0x4000000000000000ull, 0},
    /* 1 + 2^-60: inexact */
    {'+', 0x3ff0000000000000ull, 0x3c30000000000000ull, 0x3ff0000000000000ull, NX},
    /* max * 2: overflow */
    {'*', 0x7fefffffffffffffull, 0x4000000000000000ull, 0x7ff0000000000000ull, OF | NX},
    /* 1 / 0 */
    {'/', 0x3ff0000000000000ull, 0, 0x7ff0000000000000ull, DZ},
    /* inf - inf: invalid, the host's default NaN */
    {'+', 0x7ff0000000000000ull, 0xfff0000000000000ull, 0xfff8000000000000ull, NV},
    /* min normal / 2: an exact subnormal, no flag (no FTZ, tininess alone
     * raises nothing) */
    {'/', 0x0010000000000000ull, 0x4000000000000000ull, 0x0008000000000000ull, 0},
    /* min subnormal * 0.5: tiny and inexact, rounds to 0 */
    {'*', 0x0000000000000001ull, 0x3fe0000000000000ull, 0, UF | NX},
    /* a subnormal operand, no DAZ: 2^-1074 * 2^52 = 2^-1022 exactly */
    {'*', 0x0000000000000001ull, 0x4330000000000000ull, 0x0010000000000000ull, 0},
    /* (1 - 2^-52) * (1 + 2^-52) * 2^-1022 = (1 - 2^-104) * 2^-1022: tiny
     * before rounding, rounds to 2^-1022, so not tiny after rounding: NX
     * without UF (RISC-V and x86 alike) */
    {'*', 0x3feffffffffffffeull, 0x0010000000000001ull, 0x0010000000000000ull, NX},
    /* the same below: (1 - 2^-53) * (2^-1022 - 2^-1074), tiny either way */
    {'*', 0x3fefffffffffffffull, 0x000fffffffffffffull, 0x000fffffffffffffull, UF | NX},
    /* sqrt(2), sqrt(-1) */
    {'s', 0x4000000000000000ull, 0, 0x3ff6a09e667f3bcdull, NX},
    {'s', 0xbff0000000000000ull, 0, 0xfff8000000000000ull, NV},
    /* 1 + 2^-24 to single: a tie, to even */
    {'c', 0x3ff0000010000000ull, 0, 0x3f800000, NX},
};

static uint64_t probe_run(const probe_case *c, uint32_t *fl)
{
    switch (c->op) {
    case '+':
        return host_add_d(c->a, c->b, fl);
    case '*':
        return host_mul_d(c->a, c->b, fl);
    case '/':
        return host_div_d(c->a, c->b, fl);
    case 's':
        return host_sqrt_d(c->a, c->a, fl);
    default:
        return (uint32_t)host_d_to_s(0, c->a, fl);
    }
}

bool sim_fpu_host_probe(bool *fma_ok)
{
    *fma_ok = false;
    for (unsigned i = 0; i < sizeof probe_d / sizeof probe_d[0]; i++) {
        uint32_t fl = 0;
        uint64_t r = probe_run(&probe_d[i], &fl);
        if (r != probe_d[i].want || fl != probe_d[i].flags)
            return false;
    }
    /* The flags are sticky only within one operation: a clean one after
     * a dirty one reads none. */
    uint32_t fl = 0;
    host_div_d(0x3ff0000000000000ull, 0x4008000000000000ull, &fl);
    fl = 0;
    host_add_d(0x3ff0000000000000ull, 0x3ff0000000000000ull, &fl);
    if (fl != 0)
        return false;
    /* Integer conversions: 2.5 to int RNE is 2 (NX), RTZ 2^31 is out of
     * range (the indefinite value, which the caller sends to the soft path). */
    fl = 0;
    if (host_sext32(host_d_to_w_raw(0x4004000000000000ull, &fl)) != 2 || fl != NX)
        return false;
    fl = 0;
    if (host_l_to_d(-3, &fl) != 0xc008000000000000ull || fl != 0)
        return false;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("fma")) {
        /* (1 + 2^-52)^2 - 1 - 2^-51 = 2^-104 fused (0 unfused), exact */
        fl = 0;
        uint64_t r = host_fma_d(0x3ff0000000000001ull, 0x3ff0000000000001ull,
                                0xbff0000000000002ull, &fl);
        uint32_t fl2 = 0;
        /* max * 2 - max: overflow in the product is no overflow fused */
        uint64_t r2 = host_fma_d(0x7fefffffffffffffull, 0x4000000000000000ull,
                                 0xffefffffffffffffull, &fl2);
        uint32_t fl3 = 0;
        /* inf * 0 + 1: invalid */
        uint64_t r3 = host_fma_d(0x7ff0000000000000ull, 0, 0x3ff0000000000000ull, &fl3);
        *fma_ok = r == 0x3970000000000000ull && fl == 0 && r2 == 0x7fefffffffffffffull &&
                  fl2 == 0 && (r3 & 0x7ff8000000000000ull) == 0x7ff8000000000000ull &&
                  fl3 == NV;
    }
    return true;
}

#else

bool sim_fpu_host_probe(bool *fma_ok)
{
    *fma_ok = false;
    return false;
}

#endif

/* Once, before main: the probe, and the fast path on if it passed. */
__attribute__((constructor)) static void fpu_host_init(void)
{
    probe_ok = sim_fpu_host_probe(&probe_fma_ok);
    sim_fpu_host_on = probe_ok;
    sim_fpu_host_fma_on = probe_ok && probe_fma_ok;
}

bool sim_fpu_set_host(bool on)
{
    sim_fpu_host_on = on && probe_ok;
    sim_fpu_host_fma_on = on && probe_ok && probe_fma_ok;
    return sim_fpu_host_on;
}

bool sim_fpu_host_available(void)
{
    return probe_ok;
}
