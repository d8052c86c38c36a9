# A program laid out as the official riscv-tests are (noflags.ld: one
# PT_LOAD with p_flags 0 holding code, tohost and data): kmrun exec loads
# it as Spike and QEMU do, runs its code in both code sections, reads and
# writes its data, and zeroes what the file leaves out (bss).
#include "test.h"

TEST_BEGIN
    TEST 1                    # .text.init runs (we are here), and .text
    call in_text
    CHECK a0, 0x1234

    TEST 2                    # data: loaded from the file
    la s0, words
    ld a0, 0(s0)
    CHECK a0, 0x0123456789abcdef
    lw a0, 8(s0)
    CHECK a0, -2

    TEST 3                    # data: written and read back
    li a1, 77
    sd a1, 16(s0)
    ld a0, 16(s0)
    CHECK a0, 77

    TEST 4                    # bss: zero
    la s1, zeros
    ld a0, 0(s1)
    CHECK a0, 0
    ld a0, 1016(s1)
    CHECK a0, 0

    TEST 5                    # code written into data runs after fence.i
    la s2, patch
    li a1, 0x05500513         # li a0, 0x55
    sw a1, 0(s2)
    li a1, 0x00008067         # ret
    sw a1, 4(s2)
    fence.i
    jalr s2
    CHECK a0, 0x55
TEST_END

    .section .text
in_text:
    li a0, 0x1234
    ret

    .data
    .balign 8
words:
    .dword 0x0123456789abcdef
    .word -2, 0
    .dword 0
patch:
    .word 0, 0

    .bss
    .balign 8
zeros:
    .skip 1024
