/* backends: km_session_open and km_backend_available (km_session.h) — a km_backend's table of
 * functions, and the session opened with it (km_session_open_ops). */
#include "backends.h"

#include <stddef.h>

static const km_backend_ops *ops_of(km_backend b)
{
    if (b == KM_BACKEND_SIM)
        return &km_sim_backend;
    if (b == KM_BACKEND_HOST)
        return &km_host_backend;
    return NULL;
}

int km_backend_available(km_backend b, km_error *err)
{
    if (ops_of(b))
        return KM_OK;
    return km_fail(err, KM_EXIT_USAGE, "the '%s' backend is not available in this kmrun",
                   km_backend_name(b));
}

int km_session_open(km_session **out, const km_program *p, km_backend b, km_error *err)
{
    *out = NULL;
    int rc = km_backend_available(b, err);
    return rc == KM_OK ? km_session_open_ops(out, p, ops_of(b), err) : rc;
}
