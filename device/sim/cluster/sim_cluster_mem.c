/* sim_cluster_mem.c: a cluster's memory map and what its accesses cost
 * (sim_cluster_mem.h). */
#include "sim_cluster_mem.h"

#include <stdlib.h>
#include <string.h>

#include "sim_clock.h"
#include "sim_checker.h"
#include "sim_noc.h"

_Static_assert(SIM_CACHE_VALID == SIM_MEM_LINE_VALID && SIM_CACHE_DIRTY == SIM_MEM_LINE_DIRTY,
               "sim_mem's inline hit reads the cache's tags");
_Static_assert(BH_LINE_BYTES == 64u, "sim_mem's inline hit takes 64-byte lines");

#define LIKELY(c) __builtin_expect(!!(c), 1)
#define UNLIKELY(c) __builtin_expect(!!(c), 0)

#define NOC_REGS_BYTES ((uint64_t)BH_NOC_WINDOWS * sizeof(bh_noc_window_reg))

/* The bank address a core address reaches through either DRAM window. */
static bool window_bank_address(uint64_t addr, uint64_t *bank_address)
{
    if (addr - BH_DRAM_CACHED_BASE < BH_BANK_BYTES) {
        *bank_address = addr - BH_DRAM_CACHED_BASE;
        return true;
    }
    if (addr - BH_DRAM_UNCACHED_BASE < BH_BANK_BYTES) {
        *bank_address = addr - BH_DRAM_UNCACHED_BASE;
        return true;
    }
    return false;
}

/* sim_dram's watch: bytes [addr, addr + n) of our bank changed behind the
 * cache.  Reservations live in the harts (few), so look at them rather
 * than at every line written (a loader writes megabytes). */
static void bank_written(void *ctx, unsigned bank, uint64_t addr, uint64_t n,
                         const void *writer)
{
    sim_cluster_mem *cm = ctx;
    (void)bank;
    for (unsigned i = 0; i < cm->mem.nharts; i++) {
        const sim_hart *h = cm->mem.harts[i];
        uint64_t line;
        if (h == NULL || !h->reserved || !window_bank_address(h->reservation, &line)) {
            continue;
        }
        line = sim_cache_line_of(line);
        if (line < addr + n && line + BH_LINE_BYTES > addr) {
            sim_mem_note_store(&cm->mem, writer, h->reservation);
        }
    }
}

static int store_bytes(sim_mem *m, sim_hart *h, uint64_t addr, const uint8_t *src, uint64_t n);

int sim_cluster_mem_init(sim_cluster_mem *cm, sim_dram *dram, unsigned cluster, unsigned mhz,
                         ks_error *err)
{
    if (cluster >= BH_CLUSTERS) {
        return ks_fail(err, KS_ERR_BUG, "no X280 cluster %u (the card has 0 to %u)",
                       cluster, BH_CLUSTERS - 1u);
    }
    if (!sim_mhz_valid(mhz)) {
        return ks_fail(err, KS_ERR_BUG, "X280 clock %u MHz (expected %u or %u)", mhz,
                       SIM_MHZ_DEFAULT, SIM_MHZ_FAST);
    }
    memset(cm, 0, sizeof *cm);
    cm->lim = calloc(1, BH_LIM_BYTES);
    if (cm->lim == NULL) {
        return ks_fail(err, KS_ERR_SYSTEM, "out of memory for cluster %u's local memory",
                       cluster);
    }
    cm->cluster = cluster;
    cm->bank = BH_CLUSTER_BANK(cluster);
    cm->mhz = mhz;
    cm->dram = dram;
    sim_timing_cycles(mhz, cm->cost);
    sim_cache_init(&cm->cache, dram, cm->bank);
    sim_port_init(&cm->port, cm->cost[SIM_T_PORT_LINE]);
    sim_port_init(&cm->noc_out, cm->cost[SIM_T_NOC_LINE]);
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        sim_streams_init(&cm->streams[i]);
        sim_prefetch_reset(&cm->pf[i], cm->cost[SIM_T_MISS_NEXT], cm->cost[SIM_T_MISS],
                           SIM_PORT_STREAM_REACH);
    }
    cm->mem.ram[0] = (sim_ram){
        .base = BH_LIM_BASE,
        .size = BH_LIM_BYTES,
        .host = cm->lim,
        .latency = cm->cost[SIM_T_LIM],
    };
    cm->mem.nram = 1;
    cm->mem.load = sim_cluster_mem_load;
    cm->mem.store = sim_cluster_mem_store;
    cm->mem.store_bytes = store_bytes;
    cm->mem.mtime = sim_cluster_mem_mtime;
    cm->mem.mtime_addr = BH_MTIME; /* sim_cluster_mem_load's mtime, as promised there */
    cm->mem.mtime_latency = cm->cost[SIM_T_MMIO];
    cm->mem.ctx = cm;
    cm->mem.cached = (sim_mem_cached){
        .base = BH_DRAM_CACHED_BASE,
        .size = BH_BANK_BYTES,
        .tag = cm->cache.tag,
        .data = &cm->cache.data[0][0],
        .hits = &cm->cache.stats.hits,
        .mask = SIM_CACHE_LINES - 1u,
        .latency = cm->cost[SIM_T_HIT],
    };
    if (sim_dram_watch(dram, cm->bank, bank_written, cm) != 0) {
        free(cm->lim);
        cm->lim = NULL;
        return ks_fail(err, KS_ERR_BUG, "too many clusters watch the card's DRAM");
    }
    return KS_OK;
}

