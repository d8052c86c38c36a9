/* 03_ring: a control loop on result words.
 *
 * Core 0 fills region 0 (`live`) with the values 1..N (words[0]) and then,
 * one round at a time, submits the program's handler `collatz` through the
 * thread's command ring with KM_FLAG_RESULT: each core of the group takes
 * `per` values, advances each by up to K (words[1]) Collatz steps, keeps
 * the values that have not reached 1 at the start of its share and writes
 * its slot in region 1 (`counts`); the leader returns the group's
 * survivors.  That count drives the loop:
 *   - 0 ends it;
 *   - otherwise it is the next command's range (n) and sizes its group,
 *     one core per 64 values (at most 16 cores);
 * and between rounds the thread does the irregular part: it gathers each
 * core's survivors into one array, a prefix over the cores' counts, which
 * must add up to the leader's word.
 *
 * Regions change hands each round, both ways:
 *   - kmx_flush(LIVE) after the fill, kmx_flush_at(LIVE, ...) after each
 *     gather, before a command reads the values: the grid reads DRAM, not
 *     the cluster's cache;
 *   - kmx_invalidate_at(LIVE, ...) and kmx_invalidate_at(COUNTS, ...)
 *     after the event, before the thread reads what the grid wrote: NoC
 *     writes go around the cache, so lines it still holds are last round's.
 * The _at forms sweep only the lines that change hands (the n values, the
 * group's slots): the whole regions would cost about 15 us more a round.
 *
 * Result words: rounds, Collatz steps in all, Tensix cores in all (the sum
 * of the groups), the last handle, resubmissions after a busy rejection,
 * KMX_FULL retries, then each round's count.  README.md predicts them. */
#include "kmx.h"
#include "kmrun_handlers.h"

#define LIVE 0u
#define COUNTS 1u
#define RING_ERROR 0xFFFFFFFFu /* the handler's word for "something broke" */
#define MAX_GROUP 16u          /* as the kernel: slots in `counts` */
#define MAX_PER 1024u          /* as the kernel: values a core may take */
#define VALUES_PER_CORE 64u    /* one core per 64 live values */
#define SLOT_WORDS 16u         /* one 64-byte slot a core */
#define MAX_ROUNDS 42u         /* rounds recorded in the result words */
#define HEAD_WORDS 6u          /* result words before the counts */
#define WAIT_TICKS (BH_TICKS_PER_SECOND / 10u) /* 100 ms a command */

enum { SLOT_ROUND, SLOT_SURVIVORS, SLOT_STEPS, SLOT_STATUS };

/* Return codes (the result's `code`). */
enum {
    OK = 0,
    BAD_WORDS = 1,     /* N or K out of range */
    BAD_REGION = 2,    /* a region missing, too small, not where the table says */
    SUBMIT_FAILED = 3, /* kmx_submit: stopped, late or bad */
    WAIT_FAILED = 4,   /* kmx_wait or the wait for a wake: stopped or late */
    NOT_DONE = 5,      /* the event was a timeout or a rejection other than busy */
    GRID_ERROR = 6,    /* the leader returned RING_ERROR */
    GATHER_ERROR = 7,  /* the slots do not add up to the leader's word */
    TOO_MANY_ROUNDS = 8,
};

typedef struct ring_stats {
    uint32_t busy; /* rejections with KM_REASON_BUSY, resubmitted after the wake */
    uint32_t full; /* kmx_submit said KMX_FULL and was tried again */
    uint32_t last; /* the last handle */
} ring_stats;

/* Submits `command` and waits for its event until `deadline`, resubmitting
 * it after the wake when the kernel rejected it busy.  Every wait is
 * bounded by the deadline and ends at a stop. */
static int submit_and_wait(const km_command_t *command, uint64_t deadline, ring_stats *st,
                           kmx_event *event)
{
    while (kmx_time() < deadline) {
        uint32_t handle = 0;
        int status = kmx_submit(command, &handle);
        if (status == KMX_FULL) {
            /* No free slot yet: the kernel has not taken an earlier line. */
            st->full++;
            continue;
        }
        if (status != KMX_OK)
            return SUBMIT_FAILED; /* KMX_STOPPED, KMX_LATE (or KMX_BAD) */
        st->last = handle;
        if (kmx_wait(handle, deadline, event) != KMX_OK)
            return WAIT_FAILED; /* the run ends stopped or late */
        if (event->kind == KM_EVENT_DONE)
            return OK;
        if (event->kind != KM_EVENT_REJECTED || event->reason != KM_REASON_BUSY)
            return NOT_DONE;
        /* Rejected busy ("not now"): the kernel sends one wake when a slot
         * frees or the queue moves; submit again after it. */
        st->busy++;
        for (;;) {
            if (kmx_stop_requested() || kmx_time() >= deadline)
                return WAIT_FAILED;
            kmx_event e;
            if (kmx_poll(&e) == KMX_OK && e.kind == KMX_EVENT_WAKE)
                break;
            /* Another handle's event: none is in flight but this one. */
        }
    }
    return WAIT_FAILED;
}

