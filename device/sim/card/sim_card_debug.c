/* sim_card_debug: the card's observers (sim_card_debug.h).  The card keeps
 * each work cluster's hooks (sim_cluster.h) and gives them to the cluster
 * while anyone observes; the cluster turns its cores' probes, watches and
 * traps into events (sim_cluster_debug.c) and this file hands each to its
 * observer.  Changes made during an event are only recorded here (dirty):
 * the cluster installs them between two of the core's instructions,
 * never under a run's feet. */
#include <stdlib.h>
#include <string.h>

#include "sim_card_internal.h"
#include "sim_clock.h"

static bool observed(const sim_card *card)
{
    for (unsigned who = 0; who < SIM_CARD_OBSERVERS; who++)
        if (card->observe[who])
            return true;
    return false;
}

static void dispatch(void *ctx, sim_card_observer who, const sim_card_event *ev)
{
    sim_card *card = ctx;
    if (card->observe[who])
        card->observe[who](card->observe_ctx[who], ev);
}

void sim_card_debug_adopt(sim_card *card, unsigned cluster)
{
    sim_cluster *c = card->clusters[cluster];
    if (!c)
        return;
    sim_cluster_hooks *k = &card->hooks[cluster];
    k->event = dispatch;
    k->ctx = card;
    k->pause = &card->pause;
    k->dirty = k->probes_dirty = true;
    k->leave = false;
    if (observed(card))
        c->hooks = k;
    else if (c->hooks)
        k->leave = true; /* nobody: at the cluster's next install, which may be
                            an observer's event away (a core held inside it) */
    else
        sim_cluster_hooks_install(c); /* nobody: the cores' hooks go */
}

void sim_card_debug_free(sim_card *card)
{
    for (unsigned c = 0; c < BH_CLUSTERS; c++) {
        sim_cluster_hooks *k = &card->hooks[c];
        for (unsigned who = 0; who < SIM_CARD_OBSERVERS; who++)
            free(k->probes[who]);
        if (k->installed_watches != k->watches)
            free(k->installed_watches);
        free(k->watches);
        memset(k, 0, sizeof *k);
    }
}

static sim_cluster_hooks *hooks_of(sim_card *card, unsigned cluster)
{
    return cluster >= 1 && cluster <= BH_WORK_CLUSTERS && card->clusters[cluster]
               ? &card->hooks[cluster]
               : NULL;
}

static int compare_pc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int set_probes(sim_cluster_hooks *k, sim_card_observer who, const uint64_t *pcs,
                      unsigned n)
{
    uint64_t *set = NULL;
    unsigned kept = 0;
    if (n) {
        set = malloc(n * sizeof *set);
        if (!set)
            return -1;
        memcpy(set, pcs, n * sizeof *set);
        qsort(set, n, sizeof *set, compare_pc);
        for (unsigned i = 0; i < n; i++)
            if (kept == 0 || set[kept - 1] != set[i])
                set[kept++] = set[i];
    }
    free(k->probes[who]);
    k->probes[who] = set;
    k->nprobes[who] = kept;
    k->dirty = k->probes_dirty = true;
    return 0;
}

static void set_watches(sim_cluster_hooks *k, sim_watch *set, unsigned n)
{
    /* the installed set stays alive until the cluster installs the next:
     * a core may be in the middle of checking it */
    if (k->watches != k->installed_watches)
        free(k->watches);
    k->watches = set;
    k->nwatches = n;
    k->dirty = true;
}

void sim_card_debug_observe(sim_card *card, sim_card_observer who, sim_card_observe_fn fn,
                            void *ctx)
{
    card->observe[who] = fn;
    card->observe_ctx[who] = ctx;
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++) {
        sim_cluster_hooks *k = &card->hooks[c];
        if (!fn) {
            (void)set_probes(k, who, NULL, 0);
            if (who == SIM_CARD_DEBUGGER) {
                set_watches(k, NULL, 0);
                k->stepping = 0;
                k->catch_traps = false;
            }
        }
        sim_card_debug_adopt(card, c);
    }
}

int sim_card_debug_probes(sim_card *card, sim_card_observer who, unsigned cluster,
                          const uint64_t *pcs, unsigned n, ks_error *err)
{
    sim_cluster_hooks *k = hooks_of(card, cluster);
    if (!k)
        return ks_fail(err, KS_ERR_INPUT, "no work cluster %u to probe", cluster);
    if (set_probes(k, who, pcs, n) != 0)
        return ks_fail(err, KS_ERR_SYSTEM, "out of memory for %u probes", n);
    return KS_OK;
}

