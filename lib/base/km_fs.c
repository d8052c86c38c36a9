/* km_fs: whole-file I/O, atomic writes, trees (km_fs.h). */
#include "km_fs.h"
#include "km_fs_at.h"
#include "ks_file.h"
#include "ks_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int km_read_fd(int fd, const char *shown, char **data, size_t *n, km_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", shown);
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return km_fail(err, KM_EXIT_SYSTEM, "cannot read '%s': not a regular file", shown);
    }
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf && len + 1 >= cap) {
            char *more = realloc(buf, cap * 2);
            if (!more)
                free(buf);
            buf = more;
            cap *= 2;
        }
        if (!buf) {
            errno = ENOMEM;
            return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", shown);
        }
        ssize_t r = read(fd, buf + len, cap - len - 1);
        if (r == 0)
            break;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", shown);
            free(buf);
            return rc;
        }
        len += (size_t)r;
    }
    buf[len] = 0;
    *data = buf;
    if (n)
        *n = len;
    return KM_OK;
}

int km_read_file(const char *path, char **data, size_t *n, km_error *err)
{
    struct stat st;
    const char *kind;
    int fd = ks_open_regular(path, &st, &kind);
    if (fd < 0 && kind)
        return km_fail(err, KM_EXIT_SYSTEM, "cannot read '%s': it is %s "
                       "(expected a regular file)", path, kind);
    if (fd < 0)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", path);
    int rc = km_read_fd(fd, path, data, n, err), saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int km_write_file_atomic(const char *path, const void *data, size_t n, km_error *err)
{
    return km_at_write(AT_FDCWD, path, data, n, false, NULL, err);
}

int km_write_file_sparse(const char *path, const void *data, size_t n, km_error *err)
{
    return km_at_write(AT_FDCWD, path, data, n, true, NULL, err);
}

int km_write_file_if_changed(const char *path, const void *data, size_t n,
                             bool *changed, km_error *err)
{
    char *old = NULL;
    size_t old_n = 0;
    if (km_read_file(path, &old, &old_n, NULL) == KM_OK && old_n == n &&
        memcmp(old, data, n) == 0) {
        free(old);
        *changed = false;
        return KM_OK;
    }
    free(old);
    *changed = true;
    return km_write_file_atomic(path, data, n, err);
}

int km_copy_file(const char *from, const char *to, km_error *err)
{
    char *data = NULL;
    size_t n = 0;
    int rc = km_read_file(from, &data, &n, err);
    if (rc == KM_OK)
        rc = km_write_file_atomic(to, data, n, err);
    free(data);
    return rc;
}

int km_mkdir_p(const char *path, km_error *err)
{
    char *p = strdup(path);
    if (!p)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory creating '%s'", path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot create '%s'", p);
            free(p);
            return rc;
        }
        *s = '/';
    }
    int rc = KM_OK;
    if (mkdir(p, 0755) != 0 && errno != EEXIST)
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot create '%s'", p);
    free(p);
    return rc;
}

int km_rm_rf(const char *path)
{
    return km_at_rm_rf(AT_FDCWD, path);
}

uint64_t km_tree_bytes(const char *path)
{
    return km_at_tree_bytes(AT_FDCWD, path);
}

char *km_path_join(const char *a, const char *b)
{
    size_t n = strlen(a);
    return ks_strf("%s%s%s", a, n && a[n - 1] == '/' ? "" : "/", b);
}

const char *km_path_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (strncmp(path, dir, n) != 0 || path[n] != '/')
        return NULL;
    return path + n + 1;
}

char *km_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}
