# bench/iss: a wait loop — each of a cluster's four harts spins on a word
# of local memory that nothing writes (`lw`, `beqz`: the loop a thread
# runs while it waits for a flag), linked at 0x08000000 like
# four_harts.S.  four_harts.c runs it for a fixed modeled time and counts
# the instructions, to set a waiting hart's speed against useful code's.
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    la a0, flag
1:  lw t0, 0(a0)
    beqz t0, 1b
2:  wfi
    j 2b
    .data
    .balign 64
flag:
    .word 0
