/* sim_kernel: the card's kernel side (sim_kernel.h) — the Tensix grid (sim_grid), the
 * dispatcher (sim_dispatcher) with the grid plugged in through
 * sim_job_ops, the host ring in host memory, written and read by a host
 * "feeder" (sim_ring_host), and the threads' rings, reached through the
 * card's NoC (sim_ring_noc_mem) where the plan put them.
 *
 * The feeder submits the manifest's commands in order: command i once
 * command i-1 has its event when i-1 has `wait` (the default), else at
 * once.  A command rejected KM_REASON_BUSY is submitted again after the
 * wake (nothing else is submitted before the wake); every other event is
 * the command's own.  Grid, dispatcher and feeder step in lockstep, one
 * dispatcher pass at a time: the grid up to the pass's start, the pass,
 * then the feeder at the pass's end (its events, its submissions).  A
 * command's modeled time is from its (last) submission to the end of the
 * pass that wrote its event.  Deterministic, like the rest of the card. */
#include "sim_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "sim_clock.h"
#include "sim_dispatcher.h"
#include "sim_grid.h"

/* The host ring: command lines and the read line in one buffer, counts and
 * events in another (host memory; addresses are the buffers' own). */
#define FEED_COMMAND_DEPTH 8u
#define FEED_EVENT_DEPTH 16u
#define FEED_CMD_BASE 0x1000u
#define FEED_EV_BASE 0x2000u

/* A job the grid refused at submit (the dispatcher checked handler, group
 * and flags first, so only a surprise): reported done at once, result 0. */
typedef struct kernel_refused {
    uint32_t job;
    uint64_t at_ps;
} kernel_refused;

struct sim_kernel {
    sim_card_command *commands; /* the host-fed commands, in order */
    size_t ncommands, capacity;
    sim_grid *grid;
    sim_dispatcher *d;
    uint8_t cmd_bytes[FEED_CMD_BASE + 64u * (FEED_COMMAND_DEPTH + 1u)];
    uint8_t ev_bytes[FEED_EV_BASE + 64u + 16u * FEED_EVENT_DEPTH];
    sim_ring_buffer cmd_buf, ev_buf;
    sim_ring_mem cmd_mem, ev_mem;
    sim_ring_host host;
    km_command_result *results; /* one per command */
    uint64_t *submit_ps;
    size_t next;                /* the next command not yet submitted */
    size_t *again;              /* commands rejected busy, to submit after the wake */
    size_t nagain;
    bool wait_wake;
    uint64_t next_pass_ps;
    kernel_refused refused[SIM_DISPATCH_JOBS_MAX];
    unsigned nrefused;
    /* Each work cluster's ring: the two halves' ports (the dispatcher keeps
     * pointers to them). */
    sim_ring_noc ring_ports[SIM_DISPATCH_RINGS][2];
    sim_ring_mem ring_mems[SIM_DISPATCH_RINGS][2];
    km_region_place regions[BH_WORK_CLUSTERS * KMX_MAX_REGIONS]; /* km_region_address's */
    km_tensor_place tensors[KM_MAX_TENSORS];                      /* km_tensor_of's */
    /* The grid's handlers taken out, each with its command's ring and
     * handle, noted after every step of the grid while the job runs. */
    sim_handler_fault faults[SIM_HANDLER_FAULTS_KEPT];
    unsigned nfaults;
    /* The host fallback's rings (sim_kernel_attach_host_ring): in host memory. */
    struct host_ring {
        uint8_t cmd_bytes[64u * (KMX_RING_COMMAND_DEPTH + 1u)];
        uint8_t ev_bytes[64u + 16u * KMX_RING_EVENT_DEPTH];
        sim_ring_buffer cmd_buf, ev_buf;
        sim_ring_host writer;
    } host_rings[SIM_DISPATCH_RINGS];
};

/* ---- the grid behind sim_job_ops ------------------------------------------- */