int sim_card_debug_watch(sim_card *card, unsigned cluster, const sim_card_watch *w, unsigned n,
                         ks_error *err)
{
    sim_cluster_hooks *k = hooks_of(card, cluster);
    if (!k)
        return ks_fail(err, KS_ERR_INPUT, "no work cluster %u to watch", cluster);
    sim_watch *set = NULL;
    if (n) {
        set = calloc(n, sizeof *set);
        if (!set)
            return ks_fail(err, KS_ERR_SYSTEM, "out of memory for %u watches", n);
        for (unsigned i = 0; i < n; i++)
            set[i] = (sim_watch){w[i].addr, w[i].len, w[i].load, w[i].store};
    }
    set_watches(k, set, n);
    return KS_OK;
}

void sim_card_debug_step(sim_card *card, unsigned cluster, unsigned core, bool on)
{
    sim_cluster_hooks *k = hooks_of(card, cluster);
    if (!k || core >= BH_CLUSTER_CORES)
        return;
    unsigned bit = 1u << core;
    if (((k->stepping & bit) != 0) != on)
        k->dirty = true; /* a free run ends so that the core steps */
    k->stepping = on ? k->stepping | bit : k->stepping & ~bit;
}

void sim_card_debug_release_trigger(sim_card *card, unsigned cluster, bool execute, bool load,
                                    bool store, uint64_t addr)
{
    if (!hooks_of(card, cluster))
        return;
    sim_cluster *c = card->clusters[cluster];
    for (unsigned k = 0; k < BH_CLUSTER_CORES; k++)
        if (c->started[k])
            sim_hart_trigger_release(
                sim_cluster_hart(c, k), sim_hart_trigger_claimed(sim_cluster_hart(c, k), execute, load, store, addr));
}

int sim_card_debug_claim_trigger(sim_card *card, unsigned cluster, bool execute, bool load,
                                 bool store, uint64_t addr)
{
    if (!hooks_of(card, cluster))
        return -1;
    sim_cluster *c = card->clusters[cluster];
    for (unsigned k = 0; k < BH_CLUSTER_CORES; k++) {
        if (!c->started[k] ||
            sim_hart_trigger_claimed(sim_cluster_hart(c, k), execute, load, store, addr) >= 0)
            continue; /* claimed before: one trigger for the same point */
        if (sim_hart_trigger_claim(sim_cluster_hart(c, k), execute, load, store, addr) < 0) {
            sim_card_debug_release_trigger(card, cluster, execute, load, store, addr);
            return -1;
        }
    }
    return 0;
}

void sim_card_debug_catch_traps(sim_card *card, bool on)
{
    for (unsigned c = 1; c <= BH_WORK_CLUSTERS; c++) {
        sim_cluster_hooks *k = &card->hooks[c];
        if (k->catch_traps != on)
            k->dirty = true; /* the cores' trap hook comes or goes */
        k->catch_traps = on;
    }
}

void sim_card_debug_pause(sim_card *card)
{
    atomic_store_explicit(&card->pause, true, memory_order_release);
}

void sim_card_debug_stuck(sim_card *card, unsigned cluster)
{
    sim_cluster *c = hooks_of(card, cluster) ? card->clusters[cluster] : NULL;
    if (c && c->hooks && !card->parked[cluster])
        sim_cluster_observe_core(c, SIM_CARD_AT_STUCK);
}

static sim_hart *core_hart(sim_card *card, unsigned cluster, unsigned core)
{
    if (!hooks_of(card, cluster) || core >= BH_CLUSTER_CORES)
        return NULL;
    sim_cluster *c = card->clusters[cluster];
    /* sim_cluster_hart: a parked hart is brought up to the cluster's time */
    return c->started[core] ? sim_cluster_hart(c, core) : NULL;
}

int sim_card_debug_get_reg(sim_card *card, unsigned cluster, unsigned core, sim_reg_file file,
                           unsigned num, uint64_t *value)
{
    sim_hart *h = core_hart(card, cluster, core);
    return h ? sim_hart_get_reg(h, file, num, value) : -1;
}

int sim_card_debug_set_reg(sim_card *card, unsigned cluster, unsigned core, sim_reg_file file,
                           unsigned num, uint64_t value)
{
    sim_hart *h = core_hart(card, cluster, core);
    /* The trigger module's: arming one drops the decoded code, which a
     * core held inside an event may be running from. */
    if (file == SIM_REG_CSR && num >= 0x7a0 && num <= 0x7a4)
        return -1;
    return h ? sim_hart_set_reg(h, file, num, value) : -1;
}

int sim_card_debug_state(const sim_card *card, unsigned cluster, unsigned core, bool *running)
{
    sim_hart *h = core_hart((sim_card *)card, cluster, core);
    if (!h)
        return -1;
    *running = h->state == SIM_HART_RUNNING;
    return 0;
}

int sim_card_debug_status(sim_card *card, unsigned cluster, unsigned core, sim_core_status *st)
{
    if (!hooks_of(card, cluster) || core >= BH_CLUSTER_CORES)
        return -1;
    memset(st, 0, sizeof *st);
    sim_hart *h = core_hart(card, cluster, core);
    if (!h)
        return 0; /* not started: idle */
    sim_cluster *c = card->clusters[cluster];
    sim_hart_status(h, st);
    st->ps = sim_cycles_to_ps(sim_cluster_mem_time(&c->m, h), c->m.mhz);
    return 0;
}

