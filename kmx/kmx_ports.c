/* kmx_ports.c: X280 ports and the pull (spec "X280 ports", "The pull").
 *
 * Not live yet: they need the simulated grid.  Until then they are
 * kmx_ports_absent.h's, as on the host fallback: the loop calls return
 * values that end a serve loop at once, the others KMX_BAD, and the
 * core-0-only ones already enforce who may call them.  Their layout is in
 * kmx_layout.h: kmx_ports_area, kmx_ports_settings, km_x280_msg_t,
 * kmx_pull_counters, KMX_PULL_LOG_*. */
#include "kmx_internal.h"
#include "kmx_ports_absent.h"

/* Not live: nothing recorded, KMX_BAD. */
static int not_live(const char *call) {
    (void)call;
    return KMX_BAD;
}

KMX_PORTS_ABSENT(not_live, kmx__core0_only)