void sim_cluster_mem_set_checker(sim_cluster_mem *cm, struct sim_checker *checker)
{
    cm->checker = checker;
    /* The checker sees every cached access: no inline hits under it. */
    cm->mem.cached.size = checker ? 0 : BH_BANK_BYTES;
}

/* The LIM as the router reaches it (sim_noc_lim_ops). */
static int noc_lim_read(void *ctx, uint64_t addr, void *dst, uint64_t n)
{
    return sim_cluster_mem_read_lim(ctx, addr, dst, n, NULL);
}

static int noc_lim_write(void *ctx, uint64_t addr, const void *src, uint64_t n)
{
    return sim_cluster_mem_write_lim(ctx, addr, src, n, NULL);
}

int sim_cluster_mem_attach_noc(sim_cluster_mem *cm, sim_noc *noc, ks_error *err)
{
    if (cm->noc != NULL && cm->noc != noc) {
        sim_noc_remove_lim(cm->noc, cm);
    }
    cm->noc = NULL;
    if (noc != NULL) {
        sim_noc_lim_ops ops = {.ctx = cm, .read = noc_lim_read, .write = noc_lim_write};
        int status = sim_noc_add_lim(noc, cm->cluster, &ops, err);
        if (status != KS_OK) {
            return status;
        }
        cm->noc = noc;
    }
    return KS_OK;
}

void sim_cluster_mem_free(sim_cluster_mem *cm)
{
    if (cm->noc != NULL) {
        sim_noc_remove_lim(cm->noc, cm);
        cm->noc = NULL;
    }
    if (cm->dram != NULL) {
        sim_dram_unwatch(cm->dram, bank_written, cm);
    }
    free(cm->lim);
    cm->lim = NULL;
    cm->dram = NULL;
}

static int check_lim(uint64_t addr, uint64_t n, const char *what, ks_error *err)
{
    if (addr < BH_LIM_BASE || addr > BH_LIM_END || n > BH_LIM_END - addr) {
        return ks_fail(err, KS_ERR_BUG,
                       "LIM %s of %llu bytes at 0x%llx: outside local memory (0x%x to 0x%x)",
                       what, (unsigned long long)n, (unsigned long long)addr, BH_LIM_BASE,
                       BH_LIM_END);
    }
    return KS_OK;
}

/* Clears every reservation on the lines of LIM [addr, addr + n). */
static void lim_written(sim_cluster_mem *cm, const sim_hart *writer, uint64_t addr,
                        uint64_t n)
{
    for (unsigned i = 0; i < cm->mem.nharts; i++) {
        const sim_hart *h = cm->mem.harts[i];
        if (h == NULL || !h->reserved) {
            continue;
        }
        uint64_t line = sim_cache_line_of(h->reservation);
        if (line < addr + n && line + BH_LINE_BYTES > addr) {
            sim_mem_note_store(&cm->mem, writer, h->reservation);
        }
    }
}

int sim_cluster_mem_write_lim(sim_cluster_mem *cm, uint64_t addr, const void *src, uint64_t n,
                              ks_error *err)
{
    int status = check_lim(addr, n, "write", err);
    if (status != KS_OK) {
        return status;
    }
    if (cm->before_write) {
        cm->before_write(cm);
    }
    memcpy(cm->lim + (addr - BH_LIM_BASE), src, n);
    lim_written(cm, NULL, addr, n);
    return KS_OK;
}

int sim_cluster_mem_read_lim(const sim_cluster_mem *cm, uint64_t addr, void *dst, uint64_t n,
                             ks_error *err)
{
    int status = check_lim(addr, n, "read", err);
    if (status != KS_OK) {
        return status;
    }
    memcpy(dst, cm->lim + (addr - BH_LIM_BASE), n);
    return KS_OK;
}

/* sim_mem_note_store for a store at addr, called only when another hart
 * holds a reservation at all (the common case is none: four loads). */
static inline void note_store(sim_mem *m, const sim_hart *writer, uint64_t addr)
{
    for (unsigned i = 0; i < m->nharts; i++) {
        const sim_hart *o = m->harts[i];
        if (o != writer && o->reserved) {
            sim_mem_note_store(m, writer, addr);
            return;
        }
    }
}

