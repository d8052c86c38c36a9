/* sim_cluster_debug: an observed cluster (sim_cluster.h, hooks) — the
 * hart's probes, watches and trap hook turned into the card's events
 * (sim_card_debug.h), and the run of a core that keeps them exact.
 *
 * Changing probes or watches drops the decoded code the core is running
 * from, which cannot happen under its feet: an event that changed them
 * ends the core's run before its instruction (the hart's probe and watch
 * callbacks may ask that), the run loop here installs the new sets and
 * runs the core on.  Ending a run early and running on is the same run,
 * cycle for cycle (the hart stops exactly before an instruction), so no
 * modeled time moves.  The core then meets the same probe or watch again
 * at the same instruction: `skip` says it was reported.  A pc the event
 * wrote (a debugger's jump) ends the run the same way, which puts the
 * hart's own pc back; the run loop then sets the new one (`moved`). */
#include <stdatomic.h>
#include <stdlib.h>

#include "sim_clock.h"
#include "sim_cluster.h"
#include "sim_profile.h"

static unsigned core_of(const sim_hart *h)
{
    return h->hartid & (BH_CLUSTER_CORES - 1u);
}

static sim_card_event event_at(sim_cluster *c, sim_hart *h, sim_card_event_kind kind)
{
    return (sim_card_event){
        .kind = kind,
        .cluster = c->m.cluster,
        .core = core_of(h),
        .pc = h->pc,
        .ps = sim_cycles_to_ps(sim_cluster_mem_time(&c->m, h), c->m.mhz),
    };
}

