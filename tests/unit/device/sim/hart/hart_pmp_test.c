/* Tests for the hart's physical memory protection (device/sim/hart/hart_pmp.c):
 * the CSRs' legal values (pmpaddr's granularity bits, pmpcfg's reserved
 * combinations, the entries past the eighth, locks until reset), the
 * matching (NAPOT and TOR ranges, the lowest entry deciding, a partial
 * match failing, unlocked entries not applying in machine mode, fetches
 * in 2-byte parcels), and PMP in runs — loads, stores, AMOs and fetches a
 * locked entry denies fault with the spec's mcause and mtval, one hart's
 * locks not another's in shared code, a lock written by the instruction
 * before the one it denies, and no check (and no cost) with no lock.
 * Every test runs interpreted, then translated (hart_jit.c).  Programs
 * are a few hand-encoded instructions; mtvec points at a `wfi`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"
#include "sim_hart.h"
#include "sim_mem.h"

#define CODE_BASE 0x80000000ull
#define CODE_SIZE 0x4000u /* four pages */
#define PAGE 0x1000u
#define TRAP_STUB 0x3800u /* on a page no test locks */
#define DATA_BASE 0x80100000ull
#define DATA_SIZE 0x2000u /* two pages */

enum { T0 = 5, T1 = 6, S0 = 8, A0 = 10, A1 = 11 };
enum { PMPCFG0 = 0x3a0, PMPCFG2 = 0x3a2, PMPADDR0 = 0x3b0 };
enum { R = 0x01, W = 0x02, X = 0x04, TOR = 0x08, NA4 = 0x10, NAPOT = 0x18, L = 0x80 };

#define WFI 0x10500073u
#define ADDI(rd, rs1, imm) (((uint32_t)(imm) << 20) | ((rs1) << 15) | ((rd) << 7) | 0x13u)
#define LW(rd, rs1, imm) (((uint32_t)(imm) << 20) | ((rs1) << 15) | (2u << 12) | ((rd) << 7) | 0x03u)
#define SW(rs2, rs1, imm)                                                                      \
    ((((uint32_t)(imm) >> 5) << 25) | ((rs2) << 20) | ((rs1) << 15) | (2u << 12) |             \
     (((uint32_t)(imm) & 31) << 7) | 0x23u)
#define AMOADD_W(rd, rs1, rs2) (((rs2) << 20) | ((rs1) << 15) | (2u << 12) | ((rd) << 7) | 0x2fu)
#define JALR(rd, rs1) (((rs1) << 15) | ((rd) << 7) | 0x67u)
#define ADD(rd, rs1, rs2) (((rs2) << 20) | ((rs1) << 15) | ((rd) << 7) | 0x33u)
/* blt rs1, rs2, off (off a multiple of 2, within +-4 KiB) */
#define BLT(rs1, rs2, off)                                                                     \
    (((((uint32_t)(off) >> 12) & 1) << 31) | ((((uint32_t)(off) >> 5) & 0x3f) << 25) |         \
     ((rs2) << 20) | ((rs1) << 15) | (4u << 12) | ((((uint32_t)(off) >> 1) & 0xf) << 8) |      \
     ((((uint32_t)(off) >> 11) & 1) << 7) | 0x63u)
#define CSRW(csr, rs1) (((uint32_t)(csr) << 20) | ((rs1) << 15) | (1u << 12) | 0x73u)

typedef struct rig {
    sim_mem mem;
    sim_hart h;
    uint8_t code[CODE_SIZE];
    uint8_t data[DATA_SIZE];
} rig;

/* A rig with `prog` (n words) at CODE_BASE + at, a wfi at TRAP_STUB that
 * mtvec points at; s0 = DATA_BASE. */
