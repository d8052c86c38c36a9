/* cmd/inspect/profile.c: `kmrun profile [RUN]` — a profiled run's top
 * table, annotated source or flame graph (kmrun_tools.h, "Profiles"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_opts.h"

/* "C.K" with C and K numbers: the form a profile's cores take. */
static bool core_form(const char *s)
{
    unsigned c, k;
    char tail;
    return s[0] >= '0' && s[0] <= '9' && sscanf(s, "%u.%u%c", &c, &k, &tail) == 2;
}

int cmd_profile(int argc, char **argv)
{
    const char *run_dir = NULL, *core = NULL, *annotate = NULL, *svg = NULL;
    unsigned limit = 20;
    bool json = false;
    int c;
    cmd_opts opts;
    cmd_opts_start(&opts, "profile", argc, argv);
    while ((c = cmd_opts_next(&opts)) != CMD_OPTS_END) {
        switch (c) {
        case 'R':
            run_dir = optarg;
            break;
        case 'c':
            if (!core_form(optarg))
                return cmd_usage_error("profile", "invalid --core %s (expected CLUSTER.CORE, "
                                                  "such as 1.0)",
                                       CMD_QUOTED(optarg));
            core = optarg;
            break;
        case 'n': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 0 || v > 1000000)
                return cmd_usage_error("profile", "invalid --limit %s (expected 0 to 1000000; "
                                                  "0: all)",
                                       CMD_QUOTED(optarg));
            limit = (unsigned)v;
            break;
        }
        case 'a':
            annotate = optarg;
            break;
        case 's':
            svg = optarg;
            break;
        case 'j':
            json = true;
            break;
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    if (optind + 1 < argc)
        return cmd_usage_error("profile", "expected one run at most");
    if (annotate && json)
        return cmd_usage_error("profile", "--annotate prints source, not JSON: give one of "
                                          "them");
    const char *run = optind < argc ? argv[optind] : NULL;
    char *dir = NULL, *text = NULL, *drawn = NULL;
    kmrun_profile *p = NULL;
    kmrun_error *err = NULL;
    int rc = kmrun_run_folder_find(run_dir, run, &dir, &err);
    if (rc == KMRUN_USAGE && run && strchr(run, '/') &&
        kmrun_profile_open(run, &p, NULL) == KMRUN_OK) {
        /* a folder that holds a profile but no run ('kmrun exec --profile') */
        kmrun_error_free(err);
        err = NULL;
        dir = strdup(run);
        rc = dir ? KMRUN_OK : KMRUN_SYSTEM;
    } else if (rc == KMRUN_OK) {
        rc = kmrun_profile_open(dir, &p, &err);
    }
    if (rc == KMRUN_OK && svg) {
        char title[512];
        snprintf(title, sizeof title, "kmrun profile %s%s%s (cycles)", dir, core ? " core " : "",
                 core ? core : "");
        rc = kmrun_profile_svg(p, core, title, &drawn, &err);
    }
    if (rc == KMRUN_OK)
        rc = annotate ? kmrun_profile_annotate(p, core, annotate, &text, &err)
                      : kmrun_profile_top(p, core, limit, json, &text, &err);
    if (rc != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        kmrun_error_free(err);
    }
    if (rc == KMRUN_OK && drawn) {
        FILE *f = fopen(svg, "w");
        bool put = f && fputs(drawn, f) != EOF;
        if (f && fclose(f) != 0)
            put = false;
        if (!put) {
            fprintf(stderr, "kmrun: cannot write the flame graph %s\n", CMD_QUOTED(svg));
            rc = KMRUN_SYSTEM;
        }
    }
    if (rc == KMRUN_OK) {
        fputs(text, stdout);
        if (json)
            putchar('\n');
    }
    free(text);
    free(drawn);
    kmrun_profile_free(p);
    free(dir);
    return rc;
}
