/* sim_wild: what a cluster may write in another's local memory, and the
 * list of the stores that wrote elsewhere (sim_wild.h). */
#include "sim_wild.h"

#include <stddef.h>

#include "kmx_layout.h"

/* [addr, addr + n) inside [base, base + size). */
static bool inside(uint64_t addr, uint64_t n, uint64_t base, uint64_t size)
{
    return addr >= base && n <= size && addr - base <= size - n;
}

bool sim_wild_allowed(unsigned writer, unsigned target, uint64_t addr, uint64_t n)
{
    if (writer == target)
        return true;
    if (target == 0)
        return writer >= 1 && writer <= BH_WORK_CLUSTERS &&
               inside(addr, n, KMX_DISPATCH_RING_AREA(writer), KMX_DISPATCH_RING_AREA_BYTES);
    return inside(addr, n, KMX_LIM_CLUSTER_LINES, KMX_LIM_CLUSTER_LINES_BYTES) ||
           inside(addr, n, KMX_LIM_PORTS + offsetof(kmx_ports_area, line), sizeof(kmx_ports_line)) || inside(addr, n, KMX_LIM_PULL, KMX_LIM_PULL_BYTES);
}

void sim_wild_note(sim_wild_list *l, const sim_wild_write *w)
{
    for (unsigned i = 0; i < l->n; i++) {
        sim_wild_write *e = &l->w[i];
        if (e->cluster != w->cluster || e->core != w->core || e->pc != w->pc ||
            e->target != w->target)
            continue;
        if (w->first < e->first)
            e->first = w->first;
        if (w->end > e->end)
            e->end = w->end;
        e->bytes += w->bytes;
        e->stores++;
        e->last_ps = w->last_ps;
        return;
    }
    if (l->n < SIM_WILD_WRITES_KEPT)
        l->w[l->n++] = *w;
    else
        l->more++;
}
