/* cmd_common: shared steps of the subcommands (cmd_common.h). */
#include "cmd_common.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_diag.h"

char *cmd_dup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        cmd_say(CMD_ERROR, "kmrun.system", "out of memory");
        exit(KMRUN_SYSTEM);
    }
    return d;
}

int cmd_load_program(const char *path, kmrun_program **out)
{
    kmrun_error *err = NULL;
    int rc = kmrun_program_load(path, out, &err);
    if (rc != KMRUN_OK) {
        cmd_diag_error(err); /* its detail, or "kmrun: message"; or JSON lines */
        kmrun_error_free(err);
    }
    return rc;
}

int cmd_load_one_program(const char *command, int argc, char **argv, kmrun_program **out)
{
    *out = NULL;
    if (optind + 1 != argc)
        return cmd_usage_error(command, optind == argc ? "missing the program manifest"
                                                      : "expected one program manifest");
    return cmd_load_program(argv[optind], out);
}

void cmd_warn(const char *message, void *ctx)
{
    (void)ctx;
    cmd_say(CMD_WARNING, "cache.warning", "%s", message);
}

int cmd_open_cache(kmrun_cache **out)
{
    kmrun_error *err = NULL;
    int rc = kmrun_cache_open(NULL, out, &err);
    if (rc != KMRUN_OK) {
        cmd_diag_error(err);
        kmrun_error_free(err);
        return rc;
    }
    kmrun_cache_set_warning(*out, cmd_warn, NULL);
    return KMRUN_OK;
}

static void on_note(const char *line, void *ctx)
{
    (void)ctx;
    cmd_say(CMD_NOTE, "cache.remote", "%s", line);
}

int cmd_cache_remote(kmrun_cache *c, const char *command, const char *url, bool verbose)
{
    if (url) {
        kmrun_error *err = NULL;
        if (kmrun_cache_set_remote(c, url, &err) != KMRUN_OK) {
            cmd_usage_error(command, "%s", kmrun_error_message(err));
            kmrun_error_free(err);
            return KMRUN_USAGE;
        }
        setenv("KMRUN_REMOTE_STORAGE", url, 1);
    }
    if (verbose)
        kmrun_cache_set_note(c, on_note, NULL);
    return KMRUN_OK;
}
