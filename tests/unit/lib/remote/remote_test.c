/* Tests for lib/remote/: the URL and its attributes, where the URL is
 * configured, envelopes packed and every refusal of a bad one, and a
 * refusing server's failures turning the remote off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "km_fs.h"
#include "km_remote.h"

#define KEY "6bb3c475d935ab0b839055380de45dd3f27bb136079307f1ada93433a2843ee6"
#define OTHER "5c85b44a867c45bb993bf4dd1a92ce7f3072460d1fd6c52ed618543a8088183a"

static km_remote *opened(const char *url)
{
    km_remote *r = NULL;
    km_error e = {0};
    int rc = km_remote_open(url, &r, &e);
    if (rc != KM_OK)
        fail_msg("'%s': %s", url, e.message);
    return r;
}

static void refused_url(const char *url, const char *why)
{
    km_remote *r = NULL;
    km_error e = {0};
    assert_int_equal(km_remote_open(url, &r, &e), KM_EXIT_USAGE);
    assert_null(r);
    if (!strstr(e.message, why))
        fail_msg("'%s': '%s' does not say '%s'", url, e.message, why);
}

static void urls_and_attributes(void **state)
{
    (void)state;
    km_remote *r = opened("redis://cache.example");
    assert_string_equal(km_remote_shown(r), "redis://cache.example:6379/0");
    assert_false(km_remote_read_only(r));
    km_remote_close(r);
    r = opened("redis://user:s%40cret@10.0.0.1:7000/3|read-only|connect-timeout=50|"
               "operation-timeout=2000");
    /* The password is never shown. */
    assert_string_equal(km_remote_shown(r), "redis://user:***@10.0.0.1:7000/3");
    assert_true(km_remote_read_only(r));
    km_remote_close(r);
    r = opened("redis://:pw@[::1]:6380");
    assert_string_equal(km_remote_shown(r), "redis://:***@::1:6380/0");
    km_remote_close(r);
    r = opened("redis+unix:///run/redis.sock?db=2");
    assert_string_equal(km_remote_shown(r), "redis+unix:///run/redis.sock");
    km_remote_close(r);
    refused_url("http://cache.example", "not a redis:// or redis+unix:// URL");
    refused_url("redis://", "no host");
    refused_url("redis://h:0", "the port must be 1 to 65535");
    refused_url("redis://h:99999", "the port must be 1 to 65535");
    refused_url("redis://h/x", "the database must be a number");
    refused_url("redis://h|colour=blue", "unknown attribute 'colour=blue'");
    refused_url("redis://h|connect-timeout=0", "connect-timeout must be");
    refused_url("redis://h|operation-timeout=soon", "operation-timeout must be");
    refused_url("redis+unix://relative.sock", "must be absolute");
    refused_url("redis://[::1", "an unclosed '['");
}

static void where_it_is_configured(void **state)
{
    (void)state;
    char dir[] = "/tmp/kmrun-remote-test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *old = getcwd(NULL, 0);
    assert_int_equal(chdir(dir), 0);
    char *xdg = km_path_join(dir, "xdg");
    setenv("XDG_CONFIG_HOME", xdg, 1);
    unsetenv("KMRUN_REMOTE_STORAGE");
    const char *from = NULL;
    assert_null(km_remote_configured(NULL, &from));
    /* The user's file. */
    assert_int_equal(system("mkdir -p xdg/kmrun && printf '# mine\\nremote_storage = "
                            "redis://user-host\\n' >xdg/kmrun/config"), 0);
    char *url = km_remote_configured(NULL, &from);
    assert_string_equal(url, "redis://user-host");
    assert_non_null(strstr(from, "xdg/kmrun/config"));
    free(url);
    /* The project's wins; its last line counts. */
    assert_int_equal(system("mkdir -p .kmrun && printf 'remote_storage=redis://a\\n"
                            "  remote_storage =  redis://b|read-only  \\n' >.kmrun/config"), 0);
    url = km_remote_configured(NULL, &from);
    assert_string_equal(url, "redis://b|read-only");
    assert_string_equal(from, ".kmrun/config");
    free(url);
    /* The environment wins over files, and empty is none. */
    setenv("KMRUN_REMOTE_STORAGE", "redis://env", 1);
    url = km_remote_configured(NULL, &from);
    assert_string_equal(url, "redis://env");
    assert_string_equal(from, "KMRUN_REMOTE_STORAGE");
    free(url);
    setenv("KMRUN_REMOTE_STORAGE", "", 1);
    assert_null(km_remote_configured(NULL, &from));
    /* The option wins over everything. */
    url = km_remote_configured("redis://option", &from);
    assert_string_equal(url, "redis://option");
    assert_string_equal(from, "--remote-storage");
    free(url);
    unsetenv("KMRUN_REMOTE_STORAGE");
    unsetenv("XDG_CONFIG_HOME");
    assert_int_equal(chdir(old), 0);
    free(old);
    km_rm_rf(dir);
    free(xdg);
}

