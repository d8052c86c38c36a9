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
        case 'I': {
            char tail;
            if (optarg[0] < '0' || optarg[0] > '9' ||
                sscanf(optarg, "%u.%u%c", &wants.trace_cluster, &wants.trace_core, &tail) != 2)
                return cmd_usage_error("run",
                                       "invalid --trace-instructions %s (expected "
                                       "CLUSTER.CORE, such as 1.0)",
                                       CMD_QUOTED(optarg));
            wants.trace = true;
            break;
        }
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
        case 'P':
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
        const char *trace = kmrun_run_trace_file(out.r);
        if (trace)
            cmd_say(CMD_INFO, "run.trace", "core %u.%u's instruction trace: %s",
                    wants.trace_cluster, wants.trace_core, trace);
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
