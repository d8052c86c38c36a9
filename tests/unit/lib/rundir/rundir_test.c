/* Tests for lib/rundir/km_rundir.c: writing a run, `latest`, finding regions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_fs.h"
#include "km_rundir.h"

static char root[64];

static int setup(void **state)
{
    (void)state;
    strcpy(root, "/tmp/kmrun-rundir-test.XXXXXX");
    assert_non_null(mkdtemp(root));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    km_rm_rf(root);
    return 0;
}

static const uint32_t counts[4] = {1, 2, 3, 4};
static const uint32_t data2[2] = {20, 21}, data3[2] = {30, 31};

static char *write_run(const char *id)
{
    km_region_copy regions[] = {
        {"counts", 1, 6, 0x1000, counts, sizeof counts, NULL},
        {"data", 2, 7, 0x2000, data2, sizeof data2, NULL},
        {"data", 3, 7, 0x2000, data3, sizeof data3, NULL},
    };
    char *path = NULL;
    km_error err = {0};
    assert_int_equal(km_rundir_write(root, id, "{\"ok\": true}\n", regions, 3, &path, &err), KM_OK);
    return path;
}

static void write_then_read(void **state)
{
    (void)state;
    char *path = write_run("run-a");
    char *dir = NULL, *data = NULL;
    size_t n = 0;
    int cluster = 0;
    km_error err = {0};
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_OK);
    assert_int_equal(km_rundir_region(dir, "counts", 0, &data, &n, &cluster, &err), KM_OK);
    assert_int_equal(n, sizeof counts);
    assert_memory_equal(data, counts, sizeof counts);
    assert_int_equal(cluster, 1);
    free(data);
    assert_int_equal(km_rundir_region(dir, "data", 3, &data, &n, &cluster, &err), KM_OK);
    assert_memory_equal(data, data3, sizeof data3);
    free(data);
    free(dir);
    free(path);
}

static void latest_follows_the_newest(void **state)
{
    (void)state;
    free(write_run("run-a"));
    free(write_run("run-b"));
    char link[PATH_MAX] = "", *latest = km_path_join(root, "latest");
    assert_true(readlink(latest, link, sizeof link - 1) > 0);
    assert_string_equal(link, "run-b");
    free(latest);
    char *dir = NULL;
    km_error err = {0};
    assert_int_equal(km_rundir_find(root, "run-a", &dir, &err), KM_OK);
    free(dir);
}

static void errors_say_what_and_where(void **state)
{
    (void)state;
    char *dir = NULL, *data = NULL;
    size_t n;
    km_error err = {0};
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_EXIT_USAGE);
    assert_non_null(strstr(err.message, "no run in"));
    free(write_run("run-a"));
    assert_int_equal(km_rundir_find(root, "run-z", &dir, &err), KM_EXIT_USAGE);
    assert_non_null(strstr(err.message, "no run 'run-z'"));
    assert_int_equal(km_rundir_find(root, "..", &dir, &err), KM_EXIT_USAGE);
    assert_int_equal(km_rundir_find(root, "run-a", &dir, &err), KM_OK);
    assert_int_equal(km_rundir_region(dir, "data", 0, &data, &n, NULL, &err), KM_EXIT_USAGE);
    assert_non_null(strstr(err.message, "has a copy on clusters 2, 3: choose one with --cluster"));
    assert_int_equal(km_rundir_region(dir, "data", 1, &data, &n, NULL, &err), KM_EXIT_USAGE);
    assert_non_null(strstr(err.message, "region 'data' has no copy on cluster 1 (it is on 2, 3)"));
    assert_int_equal(km_rundir_region(dir, "cuonts", 0, &data, &n, NULL, &err), KM_EXIT_USAGE);
    assert_non_null(strstr(err.message, "(did you mean 'counts'?)"));
    assert_int_equal(km_rundir_region(dir, "../../etc/passwd", 0, &data, &n, NULL, &err),
                     KM_EXIT_USAGE);
    free(dir);
}

static void bad_names_are_refused_when_writing(void **state)
{
    (void)state;
    km_region_copy bad = {"../x", 1, 6, 0, counts, 4, NULL};
    km_error err = {0};
    assert_int_not_equal(km_rundir_write(root, "run-x", "{}", &bad, 1, NULL, &err), KM_OK);
    assert_int_not_equal(km_rundir_write(root, "../up", "{}", NULL, 0, NULL, &err), KM_OK);
    char *runx = km_path_join(root, "run-x");
    assert_int_not_equal(access(runx, F_OK), 0); /* nothing half-written is left */
    free(runx);
}

