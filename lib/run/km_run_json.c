/* km_run_json: the run's JSON document (km_run_json.h). */
#include "km_run_json.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "km_handlers.h"
#include "km_handover.h"
#include "km_json.h"
#include "km_kernel_fault.h"
#include "km_wild.h"
#include "km_ports.h"
#include "ks_text.h"

/* "int.frac" with trailing zeros (and a bare point) dropped. */
static void decimal(uint64_t whole, uint64_t frac, unsigned digits, char *out, size_t n)
{
    if (frac == 0) {
        snprintf(out, n, "%" PRIu64, whole);
        return;
    }
    snprintf(out, n, "%" PRIu64 ".%0*" PRIu64, whole, (int)digits, frac);
    size_t len = strlen(out);
    while (len > 0 && out[len - 1] == '0')
        out[--len] = 0;
}

void km_ticks_us(uint64_t ticks, char *out, size_t n)
{
    /* 50 ticks a microsecond: 0.02 us each. */
    _Static_assert(BH_TICKS_PER_SECOND == 50000000u, "a tick is 20 ns");
    decimal(ticks / 50u, ticks % 50u * 2u, 2, out, n);
}

void km_ps_us(uint64_t ps, char *out, size_t n)
{
    decimal(ps / 1000000u, ps % 1000000u, 6, out, n);
}

void km_ps_us_text(uint64_t ps, char *out, size_t n)
{
    uint64_t tenths = ps / (BH_PS_PER_US / 10u) + (ps % (BH_PS_PER_US / 10u) >= BH_PS_PER_US / 20u);
    char whole[32];
    ks_thousands(tenths / 10u, whole, sizeof whole);
    snprintf(out, n, "%s.%u", whole, (unsigned)(tenths % 10u));
}

static void add_u64(cJSON *o, const char *name, uint64_t v)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, v);
    cJSON_AddRawToObject(o, name, text);
}

static void add_ticks(cJSON *o, const char *name, bool has, uint64_t ticks)
{
    if (!has) {
        cJSON_AddNullToObject(o, name);
        return;
    }
    char text[32];
    km_ticks_us(ticks, text, sizeof text);
    cJSON_AddRawToObject(o, name, text);
}

static cJSON *source_json(const km_source *s)
{
    if (!s->known)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", s->file);
    cJSON_AddNumberToObject(o, "line", s->line);
    if (s->has_function)
        cJSON_AddStringToObject(o, "function", s->function);
    else
        cJSON_AddNullToObject(o, "function");
    return o;
}

static cJSON *thread_json(const km_thread_result *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "cluster", t->cluster);
    cJSON_AddBoolToObject(o, "ran", t->state == KM_STATE_RETURNED);
    cJSON_AddStringToObject(o, "state", km_state_name(t->state));
    cJSON_AddStringToObject(o, "error", km_kmx_error_name(t->error));
    if (t->has_code)
        cJSON_AddNumberToObject(o, "code", t->code);
    else
        cJSON_AddNullToObject(o, "code");
    cJSON *words = cJSON_AddArrayToObject(o, "words");
    for (uint32_t i = 0; i < t->nwords; i++)
        cJSON_AddItemToArray(words, cJSON_CreateNumber(t->words[i]));
    cJSON_AddNumberToObject(o, "where", t->where);
    add_ticks(o, "where_microseconds", t->has_where_ticks, t->where_ticks);
    add_ticks(o, "microseconds", t->has_ticks, t->ticks);
    if (t->trapped) {
        cJSON *trap = cJSON_CreateObject();
        cJSON_AddNumberToObject(trap, "core", t->trap.core);
        add_u64(trap, "mcause", t->trap.mcause);
        add_u64(trap, "mepc", t->trap.mepc);
        add_u64(trap, "mtval", t->trap.mtval);
        cJSON_AddStringToObject(trap, "name", t->trap.name);
        cJSON_AddItemToObject(trap, "source", source_json(&t->trap.source));
        cJSON_AddItemToObject(o, "trap", trap);
    } else {
        cJSON_AddNullToObject(o, "trap");
    }
    if (t->stuck) {
        cJSON *stuck = cJSON_CreateObject();
        cJSON_AddNumberToObject(stuck, "core", t->stuck_info.core);
        add_u64(stuck, "pc", t->stuck_info.pc);
        cJSON_AddItemToObject(stuck, "source", source_json(&t->stuck_info.source));
        cJSON_AddStringToObject(stuck, "detail", t->stuck_info.detail);
        cJSON *cores = cJSON_AddArrayToObject(stuck, "cores");
        for (unsigned k = 0; k < t->stuck_info.ncores; k++) {
            const km_stuck_core *c = &t->stuck_info.cores[k];
            cJSON *core = cJSON_CreateObject();
            cJSON_AddNumberToObject(core, "core", c->core);
            add_u64(core, "pc", c->pc);
            cJSON_AddItemToObject(core, "source", source_json(&c->source));
            cJSON_AddBoolToObject(core, "running", c->running);
            cJSON_AddItemToArray(cores, core);
        }
        cJSON_AddItemToObject(o, "stuck", stuck);
    } else {
        cJSON_AddNullToObject(o, "stuck");
    }
    if (t->message[0])
        cJSON_AddStringToObject(o, "message", t->message);
    else
        cJSON_AddNullToObject(o, "message");
    return o;
}

