/* Tests for lib/build/build_log.c: a failed step's output that says the host ran
 * out of disk, quota, file size or memory is the host's failure (exit 4,
 * the resource and the file named) — fed the Ninja logs the tools really
 * write (issue 26, item 5: a full disk gave exit 3) — and a compile error
 * is still not, even one that quotes those words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "build_internal.h"

#define assert_contains(haystack, needle)                                    \
    do {                                                                     \
        if (!strstr((haystack), (needle)))                                   \
            fail_msg("expected \"%s\" in:\n%s", (needle), (haystack));       \
    } while (0)

#define WORK "/cache/work/2d3c175733fa40ae"
#define OBJ WORK "/t0/0-sum.c.o"
#define IMAGE WORK "/t0/image.elf"

/* Ninja's log of a failed compile: the status line, FAILED:, the command,
 * the tool's words, Ninja's summary. */
#define COMPILE_LOG(words)                                                   \
    "@kmrun@ [1/2] CC thread/sum.c\n"                                        \
    "FAILED: " OBJ "\n"                                                      \
    "riscv64-unknown-elf-gcc -MD -MF " OBJ ".d -O2 -g -c thread/sum.c -o " OBJ "\n" \
    words                                                                    \
    "ninja: build stopped: cannot make progress due to previous errors.\n"

static const char *file_of(const char *log, km_log_resource want)
{
    static char file[1024];
    assert_int_equal(km_log_resource_of(log, file, sizeof file), want);
    return file;
}

static void test_the_assembler_out_of_space_names_the_object(void **state)
{
    (void)state;
    const char *log = COMPILE_LOG("/tmp/ccSIzo3C.s: Assembler messages:\n"
                                  "/tmp/ccSIzo3C.s: Fatal error: " OBJ ": No space left on device\n");
    assert_string_equal(file_of(log, KM_LOG_NO_SPACE), OBJ);
    km_error err = {0};
    assert_int_equal(km_log_resource_failure(log, "cannot compile 'thread/sum.c' for the thread "
                                             "on cluster 1", OBJ, &err),
                     KM_EXIT_SYSTEM);
    assert_int_equal(err.status, KM_EXIT_SYSTEM);
    assert_string_equal(err.message,
                        "cannot compile 'thread/sum.c' for the thread on cluster 1: no space left "
                        "on device writing '" OBJ "' (free space on its file system, or set "
                        "KMRUN_CACHE or TMPDIR to another)");
}

static void test_the_compiler_out_of_space_names_the_dependency_file(void **state)
{
    (void)state;
    const char *log = COMPILE_LOG("thread/sum.c:75:1: fatal error: closing dependency file "
                                  OBJ ".d: No space left on device\n"
                                  "   75 | }\n      | ^\ncompilation terminated.\n");
    assert_string_equal(file_of(log, KM_LOG_NO_SPACE), OBJ ".d");
}

/* GNU ld names no file: the message names what the step was making. */
static void test_the_linker_out_of_space_names_the_image(void **state)
{
    (void)state;
    const char *log =
        "@kmrun@ [2/2] LINK thread on cluster 1\n"
        "FAILED: " IMAGE "\n"
        "riscv64-unknown-elf-gcc -o " IMAGE " " OBJ "\n"
        "/usr/lib/gcc/riscv64-unknown-elf/12.2.0/../../../riscv64-unknown-elf/bin/ld: final link "
        "failed: No space left on device\n"
        "collect2: error: ld returned 1 exit status\n";
    assert_string_equal(file_of(log, KM_LOG_NO_SPACE), "");
    km_error err = {0};
    assert_int_equal(km_log_resource_failure(log, "cannot link the thread on cluster 1", IMAGE,
                                             &err),
                     KM_EXIT_SYSTEM);
    assert_contains(err.message, "cannot link the thread on cluster 1: no space left on device "
                                 "making '" IMAGE "'");
}

static void test_a_quota_names_the_quoted_file(void **state)
{
    (void)state;
    const char *log = COMPILE_LOG("error: unable to open output file '" OBJ "': 'Disk quota "
                                  "exceeded'\n1 error generated.\n");
    assert_string_equal(file_of(log, KM_LOG_QUOTA), OBJ);
    km_error err = {0};
    km_log_resource_failure(log, "cannot compile 'thread/sum.c'", OBJ, &err);
    assert_contains(err.message, "disk quota exceeded writing '" OBJ "'");
}

