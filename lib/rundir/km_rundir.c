/* km_rundir: finding a run again and reading its regions back, checked
 * against its own record (km_rundir.h); rundir_write.c writes runs. */
#include "km_rundir.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "km_fs.h"
#include "km_fs_at.h"
#include "km_json.h"
#include "km_suggest.h"
#include "ks_text.h"
#include "rundir_names.h"


char *km_runs_root(const char *run_dir_option)
{
    if (run_dir_option && *run_dir_option)
        return strdup(run_dir_option);
    const char *env = getenv("KMRUN_RUNS");
    return strdup(env && *env ? env : ".kmrun/runs");
}

void km_run_id(char out[KM_RUN_ID_BYTES])
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    unsigned char r[3] = {0};
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        unsigned v = (unsigned)getpid() ^ (unsigned)clock();
        r[0] = (unsigned char)v, r[1] = (unsigned char)(v >> 8), r[2] = (unsigned char)(v >> 16);
    }
    char stamp[20];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(out, KM_RUN_ID_BYTES, "%s-%02x%02x%02x", stamp, r[0], r[1], r[2]);
}

bool km_rundir_plain_name(const char *s)
{
    if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return false;
    for (; *s; s++)
        if (*s == '/' || *s == '\\' || (unsigned char)*s < 0x20)
            return false;
    return true;
}

bool km_rundir_writing_id(const char *entry, char *id)
{
    static const char prefix[] = ".writing.";
    if (strncmp(entry, prefix, sizeof prefix - 1) != 0)
        return false;
    const char *start = entry + sizeof prefix - 1, *dot = strrchr(start, '.');
    if (!dot || dot == start || dot - start >= KM_RUN_ID_BYTES)
        return false;
    memcpy(id, start, (size_t)(dot - start));
    id[dot - start] = 0;
    return true;
}

char *km_rundir_region_file(int cluster, const char *name)
{
    return ks_strf("regions/cluster%d/%s.bin", cluster, name);
}

/* RUNS/latest's run id into id and its time into *when: KM_OK; -1 when
 * there is none; an error when it is not kmrun's link to a run id. */
static int read_latest(const char *runs, char id[KM_RUN_ID_BYTES], struct timespec *when,
                       km_error *err)
{
    char *path = km_path_join(runs, KM_RUNDIR_LATEST), target[256];
    if (!path)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory finding the runs in '%s'", runs);
    ssize_t len = readlink(path, target, sizeof target - 1);
    struct stat link;
    int rc = KM_OK;
    if (len < 0 && errno == ENOENT) {
        rc = -1;
    } else if (len < 0 && errno == EINVAL) {
        rc = km_fail(err, KM_EXIT_SYSTEM, "'%s' is not kmrun's link to a run (expected a "
                     "symbolic link to a run id; name a run with --run)", path);
    } else if (len < 0 || lstat(path, &link) != 0) {
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", path);
    } else {
        target[len] = 0;
        if (!km_rundir_plain_name(target) || (size_t)len >= KM_RUN_ID_BYTES)
            rc = km_fail(err, KM_EXIT_SYSTEM, "'%s' points to '%s', not to a run id of its "
                         "folder (name a run with --run)", path, target);
        else {
            memcpy(id, target, (size_t)len + 1);
            *when = link.st_mtim;
        }
    }
    free(path);
    return rc;
}

/* Whether a writer holds a .writing folder of run `id`: waits for it to
 * let go (it is renaming the folder into place) and says so. */
static bool waited_for_writer(const char *runs, const char *id)
{
    DIR *d = opendir(runs);
    bool waited = false;
    struct dirent *e;
    while (d && !waited && (e = readdir(d))) {
        char wid[KM_RUN_ID_BYTES];
        if (!km_rundir_writing_id(e->d_name, wid) || strcmp(wid, id) != 0)
            continue;
        int fd = openat(dirfd(d), e->d_name, KM_AT_DIR_FLAGS);
        if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0) {
            flock(fd, LOCK_SH);
            waited = true;
        }
        if (fd >= 0)
            close(fd);
    }
    if (d)
        closedir(d);
    return waited;
}

static bool has_result(const char *dir)
{
    char *result = km_path_join(dir, "result.json");
    struct stat st;
    bool ok = result && lstat(result, &st) == 0 && S_ISREG(st.st_mode);
    free(result);
    return ok;
}

