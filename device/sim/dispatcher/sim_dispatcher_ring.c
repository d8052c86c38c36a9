/* sim_dispatcher_ring: the host side of one command ring (sim_dispatcher.h):
 * the writer of commands and the reader of events, as the protocol wants
 * them.  The session feeds host-fed programs through it; the tests play the
 * thread with it. */
#include "sim_dispatcher.h"

#include <string.h>

void sim_ring_host_init(sim_ring_host *h, const sim_ring_mem *commands_side,
                        const sim_ring_mem *events_side, const kmx_ring_descriptor *desc)
{
    memset(h, 0, sizeof *h);
    h->commands_side = *commands_side;
    h->events_side = *events_side;
    h->desc = *desc;
}

int sim_ring_host_submit(sim_ring_host *h, const km_command_t *command, uint32_t *handle)
{
    uint32_t i = h->submitted + 1;
    uint32_t depth = h->desc.command_depth;
    kmx_ring_counts counts;
    h->events_side.read(h->events_side.ctx, h->desc.counts, &counts, sizeof counts);
    /* Slot i % depth still holds command i - depth until the kernel has
     * consumed it. */
    if (i > depth && counts.consumed < i - depth) {
        return SIM_RING_FULL;
    }
    uint64_t at = h->desc.commands + (uint64_t)(i % depth) * sizeof(km_command_line);
    km_command_line line;
    line.command = *command;
    line.sequence = i;
    line.land[0] = command->hdr;
    line.land[1] = command->group;
    line.land[2] = ~i;
    /* Words first; then the number and the landing words in one 16-byte
     * write, so the kernel sees a line whole or waits. */
    h->commands_side.write(h->commands_side.ctx, at, &line.command, sizeof line.command);
    h->commands_side.write(h->commands_side.ctx, at + offsetof(km_command_line, sequence),
                           &line.sequence, 16);
    h->submitted = i;
    *handle = i;
    return SIM_RING_OK;
}

int sim_ring_host_poll(sim_ring_host *h, km_event_t *event)
{
    uint32_t e = h->taken + 1;
    uint64_t at = h->desc.events + (uint64_t)(e % h->desc.event_depth) * sizeof(km_event_t);
    uint32_t before, after;
    km_event_t ev;
    h->events_side.read(h->events_side.ctx, at, &before, sizeof before);
    if (before != e) {
        return SIM_RING_EMPTY;
    }
    h->events_side.read(h->events_side.ctx, at + 4, (uint8_t *)&ev + 4, sizeof ev - 4);
    h->events_side.read(h->events_side.ctx, at, &after, sizeof after);
    if (after != e) {
        return SIM_RING_EMPTY; /* rewritten while we read: not this event */
    }
    ev.index = e;
    *event = ev;
    h->taken = e;
    /* The kernel may reuse the slot once it sees this. */
    h->commands_side.write(h->commands_side.ctx, h->desc.read_line + offsetof(kmx_ring_read_line, taken),
                           &e, sizeof e);
    return SIM_RING_OK;
}
