/* build_log: what a failed tool's output says about the host
 * (build_internal.h: km_log_resource_of, km_log_resource_failure).
 *
 * A compiler, assembler or linker that could not write its output for want
 * of disk space, of quota or under a file size limit, or that ran out of
 * memory, failed for the host's reason, not the source's: its step is a
 * system error (exit 4) that names the resource and the file, not a build
 * error (exit 3).  The tools say so in their own words, all ending in the C
 * library's text for the error (strerror) or the signal (strsignal):
 *
 *   /tmp/cc1.s: Fatal error: /w/t0/0-a.c.o: No space left on device   (as)
 *   a.c:9:1: fatal error: closing dependency file /w/t0/0-a.c.o.d: No space left on device
 *   ld: final link failed: No space left on device                   (no file)
 *   error: unable to open output file 'a.o': 'Disk quota exceeded'   (clang)
 *   gcc: internal compiler error: File size limit exceeded signal terminated program cc1
 *   collect2: fatal error: ld terminated with signal 25 [File size limit exceeded]
 *   virtual memory exhausted: Cannot allocate memory                 (cc1)
 *   cc1: out of memory allocating 65536 bytes after a total of 1073152 bytes
 *
 * Only the English texts are known: a tool that speaks another language
 * (LANG) fails as a build error, as before. */
#include "build_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ks_text.h"

static const struct {
    const char *text; /* as the tool writes it */
    bool ends_line;   /* the error's text: last on its line */
    km_log_resource resource;
} known[] = {
    {"No space left on device", true, KM_LOG_NO_SPACE},
    {"Disk quota exceeded", true, KM_LOG_QUOTA},
    {"File too large", true, KM_LOG_FILE_SIZE},
    {"File size limit exceeded", false, KM_LOG_FILE_SIZE}, /* "... [File size limit exceeded]" too */
    {"Cannot allocate memory", true, KM_LOG_MEMORY},
    {"virtual memory exhausted", false, KM_LOG_MEMORY},
    {"out of memory allocating", false, KM_LOG_MEMORY},
};

/* A line of the source a compiler shows under its message ("   12 |
 * code", "      |   ^~~"): never the tool's own words, whatever it holds. */
static bool source_excerpt(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    while (i < len && line[i] >= '0' && line[i] <= '9')
        i++;
    while (i < len && line[i] == ' ')
        i++;
    return i < len && line[i] == '|';
}

/* Whether known text k at line[at..] is a tool's report: at the start of
 * the line or after ": " / ": '" / "[", and (ends_line) nothing after it
 * but a closing quote, bracket or full stop — not words of a message about
 * something else ("error: 'No space left on device' undeclared"). */
static bool reported(const char *line, size_t len, size_t at, size_t k)
{
    size_t b = at;
    if (b > 0 && (line[b - 1] == '\'' || line[b - 1] == '`'))
        b--;
    bool after = b == 0 || line[b - 1] == '[' || (b >= 2 && line[b - 2] == ':' && line[b - 1] == ' ');
    if (!after)
        return false;
    if (!known[k].ends_line)
        return true;
    for (size_t i = at + strlen(known[k].text); i < len; i++)
        if (!strchr("'`]). \r", line[i]))
            return false;
    return true;
}

/* The quotes around a file in a tool's message: 'x', `x' and, in a UTF-8
 * locale, the typographic ones. */
static size_t closing_quote(const char *s, size_t end)
{
    if (end >= 1 && (s[end - 1] == '\'' || s[end - 1] == '`'))
        return 1;
    if (end >= 3 && memcmp(s + end - 3, "\xe2\x80\x99", 3) == 0) /* ’ */
        return 3;
    return 0;
}

/* The file a message line names just before the error's text (in
 * line[0..end)): the quoted one ("... file 'a.o': 'No space ...'"), else
 * the last word of the last field ("Fatal error: /w/a.o: No space ...",
 * "closing dependency file /w/a.d: No space ..."), when it looks like a
 * path (a '/' or a '.' in it).  Into file (n bytes); false when none. */
static bool file_before(const char *line, size_t end, char *file, size_t n)
{
    /* What separates the file from the error's text: its quote, ": ". */
    if (end > 0 && (line[end - 1] == '\'' || line[end - 1] == '`'))
        end--;
    while (end > 0 && strchr(" :[", line[end - 1]))
        end--;
    size_t q = closing_quote(line, end), start;
    if (q) {
        /* a quoted file: back to its opening quote */
        end -= q;
        start = end;
        while (start > 0 && !strchr("'`", line[start - 1]) &&
               !(start >= 3 && memcmp(line + start - 3, "\xe2\x80\x98", 3) == 0))
            start--;
        if (start == 0)
            return false;
    } else {
        start = end;
        while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t')
            start--;
    }
    size_t len = end - start;
    if (len == 0 || len >= n || (!memchr(line + start, '/', len) && !memchr(line + start, '.', len)))
        return false;
    memcpy(file, line + start, len);
    file[len] = 0;
    return true;
}

km_log_resource km_log_resource_of(const char *output, char *file, size_t n)
{
    if (n)
        file[0] = 0;
    for (const char *line = output; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        for (size_t k = 0; k < sizeof known / sizeof *known && !source_excerpt(line, len); k++) {
            size_t tlen = strlen(known[k].text);
            for (size_t at = 0; at + tlen <= len; at++) {
                if (memcmp(line + at, known[k].text, tlen) != 0 || !reported(line, len, at, k))
                    continue;
                if (n)
                    file_before(line, at, file, n);
                return known[k].resource;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    return KM_LOG_NONE;
}

int km_log_resource_failure(const char *output, const char *what, const char *made,
                            km_error *err)
{
    char file[1024];
    km_log_resource r = km_log_resource_of(output, file, sizeof file);
    /* The file the tool names, else what the step was making. */
    const char *verb = file[0] ? "writing" : "making";
    const char *name = file[0] ? file : made;
    switch (r) {
    case KM_LOG_NONE:
        return KM_OK;
    case KM_LOG_NO_SPACE:
        return km_fail(err, KM_EXIT_SYSTEM,
                       "%s: no space left on device %s %s (free space on its file system, or "
                       "set KMRUN_CACHE or TMPDIR to another)", what, verb, KS_QUOTED(name));
    case KM_LOG_QUOTA:
        return km_fail(err, KM_EXIT_SYSTEM,
                       "%s: disk quota exceeded %s %s (free some of your quota, or set "
                       "KMRUN_CACHE or TMPDIR to another file system)", what, verb,
                       KS_QUOTED(name));
    case KM_LOG_FILE_SIZE:
        return km_fail(err, KM_EXIT_SYSTEM,
                       "%s: file too large %s %s (a file size limit: ulimit -f)", what, verb,
                       KS_QUOTED(name));
    case KM_LOG_MEMORY:
        return km_fail(err, KM_EXIT_SYSTEM,
                       "%s: out of memory %s %s (a memory limit: ulimit -v)", what, verb,
                       KS_QUOTED(name));
    }
    return KM_OK;
}
