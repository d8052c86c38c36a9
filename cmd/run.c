/* kmrun run: build a program through the cache, run its threads on the
 * simulated card, print the run's JSON (schemas/run.schema.json) and keep
 * it, with every region's bytes as DRAM holds them after the stop, in a
 * run folder (lib/km_rundir.h).  Progress markers, when asked, go to
 * stderr as JSON lines; nothing else but errors and the compilers'
 * messages does. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "cmd_common.h"
#include "km_fs.h"
#include "km_run_json.h"
#include "km_rundir.h"
#include "km_session.h"

/* Seconds: a plain decimal number, more than 0 (modeled or real). */
static int parse_seconds(const char *option, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || v <= 0 || v > 1e6)
        return km_usage_error("run", "invalid %s '%s' (expected seconds, such as 2 or 0.5)",
                              option, text);
    *out = v;
    return KM_OK;
}

static void on_compiler_output(const char *line, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

static void on_progress(int cluster, uint32_t where, uint64_t ticks, void *ctx)
{
    (void)ctx;
    char us[32];
    km_ticks_us(ticks, us, sizeof us);
    fprintf(stderr, "{\"cluster\":%d,\"where\":%u,\"microseconds\":%s}\n", cluster, where, us);
    fflush(stderr);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What the simulated card does not run yet (X280 ports and the pull come
 * later; host-fed commands run on the grid): said once, so that a program
 * that relies on them is not mistaken for one that ran whole. */
static void warn_not_live(const km_program *p)
{
    if (p->ports.kind != KM_PORTS_NONE || p->pull.present)
        fprintf(stderr, "kmrun: warning: the simulated card has no Tensix grid yet: X280 ports "
                        "and the pull are not live (kmx_port_* and kmx_pull_run return "
                        "KMX_BAD)\n");
}

/* Runs the loaded session, writes the run folder, prints the JSON. */
static int run_and_report(km_session *s, const km_program *p, const km_run_opts *ro,
                          const char *run_dir_option, double started, km_error *err)
{
    km_run_result result;
    int rc = km_session_run(s, ro, &result, err);
    if (rc != KM_OK)
        return rc;
    const km_region_copy *copies = NULL;
    size_t ncopies = 0;
    rc = km_session_regions(s, &copies, &ncopies, err);
    if (rc != KM_OK)
        return rc;

    char id[32];
    km_run_id(id);
    char *runs = km_runs_root(run_dir_option);
    char *dir = km_path_join(runs, id);
    km_run_info info = {
        .run_id = id,
        .run_dir = dir,
        .wall_seconds = wall_now() - started,
        .backend = km_session_backend(s),
        .build = km_session_build(s),
    };
    char *json = km_run_json(p, km_session_plan(s), &result, &info);
    rc = km_rundir_write(runs, id, json, copies, ncopies, NULL, err);
    if (rc == KM_OK)
        printf("%s\n", json);
    free(json);
    free(dir);
    free(runs);
    if (rc != KM_OK)
        return rc;
    bool commands_done = true;
    for (size_t i = 0; i < result.ncommands; i++)
        commands_done &= result.commands[i].ended && result.commands[i].event == KM_EVENT_DONE;
    return km_run_all_returned(&result) && commands_done ? KM_OK : KM_EXIT_FAILED;
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"timeout", required_argument, NULL, 't'},
        {"wall-timeout", required_argument, NULL, 'w'},
        {"progress", no_argument, NULL, 'p'},
        {"run-dir", required_argument, NULL, 'R'},
        {"jobs", required_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    double started = wall_now();
    km_run_opts ro = {0};
    km_build_opts bo = {0};
    const char *run_dir = NULL;
    int c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":j:", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (parse_seconds("timeout", optarg, &ro.timeout_s) != KM_OK)
                return KM_EXIT_USAGE;
            break;
        case 'w':
            if (parse_seconds("wall timeout", optarg, &ro.wall_timeout_s) != KM_OK)
                return KM_EXIT_USAGE;
            break;
        case 'p':
            ro.progress = on_progress;
            break;
        case 'R':
            if (!*optarg)
                return km_usage_error("run", "an empty run folder name");
            run_dir = optarg;
            break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1024)
                return km_usage_error("run", "invalid job count '%s' (expected 1 to 1024)",
                                      optarg);
            bo.jobs = (int)v;
            break;
        }
        default:
            return km_option_error("run", c, argv, longopts);
        }
    }
    if (optind + 1 != argc)
        return km_usage_error("run", optind == argc ? "missing the program manifest"
                                                    : "expected one program manifest");
    km_program *p = NULL;
    int rc = km_load_manifest(argv[optind], &p);
    if (rc != KM_OK)
        return rc;
    km_error err = {0};
    km_cache cache = {0};
    km_session *s = NULL;
    rc = km_open_cache(&cache, &err);
    if (rc == KM_OK)
        rc = km_session_open(&s, p, KM_BACKEND_SIM, &err);
    bo.output = on_compiler_output;
    if (rc == KM_OK)
        rc = km_session_load(s, &cache, &bo, &err);
    if (rc == KM_OK) {
        warn_not_live(p);
        rc = run_and_report(s, p, &ro, run_dir, started, &err);
    }
    if (rc != KM_OK && rc != KM_EXIT_FAILED)
        fprintf(stderr, "kmrun: %s\n", err.message);
    km_session_close(s);
    if (cache.root)
        km_cache_close(&cache);
    km_program_free(p);
    return rc;
}