void sim_cluster_mem_prefetch_get(const sim_cluster_mem *cm, uint32_t regs[BH_CLUSTER_CORES][2])
{
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        regs[i][0] = cm->pf[i].basic;
        regs[i][1] = cm->pf[i].additional;
    }
}

void sim_cluster_mem_prefetch_set(sim_cluster_mem *cm, const uint32_t regs[BH_CLUSTER_CORES][2])
{
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        (void)sim_prefetch_write(&cm->pf[i], BH_L2PF_BASIC, regs[i][0]);
        (void)sim_prefetch_write(&cm->pf[i], BH_L2PF_ADDITIONAL, regs[i][1]);
        sim_prefetch_forget(&cm->pf[i]);
    }
}

/* ---- Time ---------------------------------------------------------------- */

static void charge(sim_hart *h, uint64_t cycles)
{
    if (h != NULL) {
        h->cycle += cycles;
    }
}

/* The cycles a fill by h, leaving for the bank `port_wait` cycles from
 * now, waits for the bank beyond its own line's slot: 0 alone, more when
 * the bank's queue holds others' lines (the grid's cores, the other
 * cluster on bank 7; sim_bank.h).  The lines a cluster's read port lets
 * through (1.2 GB/s) are far below a bank's 64 GB/s. */
static uint64_t bank_wait(sim_cluster_mem *cm, const sim_hart *h, uint64_t bank_address,
                          uint64_t port_wait)
{
    uint64_t at = sim_cycles_to_ps(sim_cluster_mem_time(cm, h) + port_wait, cm->mhz);
    uint64_t served = sim_dram_bank(cm->dram, cm->bank, bank_address, BH_LINE_BYTES, at);
    uint64_t alone = at + SIM_BANK_LINE_PS;
    return served > alone ? sim_ps_to_cycles_ceil(served - alone, cm->mhz) : 0;
}

/* What a cached-window access that did `did` (sim_cache.h) costs h. */
static void charge_cached(sim_cluster_mem *cm, sim_hart *h, uint64_t bank_address,
                          unsigned did, bool store)
{
    if (h == NULL) {
        return;
    }
    if (!(did & SIM_CACHE_MISSED)) {
        h->cycle += cm->cost[SIM_T_HIT];
        return;
    }
    uint64_t now = sim_cluster_mem_time(cm, h);
    uint64_t cycles = sim_port_book(&cm->port, now);
    cycles += bank_wait(cm, h, bank_address, cycles);
    unsigned core = h->hartid & (BH_CLUSTER_CORES - 1u);
    uint64_t line = bank_address / BH_LINE_BYTES, wait;
    bool next = sim_streams_miss(&cm->streams[core], line);
    sim_pf_kind kind = h->vmem == SIM_MEM_VSTORE ? SIM_PF_VECTOR_STORE
                       : h->vmem                 ? SIM_PF_VECTOR_LOAD
                       : store                   ? SIM_PF_SCALAR_STORE
                                                 : SIM_PF_SCALAR_LOAD;
    bool prefetched = sim_prefetch_miss(&cm->pf[core], kind, line, now, &wait);
    if (h->vmem) {
        /* The vector unit's fills already overlap: a prefetch gives its
         * loads nothing, and a store's write-allocate that finds the
         * prefetcher fetching its line waits behind that read. */
        cycles += cm->cost[prefetched && kind == SIM_PF_VECTOR_STORE ? SIM_T_MISS_VSTORE
                                                                     : SIM_T_MISS_VLOAD];
        cm->stats.vector_misses++;
    } else {
        uint64_t plain = cm->cost[next ? SIM_T_MISS_NEXT : SIM_T_MISS];
        uint64_t ahead = cm->cost[SIM_T_MISS_STREAM] + wait;
        if (prefetched && ahead < plain) {
            cycles += ahead;
            cm->stats.stream_misses++;
        } else {
            cycles += plain;
            if (next) {
                cm->stats.next_misses++;
            } else {
                cm->stats.other_misses++;
            }
        }
    }
    if (did & SIM_CACHE_WROTE_BACK) {
        cycles += cm->cost[SIM_T_EVICT_DIRTY];
    }
    h->cycle += cycles;
}

/* The cycles hart h (NULL: the cluster) waits on the cluster's NoC write
 * path for a write of `lines` lines: each line takes the first free slot
 * from where the one before it ended (the first from h's time), and the
 * store goes on once its last line has its slot.  Alone that is
 * (lines - 1) slots of NOC_LINE, the path's 3.2 GB/s; four cores writing
 * at once share those slots (sim_port.h: booked at each one's own time,
 * so the order the harts run in a quantum does not decide). */
