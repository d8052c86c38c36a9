/* km_handover: the hand-over checker's findings named (km_handover.h). */
#include "km_handover.h"

#include "km_build.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "km_handlers.h"
#include "km_run_json.h"
#include "ks_text.h"
#include "session_internal.h"

const char *km_handover_kind_name(km_handover_kind k)
{
    static const char *const names[] = {
        [KM_HANDOVER_STALE_READ] = "stale_read",
        [KM_HANDOVER_STALE_SHARED_READ] = "stale_shared_read",
        [KM_HANDOVER_LOST_WRITE] = "lost_write",
        [KM_HANDOVER_UNFLUSHED_READ] = "unflushed_read",
        [KM_HANDOVER_LATENT_READ] = "latent_read",
    };
    return (unsigned)k < sizeof names / sizeof names[0] && names[k] ? names[k] : "unknown";
}

static void site_of(const km_program *p, const sim_site *s, km_site *out)
{
    memset(out, 0, sizeof *out);
    switch (s->kind) {
    case SIM_SITE_X280:
        out->kind = KM_SITE_X280;
        out->cluster = s->cluster;
        out->core = s->core;
        break;
    case SIM_SITE_HANDLER:
        out->kind = KM_SITE_HANDLER;
        out->core = s->core;
        out->handler_id = s->handler;
        out->handler = s->handler <= INT32_MAX ? km_handler_name(p, (int)s->handler) : NULL;
        break;
    case SIM_SITE_HOST:
        out->kind = KM_SITE_HOST;
        break;
    default:
        out->kind = KM_SITE_NONE;
        return;
    }
    out->pc = s->pc;
    out->caller = s->caller;
    out->ps = s->ps;
}

static const km_placed *find_copy(const km_plan *plan, unsigned bank, uint64_t address,
                                  int want_cluster, int *cluster)
{
    const km_placed *first = NULL;
    for (unsigned i = 0; i < plan->nclusters; i++) {
        const km_cluster_plan *cp = &plan->clusters[i];
        for (uint32_t k = 0; k < cp->nregions; k++) {
            const km_placed *pl = &cp->regions[k];
            if (pl->bank != bank || address < pl->bank_address ||
                address - pl->bank_address >= pl->region->size)
                continue;
            if (cp->cluster == want_cluster) {
                *cluster = cp->cluster;
                return pl;
            }
            if (!first) {
                first = pl;
                *cluster = cp->cluster;
            }
        }
    }
    return first;
}

static km_handover_kind kind_of(uint32_t k)
{
    switch (k) {
    case SIM_HANDOVER_STALE_READ:
        return KM_HANDOVER_STALE_READ;
    case SIM_HANDOVER_LOST_WRITE:
        return KM_HANDOVER_LOST_WRITE;
    case SIM_HANDOVER_UNFLUSHED_READ:
        return KM_HANDOVER_UNFLUSHED_READ;
    case SIM_HANDOVER_LATENT_READ:
        return KM_HANDOVER_LATENT_READ;
    default:
        return KM_HANDOVER_UNKNOWN;
    }
}