static rig *rig_new(unsigned at, const uint32_t *prog, unsigned n)
{
    rig *r = test_calloc(1, sizeof *r);
    memcpy(r->code + at, prog, n * sizeof *prog);
    uint32_t wfi = WFI;
    memcpy(r->code + TRAP_STUB, &wfi, 4);
    r->mem.ram[0] = (sim_ram){CODE_BASE, CODE_SIZE, r->code, 0};
    r->mem.ram[1] = (sim_ram){DATA_BASE, DATA_SIZE, r->data, 5};
    r->mem.nram = 2;
    assert_int_equal(sim_hart_init(&r->h, &r->mem, 0, CODE_BASE + at, CODE_BASE, CODE_SIZE), 0);
    r->h.mtvec = CODE_BASE + TRAP_STUB;
    r->h.x[S0] = DATA_BASE;
    return r;
}

static void rig_free(rig *r)
{
    sim_hart_free(&r->h);
    test_free(r);
}

static uint64_t csr(sim_hart *h, unsigned num)
{
    uint64_t v = 0;
    assert_true(sim_hart_csr_read(h, num, &v));
    return v;
}

/* Entry i: pmpaddr `addr`, then its pmpcfg byte `cfg` (the others kept). */
static void entry(sim_hart *h, unsigned i, uint64_t addr, unsigned cfg)
{
    sim_pmp_csr_write(h, PMPADDR0 + i, addr);
    uint64_t c = csr(h, PMPCFG0) & ~(0xffull << (8 * i));
    sim_pmp_csr_write(h, PMPCFG0, c | (uint64_t)cfg << (8 * i));
}

/* pmpaddr for the NAPOT range of `size` bytes at `base`. */
static uint64_t napot(uint64_t base, uint64_t size)
{
    return (base >> 2) | (size / 8 - 1);
}

static void run_to_wfi(sim_hart *h)
{
    assert_int_equal(sim_hart_run(h, h->cycle + 100000), SIM_HART_WFI);
}

static void csrs_write_any_read_legal(void **state)
{
    (void)state;
    rig *r = rig_new(0, (uint32_t[]){WFI}, 1);
    sim_hart *h = &r->h;
    for (unsigned i = 0; i < 16; i++)
        assert_int_equal(csr(h, PMPADDR0 + i), 0);
    assert_int_equal(csr(h, PMPCFG0), 0);
    assert_int_equal(csr(h, PMPCFG2), 0);
    /* not there: pmpcfg1 and pmpcfg3 (RV32), past the sixteenth */
    uint64_t v;
    assert_false(sim_hart_csr_read(h, 0x3a1, &v));
    assert_false(sim_hart_csr_read(h, 0x3a3, &v));
    assert_false(sim_hart_csr_read(h, 0x3a4, &v));
    assert_false(sim_hart_csr_read(h, 0x3c0, &v));
    /* pmpaddr: 54 bits; G = 10 */
    sim_pmp_csr_write(h, PMPADDR0, UINT64_MAX);
    assert_int_equal(csr(h, PMPADDR0), 0x003ffffffffffc00ull); /* off */
    sim_pmp_csr_write(h, PMPCFG0, TOR);
    assert_int_equal(csr(h, PMPADDR0), 0x003ffffffffffc00ull);
    sim_pmp_csr_write(h, PMPCFG0, NAPOT);
    assert_int_equal(csr(h, PMPADDR0), 0x003fffffffffffffull);
    sim_pmp_csr_write(h, PMPADDR0, 0x1000 >> 2); /* bit 9 clear: 4 KiB at 0x1000 */
    assert_int_equal(csr(h, PMPADDR0), 0x5ff);
    /* pmpcfg bytes: R=0 W=1 reserved, bits 6:5 read 0, NA4 is NAPOT */
    static const struct {
        uint8_t write, read;
    } cfg[] = {
        {W, 0}, {W | X, X}, {R | W, R | W}, {0x60 | R, R}, {NA4 | R, NAPOT | R},
        {TOR | X, TOR | X}, {0xff, 0xff & ~0x60}, {L | NAPOT, L | NAPOT},
    };
    for (unsigned i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        sim_hart_init(h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE);
        sim_pmp_csr_write(h, PMPCFG0, (uint64_t)cfg[i].write << 8);
        assert_int_equal(csr(h, PMPCFG0), (uint64_t)cfg[i].read << 8);
    }
    /* entries 8..15: nothing there */
    sim_pmp_csr_write(h, PMPCFG2, UINT64_MAX);
    sim_pmp_csr_write(h, PMPADDR0 + 8, UINT64_MAX);
    sim_pmp_csr_write(h, PMPADDR0 + 15, UINT64_MAX);
    assert_int_equal(csr(h, PMPCFG2), 0);
    assert_int_equal(csr(h, PMPADDR0 + 8), 0);
    assert_int_equal(csr(h, PMPADDR0 + 15), 0);
    rig_free(r);
}

