/* bench/iss: floating point — the n-body step of the Computer Language
 * Benchmarks Game (the Sun and the four giant planets, double precision):
 * per pair a distance with sqrt and a division, velocities updated, the
 * positions moved with fused multiply-adds; STEPS steps, then the energy
 * (with another sqrt per body pair).  Built with -ffp-contract=off on
 * both sides so the only fused operations are the written ones and the
 * hart's result is bit for bit the host's; the checksum is the energy's
 * and the positions' bits. */
#include "bench.h"

/* 300,000 steps, about 250 M instructions: long enough that QEMU's time
 * less its start-up (some 0.3 s) is well above the start-up's noise
 * (30,000 gave it about 20 ms, no steadier than the start-up itself). */
#ifndef STEPS
#define STEPS 300000
#endif
#define BODIES 5

static volatile double pi = 3.141592653589793;
static volatile double days_per_year = 365.24;
static volatile uint32_t steps = STEPS;

typedef struct body {
    double x[3], v[3], mass;
} body;

static const double init[BODIES][7] = {
    {0, 0, 0, 0, 0, 0, 1},
    {4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
     1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
     9.54791938424326609e-04},
    {8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
     -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
     2.85885980666130812e-04},
    {1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
     2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
     4.36624404335156298e-05},
    {1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
     2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
     5.15138902046611451e-05},
};

static uint64_t bits(double d)
{
    union {
        double d;
        uint64_t u;
    } c = {d};
    return c.u;
}

static double energy(const body *b)
{
    double e = 0;
    for (int i = 0; i < BODIES; i++) {
        e += 0.5 * b[i].mass *
             (b[i].v[0] * b[i].v[0] + b[i].v[1] * b[i].v[1] + b[i].v[2] * b[i].v[2]);
        for (int j = i + 1; j < BODIES; j++) {
            double d[3];
            for (int k = 0; k < 3; k++)
                d[k] = b[i].x[k] - b[j].x[k];
            e -= b[i].mass * b[j].mass /
                 __builtin_sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
    }
    return e;
}

static uint64_t work(void)
{
    const double solar_mass = 4 * pi * pi, dpy = days_per_year, dt = 0.01;
    body b[BODIES];
    for (int i = 0; i < BODIES; i++) {
        for (int k = 0; k < 3; k++) {
            b[i].x[k] = init[i][k];
            b[i].v[k] = init[i][3 + k] * dpy;
        }
        b[i].mass = init[i][6] * solar_mass;
    }
    /* the Sun takes the momentum that makes the total zero */
    for (int k = 0; k < 3; k++) {
        double p = 0;
        for (int i = 0; i < BODIES; i++)
            p += b[i].v[k] * b[i].mass;
        b[0].v[k] = -p / solar_mass;
    }
    uint64_t sum = bits(energy(b));
    for (uint32_t s = steps; s != 0; s--) {
        for (int i = 0; i < BODIES; i++)
            for (int j = i + 1; j < BODIES; j++) {
                double d[3];
                for (int k = 0; k < 3; k++)
                    d[k] = b[i].x[k] - b[j].x[k];
                double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                double mag = dt / (d2 * __builtin_sqrt(d2));
                double mi = b[i].mass * mag, mj = b[j].mass * mag;
                for (int k = 0; k < 3; k++) {
                    b[i].v[k] -= d[k] * mj;
                    b[j].v[k] += d[k] * mi;
                }
            }
        for (int i = 0; i < BODIES; i++)
            for (int k = 0; k < 3; k++)
                b[i].x[k] = __builtin_fma(dt, b[i].v[k], b[i].x[k]);
    }
    sum = sum * 31 + bits(energy(b));
    for (int i = 0; i < BODIES; i++)
        for (int k = 0; k < 3; k++)
            sum = sum * 31 + bits(b[i].x[k]);
    return sum;
}

BENCH_MAIN
