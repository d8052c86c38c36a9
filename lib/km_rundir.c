/* km_rundir: finding a run again and reading its regions back, checked
 * against its own record (km_rundir.h); km_rundir_write.c writes runs. */
#include "km_rundir.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "km_fs.h"
#include "km_rundir_names.h"
#include "km_suggest.h"


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
    char *p = NULL;
    if (asprintf(&p, "regions/cluster%d/%s.bin", cluster, name) < 0)
        abort();
    return p;
}

int km_rundir_find(const char *runs, const char *run, char **dir, km_error *err)
{
    char *cand = NULL;
    if (!run) {
        cand = km_path_join(runs, KM_RUNDIR_LATEST);
    } else if (strchr(run, '/')) {
        cand = strdup(run);
    } else if (km_rundir_plain_name(run)) {
        cand = km_path_join(runs, run);
    } else {
        return km_fail(err, KM_EXIT_USAGE, "bad run '%s' (expected a run id or a folder)", run);
    }
    char newer[KM_RUN_ID_BYTES];
    struct timespec when;
    if (!run && km_rundir_interrupted(runs, newer, &when)) {
        /* Newer: its folder changed at or after `latest` was written (file
         * times are coarse: a tie counts as newer, telling rather than
         * hiding). */
        char latest[KM_RUN_ID_BYTES] = "";
        struct stat link;
        ssize_t len = readlink(cand, latest, sizeof latest - 1);
        latest[len > 0 ? len : 0] = 0;
        if (!latest[0] || lstat(cand, &link) != 0 || when.tv_sec > link.st_mtim.tv_sec ||
            (when.tv_sec == link.st_mtim.tv_sec && when.tv_nsec >= link.st_mtim.tv_nsec)) {
            int rc = latest[0]
                         ? km_fail(err, KM_EXIT_SYSTEM,
                                   "the newest run '%s' in '%s' was interrupted before its "
                                   "folder was written; 'latest' is still the run before it "
                                   "(read that one with --run %s)",
                                   newer, runs, latest)
                         : km_fail(err, KM_EXIT_SYSTEM,
                                   "the run '%s' in '%s' was interrupted before its folder was "
                                   "written; there is no finished run",
                                   newer, runs);
            free(cand);
            return rc;
        }
    }
    char *result = km_path_join(cand, "result.json");
    struct stat st;
    int ok = stat(result, &st) == 0 && S_ISREG(st.st_mode);
    free(result);
    if (!ok) {
        int rc = run ? km_fail(err, KM_EXIT_USAGE,
                               "no run '%s' (expected a run id under '%s', or a run folder)",
                               run, runs)
                     : km_fail(err, KM_EXIT_USAGE,
                               "no run in '%s' yet (run 'kmrun run program.yaml' first, or "
                               "name one with --run)",
                               runs);
        free(cand);
        return rc;
    }
    *dir = cand;
    return KM_OK;
}

/* A region's file as the run recorded it: a regular file of exactly
 * `size` bytes.  O_NOFOLLOW and O_NONBLOCK so that a link, a FIFO or a
 * device put in its place is refused by fstat, never read (a FIFO would
 * block, /dev/zero never end); the read stops one byte past the size so
 * that a file growing under us is caught too. */
static int read_region_file(const char *path, uint64_t size, char **data, size_t *n,
                            km_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
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
    char *buf = rc == KM_OK ? malloc((size_t)size + 1) : NULL;
    size_t len = 0;
    while (rc == KM_OK && len <= size) {
        ssize_t r = read(fd, buf + len, (size_t)size + 1 - len);
        if (r == 0)
            break;
        if (r < 0 && errno != EINTR)
            rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read the region file '%s'", path);
        else if (r > 0)
            len += (size_t)r;
    }
    if (rc == KM_OK && len != size)
        rc = km_fail(err, KM_EXIT_SYSTEM,
                     "the region file '%s' changed while read: %s than the %llu bytes "
                     "regions.json records", path, len < size ? "shorter" : "longer",
                     (unsigned long long)size);
    close(fd);
    if (rc != KM_OK) {
        free(buf);
        return rc;
    }
    buf[len] = 0;
    *data = buf;
    if (n)
        *n = len;
    return KM_OK;
}

int km_rundir_region(const char *dir, const char *name, int cluster, char **data,
                     size_t *n, int *cluster_out, km_error *err)
{
    char *listing = km_path_join(dir, "regions.json"), *text = NULL;
    int rc = km_read_file(listing, &text, NULL, err);
    free(listing);
    if (rc != KM_OK)
        return rc;
    cJSON *list = cJSON_Parse(text);
    free(text);
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
    rc = cJSON_IsNumber(bytes) && bytes->valuedouble >= 0
             ? read_region_file(path, (uint64_t)bytes->valuedouble, data, n, err)
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
