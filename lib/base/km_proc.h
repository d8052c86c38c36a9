/* km_proc: running the tools kmrun drives (compilers, ninja) without a
 * shell: argv in, exit status and captured output back.  An output line
 * callback lets a caller show progress while the tool runs. */
#ifndef KM_PROC_H
#define KM_PROC_H

#include <stddef.h>

#include "km_error.h"

typedef void (*km_line_fn)(const char *line, void *ctx);

/* Runs argv[0] (searched in PATH) in `dir` (NULL: here) with stdin from
 * /dev/null, stdout and stderr together captured into *output (allocated,
 * NUL-terminated; may be NULL), each line also passed to on_line when set.
 * *status is the exit status, or 128 + signal.  Returns KM_EXIT_SYSTEM
 * only when the tool could not be started at all. */
int km_proc_run(char *const argv[], const char *dir, char **output,
                int *status, km_line_fn on_line, void *ctx, km_error *err);

/* km_proc_run with `input` (len bytes) on the tool's stdin, no output
 * callback, in the current directory. */
int km_proc_run_input(char *const argv[], const char *input, size_t len, char **output,
                      int *status, km_error *err);

/* The full path of a command as PATH would find it, allocated, or NULL:
 * errno ENOENT when it is not there, ENOMEM when memory ran out looking. */
char *km_proc_which(const char *name);

#endif