cJSON *km_ports_json(const km_program *p, const km_port_dealing *d)
{
    if (!d)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    int clusters[BH_WORK_CLUSTERS];
    unsigned nclusters = km_ports_clusters(p, clusters);
    for (unsigned i = 0; a && i < nclusters; i++) {
        for (unsigned x = 0; x < BH_CLUSTER_CORES; x++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddItemToArray(a, o);
            cJSON_AddNumberToObject(o, "cluster", clusters[i]);
            cJSON_AddNumberToObject(o, "x280_core", x);
            cJSON *cores = cJSON_AddArrayToObject(o, "cores");
            for (unsigned core = 0; core < BH_GRID_CORES; core++)
                if (d->cluster[core] == clusters[i] && d->x280_core[core] == x)
                    cJSON_AddItemToArray(cores, cJSON_CreateNumber(core));
        }
    }
    return a;
}

/* KM_WHERE_* and KM_PORT_GAVE_UP_* as the run JSON names them; a code this
 * kmrun does not know (a newer card's) is "unknown". */
static const char *where_name(unsigned where)
{
    static const char *const names[] = {
        [KM_WHERE_X280_ANSWER] = "x280_answer", [KM_WHERE_X280_TELL] = "x280_tell",
        [KM_WHERE_X280_SEND] = "x280_send",     [KM_WHERE_X280_NONE] = "x280_none",
        [KM_WHERE_X280_OWNER] = "x280_owner",
    };
    return where < sizeof names / sizeof names[0] && names[where] ? names[where] : "unknown";
}

static const char *why_name(unsigned why)
{
    static const char *const names[] = {
        [KM_PORT_GAVE_UP_LIMIT] = "limit",
        [KM_PORT_GAVE_UP_STOP] = "stop",
        [KM_PORT_GAVE_UP_REFUSED] = "refused",
    };
    return why < sizeof names / sizeof names[0] && names[why] ? names[why] : "unknown";
}

static cJSON *port_wait_json(const km_program *p, const km_port_gave_up *w)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "core", w->core);
    const char *handler = km_handler_name(p, (int)w->handler);
    if (handler)
        cJSON_AddStringToObject(o, "handler", handler);
    else
        cJSON_AddNullToObject(o, "handler");
    cJSON_AddStringToObject(o, "where", where_name(w->where));
    cJSON_AddStringToObject(o, "why", why_name(w->why));
    char us[40];
    km_ps_us(w->ps, us, sizeof us);
    cJSON_AddRawToObject(o, "microseconds", us);
    return o;
}

/* Where a print came from: its name, then the cluster and core of an X280
 * core or the grid index of a Tensix core (the other null). */
static void print_core_json(cJSON *o, bool tensix, int cluster, unsigned core)
{
    km_print_line l = {.tensix = tensix, .cluster = cluster, .core = core};
    char name[24];
    km_print_core_name(&l, name, sizeof name);
    cJSON_AddStringToObject(o, "core", name);
    if (tensix) {
        cJSON_AddNullToObject(o, "cluster");
        cJSON_AddNullToObject(o, "x280_core");
        cJSON_AddNumberToObject(o, "tensix", core);
    } else {
        cJSON_AddNumberToObject(o, "cluster", cluster);
        cJSON_AddNumberToObject(o, "x280_core", core);
        cJSON_AddNullToObject(o, "tensix");
    }
}

