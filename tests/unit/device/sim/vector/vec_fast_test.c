/* Differential tests of the vector unit's fast paths (vec_fast.c's whole-
 * group integer and floating-point loops, vec_mem.c's plain-RAM loads and
 * stores) against its element path (vec_fast_on false): random
 * instructions of the operations the fast paths take — every SEW, LMUL
 * 1/8..8, vl and vstart anywhere, masked and not, .vv/.vx/.vi/.vf, legal
 * and illegal register groups, unit-stride, strided (negative and zero
 * strides too), whole-register and mask loads and stores, some reaching
 * past the data RAM or misaligned, FP operands from ordinary numbers to
 * zeros, subnormals, infinities and NaNs, fcsr with and without NX and
 * in every rounding mode — each run twice from the same state, once each
 * way: the whole hart (registers, fcsr, vl, vstart, cycle, memory
 * cycles, the trap) and the data RAM must come out the same, bit for
 * bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hart_rig.h"
#include "hart_internal.h"
#include "sim_fpu.h"
#include "sim_hart.h"
#include "sim_mem.h"
#include "sim_vec.h"
#include "vec_internal.h"
#include "test_random.h"

static uint64_t rng = 0x243f6a8885a308d3u;
static uint64_t next(void)
{
    return test_random(&rng);
}
static unsigned below(unsigned n)
{
    return (unsigned)(next() % n);
}

static rig *rig_new(void)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    rig_init_mem(r, RIG_DEV_MAX, false);
    assert_int_equal(
        sim_hart_init(&r->h, &r->mem, 0, RIG_CODE_BASE, RIG_CODE_BASE, RIG_CODE_SIZE), 0);
    r->h.mstatus |= SIM_MSTATUS_VS | SIM_MSTATUS_FS;
    return r;
}

/* A random FP value of `bytes` (4 or 8): mostly ordinary numbers near 1,
 * sometimes a special one. */
static uint64_t fp_value(unsigned bytes)
{
    unsigned k = below(40);
    if (bytes == 4) {
        static const uint32_t special[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                           0x7f800001u, 0x00000001u, 0x00800000u, 0x7f7fffffu,
                                           0x00800001u};
        if (k < 10)
            return special[k];
        uint32_t e = k < 14 ? below(256) : 112 + below(32);
        return (uint32_t)(next() & 0x807fffffu) | e << 23;
    }
    static const uint64_t special[] = {0, 1ull << 63, 0x7ff0000000000000ull,
                                       0xfff0000000000000ull, 0x7ff8000000000000ull,
                                       0x7ff0000000000001ull, 1, 0x0010000000000000ull,
                                       0x7fefffffffffffffull, 0x0010000000000001ull};
    if (k < 10)
        return special[k];
    uint64_t e = k < 14 ? below(2048) : 1008 + below(32);
    return (next() & 0x800fffffffffffffull) | e << 52;
}

/* The operations the fast paths take: funct3 (OPIVV 0, OPMVV 2, OPIVI 3,
 * OPIVX 4, OPFVV 1, OPFVF 5, OPMVX 6) and funct6. */
typedef struct {
    uint8_t f6, forms; /* bit f3 set: that form exists */
} opcode;
#define I_VV 1u
#define F_VV 2u
#define M_VV 4u
#define I_VI 8u
#define I_VX 16u
#define F_VF 32u
#define M_VX 64u
static const opcode ops[] = {
    {0x00, I_VV | I_VX | I_VI}, /* vadd */
    {0x02, I_VV | I_VX},        /* vsub */
    {0x03, I_VX | I_VI},        /* vrsub */
    {0x04, I_VV | I_VX},        /* vminu */
    {0x05, I_VV | I_VX},        /* vmin */
    {0x06, I_VV | I_VX},        /* vmaxu */
    {0x07, I_VV | I_VX},        /* vmax */
    {0x09, I_VV | I_VX | I_VI}, /* vand */
    {0x0a, I_VV | I_VX | I_VI}, /* vor */
    {0x0b, I_VV | I_VX | I_VI}, /* vxor */
    {0x17, I_VV | I_VX | I_VI}, /* vmerge / vmv.v */
    {0x18, I_VV | I_VX | I_VI}, /* vmseq */
    {0x19, I_VV | I_VX | I_VI}, /* vmsne */
    {0x1a, I_VV | I_VX},        /* vmsltu */
    {0x1b, I_VV | I_VX},        /* vmslt */
    {0x1c, I_VV | I_VX | I_VI}, /* vmsleu */
    {0x1d, I_VV | I_VX | I_VI}, /* vmsle */
    {0x1e, I_VX | I_VI},        /* vmsgtu */
    {0x1f, I_VX | I_VI},        /* vmsgt */
    {0x25, I_VV | I_VX | I_VI}, /* vsll */
    {0x28, I_VV | I_VX | I_VI}, /* vsrl */
    {0x29, I_VV | I_VX | I_VI}, /* vsra */
    {0x25, M_VV | M_VX},        /* vmul */
    {0x2d, M_VV | M_VX},        /* vmacc */
    {0x2f, M_VV | M_VX},        /* vnmsac */
    {0x29, M_VV | M_VX},        /* vmadd */
    {0x2b, M_VV | M_VX},        /* vnmsub */
    {0x00, F_VV | F_VF},        /* vfadd */
    {0x02, F_VV | F_VF},        /* vfsub */
    {0x27, F_VF},               /* vfrsub */
    {0x24, F_VV | F_VF},        /* vfmul */
    {0x20, F_VV | F_VF},        /* vfdiv */
    {0x21, F_VF},               /* vfrdiv */
    {0x28, F_VV | F_VF},        /* vfmadd */
    {0x29, F_VV | F_VF},        /* vfnmadd */
    {0x2a, F_VV | F_VF},        /* vfmsub */
    {0x2b, F_VV | F_VF},        /* vfnmsub */
    {0x2c, F_VV | F_VF},        /* vfmacc */
    {0x2d, F_VV | F_VF},        /* vfnmacc */
    {0x2e, F_VV | F_VF},        /* vfmsac */
    {0x2f, F_VV | F_VF},        /* vfnmsac */
};

