/* A Tensix handler to start from (kmrun new, template "host-fed"; after
 * programs/04_host_fed).  `weigh`: the group's leader reads a3 32-bit
 * words at bank a0, address a1 (low) / a2 (high), and returns
 * sum((i + 1) * word[i]) modulo 2^32 as its result word; the other cores
 * of the group do nothing. */
#include "km_device.h"
#include "kmrun_handlers.h"

KM_HANDLER(weigh)
{
    if (!km_is_leader(core))
        return;
    uint64_t at = KM_ARG_ADDRESS(command->a1, command->a2);
    uint32_t total = 0, words[256];
    for (uint32_t i = 0; i < command->a3; i += 256) {
        uint32_t n = command->a3 - i < 256 ? command->a3 - i : 256;
        if (km_noc_read(core, command->a0, at + (uint64_t)i * 4u, words, (uint64_t)n * 4u) != 0) {
            km_set_result(core, 0);
            return;
        }
        for (uint32_t k = 0; k < n; k++)
            total += (i + k + 1) * words[k];
        km_compute(core, n); /* modeled compute time: n steps */
    }
    km_print(core, "weighed %u words: %u", command->a3, total);
    km_set_result(core, total);
}