static bool job_known(void *ctx, uint32_t handler)
{
    sim_kernel *f = ctx;
    return sim_grid_handler_known(f->grid, handler);
}

static bool job_can_take(void *ctx, uint32_t first, uint32_t count, bool exclusive)
{
    sim_kernel *f = ctx;
    (void)exclusive; /* a core runs one job at a time: any overlap waits */
    return !sim_grid_busy(f->grid, first, count);
}

static void job_submit(void *ctx, uint32_t job, const km_command_t *command, uint64_t now_ps)
{
    sim_kernel *f = ctx;
    if (sim_grid_submit(f->grid, job, command, 0, now_ps) != KM_REASON_NONE &&
        f->nrefused < SIM_DISPATCH_JOBS_MAX)
        f->refused[f->nrefused++] = (kernel_refused){job, now_ps};
}

static bool job_poll_done(void *ctx, uint64_t now_ps, uint32_t *job, uint32_t *result,
                          bool *timed_out, uint64_t *end_ps, uint16_t *where)
{
    sim_kernel *f = ctx;
    if (f->nrefused > 0) {
        *job = f->refused[0].job;
        *result = 0;
        *timed_out = false;
        *end_ps = f->refused[0].at_ps;
        *where = KM_WHERE_NONE;
        memmove(f->refused, f->refused + 1, --f->nrefused * sizeof f->refused[0]);
        return true;
    }
    (void)now_ps; /* the grid was stepped to the pass's start: all it reports ended before */
    sim_grid_done done;
    if (!sim_grid_poll_done(f->grid, &done))
        return false;
    *job = done.job_id;
    *result = done.result;
    *timed_out = done.timed_out;
    *end_ps = done.end_ps;
    *where = done.where;
    return true;
}

static uint16_t job_cancel(void *ctx, uint32_t job, uint64_t now_ps)
{
    sim_kernel *f = ctx;
    (void)now_ps;
    uint16_t where = KM_WHERE_NONE;
    sim_grid_cancel(f->grid, job, &where);
    return where;
}

/* ---- the feeder -------------------------------------------------------------- */

static size_t command_of_handle(const sim_kernel *f, uint32_t handle)
{
    for (size_t i = 0; i < f->ncommands; i++)
        if (f->results[i].submitted && f->results[i].handle == handle)
            return i;
    return SIZE_MAX;
}

/* The feeder at modeled time now: take every event, then submit what may
 * go. */
static void feed(sim_kernel *f, uint64_t now)
{
    km_event_t e;
    while (sim_ring_host_poll(&f->host, &e) == SIM_RING_OK) {
        if (e.kind == KMX_EVENT_WAKE) {
            f->wait_wake = false;
            continue;
        }
        size_t i = command_of_handle(f, e.handle);
        if (i == SIZE_MAX)
            continue;
        km_command_result *r = &f->results[i];
        if (e.kind == KM_EVENT_REJECTED && e.reason == KM_REASON_BUSY) {
            f->again[f->nagain++] = i;
            f->wait_wake = true;
            r->busy++;
            continue;
        }
        r->ended = true;
        r->event = e.kind;
        r->reason = e.reason;
        r->has_result = e.kind == KM_EVENT_DONE && f->commands[i].result;
        r->result = r->has_result ? e.ticks : 0;
        r->ps = now - f->submit_ps[i];
    }
    while (!f->wait_wake) {
        size_t i;
        bool from_again = f->nagain > 0;
        if (from_again) {
            i = f->again[0];
        } else {
            i = f->next;
            if (i >= f->ncommands)
                break;
            if (i > 0 && f->commands[i - 1].wait && !f->results[i - 1].ended)
                break;
        }
        km_command_t c = f->commands[i].command;
        uint32_t handle;
        if (sim_ring_host_submit(&f->host, &c, &handle) != SIM_RING_OK)
            break; /* no free slot: after the next pass */
        f->results[i].submitted = true;
        f->results[i].handle = handle;
        f->submit_ps[i] = now;
        if (from_again)
            memmove(f->again, f->again + 1, --f->nagain * sizeof f->again[0]);
        else
            f->next++;
    }
}

