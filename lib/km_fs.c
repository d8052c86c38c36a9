/* km_fs: whole-file I/O, atomic writes, trees (km_fs.h). */
#include "km_fs.h"
#include "ks_file.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        ssize_t r = read(fd, buf + len, cap - len - 1);
        if (r == 0)
            break;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", path);
            free(buf);
            close(fd);
            return rc;
        }
        len += (size_t)r;
    }
    close(fd);
    buf[len] = 0;
    *data = buf;
    if (n)
        *n = len;
    return KM_OK;
}

static int write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Blocks of zeros are skipped with lseek and the size set with ftruncate,
 * so the file system allocates nothing for them; reads give zeros back. */
#define HOLE_BLOCK 4096

static bool all_zero(const unsigned char *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

static int write_sparse(int fd, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t at = 0; at < n;) {
        size_t len = n - at < HOLE_BLOCK ? n - at : HOLE_BLOCK;
        if (all_zero(p + at, len)) {
            at += len;
            continue;
        }
        size_t end = at + len; /* a run of data blocks: one write */
        while (end < n) {
            size_t next = n - end < HOLE_BLOCK ? n - end : HOLE_BLOCK;
            if (all_zero(p + end, next))
                break;
            end += next;
        }
        if (lseek(fd, (off_t)at, SEEK_SET) < 0 || write_all(fd, p + at, end - at) != 0)
            return -1;
        at = end;
    }
    return ftruncate(fd, (off_t)n);
}

static int write_atomic(const char *path, const void *data, size_t n, bool sparse,
                        km_error *err);

int km_write_file_atomic(const char *path, const void *data, size_t n, km_error *err)
{
    return write_atomic(path, data, n, false, err);
}

int km_write_file_sparse(const char *path, const void *data, size_t n, km_error *err)
{
    return write_atomic(path, data, n, true, err);
}

static int write_atomic(const char *path, const void *data, size_t n, bool sparse,
                        km_error *err)
{
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write '%s'", path);
        free(tmp);
        return rc;
    }
    fchmod(fd, 0644);
    if ((sparse ? write_sparse(fd, data, n) : write_all(fd, data, n)) != 0 || fsync(fd) != 0) {
        int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write '%s'", path);
        close(fd);
        unlink(tmp);
        free(tmp);
        return rc;
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write '%s'", path);
        unlink(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    return KM_OK;
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

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

int km_rm_rf(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static uint64_t tree_total;
static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path, (void)ftw;
    if (flag == FTW_F && S_ISREG(st->st_mode))
        tree_total += (uint64_t)st->st_size;
    return 0;
}

uint64_t km_tree_bytes(const char *path)
{
    tree_total = 0;
    nftw(path, add_size, 16, FTW_PHYS);
    return tree_total;
}

char *km_path_join(const char *a, const char *b)
{
    char *out = NULL;
    size_t n = strlen(a);
    if (asprintf(&out, "%s%s%s", a, n && a[n - 1] == '/' ? "" : "/", b) < 0)
        abort();
    return out;
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
