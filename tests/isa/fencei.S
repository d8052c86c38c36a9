# Zifencei: self-modifying code.  A routine is run (so it is decoded),
# its first instruction is overwritten with a store, fence.i makes the new
# instruction the one that runs; twice, and once on code not yet run.  Then
# an instruction in the middle of a decoded block, and code copied into a
# data segment (the hart fetches from any memory, as rv64ui-p-fence_i
# expects).
#include "test.h"
TEST_BEGIN

    TEST 1
    call patch_site
    CHECK a0, 1
    TEST 2
    la s0, patch_site
    li t0, 0x00200513         # addi a0, zero, 2
    sw t0, 0(s0)
    fence.i
    call patch_site
    CHECK a0, 2
    TEST 3
    li t0, 0x00300513         # addi a0, zero, 3
    sw t0, 0(s0)
    fence.i
    call patch_site
    CHECK a0, 3
    TEST 4                    # code written before its first run
    la s1, fresh_site
    li t0, 0x02a00513         # addi a0, zero, 42
    sw t0, 0(s1)
    fence.i
    call fresh_site
    CHECK a0, 42
    TEST 5                    # a compressed instruction written over one
    li t0, 0x4515             # c.li a0, 5
    sh t0, 0(s0)
    li t0, 0x0001             # c.nop
    sh t0, 2(s0)
    fence.i
    call patch_site
    CHECK a0, 5
    TEST 6                    # the middle of a block that has run
    call block_site
    CHECK a0, 2
    la s2, block_site
    li t0, 0x06450513         # addi a0, a0, 100
    sw t0, 4(s2)
    call block_site           # stored over, no fence.i: as decoded before
    CHECK a0, 2
    fence.i
    call block_site
    CHECK a0, 101
    TEST 7                    # code copied into data, then run there
    la s3, data_code
    la t1, data_site
    lw t0, 0(t1)
    sw t0, 0(s3)
    lw t0, 4(t1)
    sw t0, 4(s3)
    fence.i
    jalr ra, 0(s3)
    CHECK a0, 77
    li t0, 0x05800513         # addi a0, zero, 88
    sw t0, 0(s3)
    fence.i
    jalr ra, 0(s3)
    CHECK a0, 88

TEST_END

    .text
    .option push
    .option norvc
    .balign 4
patch_site:
    addi a0, zero, 1
    ret
    .balign 4
fresh_site:
    addi a0, zero, 7
    ret
    .balign 4
block_site:
    addi a0, zero, 0
    addi a0, a0, 1
    addi a0, a0, 1
    ret
    .balign 4
data_site:                    # the words copied to data_code
    addi a0, zero, 77
    ret
    .option pop

    .data
    .balign 4
data_code:
    .word 0, 0
