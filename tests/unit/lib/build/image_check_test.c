/* Tests for lib/build/image_check.c, lib/build/image_so.c and support/ks_elf.c: real
 * images built at test time from tests/fixtures/images with the RISC-V
 * toolchain (and a kernel library with the host compiler), each rule's
 * message, and truncated, corrupt and foreign files, which must be errors
 * and never crashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <elf.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "km_image.h"
#include "kmx_layout.h"
#include "test_random.h"

#define FIXTURES "tests/fixtures/images"
#define RV_FLAGS                                                            \
    "-march=rv64gc_zba_zbb -mabi=lp64d -mcmodel=medany -nostdlib "           \
    "-nostartfiles -ffreestanding -O2 -g -Wl,--no-warn-rwx-segments"

static char dir[64]; /* the temporary folder every fixture is built into */

static const char *rv_cc(void)
{
    const char *cc = getenv("RV_CC");
    return cc && *cc ? cc : "riscv64-unknown-elf-gcc";
}

static const char *host_cc(void)
{
    const char *cc = getenv("CC");
    return cc && *cc ? cc : "cc";
}

static const char *in_dir(const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "# failed (%d): %s\n", rc, cmd);
    return rc;
}

/* Builds fixture `src` into `out` with the stand-in linker script. */
static int build_image(const char *src, const char *out, const char *extra)
{
    return run("%s " RV_FLAGS " -T " FIXTURES "/image.ld %s " FIXTURES "/%s -o '%s'",
               rv_cc(), extra, src, in_dir(out));
}

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void write_all(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    return remove(path);
}