static void locks_until_reset(void **state)
{
    (void)state;
    rig *r = rig_new(0, (uint32_t[]){WFI}, 1);
    sim_hart *h = &r->h;
    entry(h, 1, napot(DATA_BASE, PAGE), L | NAPOT | R);
    assert_int_equal(h->pmp_deny, 1);
    assert_int_equal(h->checks_mem, 1);
    sim_pmp_csr_write(h, PMPADDR0 + 1, 0);
    sim_pmp_csr_write(h, PMPCFG0, 0);
    assert_int_equal(csr(h, PMPADDR0 + 1), napot(DATA_BASE, PAGE));
    assert_int_equal(csr(h, PMPCFG0), (uint64_t)(L | NAPOT | R) << 8);
    /* a locked TOR entry locks the pmpaddr below it too; not above */
    entry(h, 3, DATA_BASE >> 2, 0);
    entry(h, 4, (DATA_BASE + PAGE) >> 2, L | TOR);
    sim_pmp_csr_write(h, PMPADDR0 + 3, 0);
    assert_int_equal(csr(h, PMPADDR0 + 3), DATA_BASE >> 2);
    sim_pmp_csr_write(h, PMPADDR0 + 5, 0x1234000);
    assert_int_equal(csr(h, PMPADDR0 + 5), 0x1234000);
    assert_int_equal(h->pmp_deny, 2);
    /* a locked entry that matches nothing is not counted */
    entry(h, 6, 0, L | TOR); /* [pmpaddr5 << 2, 0): empty */
    assert_int_equal(h->pmp_deny, 2);
    /* reset unlocks */
    assert_int_equal(sim_hart_init(h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE), 0);
    assert_int_equal(h->pmp_deny, 0);
    assert_int_equal(csr(h, PMPCFG0), 0);
    assert_int_equal(csr(h, PMPADDR0 + 1), 0);
    rig_free(r);
}

static void ranges(void **state)
{
    (void)state;
    rig *r = rig_new(0, (uint32_t[]){WFI}, 1);
    sim_hart *h = &r->h;
    uint64_t lo, hi;
    assert_false(sim_pmp_range(h, 0, &lo, &hi)); /* off */
    entry(h, 0, napot(0x80000000, 0x1000), NAPOT);
    assert_true(sim_pmp_range(h, 0, &lo, &hi));
    assert_int_equal(lo, 0x80000000);
    assert_int_equal(hi, 0x80001000);
    entry(h, 0, napot(0x80000000, 0x2000), NAPOT);
    assert_true(sim_pmp_range(h, 0, &lo, &hi));
    assert_int_equal(lo, 0x80000000);
    assert_int_equal(hi, 0x80002000);
    /* a size under the granule reads as the granule (bits 8:0 set) */
    entry(h, 0, 0x80000000 >> 2, NAPOT);
    assert_true(sim_pmp_range(h, 0, &lo, &hi));
    assert_int_equal(hi - lo, 0x1000);
    entry(h, 0, UINT64_MAX, NAPOT); /* 54 ones: 2^57 bytes, all of a 56-bit space */
    assert_true(sim_pmp_range(h, 0, &lo, &hi));
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 1ull << 57);
    /* TOR: from the entry below (0 for entry 0), bits 9:0 ignored */
    entry(h, 0, (0x5000 >> 2) | 0x3ff, TOR);
    assert_true(sim_pmp_range(h, 0, &lo, &hi));
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 0x5000);
    entry(h, 1, 0x9000 >> 2, TOR);
    assert_true(sim_pmp_range(h, 1, &lo, &hi));
    assert_int_equal(lo, 0x5000);
    assert_int_equal(hi, 0x9000);
    entry(h, 1, 0x5000 >> 2, TOR); /* empty */
    assert_false(sim_pmp_range(h, 1, &lo, &hi));
    rig_free(r);
}

