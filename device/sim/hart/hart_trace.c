/* hart_trace: one instruction at a time with what it did (sim_hart_step),
 * and that record as a line of Spike's commit log (sim_commit_text).
 *
 * A step is sim_hart_run with a limit one cycle on: every instruction and
 * every trap takes at least a cycle, and the run stops at the first
 * instruction boundary at or past its limit, so a step runs exactly what
 * the next instruction-by-instruction run would, with the same modeled
 * time.  What it wrote is read from the decoded entry (which register the
 * operation writes: Spike logs a write even when the value is unchanged)
 * and from the hart after; what it touched in memory, from the slow paths
 * (a run starts with an empty one-entry RAM cache, so a step's accesses
 * all take them).
 *
 * The format is Spike's (riscv-isa-sim, riscv/execute.cc,
 * commit_log_print_insn): "core   N: P 0xPC (0xBITS)", then each write
 * ordered by register number within x, f, CSR as Spike keys them
 * (number << 4 | kind), " x5  0x..." / " f10 0x..." / " c1_fflags
 * 0x...", then " mem 0xADDR" for a load and " mem 0xADDR 0xVALUE" for a
 * store (the value as wide as the store).  A composite fcsr write is
 * logged as its fflags and frm parts, as Spike's composite CSR does.  A
 * trapping instruction gets no line, as in Spike.
 *
 * sim_hart_run_recorded hands the same records, unformatted, to an owner
 * that keeps them its own way (the card's traced cores). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hart_internal.h"

enum { CSR_FFLAGS = 0x001, CSR_FRM = 0x002, CSR_FCSR = 0x003, CSR_MSTATUS = 0x300 };

/* The FP operations whose result goes to x[rd]: compares, conversions to
 * an integer, fmv.x and fclass (OP-FP funct5 0x14, 0x18, 0x1c). */
static bool fpu_writes_x(uint32_t bits)
{
    unsigned f5 = bits >> 27;
    return (bits & 0x7f) == 0x53 && (f5 == 0x14 || f5 == 0x18 || f5 == 0x1c);
}

static bool writes_x(const sim_insn *d)
{
    switch (d->op) {
    case SIM_OP_BLOCK_END: case SIM_OP_ILLEGAL: case SIM_OP_FETCH_FAULT: case SIM_OP_NOP:
    case SIM_OP_BEQ: case SIM_OP_BNE: case SIM_OP_BLT: case SIM_OP_BGE: case SIM_OP_BLTU:
    case SIM_OP_BGEU:
    case SIM_OP_SB: case SIM_OP_SH: case SIM_OP_SW: case SIM_OP_SD:
    case SIM_OP_FENCE_I: case SIM_OP_ECALL: case SIM_OP_EBREAK: case SIM_OP_MRET: case SIM_OP_WFI:
    case SIM_OP_FLW: case SIM_OP_FLD: case SIM_OP_FSW: case SIM_OP_FSD:
    case SIM_OP_FLH: case SIM_OP_FSH:
        return false;
    case SIM_OP_FPU:
        return fpu_writes_x(d->bits);
    case SIM_OP_VEC:
        return sim_vec_writes_x(&d->vec);
    default:
        return true;
    }
}

static bool writes_f(const sim_insn *d)
{
    return d->op == SIM_OP_FLW || d->op == SIM_OP_FLD || d->op == SIM_OP_FLH ||
           (d->op == SIM_OP_FPU && !fpu_writes_x(d->bits)) ||
           (d->op == SIM_OP_VEC && sim_vec_writes_f(&d->vec));
}

static void add_write(sim_commit *c, char file, unsigned num, uint64_t value)
{
    if (c->nwrites < SIM_COMMIT_MAX_WRITES)
        c->writes[c->nwrites++] = (sim_commit_write){file, num, value};
}

static void add_csr(sim_commit *c, sim_hart *h, unsigned csr)
{
    uint64_t v = 0;
    if (csr == CSR_FCSR) {
        add_csr(c, h, CSR_FFLAGS);
        add_csr(c, h, CSR_FRM);
        return;
    }
    for (unsigned i = 0; i < c->nwrites; i++)
        if (c->writes[i].file == 'c' && c->writes[i].num == csr)
            return;
    if (sim_hart_csr_read(h, csr, &v))
        add_write(c, 'c', csr, v);
}

/* Spike's key for a write: number << 4 | kind (x 0, f 1, CSR 4). */
static uint64_t key(char file, unsigned num)
{
    return ((uint64_t)num << 4) | (file == 'x' ? 0 : file == 'f' ? 1 : 4);
}

static void sort_writes(sim_commit *c)
{
    for (unsigned i = 1; i < c->nwrites; i++)
        for (unsigned j = i; j > 0 && key(c->writes[j].file, c->writes[j].num) <
                                          key(c->writes[j - 1].file, c->writes[j - 1].num);
             j--) {
            sim_commit_write t = c->writes[j];
            c->writes[j] = c->writes[j - 1];
            c->writes[j - 1] = t;
        }
}

/* The entry the hart will run for pc: the decoded one if there is one
 * (code stored over without fence.i still runs as decoded), else what
 * decoding it now gives. */
static void entry_at(sim_hart *h, sim_insn *d)
{
    uint64_t off = h->pc - h->code_base;
    memset(d, 0, sizeof *d);
    if (off >= h->code_size || (h->pc & 1))
        return; /* it will fault: no line */
    const sim_insn *e = h->icache->map[off >> 1];
    while (e && (e->op == SIM_OP_PROBE || e->op == SIM_OP_TRIGGER || e->op == SIM_OP_PMP))
        e++;
    if (e)
        *d = *e;
    else
        sim_decode_at(h, h->pc, d);
}

