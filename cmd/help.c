/* cmd/help.c: `kmrun help [COMMAND]`, the overview `kmrun --help` prints,
 * and the message for a command that does not exist. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_diag.h"

/* The documented exit codes (kmrun_status; man/kmrun.1, EXIT STATUS). */
static const struct {
    int code;
    const char *meaning;
} exit_codes[] = {
    {KMRUN_OK, "success"},
    {KMRUN_FAILED, "a thread or a kernel failed, a check found a difference, a wrong "
                     "hand-over or a wild write"},
    {KMRUN_USAGE, "usage error, or an error in a manifest"},
    {KMRUN_BUILD, "build error: a compile failure or a rejected image"},
    {KMRUN_SYSTEM, "system error: I/O, a missing tool, an unusable cache"},
    {KMRUN_INTERNAL, "internal error: a bug in kmrun"},
};

void cmd_print_overview(FILE *out)
{
    fputs("usage: kmrun [--version] [--help] <command> [<args>]\n"
          "\n"
          "Build and run X280 thread programs for Tenstorrent Blackhole, on the\n"
          "simulated card built into kmrun.\n"
          "\n"
          "Commands:\n",
          out);
    int width = 0;
    for (unsigned i = 0; i < cmd_ncommands; i++) {
        int n = (int)strlen(cmd_commands[i].name);
        if (n > width)
            width = n;
    }
    for (unsigned i = 0; i < cmd_ncommands; i++)
        fprintf(out, "   %-*s   %s\n", width, cmd_commands[i].name,
                cmd_commands[i].summary);
    fputs("\nExit status:\n", out);
    for (size_t i = 0; i < sizeof exit_codes / sizeof exit_codes[0]; i++)
        fprintf(out, "   %d   %s\n", exit_codes[i].code, exit_codes[i].meaning);
    fputs("\n"
          "'kmrun help <command>' shows one command's help; 'man kmrun' is the\n"
          "manual and 'man kmrun-program' the program.yaml format.\n",
          out);
}

void cmd_print_command_help(const cmd_command_entry *c, FILE *out)
{
    fprintf(out, "usage: %s\n\n%s", c->usage, c->help);
    cmd_diag_help(c->name, out); /* the options cmd_diag.h reads for it */
}

int cmd_unknown_command(const char *name)
{
    const char *names[64];
    size_t n = 0;
    for (unsigned i = 0; i < cmd_ncommands && n < sizeof names / sizeof names[0]; i++)
        names[n++] = cmd_commands[i].name;
    const char *near = kmrun_suggest(name, names, n);
    if (near)
        fprintf(stderr, "kmrun: %s is not a kmrun command (did you mean '%s'?)\n",
                CMD_QUOTED(name), near);
    else
        fprintf(stderr, "kmrun: %s is not a kmrun command\n", CMD_QUOTED(name));
    fputs("kmrun: see 'kmrun --help'\n", stderr);
    return KMRUN_USAGE;
}

int cmd_help(int argc, char **argv)
{
    static const struct option longopts[] = {{NULL, 0, NULL, 0}};
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1)
        return cmd_option_error("help", c, argv, longopts);

    if (optind == argc) {
        cmd_print_overview(stdout);
        return KMRUN_OK;
    }
    if (argc - optind > 1)
        return cmd_usage_error("help", "unexpected argument %s", CMD_QUOTED(argv[optind + 1]));
    const cmd_command_entry *entry = cmd_command_find(argv[optind]);
    if (!entry)
        return cmd_unknown_command(argv[optind]);
    cmd_print_command_help(entry, stdout);
    return KMRUN_OK;
}
