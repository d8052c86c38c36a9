/* sim_cluster.c: a cluster's harts and the quanta that step them
 * (sim_cluster.h). */
#include "sim_cluster.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim_clock.h"
#include "sim_profile.h"

/* Idle parking: below, where it is explained.  A hart parked for fewer
 * quanta than IDLE_SHORT_QUANTA backs off as after a failed try; a
 * longer wait resets its backoff. */
#define IDLE_SHORT_QUANTA 8u
static bool loads_same(const sim_cluster *c, const sim_idle *p);
static void park_hart(sim_cluster *c, unsigned i, uint64_t end);
static void idle_later(sim_cluster *c, unsigned i, uint64_t end);
static void unpark_hart(sim_cluster *c, unsigned i);
static void unpark(sim_cluster *c);
static void before_write(sim_cluster_mem *cm);

int sim_cluster_create(sim_cluster **out, sim_dram *dram, unsigned cluster, unsigned mhz,
                       ks_error *err)
{
    *out = NULL;
    sim_cluster *c = calloc(1, sizeof *c);
    if (c == NULL) {
        return ks_fail(err, KS_ERR_SYSTEM, "out of memory for X280 cluster %u", cluster);
    }
    int status = sim_cluster_mem_init(&c->m, dram, cluster, mhz, err);
    if (status != KS_OK) {
        free(c);
        return status;
    }
    c->m.before_write = before_write;
    *out = c;
    return KS_OK;
}

int sim_cluster_attach_noc(sim_cluster *c, struct sim_noc *noc, ks_error *err)
{
    return sim_cluster_mem_attach_noc(&c->m, noc, err);
}

void sim_cluster_destroy(sim_cluster *c)
{
    if (c == NULL) {
        return;
    }
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        if (c->started[i]) {
            sim_hart_free(&c->harts[i]);
        }
    }
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++)
        sim_profile_free(c->profile[i]);
    sim_cluster_mem_free(&c->m);
    free(c);
}

int sim_cluster_write_lim(sim_cluster *c, uint64_t addr, const void *src, uint64_t n,
                          ks_error *err)
{
    return sim_cluster_mem_write_lim(&c->m, addr, src, n, err);
}

int sim_cluster_read_lim(const sim_cluster *c, uint64_t addr, void *dst, uint64_t n,
                         ks_error *err)
{
    return sim_cluster_mem_read_lim(&c->m, addr, dst, n, err);
}

void sim_cluster_request_stop(sim_cluster *c)
{
    uint32_t stop = KMX_STOP_HOST;
    (void)sim_cluster_mem_write_lim(&c->m, KMX_LIM_STOP + offsetof(kmx_stop_line, stop), &stop,
                                    sizeof stop, NULL);
}

int sim_cluster_reset_harts(sim_cluster *c, uint64_t pc, ks_error *err)
{
    unpark(c);
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        sim_hart *h = &c->harts[i];
        if (c->started[i]) {
            sim_hart_free(h);
            c->started[i] = false;
        }
        if (sim_hart_init(h, &c->m.mem, i, pc, KMX_LIM_IMAGE, BH_IMAGE_MAX_BYTES) != 0) {
            return ks_fail(err, KS_ERR_SYSTEM, "cannot start core %u of X280 cluster %u", i,
                           c->m.cluster);
        }
        c->started[i] = true;
        if (c->profile[i]) {
            sim_profile_clear(c->profile[i]); /* its counters start again */
            if (sim_profile_failed(c->profile[i])) /* its tables: none to count into */
                return ks_fail(err, KS_ERR_SYSTEM,
                               "out of memory for the profile of X280 core %u.%u", c->m.cluster,
                               i);
        }
        /* Its clock starts at the cluster's time; its cycle count at 0. */
        c->m.offset[i] = c->m.now - h->cycle;
        sim_streams_init(&c->m.streams[i]);
        sim_prefetch_forget(&c->m.pf[i]); /* its registers stay */
    }
    return KS_OK;
}

/* A hart that is not running spends the time up to t waiting. */
static void wait_until(sim_cluster *c, unsigned i, uint64_t t)
{
    const sim_hart *h = &c->harts[i];
    if (h->state != SIM_HART_RUNNING && h->cycle + c->m.offset[i] < t) {
        c->m.offset[i] = t - h->cycle;
    }
}

/* Harts 0..3 in turn up to `end`; then, as wait_until, a hart not running
 * spends the rest waiting.  (A running hart past `end` after an access
 * just sits out; the offset is the scheduler's alone, so it is read once.) */
