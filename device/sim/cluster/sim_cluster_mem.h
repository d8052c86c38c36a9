/* sim_cluster_mem: the memory map of one X280 cluster, as its four harts
 * see it — a sim_mem (sim_mem.h) whose callbacks are the cluster's
 * devices, and what each access costs (sim_timing.h).
 *
 *   address                          what                        how
 *   BH_LIM_BASE, BH_LIM_BYTES      local memory (LIM)          RAM range, SIM_T_LIM
 *   BH_DRAM_CACHED(a), a < 4 GiB    own bank, through cache     sim_cache; HIT or a fill
 *   BH_DRAM_UNCACHED(a), a < 4 GiB  own bank, around it         DRAM; UNCACHED_LOAD/_STORE
 *   BH_MTIME (8 bytes, or 4 and 4)  CLINT mtime, read-only      the hart's clock at 50 MHz
 *   BH_FLUSH64 (8-byte stores)      L3 flush register           sim_cache_flush; reads 0
 *   BH_NOC_WINDOW_REG(i), i < 224   NoC window registers        recorded; mode taken last
 *   BH_NOC_WINDOW(i) + off          tile (x, y), reg.address+off sim_noc (sim_noc.h); NOC_*
 *   anything else                    nothing answers             access fault: load 5, store 7
 *
 * The bank.  Both DRAM windows reach only the cluster's own bank
 * (BH_CLUSTER_BANK): the windows carry a bank address, not a bank
 * number, so no core address names another bank.  Data the host put in
 * another bank is simply not there, which is how the runtime's start-up
 * bank check fails with `bank` on the card; other banks are reached only
 * by NoC writes.  Window offsets of 4 GiB and more fault.
 *
 * NoC windows.  An access at BH_NOC_WINDOW(i) + off goes, uncached, to
 * the target window i took at the last store covering its `mode`: tile
 * (x, y), NoC address address + off, through the router the cluster was
 * given (sim_cluster_mem_attach_noc).  A closed window (BH_NOC_OFF or
 * an unknown mode), no router, an unknown tile or an address no target
 * holds: access fault.  Costs: NOC_POSTED / NOC_NONPOSTED by the
 * window's mode, NOC_LOAD for a load; and every store (a scalar one, or
 * a vector store's one write: mem.store_bytes) first waits for the
 * cluster's NoC write path, one slot of NOC_LINE for each line it
 * touches, which its four cores share (noc_out).
 *
 * FLUSH64 takes the line's address in either form: BH_DRAM_CACHED(a),
 * as kmx/ writes it, or the bare bank address a (below BH_BANK_BYTES).
 * The uncached-window form is not a third one: its values overlap bank
 * addresses, so they are read as bank addresses.  Any other value names
 * no cached line and only costs the store.  Lines are 64 bytes: any
 * address inside the line names it.
 *
 * Stores through the callbacks clear the other harts' LR/SC reservations
 * on their line (sim_mem_note_store); so do host writes to LIM
 * (sim_cluster_mem_write_lim) and every write to the bank that bypasses
 * the cache (host, NoC, uncached window: sim_dram's watch), whichever
 * window the reservation was taken through.
 *
 * Time.  All four harts share the cluster's clock.  Hart i's clock reads
 * h->cycle + offset[i] cluster cycles: the offset counts the cycles it
 * spent in wfi or halted (and before its reset), which the scheduler
 * (sim_cluster.c) adds, so a hart's mtime keeps pace with the card's time
 * while its cycle count stands still.  `now` is the cluster's time when no
 * hart is asking. */
#ifndef SIM_CLUSTER_MEM_H
#define SIM_CLUSTER_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "ks_error.h"
#include "kmx_layout.h"
#include "sim_cache.h"
#include "sim_dram.h"
#include "sim_hart.h"
#include "sim_mem.h"
#include "sim_noc.h"
#include "sim_port.h"
#include "sim_prefetch.h"
#include "sim_timing.h"

_Static_assert(SIM_MEM_MAX_HARTS >= BH_CLUSTER_CORES, "a cluster's harts fit in sim_mem");
_Static_assert((BH_CLUSTER_CORES & (BH_CLUSTER_CORES - 1u)) == 0, "hart ids index by a mask");

typedef struct sim_cluster_mem_stats {
    uint64_t uncached_loads, uncached_stores;
    uint64_t flush64;   /* stores to FLUSH64 */
    uint64_t noc_reg_writes;
    uint64_t noc_loads, noc_posted, noc_nonposted; /* through the windows */
    uint64_t stream_misses, other_misses; /* fills, by what they cost: prefetched, a round trip */
    uint64_t next_misses; /* fills the bank streamed (MISS_NEXT) */
    uint64_t vector_misses; /* fills for vector accesses (MISS_VLOAD/VSTORE) */
    uint64_t faults;    /* accesses nothing answered */
    /* Bytes the cores' uncached and NoC-window accesses moved to and
     * from each bank (the cache's fills and write-backs are its own
     * stats, a line each), and through the windows by target kind
     * (sim_noc_kind: bank, another cluster's LIM, a Tensix tile). */
    uint64_t bank_read[BH_DRAM_BANKS], bank_written[BH_DRAM_BANKS];
    uint64_t noc_bytes[SIM_NOC_TENSIX + 1]; /* by sim_noc_kind */
} sim_cluster_mem_stats;

