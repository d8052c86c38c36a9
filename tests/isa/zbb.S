# Zbb: andn/orn/xnor, clz/ctz/cpop and their W forms (zero inputs, upper
# halves ignored), min/max signed and unsigned, sext.b/sext.h/zext.h,
# rotations (amounts from the low 6 or 5 bits; W results sign-extended),
# orc.b, rev8.
#include "test.h"
TEST_BEGIN

    TEST 1
    li a0, 0xff00ff00ff00ff00
    li a1, 0x0ff00ff00ff00ff0
    andn a2, a0, a1
    CHECK a2, 0xf000f000f000f000
    orn a2, a0, a1
    CHECK a2, 0xff0fff0fff0fff0f
    xnor a2, a0, a1
    CHECK a2, 0x0f0f0f0f0f0f0f0f
    TEST 2
    clz a2, zero
    CHECK a2, 64
    ctz a2, zero
    CHECK a2, 64
    cpop a2, zero
    CHECK a2, 0
    li a0, 1
    clz a2, a0
    CHECK a2, 63
    li a0, 0x8000000000000000
    clz a2, a0
    CHECK a2, 0
    ctz a2, a0
    CHECK a2, 63
    li a0, -1
    cpop a2, a0
    CHECK a2, 64
    li a0, 0x0000010000001000
    ctz a2, a0
    CHECK a2, 12
    clz a2, a0
    CHECK a2, 23
    TEST 3                    # W forms: the low word only
    clzw a2, zero
    CHECK a2, 32
    ctzw a2, zero
    CHECK a2, 32
    li a0, 0xffffffff00000001
    clzw a2, a0
    CHECK a2, 31
    li a0, 0xffffffff00000000
    ctzw a2, a0
    CHECK a2, 32
    cpopw a2, a0
    CHECK a2, 0
    li a0, 0xffffffff00000003
    cpopw a2, a0
    CHECK a2, 2
    li a0, 0x80000000
    clzw a2, a0
    CHECK a2, 0
    TEST 4
    li a0, -1
    li a1, 1
    min a2, a0, a1
    CHECK a2, -1
    max a2, a0, a1
    CHECK a2, 1
    minu a2, a0, a1
    CHECK a2, 1
    maxu a2, a0, a1
    CHECK a2, -1
    li a0, 0x8000000000000000
    li a1, 0x7fffffffffffffff
    min a2, a1, a0
    CHECK a2, 0x8000000000000000
    maxu a2, a1, a0
    CHECK a2, 0x8000000000000000
    TEST 5
    li a0, 0x1234567890abcd80
    sext.b a2, a0
    CHECK a2, 0xffffffffffffff80
    sext.h a2, a0
    CHECK a2, 0xffffffffffffcd80
    zext.h a2, a0
    CHECK a2, 0xcd80
    li a0, 0x7f7f
    sext.b a2, a0
    CHECK a2, 0x7f
    sext.h a2, a0
    CHECK a2, 0x7f7f
    TEST 6
    li a0, 0x8000000000000001
    li a1, 1
    rol a2, a0, a1
    CHECK a2, 3
    ror a2, a0, a1
    CHECK a2, 0xc000000000000000
    li a1, 65                 # 65 & 63 = 1
    rol a2, a0, a1
    CHECK a2, 3
    rori a2, a0, 4
    CHECK a2, 0x1800000000000000
    rori a2, a0, 63
    CHECK a2, 3
    ror a2, a0, zero
    CHECK a2, 0x8000000000000001
    TEST 7                    # W rotations: 32 bits, sign-extended
    li a0, 0x40000000
    li a1, 1
    rolw a2, a0, a1
    CHECK a2, 0xffffffff80000000
    li a0, 0xffffffff00000001 # upper half ignored
    rorw a2, a0, a1
    CHECK a2, 0xffffffff80000000
    li a1, 33                 # 33 & 31 = 1
    rorw a2, a0, a1
    CHECK a2, 0xffffffff80000000
    li a0, 0x12345678
    roriw a2, a0, 8
    CHECK a2, 0x78123456
    roriw a2, a0, 4
    CHECK a2, 0xffffffff81234567
    TEST 8
    li a0, 0x0001000000ff0010
    orc.b a2, a0
    CHECK a2, 0x00ff000000ff00ff
    orc.b a2, zero
    CHECK a2, 0
    li a0, 0x0102030405060708
    rev8 a2, a0
    CHECK a2, 0x0807060504030201

TEST_END
