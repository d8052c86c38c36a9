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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_diag.h"
#include "cmd_opts.h"
#include "cmd_run.h"

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

static const char *code_text(const kmrun_thread_result *t, char *buf, size_t n)
{
    if (!t->has_code)
        return "none";
    snprintf(buf, n, "%d", t->code);
    return buf;
}

/* The library's error of a thread as the run JSON names it ("none"). */
static const char *error_text(const kmrun_thread_result *t)
{
    return t->error ? t->error : "none";
}

static void compare_threads(check_out *c, size_t nthreads, const kmrun_run *sim,
                            const kmrun_run *host)
{
    for (size_t i = 0; i < nthreads; i++) {
        kmrun_thread_result a, b;
        if (kmrun_run_result(sim, i, &a, NULL) != KMRUN_OK ||
            kmrun_run_result(host, i, &b, NULL) != KMRUN_OK)
            continue;
        char line[512], x[32], y[32];
        if (strcmp(a.state, b.state) != 0 || strcmp(error_text(&a), error_text(&b)) != 0 ||
            a.has_code != b.has_code || (a.has_code && a.code != b.code)) {
            snprintf(line, sizeof line,
                     "thread on cluster %d: sim ended %s (error %s, code %s), host ended %s "
                     "(error %s, code %s)",
                     a.cluster, a.state, error_text(&a), code_text(&a, x, sizeof x), b.state,
                     error_text(&b), code_text(&b, y, sizeof y));
            cJSON *d = cJSON_CreateObject();
            cJSON_AddStringToObject(d, "kind", "thread");
            cJSON_AddNumberToObject(d, "cluster", a.cluster);
            differ(c, d, line);
        }
        uint32_t n = a.nwords > b.nwords ? a.nwords : b.nwords;
        for (uint32_t w = 0; w < n; w++) {
            uint32_t va = w < a.nwords ? a.words[w] : 0, vb = w < b.nwords ? b.words[w] : 0;
            if (va == vb && (w < a.nwords) == (w < b.nwords))
                continue;
            snprintf(line, sizeof line, "thread on cluster %d: result word %u: sim %u, host %u",
                     a.cluster, w, va, vb);
            cJSON *d = cJSON_CreateObject();
            cJSON_AddStringToObject(d, "kind", "word");
            cJSON_AddNumberToObject(d, "cluster", a.cluster);
            cJSON_AddNumberToObject(d, "index", w);
            cJSON_AddNumberToObject(d, "sim", va);
            cJSON_AddNumberToObject(d, "host", vb);
            differ(c, d, line);
        }
    }
}

static const char *event_text(const kmrun_command_result *c)
{
    return c->ended && c->event ? c->event : "no event";
}

/* The manifest's host-fed commands (handles 1 to N, the run JSON's
 * `commands`): each one's event and result word at the stop. */
static void compare_commands(check_out *c, const cJSON *commands, kmrun_run *sim, kmrun_run *host)
{
    size_t i = 0;
    const cJSON *cmd;
    cJSON_ArrayForEach(cmd, commands) {
        kmrun_command_result a, b;
        uint64_t handle = ++i;
        if (kmrun_run_poll(sim, handle, &a, NULL) != KMRUN_OK ||
            kmrun_run_poll(host, handle, &b, NULL) != KMRUN_OK)
            continue;
        bool same = a.ended == b.ended &&
                    (!a.ended || (strcmp(event_text(&a), event_text(&b)) == 0 &&
                                  a.reason == b.reason && a.has_result == b.has_result &&
                                  a.result == b.result));
        if (same)
            continue;
        char line[512], ra[32] = "", rb[32] = "";
        if (a.has_result)
            snprintf(ra, sizeof ra, " with result %u", a.result);
        if (b.has_result)
            snprintf(rb, sizeof rb, " with result %u", b.result);
        const char *handler = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cmd, "handler"));
        snprintf(line, sizeof line, "command %zu (%s): sim %s%s, host %s%s", i - 1,
                 handler ? handler : "", event_text(&a), ra, event_text(&b), rb);
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "kind", "command");
        cJSON_AddNumberToObject(d, "index", (double)(i - 1));
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

