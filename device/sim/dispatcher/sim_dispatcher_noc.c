/* sim_dispatcher_noc: ring memory behind the NoC (sim_dispatcher.h,
 * sim_ring_noc_mem) — the kernel's reads and writes of a thread's ring,
 * cut into the naturally aligned pieces the router carries. */
#include "sim_dispatcher.h"

#include <string.h>

#include "sim_noc.h"

/* The largest naturally aligned piece (8, 4, 2, 1 bytes) at `at` that
 * fits in `left`. */
static unsigned piece(uint64_t at, size_t left)
{
    unsigned size = 8;
    while (size > 1 && (at % size != 0 || size > left)) {
        size /= 2;
    }
    return size;
}

static void noc_read(void *ctx, uint64_t address, void *out, size_t bytes)
{
    sim_ring_noc *port = ctx;
    uint8_t *dst = out;
    for (size_t done = 0; done < bytes;) {
        unsigned size = piece(address + done, bytes - done);
        uint64_t value = 0;
        if (sim_noc_load(port->noc, port->x, port->y, address + done, size, &value, 0) != 0) {
            value = 0;
        }
        memcpy(dst + done, &value, size); /* little-endian, as the card */
        done += size;
    }
}

static void noc_write(void *ctx, uint64_t address, const void *in, size_t bytes)
{
    sim_ring_noc *port = ctx;
    const uint8_t *src = in;
    for (size_t done = 0; done < bytes;) {
        unsigned size = piece(address + done, bytes - done);
        uint64_t value = 0;
        memcpy(&value, src + done, size);
        (void)sim_noc_store(port->noc, port->x, port->y, address + done, size, value, 0);
        done += size;
    }
}

sim_ring_mem sim_ring_noc_mem(sim_ring_noc *port)
{
    sim_ring_mem m = {port, noc_read, noc_write};
    return m;
}
