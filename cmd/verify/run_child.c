/* run_child: what a child kmrun left in its output files (run_child.h). */
#include "run_child.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_common.h"

char *run_child_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t cap = 0, n = 0, got;
    char buf[65536];
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (n + got + 1 > cap) {
            cap = (n + got + 1) * 2;
            char *more = realloc(text, cap);
            if (!more) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = more;
        }
        memcpy(text + n, buf, got);
        n += got;
    }
    fclose(f);
    if (text)
        text[n] = 0;
    return text;
}

/* The last `lines` lines of a file, without its last newlines; "" when
 * none. */
static char *tail_of(const char *path, int lines)
{
    char *text = run_child_read(path);
    if (!text)
        return cmd_dup("");
    size_t n = strlen(text);
    while (n && text[n - 1] == '\n')
        text[--n] = 0;
    const char *start = text + n;
    for (int k = 0; k < lines && start > text;) {
        start--;
        if (*start == '\n' && ++k == lines)
            start++;
    }
    char *tail = cmd_dup(start);
    free(text);
    return tail;
}

/* A child's JSON diagnostic line (it ran with --message-format=json) as
 * the text it stands for, "file:line:col: severity: message", in place;
 * other lines as they are. */
static char *as_text(char *tail)
{
    size_t cap = strlen(tail) + 1, n = 0;
    char *out = malloc(cap);
    if (!out)
        return tail;
    for (char *line = tail, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char text[1024];
        const char *shown = line;
        cJSON *d = line[0] == '{' ? cJSON_Parse(line) : NULL;
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(d, "message"));
        if (msg) {
            const char *file = cJSON_GetStringValue(cJSON_GetObjectItem(d, "file"));
            const char *sev = cJSON_GetStringValue(cJSON_GetObjectItem(d, "severity"));
            const cJSON *ln = cJSON_GetObjectItem(d, "line"), *col = cJSON_GetObjectItem(d, "column");
            int k = 0;
            if (file && cJSON_IsNumber(ln) && cJSON_IsNumber(col))
                k = snprintf(text, sizeof text, "%s:%d:%d: ", file, ln->valueint, col->valueint);
            else if (file && cJSON_IsNumber(ln))
                k = snprintf(text, sizeof text, "%s:%d: ", file, ln->valueint);
            else if (file)
                k = snprintf(text, sizeof text, "%s: ", file);
            snprintf(text + k, sizeof text - (size_t)k, "%s: %s", sev ? sev : "error", msg);
            shown = text;
        }
        size_t len = strlen(shown);
        if (n + len + 2 > cap) {
            char *more = realloc(out, cap = (n + len + 2) * 2);
            if (!more)
                break;
            out = more;
        }
        memcpy(out + n, shown, len);
        n += len;
        out[n++] = '\n';
        cJSON_Delete(d);
    }
    while (n && out[n - 1] == '\n')
        n--;
    out[n] = 0;
    free(tail);
    return out;
}

/* "kmrun run exited 3 (...)" and the tail of its stderr. */
char *run_child_tail(const char *head, const char *path, int lines)
{
    char *tail = as_text(tail_of(path, lines)), *s = NULL;
    if (asprintf(&s, "%s%s%s", head, *tail ? ":\n" : "", tail) < 0)
        s = NULL;
    free(tail);
    return s ? s : cmd_dup(head);
}
