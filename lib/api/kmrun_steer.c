/* kmrun_steer: the public C API's host side while the threads run
 * (include/kmrun.h, "The host's side while the threads run") — commands
 * fed into the host ring, waited for and polled; a thread's result, every
 * thread's; the stop.  Each call moves the run's time through the one
 * drive (km_driver.h) until what it waits for happens, so the threads,
 * the grid and the stop follow the same rules as in `kmrun run`; nothing
 * here decides what a run means. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "km_handlers.h"
#include "km_suggest.h"
#include "ks_text.h"

static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

kmrun_status km_api_going(kmrun_run *r, const char *what, kmrun_error **err)
{
    if (r->failed)
        return km_api_usage(err, "%s: the run did not stop as it should (%s)", what,
                            r->fail_err.message);
    if (r->stopped)
        return km_api_usage(err, "%s after the run has stopped", what);
    return KMRUN_OK;
}

void kmrun_command_init(kmrun_command *c, const char *handler)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
    c->handler = handler;
    /* As a manifest's command without `group:`: the whole grid. */
    c->first = 0;
    c->count = BH_GRID_CORES;
}

/* ---- Commands ------------------------------------------------------------- */

kmrun_status km_api_command(const km_program *p, const kmrun_command *c, km_host_command *out,
                            kmrun_error **err)
{
    if (c->size < offsetof(kmrun_command, exclusive) + sizeof c->exclusive)
        return km_api_usage(err, "a command's size is %zu (set it with kmrun_command_init)",
                            c->size);
    if (!c->handler || !*c->handler)
        return km_api_usage(err, "a command names no handler");
    int id = km_handler_id(p, c->handler);
    if (id < 0) {
        const char *names[KM_HANDLER_BUILTINS + KM_HANDLER_PROGRAM_MAX];
        size_t n = km_handler_names(p, names, sizeof names / sizeof names[0]);
        const char *near = km_suggest(c->handler, names, n);
        if (near)
            return km_api_usage(err, "unknown handler %s (did you mean %s?)",
                                KS_QUOTED(c->handler), KS_QUOTED(near));
        return km_api_usage(err, "unknown handler %s (expected a built-in: nop, fill, copy, "
                                 "sum, spend, or one of the program's kernels' handlers)",
                            KS_QUOTED(c->handler));
    }
    if (c->count < 1 || c->first >= BH_GRID_CORES || c->count > BH_GRID_CORES - c->first)
        return km_api_usage(err,
                            "bad group: first %u, count %u (expected a Tensix core 0 to %u, "
                            "then 1 or more cores with first + count at most %u)",
                            c->first, c->count, BH_GRID_CORES - 1, BH_GRID_CORES);
    if (c->nargs > 10)
        return km_api_usage(err, "%u args (expected at most 10, a0 to a9)", c->nargs);
    memset(out, 0, sizeof *out);
    out->handler = (char *)c->handler; /* copied by km_session_submit */
    out->handler_id = id;
    out->first = c->first;
    out->count = c->count;
    memcpy(out->args, c->args, c->nargs * sizeof c->args[0]);
    out->nargs = c->nargs;
    out->result = c->result;
    out->exclusive = c->exclusive;
    /* The host decides when it waits: the next command does not. */
    out->wait = false;
    return KMRUN_OK;
}

kmrun_status kmrun_run_submit(kmrun_run *r, const kmrun_command *c, uint64_t *handle,
                              kmrun_error **err)
{
    clear(err);
    if (handle)
        *handle = 0;
    if (!r || !c || !handle)
        return km_api_usage(err, "kmrun_run_submit: %s is NULL",
                            !r ? "the run" : !c ? "the command" : "handle");
    kmrun_status rc = km_api_going(r, "a command cannot be submitted", err);
    if (rc != KMRUN_OK)
        return rc;
    km_host_command hc;
    rc = km_api_command(r->program->p, c, &hc, err);
    if (rc == KMRUN_OK)
        rc = km_api_begin(r, UINT64_MAX, err);
    if (rc != KMRUN_OK)
        return rc;
    if (!km_drive_kernel_live(km_session_steer(r->s)))
        return km_api_usage(err, "a command cannot be submitted: the kernel has stopped (a "
                                 "Tensix handler was taken out; the run's stop says which)");
    size_t index;
    km_error e = {0};
    int status = km_session_submit(r->s, &hc, &index, &e);
    if (status != KM_OK)
        return km_api_fail(err, status, &e);
    *handle = (uint64_t)index + 1;
    return KMRUN_OK;
}