void km_handover_name(const km_program *p, const km_plan *plan, const sim_handover *rec,
                      km_handover *out)
{
    memset(out, 0, sizeof *out);
    out->record_kind = rec->kind;
    out->kind = kind_of(rec->kind);
    out->bank = rec->bank;
    out->bank_address = rec->bank_address;
    out->bytes = rec->bytes;
    out->end_address = rec->end_address > rec->bank_address ? rec->end_address
                                                            : rec->bank_address + rec->bytes;
    out->lines = rec->lines ? rec->lines : 1;
    site_of(p, &rec->at, &out->at);
    site_of(p, &rec->writer, &out->writer);
    if (out->kind == KM_HANDOVER_STALE_READ || out->kind == KM_HANDOVER_LOST_WRITE)
        site_of(p, &rec->fill, &out->fill);

    /* The copy of the cluster that must make the missing call. */
    const km_site *caller = out->kind == KM_HANDOVER_UNFLUSHED_READ ? &out->writer : &out->at;
    int want = caller->kind == KM_SITE_X280 ? caller->cluster : -1;
    int cluster = 0;
    const km_placed *pl = find_copy(plan, rec->bank, rec->bank_address, want, &cluster);
    if (pl) {
        out->has_region = true;
        out->region = pl->region->name;
        out->id = pl->id;
        out->cluster = cluster;
        out->shared = pl->shared;
        out->offset = rec->bank_address - pl->bank_address;
        out->end_offset = out->end_address - pl->bank_address;
    }

    bool foreign_x280 = out->writer.kind == KM_SITE_X280 && out->at.kind == KM_SITE_X280 &&
                        out->writer.cluster != out->at.cluster;
    if (out->kind == KM_HANDOVER_STALE_READ && pl && pl->shared && foreign_x280)
        out->kind = KM_HANDOVER_STALE_SHARED_READ;
    if (out->kind == KM_HANDOVER_LOST_WRITE && foreign_x280)
        out->push = true;

    const char *call = NULL;
    switch (out->kind) {
    case KM_HANDOVER_STALE_READ:
    case KM_HANDOVER_STALE_SHARED_READ:
    case KM_HANDOVER_LATENT_READ:
        call = "kmx_invalidate";
        break;
    case KM_HANDOVER_LOST_WRITE:
    case KM_HANDOVER_UNFLUSHED_READ:
        call = "kmx_flush";
        break;
    default:
        break;
    }
    if (call && pl)
        snprintf(out->missing, sizeof out->missing, "%s(%" PRIu32 ")", call, out->id);
    else if (call)
        snprintf(out->missing, sizeof out->missing, "%s", call);
}

/* ---- source lines -------------------------------------------------------- */

void km_site_source(km_site *s, const char *const image_of[BH_WORK_CLUSTERS + 1],
                    const char *kernels_so)
{
    memset(&s->source, 0, sizeof s->source);
    if (s->kind == KM_SITE_X280 && s->cluster >= 1 && s->cluster <= (int)BH_WORK_CLUSTERS) {
        km_source_lookup(image_of[s->cluster], s->pc, &s->source);
        /* Inside the runtime (its sources are built as /kmrun/...: a
         * push's stores): the thread's call, the instruction before the
         * return address. */
        if (s->source.known && strncmp(s->source.file, KM_RUNTIME_SOURCE "/", strlen(KM_RUNTIME_SOURCE "/")) == 0 &&
            s->caller > 0) {
            km_source call;
            km_source_lookup(image_of[s->cluster], s->caller - 1, &call);
            if (call.known)
                s->source = call;
        }
    }
    else if (s->kind == KM_SITE_HANDLER && s->pc > 0)
        km_host_source_lookup(kernels_so, s->pc - 1, &s->source);
}

/* ---- the diagnostic ------------------------------------------------------ */

/* "cluster 1 core 2", "handler 'fill'", "the host". */
static void who(const km_site *s, char *out, size_t n)
{
    switch (s->kind) {
    case KM_SITE_X280:
        snprintf(out, n, "cluster %d core %u", s->cluster, s->core);
        break;
    case KM_SITE_HANDLER:
        if (s->handler)
            snprintf(out, n, "handler '%s'", s->handler);
        else
            snprintf(out, n, "handler %" PRIu32, s->handler_id);
        break;
    case KM_SITE_HOST:
        snprintf(out, n, "the host");
        break;
    default:
        snprintf(out, n, "someone");
        break;
    }
}

/* "thread/sum.c:30", else "pc 0x1234" (never for the host). */
static void where(const km_site *s, char *out, size_t n)
{
    if (s->source.known)
        snprintf(out, n, "%s:%u", s->source.file, s->source.line);
    else
        snprintf(out, n, "pc 0x%" PRIx64, s->pc);
}

/* "handler 'fill' wrote it at kernels/fill.c:17, 1,204.5 µs" (verb "wrote it") */
static void wrote(ks_text *t, const km_site *s, const char *verb)
{
    char w[160], at[600], us[40];
    km_ps_us_text(s->ps, us, sizeof us);
    if (s->kind == KM_SITE_HOST) {
        ks_text_add(t, "the host %s (the host's initial contents), %s \xc2\xb5s", verb, us);
        return;
    }
    who(s, w, sizeof w);
    where(s, at, sizeof at);
    ks_text_add(t, "%s %s at %s, %s \xc2\xb5s", w, verb, at, us);
}

