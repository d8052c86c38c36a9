/* card_setup: the simulated card under both backends that use it (sim,
 * host; session_internal.h) — made from the program, its regions'
 * initial contents, the command results back. */
#include "session_internal.h"

#include <stdlib.h>
#include <string.h>

#include "km_fs.h"
#include "km_handlers.h"
#include "km_driver.h"
#include "km_handover.h"
#include "km_kernel_fault.h"
#include "km_wild.h"
#include "sim_card.h"

/* Where a region's bytes go: `size` bytes from bank_address of `bank`,
 * or, page_size > 0, an interleaved tensor at base bank_address (its
 * pages dealt by km_interleaved_at, the grid's rule). */
typedef struct region_at {
    unsigned bank;
    uint64_t bank_address;
    uint32_t page_size;
} region_at;

static int card_write(sim_card *card, const region_at *w, uint64_t offset, const void *src,
                      uint64_t n, km_error *err)
{
    ks_error e;
    const unsigned char *from = src;
    while (n > 0) {
        unsigned bank = w->bank;
        uint64_t at = w->bank_address + offset, k = n;
        if (w->page_size > 0) {
            k = km_interleaved_at(w->bank_address, w->page_size, offset, &bank, &at);
            k = k < n ? k : n;
        }
        if (sim_card_write_dram(card, bank, at, from, k, &e) != KS_OK)
            return km_fail_from(err, &e);
        from += k;
        offset += k;
        n -= k;
    }
    return KM_OK;
}

/* Step e's other half: a region's initial bytes.  The card is fresh (every
 * byte zero), so zeros are never written: a size-only region costs no
 * host memory, and a file, word list or bytes given in memory stop at
 * their last byte. */
static int write_region(sim_card *d, const km_region *r, const region_at *pl, km_error *err)
{
    switch (r->init) {
    case KM_INIT_ZERO:
        return KM_OK;
    case KM_INIT_WORDS: {
        uint64_t n = (uint64_t)r->nwords * 4u;
        uint8_t *bytes = malloc(n ? n : 1);
        if (!bytes)
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory for region '%s'", r->name);
        for (size_t i = 0; i < r->nwords; i++)
            for (unsigned k = 0; k < 4; k++)
                bytes[i * 4 + k] = (uint8_t)(r->words[i] >> (8 * k));
        int rc = card_write(d, pl, 0, bytes, n < r->size ? n : r->size, err);
        free(bytes);
        return rc;
    }
    case KM_INIT_FILL: {
        enum { CHUNK = 64 * 1024 };
        uint8_t *chunk = malloc(CHUNK);
        if (!chunk)
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory for region '%s'", r->name);
        for (unsigned i = 0; i < CHUNK; i++)
            chunk[i] = (uint8_t)(r->fill >> (8 * (i % 4)));
        int rc = KM_OK;
        for (uint64_t at = 0; rc == KM_OK && at < r->size; at += CHUNK) {
            uint64_t n = r->size - at < CHUNK ? r->size - at : CHUNK;
            rc = card_write(d, pl, at, chunk, n, err);
        }
        free(chunk);
        return rc;
    }
    case KM_INIT_BYTES: {
        /* Given in memory (a program built in code), checked to fit. */
        uint64_t n = r->bytes ? r->bytes->n : 0;
        return n ? card_write(d, pl, 0, r->bytes->data,
                              n < r->size ? n : r->size, err)
                 : KM_OK;
    }
    case KM_INIT_FILE: {
        char *data = NULL;
        size_t n = 0;
        int rc = km_read_file(r->file, &data, &n, err);
        if (rc != KM_OK)
            return rc;
        if (n > r->size)
            rc = km_fail(err, KM_EXIT_USAGE,
                         "region file '%s' of region '%s' grew to %zu bytes since the manifest "
                         "was read (the region holds %llu)",
                         r->file, r->name, n, (unsigned long long)r->size);
        else
            rc = card_write(d, pl, 0, data, n, err);
        free(data);
        return rc;
    }
    }
    return km_fail(err, KM_EXIT_INTERNAL, "region '%s' has no known initial contents", r->name);
}

/* Whether an earlier cluster on the same bank already wrote this shared
 * region (clusters 2 and 3 share one copy). */