/* A region of zeros is a sparse file: little room on disk, the same
 * bytes back, its size exact; data between holes is kept. */
static void zero_regions_are_sparse_files(void **state)
{
    (void)state;
    size_t size = 8u << 20;
    unsigned char *zeros = calloc(1, size);
    zeros[5u << 20] = 0x5a;
    zeros[size - 1] = 0xa5;
    km_region_copy big = {"big", 1, 6, 0, zeros, size, NULL};
    char *path = NULL, *data = NULL;
    size_t n = 0;
    km_error err = {0};
    assert_int_equal(km_rundir_write(root, "run-s", "{}", &big, 1, &path, &err), KM_OK);
    char *file = km_path_join(path, "regions/cluster1/big.bin");
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal((size_t)st.st_size, size);
    assert_true((uint64_t)st.st_blocks * 512 <= 64u << 10);
    assert_int_equal(km_rundir_region(path, "big", 1, &data, &n, NULL, &err), KM_OK);
    assert_int_equal(n, size);
    assert_memory_equal(data, zeros, size);
    free(data);
    free(file);
    free(path);
    free(zeros);
}

/* A copy's data map (km_region_copy.data): units outside it are never
 * read (here they cannot be: no access), and are holes in the file; the
 * units inside are written, their zero blocks as holes too. */
static void units_outside_the_data_map_are_never_read(void **state)
{
    (void)state;
    size_t size = 4u * KM_REGION_UNIT + 100; /* a last unit cut short */
    unsigned char *m = mmap(NULL, 5u * KM_REGION_UNIT, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    m[KM_REGION_UNIT + 7] = 0x11;
    m[4u * KM_REGION_UNIT + 99] = 0x22;
    assert_int_equal(mprotect(m + 2u * KM_REGION_UNIT, 2u * KM_REGION_UNIT, PROT_NONE), 0);
    uint64_t data[1] = {(1u << 0) | (1u << 1) | (1u << 4)}; /* units 0, 1, 4 */
    km_region_copy r = {"mapped", 1, 6, 0, m, size, data};
    char *path = NULL, *back = NULL;
    size_t n = 0;
    km_error err = {0};
    assert_int_equal(km_rundir_write(root, "run-m", "{}", &r, 1, &path, &err), KM_OK);
    char *file = km_path_join(path, "regions/cluster1/mapped.bin");
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal((size_t)st.st_size, size);
    assert_int_equal(km_rundir_region(path, "mapped", 1, &back, &n, NULL, &err), KM_OK);
    assert_int_equal(n, size);
    for (size_t i = 0; i < size; i++)
        assert_int_equal((unsigned char)back[i], i == KM_REGION_UNIT + 7         ? 0x11
                                                 : i == 4u * KM_REGION_UNIT + 99 ? 0x22
                                                                                 : 0);
    free(back);
    free(file);
    free(path);
    munmap(m, 5u * KM_REGION_UNIT);
}

/* A .writing folder as a writer leaves it (with a file in it); its fd
 * holding the lock when `live`, as a running kmrun would. */
static int writing_folder(const char *name, int live)
{
    char *dir = km_path_join(root, name), *file = km_path_join(dir, "result.json");
    km_error err = {0};
    assert_int_equal(km_mkdir_p(dir, &err), KM_OK);
    assert_int_equal(km_write_file_atomic(file, "{}", 2, &err), KM_OK);
    int fd = -1;
    if (live) {
        fd = open(dir, O_RDONLY | O_DIRECTORY);
        assert_true(fd >= 0);
        assert_int_equal(flock(fd, LOCK_EX), 0);
    }
    free(file);
    free(dir);
    return fd;
}

static int exists(const char *name)
{
    char *p = km_path_join(root, name);
    int ok = access(p, F_OK) == 0;
    free(p);
    return ok;
}

static void interrupted_folders_are_removed_never_a_live_one(void **state)
{
    (void)state;
    writing_folder(".writing.run-0.abc123", 0);
    int live = writing_folder(".writing.run-1.def456", 1);
    free(write_run("run-a"));
    assert_false(exists(".writing.run-0.abc123"));
    assert_true(exists(".writing.run-1.def456"));
    assert_true(exists("run-a"));
    close(live); /* its writer is gone: the next run removes it */
    free(write_run("run-b"));
    assert_false(exists(".writing.run-1.def456"));
}

static void latest_is_refused_when_a_newer_run_was_interrupted(void **state)
{
    (void)state;
    char *dir = NULL;
    km_error err = {0};
    free(write_run("run-a"));
    writing_folder(".writing.run-0.abc123", 0);
    char *old = km_path_join(root, ".writing.run-0.abc123");
    struct timespec past[2] = {{1000000000, 0}, {1000000000, 0}};
    assert_int_equal(utimensat(AT_FDCWD, old, past, 0), 0); /* it died before run-a */
    free(old);
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_OK);
    free(dir);
    int live = writing_folder(".writing.run-c.aaaaaa", 1); /* still being written */
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_OK);
    free(dir);
    writing_folder(".writing.run-b.abcdef", 0);
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "the newest run 'run-b' in"));
    assert_non_null(strstr(err.message, "(read that one with --run run-a)"));
    assert_int_equal(km_rundir_find(root, "run-a", &dir, &err), KM_OK);
    free(dir);
    close(live);
}

