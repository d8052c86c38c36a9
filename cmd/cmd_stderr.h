/* cmd_stderr: nothing raw reaches the terminal through stderr.
 *
 * cmd_stderr_guard(), first thing in main(), puts a filter in front of
 * stderr: every byte any code writes to stderr is written as kmrun shows
 * text (kmrun_show_next) — a control byte other than newline and tab, DEL,
 * a C1 control or a byte that is not UTF-8 becomes \ooo — whoever built
 * the text: a message from lib/ or a subcommand, a name from a run
 * folder or a manifest, a compiler's line, a thread's print.  The one way past it is
 * cmd_stderr_control(), for the terminal control kmrun means itself (the
 * progress line's "\r\033[K", the summary's colours); it never carries a
 * name.  Both write at once, unbuffered, so their order on the terminal is
 * the order of the calls.
 *
 * stdout is not filtered: it carries JSON (cJSON escapes control bytes),
 * raw region bytes (read-region --format raw) and a few lines of text that
 * quote their names (kmrun_quote). */
#ifndef CMD_STDERR_H
#define CMD_STDERR_H

#include <stdio.h>

/* Puts the filter in front of stderr (once; where it cannot be made,
 * stderr stays as it is). */
void cmd_stderr_guard(void);

/* Writes `sequence` (terminal control kmrun itself means, a constant) to
 * f: past the filter when f is the guarded stderr. */
void cmd_stderr_control(FILE *f, const char *sequence);

#endif