static bool written_before(const km_plan *plan, unsigned upto, const km_placed *pl)
{
    for (unsigned i = 0; i < upto; i++) {
        const km_cluster_plan *o = &plan->clusters[i];
        for (uint32_t k = 0; k < o->nregions; k++)
            if (o->regions[k].bank == pl->bank && o->regions[k].bank_address == pl->bank_address)
                return true;
    }
    return false;
}

int km_card_write_regions(km_session *s, unsigned index, km_error *err)
{
    const km_cluster_plan *cp = &s->plan.clusters[index];
    int rc = KM_OK;
    for (uint32_t k = 0; rc == KM_OK && k < cp->nregions; k++) {
        const km_placed *pl = &cp->regions[k];
        region_at at = {pl->bank, pl->bank_address, 0};
        if (!(pl->shared && written_before(&s->plan, index, pl)))
            rc = write_region(s->card, pl->region, &at, err);
    }
    return rc;
}

sim_card_command km_card_command_of(const km_host_command *hc)
{
    sim_card_command c;
    memset(&c, 0, sizeof c);
    c.command = km_host_command_line(hc);
    c.wait = hc->wait;
    c.result = hc->result;
    return c;
}

/* Each traced core's cluster runs a thread of the program; KM_TRACE_ALL
 * becomes every core of those clusters.  *cores: the card's mask. */
static int traced_cores(const km_session *s, uint32_t *cores, km_error *err)
{
    char used[64] = "";
    size_t at = 0;
    uint32_t run = 0, all = (1u << BH_CLUSTER_CORES) - 1;
    for (unsigned i = 0; i < s->plan.nclusters; i++) {
        run |= all << ((unsigned)(s->plan.clusters[i].cluster - 1) * BH_CLUSTER_CORES);
        int k = snprintf(used + at, sizeof used - at, "%s%d", i ? ", " : "",
                         s->plan.clusters[i].cluster);
        if (k > 0 && (size_t)k < sizeof used - at)
            at += (size_t)k;
    }
    *cores = s->trace_cores == KM_TRACE_ALL ? run : s->trace_cores;
    uint32_t missing = *cores & ~run;
    if (!missing)
        return KM_OK;
    unsigned bit = (unsigned)__builtin_ctz(missing);
    unsigned cluster = bit / BH_CLUSTER_CORES + 1, core = bit % BH_CLUSTER_CORES;
    return km_fail(err, KM_EXIT_USAGE,
                   "cannot trace core %u.%u: no thread of '%s' runs on X280 cluster %u (its "
                   "threads run on cluster%s %s)",
                   cluster, core, s->p->name, cluster, s->plan.nclusters == 1 ? "" : "s", used);
}

int km_card_create(km_session *s, km_error *err)
{
    const km_program *p = s->p;
    size_t nregions = 0;
    for (unsigned i = 0; i < s->plan.nclusters; i++)
        nregions += s->plan.clusters[i].nregions;
    sim_card_command *commands = calloc(p->ncommands ? p->ncommands : 1, sizeof *commands);
    km_region_place *regions = calloc(nregions ? nregions : 1, sizeof *regions);
    int rc = KM_OK;
    if (!commands || !regions)
        rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory for the simulated card");
    uint32_t traced = 0;
    if (rc == KM_OK && s->trace)
        rc = traced_cores(s, &traced, err);
    for (size_t i = 0; rc == KM_OK && i < p->ncommands; i++)
        commands[i] = km_card_command_of(&p->commands[i]);
    unsigned n = 0;
    for (unsigned i = 0; rc == KM_OK && i < s->plan.nclusters; i++) {
        const km_cluster_plan *cp = &s->plan.clusters[i];
        for (uint32_t k = 0; k < cp->nregions; k++) {
            const km_placed *pl = &cp->regions[k];
            regions[n++] = (km_region_place){cp->cluster, pl->region->name, pl->bank,
                                             pl->bank_address, pl->region->size};
        }
    }
    if (rc == KM_OK) {
        sim_card_params params = {
            .mhz = p->x280_mhz,
            .kernels_so = s->build.has_kernels ? s->build.kernels.path : NULL,
            .handlers = (const char *const *)p->kernels.handlers,
            .nhandlers = (unsigned)p->kernels.nhandlers,
            .commands = commands,
            .ncommands = p->ncommands,
            .regions = regions,
            .nregions = n,
            /* The threads that serve ports run on the card's clusters; the
             * host fallback's run on the host, where a port call fails. */
            .ports = s->plan.has_ports && s->ops->kind == KM_BACKEND_SIM ? &s->plan.ports : NULL,
            .check_handover = km_card_checks_handovers(s),
            .trace_cores = traced,
            .trace = s->trace,
            .trace_ctx = s->trace_ctx,
            .handler_spin_ms = KM_HANDLER_SPIN_MS,
            .profile = s->profile,
            .tensors = s->plan.tensors,
            .ntensors = s->plan.ntensors,
        };
        ks_error e;
        if (sim_card_create(&s->card, &params, &e) != KS_OK)
            rc = km_fail_from(err, &e);
    }
    /* The interleaved tensors' initial contents, whichever backend: no
     * thread writes them. */
    for (unsigned i = 0; rc == KM_OK && i < s->plan.ntensors; i++) {
        const km_tensor_place *tp = &s->plan.tensors[i];
        region_at at = {0, tp->base, tp->page_size};
        rc = write_region(s->card, s->plan.tensor_regions[i], &at, err);
    }
    free(commands);
    free(regions);
    return rc;
}