static uint64_t noc_out(sim_cluster_mem *cm, const sim_hart *h, uint64_t lines)
{
    uint64_t now = sim_cluster_mem_time(cm, h), t = now;
    for (uint64_t i = 0; i < lines; i++) {
        if (i != 0) {
            t += cm->cost[SIM_T_NOC_LINE];
        }
        t += sim_port_book(&cm->noc_out, t);
    }
    return t - now;
}

uint64_t sim_cluster_mem_mtime(sim_mem *m, sim_hart *h)
{
    const sim_cluster_mem *cm = m->ctx;
    return sim_ps_to_mtime(sim_cycles_to_ps(sim_cluster_mem_time(cm, h), cm->mhz));
}

/* ---- Accesses ------------------------------------------------------------ */

static int failed(sim_cluster_mem *cm, uint64_t addr, int cause)
{
    if (!cm->failed) {
        cm->failed = true;
        ks_fail(&cm->failure, KS_ERR_SYSTEM,
                "cluster %u: out of host memory for DRAM bank %u (access at 0x%llx)",
                cm->cluster, cm->bank, (unsigned long long)addr);
    }
    cm->stats.faults++;
    return cause;
}

static int fault(sim_cluster_mem *cm, int cause)
{
    cm->stats.faults++;
    return cause;
}

/* Where hart h (NULL: the cluster) is in the card's time, for what it
 * sends over the NoC. */
static uint64_t hart_ps(const sim_cluster_mem *cm, const sim_hart *h)
{
    return sim_cycles_to_ps(sim_cluster_mem_time(cm, h), cm->mhz);
}

/* ---- the hand-over checker (cm->checker; sim_checker.h) ---- */

/* The checker's site for hart h's access (its pc is the instruction's). */
static void check_at(sim_cluster_mem *cm, const sim_hart *h)
{
    sim_site site = {.kind = SIM_SITE_X280,
                     .cluster = (uint8_t)cm->cluster,
                     .core = h ? (uint16_t)(h->hartid & (BH_CLUSTER_CORES - 1u)) : 0,
                     .pc = h ? h->pc : 0,
                     .ps = hart_ps(cm, h),
                     .caller = h ? h->x[1] : 0};
    sim_checker_at(cm->checker, &site);
}

/* A cached-window access under the checker: what the cache is about to
 * do (a dirty line evicted) and did (a fill, a store, a hit). */
static unsigned checked_cached(sim_cluster_mem *cm, sim_hart *h, uint64_t a, unsigned size,
                               uint64_t *value, bool store)
{
    sim_checker *ck = cm->checker;
    unsigned i = sim_cache_index(a);
    bool hit = sim_cache_holds(&cm->cache, i, a);
    check_at(cm, h);
    if (!hit && (cm->cache.tag[i] & (SIM_CACHE_VALID | SIM_CACHE_DIRTY)) ==
                    (SIM_CACHE_VALID | SIM_CACHE_DIRTY)) {
        sim_checker_write_back(ck, cm->cluster, i);
    }
    unsigned did = store ? sim_cache_store(&cm->cache, a, size, *value)
                         : sim_cache_load(&cm->cache, a, size, value);
    if (!(did & SIM_CACHE_FAILED)) {
        if (did & SIM_CACHE_MISSED) {
            sim_checker_filled(ck, cm->cluster, i, sim_cache_line_of(a));
        }
        if (store) {
            sim_checker_stored(ck, cm->cluster, i, a, size);
        } else {
            if (hit)
                sim_checker_hit(ck, cm->cluster, i, a, size);
            sim_checker_loaded(ck, cm->cluster, a, size);
        }
    }
    sim_checker_at(ck, NULL);
    return did;
}

/* A read of bank `bank` around the caches by hart h (uncached, NoC). */
static void checked_read(sim_cluster_mem *cm, const sim_hart *h, unsigned bank, uint64_t a,
                         unsigned size)
{
    check_at(cm, h);
    sim_checker_read(cm->checker, bank, a, size, 0);
    sim_checker_at(cm->checker, NULL);
}

/* The bank behind a NoC window's target tile, or BH_DRAM_BANKS. */
static unsigned window_bank(const sim_cluster_mem *cm, const bh_noc_window_reg *t)
{
    const sim_noc_target *target = sim_noc_find(cm->noc, t->x, t->y);
    return target && target->kind == SIM_NOC_BANK ? target->bank : BH_DRAM_BANKS;
}

/* A window access of size bytes to t's tile: its route's bytes, and its
 * bank's when the tile is a bank's port. */
