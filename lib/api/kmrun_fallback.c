/* kmrun_fallback: the public C API's host fallbacks given as functions
 * (include/kmrun.h, "Host fallbacks given as functions").  The thread is
 * built from the fallback runtime's kmx_fallback.c, whose kmx_main calls
 * the hook the host backend sets to `call` below (kmx_host.h); `call`
 * hands the host's function the thread's regions, words and ring, and
 * the ring calls go to the runtime's own kmx_submit, kmx_wait and
 * kmx_poll, so a function keeps every rule a thread built from sources
 * keeps.  Events of other handles than the one waited for are kept here
 * for a later wait or poll of theirs, as kmx_wait keeps them for
 * kmx_poll. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "km_handlers.h"
#include "ks_grow.h"
#include "ks_text.h"
#include "kmx.h" /* the ring's status codes */

/* Events taken and not yet asked for, by handle (a thread's ring holds at
 * most KMX_RING_KEPT waiting; a few more than that). */
#define KEPT_MAX 64u

struct kmrun_fallback_run {
    const km_program *p;
    kmx_host_fallback_io *io;
    km_event_t kept[KEPT_MAX];
    unsigned nkept;
    /* Whether each handle's command asked for the leader's word: by
     * handle, grown as the function submits. */
    bool *result;
    size_t nresult;
};

static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

/* The thread's region names by id: own regions, then shared ones. */
static unsigned region_names(const km_thread *t, const char **names)
{
    unsigned n = 0;
    for (size_t i = 0; i < t->nregions && n < KMX_MAX_REGIONS; i++)
        names[n++] = t->regions[i].name;
    for (size_t i = 0; i < t->nshared && n < KMX_MAX_REGIONS; i++)
        names[n++] = t->shared[i];
    return n;
}

/* The hook's call (kmx_host_fallback_hook): the host's function on the
 * thread's regions, words and ring. */
static int call(void *ctx, kmx_host_fallback_io *io)
{
    const km_api_fallback *f = ctx;
    const km_program *p = f->program->p;
    const km_thread *t = km_program_thread_on(p, (int)io->cluster);
    const char *names[KMX_MAX_REGIONS] = {0};
    unsigned nnames = t ? region_names(t, names) : 0;
    size_t bytes[KMX_MAX_REGIONS];
    unsigned banks[KMX_MAX_REGIONS];
    for (uint32_t i = 0; i < io->nregions; i++) {
        bytes[i] = (size_t)io->bytes[i];
        banks[i] = io->bank[i];
        if (i >= nnames)
            names[i] = "";
    }
    kmrun_fallback_run run = {.p = p, .io = io};
    kmrun_fallback_args a = {
        .cluster = (int)io->cluster,
        .nregions = io->nregions,
        .regions = io->region,
        .region_bytes = bytes,
        .region_names = names,
        .region_banks = banks,
        .region_addresses = io->address,
        .words = io->words,
        .nwords = io->nwords,
        .run = &run,
    };
    unsigned nout = KMX_MAX_RESULT_WORDS;
    int32_t code = f->fn(&a, io->out, &nout, f->ctx);
    io->nout = nout > KMX_MAX_RESULT_WORDS ? KMX_MAX_RESULT_WORDS : nout;
    free(run.result);
    return code;
}

kmrun_status kmrun_program_host_fallback(kmrun_program *p, int cluster, kmrun_host_fallback fn,
                                         void *ctx, kmrun_error **err)
{
    clear(err);
    if (!p)
        return km_api_usage(err, "kmrun_program_host_fallback: the program is NULL");
    const km_thread *t = km_program_thread_on(p->p, cluster);
    if (!t)
        return km_api_usage(err, "program %s has no thread on cluster %d",
                            KS_QUOTED(p->p->name), cluster);
    size_t i = (size_t)(t - p->p->threads);
    if (i >= BH_WORK_CLUSTERS)
        return km_api_error(err, KMRUN_INTERNAL, "a thread past the third");
    p->fallbacks[i] = (km_api_fallback){.program = p, .fn = fn, .ctx = ctx};
    km_api_fallbacks_apply(p);
    return KMRUN_OK;
}

void km_api_fallbacks_apply(kmrun_program *p)
{
    for (size_t i = 0; i < p->p->nthreads && i < BH_WORK_CLUSTERS; i++) {
        km_api_fallback *f = &p->fallbacks[i];
        p->p->threads[i].fallback = f->fn ? (kmx_host_fallback){call, f}
                                          : (kmx_host_fallback){NULL, NULL};
    }
}

/* ---- The function's ring ---------------------------------------------------- */

/* A ring call's status other than KMX_OK, as the API says it. */
static kmrun_status ring_failed(int rc, const char *what, kmrun_error **err)
{
    if (rc == KMX_STOPPED)
        return km_api_error(err, KMRUN_FAILED, "the thread was asked to stop: return from the "
                                               "host fallback");
    if (rc == KMX_LATE)
        return km_api_error(err, KMRUN_FAILED, "the thread's deadline passed: return from the "
                                               "host fallback");
    if (rc == KMX_FULL)
        return km_api_usage(err, "%s: the thread's command ring is full (wait for a command "
                                 "first)", what);
    return km_api_usage(err, "%s: refused by the ring (%d)", what, rc);
}

kmrun_status kmrun_fallback_submit(kmrun_fallback_run *run, const kmrun_command *c,
                                   uint64_t *handle, kmrun_error **err)
{
    clear(err);
    if (handle)
        *handle = 0;
    if (!run || !c || !handle)
        return km_api_usage(err, "kmrun_fallback_submit: %s is NULL",
                            !run ? "the run" : !c ? "the command" : "handle");
    km_host_command hc;
    kmrun_status st = km_api_command(run->p, c, &hc, err);
    if (st != KMRUN_OK)
        return st;
    km_command_t line = km_host_command_line(&hc);
    uint32_t h = 0;
    int rc = run->io->submit(&line, &h);
    if (rc != KMX_OK)
        return ring_failed(rc, "a command cannot be submitted", err);
    if (!KS_GROW_ZEROED(run->result, run->nresult, (size_t)h + 1))
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a command");
    run->result[h] = c->result;
    *handle = h;
    return KMRUN_OK;
}

