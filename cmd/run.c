/* kmrun run: build a program through the cache, run its threads on the
 * simulated card (or, with --thread host, their host fallbacks beside the
 * simulated grid), print the run's JSON (schemas/run.schema.json) and keep
 * it, with every region's bytes as DRAM holds them after the stop, in a
 * run folder (kmrun(1), FILES).  Progress markers, when asked, go to
 * stderr as JSON lines; nothing else but errors, the compilers' messages
 * and the hand-over checker's diagnostics (--check-handover) does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_diag.h"
#include "cmd_opts.h"
#include "cmd_run.h"

/* "C.K" for option `option`: core K of cluster C into *cores. */
static int parse_core(const char *option, const char *text, uint32_t *cores)
{
    unsigned cluster, core;
    char tail;
    if (text[0] < '0' || text[0] > '9' || sscanf(text, "%u.%u%c", &cluster, &core, &tail) != 2)
        return cmd_usage_error("run", "invalid --%s %s (expected CLUSTER.CORE, such as 1.0)",
                               option, CMD_QUOTED(text));
    if (cluster < 1 || cluster > 3 || core > 3)
        return cmd_usage_error("run", "no X280 core %u.%u to trace (clusters 1 to 3, cores 0 "
                                      "to 3)",
                               cluster, core);
    if (*cores != KMRUN_TRACE_ALL_CORES)
        *cores |= 1u << ((cluster - 1) * 4 + core);
    return KMRUN_OK;
}

/* --trace-cores: "all", or C.K,C.K,... */
static int parse_cores(const char *text, uint32_t *cores)
{
    if (strcmp(text, "all") == 0) {
        *cores = KMRUN_TRACE_ALL_CORES;
        return KMRUN_OK;
    }
    char *copy = strdup(text), *rest = copy;
    int rc = KMRUN_OK;
    for (char *t; rc == KMRUN_OK && rest && (t = strsep(&rest, ","));)
        rc = *t ? parse_core("trace-cores", t, cores)
                : cmd_usage_error("run", "invalid --trace-cores %s (expected all, or "
                                         "CLUSTER.CORE,... such as 1.0,1.2)",
                                  CMD_QUOTED(text));
    free(copy);
    return rc;
}

/* --trace-pc START-END: [START, END), each a number (0x... hexadecimal). */
static int parse_range(const char *text, cmd_run_wants *w)
{
    char *end;
    const char *dash = strchr(text, '-');
    unsigned long long lo = strtoull(text, &end, 0), hi = 0;
    bool ok = dash && end == dash && text[0] >= '0' && text[0] <= '9';
    if (ok) {
        hi = strtoull(dash + 1, &end, 0);
        ok = dash[1] >= '0' && dash[1] <= '9' && !*end && lo < hi;
    }
    if (!ok)
        return cmd_usage_error("run", "invalid --trace-pc %s (expected START-END, such as "
                                      "0x10000-0x10400, END past START and excluded)",
                               CMD_QUOTED(text));
    if (w->ntrace_ranges + w->ntrace_functions == CMD_TRACE_FILTERS)
        return cmd_usage_error("run", "more than %d --trace-pc and --trace-function options",
                               CMD_TRACE_FILTERS);
    w->trace_ranges[2 * w->ntrace_ranges] = lo;
    w->trace_ranges[2 * w->ntrace_ranges + 1] = hi;
    w->ntrace_ranges++;
    return KMRUN_OK;
}

/* After the results: each traced core's file, and a cut one's bound. */
static void say_traces(const kmrun_run *r)
{
    for (size_t i = 0; i < kmrun_run_traces(r); i++) {
        kmrun_trace_info t;
        if (kmrun_run_trace_info(r, i, &t, NULL) != KMRUN_OK || !t.file)
            continue;
        char n[32], limit[32];
        cmd_say(CMD_INFO, "run.trace", "core %u.%u's instruction trace: %s (%s instructions)",
                t.cluster, t.core, t.file, kmrun_thousands(t.recorded, n, sizeof n));
        if (t.cut)
            cmd_say(CMD_WARNING, "run.trace-cut", "trace of %u.%u cut at %llu instructions "
                                                  "(limit %s): see --trace-limit",
                    t.cluster, t.core, (unsigned long long)t.recorded,
                    kmrun_format_size(t.limit, limit, sizeof limit));
    }
}