static void matching(void **state)
{
    (void)state;
    rig *r = rig_new(0, (uint32_t[]){WFI}, 1);
    sim_hart *h = &r->h;
    const uint64_t p = 0x80004000;
    assert_true(sim_pmp_allows(h, p, 8, R)); /* no entry: machine mode may */
    /* unlocked, no permissions: machine mode may */
    entry(h, 2, napot(p, PAGE), NAPOT);
    assert_true(sim_pmp_allows(h, p, 8, R));
    assert_true(sim_pmp_allows(h, p, 8, W));
    assert_true(sim_pmp_allows(h, p, 2, X));
    /* a partial match fails, even of an unlocked entry */
    assert_false(sim_pmp_allows(h, p - 4, 8, R));
    assert_false(sim_pmp_allows(h, p + PAGE - 4, 8, R));
    /* locked, read only: what R, W, X say; an AMO needs R and W */
    entry(h, 3, napot(p + PAGE, PAGE), L | NAPOT | R);
    assert_true(sim_pmp_allows(h, p + PAGE, 8, R));
    assert_false(sim_pmp_allows(h, p + PAGE + 8, 4, W));
    assert_false(sim_pmp_allows(h, p + PAGE + 16, 2, X));
    assert_false(sim_pmp_allows(h, p + PAGE, 8, R | W));
    assert_true(sim_pmp_allows(h, p + 2 * PAGE, 8, W)); /* past it */
    /* the lowest entry decides: the unlocked 2 over a locked 4 on its page */
    entry(h, 4, napot(p, 2 * PAGE), L | NAPOT);
    assert_true(sim_pmp_allows(h, p + 8, 8, W));
    assert_true(sim_pmp_allows(h, p + PAGE, 8, R)); /* 3's R, over 4 */
    assert_false(sim_pmp_allows(h, p + PAGE, 8, W));
    rig_free(r);
}

static void lowest_entry_decides(void **state)
{
    (void)state;
    rig *r = rig_new(0, (uint32_t[]){WFI}, 1);
    sim_hart *h = &r->h;
    const uint64_t p = 0x80008000;
    /* locked, no permissions, over locked RWX: denied */
    entry(h, 1, napot(p, PAGE), L | NAPOT);
    entry(h, 2, napot(p, 2 * PAGE), L | NAPOT | R | W | X);
    assert_false(sim_pmp_allows(h, p, 4, R));
    assert_false(sim_pmp_allows(h, p + PAGE - 2, 2, X));
    assert_true(sim_pmp_allows(h, p + PAGE, 4, R)); /* 2's alone */
    /* an unlocked one below both: allowed (machine mode) */
    entry(h, 0, napot(p, PAGE), NAPOT);
    assert_true(sim_pmp_allows(h, p, 4, R | W));
    /* fetches by parcel: a 32-bit instruction whose upper half is denied */
    sim_hart_init(h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE);
    entry(h, 0, napot(p, PAGE), L | NAPOT | R);
    uint64_t tval = 0;
    assert_false(sim_pmp_fetch_denied(h, p - 4, 4, &tval));
    assert_true(sim_pmp_fetch_denied(h, p - 2, 4, &tval));
    assert_int_equal(tval, p);
    assert_true(sim_pmp_fetch_denied(h, p, 2, &tval));
    assert_int_equal(tval, p);
    /* the top of the address space does not wrap */
    assert_true(sim_pmp_allows(h, UINT64_MAX - 7, 8, R));
    rig_free(r);
}

