/* kmx_host.h: the contract between kmrun and a thread built for the host
 * fallback (spec "From the host": "A thread is developed this way first,
 * and its card result is checked against it bit for bit").
 *
 * `kmrun build` compiles the thread's sources with the host compiler
 * against the same kmx.h and links them with the fallback runtime
 * (kmx/host/, libkmx_host.a) into a shared object.  kmrun loads one copy
 * per cluster, fills a kmx_host_ctx and calls kmx_host_run on a thread of
 * its own: the runtime runs kmx_main on that thread as core 0 and cores 1
 * to 3 on threads it starts, with the card runtime's rules and errors, and
 * writes the result block as the card runtime does (kmx_layout.h section
 * 5), so one reader turns both into a thread result.
 *
 * Memory.  `region[id]` is the thread's own copy of region id — what its
 * cluster's cache would hold.  The card's DRAM is the simulated card's
 * (the grid reads and writes it); the copy and DRAM meet only where they
 * would on the card: kmx_flush writes the copy's changed lines to DRAM,
 * kmx_invalidate does that and then reloads every line from DRAM, and
 * kmx_host_run flushes every region at the end.  A thread that forgets one
 * reads stale bytes here as it would on the card.
 *
 * Every callback may be called from any of the four cores' threads; kmrun
 * serialises them.  None is called after kmx_host_run returns. */
#ifndef KMX_HOST_H
#define KMX_HOST_H

#include <stdint.h>

#include "kmx_layout.h"

#define KMX_HOST_ABI 1u

typedef struct kmx_host_ctx {
    uint32_t abi;            /* KMX_HOST_ABI */
    uint32_t cluster;        /* 1..3 */
    const kmx_args *args;    /* the argument block the card would get */
    void *region[KMX_MAX_REGIONS]; /* the thread's copies, args->nregions of them */
    kmx_result_block *result; /* zero but the nonce; the runtime fills it */
    volatile uint32_t *stop; /* non-zero once the host asks the thread to stop */

    void *ops; /* the first argument of every callback */
    /* Region lines changing hands (offsets and sizes in bytes, whole 64-byte
     * lines: the runtime rounds outwards as the card's sweeps do). */
    void (*flush)(void *ops, uint32_t id, uint64_t offset, uint64_t bytes);
    void (*invalidate)(void *ops, uint32_t id, uint64_t offset, uint64_t bytes);
    /* The ring (core 0 only; the runtime enforces it): submit a command
     * through the host ring — KMX_OK with *handle, or KMX_FULL; take the
     * next event if there is one — KMX_OK or KMX_EMPTY; run the card's
     * kernel side (dispatcher, grid) one pass on, which is how modeled time
     * moves while the thread waits. */
    int (*submit)(void *ops, const km_command_t *command, uint32_t *handle);
    int (*poll)(void *ops, km_event_t *event);
    void (*step)(void *ops);
    /* A call the fallback cannot honour (X280 ports, twelve cores, the
     * pull: the spec says such threads run on the card).  kmrun records
     * `call` (its name, e.g. "kmx_port_open") for its error message; the
     * runtime then stops the run (state failed). */
    void (*unsupported)(void *ops, const char *call);
} kmx_host_ctx;

/* Runs the thread to its end and fills ctx->result (its state last).
 * Returns 0, or -1 when ctx is not usable (wrong abi, NULL fields): then
 * nothing ran. */
int kmx_host_run(kmx_host_ctx *ctx);

#endif
