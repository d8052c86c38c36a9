/* cmd/completion.c: `kmrun completion bash|zsh`, the completion script
 * of a shell (cmd_complete.h), and the lists the scripts and the tests
 * ask for: the commands, a command's options (the table, cmd.h), the run
 * ids of the runs folder and the regions of a run (its regions.json,
 * kmrun(1) FILES). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cmd_complete.h"
#include "cmd_opts.h"

static int list_options(const char *command)
{
    const cmd_command_entry *c = cmd_command_find(command);
    if (!c)
        return cmd_unknown_command(command);
    for (size_t i = 0; i < cmd_option_count(c); i++) {
        printf("--%s\n", c->options[i].name);
        if (c->options[i].letter)
            printf("-%c\n", c->options[i].letter);
    }
    return KMRUN_OK;
}

static int by_name_newest_first(const void *a, const void *b)
{
    return -strcmp(*(char *const *)a, *(char *const *)b);
}

/* The run ids of the runs folder (kmrun_runs_folder): its folders that
 * hold a result.json, newest first (a run id starts with its time). */
static int list_runs(const char *run_dir)
{
    char *runs = kmrun_runs_folder(run_dir);
    DIR *d = runs ? opendir(runs) : NULL;
    if (!d) {
        if (runs && errno != ENOENT) {
            fprintf(stderr, "kmrun: cannot read the runs folder %s: %s\n", CMD_QUOTED(runs),
                    strerror(errno));
            free(runs);
            return KMRUN_SYSTEM;
        }
        free(runs);
        return KMRUN_OK; /* no run yet */
    }
    char **ids = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "latest") == 0)
            continue;
        char *result = NULL;
        struct stat st;
        if (asprintf(&result, "%s/%s/result.json", runs, e->d_name) < 0)
            break;
        bool whole = lstat(result, &st) == 0 && S_ISREG(st.st_mode);
        free(result);
        if (!whole)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **more = realloc(ids, cap * sizeof *ids);
            if (!more)
                break;
            ids = more;
        }
        ids[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(ids, n, sizeof *ids, by_name_newest_first);
    for (size_t i = 0; i < n; i++) {
        if (ids[i])
            printf("%s\n", ids[i]);
        free(ids[i]);
    }
    free(ids);
    free(runs);
    return KMRUN_OK;
}

static const char *name_of(const cJSON *region)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(region, "name"));
}

/* The region names of a run (kmrun_run_folder_find: `run`, else the
 * latest), each once, in regions.json's order. */
static int list_regions(const char *run_dir, const char *run)
{
    char *dir = NULL, *path = NULL, *text = NULL;
    kmrun_error *err = NULL;
    int rc = kmrun_run_folder_find(run_dir, run, &dir, &err);
    if (rc != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        kmrun_error_free(err);
        return rc;
    }
    FILE *f = asprintf(&path, "%s/regions.json", dir) >= 0 ? fopen(path, "r") : NULL;
    size_t len = 0;
    if (f) {
        FILE *mem = open_memstream(&text, &len);
        char buf[4096];
        size_t got;
        while (mem && (got = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, got, mem);
        if (mem)
            fclose(mem);
        fclose(f);
    }
    cJSON *list = text ? cJSON_Parse(text) : NULL;
    if (!cJSON_IsArray(list)) {
        fprintf(stderr, "kmrun: cannot read the regions of the run %s\n", CMD_QUOTED(dir));
        rc = KMRUN_SYSTEM;
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, list) {
        const char *name = name_of(r);
        bool seen = false;
        for (const cJSON *q = list->child; name && q != r && !seen; q = q->next)
            seen = name_of(q) && strcmp(name, name_of(q)) == 0;
        if (name && !seen)
            printf("%s\n", name);
    }
    cJSON_Delete(list);
    free(text);
    free(path);
    free(dir);
    return rc;
}

int cmd_completion(int argc, char **argv)
{
    enum { SCRIPT, COMMANDS, OPTIONS, REGIONS, RUNS } what = SCRIPT;
    int asked = 0;
    const char *command = NULL, *run = NULL, *run_dir = NULL;
    cmd_opts o;
    cmd_opts_start(&o, "completion", argc, argv);
    int c;
    while ((c = cmd_opts_next(&o)) != CMD_OPTS_END) {
        switch (c) {
        case 'C':
            what = COMMANDS;
            asked++;
            break;
        case 'O':
            what = OPTIONS;
            command = optarg;
            asked++;
            break;
        case 'g':
            what = REGIONS;
            asked++;
            break;
        case 'u':
            what = RUNS;
            asked++;
            break;
        case 'r':
            run = optarg;
            break;
        case 'R':
            run_dir = optarg;
            break;
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    if (asked > 1)
        return cmd_usage_error("completion",
                               "--commands, --options, --regions and --runs are one at a time");
    if (run && what != REGIONS)
        return cmd_usage_error("completion", "--run is only for --regions");
    if (run_dir && what != REGIONS && what != RUNS)
        return cmd_usage_error("completion", "--run-dir is only for --regions and --runs");
    if (what != SCRIPT) {
        if (optind < argc)
            return cmd_usage_error("completion", "unexpected argument %s",
                                   CMD_QUOTED(argv[optind]));
        switch (what) {
        case COMMANDS:
            for (unsigned i = 0; i < cmd_ncommands; i++)
                printf("%s\n", cmd_commands[i].name);
            return KMRUN_OK;
        case OPTIONS:
            return list_options(command);
        case REGIONS:
            return list_regions(run_dir, run);
        default:
            return list_runs(run_dir);
        }
    }
    if (optind == argc)
        return cmd_usage_error("completion", "missing the shell (bash or zsh)");
    if (optind + 1 < argc)
        return cmd_usage_error("completion", "unexpected argument %s",
                               CMD_QUOTED(argv[optind + 1]));
    /* The shells of the table's operand, bash|zsh, in that order. */
    switch (cmd_choice_index(o.command->operands[0].choices, argv[optind])) {
    case 0:
        cmd_complete_bash(stdout);
        return KMRUN_OK;
    case 1:
        cmd_complete_zsh(stdout);
        return KMRUN_OK;
    default:
        return cmd_usage_error("completion", "unknown shell %s (expected bash or zsh)",
                               CMD_QUOTED(argv[optind]));
    }
}
