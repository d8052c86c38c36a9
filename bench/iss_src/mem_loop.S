# bench/iss: the memory-bound loop — PASSES passes over an array of
# WORDS doublewords (64 KiB; element i starts as i * 0x100000001 + 12345):
# each element loaded, added to, stored back
# and folded into a checksum (ld, add, sd, xor, addi, bne: 6 instructions
# an element), then the checksum folded to 7 bits as the exit code (mem_loop.c
# computes the same).
#include "test.h"
#ifndef PASSES
#define PASSES 4000
#endif
#define WORDS 8192
TEST_BEGIN
    li s0, PASSES
    li a0, 0                  # checksum
    li a1, 0x9e3779b97f4a7c15 # what each pass adds
1:  la s1, array
    li t0, WORDS * 8
    add s2, s1, t0
2:  ld a2, 0(s1)
    add a2, a2, a1
    sd a2, 0(s1)
    xor a0, a0, a2
    addi s1, s1, 8
    bne s1, s2, 2b
    addi a1, a1, 1
    addi s0, s0, -1
    bnez s0, 1b
    srli t0, a0, 32           # fold the checksum to a byte
    xor a0, a0, t0
    srli t0, a0, 16
    xor a0, a0, t0
    srli t0, a0, 8
    xor a0, a0, t0
    andi a0, a0, 0x7f
    slli a0, a0, 1
    ori a0, a0, 1
    la t5, tohost
    sd a0, 0(t5)
3:  j 3b
TEST_END
    .data
    .balign 64
array:
    .set i, 0
    .rept WORDS
    .dword i * 0x100000001 + 12345
    .set i, i + 1
    .endr
