/* 10_x280_ports' thread: the spec's serve loop (answers w[0] * 2) on every
 * X280 core of the thread's clusters, for the `ask` command, then an echo
 * of tells both ways (`echo`).
 *
 * Words: [asks, first, count]: each Tensix core first .. first + count - 1
 * asks `asks` times.  The lead (the lowest cluster) submits each command
 * with kmx_port_run; any other cluster serves (kmx_serve).  Afterwards the
 * lead reads every core's slot in region `results` (the handlers check
 * every answer and every echo) and checks it.
 *
 * Result words: [cores right, asks answered, mean round trip (ns), asks a
 * second over the group (cores / mean round trip), the ask command's run
 * time (us)].  Code: 0, or what failed (the enum below). */
#include "kmx.h"
#include "kmrun_handlers.h"

#define RESULTS 0u
#define RESULT_MAGIC 0x504F5254u
#define SLOT_WORDS 4u
#define ECHO_KEY 0xEC40u

enum { OK, BAD_WORDS, BAD_REGION, RUN_FAILED, EVENT_NOT_DONE, SLOT_WRONG };

/* The spec's serve loop, as it stands. */
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

/* Tells back every tell, word for word. */
static void echo(int cluster, int x280_core, uint64_t arg)
{
    (void)cluster, (void)arg;
    while (kmx_port_open()) {
        for (int core = 0; core < kmx_port_cores(); core++) {
            kmx_message message;
            if (kmx_port_owner(core) == x280_core &&
                kmx_port_told(core, &message, 0) == KMX_OK) {
                kmx_port_tell(core, message.w[0], message.w[1], message.w[2]);
            }
        }
    }
}

/* Submits `handler` on the group and serves it with `function` until its
 * event, which must be DONE. */
static int run(uint32_t handler, uint32_t first, uint32_t count, uint32_t a0,
               kmx_cluster_function function, kmx_event *event)
{
    km_command_t command = {0};
    command.hdr = KM_HDR(handler, 0);
    command.group = KM_GROUP(first, count);
    command.a0 = a0;
    if (kmx_port_run(&command, function, 0, event) != KMX_OK)
        return RUN_FAILED;
    return event->kind == KM_EVENT_DONE ? OK : EVENT_NOT_DONE;
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

    kmx_progress(1);
    kmx_event asked, echoed;
    int status = run(HANDLER_ASK, first, count, asks, serve, &asked);
    if (status != OK)
        return status;
    kmx_progress(2);
    status = run(HANDLER_ECHO, first, count, ECHO_KEY, echo, &echoed);
    if (status != OK)
        return status;
    kmx_progress(3);

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
    uint32_t mean_ns = total ? (uint32_t)(waited_ns / total) : 0;
    uint32_t out[5] = {
        right,
        total,
        mean_ns,
        mean_ns ? (uint32_t)((uint64_t)count * 1000000000u / mean_ns) : 0,
        (uint32_t)((uint64_t)asked.ticks * 1000000u / BH_TICKS_PER_SECOND),
    };
    kmx_result(0, out, 5);
    return OK;
}