static void run_quantum(sim_cluster *c, uint64_t end)
{
    /* (a hart that runs may store: the next quantum checks again) */
    c->idle_unsure = false;
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        if (!c->started[i]) {
            continue;
        }
        sim_hart *h = &c->harts[i];
        if (c->idle_parked[i]) {
            if (end <= c->idle_horizon[i] && loads_same(c, &c->idle_proof[i])) {
                c->idle_quanta++;
                continue; /* its turn is the proven one */
            }
            unpark_hart(c, i); /* up to the quantum's start */
            if (end - c->idle_since[i] < IDLE_SHORT_QUANTA * SIM_CLUSTER_QUANTUM)
                idle_later(c, i, end); /* a short wait: parking it cost more */
            else
                c->idle_backoff[i] = 0;
        }
        uint64_t offset = c->m.offset[i];
        if (h->state == SIM_HART_RUNNING) {
            if (h->cycle + offset < end) {
                c->idle_unsure = true;
                if (c->hooks)
                    sim_cluster_run_observed(c, i, end - offset);
                else if (c->profile[i])
                    sim_profile_run(c->profile[i], h, end - offset, offset);
                else if (c->trace_cores & (1u << i))
                    sim_cluster_run_traced(c, i, end - offset);
                else
                    sim_hart_run(h, end - offset);
                if (h->state == SIM_HART_RUNNING) {
                    park_hart(c, i, end);
                    continue;
                }
            } else {
                continue;
            }
        }
        if (h->cycle + offset < end) {
            c->m.offset[i] = end - h->cycle;
        }
    }
}

int sim_cluster_profile(sim_cluster *c, ks_error *err)
{
    unpark(c);
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        if (!c->profile[i] && !(c->profile[i] = sim_profile_new()))
            return ks_fail(err, KS_ERR_SYSTEM, "out of memory for the profile of X280 core %u.%u",
                           c->m.cluster, i);
    }
    return KS_OK;
}

const struct sim_profile *sim_cluster_profile_of(const sim_cluster *c, unsigned core)
{
    return core < BH_CLUSTER_CORES ? c->profile[core] : NULL;
}

void sim_cluster_trace(sim_cluster *c, unsigned cores, sim_trace_fn fn, void *ctx)
{
    unpark(c);
    c->trace_cores = fn ? cores & ((1u << BH_CLUSTER_CORES) - 1) : 0;
    c->trace = fn;
    c->trace_ctx = ctx;
}

/* A traced core's records, with the cluster and the core. */
struct traced {
    sim_cluster *c;
    unsigned core;
};

static bool on_record(void *ctx, const sim_commit *commit)
{
    const struct traced *t = ctx;
    return t->c->trace(t->c->trace_ctx, t->c->m.cluster, t->core, commit);
}

void sim_cluster_run_traced(sim_cluster *c, unsigned core, uint64_t until_cycle)
{
    struct traced t = {c, core};
    if (!sim_hart_run_recorded(&c->harts[core], until_cycle, c->m.offset[core], on_record, &t))
        c->trace_cores &= ~(1u << core); /* its trace stopped: it runs on untraced */
}

/* Idle parking.  A hart in a proven wait loop (sim_hart_idle_prove: it
 * loads only LIM and mtime, stores nothing) does what the bytes it loads
 * say, and nothing else: while they stay as they were, each of its
 * quanta is the proven one, so the cluster parks it — its turns pass
 * without running it, its registers and counts stay as of the proof —
 * and, before each of its turns, compares those bytes with what the proof
 * read (a few words).  That is exactly when it would first have seen a
 * store: one by a hart before it in the quantum, or by anyone since its
 * last turn.  When they differ, when its proof's bound (a deadline, a
 * counter's wrap) comes, or when anyone looks at or changes a hart
 * (sim_cluster_hart, the stats, a reset, a trace), it is brought up to
 * the cluster's time (unpark_hart): a hart's own timeline does not depend
 * on where quanta cut it, only on what it reads, so one arithmetic skip of
 * whole periods and one run to that time, with the bytes it read put back
 * for the run, give the same registers, cycles, instret and memory cycles
 * as quantum by quantum.  A parked hart stores nothing, so when every
 * running hart is parked, the cluster has passed a whole quantum that
 * way, and nothing has written LIM from outside since (before_write: the
 * host, the dispatcher, the NoC), quanta pass at once.  Never while a core
 * is traced or a hand-over checker looks.  A hart whose proof fails is
 * tried again twice as late, up to IDLE_BACKOFF_MAX quanta, so busy code
 * pays for few tries; so is one whose wait was short. */
#define IDLE_BACKOFF_MAX 256u