/* A register number for a group of 2^lg registers: mostly aligned. */
static unsigned reg(int lg)
{
    unsigned r = below(32);
    if (lg > 0 && below(8))
        r &= ~((1u << lg) - 1);
    return r;
}

/* A random state: vtype, vl, vstart, the registers, fcsr, memory. */
static void randomize(rig *r, bool fp)
{
    sim_hart *h = &r->h;
    unsigned vsew = below(4), vlmul;
    do
        vlmul = below(8);
    while (vlmul == 4);
    uint64_t vtype = vsew << 3 | vlmul | (uint64_t)below(4) << 6;
    int lg = vec_lmul_log2(vtype);
    if (lg < 0 && (8u << vsew) > (64u >> -lg))
        vtype = vsew << 3; /* LMUL 1 */
    h->vtype = vtype;
    unsigned vlmax = vec_vlmax(vec_sew_bytes(vtype), vec_lmul_log2(vtype));
    h->vl = below(4) ? vlmax : below(vlmax + 1);
    h->vstart = below(4) ? 0 : below(vlmax + 2);
    unsigned sew = vec_sew_bytes(vtype);
    for (unsigned i = 0; i < 32 * SIM_VLENB; i += 8) {
        uint64_t v = next();
        if (fp && sew >= 4)
            v = sew == 8 ? fp_value(8) : fp_value(4) | fp_value(4) << 32;
        else if (below(4) == 0)
            v &= 0x0101010101010101ull * (below(2) ? 0xff : 0x0f);
        memcpy(&h->v[0][0] + i, &v, 8);
    }
    for (unsigned i = 1; i < 32; i++)
        h->x[i] = below(3) ? next() : below(64);
    for (unsigned i = 0; i < 32; i++) {
        h->f[i] = fp_value(8);
        if (below(8))
            h->f[i] = 0xffffffff00000000ull | fp_value(4); /* a boxed single */
    }
    unsigned frm = below(3) ? 0 : below(8);
    h->fcsr = frm << 5 | (below(4) ? 1u : 0u) | (below(8) ? 0 : below(32));
    h->mstatus |= SIM_MSTATUS_VS | SIM_MSTATUS_FS;
    for (unsigned i = 0; i < RIG_DATA_SIZE; i++)
        r->data[i] = (uint8_t)next();
}

/* One instruction run from the saved state, the fast paths on or off. */
typedef struct {
    sim_hart h;
    uint8_t data[RIG_DATA_SIZE];
    int rc;
    uint64_t tval;
} outcome;

static void run_one(rig *r, const sim_hart *h0, const uint8_t *data0, uint32_t insn, bool fast,
                    outcome *o)
{
    memcpy(&r->h, h0, sizeof r->h);
    memcpy(r->data, data0, RIG_DATA_SIZE);
    sim_vec_insn vi;
    vec_fast_on = fast;
    o->tval = 0;
    o->rc = sim_vec_decode(insn, &vi);
    if (o->rc == 0)
        o->rc = sim_vec_exec(&r->h, &vi, insn, &o->tval);
    vec_fast_on = true;
    memcpy(&o->h, &r->h, sizeof o->h);
    memcpy(o->data, r->data, RIG_DATA_SIZE);
}

