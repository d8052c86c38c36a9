/* kmrun_new: the public C API's new program (include/kmrun.h, "A new
 * program") — `kmrun new`: a template of kmrun's data folder
 * (templates/NAME/, km_toolchain.h's data folder) copied into a new
 * folder, @NAME@ replaced by the program's name in every file, checked
 * as a manifest, and renamed into place whole. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api_internal.h"
#include "km_fs.h"
#include "km_toolchain.h"
#include "ks_text.h"

#define NAME_MARK "@NAME@"

static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

/* text with every @NAME@ replaced by name (allocated; NULL: no memory). */
static char *substitute(const char *text, size_t n, const char *name, size_t *out_n)
{
    size_t marks = 0, mark = strlen(NAME_MARK), len = strlen(name);
    for (const char *s = text; (s = memmem(s, n - (size_t)(s - text), NAME_MARK, mark));
         s += mark)
        marks++;
    size_t total = n - marks * mark + marks * len;
    char *out = malloc(total + 1), *o = out;
    if (!out)
        return NULL;
    const char *s = text, *end = text + n;
    for (const char *m; (m = memmem(s, (size_t)(end - s), NAME_MARK, mark)); s = m + mark) {
        memcpy(o, s, (size_t)(m - s));
        o += m - s;
        memcpy(o, name, len);
        o += len;
    }
    memcpy(o, s, (size_t)(end - s));
    out[total] = 0;
    *out_n = total;
    return out;
}

static int write_all(const char *path, const char *data, size_t n, mode_t mode, km_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write %s", KS_QUOTED(path));
    while (n) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write %s", KS_QUOTED(path));
            close(fd);
            return rc;
        }
        data += w;
        n -= (size_t)w;
    }
    if (close(fd) != 0)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write %s", KS_QUOTED(path));
    return KM_OK;
}

/* The template folder `from` into the folder `to` (made), @NAME@ as name. */
static int copy_tree(const char *from, const char *to, const char *name, int depth,
                     km_error *err)
{
    if (depth > 8)
        return km_fail(err, KM_EXIT_SYSTEM, "template folder %s is too deep", KS_QUOTED(from));
    DIR *d = opendir(from);
    if (!d)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read template %s", KS_QUOTED(from));
    int rc = KM_OK;
    struct dirent *e;
    while (rc == KM_OK && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *src = km_path_join(from, e->d_name), *dst = km_path_join(to, e->d_name);
        struct stat st;
        if (!src || !dst) {
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory copying a template");
        } else if (stat(src, &st) != 0) {
            rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read template file %s",
                               KS_QUOTED(src));
        } else if (S_ISDIR(st.st_mode)) {
            if (mkdir(dst, 0777) != 0)
                rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot make folder %s",
                                   KS_QUOTED(dst));
            else
                rc = copy_tree(src, dst, name, depth + 1, err);
        } else if (S_ISREG(st.st_mode)) {
            char *text = NULL, *out = NULL;
            size_t n = 0, out_n = 0;
            rc = km_read_file(src, &text, &n, err);
            if (rc == KM_OK && !(out = substitute(text, n, name, &out_n)))
                rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory copying a template");
            if (rc == KM_OK)
                rc = write_all(dst, out, out_n, (st.st_mode & 0111) ? 0777 : 0666, err);
            free(text);
            free(out);
        }
        free(src);
        free(dst);
    }
    closedir(d);
    return rc;
}

/* The names of the templates under dir, "a, b or c", into buf (copied
 * on the stack: a hint that cannot run short of memory). */
static void template_names(const char *dir, char *buf, size_t n)
{
    char names[32][sizeof ((struct dirent *)0)->d_name];
    size_t count = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && count < 32 && (e = readdir(d)))
        if (e->d_name[0] != '.')
            snprintf(names[count++], sizeof names[0], "%s", e->d_name);
    if (d)
        closedir(d);
    char t[sizeof names[0]];
    for (size_t i = 1; i < count; i++) /* sorted: readdir's order is the disk's */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < count; i++) {
        const char *sep = i == 0 ? "" : i + 1 == count ? " or " : ", ";
        int k = snprintf(buf + used, n - used, "%s%s", sep, names[i]);
        if (k > 0 && (size_t)k < n - used)
            used += (size_t)k;
    }
}

