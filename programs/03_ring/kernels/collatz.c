/* 03_ring's kernel: one handler, `collatz`.
 *
 * Arguments (all in the thread's bank, addresses low word first):
 *   a0      bank
 *   a1, a2  bank address of the live values (32-bit words)
 *   a3      n: how many values are live, at the start of the array
 *   a4      per: values a core takes (core i of the group: [i * per,
 *           i * per + per), cut at n; the thread chooses it)
 *   a5, a6  bank address of the counts table: one 64-byte slot a core
 *   a7      round: the tag each core writes into its slot
 *   a8      K: Collatz steps at most per value
 *
 * Every core of the group reads its share, advances each value by up to K
 * steps (v / 2 if even, 3v + 1 if odd) and writes the values that have not
 * reached 1 back to the start of its own share, in order; then its slot:
 * {round, survivors, steps taken, status}.  The leader then waits until
 * every other core's slot carries this round's tag (a rendezvous through
 * DRAM: km_device.h has no group barrier) and returns the group's
 * survivors as its result word, or RING_ERROR when a share overflowed
 * 32 bits, an argument is out of range or the rendezvous did not end. */
#include "km_device.h"
#include "kmrun_handlers.h"

#define RING_ERROR 0xFFFFFFFFu
#define MAX_GROUP 16u      /* cores a command may use: slots in the table */
#define MAX_PER 1024u      /* values a core may take */
#define SLOT_WORDS 16u     /* one 64-byte slot a core */
#define STEP_CYCLES 3u     /* a Collatz step on a Tensix core */
#define VALUE_CYCLES 4u    /* loading, testing and keeping a value */
#define RENDEZVOUS_TRIES 100000u /* each a NoC read (600 ns): 60 ms */

enum { SLOT_ROUND, SLOT_SURVIVORS, SLOT_STEPS, SLOT_STATUS };

KM_HANDLER(collatz)
{
    unsigned bank = command->a0;
    uint64_t live = KM_ARG_ADDRESS(command->a1, command->a2);
    uint64_t counts = KM_ARG_ADDRESS(command->a5, command->a6);
    uint32_t n = command->a3, per = command->a4, round = command->a7, k = command->a8;
    unsigned index = km_group_index(core), count = km_group_count(core);

    uint32_t slot[SLOT_WORDS] = {0};
    slot[SLOT_ROUND] = round;
    uint32_t values[MAX_PER];
    if (per == 0 || per > MAX_PER || count > MAX_GROUP) {
        slot[SLOT_STATUS] = 1;
    } else {
        uint64_t start = (uint64_t)index * per;
        uint32_t mine = start < n ? (n - start < per ? (uint32_t)(n - start) : per) : 0;
        if (mine > 0 && km_noc_read(core, bank, live + 4u * start, values, 4u * mine) != 0)
            slot[SLOT_STATUS] = 1;
        uint32_t kept = 0, steps = 0;
        for (uint32_t i = 0; i < mine && slot[SLOT_STATUS] == 0; i++) {
            uint32_t v = values[i];
            for (uint32_t s = 0; s < k && v > 1; s++, steps++) {
                if (v % 2 == 0) {
                    v /= 2;
                } else if (v > (0xFFFFFFFFu - 1u) / 3u) {
                    slot[SLOT_STATUS] = 1; /* 3v + 1 would not fit */
                    break;
                } else {
                    v = 3u * v + 1u;
                }
            }
            if (v > 1)
                values[kept++] = v; /* kept <= i: in place, in order */
        }
        km_compute(core, (uint64_t)STEP_CYCLES * steps + (uint64_t)VALUE_CYCLES * mine);
        if (slot[SLOT_STATUS] == 0 && kept > 0 &&
            km_noc_write(core, bank, live + 4u * start, values, 4u * kept) != 0)
            slot[SLOT_STATUS] = 1;
        slot[SLOT_SURVIVORS] = kept;
        slot[SLOT_STEPS] = steps;
    }
    /* The values land before the slot that says they are there. */
    if (km_noc_write(core, bank, counts + 64u * index, slot, sizeof slot) != 0 ||
        !km_is_leader(core))
        return;
    if (slot[SLOT_STATUS] != 0) {
        km_set_result(core, RING_ERROR);
        return;
    }

    /* The leader: wait for the others' slots of this round, add them up. */
    uint32_t table[MAX_GROUP * SLOT_WORDS];
    for (uint32_t tries = 0; tries < RENDEZVOUS_TRIES && !km_stop_requested(core); tries++) {
        if (km_noc_read(core, bank, counts, table, 64u * count) != 0)
            break;
        uint32_t total = 0, ready = 1, bad = 0;
        for (unsigned c = 0; c < count; c++) {
            const uint32_t *s = &table[c * SLOT_WORDS];
            ready &= s[SLOT_ROUND] == round;
            bad |= s[SLOT_STATUS];
            total += s[SLOT_SURVIVORS];
        }
        if (ready) {
            km_compute(core, (uint64_t)VALUE_CYCLES * count);
            km_set_result(core, bad ? RING_ERROR : total);
            return;
        }
    }
    km_set_result(core, RING_ERROR);
}
