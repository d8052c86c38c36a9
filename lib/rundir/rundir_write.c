/* rundir_write: writing a run folder whole, and removing the folders of
 * runs that were killed (km_rundir.h).
 *
 * A writer's folder is RUNS/.writing.<id>.<suffix>, and the writer holds
 * an flock on it until the folder is renamed to <id> (or removed).  The
 * kernel drops the lock when the writer dies, however it dies, so "a
 * .writing folder nobody holds" means exactly "a run that was
 * interrupted": it is safe to remove, and readers can tell that `latest`
 * is not the newest run.  The folder is made as .new.<id>.<suffix> and
 * renamed to .writing.* only once locked, so no one ever sees a .writing
 * folder in the instant before its lock is taken.
 *
 * RUNS/.lock orders the few steps that must not interleave: a writer holds
 * it shared while it makes its folder and while it moves `latest`; a sweep
 * (removing what dead runs left) holds it exclusive, so that a .new.*
 * folder it finds has no live maker and `latest` does not move under it.
 *
 * Everything below RUNS is reached from RUNS's descriptor, never through
 * a link (km_fs_at.h). */
#include "km_rundir.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_fs.h"
#include "km_fs_at.h"
#include "ks_text.h"
#include "rundir_names.h"

struct km_rundir_writer {
    char *runs, *id, *name, *tmp; /* name: .writing.<id>.<suffix>; tmp: runs/name */
    int runs_fd;
    int fd; /* the open folder whose flock says "being written" */
};

