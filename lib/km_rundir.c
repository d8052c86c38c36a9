/* km_rundir: writing a run's results and regions, finding them again
 * (km_rundir.h). */
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
#include "km_suggest.h"

#define LATEST "latest"

char *km_runs_root(const char *run_dir_option)
{
    if (run_dir_option && *run_dir_option)
        return strdup(run_dir_option);
    const char *env = getenv("KMRUN_RUNS");
    return strdup(env && *env ? env : ".kmrun/runs");
}

void km_run_id(char out[32])
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
    snprintf(out, 32, "%s-%02x%02x%02x", stamp, r[0], r[1], r[2]);
}

/* A run id or region name is a plain name: it can never climb out. */
static int plain_name(const char *s)
{
    if (!*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return 0;
    for (; *s; s++)
        if (*s == '/' || *s == '\\' || (unsigned char)*s < 0x20)
            return 0;
    return 1;
}

static char *region_file(int cluster, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "regions/cluster%d/%s.bin", cluster, name) < 0)
        abort();
    return p;
}

int km_rundir_write(const char *runs, const char *id, const char *result_json,
                    const km_region_copy *regions, size_t nregions, char **path,
                    km_error *err)
{
    if (!plain_name(id))
        return km_fail(err, KM_EXIT_INTERNAL, "bad run id '%s'", id);
    int rc = km_mkdir_p(runs, err);
    if (rc != KM_OK)
        return rc;
    char *tmp = NULL;
    if (asprintf(&tmp, "%s/.writing.%s.XXXXXX", runs, id) < 0)
        abort();
    if (!mkdtemp(tmp)) {
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write the run folder in '%s'", runs);
        free(tmp);
        return rc;
    }
    chmod(tmp, 0755);
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; rc == KM_OK && i < nregions; i++) {
        const km_region_copy *r = &regions[i];
        if (!plain_name(r->name)) {
            rc = km_fail(err, KM_EXIT_INTERNAL, "bad region name '%s'", r->name);
            break;
        }
        char *rel = region_file(r->cluster, r->name);
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
    if (rc == KM_OK) {
        char *file = km_path_join(tmp, "result.json");
        rc = km_write_file_atomic(file, result_json, strlen(result_json), err);
        free(file);
    }
    char *final = km_path_join(runs, id);
    if (rc == KM_OK && rename(tmp, final) != 0)
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot write the run folder '%s'", final);
    if (rc != KM_OK) {
        km_rm_rf(tmp);
        free(tmp);
        free(final);
        return rc;
    }
    free(tmp);
    /* latest: a new link beside it, renamed over the old one. */
    char *link_tmp = NULL, *latest = km_path_join(runs, LATEST);
    if (asprintf(&link_tmp, "%s/.latest.%s", runs, id) < 0)
        abort();
    unlink(link_tmp);
    if (symlink(id, link_tmp) != 0 || rename(link_tmp, latest) != 0) {
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot point '%s' at the run", latest);
        unlink(link_tmp);
    }
    free(link_tmp);
    free(latest);
    if (rc == KM_OK && path)
        *path = final;
    else
        free(final);
    return rc;
}

int km_rundir_find(const char *runs, const char *run, char **dir, km_error *err)
{
    char *cand = NULL;
    if (!run) {
        cand = km_path_join(runs, LATEST);
    } else if (strchr(run, '/')) {
        cand = strdup(run);
    } else if (plain_name(run)) {
        cand = km_path_join(runs, run);
    } else {
        return km_fail(err, KM_EXIT_USAGE, "bad run '%s' (expected a run id or a folder)", run);
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
    char *rel = region_file(cl->valueint, name);
    /* The listing must name the file the layout gives, nothing else. */
    if (!cJSON_IsString(file) || strcmp(file->valuestring, rel) != 0 || !plain_name(name)) {
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
