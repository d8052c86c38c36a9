/* kmrun_debug: the public C API's debugged runs (include/kmrun.h,
 * kmrun_run_debug) — a run held for gdb-multiarch as `kmrun run --gdb`
 * holds it: the run waits in a thread of its own, halted at every stop by
 * the debugger (lib/gdb/km_gdb_card.h), while the calling thread serves
 * the debugger. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_internal.h"
#include "km_build.h"
#include "km_gdb.h"
#include "km_gdb_card.h"
#include "km_plan.h"
#include "km_symbols.h"
#include "km_toolchain.h"
#include "ks_elf.h"
#include "ks_text.h"

typedef struct debugged_run {
    kmrun_run *r;
    double timeout_seconds;
    km_gdb_card *t;
    kmrun_status rc;
    kmrun_error *err;
} debugged_run;

static void *run_thread(void *arg)
{
    debugged_run *d = arg;
    km_gdb_card_wait_start(d->t);
    d->rc = kmrun_run_wait(d->r, d->timeout_seconds, &d->err);
    km_gdb_card_ended(d->t, d->rc == KMRUN_OK && km_run_ok(&d->r->result) ? 0 : 1);
    return NULL;
}

/* The function holding pc from the ELF's symbols: the nearest defined
 * function or label at or below it (not RISC-V's mapping symbols, not
 * local .L labels), for code without debug information. */
static void nearest_symbol(const char *image, uint64_t pc, km_gdb_source *out)
{
    ks_elf e;
    ks_error ignored;
    if (ks_elf_open(&e, image, "image", &ignored) != KS_OK)
        return;
    size_t symtab = ks_elf_find_section(&e, SHT_SYMTAB), nsym, strtab;
    uint64_t best = 0;
    if (symtab && ks_elf_symtab(&e, symtab, &nsym, &strtab)) {
        for (size_t i = 1; i < nsym; i++) {
            Elf64_Sym s;
            if (!ks_elf_symbol(&e, symtab, i, &s))
                break;
            const char *name = ks_elf_string(&e, strtab, s.st_name);
            unsigned type = ELF64_ST_TYPE(s.st_info);
            if (!name || !*name || name[0] == '$' || strncmp(name, ".L", 2) == 0 ||
                s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE ||
                (type != STT_FUNC && type != STT_NOTYPE) || s.st_value > pc ||
                (out->function[0] && s.st_value <= best))
                continue;
            best = s.st_value;
            snprintf(out->function, sizeof out->function, "%s", name);
        }
    }
    ks_elf_close(&e);
}

int km_api_gdb_lookup(const char *image, uint64_t pc, km_gdb_source *out)
{
    km_source src = {0};
    km_source_lookup(image, pc, &src);
    *out = (km_gdb_source){.known = src.known, .line = src.line};
    snprintf(out->file, sizeof out->file, "%s", src.file);
    if (src.has_function)
        snprintf(out->function, sizeof out->function, "%s", src.function);
    else
        nearest_symbol(image, pc, out);
    return src.known || out->function[0] ? 0 : -1;
}

/* The monitor's lookup: pc in the image work cluster `cluster` runs. */
static int lookup(void *ctx, unsigned cluster, uint64_t pc, km_gdb_source *out)
{
    km_session *s = ctx;
    const km_plan *plan = km_session_plan(s);
    for (unsigned i = 0; i < plan->nclusters; i++) {
        const char *image = km_session_image_of(s, i);
        if ((unsigned)plan->clusters[i].cluster == cluster && image)
            return km_api_gdb_lookup(image, pc, out);
    }
    return -1;
}

/* The target over the session's card: every thread's cluster, the ones
 * running the first thread's image debugged. */
static km_gdb_card *target_of(km_session *s, sim_card *card)
{
    const km_plan *plan = km_session_plan(s);
    unsigned clusters[BH_WORK_CLUSTERS];
    bool debugged[BH_WORK_CLUSTERS];
    unsigned n = 0;
    const char *image = km_session_image_of(s, 0);
    for (unsigned i = 0; i < plan->nclusters && n < BH_WORK_CLUSTERS; i++, n++) {
        const char *mine = km_session_image_of(s, i);
        clusters[n] = (unsigned)plan->clusters[i].cluster;
        debugged[n] = image && mine && strcmp(image, mine) == 0;
    }
    km_gdb_card *t = km_gdb_card_new(card, clusters, debugged, n);
    if (t)
        km_gdb_card_lookup(t, lookup, s);
    return t;
}

