/* bench/fidelity's port costs on the X280 side (spec "X280 ports": "a
 * look at a mailbox line costs 259 cycles, a tell 144"), with
 * programs/10_x280_ports' kernels: Tensix core 0, served by X280 core 0
 * of cluster 1 (the manifest's serve map), runs `ask` (asks words[0]
 * times) and then `echo` (tells once and waits for the tell back).  The
 * serve loop is the spec's; rdcycle (the X280's clock) around each
 * kmx_port_asked that takes an ask (a look at a mailbox line: it reads
 * the line's message, which is what costs; a look that finds nothing
 * reads only the sequence and is counted apart) and around the
 * kmx_port_tell that echoes, its arguments already in registers (the
 * call, not the loads of the caller's message off its stack).
 *
 * Result words: [looks that took an ask, their cycles, tells, their
 * cycles, asks answered, looks that found nothing, their cycles].  Code
 * 0, or 2: a command failed. */
#include "kmx.h"
#include "kmrun_handlers.h"

struct tally {
    uint32_t looks, look_cycles, tells, tell_cycles, answered, empty, empty_cycles;
};

static struct tally tally __attribute__((section(".data"))) = {1, 0, 0, 0, 0, 0, 0};

static inline uint64_t cycles(void)
{
    uint64_t c;
    __asm__ volatile("rdcycle %0" : "=r"(c));
    return c;
}

static void serve(int cluster, int x280_core, uint64_t arg)
{
    (void)cluster, (void)arg;
    while (kmx_port_open()) {
        for (int core = 0; core < kmx_port_cores(); core++) {
            if (kmx_port_owner(core) != x280_core)
                continue;
            kmx_message message;
            uint64_t c0 = cycles();
            int found = kmx_port_asked(core, &message);
            uint64_t c1 = cycles();
            if (found == KMX_OK) {
                tally.looks++;
                tally.look_cycles += (uint32_t)(c1 - c0);
                kmx_port_answer(core, message.sequence, message.w[0] * 2u, 0, 0);
                tally.answered++;
            } else {
                tally.empty++;
                tally.empty_cycles += (uint32_t)(c1 - c0);
            }
        }
    }
}

static void echo(int cluster, int x280_core, uint64_t arg)
{
    (void)cluster, (void)arg;
    while (kmx_port_open()) {
        for (int core = 0; core < kmx_port_cores(); core++) {
            kmx_message message;
            if (kmx_port_owner(core) == x280_core && kmx_port_told(core, &message, 0) == KMX_OK) {
                uint32_t w0 = message.w[0], w1 = message.w[1], w2 = message.w[2];
                __asm__ volatile("" : "+r"(w0), "+r"(w1), "+r"(w2)); /* loaded before c0 */
                uint64_t c0 = cycles();
                kmx_port_tell(core, w0, w1, w2);
                tally.tell_cycles += (uint32_t)(cycles() - c0);
                tally.tells++;
            }
        }
    }
}

static int run(uint32_t handler, uint32_t a0, kmx_cluster_function function)
{
    km_command_t command = {0};
    command.hdr = KM_HDR(handler, 0);
    command.group = KM_GROUP(0, 1);
    command.a0 = a0;
    kmx_event event;
    return kmx_port_run(&command, function, 0, &event) == KMX_OK && event.kind == KM_EVENT_DONE;
}

int kmx_main(int core)
{
    (void)core;
    uint32_t nwords = 0;
    const uint32_t *words = kmx_args_get(&nwords);
    tally.looks = 0;
    if (nwords < 1 || !run(HANDLER_ASK, words[0], serve) || !run(HANDLER_ECHO, 0xEC40u, echo))
        return 2;
    kmx_result(0, &tally.looks, 7);
    return 0;
}
