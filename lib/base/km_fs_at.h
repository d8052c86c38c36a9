/* km_fs_at: paths below a folder kmrun owns — its cache, its runs folder —
 * reached from that folder's own descriptor, never through a symbolic link.
 *
 * Anyone who can write such a folder (a cache shared between users) could
 * plant a link where kmrun expects one of its folders or files, to make
 * kmrun write, rename or remove somewhere else.  Here every component of a
 * path below `dir` is opened with O_NOFOLLOW (folders with O_DIRECTORY) from
 * the descriptor of the one before it, files are created with O_EXCL and
 * renamed with renameat, trees removed with unlinkat: a link in the way is
 * refused with an error that names it, and nothing beyond it is ever read,
 * written or removed.  A link met while removing a tree is removed itself.
 *
 * `rel` is a relative path kmrun made (plain components, no ".."); `dir`
 * may be AT_FDCWD, and `shown` is how messages name dir (NULL: nothing). */
#ifndef KM_FS_AT_H
#define KM_FS_AT_H

#include <stdbool.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/types.h>

#include "km_error.h"

/* How a folder below dir is opened: read-only, a folder, never a link. */
#define KM_AT_DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Opens the folder rel below dir, each component a real folder; with
 * create, missing ones are made (0755).  The descriptor (O_DIRECTORY,
 * O_CLOEXEC), or -1 with err (KM_EXIT_SYSTEM) naming the component that
 * is a link, is not a folder or could not be made. */
int km_at_dir(int dir, const char *rel, bool create, const char *shown, km_error *err);

/* Opens the file rel below dir with flags (O_NOFOLLOW and O_CLOEXEC
 * added), every folder on the way a real one.  -1 with errno: ELOOP or
 * ENOTDIR when a link stands in the way. */
int km_at_open(int dir, const char *rel, int flags, mode_t mode);

/* Writes `name` (a file in dir; with AT_FDCWD any path) so that readers see
 * the old content or the new, never a part: a temporary beside it made with
 * O_EXCL, fsync, renameat.  Sparse: blocks of zeros left as holes. */
int km_at_write(int dir, const char *name, const void *data, size_t n, bool sparse,
                const char *shown, km_error *err);
/* The same, sparse, for bytes whose blocks outside `data` are known to be
 * zeros (data: bit k for bytes [k, k + 1) << shift, shift at least 12;
 * NULL: every block is looked at): those are left as holes unread, so
 * pages of `data` nobody wrote are never touched. */
int km_at_write_known(int dir, const char *name, const void *data, size_t n,
                      const uint64_t *known, unsigned shift, const char *shown, km_error *err);

/* Makes a new folder "<prefix>.XXXXXX" (0755) in dir; its name (allocated)
 * in *name.  0, or -1 with errno. */
int km_at_mkdtemp(int dir, const char *prefix, char **name);

/* Calls f(fd, name, ctx) for each entry of the open folder fd but . and
 * ..; 0, or -1 when the folder cannot be read or an f returned nonzero. */
int km_at_each(int fd, int (*f)(int dir, const char *name, void *ctx), void *ctx);

/* Removes name (in dir) and everything below it; a link is removed, never
 * followed.  0 (also when name is gone), or -1 with errno. */
int km_at_rm_rf(int dir, const char *name);

/* The sizes of the regular files under name in dir, links not followed. */
uint64_t km_at_tree_bytes(int dir, const char *name);

/* The first symbolic link under the folder name in dir (name itself
 * included), as a path relative to dir (allocated) in *found: 1; 0 when
 * there is none; -1 when memory ran out before the search was whole. */
int km_at_find_link(int dir, const char *name, char **found);

/* The message for a link found where kmrun expects its own file or folder,
 * shown/rel naming it. */
int km_at_fail_link(km_error *err, const char *shown, const char *rel);

#endif
