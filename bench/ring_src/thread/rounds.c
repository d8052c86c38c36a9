/* bench/ring's thread: words[0] rounds of two commands — a built-in nop
 * on Tensix core 0 with KM_FLAG_RESULT — each submitted and waited for in
 * turn, timed with the 50 MHz timer (kmx_time, 20 ns a tick).
 *
 * Result words:
 *   0  rounds done
 *   1  the first round, ticks (it starts at an arbitrary phase of the
 *      kernel's loop; the others start where the last one left off)
 *   2  every round together, ticks
 *   3  the shortest round, ticks
 *   4  the longest round, ticks
 *   5  events that were not a done of the handle waited for
 *   6  commands submitted
 *   7  KMX_FULL answers to kmx_submit (each retried at once) */
#include "kmx.h"

int kmx_main(int core)
{
    (void)core;
    uint32_t n = 0;
    const uint32_t *args = kmx_args_get(&n);
    uint32_t rounds = n > 0 ? args[0] : 0;
    km_command_t c = {0};
    c.hdr = KM_HDR(KM_HANDLER_NOP, KM_FLAG_RESULT);
    c.group = KM_GROUP(0, 1);
    uint32_t words[8] = {0};
    words[3] = 0xffffffffu;
    uint64_t all0 = kmx_time();
    for (uint32_t r = 0; r < rounds; r++) {
        uint64_t t0 = kmx_time();
        for (int k = 0; k < 2; k++) {
            uint32_t h;
            int s;
            while ((s = kmx_submit(&c, &h)) == KMX_FULL) {
                words[7]++;
                if (kmx_stop_requested()) {
                    return 3;
                }
            }
            if (s != KMX_OK) {
                return 10 + s;
            }
            words[6]++;
            kmx_event e;
            s = kmx_wait(h, kmx_time() + BH_TICKS_PER_SECOND, &e);
            if (s != KMX_OK) {
                return 20 + s;
            }
            if (e.kind != KM_EVENT_DONE || e.handle != h) {
                words[5]++;
            }
        }
        uint32_t t = (uint32_t)(kmx_time() - t0);
        if (r == 0) {
            words[1] = t;
        }
        words[3] = t < words[3] ? t : words[3];
        words[4] = t > words[4] ? t : words[4];
        words[0] = r + 1;
    }
    words[2] = (uint32_t)(kmx_time() - all0);
    if (rounds == 0) {
        words[3] = 0;
    }
    kmx_result(0, words, 8);
    return 0;
}
