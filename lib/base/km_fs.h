/* km_fs: the few file-system operations kmrun needs, done safely: whole
 * files in and out, writes that land atomically (a temporary name in the
 * same folder, fsync, rename), recursive make and remove. */
#ifndef KM_FS_H
#define KM_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_error.h"

/* Reads a whole file; *data is NUL-terminated (not counted in *n). */
int km_read_file(const char *path, char **data, size_t *n, km_error *err);

/* The same from an open descriptor, which must be a regular file (else
 * errno EINVAL); `shown` names it in messages.  errno says why it failed
 * (ENOMEM when memory ran out). */
int km_read_fd(int fd, const char *shown, char **data, size_t *n, km_error *err);

/* Writes a file so that readers see the old content or the new, never a
 * part: a temporary name beside it, fsync, rename. */
int km_write_file_atomic(const char *path, const void *data, size_t n,
                         km_error *err);

/* The same, with blocks of zeros left as holes: a region of zeros takes
 * (almost) no room on disk and reads back the same. */
int km_write_file_sparse(const char *path, const void *data, size_t n, km_error *err);

/* Writes only when the content differs, so that a build tool watching the
 * file's time does not rebuild for nothing.  *changed says which. */
int km_write_file_if_changed(const char *path, const void *data, size_t n,
                             bool *changed, km_error *err);

int km_copy_file(const char *from, const char *to, km_error *err);
int km_mkdir_p(const char *path, km_error *err);
int km_rm_rf(const char *path); /* 0, or -1 with errno */

/* Sum of the sizes of the regular files under path. */
uint64_t km_tree_bytes(const char *path);

/* a/b, allocated; NULL when memory ran out (every caller checks). */
char *km_path_join(const char *a, const char *b);

/* When path lies under dir (both absolute, normalised), the part after
 * "dir/"; else NULL.  Points into path. */
const char *km_path_under(const char *path, const char *dir);

/* The folder of a path, allocated ("." for a bare name). */
char *km_dirname(const char *path);

#endif
