/* cmd_common: shared steps of the subcommands (cmd_common.h). */
#include "cmd_common.h"

#include <getopt.h>
#include <stdio.h>

#include "cmd.h"

int cmd_load_program(const char *path, kmrun_program **out)
{
    kmrun_error *err = NULL;
    int rc = kmrun_program_load(path, out, &err);
    if (rc != KMRUN_OK) {
        const char *detail = kmrun_error_detail(err);
        if (detail)
            fputs(detail, stderr);
        else
            fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
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
    fprintf(stderr, "kmrun: warning: %s\n", message);
}

int cmd_open_cache(kmrun_cache **out)
{
    kmrun_error *err = NULL;
    int rc = kmrun_cache_open(NULL, out, &err);
    if (rc != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        kmrun_error_free(err);
        return rc;
    }
    kmrun_cache_set_warning(*out, cmd_warn, NULL);
    return KMRUN_OK;
}