/* Killed between pointing `latest` at its id and renaming its folder: the
 * run is read as interrupted, before and after its folder is swept. */
static void a_run_killed_between_latest_and_its_folder_is_interrupted(void **state)
{
    (void)state;
    char *dir = NULL;
    km_error err = {0};
    free(write_run("run-a"));
    writing_folder(".writing.run-b.abcdef", 0);
    char *latest = km_path_join(root, "latest");
    assert_int_equal(unlink(latest), 0);
    assert_int_equal(symlink("run-b", latest), 0);
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "the newest run 'run-b' in"));
    assert_non_null(strstr(err.message, "interrupted"));
    assert_non_null(strstr(err.message, "--run run-a"));
    km_rundir_sweep(root);
    assert_false(exists(".writing.run-b.abcdef"));
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "the newest run 'run-b' in"));
    assert_non_null(strstr(err.message, "--run run-a"));
    free(latest);
}

/* A dead run newer than `latest`, swept: `latest` is left naming it. */
static void a_swept_newer_run_leaves_latest_naming_it(void **state)
{
    (void)state;
    char *dir = NULL;
    km_error err = {0};
    free(write_run("run-a"));
    sleep(1); /* file times: the dead run's folder is newer than `latest` */
    writing_folder(".writing.run-b.abcdef", 0);
    km_rundir_sweep(root);
    assert_false(exists(".writing.run-b.abcdef"));
    char target[64] = "";
    char *latest = km_path_join(root, "latest");
    assert_int_equal(readlink(latest, target, sizeof target - 1), 5);
    assert_string_equal(target, "run-b");
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "interrupted"));
    /* An older dead run does not move it. */
    free(write_run("run-c"));
    writing_folder(".writing.run-0.aaaaaa", 0);
    char *old = km_path_join(root, ".writing.run-0.aaaaaa");
    struct timespec past[2] = {{1000000000, 0}, {1000000000, 0}};
    assert_int_equal(utimensat(AT_FDCWD, old, past, 0), 0);
    km_rundir_sweep(root);
    assert_int_equal(readlink(latest, target, sizeof target - 1), 5);
    assert_string_equal(target, "run-c");
    free(old);
    free(latest);
}

static void latest_that_is_not_a_link_to_a_run_id_is_refused(void **state)
{
    (void)state;
    char *dir = NULL;
    km_error err = {0};
    free(write_run("run-a"));
    char *latest = km_path_join(root, "latest");
    assert_int_equal(unlink(latest), 0);
    assert_int_equal(symlink("/etc", latest), 0);
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "points to '/etc', not to a run id"));
    assert_int_equal(unlink(latest), 0);
    assert_int_equal(mkdir(latest, 0755), 0);
    assert_int_equal(km_rundir_find(root, NULL, &dir, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "is not kmrun's link to a run"));
    free(latest);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(write_then_read, setup, teardown),
        cmocka_unit_test_setup_teardown(latest_follows_the_newest, setup, teardown),
        cmocka_unit_test_setup_teardown(errors_say_what_and_where, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_names_are_refused_when_writing, setup, teardown),
        cmocka_unit_test_setup_teardown(zero_regions_are_sparse_files, setup, teardown),
        cmocka_unit_test_setup_teardown(units_outside_the_data_map_are_never_read, setup, teardown),
        cmocka_unit_test_setup_teardown(interrupted_folders_are_removed_never_a_live_one, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(latest_is_refused_when_a_newer_run_was_interrupted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_run_killed_between_latest_and_its_folder_is_interrupted,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_swept_newer_run_leaves_latest_naming_it, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(latest_that_is_not_a_link_to_a_run_id_is_refused, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
