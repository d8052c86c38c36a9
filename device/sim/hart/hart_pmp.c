/* hart_pmp: the hart's physical memory protection, as the privileged
 * spec (1.12, section 3.7) has it for a hart that runs in machine mode
 * only (device/sim/README.md, "PMP").
 *
 * SIM_HART_PMP entries with a granularity of 2^(SIM_PMP_G + 2) bytes;
 * sixteen PMP CSRs: pmpcfg0 (0x3a0) holds the entries' configurations,
 * pmpcfg2 (0x3a2) and pmpaddr8-15 (0x3b8-0x3bf) read 0 and ignore writes,
 * pmpaddr0-7 (0x3b0-0x3b7) the entries' addresses.  pmpcfg1 and pmpcfg3
 * (RV32 only) and every PMP CSR past those sixteen are not there (an
 * illegal instruction).  What a write keeps (write any, read legal):
 *   pmpcfg, each byte: L, A, X, W, R; bits 6:5 read 0; W reads 0 while R
 *     is 0 (R=0 W=1 is reserved); A = NA4 becomes NAPOT (with G >= 1 NA4
 *     cannot be chosen) — both as Spike;
 *   pmpaddr: bits 53:0 (a 56-bit physical address, what Sv57 can name);
 *     it reads with bits G-1:0 clear in OFF and TOR, with bits G-2:0 set
 *     in NAPOT, and keeps bit G-1 underneath as written.
 * A locked entry (L) ignores writes to its pmpcfg byte and its pmpaddr
 * until reset (sim_hart_init); a locked TOR entry, to the pmpaddr below it
 * too.
 *
 * The check of an access: the lowest-numbered entry that matches any of
 * its bytes decides; if it does not match them all, the access fails;
 * else a locked entry allows what its R, W, X say, an unlocked one
 * everything (machine mode); no entry matching allows it.  So in machine
 * mode only a locked entry without one of R, W, X denies anything (with
 * 4 KiB granules no aligned access of at most 8 bytes, nor a 2-byte fetch
 * parcel, can straddle an entry's edge): h->pmp_deny counts those, and
 * while it is 0 nothing is checked.  While it is not:
 *   - loads and stores leave the hot loop's inline paths (its `quiet`,
 *     as for watches and load/store triggers: h->checks_mem), but for
 *     the RAM range its one-entry cache holds when no entry without R or
 *     W meets that range (sim_pmp_open); the slow path asks
 *     sim_pmp_denies;
 *   - each instruction that a locked entry without X of a hart sharing
 *     the decoded code meets is preceded there by a PMP entry
 *     (hart_block.c), which asks the hart's own entries about the fetch;
 *     those entries' ranges are the decoded code's set, and a change of
 *     it drops the decoded code (sim_icache_repmp).  Locked entries do
 *     not change until reset, so the set changes only when one is locked
 *     or a hart resets or leaves. */
#include <string.h>

#include "hart_internal.h"

enum { CSR_PMPCFG0 = 0x3a0, CSR_PMPCFG2 = 0x3a2, CSR_PMPADDR0 = 0x3b0, CSR_PMPADDR15 = 0x3bf };

/* What pmpaddr holds: bits 55:2 of a 56-bit physical address. */
#define ADDR_MASK ((1ull << 54) - 1)
/* Bits G-1:0 of pmpaddr, which TOR ignores and OFF/TOR read as 0. */
#define GRAIN_MASK ((1ull << SIM_PMP_G) - 1)
_Static_assert(SIM_PMP_G >= 2, "NAPOT reads bits G-2:0 set; NA4 becomes NAPOT");
_Static_assert(SIM_HART_PMP <= 8, "the entries' configurations are pmpcfg0's bytes");

#define A_TOR 0x08u
#define A_NA4 0x10u
#define A_NAPOT 0x18u

/* The byte a write of v to entry i's configuration leaves. */
static uint8_t legal_cfg(uint64_t v)
{
    uint8_t c = (uint8_t)(v & (SIM_PMP_L | SIM_PMP_A | SIM_PMP_X | SIM_PMP_W | SIM_PMP_R));
    if (!(c & SIM_PMP_R))
        c &= (uint8_t)~SIM_PMP_W;
    if ((c & SIM_PMP_A) == A_NA4)
        c |= A_NAPOT;
    return c;
}

/* pmpaddr i as a CSR read gives it. */
static uint64_t read_addr(const sim_hart *h, unsigned i)
{
    uint64_t a = h->pmpaddr[i];
    if (h->pmpcfg[i] & A_NA4) /* A[1]: NAPOT (NA4 cannot be chosen) */
        return a | (GRAIN_MASK >> 1);
    return a & ~GRAIN_MASK;
}

bool sim_pmp_range(const sim_hart *h, unsigned i, uint64_t *lo, uint64_t *hi)
{
    switch (h->pmpcfg[i] & SIM_PMP_A) {
    case A_TOR:
        *lo = i ? (h->pmpaddr[i - 1] & ~GRAIN_MASK) << 2 : 0;
        *hi = (h->pmpaddr[i] & ~GRAIN_MASK) << 2;
        return *lo < *hi;
    case A_NA4: /* not reachable with G >= 1; the spec's meaning */
        *lo = h->pmpaddr[i] << 2;
        *hi = *lo + 4;
        return true;
    case A_NAPOT: {
        /* trailing ones t: 2^(t + 3) bytes, at the address above them */
        uint64_t y = read_addr(h, i);
        *lo = (y & (y + 1)) << 2;
        *hi = *lo + (((y ^ (y + 1)) + 1) << 2);
        return true;
    }
    default:
        return false;
    }
}