/* The newest whole run under runs but `not` (by its result.json's time),
 * for a hint; "" when there is none. */
static void newest_finished(const char *runs, const char *not, char out[KM_RUN_ID_BYTES])
{
    out[0] = 0;
    struct timespec best = {0, 0};
    DIR *d = opendir(runs);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= KM_RUN_ID_BYTES ||
            strcmp(e->d_name, not) == 0 || strcmp(e->d_name, KM_RUNDIR_LATEST) == 0)
            continue;
        char *result = ks_strf("%s/%s/result.json", runs, e->d_name);
        if (!result)
            break; /* only a hint: none, or an older one */
        struct stat st;
        if (lstat(result, &st) == 0 && S_ISREG(st.st_mode) &&
            (!out[0] || st.st_mtim.tv_sec > best.tv_sec ||
             (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec > best.tv_nsec))) {
            memcpy(out, e->d_name, strlen(e->d_name) + 1); /* shorter: checked above */
            best = st.st_mtim;
        }
        free(result);
    }
    if (d)
        closedir(d);
}

/* The interrupted run `id` as an error, with an earlier whole run to read
 * instead when there is one. */
static int interrupted(const char *runs, const char *id, const char *latest, km_error *err)
{
    char earlier[KM_RUN_ID_BYTES] = "";
    char *cand = latest[0] ? km_path_join(runs, latest) : NULL;
    if (cand && strcmp(latest, id) != 0 && has_result(cand))
        snprintf(earlier, sizeof earlier, "%s", latest);
    else
        newest_finished(runs, id, earlier);
    free(cand);
    if (!earlier[0])
        return km_fail(err, KM_EXIT_SYSTEM,
                       "the run '%s' in '%s' was interrupted before its folder was written; "
                       "there is no finished run",
                       id, runs);
    return km_fail(err, KM_EXIT_SYSTEM,
                   "the newest run '%s' in '%s' was interrupted before its folder was written; "
                   "%s (read that one with --run %s)",
                   id, runs,
                   strcmp(earlier, latest) == 0 ? "'latest' is still the run before it"
                                                : "an earlier run is whole",
                   earlier);
}

/* `latest`'s folder, or why it cannot be read. */
static int find_latest(const char *runs, char **dir, km_error *err)
{
    char latest[KM_RUN_ID_BYTES] = "", newer[KM_RUN_ID_BYTES];
    struct timespec link = {0, 0}, when;
    int rc = read_latest(runs, latest, &link, err);
    if (rc > 0)
        return rc;
    /* Newer: its folder changed at or after `latest` was written (file
     * times are coarse: a tie counts as newer, telling rather than
     * hiding). */
    if (km_rundir_interrupted(runs, newer, &when) &&
        (rc != KM_OK || when.tv_sec > link.tv_sec ||
         (when.tv_sec == link.tv_sec && when.tv_nsec >= link.tv_nsec)))
        return interrupted(runs, newer, latest, err);
    if (rc != KM_OK)
        return km_fail(err, KM_EXIT_USAGE,
                       "no run in '%s' yet (run 'kmrun run program.yaml' first, or name one "
                       "with --run)",
                       runs);
    char *cand = km_path_join(runs, latest);
    if (!cand)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory finding the runs in '%s'", runs);
    /* `latest` names no folder: its run died between the two renames of
     * its end, or was swept since; or it is being renamed right now. */
    if (!has_result(cand) && !(waited_for_writer(runs, latest) && has_result(cand))) {
        free(cand);
        return interrupted(runs, latest, latest, err);
    }
    *dir = cand;
    return KM_OK;
}

int km_rundir_find(const char *runs, const char *run, char **dir, km_error *err)
{
    if (!run)
        return find_latest(runs, dir, err);
    char *cand = NULL;
    if (strchr(run, '/'))
        cand = strdup(run);
    else if (km_rundir_plain_name(run))
        cand = km_path_join(runs, run);
    else
        return km_fail(err, KM_EXIT_USAGE, "bad run '%s' (expected a run id or a folder)", run);
    if (!cand)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory finding the run '%s'", run);
    if (!has_result(cand)) {
        free(cand);
        return km_fail(err, KM_EXIT_USAGE,
                       "no run '%s' (expected a run id under '%s', or a run folder)", run, runs);
    }
    *dir = cand;
    return KM_OK;
}