kmrun_status km_api_gdb_connect(int port, const char *gdb_args,
                                void (*waiting)(int port, const char *command, void *ctx),
                                void *ctx, int *fd, kmrun_error **err)
{
    km_error e = {0};
    int bound = 0;
    int lfd = km_gdb_listen(port, &bound);
    if (lfd < 0) {
        km_fail(&e, KM_EXIT_SYSTEM, "cannot listen for GDB on port %d: %s", port, strerror(errno));
        return km_api_fail(err, KM_EXIT_SYSTEM, &e);
    }
    if (waiting) {
        char *command = ks_strf("gdb-multiarch -q%s -ex 'target remote :%d'", gdb_args, bound);
        if (!command) {
            close(lfd); /* not a command that would not connect */
            return km_api_error(err, KMRUN_SYSTEM, "out of memory for the GDB session");
        }
        waiting(bound, command, ctx);
        free(command);
    }
    *fd = km_gdb_accept(lfd);
    int saved = errno;
    close(lfd);
    if (*fd >= 0)
        return KMRUN_OK;
    km_fail(&e, KM_EXIT_SYSTEM, "no GDB connected on port %d: %s", bound, strerror(saved));
    return km_api_fail(err, KM_EXIT_SYSTEM, &e);
}

kmrun_status kmrun_run_debug(kmrun_run *r, double timeout_seconds, int port,
                             void (*waiting)(int port, const char *command, void *ctx), void *ctx,
                             kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!r)
        return km_api_usage(err, "kmrun_run_debug: the run is NULL");
    if (r->stopped)
        return KMRUN_OK;
    if (r->failed)
        return km_api_fail(err, r->failed, &r->fail_err);
    if (r->begun)
        return km_api_usage(err, "the run has begun: a debugger holds a run from its start");
    if (port < 0 || port > 65535)
        return km_api_usage(err, "invalid GDB port %d (expected 0 to 65535; 0: any free one)",
                            port);
    uint64_t ps;
    kmrun_status st = km_api_timeout(timeout_seconds, 0, &ps, err);
    if (st != KMRUN_OK)
        return st;
    sim_card *card = km_session_card(r->s);
    if (!card)
        return km_api_usage(err, "a debugger debugs the X280 cores of the simulated card: the "
                                 "host fallback's threads run on the host");
    /* The image's sources: the program's, and the runtime's under
     * /kmrun (KM_RUNTIME_SOURCE), which the data folder ships. */
    km_data data = {0};
    km_error ignored;
    char runtime[4200] = "";
    if (km_data_find(&data, &ignored) == KM_OK)
        snprintf(runtime, sizeof runtime, " -ex 'set substitute-path %s %s'", KM_RUNTIME_SOURCE,
                 data.dir);
    km_data_free(&data);
    char *args = ks_strf(" -ex 'file %s' -ex 'directory %s'%s", km_session_image_of(r->s, 0),
                         r->program->p->root, runtime);
    if (!args)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the GDB session");
    int fd;
    st = km_api_gdb_connect(port, args, waiting, ctx, &fd, err);
    free(args);
    if (st != KMRUN_OK)
        return st;
    /* The time it spends halted is the debugger's. */
    r->wall_timeout_s = 0;
    debugged_run d = {.r = r, .timeout_seconds = timeout_seconds, .t = target_of(r->s, card)};
    pthread_t run;
    if (!d.t || pthread_create(&run, NULL, run_thread, &d) != 0) {
        close(fd);
        km_gdb_card_free(d.t);
        return km_api_error(err, KMRUN_SYSTEM, "cannot start the debugged run");
    }
    km_gdb_state gs = km_gdb_serve_fd(fd, km_gdb_card_ops(), d.t, 0);
    close(fd);
    if (gs == KM_GDB_KILLED) {
        /* The run is held where the debugger left it and cannot end
         * well: no result, nothing kept; every later call says so. */
        r->failed = km_fail(&r->fail_err, KM_EXIT_FAILED,
                            "the debugger killed the program before its end");
        km_run_record_abort(&r->rec);
        return km_api_fail(err, KM_EXIT_FAILED, &r->fail_err);
    }
    km_gdb_card_release(d.t); /* detached or gone: the rest as without it */
    pthread_join(run, NULL);
    km_gdb_card_free(d.t);
    if (d.rc != KMRUN_OK) {
        if (err)
            *err = d.err;
        else
            kmrun_error_free(d.err);
    }
    return d.rc;
}
