/* cmd_summary: the few lines a person reads after `kmrun run` or `kmrun
 * check` on a terminal (issue 14, "a run a person can read"; the words
 * are kmrun_run_summary's) — on stderr; stdout stays the one JSON
 * document.  Nothing when stderr is not a terminal or with
 * --message-format=json; colours as cmd_diag_color() says (--color,
 * NO_COLOR, CLICOLOR_FORCE, a terminal, TERM=dumb). */
#ifndef CMD_SUMMARY_H
#define CMD_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd_run.h"

/* Whether a summary goes to stderr (a terminal), and whether in colour. */
bool cmd_summary_wanted(bool *color);

/* The summary of a run cmd_run_program made, headed by `title` when not
 * NULL, to f. */
void cmd_summary_outcome(FILE *f, bool color, const char *title, const cmd_run_outcome *o,
                         double wall_seconds);

#endif
