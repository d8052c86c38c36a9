/* cmd_summary.c: the run's summary for a person (cmd_summary.h). */
#include "cmd_summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_run.h"
#include "cmd_stderr.h"
#include "km_fs.h"
#include "km_handlers.h"
#include "km_run_json.h"
#include "km_rundir.h"
#include "ks_text.h"

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define PLAIN "\033[0m"
#define WORDS_SHOWN 8u

bool cmd_summary_wanted(bool *color)
{
    if (!isatty(STDERR_FILENO))
        return false;
    const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
    *color = !(no && *no) && !(term && strcmp(term, "dumb") == 0);
    return true;
}

/* "1,234.5 µs" of picoseconds. */
static void microseconds(uint64_t ps, char *out, size_t n)
{
    char text[40];
    km_ps_us_text(ps, text, sizeof text);
    snprintf(out, n, "%s µs", text);
}

/* A colour: terminal control of kmrun's own, past the stderr filter. */
static void paint(FILE *f, bool color, const char *what)
{
    if (color)
        cmd_stderr_control(f, what);
}

/* `text` in colour `what`. */
static void painted(FILE *f, bool color, const char *what, const char *text)
{
    paint(f, color, what);
    fputs(text, f);
    paint(f, color, PLAIN);
}

static void thread_line(FILE *f, bool color, const km_run_result *r, const km_thread_result *t)
{
    bool ok = t->state == KM_STATE_RETURNED;
    fprintf(f, "  cluster %d: ", t->cluster);
    painted(f, color, ok ? GREEN : RED, km_state_name(t->state));
    if (t->error != KMX_ERROR_NONE)
        fprintf(f, " (error %s)", km_kmx_error_name(t->error));
    if (t->has_code)
        fprintf(f, ", code %" PRId32, t->code);
    if (t->nwords > 0) {
        fputs(", words", f);
        for (uint32_t i = 0; i < t->nwords && i < WORDS_SHOWN; i++)
            fprintf(f, " %" PRIu32, t->words[i]);
        if (t->nwords > WORDS_SHOWN)
            fprintf(f, " ... (%" PRIu32 ")", t->nwords);
    }
    if (t->has_ticks) {
        char us[48];
        microseconds(t->ticks * (BH_PS_PER_SECOND / BH_TICKS_PER_SECOND), us, sizeof us);
        fprintf(f, ", %s%s", us, r->host_times ? " (host)" : "");
    }
    if (t->where != 0)
        fprintf(f, ", last marker %" PRIu32, t->where);
    fputc('\n', f);
}

void cmd_summary_write(FILE *f, bool color, const km_program *p, const km_run_result *r,
                       const char *id, const char *folder, double wall_seconds)
{
    char device[48], count[32];
    microseconds(r->device_ps, device, sizeof device);
    ks_thousands(r->instructions, count, sizeof count);
    painted(f, color, BOLD, p->name);
    fprintf(f, ": %s %s, %s instructions, %.2f s of this machine\n", device,
            r->host_times ? "(host)" : "modeled", count, wall_seconds);
    for (unsigned i = 0; i < r->nthreads; i++)
        thread_line(f, color, r, &r->threads[i]);
    for (size_t i = 0; r->commands && i < r->ncommands; i++) {
        const km_command_result *c = &r->commands[i];
        const char *kind = !c->ended                          ? "no event"
                           : c->event == KM_EVENT_DONE        ? "done"
                           : c->event == KM_EVENT_TIMEOUT     ? "timeout"
                                                              : "rejected";
        char us[48];
        microseconds(c->ps, us, sizeof us);
        fprintf(f, "  command %zu %s: ", i, p->commands[i].handler);
        painted(f, color, c->ended && c->event == KM_EVENT_DONE ? GREEN : YELLOW, kind);
        fprintf(f, ", %s\n", us);
    }
    if (r->has_stats) {
        const sim_card_stats *st = &r->stats;
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
        char h[32], m[32], b[32], n[32], t[48];
        ks_thousands(hits, h, sizeof h);
        ks_thousands(misses, m, sizeof m);
        ks_thousands(backs, b, sizeof b);
        ks_thousands(noc, n, sizeof n);
        microseconds(busy, t, sizeof t);
        fprintf(f, "  counters: cache %s hits, %s misses, %s write-backs; NoC %s bytes; Tensix "
                   "busy %s on %u core%s; %" PRIu64 " dispatcher passes (stats)\n",
                h, m, b, n, t, cores, cores == 1 ? "" : "s", st->dispatcher_passes);
    }
    uint64_t dropped = 0;
    for (unsigned c = 0; c < BH_CLUSTERS; c++)
        for (unsigned k = 0; k < BH_CLUSTER_CORES; k++)
            dropped += r->print_drops.x280[c][k];
    for (unsigned k = 0; k < BH_GRID_CORES; k++)
        dropped += r->print_drops.tensix[k];
    if (r->nprints > 0 || dropped > 0) {
        fprintf(f, "  prints: %zu shown", r->nprints);
        if (dropped) {
            char n[48];
            snprintf(n, sizeof n, "%" PRIu64 " dropped", dropped);
            fputs(", ", f);
            painted(f, color, YELLOW, n);
        }
        fputs(" (prints.txt)\n", f);
    }
    if (r->nport_waits > 0) {
        char n[64];
        snprintf(n, sizeof n, "%u X280 port wait%s gave up", r->nport_waits,
                 r->nport_waits == 1 ? "" : "s");
        fputs("  ", f);
        painted(f, color, YELLOW, n);
        fputs(" (port_waits)\n", f);
    }
    if (r->handover_checked) {
        char n[48];
        snprintf(n, sizeof n, "%u finding%s", r->nhandovers, r->nhandovers == 1 ? "" : "s");
        fputs("  hand-over checker: ", f);
        painted(f, color, r->nhandovers ? RED : GREEN, n);
        fputc('\n', f);
    }
    if (folder)
        fprintf(f, "  run %s: %s\n", id, folder);
}

void cmd_summary_outcome(FILE *f, bool color, const char *title, const km_program *p,
                         const struct cmd_run_outcome *o, double wall_seconds)
{
    if (title)
        fprintf(f, "%s:\n", title);
    cmd_summary_write(f, color, p, &o->result, o->rec.id, o->rec.dir, wall_seconds);
}
