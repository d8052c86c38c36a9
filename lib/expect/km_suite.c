/* km_suite: the programs `kmrun test` finds, its shards and its reports
 * (km_suite.h). */
#include "km_suite.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "km_fs.h"
#include "ks_grow.h"
#include "ks_text.h"

#define PEEK_BYTES (1u << 20) /* a *.yaml is read this far for `expect:` */

/* ---- text built piece by piece -------------------------------------- */

typedef struct text {
    char *s;
    size_t n, cap;
    bool oom;
} text;

static void put(text *t, const char *s, size_t len)
{
    if (t->oom)
        return;
    if (!KS_GROW(t->s, t->cap, t->n + len + 1)) {
        t->oom = true;
        return;
    }
    memcpy(t->s + t->n, s, len);
    t->n += len;
    t->s[t->n] = 0;
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void putf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = ks_vstrf(fmt, ap);
    if (!s)
        t->oom = true;
    else
        puts_(t, s);
    va_end(ap);
    free(s);
}

/* The text, or NULL (freed) when memory ran out. */
static char *done(text *t)
{
    if (t->oom || !t->s) {
        free(t->s);
        return t->oom ? NULL : strdup("");
    }
    return t->s;
}

/* s as kmrun shows text (control bytes and bad UTF-8 as \ooo), `how`
 * as ks_show_next takes it, each shown character passed to `each`. */
static void put_shown(text *t, const char *s, unsigned how,
                      void (*each)(text *, const char *, size_t))
{
    size_t len = strlen(s);
    while (len) {
        char out[KS_SHOWN_MAX];
        size_t outlen;
        size_t used = ks_show_next(s, len, how, out, &outlen);
        each(t, out, outlen);
        s += used;
        len -= used;
    }
}

/* ---- finding the programs ------------------------------------------- */

