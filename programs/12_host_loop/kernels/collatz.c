/* 12_host_loop's kernel: one handler, `collatz`.  The group's leader
 * takes a0 and returns the next number of its Collatz sequence as its
 * result word: a0 / 2 when a0 is even, 3 * a0 + 1 when it is odd (modulo
 * 2^32); the other cores of the group do nothing. */
#include "km_device.h"
#include "kmrun_handlers.h"

KM_HANDLER(collatz)
{
    if (!km_is_leader(core))
        return;
    uint32_t n = command->a0;
    km_compute(core, 1);
    km_set_result(core, n % 2u == 0 ? n / 2u : 3u * n + 1u);
}
