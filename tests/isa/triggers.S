# The trigger module (the debug spec's tselect/tdata1/tdata2, the X280's
# hardware breakpoints): what the official riscv-tests' rv64mi-p-breakpoint
# checks, and more.  riscv-tests is not packaged in Debian, so this is our
# own test of the same behaviour: tselect selects trigger 0 and tdata1
# reads type 2 (mcontrol); an execute trigger written as type 2 | m |
# execute reads back as written and raises a breakpoint exception
# (mcause 3) before the instruction at tdata2, mepc that pc; a load from
# that address does not trap; a load trigger traps before the load (its
# register keeps its value), a store to the same address does not; a
# store trigger traps before the store (memory keeps its value); a second
# trigger, selected by tselect, fires while the first still does.  Beyond
# it: the legal values tdata1 keeps (write any, read legal), tinfo, tdata3,
# tselect past the last trigger, the hit bit, mtval, a disarmed trigger,
# any byte of an access matching, the >= and < matches, AMOs, m clear, a
# vector load's element.
#
# The handler records mcause in s2, mepc in s3, mtval in s4 and counts
# traps in s5, then skips the trapping instruction (mepc + 4: the code
# here is not compressed).  A trap from outside the tests (a failing
# test's store to tohost meeting a trigger) turns every trigger off
# first, so that a failure is reported, not looped on.
#include "test.h"

#define TYPE2 (2 << 60)
#define M (1 << 6)
#define X 4
#define ST 2
#define LD 1
#define HIT (1 << 20)
#define MATCH_GE (2 << 7)
#define MATCH_LT (3 << 7)

/* The next trap's record, cleared. */
.macro ARM
    li s5, 0
    li s2, -1
    li s3, -1
    li s4, -1
.endm

/* One trap, a breakpoint at label `at`, with mtval `tval` (a register). */
.macro BROKE at, tval
    CHECK s5, 1
    CHECK s2, 3
    la t0, \at
    bne s3, t0, fail
    bne s4, \tval, fail
.endm

/* Every trigger off; tselect 0. */
.macro ALL_OFF
    li t0, 3
1:  csrw tselect, t0
    csrw tdata1, zero
    csrw tdata2, zero
    addi t0, t0, -1
    bgez t0, 1b
    csrw tselect, zero
.endm

TEST_BEGIN
    la t0, handler
    csrw mtvec, t0
    la s0, data1
    j tests

    .balign 4
handler:
    csrr s2, mcause
    csrr s3, mepc
    csrr s4, mtval
    addi s5, s5, 1
    la t3, tests
    la t4, tests_end
    bltu s3, t3, 1f
    bgeu s3, t4, 1f
    addi s3, s3, 4
    csrw mepc, s3
    addi s3, s3, -4
    mret
1:  li t3, 3                  # not a test's: all off, then try it again
2:  csrw tselect, t3
    csrw tdata1, zero
    addi t3, t3, -1
    bgez t3, 2b
    mret

    .option push
    .option norvc
tests:
    # ---- the CSRs ----
    TEST 1                    # trigger 0 is there, type 2, off
    csrw tselect, zero
    csrr a0, tselect
    CHECK a0, 0
    csrr a0, tdata1
    CHECK a0, TYPE2
    csrr a0, tdata2
    CHECK a0, 0
    csrr a0, tdata3
    CHECK a0, 0
    csrr a0, tinfo            # type 2 only
    CHECK a0, 4
    TEST 2                    # four triggers: tselect keeps 0..3, ignores 4
    li a0, 3
    csrw tselect, a0
    csrr a0, tselect
    CHECK a0, 3
    li a0, 4
    csrw tselect, a0
    csrr a0, tselect
    CHECK a0, 3
    li a0, -1
    csrw tselect, a0
    csrr a0, tselect
    CHECK a0, 3
    csrw tselect, zero
    TEST 3                    # write any, read legal: type 2, no dmode,
    csrw tdata2, zero         # no chain/select/timing/size/maskmax/s/u,
    li a0, -1                 # match 15 and action 15 read 0
    csrw tdata1, a0
    csrr a0, tdata1
    CHECK a0, (TYPE2 | HIT | M | X | ST | LD)
    li a0, (1 << 12) | (1 << 59) # action 1 (debug mode) needs dmode, which
    csrw tdata1, a0           # machine mode cannot set
    csrr a0, tdata1
    CHECK a0, TYPE2
    li a0, MATCH_GE | LD      # m clear: off whatever the rest says
    csrw tdata1, a0
    csrr a0, tdata1
    CHECK a0, (TYPE2 | MATCH_GE | LD)
    li a0, (1 << 7) | LD      # match 1 (NAPOT) is not kept
    csrw tdata1, a0
    csrr a0, tdata1
    CHECK a0, (TYPE2 | LD)
    li a0, 0x123456789abcdef0
    csrw tdata2, a0
    csrr a1, tdata2
    bne a0, a1, fail
    csrw tdata3, a0           # tdata3 and tinfo ignore writes
    csrr a1, tdata3
    CHECK a1, 0
    csrw tinfo, a0
    csrr a1, tinfo
    CHECK a1, 4
    li a0, 1                  # each trigger has its own tdata
    csrw tselect, a0
    csrr a0, tdata2
    CHECK a0, 0
    csrw tselect, zero
    csrw tdata1, zero
    csrr a0, tdata1
    CHECK a0, TYPE2

    # ---- execute ----
    TEST 4                    # fires before the instruction: it does not run
    la a2, exec_site
    csrw tdata2, a2
    li a0, TYPE2 | M | X
    csrw tdata1, a0
    csrr a1, tdata1           # reads back as written (hit still clear)
    bne a0, a1, fail
    li a0, 0
    ARM
    call exec_site
    BROKE exec_site, a2
    CHECK a0, 0
    csrr a1, tdata1           # now hit
    CHECK a1, (TYPE2 | HIT | M | X)
    TEST 5                    # a load from that address does not trap
    ARM
    lw a0, 0(a2)
    CHECK s5, 0
    TEST 6                    # it fires each time the pc is reached
    li a0, 0
    ARM
    call exec_site
    BROKE exec_site, a2
    ARM
    call exec_site
    BROKE exec_site, a2
    CHECK a0, 0
    TEST 7                    # off: the instruction runs
    li a0, TYPE2 | X          # m clear
    csrw tdata1, a0
    ARM
    call exec_site
    CHECK s5, 0
    CHECK a0, 1
    TEST 8                    # armed in the same block it fires in
    la a2, 1f
    csrw tdata2, a2
    li a0, TYPE2 | M | X
    li a1, 5
    ARM
    csrw tdata1, a0
