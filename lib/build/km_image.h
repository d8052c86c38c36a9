/* km_image: what kmrun checks in the files a build produces, before they
 * are cached (DESIGN.md, "Build and cache").
 *
 * - A thread image is a RISC-V ELF64 executable (EM_RISCV, ELFCLASS64,
 *   little endian, ET_EXEC).  The loader copies its PT_LOAD segments into the
 *   first BH_IMAGE_MAX_BYTES (126,976) bytes of the cluster's local memory
 *   at BH_LIM_BASE and jumps to BH_LIM_BASE.  Nothing zeroes memory for the
 *   image, so an image may have no .bss/.sbss/COMMON, and nothing runs
 *   constructors; there is no libc, so nothing may be left undefined.
 *   km_image_inspect() measures an image, km_image_check() rejects one that
 *   breaks these rules.
 * - A failed link is explained by km_link_log_explain(), which turns GNU ld's
 *   (or lld's) "undefined reference" lines into one message that says why a
 *   C library function was called and where (and a region overflow into
 *   the image's size).
 * - The kernels' shared object (host ELF, loaded by the simulated grid) must
 *   export km_handler_<name> for every handler of the manifest:
 *   km_so_check_handlers().
 *
 * Files are read whole with <elf.h> and every offset, size and index in them
 * is bounds-checked: a truncated or corrupt file is a KM_EXIT_BUILD error,
 * never a crash; an unreadable one is KM_EXIT_SYSTEM.  Messages quote the
 * subject, write numbers with thousands separators (126,976), and may span
 * several lines: the first says what failed, the indented ones below it say
 * which symbol or section and what to do. */
#ifndef KM_IMAGE_H
#define KM_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "km_error.h"

#define KM_IMAGE_TOP_SYMBOLS 5 /* largest symbols kept for messages */

typedef struct km_image_symbol {
    char name[128];   /* cut to fit, ending in "...", if longer */
    char section[32]; /* the section it is defined in, e.g. ".rodata" */
    uint64_t addr;
    uint64_t size;    /* st_size, bytes */
} km_image_symbol;

typedef struct km_image_info {
    uint64_t entry;        /* e_entry */
    /* Bytes of allocated sections with file content, by name: */
    uint64_t text_bytes;   /* .text, .text.* */
    uint64_t rodata_bytes; /* .rodata*, .srodata* */
    uint64_t data_bytes;   /* .data*, .sdata* */
    uint64_t other_bytes;  /* loadable_bytes less the three above: other
                              sections (.eh_frame, .init_array, ...) and
                              alignment padding */
    uint64_t bss_bytes;    /* allocated SHT_NOBITS sections (.bss, .sbss,
                              ...): zero-fill; km_image_check wants 0 */
    /* The addresses the PT_LOAD segments with file content cover,
     * [load_start, load_end); both 0 when there is none. */
    uint64_t load_start, load_end;
    /* What must fit in the image area: load_end - BH_LIM_BASE (from the
     * lowest segment instead if one starts below BH_LIM_BASE). */
    uint64_t loadable_bytes;
    /* The largest defined symbols in allocated sections with file content
     * (what takes image bytes), largest first. */
    km_image_symbol largest[KM_IMAGE_TOP_SYMBOLS];
    size_t nlargest;
} km_image_info;

/* Reads the thread image at `path` and fills *info.  Fails (KM_EXIT_BUILD)
 * when it is not a well-formed RISC-V ELF64 little-endian executable, with
 * KM_EXIT_SYSTEM when it cannot be read.  Checks none of the image rules. */
int km_image_inspect(const char *path, km_image_info *info, km_error *err);

/* Inspects the image at `path` (into *info when info is not NULL, filled
 * whenever the file could be read as an image, also when it is rejected),
 * then applies the image rules: the entry point is BH_LIM_BASE; every
 * PT_LOAD lies in [BH_LIM_BASE, BH_LIM_BASE + BH_IMAGE_MAX_BYTES); no
 * allocated SHT_NOBITS section (.bss, .sbss) has bytes and no symbol is
 * COMMON; no constructor or destructor is listed (.init_array, .fini_array,
 * .ctors, .dtors: nothing would call them); no named, non-weak symbol is
 * undefined.  Every rule broken is
 * reported, in that order, in one message about "image '<display_name>'"
 * (the path when display_name is NULL).  KM_OK or KM_EXIT_BUILD (or the
 * errors of km_image_inspect). */
int km_image_check(const char *path, const char *display_name,
                   km_image_info *info, km_error *err);

/* Turns the output of a failed link of image `display_name` into one
 * message: each undefined symbol once, in the order of the log, with the
 * first place that references it (file:line when the object has debug
 * information, else the file and function) and why it is missing (see
 * km_image_explain_symbol).  Understands GNU ld's and lld's wording.  Also
 * explains a linker-script region that overflowed (kmx.ld's IMAGE region
 * is the image area), though without the symbols: the linker wrote no image
 * to measure.  Returns KM_EXIT_BUILD with that message, or KM_OK (err
 * untouched) when the log holds neither: the caller then shows the raw log. */
int km_link_log_explain(const char *linker_output, const char *display_name,
                        km_error *err);

/* Writes into buf (always NUL-terminated when n > 0) one sentence on why
 * `symbol` is undefined in an image and what to do instead: for the C
 * library's and libgcc's functions the construct that produces the call
 * (a struct assignment becomes 'memset'...); for any other name that
 * nothing defines it.  Returns 1 when the symbol is a known C library or
 * compiler runtime function, else 0. */
int km_image_explain_symbol(const char *symbol, char *buf, size_t n);

/* Checks that the kernels' shared object at `so_path` (an ELF64 shared
 * object for this host) defines every handler: handlers[i] must be a
 * defined, exported (global, or weak) function `km_handler_<handlers[i]>`
 * in .dynsym, as KM_HANDLER(name) { ... } makes one.  Reports every missing
 * handler in one message (static, hidden, or not a function are said so;
 * a near-miss name a kernel does define is suggested).  KM_OK,
 * KM_EXIT_BUILD, or KM_EXIT_SYSTEM when the file cannot be read. */
int km_so_check_handlers(const char *so_path, const char *const *handlers,
                         size_t n, km_error *err);

#endif
