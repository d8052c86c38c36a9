/* cmd: the kmrun command line.  Each subcommand is one file with one entry
 * point, wired by the table in cmd/main.c.  An entry point gets argv with
 * argv[0] being the subcommand's name and returns a KM_EXIT_* status
 * (lib/base/km_error.h); only cmd/ decides what to print and how to exit.
 *
 * main.c handles `kmrun COMMAND --help` (and -h, anywhere before a `--`)
 * for every command, so an entry point never sees --help.  Entry points
 * parse their options with getopt_long(): reset with `optind = 0;
 * opterr = 0;`, start the short options with ':' and hand any '?' or ':'
 * to cmd_option_error(), which names the option and prints the usage. */
#ifndef KM_CMD_H
#define KM_CMD_H

#include <stdio.h>

struct option;

typedef struct cmd_command_entry {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;   /* one line: "kmrun build [options] program.yaml" */
    const char *summary; /* one line for `kmrun --help` */
    const char *help;    /* the text `kmrun help NAME` prints after the usage
                          * line and a blank line; ends with a newline */
} cmd_command_entry;

int cmd_build(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_read_region(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* The table, for help and suggestions. */
extern const cmd_command_entry cmd_commands[];
extern const unsigned cmd_ncommands;

/* The command called `name`, or NULL. */
const cmd_command_entry *cmd_command_find(const char *name);

/* Prints "kmrun: <message>" and the command's usage line to stderr;
 * returns KM_EXIT_USAGE.  `command` NULL means kmrun's own usage. */
int cmd_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* For getopt_long()'s '?' or ':' (see above): "unknown option '--x'",
 * "option '--x' requires a value", ... and the usage; KM_EXIT_USAGE. */
int cmd_option_error(const char *command, int c, char **argv,
                    const struct option *longopts);

/* "kmrun: 'biuld' is not a kmrun command (did you mean 'build'?)" and a
 * pointer to `kmrun --help` on stderr; returns KM_EXIT_USAGE. */
int cmd_unknown_command(const char *name);

/* `kmrun --help`: usage, commands, exit codes, where to read more. */
void cmd_print_overview(FILE *out);

/* `kmrun help NAME`: the usage line, a blank line, the help text. */
void cmd_print_command_help(const cmd_command_entry *c, FILE *out);

#endif