static int add(km_suite_list *l, char *path, km_error *err)
{
    if (!path)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory finding programs");
    if (!KS_GROW(l->paths, l->cap, l->n + 1)) {
        free(path);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory finding programs");
    }
    l->paths[l->n++] = path;
    return KM_OK;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Whether the file's first PEEK_BYTES hold a line that begins `expect:`. */
static bool has_expect(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char line[4096];
    size_t seen = 0;
    bool found = false, at_start = true;
    while (!found && seen < PEEK_BYTES && fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        seen += len;
        if (at_start && strncmp(line, "expect:", 7) == 0)
            found = true;
        at_start = len > 0 && line[len - 1] == '\n';
    }
    fclose(f);
    return found;
}

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "dir/name", without a leading "./" for the folder "." */
static char *child(const char *dir, const char *name)
{
    if (strcmp(dir, ".") == 0)
        return strdup(name);
    size_t len = strlen(dir);
    bool slash = len && dir[len - 1] == '/';
    return ks_strf("%s%s%s", dir, slash ? "" : "/", name);
}

static int walk(km_suite_list *l, const char *dir, int depth, km_error *err)
{
    if (depth > 64)
        return KM_OK;
    DIR *d = opendir(dir);
    if (!d)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read folder %s", KS_QUOTED(dir));
    int rc = KM_OK;
    struct dirent *e;
    while (rc == KM_OK && (errno = 0, e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = child(dir, e->d_name);
        if (!path) {
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory finding programs");
            break;
        }
        struct stat st;
        if (lstat(path, &st) != 0) {
            free(path);
            continue; /* gone since readdir */
        }
        if (S_ISDIR(st.st_mode)) {
            rc = walk(l, path, depth + 1, err);
            free(path);
            continue;
        }
        bool file = S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && stat(path, &st) == 0 &&
                                            S_ISREG(st.st_mode));
        if (file && (strcmp(e->d_name, "program.yaml") == 0 ||
                     (ends_with(e->d_name, ".yaml") && has_expect(path))))
            rc = add(l, path, err);
        else
            free(path);
    }
    if (rc == KM_OK && errno)
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read folder %s", KS_QUOTED(dir));
    closedir(d);
    return rc;
}

/* Whether the file at path is already listed (as another spelling). */
static bool listed(const km_suite_list *l, size_t upto, const char *path)
{
    char *real = realpath(path, NULL);
    bool found = false;
    for (size_t i = 0; i < upto && real && !found; i++) {
        char *other = realpath(l->paths[i], NULL);
        found = other && strcmp(other, real) == 0;
        free(other);
    }
    free(real);
    return found;
}

int km_suite_find(const char *const *paths, size_t npaths, km_suite_list *out, km_error *err)
{
    *out = (km_suite_list){0};
    for (size_t i = 0; i < npaths; i++) {
        const char *path = paths[i];
        struct stat st;
        if (!path || !*path || stat(path, &st) != 0) {
            int rc = km_fail(err, KM_EXIT_USAGE, "no file or folder %s (expected a manifest, "
                                                 "or a folder of programs)",
                             KS_QUOTED(path ? path : ""));
            km_suite_list_free(out);
            return rc;
        }
        size_t from = out->n;
        int rc = S_ISDIR(st.st_mode) ? walk(out, path, 0, err) : add(out, strdup(path), err);
        if (rc != KM_OK) {
            km_suite_list_free(out);
            return rc;
        }
        if (out->n - from > 1) /* (paths is NULL while nothing was found) */
            qsort(out->paths + from, out->n - from, sizeof *out->paths, by_bytes);
        /* Each file once: a later spelling of one listed before goes. */
        size_t kept = from;
        for (size_t k = from; k < out->n; k++) {
            if (listed(out, kept, out->paths[k]))
                free(out->paths[k]);
            else
                out->paths[kept++] = out->paths[k];
        }
        out->n = kept;
    }
    if (out->n == 0) {
        text t = {0};
        for (size_t i = 0; i < npaths; i++)
            putf(&t, "%s%s", i ? ", " : "", KS_QUOTED(paths[i]));
        char *where = done(&t);
        int rc = km_fail(err, KM_EXIT_USAGE,
                         "no program under %s (expected a program.yaml, or a *.yaml with "
                         "expect:)",
                         where ? where : "the paths");
        free(where);
        return rc;
    }
    return KM_OK;
}

void km_suite_list_free(km_suite_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    *l = (km_suite_list){0};
}

/* ---- shards ----------------------------------------------------------- */

static bool number(const char *s, size_t len, unsigned *out)
{
    if (len == 0 || len > 7)
        return false;
    unsigned v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return true;
}

bool km_suite_shard_parse(const char *s, unsigned *index, unsigned *count)
{
    const char *slash = s ? strchr(s, '/') : NULL;
    unsigned i, n;
    if (!slash || !number(s, (size_t)(slash - s), &i) ||
        !number(slash + 1, strlen(slash + 1), &n) || i < 1 || n > 1000000 || i > n)
        return false;
    *index = i;
    *count = n;
    return true;
}

bool km_suite_in_shard(size_t i, unsigned index, unsigned count)
{
    return count > 0 && i % count + 1 == index;
}

/* ---- a case's line -------------------------------------------------- */

static void put_raw(text *t, const char *s, size_t len)
{
    put(t, s, len);
}

/* TAP's description: '#' begins a directive, so it is escaped. */
static void put_tap_char(text *t, const char *s, size_t len)
{
    if (len == 1 && (*s == '#' || *s == '\\'))
        put(t, "\\", 1);
    put(t, s, len);
}

/* Inside a YAML double-quoted scalar: '"' and every backslash, a shown
 * escape's too ("\\001"), escaped. */
static void put_yaml_char(text *t, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"' || s[i] == '\\')
            put(t, "\\", 1);
        put(t, s + i, 1);
    }
}

static void yaml_string(text *t, const char *s)
{
    puts_(t, "\"");
    put_shown(t, s, 0, put_yaml_char);
    puts_(t, "\"");
}

