/* cmd_opts: options parsed, shown and refused from the table
 * (cmd_opts.h). */
#include "cmd_opts.h"

#include "cmd_diag.h"

#include <stdlib.h>
#include <string.h>

/* getopt_long()'s val of a long option: its row, out of the way of the
 * short letters, so that an error names exactly the option it was. */
#define LONG_VAL 1000

#define WIDTH 79          /* help and usage lines end before this column */
#define LABEL_MAX 24      /* a longer label has its help on the next line */
#define USAGE_INDENT 18   /* a usage line's continuation */

size_t cmd_option_count(const cmd_command_entry *c)
{
    size_t n = 0;
    while (c->options && c->options[n].name)
        n++;
    return n;
}

const cmd_option *cmd_option_listed(const cmd_command_entry *c, size_t i)
{
    size_t own = cmd_option_count(c);
    if (i < own)
        return &c->options[i];
    const cmd_option *shared = cmd_diag_options_of(c->name);
    for (size_t k = own; shared && shared->name; k++, shared++)
        if (k == i)
            return shared;
    return NULL;
}

int cmd_choice_index(const char *choices, const char *value)
{
    size_t len = strlen(value);
    int i = 0;
    for (const char *p = choices; p && *p; i++) {
        size_t n = strcspn(p, "|");
        if (n == len && strncmp(p, value, n) == 0)
            return i;
        p += n + (p[n] == '|');
    }
    return -1;
}

bool cmd_choice_at(const char *choices, int i, char *buf, size_t n)
{
    const char *p = choices;
    for (int k = 0; p && *p; k++) {
        size_t len = strcspn(p, "|");
        if (k == i) {
            snprintf(buf, n, "%.*s", (int)len, p);
            return true;
        }
        p += len + (p[len] == '|');
    }
    return false;
}

void cmd_choices_text(const char *choices, char *buf, size_t n)
{
    char one[64];
    int count = 0;
    while (cmd_choice_at(choices, count, one, sizeof one))
        count++;
    buf[0] = 0;
    for (int i = 0; i < count; i++) {
        cmd_choice_at(choices, i, one, sizeof one);
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", i == 0 ? "" : i == count - 1 ? " or " : ", ", one);
    }
}

void cmd_opts_start(cmd_opts *o, const char *command, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->command = cmd_command_find(command);
    if (!o->command)
        abort(); /* a command that is not in the table: a bug */
    o->argc = argc;
    o->argv = argv;
    o->choice = -1;
    size_t n = cmd_option_count(o->command), s = 0;
    if (n > CMD_MAX_OPTIONS)
        abort();
    o->shorts[s++] = ':';
    for (size_t i = 0; i < n; i++) {
        const cmd_option *opt = &o->command->options[i];
        o->longopts[i] = (struct option){
            opt->name,
            opt->arg == CMD_ARG_NONE       ? no_argument
            : opt->arg == CMD_ARG_OPTIONAL ? optional_argument
                                           : required_argument,
            NULL, LONG_VAL + (int)i};
        if (opt->letter) {
            o->shorts[s++] = opt->letter;
            if (opt->arg == CMD_ARG_REQUIRED)
                o->shorts[s++] = ':';
            else if (opt->arg == CMD_ARG_OPTIONAL) {
                o->shorts[s++] = ':';
                o->shorts[s++] = ':';
            }
        }
    }
    o->shorts[s] = 0;
    optind = 0;
    opterr = 0;
}

static const cmd_option *by_letter(const cmd_command_entry *c, int letter)
{
    for (size_t i = 0; i < cmd_option_count(c); i++)
        if (c->options[i].letter && c->options[i].letter == letter)
            return &c->options[i];
    return NULL;
}

static const cmd_option *by_val(const cmd_command_entry *c, int val)
{
    if (val >= LONG_VAL && (size_t)(val - LONG_VAL) < cmd_option_count(c))
        return &c->options[val - LONG_VAL];
    return NULL;
}

/* An unknown long option (`word`, "--name" or "--name=value"): which
 * options it is a prefix of when several, else the nearest one. */
