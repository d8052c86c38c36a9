/* 05_from_host's kernel: one handler, `fold`.  The group's leader reads
 * a3 32-bit words at bank a0, address a1 (low) / a2 (high), and returns
 * their fold h = h * 31 + word (from h = 0, modulo 2^32) as its result
 * word; the other cores of the group do nothing. */
#include "km_device.h"
#include "kmrun_handlers.h"

KM_HANDLER(fold)
{
    if (!km_is_leader(core))
        return;
    uint64_t at = KM_ARG_ADDRESS(command->a1, command->a2);
    uint32_t h = 0, words[256];
    for (uint32_t i = 0; i < command->a3; i += 256) {
        uint32_t n = command->a3 - i < 256 ? command->a3 - i : 256;
        if (km_noc_read(core, command->a0, at + (uint64_t)i * 4u, words, (uint64_t)n * 4u) != 0) {
            km_set_result(core, 0);
            return;
        }
        for (uint32_t k = 0; k < n; k++)
            h = h * 31u + words[k];
        km_compute(core, n);
    }
    km_set_result(core, h);
}