bool sim_pmp_allows(const sim_hart *h, uint64_t addr, unsigned size, unsigned perm)
{
    uint64_t end = addr + size;
    if (end < addr) /* the last bytes of the address space */
        end = UINT64_MAX;
    for (unsigned i = 0; i < SIM_HART_PMP; i++) {
        uint64_t lo, hi;
        if (!sim_pmp_range(h, i, &lo, &hi) || addr >= hi || end <= lo)
            continue;
        if (addr < lo || end > hi) /* some of its bytes, not all */
            return false;
        uint8_t c = h->pmpcfg[i];
        return !(c & SIM_PMP_L) || (c & perm) == perm;
    }
    return true; /* no entry matches: machine mode may */
}

bool sim_pmp_fetch_denied(const sim_hart *h, uint64_t pc, unsigned len, uint64_t *tval)
{
    /* in 2-byte parcels, as the fetch reads them (as Spike) */
    for (unsigned off = 0; off < len; off += 2) {
        if (!sim_pmp_allows(h, pc + off, 2, SIM_PMP_X)) {
            *tval = pc + off;
            return true;
        }
    }
    return false;
}

/* Whether entry i may deny machine mode an access needing one of `perms`:
 * it is locked, matches something, and lacks one of them (then [*lo,
 * *hi) is its range).  No other entry ever denies one: an unlocked entry
 * allows machine mode everything, and cannot match only part of an
 * access (module comment). */
static bool denies(const sim_hart *h, unsigned i, unsigned perms, uint64_t *lo, uint64_t *hi)
{
    uint8_t c = h->pmpcfg[i];
    return (c & SIM_PMP_L) && (c & perms) != perms && sim_pmp_range(h, i, lo, hi);
}

bool sim_pmp_open(const sim_hart *h, uint64_t base, uint64_t size)
{
    for (unsigned i = 0; i < SIM_HART_PMP; i++) {
        uint64_t lo, hi;
        if (denies(h, i, SIM_PMP_R | SIM_PMP_W, &lo, &hi) && base < hi && lo < base + size)
            return false;
    }
    return true;
}

/* After h's PMP changed: how many entries may deny, and the fetch set of
 * the decoded code it shares. */
static void relock(sim_hart *h)
{
    unsigned n = 0;
    for (unsigned i = 0; i < SIM_HART_PMP; i++) {
        uint64_t lo, hi;
        n += denies(h, i, SIM_PMP_R | SIM_PMP_W | SIM_PMP_X, &lo, &hi);
    }
    h->pmp_deny = n;
    h->checks_mem = h->trig_mem || h->pmp_deny;
    if (h->icache && h->mem)
        sim_icache_repmp(h->mem, h->icache);
}

void sim_icache_repmp(sim_mem *m, struct sim_icache *ic)
{
    sim_pmp_span set[SIM_MEM_MAX_HARTS * SIM_HART_PMP];
    unsigned n = 0;
    memset(set, 0, sizeof set);
    for (unsigned k = 0; k < m->nharts; k++) {
        const sim_hart *o = m->harts[k];
        if (o->icache != ic || !o->pmp_deny)
            continue;
        for (unsigned i = 0; i < SIM_HART_PMP; i++)
            if (denies(o, i, SIM_PMP_X, &set[n].lo, &set[n].hi))
                n++;
    }
    if (n == ic->npmp && memcmp(set, ic->pmp, n * sizeof *set) == 0)
        return;
    memcpy(ic->pmp, set, sizeof set);
    ic->npmp = n;
    sim_icache_flush(ic);
}

bool sim_icache_pmp_fenced(const struct sim_icache *ic, uint64_t pc)
{
    for (unsigned i = 0; i < ic->npmp; i++)
        if (pc < ic->pmp[i].hi && ic->pmp[i].lo < pc + 4) /* [pc, pc + 4) meets it */
            return true;
    return false;
}

bool sim_pmp_is_csr(unsigned csr)
{
    return csr == CSR_PMPCFG0 || csr == CSR_PMPCFG2 ||
           (csr >= CSR_PMPADDR0 && csr <= CSR_PMPADDR15);
}

bool sim_pmp_csr_read(const sim_hart *h, unsigned csr, uint64_t *v)
{
    if (!sim_pmp_is_csr(csr))
        return false;
    *v = 0;
    if (csr == CSR_PMPCFG0) {
        for (unsigned i = 0; i < SIM_HART_PMP; i++)
            *v |= (uint64_t)h->pmpcfg[i] << (8 * i);
    } else if (csr >= CSR_PMPADDR0 && csr - CSR_PMPADDR0 < SIM_HART_PMP) {
        *v = read_addr(h, csr - CSR_PMPADDR0);
    }
    return true;
}

void sim_pmp_csr_write(sim_hart *h, unsigned csr, uint64_t v)
{
    if (csr == CSR_PMPCFG0) {
        for (unsigned i = 0; i < SIM_HART_PMP; i++)
            if (!(h->pmpcfg[i] & SIM_PMP_L))
                h->pmpcfg[i] = legal_cfg(v >> (8 * i));
    } else if (csr >= CSR_PMPADDR0 && csr - CSR_PMPADDR0 < SIM_HART_PMP) {
        unsigned i = csr - CSR_PMPADDR0;
        if (h->pmpcfg[i] & SIM_PMP_L)
            return;
        if (i + 1 < SIM_HART_PMP && (h->pmpcfg[i + 1] & SIM_PMP_L) &&
            (h->pmpcfg[i + 1] & SIM_PMP_A) == A_TOR)
            return; /* the bottom of a locked TOR entry */
        h->pmpaddr[i] = v & ADDR_MASK;
    } else {
        return; /* pmpcfg2, pmpaddr8-15: nothing there */
    }
    relock(h);
}
