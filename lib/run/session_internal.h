/* session_internal: what the session's files share — the backend table
 * and the session itself (not part of km_session.h's contract).
 *
 * km_session.c does what every backend needs the same way: the build, the
 * plan, the nonce, the timeouts, the region copies; the run itself is the
 * run driver's (km_driver.h).  A backend (lib/backends/: backend_sim.c,
 * backend_host.c; one day a card's) does the rest through km_backend_ops:
 * write a cluster's image, argument block and regions (the host steps a-f
 * of kmx_layout.h), fill the driver's hooks, read DRAM back.
 * session_result.c turns a result block into a thread result, which any
 * backend that runs the kmx runtime shares; source lines are
 * km_symbols.h's (lib/observe/). */
#ifndef KM_SESSION_INTERNAL_H
#define KM_SESSION_INTERNAL_H

#include "km_session.h"

struct km_driver_hooks;
struct sim_card;

typedef struct km_backend_ops {
    km_backend kind;
    /* Everything of the load after the build and the plan: create the
     * card, write each cluster, start what starts at load.  s->backend is
     * the backend's own state. */
    int (*load)(km_session *s, km_error *err);
    /* The hooks the run driver (km_driver.h) drives this backend with. */
    void (*hooks)(km_session *s, struct km_driver_hooks *h);
    /* n bytes of `bank` at bank_address, as DRAM holds them (not a cache). */
    int (*read_dram)(km_session *s, unsigned bank, uint64_t bank_address, void *dst, uint64_t n,
                     km_error *err);
    /* Optional: the same into dst, n bytes of zeros the session owns,
     * touching only what was written, and marking it in `data` (a bit a
     * KM_REGION_UNIT); the backend may keep its bytes there after (dst
     * lives until after `free`).  NULL: read_dram. */
    int (*copy_dram)(km_session *s, unsigned bank, uint64_t bank_address, void *dst,
                     uint64_t n, uint64_t *data, km_error *err);
    /* Optional: while the run goes, the session's own calls into the card
     * (km_session_submit, km_session_command) are made between lock(s,
     * true) and lock(s, false), when others (the host fallback's threads)
     * call into it too. */
    void (*lock)(km_session *s, bool on);
    void (*free)(km_session *s);
} km_backend_ops;

/* km_session_open with the backend's table (lib/backends/backends.c picks
 * it from a km_backend: this folder knows no backend by name, so nothing
 * here calls up into lib/backends/). */
int km_session_open_ops(km_session **out, const km_program *p, const km_backend_ops *ops,
                        km_error *err);

/* Test-only faults, from $KMRUN_SIM_FAULT (device/sim/README.md, "Load
 * and run"): the loader damages what it writes so that a start-up check
 * has something to catch that no manifest can produce. */
typedef enum km_fault {
    KM_FAULT_NONE,
    KM_FAULT_ARGS,   /* the seal's nonce is not the block's */
    KM_FAULT_REGION, /* region 0 reaches past the end of the bank */
    KM_FAULT_BANK,   /* region 0 is said to be in the other bank */
    KM_FAULT_CHECK,  /* the bank check line in DRAM holds another value */
    KM_FAULT_RING,   /* the ring line's command depth is not a power of two */
} km_fault;

struct km_session {
    const km_program *p;
    const km_backend_ops *ops;
    void *backend;
    km_build_result build;
    bool built;
    km_plan plan;
    bool planned;
    uint64_t nonce;
    km_fault fault;
    bool ran;
    km_region_copy *copies;
    size_t ncopies;
    /* In the plan's order (cluster, region), each copy's anonymous mapping
     * of its size and its data map (km_region_copy.data); made at the load
     * (km_session_back_regions) or with the copies. */
    void **copy_bytes;
    uint64_t **copy_data;
    struct sim_card *card; /* the simulated card, for both backends on it */
    bool check_handover;   /* km_session_check_handover */
    struct km_card_memory *card_memory; /* km_session_card_memory (NULL: none) */
    /* km_session_trace_instructions (trace NULL: none) */
    uint32_t trace_cores;
    sim_trace_fn trace;
    void *trace_ctx;
    bool profile; /* km_session_profile */
    struct km_handover *handovers; /* named findings (km_card_handovers) */
    unsigned nhandovers;
    struct km_wild_write *wild; /* named wild writes (km_card_wild_writes) */
    unsigned nwild;
    struct km_kernel_fault *kfaults; /* named handler faults (km_card_kernel_faults) */
    unsigned nkfaults;
    struct km_print_line *prints; /* the run's (km_run_result.prints) */
    size_t nprints;
    struct km_timeline *timeline; /* km_session_timeline (NULL: none) */
    /* The run, begun (km_session_begin) and not yet ended; its hooks. */
    struct km_steer *steer;
    struct km_driver_hooks *hooks;
    int clusters[BH_WORK_CLUSTERS];
    /* The commands the host fed while the run went (km_session_submit),
     * after the program's own. */
    km_host_command *fed;
    size_t nfed, fed_cap;
    struct km_session_tl *tl;     /* its observers while the card runs (session_timeline.c) */
};

/* ---- the timeline (session_timeline.c) ----------------------------------
 * On the sim backend with a timeline asked for: after the card and its
 * clusters are made and before they start, the observers go on
 * (KM_EXIT_BUILD for an image without symbols, KM_EXIT_SYSTEM for
 * memory); after the run, the spans still open end at end_ps and the
 * observers go; at close, what they kept is freed. */
