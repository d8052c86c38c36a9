/* km_fs_at: paths below kmrun's own folders, never through a link
 * (km_fs_at.h). */
#include "km_fs_at.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ks_text.h"

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

int km_at_fail_link(km_error *err, const char *shown, const char *rel)
{
    return km_fail(err, KM_EXIT_SYSTEM,
                   "'%s%s%s' is a symbolic link where kmrun keeps its own files: kmrun never "
                   "follows a link inside its cache or runs folder (expected a real folder or "
                   "file; remove the link)",
                   or_empty(shown), shown ? "/" : "", rel);
}

/* Why component `upto` (rel's first upto bytes) could not be opened. */
static int explain(int dir, const char *rel, size_t upto, const char *comp, const char *shown,
                   km_error *err)
{
    int saved = errno;
    char *copy = strndup(rel, upto);
    const char *part = copy ? copy : rel; /* short of memory: the whole path */
    struct stat st;
    int rc;
    if (fstatat(dir, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        rc = km_at_fail_link(err, shown, part);
    else if (saved == ENOTDIR)
        rc = km_fail(err, KM_EXIT_SYSTEM, "'%s%s%s' is not a folder (expected a folder kmrun "
                                          "made)", or_empty(shown), shown ? "/" : "", part);
    else {
        errno = saved;
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot open '%s%s%s'", or_empty(shown),
                           shown ? "/" : "", part);
    }
    free(copy);
    return rc;
}

int km_at_dir(int dir, const char *rel, bool create, const char *shown, km_error *err)
{
    int cur = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cur < 0) {
        km_fail_errno(err, KM_EXIT_SYSTEM, "cannot open '%s'", shown ? shown : ".");
        return -1;
    }
    char *copy = strdup(rel), *save = NULL;
    if (!copy) {
        close(cur);
        km_fail(err, KM_EXIT_SYSTEM, "out of memory opening '%s%s%s'", or_empty(shown),
                shown ? "/" : "", rel);
        errno = ENOMEM;
        return -1;
    }
    for (char *comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
        int next = openat(cur, comp, KM_AT_DIR_FLAGS);
        if (next < 0 && errno == ENOENT && create &&
            (mkdirat(cur, comp, 0755) == 0 || errno == EEXIST))
            next = openat(cur, comp, KM_AT_DIR_FLAGS);
        if (next < 0) {
            int saved = errno;
            explain(cur, rel, (size_t)(comp - copy) + strlen(comp), comp, shown, err);
            close(cur);
            errno = saved;
            free(copy);
            return -1;
        }
        close(cur);
        cur = next;
    }
    free(copy);
    return cur;
}

int km_at_open(int dir, const char *rel, int flags, mode_t mode)
{
    const char *slash = strrchr(rel, '/');
    if (!slash)
        return openat(dir, rel, flags | O_NOFOLLOW | O_CLOEXEC, mode);
    char *parent = strndup(rel, (size_t)(slash - rel));
    if (!parent) {
        errno = ENOMEM;
        return -1;
    }
    int pd = km_at_dir(dir, parent, false, NULL, NULL), saved = errno;
    free(parent);
    if (pd < 0) {
        errno = saved;
        return -1;
    }
    int fd = openat(pd, slash + 1, flags | O_NOFOLLOW | O_CLOEXEC, mode);
    saved = errno;
    close(pd);
    errno = saved;
    return fd;
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

/* Whether the HOLE_BLOCK at `at` is a known zero block: outside `known`
 * (bit k for bytes [k, k + 1) << shift, shift >= log2(HOLE_BLOCK)). */
static bool known_zero(const uint64_t *known, unsigned shift, size_t at)
{
    size_t k = at >> shift;
    return known && !(known[k / 64] >> (k % 64) & 1u);
}

static int write_sparse(int fd, const void *data, size_t n, const uint64_t *known,
                        unsigned shift)
{
    const unsigned char *p = data;
    for (size_t at = 0; at < n;) {
        size_t len = n - at < HOLE_BLOCK ? n - at : HOLE_BLOCK;
        if (known_zero(known, shift, at)) { /* a whole unit: skip it unread */
            at = ((at >> shift) + 1) << shift;
            continue;
        }
        if (all_zero(p + at, len)) {
            at += len;
            continue;
        }
        size_t end = at + len; /* a run of data blocks: one write */
        while (end < n) {
            size_t next = n - end < HOLE_BLOCK ? n - end : HOLE_BLOCK;
            if (known_zero(known, shift, end) || all_zero(p + end, next))
                break;
            end += next;
        }
        if (lseek(fd, (off_t)at, SEEK_SET) < 0 || write_all(fd, p + at, end - at) != 0)
            return -1;
        at = end;
    }
    return ftruncate(fd, (off_t)n);
}

/* Six random letters and digits: a temporary's or a fresh folder's tail. */
static void random_tail(char out[7])
{
    static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char r[6];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        unsigned v = (unsigned)getpid() * 2654435761u ^ (unsigned)clock();
        for (int i = 0; i < 6; i++, v = v * 1103515245u + 12345u)
            r[i] = (unsigned char)(v >> 16);
    }
    for (int i = 0; i < 6; i++)
        out[i] = set[r[i] % (sizeof set - 1)];
    out[6] = 0;
}