static cJSON *print_json(const km_print_line *l)
{
    cJSON *o = cJSON_CreateObject();
    print_core_json(o, l->tensix, l->cluster, l->core);
    char us[48];
    km_ps_us(l->ps, us, sizeof us);
    cJSON_AddRawToObject(o, "microseconds", us);
    cJSON_AddStringToObject(o, "text", l->text);
    return o;
}

static cJSON *prints_dropped_json(const km_run_result *r)
{
    cJSON *a = cJSON_CreateArray();
    const sim_card_print_drops *d = &r->print_drops;
    for (unsigned c = 0; c < BH_CLUSTERS; c++)
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++)
            if (d->x280[c][i]) {
                cJSON *o = cJSON_CreateObject();
                print_core_json(o, false, (int)c, i);
                cJSON_AddNumberToObject(o, "dropped", d->x280[c][i]);
                cJSON_AddItemToArray(a, o);
            }
    for (unsigned i = 0; i < BH_GRID_CORES; i++)
        if (d->tensix[i]) {
            cJSON *o = cJSON_CreateObject();
            print_core_json(o, true, 0, i);
            cJSON_AddNumberToObject(o, "dropped", d->tensix[i]);
            cJSON_AddItemToArray(a, o);
        }
    return a;
}

static cJSON *site_json(const km_site *s)
{
    if (s->kind == KM_SITE_NONE)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    static const char *const kinds[] = {[KM_SITE_X280] = "x280", [KM_SITE_HANDLER] = "handler",
                                        [KM_SITE_HOST] = "host"};
    cJSON_AddStringToObject(o, "kind", kinds[s->kind]);
    if (s->kind == KM_SITE_X280)
        cJSON_AddNumberToObject(o, "cluster", s->cluster);
    else
        cJSON_AddNullToObject(o, "cluster");
    if (s->kind == KM_SITE_HOST)
        cJSON_AddNullToObject(o, "core");
    else
        cJSON_AddNumberToObject(o, "core", s->core);
    if (s->kind == KM_SITE_HANDLER && s->handler)
        cJSON_AddStringToObject(o, "handler", s->handler);
    else
        cJSON_AddNullToObject(o, "handler");
    if (s->kind == KM_SITE_HOST)
        cJSON_AddNullToObject(o, "pc");
    else
        add_u64(o, "pc", s->pc);
    cJSON_AddItemToObject(o, "source", source_json(&s->source));
    char us[40];
    km_ps_us(s->ps, us, sizeof us);
    cJSON_AddRawToObject(o, "microseconds", us);
    return o;
}

cJSON *km_handover_json(const km_handover *h)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", km_handover_kind_name(h->kind));
    if (h->has_region) {
        cJSON_AddStringToObject(o, "region", h->region);
        cJSON_AddNumberToObject(o, "id", h->id);
        cJSON_AddNumberToObject(o, "cluster", h->cluster);
        add_u64(o, "offset", h->offset);
    } else {
        cJSON_AddNullToObject(o, "region");
        cJSON_AddNullToObject(o, "id");
        cJSON_AddNullToObject(o, "cluster");
        cJSON_AddNullToObject(o, "offset");
    }
    cJSON_AddNumberToObject(o, "bytes", h->bytes);
    cJSON_AddNumberToObject(o, "bank", h->bank);
    add_u64(o, "bank_address", h->bank_address);
    if (h->has_region)
        add_u64(o, "end_offset", h->end_offset);
    else
        cJSON_AddNullToObject(o, "end_offset");
    add_u64(o, "end_address", h->end_address);
    add_u64(o, "lines", h->lines);
    cJSON_AddItemToObject(o, "at", site_json(&h->at));
    cJSON_AddItemToObject(o, "writer", site_json(&h->writer));
    cJSON_AddItemToObject(o, "fill", site_json(&h->fill));
    if (h->missing[0])
        cJSON_AddStringToObject(o, "missing", h->missing);
    else
        cJSON_AddNullToObject(o, "missing");
    return o;
}

cJSON *km_wild_json(const km_wild_write *w)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "writer", site_json(&w->writer));
    cJSON_AddNumberToObject(o, "target", w->target);
    cJSON *tile = cJSON_AddArrayToObject(o, "tile");
    cJSON_AddItemToArray(tile, cJSON_CreateNumber(w->x));
    cJSON_AddItemToArray(tile, cJSON_CreateNumber(w->y));
    add_u64(o, "address", w->first);
    add_u64(o, "end", w->end);
    add_u64(o, "bytes", w->bytes);
    cJSON_AddNumberToObject(o, "stores", w->stores);
    char us[40];
    km_ps_us(w->last_ps, us, sizeof us);
    cJSON_AddRawToObject(o, "last_microseconds", us);
    return o;
}