/* The bytes p's loads read, as they are now, at their host addresses. */
static uint8_t *load_at(const sim_cluster *c, const struct sim_idle_load *l)
{
    return c->m.lim + (l->addr - BH_LIM_BASE);
}

static bool loads_same(const sim_cluster *c, const sim_idle *p)
{
    for (unsigned k = 0; k < p->nloads; k++)
        if (sim_mem_get(load_at(c, &p->loads[k]), p->loads[k].size) != p->loads[k].value)
            return false;
    return true;
}

/* Hart i's next try at `end` plus twice the last wait. */
static void idle_later(sim_cluster *c, unsigned i, uint64_t end)
{
    uint64_t b = c->idle_backoff[i];
    b = b ? 2 * b : 1;
    c->idle_backoff[i] = b < IDLE_BACKOFF_MAX ? b : IDLE_BACKOFF_MAX;
    c->idle_retry[i] = end + c->idle_backoff[i] * SIM_CLUSTER_QUANTUM;
}

/* Tries to park hart i (running, after its turn in the quantum ending at
 * `end`). */
static void park_hart(sim_cluster *c, unsigned i, uint64_t end)
{
    if (end < c->idle_retry[i] || c->trace_cores || c->m.checker)
        return;
    const sim_hart *h = &c->harts[i];
    /* an observer (a debugger, the timeline) sees every instruction run:
     * under one, only a core that runs none parks (a trap loop whose traps
     * nobody catches), when it is not stepped and nothing is to change */
    const sim_cluster_hooks *hooks = c->hooks;
    if (hooks && (hooks->dirty || (hooks->stepping & (1u << i)) || !sim_hart_trap_loop(h, NULL)))
        return;
    sim_idle *p = &c->idle_proof[i];
    bool ok = sim_hart_idle_prove(h, p);
    for (unsigned k = 0; ok && k < p->nloads; k++) /* only LIM: the cluster's RAM */
        ok = p->loads[k].addr - BH_LIM_BASE < BH_LIM_BYTES;
    /* periods 0 .. max_periods are proven: up to the start of the last,
     * in the cluster's time, to a quantum's end */
    uint64_t horizon = ok ? (h->cycle + c->m.offset[i] + p->prefix_cycles +
                             p->max_periods * p->period_cycles) /
                                SIM_CLUSTER_QUANTUM * SIM_CLUSTER_QUANTUM
                          : 0;
    if (horizon <= end) {
        idle_later(c, i, end);
        return;
    }
    c->idle_horizon[i] = horizon;
    c->idle_since[i] = end;
    c->idle_parked[i] = true;
}

/* Parked hart i, up to the cluster's time: the bytes its proof read put
 * back while it runs there (it only loads), then what is there now. */
static void unpark_hart(sim_cluster *c, unsigned i)
{
    if (!c->idle_parked[i])
        return;
    c->idle_parked[i] = false;
    const sim_idle *p = &c->idle_proof[i];
    sim_hart *h = &c->harts[i];
    uint64_t until = c->m.now - c->m.offset[i];
    uint64_t now[SIM_IDLE_LOADS_MAX];
    for (unsigned k = 0; k < p->nloads; k++) {
        now[k] = sim_mem_get(load_at(c, &p->loads[k]), p->loads[k].size);
        sim_mem_put(load_at(c, &p->loads[k]), p->loads[k].size, p->loads[k].value);
    }
    if (c->profile[i]) { /* the same, each step counted */
        (void)sim_profile_idle_skip(c->profile[i], h, p, until, c->m.offset[i]);
        if (h->cycle < until)
            sim_profile_run(c->profile[i], h, until, c->m.offset[i]);
    } else {
        (void)sim_hart_idle_skip(h, p, until);
        if (h->cycle < until)
            sim_hart_run(h, until);
    }
    for (unsigned k = p->nloads; k-- > 0;)
        sim_mem_put(load_at(c, &p->loads[k]), p->loads[k].size, now[k]);
}

static void unpark(sim_cluster *c)
{
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++)
        unpark_hart(c, i);
}

static void before_write(sim_cluster_mem *cm)
{
    ((sim_cluster *)((char *)cm - offsetof(sim_cluster, m)))->idle_unsure = true;
}

/* Every running hart parked, and all of them seen since anyone wrote:
 * the cluster time up to which the quanta pass at once (else now). */
