/* kmrun check: a program on the simulated card and on the host fallback,
 * compared — the spec's way of working: "A thread is developed this way
 * first, and its card result is checked against it bit for bit".
 *
 * Both runs keep their run folders (kmrun read-region reads either).  The
 * comparison: per thread, state, error, code and result words; per
 * host-fed command, its event and result word; per region copy, every
 * byte.  Agreement: one line (or JSON) and exit 0.  A
 * difference: what differs — a result field with both values; a region
 * with its first differing offset, how many bytes differ and the 16 bytes
 * around it on each side — and exit 1.  Times are never compared: the
 * host's are the host's.  --check-handover: the sim run with the
 * hand-over checker; its findings on stderr, and any exits 1. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_run.h"
#include "cmd_summary.h"
#include "ks_text.h"

#define AROUND 16u /* bytes shown around a region's first difference */

typedef struct check_out {
    cJSON *doc;
    cJSON *differences;
    unsigned ndiff;
} check_out;

static void differ(check_out *c, cJSON *d, const char *line)
{
    cJSON_AddStringToObject(d, "text", line);
    cJSON_AddItemToArray(c->differences, d);
    c->ndiff++;
}

static const char *code_text(const km_thread_result *t, char *buf, size_t n)
{
    if (!t->has_code)
        return "none";
    snprintf(buf, n, "%d", t->code);
    return buf;
}

static void compare_threads(check_out *c, const km_run_result *sim, const km_run_result *host)
{
    for (unsigned i = 0; i < sim->nthreads && i < host->nthreads; i++) {
        const km_thread_result *a = &sim->threads[i], *b = &host->threads[i];
        char line[512], x[32], y[32];
        if (a->state != b->state || a->error != b->error || a->has_code != b->has_code ||
            (a->has_code && a->code != b->code)) {
            snprintf(line, sizeof line,
                     "thread on cluster %d: sim ended %s (error %s, code %s), host ended %s "
                     "(error %s, code %s)",
                     a->cluster, km_state_name(a->state), km_kmx_error_name(a->error),
                     code_text(a, x, sizeof x), km_state_name(b->state),
                     km_kmx_error_name(b->error), code_text(b, y, sizeof y));
            cJSON *d = cJSON_CreateObject();
            cJSON_AddStringToObject(d, "kind", "thread");
            cJSON_AddNumberToObject(d, "cluster", a->cluster);
            differ(c, d, line);
        }
        uint32_t n = a->nwords > b->nwords ? a->nwords : b->nwords;
        for (uint32_t w = 0; w < n; w++) {
            uint32_t va = w < a->nwords ? a->words[w] : 0, vb = w < b->nwords ? b->words[w] : 0;
            if (va == vb && (w < a->nwords) == (w < b->nwords))
                continue;
            snprintf(line, sizeof line, "thread on cluster %d: result word %u: sim %u, host %u",
                     a->cluster, w, va, vb);
            cJSON *d = cJSON_CreateObject();
            cJSON_AddStringToObject(d, "kind", "word");
            cJSON_AddNumberToObject(d, "cluster", a->cluster);
            cJSON_AddNumberToObject(d, "index", w);
            cJSON_AddNumberToObject(d, "sim", va);
            cJSON_AddNumberToObject(d, "host", vb);
            differ(c, d, line);
        }
    }
}

static const char *event_text(const km_command_result *c)
{
    if (!c->ended)
        return "no event";
    return c->event == KM_EVENT_DONE ? "done" : c->event == KM_EVENT_TIMEOUT ? "timeout" : "rejected";
}

/* The manifest's host-fed commands: each one's event and result word. */
static void compare_commands(check_out *c, const km_program *p, const km_run_result *sim,
                             const km_run_result *host)
{
    for (size_t i = 0; i < sim->ncommands && i < host->ncommands; i++) {
        const km_command_result *a = &sim->commands[i], *b = &host->commands[i];
        bool same = a->ended == b->ended && (!a->ended || (a->event == b->event &&
                                                           a->reason == b->reason &&
                                                           a->has_result == b->has_result &&
                                                           a->result == b->result));
        if (same)
            continue;
        char line[512], ra[32] = "", rb[32] = "";
        if (a->has_result)
            snprintf(ra, sizeof ra, " with result %u", a->result);
        if (b->has_result)
            snprintf(rb, sizeof rb, " with result %u", b->result);
        snprintf(line, sizeof line, "command %zu (%s): sim %s%s, host %s%s", i,
                 p->commands[i].handler, event_text(a), ra, event_text(b), rb);
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "kind", "command");
        cJSON_AddNumberToObject(d, "index", (double)i);
        differ(c, d, line);
    }
}

