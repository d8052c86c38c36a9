/* hart_csr: the Zicsr instructions and the CSRs of a machine-mode-only
 * hart.  Known CSRs: fflags/frm/fcsr (illegal while mstatus.FS is Off;
 * a write sets FS Dirty), cycle/time/instret (read-only), mcycle/minstret,
 * the vector CSRs (sim_vec_csr_*: illegal while mstatus.VS is Off; a
 * write sets VS Dirty), mstatus, misa, mie, mtvec, mscratch, mepc,
 * mcause, mtval, mip, and the read-only mvendorid/marchid/mimpid (0: not
 * given) and mhartid, the trigger module's tselect, tdata1-3 and tinfo
 * (hart_trigger.c), and PMP's pmpcfg0, pmpcfg2, pmpaddr0-15 (hart_pmp.c).  Any
 * other number is an illegal instruction, as is a write to a read-only
 * CSR.  The write rules: csrrw(i) always writes; csrrs/csrrc with rs1 =
 * x0 and csrrsi/csrrci with uimm 0 do not (so they may read read-only
 * CSRs).
 *
 * mcycle and minstret are views: h->cycle and h->instret drive modeled
 * time and the owner's reports, so a write stores an offset instead of
 * moving them. */
#include "hart_internal.h"

enum {
    CSR_FFLAGS = 0x001,
    CSR_FRM = 0x002,
    CSR_FCSR = 0x003,
    CSR_CYCLE = 0xc00,
    CSR_TIME = 0xc01,
    CSR_INSTRET = 0xc02,
    CSR_MSTATUS = 0x300,
    CSR_MISA = 0x301,
    CSR_MIE = 0x304,
    CSR_MTVEC = 0x305,
    CSR_MSCRATCH = 0x340,
    CSR_MEPC = 0x341,
    CSR_MCAUSE = 0x342,
    CSR_MTVAL = 0x343,
    CSR_MIP = 0x344,
    CSR_MCYCLE = 0xb00,
    CSR_MINSTRET = 0xb02,
    CSR_MVENDORID = 0xf11,
    CSR_MARCHID = 0xf12,
    CSR_MIMPID = 0xf13,
    CSR_MHARTID = 0xf14,
};

/* misa: RV64 (MXL 2) with A, C, D, F, I, M, V.  Zicsr, Zifencei, Zba,
 * Zbb, Zfh and Zvfh have no misa bit (B would claim Zbs too). */
#define MISA_VALUE                                                                              \
    ((2ull << 62) | (1ull << ('A' - 'A')) | (1ull << ('C' - 'A')) | (1ull << ('D' - 'A')) |    \
     (1ull << ('F' - 'A')) | (1ull << ('I' - 'A')) | (1ull << ('M' - 'A')) |                   \
     (1ull << ('V' - 'A')))

/* What software may change in mstatus: MIE, MPIE, FS, VS.  MPP reads 3
 * (machine: the only mode); SD summarizes FS/VS Dirty. */
#define MSTATUS_WRITABLE (SIM_MSTATUS_MIE | SIM_MSTATUS_MPIE | SIM_MSTATUS_FS | SIM_MSTATUS_VS)
/* mie: the machine software, timer and external enables. */
#define MIE_WRITABLE ((1ull << 3) | (1ull << 7) | (1ull << 11))

static uint64_t read_mstatus(const sim_hart *h)
{
    uint64_t v = (h->mstatus & MSTATUS_WRITABLE) | SIM_MSTATUS_MPP;
    if ((v & SIM_MSTATUS_FS) == SIM_MSTATUS_FS || (v & SIM_MSTATUS_VS) == SIM_MSTATUS_VS)
        v |= SIM_MSTATUS_SD;
    return v;
}

static bool is_fp_csr(unsigned csr)
{
    return csr == CSR_FFLAGS || csr == CSR_FRM || csr == CSR_FCSR;
}

