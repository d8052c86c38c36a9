/* kmx_print: a print from thread code into this core's print buffer in LIM
 * (kmx_layout.h section 8), which the simulator (on a card, the host)
 * drains and formats.  Its own object in libkmx.a, so an image that never
 * prints carries none of it.  It never waits: a record that does not fit
 * is dropped and counted, so a print cannot hang a thread or change when
 * anything else happens but by its own few hundred cycles. */
#include <stdarg.h>

#include "kmx_internal.h"
#include "kmx_print_format.h"

int kmx_print(const char *format, ...)
{
    /* Encoded on the stack first: the record's size is known before a
     * slot of the shared ring is touched. */
    uint64_t rec[KMX_PRINT_RECORD_MAX_SLOTS];
    va_list ap;
    va_start(ap, format);
    unsigned n = kmx_print_encode(rec, format, ap, kmx_time());
    va_end(ap);
    volatile kmx_print_buffer *b = KMX_P(kmx_print_buffer, KMX_LIM_PRINT_BUFFER(kmx__hart()));
    uint32_t head = b->line.head;
    uint32_t used = head - b->line.tail;
    if (used > KMX_PRINT_SLOTS || n > KMX_PRINT_SLOTS - used) {
        b->line.dropped = b->line.dropped + 1u;
        return KMX_FULL;
    }
    for (unsigned i = 0; i < n; i++)
        b->slots[(head + i) % KMX_PRINT_SLOTS] = rec[i];
    kmx__release();
    b->line.head = head + n;
    return KMX_OK;
}
