/* grid_print: km_print, a handler's print into its Tensix core's print
 * buffer (kmx_layout.h section 8, at KM_PRINT_L1 of the core's L1: here
 * host memory the grid keeps), the same records as kmx_print's, drained
 * by the card with the X280 cores' (sim_card_drain_prints).  A print
 * costs no modeled time, so a handler's times are the same with or
 * without its prints; it never waits: a full buffer drops and counts. */
#include <stdarg.h>
#include <stdlib.h>

#include "grid_internal.h"
#include "kmx_print_format.h"
#include "sim_print.h"

KMX_STATIC_ASSERT(KM_PRINT_L1 >= KM_CONTROL_X280_L1 + KM_CONTROL_X280_BYTES,
                  "the print buffer follows the control block's X280 area");

kmx_print_buffer *sim_grid_print_buffer(sim_grid *g, unsigned core)
{
    return core < BH_GRID_CORES ? g->prints[core] : NULL;
}

int km_print(km_core *c, const char *format, ...)
{
    sim_grid *g = c->grid;
    if (!g->prints[c->id]) {
        g->prints[c->id] = calloc(1, sizeof *g->prints[c->id]);
        if (!g->prints[c->id]) { /* the print is lost: the run must not end as if whole */
            grid_fail(g, KS_ERR_SYSTEM, "out of memory for a core's print buffer");
            return -1;
        }
    }
    uint64_t rec[KMX_PRINT_RECORD_MAX_SLOTS];
    va_list ap;
    va_start(ap, format);
    /* The format and a %s are the handler's (a fault there: grid_trap.c). */
    c->call_from = __builtin_return_address(0);
    unsigned n = kmx_print_encode(rec, format, ap, c->time_ps);
    c->call_from = NULL;
    va_end(ap);
    return sim_print_put(g->prints[c->id], rec, n) ? 0 : -1;
}
