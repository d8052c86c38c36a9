/* km_suite: what `kmrun test` needs around the comparison (km_expect.h) —
 * the programs under the paths it is given, the shard each falls in, and
 * the report of each case (a program on a backend): a text line, TAP 13,
 * JUnit XML.
 *
 * The promise: the same paths give the same list in the same order on
 * every machine (bytewise sorted, whatever readdir's order); shards are
 * disjoint and together cover the list; reports are made as text, never
 * printed, and the JUnit file is written whole or not at all. */
#ifndef KM_SUITE_H
#define KM_SUITE_H

#include <stdbool.h>
#include <stddef.h>

#include "km_error.h"

/* The programs under paths[0..n): a path that is a file is one, whatever
 * its name; a folder's are, at any depth, the files named program.yaml
 * and the other *.yaml files with a line that begins `expect:` (a
 * top-level key), leaving out what begins with a dot and links to
 * folders.  In the order of the paths, each one's sorted bytewise; a file
 * found twice counts once (the first).  KM_EXIT_USAGE for a path that is
 * not there, or paths with no program at all; KM_EXIT_SYSTEM for a folder
 * that cannot be read. */
typedef struct km_suite_list {
    char **paths; /* each as found: the given path, then the folders under it */
    size_t n, cap;
} km_suite_list;

int km_suite_find(const char *const *paths, size_t npaths, km_suite_list *out, km_error *err);
void km_suite_list_free(km_suite_list *l);

/* "I/N": 1 <= I <= N <= 1,000,000, decimal; false otherwise. */
bool km_suite_shard_parse(const char *text, unsigned *index, unsigned *count);
/* Whether the i-th program of the list (from 0) is in shard index of
 * count: (i mod count) + 1 == index. */
bool km_suite_in_shard(size_t i, unsigned index, unsigned count);

typedef enum km_case_outcome {
    KM_CASE_PASS,
    KM_CASE_FAIL,
    KM_CASE_SKIP,
    KM_CASE_BLESSED, /* its differences were values, rewritten in the manifest */
} km_case_outcome;

/* A program on a backend, as it came out. */
typedef struct km_case {
    const char *manifest;   /* as found */
    const char *backend;    /* "sim", "host"; NULL: none ran (skipped, or
                             * a manifest that does not load) */
    km_case_outcome outcome;
    double seconds;         /* real time, start to end */
    const char *summary;    /* one line: the first difference, why it
                             * failed or was skipped; NULL for a pass */
    const char *detail;     /* every line of it (NULL: the summary) */
    size_t more;            /* differences past the first */
    const char *run_folder; /* NULL: none */
    bool reused;            /* a pass taken from a stored result: not run */
} km_case;

/* The case as `kmrun test` prints it (allocated, no newline at its end;
 * NULL when memory runs out): text, "ok   FILE [sim] 0.41 s", a FAIL
 * with its summary, the differences past it and the run folder indented
 * under it, "skip FILE (why)", "ok   FILE [sim] (blessed) 0.41 s" with
 * every value rewritten under it; or TAP, "ok N - FILE [sim]", a
 * failure's YAML block (severity fail), "# SKIP why", a blessed case's
 * "ok N - FILE [sim] (blessed)" and its YAML block (severity comment). */
char *km_suite_line(const km_case *c, bool tap, size_t number);

/* The cases as a JUnit XML document (allocated; NULL when memory runs
 * out): a testsuite of one testcase per case, classname the manifest's
 * folder with dots for slashes ("programs.01_hello"), name its file and
 * backend ("program.yaml [sim]"), time in seconds, a failure's summary as
 * its message and its detail and run folder as its text; a blessed case
 * passes, with a property blessed and the values rewritten as its
 * system-out. */
char *km_suite_junit_text(const km_case *cases, size_t n);
/* The same written to `path` whole (a temporary name, then renamed). */
int km_suite_junit(const char *path, const km_case *cases, size_t n, km_error *err);

#endif
