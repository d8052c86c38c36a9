/* cmd_diag: kmrun(1)'s findings as text or JSON lines, painted or not
 * (cmd_diag.h). */
#include "cmd_diag.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_stderr.h"

/* The colours of gcc's diagnostics, which a person reads beside kmrun's. */
#define PAINT_LOCUS "\033[1m"
#define PAINT_ERROR "\033[1;31m"
#define PAINT_WARNING "\033[1;35m"
#define PAINT_NOTE "\033[1;36m"
#define PAINT_CARET "\033[1;32m"
#define PAINT_OFF "\033[0m"

enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

static bool json;
static int color_option = COLOR_AUTO;

/* The commands that build or check, and so report findings. */
static const char *const takers[] = {"build", "run", "check", "validate", "test"};

bool cmd_diag_takes(const char *command)
{
    for (size_t i = 0; i < sizeof takers / sizeof *takers; i++)
        if (strcmp(command, takers[i]) == 0)
            return true;
    return false;
}

/* The options as a table of names and their values, not a getopt table:
 * they are every taking command's (cmd_diag_help). */
static const struct {
    const char *name;
    const char *const values[4];
} options[] = {
    {"--message-format", {"human", "json"}},
    {"--color", {"auto", "always", "never"}},
};

static int value_of(size_t o, const char *value)
{
    for (int v = 0; options[o].values[v]; v++)
        if (strcmp(value, options[o].values[v]) == 0)
            return v;
    return -1;
}

int cmd_diag_options(const char *command, int *argc, char **argv, int first)
{
    if (!cmd_diag_takes(command))
        return KMRUN_OK;
    int out = first;
    for (int i = first; i < *argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        size_t o = 0;
        const char *value = NULL;
        for (; o < sizeof options / sizeof *options; o++) {
            size_t n = strlen(options[o].name);
            if (strncmp(argv[i], options[o].name, n) != 0)
                continue;
            if (argv[i][n] == '=') {
                value = argv[i] + n + 1;
                break;
            }
            if (argv[i][n] == 0) {
                if (i + 1 == *argc)
                    return cmd_usage_error(command, "option '%s' requires a value",
                                           options[o].name);
                value = argv[++i];
                break;
            }
        }
        if (!value) {
            argv[out++] = argv[i];
            continue;
        }
        int v = value_of(o, value);
        if (v < 0)
            return cmd_usage_error(command, "invalid %s %s (expected %s)", options[o].name,
                                   CMD_QUOTED(value),
                                   o == 0 ? "human or json" : "auto, always or never");
        if (o == 0)
            json = v == 1;
        else
            color_option = v;
    }
    argv[out] = NULL;
    *argc = out;
    return KMRUN_OK;
}

void cmd_diag_help(const char *command, FILE *out)
{
    if (!cmd_diag_takes(command))
        return;
    fputs("\n"
          "Every command that builds or checks takes these too:\n"
          "\n"
          "      --message-format=human|json\n"
          "                 json: each finding (a manifest's error, a compiler's error\n"
          "                 or warning, a rejected image, a run's finding) and every\n"
          "                 other message on stderr as one JSON object a line:\n"
          "                 {\"type\":\"diagnostic\",\"severity\":\"error\",\"code\":...,\n"
          "                 \"message\":...,\"file\":...,\"line\":...,\"column\":...,\n"
          "                 \"end_column\":...,\"text\":...,\"option\":...,\"children\":[...]}\n"
          "                 (prints and progress markers as \"type\":\"print\" and\n"
          "                 \"progress\"); files relative to the working folder.\n"
          "                 stdout is the same.  human (the default): as text\n"
          "      --color=auto|always|never\n"
          "                 paint kmrun's text and the compilers' (gcc's colours); auto\n"
          "                 (the default): when stderr is a terminal, never with\n"
          "                 NO_COLOR set, always with CLICOLOR_FORCE set (not 0)\n",
          out);
}

bool cmd_diag_json(void)
{
    return json;
}

bool cmd_diag_color(void)
{
    if (json || color_option == COLOR_NEVER)
        return false;
    if (color_option == COLOR_ALWAYS)
        return true;
    const char *no = getenv("NO_COLOR"), *force = getenv("CLICOLOR_FORCE"),
               *term = getenv("TERM");
    if (no && *no)
        return false;
    if (force && *force && strcmp(force, "0") != 0)
        return true;
    return isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
}

