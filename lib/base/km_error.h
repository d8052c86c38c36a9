/* km_error: how the host library reports failure.
 *
 * Every fallible function returns an exit-code-like status (KM_OK or one of
 * KM_EXIT_*) and fills a caller-owned km_error with one message that says
 * what failed first and quotes the subject.  Input errors with a position
 * (a manifest) are collected as a list of km_diag instead, so that one run
 * reports every error of a file.  Nothing below cmd/ calls exit(). */
#ifndef KM_ERROR_H
#define KM_ERROR_H

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
} km_error;

/* Sets err (if not NULL) and returns status, for `return km_fail(...)`. */
int km_fail(km_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

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

/* One positioned diagnostic: file:line:col: message (expected). */
typedef struct km_diag {
    char *file;     /* as the user named it */
    int line, col;  /* 1-based; 0 when the position is unknown */
    char *message;
} km_diag;

#define KM_DIAG_CAP 50 /* errors kept per file; the rest are counted */

typedef struct km_diags {
    km_diag items[KM_DIAG_CAP];
    size_t count;   /* kept */
    size_t dropped; /* beyond the cap */
} km_diags;

void km_diags_add(km_diags *d, const char *file, int line, int col,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void km_diags_free(km_diags *d);

/* Prints every diagnostic as `file:line:col: message`, then the
 * source line and a caret under the column (read from the file again, only
 * to show it), then a count of dropped ones. */
void km_diags_print(const km_diags *d, FILE *out);

/* The same lines as km_diags_print, without the source lines and carets,
 * one a line (no newline after the last): a message's text (the library's
 * API, include/kmrun.h).  Allocated (free()); NULL when memory runs out. */
char *km_diags_text(const km_diags *d);

#endif