/* The folder's last part: the program's name (allocated). */
static char *last_part(const char *folder)
{
    size_t len = strlen(folder);
    while (len > 1 && folder[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && folder[start - 1] != '/')
        start--;
    return strndup(folder + start, len - start);
}

/* A new empty folder beside `folder`, named after it with a dot first (so
 * that `kmrun test` and a glob pass it by); allocated. */
static char *scratch_beside(const char *folder, const char *name, km_error *err)
{
    char *parent = km_dirname(folder);
    if (!parent) {
        km_fail(err, KM_EXIT_SYSTEM, "out of memory making %s", KS_QUOTED(folder));
        return NULL;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    unsigned seed = (unsigned)now.tv_nsec ^ (unsigned)getpid() << 16;
    for (int attempt = 0; attempt < 100; attempt++) {
        char *path = ks_strf("%s/.%s.new-%06x", parent, name,
                             (seed + (unsigned)attempt * 7919u) & 0xffffffu);
        if (!path)
            break;
        if (mkdir(path, 0777) == 0) {
            free(parent);
            return path;
        }
        int error = errno;
        free(path);
        if (error != EEXIST) {
            errno = error;
            km_fail_errno(err, KM_EXIT_SYSTEM, "cannot make folder %s", KS_QUOTED(folder));
            free(parent);
            return NULL;
        }
    }
    km_fail(err, KM_EXIT_SYSTEM, "cannot make folder %s: no free temporary name beside it",
            KS_QUOTED(folder));
    free(parent);
    return NULL;
}

/* Renames the made folder into place, never over something there. */
static int put_in_place(const char *scratch, const char *folder, km_error *err)
{
    if (renameat2(AT_FDCWD, scratch, AT_FDCWD, folder, RENAME_NOREPLACE) == 0)
        return KM_OK;
    if (errno == EINVAL || errno == ENOSYS) { /* a file system without it */
        struct stat st;
        if (lstat(folder, &st) == 0)
            errno = EEXIST;
        else if (rename(scratch, folder) == 0)
            return KM_OK;
    }
    if (errno == EEXIST || errno == ENOTEMPTY)
        return km_fail(err, KM_EXIT_USAGE, "%s already exists (expected a new folder's name)",
                       KS_QUOTED(folder));
    return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot make folder %s", KS_QUOTED(folder));
}

static int make(const char *folder, const char *template_name, km_error *err)
{
    struct stat st;
    if (lstat(folder, &st) == 0)
        return km_fail(err, KM_EXIT_USAGE, "%s already exists (expected a new folder's name)",
                       KS_QUOTED(folder));
    char *name = last_part(folder);
    if (!name)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory making %s", KS_QUOTED(folder));
    if (!km_program_name_valid(name)) {
        int rc = km_fail(err, KM_EXIT_USAGE,
                         "bad program name %s (expected a folder whose name is letters, "
                         "digits, '_', '.' and '-', at most 64 characters)",
                         KS_QUOTED(name));
        free(name);
        return rc;
    }
    km_data data;
    int rc = km_data_find(&data, err);
    if (rc != KM_OK) {
        free(name);
        return rc;
    }
    char *templates = km_path_join(data.dir, "templates");
    char *from = templates ? km_path_join(templates, template_name) : NULL;
    km_data_free(&data);
    char *scratch = NULL;
    if (!from) {
        rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory making %s", KS_QUOTED(folder));
    } else if (stat(templates, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rc = km_fail(err, KM_EXIT_SYSTEM, "cannot find kmrun's templates in %s: run 'make', "
                                          "or set KMRUN_DATA",
                     KS_QUOTED(templates));
    } else if (!*template_name || strchr(template_name, '/') || template_name[0] == '.' ||
               stat(from, &st) != 0 || !S_ISDIR(st.st_mode)) {
        char names[256];
        template_names(templates, names, sizeof names);
        rc = km_fail(err, KM_EXIT_USAGE, "unknown template %s (expected %s)",
                     KS_QUOTED(template_name), names);
    } else if ((scratch = scratch_beside(folder, name, err))) {
        rc = copy_tree(from, scratch, name, 0, err);
        char *manifest = rc == KM_OK ? km_path_join(scratch, "program.yaml") : NULL;
        if (rc == KM_OK) {
            km_program *p = NULL;
            km_diags diags = {0};
            km_error e = {0};
            if (!manifest)
                rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory making %s", KS_QUOTED(folder));
            else if (km_manifest_load(manifest, &p, &diags, &e) != KM_OK) {
                char *text = km_diags_text(&diags);
                rc = km_fail(err, KM_EXIT_INTERNAL, "template %s makes a bad program: %s",
                             KS_QUOTED(template_name), text ? text : e.message);
                free(text);
            }
            km_program_free(p);
            km_diags_free(&diags);
        }
        free(manifest);
        if (rc == KM_OK)
            rc = put_in_place(scratch, folder, err);
        if (rc != KM_OK)
            km_rm_rf(scratch);
    } else {
        rc = err ? err->status : KM_EXIT_SYSTEM;
    }
    free(scratch);
    free(from);
    free(templates);
    free(name);
    return rc;
}

kmrun_status kmrun_new_program(const char *folder, const char *template_name, kmrun_error **err)
{
    clear(err);
    if (!folder || !*folder)
        return km_api_usage(err, "an empty folder name (expected the new program's folder)");
    km_error e = {0};
    int rc = make(folder, template_name ? template_name : "thread", &e);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}