static int group_setup(void **state)
{
    strcpy(dir, "/tmp/kmrun-image-test.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    int bad = 0;
    bad |= build_image("good.S", "good_s.elf", "");
    bad |= build_image("good.c", "good_c.elf", "");
    bad |= build_image("big_table.c", "big.elf", "");
    bad |= build_image("bss.c", "bss.elf", "");
    bad |= build_image("sbss.c", "sbss.elf", "");
    bad |= build_image("common.c", "common.elf", "-fcommon");
    bad |= build_image("entry.S", "entry.elf", "");
    bad |= build_image("ctor.c", "ctor.elf", "");
    /* What -Ttext alone gives: the ELF headers in a loadable segment
     * below 0x08000000. */
    bad |= run("%s " RV_FLAGS " -Wl,-Ttext=0x8000000 " FIXTURES "/bss.c -o '%s'",
               rv_cc(), in_dir("ttext.elf"));
    bad |= run("%s " RV_FLAGS " -c " FIXTURES "/good.c -o '%s'", rv_cc(),
               in_dir("good.o"));
    bad |= run("%s -shared -fPIC -g " FIXTURES "/handlers.c -o '%s'", host_cc(),
               in_dir("handlers.so"));
    bad |= run("cp '%s' '%s' && strip --strip-all '%s'", in_dir("handlers.so"),
               in_dir("stripped.so"), in_dir("stripped.so"));
    if (bad) {
        fprintf(stderr, "# building the fixtures needs %s and %s\n", rv_cc(),
                host_cc());
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

#define assert_contains(haystack, needle)                                    \
    do {                                                                     \
        if (!strstr((haystack), (needle)))                                   \
            fail_msg("expected \"%s\" in:\n%s", (needle), (haystack));       \
    } while (0)

#define assert_lacks(haystack, needle)                                       \
    do {                                                                     \
        if (strstr((haystack), (needle)))                                    \
            fail_msg("did not expect \"%s\" in:\n%s", (needle), (haystack)); \
    } while (0)

/* ---- good images ----------------------------------------------------- */

static void good_image_has_exact_sizes(void **state)
{
    km_image_info info;
    km_error err = {0};
    assert_int_equal(km_image_check(in_dir("good_s.elf"), "good", &info, &err), KM_OK);
    assert_int_equal(info.entry, BH_LIM_BASE);
    assert_int_equal(info.text_bytes, 256);
    assert_int_equal(info.rodata_bytes, 64 + 8); /* .rodata and .srodata */
    assert_int_equal(info.data_bytes, 32 + 8);   /* .data and .sdata */
    assert_int_equal(info.other_bytes, 0);
    assert_int_equal(info.bss_bytes, 0);
    assert_int_equal(info.load_start, BH_LIM_BASE);
    assert_int_equal(info.load_end, BH_LIM_BASE + 368);
    assert_int_equal(info.loadable_bytes, 368);
    assert_int_equal(info.nlargest, 5);
    assert_string_equal(info.largest[0].name, "_start");
    assert_int_equal(info.largest[0].size, 256);
    assert_string_equal(info.largest[0].section, ".text");
    assert_string_equal(info.largest[1].name, "table");
    assert_string_equal(info.largest[1].section, ".rodata");
    assert_string_equal(info.largest[2].name, "counters");
    assert_string_equal(info.largest[2].section, ".data");
    /* Ties in size are ordered by address: small_const before seed. */
    assert_string_equal(info.largest[3].name, "small_const");
    assert_string_equal(info.largest[3].section, ".srodata");
    assert_string_equal(info.largest[4].name, "seed");
}

static void inspect_agrees_with_check(void **state)
{
    km_image_info a, b;
    km_error err = {0};
    assert_int_equal(km_image_inspect(in_dir("good_s.elf"), &a, &err), KM_OK);
    assert_int_equal(km_image_check(in_dir("good_s.elf"), NULL, &b, &err), KM_OK);
    assert_memory_equal(&a, &b, sizeof a);
    /* Inspecting applies no rules: a rejected image is measured fine. */
    assert_int_equal(km_image_inspect(in_dir("bss.elf"), &a, &err), KM_OK);
    assert_true(a.bss_bytes >= 16 * 8 + 64);
    assert_int_equal(km_image_inspect(in_dir("good_s.elf"), NULL, &err), KM_OK);
}

static void c_image_passes(void **state)
{
    km_image_info info;
    km_error err = {0};
    /* It calls a weak function nothing defines: that is allowed. */
    int rc = km_image_check(in_dir("good_c.elf"), "good", &info, &err);
    if (rc != KM_OK)
        fail_msg("%s", err.message);
    assert_true(info.text_bytes > 0);
    assert_int_equal(info.data_bytes, 8); /* counter */
    assert_true(info.loadable_bytes >= info.text_bytes + info.rodata_bytes +
                                           info.data_bytes);
    assert_int_equal(info.loadable_bytes, info.text_bytes + info.rodata_bytes +
                                              info.data_bytes + info.other_bytes);
}

/* ---- the rules ------------------------------------------------------- */

static void too_large_names_sizes_and_symbol(void **state)
{
    km_image_info info;
    km_error err = {0};
    assert_int_equal(km_image_check(in_dir("big.elf"), "big", &info, &err),
                     KM_EXIT_BUILD);
    assert_int_equal(err.status, KM_EXIT_BUILD);
    assert_int_equal(info.rodata_bytes, 130000);
    assert_int_equal(info.data_bytes, 4096);
    assert_true(info.loadable_bytes > BH_IMAGE_MAX_BYTES);
    assert_string_equal(info.largest[0].name, "big_table");
    assert_string_equal(info.largest[1].name, "scratch");

    char want[256];
    uint64_t n = info.loadable_bytes, over = n - BH_IMAGE_MAX_BYTES;
    snprintf(want, sizeof want, "image 'big' is %llu,%03llu bytes, over the "
             "126,976 bytes of the cluster's instruction memory by %llu,%03llu "
             "(text %llu, rodata 130,000, data 4,096",
             (unsigned long long)(n / 1000), (unsigned long long)(n % 1000),
             (unsigned long long)(over / 1000), (unsigned long long)(over % 1000),
             (unsigned long long)info.text_bytes);
    if (strncmp(err.message, want, strlen(want)) != 0)
        fail_msg("expected \"%s\" to start:\n%s", want, err.message);
    assert_contains(err.message, "\n  largest symbols: 'big_table' (130,000 "
                                 "bytes, .rodata), 'scratch' (4,096 bytes, .data)");
    assert_contains(err.message, "region");
    /* Only that: the image breaks no other rule. */
    assert_lacks(err.message, "bss");
    assert_lacks(err.message, "entry");
}

static void bss_globals_are_named(void **state)
{
    km_error err = {0};
    assert_int_equal(km_image_check(in_dir("bss.elf"), "counter", NULL, &err),
                     KM_EXIT_BUILD);
    assert_contains(err.message, "image 'counter' has zero-initialised globals in .bss: ");
    assert_contains(err.message, "'history' (128 bytes)");
    assert_contains(err.message, "'flags' (64 bytes)");
    assert_contains(err.message, "\n  the image has no .bss: give each a non-zero "
                                 "initialiser and __attribute__((section(\".data\"))), "
                                 "or put the data in a region");
    assert_true(strncmp(err.message, "image 'counter' has", 19) == 0);
}

static void sbss_global_is_named(void **state)
{
    km_error err = {0};
    assert_int_equal(km_image_check(in_dir("sbss.elf"), "flag", NULL, &err),
                     KM_EXIT_BUILD);
    assert_contains(err.message, "image 'flag' has zero-initialised globals in "
                                 ".sbss: 'small_flag' (4 bytes)");
}

static void common_symbol_is_caught(void **state)
{
    km_error err = {0};
    assert_int_equal(km_image_check(in_dir("common.elf"), "common", NULL, &err),
                     KM_EXIT_BUILD);
    /* The link allocated the COMMON symbol to .bss, where it is caught. */
    assert_contains(err.message, "'shared_count' (4 bytes)");
    assert_contains(err.message, "zero-initialised globals in .bss");
}

static void wrong_entry_point(void **state)
{
    km_image_info info;
    km_error err = {0};
    assert_int_equal(km_image_check(in_dir("entry.elf"), "entry", &info, &err),
                     KM_EXIT_BUILD);
    assert_int_equal(info.entry, BH_LIM_BASE + 4);
    assert_string_equal(err.message,
                        "image 'entry' has its entry point at 0x08000004 "
                        "('_start'), but the loader starts an image at its first "
                        "byte, 0x08000000, where 'helper' is\n"
                        "  link with kmx's linker script (kmx.ld), which puts "
                        "kmx's start-up code first");
}

static void segment_below_the_image_area_and_bss_together(void **state)
{
    km_error err = {0};
    assert_int_equal(km_image_check(in_dir("ttext.elf"), "ttext", NULL, &err),
                     KM_EXIT_BUILD);
    /* Both rules, in order, each starting a line with the image's name. */
    const char *window = strstr(err.message, "image 'ttext' has a loadable segment at 0x07fff000..");
    const char *bss = strstr(err.message, "\nimage 'ttext' has zero-initialised globals");
    assert_true(window == err.message);
    assert_non_null(bss);
    assert_contains(err.message, "outside the image area 0x08000000..0x0801f000");
    assert_contains(err.message, "the ELF file's own headers");
}

static void constructors_are_named(void **state)
{
    km_error err = {0};
    assert_int_equal(km_image_check(in_dir("ctor.elf"), "ctor", NULL, &err),
                     KM_EXIT_BUILD);
    assert_string_equal(err.message,
                        "image 'ctor' has constructors or destructors, which never "
                        "run: 'fill_tables' (.init_array), 'report_done' "
                        "(.fini_array)\n"
                        "  there is no C library start-up to call them: call each "
                        "from kmx_main yourself, and drop "
                        "__attribute__((constructor)) and ((destructor))");
}

/* Patches symbol `name` of the image at `path` into an undefined one, as a
 * link that let undefined symbols through would leave it. */
static void make_undefined(const char *path, const char *name)
{
    size_t size;
    unsigned char *d = read_all(path, &size);
    Elf64_Ehdr eh;
    memcpy(&eh, d, sizeof eh);
    int done = 0;
    for (size_t i = 1; i < eh.e_shnum; i++) {
        Elf64_Shdr sh, str;
        memcpy(&sh, d + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB)
            continue;
        memcpy(&str, d + eh.e_shoff + sh.sh_link * sizeof str, sizeof str);
        for (size_t k = 1; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym s;
            unsigned char *at = d + sh.sh_offset + k * sizeof s;
            memcpy(&s, at, sizeof s);
            if (strcmp((char *)d + str.sh_offset + s.st_name, name) != 0)
                continue;
            s.st_shndx = SHN_UNDEF;
            s.st_value = 0;
            s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE);
            memcpy(at, &s, sizeof s);
            done = 1;
        }
    }
    assert_true(done);
    write_all(path, d, size);
    free(d);
}

static void undefined_symbols_are_named(void **state)
{
    run("cp '%s' '%s'", in_dir("good_s.elf"), in_dir("undef.elf"));
    make_undefined(in_dir("undef.elf"), "seed");
    make_undefined(in_dir("undef.elf"), "table");
    km_error err = {0};
    assert_int_equal(km_image_check(in_dir("undef.elf"), "undef", NULL, &err),
                     KM_EXIT_BUILD);
    assert_contains(err.message, "image 'undef' has undefined symbols, which "
                                 "nothing resolves on the device: 'table', 'seed'");
    assert_contains(err.message, "\n  'table' is used but nothing defines it");
    assert_contains(err.message, "\n  'seed' is used but nothing defines it");
}

/* ---- foreign, truncated and corrupt files ---------------------------- */

static void not_an_elf_file(void **state)
{
    km_error err = {0};
    write_all(in_dir("text.elf"), "#!/bin/sh\necho hi\n", 18);
    assert_int_equal(km_image_check(in_dir("text.elf"), "text", NULL, &err),
                     KM_EXIT_BUILD);
    assert_string_equal(err.message, "image 'text' is not an ELF file: it starts "
                                     "with \"#!/bin/s\", not \"\\x7fELF\"");
    write_all(in_dir("empty.elf"), "", 0);
    assert_int_equal(km_image_check(in_dir("empty.elf"), "empty", NULL, &err),
                     KM_EXIT_BUILD);
    assert_string_equal(err.message, "image 'empty' is not an ELF file: it is empty");
}

static void unreadable_file_is_a_system_error(void **state)
{
    km_error err = {0};
    km_image_info info;
    assert_int_equal(km_image_check(in_dir("missing.elf"), "missing", &info, &err),
                     KM_EXIT_SYSTEM);
    assert_contains(err.message, "cannot open '");
    assert_contains(err.message, "missing.elf': No such file or directory");
    assert_int_equal(km_image_inspect(dir, &info, &err), KM_EXIT_SYSTEM);
    assert_contains(err.message, "Is a directory");
}

static void foreign_elf_files(void **state)
{
    km_error err = {0};
    /* This test program: an ELF file for the host. */
    assert_int_equal(km_image_check("/proc/self/exe", "host", NULL, &err),
                     KM_EXIT_BUILD);
    assert_contains(err.message, "image 'host' is an ELF file for ");
    assert_contains(err.message, ", not RISC-V");
    assert_int_equal(km_image_check(in_dir("good.o"), "obj", NULL, &err),
                     KM_EXIT_BUILD);
    assert_string_equal(err.message, "image 'obj' is a relocatable object (a .o "
                                     "file), not a linked image");

    size_t size;
    unsigned char *d = read_all(in_dir("good_s.elf"), &size);
    d[EI_CLASS] = ELFCLASS32;
    write_all(in_dir("class32.elf"), d, size);
    assert_int_equal(km_image_check(in_dir("class32.elf"), "c", NULL, &err),
                     KM_EXIT_BUILD);
    assert_string_equal(err.message, "image 'c' is a 32-bit ELF file; expected a "
                                     "64-bit one (ELFCLASS64)");
    d[EI_CLASS] = ELFCLASS64;
    d[EI_DATA] = ELFDATA2MSB;
    write_all(in_dir("msb.elf"), d, size);
    assert_int_equal(km_image_check(in_dir("msb.elf"), "m", NULL, &err),
                     KM_EXIT_BUILD);
    assert_contains(err.message, "big-endian");
    free(d);
}

static void every_truncation_is_an_error(void **state)
{
    size_t size;
    unsigned char *d = read_all(in_dir("good_c.elf"), &size);
    const char *path = in_dir("cut.elf");
    for (size_t n = 0; n < size; n += n < 256 ? 1 : 13) {
        write_all(path, d, n);
        km_error err = {0};
        km_image_info info;
        int rc = km_image_check(path, "cut", &info, &err);
        if (rc != KM_EXIT_BUILD)
            fail_msg("%zu of %zu bytes: status %d (%s)", n, size, rc, err.message);
        assert_true(strncmp(err.message, "image 'cut' ", 12) == 0);
    }
    write_all(path, d, 40);
    km_error err = {0};
    km_image_check(path, "cut", NULL, &err);
    assert_string_equal(err.message, "image 'cut' is truncated: 40 bytes, shorter "
                                     "than an ELF64 header (64 bytes)");
    write_all(path, d, size - 1);
    km_image_check(path, "cut", NULL, &err);
    assert_contains(err.message, "image 'cut' is truncated or corrupt: its section "
                                 "headers");
    free(d);
}

/* Sets a little-endian field of `width` bytes at `off`. */
static void poke(unsigned char *d, size_t off, int width, uint64_t v)
{
    for (int i = 0; i < width; i++)
        d[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static void corrupt_headers_are_errors(void **state)
{
    size_t size;
    unsigned char *good = read_all(in_dir("good_s.elf"), &size);
    unsigned char *d = malloc(size);
    Elf64_Ehdr eh;
    memcpy(&eh, good, sizeof eh);
    const char *path = in_dir("bad.elf");
    size_t symtab_sh = 0;
    for (size_t i = 1; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, good + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_type == SHT_SYMTAB)
            symtab_sh = eh.e_shoff + i * sizeof sh;
    }
    assert_true(symtab_sh != 0);
    size_t load_ph = 0;
    for (size_t i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, good + eh.e_phoff + i * sizeof ph, sizeof ph);
        if (ph.p_type == PT_LOAD)
            load_ph = eh.e_phoff + i * sizeof ph;
    }
    assert_true(load_ph != 0);
    struct {
        size_t off;
        int width;
        uint64_t value;
        const char *says;
    } cases[] = {
        {offsetof(Elf64_Ehdr, e_phoff), 8, UINT64_MAX - 8, "program headers"},
        {offsetof(Elf64_Ehdr, e_shoff), 8, UINT64_MAX - 8, "section headers"},
        {offsetof(Elf64_Ehdr, e_shoff), 8, 1, "corrupt"},
        /* Each version field named with its own value, never "is 1, not 1". */
        {EI_VERSION, 1, 2, "its ELF version (e_ident[EI_VERSION]) is 2, not 1"},
        {offsetof(Elf64_Ehdr, e_version), 4, 3, "its ELF version (e_version) is 3, not 1"},
        {offsetof(Elf64_Ehdr, e_shnum), 2, 0xfff0, "section headers"},
        /* Extended numbering with section 0 saying "no sections". */
        {offsetof(Elf64_Ehdr, e_shnum), 2, 0, NULL},
        {offsetof(Elf64_Ehdr, e_shstrndx), 2, SHN_XINDEX, NULL},
        {offsetof(Elf64_Ehdr, e_phnum), 2, 0xfff0, "program headers"},
        {offsetof(Elf64_Ehdr, e_shentsize), 2, 10, "section headers are 10 bytes"},
        {offsetof(Elf64_Ehdr, e_shstrndx), 2, 0x7fff, "section-name table"},
        {symtab_sh + offsetof(Elf64_Shdr, sh_offset), 8, UINT64_MAX - 4, "section"},
        {symtab_sh + offsetof(Elf64_Shdr, sh_size), 8, UINT64_MAX, "section"},
        {symtab_sh + offsetof(Elf64_Shdr, sh_name), 4, 0x7fffffff, "name of section"},
        /* A symbol table whose string table is nonsense: measured without
         * names, never read out of bounds. */
        {symtab_sh + offsetof(Elf64_Shdr, sh_link), 4, 0xffff, NULL},
        {symtab_sh + offsetof(Elf64_Shdr, sh_entsize), 8, 7, NULL},
        {load_ph + offsetof(Elf64_Phdr, p_filesz), 8, UINT64_MAX, "runs past the end"},
        {load_ph + offsetof(Elf64_Phdr, p_vaddr), 8, UINT64_MAX - 16, "outside"},
        {load_ph + offsetof(Elf64_Phdr, p_vaddr), 8, BH_LIM_BASE + 126900, "over the"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(d, good, size);
        poke(d, cases[c].off, cases[c].width, cases[c].value);
        write_all(path, d, size);
        km_error err = {0};
        km_image_info info;
        int rc = km_image_check(path, "bad", &info, &err);
        if (cases[c].says) {
            if (rc != KM_EXIT_BUILD || !strstr(err.message, cases[c].says))
                fail_msg("case %zu: status %d, \"%s\" not in: %s", c, rc,
                         cases[c].says, err.message);
        } else if (rc != KM_OK && rc != KM_EXIT_BUILD) {
            fail_msg("case %zu: status %d: %s", c, rc, err.message);
        }
    }
    free(d);
    free(good);
}

/* Random damage (a fixed seed, so a failure can be repeated): whatever the
 * verdict, it must be reached without reading outside the file, which the
 * sanitizer build checks. */
static void random_damage_never_crashes(void **state)
{
    size_t size;
    unsigned char *good = read_all(in_dir("good_c.elf"), &size);
    unsigned char *d = malloc(size);
    const char *path = in_dir("fuzz.elf");
    uint64_t x = 0x9e3779b97f4a7c15u;
    Elf64_Ehdr eh;
    memcpy(&eh, good, sizeof eh);
    for (int round = 0; round < 1500; round++) {
        memcpy(d, good, size);
        for (int k = 0; k < 1 + round % 4; k++) {
            test_random(&x);
            /* Mostly the headers and tables, where damage matters. */
            size_t off;
            switch (x % 4) {
            case 0: off = (x >> 8) % sizeof eh; break;
            case 1: off = eh.e_shoff + (x >> 8) % (size - eh.e_shoff); break;
            case 2: off = eh.e_phoff + (x >> 8) % (eh.e_phnum * sizeof(Elf64_Phdr)); break;
            default: off = (x >> 8) % size; break;
            }
            d[off] = (unsigned char)(x >> 32);
        }
        write_all(path, d, size);
        km_error err = {0};
        km_image_info info;
        int rc = km_image_check(path, "fuzz", &info, &err);
        assert_true(rc == KM_OK || rc == KM_EXIT_BUILD);
        rc = km_so_check_handlers(path, (const char *const[]){"fill"}, 1, &err);
        assert_true(rc == KM_EXIT_BUILD);
    }
    free(d);
    free(good);
}

/* ---- kernel handlers ------------------------------------------------- */

static void handlers_defined_pass(void **state)
{
    km_error err = {0};
    const char *const ok[] = {"fill", "sum"}; /* sum is weak: also found */
    int rc = km_so_check_handlers(in_dir("handlers.so"), ok, 2, &err);
    if (rc != KM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(km_so_check_handlers(in_dir("handlers.so"), NULL, 0, &err), KM_OK);
}

static void missing_handler_message(void **state)
{
    km_error err = {0};
    const char *const h[] = {"fill", "tally"};
    assert_int_equal(km_so_check_handlers(in_dir("handlers.so"), h, 2, &err),
                     KM_EXIT_BUILD);
    assert_string_equal(err.message,
                        "kernels: handler 'tally' is declared in the manifest but "
                        "no kernel source defines km_handler_tally (expected "
                        "KM_HANDLER(tally) { ... })");
}

static void misspelt_handler_is_suggested(void **state)
{
    km_error err = {0};
    const char *const h[] = {"scan"};
    assert_int_equal(km_so_check_handlers(in_dir("handlers.so"), h, 1, &err),
                     KM_EXIT_BUILD);
    assert_string_equal(err.message,
                        "kernels: handler 'scan' is declared in the manifest but "
                        "no kernel source defines km_handler_scan (expected "
                        "KM_HANDLER(scan) { ... }); a kernel defines "
                        "KM_HANDLER(scna): is one of the two names misspelt?");
    /* Not when the near name is itself a declared handler. */
    const char *const both[] = {"scan", "scna"};
    assert_int_equal(km_so_check_handlers(in_dir("handlers.so"), both, 2, &err),
                     KM_EXIT_BUILD);
    assert_lacks(err.message, "misspelt");
}

static void every_wrong_handler_in_one_message(void **state)
{
    km_error err = {0};
    const char *const h[] = {"fill", "stat", "hide", "data", "tally"};
    assert_int_equal(km_so_check_handlers(in_dir("handlers.so"), h, 5, &err),
                     KM_EXIT_BUILD);
    const char *lines[] = {
        "kernels: handler 'stat' is declared in the manifest but km_handler_stat "
        "is not exported (it is static, or has hidden visibility), so the grid "
        "cannot find it (expected KM_HANDLER(stat) { ... }, not static, built "
        "without -fvisibility=hidden)\n",
        "kernels: handler 'hide' is declared in the manifest but km_handler_hide "
        "is not exported",
        "\nkernels: handler 'data' is declared in the manifest but km_handler_data "
        "is a variable, not a function (expected KM_HANDLER(data) { ... })\n",
        "\nkernels: handler 'tally' is declared",
    };
    for (size_t i = 0; i < 4; i++)
        assert_contains(err.message, lines[i]);
    assert_true(strncmp(err.message, lines[0], strlen(lines[0])) == 0);

    /* Stripped of .symtab, a static one is simply not there. */
    assert_int_equal(km_so_check_handlers(in_dir("stripped.so"), h + 1, 1, &err),
                     KM_EXIT_BUILD);
    assert_contains(err.message, "no kernel source defines km_handler_stat");
}

static void handler_check_wants_a_host_shared_object(void **state)
{
    km_error err = {0};
    const char *const h[] = {"fill"};
    assert_int_equal(km_so_check_handlers(in_dir("good_s.elf"), h, 1, &err),
                     KM_EXIT_BUILD);
    assert_contains(err.message, "good_s.elf' is an ELF file for RISC-V, not for "
                                 "this host");
    assert_int_equal(km_so_check_handlers(in_dir("text.elf"), h, 1, &err),
                     KM_EXIT_BUILD);
    assert_contains(err.message, "text.elf' is not an ELF file");
    assert_int_equal(km_so_check_handlers(in_dir("none.so"), h, 1, &err),
                     KM_EXIT_SYSTEM);
    assert_contains(err.message, "cannot open '");

    size_t size;
    unsigned char *d = read_all(in_dir("handlers.so"), &size);
    for (size_t n = 0; n < size; n += n < 128 ? 1 : 97) {
        write_all(in_dir("cut.so"), d, n);
        assert_int_equal(km_so_check_handlers(in_dir("cut.so"), h, 1, &err),
                         KM_EXIT_BUILD);
    }
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_image_has_exact_sizes),
        cmocka_unit_test(inspect_agrees_with_check),
        cmocka_unit_test(c_image_passes),
        cmocka_unit_test(too_large_names_sizes_and_symbol),
        cmocka_unit_test(bss_globals_are_named),
        cmocka_unit_test(sbss_global_is_named),
        cmocka_unit_test(common_symbol_is_caught),
        cmocka_unit_test(wrong_entry_point),
        cmocka_unit_test(segment_below_the_image_area_and_bss_together),
        cmocka_unit_test(constructors_are_named),
        cmocka_unit_test(undefined_symbols_are_named),
        cmocka_unit_test(not_an_elf_file),
        cmocka_unit_test(unreadable_file_is_a_system_error),
        cmocka_unit_test(foreign_elf_files),
        cmocka_unit_test(every_truncation_is_an_error),
        cmocka_unit_test(corrupt_headers_are_errors),
        cmocka_unit_test(random_damage_never_crashes),
        cmocka_unit_test(handlers_defined_pass),
        cmocka_unit_test(missing_handler_message),
        cmocka_unit_test(misspelt_handler_is_suggested),
        cmocka_unit_test(every_wrong_handler_in_one_message),
        cmocka_unit_test(handler_check_wants_a_host_shared_object),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
