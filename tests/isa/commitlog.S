# The commit log's sample program (tests/cli/trace.bats compares
# `kmrun exec --trace-instructions` on it with tests/isa/commitlog.log):
# one of each kind of record Spike's log has — an x write, a compressed
# instruction, loads and stores of every width, an AMO (its load and its
# store), LR/SC, FP results with and without raised flags, CSR writes
# (fcsr as its fflags and frm parts, mscratch), a branch and a jump with
# no write, and the tohost store that ends it.
#include "test.h"
TEST_BEGIN
    TEST 1
    li a0, 5
    addi a1, a0, 3
    la t0, buf
    sd a1, 0(t0)
    sw a0, 8(t0)
    sh a0, 12(t0)
    sb a0, 14(t0)
    ld a2, 0(t0)
    lwu a3, 8(t0)
    lh a4, 12(t0)
    lbu a5, 14(t0)
    c.addi a0, 1
    amoadd.w a3, a0, (t0)
    lr.d a4, (t0)
    sc.d a5, a0, (t0)
    fcvt.d.l fa0, a0
    li t1, 7
    fcvt.d.l fa2, t1
    fdiv.d fa3, fa0, fa2
    fdiv.d fa4, fa0, fa0
    fsd fa3, 16(t0)
    csrr a6, fflags
    csrw fcsr, zero
    csrrw a7, mscratch, a0
    j 1f
    nop
1:  CHECK a1, 8
    CHECK a5, 0
TEST_END
    .data
    .balign 8
buf: .dword 0, 0, 0