static void fate(const km_command_result *c, kmrun_command_result *out)
{
    memset(out, 0, sizeof *out);
    out->ended = c->ended;
    out->event = !c->ended                     ? NULL
                 : c->event == KM_EVENT_DONE    ? "done"
                 : c->event == KM_EVENT_TIMEOUT ? "timeout"
                                                : "rejected";
    out->reason = c->ended ? c->reason : 0;
    out->has_result = c->ended && c->has_result;
    out->result = out->has_result ? c->result : 0;
    out->microseconds = c->ended ? (double)c->ps / (double)BH_PS_PER_US : -1;
    out->busy = c->busy;
}

/* Command `handle`'s fate as it stands; KMRUN_USAGE for a handle the run
 * never gave. */
static kmrun_status command_at(kmrun_run *r, uint64_t handle, kmrun_command_result *out,
                               kmrun_error **err)
{
    km_command_result c;
    if (handle == 0 || !km_session_command(r->s, (size_t)(handle - 1), &c))
        return km_api_usage(err, "no command %llu in this run (it has %zu: handles 1 to %zu)",
                            (unsigned long long)handle, km_session_ncommands(r->s),
                            km_session_ncommands(r->s));
    fate(&c, out);
    return KMRUN_OK;
}

typedef struct command_goal {
    kmrun_run *r;
    size_t index;
} command_goal;

/* The command has its event, or can no longer get one. */
static bool command_ended(const km_steer *d, void *ctx)
{
    const command_goal *g = ctx;
    km_command_result c;
    if (!km_session_command(g->r->s, g->index, &c))
        return true;
    return c.ended || !km_drive_kernel_live(d);
}

/* The checks every command call makes: its arguments, and (when it will
 * move time) a run that goes, begun. */
static kmrun_status command_call(kmrun_run *r, const char *fn, kmrun_command_result *out,
                                 kmrun_error **err)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!r || !out)
        return km_api_usage(err, "%s: %s is NULL", fn, !r ? "the run" : "out");
    if (r->failed)
        return km_api_fail(err, r->failed, &r->fail_err);
    return r->stopped ? KMRUN_OK : km_api_begin(r, UINT64_MAX, err);
}

kmrun_status kmrun_run_wait_command(kmrun_run *r, uint64_t handle, double timeout_seconds,
                                    kmrun_command_result *out, kmrun_error **err)
{
    clear(err);
    kmrun_status rc = command_call(r, "kmrun_run_wait_command", out, err);
    uint64_t timeout_ps = 0;
    if (rc == KMRUN_OK && (timeout_seconds == 0 || timeout_seconds != timeout_seconds))
        rc = km_api_usage(err, "invalid timeout %g seconds (expected more than 0 and at most "
                               "%g)",
                          timeout_seconds, KM_SECONDS_MAX);
    if (rc == KMRUN_OK)
        rc = km_api_timeout(timeout_seconds, 0, &timeout_ps, err);
    if (rc == KMRUN_OK)
        rc = command_at(r, handle, out, err);
    if (rc != KMRUN_OK || r->stopped || out->ended)
        return rc;
    km_steer *d = km_session_steer(r->s);
    uint64_t now = km_drive_now(d);
    uint64_t until = timeout_ps > UINT64_MAX - now ? UINT64_MAX - 1 : now + timeout_ps;
    command_goal g = {r, (size_t)(handle - 1)};
    rc = km_api_drive(r, command_ended, &g, until, err);
    return rc == KMRUN_OK ? command_at(r, handle, out, err) : rc;
}

/* One look of the host. */
static bool never(const km_steer *d, void *ctx)
{
    (void)d;
    (void)ctx;
    return false;
}