/* An entry of two files packed. */
static char *packed(const char *kind, const char *key, size_t *len)
{
    static char image[5000];
    for (size_t i = 0; i < sizeof image; i++)
        image[i] = (char)(i * 7 % 13);
    km_remote_file files[] = {{"image.elf", image, sizeof image}, {"notes", "hi", 2}};
    cJSON *meta = cJSON_CreateObject();
    cJSON_AddStringToObject(meta, "sha256", "abc");
    char *v = km_remote_pack(kind, key, files, 2, meta, len);
    cJSON_Delete(meta);
    assert_non_null(v);
    return v;
}

static void envelopes_round_trip(void **state)
{
    (void)state;
    size_t len;
    char *v = packed("entry", KEY, &len);
    assert_memory_equal(v, "KMRUN-REMOTE 1\n", 15);
    char compression[32];
    snprintf(compression, sizeof compression, "\"compression\":\"%s\"", km_remote_compression());
    assert_non_null(strstr(v, compression));
    km_remote_unpacked u;
    char why[256];
    assert_int_equal(km_remote_unpack(v, len, "entry", KEY, &u, why, sizeof why), KM_OK);
    assert_int_equal(u.nfiles, 2);
    assert_string_equal(u.files[0].name, "image.elf");
    assert_int_equal(u.files[0].bytes, 5000);
    assert_int_equal(((const char *)u.files[0].data)[4999], (char)(4999 * 7 % 13));
    assert_string_equal(u.files[1].name, "notes");
    assert_memory_equal(u.files[1].data, "hi", 2);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(u.meta, "meta");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(meta, "sha256")->valuestring, "abc");
    km_remote_unpacked_free(&u);
    free(v);
}

static void refuses(const char *value, size_t len, const char *kind, const char *key,
                    const char *said)
{
    km_remote_unpacked u;
    char why[256] = "";
    assert_int_equal(km_remote_unpack(value, len, kind, key, &u, why, sizeof why),
                     KM_REMOTE_ERROR);
    assert_null(u.files);
    assert_null(u.payload);
    if (!strstr(why, said))
        fail_msg("refused for '%s', not '%s'", why, said);
}

