/* gdb_fake: a fake target for the GDB server's tests (km_gdb.h) — four
 * harts, "cluster 1 core 0/1" and "cluster 2 core 0/1", each cluster with
 * its own 64 KiB of memory at FAKE_BASE (so memory depends on the thread
 * selected), and a toy interpreter of seven instructions (addi, ld, sd,
 * bne, jal, ecall to exit with a0, ebreak) so that breakpoints, steps,
 * watchpoints, traps and the end of the program can really happen.
 * Header-only: the unit test and tests/gdb/fake_server.c share it. */
#ifndef GDB_FAKE_H
#define GDB_FAKE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "km_gdb.h"

#define FAKE_HARTS 4
#define FAKE_BASE 0x08000000ull
#define FAKE_SIZE 0x10000u
#define FAKE_DATA (FAKE_BASE + 0x1000) /* gp: each hart's word at + 8 × core */
#define FAKE_POINTS 16
#define FAKE_BUDGET 1000000 /* instructions a continue runs before "stuck" */

typedef struct fake_hart {
    uint64_t x[32], f[32], pc;
    uint64_t csr[0x1000]; /* fcsr among them */
    bool done;            /* exited or trapped: runs no more */
} fake_hart;

typedef struct fake_point {
    bool used;
    km_gdb_point type;
    uint64_t addr, kind;
} fake_point;

typedef struct fake_target {
    fake_hart hart[FAKE_HARTS];
    uint8_t mem[2][FAKE_SIZE];
    fake_point points[FAKE_POINTS];
    int exit_code;
    int resumes, detached, killed;
    km_gdb_resume last_resume;
    int budget; /* FAKE_BUDGET unless a test makes it small */
} fake_target;

static inline uint32_t fake_i(int op, int rd, int f3, int rs1, int imm)
{
    return (uint32_t)imm << 20 | (uint32_t)rs1 << 15 | (uint32_t)f3 << 12 | (uint32_t)rd << 7 | (uint32_t)op;
}
static inline uint32_t fake_s(int f3, int rs1, int rs2, int imm)
{
    return (uint32_t)(imm >> 5 & 0x7f) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 |
           (uint32_t)f3 << 12 | (uint32_t)(imm & 0x1f) << 7 | 0x23;
}
static inline uint32_t fake_bne(int rs1, int rs2, int off)
{
    uint32_t o = (uint32_t)off;
    return (o >> 12 & 1) << 31 | (o >> 5 & 0x3f) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 |
           1u << 12 | (o >> 1 & 0xf) << 8 | (o >> 11 & 1) << 7 | 0x63;
}

/* The program every hart runs: counts t0 to 3, storing each count to its
 * word, then exits with a0 = 0.
 *   0x00 addi t0, zero, 0
 *   0x04 addi t0, t0, 1      <- the loop
 *   0x08 sd   t0, 0(gp)
 *   0x0c addi t1, t0, -3
 *   0x10 bne  t1, zero, -12
 *   0x14 addi a0, zero, 0
 *   0x18 ecall                                                          */
enum { FAKE_LOOP = 0x04, FAKE_STORE = 0x08, FAKE_EXIT = 0x18 };

