/* km_session: what every backend's load and run share (km_session.h) — the
 * build through the cache, the plan, the nonce, the timeouts, the region
 * copies after the stop. */
#include "session_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "blackhole.h"
#include "km_driver.h"
#include "km_fs.h"
#include "km_profile.h"
#include "ks_grow.h"
#include "ks_text.h"
#include "sim_card.h"

const char *km_backend_name(km_backend b)
{
    switch (b) {
    case KM_BACKEND_SIM:
        return "sim";
    case KM_BACKEND_HOST:
        return "host";
    case KM_BACKEND_CARD:
        return "card";
    }
    return "?";
}

bool km_run_all_returned(const km_run_result *r)
{
    for (unsigned i = 0; i < r->nthreads; i++)
        if (r->threads[i].state != KM_STATE_RETURNED)
            return false;
    return true;
}

bool km_seconds_valid(double seconds)
{
    return isfinite(seconds) && seconds > 0 && seconds <= KM_SECONDS_MAX;
}

uint64_t km_default_timeout_us(const km_program *p)
{
    uint64_t longest = 0;
    bool any = false;
    for (size_t i = 0; i < p->nthreads; i++) {
        if (p->threads[i].deadline_us != 0) {
            any = true;
            if (p->threads[i].deadline_us > longest)
                longest = p->threads[i].deadline_us;
        }
    }
    return any ? longest + 1000000u : 10000000u;
}

/* $KMRUN_SIM_FAULT: test-only (session_internal.h). */
static int fault_from_env(km_fault *out, km_error *err)
{
    static const char *const names[] = {"", "args", "region", "bank", "check", "ring"};
    const char *v = getenv("KMRUN_SIM_FAULT");
    *out = KM_FAULT_NONE;
    if (!v || !*v)
        return KM_OK;
    for (unsigned i = 1; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(v, names[i]) == 0) {
            *out = (km_fault)i;
            return KM_OK;
        }
    }
    return km_fail(err, KM_EXIT_USAGE,
                   "unknown KMRUN_SIM_FAULT '%s' (expected args, region, bank, check or ring)", v);
}

int km_session_open_ops(km_session **out, const km_program *p, const km_backend_ops *ops,
                        km_error *err)
{
    *out = NULL;
    km_session *s = calloc(1, sizeof *s);
    if (!s)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for a session");
    s->p = p;
    s->ops = ops;
    int rc = fault_from_env(&s->fault, err);
    if (rc != KM_OK) {
        free(s);
        return rc;
    }
    *out = s;
    return KM_OK;
}

void km_session_check_handover(km_session *s, bool on)
{
    s->check_handover = on;
}

void km_session_card_memory(km_session *s, km_card_memory *m)
{
    s->card_memory = m;
}

/* What the card's clusters hold now, into the session's card memory. */
static void keep_card_memory(km_session *s)
{
    km_card_memory *m = s->card_memory;
    if (!m || !s->card || !s->ops || s->ops->kind != KM_BACKEND_SIM || !s->planned)
        return;
    for (size_t i = 0; i < s->plan.nclusters; i++) {
        unsigned c = (unsigned)s->plan.clusters[i].cluster;
        if (c < BH_CLUSTERS && sim_card_prefetch_get(s->card, c, m->prefetch[c], NULL) == KS_OK)
            m->set[c] = true;
    }
}

int km_session_trace_instructions(km_session *s, uint32_t cores, sim_trace_fn fn, void *ctx,
                                  km_error *err)
{
    if (s->ops->kind != KM_BACKEND_SIM)
        return km_fail(err, KM_EXIT_USAGE,
                       "the host fallback runs X280 threads on the host, not on simulated "
                       "cores: it cannot trace their instructions (run on the simulated card)");
    s->trace_cores = cores;
    s->trace = fn;
    s->trace_ctx = ctx;
    return KM_OK;
}

int km_session_profile(km_session *s, km_error *err)
{
    if (s->ops->kind != KM_BACKEND_SIM)
        return km_fail(err, KM_EXIT_USAGE,
                       "the host fallback runs X280 threads on the host, not on simulated "
                       "cores: it cannot profile them (run on the simulated card)");
    s->profile = true;
    return KM_OK;
}

