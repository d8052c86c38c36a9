/* ks_mem.c: big zeroed buffers, mapped at once (ks_mem.h). */
#include "ks_mem.h"

#include <sys/mman.h>

void *ks_mem_alloc(size_t n)
{
    if (n == 0)
        n = 1; /* a page all the same, as malloc(0) gives something */
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void ks_mem_free(void *p, size_t n)
{
    if (p)
        (void)munmap(p, n ? n : 1);
}
