/* A Tensix handler to start from (kmrun new, template "ports"; after
 * programs/10_x280_ports).  `ask` (a0: asks): each core of the group asks
 * the X280 core that serves it `asks` times through its port, question
 * q = core * 65536 + i, and checks every answer (2q, the thread's serve
 * loop's); then it writes its slot in region `results` of the thread on
 * cluster 1: {SLOT_MAGIC, answers right, errors, 0}. */
#include "km_device.h"
#include "kmrun_handlers.h"

#define SLOT_MAGIC 0x504F5254u /* "PORT" */
#define SLOT_BYTES 16u

KM_HANDLER(ask)
{
    uint32_t asks = command->a0, id = km_core_id(core);
    uint32_t slot[4] = {SLOT_MAGIC, 0, 0, 0};
    km_port *port = km_port_of(core, KM_KERNEL_READER);
    for (uint32_t i = 0; i < asks; i++) {
        uint32_t q = id * 65536u + i;
        km_x280_msg_t answer;
        if (!km_port_call(port, q, 0, 0, &answer)) {
            slot[2]++;
            break; /* the wait gave up */
        }
        if (answer.w[0] == 2u * q)
            slot[1]++;
        else
            slot[2]++;
    }
    unsigned bank;
    uint64_t at, bytes;
    if (km_region_address(core, 1, "results", &bank, &at, &bytes) == 0 &&
        (id + 1u) * SLOT_BYTES <= bytes)
        (void)km_noc_write(core, bank, at + id * SLOT_BYTES, slot, sizeof slot);
}
