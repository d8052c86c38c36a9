/* kmrun: the public C API's errors, programs and sessions (include/kmrun.h)
 * — each a thin handle over the library's own (km_error, km_manifest_load,
 * the cache's and the runs' folders as kmrun(1) finds them); the library
 * never prints or exits, and every failure is a kmrun_error with the
 * status `kmrun` would exit with.  The programs are kmrun_program.c's, the
 * runs kmrun_run.c's. */
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "km_rundir.h"
#include "ks_text.h"

/* ---- Errors --------------------------------------------------------------- */

/* What an error is when there is no memory for one: shared, never freed. */
static kmrun_error out_of_memory = {KMRUN_SYSTEM, "out of memory", NULL, {0}};

const char *km_api_status_code(int status)
{
    switch (status) {
    case KMRUN_FAILED:
        return "run.failed";
    case KMRUN_USAGE:
        return "kmrun.usage";
    case KMRUN_BUILD:
        return "build.failed";
    case KMRUN_SYSTEM:
        return "kmrun.system";
    default:
        return "kmrun.internal";
    }
}

/* Every diagnostic of d (and its notes) coded: `code` where none is. */
static void code_all(km_diag *g, size_t n, const char *code)
{
    for (size_t i = 0; i < n; i++) {
        if (!g[i].code)
            g[i].code = code;
        code_all(g[i].children, g[i].nchildren, code);
    }
}

kmrun_status km_api_error_found(kmrun_error **err, int status, const char *message,
                                const char *detail, km_diags *found, const char *code)
{
    if (!err) {
        if (found)
            km_diags_free(found);
        return (kmrun_status)status;
    }
    kmrun_error *e = calloc(1, sizeof *e);
    char *m = strdup(message ? message : "");
    char *d = detail ? strdup(detail) : NULL;
    if (!e || !m || (detail && !d)) {
        free(e);
        free(m);
        free(d);
        if (found)
            km_diags_free(found);
        *err = &out_of_memory;
        return (kmrun_status)status;
    }
    e->status = (kmrun_status)status;
    e->message = m;
    e->detail = d;
    e->diags.limit = SIZE_MAX;
    if (!code)
        code = km_api_status_code(status);
    if (found && found->count) {
        size_t dropped = found->dropped;
        km_diags_move(&e->diags, found);
        e->diags.dropped = 0;
        code_all(e->diags.items, e->diags.count, code);
        km_diags_read_text(&e->diags);
        /* as km_diags_print says it: "... and 3 more errors" */
        if (dropped)
            km_diags_add_code(&e->diags, "kmrun.more", NULL, 0, 0, "... and %zu more error%s",
                              dropped, dropped == 1 ? "" : "s");
    } else {
        km_diags_add_code(&e->diags, code, NULL, 0, 0, "%s", m);
    }
    if (found)
        km_diags_free(found);
    *err = e;
    return (kmrun_status)status;
}

kmrun_status km_api_error_detail(kmrun_error **err, int status, const char *message,
                                 const char *detail)
{
    return km_api_error_found(err, status, message, detail, NULL, NULL);
}

kmrun_status km_api_error(kmrun_error **err, int status, const char *message)
{
    return km_api_error_detail(err, status, message, NULL);
}

kmrun_status km_api_fail(kmrun_error **err, int status, const km_error *e)
{
    return km_api_error_found(err, status, e->message[0] ? e->message : "failed (no message)",
                              NULL, NULL, e->code);
}

kmrun_status km_api_opts_copy(void *dst, const void *src, size_t oldest, size_t newest,
                              size_t color_at, const char *name, kmrun_error **err)
{
    size_t size;
    memcpy(&size, src, sizeof size);
    if (size != oldest && size != newest)
        return km_api_usage(err, "invalid %s size %zu (expected %zu: set it with %s_init)", name,
                            size, newest, name);
    memset(dst, 0, newest);
    memcpy(dst, src, size);
    kmrun_color color;
    memcpy(&color, (const char *)dst + color_at, sizeof color);
    if ((unsigned)color > KMRUN_COLOR_NEVER)
        return km_api_usage(err, "invalid color %d (expected KMRUN_COLOR_DEFAULT, _ALWAYS or "
                                 "_NEVER)",
                            (int)color);
    return KMRUN_OK;
}

kmrun_status km_api_usage(kmrun_error **err, const char *fmt, ...)
{
    km_error e = {0};
    va_list ap;
    va_start(ap, fmt);
    char text[KS_MESSAGE_BYTES];
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    km_fail(&e, KM_EXIT_USAGE, "%s", text);
    return km_api_fail(err, KM_EXIT_USAGE, &e);
}

kmrun_status kmrun_error_status(const kmrun_error *e)
{
    return e ? e->status : KMRUN_OK;
}

const char *kmrun_error_message(const kmrun_error *e)
{
    return e ? e->message : "";
}

const char *kmrun_error_detail(const kmrun_error *e)
{
    return e ? e->detail : NULL;
}

void kmrun_error_free(kmrun_error *e)
{
    if (!e || e == &out_of_memory)
        return;
    free(e->detail);
    free(e->message);
    km_diags_free(&e->diags);
    free(e);
}

const char *kmrun_version(void)
{
    return KMRUN_VERSION;
}