int kmx_main(int core)
{
    (void)core;
    kmx_progress(1);
    uint32_t nwords = 0;
    const uint32_t *words = kmx_args_get(&nwords);
    if (nwords < 2)
        return BAD_WORDS;
    uint32_t n = words[0], k = words[1];

    /* The regions' banks and bank addresses, which the commands carry. */
    uint64_t live_bytes = 0, counts_bytes = 0;
    uint32_t *live = kmx_region(LIVE, &live_bytes);
    const volatile uint32_t *counts = kmx_region(COUNTS, &counts_bytes);
    uint32_t bank = 0, counts_bank = 0;
    uint64_t live_at = 0, counts_at = 0;
    if (!live || !counts || counts_bytes < 64u * MAX_GROUP ||
        kmx_region_address(LIVE, &bank, &live_at) != KMX_OK ||
        kmx_region_address(COUNTS, &counts_bank, &counts_at) != KMX_OK || counts_bank != bank)
        return BAD_REGION;
    if (n == 0 || k == 0 || (uint64_t)n * 4u > live_bytes || n > MAX_GROUP * MAX_PER)
        return BAD_WORDS;

    /* The values 1..N, written through the cache: flushed to DRAM before
     * the first command reads them. */
    for (uint32_t i = 0; i < n; i++)
        live[i] = i + 1u;
    kmx_flush(LIVE);
    kmx_progress(2);

    ring_stats st = {0, 0, 0};
    uint32_t result[KMX_MAX_RESULT_WORDS]; /* words 0 .. HEAD_WORDS + rounds written */
    uint32_t rounds = 0, steps = 0, cores = 0;
    /* Bounded by MAX_ROUNDS; each round's waits by its deadline. */
    while (n > 0) {
        if (rounds == MAX_ROUNDS)
            return TOO_MANY_ROUNDS;
        if (kmx_stop_requested())
            return WAIT_FAILED;
        uint32_t round = rounds + 1u;

        /* The count sizes the command: one core per 64 values, at most 16,
         * each taking `per` values (a multiple of 16: whole lines). */
        uint32_t per = VALUES_PER_CORE;
        if (n > MAX_GROUP * VALUES_PER_CORE)
            per = ((n + MAX_GROUP - 1u) / MAX_GROUP + 15u) / 16u * 16u;
        uint32_t group = (n + per - 1u) / per;

        km_command_t command = {0};
        command.hdr = KM_HDR(HANDLER_COLLATZ, KM_FLAG_RESULT);
        command.group = KM_GROUP(0, group);
        command.a0 = bank;
        command.a1 = (uint32_t)live_at;
        command.a2 = (uint32_t)(live_at >> 32);
        command.a3 = n;
        command.a4 = per;
        command.a5 = (uint32_t)counts_at;
        command.a6 = (uint32_t)(counts_at >> 32);
        command.a7 = round;
        command.a8 = k;
        kmx_progress(10u * round + 1u);
        kmx_event event;
        int status = submit_and_wait(&command, kmx_time() + WAIT_TICKS, &st, &event);
        if (status != OK)
            return status;
        uint32_t alive = event.ticks; /* the leader's result word */
        if (alive == RING_ERROR)
            return GRID_ERROR;
        kmx_progress(10u * round + 2u);

        /* The grid wrote both regions through the NoC: drop our lines of
         * what it may have written (the n values, the group's slots). */
        kmx_invalidate_at(LIVE, 0, 4u * (uint64_t)n);
        kmx_invalidate_at(COUNTS, 0, 64u * (uint64_t)group);
        /* Gather: core c's survivors are at c * per; they go to the end of
         * the ones before (dst <= src: a forward copy is safe). */
        uint32_t dst = 0;
        for (uint32_t c = 0; c < group; c++) {
            const volatile uint32_t *slot = &counts[c * SLOT_WORDS];
            uint32_t kept = slot[SLOT_SURVIVORS];
            if (slot[SLOT_ROUND] != round || slot[SLOT_STATUS] != 0 || kept > per ||
                kept > alive - dst)
                return GATHER_ERROR;
            const uint32_t *src = &live[c * per];
            for (uint32_t i = 0; i < kept; i++)
                live[dst + i] = src[i];
            dst += kept;
            steps += slot[SLOT_STEPS];
        }
        if (dst != alive)
            return GATHER_ERROR;
        /* The next command reads the gathered values from DRAM. */
        kmx_flush_at(LIVE, 0, 4u * (uint64_t)alive);
        kmx_progress(10u * round + 3u);

        result[HEAD_WORDS + rounds] = alive;
        rounds = round;
        cores += group;
        n = alive;
    }

    result[0] = rounds;
    result[1] = steps;
    result[2] = cores;
    result[3] = st.last;
    result[4] = st.busy;
    result[5] = st.full;
    kmx_result(0, result, HEAD_WORDS + rounds);
    kmx_progress(1000);
    return OK;
}
