/* 10_x280_ports' kernel: one handler, `ask` (spec "X280 ports").
 *
 * Arguments: a0 asks: how many times each core of the group asks.
 *
 * Each core asks its X280 core `asks` times through its port, question q
 * = core * 65536 + i, and checks every answer: w[0] = 2q (the serve
 * loop's answer) and the sequence of its own ask (km_port_call takes only
 * that one).  Then it tells its X280 core (asks, sum of its questions)
 * and waits for the X280 core's tell back, which must say how many asks
 * that X280 core answered for it and the sum of their questions.  Its
 * slot in region `results` of the thread on cluster 1 gets
 * {RESULT_MAGIC, answers right, errors, round trips in ns (sum)}: the
 * thread checks every core's. */
#include "km_device.h"
#include "kmrun_handlers.h"

#define RESULT_MAGIC 0x504F5254u /* "PORT" */
#define SLOT_BYTES 16u

KM_HANDLER(ask)
{
    uint32_t asks = command->a0, id = km_core_id(core);
    uint32_t right = 0, errors = 0;
    uint64_t sum = 0, waited_ps = 0;
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
        sum += q;
    }
    km_x280_msg_t back;
    if (!km_port_tell(port, asks, (uint32_t)sum, 0) || !km_port_wait(port, &back) ||
        back.w[0] != right || back.w[1] != (uint32_t)sum)
        errors++;
    unsigned bank;
    uint64_t at, bytes;
    uint32_t slot[4] = {RESULT_MAGIC, right, errors, (uint32_t)(waited_ps / 1000u)};
    if (km_region_address(core, 1, "results", &bank, &at, &bytes) == 0 &&
        (uint64_t)(id + 1u) * SLOT_BYTES <= bytes)
        (void)km_noc_write(core, bank, at + (uint64_t)id * SLOT_BYTES, slot, sizeof slot);
}
