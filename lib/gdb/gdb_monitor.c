/* gdb_monitor: GDB's `monitor` commands (qRcmd), kmrun's view of the
 * simulated cores that GDB's own commands do not give:
 *
 *   monitor cores     every core: its state, pc and function
 *   monitor stats     every core: instructions, cycles, memory stall cycles
 *   monitor where     every core: its pc and source file:line
 *   monitor timeline  every core's modeled time so far, as a bar (its
 *                     memory stalls marked)
 *   monitor help      these
 *
 * The text goes back as O packets (hex), then OK; an unknown command, or
 * one the target cannot answer, is a line saying so, then an error reply
 * (GDB prints the line, then its own "Protocol error with Rcmd").  The
 * text is built in g->xfer: a long one is cut, and says so. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gdb_internal.h"

typedef struct out {
    km_gdb *g;
    size_t n;
    bool cut;
} out;

static void say(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(out *o, const char *fmt, ...)
{
    size_t room = sizeof o->g->xfer - o->n;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->g->xfer + o->n, room, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= room) {
        o->cut = true;
        o->g->xfer[o->n] = '\0';
        return;
    }
    o->n += (size_t)k;
}

/* The text as O packets, each as much as a reply holds. */
static void send_text(out *o)
{
    static const char cut[] = "... (cut: more than the monitor's buffer holds)\n";
    if (o->cut && o->n + sizeof cut <= sizeof o->g->xfer) {
        memcpy(o->g->xfer + o->n, cut, sizeof cut - 1);
        o->n += sizeof cut - 1;
    }
    km_gdb *g = o->g;
    size_t chunk = (KM_GDB_PACKET_SIZE - 1) / 2;
    for (size_t at = 0; at < o->n; at += chunk) {
        size_t k = o->n - at < chunk ? o->n - at : chunk;
        gdb_reply_reset(g);
        gdb_put(g, "O");
        gdb_put_hex(g, (const uint8_t *)g->xfer + at, k);
        gdb_send_reply(g);
    }
    gdb_reply_reset(g);
}

static bool statuses(km_gdb *g, out *o)
{
    if (!g->ops->status) {
        say(o, "kmrun: this target keeps no state of its cores to show\n");
        return false;
    }
    return true;
}

static void name_of(km_gdb *g, int thread, char *name, size_t size)
{
    name[0] = '\0';
    if (!g->ops->thread_name || g->ops->thread_name(g->ctx, thread, name, size) != 0)
        snprintf(name, size, "thread %d", thread + 1);
}

/* pc's place, or known false. */
static void place(km_gdb *g, int thread, uint64_t pc, km_gdb_source *src)
{
    memset(src, 0, sizeof *src);
    if (!g->ops->source_of || g->ops->source_of(g->ctx, thread, pc, src) != 0)
        src->known = false;
}

static bool each_status(km_gdb *g, out *o, int thread, km_gdb_status *st)
{
    memset(st, 0, sizeof *st);
    if (g->ops->status(g->ctx, thread, st) != 0) {
        char name[GDB_NAME_BYTES];
        name_of(g, thread, name, sizeof name);
        say(o, "%-8s (its state cannot be read)\n", name);
        return false;
    }
    return true;
}

static void cores(km_gdb *g, out *o)
{
    say(o, "%-7s %-8s %-8s %-18s %s\n", "thread", "core", "state", "pc", "function");
    for (int i = 0; i < g->count; i++) {
        km_gdb_status st;
        if (!each_status(g, o, i, &st))
            continue;
        char name[GDB_NAME_BYTES];
        name_of(g, i, name, sizeof name);
        km_gdb_source src;
        place(g, i, st.pc, &src);
        say(o, "%-7d %-8s %-8s 0x%016llx %s\n", i + 1, name, st.state,
            (unsigned long long)st.pc, src.function[0] ? src.function : "??");
    }
}

static void stats(km_gdb *g, out *o)
{
    say(o, "%-7s %-8s %14s %14s %20s\n", "thread", "core", "instructions", "cycles",
        "memory_stall_cycles");
    for (int i = 0; i < g->count; i++) {
        km_gdb_status st;
        if (!each_status(g, o, i, &st))
            continue;
        char name[GDB_NAME_BYTES];
        name_of(g, i, name, sizeof name);
        say(o, "%-7d %-8s %14llu %14llu %20llu\n", i + 1, name,
            (unsigned long long)st.instructions, (unsigned long long)st.cycles,
            (unsigned long long)st.mem_cycles);
    }
}