bool sim_hart_step(sim_hart *h, uint64_t until_cycle, sim_commit *c)
{
    if (h->state != SIM_HART_RUNNING || h->cycle >= until_cycle || !h->icache)
        return false;
    sim_insn d;
    entry_at(h, &d);
    memset(c, 0, sizeof *c);
    c->pc = h->pc;
    c->cycle = h->cycle;
    c->bits = d.bits;
    c->len = d.len;
    uint64_t traps = h->traps, instret = h->instret, mstatus = h->mstatus;
    /* Spike logs fflags when an FP operation raises a flag, set before
     * or not: run it with the flags clear to see what it raised. */
    uint32_t fflags = h->fcsr & 0x1f;
    bool fp = d.op == SIM_OP_FPU;
    if (fp)
        h->fcsr &= ~0x1fu;

    h->commit = c;
    sim_hart_run(h, h->cycle + 1);
    h->commit = NULL;

    uint32_t raised = fp ? h->fcsr & 0x1f : 0;
    if (fp)
        h->fcsr |= fflags;
    /* a trap retires nothing; nor does a run an observer's probe or watch
     * stopped before the instruction (it runs again, and is logged then) */
    if (h->traps != traps || h->instret == instret)
        return false;

    if (writes_x(&d) && d.rd != 0)
        add_write(c, 'x', d.rd, h->x[d.rd]);
    if (writes_f(&d))
        add_write(c, 'f', d.rd, h->f[d.rd]);
    if (d.op == SIM_OP_CSR && ((d.aux & 3) == 1 || d.rs1 != 0))
        add_csr(c, h, (unsigned)d.imm & 0xfff);
    if (raised)
        add_csr(c, h, CSR_FFLAGS);
    if (h->mstatus != mstatus)
        add_csr(c, h, CSR_MSTATUS);
    sort_writes(c);
    return true;
}

static const char *csr_name(unsigned csr)
{
    static const char *const pmpaddr[16] = {
        "pmpaddr0", "pmpaddr1", "pmpaddr2",  "pmpaddr3",  "pmpaddr4",  "pmpaddr5",
        "pmpaddr6", "pmpaddr7", "pmpaddr8",  "pmpaddr9",  "pmpaddr10", "pmpaddr11",
        "pmpaddr12", "pmpaddr13", "pmpaddr14", "pmpaddr15"};
    if (csr >= 0x3b0 && csr <= 0x3bf)
        return pmpaddr[csr - 0x3b0];
    switch (csr) {
    case 0x001: return "fflags";
    case 0x002: return "frm";
    case 0x003: return "fcsr";
    case 0x300: return "mstatus";
    case 0x301: return "misa";
    case 0x304: return "mie";
    case 0x305: return "mtvec";
    case 0x340: return "mscratch";
    case 0x341: return "mepc";
    case 0x342: return "mcause";
    case 0x343: return "mtval";
    case 0x344: return "mip";
    case 0x3a0: return "pmpcfg0";
    case 0x3a2: return "pmpcfg2";
    case 0xb00: return "mcycle";
    case 0xb02: return "minstret";
    default: return "unknown";
    }
}

unsigned sim_commit_text(const sim_commit *c, unsigned core, char *buf, unsigned n)
{
    unsigned at = 0;
#define PUT(...)                                                                               \
    do {                                                                                       \
        int k_ = snprintf(buf + at, at < n ? n - at : 0, __VA_ARGS__);                         \
        if (k_ > 0)                                                                            \
            at += (unsigned)k_;                                                                \
    } while (0)
    PUT("core%4u: 3 0x%016" PRIx64 " (0x%0*" PRIx32 ")", core, c->pc, c->len == 2 ? 4 : 8,
        c->bits);
    for (unsigned i = 0; i < c->nwrites; i++) {
        if (c->writes[i].file == 'c')
            PUT(" c%u_%s 0x%016" PRIx64, c->writes[i].num, csr_name(c->writes[i].num),
                c->writes[i].value);
        else
            PUT(" %c%-2u 0x%016" PRIx64, c->writes[i].file, c->writes[i].num,
                c->writes[i].value);
    }
    if (c->load)
        PUT(" mem 0x%016" PRIx64, c->load_addr);
    if (c->store)
        PUT(" mem 0x%016" PRIx64 " 0x%0*" PRIx64, c->store_addr, (int)c->store_size * 2,
            c->store_value);
#undef PUT
    return at < n ? at : n - 1;
}

void sim_hart_run_traced(sim_hart *h, uint64_t until_cycle, unsigned core, uint64_t skip_pc,
                         void (*line)(void *ctx, const char *text), void *ctx)
{
    sim_commit c;
    char text[SIM_COMMIT_TEXT_MAX];
    while (h->state == SIM_HART_RUNNING && h->cycle < until_cycle) {
        if (!sim_hart_step(h, until_cycle, &c) || (skip_pc && c.pc == skip_pc))
            continue;
        sim_commit_text(&c, core, text, sizeof text);
        line(ctx, text);
    }
}

bool sim_hart_run_recorded(sim_hart *h, uint64_t until_cycle, uint64_t clock_offset,
                           bool (*rec)(void *ctx, const sim_commit *c), void *ctx)
{
    sim_commit c;
    while (h->state == SIM_HART_RUNNING && h->cycle < until_cycle) {
        if (!sim_hart_step(h, until_cycle, &c))
            continue;
        c.cycle += clock_offset;
        if (!rec(ctx, &c)) {
            sim_hart_run(h, until_cycle);
            return false;
        }
    }
    return true;
}
