/* Tests for lib/build/km_cache.c and lib/build/cache_admin.c: entries, records,
 * corruption, races, gc and clear, on a cache in a temporary folder; and
 * lib/build/km_hash.c's file hashes, which keys are made of. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "km_cache.h"
#include "km_fs.h"

typedef struct fixture {
    char dir[64];
    km_cache cache;
    int warnings;
    char last_warning[1024];
} fixture;

static void on_warn(const char *message, void *ctx)
{
    fixture *f = ctx;
    f->warnings++;
    snprintf(f->last_warning, sizeof f->last_warning, "%s", message);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/kmrun-cache-test.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    char *root = km_path_join(f->dir, "cache");
    assert_int_equal(km_cache_open(&f->cache, root, NULL), KM_OK);
    free(root);
    f->cache.warn = on_warn;
    f->cache.warn_ctx = f;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    km_cache_close(&f->cache);
    km_rm_rf(f->dir);
    free(f);
    return 0;
}

/* A new handle on the same cache: the old one's pins are gone. */
static void reopen(fixture *f)
{
    km_cache_close(&f->cache);
    char *root = km_path_join(f->dir, "cache");
    assert_int_equal(km_cache_open(&f->cache, root, NULL), KM_OK);
    free(root);
    f->cache.warn = on_warn;
    f->cache.warn_ctx = f;
}

static km_digest key_of(const char *s)
{
    km_hasher h;
    km_digest d;
    km_hasher_init(&h);
    km_hasher_str(&h, s);
    km_hasher_final(&h, &d);
    return d;
}

/* Stores a one-file entry holding `content` under key_of(name). */
static char *put(fixture *f, const char *name, const char *content)
{
    char *src = km_path_join(f->dir, "payload");
    assert_int_equal(km_write_file_atomic(src, content, strlen(content), NULL), KM_OK);
    km_cache_file file = {.name = "image.elf", .path = src};
    cJSON *meta = cJSON_CreateObject();
    cJSON_AddNumberToObject(meta, "bytes", 42);
    km_digest k = key_of(name);
    char *dir = NULL;
    km_error err = {0};
    assert_int_equal(km_cache_put(&f->cache, &k, &file, 1, meta, &dir, &err), KM_OK);
    cJSON_Delete(meta);
    free(src);
    return dir;
}

static void put_then_get(void **state)
{
    fixture *f = *state;
    char *dir = put(f, "a", "image bytes");
    km_digest k = key_of("a");
    char *got = NULL;
    cJSON *meta = NULL;
    assert_int_equal(km_cache_get(&f->cache, &k, &got, &meta, NULL), KM_OK);
    assert_string_equal(got, dir);
    assert_int_equal(cJSON_GetObjectItem(meta, "bytes")->valueint, 42);
    char *file = km_path_join(got, "image.elf"), *text = NULL;
    assert_int_equal(km_read_file(file, &text, NULL, NULL), KM_OK);
    assert_string_equal(text, "image bytes");
    assert_int_equal(f->warnings, 0);
    free(text);
    free(file);
    free(got);
    free(dir);
    cJSON_Delete(meta);
}

static void unknown_key_misses(void **state)
{
    fixture *f = *state;
    km_digest k = key_of("never stored");
    assert_int_equal(km_cache_get(&f->cache, &k, NULL, NULL, NULL), KM_CACHE_MISS);
    assert_int_equal(f->warnings, 0);
}

static void corrupt_file_is_a_miss_with_a_warning(void **state)
{
    fixture *f = *state;
    char *dir = put(f, "b", "original");
    char *file = km_path_join(dir, "image.elf");
    FILE *fp = fopen(file, "r+");
    fputc('X', fp);
    fclose(fp);
    km_digest k = key_of("b");
    assert_int_equal(km_cache_get(&f->cache, &k, NULL, NULL, NULL), KM_CACHE_MISS);
    assert_int_equal(f->warnings, 1);
    assert_non_null(strstr(f->last_warning, "'image.elf' does not match its checksum"));
    assert_int_not_equal(access(dir, F_OK), 0); /* removed */
    free(file);
    free(dir);
}