/* Region `name` of `cluster` on both sides, byte for byte; its size. */
static uint64_t compare_region(check_out *c, const kmrun_run *sim, const kmrun_run *host,
                               const char *name, int cluster)
{
    const void *pa, *pb;
    size_t size, size_b;
    if (kmrun_run_read(sim, cluster, name, &pa, &size, NULL) != KMRUN_OK ||
        kmrun_run_read(host, cluster, name, &pb, &size_b, NULL) != KMRUN_OK)
        return 0;
    uint64_t first = UINT64_MAX, count = 0;
    const uint8_t *x = pa, *y = pb;
    for (uint64_t i = 0; i < size && i < size_b; i++) {
        if (x[i] != y[i]) {
            if (first == UINT64_MAX)
                first = i;
            count++;
        }
    }
    if (count == 0)
        return size;
    uint64_t from = first / AROUND * AROUND;
    uint64_t n = size - from < AROUND ? size - from : AROUND;
    char *hs = hex_bytes(x, from, n), *hh = hex_bytes(y, from, n);
    char line[1024];
    char counted[32];
    kmrun_thousands(count, counted, sizeof counted);
    snprintf(line, sizeof line,
             "region '%s' of cluster %d: %s byte%s, the first at offset %llu (0x%llx)\n"
             "  sim  at 0x%llx: %s\n"
             "  host at 0x%llx: %s",
             name, cluster, counted, count == 1 ? " differs" : "s differ", (unsigned long long)first,
             (unsigned long long)first, (unsigned long long)from, hs, (unsigned long long)from,
             hh);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "kind", "region");
    cJSON_AddStringToObject(d, "region", name);
    cJSON_AddNumberToObject(d, "cluster", cluster);
    cJSON_AddNumberToObject(d, "offset", (double)first);
    cJSON_AddNumberToObject(d, "bytes", (double)count);
    cJSON_AddNumberToObject(d, "around", (double)from);
    cJSON_AddStringToObject(d, "sim", hs);
    cJSON_AddStringToObject(d, "host", hh);
    differ(c, d, line);
    free(hs);
    free(hh);
    return size;
}

/* Why check cannot take p (its model, kmrun_program_json), into msg; 0
 * when it can. */
static int refused(const kmrun_program *p, char *msg, size_t n)
{
    char *text = NULL;
    if (kmrun_program_json(p, &text, NULL) != KMRUN_OK) {
        snprintf(msg, n, "out of memory for the program's model");
        return KMRUN_SYSTEM;
    }
    cJSON *doc = cJSON_Parse(text);
    free(text);
    const char *name = kmrun_program_name(p);
    int rc = KMRUN_OK;
    /* A program check cannot take is refused before anything runs, with
     * the usage-or-manifest status (2), as a program with no thread is:
     * nothing failed, and nothing differs — the comparison does not apply.
     * X280 ports (and the pull, which runs over them) need the card: the
     * host fallback ends such a thread `failed` (error host), so both runs
     * would only report that difference. */
    if (!doc) {
        snprintf(msg, n, "out of memory for the program's model");
        rc = KMRUN_SYSTEM;
    } else if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "threads")) == 0) {
        snprintf(msg, n, "program '%s' has no thread: there is no host fallback to check", name);
        rc = KMRUN_USAGE;
    } else if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "pull"))) {
        snprintf(msg, n,
                 "cannot check '%s': it uses the pull (pull:) over X280 ports, which need "
                 "the card; the host fallback cannot run them",
                 name);
        rc = KMRUN_USAGE;
    } else if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "ports"))) {
        snprintf(msg, n,
                 "cannot check '%s': it uses X280 ports (ports:), which need the card; the "
                 "host fallback cannot run them",
                 name);
        rc = KMRUN_USAGE;
    }
    cJSON_Delete(doc);
    return rc;
}