static void fate(const kmrun_fallback_run *run, const km_event_t *e, kmrun_command_result *out)
{
    memset(out, 0, sizeof *out);
    out->ended = true;
    out->event = e->kind == KM_EVENT_DONE      ? "done"
                 : e->kind == KM_EVENT_TIMEOUT ? "timeout"
                                               : "rejected";
    out->reason = e->kind == KM_EVENT_REJECTED ? e->reason : 0;
    bool word = e->kind == KM_EVENT_DONE && e->handle < run->nresult && run->result[e->handle];
    out->has_result = word;
    out->result = word ? e->ticks : 0;
    /* Without the word, the event's ticks are the command's own time. */
    out->microseconds = word ? -1 : (double)e->ticks * 1e6 / (double)BH_TICKS_PER_SECOND;
}

/* The kept event of `handle`, taken out into *out; false when none is
 * kept. */
static bool take_kept(kmrun_fallback_run *run, uint64_t handle, kmrun_command_result *out)
{
    for (unsigned i = 0; i < run->nkept; i++) {
        if (run->kept[i].handle == handle) {
            fate(run, &run->kept[i], out);
            memmove(run->kept + i, run->kept + i + 1, (--run->nkept - i) * sizeof run->kept[0]);
            return true;
        }
    }
    return false;
}

static kmrun_status ring_call(kmrun_fallback_run *run, uint64_t handle, kmrun_command_result *out,
                              const char *fn, kmrun_error **err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!run || !out)
        return km_api_usage(err, "%s: %s is NULL", fn, !run ? "the run" : "out");
    if (handle == 0 || handle > UINT32_MAX || handle >= run->nresult)
        return km_api_usage(err, "no command %llu submitted by this host fallback",
                            (unsigned long long)handle);
    out->microseconds = -1;
    return KMRUN_OK;
}

kmrun_status kmrun_fallback_wait(kmrun_fallback_run *run, uint64_t handle, double timeout_seconds,
                                 kmrun_command_result *out, kmrun_error **err)
{
    clear(err);
    kmrun_status st = ring_call(run, handle, out, "kmrun_fallback_wait", err);
    uint64_t ps = 0;
    if (st == KMRUN_OK && timeout_seconds == 0)
        st = km_api_usage(err, "invalid timeout 0 seconds (expected more than 0 and at most %g)",
                          KM_SECONDS_MAX);
    if (st == KMRUN_OK)
        st = km_api_timeout(timeout_seconds, 0, &ps, err);
    if (st != KMRUN_OK)
        return st;
    if (take_kept(run, handle, out))
        return KMRUN_OK;
    km_event_t e;
    uint64_t ticks = ps / (BH_PS_PER_SECOND / BH_TICKS_PER_SECOND);
    uint64_t deadline = run->io->time() + (ticks ? ticks : 1);
    int rc = run->io->wait((uint32_t)handle, deadline, &e);
    if (rc == KMX_LATE && run->io->time() >= deadline && !run->io->stop_requested())
        return KMRUN_OK; /* the call's own deadline: not ended */
    if (rc != KMX_OK)
        return ring_failed(rc, "a command cannot be waited for", err);
    fate(run, &e, out);
    return KMRUN_OK;
}

kmrun_status kmrun_fallback_poll(kmrun_fallback_run *run, uint64_t handle,
                                 kmrun_command_result *out, kmrun_error **err)
{
    clear(err);
    kmrun_status st = ring_call(run, handle, out, "kmrun_fallback_poll", err);
    if (st != KMRUN_OK)
        return st;
    if (take_kept(run, handle, out))
        return KMRUN_OK;
    km_event_t e;
    for (;;) {
        int rc = run->io->poll(&e);
        if (rc == KMX_EMPTY)
            return KMRUN_OK;
        if (rc != KMX_OK)
            return ring_failed(rc, "a command cannot be polled", err);
        if (e.kind == KMX_EVENT_WAKE)
            continue;
        if (e.handle == handle) {
            fate(run, &e, out);
            return KMRUN_OK;
        }
        if (run->nkept < KEPT_MAX)
            run->kept[run->nkept++] = e;
    }
}

bool kmrun_fallback_stop_requested(const kmrun_fallback_run *run)
{
    return run && run->io->stop_requested();
}

static kmrun_status hand_over(kmrun_fallback_run *run, unsigned id, bool flush, kmrun_error **err)
{
    clear(err);
    const char *fn = flush ? "kmrun_fallback_flush" : "kmrun_fallback_invalidate";
    if (!run)
        return km_api_usage(err, "%s: the run is NULL", fn);
    if (id >= run->io->nregions)
        return km_api_usage(err, "%s: the thread on cluster %u has no region %u (it has %u)", fn,
                            run->io->cluster, id, run->io->nregions);
    int rc = flush ? run->io->flush(id) : run->io->invalidate(id);
    return rc == KMX_OK ? KMRUN_OK : ring_failed(rc, fn, err);
}

kmrun_status kmrun_fallback_flush(kmrun_fallback_run *run, unsigned id, kmrun_error **err)
{
    return hand_over(run, id, true, err);
}

kmrun_status kmrun_fallback_invalidate(kmrun_fallback_run *run, unsigned id, kmrun_error **err)
{
    return hand_over(run, id, false, err);
}