static void set_regions(sim_kernel *f, const km_region_place *regions, unsigned n)
{
    if (n > sizeof f->regions / sizeof f->regions[0])
        n = sizeof f->regions / sizeof f->regions[0];
    if (n > 0)
        memcpy(f->regions, regions, n * sizeof regions[0]);
    sim_grid_set_regions(f->grid, f->regions, n);
}

static void set_tensors(sim_kernel *f, const km_tensor_place *tensors, unsigned n)
{
    if (n > KM_MAX_TENSORS)
        n = KM_MAX_TENSORS;
    if (n > 0)
        memcpy(f->tensors, tensors, n * sizeof tensors[0]);
    sim_grid_set_tensors(f->grid, f->tensors, n);
}

void sim_kernel_free(sim_kernel *f)
{
    if (!f)
        return;
    sim_dispatcher_free(f->d);
    sim_grid_free(f->grid);
    free(f->results);
    free(f->submit_ps);
    free(f->again);
    free(f->commands);
    free(f);
}

int sim_kernel_create(sim_kernel **out, const sim_card_params *p, sim_dram *dram,
                      void (*sync)(void *ctx, uint64_t now_ps), void *sync_ctx, ks_error *err)
{
    *out = NULL;
    sim_kernel *f = calloc(1, sizeof *f);
    size_t n = p->ncommands ? p->ncommands : 1;
    if (f) {
        f->results = calloc(n, sizeof *f->results);
        f->submit_ps = calloc(n, sizeof *f->submit_ps);
        f->again = calloc(n, sizeof *f->again);
        f->commands = calloc(n, sizeof *f->commands);
    }
    if (!f || !f->results || !f->submit_ps || !f->again || !f->commands) {
        sim_kernel_free(f);
        return ks_fail(err, KS_ERR_SYSTEM, "out of memory for the Tensix grid");
    }
    if (p->ncommands)
        memcpy(f->commands, p->commands, p->ncommands * sizeof *f->commands);
    f->ncommands = p->ncommands;
    f->capacity = n;
    f->grid = sim_grid_create(dram, SIM_GRID_MHZ);
    if (!f->grid) {
        sim_kernel_free(f);
        return ks_fail(err, KS_ERR_SYSTEM, "out of memory for the Tensix grid");
    }
    set_regions(f, p->regions, p->nregions);
    set_tensors(f, p->tensors, p->ntensors);
    sim_grid_set_ports(f->grid, p->ports);
    sim_grid_set_spin_limit(f->grid, p->handler_spin_ms);
    if (p->kernels_so) {
        int rc = sim_grid_load_kernels(f->grid, p->kernels_so, p->handlers, p->nhandlers, err);
        if (rc != KS_OK) {
            sim_kernel_free(f);
            return rc;
        }
    }
    sim_dispatcher_params params;
    sim_dispatcher_params_default(&params);
    params.mhz = p->mhz;
    params.jobs = (sim_job_ops){
        .ctx = f,
        .handler_known = job_known,
        .can_take = job_can_take,
        .submit = job_submit,
        .poll_done = job_poll_done,
        .cancel = job_cancel,
    };
    params.sync = sync;
    params.sync_ctx = sync_ctx;
    f->d = sim_dispatcher_create(&params);
    if (!f->d) {
        sim_kernel_free(f);
        return ks_fail(err, KS_ERR_BUG, "the dispatcher model refused its parameters");
    }
    f->cmd_buf = (sim_ring_buffer){f->cmd_bytes, 0, sizeof f->cmd_bytes};
    f->ev_buf = (sim_ring_buffer){f->ev_bytes, 0, sizeof f->ev_bytes};
    f->cmd_mem = sim_ring_buffer_mem(&f->cmd_buf);
    f->ev_mem = sim_ring_buffer_mem(&f->ev_buf);
    kmx_ring_descriptor desc;
    memset(&desc, 0, sizeof desc);
    desc.kind = KMX_RING_REMOTE;
    desc.command_depth = FEED_COMMAND_DEPTH;
    desc.event_depth = FEED_EVENT_DEPTH;
    desc.read_line = FEED_CMD_BASE;
    desc.commands = FEED_CMD_BASE + 64u;
    desc.counts = FEED_EV_BASE;
    desc.events = FEED_EV_BASE + 64u;
    if (!sim_dispatcher_attach_ring(f->d, 0, &f->cmd_mem, &f->ev_mem, &desc)) {
        sim_kernel_free(f);
        return ks_fail(err, KS_ERR_BUG, "the dispatcher refused the host ring");
    }
    sim_ring_host_init(&f->host, &f->cmd_mem, &f->ev_mem, &desc);
    feed(f, 0); /* the first submissions, before the first pass */
    *out = f;
    return KS_OK;
}