static void where(km_gdb *g, out *o)
{
    for (int i = 0; i < g->count; i++) {
        km_gdb_status st;
        if (!each_status(g, o, i, &st))
            continue;
        char name[GDB_NAME_BYTES];
        name_of(g, i, name, sizeof name);
        km_gdb_source src;
        place(g, i, st.pc, &src);
        say(o, "%-7d %-8s 0x%016llx ", i + 1, name, (unsigned long long)st.pc);
        if (src.known)
            say(o, "%s at %s:%u\n", src.function[0] ? src.function : "??", src.file, src.line);
        else
            say(o, "%s (no line known)\n", src.function[0] ? src.function : "??");
    }
}

static void timeline(km_gdb *g, out *o)
{
    /* The run's timeline (its spans and markers) is recorded above the
     * debugger (lib/run), out of its reach: what the cores say of their
     * own time is shown instead. */
    enum { BAR = 40 };
    uint64_t most = 0;
    for (int i = 0; i < g->count; i++) {
        km_gdb_status st = {0};
        if (g->ops->status(g->ctx, i, &st) == 0 && st.ps > most)
            most = st.ps;
    }
    say(o, "each core's modeled time so far, to scale: # executing, ~ stalled on memory "
           "(the run's timeline of spans and markers is kmrun run --timeline's, written at "
           "its end)\n");
    for (int i = 0; i < g->count; i++) {
        km_gdb_status st;
        if (!each_status(g, o, i, &st))
            continue;
        char name[GDB_NAME_BYTES], bar[BAR + 1];
        name_of(g, i, name, sizeof name);
        unsigned filled = most ? (unsigned)((st.ps * BAR + most / 2) / most) : 0;
        unsigned stalled = st.cycles ? (unsigned)((st.mem_cycles * filled + st.cycles / 2) /
                                                  st.cycles)
                                     : 0;
        memset(bar, '#', filled - stalled);
        memset(bar + filled - stalled, '~', stalled);
        memset(bar + filled, '.', BAR - filled);
        bar[BAR] = '\0';
        say(o, "%-7d %-8s %-8s %s %14.3f us\n", i + 1, name, st.state, bar, (double)st.ps / 1e6);
    }
}

static const struct {
    const char *name, *help;
    void (*run)(km_gdb *g, out *o);
    bool needs_status;
} commands[] = {
    {"cores", "every core: its state, pc and function", cores, true},
    {"stats", "every core: instructions, cycles, memory stall cycles", stats, true},
    {"where", "every core: its pc and source file:line", where, true},
    {"timeline", "every core's modeled time so far", timeline, true},
    {"help", "these commands", NULL, false},
};

void gdb_monitor(km_gdb *g, const char *hex, size_t n)
{
    char cmd[256];
    out o = {.g = g};
    if (n % 2 || n / 2 >= sizeof cmd || gdb_parse_bytes(hex, n / 2, (uint8_t *)cmd) != 0) {
        gdb_error(g, GDB_E_SYNTAX);
        return;
    }
    cmd[n / 2] = '\0';
    /* the words: the command, and nothing after it */
    char *s = cmd + strspn(cmd, " \t");
    size_t len = strcspn(s, " \t");
    bool rest = s[len + strspn(s + len, " \t")] != '\0';
    s[len] = '\0';
    if (!*s)
        s = "help"; /* `monitor` alone */
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (strcmp(s, commands[i].name) != 0)
            continue;
        if (rest) {
            say(&o, "kmrun: monitor %s takes no arguments\n", s);
            send_text(&o);
            gdb_error(g, GDB_E_SYNTAX);
            return;
        }
        if (!commands[i].run) {
            say(&o, "kmrun's monitor commands:\n");
            for (size_t k = 0; k < sizeof commands / sizeof *commands; k++)
                say(&o, "  monitor %-9s %s\n", commands[k].name, commands[k].help);
        } else if (commands[i].needs_status && !statuses(g, &o)) {
            send_text(&o);
            gdb_error(g, GDB_E_TARGET);
            return;
        } else {
            commands[i].run(g, &o);
        }
        send_text(&o);
        gdb_put(g, "OK");
        return;
    }
    say(&o, "kmrun: unknown monitor command '%s' (monitor help lists them)\n", s);
    send_text(&o);
    gdb_error(g, GDB_E_SYNTAX);
}