int km_session_write_profile(km_session *s, const char *dir, km_error *err)
{
    if (!s->profile || !s->card)
        return KM_OK;
    km_profile p = {0};
    int rc = KM_OK;
    /* the clusters that run one image together: one addr2line for them */
    bool done[BH_CLUSTERS] = {false};
    for (unsigned i = 0; rc == KM_OK && i < s->plan.nclusters; i++) {
        if (done[i])
            continue;
        const char *image = km_session_image(s, &s->plan.clusters[i]);
        unsigned clusters[BH_CLUSTERS], n = 0;
        const sim_profile *sp[BH_CLUSTERS][BH_CLUSTER_CORES];
        for (unsigned j = i; rc == KM_OK && j < s->plan.nclusters; j++) {
            const km_cluster_plan *cp = &s->plan.clusters[j];
            const char *its = km_session_image(s, cp);
            if (done[j] || (its != image && (!its || !image || strcmp(its, image) != 0)))
                continue;
            done[j] = true;
            clusters[n] = cp->cluster;
            for (unsigned core = 0; rc == KM_OK && core < BH_CLUSTER_CORES; core++) {
                sp[n][core] = sim_card_profile(s->card, cp->cluster, core);
                if (sp[n][core] && sim_profile_failed(sp[n][core]))
                    rc = km_fail(err, KM_EXIT_SYSTEM,
                                 "out of memory for the profile of core %u.%u", cp->cluster, core);
            }
            n++;
        }
        /* The image is a build cache entry's, which never changes: what
         * addr2line says of it is kept beside it, for the next run. */
        char *memo = image ? ks_strf("%s.lines", image) : NULL;
        if (rc == KM_OK)
            rc = km_profile_add_clusters(&p, n, clusters, (const sim_profile *const (*)[4])sp,
                                         image, memo, err);
        free(memo);
    }
    if (rc == KM_OK)
        rc = km_profile_save(&p, dir, err);
    km_profile_free(&p);
    return rc;
}

/* This run's nonce: random, never 0 (a zeroed result block would match). */
static uint64_t make_nonce(void)
{
    uint64_t n = 0;
    if (getrandom(&n, sizeof n, 0) != (ssize_t)sizeof n) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        n = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 12;
    }
    return n ? n : 0x6b6d72756e;
}

int km_session_load(km_session *s, km_cache *c, const km_build_opts *build, km_error *err)
{
    km_build_opts opts = {0};
    if (build)
        opts = *build;
    /* The host backend runs each thread's fallback: built with the rest. */
    opts.host = opts.host || s->ops->kind == KM_BACKEND_HOST;
    /* A failed build may still hold what it allocated: freed at close. */
    s->built = true;
    int rc = km_build(s->p, c, &opts, &s->build, err);
    if (rc != KM_OK)
        return rc;
    rc = km_plan_make(s->p, &s->plan, err);
    if (rc != KM_OK)
        return rc;
    s->planned = true;
    s->nonce = make_nonce();
    return s->ops->load(s, err);
}

const char *km_session_image(const km_session *s, const km_cluster_plan *cp)
{
    size_t i = (size_t)(cp->thread - s->p->threads);
    return i < s->build.nthreads ? s->build.threads[i].path : NULL;
}

static uint64_t seconds_to_ps(double seconds)
{
    double ps = seconds * (double)BH_PS_PER_SECOND;
    return ps >= 9e18 ? UINT64_MAX / 2 : (uint64_t)llround(ps);
}

void km_print_core_name(const km_print_line *p, char *out, size_t n)
{
    if (p->tensix)
        snprintf(out, n, "t%u", p->core);
    else
        snprintf(out, n, "c%d.%u", p->cluster, p->core);
}

int km_session_begin(km_session *s, const km_run_opts *o, uint64_t timeout_ps, km_run_result *r,
                     km_error *err)
{
    memset(r, 0, sizeof *r);
    if (!s->planned)
        return km_fail(err, KM_EXIT_INTERNAL, "a session runs only after its load");
    if (s->steer || s->ran)
        return km_fail(err, KM_EXIT_INTERNAL, "a session runs once");
    s->hooks = calloc(1, sizeof *s->hooks);
    if (!s->hooks)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for a run");
    s->ops->hooks(s, s->hooks);
    s->hooks->nonce = s->nonce;
    for (unsigned i = 0; i < s->plan.nclusters && i < BH_WORK_CLUSTERS; i++)
        s->clusters[i] = s->plan.clusters[i].cluster;
    return km_drive_begin(&s->steer, s->hooks, s->clusters, s->plan.nclusters, o, timeout_ps,
                          KM_STOP_GRACE_US * BH_PS_PER_US, r, err);
}

km_steer *km_session_steer(km_session *s)
{
    return s->ran ? NULL : s->steer;
}