static void count_noc(sim_cluster_mem *cm, const bh_noc_window_reg *t, unsigned size,
                      bool store)
{
    const sim_noc_target *target = sim_noc_find(cm->noc, t->x, t->y);
    if (target == NULL) {
        return;
    }
    cm->stats.noc_bytes[target->kind] += size;
    if (target->kind == SIM_NOC_BANK) {
        if (store) {
            cm->stats.bank_written[target->bank] += size;
        } else {
            cm->stats.bank_read[target->bank] += size;
        }
    }
}

static bool in_noc_regs(uint64_t addr)
{
    return addr - BH_NOC_WINDOW_REGS < NOC_REGS_BYTES;
}

/* An access at addr inside the NoC windows: window i's open target, and
 * the NoC address; false when the window is closed or there is no
 * router. */
static bool noc_window(const sim_cluster_mem *cm, uint64_t addr,
                       const bh_noc_window_reg **target, uint64_t *noc_address)
{
    uint64_t at = addr - BH_NOC_WINDOW_BASE;
    const bh_noc_window_reg *t = &cm->noc_target[at / BH_NOC_WINDOW_BYTES];
    if (cm->noc == NULL || (t->mode != BH_NOC_POSTED && t->mode != BH_NOC_NONPOSTED)) {
        return false;
    }
    *target = t;
    *noc_address = t->address + at % BH_NOC_WINDOW_BYTES;
    return true;
}

static bool in_noc_windows(uint64_t addr)
{
    return addr - BH_NOC_WINDOW_BASE < (uint64_t)BH_NOC_WINDOWS * BH_NOC_WINDOW_BYTES;
}

/* When a write into another cluster's LIM that leaves the core now lands:
 * its flight, then the target's LIM takes it (a LIM access, LIM cycles:
 * one clock for the card's clusters). */
static uint64_t lim_landing(const sim_cluster_mem *cm, const sim_hart *h)
{
    return hart_ps(cm, h) + SIM_NOC_FLIGHT_PS + sim_cycles_to_ps(cm->cost[SIM_T_LIM], cm->mhz);
}

/* Window t reaches an X280 LIM: another cluster's (a write flies,
 * sim_noc_post) or, for a load, any (it lands what was sent before). */
static bool window_lim(const sim_cluster_mem *cm, const bh_noc_window_reg *t, bool other)
{
    const sim_noc_target *x = sim_noc_find(cm->noc, t->x, t->y);
    return x != NULL && x->kind == SIM_NOC_LIM && (!other || x->lim.ctx != cm);
}

/* A cached-window access that is not a plain hit: a miss (a fill, maybe
 * a write-back first), or any access under the checker. */
static __attribute__((noinline)) int cached_slow(sim_cluster_mem *cm, sim_hart *h,
                                                 uint64_t addr, unsigned size,
                                                 uint64_t *value, bool store)
{
    uint64_t a = addr - BH_DRAM_CACHED_BASE;
    unsigned did;
    if (cm->checker) {
        did = checked_cached(cm, h, a, size, value, store);
    } else if (store) {
        did = sim_cache_store(&cm->cache, a, size, *value);
    } else {
        did = sim_cache_load(&cm->cache, a, size, value);
    }
    if (did & SIM_CACHE_FAILED) {
        return failed(cm, addr, store ? SIM_CAUSE_STORE_ACCESS : SIM_CAUSE_LOAD_ACCESS);
    }
    charge_cached(cm, h, a, did, store);
    if (store) {
        note_store(&cm->mem, h, addr);
    }
    return 0;
}

/* Everything but the cached window (sim_cluster_mem_load's rare cases). */
static __attribute__((noinline)) int load_other(sim_cluster_mem *cm, sim_hart *h,
                                                uint64_t addr, unsigned size,
                                                uint64_t *value);

/* The hit path first: a tag compare, then the line's bytes, the HIT cost
 * and the hit counter — what sim_cache_load and charge_cached do for a
 * hit, without their calls.  Misses and the checker take cached_slow. */
int sim_cluster_mem_load(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size,
                         uint64_t *value)
{
    sim_cluster_mem *cm = m->ctx;
    uint64_t a = addr - BH_DRAM_CACHED_BASE;
    if (LIKELY(a < BH_BANK_BYTES)) {
        unsigned i = sim_cache_index(a);
        if (LIKELY(sim_cache_holds(&cm->cache, i, a)) && LIKELY(cm->checker == NULL)) {
            cm->cache.stats.hits++;
            *value = sim_mem_get(&cm->cache.data[i][a % BH_LINE_BYTES], size);
            if (LIKELY(h != NULL)) {
                h->cycle += cm->cost[SIM_T_HIT];
            }
            return 0;
        }
        return cached_slow(cm, h, addr, size, value, false);
    }
    return load_other(cm, h, addr, size, value);
}

