/* tests/isa/test.h: the instruction tests' frame, for `kmrun exec`.
 *
 * A test is a .S file:
 *
 *     #include "test.h"
 *     TEST_BEGIN
 *         TEST 1                 # the number a failure reports
 *         li a0, 2
 *         addi a0, a0, 3
 *         CHECK a0, 5
 *     TEST_END
 *
 * TEST_BEGIN puts _start first in .text.init, turns the FPU on
 * (mstatus.FS) and clears fcsr; VECTOR_ON turns the vector unit on
 * (mstatus.VS), as the kmx runtime's crt0 does for thread images (the
 * vector tests start with it; TEST_BEGIN stays as commitlog.log records
 * it); the current test number lives in tp.
 * CHECK REG, VALUE compares a register with a 64-bit constant and jumps to
 * `fail` when they differ; CHECK_H/CHECK_S/CHECK_D compare an f register's
 * 64 bits with a half or a single (which must be NaN-boxed: the upper 48
 * or 32 bits all ones) or a double; CHECK_FLAGS compares fflags, then clears them.  TEST_END passes
 * (tohost = 1: exit code 0); `fail` writes (n << 1) | 1 to tohost, so that
 * `kmrun exec` exits with the failing test's number n (1000 when no TEST
 * had started).  t5 and t6 are the macros' scratch registers.
 *
 * tohost and fromhost (64-bit, unused) are in .tohost, which link.ld
 * places in a page of their own. */
#ifndef ISA_TEST_H
#define ISA_TEST_H

.macro TEST_BEGIN
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    li tp, 0
    li t6, (3 << 13)          /* mstatus.FS = dirty: F and D usable */
    csrs mstatus, t6
    csrwi fcsr, 0
.endm

.macro VECTOR_ON
    li t6, (3 << 9)           /* mstatus.VS = dirty: V usable */
    csrs mstatus, t6
.endm

.macro TEST n
    li tp, \n
.endm

.macro CHECK reg, value
    li t6, \value
    beq \reg, t6, 8888f
    j fail
8888:
.endm

/* The 64 bits of f register `freg`; a single must be NaN-boxed. */
.macro CHECK_D freg, bits
    fmv.x.d t5, \freg
    CHECK t5, \bits
.endm
.macro CHECK_S freg, bits
    fmv.x.d t5, \freg
    CHECK t5, (0xffffffff00000000 | \bits)
.endm
/* A half must be NaN-boxed too: bits 63..16 all ones (Zfh). */
.macro CHECK_H freg, bits
    fmv.x.d t5, \freg
    CHECK t5, (0xffffffffffff0000 | \bits)
.endm

/* fflags (NX 1, UF 2, OF 4, DZ 8, NV 16) equal `bits`; then cleared. */
.macro CHECK_FLAGS bits
    csrrw t5, fflags, x0
    CHECK t5, \bits
.endm

/* f register from bits (a single through fmv.w.x, so NaN-boxed). */
.macro LOAD_D freg, bits
    li t5, \bits
    fmv.d.x \freg, t5
.endm
.macro LOAD_S freg, bits
    li t5, \bits
    fmv.w.x \freg, t5
.endm
.macro LOAD_H freg, bits
    li t5, \bits
    fmv.h.x \freg, t5
.endm

.macro TEST_END
    j pass
pass:
    li t6, 1
    la t5, tohost
    sd t6, 0(t5)
8889:
    j 8889b
fail:
    bnez tp, 8887f
    li tp, 1000
8887:
    slli t6, tp, 1
    ori t6, t6, 1
    la t5, tohost
    sd t6, 0(t5)
8886:
    j 8886b

    .section .tohost, "aw", @progbits
    .balign 64
    .globl tohost
    .type tohost, @object
    .size tohost, 8
tohost:
    .dword 0
    .balign 64
    .globl fromhost
    .type fromhost, @object
    .size fromhost, 8
fromhost:
    .dword 0
    .balign 64
.endm

#endif
