/* test_memory: what a test of running out of memory needs — the address
 * space this process maps now, so that a forked child may limit itself
 * (RLIMIT_AS) to a little more, whether such a limit means anything here
 * (not under AddressSanitizer or valgrind, which map memory of their own
 * under it), and the child's end.  Include after <cmocka.h>. */
#ifndef TEST_MEMORY_H
#define TEST_MEMORY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>

/* The address space this process maps now, in bytes (0: unknown). */
static inline uint64_t test_mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kib * 1024;
}

/* Skips the test where an address-space limit cannot be trusted. */
#ifdef __SANITIZE_ADDRESS__
#define TEST_SKIP_UNLESS_LIMITABLE() skip() /* AddressSanitizer's shadow memory needs more */
#else
#define TEST_SKIP_UNLESS_LIMITABLE()                                                              \
    do {                                                                                          \
        if (getenv("KMRUN_UNDER_VALGRIND")) {                                                     \
            print_message("skipped under valgrind: it maps memory of its own under the limit\n"); \
            skip();                                                                               \
        }                                                                                         \
    } while (0)
#endif

/* Waits for the limited child pid, which must exit 0 (its other exit
 * codes name the step that failed). */
static inline void test_child_ok(pid_t pid)
{
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

#endif