static int load_other(sim_cluster_mem *cm, sim_hart *h, uint64_t addr, unsigned size,
                      uint64_t *value)
{
    sim_mem *m = &cm->mem;
    if (addr - BH_DRAM_UNCACHED_BASE < BH_BANK_BYTES) {
        uint64_t v = 0;
        if (cm->checker) {
            checked_read(cm, h, cm->bank, addr - BH_DRAM_UNCACHED_BASE, size);
        }
        (void)sim_dram_read(cm->dram, cm->bank, addr - BH_DRAM_UNCACHED_BASE, &v, size, NULL);
        *value = v;
        cm->stats.uncached_loads++;
        cm->stats.bank_read[cm->bank] += size;
        charge(h, cm->cost[SIM_T_UNCACHED_LOAD]);
        return 0;
    }
    if (addr - BH_LIM_BASE < BH_LIM_BYTES) { /* harts take LIM as RAM; for completeness */
        uint64_t v = 0;
        memcpy(&v, cm->lim + (addr - BH_LIM_BASE), size);
        *value = v;
        charge(h, cm->cost[SIM_T_LIM]);
        return 0;
    }
    if ((addr == BH_MTIME && (size == 8 || size == 4)) || (addr == BH_MTIME + 4u && size == 4)) {
        uint64_t mtime = sim_cluster_mem_mtime(m, h);
        *value = size == 8 ? mtime : addr == BH_MTIME ? (uint32_t)mtime : mtime >> 32;
        charge(h, cm->cost[SIM_T_MMIO]);
        return 0;
    }
    if (addr == BH_FLUSH64) {
        *value = 0;
        charge(h, cm->cost[SIM_T_MMIO]);
        return 0;
    }
    if (addr - BH_L2PF_BASE < BH_CLUSTER_CORES * BH_L2PF_STRIDE && size == 4) {
        uint32_t v;
        if (!sim_prefetch_read(&cm->pf[(addr - BH_L2PF_BASE) / BH_L2PF_STRIDE],
                               (addr - BH_L2PF_BASE) % BH_L2PF_STRIDE, &v)) {
            return fault(cm, SIM_CAUSE_LOAD_ACCESS);
        }
        *value = v;
        charge(h, cm->cost[SIM_T_MMIO]);
        return 0;
    }
    if (in_noc_regs(addr)) {
        uint64_t v = 0;
        memcpy(&v, (const uint8_t *)cm->noc_reg + (addr - BH_NOC_WINDOW_REGS), size);
        *value = v;
        charge(h, cm->cost[SIM_T_MMIO]);
        return 0;
    }
    if (in_noc_windows(addr)) {
        const bh_noc_window_reg *t;
        uint64_t a, v = 0;
        if (!noc_window(cm, addr, &t, &a)) {
            return fault(cm, SIM_CAUSE_LOAD_ACCESS);
        }
        if (window_lim(cm, t, false)) {
            /* The request reaches the LIM a flight later, behind every
             * write sent before it. */
            sim_noc_land(cm->noc, lim_landing(cm, h));
        }
        if (sim_noc_load(cm->noc, t->x, t->y, a, size, &v, hart_ps(cm, h)) != 0) {
            return fault(cm, SIM_CAUSE_LOAD_ACCESS);
        }
        if (cm->checker && window_bank(cm, t) < BH_DRAM_BANKS) {
            checked_read(cm, h, window_bank(cm, t), a, size);
        }
        *value = v;
        cm->stats.noc_loads++;
        count_noc(cm, t, size, false);
        charge(h, cm->cost[SIM_T_NOC_LOAD]);
        return 0;
    }
    return fault(cm, SIM_CAUSE_LOAD_ACCESS);
}

/* FLUSH64: the line named by value, in either accepted form. */
static int flush64(sim_cluster_mem *cm, sim_hart *h, uint64_t value)
{
    uint64_t a;
    unsigned did = 0;
    cm->stats.flush64++;
    if (value - BH_DRAM_CACHED_BASE < BH_BANK_BYTES) {
        a = value - BH_DRAM_CACHED_BASE;
    } else if (value < BH_BANK_BYTES) {
        a = value;
    } else {
        charge(h, cm->cost[SIM_T_FLUSH64]); /* names no cached line */
        return 0;
    }
    if (cm->checker && sim_cache_state(&cm->cache, a) == (SIM_CACHE_VALID | SIM_CACHE_DIRTY)) {
        check_at(cm, h);
        sim_checker_write_back(cm->checker, cm->cluster, sim_cache_index(a));
        sim_checker_at(cm->checker, NULL);
    }
    if (cm->checker) {
        check_at(cm, h);
        sim_checker_swept(cm->checker, cm->cluster, sim_cache_line_of(a));
        sim_checker_at(cm->checker, NULL);
    }
    did = sim_cache_flush(&cm->cache, a);
    if (did & SIM_CACHE_FAILED) {
        return failed(cm, BH_DRAM_CACHED(a), SIM_CAUSE_STORE_ACCESS);
    }
    charge(h, cm->cost[SIM_T_FLUSH64] +
                  ((did & SIM_CACHE_WROTE_BACK) ? cm->cost[SIM_T_FLUSH64_DIRTY] : 0u));
    return 0;
}