cJSON *km_kernel_fault_json(const km_kernel_fault *k)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", k->stuck ? "stuck" : "fault");
    cJSON_AddNumberToObject(o, "core", k->core);
    if (k->handler)
        cJSON_AddStringToObject(o, "handler", k->handler);
    else
        cJSON_AddNullToObject(o, "handler");
    if (k->cluster > 0)
        cJSON_AddNumberToObject(o, "cluster", k->cluster);
    else
        cJSON_AddNullToObject(o, "cluster");
    if (k->handle > 0)
        cJSON_AddNumberToObject(o, "handle", k->handle);
    else
        cJSON_AddNullToObject(o, "handle");
    char sig[32];
    if (k->stuck)
        cJSON_AddNullToObject(o, "signal");
    else
        cJSON_AddStringToObject(o, "signal", km_signal_name(k->signal, sig, sizeof sig));
    if (k->has_address)
        add_u64(o, "address", k->address);
    else
        cJSON_AddNullToObject(o, "address");
    cJSON_AddBoolToObject(o, "in_kernels", k->in_kernels);
    add_u64(o, "pc", k->pc);
    if (!k->in_kernels && k->symbol[0])
        cJSON_AddStringToObject(o, "function", k->symbol);
    else
        cJSON_AddNullToObject(o, "function");
    cJSON_AddItemToObject(o, "source", source_json(&k->source));
    char us[40];
    km_ps_us(k->ps, us, sizeof us);
    cJSON_AddRawToObject(o, "microseconds", us);
    cJSON_AddStringToObject(o, "detail", k->detail);
    return o;
}

/* The card's counters (sim_card.h, "counters"): X280 cores of the
 * clusters that ran, clusters, NoC routes, the Tensix cores that ran a
 * handler, the dispatcher. */
static cJSON *stats_json(const sim_card_stats *st)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *x280 = cJSON_AddArrayToObject(o, "x280");
    cJSON *clusters = cJSON_AddArrayToObject(o, "clusters");
    for (unsigned c = 1; c < BH_CLUSTERS; c++) {
        const sim_card_cluster_stats *cs = &st->clusters[c];
        if (!cs->present)
            continue;
        for (unsigned i = 0; i < BH_CLUSTER_CORES; i++) {
            cJSON *k = cJSON_CreateObject();
            cJSON_AddNumberToObject(k, "cluster", c);
            cJSON_AddNumberToObject(k, "core", i);
            add_u64(k, "instructions", cs->cores[i].instructions);
            add_u64(k, "cycles", cs->cores[i].cycles);
            add_u64(k, "memory_stall_cycles", cs->cores[i].memory_stall_cycles);
            cJSON_AddItemToArray(x280, k);
        }
        cJSON *k = cJSON_CreateObject();
        cJSON_AddNumberToObject(k, "cluster", c);
        add_u64(k, "cache_hits", cs->cache_hits);
        add_u64(k, "cache_misses", cs->cache_misses);
        add_u64(k, "write_backs", cs->write_backs);
        cJSON *rd = cJSON_AddArrayToObject(k, "bank_bytes_read");
        cJSON *wr = cJSON_AddArrayToObject(k, "bank_bytes_written");
        for (unsigned b = 0; b < BH_DRAM_BANKS; b++) {
            cJSON_AddItemToArray(rd, cJSON_CreateNumber((double)cs->bank_read[b]));
            cJSON_AddItemToArray(wr, cJSON_CreateNumber((double)cs->bank_written[b]));
        }
        cJSON_AddItemToArray(clusters, k);
    }
    cJSON *noc = cJSON_AddObjectToObject(o, "noc_bytes");
    add_u64(noc, "x280_to_bank", st->noc_bytes[SIM_CARD_ROUTE_X280_TO_BANK]);
    add_u64(noc, "x280_to_lim", st->noc_bytes[SIM_CARD_ROUTE_X280_TO_LIM]);
    add_u64(noc, "x280_to_tensix", st->noc_bytes[SIM_CARD_ROUTE_X280_TO_TENSIX]);
    add_u64(noc, "tensix_to_bank", st->noc_bytes[SIM_CARD_ROUTE_TENSIX_TO_BANK]);
    add_u64(noc, "tensix_to_x280", st->noc_bytes[SIM_CARD_ROUTE_TENSIX_TO_X280]);
    cJSON *tensix = cJSON_AddArrayToObject(o, "tensix");
    char us[40];
    for (unsigned i = 0; i < BH_GRID_CORES; i++) {
        if (st->tensix_handlers[i] == 0)
            continue;
        cJSON *k = cJSON_CreateObject();
        cJSON_AddNumberToObject(k, "core", i);
        add_u64(k, "handlers", st->tensix_handlers[i]);
        km_ps_us(st->tensix_busy_ps[i], us, sizeof us);
        cJSON_AddRawToObject(k, "busy_microseconds", us);
        cJSON_AddItemToArray(tensix, k);
    }
    cJSON *d = cJSON_AddObjectToObject(o, "dispatcher");
    add_u64(d, "passes", st->dispatcher_passes);
    add_u64(d, "commands", st->dispatcher_commands);
    return o;
}

