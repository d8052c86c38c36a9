/* kmx_host_print: kmx_print on the host fallback — the same record as
 * the card's (kmx_print_format.h), handed to kmrun, which puts it in the
 * core's buffer in the simulated card beside the card's own, so the same
 * format gives the same text.  Its time is the host's (kmrun stamps it). */
#include <stdarg.h>

#include "kmx_host_internal.h"
#include "kmx_print_format.h"

int kmx_print(const char *format, ...)
{
    uint64_t rec[KMX_PRINT_RECORD_MAX_SLOTS];
    va_list ap;
    va_start(ap, format);
    unsigned n = kmx_print_encode(rec, format, ap, 0);
    va_end(ap);
    return kmx_host.ctx->print(kmx_host.ctx->ops, (uint32_t)kmx_host_core, rec, n);
}