/* lw a1, 8(s0); sw a0, 4(s0); amoadd.w a1, t0, (s0); wfi — data page 0 */
static const uint32_t accesses[] = {LW(A1, S0, 8), SW(A0, S0, 4), AMOADD_W(A1, S0, T0), WFI};

static void locked_entries_deny_accesses(void **state)
{
    (void)state;
    rig *r = rig_new(0, accesses, 4);
    sim_hart *h = &r->h;
    /* unlocked, no permissions: nothing happens */
    entry(h, 0, napot(DATA_BASE, PAGE), NAPOT);
    run_to_wfi(h);
    assert_false(h->trapped);
    /* locked, read only: the store faults (7), mtval its address */
    sim_hart_init(h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE);
    h->mtvec = CODE_BASE + TRAP_STUB;
    h->x[S0] = DATA_BASE;
    h->x[A0] = 0x55;
    entry(h, 0, napot(DATA_BASE, PAGE), L | NAPOT | R);
    run_to_wfi(h);
    assert_true(h->trapped);
    assert_int_equal(h->mcause, SIM_CAUSE_STORE_ACCESS);
    assert_int_equal(h->mepc, CODE_BASE + 4);
    assert_int_equal(h->mtval, DATA_BASE + 4);
    assert_int_equal(r->data[4], 0); /* nothing stored */
    /* the load ran (one access) and the wfi; a trap's cycle */
    assert_int_equal(h->instret, 2);
    assert_int_equal(h->cycle, 1 + 5 + 1 + 1);
    /* locked, no permissions: the load faults (5) */
    sim_hart_init(h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE);
    h->mtvec = CODE_BASE + TRAP_STUB;
    h->x[S0] = DATA_BASE;
    entry(h, 5, napot(DATA_BASE, PAGE), L | NAPOT);
    run_to_wfi(h);
    assert_int_equal(h->mcause, SIM_CAUSE_LOAD_ACCESS);
    assert_int_equal(h->mepc, CODE_BASE);
    assert_int_equal(h->mtval, DATA_BASE + 8);
    /* locked, R and X but no W: the AMO is a store/AMO access fault */
    sim_hart_init(h, &r->mem, 0, CODE_BASE + 8, CODE_BASE, CODE_SIZE);
    h->mtvec = CODE_BASE + TRAP_STUB;
    h->x[S0] = DATA_BASE;
    entry(h, 7, napot(DATA_BASE, PAGE), L | NAPOT | R | X);
    run_to_wfi(h);
    assert_int_equal(h->mcause, SIM_CAUSE_STORE_ACCESS);
    assert_int_equal(h->mepc, CODE_BASE + 8);
    assert_int_equal(h->mtval, DATA_BASE);
    /* the other data page is not covered */
    sim_hart_init(h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE);
    h->mtvec = CODE_BASE + TRAP_STUB;
    h->x[S0] = DATA_BASE + PAGE;
    entry(h, 0, napot(DATA_BASE, PAGE), L | NAPOT);
    run_to_wfi(h);
    assert_false(h->trapped);
    assert_int_equal(h->instret, 4);
    rig_free(r);
}

/* At 0: jalr ra, t0; addi a0, a0, 16; wfi.  At page 1: addi a0, a0, 1;
 * addi a0, a0, 2; ret.  At page 2 - 2: addi a0, a0, 4, its upper half on
 * page 2; ret.  t0 (restart_fetch) picks the callee. */
