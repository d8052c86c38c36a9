/* kmrun cache: stats, path, gc --max-size SIZE, clear. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_common.h"
#include "cmd_opts.h"

/* A failure of the cache: said on stderr; its status. */
static int failed(int rc, kmrun_error *err)
{
    fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
    kmrun_error_free(err);
    return rc;
}

static int stats(kmrun_cache *c, int json)
{
    kmrun_cache_stats s;
    kmrun_error *err = NULL;
    int rc = kmrun_cache_stats_get(c, &s, &err);
    if (rc != KMRUN_OK)
        return failed(rc, err);
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", kmrun_cache_folder(c));
        cJSON_AddNumberToObject(o, "entries", (double)s.entries);
        cJSON_AddNumberToObject(o, "entry_bytes", (double)s.entry_bytes);
        cJSON_AddNumberToObject(o, "records", (double)s.records);
        cJSON_AddNumberToObject(o, "work_bytes", (double)s.work_bytes);
        cJSON_AddNumberToObject(o, "hits", (double)s.hits);
        cJSON_AddNumberToObject(o, "misses", (double)s.misses);
        cJSON_AddNumberToObject(o, "remote_hits", (double)s.remote_hits);
        cJSON_AddNumberToObject(o, "remote_misses", (double)s.remote_misses);
        cJSON_AddNumberToObject(o, "remote_errors", (double)s.remote_errors);
        cJSON_AddNumberToObject(o, "remote_stored", (double)s.remote_stored);
        cJSON_AddNumberToObject(o, "results_reused", (double)s.results_reused);
        char *text = cJSON_Print(o);
        printf("%s\n", text);
        cJSON_free(text);
        cJSON_Delete(o);
        return KMRUN_OK;
    }
    char a[32], b[32];
    printf("cache:        %s\n", kmrun_cache_folder(c));
    printf("entries:      %llu (%s)\n", (unsigned long long)s.entries,
           kmrun_format_size(s.entry_bytes, a, sizeof a));
    printf("records:      %llu\n", (unsigned long long)s.records);
    printf("build folders: %s\n", kmrun_format_size(s.work_bytes, b, sizeof b));
    printf("hits:         %llu\n", (unsigned long long)s.hits);
    printf("misses:       %llu\n", (unsigned long long)s.misses);
    printf("remote:       %llu hits, %llu misses, %llu errors, %llu stored\n",
           (unsigned long long)s.remote_hits, (unsigned long long)s.remote_misses,
           (unsigned long long)s.remote_errors, (unsigned long long)s.remote_stored);
    printf("results reused: %llu\n", (unsigned long long)s.results_reused);
    return KMRUN_OK;
}

/* The end of gc's or clear's line: the entries a run or build uses now. */
static void print_kept(uint64_t kept)
{
    if (kept)
        fprintf(stderr, ", of which %llu in use by a running build or run (kept)",
                (unsigned long long)kept);
    fputc('\n', stderr);
}

static int gc(kmrun_cache *c, const char *size_text)
{
    uint64_t max = 0;
    const char *hint = NULL;
    if (!kmrun_parse_size(size_text, &max, &hint)) {
        if (hint)
            return cmd_usage_error("cache", "invalid size '%s' (did you mean '%s'?)", size_text,
                                  hint);
        return cmd_usage_error("cache", "invalid size '%s' (expected bytes or a number with "
                                       "B, KiB, MiB or GiB, such as 512MiB)",
                              size_text);
    }
    uint64_t removed = 0, kept = 0;
    kmrun_error *err = NULL;
    int rc = kmrun_cache_gc(c, max, &removed, &kept, &err);
    if (rc != KMRUN_OK)
        return failed(rc, err);
    /* And what killed runs left in the runs folder, when there is one. */
    kmrun_runs_sweep(NULL);
    kmrun_cache_stats s = {0};
    kmrun_cache_stats_get(c, &s, &err);
    kmrun_error_free(err);
    char a[32];
    fprintf(stderr, "removed %llu entr%s; %llu left (%s)", (unsigned long long)removed,
            removed == 1 ? "y" : "ies", (unsigned long long)s.entries,
            kmrun_format_size(s.entry_bytes, a, sizeof a));
    print_kept(kept);
    return KMRUN_OK;
}

static int clear(kmrun_cache *c)
{
    uint64_t kept = 0;
    kmrun_error *err = NULL;
    int rc = kmrun_cache_clear(c, &kept, &err);
    if (rc != KMRUN_OK)
        return failed(rc, err);
    if (kept) {
        fprintf(stderr, "cleared");
        print_kept(kept);
    }
    return KMRUN_OK;
}

int cmd_cache(int argc, char **argv)
{
    const char *max_size = NULL;
    int json = 0, c;
    cmd_opts o;
    cmd_opts_start(&o, "cache", argc, argv);
    while ((c = cmd_opts_next(&o)) != CMD_OPTS_END) {
        if (c == 'm')
            max_size = optarg;
        else if (c == 'J')
            json = 1;
        else
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
    }
    if (optind + 1 != argc)
        return cmd_usage_error("cache", optind == argc ? "missing the action (stats, path, gc or clear)"
                                                      : "expected one action");
    static const char *const actions[] = {"stats", "path", "gc", "clear"};
    const char *action = argv[optind];
    size_t which = 0;
    while (which < 4 && strcmp(action, actions[which]) != 0)
        which++;
    if (which == 4) {
        const char *close = kmrun_suggest(action, actions, 4);
        if (close)
            return cmd_usage_error("cache", "unknown action '%s' (did you mean '%s'?)", action, close);
        return cmd_usage_error("cache", "unknown action '%s' (expected stats, path, gc or clear)",
                              action);
    }
    if (which == 2 && !max_size)
        return cmd_usage_error("cache", "'gc' needs --max-size SIZE");
    if (which != 2 && max_size)
        return cmd_usage_error("cache", "--max-size is only for 'gc'");
    if (which != 0 && json)
        return cmd_usage_error("cache", "--json is only for 'stats'");
    kmrun_cache *cache = NULL;
    int rc = cmd_open_cache(&cache);
    if (rc != KMRUN_OK)
        return rc;
    switch (which) {
    case 0:
        rc = stats(cache, json);
        break;
    case 1:
        printf("%s\n", kmrun_cache_folder(cache));
        break;
    case 2:
        rc = gc(cache, max_size);
        break;
    default:
        rc = clear(cache);
        break;
    }
    kmrun_cache_close(cache);
    return rc;
}
