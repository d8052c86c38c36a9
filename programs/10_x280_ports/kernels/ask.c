/* 10_x280_ports' kernels (spec "X280 ports").
 *
 * `ask` (a0: asks): each core of the group asks its X280 core `asks`
 * times through its port, question q = core * 65536 + i, and checks every
 * answer: w[0] = 2q (the serve loop's) — km_port_call takes only the
 * answer that carries its own ask's sequence.  Its slot in region
 * `results` of the thread on cluster 1 gets {RESULT_MAGIC, answers
 * right, errors, the round trips' sum in ns}.
 *
 * `echo` (a0: a key): each core tells its X280 core (key, core) — a tell
 * never waits — and waits for the tell back, which must carry the same
 * two words; slot word 2 counts a failure.  The thread checks every
 * core's slot after each command. */
#include "km_device.h"
#include "kmrun_handlers.h"

#define RESULT_MAGIC 0x504F5254u /* "PORT" */
#define SLOT_BYTES 16u

/* The core's slot in cluster 1's `results`: written, or read back. */
static int slot_io(km_core *core, uint32_t slot[4], bool write)
{
    unsigned bank;
    uint64_t at, bytes, id = km_core_id(core);
    if (km_region_address(core, 1, "results", &bank, &at, &bytes) != 0 ||
        (id + 1u) * SLOT_BYTES > bytes)
        return -1;
    at += id * SLOT_BYTES;
    return write ? km_noc_write(core, bank, at, slot, 4u * sizeof slot[0])
                 : km_noc_read(core, bank, at, slot, 4u * sizeof slot[0]);
}

KM_HANDLER(ask)
{
    uint32_t asks = command->a0, id = km_core_id(core);
    uint32_t right = 0, errors = 0;
    uint64_t waited_ps = 0;
    km_port *port = km_port_of(core, KM_KERNEL_READER);
    for (uint32_t i = 0; i < asks; i++) {
        uint32_t q = id * 65536u + i;
        km_x280_msg_t answer;
        uint64_t before = km_time_ps(core);
        if (!km_port_call(port, q, 0, 0, &answer)) {
            errors++;
            break; /* the wait gave up: km_port_where says where */
        }
        waited_ps += km_time_ps(core) - before;
        if (answer.w[0] == 2u * q)
            right++;
        else
            errors++;
    }
    uint32_t slot[4] = {RESULT_MAGIC, right, errors, (uint32_t)(waited_ps / 1000u)};
    (void)slot_io(core, slot, true);
}

KM_HANDLER(echo)
{
    uint32_t key = command->a0, id = km_core_id(core);
    km_port *port = km_port_of(core, KM_KERNEL_READER);
    km_x280_msg_t back;
    bool ok = km_port_tell(port, key, id, 0) && km_port_wait(port, &back) && back.w[0] == key &&
              back.w[1] == id;
    uint32_t slot[4];
    if (slot_io(core, slot, false) == 0 && !ok) {
        slot[2]++;
        (void)slot_io(core, slot, true);
    }
}