static void text_line(text *t, const km_case *c)
{
    static const char *const word[] = {"ok  ", "FAIL", "skip", "ok  "};
    puts_(t, word[c->outcome]);
    puts_(t, " ");
    put_shown(t, c->manifest, 0, put_raw);
    if (c->backend)
        putf(t, " [%s]", c->backend);
    if (c->outcome == KM_CASE_SKIP) {
        if (c->summary) {
            puts_(t, " (");
            put_shown(t, c->summary, 0, put_raw);
            puts_(t, ")");
        }
        return;
    }
    if (c->reused)
        puts_(t, " (reused)");
    if (c->outcome == KM_CASE_BLESSED)
        puts_(t, " (blessed)");
    putf(t, " %.2f s", c->seconds);
    if (c->outcome != KM_CASE_FAIL && c->outcome != KM_CASE_BLESSED)
        return;
    if (c->summary) {
        puts_(t, "\n     ");
        /* A summary of several lines (a compiler's) keeps them indented. */
        for (const char *s = c->summary; *s;) {
            size_t len = strcspn(s, "\n");
            char *line = strndup(s, len);
            if (line)
                put_shown(t, line, 0, put_raw);
            else
                t->oom = true; /* not a report short of a line */
            free(line);
            s += len;
            if (*s == '\n' && s[1])
                puts_(t, "\n     ");
            if (*s)
                s++;
        }
    }
    if (c->more)
        putf(t, "\n     (%zu more difference%s)", c->more, c->more == 1 ? "" : "s");
    if (c->run_folder) {
        puts_(t, "\n     run folder ");
        put_shown(t, c->run_folder, 0, put_raw);
    }
}

static void tap_line(text *t, const km_case *c, size_t number)
{
    putf(t, "%sok %zu - ", c->outcome == KM_CASE_FAIL ? "not " : "", number);
    put_shown(t, c->manifest, 0, put_tap_char);
    if (c->backend)
        putf(t, " [%s]", c->backend);
    if (c->outcome == KM_CASE_SKIP) {
        puts_(t, " # SKIP");
        if (c->summary) {
            puts_(t, " ");
            put_shown(t, c->summary, 0, put_tap_char);
        }
        return;
    }
    if (c->reused)
        puts_(t, " (reused)");
    if (c->outcome == KM_CASE_BLESSED)
        puts_(t, " (blessed)");
    if (c->outcome != KM_CASE_FAIL && c->outcome != KM_CASE_BLESSED)
        return;
    puts_(t, "\n  ---\n  message: ");
    /* Its first line: the detail has them all. */
    const char *summary = c->summary ? c->summary : "failed";
    char *first = strndup(summary, strcspn(summary, "\n"));
    if (first)
        yaml_string(t, first);
    else
        t->oom = true;
    free(first);
    puts_(t, c->outcome == KM_CASE_BLESSED ? "\n  severity: comment" : "\n  severity: fail");
    putf(t, "\n  seconds: %.2f", c->seconds);
    if (c->run_folder) {
        puts_(t, "\n  run_folder: ");
        yaml_string(t, c->run_folder);
    }
    const char *detail = c->detail ? c->detail : c->summary;
    if (detail) {
        puts_(t, "\n  detail:");
        for (const char *s = detail; *s;) {
            size_t len = strcspn(s, "\n");
            char *line = strndup(s, len);
            puts_(t, "\n    - ");
            if (line)
                yaml_string(t, line);
            else
                t->oom = true;
            free(line);
            s += len;
            if (*s)
                s++;
        }
    }
    puts_(t, "\n  ...");
}

char *km_suite_line(const km_case *c, bool tap, size_t number)
{
    text t = {0};
    if (tap)
        tap_line(&t, c, number);
    else
        text_line(&t, c);
    return done(&t);
}

/* ---- JUnit XML -------------------------------------------------------- */

static void put_xml_char(text *t, const char *s, size_t len)
{
    if (len == 1) {
        switch (*s) {
        case '&': puts_(t, "&amp;"); return;
        case '<': puts_(t, "&lt;"); return;
        case '>': puts_(t, "&gt;"); return;
        case '"': puts_(t, "&quot;"); return;
        case '\'': puts_(t, "&apos;"); return;
        case '\n': puts_(t, "&#10;"); return;
        case '\t': puts_(t, "&#9;"); return;
        default: break;
        }
    }
    put(t, s, len);
}

/* In an element's text, lines and tabs stay as they are. */
static void put_xml_text_char(text *t, const char *s, size_t len)
{
    if (len == 1 && (*s == '\n' || *s == '\t' || *s == '"' || *s == '\''))
        put(t, s, len);
    else
        put_xml_char(t, s, len);
}

/* Text as XML holds it in an attribute (xml) or an element (xml_text):
 * escaped, and nothing XML 1.0 forbids (kmrun's \ooo for those bytes). */
static void xml(text *t, const char *s)
{
    put_shown(t, s, KS_SHOW_LINES, put_xml_char);
}