char *km_run_json(const km_program *p, const km_plan *plan, const km_run_result *r,
                  const km_run_info *info)
{
    /* every field or none: a document short of one is no run's */
    km_json_mark m = km_json_watch();
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "run", info->run_id);
    cJSON_AddStringToObject(doc, "program", p->name);
    cJSON_AddStringToObject(doc, "backend", km_backend_name(info->backend));
    cJSON_AddNumberToObject(doc, "x280_mhz", p->x280_mhz);
    char us[40];
    km_ps_us(r->device_ps, us, sizeof us);
    cJSON_AddRawToObject(doc, "device_microseconds", us);
    cJSON_AddStringToObject(doc, "times", r->host_times ? "host" : "modeled");
    add_u64(doc, "instructions", r->instructions);
    cJSON *threads = cJSON_AddArrayToObject(doc, "threads");
    for (unsigned i = 0; i < r->nthreads; i++)
        cJSON_AddItemToArray(threads, thread_json(&r->threads[i]));
    /* Which image ran where: the hashes say what a result came from. */
    cJSON *images = cJSON_AddArrayToObject(doc, "images");
    for (size_t i = 0; info->build && i < info->build->nthreads; i++) {
        const km_thread *t = &p->threads[i];
        cJSON *o = cJSON_CreateObject();
        cJSON *cl = cJSON_AddArrayToObject(o, "clusters");
        for (size_t k = 0; k < t->nclusters; k++)
            cJSON_AddItemToArray(cl, cJSON_CreateNumber(t->clusters[k]));
        cJSON_AddStringToObject(o, "sha256", info->build->threads[i].sha256);
        add_u64(o, "bytes", info->build->threads[i].bytes);
        cJSON_AddItemToArray(images, o);
    }
    /* The host-fed commands, the manifest's in order, then the ones the
     * host fed while the run went: what came back for each. */
    cJSON *commands = cJSON_AddArrayToObject(doc, "commands");
    size_t ncommands = p->ncommands + r->nfed;
    for (size_t i = 0; i < ncommands; i++) {
        const km_command_result *c = i < r->ncommands ? &r->commands[i] : NULL;
        const char *handler =
            i < p->ncommands ? p->commands[i].handler : r->fed[i - p->ncommands].handler;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", (double)i);
        cJSON_AddStringToObject(o, "handler", handler);
        if (c && c->submitted)
            cJSON_AddNumberToObject(o, "handle", c->handle);
        else
            cJSON_AddNullToObject(o, "handle");
        if (c && c->ended) {
            cJSON_AddStringToObject(o, "event", c->event == KM_EVENT_DONE      ? "done"
                                                : c->event == KM_EVENT_TIMEOUT ? "timeout"
                                                                               : "rejected");
            cJSON_AddNumberToObject(o, "reason", c->reason);
        } else {
            cJSON_AddNullToObject(o, "event");
            cJSON_AddNullToObject(o, "reason");
        }
        if (c && c->ended && c->has_result)
            cJSON_AddNumberToObject(o, "result", c->result);
        else
            cJSON_AddNullToObject(o, "result");
        if (c && c->ended) {
            km_ps_us(c->ps, us, sizeof us);
            cJSON_AddRawToObject(o, "microseconds", us);
        } else {
            cJSON_AddNullToObject(o, "microseconds");
        }
        cJSON_AddItemToArray(commands, o);
    }
    /* The X280 ports: who serves whom, and the waits that gave up. */
    cJSON_AddItemToObject(doc, "ports", km_ports_json(p, plan->has_ports ? &plan->ports : NULL));
    cJSON *waits = cJSON_AddArrayToObject(doc, "port_waits");
    for (unsigned i = 0; i < r->nport_waits; i++)
        cJSON_AddItemToArray(waits, port_wait_json(p, &r->port_waits[i]));
    /* The hand-over checker's findings: null when it did not look. */
    if (r->handover_checked) {
        cJSON *handover = cJSON_AddArrayToObject(doc, "handover");
        for (unsigned i = 0; i < r->nhandovers; i++)
            cJSON_AddItemToArray(handover, km_handover_json(&r->handovers[i]));
    } else {
        cJSON_AddNullToObject(doc, "handover");
    }
    /* The Tensix handlers the card took out: [] when none. */
    cJSON *kernel_faults = cJSON_AddArrayToObject(doc, "kernel_faults");
    for (unsigned i = 0; i < r->nkernel_faults; i++)
        cJSON_AddItemToArray(kernel_faults, km_kernel_fault_json(&r->kernel_faults[i]));
    /* Wild writes: always watched, [] when none. */
    cJSON *wild = cJSON_AddArrayToObject(doc, "wild_writes");
    for (unsigned i = 0; i < r->nwild_writes; i++)
        cJSON_AddItemToArray(wild, km_wild_json(&r->wild_writes[i]));
    /* The card's counters: null on the host fallback. */
    if (r->has_stats)
        cJSON_AddItemToObject(doc, "stats", stats_json(&r->stats));
    else
        cJSON_AddNullToObject(doc, "stats");
    /* The prints, in the order they were drained (time order within a
     * drain), and the cores that dropped some: [] when none. */
    cJSON *prints = cJSON_AddArrayToObject(doc, "prints");
    for (size_t i = 0; i < r->nprints; i++)
        cJSON_AddItemToArray(prints, print_json(&r->prints[i]));
    cJSON_AddItemToObject(doc, "prints_dropped", prints_dropped_json(r));
    /* The instruction traces, when any core was traced. */
    if (r->ntraces) {
        cJSON *traces = cJSON_AddArrayToObject(doc, "traces");
        for (size_t i = 0; i < r->ntraces; i++) {
            const km_trace_summary *t = &r->traces[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "cluster", t->cluster);
            cJSON_AddNumberToObject(o, "core", t->core);
            cJSON_AddStringToObject(o, "file", t->file);
            add_u64(o, "recorded", t->recorded);
            add_u64(o, "retired", t->retired);
            cJSON_AddBoolToObject(o, "cut", t->cut);
            add_u64(o, "limit_bytes", t->limit);
            cJSON_AddItemToArray(traces, o);
        }
    }
    cJSON *regions = cJSON_AddArrayToObject(doc, "regions");
    for (unsigned i = 0; i < plan->nclusters; i++) {
        const km_cluster_plan *cp = &plan->clusters[i];
        for (uint32_t k = 0; k < cp->nregions; k++) {
            const km_placed *pl = &cp->regions[k];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", pl->region->name);
            cJSON_AddNumberToObject(o, "cluster", cp->cluster);
            cJSON_AddNumberToObject(o, "id", pl->id);
            cJSON_AddNumberToObject(o, "bank", pl->bank);
            add_u64(o, "bank_address", pl->bank_address);
            add_u64(o, "bytes", pl->region->size);
            cJSON_AddBoolToObject(o, "shared", pl->shared);
            cJSON_AddItemToArray(regions, o);
        }
    }
    if (plan->ntensors > 0) {
        cJSON *tensors = cJSON_AddArrayToObject(doc, "tensors");
        for (unsigned i = 0; i < plan->ntensors; i++) {
            const km_tensor_place *tp = &plan->tensors[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", tp->name);
            add_u64(o, "base", tp->base);
            add_u64(o, "page_size", tp->page_size);
            add_u64(o, "bytes", tp->bytes);
            cJSON_AddItemToArray(tensors, o);
        }
    }
    cJSON_AddStringToObject(doc, "run_dir", info->run_dir);
    char wall[32];
    snprintf(wall, sizeof wall, "%.3f", info->wall_seconds);
    cJSON_AddRawToObject(doc, "wall_seconds", wall);
    char *text = km_json_ran_out(m) ? NULL : cJSON_Print(doc);
    cJSON_Delete(doc);
    return text;
}
