/* cmd: the kmrun command line.  Each subcommand is one file with one entry
 * point, wired by the table in cmd/main.c.  An entry point gets argv with
 * argv[0] being the subcommand's name and returns a kmrun_status, the
 * exit code (include/kmrun.h); only cmd/ decides what to print and how
 * to exit.  cmd/ is the public API's first user: it includes
 * include/kmrun.h, its own headers and system headers, nothing of lib/.
 *
 * main.c handles `kmrun COMMAND --help` (and -h, anywhere before a `--`)
 * for every command, so an entry point never sees --help; and, for every
 * command that builds or checks, --message-format and --color
 * (cmd_diag.h: read once, taken out of argv before the entry point, their
 * help added to the command's by cmd_print_command_help).  Entry points
 * parse their options with getopt_long(): reset with `optind = 0;
 * opterr = 0;`, start the short options with ':' and hand any '?' or ':'
 * to cmd_option_error(), which names the option and prints the usage. */
#ifndef KM_CMD_H
#define KM_CMD_H

#include <stdio.h>

#include "kmrun.h"

struct option;

/* A name in a message, as kmrun shows every name (kmrun_quote): a buffer
 * that lives to the end of the enclosing block. */
#define CMD_QUOTED(name) kmrun_quote((char[KMRUN_QUOTE_BYTES]){0}, KMRUN_QUOTE_BYTES, (name))

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
int cmd_test(int argc, char **argv);
int cmd_new(int argc, char **argv);
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
 * returns KMRUN_USAGE.  `command` NULL means kmrun's own usage. */
int cmd_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* For getopt_long()'s '?' or ':' (see above): "unknown option '--x'",
 * "option '--x' requires a value", ... and the usage; KMRUN_USAGE. */
int cmd_option_error(const char *command, int c, char **argv,
                    const struct option *longopts);

/* "kmrun: 'biuld' is not a kmrun command (did you mean 'build'?)" and a
 * pointer to `kmrun --help` on stderr; returns KMRUN_USAGE. */
int cmd_unknown_command(const char *name);

/* `kmrun --help`: usage, commands, exit codes, where to read more. */
void cmd_print_overview(FILE *out);

/* `kmrun help NAME`: the usage line, a blank line, the help text. */
void cmd_print_command_help(const cmd_command_entry *c, FILE *out);

#endif