/* A NoC window register store: recorded; the store that covers `mode`
 * makes the window take the register's target (kmx_layout.h). */
static void noc_reg_store(sim_cluster_mem *cm, uint64_t addr, unsigned size, uint64_t value)
{
    uint64_t at = addr - BH_NOC_WINDOW_REGS;
    unsigned window = (unsigned)(at / sizeof(bh_noc_window_reg));
    unsigned first = (unsigned)(at % sizeof(bh_noc_window_reg));
    memcpy((uint8_t *)cm->noc_reg + at, &value, size);
    if (first < offsetof(bh_noc_window_reg, mode) + sizeof(uint32_t) &&
        first + size > offsetof(bh_noc_window_reg, mode)) {
        cm->noc_target[window] = cm->noc_reg[window];
    }
    cm->stats.noc_reg_writes++;
}

/* A window store of n bytes at NoC address a of tile t by hart h: into
 * another cluster's local memory where the contract does not let this
 * cluster write, it is noted as a wild write (sim_wild.h).  The host's
 * writes (h NULL) are not a cluster's. */
static void check_wild(sim_cluster_mem *cm, const sim_hart *h, const bh_noc_window_reg *t,
                       uint64_t a, uint64_t n)
{
    const sim_noc_target *to = sim_noc_find(cm->noc, t->x, t->y);
    if (h == NULL || to == NULL || to->kind != SIM_NOC_LIM ||
        sim_wild_allowed(cm->cluster, to->cluster, a, n)) {
        return;
    }
    uint64_t ps = hart_ps(cm, h);
    sim_wild_write w = {
        .cluster = (uint8_t)cm->cluster,
        .core = (uint8_t)h->hartid,
        .target = (uint8_t)to->cluster,
        .x = (uint8_t)t->x,
        .y = (uint8_t)t->y,
        .pc = h->pc,
        .caller = h->x[1],
        .first = a,
        .end = a + n,
        .bytes = n,
        .stores = 1,
        .first_ps = ps,
        .last_ps = ps,
    };
    sim_wild_note(&cm->noc->wild, &w);
}

static __attribute__((noinline)) int store_other(sim_cluster_mem *cm, sim_hart *h,
                                                 uint64_t addr, unsigned size,
                                                 uint64_t value);

/* As the load: a hit stores into the line, marks it dirty, costs HIT and
 * ends the other harts' reservations on the line. */
int sim_cluster_mem_store(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size,
                          uint64_t value)
{
    sim_cluster_mem *cm = m->ctx;
    uint64_t a = addr - BH_DRAM_CACHED_BASE;
    if (LIKELY(a < BH_BANK_BYTES)) {
        unsigned i = sim_cache_index(a);
        if (LIKELY(sim_cache_holds(&cm->cache, i, a)) && LIKELY(cm->checker == NULL)) {
            cm->cache.stats.hits++;
            sim_mem_put(&cm->cache.data[i][a % BH_LINE_BYTES], size, value);
            cm->cache.tag[i] |= SIM_CACHE_DIRTY;
            if (LIKELY(h != NULL)) {
                h->cycle += cm->cost[SIM_T_HIT];
            }
            note_store(m, h, addr);
            return 0;
        }
        return cached_slow(cm, h, addr, size, &value, true);
    }
    return store_other(cm, h, addr, size, value);
}