1:  li a1, 6
    BROKE 1b, a2
    CHECK a1, 5
    csrw tdata1, zero

    # ---- loads ----
    TEST 9                    # fires before the load: a1 keeps its value
    csrw tdata2, s0
    li a0, TYPE2 | M | LD
    csrw tdata1, a0
    csrr a1, tdata1
    bne a0, a1, fail
    li a1, 77
    ARM
1:  lw a1, 0(s0)
    BROKE 1b, s0
    CHECK a1, 77
    TEST 10                   # a store there does not trap, nor a load
    ARM                       # elsewhere
    li a0, 9
    sw a0, 0(s0)
    lw a1, 4(s0)
    CHECK s5, 0
    TEST 11                   # any byte of the access: a word meets
    addi a0, s0, 2            # tdata2 = data1 + 2; mtval is the access's
    csrw tdata2, a0           # address
    li a1, 77
    ARM
1:  lw a1, 0(s0)
    BROKE 1b, s0
    CHECK a1, 77
    ARM
    lbu a1, 3(s0)             # a byte beside it does not
    lbu a1, 1(s0)
    CHECK s5, 0

    # ---- stores ----
    TEST 12                   # fires before the store: memory keeps its value
    csrw tdata2, s0
    li a0, TYPE2 | M | ST
    csrw tdata1, a0
    csrr a1, tdata1
    bne a0, a1, fail
    li a0, 5
    ARM
1:  sw a0, 0(s0)
    BROKE 1b, s0
    lw a1, 0(s0)              # and a load does not trap
    CHECK s5, 1
    CHECK a1, 9
    TEST 13                   # an AMO is a load and a store
    ARM
1:  amoadd.w a1, a0, (s0)
    BROKE 1b, s0
    lw a1, 0(s0)
    CHECK a1, 9

    # ---- a second trigger ----
    TEST 14                   # trigger 1: loads of data2
    li a0, 1
    csrw tselect, a0
    csrr a1, tselect
    CHECK a1, 1
    csrr a1, tdata1
    CHECK a1, TYPE2
    li a0, TYPE2 | M | LD
    csrw tdata1, a0
    addi a3, s0, 4
    csrw tdata2, a3
    li a1, 3
    ARM
1:  lw a1, 4(s0)
    BROKE 1b, a3
    CHECK a1, 3
    TEST 15                   # trigger 0 still fires on stores to data1
    ARM
1:  sw a0, 0(s0)
    BROKE 1b, s0
    ARM                       # and loads of data1 pass both
    lw a1, 0(s0)
    CHECK s5, 0
    CHECK a1, 9

    # ---- ranges: >= and < ----
    TEST 16                   # trigger 2: loads at or above data3
    li a0, 2
    csrw tselect, a0
    la a3, data3
    csrw tdata2, a3
    li a0, TYPE2 | M | LD | MATCH_GE
    csrw tdata1, a0
    addi a4, a3, 8
    ARM
1:  ld a1, 8(a3)
    BROKE 1b, a4
    ARM
    ld a1, -8(a3)             # below it: no trap
    CHECK s5, 0
    TEST 17                   # trigger 3: stores below data1, chained by
    li a0, 3                  # nothing: each fires on its own
    csrw tselect, a0
    csrw tdata2, s0
    li a0, TYPE2 | M | ST | MATCH_LT
    csrw tdata1, a0
    addi a3, s0, -8
    ARM
1:  sd zero, 0(a3)
    BROKE 1b, a3
    ALL_OFF
    TEST 18                   # all off: nothing fires
    ARM
    call exec_site
    lw a1, 0(s0)
    sw a1, 0(s0)
    ld a1, 8(a3)
    CHECK s5, 0
    TEST 19                   # a vector load: at its element, any of them
    VECTOR_ON
    addi a3, s0, 3
    csrw tdata2, a3
    li a0, TYPE2 | M | LD
    csrw tdata1, a0
    li a1, 8
    vsetvli zero, a1, e8, m1, ta, ma
    ARM
1:  vle8.v v1, (s0)
    BROKE 1b, a3
    csrr a0, vstart           # elements 0..2 done
    CHECK a0, 3
    csrw vstart, zero
    ALL_OFF
    j 1f
    .option rvc               # (norvc padding fills 4 bytes at a time)
    .balign 4                 # test 5 loads a word from it
    .option norvc
exec_site:                    # inside [tests, tests_end): the handler skips
    li a0, 1                  # what traps here
    ret
tests_end:
1:
    .option pop

TEST_END

    .data
    .balign 16
    .dword 0
data1:
    .word 0
data2:
    .word 0
    .dword 0
data3:
    .dword 0, 0