static bool has_pc(const uint64_t *pcs, unsigned n, uint64_t pc)
{
    unsigned lo = 0, hi = n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (pcs[mid] == pc)
            return true;
        if (pcs[mid] < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Whether the core's event at this instruction was reported already. */
static bool skipped(sim_cluster_hooks *k, const sim_hart *h, bool probe)
{
    struct sim_cluster_skip *s = &k->skip[core_of(h)];
    if (s->pc != h->pc || s->instret != h->instret)
        return false;
    return probe ? s->probe : s->watch;
}

/* After an event: when it changed the sets, end the core's run before the
 * instruction, and remember not to report it again. */
static bool end_run_after(sim_cluster_hooks *k, const sim_hart *h, bool probe)
{
    if (!k->dirty)
        return false;
    struct sim_cluster_skip *s = &k->skip[core_of(h)];
    if (s->pc != h->pc || s->instret != h->instret)
        *s = (struct sim_cluster_skip){.pc = h->pc, .instret = h->instret};
    if (probe)
        s->probe = true;
    else
        s->watch = true;
    return true;
}

/* After an event at `at`: whether the observer wrote the core's pc (kept
 * for sim_cluster_run_observed, the hart's put back: the run ends). */
static bool moved(sim_cluster_hooks *k, sim_hart *h, uint64_t at)
{
    if (h->pc == at)
        return false;
    k->moved[core_of(h)] = (struct sim_cluster_moved){.set = true, .pc = h->pc};
    h->pc = at;
    return true;
}

static bool on_probe(void *ctx, sim_hart *h)
{
    sim_cluster *c = ctx;
    sim_cluster_hooks *k = c->hooks;
    if (!k || skipped(k, h, true))
        return false;
    sim_card_event ev = event_at(c, h, SIM_CARD_AT_PROBE);
    for (unsigned who = 0; who < SIM_CARD_OBSERVERS; who++)
        if (has_pc(k->probes[who], k->nprobes[who], ev.pc))
            k->event(k->ctx, (sim_card_observer)who, &ev);
    bool jump = moved(k, h, ev.pc);
    return end_run_after(k, h, true) || jump;
}

static bool on_watch(void *ctx, sim_hart *h, unsigned index, bool store)
{
    sim_cluster *c = ctx;
    sim_cluster_hooks *k = c->hooks;
    if (!k || skipped(k, h, false))
        return false;
    sim_card_event ev = event_at(c, h, SIM_CARD_AT_WATCH);
    ev.watch = index;
    ev.store = store;
    k->event(k->ctx, SIM_CARD_DEBUGGER, &ev);
    bool jump = moved(k, h, ev.pc);
    return end_run_after(k, h, false) || jump;
}

static bool on_trap(void *ctx, sim_hart *h, uint64_t cause, uint64_t tval)
{
    sim_cluster *c = ctx;
    sim_cluster_hooks *k = c->hooks;
    if (!k || !k->catch_traps)
        return false;
    sim_card_event ev = event_at(c, h, SIM_CARD_AT_TRAP);
    ev.cause = cause;
    ev.tval = tval;
    k->event(k->ctx, SIM_CARD_DEBUGGER, &ev);
    return k->dirty; /* the run ends after the trap is taken */
}

/* The union of the observers' probes, sorted, without repeats; NULL with
 * *n 0 when there are none or memory is lacking (*ok false then). */
static uint64_t *all_probes(const sim_cluster_hooks *k, unsigned *n, bool *ok)
{
    unsigned total = 0;
    for (unsigned who = 0; who < SIM_CARD_OBSERVERS; who++)
        total += k->nprobes[who];
    *n = 0;
    *ok = true;
    if (total == 0)
        return NULL;
    uint64_t *all = malloc(total * sizeof *all);
    if (!all) {
        *ok = false;
        return NULL;
    }
    /* merge the sorted sets */
    unsigned at[SIM_CARD_OBSERVERS] = {0};
    for (;;) {
        uint64_t next = UINT64_MAX;
        bool any = false;
        for (unsigned who = 0; who < SIM_CARD_OBSERVERS; who++)
            if (at[who] < k->nprobes[who] && (!any || k->probes[who][at[who]] < next)) {
                next = k->probes[who][at[who]];
                any = true;
            }
        if (!any)
            break;
        for (unsigned who = 0; who < SIM_CARD_OBSERVERS; who++)
            if (at[who] < k->nprobes[who] && k->probes[who][at[who]] == next)
                at[who]++;
        all[(*n)++] = next;
    }
    return all;
}

void sim_cluster_hooks_install(sim_cluster *c)
{
    sim_cluster_hooks *k = c->hooks;
    if (k && k->leave) {
        /* nobody observes any more: the cores run as if nobody ever had */
        if (k->installed_watches != k->watches) {
            free(k->installed_watches);
            k->installed_watches = k->watches;
        }
        k->leave = k->dirty = k->probes_dirty = false;
        c->hooks = k = NULL;
    }
    unsigned n = 0;
    bool ok = true;
    bool probes = !k || k->probes_dirty;
    uint64_t *pcs = k && probes ? all_probes(k, &n, &ok) : NULL;
    if (!k || !probes)
        n = 0;
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        sim_hart *h = &c->harts[i];
        if (!c->started[i])
            continue;
        /* harts that share decoded code share the set: setting it again
         * for each is cheap next to decoding */
        if (probes)
            (void)sim_hart_set_probes(h, pcs, n);
        h->probe = k ? on_probe : NULL;
        h->probe_ctx = c;
        h->watches = k ? k->watches : NULL;
        h->nwatches = k ? k->nwatches : 0;
        h->watch = k ? on_watch : NULL;
        h->watch_ctx = c;
        /* only while traps are caught: a trap loop nobody sees may park */
        h->on_trap = k && k->catch_traps ? on_trap : NULL;
        h->trap_ctx = c;
    }
    free(pcs);
    if (k && k->installed_watches != k->watches) {
        free(k->installed_watches);
        k->installed_watches = k->watches;
    }
    if (k && ok)
        k->dirty = k->probes_dirty = false;
}

void sim_cluster_run_observed(sim_cluster *c, unsigned core, uint64_t until)
{
    sim_cluster_hooks *k = c->hooks;
    sim_hart *h = &c->harts[core];
    while (h->state == SIM_HART_RUNNING && h->cycle < until) {
        if (k->dirty)
            sim_cluster_hooks_install(c); /* (c->hooks NULL when they left) */
        if (c->hooks && (k->stepping & (1u << core))) {
            uint64_t instret = h->instret, traps = h->traps;
            if (c->profile[core]) /* one instruction starts before the limit */
                sim_profile_run(c->profile[core], h, h->cycle + 1, c->m.offset[core]);
            else
                sim_hart_run(h, h->cycle + 1);
            if (h->instret != instret || h->traps != traps) {
                sim_card_event ev = event_at(c, h, SIM_CARD_AT_STEP);
                k->event(k->ctx, SIM_CARD_DEBUGGER, &ev);
            }
        } else if (c->profile[core]) {
            sim_profile_run(c->profile[core], h, until, c->m.offset[core]);
        } else if (c->trace_cores & (1u << core)) {
            sim_cluster_run_traced(c, core, until);
        } else {
            sim_hart_run(h, until);
        }
        if (k->moved[core].set) { /* it ended before the instruction */
            h->pc = k->moved[core].pc;
            k->moved[core].set = false;
        }
    }
}

void sim_cluster_observe_core(sim_cluster *c, sim_card_event_kind kind)
{
    sim_cluster_hooks *k = c->hooks;
    unsigned core = 0;
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++)
        if (c->started[i] && c->harts[i].state == SIM_HART_RUNNING) {
            core = i;
            break;
        }
    sim_card_event ev = event_at(c, &c->harts[core], kind);
    k->event(k->ctx, SIM_CARD_DEBUGGER, &ev);
}

void sim_cluster_observe_pause(sim_cluster *c)
{
    sim_cluster_hooks *k = c->hooks;
    if (k->pause && atomic_exchange_explicit(k->pause, false, memory_order_acq_rel))
        sim_cluster_observe_core(c, SIM_CARD_AT_PAUSE);
}