/* EFBIG when SIGXFSZ is ignored, the signal itself when it is not. */
static void test_a_file_size_limit_is_named(void **state)
{
    (void)state;
    assert_string_equal(file_of(COMPILE_LOG("/tmp/cc.s: Fatal error: " OBJ ": File too large\n"),
                                KM_LOG_FILE_SIZE),
                        OBJ);
    const char *ice = COMPILE_LOG("riscv64-unknown-elf-gcc: internal compiler error: File size "
                                  "limit exceeded signal terminated program cc1\n"
                                  "Please submit a full bug report, with preprocessed source (by "
                                  "using -freport-bug).\n");
    assert_string_equal(file_of(ice, KM_LOG_FILE_SIZE), "");
    const char *ld = "collect2: fatal error: ld terminated with signal 25 [File size limit "
                     "exceeded]\ncompilation terminated.\n";
    assert_string_equal(file_of(ld, KM_LOG_FILE_SIZE), "");
    km_error err = {0};
    assert_int_equal(km_log_resource_failure(ld, "cannot link the thread", IMAGE, &err),
                     KM_EXIT_SYSTEM);
    assert_contains(err.message, "cannot link the thread: file too large making '" IMAGE
                                 "' (a file size limit: ulimit -f)");
}

static void test_a_compiler_out_of_memory_is_named(void **state)
{
    (void)state;
    file_of(COMPILE_LOG("virtual memory exhausted: Cannot allocate memory\n"), KM_LOG_MEMORY);
    file_of(COMPILE_LOG(" cc1: out of memory allocating 65536 bytes after a total of 1073152 "
                        "bytes\n"),
            KM_LOG_MEMORY);
    km_error err = {0};
    km_log_resource_failure(COMPILE_LOG("virtual memory exhausted: Cannot allocate memory\n"),
                            "cannot compile 'thread/sum.c'", OBJ, &err);
    assert_contains(err.message, "out of memory making '" OBJ "' (a memory limit: ulimit -v)");
}

/* Ninja's own write (its log, its deps) out of space. */
static void test_ninja_out_of_space_is_named(void **state)
{
    (void)state;
    file_of("ninja: error: opening build log: No space left on device\n", KM_LOG_NO_SPACE);
    file_of("@kmrun@ [1/2] CC thread/hello.c (thread on cluster 1)\n"
            "ninja: build stopped: Error writing to build log: No space left on device.\n",
            KM_LOG_NO_SPACE);
}

/* A compile error is the source's: even one whose words, quoted or in the
 * source line shown, are a resource's. */
static void test_a_compile_error_is_not_the_host(void **state)
{
    (void)state;
    const char *logs[] = {
        COMPILE_LOG("thread/sum.c:3:5: error: 'x' undeclared (first use in this function)\n"
                    "    3 |     x = 1;\n      |     ^\n"),
        COMPILE_LOG("thread/sum.c:5:9: error: expected ';' before '}' token\n"
                    "    5 |     puts(\"disk: No space left on device\")\n"
                    "      |         ^\n"),
        COMPILE_LOG("thread/sum.c:1:2: error: #error \"No space left on device\"\n"),
        COMPILE_LOG("thread/sum.c:1:2: error: #error No space left on device here\n"),
        COMPILE_LOG("thread/sum.c:4:1: error: 'No space left on device' undeclared\n"),
        COMPILE_LOG("thread/sum.c:4:1: warning: this says: Cannot allocate memory twice\n"),
        "",
    };
    for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
        char file[64] = "untouched";
        if (km_log_resource_of(logs[i], file, sizeof file) != KM_LOG_NONE)
            fail_msg("taken for the host's: %s", logs[i]);
        assert_string_equal(file, "");
        km_error err = {.status = 99};
        assert_int_equal(km_log_resource_failure(logs[i], "x", OBJ, &err), KM_OK);
        assert_int_equal(err.status, 99); /* untouched */
    }
}

/* A file name with a control byte is quoted escaped, like every name. */
static void test_the_file_is_quoted_escaped(void **state)
{
    (void)state;
    km_error err = {0};
    km_log_resource_failure("/tmp/cc.s: Fatal error: /w/a\033b.o: No space left on device\n",
                            "cannot compile", OBJ, &err);
    assert_contains(err.message, "writing '/w/a\\033b.o'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_assembler_out_of_space_names_the_object),
        cmocka_unit_test(test_the_compiler_out_of_space_names_the_dependency_file),
        cmocka_unit_test(test_the_linker_out_of_space_names_the_image),
        cmocka_unit_test(test_a_quota_names_the_quoted_file),
        cmocka_unit_test(test_a_file_size_limit_is_named),
        cmocka_unit_test(test_a_compiler_out_of_memory_is_named),
        cmocka_unit_test(test_ninja_out_of_space_is_named),
        cmocka_unit_test(test_a_compile_error_is_not_the_host),
        cmocka_unit_test(test_the_file_is_quoted_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
