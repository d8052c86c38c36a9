/* build_diag: what the compilers say, as a person in the working folder
 * reads it and as a tool reads it (build_internal.h: km_diag_path,
 * km_diag_rewrite, km_diag_parse, km_diag_flags).
 *
 * Ninja runs the compilers in the manifest's folder, so they name a
 * program's files relative to it ("thread/a.c:3:5: error: ...").  kmrun
 * shows them as gcc and cargo do, relative to the working folder
 * ("../x/thread/a.c:3:5: ...") — in the text passed through, and in the
 * findings read from it: gcc's JSON (-fdiagnostics-format=json: one array
 * a compile, on one line) or the text both compilers write
 * ("file:line:col: severity: message [-Woption]"), clang-19 having no JSON. */
#include "build_internal.h"
#include "km_fs.h"
#include "km_json.h"
#include "ks_text.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- Paths ------------------------------------------------------------- */

/* An absolute path with "." and ".." folded and slashes single, in place. */
static void fold(char *path)
{
    char *out = path;
    const char *in = path;
    while (*in) {
        while (*in == '/')
            in++;
        const char *end = strchr(in, '/');
        size_t n = end ? (size_t)(end - in) : strlen(in);
        if (n == 0)
            break;
        if (n == 1 && in[0] == '.') {
            /* nothing */
        } else if (n == 2 && in[0] == '.' && in[1] == '.') {
            while (out > path && *--out != '/')
                ;
        } else {
            *out++ = '/';
            memmove(out, in, n);
            out += n;
        }
        in += n;
    }
    if (out == path)
        *out++ = '/';
    *out = 0;
}

/* The absolute form of `path`, taken from `base` when relative; allocated. */
static char *absolute(const char *path, const char *base)
{
    char *abs = NULL;
    if (path[0] == '/' || !base)
        abs = strdup(path);
    else
        abs = ks_strf("%s/%s", base, path);
    if (abs && abs[0] == '/')
        fold(abs);
    return abs;
}

/* `abs` relative to folder `from` (both absolute, folded), with ".."
 * where it is not under it; allocated. */
static char *relative_to(const char *abs, const char *from)
{
    size_t common = 0, i = 0;
    /* the longest common run of whole components */
    for (;; i++) {
        if ((abs[i] == '/' || !abs[i]) && (from[i] == '/' || !from[i]))
            common = i;
        if (!abs[i] || !from[i] || abs[i] != from[i])
            break;
    }
    if (strcmp(from, "/") == 0)
        common = 0;
    size_t ups = 0;
    for (const char *f = from + common; *f; f++)
        if (*f == '/' && f[1])
            ups++;
    const char *rest = abs + common + (abs[common] == '/');
    size_t n = ups * 3 + strlen(rest) + 2;
    char *out = malloc(n);
    if (!out)
        return NULL;
    out[0] = 0;
    for (size_t k = 0; k < ups; k++)
        strcat(out, k + 1 < ups || *rest ? "../" : "..");
    strcat(out, rest);
    if (!out[0])
        strcpy(out, ".");
    return out;
}

char *km_diag_path(const char *path, const char *base, const char *cwd)
{
    char *abs = absolute(path, base);
    if (!abs || abs[0] != '/' || !cwd || cwd[0] != '/')
        return abs ? abs : strdup(path);
    char *here = strdup(cwd);
    if (!here) {
        free(abs);
        return strdup(path);
    }
    fold(here);
    /* Under the working folder, or a file of the program (under base)
     * near it (the two share their first folder: "../x/a.c", not
     * "../../../tmp/x/a.c"): relative.  Anything else (a system header,
     * the runtime's, a program far away) stays absolute. */
    char *out = NULL;
    size_t first = strcspn(here + 1, "/") + 1;
    bool near = first > 1 && strncmp(abs, here, first) == 0 && (abs[first] == '/' || !abs[first]);
    if (km_path_under(abs, here) || strcmp(abs, here) == 0 ||
        (near && base && (km_path_under(abs, base) || strcmp(abs, base) == 0)))
        out = relative_to(abs, here);
    free(here);
    if (!out)
        return abs;
    free(abs);
    return out;
}

/* ---- The text a compiler writes ------------------------------------------ */