static rig *fetch_rig(void)
{
    rig *r = rig_new(0, (uint32_t[]){JALR(1, T0), ADDI(A0, A0, 16), WFI}, 3);
    const uint32_t callee[] = {ADDI(A0, A0, 1), ADDI(A0, A0, 2), JALR(0, 1)};
    memcpy(r->code + PAGE, callee, sizeof callee);
    /* a 32-bit instruction straddling pages 1 and 2: its halves */
    const uint32_t straddle = ADDI(A0, A0, 4), back = JALR(0, 1);
    memcpy(r->code + 2 * PAGE - 2, &straddle, 4);
    memcpy(r->code + 2 * PAGE + 2, &back, 4);
    return r;
}

static void restart_fetch(rig *r, uint64_t target)
{
    assert_int_equal(sim_hart_init(&r->h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE), 0);
    r->h.mtvec = CODE_BASE + TRAP_STUB;
    r->h.x[T0] = target;
}

static void locked_entries_deny_fetches(void **state)
{
    (void)state;
    rig *r = fetch_rig();
    sim_hart *h = &r->h;
    restart_fetch(r, CODE_BASE + PAGE);
    entry(h, 0, napot(CODE_BASE + PAGE, PAGE), NAPOT); /* unlocked: nothing */
    run_to_wfi(h);
    assert_false(h->trapped);
    assert_int_equal(h->x[A0], 19);
    uint64_t cycle = h->cycle;
    /* locked without X: the fetch at the page faults, mepc and mtval it */
    restart_fetch(r, CODE_BASE + PAGE);
    entry(h, 0, napot(CODE_BASE + PAGE, PAGE), L | NAPOT | R | W);
    run_to_wfi(h);
    assert_true(h->trapped);
    assert_int_equal(h->mcause, SIM_CAUSE_FETCH_ACCESS);
    assert_int_equal(h->mepc, CODE_BASE + PAGE);
    assert_int_equal(h->mtval, CODE_BASE + PAGE);
    assert_int_equal(h->x[A0], 0);
    assert_int_equal(h->instret, 2); /* the jalr, the stub's wfi */
    assert_int_equal(h->cycle, 3);
    /* the same, with X: runs as with nothing locked, in the same time,
     * no fetch checked (only a locked entry without X denies a fetch) */
    restart_fetch(r, CODE_BASE + PAGE);
    entry(h, 0, napot(CODE_BASE + PAGE, PAGE), L | NAPOT | X);
    assert_int_equal(h->pmp_deny, 1);
    assert_int_equal(h->icache->npmp, 0);
    run_to_wfi(h);
    assert_false(h->trapped);
    assert_int_equal(h->x[A0], 19);
    assert_int_equal(h->cycle, cycle);
    /* a 32-bit instruction whose upper half is on a denied page: mtval
     * names that half */
    restart_fetch(r, CODE_BASE + 2 * PAGE - 2);
    entry(h, 0, napot(CODE_BASE + 2 * PAGE, PAGE), L | NAPOT | R);
    run_to_wfi(h);
    assert_int_equal(h->mcause, SIM_CAUSE_FETCH_ACCESS);
    assert_int_equal(h->mepc, CODE_BASE + 2 * PAGE - 2);
    assert_int_equal(h->mtval, CODE_BASE + 2 * PAGE);
    /* its lower half's page denied: mtval its pc */
    restart_fetch(r, CODE_BASE + 2 * PAGE - 2);
    entry(h, 0, napot(CODE_BASE + PAGE, PAGE), L | NAPOT | R);
    run_to_wfi(h);
    assert_int_equal(h->mcause, SIM_CAUSE_FETCH_ACCESS);
    assert_int_equal(h->mtval, CODE_BASE + 2 * PAGE - 2);
    rig_free(r);
}

