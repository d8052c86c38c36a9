/* kmx_fallback: the thread of a host fallback given as a function of the
 * host program (kmx_host.h, "A fallback that is a function of the host
 * program").  Its kmx_main hands the thread's regions, words, ring and
 * clock to the function kmrun hooked into this copy of the object, and
 * returns what the function returns, its result words stored first.  The
 * runtime around it is the fallback's own (libkmx_host.a): the stop, the
 * deadline, the flush at the end, the result block. */
#include "kmx.h"
#include "kmx_host.h"

/* Set by kmrun in each cluster's copy of this object once it is loaded. */
kmx_host_fallback kmx_host_fallback_hook;

static int ring_wait(uint32_t handle, uint64_t deadline, km_event_t *event)
{
    kmx_event e = {0};
    int rc = kmx_wait(handle, deadline, &e);
    *event = (km_event_t){.kind = (uint16_t)e.kind, .reason = (uint16_t)e.reason,
                          .handle = e.handle, .ticks = e.ticks};
    return rc;
}

static int ring_poll(km_event_t *event)
{
    kmx_event e = {0};
    int rc = kmx_poll(&e);
    *event = (km_event_t){.kind = (uint16_t)e.kind, .reason = (uint16_t)e.reason,
                          .handle = e.handle, .ticks = e.ticks};
    return rc;
}

int kmx_main(int core)
{
    (void)core;
    kmx_host_fallback_io io = {0};
    io.cluster = (uint32_t)kmx_cluster();
    for (uint32_t id = 0; id < KMX_MAX_REGIONS; id++) {
        uint64_t bytes = 0;
        void *at = kmx_region(id, &bytes);
        if (!at)
            break;
        io.region[id] = at;
        io.bytes[id] = bytes;
        kmx_region_address(id, &io.bank[id], &io.address[id]);
        io.nregions = id + 1;
    }
    io.words = kmx_args_get(&io.nwords);
    io.submit = kmx_submit;
    io.wait = ring_wait;
    io.poll = ring_poll;
    io.time = kmx_time;
    io.stop_requested = kmx_stop_requested;
    io.flush = kmx_flush;
    io.invalidate = kmx_invalidate;
    if (!kmx_host_fallback_hook.call) {
        kmx_print("no host fallback function was given for this thread");
        return -1;
    }
    int code = kmx_host_fallback_hook.call(kmx_host_fallback_hook.ctx, &io);
    if (io.nout > KMX_MAX_RESULT_WORDS)
        io.nout = KMX_MAX_RESULT_WORDS;
    kmx_result(0, io.out, io.nout);
    return code;
}
