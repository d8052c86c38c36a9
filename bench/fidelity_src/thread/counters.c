/* bench/fidelity's Tensix-only pages (spec "Where data lives": "its
 * counters took 247 us in bank 6 and 59 us interleaved"): the thread on
 * cluster 1 submits kernels/counters.c's `count` on Tensix cores 0..118,
 * each reading, updating and writing back its own 4 KiB page of 1,024
 * counters in this thread's region `counters` (bank 6), one round, and
 * waits for it.  Interleaved tensors are not modeled: only the bank-6
 * half of the figure is measured.
 *
 * Result words: [the command's time in ticks (its DONE event), pages that
 * failed to move].  Code 0, or 2: the command did not end DONE. */
#include "kmx.h"
#include "kmrun_handlers.h"

int kmx_main(int core)
{
    (void)core;
    km_command_t command = {0};
    command.hdr = KM_HDR(HANDLER_COUNT, 0);
    command.group = KM_GROUP(0, 119);
    command.a0 = 1;
    uint32_t handle;
    kmx_event event;
    if (kmx_submit(&command, &handle) != KMX_OK ||
        kmx_wait(handle, kmx_time() + KMX_TICKS_PER_SECOND, &event) != KMX_OK ||
        event.kind != KM_EVENT_DONE)
        return 2;
    uint32_t time = event.ticks;
    /* the failures: the same command with KM_FLAG_RESULT */
    command.hdr = KM_HDR(HANDLER_COUNT, KM_FLAG_RESULT);
    if (kmx_submit(&command, &handle) != KMX_OK ||
        kmx_wait(handle, kmx_time() + KMX_TICKS_PER_SECOND, &event) != KMX_OK ||
        event.kind != KM_EVENT_DONE)
        return 2;
    uint32_t words[2] = {time, event.ticks};
    kmx_result(0, words, 2);
    return 0;
}
