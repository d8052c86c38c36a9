# Vector traps: reserved configurations and encodings are illegal
# instructions (vill, misaligned register groups, EMUL past 8, a masked
# destination v0, segments past 8 registers, reductions and vcpop with
# vstart set, floating point with SEW 8, FS off or a reserved frm, and
# what needs 8- or 128-bit floats); a misaligned or faulting element traps with its index in
# vstart and its address in mtval, the elements before it done, and the
# instruction restarts from vstart after mret; masked-off elements never
# fault; fault-only-first traps at element 0.
#
# The handler records mcause in s2, mepc in s3, mtval in s4, vstart in s7
# and counts traps in s5; when s9 is set it moves s9 into a5 (the fix-up
# a real handler would make: here, another base address) and clears it;
# it returns to s10 when s10 is set, else to mepc + 4.
#include "test.h"

.macro ARM resume
    la s10, \resume
    li s5, 0
    li s2, -1
    li s3, -1
    li s4, -1
    li s7, -1
.endm

/* An illegal instruction at label `at` (mtval: its 32 bits). */
.macro ILLEGAL_AT at
    CHECK s5, 1
    CHECK s2, 2
    la t0, \at
    beq s3, t0, 8871f
    j fail
8871:
    lhu t1, 0(t0)
    lhu t2, 2(t0)
    slli t2, t2, 16
    or t1, t1, t2
    beq s4, t1, 8872f
    j fail
8872:
.endm

/* The instruction(s) after `ARM 2f` up to label 2 must trap illegal at 1. */
.macro MUST_BE_ILLEGAL insn:vararg
    ARM 2f
1:  \insn
    j fail
2:  ILLEGAL_AT 1b
.endm

/* The 32-bit value at label x + off (zero-extended). */
.macro AT_W x, off, value
    la s2, \x
    lwu s3, \off(s2)
    CHECK s3, \value
.endm

TEST_BEGIN
    VECTOR_ON
    la t0, handler
    csrw mtvec, t0
    li s9, 0
    j tests

    .balign 4
handler:
    csrr s2, mcause
    csrr s3, mepc
    csrr s4, mtval
    csrr s7, vstart
    addi s5, s5, 1
    beqz s9, 1f
    mv a5, s9
    li s9, 0
1:  beqz s10, 2f
    csrw mepc, s10
    li s10, 0
    mret
2:  csrr t0, mepc
    addi t0, t0, 4
    csrw mepc, t0
    mret

tests:
    TEST 1                    # vtype vill: arithmetic and loads are illegal
    li a0, 4
    li a1, 1 << 8
    vsetvl t0, a0, a1
    MUST_BE_ILLEGAL vadd.vv v1, v2, v3
    MUST_BE_ILLEGAL vle32.v v1, (sp)
    MUST_BE_ILLEGAL vmv.x.s a0, v1
    TEST 2                    # ... but not whole-register moves
    ARM 2f
    vmv2r.v v2, v4
2:  CHECK s5, 0

    TEST 3                    # register groups must be aligned to LMUL
    vsetvli t0, zero, e32, m2, ta, ma
    MUST_BE_ILLEGAL vadd.vv v1, v2, v4
    MUST_BE_ILLEGAL vadd.vv v2, v3, v4
    MUST_BE_ILLEGAL vle32.v v3, (sp)
    MUST_BE_ILLEGAL vmv4r.v v2, v4
    TEST 4                    # EMUL = EEW / SEW * LMUL past 8
    vsetvli t0, zero, e8, m2, ta, ma
    MUST_BE_ILLEGAL vle64.v v8, (sp)
    vsetvli t0, zero, e64, mf2, ta, ma   # vill: e64 needs LMUL >= 1
    MUST_BE_ILLEGAL vle8.v v8, (sp)
    TEST 5                    # a masked instruction cannot write v0 (but a compare can)
    vsetvli t0, zero, e32, m1, ta, ma
    MUST_BE_ILLEGAL vadd.vv v0, v1, v2, v0.t
    MUST_BE_ILLEGAL vle32.v v0, (sp), v0.t
    ARM 2f
    vmseq.vv v0, v1, v2, v0.t
2:  CHECK s5, 0
    TEST 6                    # a segment's registers: at most 8, within v0..v31
    vsetvli t0, zero, e32, m4, ta, ma
    MUST_BE_ILLEGAL vlseg3e32.v v4, (sp)
    vsetvli t0, zero, e32, m1, ta, ma
    MUST_BE_ILLEGAL vlseg4e32.v v30, (sp)
    TEST 7                    # reductions, vcpop and viota need vstart 0
    csrwi vstart, 1
    MUST_BE_ILLEGAL vredsum.vs v1, v2, v3
    csrwi vstart, 1
    MUST_BE_ILLEGAL vcpop.m a0, v1
    csrwi vstart, 1
    MUST_BE_ILLEGAL viota.m v1, v2
    csrwi vstart, 0
    TEST 8                    # a compare may overlap only a source's lowest register
    vsetvli t0, zero, e32, m2, ta, ma
    MUST_BE_ILLEGAL vmseq.vv v3, v2, v4
    ARM 2f
    vmseq.vv v2, v2, v4