static void filled(ks_text *t, const km_site *s)
{
    if (s->kind == KM_SITE_NONE)
        return;
    char at[600], us[40];
    where(s, at, sizeof at);
    km_ps_us_text(s->ps, us, sizeof us);
    ks_text_add(t, "; the cache filled it at %s, %s \xc2\xb5s", at, us);
}

int km_handover_line(const km_handover *h, char *out, size_t n)
{
    ks_text t = {{0}, 0};
    /* The reading or writing-back site first. */
    if (h->at.source.known)
        ks_text_add(&t, "%s:%u: ", h->at.source.file, h->at.source.line);
    else
        ks_text_add(&t, "?: ");
    const char *what;
    switch (h->kind) {
    case KM_HANDOVER_STALE_READ:
        what = "stale read of region";
        break;
    case KM_HANDOVER_STALE_SHARED_READ:
        what = "stale read of shared region";
        break;
    case KM_HANDOVER_LOST_WRITE:
        what = "lost write to region";
        break;
    case KM_HANDOVER_UNFLUSHED_READ:
        what = "unflushed read of region";
        break;
    case KM_HANDOVER_LATENT_READ:
        what = "latent stale read of region";
        break;
    default:
        what = "hand-over finding (an unknown kind) in region";
        break;
    }
    if (h->has_region)
        ks_text_add(&t, "%s '%s' +0x%" PRIx64, what, h->region, h->offset);
    else
        ks_text_add(&t, "%.*s bank %u address 0x%" PRIx64, (int)(strlen(what) - strlen(" region")),
                    what, h->bank, h->bank_address);
    if (h->lines > 1)
        ks_text_add(&t, "..+0x%" PRIx64 " (%" PRIu32 " lines)",
                    h->has_region ? h->end_offset : h->end_address, h->lines);
    char at[160];
    who(&h->at, at, sizeof at);
    if (h->at.kind == KM_SITE_HANDLER)
        ks_text_add(&t, " (%s on Tensix core %u)", at, h->at.core);
    else
        ks_text_add(&t, " (%s)", at);
    char us[40];
    switch (h->kind) {
    case KM_HANDOVER_STALE_READ:
    case KM_HANDOVER_STALE_SHARED_READ:
        ks_text_add(&t, ": ");
        wrote(&t, &h->writer, "wrote it");
        filled(&t, &h->fill);
        ks_text_add(&t, "; %s is missing between them", h->missing);
        break;
    case KM_HANDOVER_LOST_WRITE:
        km_ps_us_text(h->at.ps, us, sizeof us);
        ks_text_add(&t, ": its dirty line, written back at %s \xc2\xb5s, overwrote what ", us);
        wrote(&t, &h->writer, h->push ? "pushed" : "wrote");
        filled(&t, &h->fill);
        if (h->push)
            ks_text_add(&t, "; the receiver's %s is missing before the push", h->missing);
        else
            ks_text_add(&t, "; %s is missing before the hand-over", h->missing);
        break;
    case KM_HANDOVER_LATENT_READ:
        km_ps_us_text(h->at.ps, us, sizeof us);
        ks_text_add(&t, " at %s \xc2\xb5s: ", us);
        wrote(&t, &h->writer, "wrote it");
        ks_text_add(&t, ", and cluster %d has not invalidated it since; it read the new bytes only "
                        "because its cache did not hold the old line (a card's may); %s is missing "
                        "before the read", h->at.cluster, h->missing);
        break;
    case KM_HANDOVER_UNFLUSHED_READ:
        km_ps_us_text(h->at.ps, us, sizeof us);
        ks_text_add(&t, " at %s \xc2\xb5s: ", us);
        wrote(&t, &h->writer, "wrote it");
        ks_text_add(&t, " and held it dirty; %s is missing ", h->missing);
        if (h->at.kind == KM_SITE_HANDLER)
            ks_text_add(&t, "before the kmx_submit");
        else if (h->at.kind == KM_SITE_HOST)
            ks_text_add(&t, "before the end");
        else if (h->at.kind == KM_SITE_X280)
            ks_text_add(&t, "before cluster %d reads it", h->at.cluster);
        else
            ks_text_add(&t, "before the other side reads it");
        break;
    default:
        km_ps_us_text(h->at.ps, us, sizeof us);
        ks_text_add(&t, " at %s \xc2\xb5s (card record kind %" PRIu32 ")", us, h->record_kind);
        break;
    }
    return snprintf(out, n, "%s", t.buf);
}
