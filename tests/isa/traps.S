# Traps to mtvec: mcause, mepc and mtval for illegal instructions (mtval:
# the bits), misaligned loads and stores (mtval: the address), access
# faults where nothing answers, instruction access faults, ecall, ebreak,
# c.ebreak, vector instructions with mstatus.VS off (as it starts), FP instructions with
# mstatus.FS off, reserved rounding modes, read-only and unknown CSRs;
# mret back to the address the handler chose.
#
# The handler records mcause in s2, mepc in s3, mtval in s4, mstatus in s6
# and counts traps in s5; it returns to s10 when s10 is set, else to
# mepc + 4 (mret).  A test arms it with TRAP_AT, then checks.
#include "test.h"

/* The next trap returns to label `resume`; clears the record. */
.macro ARM resume
    la s10, \resume
    li s5, 0
    li s2, -1
    li s3, -1
    li s4, -1
.endm

/* One trap was taken, of `cause`, at label `at`, with mtval `tval`. */
.macro TRAPPED cause, at, tval
    CHECK s5, 1
    CHECK s2, \cause
    la t0, \at
    bne s3, t0, fail
    CHECK s4, \tval
.endm

/* The same, with mtval the address buf + `off` (buf is in s0). */
.macro TRAPPED_BUF cause, at, off
    CHECK s5, 1
    CHECK s2, \cause
    la t0, \at
    bne s3, t0, fail
    addi t0, s0, \off
    bne s4, t0, fail
.endm

/* The same, with mtval the instruction bits found at `at` (32 bits). */
.macro TRAPPED_BITS cause, at
    CHECK s5, 1
    CHECK s2, \cause
    la t0, \at
    bne s3, t0, fail
    lhu t1, 0(t0)             # code is only 2-byte aligned
    lhu t2, 2(t0)
    slli t2, t2, 16
    or t1, t1, t2
    bne s4, t1, fail
.endm

TEST_BEGIN
    la t0, handler
    csrw mtvec, t0
    la s0, buf
    j tests

    .balign 4
handler:
    csrr s2, mcause
    csrr s3, mepc
    csrr s4, mtval
    csrr s6, mstatus
    addi s5, s5, 1
    beqz s10, 1f
    csrw mepc, s10
    li s10, 0
    mret
1:  csrr t0, mepc
    addi t0, t0, 4
    csrw mepc, t0
    mret

tests:
    # ---- illegal instructions: mtval holds the bits ----
    TEST 1
    ARM 2f
1:  .4byte 0x1234500b         # custom-0: nothing here
    j fail
2:  TRAPPED 2, 1b, 0x1234500b
    TEST 2
    ARM 2f
1:  .4byte 0xc0001073         # csrrw zero, cycle, zero: a read-only CSR
    j fail
2:  TRAPPED 2, 1b, 0xc0001073
    TEST 3                    # a compressed one: 16 bits
    ARM 2f
1:  .2byte 0
    j fail
2:  TRAPPED 2, 1b, 0
    TEST 4
    ARM 2f
1:  csrw mhartid, a0
    j fail
2:  TRAPPED_BITS 2, 1b
    TEST 5                    # csrrs with rs1 != x0 writes, even a zero
    li a0, 0
    ARM 2f
1:  csrrs a1, mhartid, a0
    j fail
2:  TRAPPED_BITS 2, 1b
    TEST 6                    # a CSR that does not exist
    ARM 2f
1:  csrr a0, 0x8ff
    j fail
2:  TRAPPED_BITS 2, 1b
    TEST 7                    # the trap left MPP = machine
    srli a0, s6, 11
    andi a0, a0, 3
    CHECK a0, 3

    # ---- vector instructions are illegal while mstatus.VS is Off ----
    TEST 8
    ARM 2f
1:  .4byte 0x0d0572d7         # vsetvli t0, a0, e32, m1, ta, ma
    j fail
2:  TRAPPED 2, 1b, 0x0d0572d7
    TEST 9
    mv a1, s0
    ARM 2f
1:  .4byte 0x0205e087         # vle32.v v1, (a1): LOAD-FP's opcode
    j fail
2:  TRAPPED 2, 1b, 0x0205e087
    TEST 10
    ARM 2f
1:  .4byte 0x022180d7         # vadd.vv v1, v2, v3
    j fail
2:  TRAPPED 2, 1b, 0x022180d7

    # ---- FP: FS off, reserved rounding modes ----
    TEST 11
    li a0, 3 << 13
    csrc mstatus, a0
    ARM 2f
1:  fadd.d f1, f2, f3
    j fail
2:  TRAPPED_BITS 2, 1b
    TEST 12
    ARM 2f
1:  fld f1, 0(s0)
    j fail
2:  TRAPPED_BITS 2, 1b
    TEST 13
    ARM 2f
1:  csrr a1, fcsr             # the FP CSRs too
    j fail
2:  TRAPPED_BITS 2, 1b
    li a0, 3 << 13
    csrs mstatus, a0
    TEST 14                   # fadd.s f1, f2, f3 with rm = 5
    ARM 2f
