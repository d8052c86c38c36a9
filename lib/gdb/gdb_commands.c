/* gdb_commands: what each packet means — registers, memory, points,
 * threads, resumption and its stop reply, the queries GDB makes on
 * connecting.  Each handler checks every field before it asks the target
 * anything; what fails is an "E NN" reply, what is unknown the empty one. */
#include <stdio.h>
#include <string.h>

#include "gdb_internal.h"

/* The packet as a range, and a cursor over it. */
typedef struct cursor {
    const char *p, *end;
} cursor;

static bool starts(const km_gdb *g, const char *prefix)
{
    size_t n = strlen(prefix);
    return g->packet_len >= n && memcmp(g->packet, prefix, n) == 0;
}

static bool is(const km_gdb *g, const char *whole)
{
    return g->packet_len == strlen(whole) && memcmp(g->packet, whole, g->packet_len) == 0;
}

static bool eat(cursor *c, char ch)
{
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

static bool hex(cursor *c, uint64_t *v)
{
    return gdb_parse_hex(&c->p, c->end, v) == 0;
}

static bool at_end(const cursor *c)
{
    return c->p == c->end;
}

/* A thread id: "-1" (all), "0" (any) or a GDB id (1..count), as -1, -2 or
 * 0..count-1.  False when malformed or there is no such thread, with
 * *code the error to reply; 0 in *code on success. */
enum { THREAD_ALL = -1, THREAD_ANY = -2 };
static bool thread_id(km_gdb *g, cursor *c, int *thread, int *code)
{
    *code = GDB_E_SYNTAX;
    if (eat(c, '-')) {
        if (!eat(c, '1'))
            return false;
        *thread = THREAD_ALL;
        *code = 0;
        return true;
    }
    uint64_t id;
    if (!hex(c, &id))
        return false;
    if (id == 0) {
        *thread = THREAD_ANY;
        *code = 0;
        return true;
    }
    *code = GDB_E_THREAD;
    if (id > (uint64_t)g->count)
        return false;
    *thread = (int)id - 1;
    *code = 0;
    return true;
}

/* The thread registers and memory refer to. */
static int selected(const km_gdb *g)
{
    return g->g_thread >= 0 ? g->g_thread : g->last.thread;
}

/* ---- registers ---- */

static int read_reg(km_gdb *g, int thread, int regno, uint64_t *v)
{
    if (regno == KM_GDB_REG_FFLAGS || regno == KM_GDB_REG_FRM) {
        uint64_t fcsr;
        if (g->ops->read_reg(g->ctx, thread, KM_GDB_REG_FCSR, &fcsr) != 0)
            return -1;
        *v = regno == KM_GDB_REG_FFLAGS ? fcsr & 0x1f : fcsr >> 5 & 7;
        return 0;
    }
    return g->ops->read_reg(g->ctx, thread, regno, v);
}

static int write_reg(km_gdb *g, int thread, int regno, uint64_t v)
{
    if (regno == KM_GDB_REG_FFLAGS || regno == KM_GDB_REG_FRM) {
        uint64_t fcsr;
        if (g->ops->read_reg(g->ctx, thread, KM_GDB_REG_FCSR, &fcsr) != 0)
            return -1;
        if (regno == KM_GDB_REG_FFLAGS)
            fcsr = (fcsr & ~0x1full) | (v & 0x1f);
        else
            fcsr = (fcsr & ~0xe0ull) | (v & 7) << 5;
        v = fcsr;
        regno = KM_GDB_REG_FCSR;
    }
    return g->ops->write_reg(g->ctx, thread, regno, v);
}

static uint64_t le_value(const uint8_t *b, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static void cmd_g(km_gdb *g)
{
    if (!g->ops->read_reg)
        return;
    for (int r = 0; r < GDB_G_REGS; r++) {
        uint64_t v;
        if (read_reg(g, selected(g), r, &v) != 0) {
            gdb_error(g, GDB_E_TARGET);
            return;
        }
        gdb_put_le(g, v, 8);
    }
}

static void cmd_G(km_gdb *g)
{
    if (!g->ops->write_reg)
        return;
    if (g->packet_len != 1 + GDB_G_REGS * 16) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    uint8_t b[GDB_G_REGS * 8];
    if (gdb_parse_bytes(g->packet + 1, sizeof b, b) != 0) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    for (int r = 1; r < GDB_G_REGS; r++) /* x0 stays zero */
        if (write_reg(g, selected(g), r, le_value(b + 8 * r, 8)) != 0) {
            gdb_error(g, GDB_E_TARGET);
            return;
        }
    gdb_put(g, "OK");
}

/* p and P of vector register v: hex, the value to write (NULL: a read)
 * of n digits. */
static void vector_reg(km_gdb *g, unsigned v, const char *hex, size_t n)
{
    uint8_t b[KM_GDB_VLENB];
    if (!hex) {
        if (!g->ops->read_vreg || g->ops->read_vreg(g->ctx, selected(g), v, b) != 0)
            gdb_error(g, GDB_E_TARGET);
        else
            gdb_put_hex(g, b, sizeof b);
        return;
    }
    if (n != 2 * sizeof b || gdb_parse_bytes(hex, sizeof b, b) != 0) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    if (!g->ops->write_vreg || g->ops->write_vreg(g->ctx, selected(g), v, b) != 0)
        gdb_error(g, GDB_E_TARGET);
    else
        gdb_put(g, "OK");
}

static void cmd_p(km_gdb *g, bool write)
{
    if (write ? !g->ops->write_reg : !g->ops->read_reg)
        return;
    cursor c = {g->packet + 1, g->packet + g->packet_len};
    uint64_t regno;
    if (!hex(&c, &regno) || (write ? !eat(&c, '=') : !at_end(&c))) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    int bytes = regno > 0xffff ? 0 : gdb_reg_bytes((int)regno);
    if (bytes == 0) {
        gdb_error(g, GDB_E_REG);
        return;
    }
    if (bytes > 8) {
        vector_reg(g, (unsigned)(regno - KM_GDB_REG_V0), write ? c.p : NULL,
                   (size_t)(c.end - c.p));
        return;
    }
    if (!write) {
        uint64_t v;
        if (read_reg(g, selected(g), (int)regno, &v) != 0) {
            gdb_error(g, GDB_E_TARGET);
            return;
        }
        gdb_put_le(g, v, bytes);
        return;
    }
    uint8_t b[8];
    if ((size_t)(c.end - c.p) != 2u * (size_t)bytes ||
        gdb_parse_bytes(c.p, (size_t)bytes, b) != 0) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    if (regno == KM_GDB_REG_X0) { /* hard-wired zero: writes vanish */
        gdb_put(g, "OK");
        return;
    }
    if (write_reg(g, selected(g), (int)regno, le_value(b, bytes)) != 0)
        gdb_error(g, GDB_E_TARGET);
    else
        gdb_put(g, "OK");
}

/* ---- memory ---- */

/* "addr,len" then `sep` (or the end when sep is 0). */
static bool addr_len(cursor *c, char sep, uint64_t *addr, uint64_t *len)
{
    return hex(c, addr) && eat(c, ',') && hex(c, len) && (sep ? eat(c, sep) : at_end(c));
}

static void cmd_m(km_gdb *g)
{
    if (!g->ops->read_mem)
        return;
    cursor c = {g->packet + 1, g->packet + g->packet_len};
    uint64_t addr, len;
    if (!addr_len(&c, 0, &addr, &len) || len == 0) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    /* A read longer than a reply holds is cut short; GDB asks again for
     * the rest. */
    if (len > sizeof g->mem)
        len = sizeof g->mem;
    if (addr + len < addr)
        len = 0 - addr;
    if (g->ops->read_mem(g->ctx, selected(g), addr, g->mem, (size_t)len) != 0) {
        gdb_error(g, GDB_E_MEMORY);
        return;
    }
    gdb_put_hex(g, g->mem, (size_t)len);
}

static void cmd_M(km_gdb *g, bool binary)
{
    if (!g->ops->write_mem)
        return;
    cursor c = {g->packet + 1, g->packet + g->packet_len};
    uint64_t addr, len;
    if (!addr_len(&c, ':', &addr, &len) || len > sizeof g->mem || addr + len < addr) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    size_t n = (size_t)(c.end - c.p);
    if (binary) {
        /* The data is escaped in place (the packet buffer is ours). */
        long got = gdb_unescape(g->packet + (c.p - g->packet), n);
        if (got < 0 || (uint64_t)got != len) {
            gdb_error(g, GDB_E_SYNTAX);
            return;
        }
        memcpy(g->mem, c.p, (size_t)len);
    } else if (n != 2 * len || gdb_parse_bytes(c.p, (size_t)len, g->mem) != 0) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    /* "X addr,0:" is GDB's probe for binary writes. */
    if (len && g->ops->write_mem(g->ctx, selected(g), addr, g->mem, (size_t)len) != 0) {
        gdb_error(g, GDB_E_MEMORY);
        return;
    }
    gdb_put(g, "OK");
}

/* ---- breakpoints and watchpoints ---- */

/* ";X len,expr" after a Z packet's kind, each a condition's bytecode;
 * false when malformed or too much. */
static bool cond_list(cursor *c, km_gdb_conds *conds)
{
    size_t at = 0;
    conds->count = 0;
    while (eat(c, ';')) {
        uint64_t len;
        if (!eat(c, 'X') || !hex(c, &len) || !eat(c, ',') || conds->count == KM_GDB_MAX_CONDS ||
            len == 0 || len > KM_GDB_COND_BYTES - at || (uint64_t)(c->end - c->p) < 2 * len ||
            gdb_parse_bytes(c->p, (size_t)len, conds->code + at) != 0)
            return false;
        c->p += 2 * len;
        conds->n[conds->count++] = (uint16_t)len;
        at += (size_t)len;
    }
    return at_end(c);
}

static void cmd_Z(km_gdb *g, bool insert)
{
    int (*op)(void *, km_gdb_point, uint64_t, uint64_t) =
        insert ? g->ops->insert_point : g->ops->remove_point;
    cursor c = {g->packet + 1, g->packet + g->packet_len};
    uint64_t type, addr, kind;
    if (!hex(&c, &type) || !eat(&c, ',') || !hex(&c, &addr) || !eat(&c, ',') ||
        !hex(&c, &kind)) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    if (type > KM_GDB_WATCH_ACCESS)
        return; /* an unknown kind of point: unsupported */
    /* Conditions the target evaluates (";X..."): offered in qSupported
     * only when the target takes them, and only for breakpoints. */
    km_gdb_conds *conds = &g->conds;
    conds->count = 0;
    bool conditional = insert && type <= KM_GDB_HW_BREAK && g->ops->condition_point;
    if (conditional ? !cond_list(&c, conds) : !at_end(&c)) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    if (!op)
        return;
    if ((type <= KM_GDB_HW_BREAK && kind != 2 && kind != 4) ||
        (type >= KM_GDB_WATCH_WRITE && (kind == 0 || kind > 8))) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    if (op(g->ctx, (km_gdb_point)type, addr, kind) != 0 ||
        (conditional && g->ops->condition_point(g->ctx, (km_gdb_point)type, addr, conds) != 0))
        gdb_error(g, GDB_E_TARGET);
    else
        gdb_put(g, "OK");
}

/* ---- resumption ---- */

/* The target's poll: a Ctrl-C among the bytes already fed, or waiting on
 * the connection.  In all-stop mode the client sends nothing else while
 * the target runs but acks, which are skipped. */
static bool poll_interrupt(void *arg)
{
    km_gdb *g = arg;
    while (g->rest_n) {
        uint8_t c = *g->rest;
        if (c != 0x03 && c != '+' && c != '-')
            break;
        g->rest++;
        g->rest_n--;
        if (c == 0x03)
            return true;
    }
    if (g->io.read_now) {
        int c;
        while ((c = g->io.read_now(g->io.arg)) >= 0)
            if (c == 0x03)
                return true;
    }
    return false;
}

static int signal_of(const km_gdb_stop *s)
{
    if (s->signal > 0 && s->signal < 256)
        return s->signal;
    switch (s->reason) {
    case KM_GDB_STOP_INTERRUPT:
        return GDB_SIGINT;
    case KM_GDB_STOP_STUCK:
        return GDB_SIGXCPU;
    case KM_GDB_STOP_TRAP:
        switch (s->cause) {
        case 2:
            return GDB_SIGILL;
        case 0: case 4: case 6:
            return GDB_SIGBUS;
        case 1: case 5: case 7:
            return GDB_SIGSEGV;
        default:
            return GDB_SIGTRAP;
        }
    default:
        return GDB_SIGTRAP;
    }
}

static void stop_reply(km_gdb *g)
{
    const km_gdb_stop *s = &g->last;
    if (s->reason == KM_GDB_STOP_EXITED) {
        gdb_putf(g, "W%02x", s->exit_code & 0xff);
        return;
    }
    gdb_putf(g, "T%02xthread:%x;", signal_of(s), s->thread + 1);
    if (s->reason == KM_GDB_STOP_WATCH) {
        const char *kind = s->watch == KM_GDB_WATCH_READ     ? "rwatch"
                           : s->watch == KM_GDB_WATCH_ACCESS ? "awatch"
                                                             : "watch";
        gdb_putf(g, "%s:%llx;", kind, (unsigned long long)s->addr);
    } else if (s->reason == KM_GDB_STOP_BREAK && g->client_swbreak) {
        gdb_put(g, "swbreak:;");
    } else if (s->reason == KM_GDB_STOP_HW_BREAK && g->client_hwbreak) {
        gdb_put(g, "hwbreak:;");
    }
    /* The pc comes with the stop: GDB's first question after one. */
    uint64_t pc;
    if (g->ops->read_reg && g->ops->read_reg(g->ctx, s->thread, KM_GDB_REG_PC, &pc) == 0) {
        gdb_putf(g, "%x:", KM_GDB_REG_PC);
        gdb_put_le(g, pc, 8);
        gdb_put(g, ";");
    }
}

static void resume(km_gdb *g, const km_gdb_resume *how)
{
    if (!g->ops->resume)
        return;
    km_gdb_stop stop = {0};
    if (g->ops->resume(g->ctx, how, poll_interrupt, g, &stop) != 0) {
        gdb_error(g, GDB_E_TARGET);
        return;
    }
    if (stop.thread < 0 || stop.thread >= g->count)
        stop.thread = how->thread >= 0 ? how->thread : 0;
    g->last = stop;
    /* After a stop GDB's current thread is the one that stopped. */
    g->g_thread = g->c_thread = stop.thread;
    stop_reply(g);
    if (stop.reason == KM_GDB_STOP_EXITED)
        g->state = KM_GDB_EXITED;
}

/* c [addr] / s [addr]: resume at addr when given (the thread's pc).  c
 * runs every thread; s steps Hc's thread alone. */
static void cmd_c(km_gdb *g, bool step)
{
    int thread = g->c_thread >= 0 ? g->c_thread : g->last.thread;
    if (g->packet_len > 1) {
        cursor c = {g->packet + 1, g->packet + g->packet_len};
        uint64_t addr;
        if (!hex(&c, &addr) || !at_end(&c)) {
            gdb_error(g, GDB_E_SYNTAX);
            return;
        }
        if (!g->ops->write_reg || g->ops->write_reg(g->ctx, thread, KM_GDB_REG_PC, addr) != 0) {
            gdb_error(g, GDB_E_TARGET);
            return;
        }
    }
    km_gdb_resume how = {.thread = step ? thread : -1, .step = step, .others = !step};
    resume(g, &how);
}

/* vCont;ACTION[:TID];...: the leftmost action that names a thread wins
 * for it; an action without one is for all the others.  In all-stop GDB
 * sends at most one step, and a thread-specific continue only alone (a
 * step over a breakpoint); two threads continued by name run as all.
 * Signals (C, S) are not delivered: an X280 core has none. */
static void cmd_vcont(km_gdb *g)
{
    cursor c = {g->packet + 5, g->packet + g->packet_len};
    int step_thread = -1, cont_thread = -1, named_conts = 0;
    bool default_cont = false, default_step = false;
    while (!at_end(&c)) {
        if (!eat(&c, ';')) {
            gdb_error(g, GDB_E_SYNTAX);
            return;
        }
        char a = c.p < c.end ? *c.p++ : 0;
        uint64_t sig;
        if ((a == 'C' || a == 'S') && (!hex(&c, &sig) || sig > 0xff)) {
            gdb_error(g, GDB_E_SYNTAX);
            return;
        }
        if (a != 'c' && a != 'C' && a != 's' && a != 'S') {
            gdb_error(g, GDB_E_SYNTAX);
            return;
        }
        bool step = a == 's' || a == 'S';
        int thread = THREAD_ALL, code;
        if (eat(&c, ':') && !thread_id(g, &c, &thread, &code)) {
            gdb_error(g, code);
            return;
        }
        if (thread < 0) {
            if (step)
                default_step = true;
            else
                default_cont = true;
        } else if (step) {
            if (step_thread < 0)
                step_thread = thread;
        } else if (thread != step_thread && thread != cont_thread) {
            named_conts++;
            cont_thread = thread;
        }
    }
    km_gdb_resume how;
    if (step_thread < 0 && default_step) /* "s" for all: the current one */
        step_thread = g->c_thread >= 0 ? g->c_thread : g->last.thread;
    if (step_thread >= 0)
        how = (km_gdb_resume){.thread = step_thread, .step = true,
                              .others = default_cont || named_conts > 0};
    else if (named_conts == 1 && !default_cont)
        how = (km_gdb_resume){.thread = cont_thread, .step = false, .others = false};
    else
        how = (km_gdb_resume){.thread = -1, .step = false, .others = true};
    resume(g, &how);
}

/* ---- threads ---- */

static void cmd_H(km_gdb *g)
{
    cursor c = {g->packet + 2, g->packet + g->packet_len};
    char op = g->packet_len > 1 ? g->packet[1] : 0;
    int thread;
    int code = GDB_E_SYNTAX;
    if ((op != 'g' && op != 'c') || !thread_id(g, &c, &thread, &code) || !at_end(&c)) {
        gdb_error(g, code ? code : GDB_E_SYNTAX);
        return;
    }
    if (thread == THREAD_ALL && op == 'g') { /* registers of all at once: no */
        gdb_error(g, GDB_E_THREAD);
        return;
    }
    if (op == 'g')
        g->g_thread = thread >= 0 ? thread : -1;
    else
        g->c_thread = thread >= 0 ? thread : -1;
    gdb_put(g, "OK");
}

static void cmd_T(km_gdb *g)
{
    cursor c = {g->packet + 1, g->packet + g->packet_len};
    int thread, code;
    if (!thread_id(g, &c, &thread, &code) || !at_end(&c) || thread < 0) {
        gdb_error(g, code ? code : !at_end(&c) ? GDB_E_SYNTAX : GDB_E_THREAD);
        return;
    }
    gdb_put(g, "OK");
}

static void thread_name(km_gdb *g, int thread, char *name, size_t size)
{
    name[0] = '\0';
    if (!g->ops->thread_name || g->ops->thread_name(g->ctx, thread, name, size) != 0)
        snprintf(name, size, "thread %d", thread + 1);
    name[size - 1] = '\0';
}

static void cmd_thread_extra(km_gdb *g)
{
    cursor c = {g->packet + 17, g->packet + g->packet_len};
    int thread, code;
    if (!thread_id(g, &c, &thread, &code) || !at_end(&c) || thread < 0) {
        gdb_error(g, code ? code : !at_end(&c) ? GDB_E_SYNTAX : GDB_E_THREAD);
        return;
    }
    char name[GDB_NAME_BYTES];
    thread_name(g, thread, name, sizeof name);
    gdb_put_hex(g, (const uint8_t *)name, strlen(name));
}

static void thread_list(km_gdb *g)
{
    if (g->count == 0) {
        gdb_put(g, "l");
        return;
    }
    gdb_put(g, "m");
    for (int i = 0; i < g->count; i++)
        gdb_putf(g, i ? ",%x" : "%x", i + 1);
}

/* ---- qXfer ---- */

/* The qXfer:threads:read document into g->xfer; its length, or -1. */
static long threads_xml(km_gdb *g)
{
    size_t at = 0;
    int n = snprintf(g->xfer, sizeof g->xfer, "<?xml version=\"1.0\"?>\n<threads>\n");
    at = (size_t)n;
    for (int i = 0; i < g->count; i++) {
        char name[GDB_NAME_BYTES], safe[GDB_NAME_BYTES * 6];
        thread_name(g, i, name, sizeof name);
        size_t k = 0;
        for (const char *s = name; *s; s++) { /* XML's special characters */
            const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;"
                            : *s == '"' ? "&quot;" : NULL;
            if (e) {
                memcpy(safe + k, e, strlen(e));
                k += strlen(e);
            } else {
                safe[k++] = *s;
            }
        }
        safe[k] = '\0';
        /* The name only: an element's text would be GDB's "extra
         * info", shown again in parentheses after it. */
        n = snprintf(g->xfer + at, sizeof g->xfer - at,
                     "<thread id=\"%x\" core=\"%d\" name=\"%s\"/>\n", i + 1, i, safe);
        if (n < 0 || (size_t)n >= sizeof g->xfer - at)
            return -1;
        at += (size_t)n;
    }
    n = snprintf(g->xfer + at, sizeof g->xfer - at, "</threads>\n");
    if (n < 0 || (size_t)n >= sizeof g->xfer - at)
        return -1;
    return (long)(at + (size_t)n);
}

/* qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH */
static void cmd_xfer(km_gdb *g)
{
    const char *doc;
    long size;
    const char *args;
    if (starts(g, "qXfer:features:read:target.xml:")) {
        doc = km_gdb_target_xml();
        size = (long)strlen(doc);
        args = g->packet + strlen("qXfer:features:read:target.xml:");
    } else if (starts(g, "qXfer:threads:read::")) {
        size = threads_xml(g);
        doc = g->xfer;
        args = g->packet + strlen("qXfer:threads:read::");
    } else if (starts(g, "qXfer:features:read:")) {
        gdb_error(g, GDB_E_SYNTAX); /* an annex we do not have */
        return;
    } else {
        return; /* another object: unsupported */
    }
    if (size < 0) {
        gdb_error(g, GDB_E_TARGET);
        return;
    }
    cursor c = {args, g->packet + g->packet_len};
    uint64_t offset, length;
    if (!addr_len(&c, 0, &offset, &length)) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    if (offset >= (uint64_t)size) {
        gdb_put(g, "l");
        return;
    }
    uint64_t left = (uint64_t)size - offset;
    if (length > left)
        length = left;
    gdb_put(g, "m");
    size_t put = gdb_put_escaped(g, doc + offset, (size_t)length);
    if (put == left)
        g->reply[0] = 'l'; /* all of the rest: the last chunk */
}

/* ---- the rest of the queries ---- */

static void cmd_supported(km_gdb *g)
{
    /* The client's features, ';'-separated after the colon. */
    const char *p = g->packet + strlen("qSupported");
    const char *end = g->packet + g->packet_len;
    if (p < end && *p == ':')
        p++;
    while (p < end) {
        const char *q = memchr(p, ';', (size_t)(end - p));
        size_t n = (size_t)((q ? q : end) - p);
        if (n == 8 && memcmp(p, "swbreak+", 8) == 0)
            g->client_swbreak = true;
        if (n == 8 && memcmp(p, "hwbreak+", 8) == 0)
            g->client_hwbreak = true;
        p += n + (q != NULL);
    }
    gdb_putf(g, "PacketSize=%x;QStartNoAckMode+;qXfer:features:read+;qXfer:threads:read+;"
                "swbreak+;hwbreak+;vContSupported+%s",
             KM_GDB_PACKET_SIZE, g->ops->condition_point ? ";ConditionalBreakpoints+" : "");
}

bool gdb_command(km_gdb *g)
{
    char first = g->packet_len ? g->packet[0] : 0;
    switch (first) {
    case '?':
        if (g->packet_len == 1)
            stop_reply(g);
        else
            gdb_error(g, GDB_E_SYNTAX);
        return true;
    case 'g':
        if (g->packet_len == 1)
            cmd_g(g);
        else
            gdb_error(g, GDB_E_SYNTAX);
        return true;
    case 'G':
        cmd_G(g);
        return true;
    case 'p':
        cmd_p(g, false);
        return true;
    case 'P':
        cmd_p(g, true);
        return true;
    case 'm':
        cmd_m(g);
        return true;
    case 'M':
        cmd_M(g, false);
        return true;
    case 'X':
        cmd_M(g, true);
        return true;
    case 'Z':
    case 'z':
        cmd_Z(g, first == 'Z');
        return true;
    case 'c':
    case 's':
        cmd_c(g, first == 's');
        return true;
    case 'H':
        cmd_H(g);
        return true;
    case 'T':
        cmd_T(g);
        return true;
    case 'D':
        gdb_put(g, "OK");
        if (g->ops->detach)
            g->ops->detach(g->ctx);
        gdb_send_reply(g);
        if (g->state == KM_GDB_SERVING)
            g->state = KM_GDB_DETACHED;
        return false;
    case 'k':
        if (g->ops->kill)
            g->ops->kill(g->ctx);
        g->state = KM_GDB_KILLED;
        return false; /* k has no reply */
    default:
        break;
    }
    if (starts(g, "vCont?")) {
        if (g->ops->resume)
            gdb_put(g, "vCont;c;C;s;S");
    } else if (starts(g, "vCont;")) {
        cmd_vcont(g);
    } else if (starts(g, "vKill")) {
        if (g->ops->kill)
            g->ops->kill(g->ctx);
        gdb_put(g, "OK");
        gdb_send_reply(g);
        if (g->state == KM_GDB_SERVING)
            g->state = KM_GDB_KILLED;
        return false;
    } else if (starts(g, "qSupported")) {
        cmd_supported(g);
    } else if (is(g, "QStartNoAckMode")) {
        gdb_put(g, "OK");
        gdb_send_reply(g); /* acked by the client, as the last one */
        g->no_ack = true;
        return false;
    } else if (starts(g, "qXfer:")) {
        cmd_xfer(g);
    } else if (is(g, "qfThreadInfo")) {
        thread_list(g);
    } else if (is(g, "qsThreadInfo")) {
        gdb_put(g, "l");
    } else if (is(g, "qC")) {
        gdb_putf(g, "QC%x", g->last.thread + 1);
    } else if (starts(g, "qThreadExtraInfo,")) {
        cmd_thread_extra(g);
    } else if (starts(g, "qAttached")) {
        /* Attached: quitting GDB detaches and the run goes on to its
         * end, rather than killing it. */
        gdb_put(g, "1");
    } else if (starts(g, "qRcmd,")) {
        gdb_monitor(g, g->packet + 6, g->packet_len - 6);
    } else if (starts(g, "qSymbol:")) {
        gdb_put(g, "OK");
    }
    /* Anything else (vMustReplyEmpty among them): the empty reply. */
    return true;
}
