/* cmd_summary: the few lines a person reads after `kmrun run` or `kmrun
 * check` on a terminal (issue 14, "a run a person can read") — a line per
 * thread, a line per host-fed command, the totals, the run folder — on
 * stderr; stdout stays the one JSON document.  Nothing when stderr is not
 * a terminal; colours only on one, and never with NO_COLOR set or
 * TERM=dumb. */
#ifndef CMD_SUMMARY_H
#define CMD_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "km_program.h"
#include "km_session.h"

/* Whether a summary goes to stderr (a terminal), and whether in colour. */
bool cmd_summary_wanted(bool *color);

/* Writes the summary of run `id` of p (its folder `folder`, NULL when it
 * was not written) to f. */
void cmd_summary_write(FILE *f, bool color, const km_program *p, const km_run_result *r,
                       const char *id, const char *folder, double wall_seconds);

/* The same for a run cmd_run_backend made (its folder, when written, is
 * the run's record's: km_run_record.h), headed by `title` when not NULL. */
struct cmd_run_outcome;
void cmd_summary_outcome(FILE *f, bool color, const char *title, const km_program *p,
                         const struct cmd_run_outcome *o, double wall_seconds);

#endif
