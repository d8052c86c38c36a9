/* session_result: a thread's result from its cluster's result block
 * (kmx_layout.h, section 5) — the same on every backend that runs the kmx
 * runtime, since the runtime writes the block and the host only reads it. */
#include "session_internal.h"

#include <stdio.h>
#include <string.h>

const char *km_state_name(km_state s)
{
    static const char *const names[] = {
        [KM_STATE_RETURNED] = "returned", [KM_STATE_LATE] = "late",
        [KM_STATE_STOPPED] = "stopped",   [KM_STATE_STUCK] = "stuck",
        [KM_STATE_TRAPPED] = "trapped",   [KM_STATE_ARGS] = "args",
        [KM_STATE_BANK] = "bank",         [KM_STATE_REGION] = "region",
        [KM_STATE_FAILED] = "failed",
    };
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

const char *km_kmx_error_name(uint32_t error)
{
    static const char *const names[] = KMX_ERROR_NAMES;
    _Static_assert(sizeof names / sizeof names[0] == KMX_ERROR_COUNT,
                   "a name for every library error");
    return error < KMX_ERROR_COUNT ? names[error] : "unknown";
}

bool km_state_stops_others(km_state s)
{
    return s == KM_STATE_TRAPPED || s == KM_STATE_ARGS || s == KM_STATE_BANK ||
           s == KM_STATE_REGION || s == KM_STATE_FAILED || s == KM_STATE_STUCK;
}

/* Whether kmx_main returned, so that `code` means something: it did for
 * every final state but a start-up failure and a trap of core 0 (a trap on
 * another core alone lets core 0 return and end the run). */
static bool main_returned(const kmx_result_block *b)
{
    switch (b->state) {
    case KMX_STATE_DONE:
    case KMX_STATE_LATE:
    case KMX_STATE_STOPPED:
        return true;
    case KMX_STATE_TRAPPED:
        return b->traps == 1 && b->trap_core != 0;
    case KMX_STATE_FAILED:
        /* The start-up checks fail before kmx_main runs. */
        return b->error != KMX_ERROR_ARGS && b->error != KMX_ERROR_REGION &&
               b->error != KMX_ERROR_BANK && b->error != KMX_ERROR_RING &&
               b->error != KMX_ERROR_TRAP;
    default:
        return false;
    }
}

static km_state state_of(const kmx_result_block *b)
{
    switch (b->state) {
    case KMX_STATE_DONE:
        return KM_STATE_RETURNED;
    case KMX_STATE_LATE:
        return KM_STATE_LATE;
    case KMX_STATE_STOPPED:
        return KM_STATE_STOPPED;
    case KMX_STATE_TRAPPED:
        return KM_STATE_TRAPPED;
    case KMX_STATE_FAILED:
        if (b->error == KMX_ERROR_ARGS)
            return KM_STATE_ARGS;
        if (b->error == KMX_ERROR_BANK)
            return KM_STATE_BANK;
        if (b->error == KMX_ERROR_REGION)
            return KM_STATE_REGION;
        if (b->error == KMX_ERROR_TRAP)
            return KM_STATE_TRAPPED;
        return KM_STATE_FAILED;
    default:
        return KM_STATE_STUCK;
    }
}

void km_result_from_block(const kmx_result_block *b, int cluster, km_thread_result *t)
{
    memset(t, 0, sizeof *t);
    t->cluster = cluster;
    t->state = state_of(b);
    t->error = b->error;
    t->error_detail = b->error_detail;
    t->error_core = b->error_core;
    if (b->error == KMX_ERROR_PARALLEL && b->error_call < KMX_API_COUNT) {
        t->error_call = b->error_call;
        t->error_pc = b->error_pc;
    }
    if (main_returned(b)) {
        t->has_code = true;
        t->code = b->code;
    }
    t->nwords = b->nwords <= KMX_MAX_RESULT_WORDS ? b->nwords : KMX_MAX_RESULT_WORDS;
    memcpy(t->words, b->words, t->nwords * sizeof t->words[0]);
    t->where = b->where;
    /* 0: no marker yet, or kmx_progress was writing one (kmx_layout.h). */
    if (b->where_ticks != 0) {
        t->has_where_ticks = true;
        t->where_ticks = b->where_ticks >= b->start_ticks ? b->where_ticks - b->start_ticks : 0;
    }
    if (KMX_STATE_FINAL(b->state) && b->end_ticks >= b->start_ticks) {
        t->has_ticks = true;
        t->ticks = b->end_ticks - b->start_ticks;
    }
    if (b->traps != 0) {
        t->trapped = true;
        t->trap.core = b->trap_core;
        t->trap.mcause = b->trap_mcause;
        t->trap.mepc = b->trap_mepc;
        t->trap.mtval = b->trap_mtval;
    }
}

void km_result_explain(km_thread_result *t)
{
    static const char *const calls[] = KMX_API_NAMES;
    _Static_assert(sizeof calls / sizeof calls[0] == KMX_API_COUNT, "a name for every call");
    if (t->message[0] || t->error != KMX_ERROR_PARALLEL || t->error_call == KMX_API_NONE)
        return;
    char where[120];
    const km_source *src = &t->error_source;
    if (src->known)
        snprintf(where, sizeof where, "%.72s:%u%s%.30s", src->file, src->line,
                 src->has_function ? " in " : "", src->has_function ? src->function : "");
    else
        snprintf(where, sizeof where, "returning to pc 0x%llx", (unsigned long long)t->error_pc);
    char core[64];
    if (t->error_core == 0)
        snprintf(core, sizeof core, "core 0 inside a function kmx_parallel or kmx_parallel_all runs");
    else
        snprintf(core, sizeof core, "core %u", t->error_core);
    snprintf(t->message, sizeof t->message,
             "%.16s was called on %.63s (%.119s): a core-0 call (kmx(3)); it returned "
             "KMX_STOPPED and the run stopped",
             calls[t->error_call], core, where);
}