void km_card_commands(km_session *s, km_run_result *r)
{
    if (!s->card || sim_card_ncommands(s->card) == 0)
        return;
    r->commands = sim_card_command_results(s->card);
    r->ncommands = sim_card_ncommands(s->card);
    r->fed = s->fed;
    r->nfed = s->nfed;
}

void km_card_port_waits(km_session *s, km_run_result *r)
{
    r->nport_waits = 0;
    if (!s->card)
        return;
    unsigned n = 0;
    const km_port_gave_up *waits = sim_card_port_waits(s->card, &n);
    if (!waits)
        return;
    if (n > KM_PORT_WAITS_KEPT)
        n = KM_PORT_WAITS_KEPT;
    memcpy(r->port_waits, waits, n * sizeof *waits);
    r->nport_waits = n;
}

bool km_card_checks_handovers(const km_session *s)
{
    return s->ops->kind == KM_BACKEND_SIM && (s->check_handover || s->p->check_handover);
}

/* An earlier finding's site with the same place (the same object and pc):
 * its source, so that addr2line runs once per place. */
static bool same_place(const km_site *a, const km_site *b)
{
    return a->kind == b->kind && a->pc == b->pc &&
           (a->kind != KM_SITE_X280 || a->cluster == b->cluster);
}

static const km_source *known_source(const km_handover *h, unsigned n, const km_site *s)
{
    for (unsigned i = 0; i < n; i++) {
        const km_site *sites[] = {&h[i].at, &h[i].writer, &h[i].fill};
        for (unsigned k = 0; k < 3; k++)
            if (same_place(sites[k], s))
                return &sites[k]->source;
    }
    return NULL;
}

/* The image each work cluster ran (NULL: none). */
static void images_by_cluster(const km_session *s, const char *image_of[BH_WORK_CLUSTERS + 1])
{
    for (unsigned c = 0; c <= BH_WORK_CLUSTERS; c++)
        image_of[c] = NULL;
    for (unsigned i = 0; i < s->plan.nclusters; i++) {
        const km_cluster_plan *cp = &s->plan.clusters[i];
        if (cp->cluster >= 1 && cp->cluster <= (int)BH_WORK_CLUSTERS)
            image_of[cp->cluster] = km_session_image(s, cp);
    }
}

int km_card_handovers(km_session *s, km_run_result *r, km_error *err)
{
    r->handover_checked = false;
    r->handovers = NULL;
    r->nhandovers = 0;
    if (!s->card || !km_card_checks_handovers(s))
        return KM_OK;
    r->handover_checked = true;
    unsigned n = 0;
    const sim_handover *records = sim_card_handovers(s->card, &n);
    if (!records || n == 0)
        return KM_OK;
    free(s->handovers);
    s->nhandovers = 0;
    s->handovers = calloc(n, sizeof *s->handovers);
    if (!s->handovers)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for %u hand-over findings", n);
    const char *image_of[BH_WORK_CLUSTERS + 1];
    images_by_cluster(s, image_of);
    const char *kernels = s->build.has_kernels ? s->build.kernels.path : NULL;
    for (unsigned i = 0; i < n; i++) {
        km_handover *h = &s->handovers[i];
        km_handover_name(s->p, &s->plan, &records[i], h);
        km_site *sites[] = {&h->at, &h->writer, &h->fill};
        for (unsigned k = 0; k < 3; k++) {
            const km_source *known = known_source(s->handovers, i, sites[k]);
            if (known)
                sites[k]->source = *known;
            else
                km_site_source(sites[k], image_of, kernels);
        }
    }
    s->nhandovers = n;
    r->handovers = s->handovers;
    r->nhandovers = n;
    return KM_OK;
}

