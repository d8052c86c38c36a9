/* km_rundir_write: writing a run folder whole, and removing the folders of
 * runs that were killed while they wrote (km_rundir.h).
 *
 * A writer's folder is RUNS/.writing.<id>.<suffix>, and the writer holds
 * an flock on it until the folder is renamed to <id> (or removed).  The
 * kernel drops the lock when the writer dies, however it dies, so "a
 * .writing folder nobody holds" means exactly "a run that was
 * interrupted": it is safe to remove, and readers can tell that `latest`
 * is not the newest run.  The folder is made as .new.<id>.<suffix> and
 * renamed to .writing.* only once locked, so no one ever sees a
 * .writing folder in the instant before its lock is taken. */
#include "km_rundir.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_fs.h"
#include "km_rundir_names.h"

struct km_rundir_writer {
    char *runs, *id, *tmp;
    int fd; /* the open folder whose flock says "being written" */
};

/* Opens the .writing folder `name` under runs and tries its lock; the fd
 * when the lock was free (its writer is gone), else -1. */
static int take_abandoned(const char *runs, const char *name, int how, char **path)
{
    *path = km_path_join(runs, name);
    int fd = open(*path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1; /* renamed to its run id, or removed, since readdir */
    struct stat a, b;
    if (flock(fd, how | LOCK_NB) != 0 || fstat(fd, &a) != 0 || lstat(*path, &b) != 0 ||
        a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Calls f for each interrupted run's folder under runs (its lock free). */
static void each_interrupted(const char *runs, int how,
                             void (*f)(int fd, const char *path, const char *id, void *ctx),
                             void *ctx)
{
    DIR *d = opendir(runs);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char id[KM_RUN_ID_BYTES];
        if (!km_rundir_writing_id(e->d_name, id))
            continue;
        char *path = NULL;
        int fd = take_abandoned(runs, e->d_name, how, &path);
        if (fd >= 0) {
            f(fd, path, id, ctx);
            close(fd);
        }
        free(path);
    }
    closedir(d);
}

static void remove_one(int fd, const char *path, const char *id, void *ctx)
{
    (void)fd, (void)id, (void)ctx;
    km_rm_rf(path); /* best effort: a folder left is retried next run */
}

typedef struct newest_ctx {
    char *id;
    struct timespec *when;
} newest_ctx;

/* The folder's time, not the id's: ids made in the same second do not
 * sort by time.  A killed run's folder changes no more after it died. */
static void newest(int fd, const char *path, const char *id, void *ctx)
{
    (void)path;
    newest_ctx *n = ctx;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return;
    if (!n->id[0] || st.st_mtim.tv_sec > n->when->tv_sec ||
        (st.st_mtim.tv_sec == n->when->tv_sec && st.st_mtim.tv_nsec > n->when->tv_nsec)) {
        snprintf(n->id, KM_RUN_ID_BYTES, "%s", id);
        *n->when = st.st_mtim;
    }
}

int km_rundir_interrupted(const char *runs, char id[KM_RUN_ID_BYTES], struct timespec *when)
{
    id[0] = 0;
    newest_ctx n = {id, when};
    each_interrupted(runs, LOCK_SH, newest, &n);
    return id[0] != 0;
}

int km_rundir_begin(const char *runs, const char *id, km_rundir_writer **out, km_error *err)
{
    *out = NULL;
    if (!km_rundir_plain_name(id) || strlen(id) >= KM_RUN_ID_BYTES || strchr(id, '.'))
        return km_fail(err, KM_EXIT_INTERNAL, "bad run id '%s'", id);
    int rc = km_mkdir_p(runs, err);
    if (rc != KM_OK)
        return rc;
    each_interrupted(runs, LOCK_EX, remove_one, NULL);
    char *fresh = NULL;
    if (asprintf(&fresh, "%s/.new.%s.XXXXXX", runs, id) < 0)
        abort();
    if (!mkdtemp(fresh)) {
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write the run folder in '%s'", runs);
        free(fresh);
        return rc;
    }
    chmod(fresh, 0755);
    km_rundir_writer *w = calloc(1, sizeof *w);
    w->runs = strdup(runs);
    w->id = strdup(id);
    if (asprintf(&w->tmp, "%s/.writing.%s.%s", runs, id, strrchr(fresh, '.') + 1) < 0)
        abort();
    w->fd = open(fresh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (w->fd < 0 || flock(w->fd, LOCK_EX) != 0 || rename(fresh, w->tmp) != 0) {
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write the run folder in '%s'", runs);
        km_rm_rf(fresh);
        free(w->tmp);
        w->tmp = NULL;
        km_rundir_abort(w);
    } else {
        *out = w;
    }
    free(fresh);
    return rc;
}

const char *km_rundir_writing(const km_rundir_writer *w)
{
    return w->tmp;
}

void km_rundir_abort(km_rundir_writer *w)
{
    if (!w)
        return;
    if (w->tmp)
        km_rm_rf(w->tmp); /* while still locked: no one else removes it meanwhile */
    if (w->fd >= 0)
        close(w->fd);
    free(w->tmp);
    free(w->id);
    free(w->runs);
    free(w);
}

static int write_regions(const char *tmp, const km_region_copy *regions, size_t nregions,
                         km_error *err)
{
    int rc = KM_OK;
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; rc == KM_OK && i < nregions; i++) {
        const km_region_copy *r = &regions[i];
        if (!km_rundir_plain_name(r->name)) {
            rc = km_fail(err, KM_EXIT_INTERNAL, "bad region name '%s'", r->name);
            break;
        }
        char *rel = km_rundir_region_file(r->cluster, r->name);
        char *file = km_path_join(tmp, rel);
        char *folder = km_dirname(file);
        rc = km_mkdir_p(folder, err);
        if (rc == KM_OK)
            rc = km_write_file_sparse(file, r->bytes, r->size, err);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r->name);
        cJSON_AddNumberToObject(o, "cluster", r->cluster);
        cJSON_AddNumberToObject(o, "bank", r->bank);
        cJSON_AddNumberToObject(o, "bank_address", (double)r->bank_address);
        cJSON_AddNumberToObject(o, "bytes", (double)r->size);
        cJSON_AddStringToObject(o, "file", rel);
        cJSON_AddItemToArray(list, o);
        free(folder);
        free(file);
        free(rel);
    }
    if (rc == KM_OK) {
        char *text = cJSON_Print(list);
        char *file = km_path_join(tmp, "regions.json");
        rc = km_write_file_atomic(file, text, strlen(text), err);
        free(file);
        free(text);
    }
    cJSON_Delete(list);
    return rc;
}

int km_rundir_put_text(km_rundir_writer *w, const char *name, const char *text, km_error *err)
{
    if (!km_rundir_plain_name(name))
        return km_fail(err, KM_EXIT_INTERNAL, "'%s' is not a plain file name", name);
    char *file = km_path_join(w->tmp, name);
    int rc = km_write_file_atomic(file, text, strlen(text), err);
    free(file);
    return rc;
}

int km_rundir_commit(km_rundir_writer *w, const char *result_json,
                     const km_region_copy *regions, size_t nregions, char **path, km_error *err)
{
    int rc = write_regions(w->tmp, regions, nregions, err);
    if (rc == KM_OK) {
        char *file = km_path_join(w->tmp, "result.json");
        rc = km_write_file_atomic(file, result_json, strlen(result_json), err);
        free(file);
    }
    char *final = km_path_join(w->runs, w->id);
    if (rc == KM_OK && rename(w->tmp, final) != 0)
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write the run folder '%s'", final);
    if (rc != KM_OK) {
        km_rundir_abort(w);
        free(final);
        return rc;
    }
    /* latest: a new link beside it, renamed over the old one. */
    char *link_tmp = NULL, *latest = km_path_join(w->runs, KM_RUNDIR_LATEST);
    if (asprintf(&link_tmp, "%s/.latest.%s", w->runs, w->id) < 0)
        abort();
    unlink(link_tmp);
    if (symlink(w->id, link_tmp) != 0 || rename(link_tmp, latest) != 0) {
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot point '%s' at the run", latest);
        unlink(link_tmp);
    }
    free(link_tmp);
    free(latest);
    free(w->tmp);
    w->tmp = NULL; /* renamed: nothing to remove */
    km_rundir_abort(w);
    if (rc == KM_OK && path)
        *path = final;
    else
        free(final);
    return rc;
}

int km_rundir_write(const char *runs, const char *id, const char *result_json,
                    const km_region_copy *regions, size_t nregions, char **path, km_error *err)
{
    km_rundir_writer *w = NULL;
    int rc = km_rundir_begin(runs, id, &w, err);
    return rc == KM_OK ? km_rundir_commit(w, result_json, regions, nregions, path, err) : rc;
}
