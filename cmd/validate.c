/* cmd/validate.c: `kmrun validate [--quiet] [--json] program.yaml...`.
 * Loads every manifest given (kmrun_program_load), prints each one's
 * errors with their positions, and for the valid ones a summary line or,
 * with --json, the program model (kmrun_program_json) as one JSON
 * document on stdout. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_diag.h"

enum { OPT_JSON = 256 };

/* --- the summary line ---------------------------------------------------- */

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static size_t count(const cJSON *o, const char *key)
{
    return (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* "1 thread on cluster 1", "2 threads on clusters 2 and 3", ... of the
 * program's JSON (kmrun_program_json). */
static void print_summary(const char *path, const cJSON *p)
{
    bool on[4] = {false};
    size_t nthreads = 0, nregions = count(p, "regions");
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(p, "threads")) {
        nregions += count(t, "regions");
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(t, "clusters")) {
            nthreads++;
            if (c->valueint >= 0 && c->valueint < 4)
                on[c->valueint] = true;
        }
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
    size_t ncommands = count(p, "commands");
    char path_shown[1024];
    printf("%s: ok (program %s: %zu %s",
           kmrun_escape(path_shown, sizeof path_shown, path, strlen(path), 0),
           CMD_QUOTED(cJSON_GetStringValue(name)), nthreads,
           plural(nthreads, "thread", "threads"));
    if (nthreads) {
        printf(" on %s", plural(nthreads, "cluster", "clusters"));
        size_t shown = 0;
        for (int c = 0; c < 4; c++) {
            if (!on[c])
                continue;
            shown++;
            const char *sep = shown == 1 ? " " : shown == nthreads ? " and " : ", ";
            printf("%s%d", sep, c);
        }
    }
    printf(", %zu %s, %zu %s)\n", nregions, plural(nregions, "region", "regions"), ncommands,
           plural(ncommands, "command", "commands"));
}

/* --- the command ----------------------------------------------------------- */

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"quiet", no_argument, NULL, 'q'},
        {"json", no_argument, NULL, OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    bool quiet = false, json = false;
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":q", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = true; break;
        case OPT_JSON: json = true; break;
        default: return cmd_option_error("validate", c, argv, longopts);
        }
    }
    if (quiet && json)
        return cmd_usage_error("validate", "options '--quiet' and '--json' cannot be used together");
    if (optind == argc)
        return cmd_usage_error("validate", "no manifest given");

    int status = KMRUN_OK;
    int nfiles = argc - optind;
    cJSON *docs = json ? cJSON_CreateArray() : NULL;
    if (json && !docs) {
        fputs("kmrun: out of memory\n", stderr);
        return KMRUN_SYSTEM;
    }
    for (int i = optind; i < argc; i++) {
        const char *path = argv[i];
        kmrun_program *p = NULL;
        int rc = cmd_load_program(path, &p);
        char *text = NULL;
        cJSON *doc = NULL;
        kmrun_error *err = NULL;
        if (rc == KMRUN_OK && !quiet) {
            rc = kmrun_program_json(p, &text, &err);
            doc = text ? cJSON_Parse(text) : NULL;
            if (rc != KMRUN_OK) {
                cmd_diag_error(err);
                kmrun_error_free(err);
            } else if (!doc) {
                fputs("kmrun: out of memory\n", stderr);
                rc = KMRUN_SYSTEM;
            }
        }
        if (rc == KMRUN_OK && doc) {
            if (json) {
                if (cJSON_AddItemToArray(docs, doc)) {
                    doc = NULL;
                } else {
                    fputs("kmrun: out of memory\n", stderr);
                    rc = KMRUN_SYSTEM;
                }
            } else {
                print_summary(path, doc);
            }
        }
        cJSON_Delete(doc);
        free(text);
        kmrun_program_free(p);
        if (rc > status)
            status = rc;
    }

    if (json && status == KMRUN_OK) {
        cJSON *doc = docs;
        if (nfiles == 1) /* one manifest: its object, not an array of one */
            doc = cJSON_DetachItemFromArray(docs, 0);
        char *text = cJSON_Print(doc);
        if (text) {
            printf("%s\n", text);
            free(text);
        } else {
            fputs("kmrun: out of memory\n", stderr);
            status = KMRUN_SYSTEM;
        }
        if (doc != docs)
            cJSON_Delete(doc);
    }
    cJSON_Delete(docs);
    return status;
}
