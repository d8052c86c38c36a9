/* kmrun_report: the public C API's words on a stopped run (include/kmrun.h)
 * — the card's findings as their diagnostic lines (km_handover.h,
 * km_wild.h, km_kernel_fault.h), and the summary a person reads after a
 * run, in pieces a caller may paint (kmrun_run_summary): written once,
 * for kmrun(1) and any other host program. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api_internal.h"
#include "km_handlers.h"
#include "km_handover.h"
#include "km_kernel_fault.h"
#include "km_run_json.h"
#include "km_wild.h"
#include "ks_text.h"

#define WORDS_SHOWN 8u

bool kmrun_program_checks_handover(const kmrun_program *p)
{
    return p && p->p->check_handover;
}

/* ---- Findings ----------------------------------------------------------- */

size_t kmrun_run_findings(const kmrun_run *r, kmrun_finding kind, uint64_t *more)
{
    if (more)
        *more = 0;
    if (!r || !r->stopped)
        return 0;
    const km_run_result *res = &r->result;
    switch (kind) {
    case KMRUN_FINDING_HANDOVER:
        return res->nhandovers;
    case KMRUN_FINDING_WILD_WRITE:
        if (more)
            *more = res->wild_more;
        return res->nwild_writes;
    case KMRUN_FINDING_KERNEL_FAULT:
        if (more)
            *more = res->kernel_faults_more;
        return res->nkernel_faults;
    }
    return 0;
}

char *kmrun_run_finding(const kmrun_run *r, kmrun_finding kind, size_t i, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    buf[0] = 0;
    if (i >= kmrun_run_findings(r, kind, NULL))
        return buf;
    const km_run_result *res = &r->result;
    if (kind == KMRUN_FINDING_HANDOVER)
        km_handover_line(&res->handovers[i], buf, n);
    else if (kind == KMRUN_FINDING_WILD_WRITE)
        km_wild_line(&res->wild_writes[i], buf, n);
    else
        km_kernel_fault_line(&res->kernel_faults[i], buf, n);
    km_api_finding_line(r, buf, n);
    return buf;
}

/* ---- The summary -------------------------------------------------------- */

typedef struct out {
    void (*put)(const char *text, kmrun_style style, void *ctx);
    void *ctx;
} out;

static void put(const out *o, kmrun_style style, const char *text)
{
    o->put(text, style, o->ctx);
}

