/* kmx_pull.c: the pull (spec "The pull"): kmx_pull_run hands a command's
 * units out at run time, in ranges of `per`, to the Tensix cores that ask
 * (km_port_next), over the X280 ports (kmx_ports.c).
 *
 * The lead writes the settings into every cluster's pull counters
 * (kmx_layout.h, kmx_pull_counters: its own directly, the others' through
 * their windows), the counter zero, and serves with kmx_port_run.  Every
 * X280 core of the group walks only the Tensix cores it serves (a list it
 * makes once), answers each ask with the core's next range — first unit
 * and count, or a count of 0 when none is left — and, when the serve has
 * ended, writes back the log lines of its cores (LOG) and zeroes their
 * counts.  The range:
 *   - COUNT: pick(core, index, arg) when set, else the cluster's counter
 *     (an atomic add in its LIM): cluster `index` of `clusters` hands out
 *     ranges index, index + clusters, index + 2 * clusters, ...;
 *   - LOG: the same, each range also written to the log region (this
 *     cluster's copy); a core that gets more than the log holds sets
 *     `overflow`, and kmx_pull_run returns KMX_BAD after the run;
 *   - REPLAY: the ranges the log holds for the core, in order. */
#include "kmx_internal.h"

#define COUNTERS KMX_P(kmx_pull_counters, KMX_LIM_PULL)

/* The ranges a log of `bytes` holds per Tensix core (0: not even one). */
static uint32_t log_per_core(uint64_t bytes) {
    if (bytes < KMX_PULL_LOG_BYTES(1)) {
        return 0;
    }
    uint64_t n = (bytes / 4u - BH_GRID_CORES) / BH_GRID_CORES;
    return n > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)n;
}

/* The settings kmx_pull_run uses: *given, or the manifest's; KMX_BAD for
 * settings no pull can run (per 0, units 0, an unknown mode, a log region
 * missing or too small for LOG and REPLAY). */
static int settings_of(const kmx_pull *given, kmx_pull *s, uint32_t *per_core) {
    if (given != 0) {
        *s = *given;
    } else {
        const volatile kmx_pull_settings *m = &KMX_ARGS->pull;
        if (!m->present) {
            return KMX_BAD;
        }
        *s = (kmx_pull){.units = m->units, .per = m->per, .mode = m->mode, .log = m->log};
    }
    *per_core = 0;
    if (s->units == 0 || s->per == 0 || s->mode > KMX_PULL_REPLAY) {
        return KMX_BAD;
    }
    if (s->mode != KMX_PULL_COUNT) {
        uint64_t bytes = 0;
        if (kmx_region(s->log, &bytes) == 0 || (*per_core = log_per_core(bytes)) == 0) {
            return KMX_BAD;
        }
    }
    return KMX_OK;
}

/* The settings into cluster c's counters (c's own LIM, or through its
 * window), the counter zero. */
static void send_settings(volatile kmx_pull_counters *k, const kmx_pull *s, uint32_t per_core,
                          uint32_t index, uint32_t clusters, uint32_t sequence) {
    k->units = s->units;
    k->per = s->per;
    k->mode = s->mode;
    k->log = s->log;
    k->per_core = per_core;
    k->index = index;
    k->clusters = clusters;
    k->overflow = 0;
    k->pick = (uint64_t)(uintptr_t)s->pick;
    k->arg = s->arg;
    k->next = 0;
    kmx__release();
    k->sequence = sequence;
}

/* The log's words of `core` in this cluster's copy (through the cache). */
typedef struct pull_log {
    volatile uint32_t *base; /* 0: no log */
    uint32_t per_core;
} pull_log;

static volatile uint32_t *log_count(const pull_log *l, uint32_t core) {
    return l->base + KMX_PULL_LOG_COUNT_OFFSET(core) / 4u;
}

static volatile uint32_t *log_range(const pull_log *l, uint32_t core, uint32_t i) {
    return l->base + KMX_PULL_LOG_RANGE_OFFSET(l->per_core, core, i) / 4u;
}

/* Range `range` if it holds units, else KMX_PULL_NONE. */
static inline __attribute__((always_inline)) uint32_t in_units(uint32_t range, uint32_t units,
                                                               uint32_t per) {
    return range == KMX_PULL_NONE || (uint64_t)range * per >= units ? KMX_PULL_NONE : range;
}

/* The cluster counter's next range (an atomic add): cluster `index` of
 * `clusters` hands out index, index + clusters, ... */
static inline __attribute__((always_inline)) uint32_t counted(volatile kmx_pull_counters *k,
                                                              uint32_t index, uint32_t clusters) {
    return index + __atomic_fetch_add(&k->next, 1u, __ATOMIC_RELAXED) * clusters;
}

/* Tensix core `core`'s next range by pick, the log or the counter,
 * counted in got (and logged); KMX_PULL_NONE when none is left for it. */
