/* ks_error: how the layers below lib/ — this folder and the simulated card
 * (device/sim/) — report failure: a status that says what kind of thing
 * failed, in their own terms, and one message that says what failed first
 * and quotes the subject.  They know nothing of the command line: lib/
 * turns a status into one of kmrun's exit codes (km_error.h,
 * km_fail_from), in one place.  Nothing here prints or exits. */
#ifndef KS_ERROR_H
#define KS_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum ks_status {
    KS_OK = 0,
    KS_ERR_IMAGE,  /* a file that is not a usable image or object (not ELF,
                      truncated, outside the memory it must load into) */
    KS_ERR_INPUT,  /* a request the caller could have checked (too many
                      handlers, a clock the card does not have) */
    KS_ERR_SYSTEM, /* the host: I/O, out of memory, a thread not started */
    KS_ERR_BUG,    /* the model's own invariant broken: a bug in kmrun */
} ks_status;

/* The message's size is the host library's too (km_error.h asserts it),
 * so a message passes up whole. */
#define KS_MESSAGE_BYTES 2048

typedef struct ks_error {
    ks_status status;
    char message[KS_MESSAGE_BYTES];
} ks_error;

/* Sets err (if not NULL) and returns status, for `return ks_fail(...)`. */
int ks_fail(ks_error *err, ks_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same with ": <strerror(errno)>" appended. */
int ks_fail_errno(ks_error *err, ks_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Formats fmt into buf (n bytes), then ": <strerror(errnum)>" when errnum
 * is not 0: the one message writer of ks_fail and km_fail.  What would
 * reach a terminal raw is escaped (ks_escape with KS_SHOW_LINES: a
 * message keeps its lines), whoever put it in; names are still best
 * quoted with ks_quote (ks_text.h), which escapes a quote too. */
void ks_format(char *buf, size_t n, int errnum, const char *fmt, va_list ap);

#endif