/* The length of the terminal colour sequence at s (ESC [ digits and ';'
 * then 'm' or 'K'), 0 when there is none. */
static size_t sgr_at(const char *s)
{
    if (s[0] != '\033' || s[1] != '[')
        return 0;
    size_t i = 2;
    while ((s[i] >= '0' && s[i] <= '9') || s[i] == ';')
        i++;
    return s[i] == 'm' || s[i] == 'K' ? i + 1 : 0;
}

/* s without its colour sequences; allocated. */
static char *plain(const char *s, size_t len)
{
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t k = sgr_at(s + i);
        if (k) {
            i += k;
            continue;
        }
        out[o++] = s[i++];
    }
    out[o] = 0;
    return out;
}

char *km_diag_plain(const char *text)
{
    return plain(text, strlen(text));
}

char *km_diag_safe(const char *text)
{
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    if (!f)
        return NULL;
    char shown[KS_SHOWN_MAX];
    size_t len = strlen(text);
    for (size_t i = 0, k; i < len;) {
        if ((k = sgr_at(text + i))) {
            fwrite(text + i, 1, k, f);
            i += k;
            continue;
        }
        size_t w;
        i += ks_show_next(text + i, len - i, KS_SHOW_LINES, shown, &w);
        fwrite(shown, 1, w, f);
    }
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* The words before a location on a line of a compiler's, as they write
 * them. */
static const char *const lead_ins[] = {"In file included from ", "                 from ",
                                       "In file included from"};

/* Whether `path` (as a compiler named it, in folder base) is a file: a
 * location, not words that happen to hold a colon. */
static bool is_file(const char *path, const char *base)
{
    char *abs = absolute(path, base);
    struct stat st;
    bool yes = abs && stat(abs, &st) == 0 && S_ISREG(st.st_mode);
    free(abs);
    return yes;
}

/* Appends line[0..len) to f with its location (after colour sequences and
 * a lead-in) shown from the working folder. */
static void rewrite_line(FILE *f, const char *line, size_t len, const char *base, const char *cwd)
{
    size_t i = 0;
    for (size_t k; (k = sgr_at(line + i)) && i + k <= len;)
        i += k;
    for (size_t k = 0; k < sizeof lead_ins / sizeof *lead_ins; k++) {
        size_t n = strlen(lead_ins[k]);
        if (len - i >= n && memcmp(line + i, lead_ins[k], n) == 0) {
            i += n;
            break;
        }
    }
    for (size_t k; (k = sgr_at(line + i)) && i + k <= len;)
        i += k;
    const char *colon = memchr(line + i, ':', len - i);
    size_t plen = colon ? (size_t)(colon - line) - i : 0;
    char *path = plen ? strndup(line + i, plen) : NULL;
    if (path && !strchr(path, '\033') && is_file(path, base)) {
        char *shown = km_diag_path(path, base, cwd);
        fwrite(line, 1, i, f);
        fputs(shown ? shown : path, f);
        fwrite(colon, 1, len - (size_t)(colon - line), f);
        free(shown);
    } else {
        fwrite(line, 1, len, f);
    }
    free(path);
}

char *km_diag_rewrite(const char *text, const char *base, const char *cwd)
{
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    if (!f)
        return strdup(text);
    for (const char *line = text; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        rewrite_line(f, line, len, base, cwd);
        if (eol)
            fputc('\n', f);
        line += len + (eol != NULL);
    }
    if (fclose(f) != 0) {
        free(out);
        return strdup(text);
    }
    return out;
}

/* ---- Findings ------------------------------------------------------------ */

static km_severity severity_of(const char *kind)
{
    if (strstr(kind, "warning"))
        return KM_SEVERITY_WARNING;
    if (strstr(kind, "note") || strstr(kind, "remark"))
        return KM_SEVERITY_NOTE;
    return KM_SEVERITY_ERROR;
}

/* g's file, shown from cwd; false when memory ran out for it. */
static bool set_file(km_diag *g, const char *file, const char *base, const char *cwd)
{
    if (file && *file && strcmp(file, "<command-line>") != 0 && strcmp(file, "<built-in>") != 0)
        return (g->file = km_diag_path(file, base, cwd)) != NULL;
    return true;
}

/* One of gcc's JSON diagnostics into g (and its children). */
static void from_json(km_diag *g, const cJSON *j, const char *base, const char *cwd)
{
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "kind"));
    const char *message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "message"));
    const char *option = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "option"));
    g->severity = severity_of(kind ? kind : "error");
    g->label = true;
    g->code = KM_CODE_COMPILE;
    g->message = strdup(message ? message : "");
    g->option = option ? strdup(option) : NULL;
    const cJSON *loc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "locations"), 0);
    const cJSON *caret = cJSON_GetObjectItemCaseSensitive(loc, "caret");
    const cJSON *finish = cJSON_GetObjectItemCaseSensitive(loc, "finish");
    bool whole = !option || g->option;
    if (caret) {
        whole &= set_file(g, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(caret, "file")),
                          base, cwd);
        const cJSON *line = cJSON_GetObjectItemCaseSensitive(caret, "line");
        const cJSON *col = cJSON_GetObjectItemCaseSensitive(caret, "column");
        g->line = cJSON_IsNumber(line) ? line->valueint : 0;
        g->col = cJSON_IsNumber(col) ? col->valueint : 0;
    }
    if (finish) {
        const cJSON *line = cJSON_GetObjectItemCaseSensitive(finish, "line");
        const cJSON *col = cJSON_GetObjectItemCaseSensitive(finish, "column");
        if (cJSON_IsNumber(line) && line->valueint == g->line && cJSON_IsNumber(col))
            g->end_col = col->valueint;
    }
    if (!whole) { /* reads "out of memory", not a finding short of its option or place */
        free(g->message);
        g->message = NULL;
    }
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "children")) {
        km_diag *child = km_diag_add_child(g);
        if (child)
            from_json(child, c, base, cwd);
    }
}

