/* rv_assemble: tests that run tiny RISC-V programs on the simulator
 * assemble them with Debian's riscv64-unknown-elf binutils ($RV_PREFIX
 * overrides the prefix), the way blink's tests are tiny assembly
 * programs.  cmocka must be included first. */
#ifndef RV_ASSEMBLE_H
#define RV_ASSEMBLE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline const char *rv_prefix(void)
{
    const char *p = getenv("RV_PREFIX");
    return p && *p ? p : "riscv64-unknown-elf-";
}

/* prologue then src, from _start, linked at `base`: the bytes of .text
 * into out (at most max); asserts on a toolchain failure. */
static inline size_t rv_assemble(const char *prologue, const char *src, uint64_t base,
                                 uint8_t *out, size_t max)
{
    char dir[] = "/tmp/rv-assemble.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], cmd[1200];
    snprintf(path, sizeof path, "%s/t.s", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, ".option norelax\n.text\n.globl _start\n_start:\n%s%s\n", prologue, src);
    fclose(f);
    const char *p = rv_prefix();
    snprintf(cmd, sizeof cmd,
             "cd %s && %sas -march=rv64gcv_zba_zbb_zfh -o t.o t.s && "
             "%sld -Ttext=0x%llx -o t.elf t.o && %sobjcopy -O binary -j .text t.elf t.bin",
             dir, p, p, (unsigned long long)base, p);
    int rc = system(cmd);
    if (rc != 0)
        print_message("assembly failed:\n%s\n", src);
    assert_int_equal(rc, 0);
    snprintf(path, sizeof path, "%s/t.bin", dir);
    f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(out, 1, max, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    return n;
}

#endif
