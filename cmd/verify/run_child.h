/* run_child: what a child `kmrun` left in the files its parent gave it
 * for stdout and stderr (`kmrun test` runs each case so): the whole of
 * one, and the tail of its stderr as the text a person reads (a JSON
 * diagnostic line, from a child run with --message-format=json, as the
 * "file:line:col: severity: message" it stands for).  Strings come back
 * the caller's to free; out of memory, the command exits
 * (KMRUN_SYSTEM), as cmd/ may. */
#ifndef RUN_CHILD_H
#define RUN_CHILD_H

/* The file's bytes, NUL-terminated; NULL when it cannot be read (or
 * holds nothing). */
char *run_child_read(const char *path);

/* `head` ("kmrun run exited 3 (...)"), then, when the file at `path` has
 * any, ":" and its last `lines` lines as text on lines of their own. */
char *run_child_tail(const char *head, const char *path, int lines);

#endif
