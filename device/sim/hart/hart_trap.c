/* hart_trap: entering and leaving a trap in machine mode, the only mode.
 * A trap saves pc in mepc, sets mcause and mtval, moves mstatus.MIE to
 * MPIE and clears MIE (MPP stays machine), and jumps to mtvec's base
 * (direct mode: mtvec's low bits are never set).  It also records the
 * trap in h->trap_* for the owner's report.  mret undoes it. */
#include "hart_internal.h"

void sim_hart_trap(sim_hart *h, uint64_t cause, uint64_t tval)
{
    uint64_t s = h->mstatus & ~SIM_MSTATUS_MPIE;
    if (s & SIM_MSTATUS_MIE)
        s |= SIM_MSTATUS_MPIE;
    h->mstatus = s & ~SIM_MSTATUS_MIE;
    h->mepc = h->pc;
    h->mcause = cause;
    h->mtval = tval;
    h->trapped = true;
    h->traps++; /* an owner's bound counts these, or a trap loop never ends */
    h->trap_cause = cause;
    h->trap_epc = h->pc;
    h->trap_tval = tval;
    h->pc = h->mtvec & ~(uint64_t)3; /* direct mode; the owner may set mtvec */
}

void sim_hart_mret(sim_hart *h)
{
    uint64_t s = h->mstatus & ~SIM_MSTATUS_MIE;
    if (s & SIM_MSTATUS_MPIE)
        s |= SIM_MSTATUS_MIE;
    h->mstatus = s | SIM_MSTATUS_MPIE;
    h->pc = h->mepc & ~(uint64_t)1; /* the owner may have set mepc directly */
}