static inline void fake_put32(uint8_t *m, uint64_t off, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        m[off + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

static inline int fake_cluster(int thread)
{
    return thread / 2;
}

static inline void fake_init(fake_target *t)
{
    memset(t, 0, sizeof *t);
    t->budget = FAKE_BUDGET;
    const uint32_t prog[] = {
        fake_i(0x13, 5, 0, 0, 0), fake_i(0x13, 5, 0, 5, 1), fake_s(3, 3, 5, 0),
        fake_i(0x13, 6, 0, 5, -3 & 0xfff), fake_bne(6, 0, -12), fake_i(0x13, 10, 0, 0, 0),
        0x00000073,
    };
    for (int c = 0; c < 2; c++)
        for (size_t i = 0; i < sizeof prog / sizeof *prog; i++)
            fake_put32(t->mem[c], 4 * i, prog[i]);
    for (int h = 0; h < FAKE_HARTS; h++) {
        t->hart[h].pc = FAKE_BASE;
        t->hart[h].x[3] = FAKE_DATA + 8u * (unsigned)(h % 2);
        t->hart[h].x[2] = FAKE_BASE + FAKE_SIZE - 16u * (unsigned)(h % 2);
        t->hart[h].csr[0xf14] = (uint64_t)h;
    }
}

static int fake_thread_count(void *ctx)
{
    (void)ctx;
    return FAKE_HARTS;
}

static int fake_thread_name(void *ctx, int thread, char *name, size_t size)
{
    (void)ctx;
    snprintf(name, size, "cluster %d core %d", fake_cluster(thread) + 1, thread % 2);
    return 0;
}

static int fake_read_reg(void *ctx, int thread, int regno, uint64_t *v)
{
    fake_hart *h = &((fake_target *)ctx)->hart[thread];
    if (regno < 32)
        *v = h->x[regno];
    else if (regno == KM_GDB_REG_PC)
        *v = h->pc;
    else if (regno < KM_GDB_REG_F0 + 32)
        *v = h->f[regno - KM_GDB_REG_F0];
    else if (regno >= KM_GDB_REG_CSR0 && regno < KM_GDB_REG_CSR0 + 0x1000)
        *v = h->csr[regno - KM_GDB_REG_CSR0];
    else
        return -1;
    return 0;
}

static int fake_write_reg(void *ctx, int thread, int regno, uint64_t v)
{
    fake_hart *h = &((fake_target *)ctx)->hart[thread];
    if (regno < 32)
        h->x[regno] = regno ? v : 0;
    else if (regno == KM_GDB_REG_PC)
        h->pc = v;
    else if (regno < KM_GDB_REG_F0 + 32)
        h->f[regno - KM_GDB_REG_F0] = v;
    else if (regno == KM_GDB_REG_MHARTID)
        return -1; /* read-only */
    else if (regno >= KM_GDB_REG_CSR0 && regno < KM_GDB_REG_CSR0 + 0x1000)
        h->csr[regno - KM_GDB_REG_CSR0] = v;
    else
        return -1;
    return 0;
}

static uint8_t *fake_at(fake_target *t, int thread, uint64_t addr, size_t n)
{
    if (addr < FAKE_BASE || n > FAKE_SIZE || addr - FAKE_BASE > FAKE_SIZE - n)
        return NULL;
    return t->mem[fake_cluster(thread)] + (addr - FAKE_BASE);
}

static int fake_read_mem(void *ctx, int thread, uint64_t addr, uint8_t *buf, size_t n)
{
    uint8_t *p = fake_at(ctx, thread, addr, n);
    if (!p)
        return -1;
    memcpy(buf, p, n);
    return 0;
}

static int fake_write_mem(void *ctx, int thread, uint64_t addr, const uint8_t *buf, size_t n)
{
    uint8_t *p = fake_at(ctx, thread, addr, n);
    if (!p)
        return -1;
    memcpy(p, buf, n);
    return 0;
}

static int fake_insert_point(void *ctx, km_gdb_point type, uint64_t addr, uint64_t kind)
{
    fake_target *t = ctx;
    for (int i = 0; i < FAKE_POINTS; i++)
        if (!t->points[i].used) {
            t->points[i] = (fake_point){true, type, addr, kind};
            return 0;
        }
    return -1; /* out of triggers */
}

static int fake_remove_point(void *ctx, km_gdb_point type, uint64_t addr, uint64_t kind)
{
    fake_target *t = ctx;
    for (int i = 0; i < FAKE_POINTS; i++)
        if (t->points[i].used && t->points[i].type == type && t->points[i].addr == addr) {
            t->points[i].used = false;
            return 0;
        }
    return -1;
}

/* A point of `type` (or an access one, for watches) that covers
 * [addr, addr + n). */
static bool fake_hit(fake_target *t, km_gdb_point type, uint64_t addr, uint64_t n)
{
    for (int i = 0; i < FAKE_POINTS; i++) {
        fake_point *p = &t->points[i];
        if (!p->used)
            continue;
        if (type <= KM_GDB_HW_BREAK ? p->type == type && p->addr == addr
                                    : (p->type == type || p->type == KM_GDB_WATCH_ACCESS) &&
                                          addr < p->addr + p->kind && p->addr < addr + n)
            return true;
    }
    return false;
}

/* One instruction of hart `h`, or a stop before it (a breakpoint, a
 * watchpoint: as a RISC-V trigger with timing "before" fires).  Returns
 * true when *stop was filled. */
static bool fake_step(fake_target *t, int h, bool check_points, km_gdb_stop *stop)
{
    fake_hart *r = &t->hart[h];
    uint8_t *ip = fake_at(t, h, r->pc, 4);
    memset(stop, 0, sizeof *stop);
    stop->thread = h;
    if (check_points && fake_hit(t, KM_GDB_SW_BREAK, r->pc, 4)) {
        stop->reason = KM_GDB_STOP_BREAK;
        return true;
    }
    if (check_points && fake_hit(t, KM_GDB_HW_BREAK, r->pc, 4)) {
        stop->reason = KM_GDB_STOP_HW_BREAK;
        return true;
    }
    if (!ip) {
        r->done = true;
        stop->reason = KM_GDB_STOP_TRAP;
        stop->cause = 1;
        return true;
    }
    uint32_t in = (uint32_t)ip[0] | (uint32_t)ip[1] << 8 | (uint32_t)ip[2] << 16 | (uint32_t)ip[3] << 24;
    int op = in & 0x7f, rd = in >> 7 & 31, f3 = in >> 12 & 7, rs1 = in >> 15 & 31, rs2 = in >> 20 & 31;
    int64_t imm_i = (int64_t)(int32_t)in >> 20;
    int64_t imm_s = (int64_t)((uint64_t)((int64_t)(int32_t)in >> 25) << 5 | (in >> 7 & 31));
    uint64_t next = r->pc + 4;
    if (op == 0x13 && f3 == 0) {
        if (rd)
            r->x[rd] = r->x[rs1] + (uint64_t)imm_i;
    } else if ((op == 0x03 || op == 0x23) && f3 == 3) {
        uint64_t a = r->x[rs1] + (uint64_t)(op == 0x03 ? imm_i : imm_s);
        km_gdb_point kind = op == 0x03 ? KM_GDB_WATCH_READ : KM_GDB_WATCH_WRITE;
        if (check_points && fake_hit(t, kind, a, 8)) {
            stop->reason = KM_GDB_STOP_WATCH;
            stop->watch = kind;
            stop->addr = a;
            return true;
        }
        uint8_t *m = fake_at(t, h, a, 8);
        if (!m) {
            r->done = true;
            stop->reason = KM_GDB_STOP_TRAP;
            stop->cause = op == 0x03 ? 5 : 7;
            return true;
        }
        if (op == 0x03) {
            uint64_t v = 0;
            for (int i = 7; i >= 0; i--)
                v = v << 8 | m[i];
            if (rd)
                r->x[rd] = v;
        } else {
            for (int i = 0; i < 8; i++)
                m[i] = (uint8_t)(r->x[rs2] >> (8 * i));
        }
    } else if (op == 0x63 && f3 == 1) {
        int64_t off = ((int64_t)(int32_t)(in & 0x80000000u) >> 19) | (in << 4 & 0x800) |
                      (in >> 20 & 0x7e0) | (in >> 7 & 0x1e);
        if (r->x[rs1] != r->x[rs2])
            next = r->pc + (uint64_t)off;
    } else if (op == 0x6f) {
        int64_t off = ((int64_t)(int32_t)(in & 0x80000000u) >> 11) | (in & 0xff000) |
                      (in >> 9 & 0x800) | (in >> 20 & 0x7fe);
        if (rd)
            r->x[rd] = next;
        next = r->pc + (uint64_t)off;
    } else if (in == 0x00000073) {
        r->done = true;
        t->exit_code = (int)r->x[10];
        r->pc = next;
        return false;
    } else {
        r->done = true;
        stop->reason = KM_GDB_STOP_TRAP;
        stop->cause = in == 0x00100073 ? 3 : 2;
        return true;
    }
    r->pc = next;
    return false;
}

static bool fake_all_done(const fake_target *t)
{
    for (int h = 0; h < FAKE_HARTS; h++)
        if (!t->hart[h].done)
            return false;
    return true;
}

static int fake_resume(void *ctx, const km_gdb_resume *how, km_gdb_poll poll, void *poll_arg,
                       km_gdb_stop *stop)
{
    fake_target *t = ctx;
    t->resumes++;
    t->last_resume = *how;
    if (how->step) {
        /* The others stay still even when they may run: a step is one
         * instruction of one core. */
        if (!t->hart[how->thread].done && fake_step(t, how->thread, true, stop))
            return 0;
        memset(stop, 0, sizeof *stop);
        stop->reason = fake_all_done(t) ? KM_GDB_STOP_EXITED : KM_GDB_STOP_STEP;
        stop->thread = how->thread;
        stop->exit_code = t->exit_code;
        return 0;
    }
    for (int n = 0; n < t->budget; n++) {
        if (n % 256 == 0 && poll && poll(poll_arg)) {
            memset(stop, 0, sizeof *stop);
            stop->reason = KM_GDB_STOP_INTERRUPT;
            return 0;
        }
        if (fake_all_done(t)) {
            memset(stop, 0, sizeof *stop);
            stop->reason = KM_GDB_STOP_EXITED;
            stop->exit_code = t->exit_code;
            return 0;
        }
        int h = n % FAKE_HARTS;
        if (!how->others && h != how->thread)
            continue;
        if (!t->hart[h].done && fake_step(t, h, true, stop))
            return 0;
        if (!how->others && t->hart[h].done) {
            /* The one thread let run has ended; the rest still wait. */
            memset(stop, 0, sizeof *stop);
            stop->reason = KM_GDB_STOP_TRAP;
            stop->thread = h;
            stop->cause = 11;
            return 0;
        }
    }
    memset(stop, 0, sizeof *stop);
    stop->reason = KM_GDB_STOP_STUCK;
    return 0;
}

static void fake_detach(void *ctx)
{
    ((fake_target *)ctx)->detached++;
}

static void fake_kill(void *ctx)
{
    ((fake_target *)ctx)->killed++;
}

static const km_gdb_target_ops fake_ops = {
    .thread_count = fake_thread_count,
    .thread_name = fake_thread_name,
    .read_reg = fake_read_reg,
    .write_reg = fake_write_reg,
    .read_mem = fake_read_mem,
    .write_mem = fake_write_mem,
    .insert_point = fake_insert_point,
    .remove_point = fake_remove_point,
    .resume = fake_resume,
    .detach = fake_detach,
    .kill = fake_kill,
};

#endif