2:  CHECK s5, 0
    TEST 9                    # no 8-bit float, no 128-bit float; halves (Zvfh) fine
    vsetvli t0, zero, e8, m1, ta, ma
    MUST_BE_ILLEGAL vfwadd.vv v2, v4, v5      # 8-bit floats
    MUST_BE_ILLEGAL vfwcvt.f.f.v v2, v4
    MUST_BE_ILLEGAL vfncvt.f.f.w v1, v2       # half to an 8-bit float
    MUST_BE_ILLEGAL vfwcvt.x.f.v v2, v4       # an 8-bit float to a 16-bit integer
    MUST_BE_ILLEGAL vfncvt.f.x.w v1, v2       # a 16-bit integer to an 8-bit float
    MUST_BE_ILLEGAL vfrec7.v v1, v2
    vsetvli t0, zero, e64, m1, ta, ma
    MUST_BE_ILLEGAL vfwadd.vv v2, v4, v5      # no 128-bit float
    MUST_BE_ILLEGAL vfwcvt.f.x.v v2, v4       # a 64-bit integer to one
    MUST_BE_ILLEGAL vfncvt.x.f.w v1, v2       # a 128-bit float to a 64-bit integer
    ARM 2f
    vsetvli t0, zero, e16, m1, ta, ma
    vfrsqrt7.v v1, v2         # the estimates at SEW 16
    vfrec7.v v1, v2
    vfwadd.vv v2, v4, v5      # half to single
    vfwcvt.f.f.v v2, v4
    vfncvt.f.f.w v1, v2       # single to half
    vfncvt.x.f.w v1, v2       # single to a 16-bit integer
    vfwcvt.f.x.v v2, v4       # a 16-bit integer to single
    vsetvli t0, zero, e8, m1, ta, ma
    vfwcvt.f.x.v v2, v4       # an 8-bit integer to half
    vfncvt.x.f.w v1, v2       # half to an 8-bit integer
    vsetvli t0, zero, e32, m1, ta, ma
    vfwadd.vv v2, v4, v5
    vfncvt.f.f.w v1, v2
2:  CHECK s5, 0
    TEST 21                   # FP needs SEW 16, 32 or 64, mstatus.FS on, a valid frm
    vsetvli t0, zero, e8, m1, ta, ma
    MUST_BE_ILLEGAL vfadd.vv v1, v2, v3
    MUST_BE_ILLEGAL vfmv.f.s fa0, v1
    ARM 2f
    vsetvli t0, zero, e16, m1, ta, ma
    vfadd.vv v1, v2, v3       # Zvfh
2:  CHECK s5, 0
    vsetvli t0, zero, e64, m1, ta, ma
    csrwi frm, 5
    MUST_BE_ILLEGAL vfadd.vv v1, v2, v3
    csrwi frm, 0
    li t1, 3 << 13
    csrc mstatus, t1
    MUST_BE_ILLEGAL vfadd.vv v1, v2, v3
    MUST_BE_ILLEGAL vfmv.f.s fa0, v1
    li t1, 1 << 13
    csrs mstatus, t1
    ARM 2f                    # FS Initial is on, and the FP op makes it Dirty
    vfmin.vv v1, v2, v3
2:  CHECK s5, 0
    csrr t1, mstatus
    srli t1, t1, 13
    andi t1, t1, 3
    CHECK t1, 3
    TEST 19                   # permutations' overlaps, vadc writing v0, vcompress with vstart
    vsetvli t0, zero, e32, m2, ta, ma
    MUST_BE_ILLEGAL vslideup.vi v2, v2, 1
    MUST_BE_ILLEGAL vrgather.vv v4, v2, v4
    MUST_BE_ILLEGAL vcompress.vm v2, v4, v2
    MUST_BE_ILLEGAL vadc.vvm v0, v2, v4, v0
    MUST_BE_ILLEGAL vzext.vf2 v3, v2
    MUST_BE_ILLEGAL vzext.vf8 v2, v4          # e32 / 8: EEW 4 bits
    csrwi vstart, 1
    MUST_BE_ILLEGAL vcompress.vm v2, v4, v1
    csrwi vstart, 0
    ARM 2f
    vslidedown.vi v2, v2, 1   # a slide down may overlap
2:  CHECK s5, 0
    TEST 20                   # widening: 2 * SEW <= 64, 2 * LMUL <= 8, the overlap rules
    vsetvli t0, zero, e64, m1, ta, ma
    MUST_BE_ILLEGAL vwadd.vv v2, v4, v5
    vsetvli t0, zero, e8, m8, ta, ma
    MUST_BE_ILLEGAL vwadd.vv v0, v8, v16
    vsetvli t0, zero, e8, m1, ta, ma
    MUST_BE_ILLEGAL vwadd.vv v3, v4, v5       # the wide group unaligned
    MUST_BE_ILLEGAL vwadd.vv v2, v2, v4       # a narrow source in the wide one's low half
    MUST_BE_ILLEGAL vnsrl.wi v3, v2, 0        # a narrow result in the wide source's high half
    csrwi vstart, 1
    MUST_BE_ILLEGAL vwredsum.vs v1, v2, v3    # a reduction with vstart set
    csrwi vstart, 0
    ARM 2f
    vwadd.vv v2, v3, v4       # the wide one's high half: allowed
    vnsrl.wi v2, v2, 0        # the wide source's low half: allowed
