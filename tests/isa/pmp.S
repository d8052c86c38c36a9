# Physical memory protection (device/sim/README.md, "PMP"): the X280's
# eight entries with a 4 KiB granularity (G = 10).
#
# The CSRs' legal values first: pmpaddr is WARL (bits 53:0, a 56-bit
# physical address; bits G-1:0 read 0 in OFF and TOR, bits G-2:0 read 1 in
# NAPOT, bit G-1 kept underneath), pmpcfg's reserved combinations (R=0
# W=1, bits 6:5, NA4 where G >= 1), the entries past the eighth read 0,
# pmpcfg1/3 and the CSRs past the sixteenth are not there.  Then the
# checks, in machine mode, the only mode: an unlocked entry does not apply
# (loads, stores, fetches pass), a locked one does — NAPOT and TOR, loads
# (cause 5), stores, AMOs and SC (7), FP and vector accesses, fetches
# (cause 1, a 32-bit instruction whose second half is denied included:
# mtval its address) — the lowest entry that matches decides, and a
# locked entry (and the pmpaddr below a locked TOR entry) ignores writes.
#
# The handler records mcause in s2, mepc in s3, mtval in s4 and counts
# traps in s5; it returns to s10 (ARM sets it), then to `fail`.  Locked entries stay
# locked until reset: each test below takes entries of its own.
#include "test.h"

/* The next trap returns to label `resume`; clears the record. */
.macro ARM resume
    la s10, \resume
    li s5, 0
    li s2, -1
    li s3, -1
    li s4, -1
.endm

/* One trap was taken, of `cause`, mepc the address of label `at`, mtval
 * the address of label `addr` plus `off`. */
.macro TRAPPED_AT cause, at, addr, off
    CHECK s5, 1
    CHECK s2, \cause
    la t0, \at
    bne s3, t0, fail
    la t0, \addr
    li t5, \off
    add t0, t0, t5
    bne s4, t0, fail
.endm

/* No trap since ARM. */
.macro NO_TRAP
    CHECK s5, 0
.endm

/* pmpaddr's value for the NAPOT range of `size` bytes at label `at`
 * (size a power of two, at least 8), into `reg`. */
.macro NAPOT reg, at, size
    la \reg, \at
    srli \reg, \reg, 2
    ori \reg, \reg, ((\size / 8) - 1)
.endm

/* Entry n's pmpcfg byte (n < 8) set to `cfg`: the byte cleared, then
 * set (t5, t6 scratch). */
.macro SET_CFG n, cfg
    li t6, (0xff << (8 * \n))
    csrc pmpcfg0, t6
    li t6, (\cfg << (8 * \n))
    csrs pmpcfg0, t6
.endm

#define R 0x01
#define W 0x02
#define X 0x04
#define TOR 0x08
#define NA4 0x10
#define NAPOT_A 0x18
#define L 0x80

TEST_BEGIN
    VECTOR_ON
    la t0, handler
    csrw mtvec, t0
    la s10, fail
    j tests

    .balign 4
handler:
    csrr s2, mcause
    csrr s3, mepc
    csrr s4, mtval
    addi s5, s5, 1
    csrw mepc, s10
    la s10, fail              # a trap no test armed for fails
    mret

