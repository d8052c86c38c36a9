/* ks_grow: making room in a growing array (ks_grow.h). */
#include "ks_grow.h"

#include <stdint.h>
#include <stdlib.h>

bool ks_grow(void **items, size_t *cap, size_t need, size_t size)
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