static void putf(const out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(const out *o, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    put(o, KMRUN_STYLE_PLAIN, text);
}

/* "1,234.5 µs" of picoseconds. */
static void microseconds(uint64_t ps, char *text, size_t n)
{
    char us[40];
    km_ps_us_text(ps, us, sizeof us);
    snprintf(text, n, "%s µs", us);
}

/* " at thread/sum.c:12 (in f)", or "" when the line is not known. */
static void put_source(const out *o, const km_source *src)
{
    if (!src->known)
        return;
    put(o, KMRUN_STYLE_PLAIN, " at ");
    put(o, KMRUN_STYLE_TITLE, src->file);
    putf(o, ":%u", src->line);
    if (src->has_function) {
        put(o, KMRUN_STYLE_PLAIN, " (in ");
        put(o, KMRUN_STYLE_PLAIN, src->function);
        put(o, KMRUN_STYLE_PLAIN, ")");
    }
}

/* Why a thread did not return, under its line: what the run JSON's
 * trap, stuck and message say, so that a person need not open it. */
static void thread_why(const out *o, const km_thread_result *t)
{
    if (t->trapped) {
        const km_trap_info *x = &t->trap;
        putf(o, "    core %d.%u: ", t->cluster, x->core);
        put(o, KMRUN_STYLE_BAD, x->name);
        put(o, KMRUN_STYLE_PLAIN, " (mcause ");
        putf(o, "%" PRIu64 ", mtval 0x%" PRIx64 ", mepc 0x%" PRIx64 ")", x->mcause, x->mtval,
             x->mepc);
        put_source(o, &x->source);
        put(o, KMRUN_STYLE_PLAIN, "\n");
    }
    if (t->stuck) {
        /* The detail is the whole sentence, the core's pc and line in it. */
        const km_stuck_info *x = &t->stuck_info;
        put(o, KMRUN_STYLE_PLAIN, "    ");
        if (x->detail[0]) {
            put(o, KMRUN_STYLE_PLAIN, x->detail);
        } else {
            putf(o, "core %d.%u: ", t->cluster, x->core);
            put(o, KMRUN_STYLE_BAD, "stuck");
            putf(o, " at pc 0x%" PRIx64, x->pc);
            put_source(o, &x->source);
        }
        put(o, KMRUN_STYLE_PLAIN, "\n");
    }
    if (t->message[0]) {
        put(o, KMRUN_STYLE_PLAIN, "    ");
        put(o, KMRUN_STYLE_PLAIN, t->message);
        put(o, KMRUN_STYLE_PLAIN, "\n");
    }
}

static void thread_line(const out *o, const km_run_result *r, const km_thread_result *t)
{
    bool ok = t->state == KM_STATE_RETURNED;
    putf(o, "  cluster %d: ", t->cluster);
    put(o, ok ? KMRUN_STYLE_GOOD : KMRUN_STYLE_BAD, km_state_name(t->state));
    if (t->error != KMX_ERROR_NONE)
        putf(o, " (error %s)", km_kmx_error_name(t->error));
    if (t->has_code)
        putf(o, ", code %" PRId32, t->code);
    if (t->nwords > 0) {
        put(o, KMRUN_STYLE_PLAIN, ", words");
        for (uint32_t i = 0; i < t->nwords && i < WORDS_SHOWN; i++)
            putf(o, " %" PRIu32, t->words[i]);
        if (t->nwords > WORDS_SHOWN)
            putf(o, " ... (%" PRIu32 ")", t->nwords);
    }
    if (t->has_ticks) {
        char us[48];
        microseconds(t->ticks * (BH_PS_PER_SECOND / BH_TICKS_PER_SECOND), us, sizeof us);
        putf(o, ", %s%s", us, r->host_times ? " (host)" : "");
    }
    if (t->where != 0)
        putf(o, ", last marker %" PRIu32, t->where);
    put(o, KMRUN_STYLE_PLAIN, "\n");
    thread_why(o, t);
}

static void counters_line(const out *o, const sim_card_stats *st)
{
    uint64_t hits = 0, misses = 0, backs = 0, noc = 0, busy = 0;
    unsigned cores = 0;
    for (unsigned c = 1; c < BH_CLUSTERS; c++) {
        hits += st->clusters[c].cache_hits;
        misses += st->clusters[c].cache_misses;
        backs += st->clusters[c].write_backs;
    }
    for (unsigned k = 0; k < SIM_CARD_ROUTES; k++)
        noc += st->noc_bytes[k];
    for (unsigned k = 0; k < BH_GRID_CORES; k++) {
        busy += st->tensix_busy_ps[k];
        cores += st->tensix_handlers[k] > 0;
    }
    char h[32], m[32], b[32], n[32], t[48], d[32];
    ks_thousands(hits, h, sizeof h);
    ks_thousands(misses, m, sizeof m);
    ks_thousands(backs, b, sizeof b);
    ks_thousands(noc, n, sizeof n);
    microseconds(busy, t, sizeof t);
    ks_thousands(st->dispatcher_passes, d, sizeof d);
    putf(o, "  counters: cache %s hits, %s misses, %s write-backs; NoC %s bytes; Tensix "
            "busy %s on %u core%s; %s dispatcher passes (stats)\n",
         h, m, b, n, t, cores, cores == 1 ? "" : "s", d);
}

void kmrun_run_summary(const kmrun_run *run, double wall_seconds,
                       void (*put_fn)(const char *text, kmrun_style style, void *ctx), void *ctx)
{
    if (!run || !run->stopped || !put_fn)
        return;
    const out o = {put_fn, ctx};
    const km_program *p = run->program->p;
    const km_run_result *r = &run->result;
    char device[48], count[32];
    microseconds(r->device_ps, device, sizeof device);
    ks_thousands(r->instructions, count, sizeof count);
    put(&o, KMRUN_STYLE_TITLE, p->name);
    putf(&o, ": %s %s, %s instructions, %.2f s of this machine\n", device,
         r->host_times ? "(host)" : "modeled", count, wall_seconds);
    for (unsigned i = 0; i < r->nthreads; i++)
        thread_line(&o, r, &r->threads[i]);
    for (size_t i = 0; r->commands && i < r->ncommands; i++) {
        const km_command_result *c = &r->commands[i];
        const char *kind = !c->ended                      ? "no event"
                           : c->event == KM_EVENT_DONE    ? "done"
                           : c->event == KM_EVENT_TIMEOUT ? "timeout"
                                                          : "rejected";
        char us[48];
        microseconds(c->ps, us, sizeof us);
        putf(&o, "  command %zu ", i);
        put(&o, KMRUN_STYLE_PLAIN, p->commands[i].handler);
        put(&o, KMRUN_STYLE_PLAIN, ": ");
        put(&o, c->ended && c->event == KM_EVENT_DONE ? KMRUN_STYLE_GOOD : KMRUN_STYLE_WARN,
            kind);
        putf(&o, ", %s\n", us);
    }
    if (r->has_stats)
        counters_line(&o, &r->stats);
    uint64_t dropped = 0;
    for (unsigned c = 0; c < BH_CLUSTERS; c++)
        for (unsigned k = 0; k < BH_CLUSTER_CORES; k++)
            dropped += r->print_drops.x280[c][k];
    for (unsigned k = 0; k < BH_GRID_CORES; k++)
        dropped += r->print_drops.tensix[k];
    if (r->nprints > 0 || dropped > 0) {
        putf(&o, "  prints: %zu shown", r->nprints);
        if (dropped) {
            char n[48];
            snprintf(n, sizeof n, "%" PRIu64 " dropped", dropped);
            put(&o, KMRUN_STYLE_PLAIN, ", ");
            put(&o, KMRUN_STYLE_WARN, n);
        }
        put(&o, KMRUN_STYLE_PLAIN, " (prints.txt)\n");
    }
    if (r->nport_waits > 0) {
        char n[64];
        snprintf(n, sizeof n, "%u X280 port wait%s gave up", r->nport_waits,
                 r->nport_waits == 1 ? "" : "s");
        put(&o, KMRUN_STYLE_PLAIN, "  ");
        put(&o, KMRUN_STYLE_WARN, n);
        put(&o, KMRUN_STYLE_PLAIN, " (port_waits)\n");
    }
    if (r->handover_checked) {
        char n[48];
        snprintf(n, sizeof n, "%u finding%s", r->nhandovers, r->nhandovers == 1 ? "" : "s");
        put(&o, KMRUN_STYLE_PLAIN, "  hand-over checker: ");
        put(&o, r->nhandovers ? KMRUN_STYLE_BAD : KMRUN_STYLE_GOOD, n);
        put(&o, KMRUN_STYLE_PLAIN, "\n");
    }
    if (run->rec.dir) {
        putf(&o, "  run %s: ", run->rec.id);
        put(&o, KMRUN_STYLE_PLAIN, run->rec.dir);
        put(&o, KMRUN_STYLE_PLAIN, "\n");
    }
}
