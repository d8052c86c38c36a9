/* cmd_opts: a command's options parsed, shown and refused from its rows
 * of the table (cmd.h), so that what a command takes, what its help
 * says and what its errors name cannot disagree.
 *
 * An entry point parses with a loop on cmd_opts_next(), its switch on
 * each option's key:
 *
 *     cmd_opts o;
 *     cmd_opts_start(&o, "run", argc, argv);
 *     int c;
 *     while ((c = cmd_opts_next(&o)) != CMD_OPTS_END) {
 *         switch (c) {
 *         case 't': ... optarg ...; break;
 *         default: return KMRUN_USAGE; // CMD_OPTS_ERROR: already said
 *         }
 *     }
 *     ... argv[optind] .. argv[argc - 1] are the operands ...
 *
 * getopt_long() underneath, with GNU's order (options may follow the
 * operands; `--` ends them) and long options shortened to any unambiguous
 * prefix.  A bad command line is reported once, here, with the usage
 * line: an unknown option with the nearest one ("did you mean"), an
 * ambiguous prefix with what it could be, a missing value, a value given
 * to an option that takes none, a value not among the accepted ones. */
#ifndef KM_CMD_OPTS_H
#define KM_CMD_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "cmd.h"

#define CMD_OPTS_END (-1)
#define CMD_OPTS_ERROR (-2) /* a usage error, printed: return KMRUN_USAGE */

typedef struct cmd_opts {
    const cmd_command_entry *command;
    int argc;
    char **argv;
    const cmd_option *option; /* the option cmd_opts_next() returned */
    int choice;               /* its value's index among its choices, else -1 */
    struct option longopts[CMD_MAX_OPTIONS + 1];
    char shorts[2 * CMD_MAX_OPTIONS + 2];
} cmd_opts;

/* Ready to parse argv (argv[0] the command's name) with `command`'s
 * options; resets getopt (optind, opterr).  `command` must be in the
 * table. */
void cmd_opts_start(cmd_opts *o, const char *command, int argc, char **argv);

/* The next option's key (optarg holds its value, NULL for none),
 * CMD_OPTS_END after the last, or CMD_OPTS_ERROR once a usage error has
 * been printed. */
int cmd_opts_next(cmd_opts *o);

/* The usage line(s) of a command, "usage: kmrun NAME ..." (cmd.h's
 * synopsis), each ending in a newline. */
void cmd_print_usage(const cmd_command_entry *c, FILE *out);

/* The option list of `kmrun help NAME`: a line or more an option, its
 * help wrapped beside it; nothing for a command without options. */
void cmd_print_options(const cmd_command_entry *c, FILE *out);

/* The index of `value` among `choices` ("sim|host"), or -1. */
int cmd_choice_index(const char *choices, const char *value);

/* The i-th of `choices` into buf (n bytes); false past the last. */
bool cmd_choice_at(const char *choices, int i, char *buf, size_t n);

/* "sim or host", "raw, hex, u32 or json": `choices` ("a|b|c") as a
 * message names them, into buf (n bytes). */
void cmd_choices_text(const char *choices, char *buf, size_t n);

/* The number of a command's own options (0 for none): those its parser
 * takes. */
size_t cmd_option_count(const cmd_command_entry *c);

/* The i-th option a command lists (help, completion, `kmrun completion
 * --options`): its own, then those it shares (cmd_diag_options_of:
 * --message-format, --color); NULL past the last. */
const cmd_option *cmd_option_listed(const cmd_command_entry *c, size_t i);

#endif
