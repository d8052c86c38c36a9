/* km_plan: region placement and argument blocks (km_plan.h). */
#include "km_plan.h"

#include <string.h>

#include "km_ports.h"

#define ALIGN64(v) (((v) + 63u) & ~(uint64_t)63u)

static uint32_t bank_of(int cluster)
{
    return (uint32_t)km_cluster_bank(cluster);
}

/* Places `size` bytes of `r` at the bank's next address; the first region
 * that ends past the bank is kept, for the manifest's positioned error. */
static uint64_t place(km_plan *plan, uint64_t *next, uint32_t b, uint64_t size,
                      const km_region *r)
{
    uint64_t at = next[b];
    next[b] = ALIGN64(next[b] + size);
    if (next[b] > BH_BANK_BYTES && !plan->over) {
        plan->over = r;
        plan->over_bank = b;
    }
    return at;
}

int km_plan_make(const km_program *p, km_plan *plan, km_error *err)
{
    memset(plan, 0, sizeof *plan);
    uint64_t next[8];
    for (int b = 0; b < 8; b++)
        next[b] = KM_TENSOR_BASE;
    /* Clusters ascending, whatever the manifest's order. */
    for (int c = 1; c <= (int)BH_WORK_CLUSTERS; c++) {
        const km_thread *t = km_program_thread_on(p, c);
        if (!t)
            continue;
        km_cluster_plan *cp = &plan->clusters[plan->nclusters++];
        cp->cluster = c;
        cp->thread = t;
        cp->bank = bank_of(c);
    }
    /* Check lines first, then shared regions, then own ones (see the header). */
    for (unsigned i = 0; i < plan->nclusters; i++) {
        km_cluster_plan *cp = &plan->clusters[i];
        cp->check_address = next[cp->bank];
        next[cp->bank] += BH_LINE_BYTES;
    }
    for (unsigned i = 0; i < plan->nclusters; i++) {
        km_cluster_plan *cp = &plan->clusters[i];
        if (cp->thread->ring != KM_RING_CACHED)
            continue;
        cp->ring_commands_half = next[cp->bank];
        next[cp->bank] = ALIGN64(next[cp->bank] + KM_RING_COMMANDS_HALF);
        cp->ring_events_half = next[cp->bank];
        next[cp->bank] = ALIGN64(next[cp->bank] + KM_RING_EVENTS_HALF);
    }
    for (size_t r = 0; r < p->nregions; r++) {
        uint64_t placed_at[8] = {0};
        bool placed[8] = {false};
        for (unsigned i = 0; i < plan->nclusters; i++) {
            km_cluster_plan *cp = &plan->clusters[i];
            const km_thread *t = cp->thread;
            for (size_t s = 0; s < t->nshared; s++) {
                if (strcmp(t->shared[s], p->regions[r].name) != 0)
                    continue;
                if (!placed[cp->bank]) {
                    placed_at[cp->bank] = place(plan, next, cp->bank,
                                                p->regions[r].size, &p->regions[r]);
                    placed[cp->bank] = true;
                }
                (void)s;
            }
        }
        for (unsigned i = 0; i < plan->nclusters; i++) {
            km_cluster_plan *cp = &plan->clusters[i];
            const km_thread *t = cp->thread;
            for (size_t s = 0; s < t->nshared; s++) {
                if (strcmp(t->shared[s], p->regions[r].name) != 0)
                    continue;
                km_placed *pl = &cp->regions[t->nregions + s];
                pl->region = &p->regions[r];
                pl->id = (uint32_t)(t->nregions + s);
                pl->bank = cp->bank;
                pl->bank_address = placed_at[cp->bank];
                pl->shared = true;
            }
        }
    }
    for (unsigned i = 0; i < plan->nclusters; i++) {
        km_cluster_plan *cp = &plan->clusters[i];
        const km_thread *t = cp->thread;
        for (size_t r = 0; r < t->nregions; r++) {
            km_placed *pl = &cp->regions[r];
            pl->region = &t->regions[r];
            pl->id = (uint32_t)r;
            pl->bank = cp->bank;
            pl->bank_address = place(plan, next, cp->bank, t->regions[r].size,
                                     &t->regions[r]);
        }
        cp->nregions = (uint32_t)(t->nregions + t->nshared);
    }
    /* The interleaved tensors: one base, past everything, in every bank. */
    for (size_t r = 0; r < p->nregions; r++) {
        const km_region *reg = &p->regions[r];
        if (!reg->interleaved)
            continue;
        if (plan->ntensors == KM_MAX_TENSORS)
            return km_fail(err, KM_EXIT_USAGE,
                           "too many interleaved regions (region '%s': expected at most %u)",
                           reg->name, KM_MAX_TENSORS);
        uint64_t base = KM_TENSOR_BASE;
        for (int b = 0; b < 8; b++)
            base = next[b] > base ? next[b] : base;
        uint64_t each = km_interleaved_bank_bytes(reg->page_size, reg->size);
        for (int b = 0; b < 8; b++)
            next[b] = base + each;
        if (base + each > BH_BANK_BYTES && !plan->over) {
            plan->over = reg;
            plan->over_bank = 0;
        }
        plan->tensors[plan->ntensors] = (km_tensor_place){reg->name, base, reg->page_size,
                                                          reg->size};
        plan->tensor_regions[plan->ntensors++] = reg;
    }
    for (int b = 0; b < 8; b++) {
        plan->tensor_bytes[b] = next[b] - KM_TENSOR_BASE;
        if (next[b] > BH_BANK_BYTES)
            return km_fail(err, KM_EXIT_USAGE,
                           "the regions of bank %d take %llu bytes, more than the bank holds", b,
                           (unsigned long long)plan->tensor_bytes[b]);
    }
    /* Every work cluster of a program with ports gets the settings, a
     * cluster that serves no core too (served 0, cores 0). */
    plan->has_ports = km_ports_deal(p, &plan->ports);
    for (unsigned i = 0; plan->has_ports && i < plan->nclusters; i++) {
        km_cluster_plan *cp = &plan->clusters[i];
        int rc = km_ports_settings_of(&plan->ports, cp->cluster, &cp->ports, err);
        if (rc != KM_OK)
            return rc;
    }
    return KM_OK;
}

