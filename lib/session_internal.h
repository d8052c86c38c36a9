/* session_internal: what the session's files share — the backend table
 * and the session itself (not part of km_session.h's contract).
 *
 * session.c does what every backend needs the same way: the build, the
 * plan, the nonce, the timeouts, the region copies.  A backend
 * (session_sim.c; later host and card) does the rest through km_backend_ops:
 * write a cluster's image, argument block and regions (the host steps a-f
 * of kmx_layout.h), run, read DRAM back.  session_result.c turns a result
 * block into a thread result, which any backend that runs the kmx runtime
 * shares; session_source.c finds source lines. */
#ifndef KM_SESSION_INTERNAL_H
#define KM_SESSION_INTERNAL_H

#include "km_session.h"

typedef struct km_backend_ops {
    km_backend kind;
    /* Everything of the load after the build and the plan: create the
     * card, write each cluster, start the threads.  s->backend is the
     * backend's own state. */
    int (*load)(km_session *s, km_error *err);
    /* Runs until every thread is final, stopping at timeout_ps and giving
     * up grace_ps after the stop.  Fills r's threads, device_ps and
     * instructions. */
    int (*run)(km_session *s, const km_run_opts *o, uint64_t timeout_ps, uint64_t grace_ps,
               km_run_result *r, km_error *err);
    /* n bytes of `bank` at bank_address, as DRAM holds them (not a cache). */
    int (*read_dram)(km_session *s, unsigned bank, uint64_t bank_address, void *dst, uint64_t n,
                     km_error *err);
    void (*free)(km_session *s);
} km_backend_ops;

extern const km_backend_ops km_sim_backend;

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
    void **copy_bytes;
};

/* The card's kernel side on the simulated card (session_feed.c): the
 * Tensix grid on `dram` (with the program's kernels when kernels_so is not
 * NULL), the dispatcher, the host ring and the feeder that submits p's
 * commands; `sync` (optional) is the dispatcher's (sim_dispatcher_params).
 * km_feed_attach_thread attaches the ring of the thread on `cluster` as
 * its ring line says (nothing for KMX_RING_NONE).  km_feed_step runs every
 * dispatcher pass that starts at or before until_ps; km_feed_done: every
 * command has its event; km_feed_stop: the kernel stops (commands not yet
 * taken are rejected, handlers see the stop flag). */
struct sim_dram;
struct sim_noc;
typedef struct km_feed km_feed;
int km_feed_create(km_feed **out, const km_program *p, struct sim_dram *dram,
                   const char *kernels_so, void (*sync)(void *ctx, uint64_t now_ps),
                   void *sync_ctx, km_error *err);
int km_feed_attach_thread(km_feed *f, struct sim_noc *noc, int cluster,
                          const kmx_ring_descriptor *desc, km_error *err);
/* What km_region_address (km_device.h) answers: every region copy of the plan. */
void km_feed_set_regions(km_feed *f, const km_plan *plan);
/* The host fallback's ring for the thread on `cluster`: ring `cluster` of
 * the dispatcher, in host memory, with its writer and reader (NULL and
 * *err when the dispatcher refuses it).  km_feed_pass runs one pass;
 * km_feed_now_ps is when the next one starts. */
struct sim_ring_host;
struct sim_ring_host *km_feed_attach_host_ring(km_feed *f, int cluster, km_error *err);
void km_feed_pass(km_feed *f);
uint64_t km_feed_now_ps(const km_feed *f);
void km_feed_step(km_feed *f, uint64_t until_ps);
bool km_feed_done(const km_feed *f);
void km_feed_stop(km_feed *f);
const km_command_result *km_feed_results(const km_feed *f);
void km_feed_free(km_feed *f);

/* A region's initial contents into a fresh card's DRAM (zeros are never
 * written: the card starts zeroed); whether an earlier cluster of the plan
 * (index < upto) already wrote this shared region's one copy. */
int km_dram_write_region(struct sim_dram *d, const km_placed *pl, km_error *err);
bool km_region_written_before(const km_plan *plan, unsigned upto, const km_placed *pl);

extern const km_backend_ops km_host_backend;

/* The cached image of the thread running on a cluster plan. */
const char *km_session_image(const km_session *s, const km_cluster_plan *cp);

/* Fills t from a cluster's result block as it stands at the end (any
 * state; a block that is not final is left to the caller to call stuck). */
void km_result_from_block(const kmx_result_block *b, int cluster, km_thread_result *t);

/* Whether a final state is a failure the other threads stop for (spec:
 * "when one ... ends with a library error, the others are asked to stop
 * at once"). */
bool km_state_stops_others(km_state s);

/* Looks up `address` in `image` with the toolchain's addr2line; src->known
 * false when it cannot say. */
void km_source_lookup(const char *image, uint64_t address, km_source *src);
/* The same for an offset in a host shared object (a host fallback), with
 * the host's addr2line. */
void km_host_source_lookup(const char *object, uint64_t offset, km_source *src);

#endif
