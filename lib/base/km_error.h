/* km_error: how the host library reports failure.
 *
 * Every fallible function returns an exit-code-like status (KM_OK or one of
 * KM_EXIT_*) and fills a caller-owned km_error with one message that says
 * what failed first and quotes the subject, and may name the failure by a
 * stable code ("image.too-large").  Findings with a position (a manifest's
 * errors, a compiler's) are collected as a list of km_diag instead, so that
 * one run reports every one of them: each with its severity, code, place
 * and notes, shown as kmrun(1) shows them (km_diags_print) or piece by
 * piece for a tool to paint (km_diags_show).  Nothing below cmd/ calls
 * exit() or prints. */
#ifndef KM_ERROR_H
#define KM_ERROR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ks_error.h"

/* The documented exit codes of kmrun (man/kmrun.1, EXIT STATUS). */
enum {
    KM_OK = 0,
    KM_EXIT_FAILED = 1,   /* a thread failed, or a check found a difference */
    KM_EXIT_USAGE = 2,    /* bad command line or bad manifest */
    KM_EXIT_BUILD = 3,    /* a source did not compile or an image was rejected */
    KM_EXIT_SYSTEM = 4,   /* I/O, a missing tool, an unusable cache */
    KM_EXIT_INTERNAL = 5, /* a bug in kmrun */
};

typedef struct km_error {
    int status;        /* the KM_EXIT_* this error maps to */
    char message[KS_MESSAGE_BYTES];
    /* The failure's stable name ("image.too-large"), a static string;
     * NULL: none more precise than its status.  km_fail clears it. */
    const char *code;
} km_error;

/* Sets err (if not NULL) and returns status, for `return km_fail(...)`. */
int km_fail(km_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same, naming the failure by `code` (a static string). */
int km_fail_code(km_error *err, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Appends ": <strerror(errno)>" style detail to a message. */
int km_fail_errno(km_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The exit code of a failure below lib/ (ks_error.h): the one place a
 * simulator's or a support function's status becomes a command-line
 * exit code.  An image that is not usable is a build error, a request
 * the caller could have checked a usage error, the host's trouble a
 * system error, a broken invariant an internal one. */
int km_exit_of(ks_status status);

/* Copies a failure from below lib/ into err with its exit code; returns
 * that code (KM_OK for KS_OK, err untouched). */
int km_fail_from(km_error *err, const ks_error *from);

/* How much a finding weighs. */
typedef enum km_severity {
    KM_SEVERITY_ERROR = 0,
    KM_SEVERITY_WARNING = 1,
    KM_SEVERITY_NOTE = 2,
} km_severity;

/* "error", "warning", "note". */
const char *km_severity_name(km_severity s);

/* One positioned diagnostic: file:line:col: message (expected). */
typedef struct km_diag {
    char *file;     /* as the user named it (a compiler's: as shown, km_build) */
    int line, col;  /* 1-based; 0 when the position is unknown */
    char *message;
    const char *code;    /* its stable name ("manifest.unknown-key"), static;
                          * NULL: the list's maker says (kmrun.h) */
    km_severity severity;
    int end_col;         /* the range's last column on its line; 0: none */
    char *option;        /* the compiler's option behind it ("-Wunused"); NULL */
    bool label;          /* an error's "error:" is shown (a compiler's finding,
                          * as compilers write it); a warning's and a note's
                          * word always is */
    struct km_diag *children; /* its notes, in order */
    size_t nchildren;
    /* Its source line as it was read (km_diags_read_text), shown instead
     * of the file's line now; NULL: read when shown. */
    char *text;
} km_diag;

#define KM_DIAG_CAP 50 /* errors kept per file; the rest are counted */

typedef struct km_diags {
    km_diag *items;
    size_t count;   /* kept */
    size_t dropped; /* beyond the limit */
    size_t cap;     /* items allocated */
    size_t limit;   /* the most kept; 0: KM_DIAG_CAP */
} km_diags;

void km_diags_add(km_diags *d, const char *file, int line, int col,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same with its code (a static string). */
void km_diags_add_code(km_diags *d, const char *code, const char *file, int line, int col,
                       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* A new diagnostic at the end, zeroed (an error), for the caller to fill
 * with allocated strings; NULL when it is dropped (counted) or memory ran
 * out. */
km_diag *km_diags_push(km_diags *d);
/* A new note of g at the end of its children, zeroed but for its severity
 * (a note); NULL when memory ran out. */
km_diag *km_diag_add_child(km_diag *g);
void km_diags_free(km_diags *d);
/* Frees what g holds (its strings, its notes), not g itself. */
void km_diag_free(km_diag *g);
/* A deep copy of `from` into *to; false when memory ran out (then *to
 * holds nothing to free). */
bool km_diag_copy(km_diag *to, const km_diag *from);
/* Reads each diagnostic's (and note's) source line from its file now,
 * into its text, when it has a file and a line. */
void km_diags_read_text(km_diags *d);
/* Moves every diagnostic of `from` (and its dropped count) to the end of
 * `to`; `from` is left empty. */
void km_diags_move(km_diags *to, km_diags *from);

/* A file's lines, read once while several diagnostics name it. */
typedef struct km_source_lines {
    char *file;
    char *text;
    size_t len;
} km_source_lines;
/* Line `line` (1-based) of `file` as it is on disk now (split as libyaml
 * splits them: ks_line_break), into *text and *len (not NUL-ended, valid
 * until the next call); false when the file or the line is not there. */
bool km_source_line(km_source_lines *s, const char *file, int line, const char **text,
                    size_t *len);
void km_source_lines_free(km_source_lines *s);

/* How km_diags_show marks its pieces (kmrun.h's kmrun_style: the same
 * numbers). */
enum {
    KM_STYLE_PLAIN = 0,
    KM_STYLE_BAD = 3,   /* "error:" */
    KM_STYLE_WARN = 4,  /* "warning:" */
    KM_STYLE_LOCUS = 5, /* "file:line:col:" */
    KM_STYLE_NOTE = 6,  /* "note:" */
    KM_STYLE_CARET = 7, /* the caret under the column */
};
typedef void (*km_put_fn)(const char *text, int style, void *ctx);

/* Every diagnostic as km_diags_print writes it, given to `put` piece by
 * piece with how each is shown. */
void km_diags_show(const km_diags *d, km_put_fn put, void *ctx);
/* One diagnostic and its notes the same way, each source line its text,
 * else read through `lines` (NULL: none). */
void km_diag_show(const km_diag *g, km_source_lines *lines, km_put_fn put, void *ctx);

/* Prints every diagnostic as `file:line:col: message`, then the
 * source line and a caret under the column (read from the file again, only
 * to show it), then a count of dropped ones. */
void km_diags_print(const km_diags *d, FILE *out);

/* The same lines as km_diags_print, without the source lines and carets,
 * one a line (no newline after the last): a message's text (the library's
 * API, include/kmrun.h).  Allocated (free()); NULL when memory runs out. */
char *km_diags_text(const km_diags *d);

/* A note hook (--verbose: a line of what happened and why), and a line to
 * it made as vprintf makes it, cut at 1 KiB; nothing when note is NULL. */
typedef void (*km_note_fn)(const char *line, void *ctx);
void km_vnote(km_note_fn note, void *ctx, const char *fmt, va_list ap);

#endif
