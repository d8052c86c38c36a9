/* ks_mem.c: big zeroed buffers, mapped at once (ks_mem.h). */
#include "ks_mem.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE_BYTES ((size_t)2 << 20) /* an x86-64 huge page */

/* n rounded up to whole huge pages, mapped at a huge page's boundary, and
 * asked for as huge pages (the kernel may give 4 KiB ones all the same);
 * NULL when that cannot be mapped. */
static void *map_huge(size_t n)
{
    size_t span = n + HUGE_BYTES;
    uint8_t *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uint8_t *p = (uint8_t *)(((uintptr_t)raw + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    if (p > raw)
        (void)munmap(raw, (size_t)(p - raw));
    if (raw + span > p + n)
        (void)munmap(p + n, (size_t)(raw + span - (p + n)));
#ifdef MADV_HUGEPAGE
    (void)madvise(p, n, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
    (void)madvise(p, n, MADV_POPULATE_WRITE); /* else: faulted in as touched */
#endif
    return p;
}

/* What ks_mem_alloc(n) maps: from a huge page on, whole huge pages. */
static size_t mapped(size_t n)
{
    if (n == 0)
        return 1; /* a page all the same, as malloc(0) gives something */
    return n >= HUGE_BYTES && n <= SIZE_MAX - HUGE_BYTES ? (n + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1)
                                                         : n;
}

void *ks_mem_alloc(size_t n)
{
    n = mapped(n);
    if (n % HUGE_BYTES == 0) {
        void *p = map_huge(n);
        if (p)
            return p;
    }
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void ks_mem_free(void *p, size_t n)
{
    if (p)
        (void)munmap(p, mapped(n));
}