int km_card_wild_writes(km_session *s, km_run_result *r, km_error *err)
{
    r->wild_writes = NULL;
    r->nwild_writes = 0;
    r->wild_more = 0;
    unsigned n = 0;
    const sim_wild_write *records = s->card ? sim_card_wild_writes(s->card, &n, &r->wild_more)
                                            : NULL;
    if (!records || n == 0)
        return KM_OK;
    free(s->wild);
    s->nwild = 0;
    s->wild = calloc(n, sizeof *s->wild);
    if (!s->wild)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for %u wild writes", n);
    const char *image_of[BH_WORK_CLUSTERS + 1];
    images_by_cluster(s, image_of);
    for (unsigned i = 0; i < n; i++) {
        km_wild_write *w = &s->wild[i];
        km_wild_name(&records[i], w);
        km_site_source(&w->writer, image_of, NULL);
        /* The thread whose memory it was: a note, if it has nothing to say. */
        for (unsigned k = 0; k < r->nthreads; k++) {
            km_thread_result *t = &r->threads[k];
            if (t->cluster == w->target && !t->message[0])
                km_wild_note(w, t->message, sizeof t->message);
        }
    }
    s->nwild = n;
    r->wild_writes = s->wild;
    r->nwild_writes = n;
    return KM_OK;
}

unsigned km_card_kernel_fault_count(km_session *s)
{
    unsigned n = 0, more = 0;
    if (s->card)
        sim_card_handler_faults(s->card, &n, &more);
    return n + more;
}

int km_card_kernel_faults(km_session *s, km_run_result *r, km_error *err)
{
    r->kernel_faults = NULL;
    r->nkernel_faults = r->kernel_faults_more = 0;
    unsigned n = 0, more = 0;
    const sim_handler_fault *records =
        s->card ? sim_card_handler_faults(s->card, &n, &more) : NULL;
    r->kernel_faults_more = more;
    if (!records || n == 0)
        return KM_OK;
    free(s->kfaults);
    s->nkfaults = 0;
    s->kfaults = calloc(n, sizeof *s->kfaults);
    if (!s->kfaults)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for %u kernel faults", n);
    const char *kernels = s->build.has_kernels ? s->build.kernels.path : NULL;
    for (unsigned i = 0; i < n; i++) {
        km_kernel_fault *k = &s->kfaults[i];
        km_kernel_fault_name(s->p, &records[i], kernels, k);
        for (unsigned t = 0; t < r->nthreads; t++) {
            km_thread_result *th = &r->threads[t];
            if (k->cluster > 0 && th->cluster == k->cluster && !th->message[0])
                km_kernel_fault_note(k, th->message, sizeof th->message);
        }
    }
    s->nkfaults = n;
    r->kernel_faults = s->kfaults;
    r->nkernel_faults = n;
    return KM_OK;
}

int km_card_read_dram(km_session *s, unsigned bank, uint64_t bank_address, void *dst, uint64_t n,
                      km_error *err)
{
    ks_error e;
    return sim_card_read_dram(s->card, bank, bank_address, dst, n, &e) == KS_OK
               ? KM_OK
               : km_fail_from(err, &e);
}

static int card_copy(km_session *s, unsigned bank, uint64_t bank_address, void *dst,
                     uint64_t n, bool lend, uint64_t *data, km_error *err)
{
    ks_error e;
    return sim_card_move_dram(s->card, bank, bank_address, dst, n, lend, data,
                              data ? KM_REGION_UNIT_SHIFT : 0, &e) == KS_OK
               ? KM_OK
               : km_fail_from(err, &e);
}

int km_card_move_dram(km_session *s, unsigned bank, uint64_t bank_address, void *dst,
                      uint64_t n, uint64_t *data, km_error *err)
{
    return card_copy(s, bank, bank_address, dst, n, true, data, err);
}

int km_card_copy_dram(km_session *s, unsigned bank, uint64_t bank_address, void *dst,
                      uint64_t n, uint64_t *data, km_error *err)
{
    return card_copy(s, bank, bank_address, dst, n, false, data, err);
}

void km_result_block_init(kmx_result_block *b, uint64_t nonce)
{
    memset(b, 0, sizeof *b);
    b->nonce = nonce;
}
