# bench/iss: the integer loop — 10 instructions an iteration (add, xor,
# shifts, addi, sub, bne), ITERATIONS times, then the checksum's low byte
# as the exit code (int_loop.c computes the same).  kmrun exec runs it.
#include "test.h"
#ifndef ITERATIONS
#define ITERATIONS 20000000
#endif
TEST_BEGIN
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
    slli a0, a0, 1
    ori a0, a0, 1
    la t5, tohost
    sd a0, 0(t5)
2:  j 2b
TEST_END