static void compare(rig *r, uint32_t insn)
{
    static sim_hart h0;
    static uint8_t data0[RIG_DATA_SIZE];
    static outcome a, b;
    memcpy(&h0, &r->h, sizeof h0);
    memcpy(data0, r->data, RIG_DATA_SIZE);
    run_one(r, &h0, data0, insn, true, &a);
    run_one(r, &h0, data0, insn, false, &b);
    if (a.rc != b.rc || a.tval != b.tval || memcmp(a.h.v, b.h.v, sizeof a.h.v) ||
        memcmp(a.h.x, b.h.x, sizeof a.h.x) || memcmp(a.h.f, b.h.f, sizeof a.h.f) ||
        a.h.fcsr != b.h.fcsr || a.h.vl != b.h.vl || a.h.vstart != b.h.vstart ||
        a.h.mstatus != b.h.mstatus || a.h.cycle != b.h.cycle ||
        a.h.mem_cycles != b.h.mem_cycles || memcmp(a.data, b.data, RIG_DATA_SIZE)) {
        print_message("differs: insn 0x%08x vtype 0x%llx vl %llu vstart %llu fcsr 0x%x: "
                      "rc %d/%d cycle %llu/%llu mem_cycles %llu/%llu\n",
                      insn, (unsigned long long)h0.vtype, (unsigned long long)h0.vl,
                      (unsigned long long)h0.vstart, (unsigned)h0.fcsr, a.rc, b.rc,
                      (unsigned long long)a.h.cycle, (unsigned long long)b.h.cycle,
                      (unsigned long long)a.h.mem_cycles, (unsigned long long)b.h.mem_cycles);
        fail();
    }
}

static void arith(void **state, bool fp)
{
    (void)state;
    rig *r = rig_new();
    unsigned nops = sizeof ops / sizeof ops[0];
    for (unsigned t = 0; t < 40000; t++) {
        randomize(r, fp);
        const opcode *op;
        do
            op = &ops[below(nops)];
        while (((op->forms & (F_VV | F_VF)) != 0) != fp);
        unsigned form;
        do
            form = below(7);
        while (!(op->forms & (1u << form)));
        int lg = vec_lmul_log2(r->h.vtype);
        unsigned vm = below(3) ? 1 : 0;
        unsigned vs2 = reg(lg), vs1 = form == 0 || form == 1 || form == 2 ? reg(lg) : below(32);
        unsigned vd = reg(lg);
        if (op->f6 == 0x17 && (form == 0 || form == 3 || form == 4) && vm)
            vs2 = 0;
        if (op->f6 >= 0x18 && op->f6 <= 0x1f && (form == 0 || form == 3 || form == 4) &&
            below(2))
            vd = below(2) ? vs2 : below(32); /* compares: a mask, any register */
        uint32_t insn = (uint32_t)op->f6 << 26 | vm << 25 | vs2 << 20 | vs1 << 15 |
                        form << 12 | vd << 7 | 0x57;
        compare(r, insn);
    }
    sim_hart_free(&r->h);
    free(r);
}

static void int_ops(void **state)
{
    arith(state, false);
}

static void fp_ops(void **state)
{
    arith(state, true);
}

static void mem_ops(void **state)
{
    (void)state;
    rig *r = rig_new();
    for (unsigned t = 0; t < 40000; t++) {
        randomize(r, false);
        bool store = below(2);
        unsigned kind = below(4); /* unit, strided, whole, mask */
        unsigned width = below(4), f3 = width == 0 ? 0 : width + 4, eew = 1u << width;
        unsigned vm = kind >= 2 || below(3) ? 1 : 0;
        unsigned mop = kind == 1 ? 2 : 0, lumop = kind == 2 ? 8 : kind == 3 ? 0xb : 0;
        unsigned nf = 0;
        if (kind == 2) {
            nf = (1u << below(4)) - 1;
            if (store)
                f3 = 0;
        } else if (kind == 3) {
            f3 = 0;
        } else if (below(6) == 0) {
            nf = 1 + below(3); /* a segment: the element path's */
        }
        unsigned vd = below(32), rs1 = 1 + below(31), rs2 = 1 + below(31);
        while (rs2 == rs1)
            rs2 = 1 + below(31);
        int64_t off = below(8) ? (int64_t)below(RIG_DATA_SIZE) : (int64_t)below(3 * RIG_DATA_SIZE) -
                                                                   RIG_DATA_SIZE;
        if (below(8))
            off &= ~(int64_t)(eew - 1);
        r->h.x[rs1] = RIG_DATA_BASE + (uint64_t)off;
        int64_t stride = ((int64_t)below(33) - 16) * (int64_t)eew;
        if (below(8) == 0)
            stride += 1;
        r->h.x[rs2] = (uint64_t)stride;
        unsigned field = kind == 1 ? rs2 : lumop;
        uint32_t insn = nf << 29 | mop << 26 | vm << 25 | field << 20 | rs1 << 15 | f3 << 12 |
                        vd << 7 | (store ? 0x27u : 0x07u);
        compare(r, insn);
    }
    sim_hart_free(&r->h);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(int_ops),
        cmocka_unit_test(fp_ops),
        cmocka_unit_test(mem_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