kmrun_color cmd_diag_compiler_color(void)
{
    return cmd_diag_color() ? KMRUN_COLOR_ALWAYS : KMRUN_COLOR_NEVER;
}

/* ---- JSON lines ------------------------------------------------------------ */

/* s as kmrun shows text (kmrun_escape: newlines and tabs kept), so that
 * the line is UTF-8 that passes the stderr filter as it is. */
static cJSON *shown(const char *s)
{
    size_t len = strlen(s), n = len * 4 + 1;
    char *buf = malloc(n);
    cJSON *v = cJSON_CreateString(buf ? kmrun_escape(buf, n, s, len, KMRUN_SHOW_LINES) : s);
    free(buf);
    return v;
}

/* o, typed, as one line on stderr; o freed. */
static void put_json(cJSON *o)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    if (text)
        fprintf(stderr, "%s\n", text);
    else
        fputs("{\"type\":\"diagnostic\",\"severity\":\"error\",\"code\":\"kmrun.system\","
              "\"message\":\"out of memory\",\"file\":null,\"line\":null,\"column\":null,"
              "\"end_column\":null,\"text\":null,\"option\":null,\"children\":[]}\n",
              stderr);
    fflush(stderr);
    free(text);
    cJSON_Delete(o);
}

static cJSON *typed(const char *type)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", type);
    return o;
}

static void say_json(cmd_level level, const char *code, const char *message, const char *note)
{
    cJSON *o = typed("diagnostic");
    cJSON_AddStringToObject(o, "severity", level == CMD_ERROR     ? "error"
                                           : level == CMD_WARNING ? "warning"
                                                                  : "note");
    cJSON_AddStringToObject(o, "code", code);
    cJSON_AddItemToObject(o, "message", shown(message));
    static const char *const nulls[] = {"file", "line", "column", "end_column", "text", "option"};
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
        cJSON_AddNullToObject(o, nulls[i]);
    cJSON *children = cJSON_AddArrayToObject(o, "children");
    if (note) {
        cJSON *n = cJSON_CreateObject();
        cJSON_AddStringToObject(n, "severity", "note");
        cJSON_AddStringToObject(n, "code", code);
        cJSON_AddItemToObject(n, "message", shown(note));
        for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++)
            cJSON_AddNullToObject(n, nulls[i]);
        cJSON_AddArrayToObject(n, "children");
        cJSON_AddItemToArray(children, n);
    }
    put_json(o);
}

/* ---- Text ---------------------------------------------------------------- */

/* Terminal control of kmrun's own, only when painting. */
static void paint(const char *sequence)
{
    if (cmd_diag_color())
        cmd_stderr_control(stderr, sequence);
}