tests:
    # ---- pmpaddr: WARL, 54 bits, the granularity ----
    TEST 1                    # OFF: bits 9:0 read 0 (G = 10: 4 KiB)
    csrw pmpcfg0, zero
    li a1, -1
    csrw pmpaddr0, a1
    csrr a0, pmpaddr0
    CHECK a0, 0x003ffffffffffc00
    TEST 2                    # NAPOT: bits 8:0 read 1, bit 9 as written
    SET_CFG 0, NAPOT_A
    csrr a0, pmpaddr0
    CHECK a0, 0x003fffffffffffff
    li a1, (1 << 9)
    csrc pmpaddr0, a1
    csrr a0, pmpaddr0
    CHECK a0, 0x003ffffffffffdff
    TEST 3                    # TOR reads as OFF; the bit kept underneath
    li a1, (1 << 9)
    csrs pmpaddr0, a1
    SET_CFG 0, TOR
    csrr a0, pmpaddr0
    CHECK a0, 0x003ffffffffffc00
    SET_CFG 0, NAPOT_A
    csrr a0, pmpaddr0
    CHECK a0, 0x003fffffffffffff
    TEST 4                    # a read-modify-write in OFF clears it
    SET_CFG 0, 0
    csrs pmpaddr0, zero       # rs1 = x0: no write at all
    SET_CFG 0, NAPOT_A
    csrr a0, pmpaddr0
    CHECK a0, 0x003fffffffffffff
    SET_CFG 0, 0
    li a1, 1
    csrs pmpaddr0, a1
    SET_CFG 0, NAPOT_A
    csrr a0, pmpaddr0
    CHECK a0, 0x003ffffffffffdff
    TEST 5                    # every entry's pmpaddr, 0..7
    li a1, 0x0123456789abcdef
    csrw pmpcfg0, zero
    csrw pmpaddr7, a1
    csrr a0, pmpaddr7
    CHECK a0, 0x0023456789abcc00
    csrw pmpaddr4, a1
    csrr a0, pmpaddr4
    CHECK a0, 0x0023456789abcc00

    # ---- pmpcfg: WARL ----
    TEST 6                    # R=0 W=1 is reserved: W reads 0
    SET_CFG 1, W
    csrr a0, pmpcfg0
    srli a0, a0, 8
    andi a0, a0, 0xff
    CHECK a0, 0
    SET_CFG 1, (W | X)
    csrr a0, pmpcfg0
    srli a0, a0, 8
    andi a0, a0, 0xff
    CHECK a0, X
    TEST 7                    # NA4 cannot be chosen with G >= 1: NAPOT
    SET_CFG 2, (NA4 | R)
    csrr a0, pmpcfg0
    srli a0, a0, 16
    andi a0, a0, 0xff
    CHECK a0, (NAPOT_A | R)
    TEST 8                    # bits 6:5 read 0
    SET_CFG 3, (0x60 | R | W | X)
    csrr a0, pmpcfg0
    srli a0, a0, 24
    andi a0, a0, 0xff
    CHECK a0, (R | W | X)
    TEST 9                    # every byte: the eight entries
    li a1, 0x1f1f1f1f1f1f1f1f
    csrw pmpcfg0, a1
    csrr a0, pmpcfg0
    CHECK a0, 0x1f1f1f1f1f1f1f1f
    csrw pmpcfg0, zero
    csrr a0, pmpcfg0
    CHECK a0, 0

    # ---- entries 8..15 read 0; pmpcfg1, pmpcfg3 and past 15: none ----
    TEST 10
    li a1, -1
    csrw pmpcfg2, a1
    csrr a0, pmpcfg2
    CHECK a0, 0
    csrw pmpaddr8, a1
    csrr a0, pmpaddr8
    CHECK a0, 0
    csrw pmpaddr15, a1
    csrr a0, pmpaddr15
    CHECK a0, 0
    TEST 11
    ARM 2f
1:  csrr a0, pmpcfg1
    j fail
2:  CHECK s5, 1
    CHECK s2, 2
    TEST 12
    ARM 2f
1:  csrr a0, pmpcfg3
    j fail
2:  CHECK s5, 1
    CHECK s2, 2
    TEST 13
    ARM 2f
1:  csrr a0, 0x3a4            # pmpcfg4
    j fail
2:  CHECK s5, 1
    CHECK s2, 2
    TEST 14
    ARM 2f
1:  csrr a0, 0x3c0            # pmpaddr16
    j fail
2:  CHECK s5, 1
    CHECK s2, 2

    # ---- unlocked entries do not apply in machine mode ----
    TEST 15                   # entry 0: a page, no permissions, unlocked
    NAPOT a1, page_u, 4096
    csrw pmpaddr0, a1
    SET_CFG 0, NAPOT_A
    ARM fail
    la s0, page_u
    li a1, 5
    sd a1, 8(s0)
    ld a0, 8(s0)
    CHECK a0, 5
    amoadd.d a0, a1, (s0)
    fld ft0, 8(s0)
    NO_TRAP
    TEST 16                   # entry 1: the code page, no permissions
    NAPOT a1, page_x, 4096
    csrw pmpaddr1, a1
    SET_CFG 1, NAPOT_A
    ARM fail
    li a0, 0
    call straddle             # runs into page_x and back
    CHECK a0, 3
    NO_TRAP
    SET_CFG 1, 0

    # ---- the lowest entry that matches decides ----
    TEST 17                   # entry 1 unlocked over entry 2 locked: passes
    NAPOT a1, page_p, 4096
    csrw pmpaddr1, a1
    csrw pmpaddr2, a1
    SET_CFG 1, NAPOT_A
    SET_CFG 2, (L | NAPOT_A)
    ARM fail
    la s0, page_p
    li a1, 9
    sd a1, 0(s0)
    ld a0, 0(s0)
    CHECK a0, 9
    NO_TRAP
    TEST 18                   # a locked entry ignores writes, until reset
    csrw pmpaddr2, zero
    csrr a0, pmpaddr2
    NAPOT a1, page_p, 4096
    bne a0, a1, fail
    SET_CFG 2, 0
    csrr a0, pmpcfg0
    srli a0, a0, 16
    andi a0, a0, 0xff
    CHECK a0, (L | NAPOT_A)
    TEST 19                   # entry 3 locked, no permissions, over entry 4 locked RW
    NAPOT a1, page_n, 4096
    csrw pmpaddr3, a1
    csrw pmpaddr4, a1
    SET_CFG 4, (L | NAPOT_A | R | W)
    SET_CFG 3, (L | NAPOT_A)
    la s0, page_n
    ARM 2f
1:  ld a0, 16(s0)
    j fail
2:  TRAPPED_AT 5, 1b, page_n, 16

    # ---- a locked NAPOT entry with no permissions: every access faults ----
    TEST 20
    li a0, 77
    ARM 2f
1:  sd a0, 24(s0)
    j fail