int sim_kernel_attach_thread(sim_kernel *f, sim_noc *noc, unsigned cluster,
                             const kmx_ring_descriptor *desc, ks_error *err)
{
    if (desc->kind == KMX_RING_NONE)
        return KS_OK;
    unsigned ring = cluster;
    /* Remote: the command lines in the dispatcher's LIM (desc's tile), the
     * events in the thread's LIM.  Cached: both in the thread's bank. */
    sim_ring_noc *ports = f->ring_ports[ring];
    ports[0] = (sim_ring_noc){noc, desc->noc_x, desc->noc_y};
    ports[1] = desc->kind == KMX_RING_REMOTE
                   ? (sim_ring_noc){noc, BH_CLUSTER_TILE_X(cluster),
                                    BH_CLUSTER_TILE_Y(cluster)}
                   : ports[0];
    f->ring_mems[ring][0] = sim_ring_noc_mem(&ports[0]);
    f->ring_mems[ring][1] = sim_ring_noc_mem(&ports[1]);
    if (!sim_dispatcher_attach_ring(f->d, ring, &f->ring_mems[ring][0], &f->ring_mems[ring][1],
                                    desc))
        return ks_fail(err, KS_ERR_BUG, "the dispatcher refused the ring of cluster %u",
                       cluster);
    return KS_OK;
}

sim_ring_host *sim_kernel_attach_host_ring(sim_kernel *f, unsigned cluster, ks_error *err)
{
    struct host_ring *h = &f->host_rings[cluster];
    unsigned ring = cluster;
    h->cmd_buf = (sim_ring_buffer){h->cmd_bytes, 0, sizeof h->cmd_bytes};
    h->ev_buf = (sim_ring_buffer){h->ev_bytes, 0, sizeof h->ev_bytes};
    f->ring_mems[ring][0] = sim_ring_buffer_mem(&h->cmd_buf);
    f->ring_mems[ring][1] = sim_ring_buffer_mem(&h->ev_buf);
    kmx_ring_descriptor desc;
    memset(&desc, 0, sizeof desc);
    desc.kind = KMX_RING_REMOTE;
    desc.command_depth = KMX_RING_COMMAND_DEPTH;
    desc.event_depth = KMX_RING_EVENT_DEPTH;
    desc.read_line = 0;
    desc.commands = 64u;
    desc.counts = 0;
    desc.events = 64u;
    if (!sim_dispatcher_attach_ring(f->d, ring, &f->ring_mems[ring][0], &f->ring_mems[ring][1],
                                    &desc)) {
        ks_fail(err, KS_ERR_BUG, "the dispatcher refused the ring of cluster %u", cluster);
        return NULL;
    }
    sim_ring_host_init(&h->writer, &f->ring_mems[ring][0], &f->ring_mems[ring][1], &desc);
    return &h->writer;
}

void sim_kernel_pass(sim_kernel *f)
{
    sim_kernel_step(f, f->next_pass_ps);
}