static void xml_text(text *t, const char *s)
{
    put_shown(t, s, KS_SHOW_LINES, put_xml_text_char);
}

/* The manifest's folder with dots for slashes: "programs.01_hello". */
static void classname(text *t, const char *manifest)
{
    const char *slash = strrchr(manifest, '/');
    const char *s = manifest;
    while (s < slash && (*s == '/' || (s[0] == '.' && s[1] == '/')))
        s += *s == '/' ? 1 : 2;
    if (!slash || s >= slash) {
        puts_(t, "kmrun");
        return;
    }
    char *folder = strndup(s, (size_t)(slash - s));
    if (!folder) {
        t->oom = true;
        return;
    }
    for (char *f = folder; *f; f++)
        if (*f == '/')
            *f = '.';
    xml(t, folder);
    free(folder);
}

char *km_suite_junit_text(const km_case *cases, size_t n)
{
    size_t failures = 0, skipped = 0;
    double seconds = 0;
    for (size_t i = 0; i < n; i++) {
        failures += cases[i].outcome == KM_CASE_FAIL;
        skipped += cases[i].outcome == KM_CASE_SKIP;
        seconds += cases[i].seconds;
    }
    text t = {0};
    puts_(&t, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    putf(&t, "<testsuites name=\"kmrun test\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
             "skipped=\"%zu\" time=\"%.3f\">\n",
         n, failures, skipped, seconds);
    putf(&t, "  <testsuite name=\"kmrun test\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
             "skipped=\"%zu\" time=\"%.3f\">\n",
         n, failures, skipped, seconds);
    for (size_t i = 0; i < n; i++) {
        const km_case *c = &cases[i];
        const char *slash = strrchr(c->manifest, '/');
        puts_(&t, "    <testcase classname=\"");
        classname(&t, c->manifest);
        puts_(&t, "\" name=\"");
        xml(&t, slash ? slash + 1 : c->manifest);
        if (c->backend)
            putf(&t, " [%s]", c->backend);
        puts_(&t, "\" file=\"");
        xml(&t, c->manifest);
        putf(&t, "\" time=\"%.3f\"", c->seconds);
        if (c->outcome == KM_CASE_PASS && c->reused) {
            puts_(&t, ">\n      <properties><property name=\"reused\" value=\"true\"/>"
                      "</properties>\n      <system-out>reused: a stored result of the same "
                      "run (the same images, manifest, inputs, backend and kmrun); not run "
                      "again</system-out>\n    </testcase>\n");
            continue;
        }
        if (c->outcome == KM_CASE_PASS) {
            puts_(&t, "/>\n");
            continue;
        }
        if (c->outcome == KM_CASE_BLESSED) {
            puts_(&t, ">\n      <properties><property name=\"blessed\" value=\"true\"/>"
                      "</properties>\n      <system-out>blessed: ");
            xml_text(&t, c->detail ? c->detail : c->summary ? c->summary : "");
            puts_(&t, "</system-out>\n    </testcase>\n");
            continue;
        }
        puts_(&t, ">\n");
        if (c->outcome == KM_CASE_SKIP) {
            puts_(&t, "      <skipped message=\"");
            xml(&t, c->summary ? c->summary : "skipped");
            puts_(&t, "\"/>\n");
        } else {
            puts_(&t, "      <failure message=\"");
            xml(&t, c->summary ? c->summary : "failed");
            puts_(&t, "\" type=\"kmrun test\">");
            xml_text(&t, c->detail ? c->detail : c->summary ? c->summary : "failed");
            if (c->run_folder) {
                puts_(&t, "\nrun folder: ");
                xml_text(&t, c->run_folder);
            }
            puts_(&t, "</failure>\n");
        }
        if (c->run_folder) {
            puts_(&t, "      <system-out>run folder: ");
            xml_text(&t, c->run_folder);
            puts_(&t, "</system-out>\n");
        }
        puts_(&t, "    </testcase>\n");
    }
    puts_(&t, "  </testsuite>\n</testsuites>\n");
    return done(&t);
}

int km_suite_junit(const char *path, const km_case *cases, size_t n, km_error *err)
{
    char *doc = km_suite_junit_text(cases, n);
    if (!doc)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the JUnit report");
    int rc = km_write_file_atomic(path, doc, strlen(doc), err);
    free(doc);
    return rc;
}