2:  TRAPPED_AT 7, 1b, page_n, 24
    TEST 21
    li t0, 4095
    add t0, s0, t0
    ARM 2f
1:  lbu a0, 0(t0)
    j fail
2:  TRAPPED_AT 5, 1b, page_n, 4095
    TEST 22                   # an AMO: a store/AMO access fault
    ARM 2f
1:  amoadd.w a0, a1, (s0)
    j fail
2:  TRAPPED_AT 7, 1b, page_n, 0
    TEST 23
    ARM 2f
1:  lr.d a0, (s0)
    j fail
2:  TRAPPED_AT 5, 1b, page_n, 0
    TEST 24                   # sc faults even without a reservation (as Spike)
    ARM 2f
1:  sc.d a0, a1, (s0)
    j fail
2:  TRAPPED_AT 7, 1b, page_n, 0
    TEST 25
    addi s1, s0, 32
    ARM 2f
1:  fld ft0, 0(s1)
    j fail
2:  TRAPPED_AT 5, 1b, page_n, 32
    TEST 26
    ARM 2f
1:  fsw ft0, 4(s1)
    j fail
2:  TRAPPED_AT 7, 1b, page_n, 36
    TEST 27                   # vectors: the element's address, vstart
    li a1, 4
    vsetvli zero, a1, e64, m1, ta, ma
    ARM 2f
1:  vle64.v v1, (s1)
    j fail
2:  TRAPPED_AT 5, 1b, page_n, 32
    csrr a0, vstart
    CHECK a0, 0
    TEST 28                   # nothing was written: the page is as it was
    csrw vstart, zero
    la s0, page_n
    ARM 2f
1:  vse64.v v1, (s0)
    j fail
2:  TRAPPED_AT 7, 1b, page_n, 0
    csrw vstart, zero
    TEST 29                   # the pages around it are not covered
    ARM fail
    la s0, page_n
    sd a1, -8(s0)
    li t0, 4096
    add t0, s0, t0
    ld a0, 0(t0)
    NO_TRAP

    # ---- a locked TOR entry, read only: [page_t, page_t + 8 KiB) ----
    TEST 30
    la a1, page_t
    srli a1, a1, 2
    csrw pmpaddr5, a1
    li a2, 8192 >> 2
    add a1, a1, a2
    csrw pmpaddr6, a1
    SET_CFG 6, (L | TOR | R)
    la s0, page_t
    ARM fail
    ld a0, 0(s0)              # reads pass
    li t0, 8184
    add t0, s0, t0
    ld a0, 0(t0)
    li t0, 8192               # past the top: not covered
    add t0, s0, t0
    sd a1, 0(t0)
    sd a1, -8(s0)             # below the bottom: not covered
    NO_TRAP
    TEST 31
    ARM 2f
1:  sw a1, 0(s0)
    j fail
2:  TRAPPED_AT 7, 1b, page_t, 0
    TEST 32
    li t0, 8188
    add s1, s0, t0
    ARM 2f
1:  sw a1, 0(s1)
    j fail
2:  TRAPPED_AT 7, 1b, page_t, 8188
    TEST 33                   # the pmpaddr below a locked TOR entry is locked too
    csrw pmpaddr5, zero
    csrr a0, pmpaddr5
    la a1, page_t
    srli a1, a1, 2
    bne a0, a1, fail
    csrw pmpaddr6, zero
    csrr a0, pmpaddr6
    li a2, 8192 >> 2
    add a1, a1, a2
    bne a0, a1, fail

    # ---- a locked entry without X over code: fetches fault ----
    TEST 34
    NAPOT a1, page_x, 4096
    csrw pmpaddr7, a1
    SET_CFG 7, (L | NAPOT_A | R | W)
    ARM 2f
1:  call x_target
    j fail
2:  TRAPPED_AT 1, x_target, x_target, 0
    TEST 35                   # its bytes are readable (R)
    ARM fail
    la s0, x_target
    lhu a0, 0(s0)
    NO_TRAP
    TEST 36                   # a 32-bit instruction whose second half is in it
    ARM 2f
1:  call straddle
    j fail
2:  TRAPPED_AT 1, straddle, straddle, 2
    TEST 37                   # the code before it still runs
    ARM fail
    call before_x
    CHECK a0, 41
    NO_TRAP
TEST_END

    # page_x: a page of code of its own; straddle, a 32-bit instruction
    # at its first byte - 2, then x_target
    .text
    .balign 4096
before_x:
    li a0, 41
    ret
    .balign 4096
    .skip 4096 - 2
straddle:
    .option push
    .option norvc
    addi a0, a0, 1            # its upper half is page_x's first bytes
    .option pop
x_target:
    addi a0, a0, 2
    ret
    .balign 4096
page_x_end:
    .equ page_x, straddle + 2

    .data
    .balign 4096
page_u:
    .skip 4096
page_p:
    .skip 4096
    .skip 4096                # below page_n: not covered
page_n:
    .skip 4096
    .skip 4096                # above page_n: not covered
    .skip 4096                # below page_t: not covered
page_t:
    .skip 8192
    .skip 4096                # above page_t: not covered