const km_cluster_plan *km_plan_cluster(const km_plan *plan, int cluster)
{
    for (unsigned i = 0; i < plan->nclusters; i++)
        if (plan->clusters[i].cluster == cluster)
            return &plan->clusters[i];
    return NULL;
}

uint64_t km_plan_check_value(uint64_t nonce, int cluster)
{
    /* splitmix64 of the nonce and the cluster: a different value per
     * cluster and run, and never 0 (which a zeroed bank would match). */
    uint64_t z = nonce + 0x9e3779b97f4a7c15ull * (uint64_t)(cluster + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z ? z : 1;
}

/* The ring line: each half where its reader is (kmx_layout.h). */
static void ring_line(const km_cluster_plan *cp, kmx_ring_descriptor *r)
{
    r->command_depth = KMX_RING_COMMAND_DEPTH;
    r->event_depth = KMX_RING_EVENT_DEPTH;
    r->window = KMX_WINDOW_RING;
    if (cp->thread->ring == KM_RING_CACHED) {
        r->kind = KMX_RING_CACHED;
        r->noc_x = (uint16_t)BH_BANK_TILE_X(cp->bank);
        r->noc_y = (uint16_t)BH_BANK_TILE_Y(cp->bank);
        r->read_line = cp->ring_commands_half;
        r->commands = cp->ring_commands_half + 64u;
        r->counts = cp->ring_events_half;
        r->events = cp->ring_events_half + 64u;
        return;
    }
    r->kind = KMX_RING_REMOTE;
    r->noc_x = (uint16_t)BH_CLUSTER_TILE_X(0u);
    r->noc_y = (uint16_t)BH_CLUSTER_TILE_Y(0u);
    r->read_line = KMX_DISPATCH_RING_AREA(cp->cluster);
    r->commands = KMX_DISPATCH_RING_AREA(cp->cluster) + 64u;
    r->counts = KMX_LIM_RING_COUNTS;
    r->events = KMX_LIM_RING_EVENTS;
}

void km_plan_args(const km_program *p, const km_plan *plan, int cluster, uint64_t nonce,
                  kmx_args *a)
{
    memset(a, 0, sizeof *a);
    const km_cluster_plan *cp = km_plan_cluster(plan, cluster);
    const km_thread *t = cp->thread;
    a->magic = KMX_ARGS_MAGIC;
    a->version = KMX_LAYOUT_VERSION;
    a->nonce = nonce;
    a->cluster = (uint32_t)cluster;
    uint32_t lead = 0;
    for (size_t i = 0; i < t->nclusters; i++) {
        a->clusters |= 1u << t->clusters[i];
        if (!lead || (uint32_t)t->clusters[i] < lead)
            lead = (uint32_t)t->clusters[i];
    }
    a->lead = lead;
    a->bank = cp->bank;
    a->deadline = t->deadline_us * (BH_TICKS_PER_SECOND / 1000000u);
    a->prefetch = t->prefetch == KM_PREFETCH_KEEP ? KMX_PREFETCH_KEEP : KMX_PREFETCH_SET;
    a->nregions = cp->nregions;
    a->nwords = (uint32_t)t->nwords;
    a->x280_mhz = p->x280_mhz;
    a->check.bank_address = cp->check_address;
    a->check.value = km_plan_check_value(nonce, cluster);
    ring_line(cp, &a->ring);
    for (uint32_t i = 0; i < cp->nregions; i++) {
        a->regions[i].bank_address = cp->regions[i].bank_address;
        a->regions[i].bytes = cp->regions[i].region->size;
        a->regions[i].bank = cp->regions[i].bank;
        a->regions[i].flags = cp->regions[i].shared ? KMX_REGION_SHARED : 0;
    }
    for (size_t i = 0; i < t->nwords; i++)
        a->words[i] = t->words[i];
    a->ports = cp->ports;
    if (p->pull.present) {
        a->pull.present = 1;
        a->pull.units = p->pull.units;
        a->pull.per = p->pull.per;
        a->pull.mode = p->pull.mode == KM_PULL_MODE_LOG      ? KMX_PULL_LOG
                       : p->pull.mode == KM_PULL_MODE_REPLAY ? KMX_PULL_REPLAY
                                                             : KMX_PULL_COUNT;
        for (uint32_t i = 0; p->pull.log && i < cp->nregions; i++)
            if (strcmp(cp->regions[i].region->name, p->pull.log) == 0)
                a->pull.log = i;
    }
    for (unsigned i = 0; i < plan->nclusters; i++) {
        const km_cluster_plan *o = &plan->clusters[i];
        if (o->thread != t)
            continue;
        kmx_peer *peer = &a->peers[o->cluster - 1];
        peer->present = 1;
        peer->bank = o->bank;
        peer->noc_x = (uint16_t)BH_CLUSTER_TILE_X((uint32_t)o->cluster);
        peer->noc_y = (uint16_t)BH_CLUSTER_TILE_Y((uint32_t)o->cluster);
        peer->bank_x = (uint16_t)BH_BANK_TILE_X(o->bank);
        peer->bank_y = (uint16_t)BH_BANK_TILE_Y(o->bank);
        peer->lim = BH_NOC_LIM_BASE;
        peer->bank_base = 0; /* a bank tile's NoC address is the bank address */
        for (uint32_t r = 0; r < o->nregions; r++)
            peer->region_bank_address[r] = o->regions[r].bank_address;
    }
    a->seal.nonce = nonce;
    a->seal.seal = KMX_ARGS_SEAL;
}