/* A finding that goes with the one before it (a note): as its child. */
static km_diag *next_finding(km_diags *out, km_severity severity)
{
    if (severity == KM_SEVERITY_NOTE && out->count > 0)
        return km_diag_add_child(&out->items[out->count - 1]);
    return km_diags_push(out);
}

/* Reads gcc's JSON array on one line into out; false when it is not one. */
static bool parse_json(const char *line, const char *base, const char *cwd, km_diags *out)
{
    km_json_mark m = km_json_watch();
    cJSON *doc = cJSON_Parse(line);
    if (!doc && km_json_ran_out(m)) {
        (void)km_diags_push(out); /* a finding with no message: "out of memory" */
        return true;
    }
    if (!cJSON_IsArray(doc)) {
        cJSON_Delete(doc);
        return false;
    }
    const cJSON *j;
    cJSON_ArrayForEach(j, doc) {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "kind"));
        km_diag *g = next_finding(out, severity_of(kind ? kind : "error"));
        if (g)
            from_json(g, j, base, cwd);
    }
    cJSON_Delete(doc);
    return true;
}

/* A positive number at s, its digits counted into *n; -1 when none. */
static int number_at(const char *s, size_t *n)
{
    size_t i = 0;
    long v = 0;
    while (s[i] >= '0' && s[i] <= '9' && v < 100000000)
        v = v * 10 + (s[i++] - '0');
    *n = i;
    return i ? (int)v : -1;
}

/* The words a compiler puts before a message: their severity. */
static const struct {
    const char *word;
    km_severity severity;
} severities[] = {
    {"fatal error: ", KM_SEVERITY_ERROR}, {"error: ", KM_SEVERITY_ERROR},
    {"warning: ", KM_SEVERITY_WARNING},   {"note: ", KM_SEVERITY_NOTE},
    {"remark: ", KM_SEVERITY_NOTE},
};

/* Whether a line only goes with a finding: a source excerpt or caret (it
 * starts with a space), an include chain, a function's name, a count. */
static bool goes_with(const char *s)
{
    if (!*s || s[0] == ' ' || s[0] == '\t')
        return true;
    if (strncmp(s, "In file included from", 21) == 0 || strcmp(s, "compilation terminated.") == 0)
        return true;
    size_t n = strlen(s);
    static const char *const tails[] = {" generated.", ": At top level:"};
    for (size_t k = 0; k < sizeof tails / sizeof *tails; k++)
        if (n >= strlen(tails[k]) && strcmp(s + n - strlen(tails[k]), tails[k]) == 0)
            return true;
    const char *in = strstr(s, ": In ");
    return in && s[n - 1] == ':' && !strstr(s, ": error: ") && !strstr(s, ": warning: ");
}

