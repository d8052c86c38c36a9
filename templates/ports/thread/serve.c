/* A thread to start from (kmrun new, template "ports"; after
 * programs/10_x280_ports): the spec's serve loop on the cluster's four
 * X280 cores.  The thread submits the `ask` command to a group of Tensix
 * cores with kmx_port_run, which runs `serve` on every X280 core until
 * the command's event; each Tensix core asks the X280 core that serves it
 * (ports: default deals them) and gets twice its question back.  Then
 * the thread reads every core's slot in region `results`.
 *
 * Words: [asks, first, count]: Tensix cores first .. first + count - 1
 * each ask `asks` times.  Result words: [cores right, asks answered].
 * Code: 0, or what failed (the enum below). */
#include "kmx.h"
#include "kmrun_handlers.h"

#define RESULTS 0u
#define SLOT_MAGIC 0x504F5254u
#define SLOT_WORDS 4u

enum { OK, BAD_WORDS, BAD_REGION, RUN_FAILED, EVENT_NOT_DONE, SLOT_WRONG };

/* The spec's serve loop: each Tensix core this X280 core serves gets its
 * question's answer, w[0] * 2. */
static void serve(int cluster, int x280_core, uint64_t arg)
{
    (void)cluster, (void)arg;
    while (kmx_port_open()) { /* until the command's event */
        for (int core = 0; core < kmx_port_cores(); core++) {
            kmx_message message;
            if (kmx_port_owner(core) == x280_core &&
                kmx_port_asked(core, &message) == KMX_OK) {
                kmx_port_answer(core, message.sequence, message.w[0] * 2u, 0, 0);
            }
        }
    }
}

int kmx_main(int core)
{
    (void)core;
    uint32_t nwords = 0;
    const uint32_t *words = kmx_args_get(&nwords);
    if (nwords < 3 || words[2] == 0 || words[1] + words[2] > BH_GRID_CORES)
        return BAD_WORDS;
    uint32_t asks = words[0], first = words[1], count = words[2];
    uint64_t bytes = 0;
    const volatile uint32_t *results = kmx_region(RESULTS, &bytes);
    if (!results || bytes < 16u * BH_GRID_CORES)
        return BAD_REGION;

    kmx_progress(1);
    km_command_t command = {0};
    command.hdr = KM_HDR(HANDLER_ASK, 0);
    command.group = KM_GROUP(first, count);
    command.a0 = asks;
    kmx_event event;
    if (kmx_port_run(&command, serve, 0, &event) != KMX_OK)
        return RUN_FAILED;
    if (event.kind != KM_EVENT_DONE)
        return EVENT_NOT_DONE;
    kmx_progress(2);

    /* The handlers wrote their slots through the NoC. */
    kmx_invalidate(RESULTS);
    uint32_t out[2] = {0, 0};
    for (uint32_t c = first; c < first + count; c++) {
        const volatile uint32_t *slot = &results[c * SLOT_WORDS];
        if (slot[0] != SLOT_MAGIC || slot[2] != 0 || slot[1] != asks)
            return SLOT_WRONG;
        out[0]++;
        out[1] += slot[1];
    }
    kmx_print("%u cores asked %u times each: %u answers right", count, asks, out[1]);
    kmx_result(0, out, 2);
    return OK;
}
