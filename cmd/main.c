/* cmd/main.c: kmrun's entry point: `kmrun COMMAND ...` dispatched through
 * the table (cmd.h), `--help` for any command, stdout's errors. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_stderr.h"

/* `kmrun --help` style aliases for commands. */
static const char *alias(const char *word)
{
    if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0)
        return "help";
    if (strcmp(word, "--version") == 0)
        return "version";
    return word;
}

/* kmrun's own option that is none of --help, -h, --version. */
static int unknown_option(const char *word)
{
    const char *names[8];
    size_t n = 0;
    for (const cmd_option *o = cmd_global_options; o->name && n < 8; o++)
        names[n++] = o->name;
    const char *near = strncmp(word, "--", 2) == 0 ? kmrun_suggest(word + 2, names, n) : NULL;
    if (near)
        return cmd_usage_error(NULL, "unknown option %s (did you mean '--%s'?)",
                               CMD_QUOTED(word), near);
    return cmd_usage_error(NULL, "unknown option %s", CMD_QUOTED(word));
}

/* Writing stdout failed (a full disk, a closed pipe): say so. */
static int check_stdout(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "kmrun: cannot write to standard output: %s\n",
                strerror(errno));
        return status > KMRUN_SYSTEM ? status : KMRUN_SYSTEM;
    }
    return status;
}

int main(int argc, char **argv)
{
    cmd_stderr_guard();
    if (argc < 2) {
        cmd_print_overview(stderr);
        return KMRUN_USAGE;
    }
    const char *name = alias(argv[1]);
    if (name[0] == '-')
        return unknown_option(name);

    const cmd_command_entry *c = cmd_command_find(name);
    if (!c)
        return cmd_unknown_command(name);

    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cmd_print_command_help(c, stdout);
            return check_stdout(KMRUN_OK);
        }
    }

    argv[1] = (char *)c->name;
    return check_stdout(c->run(argc - 1, argv + 1));
}