/* A region's file as the run recorded it: a regular file of exactly
 * `size` bytes.  O_NOFOLLOW and O_NONBLOCK so that a link, a FIFO or a
 * device put in its place is refused by fstat, never read (a FIFO would
 * block, /dev/zero never end); the read stops one byte past the size so
 * that a file growing under us is caught too. */
/* Sets the bits of map for the units of bytes [from, to). */
static void mark_units(uint64_t *map, size_t from, size_t to)
{
    for (size_t k = from >> KM_REGION_UNIT_SHIFT; to > from && k <= (to - 1) >> KM_REGION_UNIT_SHIFT;
         k++)
        map[k / 64] |= 1ull << (k % 64);
}

static int read_region_file(int dir, const char *rel, const char *path, uint64_t size,
                            char **data, size_t *n, uint64_t **map, km_error *err)
{
    int fd = km_at_open(dir, rel, O_RDONLY | O_NONBLOCK, 0);
    if (fd < 0)
        return errno == ELOOP
                   ? km_fail(err, KM_EXIT_SYSTEM, "the region file '%s' is not a regular file "
                                                  "(a symbolic link)", path)
                   : km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read the region file '%s'", path);
    struct stat st;
    int rc = KM_OK;
    if (fstat(fd, &st) != 0)
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read the region file '%s'", path);
    else if (!S_ISREG(st.st_mode))
        rc = km_fail(err, KM_EXIT_SYSTEM, "the region file '%s' is not a regular file", path);
    else if ((uint64_t)st.st_size != size || size > SIZE_MAX - 1)
        rc = km_fail(err, KM_EXIT_SYSTEM,
                     "the region file '%s' has %llu bytes, not the %llu regions.json records",
                     path, (unsigned long long)st.st_size, (unsigned long long)size);
    /* calloc: a large one is fresh pages, zero and untouched, so the
     * file's holes (SEEK_HOLE) are skipped and cost nothing. */
    char *buf = rc == KM_OK ? calloc((size_t)size + 1, 1) : NULL;
    uint64_t *units = rc == KM_OK && map ? calloc((size >> KM_REGION_UNIT_SHIFT) / 64 + 1,
                                                  sizeof *units)
                                         : NULL;
    if (rc == KM_OK && (!buf || (map && !units)))
        rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory for the region file '%s' (%llu bytes)",
                     path, (unsigned long long)size);
    size_t len = 0;
    while (rc == KM_OK && len <= size) {
        /* The next data at or after len; none: the rest is a hole. */
        off_t next = len < size ? lseek(fd, (off_t)len, SEEK_DATA) : (off_t)len;
        if (next < 0 && errno == ENXIO)
            next = (off_t)size;
        if (next < 0) {
            rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read the region file '%s'", path);
            break;
        }
        if ((uint64_t)next > len) {
            len = (uint64_t)next > size ? size : (size_t)next;
            continue;
        }
        off_t hole = len < size ? lseek(fd, (off_t)len, SEEK_HOLE) : (off_t)size + 1;
        size_t upto = hole < 0 || (uint64_t)hole > size ? size + 1 : (size_t)hole;
        ssize_t r = pread(fd, buf + len, upto - len, (off_t)len);
        if (r == 0)
            break;
        if (r < 0 && errno != EINTR)
            rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read the region file '%s'", path);
        else if (r > 0) {
            if (units)
                mark_units(units, len, len + (size_t)r < size ? len + (size_t)r : size);
            len += (size_t)r;
        }
    }
    /* Holes skipped, a file cut short under us shows in its size. */
    if (rc == KM_OK && len == size && fstat(fd, &st) == 0 && (uint64_t)st.st_size < size)
        len = (size_t)st.st_size;
    if (rc == KM_OK && len != size)
        rc = km_fail(err, KM_EXIT_SYSTEM,
                     "the region file '%s' changed while read: %s than the %llu bytes "
                     "regions.json records", path, len < size ? "shorter" : "longer",
                     (unsigned long long)size);
    close(fd);
    if (rc != KM_OK) {
        free(buf);
        free(units);
        return rc;
    }
    buf[len] = 0;
    *data = buf;
    if (map)
        *map = units;
    if (n)
        *n = len;
    return KM_OK;
}