typedef struct km_session_tl km_session_tl;
int km_session_tl_attach(km_session *s, km_error *err);
void km_session_tl_finish(km_session *s, uint64_t end_ps);
void km_session_tl_free(km_session *s);

/* The kernel side's part (session_timeline_kernel.c): the card's moments
 * (a sim_card_moment_fn) become handler and pass spans; the commands'
 * flows start at their kmx_submit (km_tl_kernel_submit: ring, handle,
 * where) and are drawn at the end (km_tl_kernel_finish), paired. */
typedef struct km_tl_kernel km_tl_kernel;
km_tl_kernel *km_tl_kernel_new(struct km_timeline *t, const km_program *p);
void km_tl_kernel_moment(void *ctx, const sim_card_moment *m);
void km_tl_kernel_submit(km_tl_kernel *k, unsigned ring, uint32_t handle, unsigned pid,
                         unsigned tid, uint64_t ps);
void km_tl_kernel_finish(km_tl_kernel *k);
void km_tl_kernel_free(km_tl_kernel *k);

/* ---- the simulated card under both backends (card_setup.c) -------------
 * The sim backend runs the threads on it; the host fallback runs them on
 * the host beside its kernel side.  Either way the card is made from the
 * program the same way, the regions start the same way and the command
 * results come back the same way. */

/* s->card: a fresh card with the program's clock, kernels, regions and
 * host-fed commands, and on the sim backend the X280 ports' dealing (the
 * host fallback's card has no X280 clusters to serve ports: none). */
int km_card_create(km_session *s, km_error *err);
/* The initial contents of plan cluster `index`'s regions (a shared
 * region's one copy only once); zeros are never written: the card
 * starts zeroed. */
int km_card_write_regions(km_session *s, unsigned index, km_error *err);
/* The host-fed commands' results into r (the card's, until the session
 * closes), the program's and then the fed ones. */
void km_card_commands(km_session *s, km_run_result *r);
/* A host-fed command as the card's feeder takes it. */
sim_card_command km_card_command_of(const km_host_command *hc);
/* The card's X280 port waits that gave up, copied into r (r keeps
 * nothing of the card).  Only a backend whose threads run on the card's
 * clusters asks: the host fallback's card has no ports. */
void km_card_port_waits(km_session *s, km_run_result *r);
/* Whether the card is (to be) made with the hand-over checker on: the sim
 * backend, with km_session_check_handover or the program's key. */
bool km_card_checks_handovers(const km_session *s);
/* The card's hand-over findings, named after the plan and with their
 * source lines, into s->handovers and r (r->handover_checked set).  Only
 * the sim backend asks.  KM_EXIT_SYSTEM when memory runs out. */
int km_card_handovers(km_session *s, km_run_result *r, km_error *err);
/* The card's wild writes, named with their writers' source lines, into
 * s->wild and r; a thread whose memory one wrote gets a note in its
 * message (when it has none). */
int km_card_wild_writes(km_session *s, km_run_result *r, km_error *err);
/* The Tensix handlers the card took out, named with their source lines in
 * the kernels' object, into s->kfaults and r; the thread whose command it
 * was gets a note in its message (when it has none).  Both backends: the
 * grid is the card's. */
int km_card_kernel_faults(km_session *s, km_run_result *r, km_error *err);
/* How many the card has taken out so far (the driver's kernel_faults). */
unsigned km_card_kernel_fault_count(km_session *s);
/* At the load, before the card is written: each region's copy made now
 * (a fresh mapping) and given to the card as where it keeps the region's
 * bytes (sim_card_back_dram), so that its copy after the stop costs no
 * memory and no time.  The sim backend's, whose card stops with the run. */
int km_session_back_regions(km_session *s, km_error *err);
/* km_backend_ops.copy_dram of a backend on the card: the sim's lends
 * dst the stopped card's pages (sim_card_move_dram), the host fallback's
 * copies them (its threads may outlive the session); `data` may be NULL. */
int km_card_move_dram(km_session *s, unsigned bank, uint64_t bank_address, void *dst,
                      uint64_t n, uint64_t *data, km_error *err);
int km_card_copy_dram(km_session *s, unsigned bank, uint64_t bank_address, void *dst,
                      uint64_t n, uint64_t *data, km_error *err);
/* km_backend_ops.read_dram of a backend on the card. */
int km_card_read_dram(km_session *s, unsigned bank, uint64_t bank_address, void *dst, uint64_t n,
                      km_error *err);

/* A result block as the host writes it before the start: zero but this
 * run's nonce. */
void km_result_block_init(kmx_result_block *b, uint64_t nonce);

/* The cached image of the thread running on a cluster plan. */
const char *km_session_image(const km_session *s, const km_cluster_plan *cp);

/* Fills t from a cluster's result block as it stands at the end (any
 * state; a block that is not final is left to the caller to call stuck). */
void km_result_from_block(const kmx_result_block *b, int cluster, km_thread_result *t);

/* The message of a result whose backend gave none (after describe): for
 * a `parallel` error, the call, the core and the caller's line — one
 * text for every backend. */
void km_result_explain(km_thread_result *t);

/* Whether a final state is a failure the other threads stop for (spec:
 * "when one ... ends with a library error, the others are asked to stop
 * at once"). */
bool km_state_stops_others(km_state s);

#endif