static int unknown_long(const cmd_opts *o, const char *word)
{
    const cmd_command_entry *c = o->command;
    char typed[128];
    snprintf(typed, sizeof typed, "%s", word + 2);
    typed[strcspn(typed, "=")] = 0;
    size_t n = cmd_option_count(c), len = strlen(typed), matches = 0, counted = 0;
    const char *names[CMD_MAX_OPTIONS + 8];
    for (size_t i = 0; i < n; i++) {
        names[i] = c->options[i].name;
        matches += len && strncmp(names[i], typed, len) == 0;
    }
    /* The shared options are taken out before (cmd_diag.h): a near miss
     * of one is named too. */
    size_t nnames = n;
    for (const cmd_option *shared; (shared = cmd_option_listed(c, nnames)) && nnames < n + 8;
         nnames++)
        names[nnames] = shared->name;
    char could[1024] = "";
    for (size_t i = 0; i < n && matches > 1; i++) {
        if (strncmp(names[i], typed, len) != 0)
            continue;
        size_t at = strlen(could);
        counted++;
        snprintf(could + at, sizeof could - at, "%s'--%s'",
                 counted == 1 ? "" : counted == matches ? " or " : ", ", names[i]);
    }
    char shown[KMRUN_QUOTE_BYTES + 2];
    snprintf(shown, sizeof shown, "--%s", typed);
    if (matches > 1)
        return cmd_usage_error(c->name, "option %s is ambiguous (it could be %s)",
                               CMD_QUOTED(shown), could);
    const char *near = kmrun_suggest(typed, names, nnames);
    if (near)
        return cmd_usage_error(c->name, "unknown option %s (did you mean '--%s'?)",
                               CMD_QUOTED(shown), near);
    return cmd_usage_error(c->name, "unknown option %s", CMD_QUOTED(shown));
}

int cmd_opts_next(cmd_opts *o)
{
    const cmd_command_entry *c = o->command;
    o->option = NULL;
    o->choice = -1;
    int v = getopt_long(o->argc, o->argv, o->shorts, o->longopts, NULL);
    if (v == -1)
        return CMD_OPTS_END;
    if (v == ':') {
        const cmd_option *opt = by_val(c, optopt);
        if (opt)
            cmd_usage_error(c->name, "option '--%s' requires a value", opt->name);
        else
            cmd_usage_error(c->name, "switch '-%c' requires a value", optopt);
        return CMD_OPTS_ERROR;
    }
    if (v == '?') {
        /* After an error getopt_long() has stepped past the word. */
        const char *word = optind > 0 && optind <= o->argc ? o->argv[optind - 1] : "";
        const cmd_option *opt = by_val(c, optopt);
        if (opt)
            cmd_usage_error(c->name, "option '--%s' takes no value", opt->name);
        else if (optopt == 0 && strncmp(word, "--", 2) == 0 && word[2])
            unknown_long(o, word);
        else if (optopt > 0 && optopt < 256)
            cmd_usage_error(c->name, "unknown switch '-%c'", optopt);
        else
            cmd_usage_error(c->name, "unknown option %s", CMD_QUOTED(word));
        return CMD_OPTS_ERROR;
    }
    const cmd_option *opt = by_val(c, v);
    if (!opt)
        opt = by_letter(c, v);
    if (!opt)
        abort(); /* getopt_long() returned what it was not given */
    o->option = opt;
    if (opt->choices && optarg && !opt->unchecked) {
        o->choice = cmd_choice_index(opt->choices, optarg);
        if (o->choice < 0) {
            char accepted[256];
            cmd_choices_text(opt->choices, accepted, sizeof accepted);
            if (opt->bad_choice) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
                cmd_usage_error(c->name, opt->bad_choice, CMD_QUOTED(optarg), accepted);
#pragma GCC diagnostic pop
            } else {
                cmd_usage_error(c->name, "invalid --%s %s (expected %s)", opt->name,
                                CMD_QUOTED(optarg), accepted);
            }
            return CMD_OPTS_ERROR;
        }
    }
    return opt->key;
}

/* ---- the usage line ------------------------------------------------------- */

/* The option as the usage shows it: "[--name]", "[--name ARG]",
 * "[--name[=ARG]]" (a choice's ARG: its choices). */
static void usage_item(const cmd_option *opt, char *buf, size_t n)
{
    const char *arg = opt->choices ? opt->choices : opt->arg_name ? opt->arg_name : "VALUE";
    if (opt->arg == CMD_ARG_NONE)
        snprintf(buf, n, "[--%s]", opt->name);
    else if (opt->arg == CMD_ARG_OPTIONAL)
        snprintf(buf, n, "[--%s[=%s]]", opt->name, arg);
    else
        snprintf(buf, n, "[--%s%s%s]", opt->name, opt->equals ? "=" : " ", arg);
}

static void operand_item(const cmd_operand *op, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%s", op->optional ? "[" : "", op->name, op->repeats ? "..." : "",
             op->optional ? "]" : "");
}

/* The usage of c into buf, its lines ended by '\n'; with the options
 * listed or, when `short_form`, "[options]"; the number of lines. */