static uint32_t next_range(volatile kmx_pull_counters *k, const pull_log *l, uint32_t core,
                           uint32_t mode, uint32_t units, uint32_t per) {
    uint32_t got = k->got[core];
    uint32_t range;
    if (mode == KMX_PULL_REPLAY) {
        range = got < l->per_core && got < *log_count(l, core) ? *log_range(l, core, got)
                                                                : KMX_PULL_NONE;
    } else if (k->pick != 0) {
        range = ((kmx_pick_function)(uintptr_t)k->pick)((int)core, got, k->arg);
    } else {
        range = counted(k, k->index, k->clusters);
    }
    range = in_units(range, units, per);
    if (range == KMX_PULL_NONE) {
        return KMX_PULL_NONE;
    }
    k->got[core] = got + 1u;
    if (mode == KMX_PULL_LOG) {
        if (got < l->per_core) {
            *log_range(l, core, got) = range;
            *log_count(l, core) = got + 1u;
        } else {
            k->overflow = 1;
        }
    }
    return range;
}

/* The answer to an ask: the range's first unit and count (0: none). */
static inline __attribute__((always_inline)) void answer_range(uint32_t core, uint32_t sequence,
                                                               uint32_t range, uint32_t units,
                                                               uint32_t per) {
    uint32_t first = 0, count = 0;
    if (range != KMX_PULL_NONE) {
        first = range * per;
        count = units - first < per ? units - first : per;
    }
    kmx_port_answer((int)core, sequence, first, count, 0);
}

/* Every X280 core of the group, for the kmx_port_run of kmx_pull_run.
 * The settings are read once, into registers: the loop's code, data and
 * stack are in LIM at 30 cycles a word, and a pull plain COUNT hands out
 * costs a look, an atomic add and an answer. */
static void serve_pulls(int cluster, int x280_core, uint64_t arg) {
    (void)cluster, (void)arg;
    volatile kmx_pull_counters *k = COUNTERS;
    uint32_t units = k->units, per = k->per, mode = k->mode;
    uint32_t index = k->index, clusters = k->clusters;
    int counter = mode != KMX_PULL_REPLAY && k->pick == 0;
    pull_log l = {0, k->per_core};
    if (mode != KMX_PULL_COUNT) {
        l.base = (volatile uint32_t *)kmx_region(k->log, 0);
    }
    uint8_t mine[BH_GRID_CORES];
    uint32_t n = 0;
    for (int core = 0; core < kmx_port_cores(); core++) {
        if (kmx_port_owner(core) == x280_core) {
            mine[n++] = (uint8_t)core;
        }
    }
    while (kmx_port_open()) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t core = mine[i];
            uint64_t high, ask = kmx__ask_look(core, &high);
            if (ask == 0) {
                continue;
            }
            uint32_t sequence = (uint32_t)ask;
            uint32_t range;
            if ((uint32_t)(ask >> 32) != KM_PULL_ASK) {
                range = KMX_PULL_NONE; /* not km_port_next's: nothing for it */
            } else if (counter && mode == KMX_PULL_COUNT) {
                range = in_units(counted(k, index, clusters), units, per); /* no got to keep */
            } else {
                range = next_range(k, &l, core, mode, units, per);
            }
            answer_range(core, sequence, range, units, per);
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t core = mine[i], got = k->got[core];
        if (mode == KMX_PULL_LOG) {
            uint32_t kept = got < l.per_core ? got : l.per_core;
            kmx_flush_at(k->log, KMX_PULL_LOG_COUNT_OFFSET(core), 4u);
            kmx_flush_at(k->log, KMX_PULL_LOG_RANGE_OFFSET(l.per_core, core, 0), 4u * (uint64_t)kept);
        }
        if (got != 0) {
            k->got[core] = 0;
        }
    }
}

/* Cluster c's pull counters: our own, or another's through its window. */
static volatile kmx_pull_counters *counters_of(uint32_t c) {
    return c == (uint32_t)kmx_cluster() ? COUNTERS
                                        : (volatile kmx_pull_counters *)kmx__peer_lim(c, KMX_LIM_PULL);
}

int kmx_pull_run(const km_command_t *command, const kmx_pull *settings, kmx_event *event) {
    KMX_ENTRY_OR_RETURN(kmx__core0_only(KMX_API_PULL_RUN, KMX_CALLER()),
                        kmx_cluster() != kmx_lead(), kmx__stop_status());
    kmx_pull s;
    uint32_t per_core;
    if (command == 0 || event == 0 || !KMX_ARGS->ports.enabled ||
        settings_of(settings, &s, &per_core) != KMX_OK) {
        return KMX_BAD;
    }
    int status = kmx__twelve_ready();
    if (status != KMX_OK) {
        return status;
    }
    uint32_t others = KMX_PRIVATE->twelve_others, self = kmx_cluster();
    uint32_t group = others | 1u << self, clusters = 0;
    KMX_EACH_CLUSTER(c, group) {
        clusters++;
    }
    uint32_t sequence = COUNTERS->sequence + 1u, index = 0;
    KMX_EACH_CLUSTER(c, group) {
        send_settings(counters_of(c), &s, per_core, index++, clusters, sequence);
    }
    status = kmx_port_run(command, serve_pulls, 0, event);
    if (status == KMX_OK && s.mode == KMX_PULL_LOG) {
        KMX_EACH_CLUSTER(c, group) {
            if (counters_of(c)->overflow) {
                return KMX_BAD;
            }
        }
    }
    return status;
}
