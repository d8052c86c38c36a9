/* kmx_ring.c: the thread's command ring (spec "The command ring").
 *
 * Not live yet: the device behaviour (the dispatcher reading the ring)
 * arrives with the simulated card.  The calls keep their final contract
 * for who may call them (core 0 only: the library error `parallel`
 * otherwise) and return KMX_BAD.  The layout they will use is in
 * kmx_layout.h: kmx_ring_descriptor (the ring line), km_command_line,
 * km_event_t, kmx_ring_counts, kmx_ring_read_line. */
#include "kmx_internal.h"

int kmx_submit(const km_command_t *command, uint32_t *handle) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    (void)command;
    if (handle != 0) {
        *handle = 0;
    }
    return KMX_BAD;
}

int kmx_wait(uint32_t handle, uint64_t deadline, kmx_event *event) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    (void)handle;
    (void)deadline;
    (void)event;
    return KMX_BAD;
}

int kmx_poll(kmx_event *event) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    (void)event;
    return KMX_BAD;
}
