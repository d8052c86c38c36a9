# Zicsr: csrrw/csrrs/csrrc and their immediate forms (old value to rd,
# set and clear bits, rs1 = x0 or uimm 0: no write, rd = x0), mscratch,
# the fcsr/frm/fflags views of one register, misa, mhartid, mstatus.FS,
# mepc's bit 0, cycle/instret/time counting.  Writes to read-only CSRs
# are in traps.S.
#include "test.h"
TEST_BEGIN

    # ---- read/write/set/clear on mscratch ----
    TEST 1
    li a0, 0x123456789abcdef0
    csrw mscratch, a0
    csrr a1, mscratch
    CHECK a1, 0x123456789abcdef0
    li a2, -1
    csrrw a3, mscratch, a2    # old value out, new in
    CHECK a3, 0x123456789abcdef0
    csrr a1, mscratch
    CHECK a1, -1
    TEST 2
    li a2, 0xff
    csrrc a3, mscratch, a2
    CHECK a3, -1
    csrr a1, mscratch
    CHECK a1, 0xffffffffffffff00
    li a2, 0x0f
    csrrs a3, mscratch, a2
    CHECK a3, 0xffffffffffffff00
    csrr a1, mscratch
    CHECK a1, 0xffffffffffffff0f
    TEST 3                    # immediates: 5 bits, zero-extended
    csrrwi a3, mscratch, 31
    CHECK a3, 0xffffffffffffff0f
    csrr a1, mscratch
    CHECK a1, 31
    csrrci a3, mscratch, 0x11
    CHECK a3, 31
    csrr a1, mscratch
    CHECK a1, 0x0e
    csrrsi a3, mscratch, 0x10
    CHECK a3, 0x0e
    csrr a1, mscratch
    CHECK a1, 0x1e
    TEST 4                    # rs1 = x0 / uimm 0: a read, no write
    csrrs a3, mscratch, zero
    CHECK a3, 0x1e
    csrrc a3, mscratch, zero
    CHECK a3, 0x1e
    csrrsi a3, mscratch, 0
    csrrci a3, mscratch, 0
    csrr a1, mscratch
    CHECK a1, 0x1e
    TEST 5                    # rd = x0: the write still happens
    li a2, 0x55
    csrrw zero, mscratch, a2
    csrr a1, mscratch
    CHECK a1, 0x55
    csrrwi zero, mscratch, 0
    csrr a1, mscratch
    CHECK a1, 0
    TEST 6                    # rd == rs1
    li a0, 7
    csrw mscratch, a0
    li a0, 9
    csrrw a0, mscratch, a0
    CHECK a0, 7
    csrr a1, mscratch
    CHECK a1, 9

    # ---- fcsr, frm, fflags: one register ----
    TEST 7
    li a0, 0x7f               # frm 3, fflags 0x1f
    csrw fcsr, a0
    frrm a1
    CHECK a1, 3
    frflags a1
    CHECK a1, 0x1f
    fsrm a1, zero             # frm 0; the old value out
    CHECK a1, 3
    frcsr a1
    CHECK a1, 0x1f
    TEST 8
    li a0, 2
    csrw frm, a0
    frcsr a1
    CHECK a1, 0x5f
    csrw fflags, zero
    frcsr a1
    CHECK a1, 0x40
    csrsi fflags, 0x3
    csrr a1, fcsr
    CHECK a1, 0x43
    li a0, -1                 # only 8 bits exist
    csrw fcsr, a0
    csrr a1, fcsr
    CHECK a1, 0xff
    csrr a1, frm
    CHECK a1, 7
    csrr a1, fflags
    CHECK a1, 0x1f
    li a0, 0xff
    csrw frm, a0              # 3 bits of it
    csrr a1, frm
    CHECK a1, 7
    csrwi fcsr, 0
    TEST 9                    # an FP instruction's flags reach fcsr
    li a0, 1
    fcvt.d.w fa0, a0
    li a0, 3
    fcvt.d.w fa1, a0
    fdiv.d fa2, fa0, fa1
    csrr a1, fcsr
    CHECK a1, 0x01

    # ---- misa, mhartid ----
    TEST 10
    csrr a0, misa
    srli a1, a0, 62
    CHECK a1, 2               # MXL: 64-bit
    li a2, (1 << 0) | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 8) | (1 << 12)
    and a1, a0, a2            # A, C, D, F, I, M
    CHECK a1, (1 << 0) | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 8) | (1 << 12)
    TEST 11
    csrr a0, mhartid
    CHECK a0, 0

    # ---- mstatus.FS: writable, and dirty after FP state changes ----
    TEST 12
    li a0, 3 << 13
    csrc mstatus, a0
    li a1, 1 << 13            # Initial
    csrs mstatus, a1
    csrr a2, mstatus
    and a2, a2, a0
    CHECK a2, 1 << 13
    fmv.d.x fa0, zero         # writes an f register: Dirty
    csrr a2, mstatus
    and a2, a2, a0
    CHECK a2, 3 << 13
    csrr a2, mstatus
    srli a2, a2, 63           # SD summarises FS dirty
    CHECK a2, 1
    csrr a2, mstatus
    srli a2, a2, 11
    andi a2, a2, 3
    CHECK a2, 3               # MPP: machine, always

    # ---- mepc: bit 0 reads as zero; mtvec, mcause, mtval hold values ----
    TEST 13
    li a0, 0x80001235
    csrw mepc, a0
    csrr a1, mepc
    CHECK a1, 0x80001234
    li a0, 0x80000100
    csrrw a2, mtvec, a0
    csrr a1, mtvec
    CHECK a1, 0x80000100
    csrw mtvec, a2            # back to what it was
    li a0, 0xabc
    csrw mtval, a0
    csrr a1, mtval
    CHECK a1, 0xabc
    li a0, 11
    csrw mcause, a0
    csrr a1, mcause
    CHECK a1, 11

    # ---- counters: cycle and time advance, instret counts exactly ----
    TEST 14
    rdcycle a0
    nop
    nop
    rdcycle a1
    bleu a1, a0, fail
    TEST 15
    rdinstret a0
    nop
    nop
    rdinstret a1
    sub a2, a1, a0
    CHECK a2, 3
    TEST 16
    rdtime a0
    li a2, 1000
1:  addi a2, a2, -1
    bnez a2, 1b
    rdtime a1
    bleu a1, a0, fail
    TEST 17                   # the machine counters count the same
    csrr a0, minstret
    csrr a1, instret
    sub a2, a1, a0
    CHECK a2, 1
    csrr a0, mcycle
    csrr a1, cycle
    bltu a1, a0, fail

TEST_END
