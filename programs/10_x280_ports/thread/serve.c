/* 10_x280_ports' thread: the spec's serve loop (answers w[0] * 2) on every
 * X280 core of the thread's clusters, for the `ask` command.
 *
 * Words: [asks, first, count]: each Tensix core first .. first + count - 1
 * asks `asks` times.  The lead (the lowest cluster) submits the command
 * with kmx_port_run; any other cluster serves (kmx_serve).  Each X280 core
 * answers the asks of the Tensix cores it serves, counts them and sums
 * their questions, and when a core tells it (asks, sum) tells back what it
 * counted; the handler checks both ways.  Afterwards the lead reads every
 * core's slot in region `results` and checks it.
 *
 * Result words: [cores right, asks answered, mean round trip (ns), asks a
 * second (from the command's run time), the command's run time (us)].
 * Code: 0, or what failed (the enum below). */
#include "kmx.h"
#include "kmrun_handlers.h"

#define RESULTS 0u
#define RESULT_MAGIC 0x504F5254u
#define SLOT_WORDS 4u

enum { OK, BAD_WORDS, BAD_REGION, RUN_FAILED, EVENT_NOT_DONE, SLOT_WRONG };

/* Per Tensix core, on the X280 core that serves it (each cluster its own
 * copy: the cores a cluster serves are its own). */
static uint32_t answered[BH_GRID_CORES] __attribute__((section(".data")));
static uint32_t questions[BH_GRID_CORES] __attribute__((section(".data")));

static void serve(int cluster, int x280_core, uint64_t arg)
{
    (void)cluster, (void)arg;
    while (kmx_port_open()) { /* until the command's event */
        for (int core = 0; core < kmx_port_cores(); core++) {
            if (kmx_port_owner(core) != x280_core)
                continue;
            kmx_message message;
            if (kmx_port_asked(core, &message) == KMX_OK) {
                kmx_port_answer(core, message.sequence, message.w[0] * 2u, 0, 0);
                answered[core]++;
                questions[core] += message.w[0];
            }
            if (kmx_port_told(core, &message, 0) == KMX_OK)
                kmx_port_tell(core, answered[core], questions[core], 0);
        }
    }
}

int kmx_main(int core)
{
    (void)core;
    if (kmx_cluster() != kmx_lead())
        return kmx_serve() == KMX_OK ? OK : RUN_FAILED;
    uint32_t nwords = 0;
    const uint32_t *words = kmx_args_get(&nwords);
    if (nwords < 3 || words[2] == 0 || words[1] + words[2] > BH_GRID_CORES)
        return BAD_WORDS;
    uint32_t asks = words[0], first = words[1], count = words[2];
    uint64_t bytes = 0;
    const volatile uint32_t *results = kmx_region(RESULTS, &bytes);
    if (!results || bytes < 16u * BH_GRID_CORES)
        return BAD_REGION;

    km_command_t command = {0};
    command.hdr = KM_HDR(HANDLER_ASK, 0);
    command.group = KM_GROUP(first, count);
    command.a0 = asks;
    kmx_progress(1);
    kmx_event event;
    if (kmx_port_run(&command, serve, 0, &event) != KMX_OK)
        return RUN_FAILED;
    kmx_progress(2);
    if (event.kind != KM_EVENT_DONE)
        return EVENT_NOT_DONE;

    /* The handlers wrote their slots through the NoC. */
    kmx_invalidate(RESULTS);
    uint32_t right = 0, total = 0;
    uint64_t waited_ns = 0;
    for (uint32_t c = first; c < first + count; c++) {
        const volatile uint32_t *slot = &results[c * SLOT_WORDS];
        if (slot[0] != RESULT_MAGIC || slot[2] != 0 || slot[1] != asks)
            return SLOT_WRONG;
        right++;
        total += slot[1];
        waited_ns += slot[3];
    }
    uint64_t run_us = (uint64_t)event.ticks * 1000000u / KMX_TICKS_PER_SECOND;
    uint32_t out[5] = {
        right,
        total,
        total ? (uint32_t)(waited_ns / total) : 0,
        run_us ? (uint32_t)((uint64_t)total * 1000000u / run_us) : 0,
        (uint32_t)run_us,
    };
    kmx_result(0, out, 5);
    return OK;
}