int cmd_run(int argc, char **argv)
{
    double started = cmd_wall_now();
    cmd_run_wants wants = {.backend = KMRUN_BACKEND_SIM};
    int c;
    cmd_opts o;
    cmd_opts_start(&o, "run", argc, argv);
    while ((c = cmd_opts_next(&o)) != CMD_OPTS_END) {
        switch (c) {
        case 't':
            if (cmd_parse_seconds("run", "timeout", optarg, &wants.timeout_s) != KMRUN_OK)
                return KMRUN_USAGE;
            break;
        case 'w':
            if (cmd_parse_seconds("run", "wall timeout", optarg, &wants.wall_timeout_s) != KMRUN_OK)
                return KMRUN_USAGE;
            break;
        case 'p':
            wants.progress = true;
            break;
        case 'H':
            wants.check_handover = true;
            break;
        case 'D':
            wants.debug_build = true;
            break;
        case 'I': /* a shorthand: --trace-cores C.K */
            if (parse_core("trace-instructions", optarg, &wants.trace_cores) != KMRUN_OK)
                return KMRUN_USAGE;
            break;
        case 'C':
            if (parse_cores(optarg, &wants.trace_cores) != KMRUN_OK)
                return KMRUN_USAGE;
            break;
        case 'P':
            if (parse_range(optarg, &wants) != KMRUN_OK)
                return KMRUN_USAGE;
            break;
        case 'F':
            if (!*optarg)
                return cmd_usage_error("run", "an empty --trace-function name");
            if (wants.ntrace_ranges + wants.ntrace_functions == CMD_TRACE_FILTERS)
                return cmd_usage_error("run", "more than %d --trace-pc and --trace-function "
                                              "options",
                                      CMD_TRACE_FILTERS);
            wants.trace_functions[wants.ntrace_functions++] = optarg;
            break;
        case 'Z':
            if (!kmrun_parse_size(optarg, &wants.trace_limit, NULL) || wants.trace_limit < 4096)
                return cmd_usage_error("run",
                                       "invalid --trace-limit %s (expected bytes, at least 4096, "
                                       "or a number with KiB, MiB or GiB)",
                                       CMD_QUOTED(optarg));
            break;
        case 'G': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 0 || v > 65535)
                return cmd_usage_error("run", "invalid --gdb port %s (expected 0 to 65535; 0: "
                                              "any free one)",
                                      CMD_QUOTED(optarg));
            wants.gdb = true;
            wants.gdb_port = (int)v;
            break;
        }
        case 'L':
            if (!*optarg)
                return cmd_usage_error("run", "an empty --timeline file name");
            wants.timeline = optarg;
            break;
        case 'f':
            wants.profile = true;
            break;
        case 'R':
            if (!*optarg)
                return cmd_usage_error("run", "an empty run folder name");
            wants.run_dir = optarg;
            break;
        case 'T': /* sim|host: cmd_opts_next refused anything else */
            wants.backend = o.choice == 0 ? KMRUN_BACKEND_SIM : KMRUN_BACKEND_HOST;
            break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1024)
                return cmd_usage_error("run", "invalid job count %s (expected 1 to 1024)",
                                      CMD_QUOTED(optarg));
            wants.jobs = (int)v;
            break;
        }
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    if (wants.gdb)
        wants.wall_timeout_s = 0; /* the time it spends halted is the debugger's */
    if (wants.gdb && wants.backend == KMRUN_BACKEND_HOST)
        return cmd_usage_error("run", "--gdb debugs the X280 cores of the simulated card: the "
                                      "host fallback's threads run on the host (use --thread "
                                      "sim, or a host debugger)");
    if (!wants.trace_cores && (wants.ntrace_ranges || wants.ntrace_functions || wants.trace_limit))
        return cmd_usage_error("run", "--trace-pc, --trace-function and --trace-limit shape a "
                                      "trace: name its cores with --trace-cores (or "
                                      "--trace-instructions)");
    /* The timeline watches the simulated cores: the host fallback has none. */
    if (wants.timeline && wants.backend == KMRUN_BACKEND_HOST)
        return cmd_usage_error("run", "--timeline needs the simulated card: '--thread host' "
                                      "runs the X280 threads on the host, where no core can be "
                                      "watched");
    if (wants.profile && wants.backend == KMRUN_BACKEND_HOST)
        return cmd_usage_error("run", "--profile needs the simulated card: '--thread host' "
                                      "runs the X280 threads on the host, where no core can be "
                                      "profiled");
    kmrun_program *p = NULL;
    int rc = cmd_load_one_program("run", argc, argv, &p);
    if (rc != KMRUN_OK)
        return rc;
    /* The checker is the simulated card's: said once, before the run. */
    if (wants.backend == KMRUN_BACKEND_HOST &&
        (wants.check_handover || kmrun_program_checks_handover(p)))
        cmd_note_host_handover();
    char msg[4096] = "";
    cmd_run_outcome out = {0};
    rc = cmd_run_program(p, &wants, &out, msg, sizeof msg);
    if (rc == KMRUN_OK) {
        printf("%s\n", kmrun_run_json(out.r));
        fflush(stdout); /* the results first, then what went wrong with the folder */
        cmd_run_outcome_findings(&out);
        rc = kmrun_run_ok(out.r) ? KMRUN_OK : KMRUN_FAILED;
        bool color;
        if (cmd_summary_wanted(&color))
            cmd_summary_outcome(stderr, color, NULL, &out, cmd_wall_now() - started);
        say_traces(out.r);
        const char *profile = kmrun_run_profile_file(out.r);
        if (profile)
            cmd_say(CMD_INFO, "run.profile", "the profile: %s ('kmrun profile' shows it)",
                    profile);
        unsigned kept;
        uint64_t dropped = kmrun_run_timeline_dropped(out.r, &kept);
        if (dropped)
            cmd_say(CMD_INFO, "run.timeline-dropped",
                    "the timeline %s holds its first %u events; %llu more were dropped",
                    CMD_QUOTED(wants.timeline), kept, (unsigned long long)dropped);
        cmd_run_outcome_folder(&out, &rc, msg, sizeof msg);
    }
    if (rc != KMRUN_OK && rc != KMRUN_FAILED)
        cmd_diag_fail(rc, msg); /* "kmrun: msg", or the failure's findings in JSON */
    cmd_run_outcome_free(&out);
    kmrun_program_free(p);
    return rc;
}
