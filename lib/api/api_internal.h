/* api_internal: what lib/api/'s files share — the handles behind
 * include/kmrun.h's opaque types, and the one way a failure becomes a
 * kmrun_error.  Nothing here is exported: it is lib/api/'s own. */
#ifndef KM_API_INTERNAL_H
#define KM_API_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "blackhole.h"
#include "km_cache.h"
#include "km_error.h"
#include "km_program.h"
#include "km_program_code.h"
#include "km_run_record.h"
#include "km_session.h"
#include "kmrun.h"

struct kmrun_error {
    kmrun_status status;
    char *message;
};

struct kmrun_program {
    km_program *p; /* the model: a manifest's, or code.p */
    int clusters[BH_WORK_CLUSTERS]; /* every thread's clusters, ascending */
    size_t nclusters;
    /* Built in code (kmrun_program_new): its document (km_program_code.h);
     * code.doc NULL for a manifest's.  `in_use`: loaded once, so checked
     * whole and no longer changed. */
    km_code code;
    bool in_use;
};

/* Before a load of p: a program built in code checked whole (as
 * kmrun_program_check) and from then on unchanged; a manifest's: nothing
 * to do.  KMRUN_USAGE with the program's errors. */
kmrun_status km_api_program_ready(kmrun_program *p, kmrun_error **err);

struct kmrun_session {
    km_backend backend;
    char *cache_root; /* the cache's folder, chosen at the open */
    char *runs;       /* where run folders go, chosen at the open */
    bool run_folder, check_handover;
    double wall_timeout_s;
    kmrun_callbacks callbacks;
    struct kmrun_run *run; /* its one run, until kmrun_run_free */
};

struct kmrun_run {
    kmrun_session *owner; /* NULL once the session is closed */
    const kmrun_program *program;
    kmrun_callbacks callbacks;
    double wall_timeout_s;
    km_cache cache; /* open for the run: the images it loaded stay pinned */
    km_session *s;
    km_run_record rec;
    bool stopped;
    /* A wait that failed: the status and message it said, said again by
     * the next (the session cannot run again). */
    int failed;
    km_error fail_err;
    km_run_result result;
    const km_region_copy *copies; /* the session's */
    size_t ncopies;
};

/* Sets *err (when err is not NULL) to a new error of `status` with
 * `message` (copied); returns the status.  Out of memory for it: a shared
 * error of KMRUN_SYSTEM, which kmrun_error_free leaves. */
kmrun_status km_api_error(kmrun_error **err, int status, const char *message);

/* The same from a failure of the library: its status and km_error. */
kmrun_status km_api_fail(kmrun_error **err, int status, const km_error *e);

/* The same with a message made as km_fail makes it (names KS_QUOTED). */
kmrun_status km_api_usage(kmrun_error **err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
