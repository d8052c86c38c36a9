/* cmd: the kmrun command line, made from one table.  cmd_commands[]
 * (cmd/cmd.c) names every command and, per command, every option (its
 * long name, short letter, value, the values it accepts, what completes
 * it, its help) and operand; from that table alone come the getopt_long()
 * arrays each command parses with (cmd_opts.h), the usage line and the
 * option list of `kmrun help COMMAND`, the usage errors (an unknown
 * option with the nearest one, a missing value, a value not among the
 * accepted ones) and the bash and zsh completion scripts of `kmrun
 * completion` (cmd/completion.c).  tests/cli/man.bats holds the table,
 * kmrun(1) and the help to each other; tests/cli/completion.bats the
 * scripts.
 *
 * Each subcommand is one file with one entry point (below).  An entry
 * point gets argv with argv[0] being the subcommand's name and returns a
 * kmrun_status, the exit code (include/kmrun.h); only cmd/ decides what
 * to print and how to exit.  cmd/ is the public API's first user: it
 * includes include/kmrun.h, its own headers and system headers, nothing
 * of lib/.  main() (cmd/cmd.c) handles `kmrun COMMAND --help` (and -h,
 * anywhere before a `--`) for every command, so an entry point never sees
 * --help; and, for every command that builds or checks, the options they
 * share, --message-format and --color (their rows: cmd_diag.c's
 * cmd_diag_table; which commands: its cmd_diag_takes): read once and
 * taken out of argv before the entry point, listed after the command's
 * own in its help, its completion and kmrun(1), never in its usage line.
 *
 * To add an option to a command: a row in the command's cmd_option array
 * in cmd/cmd.c (name, key, letter, value, help: see cmd_option), a case
 * for its key in the command's switch, and its item in the command's
 * part of man/kmrun.1's COMMANDS (`.It Fl -name Ar value`; man.bats fails
 * until it is there).  Nothing else: help, usage, errors and completion
 * follow.
 *
 * To add a command: its entry point declared below and written in
 * cmd/NAME.c, parsing with cmd_opts_start()/cmd_opts_next() (cmd_opts.h);
 * a cmd_command_entry row in cmd_commands[] (cmd/cmd.c) with its options
 * and operands; its `.It Nm Cm NAME` item, with its options, in
 * man/kmrun.1's COMMANDS and its synopsis in SYNOPSIS; a row in
 * README.md's command table; when it builds or checks, its name in
 * cmd_diag.c's takers (it then takes --message-format and --color). */
#ifndef KM_CMD_H
#define KM_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "kmrun.h"
#include "kmrun_tools.h"

/* A name in a message, as kmrun shows every name (kmrun_quote): a buffer
 * that lives to the end of the enclosing block. */
#define CMD_QUOTED(name) kmrun_quote((char[KMRUN_QUOTE_BYTES]){0}, KMRUN_QUOTE_BYTES, (name))

/* Whether an option takes a value. */
typedef enum cmd_arg {
    CMD_ARG_NONE,     /* --progress */
    CMD_ARG_REQUIRED, /* --timeout S, --timeout=S */
    CMD_ARG_OPTIONAL, /* --trace-instructions[=FILE]: only with '=' */
} cmd_arg;

/* What a value (an option's or an operand) is, for the completion. */
typedef enum cmd_value {
    CMD_VALUE_TEXT,    /* anything: a number, seconds; nothing completes it */
    CMD_VALUE_FILE,    /* a file; .pattern, a glob such as "*.yaml", narrows it */
    CMD_VALUE_DIR,     /* a folder */
    CMD_VALUE_ELF,     /* an ELF file (the completion reads the magic) */
    CMD_VALUE_CHOICE,  /* one of .choices (set .choices; .value may stay TEXT) */
    CMD_VALUE_REGION,  /* a region of the latest run (or of --run, --run-dir) */
    CMD_VALUE_RUN,     /* a run id of the runs folder (or of --run-dir) */
    CMD_VALUE_COMMAND, /* a kmrun command */
} cmd_value;

/* One option of a command: a row of the table. */
typedef struct cmd_option {
    const char *name;     /* the long option, without "--": "timeout" */
    /* What cmd_opts_next() returns for it, the case in the command's
     * switch: any int above 0, unique in the command (a letter reads
     * well; it need not be the short option's). */
    int key;
    char letter;          /* its short option -letter, or 0 */
    cmd_arg arg;
    const char *arg_name; /* the value's name in help and usage ("S", "FILE");
                           * NULL for a choice: its choices are shown */
    /* The values it accepts, '|' between them ("sim|host"), or NULL for
     * any; cmd_opts_next() refuses any other (bad_choice, or "invalid
     * --NAME 'V' (expected a, b or c)") and says which one it was. */
    const char *choices;
    const char *bad_choice; /* printf format with two %s: the value quoted,
                             * the accepted ones ("a, b or c"); NULL: as above */
    bool unchecked;         /* choices only shown and completed: the command
                             * checks the value itself (kmrun new's templates) */
    cmd_value value;        /* what completes the value (choices: those) */
    const char *pattern;    /* CMD_VALUE_FILE: the files offered ("*.yaml") */
    bool equals;            /* shown as --name=VALUE (help, usage), not --name VALUE */
    const char *help;       /* one paragraph, wrapped when shown */
} cmd_option;

/* An operand: what follows the options. */
typedef struct cmd_operand {
    const char *name;    /* as the usage shows it: "program.yaml", "NAME" */
    cmd_value value;
    const char *pattern; /* CMD_VALUE_FILE: "*.yaml" */
    const char *choices; /* CMD_VALUE_CHOICE: "stats|path|gc|clear" */
    bool optional;       /* "[COMMAND]" */
    bool repeats;        /* "program.yaml..." */
} cmd_operand;

#define CMD_MAX_OPTIONS 32

typedef struct cmd_command_entry {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;       /* one line for `kmrun --help` */
    const cmd_option *options; /* ended by a row with no name; NULL: none */
    const cmd_operand *operands; /* ended by a row with no name; NULL: none */
    /* The usage line after "usage: ", when the generated one (the name,
     * each option in brackets, the operands; "[options]" when they take
     * more than two lines) cannot say it: options that belong to one
     * operand.  More lines are indented by "   or: ". */
    const char *synopsis;
    const char *help;  /* what `kmrun help NAME` prints after the usage line
                        * and a blank line, before the options; ends with a
                        * newline */
    const char *after; /* after the options and a blank line: the exit
                        * status; ends with a newline; may be NULL */
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
int cmd_profile(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* The table, in the order `kmrun --help` lists it. */
extern const cmd_command_entry cmd_commands[];
extern const unsigned cmd_ncommands;

/* The options kmrun itself takes before a command (--help, --version). */
extern const cmd_option cmd_global_options[];

/* The command called `name`, or NULL. */
const cmd_command_entry *cmd_command_find(const char *name);

/* Prints "kmrun: <message>" and the command's usage line to stderr;
 * returns KMRUN_USAGE.  `command` NULL means kmrun's own usage. */
int cmd_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "kmrun: 'biuld' is not a kmrun command (did you mean 'build'?)" and a
 * pointer to `kmrun --help` on stderr; returns KMRUN_USAGE. */
int cmd_unknown_command(const char *name);

/* `kmrun --help`: usage, commands, exit codes, where to read more. */
void cmd_print_overview(FILE *out);

/* `kmrun help NAME`: the usage line, a blank line, the help text, the
 * options (cmd_opts.h), the exit status. */
void cmd_print_command_help(const cmd_command_entry *c, FILE *out);

#endif
