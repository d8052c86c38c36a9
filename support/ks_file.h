/* ks_file: opening a file that must be a regular one.  A FIFO named as a
 * manifest, an image or a region's file would block a read for ever (and
 * a character device such as /dev/zero never end), so readers open with
 * O_NONBLOCK, look with fstat, and refuse anything else by name. */
#ifndef KS_FILE_H
#define KS_FILE_H

#include <sys/stat.h>

/* Opens `path` read-only.  Returns the descriptor (blocking again), with
 * *st filled; or -1: either it could not be opened (errno says why, *kind
 * is NULL; a directory is EISDIR) or it is not a regular file (*kind
 * names what it is: "a FIFO", "a character device", ...; nothing stays
 * open). */
int ks_open_regular(const char *path, struct stat *st, const char **kind);

#endif