static uint64_t parked_until(const sim_cluster *c)
{
    if (c->idle_unsure)
        return c->m.now;
    uint64_t to = UINT64_MAX;
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        if (!c->started[i] || c->harts[i].state != SIM_HART_RUNNING)
            continue;
        if (!c->idle_parked[i])
            return c->m.now;
        if (c->idle_horizon[i] < to)
            to = c->idle_horizon[i];
    }
    return to == UINT64_MAX ? c->m.now : to; /* (none running: idle, not parked) */
}

uint64_t sim_cluster_parked_to(const sim_cluster *c)
{
    if (c->hooks)
        return 0;
    uint64_t to = parked_until(c);
    return to > c->m.now ? to : 0;
}

/* The quanta from now to `to` passed parked (sim_cluster_step_cycles's
 * first case). */
static void pass_parked(sim_cluster *c, uint64_t to)
{
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        if (c->idle_parked[i])
            c->idle_quanta += (to - c->m.now) / SIM_CLUSTER_QUANTUM;
        else if (c->started[i])
            wait_until(c, i, to);
    }
    c->m.now = to;
}

void sim_cluster_pass_parked(sim_cluster *c, uint64_t to)
{
    if (to > c->m.now)
        pass_parked(c, to);
}

void sim_cluster_step_cycles(sim_cluster *c, uint64_t until)
{
    until = (until + SIM_CLUSTER_QUANTUM - 1u) / SIM_CLUSTER_QUANTUM * SIM_CLUSTER_QUANTUM;
    while (c->m.now < until) {
        uint64_t to = parked_until(c);
        if (to > c->m.now) {
            /* every running hart parked: the quanta pass, and a waiting
             * hart's clock keeps up */
            pass_parked(c, to < until ? to : until);
            continue;
        }
        if (!sim_cluster_busy(c)) {
            /* Nothing inside the cluster can wake a hart (no interrupts):
             * the quanta up to `until` would all be empty. */
            for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
                if (c->started[i]) {
                    wait_until(c, i, until);
                }
            }
            c->m.now = until;
            break;
        }
        uint64_t end = c->m.now + SIM_CLUSTER_QUANTUM;
        if (c->hooks && c->hooks->leave)
            sim_cluster_hooks_install(c); /* between quanta: nobody observes now */
        if (c->hooks)
            sim_cluster_observe_pause(c);
        run_quantum(c, end);
        c->m.now = end;
    }
}

void sim_cluster_step(sim_cluster *c, uint64_t until_ps)
{
    sim_cluster_step_cycles(c, sim_ps_to_cycles_ceil(until_ps, c->m.mhz));
}

uint64_t sim_cluster_now_ps(const sim_cluster *c)
{
    return sim_cycles_to_ps(c->m.now, c->m.mhz);
}

uint64_t sim_cluster_mtime(const sim_cluster *c)
{
    return sim_ps_to_mtime(sim_cluster_now_ps(c));
}

sim_hart *sim_cluster_hart(sim_cluster *c, unsigned core)
{
    unpark(c);
    return core < BH_CLUSTER_CORES ? &c->harts[core] : NULL;
}

bool sim_cluster_busy(const sim_cluster *c)
{
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        if (c->started[i] && c->harts[i].state == SIM_HART_RUNNING) {
            return true;
        }
    }
    return false;
}

sim_cache *sim_cluster_cache(sim_cluster *c)
{
    return &c->m.cache;
}

void sim_cluster_get_stats(sim_cluster *c, sim_card_cluster_stats *out,
                           uint64_t noc[SIM_NOC_TENSIX + 1])
{
    unpark(c);
    memset(out, 0, sizeof *out);
    out->present = true;
    for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
        const sim_hart *h = &c->harts[i];
        out->cores[i] = (sim_card_core_stats){h->instret, h->cycle, h->mem_cycles};
    }
    const sim_cluster_mem *m = &c->m;
    const sim_cache_stats *cs = &m->cache.stats;
    out->cache_hits = cs->hits;
    out->cache_misses = cs->misses;
    out->write_backs = cs->evictions + cs->flushed_dirty;
    for (unsigned b = 0; b < BH_DRAM_BANKS; b++) {
        out->bank_read[b] = m->stats.bank_read[b];
        out->bank_written[b] = m->stats.bank_written[b];
    }
    /* The cache's lines come from and go to the cluster's own bank. */
    out->bank_read[m->bank] += cs->misses * BH_LINE_BYTES;
    out->bank_written[m->bank] += out->write_backs * BH_LINE_BYTES;
    memcpy(noc, m->stats.noc_bytes, sizeof m->stats.noc_bytes);
}

bool sim_cluster_failed(const sim_cluster *c, ks_error *err)
{
    if (c->m.failed && err != NULL) {
        *err = c->m.failure;
    }
    return c->m.failed;
}