int cmd_check(int argc, char **argv)
{
    bool json = false;
    cmd_run_wants sim_wants = {.backend = KMRUN_BACKEND_SIM};
    int ch;
    cmd_opts o;
    cmd_opts_start(&o, "check", argc, argv);
    while ((ch = cmd_opts_next(&o)) != CMD_OPTS_END) {
        switch (ch) {
        case 'J':
            json = true;
            break;
        case 'H':
            sim_wants.check_handover = true;
            break;
        case 't':
            if (cmd_parse_seconds("check", "timeout", optarg, &sim_wants.timeout_s) != KMRUN_OK)
                return KMRUN_USAGE;
            break;
        case 'R':
            if (!*optarg)
                return cmd_usage_error("check", "an empty run folder name");
            sim_wants.run_dir = optarg;
            break;
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    kmrun_program *p = NULL;
    int rc = cmd_load_one_program("check", argc, argv, &p);
    if (rc != KMRUN_OK)
        return rc;
    char msg[4096] = "";
    cmd_run_outcome sim = {0}, host = {0};
    /* The checker is the card's: the host run does not check (and says
     * nothing of it: the sim run did). */
    cmd_run_wants host_wants = sim_wants;
    host_wants.backend = KMRUN_BACKEND_HOST;
    host_wants.check_handover = false;
    rc = refused(p, msg, sizeof msg);
    double started = cmd_wall_now();
    if (rc == KMRUN_OK)
        rc = cmd_run_program(p, &sim_wants, &sim, msg, sizeof msg);
    if (rc == KMRUN_OK)
        rc = cmd_run_program(p, &host_wants, &host, msg, sizeof msg);
    if (rc == KMRUN_OK) {
        const char *name = kmrun_program_name(p);
        const char *sim_id = kmrun_run_id(sim.r), *host_id = kmrun_run_id(host.r);
        cJSON *run = cJSON_Parse(kmrun_run_json(sim.r));
        check_out c = {cJSON_CreateObject(), NULL, 0};
        cJSON_AddStringToObject(c.doc, "program", name);
        cJSON_AddStringToObject(c.doc, "sim_run", sim_id);
        cJSON_AddStringToObject(c.doc, "host_run", host_id);
        c.differences = cJSON_CreateArray();
        size_t nthreads = kmrun_program_clusters(p);
        compare_threads(&c, nthreads, sim.r, host.r);
        compare_commands(&c, cJSON_GetObjectItemCaseSensitive(run, "commands"), sim.r, host.r);
        uint64_t bytes = 0;
        size_t nregions = 0;
        const cJSON *region;
        cJSON_ArrayForEach(region, cJSON_GetObjectItemCaseSensitive(run, "regions")) {
            const char *rname =
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(region, "name"));
            int cluster = cJSON_GetObjectItemCaseSensitive(region, "cluster")->valueint;
            bytes += compare_region(&c, sim.r, host.r, rname, cluster);
            nregions++;
        }
        cJSON_Delete(run);
        cJSON_AddBoolToObject(c.doc, "agree", c.ndiff == 0);
        cJSON_AddNumberToObject(c.doc, "threads", (double)nthreads);
        cJSON_AddNumberToObject(c.doc, "regions", (double)nregions);
        cJSON_AddNumberToObject(c.doc, "region_bytes", (double)bytes);
        cJSON_AddItemToObject(c.doc, "differences", c.differences);
        char counted[32];
        kmrun_thousands(bytes, counted, sizeof counted);
        if (json) {
            char *text = cJSON_Print(c.doc);
            printf("%s\n", text);
            free(text);
        } else if (c.ndiff == 0) {
            printf("kmrun: check: '%s' agrees on the simulated card and the host: %zu thread%s, "
                   "%zu region%s (%s bytes) identical (runs %s, %s)\n",
                   name, nthreads, nthreads == 1 ? "" : "s", nregions, nregions == 1 ? "" : "s",
                   counted, sim_id, host_id);
        } else {
            printf("kmrun: check: '%s' differs between the simulated card and the host "
                   "(runs %s, %s):\n",
                   name, sim_id, host_id);
            cJSON *d;
            cJSON_ArrayForEach(d, c.differences) {
                printf("%s\n", cJSON_GetObjectItem(d, "text")->valuestring);
            }
        }
        uint64_t found = cmd_run_outcome_findings(&sim) + cmd_run_outcome_findings(&host);
        rc = c.ndiff == 0 && found == 0 ? KMRUN_OK : KMRUN_FAILED;
        fflush(stdout);
        bool color;
        if (cmd_summary_wanted(&color)) {
            double wall = cmd_wall_now() - started;
            cmd_summary_outcome(stderr, color, "the simulated card", &sim, wall);
            cmd_summary_outcome(stderr, color, "the host fallback", &host, wall);
        }
        cmd_run_outcome_folder(&sim, &rc, msg, sizeof msg);
        cmd_run_outcome_folder(&host, &rc, msg, sizeof msg);
        cJSON_Delete(c.doc);
    }
    if (rc != KMRUN_OK && rc != KMRUN_FAILED)
        cmd_diag_fail(rc, msg); /* "kmrun: msg", or the failure's findings in JSON */
    cmd_run_outcome_free(&sim);
    cmd_run_outcome_free(&host);
    kmrun_program_free(p);
    return rc;
}
