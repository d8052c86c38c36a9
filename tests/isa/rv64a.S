# RV64A: LR/SC (success, failure without a reservation, a reservation used
# up by its SC), lr.w's sign extension, and every AMO in .w and .d: rd gets
# the old value (sign-extended from 32 bits for .w), memory the result,
# the .w forms touch only their word.
#include "test.h"
TEST_BEGIN
    la s0, words

    # ---- sc without a reservation fails and stores nothing ----
    TEST 1
    li a0, 0x1111
    sd a0, 0(s0)
    li a1, 0x2222
    sc.d a2, a1, (s0)
    beqz a2, fail             # nonzero: failure
    ld a3, 0(s0)
    CHECK a3, 0x1111

    # ---- lr/sc succeed; the reservation is then used up ----
    TEST 2
    lr.d a0, (s0)
    CHECK a0, 0x1111
    addi a0, a0, 1
    sc.d a2, a0, (s0)
    CHECK a2, 0
    ld a3, 0(s0)
    CHECK a3, 0x1112
    TEST 3
    li a1, 0x3333
    sc.d a2, a1, (s0)
    beqz a2, fail
    ld a3, 0(s0)
    CHECK a3, 0x1112

    # ---- lr.w sign-extends; sc.w writes only its word ----
    TEST 4
    li a0, 0x0000000580000000
    sd a0, 0(s0)
    lr.w a1, (s0)
    CHECK a1, 0xffffffff80000000
    li a1, 0x12345678
    sc.w a2, a1, (s0)
    CHECK a2, 0
    ld a3, 0(s0)
    CHECK a3, 0x0000000512345678
    TEST 5
    sc.w a2, a1, (s0)         # no reservation left
    beqz a2, fail
    TEST 6                    # aq/rl bits change nothing here
    lr.d.aqrl a0, (s0)
    sc.d.rl a2, a0, (s0)
    CHECK a2, 0

    # ---- AMO .w: old value sign-extended, 32-bit result, neighbour kept ----
    # each starts from word0 = 0x7fffffff, word1 = 0xaaaaaaaa
    .macro AMO_W op, rs2, old, new
    li t0, 0xaaaaaaaa7fffffff
    sd t0, 0(s0)
    li t1, \rs2
    \op a0, t1, (s0)
    CHECK a0, \old
    lwu a1, 0(s0)
    CHECK a1, \new
    lwu a1, 4(s0)
    CHECK a1, 0xaaaaaaaa
    .endm

    TEST 7
    AMO_W amoswap.w, 0x80000000, 0x7fffffff, 0x80000000
    AMO_W amoadd.w, 1, 0x7fffffff, 0x80000000
    AMO_W amoadd.w, 0x100000001, 0x7fffffff, 0x80000000  # upper half ignored
    TEST 8
    AMO_W amoxor.w, 0xffffffff, 0x7fffffff, 0x80000000
    AMO_W amoand.w, 0x0000ffff, 0x7fffffff, 0x0000ffff
    AMO_W amoor.w, 0x80000000, 0x7fffffff, 0xffffffff
    TEST 9
    AMO_W amomin.w, 0x80000000, 0x7fffffff, 0x80000000  # signed: -2^31 smaller
    AMO_W amomax.w, 0x80000000, 0x7fffffff, 0x7fffffff
    AMO_W amominu.w, 0x80000000, 0x7fffffff, 0x7fffffff
    AMO_W amomaxu.w, 0x80000000, 0x7fffffff, 0x80000000
    AMO_W amomin.w, 0xffffffff00000005, 0x7fffffff, 5   # rs2's word: 5
    TEST 10                   # a negative old value is sign-extended in rd
    li t0, 0x80000000
    sw t0, 0(s0)
    li t1, 1
    amoadd.w a0, t1, (s0)
    CHECK a0, 0xffffffff80000000
    lwu a1, 0(s0)
    CHECK a1, 0x80000001
    amoswap.w a0, zero, (s0)
    CHECK a0, 0xffffffff80000001
    amomaxu.w a0, t1, (s0)    # max(0, 1)
    CHECK a0, 0
    lw a1, 0(s0)
    CHECK a1, 1

    # ---- AMO .d ----
    .macro AMO_D op, rs2, old, new
    li t0, \old
    sd t0, 8(s0)
    li t1, \rs2
    addi t2, s0, 8
    \op a0, t1, (t2)
    CHECK a0, \old
    ld a1, 8(s0)
    CHECK a1, \new
    ld a1, 0(s0)              # the dword before is untouched
    CHECK a1, 0x5555555555555555
    .endm

    TEST 11
    li t0, 0x5555555555555555
    sd t0, 0(s0)
    AMO_D amoswap.d, 0x8000000000000000, 0x7fffffffffffffff, 0x8000000000000000
    AMO_D amoadd.d, 1, 0x7fffffffffffffff, 0x8000000000000000
    AMO_D amoadd.d, -1, 0, -1
    TEST 12
    AMO_D amoxor.d, -1, 0x00ff00ff00ff00ff, 0xff00ff00ff00ff00
    AMO_D amoand.d, 0x0f0f0f0f0f0f0f0f, 0x00ff00ff00ff00ff, 0x000f000f000f000f
    AMO_D amoor.d, 0x0f0f0f0f0f0f0f0f, 0x00ff00ff00ff00ff, 0x0fff0fff0fff0fff
    TEST 13
    AMO_D amomin.d, -1, 1, -1
    AMO_D amomax.d, -1, 1, 1
    AMO_D amominu.d, -1, 1, 1
    AMO_D amomaxu.d, -1, 1, -1
    AMO_D amomin.d, 0x8000000000000000, 0x7fffffffffffffff, 0x8000000000000000
    AMO_D amomaxu.d, 0x8000000000000000, 0x7fffffffffffffff, 0x8000000000000000

    # ---- rd = x0: the memory still changes ----
    TEST 14
    li t0, 10
    sd t0, 8(s0)
    li t1, 5
    addi t2, s0, 8
    amoadd.d zero, t1, (t2)
    ld a1, 8(s0)
    CHECK a1, 15

TEST_END

    .data
    .balign 64
words:
    .dword 0, 0, 0, 0