static void harts_sharing_code_keep_their_own(void **state)
{
    (void)state;
    rig *r = fetch_rig();
    sim_hart other;
    assert_int_equal(sim_hart_init(&other, &r->mem, 1, CODE_BASE, CODE_BASE, CODE_SIZE), 0);
    other.mtvec = CODE_BASE + TRAP_STUB;
    other.x[T0] = CODE_BASE + PAGE;
    assert_ptr_equal(other.icache, r->h.icache);
    restart_fetch(r, CODE_BASE + PAGE);
    entry(&r->h, 0, napot(CODE_BASE + PAGE, PAGE), L | NAPOT);
    assert_int_equal(r->h.icache->npmp, 1);
    run_to_wfi(&other); /* meets the checks, which are not its entries */
    assert_false(other.trapped);
    assert_int_equal(other.x[A0], 19);
    run_to_wfi(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mcause, SIM_CAUSE_FETCH_ACCESS);
    /* the hart that locked it leaves (or resets): the set goes with it */
    sim_hart_free(&r->h);
    assert_int_equal(other.icache->npmp, 0);
    sim_hart_free(&other);
    test_free(r);
}

/* csrw pmpcfg0 locks an entry over the very next instruction, in the
 * same decoded block: its fetch faults. */
static void locked_by_the_instruction_before(void **state)
{
    (void)state;
    const uint32_t prog[] = {ADDI(A0, A0, 1), CSRW(PMPCFG0, T0), ADDI(A0, A0, 1), WFI};
    rig *r = rig_new(0, prog, 4);
    sim_pmp_csr_write(&r->h, PMPADDR0, napot(CODE_BASE, PAGE));
    r->h.x[T0] = L | NAPOT | R;
    run_to_wfi(&r->h);
    assert_true(r->h.trapped);
    assert_int_equal(r->h.mcause, SIM_CAUSE_FETCH_ACCESS);
    assert_int_equal(r->h.mepc, CODE_BASE + 8);
    assert_int_equal(r->h.x[A0], 1);
    assert_int_equal(r->h.instret, 3); /* addi, csrw, the stub's wfi */
    rig_free(r);
}

/* A block whose instructions carry fetch checks, entered in the middle
 * (a loop's branch back to its second instruction): the check there
 * loads the forwarded values the instruction after it reads (sim_hart.c),
 * as any entry does. */
static void checks_keep_forwarded_values(void **state)
{
    (void)state;
    /* li a0, 5; add a1, a0, a0; addi t0, t0, 1; blt t0, t1, -8; wfi */
    const uint32_t prog[] = {ADDI(A0, 0, 5), ADD(A1, A0, A0), ADDI(T0, T0, 1), BLT(T0, T1, -8),
                             WFI};
    rig *r = rig_new(0, prog, 5);
    r->h.x[T1] = 3;
    /* checked fetches, allowed: the unlocked entry 0 decides */
    entry(&r->h, 0, napot(CODE_BASE, PAGE), NAPOT);
    entry(&r->h, 1, napot(CODE_BASE, PAGE), L | NAPOT);
    assert_int_equal(r->h.icache->npmp, 1);
    run_to_wfi(&r->h);
    assert_false(r->h.trapped);
    assert_int_equal(r->h.x[A1], 10);
    assert_int_equal(r->h.x[T0], 3);
    assert_int_equal(r->h.instret, 1 + 3 * 3 + 1);
    unsigned checks = 0;
    for (const sim_insn *d = r->h.icache->arena; d < r->h.icache->arena + r->h.icache->used; d++)
        checks += d->op == SIM_OP_PMP;
    assert_true(checks >= 4);
    rig_free(r);
}

/* sim_pmp_open: whether a range is clear of every entry that may deny a
 * load or store (the hot loop's RAM cache keeps such a range). */
static void open_ranges(void **state)
{
    (void)state;
    rig *r = rig_new(0, (uint32_t[]){WFI}, 1);
    sim_hart *h = &r->h;
    const uint64_t p = 0x80010000;
    assert_true(sim_pmp_open(h, p, 4 * PAGE));
    entry(h, 0, napot(p + PAGE, PAGE), NAPOT); /* unlocked */
    entry(h, 1, napot(p + 2 * PAGE, PAGE), L | NAPOT | R | W); /* allows loads and stores */
    assert_true(sim_pmp_open(h, p, 4 * PAGE));
    entry(h, 2, napot(p + 3 * PAGE, PAGE), L | NAPOT | R | X); /* no W */
    assert_false(sim_pmp_open(h, p, 4 * PAGE));
    assert_false(sim_pmp_open(h, p + 3 * PAGE + 8, 8));
    assert_true(sim_pmp_open(h, p, 3 * PAGE));
    assert_true(sim_pmp_open(h, p + 4 * PAGE, PAGE));
    rig_free(r);
}