static void damaged_entry_json_is_a_miss(void **state)
{
    fixture *f = *state;
    char *dir = put(f, "c", "x");
    char *ej = km_path_join(dir, "entry.json");
    assert_int_equal(truncate(ej, 10), 0);
    km_digest k = key_of("c");
    assert_int_equal(km_cache_get(&f->cache, &k, NULL, NULL, NULL), KM_CACHE_MISS);
    assert_non_null(strstr(f->last_warning, "entry.json is damaged"));
    free(ej);
    free(dir);
}

static void second_writer_keeps_the_first_entry(void **state)
{
    fixture *f = *state;
    char *a = put(f, "d", "same");
    char *b = put(f, "d", "same");
    assert_string_equal(a, b);
    km_cache_stats s;
    assert_int_equal(km_cache_stats_get(&f->cache, &s, NULL), KM_OK);
    assert_int_equal(s.entries, 1);
    free(a);
    free(b);
}

static void writer_replaces_a_corrupt_entry(void **state)
{
    fixture *f = *state;
    char *dir = put(f, "e", "good");
    char *file = km_path_join(dir, "image.elf");
    assert_int_equal(truncate(file, 1), 0);
    free(put(f, "e", "good"));
    km_digest k = key_of("e");
    assert_int_equal(km_cache_get(&f->cache, &k, NULL, NULL, NULL), KM_OK);
    free(file);
    free(dir);
}

static void records_round_trip(void **state)
{
    fixture *f = *state;
    km_digest k = key_of("record");
    char *text = NULL;
    assert_int_equal(km_cache_record_get(&f->cache, &k, &text), KM_CACHE_MISS);
    assert_int_equal(km_cache_record_put(&f->cache, &k, "line one\n", NULL), KM_OK);
    assert_int_equal(km_cache_record_get(&f->cache, &k, &text), KM_OK);
    assert_string_equal(text, "line one\n");
    free(text);
}

