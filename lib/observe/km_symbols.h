/* km_symbols: where an address is in an image's sources, for everything
 * that shows a thread's code to a person (a trap's line, a stuck core's,
 * a profile's frames, a trace's lines).  The cached image keeps its DWARF
 * (built with -g), so the toolchain's own addr2line answers; kmrun does
 * not read DWARF itself.  When it cannot say (no tool, no line
 * information) the source is unknown (known false): a missing line never
 * fails anything. */
#ifndef KM_SYMBOLS_H
#define KM_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where an address is in a thread's sources (the image's DWARF). */
typedef struct km_source {
    bool known;
    char file[512];     /* as the debug information names it, "./" dropped */
    unsigned line;
    bool has_function;
    char function[256];
} km_source;

/* The RISC-V toolchain's addr2line: the one beside the compiler
 * ($KMRUN_CC with "gcc" replaced by "addr2line"), else
 * riscv64-unknown-elf-addr2line.  Allocated; NULL when memory ran out. */
char *km_symbols_tool(void);

/* Looks up `address` in `image` (a thread image, an X280 ELF) with the
 * toolchain's addr2line; src->known false when it cannot say. */
void km_source_lookup(const char *image, uint64_t address, km_source *src);

/* The same for an offset in a host shared object (a host fallback), with
 * the host's addr2line. */
void km_host_source_lookup(const char *object, uint64_t offset, km_source *src);

/* Addresses in order (qsort's and bsearch's), and a[0..n) sorted with
 * each address once: the new count. */
int km_address_cmp(const void *a, const void *b);
size_t km_addresses_unique(uint64_t *a, size_t n);

/* Many addresses of one image at once, with one addr2line: out[i] is
 * where addresses[i] is — the innermost frame, an inlined function's own
 * line when the compiler inlined it.  Every out[i] is set (unknown where
 * it cannot say).  Allocation failure leaves them unknown too.
 * memo_path (NULL: none) names a file that keeps the answers for an
 * image that never changes (one in the build cache): addresses it holds
 * are not asked again, and new answers are added to it (best effort:
 * a memo that cannot be read or written only costs the tool's time). */
void km_source_lookup_many(const char *image, const char *memo_path, const uint64_t *addresses,
                           size_t n, km_source *out);

#endif
