/* bench/speed: the RVV 1.0 vector bench (VLEN 512 on the X280 and under
 * QEMU's vlen=512; the loops are vector-length agnostic, so any VLEN
 * gives the same checksum).  Five kernels over about 6 MiB, REPS passes:
 *   - daxpy, y += a * x: SEW 64, LMUL 8, vfmacc.vf (fused, as the native
 *     build's fma);
 *   - an integer dot product: SEW 32, LMUL 4, vmacc.vv into an accumulator
 *     kept tail-undisturbed, vredsum.vs at the end (wrapping adds: any
 *     order gives the same sum);
 *   - a byte copy like memcpy: SEW 8, LMUL 8, vle8.v / vse8.v;
 *   - a masked add: SEW 32, LMUL 2, vmsgt.vx into v0 and vadd.vx under
 *     the mask, mask-undisturbed (z[i] += k where x[i] > t);
 *   - a single-precision scale, w = w * s + c: SEW 32, LMUL 1, vfmul.vf
 *     then vfadd.vf (not fused; the native build has -ffp-contract=off);
 * and once at the end an ordered sum of y (vfredosum.vs, the sequential
 * sum).  GCC 12 has no RVV intrinsics, so the kernels are inline
 * assembly (-march=rv64gcv); built with -DNATIVE the same kernels are
 * plain C, the checksum bench/speed holds kmrun's and QEMU's exit codes
 * to. */
#include "bench.h"
#include <stddef.h>

#ifndef REPS
#define REPS 32
#endif
#define N64 (128 * 1024)  /* doubles: x, y (1 MiB each) */
#define N32 (256 * 1024)  /* 32-bit: p, q, z, w (1 MiB each) */
#define N8 (1024 * 1024)  /* bytes: src, dst (1 MiB each) */

static volatile uint32_t reps = REPS;
static volatile uint64_t seed = 0x9e3779b97f4a7c15u;
static volatile double alpha = 0.5;
static volatile float scale = 0.999f, shift = 0.25f;
static volatile int32_t threshold = 1 << 28, bump = 3;

static double x[N64], y[N64];
static int32_t p[N32], q[N32], z[N32];
static float w[N32];
static uint64_t src[N8 / 8], dst[N8 / 8];

#ifdef NATIVE
static void daxpy(size_t n, double a, const double *xs, double *ys)
{
    for (size_t i = 0; i < n; i++)
        ys[i] = __builtin_fma(a, xs[i], ys[i]);
}

static uint32_t dot(size_t n, const int32_t *a, const int32_t *b)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += (uint32_t)a[i] * (uint32_t)b[i];
    return s;
}

static void copy(size_t n, const void *from, void *to)
{
    const uint8_t *f = from;
    uint8_t *t = to;
    for (size_t i = 0; i < n; i++)
        t[i] = f[i];
}

static void masked_add(size_t n, const int32_t *a, int32_t *zs, int32_t t, int32_t k)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] > t)
            zs[i] = (int32_t)((uint32_t)zs[i] + (uint32_t)k);
}

static void scale_shift(size_t n, float *ws, float s, float c)
{
    for (size_t i = 0; i < n; i++) {
        float m = ws[i] * s;
        ws[i] = m + c;
    }
}

static double ordered_sum(size_t n, const double *ys)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += ys[i];
    return s;
}
#else
/* GCC 12 knows no vector registers, so it neither uses them nor takes
 * them as clobbers: the kernels own v0-v31. */
static void daxpy(size_t n, double a, const double *xs, double *ys)
{
    asm volatile("1: vsetvli t0, %[n], e64, m8, ta, ma\n"
                 "   vle64.v v8, (%[x])\n"
                 "   vle64.v v16, (%[y])\n"
                 "   vfmacc.vf v16, %[a], v8\n"
                 "   vse64.v v16, (%[y])\n"
                 "   sub %[n], %[n], t0\n"
                 "   slli t0, t0, 3\n"
                 "   add %[x], %[x], t0\n"
                 "   add %[y], %[y], t0\n"
                 "   bnez %[n], 1b\n"
                 : [n] "+r"(n), [x] "+r"(xs), [y] "+r"(ys)
                 : [a] "f"(a)
                 : "t0", "memory");
}

static uint32_t dot(size_t n, const int32_t *a, const int32_t *b)
{
    uint64_t s;
    asm volatile("   vsetvli t0, zero, e32, m4, ta, ma\n"
                 "   vmv.v.i v24, 0\n"
                 "1: vsetvli t0, %[n], e32, m4, tu, ma\n"
                 "   vle32.v v8, (%[a])\n"
                 "   vle32.v v12, (%[b])\n"
                 "   vmacc.vv v24, v8, v12\n"
                 "   sub %[n], %[n], t0\n"
                 "   slli t0, t0, 2\n"
                 "   add %[a], %[a], t0\n"
                 "   add %[b], %[b], t0\n"
                 "   bnez %[n], 1b\n"
                 "   vsetvli t0, zero, e32, m4, ta, ma\n"
                 "   vmv.s.x v28, zero\n"
                 "   vredsum.vs v28, v24, v28\n"
                 "   vmv.x.s %[s], v28\n"
                 : [n] "+r"(n), [a] "+r"(a), [b] "+r"(b), [s] "=r"(s)
                 :
                 : "t0", "memory");
    return (uint32_t)s;
}