static void bad_envelopes_are_refused(void **state)
{
    (void)state;
    size_t len;
    char *v = packed("entry", KEY, &len);
    refuses("garbage", 7, "entry", KEY, "not a kmrun value");
    refuses(v, len, "entry", OTHER, "it claims another key, 6bb3c475d935ab0b");
    refuses(v, len, "record", KEY, "it is a entry");
    refuses(v, len - 3, "entry", KEY, "truncated");
    refuses(v, 20, "entry", KEY, "its header line is cut");
    /* A byte of the payload flipped: it no longer decompresses, or its
     * digest is not its own. */
    char *flipped = malloc(len);
    memcpy(flipped, v, len);
    flipped[len - 2] ^= 0x10;
    km_remote_unpacked u;
    char why[256];
    assert_int_equal(km_remote_unpack(flipped, len, "entry", KEY, &u, why, sizeof why),
                     KM_REMOTE_ERROR);
    free(flipped);
    /* Padded: longer than its header says. */
    char *padded = malloc(len + 1);
    memcpy(padded, v, len);
    padded[len] = 'x';
    refuses(padded, len + 1, "entry", KEY, "truncated or padded");
    free(padded);
    free(v);
    /* Hostile headers: a size past the limit, an unknown compression, a
     * file name with a slash, files longer than the payload. */
    char text[1024];
    int n = snprintf(text, sizeof text, "KMRUN-REMOTE 1\n{\"key\":\"%s\",\"kind\":\"entry\","
                     "\"compression\":\"none\",\"bytes\":4294967296,\"stored_bytes\":4,"
                     "\"sha256\":\"00\",\"files\":[]}\nABCD", KEY);
    refuses(text, (size_t)n, "entry", KEY, "its header is damaged");
    n = snprintf(text, sizeof text, "KMRUN-REMOTE 1\n{\"key\":\"%s\",\"kind\":\"entry\","
                 "\"compression\":\"lz4\",\"bytes\":4,\"stored_bytes\":4,"
                 "\"sha256\":\"00\",\"files\":[]}\nABCD", KEY);
    refuses(text, (size_t)n, "entry", KEY, "unknown compression 'lz4'");
    /* sha256 of "ABCD" */
    const char *abcd = "e12e115acf4552b2568b55e93cbd39394c4ef81c82447fafc997882a02d23677";
    n = snprintf(text, sizeof text, "KMRUN-REMOTE 1\n{\"key\":\"%s\",\"kind\":\"entry\","
                 "\"compression\":\"none\",\"bytes\":4,\"stored_bytes\":4,\"sha256\":\"%s\","
                 "\"files\":[{\"name\":\"../x\",\"bytes\":4,\"sha256\":\"%s\"}]}\nABCD",
                 KEY, abcd, abcd);
    refuses(text, (size_t)n, "entry", KEY, "its list of files is damaged");
    n = snprintf(text, sizeof text, "KMRUN-REMOTE 1\n{\"key\":\"%s\",\"kind\":\"entry\","
                 "\"compression\":\"none\",\"bytes\":4,\"stored_bytes\":4,\"sha256\":\"%s\","
                 "\"files\":[{\"name\":\"x\",\"bytes\":5,\"sha256\":\"%s\"}]}\nABCD",
                 KEY, abcd, abcd);
    refuses(text, (size_t)n, "entry", KEY, "its list of files is damaged");
    n = snprintf(text, sizeof text, "KMRUN-REMOTE 1\n{\"key\":\"%s\",\"kind\":\"entry\","
                 "\"compression\":\"none\",\"bytes\":4,\"stored_bytes\":4,\"sha256\":\"%s\","
                 "\"files\":[{\"name\":\"x\",\"bytes\":3,\"sha256\":\"00\"}]}\nABCD",
                 KEY, abcd);
    refuses(text, (size_t)n, "entry", KEY, "its file 'x' does not match its sha256");
    n = snprintf(text, sizeof text, "KMRUN-REMOTE 1\n{\"key\":\"%s\",\"kind\":\"entry\","
                 "\"compression\":\"none\",\"bytes\":4,\"stored_bytes\":4,\"sha256\":\"%s\","
                 "\"files\":[]}\nABCE", KEY, abcd);
    refuses(text, (size_t)n, "entry", KEY, "its payload does not match its sha256");
}

static int notes;
static char last_note[1024];

static void on_note(const char *line, void *ctx)
{
    (void)ctx;
    notes++;
    snprintf(last_note, sizeof last_note, "%s", line);
}

static void a_refusing_server_is_turned_off(void **state)
{
    (void)state;
    /* Port 1 on the loopback: nothing listens, the connection is refused. */
    km_remote *r = opened("redis://127.0.0.1:1|connect-timeout=200");
    km_remote_set_note(r, on_note, NULL);
    char *v;
    size_t len;
    notes = 0;
    for (unsigned i = 1; i <= KM_REMOTE_MAX_FAILURES; i++) {
        assert_int_equal(km_remote_get(r, "k", &v, &len), KM_REMOTE_ERROR);
        assert_int_equal(km_remote_failures(r), i);
    }
    assert_true(km_remote_off(r));
    assert_non_null(strstr(last_note, "not asking it again in this command (3 failures)"));
    /* Off: a miss, asked of no one, counted no more. */
    assert_int_equal(km_remote_get(r, "k", &v, &len), KM_REMOTE_MISS);
    assert_int_equal(km_remote_set(r, "k", "v", 1), KM_REMOTE_MISS);
    assert_int_equal(km_remote_failures(r), KM_REMOTE_MAX_FAILURES);
    assert_int_equal(notes, KM_REMOTE_MAX_FAILURES);
    km_remote_close(r);
    /* Read-only: a store is nothing, and asks no one. */
    r = opened("redis://127.0.0.1:1|read-only");
    assert_int_equal(km_remote_set(r, "k", "v", 1), KM_OK);
    assert_int_equal(km_remote_failures(r), 0);
    km_remote_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(urls_and_attributes),
        cmocka_unit_test(where_it_is_configured),
        cmocka_unit_test(envelopes_round_trip),
        cmocka_unit_test(bad_envelopes_are_refused),
        cmocka_unit_test(a_refusing_server_is_turned_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
