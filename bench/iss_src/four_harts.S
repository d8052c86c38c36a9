# bench/iss: the integer loop of int_loop.S for a cluster's four harts,
# linked at local memory (0x08000000, KMX_LIM_IMAGE) where a cluster
# fetches its code.  Each hart runs ITERATIONS iterations, leaves the
# checksum (& 0x7f) in a0 and waits in wfi; four_harts.c drives them.
#ifndef ITERATIONS
#define ITERATIONS 5000000
#endif
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    li s0, ITERATIONS
    li a0, 1
    li a1, 2
    li a2, 3
1:  add a0, a0, a1
    xor a1, a1, a2
    slli a3, a0, 3
    srli a4, a1, 5
    add a2, a2, a3
    xor a0, a0, a4
    addi a1, a1, 7
    sub a2, a2, a0
    addi s0, s0, -1
    bnez s0, 1b
    xor a0, a0, a1
    xor a0, a0, a2
    andi a0, a0, 0x7f
2:  wfi
    j 2b