/* RUNS/.lock taken `how`; -1 when it cannot be (a read-only runs folder). */
static int order_lock(int runs, int how)
{
    int fd = openat(runs, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        fd = openat(runs, ".lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && flock(fd, how) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Opens the .writing folder `name` under runs and tries its lock; the fd
 * when the lock was free (its writer is gone), else -1. */
static int take_abandoned(int runs, const char *name, int how)
{
    int fd = openat(runs, name, KM_AT_DIR_FLAGS);
    if (fd < 0)
        return -1; /* renamed to its run id, or removed, since readdir */
    struct stat a, b;
    if (flock(fd, how | LOCK_NB) != 0 || fstat(fd, &a) != 0 ||
        fstatat(runs, name, &b, AT_SYMLINK_NOFOLLOW) != 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino) {
        close(fd);
        return -1;
    }
    return fd;
}

typedef struct each_ctx {
    int how;
    void (*f)(int runs, int fd, const char *name, const char *id, void *ctx);
    void *ctx;
} each_ctx;

static int each_one(int runs, const char *name, void *ctx)
{
    each_ctx *e = ctx;
    char id[KM_RUN_ID_BYTES];
    if (!km_rundir_writing_id(name, id))
        return 0;
    int fd = take_abandoned(runs, name, e->how);
    if (fd >= 0) {
        e->f(runs, fd, name, id, e->ctx);
        close(fd);
    }
    return 0;
}

/* Calls f for each interrupted run's folder under runs (its lock free). */
static void each_interrupted(int runs, int how,
                             void (*f)(int runs, int fd, const char *name, const char *id,
                                       void *ctx),
                             void *ctx)
{
    each_ctx e = {how, f, ctx};
    km_at_each(runs, each_one, &e);
}

typedef struct newest_ctx {
    char *id;
    struct timespec *when;
} newest_ctx;

static bool later(struct timespec a, struct timespec b)
{
    return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

/* The folder's time, not the id's: ids made in the same second do not
 * sort by time.  A killed run's folder changes no more after it died. */
static void newest(int runs, int fd, const char *name, const char *id, void *ctx)
{
    (void)runs, (void)name;
    newest_ctx *n = ctx;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return;
    if (!n->id[0] || later(st.st_mtim, *n->when)) {
        snprintf(n->id, KM_RUN_ID_BYTES, "%s", id);
        *n->when = st.st_mtim;
    }
}

static bool newest_interrupted(int runs, char id[KM_RUN_ID_BYTES], struct timespec *when)
{
    id[0] = 0;
    newest_ctx n = {id, when};
    each_interrupted(runs, LOCK_SH, newest, &n);
    return id[0] != 0;
}

int km_rundir_interrupted(const char *runs, char id[KM_RUN_ID_BYTES], struct timespec *when)
{
    id[0] = 0;
    int fd = open(runs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    bool found = newest_interrupted(fd, id, when);
    close(fd);
    return found;
}

/* Points RUNS/latest at id: a new link beside it, renamed over the old. */
static int point_latest(int runs, const char *runs_path, const char *id, km_error *err)
{
    char tmp[KM_RUN_ID_BYTES + 16];
    snprintf(tmp, sizeof tmp, ".latest.%s", id);
    unlinkat(runs, tmp, 0);
    if (symlinkat(id, runs, tmp) != 0 || renameat(runs, tmp, runs, KM_RUNDIR_LATEST) != 0) {
        int rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot point '%s/%s' at the run",
                               runs_path, KM_RUNDIR_LATEST);
        unlinkat(runs, tmp, 0);
        return rc;
    }
    return KM_OK;
}

static void remove_one(int runs, int fd, const char *name, const char *id, void *ctx)
{
    (void)fd, (void)id, (void)ctx;
    km_at_rm_rf(runs, name); /* best effort: a folder left is retried next time */
}

static int remove_new(int runs, const char *name, void *ctx)
{
    (void)ctx;
    if (strncmp(name, ".new.", 5) == 0)
        km_at_rm_rf(runs, name);
    return 0;
}

/* Removes what dead runs left, holding RUNS/.lock exclusive.  A dead run
 * newer than `latest` is its runs folder's newest run: before its folder
 * goes, `latest` is pointed at its id (a link to nothing), so that readers
 * still learn that the newest run was interrupted. */
static void sweep(int runs, const char *runs_path)
{
    int order = order_lock(runs, LOCK_EX);
    if (order < 0)
        return; /* another user's folder: nothing of ours to remove */
    char id[KM_RUN_ID_BYTES];
    struct timespec when;
    struct stat link;
    if (newest_interrupted(runs, id, &when) &&
        (fstatat(runs, KM_RUNDIR_LATEST, &link, AT_SYMLINK_NOFOLLOW) != 0 ||
         !later(link.st_mtim, when)))
        point_latest(runs, runs_path, id, NULL);
    each_interrupted(runs, LOCK_EX, remove_one, NULL);
    km_at_each(runs, remove_new, NULL);
    close(order);
}

void km_rundir_sweep(const char *runs)
{
    int fd = open(runs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        sweep(fd, runs);
        close(fd);
    }
}

/* Makes the writer's folder: .new.<id>.XXXXXX, locked, renamed to
 * .writing.<id>.XXXXXX, under RUNS/.lock shared. */
static int make_folder(km_rundir_writer *w, km_error *err)
{
    int order = order_lock(w->runs_fd, LOCK_SH);
    char prefix[KM_RUN_ID_BYTES + 8], *fresh = NULL;
    snprintf(prefix, sizeof prefix, ".new.%s", w->id);
    int rc = KM_OK;
    if (km_at_mkdtemp(w->runs_fd, prefix, &fresh) != 0) {
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write the run folder in '%s'", w->runs);
    } else {
        if (!(w->name = ks_strf(".writing.%s.%s", w->id, strrchr(fresh, '.') + 1))) {
            km_at_rm_rf(w->runs_fd, fresh);
            free(fresh);
            if (order >= 0)
                close(order);
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory naming the run folder in '%s'",
                           w->runs);
        }
        w->fd = openat(w->runs_fd, fresh, KM_AT_DIR_FLAGS);
        if (w->fd < 0 || flock(w->fd, LOCK_EX) != 0 ||
            renameat(w->runs_fd, fresh, w->runs_fd, w->name) != 0) {
            rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write the run folder in '%s'",
                               w->runs);
            km_at_rm_rf(w->runs_fd, fresh);
            free(w->name);
            w->name = NULL;
        }
    }
    free(fresh);
    if (order >= 0)
        close(order);
    return rc;
}

int km_rundir_begin(const char *runs, const char *id, km_rundir_writer **out, km_error *err)
{
    *out = NULL;
    if (!km_rundir_plain_name(id) || strlen(id) >= KM_RUN_ID_BYTES || strchr(id, '.'))
        return km_fail(err, KM_EXIT_INTERNAL, "bad run id '%s'", id);
    int rc = km_mkdir_p(runs, err);
    if (rc != KM_OK)
        return rc;
    km_rundir_writer *w = calloc(1, sizeof *w);
    if (!w)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory writing a run in '%s'", runs);
    w->fd = w->runs_fd = -1;
    w->runs = strdup(runs);
    w->id = strdup(id);
    if (!w->runs || !w->id) {
        km_rundir_abort(w);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory writing a run in '%s'", runs);
    }
    /* The runs folder is the user's choice; below it, everything is ours. */
    w->runs_fd = open(runs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (w->runs_fd < 0) {
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot open the runs folder '%s'", runs);
        km_rundir_abort(w);
        return rc;
    }
    sweep(w->runs_fd, runs);
    rc = make_folder(w, err);
    if (rc != KM_OK) {
        km_rundir_abort(w);
        return rc;
    }
    w->tmp = km_path_join(runs, w->name);
    if (!w->tmp) {
        km_rundir_abort(w);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory writing a run in '%s'", runs);
    }
    *out = w;
    return KM_OK;
}

const char *km_rundir_writing(const km_rundir_writer *w)
{
    return w->tmp;
}

void km_rundir_abort(km_rundir_writer *w)
{
    if (!w)
        return;
    if (w->name)
        km_at_rm_rf(w->runs_fd, w->name); /* while still locked: no one else removes it */
    if (w->fd >= 0)
        close(w->fd);
    if (w->runs_fd >= 0)
        close(w->runs_fd);
    free(w->name);
    free(w->tmp);
    free(w->id);
    free(w->runs);
    free(w);
}

static int write_regions(km_rundir_writer *w, const km_region_copy *regions, size_t nregions,
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
        char *folder = rel ? km_dirname(rel) : NULL;
        int dir = folder ? km_at_dir(w->fd, folder, true, w->tmp, err) : -1;
        if (!folder)
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory writing the run's regions");
        else if (dir < 0)
            rc = KM_EXIT_SYSTEM;
        else
            rc = km_at_write_known(dir, strrchr(rel, '/') + 1, r->bytes, r->size, r->data,
                                   KM_REGION_UNIT_SHIFT, w->tmp, err);
        if (dir >= 0)
            close(dir);
        cJSON *o = rc == KM_OK ? cJSON_CreateObject() : NULL;
        bool listed = o && cJSON_AddStringToObject(o, "name", r->name) &&
                      cJSON_AddNumberToObject(o, "cluster", r->cluster) &&
                      cJSON_AddNumberToObject(o, "bank", r->bank) &&
                      cJSON_AddNumberToObject(o, "bank_address", (double)r->bank_address) &&
                      cJSON_AddNumberToObject(o, "bytes", (double)r->size) &&
                      cJSON_AddStringToObject(o, "file", rel) && list &&
                      cJSON_AddItemToArray(list, o);
        if (rc == KM_OK && !listed) {
            cJSON_Delete(o);
            rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory writing the run's regions");
        }
        free(folder);
        free(rel);
    }
    if (rc == KM_OK) {
        char *text = cJSON_Print(list);
        rc = text ? km_at_write(w->fd, "regions.json", text, strlen(text), false, w->tmp, err)
                  : km_fail(err, KM_EXIT_SYSTEM, "out of memory writing the run's regions");
        free(text);
    }
    cJSON_Delete(list);
    return rc;
}

int km_rundir_put_text(km_rundir_writer *w, const char *name, const char *text, km_error *err)
{
    if (!km_rundir_plain_name(name))
        return km_fail(err, KM_EXIT_INTERNAL, "'%s' is not a plain file name", name);
    return km_at_write(w->fd, name, text, strlen(text), false, w->tmp, err);
}

int km_rundir_commit(km_rundir_writer *w, const char *result_json,
                     const km_region_copy *regions, size_t nregions, char **path, km_error *err)
{
    int rc = write_regions(w, regions, nregions, err);
    if (rc == KM_OK)
        rc = km_at_write(w->fd, "result.json", result_json, strlen(result_json), false, w->tmp,
                         err);
    if (rc == KM_OK)
        fsync(w->fd);
    /* `latest` first, then the folder: killed in between, `latest` names
     * a run that is not there and a .writing folder nobody holds, which a
     * reader reports as interrupted; never an older run's bytes. */
    if (rc == KM_OK) {
        int order = order_lock(w->runs_fd, LOCK_SH);
        rc = point_latest(w->runs_fd, w->runs, w->id, err);
        if (order >= 0)
            close(order);
    }
    if (rc == KM_OK && renameat(w->runs_fd, w->name, w->runs_fd, w->id) != 0)
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write the run folder '%s/%s'", w->runs,
                           w->id);
    if (rc != KM_OK) {
        km_rundir_abort(w);
        return rc;
    }
    fsync(w->runs_fd);
    char *final = path ? km_path_join(w->runs, w->id) : NULL;
    free(w->name);
    w->name = NULL; /* renamed: nothing to remove */
    rc = path && !final ? km_fail(err, KM_EXIT_SYSTEM, "out of memory naming the run folder "
                                  "'%s/%s' (it is written)", w->runs, w->id)
                        : KM_OK;
    km_rundir_abort(w);
    if (path)
        *path = final;
    return rc;
}

int km_rundir_write(const char *runs, const char *id, const char *result_json,
                    const km_region_copy *regions, size_t nregions, char **path, km_error *err)
{
    km_rundir_writer *w = NULL;
    int rc = km_rundir_begin(runs, id, &w, err);
    return rc == KM_OK ? km_rundir_commit(w, result_json, regions, nregions, path, err) : rc;
}
