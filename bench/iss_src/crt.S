# bench/iss: the start-up of the C programs for a bare-metal hart, the
# same under `kmrun exec` and `qemu-system-riscv64 -machine spike -bios
# none`: its own stack (QEMU sets no sp; kmrun exec does, but one rule for
# both keeps the runs alike), the FPU on (mstatus.FS starts off on both),
# main called, and its return value v written to tohost as (v << 1) | 1,
# which ends the run with exit code v on both (HTIF, as Spike has it).
# .bss is not cleared: both loaders give it as zeros.  No gp: the
# instruction tests' tests/isa/link.ld, which these link with, defines no
# __global_pointer$, so the linker makes no gp-relative accesses.
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    la sp, stack_top
    li t0, (3 << 13)          # mstatus.FS = dirty: F and D usable
    csrs mstatus, t0
    csrwi fcsr, 0
    call main
    slli a0, a0, 1
    ori a0, a0, 1
    la t0, tohost
    sd a0, 0(t0)
1:  j 1b

    .section .tohost, "aw", @progbits
    .balign 64
    .globl tohost
    .type tohost, @object     # QEMU's HTIF wants the symbol's size: 8
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

    .bss
    .balign 16
    .space 65536
stack_top:
