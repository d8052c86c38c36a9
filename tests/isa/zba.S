# Zba: sh1add/sh2add/sh3add, add.uw, their .uw forms (the low 32 bits of
# rs1 zero-extended), slli.uw; results wrap at 64 bits.
#include "test.h"
TEST_BEGIN

    TEST 1
    li a0, 3
    li a1, 100
    sh1add a2, a0, a1
    CHECK a2, 106
    sh2add a2, a0, a1
    CHECK a2, 112
    sh3add a2, a0, a1
    CHECK a2, 124
    TEST 2                    # all 64 bits of rs1 take part; wrap-around
    li a0, 0x8000000000000001
    li a1, 1
    sh1add a2, a0, a1
    CHECK a2, 3
    li a0, -1
    sh3add a2, a0, a1
    CHECK a2, -7
    TEST 3
    li a0, 0xffffffff80000000
    li a1, 1
    add.uw a2, a0, a1         # zext32(rs1) + rs2
    CHECK a2, 0x80000001
    zext.w a3, a0             # add.uw rd, rs, zero
    CHECK a3, 0x80000000
    li a1, -1
    add.uw a2, a0, a1
    CHECK a2, 0x7fffffff
    TEST 4
    li a0, 0x1234567880000001
    li a1, 0x10
    sh1add.uw a2, a0, a1
    CHECK a2, 0x100000012
    sh2add.uw a2, a0, a1
    CHECK a2, 0x200000014
    sh3add.uw a2, a0, a1
    CHECK a2, 0x400000018
    TEST 5
    li a0, 0xffffffff80000001
    slli.uw a2, a0, 4
    CHECK a2, 0x800000010
    slli.uw a2, a0, 0
    CHECK a2, 0x80000001
    slli.uw a2, a0, 63        # only bit 0 survives
    CHECK a2, 0x8000000000000000
    slli.uw a2, a0, 32
    CHECK a2, 0x8000000100000000

TEST_END