/* "01 02 ..." — the bytes [at, at + n) of one side. */
static char *hex_bytes(const uint8_t *bytes, uint64_t at, uint64_t n)
{
    char *s = malloc(3 * n + 1);
    if (!s)
        abort();
    s[0] = 0;
    for (uint64_t i = 0; i < n; i++)
        sprintf(s + (i ? 3 * i - 1 : 0), i ? " %02x" : "%02x", bytes[at + i]);
    return s;
}

static void compare_region(check_out *c, const km_region_copy *a, const km_region_copy *b)
{
    uint64_t first = UINT64_MAX, count = 0;
    const uint8_t *x = a->bytes, *y = b->bytes;
    for (uint64_t i = 0; i < a->size; i++) {
        if (x[i] != y[i]) {
            if (first == UINT64_MAX)
                first = i;
            count++;
        }
    }
    if (count == 0)
        return;
    uint64_t from = first / AROUND * AROUND;
    uint64_t n = a->size - from < AROUND ? a->size - from : AROUND;
    char *hs = hex_bytes(x, from, n), *hh = hex_bytes(y, from, n);
    char line[1024];
    char counted[32];
    ks_thousands(count, counted, sizeof counted);
    snprintf(line, sizeof line,
             "region '%s' of cluster %d: %s byte%s, the first at offset %llu (0x%llx)\n"
             "  sim  at 0x%llx: %s\n"
             "  host at 0x%llx: %s",
             a->name, a->cluster, counted, count == 1 ? " differs" : "s differ", (unsigned long long)first,
             (unsigned long long)first, (unsigned long long)from, hs, (unsigned long long)from,
             hh);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "kind", "region");
    cJSON_AddStringToObject(d, "region", a->name);
    cJSON_AddNumberToObject(d, "cluster", a->cluster);
    cJSON_AddNumberToObject(d, "offset", (double)first);
    cJSON_AddNumberToObject(d, "bytes", (double)count);
    cJSON_AddNumberToObject(d, "around", (double)from);
    cJSON_AddStringToObject(d, "sim", hs);
    cJSON_AddStringToObject(d, "host", hh);
    differ(c, d, line);
    free(hs);
    free(hh);
}

int cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'J'},
        {"timeout", required_argument, NULL, 't'},
        {"run-dir", required_argument, NULL, 'R'},
        {"check-handover", no_argument, NULL, 'H'},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    bool check_handover = false;
    km_run_opts ro = {.print = cmd_on_print};
    const char *run_dir = NULL;
    int ch;
    optind = 0;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (ch) {
        case 'J':
            json = true;
            break;
        case 'H':
            check_handover = true;
            break;
        case 't':
            if (cmd_parse_seconds("check", "timeout", optarg, &ro.timeout_s) != KM_OK)
                return KM_EXIT_USAGE;
            break;
        case 'R':
            if (!*optarg)
                return cmd_usage_error("check", "an empty run folder name");
            run_dir = optarg;
            break;
        default:
            return cmd_option_error("check", ch, argv, longopts);
        }
    }
    km_program *p = NULL;
    int rc = cmd_load_one_manifest("check", argc, argv, &p);
    if (rc != KM_OK)
        return rc;
    km_error err = {0};
    km_cache cache = {0};
    km_build_opts bo = {0};
    cmd_run_outcome sim = {0}, host = {0};
    /* A program check cannot take is refused before anything runs, with
     * the usage-or-manifest status (2), as a program with no thread is:
     * nothing failed, and nothing differs — the comparison does not apply.
     * X280 ports (and the pull, which runs over them) need the card: the
     * host fallback ends such a thread `failed` (error host), so both runs
     * would only report that difference. */
    if (p->nthreads == 0)
        rc = km_fail(&err, KM_EXIT_USAGE,
                     "program '%s' has no thread: there is no host fallback to check", p->name);
    else if (p->pull.present)
        rc = km_fail(&err, KM_EXIT_USAGE,
                     "cannot check '%s': it uses the pull (pull:) over X280 ports, which need "
                     "the card; the host fallback cannot run them",
                     p->name);
    else if (p->ports.kind != KM_PORTS_NONE)
        rc = km_fail(&err, KM_EXIT_USAGE,
                     "cannot check '%s': it uses X280 ports (ports:), which need the card; the "
                     "host fallback cannot run them",
                     p->name);
    if (rc == KM_OK)
        rc = cmd_open_km_cache(&cache, &err);
    double started = km_wall_now();
    if (rc == KM_OK)
        rc = cmd_run_backend(p, KM_BACKEND_SIM, &cache, &bo, &ro,
                             &(cmd_run_wants){.check_handover = check_handover}, run_dir,
                             started, &sim, &err);
    /* The checker is the card's: the host run does not check (and says
     * nothing of it: the sim run did). */
    if (rc == KM_OK)
        rc = cmd_run_backend(p, KM_BACKEND_HOST, &cache, &bo, &ro, &(cmd_run_wants){0},
                             run_dir, km_wall_now(), &host, &err);
    if (rc == KM_OK) {
        check_out c = {cJSON_CreateObject(), NULL, 0};
        cJSON_AddStringToObject(c.doc, "program", p->name);
        cJSON_AddStringToObject(c.doc, "sim_run", sim.rec.id);
        cJSON_AddStringToObject(c.doc, "host_run", host.rec.id);
        c.differences = cJSON_CreateArray();
        compare_threads(&c, &sim.result, &host.result);
        compare_commands(&c, p, &sim.result, &host.result);
        uint64_t bytes = 0;
        for (size_t i = 0; i < sim.ncopies && i < host.ncopies; i++) {
            compare_region(&c, &sim.copies[i], &host.copies[i]);
            bytes += sim.copies[i].size;
        }
        cJSON_AddBoolToObject(c.doc, "agree", c.ndiff == 0);
        cJSON_AddNumberToObject(c.doc, "threads", sim.result.nthreads);
        cJSON_AddNumberToObject(c.doc, "regions", (double)sim.ncopies);
        cJSON_AddNumberToObject(c.doc, "region_bytes", (double)bytes);
        cJSON_AddItemToObject(c.doc, "differences", c.differences);
        char counted[32];
        ks_thousands(bytes, counted, sizeof counted);
        if (json) {
            char *text = cJSON_Print(c.doc);
            printf("%s\n", text);
            free(text);
        } else if (c.ndiff == 0) {
            printf("kmrun: check: '%s' agrees on the simulated card and the host: %u thread%s, "
                   "%zu region%s (%s bytes) identical (runs %s, %s)\n",
                   p->name, sim.result.nthreads, sim.result.nthreads == 1 ? "" : "s",
                   sim.ncopies, sim.ncopies == 1 ? "" : "s", counted, sim.rec.id, host.rec.id);
        } else {
            printf("kmrun: check: '%s' differs between the simulated card and the host "
                   "(runs %s, %s):\n",
                   p->name, sim.rec.id, host.rec.id);
            cJSON *d;
            cJSON_ArrayForEach(d, c.differences) {
                printf("%s\n", cJSON_GetObjectItem(d, "text")->valuestring);
            }
        }
        unsigned found = cmd_run_outcome_findings(&sim) + cmd_run_outcome_findings(&host);
        rc = c.ndiff == 0 && found == 0 ? KM_OK : KM_EXIT_FAILED;
        fflush(stdout);
        bool color;
        if (cmd_summary_wanted(&color)) {
            double wall = km_wall_now() - started;
            cmd_summary_outcome(stderr, color, "the simulated card", p, &sim, wall);
            cmd_summary_outcome(stderr, color, "the host fallback", p, &host, wall);
        }
        cmd_run_outcome_folder(&sim, &rc, &err);
        cmd_run_outcome_folder(&host, &rc, &err);
        cJSON_Delete(c.doc);
    }
    if (rc != KM_OK && rc != KM_EXIT_FAILED)
        fprintf(stderr, "kmrun: %s\n", err.message);
    cmd_run_outcome_free(&sim);
    cmd_run_outcome_free(&host);
    if (cache.root)
        km_cache_close(&cache);
    km_program_free(p);
    return rc;
}