static void gc_removes_least_recently_used_first(void **state)
{
    fixture *f = *state;
    char *old_dir = put(f, "old", "0123456789");
    free(put(f, "new", "0123456789"));
    /* Last used an hour ago: an entry's use time is its entry.json's. */
    char *ej = km_path_join(old_dir, "entry.json");
    struct timespec ago[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
    assert_int_equal(utimensat(AT_FDCWD, ej, ago, 0), 0);
    free(ej);
    free(old_dir);
    km_cache_stats s;
    km_cache_stats_get(&f->cache, &s, NULL);
    assert_int_equal(s.entries, 2);
    reopen(f); /* this handle's own entries are pinned until it closes */
    uint64_t removed = 0, kept = 0;
    assert_int_equal(km_cache_gc(&f->cache, s.entry_bytes - 1, &removed, &kept, NULL), KM_OK);
    assert_int_equal(removed, 1);
    assert_int_equal(kept, 0);
    km_digest old = key_of("old"), young = key_of("new");
    assert_int_equal(km_cache_get(&f->cache, &old, NULL, NULL, NULL), KM_CACHE_MISS);
    assert_int_equal(km_cache_get(&f->cache, &young, NULL, NULL, NULL), KM_OK);
}

static void counters_add_up_and_clear_empties(void **state)
{
    fixture *f = *state;
    km_cache_count(&f->cache, 2, 1);
    km_cache_count(&f->cache, 1, 0);
    free(put(f, "z", "zz"));
    km_cache_stats s;
    km_cache_stats_get(&f->cache, &s, NULL);
    assert_int_equal(s.hits, 3);
    assert_int_equal(s.misses, 1);
    reopen(f);
    assert_int_equal(km_cache_clear(&f->cache, NULL, NULL), KM_OK);
    km_cache_stats_get(&f->cache, &s, NULL);
    assert_int_equal(s.entries, 0);
    assert_int_equal(s.hits, 0);
}

/* Another process's run or build has the entry pinned: gc and clear leave
 * it, whatever the size asked for, and say so. */
static void gc_and_clear_keep_an_entry_in_use(void **state)
{
    fixture *f = *state;
    free(put(f, "used", "0123456789"));
    km_cache other;
    char *root = km_path_join(f->dir, "cache");
    assert_int_equal(km_cache_open(&other, root, NULL), KM_OK);
    km_digest k = key_of("used");
    char *dir = NULL;
    assert_int_equal(km_cache_get(&other, &k, &dir, NULL, NULL), KM_OK);
    reopen(f);
    uint64_t removed = 9, kept = 0;
    assert_int_equal(km_cache_gc(&f->cache, 0, &removed, &kept, NULL), KM_OK);
    assert_int_equal(removed, 0);
    assert_int_equal(kept, 1);
    assert_int_equal(km_cache_clear(&f->cache, &kept, NULL), KM_OK);
    assert_int_equal(kept, 1);
    char *file = km_path_join(dir, "image.elf");
    assert_int_equal(access(file, R_OK), 0);
    /* Once the user lets go, it can go. */
    km_cache_close(&other);
    assert_int_equal(km_cache_gc(&f->cache, 0, &removed, &kept, NULL), KM_OK);
    assert_int_equal(removed, 1);
    assert_int_equal(kept, 0);
    assert_int_not_equal(access(file, F_OK), 0);
    free(file);
    free(dir);
    free(root);
}

static void gc_of_an_empty_cache_removes_nothing(void **state)
{
    fixture *f = *state;
    uint64_t removed = 9, kept = 9;
    assert_int_equal(km_cache_gc(&f->cache, 0, &removed, &kept, NULL), KM_OK);
    assert_int_equal(removed, 0);
    assert_int_equal(kept, 0);
}

/* A folder outside the cache with a file in it, and `name` under the
 * cache's root replaced by a link to it. */
static char *plant_link(fixture *f, const char *name)
{
    char *victim = km_path_join(f->dir, "victim");
    char *keep = km_path_join(victim, "keep.txt");
    assert_int_equal(km_mkdir_p(victim, NULL), KM_OK);
    assert_int_equal(km_write_file_atomic(keep, "mine", 4, NULL), KM_OK);
    char *at = NULL;
    assert_true(asprintf(&at, "%s/cache/%s", f->dir, name) > 0);
    assert_int_equal(km_rm_rf(at), 0);
    assert_int_equal(symlink(victim, at), 0);
    free(at);
    free(victim);
    return keep;
}

static void gc_refuses_a_planted_tmp_link_and_removes_nothing_outside(void **state)
{
    fixture *f = *state;
    char *keep = plant_link(f, "tmp");
    km_error err = {0};
    uint64_t removed = 0;
    assert_int_equal(km_cache_gc(&f->cache, 0, &removed, NULL, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "/cache/tmp' is a symbolic link"));
    assert_int_equal(km_cache_clear(&f->cache, NULL, &err), KM_EXIT_SYSTEM);
    assert_int_equal(access(keep, R_OK), 0);
    /* Opening the cache names it too. */
    km_cache again;
    char *root = km_path_join(f->dir, "cache");
    assert_int_equal(km_cache_open(&again, root, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "/cache/tmp' is a symbolic link"));
    free(root);
    free(keep);
}

static void a_planted_shard_link_is_refused_not_followed(void **state)
{
    fixture *f = *state;
    km_digest k = key_of("shard");
    char hex[KM_HEX_LEN], name[16];
    km_digest_hex(&k, hex);
    snprintf(name, sizeof name, "objects/%.2s", hex);
    char *keep = plant_link(f, name);
    km_error err = {0};
    assert_int_equal(km_cache_get(&f->cache, &k, NULL, NULL, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "is a symbolic link"));
    assert_non_null(strstr(err.message, name));
    char *src = km_path_join(f->dir, "payload");
    assert_int_equal(km_write_file_atomic(src, "x", 1, NULL), KM_OK);
    km_cache_file file = {.name = "image.elf", .path = src};
    assert_int_equal(km_cache_put(&f->cache, &k, &file, 1, NULL, NULL, &err), KM_EXIT_SYSTEM);
    uint64_t removed;
    assert_int_equal(km_cache_gc(&f->cache, 0, &removed, NULL, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, name));
    /* Nothing was written into, or removed from, the link's target. */
    char *victim = km_dirname(keep), *list = NULL;
    assert_true(asprintf(&list, "ls -A '%s' | wc -l | grep -qx 1", victim) > 0);
    assert_int_equal(system(list), 0);
    free(list);
    free(victim);
    free(src);
    free(keep);
}

/* An entry that is a link (to a folder that would pass) is never used,
 * and removing it removes the link only. */
static void an_entry_that_is_a_link_is_removed_as_itself(void **state)
{
    fixture *f = *state;
    char *real = put(f, "real", "abc");
    km_digest k = key_of("linked"), r = key_of("real");
    char hex[KM_HEX_LEN], name[80];
    km_digest_hex(&k, hex);
    snprintf(name, sizeof name, "objects/%.2s/%s", hex, hex + 2);
    char *at = NULL, *parent = NULL;
    assert_true(asprintf(&at, "%s/cache/%s", f->dir, name) > 0);
    parent = km_dirname(at);
    assert_int_equal(km_mkdir_p(parent, NULL), KM_OK);
    assert_int_equal(symlink(real, at), 0);
    assert_int_equal(km_cache_get(&f->cache, &k, NULL, NULL, NULL), KM_CACHE_MISS);
    struct stat st;
    assert_int_not_equal(lstat(at, &st), 0);
    reopen(f);
    assert_int_equal(km_cache_get(&f->cache, &r, NULL, NULL, NULL), KM_OK);
    free(parent);
    free(at);
    free(real);
}

/* A text file's hash is km_hash_file's; a NUL byte is found wherever it
 * is, past the first read too, and ends the reading there. */
static void a_text_hash_finds_the_first_nul(void **state)
{
    fixture *f = *state;
    size_t n = 200000;
    char *bytes = malloc(n);
    memset(bytes, 'c', n);
    char *path = km_path_join(f->dir, "source.c");
    assert_int_equal(km_write_file_atomic(path, bytes, n, NULL), KM_OK);
    km_digest whole, text;
    long long nul = 0;
    assert_int_equal(km_hash_file(path, &whole, NULL), KM_OK);
    assert_int_equal(km_hash_text_file(path, &text, &nul, NULL), KM_OK);
    assert_int_equal(nul, -1);
    assert_memory_equal(whole.b, text.b, sizeof whole.b);
    bytes[70000] = 0;
    bytes[150000] = 0;
    assert_int_equal(km_write_file_atomic(path, bytes, n, NULL), KM_OK);
    assert_int_equal(km_hash_text_file(path, &text, &nul, NULL), KM_OK);
    assert_int_equal(nul, 70000);
    km_error err = {0};
    char *missing = km_path_join(f->dir, "missing.c");
    assert_int_equal(km_hash_text_file(missing, &text, &nul, &err), KM_EXIT_SYSTEM);
    assert_non_null(strstr(err.message, "missing.c"));
    free(missing);
    free(path);
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(put_then_get, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_key_misses, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_file_is_a_miss_with_a_warning, setup, teardown),
        cmocka_unit_test_setup_teardown(damaged_entry_json_is_a_miss, setup, teardown),
        cmocka_unit_test_setup_teardown(second_writer_keeps_the_first_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(writer_replaces_a_corrupt_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(records_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(gc_removes_least_recently_used_first, setup, teardown),
        cmocka_unit_test_setup_teardown(counters_add_up_and_clear_empties, setup, teardown),
        cmocka_unit_test_setup_teardown(gc_and_clear_keep_an_entry_in_use, setup, teardown),
        cmocka_unit_test_setup_teardown(gc_of_an_empty_cache_removes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(gc_refuses_a_planted_tmp_link_and_removes_nothing_outside,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_planted_shard_link_is_refused_not_followed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_entry_that_is_a_link_is_removed_as_itself, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_text_hash_finds_the_first_nul, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
