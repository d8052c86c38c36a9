/* km_ports: the X280 ports' dealing and a cluster's table (km_ports.h). */
#include "km_ports.h"

#include <string.h>

/* A cluster holds a window per Tensix core it serves: the whole grid fits
 * one cluster's windows, so no dealing can overflow them today (the check
 * in km_ports_settings_of stays for a bigger grid). */
_Static_assert(BH_GRID_CORES <= KMX_WINDOW_PORTS_COUNT, "a cluster can serve the whole grid");

unsigned km_ports_clusters(const km_program *p, int clusters[BH_WORK_CLUSTERS])
{
    unsigned n = 0;
    for (int c = 1; c <= (int)BH_WORK_CLUSTERS; c++)
        if (km_program_thread_on(p, c))
            clusters[n++] = c;
    return n;
}

bool km_ports_deal(const km_program *p, km_port_dealing *d)
{
    memset(d, 0, sizeof *d);
    switch (p->ports.kind) {
    case KM_PORTS_NONE:
        return false;
    case KM_PORTS_SERVE:
        for (size_t i = 0; i < p->ports.nserve; i++) {
            const km_port_serve *s = &p->ports.serve[i];
            if (s->core < 0 || s->core >= (int)BH_GRID_CORES)
                continue; /* the manifest reader let none through */
            d->cluster[s->core] = (uint8_t)s->cluster;
            d->x280_core[s->core] = (uint8_t)s->x280_core;
        }
        return true;
    case KM_PORTS_DEFAULT:
        break;
    }
    int clusters[BH_WORK_CLUSTERS];
    unsigned nclusters = km_ports_clusters(p, clusters);
    unsigned n = nclusters * BH_CLUSTER_CORES; /* the program's X280 cores */
    for (unsigned core = 0; n && core < BH_GRID_CORES; core++) {
        unsigned k = core * n / BH_GRID_CORES; /* contiguous blocks, in grid order */
        d->cluster[core] = (uint8_t)clusters[k / BH_CLUSTER_CORES];
        d->x280_core[core] = (uint8_t)(k % BH_CLUSTER_CORES);
    }
    return true;
}

unsigned km_ports_served(const km_port_dealing *d, int cluster)
{
    unsigned n = 0;
    for (unsigned core = 0; core < BH_GRID_CORES; core++)
        n += d->cluster[core] == cluster;
    return n;
}

int km_ports_settings_of(const km_port_dealing *d, int cluster, kmx_ports_settings *s,
                         km_error *err)
{
    memset(s, 0, sizeof *s);
    unsigned served = km_ports_served(d, cluster);
    if (served > KMX_WINDOW_PORTS_COUNT)
        return km_fail(err, KM_EXIT_USAGE,
                       "cluster %d serves %u Tensix cores through X280 ports, more than its "
                       "%u port windows",
                       cluster, served, KMX_WINDOW_PORTS_COUNT);
    s->enabled = 1;
    s->served = served;
    s->window_first = KMX_WINDOW_PORTS_FIRST;
    for (unsigned core = 0; core < BH_GRID_CORES; core++)
        if (d->cluster[core] == cluster)
            s->cores = core + 1;
    s->control = KM_CONTROL_X280_L1;
    return KM_OK;
}

void km_ports_area_of(const km_port_dealing *d, int cluster, kmx_ports_area *a)
{
    memset(a, 0, sizeof *a);
    unsigned rank = 0;
    for (unsigned core = 0; core < BH_GRID_CORES; core++) {
        kmx_port_entry *e = &a->table[core];
        e->noc_x = (uint8_t)BH_TENSIX_TILE_X(core);
        e->noc_y = (uint8_t)BH_TENSIX_TILE_Y(core);
        if (d->cluster[core] == cluster) {
            e->x280_core = d->x280_core[core];
            e->window = (uint16_t)(KMX_WINDOW_PORTS_FIRST + rank++);
        } else {
            e->x280_core = KMX_PORT_NONE;
        }
    }
}