/* One access of the debugger's, inside one of the core's places. */
typedef enum place { NOWHERE, LIM, CACHED, UNCACHED, MTIME } place;

static place place_of(uint64_t addr, uint64_t n, uint64_t *offset)
{
    if (addr >= BH_LIM_BASE && addr - BH_LIM_BASE < BH_LIM_BYTES &&
        BH_LIM_BYTES - (addr - BH_LIM_BASE) >= n) {
        *offset = addr - BH_LIM_BASE;
        return LIM;
    }
    if (addr >= BH_DRAM_CACHED_BASE && addr - BH_DRAM_CACHED_BASE < BH_BANK_BYTES &&
        BH_BANK_BYTES - (addr - BH_DRAM_CACHED_BASE) >= n) {
        *offset = addr - BH_DRAM_CACHED_BASE;
        return CACHED;
    }
    if (addr >= BH_DRAM_UNCACHED_BASE && addr - BH_DRAM_UNCACHED_BASE < BH_BANK_BYTES &&
        BH_BANK_BYTES - (addr - BH_DRAM_UNCACHED_BASE) >= n) {
        *offset = addr - BH_DRAM_UNCACHED_BASE;
        return UNCACHED;
    }
    if (addr >= BH_MTIME && addr - BH_MTIME < 8 && 8 - (addr - BH_MTIME) >= n) {
        *offset = addr - BH_MTIME;
        return MTIME;
    }
    return NOWHERE;
}

/* The cached copy of the line holding bank address a, or NULL. */
static uint8_t *cached_line(sim_cache *cache, uint64_t a)
{
    unsigned i = sim_cache_index(a);
    return sim_cache_holds(cache, i, a) ? cache->data[i] : NULL;
}

/* Bank bytes as the core sees them through the cached window: line by
 * line, the cache's copy where it holds one. */
static int cached_access(sim_cluster *c, uint64_t a, uint8_t *buf, const uint8_t *src, uint64_t n)
{
    while (n) {
        uint64_t in_line = BH_LINE_BYTES - a % BH_LINE_BYTES;
        uint64_t k = n < in_line ? n : in_line;
        uint8_t *line = cached_line(&c->m.cache, a);
        if (line && src)
            memcpy(line + a % BH_LINE_BYTES, src, k);
        else if (line)
            memcpy(buf, line + a % BH_LINE_BYTES, k);
        else if (src && sim_dram_write(c->m.dram, c->m.bank, a, src, k, NULL) != KS_OK)
            return -1;
        else if (!src && sim_dram_read(c->m.dram, c->m.bank, a, buf, k, NULL) != KS_OK)
            return -1;
        a += k;
        n -= k;
        if (src)
            src += k;
        else
            buf += k;
    }
    return 0;
}

static int access(sim_card *card, unsigned cluster, unsigned core, uint64_t addr, uint8_t *buf,
                  const uint8_t *src, uint64_t n)
{
    sim_hart *h = core_hart(card, cluster, core);
    uint64_t off;
    if (!h || n == 0)
        return h ? 0 : -1;
    sim_cluster *c = card->clusters[cluster];
    switch (place_of(addr, n, &off)) {
    case LIM:
        if (src) {
            memcpy(c->m.lim + off, src, n);
            if (addr < KMX_LIM_IMAGE + BH_IMAGE_MAX_BYTES && addr + n > KMX_LIM_IMAGE)
                card->hooks[cluster].dirty = card->hooks[cluster].probes_dirty = true;
        } else {
            memcpy(buf, c->m.lim + off, n);
        }
        return 0;
    case CACHED:
        return cached_access(c, off, buf, src, n);
    case UNCACHED:
        if (src)
            return sim_dram_write(c->m.dram, c->m.bank, off, src, n, NULL) == KS_OK ? 0 : -1;
        return sim_dram_read(c->m.dram, c->m.bank, off, buf, n, NULL) == KS_OK ? 0 : -1;
    case MTIME: {
        if (src)
            return -1; /* read-only, as for the core */
        uint8_t bytes[8];
        sim_mem_put(bytes, 8, sim_cluster_mem_mtime(&c->m.mem, h));
        memcpy(buf, bytes + off, n);
        return 0;
    }
    case NOWHERE: break;
    }
    return -1;
}

int sim_card_debug_read(sim_card *card, unsigned cluster, unsigned core, uint64_t addr,
                        void *buf, uint64_t n)
{
    return access(card, cluster, core, addr, buf, NULL, n);
}

int sim_card_debug_write(sim_card *card, unsigned cluster, unsigned core, uint64_t addr,
                         const void *buf, uint64_t n)
{
    return access(card, cluster, core, addr, NULL, buf, n);
}