static int store_other(sim_cluster_mem *cm, sim_hart *h, uint64_t addr, unsigned size,
                       uint64_t value)
{
    if (addr - BH_DRAM_UNCACHED_BASE < BH_BANK_BYTES) {
        /* Reservations are cleared by our own watch of the bank (and the
         * checker's watch records the write at the site). */
        if (cm->checker) {
            check_at(cm, h);
        }
        int wrote = sim_dram_write_as(cm->dram, cm->bank, addr - BH_DRAM_UNCACHED_BASE, &value,
                                      size, h, NULL);
        if (cm->checker) {
            sim_checker_at(cm->checker, NULL);
        }
        if (wrote != KS_OK) {
            return failed(cm, addr, SIM_CAUSE_STORE_ACCESS);
        }
        cm->stats.uncached_stores++;
        cm->stats.bank_written[cm->bank] += size;
        charge(h, cm->cost[SIM_T_UNCACHED_STORE]);
        return 0;
    }
    if (addr - BH_LIM_BASE < BH_LIM_BYTES) { /* harts take LIM as RAM; for completeness */
        memcpy(cm->lim + (addr - BH_LIM_BASE), &value, size);
        lim_written(cm, h, addr, size);
        charge(h, cm->cost[SIM_T_LIM]);
        return 0;
    }
    if (addr == BH_FLUSH64 && size == 8) {
        return flush64(cm, h, value);
    }
    if (addr - BH_L2PF_BASE < BH_CLUSTER_CORES * BH_L2PF_STRIDE && size == 4) {
        if (!sim_prefetch_write(&cm->pf[(addr - BH_L2PF_BASE) / BH_L2PF_STRIDE],
                                (addr - BH_L2PF_BASE) % BH_L2PF_STRIDE, (uint32_t)value)) {
            return fault(cm, SIM_CAUSE_STORE_ACCESS);
        }
        charge(h, cm->cost[SIM_T_MMIO]);
        return 0;
    }
    if (in_noc_regs(addr)) {
        noc_reg_store(cm, addr, size, value);
        charge(h, cm->cost[SIM_T_MMIO]);
        return 0;
    }
    if (in_noc_windows(addr)) {
        const bh_noc_window_reg *t;
        uint64_t a;
        if (!noc_window(cm, addr, &t, &a)) {
            return fault(cm, SIM_CAUSE_STORE_ACCESS); /* closed: nothing leaves the core */
        }
        /* The write leaves when the write path gives it a slot, and lands
         * from then on; one no tile takes (a fault) has had its slot. */
        charge(h, noc_out(cm, h, 1));
        if (cm->checker) {
            check_at(cm, h); /* a push: the checker's watch records it */
        }
        /* Into another cluster's LIM the write flies SIM_NOC_FLIGHT_PS. */
        int stored = window_lim(cm, t, true)
                         ? sim_noc_post(cm->noc, t->x, t->y, a, &value, size, lim_landing(cm, h))
                         : sim_noc_store(cm->noc, t->x, t->y, a, size, value, hart_ps(cm, h));
        if (cm->checker) {
            sim_checker_at(cm->checker, NULL);
        }
        if (stored != 0) {
            return fault(cm, SIM_CAUSE_STORE_ACCESS);
        }
        check_wild(cm, h, t, a, size);
        count_noc(cm, t, size, true);
        if (t->mode == BH_NOC_POSTED) {
            cm->stats.noc_posted++;
            charge(h, cm->cost[SIM_T_NOC_POSTED]);
        } else {
            cm->stats.noc_nonposted++;
            charge(h, cm->cost[SIM_T_NOC_NONPOSTED]);
        }
        return 0;
    }
    return fault(cm, SIM_CAUSE_STORE_ACCESS); /* mtime is read-only here, too */
}

/* mem.store_bytes: a vector store's bytes into one NoC window as one
 * write (posted or not, by the window's mode), costing NOC_POSTED or
 * NOC_NONPOSTED once and a slot of the write path for each line it
 * touches (noc_out: NOC_LINE for each line after the first alone).  Any
 * other place, a range that leaves its window or that no target holds
 * whole: SIM_MEM_NOT_ONE, nothing written (the element path stores and
 * faults as scalar stores do). */
static int store_bytes(sim_mem *m, sim_hart *h, uint64_t addr, const uint8_t *src, uint64_t n)
{
    sim_cluster_mem *cm = m->ctx;
    const bh_noc_window_reg *t;
    uint64_t a;
    if (n == 0 || !in_noc_windows(addr) || !in_noc_windows(addr + n - 1) ||
        (addr - BH_NOC_WINDOW_BASE) / BH_NOC_WINDOW_BYTES !=
            (addr + n - 1 - BH_NOC_WINDOW_BASE) / BH_NOC_WINDOW_BYTES ||
        !noc_window(cm, addr, &t, &a)) {
        return SIM_MEM_NOT_ONE;
    }
    if (cm->checker) {
        check_at(cm, h); /* a push: the checker's watch records it */
    }
    int stored = window_lim(cm, t, true) && n <= SIM_NOC_FLIGHT_BYTES
                     ? sim_noc_post(cm->noc, t->x, t->y, a, src, n, lim_landing(cm, h))
                     : sim_noc_write(cm->noc, t->x, t->y, a, src, n);
    if (cm->checker) {
        sim_checker_at(cm->checker, NULL);
    }
    if (stored != 0) {
        return SIM_MEM_NOT_ONE;
    }
    check_wild(cm, h, t, a, n);
    count_noc(cm, t, (unsigned)n, true);
    uint64_t waited = noc_out(cm, h, ((addr + n - 1) >> 6) - (addr >> 6) + 1);
    if (t->mode == BH_NOC_POSTED) {
        cm->stats.noc_posted++;
        charge(h, waited + cm->cost[SIM_T_NOC_POSTED]);
    } else {
        cm->stats.noc_nonposted++;
        charge(h, waited + cm->cost[SIM_T_NOC_NONPOSTED]);
    }
    return 0;
}
