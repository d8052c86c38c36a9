/* session_timeline_kernel: the kernel side of a run's timeline — each
 * Tensix core's part of each command (a span named after the handler),
 * the dispatcher's passes that did something, and the flows of each
 * command: from the kmx_submit that sent it (or, for a host-fed one, the
 * pass that took it) to its handler, and from its handler (or the taking
 * pass, when it was rejected) to the pass that wrote its event.
 *
 * The card reports its moments (sim_card_record) as it models them; a
 * flow is drawn only once both its ends are known, at the end of the run,
 * so every flow in the file is paired. */
#include "session_internal.h"

#include <stdlib.h>
#include <string.h>

#include "km_handlers.h"
#include "km_timeline.h"
#include "ks_grow.h"

#define TRACK_PASSES 0u

typedef struct where {
    bool known;
    unsigned pid, tid;
    uint64_t ps;
} where;

/* What became of one command. */
typedef struct cmd_rec {
    where submit, taken, handler_begin, handler_end, event;
} cmd_rec;

typedef struct job_rec {
    bool known;
    unsigned ring;
    uint32_t handle;
} job_rec;

struct km_tl_kernel {
    km_timeline *t;
    const km_program *p;
    cmd_rec *cmds[BH_CLUSTERS]; /* by ring, by handle */
    size_t ncmds[BH_CLUSTERS];
    job_rec *jobs; /* by the dispatcher's job slot, while it runs */
    size_t njobs;
    uint64_t last_end[BH_GRID_CORES]; /* a core's spans never overlap */
    bool named[BH_GRID_CORES];
    bool named_passes, named_grid;
    bool failed;
};

km_tl_kernel *km_tl_kernel_new(km_timeline *t, const km_program *p)
{
    km_tl_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->t = t;
    k->p = p;
    return k;
}

void km_tl_kernel_free(km_tl_kernel *k)
{
    if (!k)
        return;
    for (unsigned r = 0; r < BH_CLUSTERS; r++)
        free(k->cmds[r]);
    free(k->jobs);
    free(k);
}

/* The record of command (ring, handle), grown as handles come. */
static cmd_rec *cmd_of(km_tl_kernel *k, unsigned ring, uint32_t handle)
{
    if (ring >= BH_CLUSTERS || handle == 0 || handle > (1u << 24))
        return NULL;
    if (!KS_GROW_ZEROED(k->cmds[ring], k->ncmds[ring], (size_t)handle + 1)) {
        k->failed = true;
        return NULL;
    }
    return &k->cmds[ring][handle];
}

static job_rec *job_of(km_tl_kernel *k, uint32_t job)
{
    if (job > (1u << 16))
        return NULL;
    if (!KS_GROW_ZEROED(k->jobs, k->njobs, (size_t)job + 1)) {
        k->failed = true;
        return NULL;
    }
    return &k->jobs[job];
}

void km_tl_kernel_submit(km_tl_kernel *k, unsigned ring, uint32_t handle, unsigned pid,
                         unsigned tid, uint64_t ps)
{
    cmd_rec *c = cmd_of(k, ring, handle);
    if (c)
        c->submit = (where){true, pid, tid, ps};
}

static void name_passes(km_tl_kernel *k)
{
    if (k->named_passes)
        return;
    k->named_passes = true;
    km_timeline_process(k->t, KM_TIMELINE_PID_DISPATCHER, "dispatcher (cluster 0)", 5);
    km_timeline_track(k->t, KM_TIMELINE_PID_DISPATCHER, TRACK_PASSES, "passes");
}

static void name_core(km_tl_kernel *k, unsigned core)
{
    if (!k->named_grid) {
        k->named_grid = true;
        km_timeline_process(k->t, KM_TIMELINE_PID_GRID, "Tensix grid", 4);
    }
    if (k->named[core])
        return;
    k->named[core] = true;
    char name[32];
    snprintf(name, sizeof name, "Tensix core %u", core);
    km_timeline_track(k->t, KM_TIMELINE_PID_GRID, core, name);
}

static void on_handler(km_tl_kernel *k, const sim_card_moment *m)
{
    if (m->core >= BH_GRID_CORES)
        return;
    /* The grid may start a core's next job at the dispatcher's time, a
     * little before the grid's own reached the last one's end: drawn from
     * that end, so that a core's spans never overlap. */
    uint64_t begin = m->begin_ps > k->last_end[m->core] ? m->begin_ps : k->last_end[m->core];
    uint64_t end = m->end_ps > begin ? m->end_ps : begin;
    k->last_end[m->core] = end;
    name_core(k, m->core);
    const char *name = km_handler_name(k->p, (int)m->handler);
    char unknown[32];
    if (!name) {
        snprintf(unknown, sizeof unknown, "handler %u", m->handler);
        name = unknown;
    }
    job_rec *j = job_of(k, m->job);
    bool known = j && j->known;
    km_timeline_span(k->t, KM_TIMELINE_PID_GRID, m->core, name, "handler", begin, end,
                     known ? "handle" : NULL, known ? j->handle : 0);
    if (!known || !m->leader)
        return;
    cmd_rec *c = cmd_of(k, j->ring, j->handle);
    if (!c)
        return;
    c->handler_begin = (where){true, KM_TIMELINE_PID_GRID, m->core, begin};
    c->handler_end = (where){true, KM_TIMELINE_PID_GRID, m->core, end > begin ? end - 1 : end};
}

void km_tl_kernel_moment(void *ctx, const sim_card_moment *m)
{
    km_tl_kernel *k = ctx;
    where pass = {true, KM_TIMELINE_PID_DISPATCHER, TRACK_PASSES, m->begin_ps};
    cmd_rec *c;
    job_rec *j;
    switch (m->kind) {
    case SIM_MOMENT_HANDLER:
        on_handler(k, m);
        break;
    case SIM_MOMENT_PASS:
        name_passes(k);
        km_timeline_span(k->t, KM_TIMELINE_PID_DISPATCHER, TRACK_PASSES, "pass", "dispatcher",
                         m->begin_ps, m->end_ps, NULL, 0);
        break;
    case SIM_MOMENT_TAKEN:
        if ((c = cmd_of(k, m->ring, m->handle)))
            c->taken = pass;
        break;
    case SIM_MOMENT_STARTED:
        if ((j = job_of(k, m->job)))
            *j = (job_rec){true, m->ring, m->handle};
        break;
    case SIM_MOMENT_EVENT:
        if ((c = cmd_of(k, m->ring, m->handle)))
            c->event = pass;
        break;
    default:
        break;
    }
}

static void flow(km_tl_kernel *k, uint64_t id, const char *name, const where *s, const where *f)
{
    if (!s->known || !f->known || f->ps < s->ps ||
        (s->pid == f->pid && s->tid == f->tid && s->ps == f->ps))
        return;
    km_timeline_flow(k->t, id, name, s->pid, s->tid, s->ps, f->pid, f->tid, f->ps);
}

void km_tl_kernel_finish(km_tl_kernel *k)
{
    for (unsigned r = 0; r < BH_CLUSTERS; r++) {
        for (uint32_t h = 1; h < k->ncmds[r]; h++) {
            const cmd_rec *c = &k->cmds[r][h];
            uint64_t id = ((uint64_t)r << 32 | h) << 1;
            const where *from = c->submit.known ? &c->submit : &c->taken;
            const where *to = c->handler_begin.known ? &c->handler_begin : &c->taken;
            flow(k, id, "command", from, to);
            from = c->handler_end.known ? &c->handler_end : &c->taken;
            flow(k, id | 1, "event", from, &c->event);
        }
    }
}