/* One line of a compiler's text: a finding ("file:line:col: severity:
 * message [-Woption]", "cc1: error: message"), a line that goes with one,
 * or (neither) kmrun's note of it, so that nothing is lost. */
static void parse_text_line(const char *s, const char *base, const char *cwd, km_diags *out)
{
    if (goes_with(s))
        return;
    /* the severity word, after the location */
    const char *at = NULL;
    size_t k = 0;
    for (const char *p = strstr(s, ": "); p && !at; p = strstr(p + 1, ": "))
        for (k = 0; k < sizeof severities / sizeof *severities; k++)
            if (strncmp(p + 2, severities[k].word, strlen(severities[k].word)) == 0) {
                at = p;
                break;
            }
    if (!at) {
        km_diag *g = km_diags_push(out);
        if (g) {
            g->severity = KM_SEVERITY_NOTE;
            g->code = KM_CODE_OUTPUT;
            g->message = strdup(s);
        }
        return;
    }
    km_diag *g = next_finding(out, severities[k].severity);
    if (!g)
        return;
    g->severity = severities[k].severity;
    g->label = true;
    g->code = KM_CODE_COMPILE;
    /* the location: file[:line[:col]] */
    char *loc = strndup(s, (size_t)(at - s));
    if (!loc)
        return; /* no message: the finding reads "out of memory", not one without its place */
    char *colon = strchr(loc, ':');
    size_t n;
    while (colon) {
        int line = number_at(colon + 1, &n);
        if (line > 0 && (colon[1 + n] == ':' || colon[1 + n] == 0)) {
            g->line = line;
            if (colon[1 + n] == ':') {
                int col = number_at(colon + 2 + n, &n);
                g->col = col > 0 ? col : 0;
            }
            *colon = 0;
            break;
        }
        colon = strchr(colon + 1, ':');
    }
    /* a file, not the tool's name ("cc1: error: ...") */
    bool placed = !(g->line > 0 || is_file(loc, base)) || set_file(g, loc, base, cwd);
    free(loc);
    if (!placed)
        return; /* as above */
    const char *message = at + 2 + strlen(severities[k].word);
    size_t mlen = strlen(message);
    /* " [-Wunused-function]" at the end: the option */
    if (mlen > 4 && message[mlen - 1] == ']') {
        const char *open = strrchr(message, '[');
        if (open && open > message && open[-1] == ' ' && open[1] == '-') {
            g->option = strndup(open + 1, (size_t)(message + mlen - 1 - open - 1));
            if (!g->option)
                return; /* no message: the finding reads "out of memory", not one short */
            mlen = (size_t)(open - 1 - message);
        }
    }
    g->message = strndup(message, mlen);
}

void km_diag_parse(const char *text, const char *base, const char *cwd, km_diags *out)
{
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char *s = plain(line, len);
        if (s) {
            size_t n = strlen(s);
            while (n && (s[n - 1] == '\r' || s[n - 1] == ' '))
                s[--n] = 0;
            if (!(s[0] == '[' && parse_json(s, base, cwd, out)))
                parse_text_line(s, base, cwd, out);
            free(s);
        }
        line = eol ? eol + 1 : NULL;
    }
}

/* ---- What the compilers are asked for -------------------------------------- */

bool km_tool_is_clang(const km_tool *t)
{
    return t->version && strstr(t->version, "clang");
}

const char *km_diag_flags(const km_tool *t, bool structured, int color)
{
    bool gcc = !km_tool_is_clang(t);
    if (structured)
        return gcc ? "-fdiagnostics-format=json -fdiagnostics-color=never"
                   : "-fdiagnostics-color=never";
    if (color == KM_COLOR_ALWAYS)
        return "-fdiagnostics-color=always";
    if (color == KM_COLOR_NEVER)
        return "-fdiagnostics-color=never";
    return "";
}