static int write_at(int dir, const char *name, const void *data, size_t n, bool sparse,
                    const uint64_t *known, unsigned shift, const char *shown, km_error *err)
{
    const char *sep = shown ? "/" : "";
    char *tmp = NULL;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        char tail[7];
        random_tail(tail);
        free(tmp);
        if (!(tmp = ks_strf("%s.tmp.%s", name, tail)))
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory");
        fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write '%s%s%s'", or_empty(shown),
                               sep, name);
        free(tmp);
        return rc;
    }
    fchmod(fd, 0644);
    if ((sparse ? write_sparse(fd, data, n, known, shift) : write_all(fd, data, n)) != 0 ||
        fsync(fd) != 0 ||
        close(fd) != 0 || renameat(dir, tmp, dir, name) != 0) {
        int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write '%s%s%s'", or_empty(shown),
                               sep, name);
        close(fd); /* EBADF when closed above: harmless */
        unlinkat(dir, tmp, 0);
        free(tmp);
        return rc;
    }
    free(tmp);
    return KM_OK;
}

int km_at_write(int dir, const char *name, const void *data, size_t n, bool sparse,
                const char *shown, km_error *err)
{
    return write_at(dir, name, data, n, sparse, NULL, 12, shown, err);
}

int km_at_write_known(int dir, const char *name, const void *data, size_t n,
                      const uint64_t *known, unsigned shift, const char *shown, km_error *err)
{
    return write_at(dir, name, data, n, true, known, shift < 12 ? 12 : shift, shown, err);
}

int km_at_mkdtemp(int dir, const char *prefix, char **name)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        char tail[7];
        random_tail(tail);
        if (!(*name = ks_strf("%s.%s", prefix, tail)))
            return -1;
        if (mkdirat(dir, *name, 0755) == 0)
            return 0;
        int saved = errno;
        free(*name);
        *name = NULL;
        errno = saved;
        if (saved != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

int km_at_each(int fd, int (*f)(int dir, const char *name, void *ctx), void *ctx)
{
    int dup_fd = dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return -1;
    }
    /* The copy shares the descriptor's offset: from the start, every time. */
    rewinddir(d);
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (f(fd, e->d_name, ctx) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

static int remove_entry(int dir, const char *name, void *ctx)
{
    (void)ctx;
    return km_at_rm_rf(dir, name);
}

int km_at_rm_rf(int dir, const char *name)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlinkat(dir, name, 0) != 0 && errno != ENOENT ? -1 : 0;
    int fd = openat(dir, name, KM_AT_DIR_FLAGS);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    int rc = km_at_each(fd, remove_entry, NULL);
    close(fd);
    if (unlinkat(dir, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        rc = -1;
    return rc;
}

static int add_bytes(int dir, const char *name, void *ctx)
{
    *(uint64_t *)ctx += km_at_tree_bytes(dir, name);
    return 0;
}

uint64_t km_at_tree_bytes(int dir, const char *name)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    if (S_ISREG(st.st_mode))
        return (uint64_t)st.st_size;
    uint64_t total = 0;
    int fd = S_ISDIR(st.st_mode) ? openat(dir, name, KM_AT_DIR_FLAGS) : -1;
    if (fd >= 0) {
        km_at_each(fd, add_bytes, &total);
        close(fd);
    }
    return total;
}

typedef struct link_search {
    const char *prefix; /* the folder's path relative to the start */
    char *found;
    bool oom; /* memory ran out: the search is not whole */
} link_search;

static int look_for_link(int dir, const char *name, void *ctx)
{
    link_search *s = ctx;
    if (s->found || s->oom)
        return 0;
    char *path = ks_strf("%s%s%s", s->prefix, *s->prefix ? "/" : "", name);
    if (!path) {
        s->oom = true;
        return 0;
    }
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        free(path);
        return 0;
    }
    if (S_ISLNK(st.st_mode)) {
        s->found = path;
        return 0;
    }
    int fd = S_ISDIR(st.st_mode) ? openat(dir, name, KM_AT_DIR_FLAGS) : -1;
    if (fd >= 0) {
        link_search inner = {path, NULL, false};
        km_at_each(fd, look_for_link, &inner);
        close(fd);
        s->found = inner.found;
        s->oom = inner.oom;
    }
    if (s->found != path)
        free(path);
    return 0;
}

int km_at_find_link(int dir, const char *name, char **found)
{
    link_search s = {"", NULL, false};
    look_for_link(dir, name, &s);
    *found = s.found;
    return s.found ? 1 : s.oom ? -1 : 0;
}
