/* hart_debug: a debugger's view of a hart's registers (sim_hart.h,
 * sim_hart_get_reg), the one both of kmrun's GDB targets go through.
 *
 * What a debugger may write (device/sim/README.md, "Debugging"): x1-x31,
 * pc, f0-f31, the vector registers, fcsr, mscratch, mepc, mcause, mtval,
 * mtvec, the trigger CSRs, and of the vector CSRs vstart, vxsat, vxrm and
 * vcsr.  vl, vtype and vlenb stay read-only, as their numbers say (a
 * vsetvl sets the first two, and only as a legal pair); so do the
 * counters, mstatus, mie, mip and the ids, the program's own. */
#include <string.h>

#include "hart_internal.h"

_Static_assert(SIM_REG_V_PARTS * 8 == SIM_VLENB, "a vector register is SIM_REG_V_PARTS words");

int sim_hart_get_reg(sim_hart *h, sim_reg_file file, unsigned num, uint64_t *value)
{
    switch (file) {
    case SIM_REG_X:
        if (num >= 32)
            return -1;
        *value = h->x[num];
        return 0;
    case SIM_REG_F:
        if (num >= 32)
            return -1;
        *value = h->f[num];
        return 0;
    case SIM_REG_PC:
        *value = h->pc;
        return 0;
    case SIM_REG_CSR:
        return sim_hart_csr_read(h, num, value) ? 0 : -1;
    case SIM_REG_V:
        if (num >= 32 * SIM_REG_V_PARTS)
            return -1;
        memcpy(value, &h->v[num / SIM_REG_V_PARTS][num % SIM_REG_V_PARTS * 8], 8);
        return 0;
    }
    return -1;
}

int sim_hart_set_reg(sim_hart *h, sim_reg_file file, unsigned num, uint64_t value)
{
    switch (file) {
    case SIM_REG_X:
        if (num >= 32)
            return -1;
        if (num)
            h->x[num] = value;
        return 0;
    case SIM_REG_F:
        if (num >= 32)
            return -1;
        h->f[num] = value;
        return 0;
    case SIM_REG_PC:
        h->pc = value & ~(uint64_t)1;
        return 0;
    case SIM_REG_CSR:
        /* the few a debugger changes; the rest are the program's own */
        switch (num) {
        case 0x003: h->fcsr = (uint32_t)(value & 0xff); return 0;
        case 0x340: h->mscratch = value; return 0;
        case 0x341: h->mepc = value & ~(uint64_t)1; return 0;
        case 0x342: h->mcause = value; return 0;
        case 0x343: h->mtval = value; return 0;
        case 0x305: h->mtvec = value & ~(uint64_t)3; return 0;
        case 0x7a0: /* tselect: past the last trigger, kept as it was */
            if (value < SIM_HART_TRIGGERS)
                h->tselect = (unsigned)value;
            return 0;
        case 0x7a1:
        case 0x7a2: { /* as a debugger in debug mode writes them */
            uint64_t t1, t2;
            (void)sim_hart_trigger_get(h, h->tselect, &t1, &t2);
            return sim_hart_trigger_set(h, h->tselect, num == 0x7a1 ? value : t1,
                                        num == 0x7a2 ? value : t2);
        }
        case 0x008: /* vstart, vxsat, vxrm, vcsr: as a CSR write makes them legal */
        case 0x009:
        case 0x00a:
        case 0x00f: sim_vec_csr_write(h, num, value); return 0;
        default: return -1;
        }
    case SIM_REG_V:
        if (num >= 32 * SIM_REG_V_PARTS)
            return -1;
        memcpy(&h->v[num / SIM_REG_V_PARTS][num % SIM_REG_V_PARTS * 8], &value, 8);
        return 0;
    }
    return -1;
}

void sim_hart_status(const sim_hart *h, sim_core_status *st)
{
    *st = (sim_core_status){
        .state = h->state == SIM_HART_RUNNING ? SIM_CORE_RUNNING
                 : h->state == SIM_HART_WFI   ? SIM_CORE_WAITING
                                              : SIM_CORE_HALTED,
        .pc = h->pc,
        .instructions = h->instret,
        .cycles = h->cycle,
        .mem_cycles = h->mem_cycles,
        .traps = h->traps,
    };
}
