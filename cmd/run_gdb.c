/* run_gdb: `kmrun run --gdb PORT` — the run in a thread of its own, held
 * at every stop by the debugger (lib/gdb/km_gdb_card.h), while this thread
 * serves gdb-multiarch. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_run.h"
#include "km_gdb_card.h"
#include "km_toolchain.h"

typedef struct debugged_run {
    km_session *s;
    const km_run_opts *ro;
    cmd_run_outcome *out;
    km_gdb_card *t;
    int rc;
    km_error err;
} debugged_run;

static void *run_thread(void *arg)
{
    debugged_run *d = arg;
    km_gdb_card_wait_start(d->t);
    d->rc = km_session_run(d->s, d->ro, &d->out->result, &d->err);
    km_gdb_card_ended(d->t, d->rc == KM_OK && km_run_ok(&d->out->result) ? 0 : 1);
    return NULL;
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
    return km_gdb_card_new(card, clusters, debugged, n);
}

int cmd_run_debugged(const km_program *p, km_session *s, const km_run_opts *ro, int port,
                     cmd_run_outcome *out, km_error *err)
{
    sim_card *card = km_session_card(s);
    if (!card)
        return km_fail(err, KM_EXIT_USAGE, "--gdb debugs the X280 cores of the simulated card: "
                                           "the host fallback's threads run on the host");
    int bound = 0;
    int lfd = km_gdb_listen(port, &bound);
    if (lfd < 0)
        return km_fail(err, KM_EXIT_SYSTEM, "cannot listen for GDB on port %d: %s", port,
                       strerror(errno));
    /* the image's sources: the program's, and the runtime's under /kmrun
     * (KM_RUNTIME_SOURCE), which the data folder ships */
    km_data data = {0};
    km_error ignored;
    char runtime[4200] = "";
    if (km_data_find(&data, &ignored) == KM_OK)
        snprintf(runtime, sizeof runtime, " -ex 'set substitute-path %s %s'", KM_RUNTIME_SOURCE,
                 data.dir);
    km_data_free(&data);
    fprintf(stderr,
            "kmrun: waiting for GDB on port %d: gdb-multiarch -q -ex 'file %s' "
            "-ex 'directory %s'%s -ex 'target remote :%d'\n",
            bound, km_session_image_of(s, 0), p->root, runtime, bound);
    fflush(stderr);
    int fd = km_gdb_accept(lfd);
    close(lfd);
    if (fd < 0)
        return km_fail(err, KM_EXIT_SYSTEM, "no GDB connected on port %d: %s", bound,
                       strerror(errno));
    debugged_run d = {.s = s, .ro = ro, .out = out, .t = target_of(s, card)};
    pthread_t run;
    if (!d.t || pthread_create(&run, NULL, run_thread, &d) != 0) {
        close(fd);
        km_gdb_card_free(d.t);
        return km_fail(err, KM_EXIT_SYSTEM, "cannot start the debugged run");
    }
    km_gdb_state st = km_gdb_serve_fd(fd, km_gdb_card_ops(), d.t, 0);
    close(fd);
    if (st == KM_GDB_KILLED) {
        /* The run is held where the debugger left it and cannot end
         * well: no result, nothing kept (the caller drops the folder). */
        return km_fail(err, KM_EXIT_FAILED, "the debugger killed the program before its end");
    }
    km_gdb_card_release(d.t); /* detached or gone: the rest as without it */
    pthread_join(run, NULL);
    km_gdb_card_free(d.t);
    if (d.rc != KM_OK)
        *err = d.err;
    return d.rc;
}