/* Locked entries that allow everything (R, W and X) deny nothing: no
 * check at all, as with none locked. */
static void allowing_locks_cost_nothing(void **state)
{
    (void)state;
    rig *r = rig_new(0, accesses, 4);
    run_to_wfi(&r->h);
    uint64_t cycle = r->h.cycle, mem_cycles = r->h.mem_cycles;
    sim_hart_init(&r->h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE);
    r->h.mtvec = CODE_BASE + TRAP_STUB;
    r->h.x[S0] = DATA_BASE;
    entry(&r->h, 0, napot(CODE_BASE, 1ull << 30), L | NAPOT | R | W | X);
    assert_int_equal(r->h.pmp_deny, 0);
    assert_int_equal(r->h.checks_mem, 0);
    assert_int_equal(r->h.icache->npmp, 0);
    run_to_wfi(&r->h);
    assert_false(r->h.trapped);
    assert_int_equal(r->h.cycle, cycle);
    assert_int_equal(r->h.mem_cycles, mem_cycles);
    rig_free(r);
}

/* With no entry locked nothing is checked: the decoded code carries no
 * check, the accesses take the fast path, and the time is the same. */
static void unlocked_entries_cost_nothing(void **state)
{
    (void)state;
    rig *r = rig_new(0, accesses, 4);
    run_to_wfi(&r->h);
    uint64_t cycle = r->h.cycle, instret = r->h.instret, mem_cycles = r->h.mem_cycles;
    sim_hart_init(&r->h, &r->mem, 0, CODE_BASE, CODE_BASE, CODE_SIZE);
    r->h.mtvec = CODE_BASE + TRAP_STUB;
    r->h.x[S0] = DATA_BASE;
    for (unsigned i = 0; i < SIM_HART_PMP; i++)
        entry(&r->h, i, napot(CODE_BASE, 1ull << 30), NAPOT); /* no L */
    assert_int_equal(r->h.pmp_deny, 0);
    assert_int_equal(r->h.icache->npmp, 0);
    run_to_wfi(&r->h);
    assert_false(r->h.trapped);
    assert_int_equal(r->h.cycle, cycle);
    assert_int_equal(r->h.instret, instret);
    assert_int_equal(r->h.mem_cycles, mem_cycles);
    for (const sim_insn *d = r->h.icache->arena; d < r->h.icache->arena + r->h.icache->used; d++)
        assert_int_not_equal(d->op, SIM_OP_PMP);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csrs_write_any_read_legal),
        cmocka_unit_test(locks_until_reset),
        cmocka_unit_test(ranges),
        cmocka_unit_test(matching),
        cmocka_unit_test(lowest_entry_decides),
        cmocka_unit_test(locked_entries_deny_accesses),
        cmocka_unit_test(locked_entries_deny_fetches),
        cmocka_unit_test(harts_sharing_code_keep_their_own),
        cmocka_unit_test(locked_by_the_instruction_before),
        cmocka_unit_test(checks_keep_forwarded_values),
        cmocka_unit_test(open_ranges),
        cmocka_unit_test(allowing_locks_cost_nothing),
        cmocka_unit_test(unlocked_entries_cost_nothing),
    };
    setenv("KMRUN_JIT", "off", 1);
    int failed = cmocka_run_group_tests_name("interpreted", tests, NULL, NULL);
    unsetenv("KMRUN_JIT");
    return failed + cmocka_run_group_tests_name("translated", tests, NULL, NULL);
}