static void copy(size_t n, const void *from, void *to)
{
    asm volatile("1: vsetvli t0, %[n], e8, m8, ta, ma\n"
                 "   vle8.v v8, (%[f])\n"
                 "   vse8.v v8, (%[t])\n"
                 "   sub %[n], %[n], t0\n"
                 "   add %[f], %[f], t0\n"
                 "   add %[t], %[t], t0\n"
                 "   bnez %[n], 1b\n"
                 : [n] "+r"(n), [f] "+r"(from), [t] "+r"(to)
                 :
                 : "t0", "memory");
}

static void masked_add(size_t n, const int32_t *a, int32_t *zs, int32_t t, int32_t k)
{
    asm volatile("1: vsetvli t0, %[n], e32, m2, ta, mu\n"
                 "   vle32.v v8, (%[a])\n"
                 "   vle32.v v10, (%[z])\n"
                 "   vmsgt.vx v0, v8, %[t]\n"
                 "   vadd.vx v10, v10, %[k], v0.t\n"
                 "   vse32.v v10, (%[z])\n"
                 "   sub %[n], %[n], t0\n"
                 "   slli t0, t0, 2\n"
                 "   add %[a], %[a], t0\n"
                 "   add %[z], %[z], t0\n"
                 "   bnez %[n], 1b\n"
                 : [n] "+r"(n), [a] "+r"(a), [z] "+r"(zs)
                 : [t] "r"(t), [k] "r"(k)
                 : "t0", "memory");
}

static void scale_shift(size_t n, float *ws, float s, float c)
{
    asm volatile("1: vsetvli t0, %[n], e32, m1, ta, ma\n"
                 "   vle32.v v4, (%[w])\n"
                 "   vfmul.vf v4, v4, %[s]\n"
                 "   vfadd.vf v4, v4, %[c]\n"
                 "   vse32.v v4, (%[w])\n"
                 "   sub %[n], %[n], t0\n"
                 "   slli t0, t0, 2\n"
                 "   add %[w], %[w], t0\n"
                 "   bnez %[n], 1b\n"
                 : [n] "+r"(n), [w] "+r"(ws)
                 : [s] "f"(s), [c] "f"(c)
                 : "t0", "memory");
}

static double ordered_sum(size_t n, const double *ys)
{
    double s;
    asm volatile("   vsetvli t0, zero, e64, m1, ta, ma\n"
                 "   vmv.v.i v1, 0\n"
                 "1: vsetvli t0, %[n], e64, m1, ta, ma\n"
                 "   vle64.v v2, (%[y])\n"
                 "   vfredosum.vs v1, v2, v1\n"
                 "   sub %[n], %[n], t0\n"
                 "   slli t0, t0, 3\n"
                 "   add %[y], %[y], t0\n"
                 "   bnez %[n], 1b\n"
                 "   vfmv.f.s %[s], v1\n"
                 : [n] "+r"(n), [y] "+r"(ys), [s] "=f"(s)
                 :
                 : "t0", "memory");
    return s;
}
#endif

static uint64_t bits64(double d)
{
    union {
        double d;
        uint64_t u;
    } c = {d};
    return c.u;
}

static uint32_t bits32(float f)
{
    union {
        float f;
        uint32_t u;
    } c = {f};
    return c.u;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= 0x100000001b3u;
    return h ^ (h >> 29);
}

static uint64_t work(void)
{
#ifndef NATIVE
    /* mstatus.VS = dirty: crt.S turns on only the FPU (mstatus.VS starts
     * off, as FS does, under kmrun exec and QEMU alike) */
    asm volatile("li t0, 3 << 9\n csrs mstatus, t0" ::: "t0");
#endif
    uint64_t r = seed;
    for (size_t i = 0; i < N64; i++) {
        r = r * 6364136223846793005u + 1442695040888963407u;
        x[i] = (double)(int32_t)(r >> 32) / 65536.0;
        y[i] = (double)(int32_t)r / 1048576.0;
    }
    for (size_t i = 0; i < N32; i++) {
        r = r * 6364136223846793005u + 1442695040888963407u;
        p[i] = (int32_t)(r >> 32);
        q[i] = (int32_t)r;
        z[i] = (int32_t)(r >> 16);
        w[i] = (float)(int32_t)(r >> 40);
    }
    for (size_t i = 0; i < N8 / 8; i++) {
        r = r * 6364136223846793005u + 1442695040888963407u;
        src[i] = r;
    }
    uint64_t h = 0xcbf29ce484222325u;
    const double a = alpha;
    const float s = scale, c = shift;
    const int32_t t = threshold, k = bump;
    for (uint32_t pass = 0, n = reps; pass < n; pass++) {
        daxpy(N64, a, x, y);
        h = mix(h, dot(N32, p, q));
        /* the copy moves a window that walks with the pass */
        copy(N8 - 4096, (const uint8_t *)src + (pass * 64) % 4096, dst);
        masked_add(N32, p, z, t, k);
        scale_shift(N32, w, s, c);
        p[pass % N32] ^= (int32_t)h;
    }
    h = mix(h, bits64(ordered_sum(N64, y)));
    for (size_t i = 0; i < N64; i += 7)
        h = mix(h, bits64(y[i]));
    for (size_t i = 0; i < N32; i += 5)
        h = mix(h, (uint64_t)(uint32_t)z[i] << 32 | bits32(w[i]));
    for (size_t i = 0; i < N8 / 8; i += 3)
        h = mix(h, dst[i]);
    return h;
}

BENCH_MAIN
