/* grid_tensor.c: km_device.h's interleaved tensors — the table
 * km_tensor_of reads, and a tensor's bytes moved a page at a time through
 * km_noc_read and km_noc_write (each page its own request to its bank,
 * queued there with everyone else's: sim_bank.h). */
#include <string.h>

#include "grid_internal.h"

void sim_grid_set_tensors(sim_grid *g, const km_tensor_place *table, unsigned n)
{
    g->tensors = table;
    g->ntensors = n;
}

int km_tensor_of(const km_core *c, const char *name, km_tensor *t)
{
    const sim_grid *g = c->grid;
    ((km_core *)c)->call_from = __builtin_return_address(0); /* name and t are the handler's */
    int found = -1;
    for (unsigned i = 0; found < 0 && name && i < g->ntensors; i++) {
        const km_tensor_place *p = &g->tensors[i];
        if (strcmp(p->name, name) != 0)
            continue;
        *t = (km_tensor){.base = p->base, .page_size = p->page_size, .bytes = p->bytes};
        found = 0;
    }
    ((km_core *)c)->call_from = NULL;
    return found;
}

static bool in_tensor(const km_tensor *t, uint64_t offset, uint64_t n)
{
    return t && t->page_size > 0 && offset <= t->bytes && n <= t->bytes - offset;
}

int km_tensor_read(km_core *c, const km_tensor *t, uint64_t offset, void *dst, uint64_t n)
{
    if (!in_tensor(t, offset, n))
        return -1;
    unsigned char *to = dst;
    while (n > 0) {
        unsigned bank;
        uint64_t at, k = km_interleaved_at(t->base, t->page_size, offset, &bank, &at);
        if (k > n)
            k = n;
        if (km_noc_read(c, bank, at, to, k) != 0)
            return -1;
        to += k;
        offset += k;
        n -= k;
    }
    return 0;
}

int km_tensor_write(km_core *c, const km_tensor *t, uint64_t offset, const void *src,
                    uint64_t n)
{
    if (!in_tensor(t, offset, n))
        return -1;
    const unsigned char *from = src;
    while (n > 0) {
        unsigned bank;
        uint64_t at, k = km_interleaved_at(t->base, t->page_size, offset, &bank, &at);
        if (k > n)
            k = n;
        if (km_noc_write(c, bank, at, from, k) != 0)
            return -1;
        from += k;
        offset += k;
        n -= k;
    }
    return 0;
}