static int region_in(int dfd, const char *dir, const char *name, int cluster, char **data,
                     size_t *n, int *cluster_out, uint64_t **map, km_error *err)
{
    char *listing = km_path_join(dir, "regions.json"), *text = NULL;
    if (!listing)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the run '%s'", dir);
    int lfd = km_at_open(dfd, "regions.json", O_RDONLY | O_NONBLOCK, 0);
    int rc = lfd >= 0 ? km_read_fd(lfd, listing, &text, NULL, err)
                      : km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read '%s'", listing);
    if (lfd >= 0)
        close(lfd);
    free(listing);
    if (rc != KM_OK)
        return rc;
    km_json_mark m = km_json_watch();
    cJSON *list = cJSON_Parse(text);
    free(text);
    if (!list && km_json_ran_out(m))
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the run '%s'", dir);
    if (!cJSON_IsArray(list)) {
        cJSON_Delete(list);
        return km_fail(err, KM_EXIT_SYSTEM, "the run '%s' is damaged: regions.json is not a list",
                       dir);
    }
    const cJSON *found = NULL, *r;
    int matches = 0;
    char clusters[64] = "";
    const char *names[64];
    size_t nnames = 0;
    cJSON_ArrayForEach(r, list) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(r, "name");
        const cJSON *cl = cJSON_GetObjectItemCaseSensitive(r, "cluster");
        if (!cJSON_IsString(nm) || !cJSON_IsNumber(cl))
            continue;
        if (nnames < 64)
            names[nnames++] = nm->valuestring;
        if (strcmp(nm->valuestring, name) != 0)
            continue;
        size_t len = strlen(clusters);
        snprintf(clusters + len, sizeof clusters - len, "%s%d", len ? ", " : "", cl->valueint);
        if (cluster == 0 || cl->valueint == cluster) {
            found = r;
            matches++;
        }
    }
    if (!found || (cluster == 0 && matches > 1)) {
        if (found)
            rc = km_fail(err, KM_EXIT_USAGE,
                         "region '%s' has a copy on clusters %s: choose one with --cluster", name,
                         clusters);
        else if (clusters[0])
            rc = km_fail(err, KM_EXIT_USAGE, "region '%s' has no copy on cluster %d (it is on %s)",
                         name, cluster, clusters);
        else {
            const char *close = km_suggest(name, names, nnames);
            rc = close ? km_fail(err, KM_EXIT_USAGE,
                                 "no region '%s' in the run '%s' (did you mean '%s'?)", name, dir,
                                 close)
                       : km_fail(err, KM_EXIT_USAGE, "no region '%s' in the run '%s'", name, dir);
        }
        cJSON_Delete(list);
        return rc;
    }
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(found, "file");
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(found, "cluster");
    char *rel = km_rundir_region_file(cl->valueint, name);
    if (!rel) {
        cJSON_Delete(list);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the run '%s'", dir);
    }
    /* The listing must name the file the layout gives, nothing else. */
    if (!cJSON_IsString(file) || strcmp(file->valuestring, rel) != 0 ||
        !km_rundir_plain_name(name)) {
        free(rel);
        cJSON_Delete(list);
        return km_fail(err, KM_EXIT_SYSTEM, "the run '%s' is damaged: region '%s' has a bad file",
                       dir, name);
    }
    const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(found, "bytes");
    char *path = km_path_join(dir, rel);
    rc = !path ? km_fail(err, KM_EXIT_SYSTEM, "out of memory reading the run '%s'", dir)
         : cJSON_IsNumber(bytes) && bytes->valuedouble >= 0
             ? read_region_file(dfd, rel, path, (uint64_t)bytes->valuedouble, data, n, map, err)
             : km_fail(err, KM_EXIT_SYSTEM,
                       "the run '%s' is damaged: region '%s' has no size in regions.json", dir,
                       name);
    free(path);
    free(rel);
    if (cluster_out)
        *cluster_out = cl->valueint;
    cJSON_Delete(list);
    return rc;
}

int km_rundir_region_mapped(const char *dir, const char *name, int cluster, char **data,
                            size_t *n, int *cluster_out, uint64_t **map, km_error *err)
{
    if (map)
        *map = NULL;
    /* The run's folder as named; below it, nothing through a link. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot open the run '%s'", dir);
    int rc = region_in(dfd, dir, name, cluster, data, n, cluster_out, map, err);
    close(dfd);
    return rc;
}

int km_rundir_region(const char *dir, const char *name, int cluster, char **data,
                     size_t *n, int *cluster_out, km_error *err)
{
    return km_rundir_region_mapped(dir, name, cluster, data, n, cluster_out, NULL, err);
}
