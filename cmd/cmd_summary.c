/* cmd_summary.c: the run's summary for a person (cmd_summary.h): the
 * library's words (kmrun_run_summary), painted. */
#include "cmd_summary.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_diag.h"
#include "cmd_stderr.h"

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define PLAIN "\033[0m"

bool cmd_summary_wanted(bool *color)
{
    /* a person's: on a terminal, and not among JSON lines */
    if (!isatty(STDERR_FILENO) || cmd_diag_json())
        return false;
    *color = cmd_diag_color(); /* --color, NO_COLOR, CLICOLOR_FORCE (cmd_diag.h) */
    return true;
}

typedef struct painter {
    FILE *f;
    bool color;
} painter;

/* A piece of the summary; a colour is terminal control of kmrun's own,
 * past the stderr filter. */
static void put(const char *text, kmrun_style style, void *ctx)
{
    const painter *p = ctx;
    static const char *const colors[] = {
        [KMRUN_STYLE_TITLE] = BOLD,
        [KMRUN_STYLE_GOOD] = GREEN,
        [KMRUN_STYLE_BAD] = RED,
        [KMRUN_STYLE_WARN] = YELLOW,
    };
    const char *color = (unsigned)style < sizeof colors / sizeof colors[0] ? colors[style] : NULL;
    if (p->color && color)
        cmd_stderr_control(p->f, color);
    fputs(text, p->f);
    if (p->color && color)
        cmd_stderr_control(p->f, PLAIN);
}

void cmd_summary_outcome(FILE *f, bool color, const char *title, const cmd_run_outcome *o,
                         double wall_seconds)
{
    if (title)
        fprintf(f, "%s:\n", title);
    painter p = {f, color};
    kmrun_run_summary(o->r, wall_seconds, put, &p);
}