void cmd_say(cmd_level level, const char *code, const char *fmt, ...)
{
    char message[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (json) {
        say_json(level, code, message, NULL);
        return;
    }
    static const char *const words[] = {[CMD_WARNING] = "warning:", [CMD_NOTE] = "note:"};
    static const char *const paints[] = {[CMD_ERROR] = PAINT_ERROR,
                                         [CMD_WARNING] = PAINT_WARNING,
                                         [CMD_NOTE] = PAINT_NOTE,
                                         [CMD_INFO] = PAINT_LOCUS};
    paint(level == CMD_ERROR ? PAINT_ERROR : PAINT_LOCUS);
    fputs("kmrun:", stderr);
    paint(PAINT_OFF);
    if (level == CMD_WARNING || level == CMD_NOTE) {
        fputc(' ', stderr);
        paint(paints[level]);
        fputs(words[level], stderr);
        paint(PAINT_OFF);
    }
    fputc(' ', stderr);
    cmd_diag_compiler_line(message); /* a failed build's holds the compilers' colours */
    fflush(stderr);
}

void cmd_diag_compiler_line(const char *line)
{
    bool color = cmd_diag_color();
    const char *s = line;
    while (*s) {
        /* the next colour sequence: ESC [ digits and ';', then m or K */
        const char *esc = strstr(s, "\033[");
        const char *end = esc ? esc + 2 : NULL;
        while (end && ((*end >= '0' && *end <= '9') || *end == ';'))
            end++;
        if (!esc || (*end != 'm' && *end != 'K')) {
            /* none (or not a colour): up to the ESC through the filter */
            size_t n = esc ? (size_t)(esc - s) + 1 : strlen(s);
            fwrite(s, 1, n, stderr);
            s += n;
            continue;
        }
        fwrite(s, 1, (size_t)(esc - s), stderr);
        if (color) {
            char seq[32];
            size_t n = (size_t)(end + 1 - esc);
            if (n < sizeof seq) {
                memcpy(seq, esc, n);
                seq[n] = 0;
                cmd_stderr_control(stderr, seq);
            }
        }
        s = end + 1;
    }
    fputc('\n', stderr);
}

static void put_piece(const char *text, kmrun_style style, void *ctx)
{
    (void)ctx;
    static const char *const paints[] = {
        [KMRUN_STYLE_LOCUS] = PAINT_LOCUS, [KMRUN_STYLE_BAD] = PAINT_ERROR,
        [KMRUN_STYLE_WARN] = PAINT_WARNING, [KMRUN_STYLE_NOTE] = PAINT_NOTE,
        [KMRUN_STYLE_CARET] = PAINT_CARET,
    };
    const char *p = (unsigned)style < sizeof paints / sizeof *paints ? paints[style] : NULL;
    if (p)
        paint(p);
    fputs(text, stderr);
    if (p)
        paint(PAINT_OFF);
}

void cmd_diag_print(const kmrun_diagnostic *d)
{
    if (json) {
        char *text = kmrun_diagnostic_json(d);
        /* {"type":"diagnostic", then the diagnostic's own keys */
        if (text && text[0] == '{')
            fprintf(stderr, "{\"type\":\"diagnostic\",%s\n", text + 1);
        else
            say_json(CMD_ERROR, "kmrun.system", "out of memory", NULL);
        free(text);
        fflush(stderr);
        return;
    }
    kmrun_diagnostic_show(d, put_piece, NULL);
    fflush(stderr);
}

void cmd_diag_error(const kmrun_error *e)
{
    if (json && kmrun_error_diagnostics(e)) {
        for (size_t i = 0; i < kmrun_error_diagnostics(e); i++)
            cmd_diag_print(kmrun_error_diagnostic(e, i));
        return;
    }
    const char *detail = kmrun_error_detail(e);
    if (detail && kmrun_error_status(e) == KMRUN_BUILD) {
        /* a failed build's message in the compilers' colours */
        cmd_say(CMD_ERROR, "build.failed", "%s", detail);
    } else if (detail && cmd_diag_color()) {
        /* a manifest's errors: the same text, painted piece by piece */
        for (size_t i = 0; i < kmrun_error_diagnostics(e); i++)
            cmd_diag_print(kmrun_error_diagnostic(e, i));
    } else if (detail) {
        fputs(detail, stderr);
    } else if (json) {
        say_json(CMD_ERROR, "kmrun.system", kmrun_error_message(e), NULL);
    } else {
        cmd_say(CMD_ERROR, "", "%s", kmrun_error_message(e));
    }
    fflush(stderr);
}

void cmd_diag_print_line(const char *core, const char *text, double microseconds,
                         const char *line)
{
    if (!json) {
        fprintf(stderr, "%s\n", line ? line : text);
        fflush(stderr);
        return;
    }
    cJSON *o = typed("print");
    cJSON_AddItemToObject(o, "core", shown(core));
    cJSON_AddNumberToObject(o, "microseconds", microseconds);
    cJSON_AddItemToObject(o, "text", shown(text));
    put_json(o);
}

void cmd_diag_progress(int cluster, unsigned where, double microseconds)
{
    fprintf(stderr, "{%s\"cluster\":%d,\"where\":%u,\"microseconds\":%.15g}\n",
            json ? "\"type\":\"progress\"," : "", cluster, where, microseconds);
    fflush(stderr);
}

static kmrun_error *kept;

void cmd_diag_keep(kmrun_error *e)
{
    kmrun_error_free(kept);
    kept = e;
}

void cmd_diag_fail(int status, const char *msg)
{
    if (kept && strcmp(kmrun_error_message(kept), msg) == 0)
        cmd_diag_error(kept);
    else
        cmd_say(CMD_ERROR,
                status == KMRUN_USAGE    ? "kmrun.usage"
                : status == KMRUN_BUILD  ? "build.failed"
                : status == KMRUN_SYSTEM ? "kmrun.system"
                                         : "kmrun.internal",
                "%s", msg);
    kmrun_error_free(kept);
    kept = NULL;
}

void cmd_diag_usage(const char *message, const char *usage)
{
    say_json(CMD_ERROR, "kmrun.usage", message, usage);
}
