/* kmrun_exec: the public C API's bare ELF on one hart (include/kmrun.h,
 * "A bare ELF on one hart") — the simulated hart of exec's API
 * (device/sim/include/sim_exec.h), alone or under gdb-multiarch
 * (lib/gdb/km_gdb_exec.h), as `kmrun exec` runs it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_internal.h"
#include "km_gdb.h"
#include "km_fs.h"
#include "km_gdb_exec.h"
#include "km_profile.h"
#include "ks_text.h"
#include "sim_exec.h"

struct kmrun_exec {
    sim_exec *x;
    char *path; /* as given: the debugger's `file` */
    void (*line)(const char *text, void *ctx);
    void *line_ctx;
};

_Static_assert((int)KMRUN_EXEC_EXIT == (int)SIM_EXEC_EXIT && (int)KMRUN_EXEC_LIMIT ==
                   (int)SIM_EXEC_LIMIT && (int)KMRUN_EXEC_TRAP == (int)SIM_EXEC_TRAP &&
                   (int)KMRUN_EXEC_WFI == (int)SIM_EXEC_WFI,
               "the ends are exec's");

kmrun_status kmrun_exec_open(const char *path, kmrun_exec **out, bool *has_tohost,
                             kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!path || !out)
        return km_api_usage(err, "kmrun_exec_open: %s is NULL", !path ? "the path" : "out");
    *out = NULL;
    kmrun_exec *h = calloc(1, sizeof *h);
    if (!h)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for an exec");
    bool no_tohost = false;
    ks_error e = {0};
    h->path = strdup(path);
    if (!h->path) {
        free(h);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for an exec");
    }
    if (sim_exec_open(&h->x, path, &no_tohost, &e) != KS_OK) {
        free(h->path);
        free(h);
        return km_api_error(err, km_exit_of(e.status), e.message);
    }
    if (has_tohost)
        *has_tohost = !no_tohost;
    *out = h;
    return KMRUN_OK;
}

void kmrun_exec_free(kmrun_exec *x)
{
    if (!x)
        return;
    sim_exec_free(x->x);
    free(x->path);
    free(x);
}

static void on_line(void *ctx, const char *text)
{
    kmrun_exec *h = ctx;
    h->line(text, h->line_ctx);
}

void kmrun_exec_trace(kmrun_exec *x, void (*line)(const char *text, void *ctx), void *ctx)
{
    if (!x)
        return;
    x->line = line;
    x->line_ctx = ctx;
    sim_exec_trace(x->x, line ? on_line : NULL, line ? x : NULL);
}

kmrun_status kmrun_exec_profile(kmrun_exec *x, kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!x)
        return km_api_usage(err, "kmrun_exec_profile: the exec is NULL");
    ks_error e = {0};
    if (sim_exec_profile(x->x, &e) != KS_OK)
        return km_api_error(err, km_exit_of(e.status), e.message);
    return KMRUN_OK;
}

kmrun_status kmrun_exec_profile_write(const kmrun_exec *x, const char *folder, kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!x || !folder)
        return km_api_usage(err, "kmrun_exec_profile_write: %s is NULL",
                            !x ? "the exec" : "the folder");
    const sim_profile *sp[1][4] = {{sim_exec_profile_of(x->x), NULL, NULL, NULL}};
    const unsigned cluster = 0;
    if (!sp[0][0])
        return km_api_usage(err, "the hart was not profiled (kmrun_exec_profile before the run)");
    km_profile p = {0};
    km_error e = {0};
    int rc = sim_profile_failed(sp[0][0])
                 ? km_fail(&e, KM_EXIT_SYSTEM, "out of memory for the hart's profile")
                 : km_profile_add_clusters(&p, 1, &cluster, (const sim_profile *const (*)[4])sp,
                                           x->path, NULL, &e); /* the user's file: no memo */
    if (rc == KM_OK)
        rc = km_profile_save(&p, folder, &e);
    km_profile_free(&p);
    return rc == KM_OK ? KMRUN_OK : km_api_fail(err, rc, &e);
}

static void result_out(const sim_exec_result *r, kmrun_exec_result *out)
{
    memset(out, 0, sizeof *out);
    out->end = (kmrun_exec_end)r->end;
    out->end_name = sim_exec_end_name(r->end);
    out->exit_code = r->exit_code;
    out->instructions = r->instructions;
    out->cycles = r->cycles;
    out->traps = r->traps;
    out->mcause = r->mcause;
    out->mepc = r->mepc;
    out->mtval = r->mtval;
    const char *cause = sim_cause_name(r->mcause, out->cause, sizeof out->cause);
    if (cause != out->cause)
        snprintf(out->cause, sizeof out->cause, "%s", cause);
}

static kmrun_status checked(kmrun_exec *x, uint64_t max, kmrun_exec_result *out,
                            const char *what, kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!x || !out)
        return km_api_usage(err, "%s: %s is NULL", what, !x ? "the exec" : "out");
    if (max == 0)
        return km_api_usage(err, "%s: max_instructions is 0 (expected more)", what);
    return KMRUN_OK;
}

kmrun_status kmrun_exec_run(kmrun_exec *x, uint64_t max_instructions, kmrun_exec_result *out,
                            kmrun_error **err)
{
    kmrun_status st = checked(x, max_instructions, out, "kmrun_exec_run", err);
    if (st != KMRUN_OK)
        return st;
    sim_exec_result r;
    sim_exec_run(x->x, max_instructions, &r);
    result_out(&r, out);
    return KMRUN_OK;
}

/* The monitor's lookup: pc in the ELF. */
static int lookup(void *ctx, unsigned cluster, uint64_t pc, km_gdb_source *out)
{
    (void)cluster;
    return km_api_gdb_lookup(((const kmrun_exec *)ctx)->path, pc, out);
}

kmrun_status kmrun_exec_debug(kmrun_exec *x, uint64_t max_instructions, int port,
                              void (*waiting)(int port, const char *command, void *ctx),
                              void *ctx, kmrun_exec_result *out, kmrun_error **err)
{
    kmrun_status st = checked(x, max_instructions, out, "kmrun_exec_debug", err);
    if (st != KMRUN_OK)
        return st;
    if (port < 0 || port > 65535)
        return km_api_usage(err, "invalid GDB port %d (expected 0 to 65535; 0: any free one)",
                            port);
    char *args = ks_strf(" -ex 'file %s'", x->path);
    if (!args)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the GDB session");
    int fd;
    st = km_api_gdb_connect(port, args, waiting, ctx, &fd, err);
    free(args);
    if (st != KMRUN_OK)
        return st;
    km_gdb_exec *t = km_gdb_exec_new(x->x, max_instructions);
    if (!t) {
        close(fd);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the GDB session");
    }
    km_gdb_exec_lookup(t, lookup, x);
    km_gdb_state gs = km_gdb_serve_fd(fd, km_gdb_exec_ops(), t, 0);
    close(fd);
    sim_exec_result r;
    bool ended = km_gdb_exec_ended(t, &r);
    km_gdb_exec_free(t);
    if (gs == KM_GDB_KILLED && !ended)
        return km_api_error(err, KMRUN_FAILED, "the debugger killed the program before its end");
    if (!ended) /* detached, or the client left: the rest as without it */
        sim_exec_run(x->x, max_instructions, &r);
    result_out(&r, out);
    return KMRUN_OK;
}