int km_session_end(km_session *s, km_run_result *r, km_error *err)
{
    if (!s->steer || s->ran)
        return km_fail(err, KM_EXIT_INTERNAL, "a run ended that did not begin");
    km_drive_end(s->steer);
    s->ran = true;
    km_session_tl_finish(s, r->device_ps);
    s->prints = r->prints;
    s->nprints = r->nprints;
    if (s->card && sim_card_prints_lost(s->card))
        r->prints_lost = true;
    int rc = r->prints_lost ? km_fail(err, KM_EXIT_SYSTEM, "out of memory keeping the run's prints")
                            : KM_OK;
    if (s->card)
        sim_card_print_drops_get(s->card, &r->print_drops);
    /* The checker's findings, named while the card and the build are
     * there (the card keeps its records until it is freed at close). */
    if (rc == KM_OK && s->card)
        rc = km_card_handovers(s, r, err);
    if (rc == KM_OK && s->card)
        rc = km_card_wild_writes(s, r, err);
    if (rc == KM_OK && s->card)
        rc = km_card_kernel_faults(s, r, err);
    return rc;
}

int km_session_run(km_session *s, const km_run_opts *o, km_run_result *r, km_error *err)
{
    uint64_t timeout_ps = o && o->timeout_s > 0 ? seconds_to_ps(o->timeout_s)
                                                : km_default_timeout_us(s->p) * BH_PS_PER_US;
    int rc = km_session_begin(s, o, timeout_ps, r, err);
    if (rc != KM_OK)
        return rc;
    km_drive_kernel_stop(s->steer, timeout_ps);
    rc = km_drive_until(s->steer, km_drive_settled, NULL, UINT64_MAX, err);
    if (rc != KM_OK) {
        /* As before the run could be steered: what ran is kept, its
         * prints with it. */
        s->ran = true;
        km_session_tl_finish(s, r->device_ps);
        s->prints = r->prints;
        s->nprints = r->nprints;
        return rc;
    }
    return km_session_end(s, r, err);
}

static void lock(km_session *s, bool on)
{
    if (s->ops->lock)
        s->ops->lock(s, on);
}

int km_session_submit(km_session *s, const km_host_command *c, size_t *index, km_error *err)
{
    if (!km_session_steer(s) || !s->card)
        return km_fail(err, KM_EXIT_USAGE, "a command is fed only while the run goes");
    if (!KS_GROW(s->fed, s->fed_cap, s->nfed + 1))
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for a host-fed command");
    km_host_command copy = *c;
    copy.handler = strdup(c->handler ? c->handler : "");
    if (!copy.handler)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for a host-fed command");
    sim_card_command command = km_card_command_of(&copy);
    ks_error e;
    lock(s, true);
    int rc = sim_card_feed(s->card, &command, index, &e);
    lock(s, false);
    if (rc != KS_OK) {
        free(copy.handler);
        return km_fail_from(err, &e);
    }
    s->fed[s->nfed++] = copy;
    return KM_OK;
}

size_t km_session_ncommands(km_session *s)
{
    if (!s->card)
        return 0;
    lock(s, true);
    size_t n = sim_card_ncommands(s->card);
    lock(s, false);
    return n;
}

bool km_session_command(km_session *s, size_t index, km_command_result *out)
{
    if (!s->card)
        return false;
    bool ok = false;
    lock(s, true);
    if (index < sim_card_ncommands(s->card)) {
        *out = sim_card_command_results(s->card)[index];
        ok = true;
    }
    lock(s, false);
    return ok;
}

static size_t count_regions(const km_session *s)
{
    size_t count = 0;
    for (unsigned i = 0; i < s->plan.nclusters; i++)
        count += s->plan.clusters[i].nregions;
    return count;
}

static int copy_arrays(km_session *s, km_error *err)
{
    size_t count = count_regions(s);
    if (!s->copy_bytes)
        s->copy_bytes = calloc(count ? count : 1, sizeof *s->copy_bytes);
    if (!s->copy_data)
        s->copy_data = calloc(count ? count : 1, sizeof *s->copy_data);
    return s->copy_bytes && s->copy_data
               ? KM_OK
               : km_fail(err, KM_EXIT_SYSTEM, "out of memory for the regions' copies");
}

/* Copy `i`'s memory for region `pl`: a fresh anonymous mapping, whose
 * pages cost nothing until written, and its data map. */
static int copy_memory(km_session *s, size_t i, const km_placed *pl, km_error *err)
{
    if (s->copy_bytes[i])
        return KM_OK; /* made at the load (km_session_back_regions) */
    uint64_t size = pl->region->size;
    size_t units = (size_t)((size + KM_REGION_UNIT - 1) >> KM_REGION_UNIT_SHIFT);
    uint64_t *data = calloc(units / 64 + 1, sizeof *data);
    void *bytes = size > SIZE_MAX ? MAP_FAILED
                                  : mmap(NULL, size ? (size_t)size : 1, PROT_READ | PROT_WRITE,
                                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!data || bytes == MAP_FAILED) {
        if (bytes != MAP_FAILED)
            munmap(bytes, size ? (size_t)size : 1);
        free(data);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for a copy of region '%s' (%llu bytes)",
                       pl->region->name, (unsigned long long)size);
    }
    s->copy_bytes[i] = bytes;
    s->copy_data[i] = data;
    return KM_OK;
}