1:  .4byte (3 << 20) | (2 << 15) | (5 << 12) | (1 << 7) | 0x53
    j fail
2:  TRAPPED 2, 1b, 0x003150d3
    TEST 15                   # dynamic rounding with frm = 5
    fsrmi 5
    ARM 2f
1:  fadd.s f1, f2, f3
    j fail
2:  TRAPPED_BITS 2, 1b
    fsrmi 0

    # ---- misaligned loads: mtval is the address ----
    TEST 16
    addi a1, s0, 1
    ARM 2f
1:  ld a0, 0(a1)
    j fail
2:  TRAPPED_BUF 4, 1b, 1
    TEST 17
    ARM 2f
1:  lw a0, 1(s0)
    j fail
2:  TRAPPED_BUF 4, 1b, 1
    ARM 2f
1:  lhu a0, 3(s0)
    j fail
2:  TRAPPED_BUF 4, 1b, 3
    ARM 2f
1:  lwu a0, 6(s0)
    j fail
2:  TRAPPED_BUF 4, 1b, 6
    TEST 18
    ARM 2f
1:  fld f1, 4(s0)
    j fail
2:  TRAPPED_BUF 4, 1b, 4
    ARM 2f
1:  flw f1, 2(s0)
    j fail
2:  TRAPPED_BUF 4, 1b, 2

    # ---- misaligned stores and AMOs: cause 6, memory untouched ----
    TEST 19
    sd zero, 0(s0)
    sd zero, 8(s0)
    li a0, -1
    ARM 2f
1:  sd a0, 4(s0)
    j fail
2:  TRAPPED_BUF 6, 1b, 4
    ARM 2f
1:  sw a0, 2(s0)
    j fail
2:  TRAPPED_BUF 6, 1b, 2
    ARM 2f
1:  sh a0, 1(s0)
    j fail
2:  TRAPPED_BUF 6, 1b, 1
    ARM 2f
1:  fsd f1, 12(s0)
    j fail
2:  TRAPPED_BUF 6, 1b, 12
    ld a1, 0(s0)
    CHECK a1, 0
    ld a1, 8(s0)
    CHECK a1, 0
    TEST 20
    addi a1, s0, 2
    ARM 2f
1:  amoadd.w a0, a0, (a1)
    j fail
2:  TRAPPED_BUF 6, 1b, 2
    addi a1, s0, 4
    ARM 2f
1:  amoswap.d a0, a0, (a1)
    j fail
2:  TRAPPED_BUF 6, 1b, 4
    ld a1, 0(s0)
    CHECK a1, 0

    # ---- access faults: nothing answers ----
    TEST 21
    li a1, 0x10
    ARM 2f
1:  ld a0, 0(a1)
    j fail
2:  TRAPPED 5, 1b, 0x10
    ARM 2f
1:  lb a0, 7(a1)
    j fail
2:  TRAPPED 5, 1b, 0x17
    TEST 22
    ARM 2f
1:  sd a0, 0(a1)
    j fail
2:  TRAPPED 7, 1b, 0x10
    ARM 2f
1:  amoswap.d a0, a0, (a1)
    j fail
2:  TRAPPED 7, 1b, 0x10
    TEST 23                   # fetching where there is no code
    li a1, 0x40000000
    ARM 2f
    jalr ra, 0(a1)
    j fail
2:  CHECK s5, 1
    CHECK s2, 1
    CHECK s3, 0x40000000
    CHECK s4, 0x40000000

    # ---- ecall, ebreak; mret to mepc + 4 ----
    TEST 24
    li s10, 0                 # the handler returns to mepc + 4
    li s5, 0
    li a0, 0
1:  ecall
    li a0, 1                  # runs after the mret
    CHECK a0, 1
    CHECK s5, 1
    CHECK s2, 11
    la t0, 1b
    bne s3, t0, fail
    csrr t1, mepc             # the handler's mepc + 4
    addi t0, t0, 4
    bne t1, t0, fail
    TEST 25
    li s10, 0
    li s5, 0
    .option push
    .option norvc             # the 32-bit ebreak, not c.ebreak
1:  ebreak
    .option pop
    CHECK s5, 1
    CHECK s2, 3
    la t0, 1b
    bne s3, t0, fail
    TEST 26
    ARM 2f
1:  c.ebreak
    j fail
2:  CHECK s5, 1
    CHECK s2, 3
    la t0, 1b
    bne s3, t0, fail
    TEST 27                   # mret restores MIE from MPIE
    csrsi mstatus, 8          # MIE on
    li s10, 0
    li s5, 0
    ecall                     # trap: MIE off, MPIE on; mret: MIE back on
    csrr a0, mstatus
    andi a0, a0, 8
    CHECK a0, 8
    andi a0, s6, 0x88         # inside the handler: MPIE on, MIE off
    CHECK a0, 0x80
    csrci mstatus, 8

TEST_END

    .data
    .balign 16
buf:
    .dword 0, 0, 0, 0
