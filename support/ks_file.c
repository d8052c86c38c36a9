/* ks_file: opening a file that must be a regular one (ks_file.h). */
#include "ks_file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

int ks_open_regular(const char *path, struct stat *st, const char **kind)
{
    *kind = NULL;
    /* O_NONBLOCK: opening a FIFO with no writer would wait for one. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    if (fstat(fd, st) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        /* A directory keeps the message everyone knows (EISDIR). */
        *kind = S_ISDIR(st->st_mode) ? NULL : kind_of(st->st_mode);
        close(fd);
        errno = S_ISDIR(st->st_mode) ? EISDIR : 0;
        return -1;
    }
    /* Blocking again (no other status flag was asked for): one call, as
     * a manifest's every source is opened so. */
    fcntl(fd, F_SETFL, 0);
    return fd;
}
