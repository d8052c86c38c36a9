/* sim_exec: a bare-metal RV64 ELF on one simulated hart (sim_exec.h). */
#include "sim_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_elf.h"
#include "ks_text.h"
#include "sim_exec_internal.h"

typedef struct span {
    uint64_t lo, hi; /* page-aligned, hi exclusive */
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts the spans and merges those that overlap or touch; the new count. */
static unsigned merge_spans(span *s, unsigned n)
{
    qsort(s, n, sizeof *s, span_cmp);
    unsigned out = 0;
    for (unsigned i = 0; i < n; i++) {
        if (out > 0 && s[i].lo <= s[out - 1].hi) {
            if (s[i].hi > s[out - 1].hi)
                s[out - 1].hi = s[i].hi;
        } else {
            s[out++] = s[i];
        }
    }
    return out;
}

/* ---- the tohost device: the 64-byte line holding `tohost` ---- */

static bool in_line(const sim_exec *x, uint64_t addr)
{
    return x->has_tohost && addr - x->line < LINE;
}

static int dev_load(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size,
                    uint64_t *value)
{
    sim_exec *x = m->ctx;
    if (!in_line(x, addr) || addr - x->line + size > LINE)
        return SIM_CAUSE_LOAD_ACCESS;
    uint64_t v = 0;
    memcpy(&v, x->line_host + (addr - x->line), size); /* little endian */
    *value = v;
    return 0;
}

static int dev_store(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size,
                     uint64_t value)
{
    sim_exec *x = m->ctx;
    if (addr == 0 && x->catcher && h->pc == x->catcher) {
        /* A trap with no handler: the catch point's store. */
        x->caught = true;
        x->caught_cause = h->mcause;
        x->caught_epc = h->mepc;
        x->caught_tval = h->mtval;
        x->caught_instret = h->instret;
        x->caught_cycle = h->cycle;
        sim_hart_halt(h);
        return 0;
    }
    if (!in_line(x, addr) || addr - x->line + size > LINE)
        return SIM_CAUSE_STORE_ACCESS;
    memcpy(x->line_host + (addr - x->line), &value, size);
    if (addr < x->tohost + 8 && x->tohost < addr + size) {
        uint64_t v;
        memcpy(&v, x->line_host + (x->tohost - x->line), 8);
        if (v & 1) {
            x->exited = true;
            x->exit_code = v >> 1;
            h->state = SIM_HART_HALTED;
        }
    }
    return 0;
}

/* A trap taken while mtvec is still the catch point: recorded here, as
 * the catch point's store would record it, and the hart halted at the
 * catch point once the trap is taken, before it fetches or stores
 * anything there (a locked PMP entry may deny either: the program's own
 * trap is still the one reported).  Its instructions and cycles are the
 * hart's when the run returns (sim_exec_ended): the trap's cycle counted,
 * nothing after. */
static bool on_trap(void *ctx, sim_hart *h, uint64_t cause, uint64_t tval)
{
    sim_exec *x = ctx;
    if (!x->catcher || h->mtvec != x->catcher || x->caught)
        return false;
    x->caught = x->caught_at_trap = true;
    x->caught_cause = cause;
    x->caught_epc = h->pc;
    x->caught_tval = tval;
    sim_hart_halt(h);
    return true;
}

static uint64_t dev_mtime(sim_mem *m, sim_hart *h)
{
    return h->cycle / CYCLES_PER_MTIME_TICK;
}

/* ---- loading ---- */

static bool find_tohost(const ks_elf *e, uint64_t *addr)
{
    size_t symtab = ks_elf_find_section(e, SHT_SYMTAB), n, strtab;
    if (!symtab || !ks_elf_symtab(e, symtab, &n, &strtab))
        return false;
    for (size_t i = 1; i < n; i++) {
        Elf64_Sym s;
        if (!ks_elf_symbol(e, symtab, i, &s) || s.st_shndx == SHN_UNDEF)
            continue;
        const char *name = ks_elf_string(e, strtab, s.st_name);
        if (name && strcmp(name, "tohost") == 0) {
            *addr = s.st_value;
            return true;
        }
    }
    return false;
}

static const char *type_name(unsigned t)
{
    switch (t) {
    case ET_REL: return "a relocatable object (not linked)";
    case ET_DYN: return "a shared object or position-independent executable";
    case ET_CORE: return "a core dump";
    default: return "not an executable";
    }
}

/* Whether segment p holds address a. */
static bool holds(const Elf64_Phdr *p, uint64_t a)
{
    return a - p->p_vaddr < p->p_memsz;
}

/* Which loadable segments are code, the hart's code range (before the
 * catch point and fetch_from_all widen it).  p_flags do not decide what
 * loads, nor what may run: Spike and QEMU load every PT_LOAD whatever its
 * flags and fetch from any of them, and the official riscv-tests, linked
 * by riscv-test-env's env/p/link.ld since it asked for FLAGS(SHF_ALLOC |
 * SHF_EXECINSTR), have one PT_LOAD with p_flags 0.  So: the segments with
 * PF_X, and the one holding the entry point; in a file with no PF_X at
 * all, every segment (but only the entry's when together they span more
 * than FETCH_SPAN_MAX, what the decoded code's map may cover). */
static bool is_code(const ks_elf *e, const Elf64_Phdr *p, bool all)
{
    return all || (p->p_flags & PF_X) || holds(p, e->eh.e_entry);
}

/* Checks what sim_exec needs of the file's header and segments, and
 * collects the loadable spans and the code range. */
static int check_elf(sim_exec *x, const ks_elf *e, const char *subject,
                     span *spans, unsigned *nspans, ks_error *err)
{
    char m[48], a[32], b[32];
    if (e->eh.e_machine != EM_RISCV)
        return ks_fail(err, KS_ERR_IMAGE,
                       "%s is an ELF file for %s; expected RISC-V (RV64)",
                       subject, ks_elf_machine_name(e->eh.e_machine, m, sizeof m));
    if (e->eh.e_type != ET_EXEC)
        return ks_fail(err, KS_ERR_IMAGE,
                       "%s is %s; expected a linked executable (ET_EXEC)",
                       subject, type_name(e->eh.e_type));
    unsigned n = 0;
    uint64_t code_lo = UINT64_MAX, code_hi = 0, total = 0;
    uint64_t all_lo = UINT64_MAX, all_hi = 0;
    bool entry_ok = false, any_x = false;
    for (size_t i = 0; i < e->phnum; i++) {
        const Elf64_Phdr *p = &e->ph[i];
        if (p->p_type != PT_LOAD || p->p_memsz == 0)
            continue;
        if (p->p_filesz > p->p_memsz)
            return ks_fail(err, KS_ERR_IMAGE,
                           "%s is corrupt: segment %zu has more bytes in the "
                           "file (%s) than in memory (%s)", subject, i,
                           ks_thousands(p->p_filesz, a, sizeof a),
                           ks_thousands(p->p_memsz, b, sizeof b));
        if (p->p_vaddr > UINT64_MAX - PAGE - p->p_memsz)
            return ks_fail(err, KS_ERR_IMAGE,
                           "%s: segment %zu (%s bytes at 0x%llx) runs past the "
                           "end of the address space", subject, i,
                           ks_thousands(p->p_memsz, a, sizeof a),
                           (unsigned long long)p->p_vaddr);
        if (p->p_memsz > SIM_EXEC_MAX_BYTES)
            return ks_fail(err, KS_ERR_IMAGE,
                           "%s: segment %zu is %s bytes; kmrun exec maps at "
                           "most %s bytes", subject, i,
                           ks_thousands(p->p_memsz, a, sizeof a),
                           ks_thousands(SIM_EXEC_MAX_BYTES, b, sizeof b));
        if (n == SIM_MEM_MAX_RAM)
            return ks_fail(err, KS_ERR_IMAGE,
                           "%s has more than %u loadable segments", subject,
                           SIM_MEM_MAX_RAM);
        spans[n].lo = p->p_vaddr & ~(uint64_t)(PAGE - 1);
        spans[n].hi = (p->p_vaddr + p->p_memsz + PAGE - 1) & ~(uint64_t)(PAGE - 1);
        total += spans[n].hi - spans[n].lo;
        n++;
        any_x |= (p->p_flags & PF_X) != 0;
        entry_ok |= holds(p, e->eh.e_entry);
        if (p->p_vaddr < all_lo)
            all_lo = p->p_vaddr;
        if (p->p_vaddr + p->p_memsz > all_hi)
            all_hi = p->p_vaddr + p->p_memsz;
    }
    if (n == 0)
        return ks_fail(err, KS_ERR_IMAGE, "%s has no loadable segment",
                       subject);
    if (!entry_ok)
        return ks_fail(err, KS_ERR_IMAGE,
                       "%s: its entry point 0x%llx is not in a loadable "
                       "segment", subject, (unsigned long long)e->eh.e_entry);
    if (total > SIM_EXEC_MAX_BYTES)
        return ks_fail(err, KS_ERR_IMAGE,
                       "%s: its segments span %s bytes; kmrun exec maps at "
                       "most %s bytes", subject, ks_thousands(total, a, sizeof a),
                       ks_thousands(SIM_EXEC_MAX_BYTES, b, sizeof b));
    bool all = !any_x && all_hi - all_lo <= FETCH_SPAN_MAX;
    for (size_t i = 0; i < e->phnum; i++) {
        const Elf64_Phdr *p = &e->ph[i];
        if (p->p_type != PT_LOAD || p->p_memsz == 0 || !is_code(e, p, all))
            continue;
        if (p->p_vaddr < code_lo)
            code_lo = p->p_vaddr;
        if (p->p_vaddr + p->p_memsz > code_hi)
            code_hi = p->p_vaddr + p->p_memsz;
    }
    x->entry = e->eh.e_entry;
    x->code_base = code_lo;
    x->code_size = code_hi - code_lo;
    *nspans = n;
    return KS_OK;
}

/* The catch point: the first word past the code, when no segment's
 * bytes are there; in the code range, in RAM (a page of its own when the
 * code ends on a page boundary).  x->catcher stays 0 when it cannot be
 * placed (another segment right after the code). */
static void place_catcher(sim_exec *x, const ks_elf *e, span *spans, unsigned *n)
{
    uint64_t c = (x->code_base + x->code_size + 3) & ~(uint64_t)3;
    for (size_t i = 0; i < e->phnum; i++) {
        const Elf64_Phdr *p = &e->ph[i];
        if (p->p_type == PT_LOAD && p->p_memsz && c < p->p_vaddr + p->p_memsz &&
            p->p_vaddr < c + 4)
            return;
    }
    bool mapped = false;
    for (unsigned i = 0; i < *n; i++)
        if (c >= spans[i].lo && c < spans[i].hi)
            mapped = true;
    if (!mapped) {
        uint64_t page = c & ~(uint64_t)(PAGE - 1);
        spans[(*n)++] = (span){page, page + PAGE};
    }
    x->catcher = c;
    x->code_size = c + 4 - x->code_base;
}

/* A hart fetches from any memory it can reach, as a real one does: the
 * code range grows from the code segments (is_code) to the span of every
 * range loaded (data, the stack), so code written at run time runs after
 * fence.i; where nothing answers inside the span, a fetch still faults. */
static void fetch_from_all(sim_exec *x, const span *spans, unsigned n)
{
    uint64_t lo = x->code_base, hi = x->code_base + x->code_size;
    for (unsigned i = 0; i < n; i++) {
        if (spans[i].lo < lo)
            lo = spans[i].lo;
        if (spans[i].hi > hi)
            hi = spans[i].hi;
    }
    if (hi - lo <= FETCH_SPAN_MAX) {
        x->code_base = lo;
        x->code_size = hi - lo;
    }
}

/* The stack: 64 KiB below the lowest page, or above the highest; false
 * when neither has room. */
static bool place_stack(sim_exec *x, span *spans, unsigned *n)
{
    uint64_t lowest = UINT64_MAX, highest = 0;
    for (unsigned i = 0; i < *n; i++) {
        if (spans[i].lo < lowest)
            lowest = spans[i].lo;
        if (spans[i].hi > highest)
            highest = spans[i].hi;
    }
    if (lowest >= SIM_EXEC_STACK_SIZE)
        x->stack_base = lowest - SIM_EXEC_STACK_SIZE;
    else if (highest <= UINT64_MAX - SIM_EXEC_STACK_SIZE)
        x->stack_base = highest;
    else
        return false;
    x->stack_top = x->stack_base + SIM_EXEC_STACK_SIZE;
    spans[(*n)++] = (span){x->stack_base, x->stack_top};
    return true;
}

static int add_ram(sim_exec *x, uint64_t lo, uint64_t hi, uint8_t *host,
                   const char *subject, ks_error *err)
{
    if (lo == hi)
        return KS_OK;
    if (x->mem.nram == SIM_MEM_MAX_RAM)
        return ks_fail(err, KS_ERR_IMAGE,
                       "%s needs more than %u separate memory ranges (its "
                       "segments, the stack and the tohost line)", subject,
                       SIM_MEM_MAX_RAM);
    x->mem.ram[x->mem.nram++] = (sim_ram){lo, hi - lo, host, 0};
    return KS_OK;
}

static void release(sim_exec *x);

static int load(sim_exec *x, const char *path, bool *no_tohost, ks_error *err)
{
    memset(x, 0, sizeof *x);
    char subject[1100];
    snprintf(subject, sizeof subject, "'%s'", path);
    ks_elf e;
    int rc = ks_elf_open(&e, path, subject, err);
    if (rc != KS_OK)
        return rc;

    span spans[SIM_MEM_MAX_RAM + 2];
    unsigned n = 0;
    rc = check_elf(x, &e, subject, spans, &n, err);
    if (rc != KS_OK)
        goto fail;
    place_catcher(x, &e, spans, &n);
    if (!place_stack(x, spans, &n)) {
        rc = ks_fail(err, KS_ERR_IMAGE,
                     "%s leaves no room for a 64 KiB stack below or above its "
                     "segments", subject);
        goto fail;
    }
    n = merge_spans(spans, n);
    fetch_from_all(x, spans, n);
    if (n > SIM_MEM_MAX_RAM) {
        rc = ks_fail(err, KS_ERR_IMAGE,
                     "%s needs more than %u separate memory ranges (its "
                     "segments and the stack)", subject, SIM_MEM_MAX_RAM);
        goto fail;
    }

    x->has_tohost = find_tohost(&e, &x->tohost);
    if (x->has_tohost && (x->tohost & 7)) {
        rc = ks_fail(err, KS_ERR_IMAGE,
                     "%s: its 'tohost' (0x%llx) is not 8-byte aligned",
                     subject, (unsigned long long)x->tohost);
        goto fail;
    }
    x->line = x->tohost & ~(uint64_t)(LINE - 1);

    for (unsigned i = 0; i < n; i++) {
        uint8_t *host = calloc(1, (size_t)(spans[i].hi - spans[i].lo));
        if (!host) {
            rc = ks_fail(err, KS_ERR_SYSTEM,
                         "cannot load %s: out of memory", subject);
            goto fail;
        }
        x->buf[x->nbuf++] = host;
    }
    for (size_t i = 0; i < e.phnum; i++) {
        const Elf64_Phdr *p = &e.ph[i];
        if (p->p_type != PT_LOAD || p->p_filesz == 0)
            continue;
        for (unsigned k = 0; k < n; k++)
            if (p->p_vaddr >= spans[k].lo && p->p_vaddr < spans[k].hi)
                memcpy(x->buf[k] + (p->p_vaddr - spans[k].lo),
                       e.data + p->p_offset, (size_t)p->p_filesz);
    }

    if (x->catcher) {
        static const uint8_t sd_zero[4] = {0x23, 0x30, 0x00, 0x00}; /* sd zero, 0(zero) */
        for (unsigned k = 0; k < n; k++)
            if (x->catcher >= spans[k].lo && x->catcher < spans[k].hi)
                memcpy(x->buf[k] + (x->catcher - spans[k].lo), sd_zero, 4);
    }

    /* The RAM ranges, with tohost's line cut out of the one holding it. */
    for (unsigned k = 0; k < n && rc == KS_OK; k++) {
        if (x->has_tohost && x->line >= spans[k].lo && x->line < spans[k].hi) {
            x->line_host = x->buf[k] + (x->line - spans[k].lo);
            rc = add_ram(x, spans[k].lo, x->line, x->buf[k], subject, err);
            if (rc == KS_OK)
                rc = add_ram(x, x->line + LINE, spans[k].hi,
                             x->line_host + LINE, subject, err);
        } else {
            rc = add_ram(x, spans[k].lo, spans[k].hi, x->buf[k], subject, err);
        }
    }
    if (rc != KS_OK)
        goto fail;
    if (x->has_tohost && !x->line_host) {
        /* tohost outside every segment: the line is the device's alone. */
        x->line_host = calloc(1, LINE);
        if (!x->line_host) {
            rc = ks_fail(err, KS_ERR_SYSTEM, "cannot load %s: out of memory",
                         subject);
            goto fail;
        }
        x->buf[x->nbuf++] = x->line_host;
    }
    ks_elf_close(&e);

    x->mem.load = dev_load;
    x->mem.store = dev_store;
    x->mem.mtime = dev_mtime;
    x->mem.ctx = x;
    if (sim_hart_init(&x->hart, &x->mem, 0, x->entry, x->code_base,
                      x->code_size) != 0) {
        release(x);
        return ks_fail(err, KS_ERR_SYSTEM, "cannot load %s: out of memory",
                       subject);
    }
    x->hart_ready = true;
    x->hart.x[2] = x->stack_top;
    x->hart.mtvec = x->catcher;
    x->hart.on_trap = on_trap;
    x->hart.trap_ctx = x;
    *no_tohost = !x->has_tohost;
    return KS_OK;

fail:
    ks_elf_close(&e);
    release(x);
    return rc;
}

/* What load allocated; x is empty again. */
static void release(sim_exec *x)
{
    free(x->breaks);
    free(x->watches);
    sim_profile_free(x->profile);
    if (x->hart_ready)
        sim_hart_free(&x->hart);
    for (unsigned i = 0; i < x->nbuf; i++)
        free(x->buf[i]);
    memset(x, 0, sizeof *x);
}

int sim_exec_open(sim_exec **out, const char *path, bool *no_tohost, ks_error *err)
{
    *out = NULL;
    sim_exec *x = calloc(1, sizeof *x);
    if (!x)
        return ks_fail(err, KS_ERR_SYSTEM, "cannot load '%s': out of memory", path);
    int rc = load(x, path, no_tohost, err);
    if (rc != KS_OK) {
        free(x);
        return rc;
    }
    *out = x;
    return KS_OK;
}

void sim_exec_free(sim_exec *x)
{
    if (!x)
        return;
    release(x);
    free(x);
}

/* ---- running ---- */

int sim_exec_profile(sim_exec *x, ks_error *err)
{
    if (!x->profile && !(x->profile = sim_profile_new()))
        return ks_fail(err, KS_ERR_SYSTEM, "out of memory for the hart's profile");
    return KS_OK;
}

const sim_profile *sim_exec_profile_of(const sim_exec *x)
{
    return x->profile;
}

void sim_exec_trace(sim_exec *x, void (*line)(void *ctx, const char *text), void *ctx)
{
    x->trace = line;
    x->trace_ctx = ctx;
}

bool sim_exec_ended(sim_exec *x, uint64_t max_instructions, sim_exec_result *r)
{
    sim_hart *h = &x->hart;
    memset(r, 0, sizeof *r);
    if (x->caught_at_trap) { /* on_trap: the run stopped right after it */
        x->caught_at_trap = false;
        x->caught_instret = h->instret;
        x->caught_cycle = h->cycle;
    }
    if (x->caught) {
        r->end = SIM_EXEC_TRAP;
        r->mcause = x->caught_cause;
        r->mepc = x->caught_epc;
        r->mtval = x->caught_tval;
        r->instructions = x->caught_instret;
        r->cycles = x->caught_cycle;
        r->traps = h->traps;
        return true;
    }
    if (x->exited) {
        r->end = SIM_EXEC_EXIT;
        r->exit_code = x->exit_code;
    } else if (h->trapped && h->mtvec == 0 && h->pc == 0) {
        /* mtvec 0: looping on fetch faults at 0 */
        r->end = SIM_EXEC_TRAP;
        r->mcause = h->trap_cause;
        r->mepc = h->trap_epc;
        r->mtval = h->trap_tval;
    } else if (h->state == SIM_HART_WFI) {
        r->end = SIM_EXEC_WFI;
    } else if (h->instret + h->traps >= max_instructions) {
        /* A trap retires nothing, so the bound counts traps too: a
         * handler that itself traps, or an mtvec that faults, would
         * otherwise loop for ever with instret standing still. */
        r->end = SIM_EXEC_LIMIT;
    } else {
        return false;
    }
    r->instructions = h->instret;
    r->traps = h->traps;
    r->cycles = h->cycle;
    return true;
}

uint64_t sim_exec_slice_end(const sim_exec *x, uint64_t max_instructions)
{
    const sim_hart *h = &x->hart;
    uint64_t left = max_instructions - (h->instret + h->traps);
    if (left > SLICE)
        left = SLICE;
    return h->cycle > UINT64_MAX - left ? UINT64_MAX : h->cycle + left;
}

void sim_exec_run(sim_exec *x, uint64_t max_instructions, sim_exec_result *r)
{
    sim_hart *h = &x->hart;
    while (!sim_exec_ended(x, max_instructions, r)) {
        /* slices of at most SLICE cycles notice a fetch-fault loop at 0 soon */
        uint64_t until = sim_exec_slice_end(x, max_instructions);
        h->trapped = false;
        if (x->profile)
            sim_profile_run(x->profile, h, until, 0);
        else if (x->trace)
            sim_hart_run_traced(h, until, 0, x->catcher, x->trace, x->trace_ctx);
        else
            sim_hart_run(h, until);
    }
}

const char *sim_exec_end_name(sim_exec_end end)
{
    switch (end) {
    case SIM_EXEC_EXIT: return "exit";
    case SIM_EXEC_LIMIT: return "limit";
    case SIM_EXEC_TRAP: return "trap";
    case SIM_EXEC_WFI: return "wfi";
    }
    return "?";
}

const char *sim_cause_name(uint64_t mcause, char *buf, unsigned n)
{
    static const char *const names[] = {
        [0] = "instruction address misaligned",
        [1] = "instruction access fault",
        [2] = "illegal instruction",
        [3] = "breakpoint",
        [4] = "load address misaligned",
        [5] = "load access fault",
        [6] = "store/AMO address misaligned",
        [7] = "store/AMO access fault",
        [8] = "environment call from U-mode",
        [9] = "environment call from S-mode",
        [11] = "environment call from M-mode",
        [12] = "instruction page fault",
        [13] = "load page fault",
        [15] = "store/AMO page fault",
    };
    if (mcause >> 63) {
        snprintf(buf, n, "interrupt %llu",
                 (unsigned long long)(mcause & ~(1ull << 63)));
        return buf;
    }
    if (mcause < sizeof names / sizeof names[0] && names[mcause])
        return names[mcause];
    snprintf(buf, n, "exception %llu", (unsigned long long)mcause);
    return buf;
}
