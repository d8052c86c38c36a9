/* hart_life: the life of a hart (sim_hart.h) — init and reset, free,
 * wake, halt — and the owner's hold on its decoded code (probes, a
 * flush).  Harts of one memory with the same code range share their
 * decoded code (hart_internal.h, struct sim_icache); init and free keep
 * its users and the sets of execute triggers and locked PMP entries that
 * code carries.  A reset clears the PMP, locked entries too. */
#include <stdlib.h>
#include <string.h>

#include "hart_internal.h"

/* Whether h is in m->harts (then it was initialised before). */
static bool registered(const sim_mem *m, const sim_hart *h)
{
    for (unsigned i = 0; i < m->nharts; i++)
        if (m->harts[i] == h)
            return true;
    return false;
}

/* Gives up h's hold on its decoded code. */
static void drop_icache(sim_hart *h)
{
    if (h->icache && --h->icache->users == 0)
        sim_icache_free(h->icache);
    h->icache = NULL;
}

int sim_hart_init(sim_hart *h, sim_mem *mem, uint32_t hartid, uint64_t reset_pc,
                  uint64_t code_base, uint64_t code_size)
{
    bool known = registered(mem, h);
    if (known)
        drop_icache(h);
    memset(h, 0, sizeof *h);
    h->mem = mem;
    h->hartid = hartid;
    h->pc = reset_pc;
    h->code_base = code_base;
    h->code_size = code_size;
    h->state = SIM_HART_RUNNING;
    for (unsigned i = 0; i < SIM_HART_TRIGGERS; i++)
        h->trig[i].tdata1 = SIM_MC_TYPE2; /* an address-match trigger, off */
    h->vtype = 1ull << 63; /* vill, as RVV recommends at reset */

    /* Harts of one memory with one code range run the same bytes: they
     * share the decoded code (a cluster's four cores decode its image
     * once, and its entries stay warm in the host's caches).  An init
     * follows a load of new code: what the others decoded is dropped. */
    for (unsigned i = 0; i < mem->nharts && !h->icache; i++) {
        sim_hart *o = mem->harts[i];
        if (o != h && o->icache && o->code_base == code_base && o->code_size == code_size) {
            h->icache = o->icache;
            h->icache->users++;
            sim_icache_flush(h->icache);
        }
    }
    if (!h->icache) {
        h->icache = sim_icache_new(code_base, code_size);
        if (!h->icache)
            return -1;
        h->icache->users = 1;
    }

    if (!known) {
        if (mem->nharts >= SIM_MEM_MAX_HARTS) {
            sim_hart_free(h);
            return -1;
        }
        mem->harts[mem->nharts++] = h;
    }
    /* what h armed or locked before its reset is gone from the shared
     * code's sets */
    sim_icache_retrigger(mem, h->icache);
    sim_icache_repmp(mem, h->icache);
    return 0;
}

void sim_hart_free(sim_hart *h)
{
    sim_mem *m = h->mem;
    if (m) {
        for (unsigned i = 0; i < m->nharts; i++) {
            if (m->harts[i] == h) {
                memmove(&m->harts[i], &m->harts[i + 1], (m->nharts - i - 1) * sizeof *m->harts);
                m->nharts--;
                break;
            }
        }
        if (h->icache && h->icache->users > 1) { /* its triggers and locks leave the sets */
            sim_icache_retrigger(m, h->icache);
            sim_icache_repmp(m, h->icache);
        }
    }
    drop_icache(h);
}

void sim_hart_wake(sim_hart *h)
{
    if (h->state == SIM_HART_WFI)
        h->state = SIM_HART_RUNNING;
}

void sim_hart_halt(sim_hart *h)
{
    h->state = SIM_HART_HALTED;
}

int sim_hart_set_probes(sim_hart *h, const uint64_t *pcs, unsigned n)
{
    return h->icache ? sim_icache_set_probes(h->icache, pcs, n) : -1;
}

void sim_hart_flush_icache(sim_hart *h)
{
    if (h->icache)
        sim_icache_flush(h->icache);
}