/* *array (of `size`-byte elements) grown to cap; false (it unchanged)
 * when memory ran out. */
static bool grow_to(void **array, size_t size, size_t cap)
{
    void *grown = realloc(*array, cap * size);
    if (grown)
        *array = grown;
    return grown != NULL;
}

/* Room for one more command in each of the feeder's arrays. */
static bool grow(sim_kernel *f)
{
    if (f->ncommands < f->capacity)
        return true;
    size_t cap = f->capacity * 2;
    if (!grow_to((void **)&f->commands, sizeof *f->commands, cap) ||
        !grow_to((void **)&f->results, sizeof *f->results, cap) ||
        !grow_to((void **)&f->submit_ps, sizeof *f->submit_ps, cap) ||
        !grow_to((void **)&f->again, sizeof *f->again, cap))
        return false;
    f->capacity = cap;
    return true;
}

int sim_kernel_feed(sim_kernel *f, const sim_card_command *c, size_t *index, ks_error *err)
{
    if (!grow(f))
        return ks_fail(err, KS_ERR_SYSTEM, "out of memory for a host-fed command");
    size_t i = f->ncommands++;
    f->commands[i] = *c;
    memset(&f->results[i], 0, sizeof f->results[i]);
    f->submit_ps[i] = 0;
    *index = i;
    return KS_OK;
}

size_t sim_kernel_ncommands(const sim_kernel *f)
{
    return f->ncommands;
}

uint64_t sim_kernel_now_ps(const sim_kernel *f)
{
    return f->next_pass_ps;
}

bool sim_kernel_done(const sim_kernel *f)
{
    for (size_t i = 0; i < f->ncommands; i++)
        if (!f->results[i].ended)
            return false;
    return true;
}

/* The grid's new faults, with their commands (the jobs still run: a
 * halted core never ends its job before the dispatcher's own limit). */
static void note_faults(sim_kernel *f)
{
    unsigned n = 0;
    const sim_handler_fault *found = sim_grid_faults(f->grid, &n, NULL);
    for (; f->nfaults < n; f->nfaults++) {
        sim_handler_fault *k = &f->faults[f->nfaults];
        *k = found[f->nfaults];
        if (!sim_dispatcher_job_command(f->d, k->job, &k->ring, &k->handle)) {
            k->ring = 0;
            k->handle = 0;
        }
    }
}

void sim_kernel_step(sim_kernel *f, uint64_t until_ps)
{
    while (f->next_pass_ps <= until_ps) {
        uint64_t t = f->next_pass_ps;
        sim_grid_step(f->grid, t);
        note_faults(f);
        f->next_pass_ps = sim_dispatcher_step(f->d, t);
        feed(f, f->next_pass_ps);
    }
}

void sim_kernel_step_grid(sim_kernel *f, uint64_t until_ps)
{
    sim_grid_step(f->grid, until_ps);
    note_faults(f);
}

const sim_handler_fault *sim_kernel_faults(const sim_kernel *f, unsigned *n, unsigned *more)
{
    sim_grid_faults(f->grid, n, more);
    *n = f->nfaults;
    return f->faults;
}

bool sim_kernel_failed(const sim_kernel *f, ks_error *err)
{
    return sim_grid_failed(f->grid, err);
}

sim_grid *sim_kernel_grid(sim_kernel *f)
{
    return f->grid;
}

void sim_kernel_dispatcher_stats(const sim_kernel *f, sim_dispatcher_stats *out)
{
    sim_dispatcher_get_stats(f->d, out);
}

void sim_kernel_record(sim_kernel *f, sim_card_moment_fn fn, void *ctx)
{
    sim_grid_record(f->grid, fn, ctx);
    sim_dispatcher_record(f->d, fn, ctx);
}

void sim_kernel_stop(sim_kernel *f)
{
    sim_dispatcher_stop(f->d);
    sim_grid_set_stop(f->grid, true);
}

const km_command_result *sim_kernel_results(const sim_kernel *f)
{
    return f->results;
}
