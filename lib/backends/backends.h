/* backends: the backends' tables of functions (km_backend_ops,
 * session_internal.h), one a backend, and the one place that picks a
 * table from a km_backend: km_session_open (km_session.h), defined in
 * backends.c.  The session below knows no backend by name. */
#ifndef KM_BACKENDS_H
#define KM_BACKENDS_H

#include "session_internal.h"

extern const km_backend_ops km_sim_backend;  /* backend_sim.c */
extern const km_backend_ops km_host_backend; /* backend_host.c */

#endif
