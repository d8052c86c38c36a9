# Zifencei: self-modifying code.  A routine is run (so it is decoded),
# its first instruction is overwritten with a store, fence.i makes the new
# instruction the one that runs; twice, and once on code not yet run.
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
    .option pop