int kmrun_api_version(void)
{
    return KMRUN_API_VERSION;
}

_Static_assert((long)KMRUN_SECONDS_MAX == (long)KM_SECONDS_MAX, "the one rule of seconds");

bool kmrun_seconds_valid(double seconds)
{
    return km_seconds_valid(seconds);
}

/* *err NULL from the start: a success leaves it so. */
static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

/* ---- Sessions ------------------------------------------------------------- */

void kmrun_session_opts_init(kmrun_session_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->backend = KMRUN_BACKEND_SIM;
}

kmrun_status kmrun_session_profile(kmrun_session *s, bool on, kmrun_error **err)
{
    clear(err);
    if (!s)
        return km_api_usage(err, "kmrun_session_profile: the session is NULL");
    if (on && s->backend != KM_BACKEND_SIM)
        return km_api_usage(err, "the host fallback runs X280 threads on the host, not on "
                                 "simulated cores: it cannot profile them (run on the "
                                 "simulated card)");
    s->profile = on;
    return KMRUN_OK;
}

kmrun_status kmrun_session_open(const kmrun_session_opts *o, kmrun_session **out,
                                kmrun_error **err)
{
    clear(err);
    if (!out)
        return km_api_usage(err, "kmrun_session_open: out is NULL");
    *out = NULL;
    kmrun_session_opts defaults;
    kmrun_session_opts_init(&defaults);
    if (!o)
        o = &defaults;
    kmrun_session_opts given;
    kmrun_status st = km_api_opts_copy(&given, o, offsetof(kmrun_session_opts, diagnostic),
                                       sizeof given, offsetof(kmrun_session_opts, color),
                                       "kmrun_session_opts", err);
    if (st != KMRUN_OK)
        return st;
    o = &given;
    km_backend b;
    switch (o->backend) {
    case KMRUN_BACKEND_SIM:
        b = KM_BACKEND_SIM;
        break;
    case KMRUN_BACKEND_HOST:
        b = KM_BACKEND_HOST;
        break;
    case KMRUN_BACKEND_CARD:
        b = KM_BACKEND_CARD;
        break;
    default:
        return km_api_usage(err,
                            "unknown backend %d (expected KMRUN_BACKEND_SIM, "
                            "KMRUN_BACKEND_HOST or KMRUN_BACKEND_CARD)",
                            (int)o->backend);
    }
    km_error e = {0};
    int rc = km_backend_available(b, &e);
    if (rc != KM_OK)
        return km_api_fail(err, rc, &e);
    if (o->jobs < 0 || o->jobs > 1024)
        return km_api_usage(err, "invalid job count %d (expected 1 to 1024, or 0: Ninja's)",
                            o->jobs);
    if (o->timeline && !*o->timeline)
        return km_api_usage(err, "an empty timeline file name");
    double wall = o->wall_timeout_seconds;
    if (isnan(wall) || (wall > 0 && !km_seconds_valid(wall)))
        return km_api_usage(err,
                            "invalid wall timeout %g seconds (expected at most %g; 0 or less: "
                            "no limit)",
                            wall, KM_SECONDS_MAX);
    kmrun_session *s = calloc(1, sizeof *s);
    if (!s)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a session");
    s->backend = b;
    s->run_folder = !o->no_run_folder;
    s->check_handover = o->check_handover;
    s->wall_timeout_s = wall > 0 ? wall : 0;
    s->callbacks = o->callbacks;
    s->jobs = o->jobs;
    s->trace = o->trace_instructions;
    s->trace_cluster = o->trace_cluster;
    s->trace_core = o->trace_core;
    s->timeline = o->timeline ? strdup(o->timeline) : NULL;
    s->diagnostic = o->diagnostic;
    s->color = o->color;
    s->debug_build = o->debug_build;
    /* The folders as kmrun(1) finds them, chosen once: the environment
     * read now, not at each load. */
    s->cache_root = o->cache_dir && *o->cache_dir ? strdup(o->cache_dir)
                                                  : km_cache_default_root(&e);
    s->runs = km_runs_root(o->runs_dir);
    if (!s->cache_root)
        rc = e.message[0] ? e.status : km_fail(&e, KM_EXIT_SYSTEM, "out of memory for a session");
    else if (!s->runs || (o->timeline && !s->timeline))
        rc = km_fail(&e, KM_EXIT_SYSTEM, "out of memory for a session");
    /* The cache is opened for each run (its entries stay pinned as long);
     * here only tried, so that an unusable one is said at the open. */
    if (rc == KM_OK) {
        km_cache c;
        rc = km_cache_open(&c, s->cache_root, &e);
        if (c.root)
            km_cache_close(&c);
    }
    if (rc != KM_OK) {
        kmrun_session_close(s);
        return km_api_fail(err, rc, &e);
    }
    *out = s;
    return KMRUN_OK;
}

void kmrun_session_close(kmrun_session *s)
{
    if (!s)
        return;
    /* A run not freed first: it stays usable, and is freed on its own. */
    if (s->run) {
        s->run->owner = NULL;
        km_session_card_memory(s->run->s, NULL); /* the card memory goes with s */
    }
    free(s->cache_root);
    free(s->runs);
    free(s->timeline);
    km_api_trace_opts_free(s->trace_opts);
    free(s);
}
