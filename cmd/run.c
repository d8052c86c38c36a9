/* kmrun run: build a program through the cache, run its threads on the
 * simulated card (or, with --thread host, their host fallbacks beside the
 * simulated grid), print the run's JSON (schemas/run.schema.json) and keep
 * it, with every region's bytes as DRAM holds them after the stop, in a
 * run folder (lib/rundir/km_rundir.h).  Progress markers, when asked, go to
 * stderr as JSON lines; nothing else but errors, the compilers' messages
 * and the hand-over checker's diagnostics (--check-handover) does. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_run.h"
#include "cmd_summary.h"
#include "km_fs.h"
#include "km_run_json.h"
#include "km_rundir.h"
#include "km_timeline.h"
#include "ks_text.h"

static void on_progress(int cluster, uint32_t where, uint64_t ticks, void *ctx)
{
    (void)ctx;
    char us[32];
    km_ticks_us(ticks, us, sizeof us);
    fprintf(stderr, "{\"cluster\":%d,\"where\":%u,\"microseconds\":%s}\n", cluster, where, us);
    fflush(stderr);
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"timeout", required_argument, NULL, 't'},
        {"wall-timeout", required_argument, NULL, 'w'},
        {"progress", no_argument, NULL, 'p'},
        {"run-dir", required_argument, NULL, 'R'},
        {"jobs", required_argument, NULL, 'j'},
        {"thread", required_argument, NULL, 'T'},
        {"check-handover", no_argument, NULL, 'H'},
        {"trace-instructions", required_argument, NULL, 'I'},
        {"gdb", required_argument, NULL, 'G'},
        {"timeline", required_argument, NULL, 'L'},
        {NULL, 0, NULL, 0},
    };
    double started = km_wall_now();
    km_backend backend = KM_BACKEND_SIM;
    km_run_opts ro = {.print = cmd_on_print};
    km_build_opts bo = {0};
    const char *run_dir = NULL;
    cmd_run_wants wants = {0};
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":j:", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (cmd_parse_seconds("run", "timeout", optarg, &ro.timeout_s) != KM_OK)
                return KM_EXIT_USAGE;
            break;
        case 'w':
            if (cmd_parse_seconds("run", "wall timeout", optarg, &ro.wall_timeout_s) != KM_OK)
                return KM_EXIT_USAGE;
            break;
        case 'p':
            ro.progress = on_progress;
            break;
        case 'H':
            wants.check_handover = true;
            break;
        case 'I': {
            char tail;
            if (optarg[0] < '0' || optarg[0] > '9' ||
                sscanf(optarg, "%u.%u%c", &wants.trace_cluster, &wants.trace_core, &tail) != 2)
                return cmd_usage_error("run",
                                       "invalid --trace-instructions %s (expected "
                                       "CLUSTER.CORE, such as 1.0)",
                                       KS_QUOTED(optarg));
            wants.trace = true;
            break;
        }
        case 'G': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 0 || v > 65535)
                return cmd_usage_error("run", "invalid --gdb port %s (expected 0 to 65535; 0: "
                                              "any free one)",
                                      KS_QUOTED(optarg));
            wants.gdb = true;
            wants.gdb_port = (int)v;
            break;
        }
        case 'L':
            if (!*optarg)
                return cmd_usage_error("run", "an empty --timeline file name");
            wants.timeline = optarg;
            break;
        case 'R':
            if (!*optarg)
                return cmd_usage_error("run", "an empty run folder name");
            run_dir = optarg;
            break;
        case 'T':
            if (strcmp(optarg, "sim") == 0)
                backend = KM_BACKEND_SIM;
            else if (strcmp(optarg, "host") == 0)
                backend = KM_BACKEND_HOST;
            else
                return cmd_usage_error("run", "invalid --thread %s (expected sim or host)",
                                      KS_QUOTED(optarg));
            break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1024)
                return cmd_usage_error("run", "invalid job count %s (expected 1 to 1024)",
                                      KS_QUOTED(optarg));
            bo.jobs = (int)v;
            break;
        }
        default:
            return cmd_option_error("run", c, argv, longopts);
        }
    }
    if (wants.gdb)
        ro.wall_timeout_s = 0; /* the time it spends halted is the debugger's */
    if (wants.gdb && backend == KM_BACKEND_HOST)
        return cmd_usage_error("run", "--gdb debugs the X280 cores of the simulated card: the "
                                      "host fallback's threads run on the host (use --thread "
                                      "sim, or a host debugger)");
    /* The timeline watches the simulated cores: the host fallback has none. */
    if (wants.timeline && backend == KM_BACKEND_HOST)
        return cmd_usage_error("run", "--timeline needs the simulated card: '--thread host' "
                                      "runs the X280 threads on the host, where no core can be "
                                      "watched");
    km_program *p = NULL;
    int rc = cmd_load_one_manifest("run", argc, argv, &p);
    if (rc != KM_OK)
        return rc;
    km_error err = {0};
    km_cache cache = {0};
    cmd_run_outcome out = {0};
    /* The checker is the simulated card's: said once, before the run. */
    if (backend == KM_BACKEND_HOST && (wants.check_handover || p->check_handover))
        cmd_note_host_handover();
    rc = cmd_open_km_cache(&cache, &err);
    if (rc == KM_OK) {
        rc = cmd_run_backend(p, backend, &cache, &bo, &ro, &wants, run_dir, started, &out,
                             &err);
    }
    if (rc == KM_OK) {
        printf("%s\n", out.rec.json);
        fflush(stdout); /* the results first, then what went wrong with the folder */
        unsigned found = cmd_run_outcome_findings(&out);
        rc = km_run_ok(&out.result) && found == 0 ? KM_OK : KM_EXIT_FAILED;
        bool color;
        if (cmd_summary_wanted(&color))
            cmd_summary_outcome(stderr, color, NULL, p, &out, km_wall_now() - started);
        if (wants.trace && out.trace_rc == KM_OK && out.rec.folder_rc == KM_OK) {
            fprintf(stderr, "kmrun: core %u.%u's instruction trace: %s/%s/" CMD_TRACE_NAME "\n",
                    wants.trace_cluster, wants.trace_core, out.rec.runs, out.rec.id,
                    wants.trace_cluster, wants.trace_core);
        }
        if (out.timeline && out.timeline_rc == KM_OK && km_timeline_dropped(out.timeline))
            fprintf(stderr,
                    "kmrun: the timeline %s holds its first %u events; %llu more were dropped\n",
                    KS_QUOTED(wants.timeline), KM_TIMELINE_MAX_EVENTS,
                    (unsigned long long)km_timeline_dropped(out.timeline));
        cmd_run_outcome_folder(&out, &rc, &err);
    }
    if (rc != KM_OK && rc != KM_EXIT_FAILED)
        fprintf(stderr, "kmrun: %s\n", err.message);
    if (wants.gdb && rc == KM_EXIT_FAILED && !out.rec.json) {
        /* killed by the debugger: its run thread is held for good */
        fprintf(stderr, "kmrun: %s\n", err.message);
        fflush(NULL);
        _exit(KM_EXIT_FAILED);
    }
    cmd_run_outcome_free(&out);
    if (cache.root)
        km_cache_close(&cache);
    km_program_free(p);
    return rc;
}