2:  CHECK s5, 0
    TEST 10                   # reserved encodings: vmv.v.v with vs2 != 0, vmv3r, masked vmand
    MUST_BE_ILLEGAL .4byte 0x5e2080d7   # vmv.v.v v1, v2 with vs2 = v2
    MUST_BE_ILLEGAL .4byte 0x9e2130d7   # vmv3r.v v1, v2 (nr 3)
    MUST_BE_ILLEGAL .4byte 0x641120d7   # vmand.mm v1, v1, v2 with vm 0
    MUST_BE_ILLEGAL .4byte 0x1205e087   # mew set: EEW 128
    TEST 11                   # vl, vtype, vlenb are read-only
    MUST_BE_ILLEGAL csrw vl, a0
    MUST_BE_ILLEGAL csrw vtype, a0
    MUST_BE_ILLEGAL csrw vlenb, a0

    # ---- memory: the faulting element in vstart ----
    TEST 12                   # a misaligned element: cause 4, vstart 0
    la a5, buf
    addi a5, a5, 2
    li a0, 4
    vsetvli t0, a0, e32, m1, ta, ma
    ARM 2f
1:  vle32.v v1, (a5)
    j fail
2:  CHECK s5, 1
    CHECK s2, 4
    beq s4, a5, 3f            # mtval: the element's address
    j fail
3:  CHECK s7, 0
    TEST 13                   # a load faulting at element 2 of 4
    vsetvli t0, zero, e8, m1, ta, ma
    vmv.v.i v1, -1
    la a5, page_end
    addi a5, a5, -8
    vsetvli t0, a0, e32, m1, ta, ma
    ARM 2f
1:  vle32.v v1, (a5)
    j fail
2:  CHECK s5, 1
    CHECK s2, 5
    la t0, page_end
    beq s4, t0, 3f
    j fail
3:  CHECK s7, 2
    csrr t0, vstart
    CHECK t0, 2
    vmv.x.s t1, v1            # element 0 was loaded (vmv.x.s ignores vstart)
    CHECK t1, 0x07070707
    csrwi vstart, 0
    TEST 14                   # ... and restarts from vstart after the handler's fix-up
    vsetvli t0, zero, e8, m1, ta, ma
    vmv.v.i v1, -1
    vsetvli t0, a0, e32, m1, ta, ma
    la a5, page_end
    addi a5, a5, -8
    la s9, buf                # the fix-up: elements 2 and 3 from buf + 8
    ARM 1f                    # back to the instruction itself
1:  vle32.v v1, (a5)
    CHECK s5, 1
    csrr t0, vstart
    CHECK t0, 0
    la a6, out
    vse32.v v1, (a6)
    AT_W out, 0, 0x07070707   # from page_end - 8, before the fault
    AT_W out, 4, 0x07070707
    AT_W out, 8, 0x0b0a0908   # from buf + 8, after the restart
    AT_W out, 12, 0x0f0e0d0c
    TEST 15                   # a store faulting at element 2: 0 and 1 stored
    la a5, page_end
    addi a5, a5, -8
    sd zero, 0(a5)
    la a6, buf
    vle32.v v2, (a6)
    ARM 2f
1:  vse32.v v2, (a5)
    j fail
2:  CHECK s2, 7
    CHECK s7, 2
    la t0, page_end
    beq s4, t0, 3f
    j fail
3:  ld t1, 0(a5)
    CHECK t1, 0x0706050403020100
    csrwi vstart, 0
    TEST 16                   # masked-off elements never fault
    la a3, mask3
    vlm.v v0, (a3)            # elements 0 and 1 only
    ARM 2f
    vle32.v v3, (a5), v0.t
2:  CHECK s5, 0
    TEST 17                   # an indexed load faults at the element whose index is bad
    la a3, idxbad
    vle32.v v4, (a3)          # 0, 4, 0x10000, 8
    la a6, buf
    ARM 2f
1:  vluxei32.v v5, (a6), v4
    j fail
2:  CHECK s2, 5
    CHECK s7, 2
    csrwi vstart, 0
    TEST 18                   # fault-only-first traps at element 0
    la a5, page_end
    ARM 2f
1:  vle32ff.v v1, (a5)
    j fail
2:  CHECK s2, 5
    CHECK s7, 0
    csrr t0, vl
    CHECK t0, 4
TEST_END


    .data
    .balign 64
buf:
    .byte 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
out:
    .zero 64
mask3:
    .byte 3, 0, 0, 0, 0, 0, 0, 0
idxbad:
    .word 0, 4, 0x10000, 8
    .balign 4096
    .zero 4088
    .byte 7, 7, 7, 7, 7, 7, 7, 7
page_end:                     # nothing is mapped from here on