typedef struct sim_cluster_mem {
    sim_mem mem;  /* what the harts are given; mem.ctx is this */
    unsigned cluster, bank, mhz;
    sim_dram *dram;
    uint8_t *lim; /* BH_LIM_BYTES */
    uint32_t cost[SIM_T_COUNT]; /* sim_timing.h at mhz */
    sim_cache cache;
    sim_port port;    /* the read port: a slot of PORT_LINE a fill */
    sim_port noc_out; /* the NoC write path: a slot of NOC_LINE a line */
    sim_streams streams[BH_CLUSTER_CORES]; /* what the bank streams (MISS_NEXT) */
    sim_prefetch pf[BH_CLUSTER_CORES];     /* the harts' L2 prefetchers, BH_L2PF(i) */
    uint64_t offset[BH_CLUSTER_CORES]; /* hart i's clock: h->cycle + offset[i] */
    uint64_t now;               /* the cluster's time, in its cycles */
    bh_noc_window_reg noc_reg[BH_NOC_WINDOWS];    /* as last written */
    bh_noc_window_reg noc_target[BH_NOC_WINDOWS]; /* taken at the last write of mode */
    struct sim_noc *noc; /* NULL: the windows fault */
    struct sim_checker *checker; /* the hand-over checker, or NULL (sim_checker.h);
                                    set by sim_cluster_mem_set_checker */
    sim_cluster_mem_stats stats;
    /* Called before a write from outside the harts (the host, the NoC)
     * lands in LIM (sim_cluster_mem_write_lim): the cluster brings harts
     * it let wait unstepped up to date first (sim_cluster.c).  NULL: none. */
    void (*before_write)(struct sim_cluster_mem *cm);
    /* Host memory ran out in a write-back or an uncached store: the
     * access faulted, and the run cannot be trusted. */
    bool failed;
    ks_error failure;
} sim_cluster_mem;

/* Cluster `cluster` (0..3) of the card whose banks are `dram`, at `mhz`
 * (SIM_MHZ_DEFAULT or SIM_MHZ_FAST): LIM zeroed, the cache empty, time 0,
 * no harts.  KS_OK, KS_ERR_BUG (bad cluster or clock) or
 * KS_ERR_SYSTEM (out of memory); nothing to free on failure. */
int sim_cluster_mem_init(sim_cluster_mem *cm, sim_dram *dram, unsigned cluster, unsigned mhz,
                         ks_error *err);
void sim_cluster_mem_free(sim_cluster_mem *cm);

/* Turns the hand-over checker on (or off with NULL) for this cluster's
 * accesses.  Set it here rather than in cm->checker: the inline path for
 * cached hits (sim_mem.h, mem.cached) is closed while a checker is on. */
struct sim_checker;
void sim_cluster_mem_set_checker(sim_cluster_mem *cm, struct sim_checker *checker);

/* Host access to LIM at core addresses (KMX_LIM_ARGS, ...), no time
 * cost.  KS_OK, or KS_ERR_BUG when [addr, addr + n) is not inside
 * LIM.  A write clears the reservations on its lines. */
int sim_cluster_mem_write_lim(sim_cluster_mem *cm, uint64_t addr, const void *src, uint64_t n,
                              ks_error *err);
int sim_cluster_mem_read_lim(const sim_cluster_mem *cm, uint64_t addr, void *dst, uint64_t n,
                             ks_error *err);

/* Gives the cluster the card's NoC router (which must outlive it, or be
 * detached with NULL): its windows reach through it, and its LIM becomes
 * a target at its tile.  KS_OK or KS_ERR_BUG (router full). */
struct sim_noc;
int sim_cluster_mem_attach_noc(sim_cluster_mem *cm, struct sim_noc *noc, ks_error *err);

/* The prefetcher registers of the four harts, {basicCtrl, additionalCtrl}
 * each: as the harts last wrote them (get), or as a previous image on
 * this cluster left them (set: a later load inherits them; the streams
 * start empty).  A new cluster has the reset values. */
void sim_cluster_mem_prefetch_get(const sim_cluster_mem *cm, uint32_t regs[BH_CLUSTER_CORES][2]);
void sim_cluster_mem_prefetch_set(sim_cluster_mem *cm, const uint32_t regs[BH_CLUSTER_CORES][2]);

/* The cluster cycle hart h has reached (cm->now for NULL). */
static inline uint64_t sim_cluster_mem_time(const sim_cluster_mem *cm, const sim_hart *h)
{
    return h != NULL ? h->cycle + cm->offset[h->hartid & (BH_CLUSTER_CORES - 1u)] : cm->now;
}

/* The callbacks (also set in cm->mem; tests call them directly). */
int sim_cluster_mem_load(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size,
                         uint64_t *value);
int sim_cluster_mem_store(sim_mem *m, sim_hart *h, uint64_t addr, unsigned size,
                          uint64_t value);
uint64_t sim_cluster_mem_mtime(sim_mem *m, sim_hart *h);

#endif
