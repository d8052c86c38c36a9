/* backends: km_session_open (km_session.h) — a km_backend's table of
 * functions, and the session opened with it (km_session_open_ops). */
#include "backends.h"

#include <stddef.h>

int km_session_open(km_session **out, const km_program *p, km_backend b, km_error *err)
{
    *out = NULL;
    const km_backend_ops *ops = NULL;
    if (b == KM_BACKEND_SIM)
        ops = &km_sim_backend;
    else if (b == KM_BACKEND_HOST)
        ops = &km_host_backend;
    if (!ops)
        return km_fail(err, KM_EXIT_USAGE, "the '%s' backend is not available in this kmrun",
                       km_backend_name(b));
    return km_session_open_ops(out, p, ops, err);
}
