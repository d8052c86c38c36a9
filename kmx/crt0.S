/* crt0.S: the image's first instructions and the trap entry.
 *
 * All four cores start at BH_LIM_BASE, which is _start (kmx.ld places
 * .text.kmx_start first).  Each core: interrupts off, gp, mtvec, FS and VS
 * on (Initial), fcsr cleared, its own stack from kmx__stack_tops (start.c,
 * built from kmx_layout.h so no address is restated here), then
 * kmx__start(mhartid), which never returns.  A hart numbered 4 or more
 * (none on the card) parks at once.
 *
 * The trap entry records nothing itself: it takes a fresh stack (the
 * trapping one may be what failed) and calls kmx__trap(core, mcause,
 * mepc, mtval, sp) — sp the trapping one, so that an overflowed stack is
 * named — which records the trap in the result block and halts the core.
 * Traps are never returned from. */

#define KMX_CORES_ASM 4                 /* = BH_CLUSTER_CORES (start.c asserts) */
#define MSTATUS_MIE 0x8
#define MSTATUS_FS_VS_INITIAL 0x2200    /* FS = 01 (bits 13-14), VS = 01 (bits 9-10) */

    .section .text.kmx_start, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    csrw mie, zero
    csrci mstatus, MSTATUS_MIE
    csrr a0, mhartid
    li t0, KMX_CORES_ASM
    bgeu a0, t0, kmx__park_asm
    la t0, kmx__trap_entry
    csrw mtvec, t0
    li t0, MSTATUS_FS_VS_INITIAL
    csrs mstatus, t0
    csrw fcsr, zero
    la t0, kmx__stack_tops
    slli t1, a0, 3
    add t0, t0, t1
    ld sp, 0(t0)
    call kmx__start
kmx__park_asm:
    wfi
    j kmx__park_asm
    .size _start, . - _start

    .text
    .balign 4
    .globl kmx__trap_entry
    .type kmx__trap_entry, @function
kmx__trap_entry:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    csrr a0, mhartid
    li t0, KMX_CORES_ASM
    bgeu a0, t0, kmx__park_asm
    mv a4, sp
    la t0, kmx__stack_tops
    slli t1, a0, 3
    add t0, t0, t1
    ld sp, 0(t0)
    csrr a1, mcause
    csrr a2, mepc
    csrr a3, mtval
    call kmx__trap
    j kmx__park_asm
    .size kmx__trap_entry, . - kmx__trap_entry

    .section .note.GNU-stack, "", @progbits