kmrun_status kmrun_run_poll(kmrun_run *r, uint64_t handle, kmrun_command_result *out,
                            kmrun_error **err)
{
    clear(err);
    kmrun_status rc = command_call(r, "kmrun_run_poll", out, err);
    if (rc == KMRUN_OK)
        rc = command_at(r, handle, out, err);
    if (rc != KMRUN_OK || r->stopped)
        return rc;
    km_steer *d = km_session_steer(r->s);
    rc = km_api_drive(r, never, NULL, km_drive_now(d) + BH_PS_PER_US, err);
    return rc == KMRUN_OK ? command_at(r, handle, out, err) : rc;
}

/* ---- Threads and the stop ------------------------------------------------- */

typedef struct thread_goal {
    unsigned index; /* plan index, or KM_DRIVE_ALL */
} thread_goal;

static bool thread_ended(const km_steer *d, void *ctx)
{
    const thread_goal *g = ctx;
    return g->index == KM_DRIVE_ALL ? km_drive_threads_done(d)
                                    : km_drive_thread_done(d, g->index);
}

/* Runs until thread `index` (plan order, or KM_DRIVE_ALL) has a final
 * state, asked to stop timeout_seconds from now. */
static kmrun_status threads_until(kmrun_run *r, unsigned index, double timeout_seconds,
                                  kmrun_error **err)
{
    if (r->stopped)
        return KMRUN_OK;
    uint64_t timeout_ps = 0;
    kmrun_status rc = km_api_timeout(
        timeout_seconds, km_default_timeout_us(r->program->p) * BH_PS_PER_US, &timeout_ps, err);
    if (rc == KMRUN_OK)
        rc = km_api_begin(r, UINT64_MAX, err);
    if (rc != KMRUN_OK)
        return rc;
    km_steer *d = km_session_steer(r->s);
    thread_goal g = {index};
    if (thread_ended(d, &g))
        return KMRUN_OK;
    uint64_t now = km_drive_now(d);
    km_drive_timeout(d, index, timeout_ps > UINT64_MAX - now ? UINT64_MAX : now + timeout_ps);
    return km_api_drive(r, thread_ended, &g, UINT64_MAX, err);
}

kmrun_status kmrun_run_thread_result(kmrun_run *r, size_t i, double timeout_seconds,
                                     kmrun_thread_result *out, kmrun_error **err)
{
    clear(err);
    if (out)
        memset(out, 0, sizeof *out);
    if (!r || !out)
        return km_api_usage(err, "kmrun_run_thread_result: %s is NULL", !r ? "the run" : "out");
    if (r->failed)
        return km_api_fail(err, r->failed, &r->fail_err);
    if (i >= r->program->nclusters)
        return kmrun_run_result(r, i, out, err); /* its message */
    kmrun_status rc = threads_until(r, km_api_plan_index(r, i), timeout_seconds, err);
    return rc == KMRUN_OK ? kmrun_run_result(r, i, out, err) : rc;
}

kmrun_status kmrun_run_thread_results(kmrun_run *r, double timeout_seconds, kmrun_error **err)
{
    clear(err);
    if (!r)
        return km_api_usage(err, "kmrun_run_thread_results: the run is NULL");
    if (r->failed)
        return km_api_fail(err, r->failed, &r->fail_err);
    return threads_until(r, KM_DRIVE_ALL, timeout_seconds, err);
}

kmrun_status kmrun_run_stop(kmrun_run *r, double timeout_seconds, kmrun_error **err)
{
    clear(err);
    if (!r)
        return km_api_usage(err, "kmrun_run_stop: the run is NULL");
    if (r->stopped)
        return KMRUN_OK;
    if (r->failed)
        return km_api_fail(err, r->failed, &r->fail_err);
    uint64_t grace_ps = 0;
    kmrun_status rc = km_api_timeout(timeout_seconds, KM_STOP_GRACE_US * BH_PS_PER_US,
                                     &grace_ps, err);
    if (rc == KMRUN_OK)
        rc = km_api_begin(r, UINT64_MAX, err);
    if (rc != KMRUN_OK)
        return rc;
    /* Spec: the threads stop before the kernel, inside the same deadline. */
    km_steer *d = km_session_steer(r->s);
    km_drive_grace(d, grace_ps);
    km_drive_timeout(d, KM_DRIVE_ALL, km_drive_now(d));
    thread_goal g = {KM_DRIVE_ALL};
    rc = km_api_drive(r, thread_ended, &g, UINT64_MAX, err);
    return rc == KMRUN_OK ? km_api_stop(r, err) : rc;
}