static int usage_lines(const cmd_command_entry *c, bool short_form, char *buf, size_t n)
{
    char items[CMD_MAX_OPTIONS + 8][256];
    size_t nitems = 0, nopts = cmd_option_count(c);
    if (short_form && nopts)
        snprintf(items[nitems++], sizeof items[0], "[options]");
    for (size_t i = 0; !short_form && i < nopts; i++)
        usage_item(&c->options[i], items[nitems++], sizeof items[0]);
    for (size_t i = 0; c->operands && c->operands[i].name && nitems < 40; i++)
        operand_item(&c->operands[i], items[nitems++], sizeof items[0]);
    int lines = 1;
    size_t len = (size_t)snprintf(buf, n, "usage: kmrun %s", c->name), col = len;
    for (size_t i = 0; i < nitems && len < n; i++) {
        size_t w = strlen(items[i]);
        if (col + 1 + w > WIDTH) {
            len += (size_t)snprintf(buf + len, n - len, "\n%*s%s", USAGE_INDENT, "", items[i]);
            col = USAGE_INDENT + w;
            lines++;
        } else {
            len += (size_t)snprintf(buf + len, n - len, " %s", items[i]);
            col += 1 + w;
        }
    }
    if (len < n - 1) {
        buf[len++] = '\n';
        buf[len] = 0;
    }
    return lines;
}

void cmd_print_usage(const cmd_command_entry *c, FILE *out)
{
    if (c->synopsis) {
        const char *p = c->synopsis;
        for (int line = 0; *p; line++) {
            size_t n = strcspn(p, "\n");
            fprintf(out, "%s%.*s\n", line ? "   or: " : "usage: ", (int)n, p);
            p += n + (p[n] == '\n');
        }
        return;
    }
    char buf[2048];
    if (usage_lines(c, false, buf, sizeof buf) > 2)
        usage_lines(c, true, buf, sizeof buf);
    fputs(buf, out);
}

/* ---- the option list ---------------------------------------------------- */

/* "-j, --jobs N", "    --host", "--format raw|hex|u32|json",
 * "--trace-instructions[=FILE]". */
static void label(const cmd_option *opt, bool letters, char *buf, size_t n)
{
    const char *arg = opt->arg_name ? opt->arg_name : opt->choices ? opt->choices : "VALUE";
    char lead[8] = "";
    if (letters)
        snprintf(lead, sizeof lead, opt->letter ? "-%c, " : "    ", opt->letter);
    if (opt->arg == CMD_ARG_NONE)
        snprintf(buf, n, "%s--%s", lead, opt->name);
    else if (opt->arg == CMD_ARG_OPTIONAL)
        snprintf(buf, n, "%s--%s[=%s]", lead, opt->name, arg);
    else
        snprintf(buf, n, "%s--%s%s%s", lead, opt->name, opt->equals ? "=" : " ", arg);
}

/* `text` wrapped into lines that end before WIDTH, each indented to
 * `col`; the first goes on at column `at` (after a label) when there is
 * room for a space before `col`, else on the next line.  Two spaces
 * between words (after a sentence) stay two within a line. */
static void wrapped(FILE *out, const char *text, int col, int at)
{
    const char *p = text;
    while (*p == ' ')
        p++;
    bool first = true;
    while (*p) {
        if (!first || at >= col) {
            fputc('\n', out);
            at = 0;
        }
        fprintf(out, "%*s", col - at, "");
        int used = col;
        bool any = false;
        while (*p) {
            size_t w = strcspn(p, " ");
            int gap = any ? 1 : 0;
            if (any && p[-1] == ' ' && p - 2 >= text && p[-2] == ' ')
                gap = 2;
            if (any && used + gap + (int)w > WIDTH)
                break;
            fprintf(out, "%*s%.*s", gap, "", (int)w, p);
            used += gap + (int)w;
            any = true;
            p += w;
            while (*p == ' ')
                p++;
        }
        first = false;
    }
    fputc('\n', out);
}

void cmd_print_options(const cmd_command_entry *c, FILE *out)
{
    const cmd_option *o;
    bool letters = false;
    for (size_t i = 0; (o = cmd_option_listed(c, i)); i++)
        letters |= o->letter != 0;
    int widest = 0;
    char text[256];
    for (size_t i = 0; (o = cmd_option_listed(c, i)); i++) {
        label(o, letters, text, sizeof text);
        int w = (int)strlen(text);
        if (w <= LABEL_MAX && w > widest)
            widest = w;
    }
    int col = 2 + widest + 3;
    for (size_t i = 0; (o = cmd_option_listed(c, i)); i++) {
        label(o, letters, text, sizeof text);
        fprintf(out, "  %s", text);
        wrapped(out, o->help ? o->help : "", col, 2 + (int)strlen(text));
    }
}
