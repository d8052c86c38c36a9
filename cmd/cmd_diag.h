/* cmd_diag: how kmrun(1) tells what it finds — as text for a person
 * (kmrun's own lines "kmrun: ...", a manifest's "file:line:col: ..." with
 * its line and a caret, the compilers' text), painted or not, or, with
 * --message-format=json, as one JSON object a line on stderr for a tool
 * (stdout keeps the command's one document).
 *
 * The options are read here, once, for every command that builds or
 * checks (build, run, check, validate, test: cmd_diag_takes): main.c calls
 * cmd_diag_options() on argv before the command's entry point, and it
 * takes out of argv (before a "--")
 *
 *   --message-format=human|json   (or two words: --message-format json)
 *   --color=auto|always|never     (or two words)
 *
 * so that no command's getopt block sees them; the last of each wins.
 * cmd_diag_help() writes their help after each such command's, which
 * `kmrun help COMMAND` prints.
 *
 * Colour (kmrun's text, and the compilers', which get
 * -fdiagnostics-color=always or never): --color always or never, else
 * (auto) never when NO_COLOR is set and not empty, always when
 * CLICOLOR_FORCE is set and not "0", else when stderr is a terminal whose
 * TERM is not "dumb".  JSON is never painted.
 *
 * In JSON every line on stderr is an object whose "type" says what it is:
 * "diagnostic" (kmrun_diagnostic_json's keys after it: severity, code,
 * message, file, line, column, end_column, text, option, children), "print"
 * (core, microseconds, text) or "progress" (cluster, where,
 * microseconds); the summary and Ninja's status line, a person's, are not
 * written.  Every message the text would give is there, nothing dropped. */
#ifndef CMD_DIAG_H
#define CMD_DIAG_H

#include <stdbool.h>
#include <stdio.h>

#include "kmrun.h"

/* Whether `command` takes --message-format and --color. */
bool cmd_diag_takes(const char *command);

/* Takes the two options out of argv[first .. *argc) for `command` (when
 * it takes them), shifting the rest down and lowering *argc.  KMRUN_OK,
 * or KMRUN_USAGE with the usage error printed. */
int cmd_diag_options(const char *command, int *argc, char **argv, int first);

/* The options' lines for `kmrun help COMMAND` (nothing for a command that
 * does not take them). */
void cmd_diag_help(const char *command, FILE *out);

/* --message-format=json is on. */
bool cmd_diag_json(void);
/* kmrun's text on stderr is painted (see above). */
bool cmd_diag_color(void);
/* What the compilers are told: KMRUN_COLOR_ALWAYS or _NEVER. */
kmrun_color cmd_diag_compiler_color(void);

/* How kmrun's own line weighs.  Human text: an error "kmrun: message", a
 * warning "kmrun: warning: message", a note "kmrun: note: message", an
 * info "kmrun: message"; JSON: a diagnostic (an info's severity "note"). */
typedef enum cmd_level { CMD_ERROR, CMD_WARNING, CMD_NOTE, CMD_INFO } cmd_level;
void cmd_say(cmd_level level, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A failure as the commands print it: its detail (a manifest's errors,
 * their lines and carets) or "kmrun: message"; JSON: every diagnostic of
 * it (kmrun_error_diagnostics). */
void cmd_diag_error(const kmrun_error *e);
/* One finding: shown as kmrun_diagnostic_show gives it, or one JSON line. */
void cmd_diag_print(const kmrun_diagnostic *d);
/* A line a compiler wrote (human text), its colours (when painting) past
 * the stderr filter, any other control byte through it. */
void cmd_diag_compiler_line(const char *line);
/* A print of a core: its line as kmrun shows it ("[c1.2 104.22µs] text"),
 * or in JSON an object of type print. */
void cmd_diag_print_line(const char *core, const char *text, double microseconds,
                         const char *line);
/* A progress marker (--progress): its JSON line, with "type" in JSON. */
void cmd_diag_progress(int cluster, unsigned where, double microseconds);

/* A failure a command says later, by its message only (cmd_run_program's
 * msg): cmd_diag_keep() keeps the error (taking it), cmd_diag_fail()
 * prints it as cmd_diag_error() does when its message is `msg`, else msg
 * as kmrun's error line coded by `status`; then frees the one kept. */
void cmd_diag_keep(kmrun_error *e);
void cmd_diag_fail(int status, const char *msg);

/* A usage error in JSON (cmd_usage_error's, main.c): an error coded
 * kmrun.usage, the usage line its note. */
void cmd_diag_usage(const char *message, const char *usage);

#endif