/* Reads csr into *v; false when the CSR does not exist here. */
static bool csr_read(sim_hart *h, unsigned csr, uint64_t *v)
{
    switch (csr) {
    case CSR_FFLAGS: *v = h->fcsr & 0x1f; return true;
    case CSR_FRM: *v = (h->fcsr >> 5) & 7; return true;
    case CSR_FCSR: *v = h->fcsr & 0xff; return true;
    case CSR_CYCLE:
    case CSR_MCYCLE: *v = h->cycle + h->mcycle_offset; return true;
    case CSR_INSTRET:
    case CSR_MINSTRET: *v = h->instret + h->minstret_offset; return true;
    case CSR_TIME: *v = h->mem->mtime ? h->mem->mtime(h->mem, h) : 0; return true;
    case CSR_MSTATUS: *v = read_mstatus(h); return true;
    case CSR_MISA: *v = MISA_VALUE; return true;
    case CSR_MIE: *v = h->mie; return true;
    case CSR_MTVEC: *v = h->mtvec; return true;
    case CSR_MSCRATCH: *v = h->mscratch; return true;
    case CSR_MEPC: *v = h->mepc; return true;
    case CSR_MCAUSE: *v = h->mcause; return true;
    case CSR_MTVAL: *v = h->mtval; return true;
    case CSR_MIP: *v = h->mip; return true;
    case CSR_MVENDORID:
    case CSR_MARCHID:
    case CSR_MIMPID: *v = 0; return true;
    case CSR_MHARTID: *v = h->hartid; return true;
    default:
        return sim_trigger_csr_read(h, csr, v) || sim_pmp_csr_read(h, csr, v) ||
               sim_vec_csr_read(h, csr, v);
    }
}

static void csr_write(sim_hart *h, unsigned csr, uint64_t v)
{
    switch (csr) {
    case CSR_FFLAGS: h->fcsr = (h->fcsr & ~0x1fu) | (uint32_t)(v & 0x1f); break;
    case CSR_FRM: h->fcsr = (h->fcsr & ~0xe0u) | (uint32_t)((v & 7) << 5); break;
    case CSR_FCSR: h->fcsr = (uint32_t)(v & 0xff); break;
    /* The writing instruction still retires and costs its cycle after
     * this, so the offset leaves the next read at exactly v. */
    case CSR_MCYCLE: h->mcycle_offset = v - h->cycle - SIM_COST_INSN; break;
    case CSR_MINSTRET: h->minstret_offset = v - h->instret - 1; break;
    case CSR_MSTATUS: h->mstatus = v & MSTATUS_WRITABLE; break;
    case CSR_MIE: h->mie = v & MIE_WRITABLE; break;
    case CSR_MTVEC: h->mtvec = v & ~(uint64_t)3; break; /* direct mode only */
    case CSR_MSCRATCH: h->mscratch = v; break;
    case CSR_MEPC: h->mepc = v & ~(uint64_t)1; break; /* IALIGN is 16 */
    case CSR_MCAUSE: h->mcause = v; break;
    case CSR_MTVAL: h->mtval = v; break;
    default: /* misa and mip: WARL, nothing writable */
        if (csr >= 0x7a0 && csr <= 0x7a4) { /* the trigger module */
            sim_trigger_csr_write(h, csr, v);
        } else if (sim_pmp_is_csr(csr)) {
            sim_pmp_csr_write(h, csr, v);
        } else if (sim_vec_is_csr(csr)) {
            sim_vec_csr_write(h, csr, v);
            h->mstatus |= SIM_MSTATUS_VS;
        }
        break;
    }
    if (is_fp_csr(csr))
        h->mstatus |= SIM_MSTATUS_FS;
}

bool sim_hart_csr_read(sim_hart *h, unsigned csr, uint64_t *v)
{
    return csr_read(h, csr, v);
}

int sim_hart_csr(sim_hart *h, const sim_insn *d)
{
    unsigned csr = (unsigned)d->imm & 0xfff;
    unsigned f3 = d->aux;
    /* csrrw/csrrwi write always; set/clear only with a nonzero source */
    bool writes = (f3 & 3) == 1 || d->rs1 != 0;
    uint64_t src = f3 & 4 ? d->rs1 : h->x[d->rs1];
    uint64_t old = 0;

    if (is_fp_csr(csr) && (h->mstatus & SIM_MSTATUS_FS) == 0)
        return SIM_CAUSE_ILLEGAL;
    if (sim_vec_is_csr(csr) && (h->mstatus & SIM_MSTATUS_VS) == 0)
        return SIM_CAUSE_ILLEGAL;
    if (!csr_read(h, csr, &old))
        return SIM_CAUSE_ILLEGAL;
    if (writes && (csr >> 10) == 3) /* csr[11:10] = 3: read-only */
        return SIM_CAUSE_ILLEGAL;
    if (writes) {
        uint64_t v = src;
        if ((f3 & 3) == 2)
            v = old | src;
        else if ((f3 & 3) == 3)
            v = old & ~src;
        csr_write(h, csr, v);
    }
    if (d->rd)
        h->x[d->rd] = old;
    return 0;
}
