/* ks_grow: making room in a growing array (ks_grow.h). */
#include "ks_grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool ks_grow_more(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    if (!size || need > SIZE_MAX / size)
        return false;
    size_t n = *cap ? *cap : KS_GROW_START;
    while (n < need)
        n = n > SIZE_MAX / 2 ? need : n * 2;
    if (n > SIZE_MAX / size)
        n = need; /* doubling would overflow: exactly what is needed */
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
