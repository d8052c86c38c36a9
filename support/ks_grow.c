/* ks_grow: making room in a growing array (ks_grow.h). */
#include "ks_grow.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool ks_grow_more(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    /* No object may be larger than PTRDIFF_MAX bytes (C's pointer
     * differences; glibc's malloc refuses more): a larger byte count
     * fails here, without asking the allocator. */
    const size_t most = PTRDIFF_MAX;
    if (!size || need > most / size)
        return false;
    size_t n = *cap ? *cap : KS_GROW_START;
    while (n < need)
        n = n > most / 2 ? need : n * 2;
    if (n > most / size)
        n = need; /* doubling would pass the limit: exactly what is needed */
    void *grown = realloc(*items, n * size);
    if (!grown)
        return false;
    *items = grown;
    *cap = n;
    return true;
}

bool ks_grow_zeroed(void **items, size_t *cap, size_t need, size_t size)
{
    size_t was = *cap;
    if (!ks_grow(items, cap, need, size))
        return false;
    memset((char *)*items + was * size, 0, (*cap - was) * size);
    return true;
}