int km_session_back_regions(km_session *s, km_error *err)
{
    int rc = copy_arrays(s, err);
    size_t n = 0;
    for (unsigned i = 0; rc == KM_OK && i < s->plan.nclusters; i++) {
        const km_cluster_plan *cp = &s->plan.clusters[i];
        for (uint32_t k = 0; rc == KM_OK && k < cp->nregions; k++, n++) {
            const km_placed *pl = &cp->regions[k];
            rc = copy_memory(s, n, pl, err);
            if (rc == KM_OK)
                sim_card_back_dram(s->card, pl->bank, pl->bank_address, s->copy_bytes[n],
                                   pl->region->size);
        }
    }
    return rc;
}

/* Region `pl`'s copy, the session's n-th. */
static int copy_region(km_session *s, const km_placed *pl, int cluster, km_error *err)
{
    size_t i = s->ncopies;
    int rc = copy_memory(s, i, pl, err);
    if (rc != KM_OK)
        return rc;
    km_region_copy *copy = &s->copies[s->ncopies++];
    copy->name = pl->region->name;
    copy->cluster = cluster;
    copy->bank = pl->bank;
    copy->bank_address = pl->bank_address;
    copy->bytes = s->copy_bytes[i];
    copy->size = pl->region->size;
    if (s->ops->copy_dram) {
        copy->data = s->copy_data[i];
        return s->ops->copy_dram(s, pl->bank, pl->bank_address, s->copy_bytes[i], copy->size,
                                 s->copy_data[i], err);
    }
    return s->ops->read_dram(s, pl->bank, pl->bank_address, s->copy_bytes[i], copy->size, err);
}

int km_session_regions(km_session *s, const km_region_copy **out, size_t *n, km_error *err)
{
    *out = NULL;
    *n = 0;
    if (!s->ran)
        return km_fail(err, KM_EXIT_INTERNAL, "regions are read only after the run has stopped");
    if (!s->copies) {
        size_t count = count_regions(s);
        int rc = copy_arrays(s, err);
        if (rc != KM_OK)
            return rc;
        s->copies = calloc(count ? count : 1, sizeof *s->copies);
        if (!s->copies)
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the regions' copies");
        for (unsigned i = 0; i < s->plan.nclusters; i++) {
            const km_cluster_plan *cp = &s->plan.clusters[i];
            for (uint32_t k = 0; k < cp->nregions; k++) {
                int status = copy_region(s, &cp->regions[k], cp->cluster, err);
                if (status != KM_OK)
                    return status;
            }
        }
    }
    *out = s->copies;
    *n = s->ncopies;
    return KM_OK;
}

const km_plan *km_session_plan(const km_session *s)
{
    return &s->plan;
}

km_backend km_session_backend(const km_session *s)
{
    return s->ops->kind;
}

sim_card *km_session_card(km_session *s)
{
    return s->ops && s->ops->kind == KM_BACKEND_SIM ? s->card : NULL;
}

const char *km_session_image_of(const km_session *s, unsigned index)
{
    return index < s->plan.nclusters ? km_session_image(s, &s->plan.clusters[index]) : NULL;
}

const km_build_result *km_session_build(const km_session *s)
{
    return &s->build;
}

void km_session_close(km_session *s)
{
    if (!s)
        return;
    keep_card_memory(s);
    if (s->ops && s->ops->free)
        s->ops->free(s);
    sim_card_free(s->card);
    km_session_tl_free(s);
    free(s->handovers);
    free(s->wild);
    free(s->kfaults);
    for (size_t i = 0; i < s->nprints; i++)
        free(s->prints[i].text);
    free(s->prints);
    /* After the card (sim_card_free): its pages may live in the copies. */
    size_t n = 0;
    for (unsigned i = 0; s->copy_bytes && i < s->plan.nclusters; i++)
        for (uint32_t k = 0; k < s->plan.clusters[i].nregions; k++, n++) {
            uint64_t size = s->plan.clusters[i].regions[k].region->size;
            if (s->copy_bytes[n])
                munmap(s->copy_bytes[n], size ? (size_t)size : 1);
            free(s->copy_data[n]);
        }
    free(s->copy_bytes);
    free(s->copy_data);
    free(s->copies);
    km_drive_free(s->steer);
    free(s->hooks);
    for (size_t i = 0; i < s->nfed; i++)
        free(s->fed[i].handler);
    free(s->fed);
    if (s->built)
        km_build_result_free(&s->build);
    free(s);
}
