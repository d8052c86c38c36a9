/* kmrun_trace: the public API's instruction traces (include/kmrun.h,
 * include/kmrun_tools.h) — a session's traced cores, their filters and
 * size bound, each core's trace-cC.K.kmt written into the run folder as
 * the core retires instructions (lib/observe/km_trace.h's format); and a
 * trace read back, as Spike's commit log or with its source lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "km_fs.h"
#include "km_proc.h"
#include "km_symbols.h"
#include "km_trace.h"
#include "ks_grow.h"
#include "ks_text.h"

#define TRACE_NAME "trace-c%u.%u.kmt"
#define NCORES (BH_WORK_CLUSTERS * BH_CLUSTER_CORES)

struct km_api_trace_opts {
    uint32_t cores;
    km_trace_range ranges[KM_TRACE_MAX_RANGES];
    unsigned nranges;
    char **functions;
    size_t nfunctions;
    uint64_t limit;
};

typedef struct traced_core {
    km_trace_writer *w;
    bool done;     /* its writer closed */
    bool failed;   /* it could not be created */
    char *file;    /* where it is once the folder is committed */
    km_trace_end end;
} traced_core;

struct km_api_traces {
    kmrun_run *r;
    uint64_t limit;
    km_trace_meta meta[BH_WORK_CLUSTERS + 1]; /* by cluster: image, filter */
    traced_core core[NCORES];
    /* The run JSON's `traces` (r->result's), their files' names */
    km_trace_summary summary[NCORES];
    char names[NCORES][32];
};

/* ---- options -------------------------------------------------------------------- */

void kmrun_trace_opts_init(kmrun_trace_opts *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
}

uint32_t km_api_trace_opts_cores(const km_api_trace_opts *o)
{
    return o ? o->cores : 0;
}

void km_api_trace_opts_free(km_api_trace_opts *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->nfunctions; i++)
        free(o->functions[i]);
    free(o->functions);
    free(o);
}

kmrun_status kmrun_session_set_trace(kmrun_session *s, const kmrun_trace_opts *o,
                                     kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!s)
        return km_api_usage(err, "kmrun_session_set_trace: the session is NULL");
    if (!o) {
        km_api_trace_opts_free(s->trace_opts);
        s->trace_opts = NULL;
        return KMRUN_OK;
    }
    if (o->size != sizeof *o)
        return km_api_usage(err, "invalid kmrun_trace_opts size %zu (expected %zu: set it with "
                                 "kmrun_trace_opts_init)",
                            o->size, sizeof *o);
    uint32_t all = (1u << NCORES) - 1;
    if (o->cores != KMRUN_TRACE_ALL_CORES && (o->cores & ~all)) {
        unsigned bit = (unsigned)__builtin_ctz(o->cores & ~all);
        return km_api_usage(err, "no X280 core %u.%u to trace (clusters 1 to %u, cores 0 to %u)",
                            bit / BH_CLUSTER_CORES + 1, bit % BH_CLUSTER_CORES,
                            BH_WORK_CLUSTERS, BH_CLUSTER_CORES - 1u);
    }
    if (o->npc_ranges + o->nfunctions > KM_TRACE_MAX_RANGES)
        return km_api_usage(err, "too many trace ranges and functions: %zu (at most %u)",
                            o->npc_ranges + o->nfunctions, KM_TRACE_MAX_RANGES);
    if ((o->npc_ranges && !o->pc_ranges) || (o->nfunctions && !o->functions))
        return km_api_usage(err, "kmrun_trace_opts: a count without its array");
    for (size_t i = 0; i < o->npc_ranges; i++)
        if (o->pc_ranges[2 * i] >= o->pc_ranges[2 * i + 1])
            return km_api_usage(err, "an empty trace range 0x%llx-0x%llx (the end is excluded: "
                                     "expected an end past the start)",
                                (unsigned long long)o->pc_ranges[2 * i],
                                (unsigned long long)o->pc_ranges[2 * i + 1]);
    for (size_t i = 0; i < o->nfunctions; i++)
        if (!o->functions[i] || !*o->functions[i])
            return km_api_usage(err, "an empty trace function name");
    if (o->limit && o->limit < KM_TRACE_LIMIT_MIN)
        return km_api_usage(err, "a trace limit of %llu bytes is too small (at least %llu)",
                            (unsigned long long)o->limit, (unsigned long long)KM_TRACE_LIMIT_MIN);
    km_api_trace_opts *t = calloc(1, sizeof *t);
    if (t && o->nfunctions)
        t->functions = calloc(o->nfunctions, sizeof *t->functions);
    bool ok = t && (!o->nfunctions || t->functions);
    for (size_t i = 0; ok && i < o->nfunctions; i++) {
        t->functions[i] = strdup(o->functions[i]);
        t->nfunctions++;
        ok = t->functions[i] != NULL;
    }
    if (!ok) {
        km_api_trace_opts_free(t);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the trace options");
    }
    t->cores = o->cores;
    for (size_t i = 0; i < o->npc_ranges; i++)
        t->ranges[t->nranges++] = (km_trace_range){o->pc_ranges[2 * i], o->pc_ranges[2 * i + 1]};
    t->limit = o->limit ? o->limit : KM_TRACE_LIMIT_DEFAULT;
    km_api_trace_opts_free(s->trace_opts);
    s->trace_opts = t;
    return KMRUN_OK;
}

/* ---- a run's traces -------------------------------------------------------------- */

static void trace_failed(kmrun_run *r, const km_error *e)
{
    if (r->trace_rc == KM_OK) {
        r->trace_rc = e->status;
        r->trace_err = *e;
    }
}

/* sim_trace_fn: a traced core's instruction into its file, which its
 * first one opens. */
static bool on_record(void *ctx, unsigned cluster, unsigned core, const sim_commit *c)
{
    struct km_api_traces *t = ctx;
    unsigned i = (cluster - 1) * BH_CLUSTER_CORES + core;
    if (i >= NCORES)
        return false;
    traced_core *tc = &t->core[i];
    if (!tc->w) {
        if (tc->failed || tc->done)
            return false;
        kmrun_run *r = t->r;
        km_error e = {0};
        char name[64];
        snprintf(name, sizeof name, TRACE_NAME, cluster, core);
        if (!r->rec.w) {
            km_fail(&e, KM_EXIT_SYSTEM,
                    "the instruction trace was not written: the run folder could not be begun");
            trace_failed(r, &e);
            tc->failed = true;
            return false;
        }
        char *path = km_path_join(km_rundir_writing(r->rec.w), name);
        if (path && !(tc->file = ks_strf("%s/%s/%s", r->rec.runs, r->rec.id, name))) {
            free(path); /* not a trace the run cannot name */
            path = NULL;
        }
        km_trace_meta m = t->meta[cluster];
        m.cluster = cluster;
        m.core = core;
        m.limit = t->limit;
        int rc = path ? km_trace_create(&tc->w, path, &m, &e)
                      : km_fail(&e, KM_EXIT_SYSTEM, "out of memory for an instruction trace");
        free(path);
        if (rc != KM_OK) {
            trace_failed(r, &e);
            tc->failed = true;
            return false;
        }
    }
    return km_trace_add(tc->w, c);
}

int km_api_traces_attach(kmrun_run *r, km_error *e)
{
    kmrun_session *s = r->owner;
    const km_api_trace_opts *o = s->trace_opts;
    uint32_t cores = o ? o->cores : 0;
    if (s->trace) {
        if (s->trace_cluster < 1 || s->trace_cluster > BH_WORK_CLUSTERS ||
            s->trace_core >= BH_CLUSTER_CORES)
            return km_fail(e, KM_EXIT_USAGE,
                           "no X280 core %u.%u to trace (clusters 1 to %u, cores 0 to %u)",
                           s->trace_cluster, s->trace_core, BH_WORK_CLUSTERS,
                           BH_CLUSTER_CORES - 1u);
        if (cores != KM_TRACE_ALL)
            cores |= 1u << ((s->trace_cluster - 1) * BH_CLUSTER_CORES + s->trace_core);
    }
    if (!cores)
        return KM_OK;
    r->traces = calloc(1, sizeof *r->traces);
    if (!r->traces)
        return km_fail(e, KM_EXIT_SYSTEM, "out of memory for the instruction traces");
    r->traces->r = r;
    r->traces->limit = o ? o->limit : KM_TRACE_LIMIT_DEFAULT;
    return km_session_trace_instructions(r->s, cores, on_record, r->traces, e);
}

int km_api_traces_loaded(kmrun_run *r, km_error *e)
{
    struct km_api_traces *t = r->traces;
    const km_api_trace_opts *o = r->owner ? r->owner->trace_opts : NULL;
    if (!t)
        return KM_OK;
    const km_plan *plan = km_session_plan(r->s);
    const km_build_result *b = km_session_build(r->s);
    bool *found = o && o->nfunctions ? calloc(o->nfunctions, sizeof *found) : NULL;
    if (o && o->nfunctions && !found)
        return km_fail(e, KM_EXIT_SYSTEM, "out of memory for the instruction traces");
    int rc = KM_OK;
    for (unsigned i = 0; rc == KM_OK && i < plan->nclusters; i++) {
        const km_cluster_plan *cp = &plan->clusters[i];
        km_trace_meta *m = &t->meta[cp->cluster];
        const char *image = km_session_image_of(r->s, i);
        size_t ti = (size_t)(cp->thread - r->program->p->threads);
        snprintf(m->image, sizeof m->image, "%s", image ? image : "");
        if (ti < b->nthreads)
            snprintf(m->image_sha256, sizeof m->image_sha256, "%s", b->threads[ti].sha256);
        if (!o)
            continue;
        for (unsigned k = 0; k < o->nranges; k++)
            m->ranges[m->nranges++] = o->ranges[k];
        for (size_t k = 0; rc == KM_OK && k < o->nfunctions; k++) {
            unsigned before = m->nranges;
            km_error fe = {0};
            int frc = image ? km_trace_function_ranges(image, o->functions[k], m, &fe)
                            : KM_EXIT_USAGE;
            if (frc == KM_OK)
                found[k] |= m->nranges > before;
            else if (frc != KM_EXIT_USAGE)
                rc = km_fail(e, frc, "%s", fe.message);
        }
        /* a filter that meets nothing in this image records nothing */
        if ((o->nranges || o->nfunctions) && !m->nranges)
            m->ranges[m->nranges++] = (km_trace_range){0, 0};
    }
    for (size_t k = 0; rc == KM_OK && o && k < o->nfunctions; k++)
        if (!found[k])
            rc = km_fail(e, KM_EXIT_USAGE,
                         "no function '%s' to trace: the images of '%s' have no such symbol "
                         "(a function, with a size)",
                         o->functions[k], r->program->p->name);
    free(found);
    return rc;
}

void km_api_traces_close(kmrun_run *r)
{
    struct km_api_traces *t = r->traces;
    for (unsigned i = 0; t && i < NCORES; i++) {
        traced_core *tc = &t->core[i];
        if (!tc->w)
            continue;
        km_error e = {0};
        if (km_trace_close(tc->w, &tc->end, &e) != KM_OK)
            trace_failed(r, &e);
        tc->w = NULL;
        tc->done = true;
        unsigned cluster = i / BH_CLUSTER_CORES + 1, core = i % BH_CLUSTER_CORES;
        size_t k = r->result.ntraces;
        snprintf(t->names[k], sizeof t->names[k], TRACE_NAME, cluster, core);
        t->summary[k] = (km_trace_summary){cluster,         core,         t->names[k],
                                           tc->end.recorded, tc->end.seen, tc->end.cut,
                                           t->limit};
        r->result.traces = t->summary;
        r->result.ntraces = k + 1;
    }
}

void km_api_traces_free(kmrun_run *r)
{
    struct km_api_traces *t = r->traces;
    if (!t)
        return;
    km_api_traces_close(r);
    for (unsigned i = 0; i < NCORES; i++)
        free(t->core[i].file);
    free(t);
    r->traces = NULL;
}

size_t kmrun_run_traces(const kmrun_run *r)
{
    size_t n = 0;
    for (unsigned i = 0; r && r->stopped && r->traces && i < NCORES; i++)
        n += r->traces->core[i].done;
    return n;
}

kmrun_status kmrun_run_trace_info(const kmrun_run *r, size_t i, kmrun_trace_info *out,
                                  kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!r || !out)
        return km_api_usage(err, "kmrun_run_trace_info: %s is NULL", !r ? "the run" : "out");
    size_t n = kmrun_run_traces(r);
    if (i >= n)
        return km_api_usage(err, "no trace %zu: the run has %zu", i, n);
    for (unsigned k = 0; k < NCORES; k++) {
        const traced_core *tc = &r->traces->core[k];
        if (!tc->done || i--)
            continue;
        *out = (kmrun_trace_info){
            .cluster = k / BH_CLUSTER_CORES + 1,
            .core = k % BH_CLUSTER_CORES,
            .file = r->rec.dir ? tc->file : NULL,
            .recorded = tc->end.recorded,
            .seen = tc->end.seen,
            .cut = tc->end.cut,
            .limit = r->traces->limit,
        };
        break;
    }
    return KMRUN_OK;
}

const char *kmrun_run_trace_file(const kmrun_run *r)
{
    if (!r || !r->stopped || r->trace_rc != KM_OK || !r->rec.dir || !r->traces)
        return NULL;
    for (unsigned k = 0; k < NCORES; k++)
        if (r->traces->core[k].done)
            return r->traces->core[k].file;
    return NULL;
}

/* ---- reading a trace --------------------------------------------------------------- */

struct kmrun_trace {
    km_trace_reader *r;
    uint64_t ranges[2 * KM_TRACE_MAX_RANGES];
};

kmrun_status kmrun_trace_open(const char *path, kmrun_trace **out, kmrun_error **err)
{
    if (err)
        *err = NULL;
    if (!path || !out)
        return km_api_usage(err, "kmrun_trace_open: %s is NULL", !path ? "the path" : "out");
    *out = NULL;
    kmrun_trace *t = calloc(1, sizeof *t);
    if (!t)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory reading a trace");
    km_error e = {0};
    int rc = km_trace_open(&t->r, path, &e);
    if (rc != KM_OK) {
        free(t);
        return km_api_fail(err, rc, &e);
    }
    const km_trace_meta *m = km_trace_meta_of(t->r);
    for (unsigned i = 0; i < m->nranges; i++) {
        t->ranges[2 * i] = m->ranges[i].lo;
        t->ranges[2 * i + 1] = m->ranges[i].hi;
    }
    *out = t;
    return KMRUN_OK;
}

void kmrun_trace_free(kmrun_trace *t)
{
    if (!t)
        return;
    km_trace_free(t->r);
    free(t);
}

void kmrun_trace_header_get(const kmrun_trace *t, kmrun_trace_header *out)
{
    const km_trace_meta *m = km_trace_meta_of(t->r);
    const km_trace_end *e = km_trace_end_of(t->r);
    *out = (kmrun_trace_header){
        .cluster = m->cluster,
        .core = m->core,
        .image = m->image,
        .image_sha256 = m->image_sha256,
        .ranges = t->ranges,
        .nranges = m->nranges,
        .limit = m->limit,
        .recorded = e->recorded,
        .seen = e->seen,
        .cut = e->cut,
        .cut_cycle = e->cut_cycle,
    };
}

kmrun_status kmrun_trace_next(kmrun_trace *t, kmrun_trace_insn *out, bool *done,
                              kmrun_error **err)
{
    if (err)
        *err = NULL;
    sim_commit c;
    km_error e = {0};
    int rc = km_trace_next(t->r, &c, done, &e);
    if (rc != KM_OK)
        return km_api_fail(err, rc, &e);
    if (*done)
        return KMRUN_OK;
    *out = (kmrun_trace_insn){
        .cycle = c.cycle,
        .pc = c.pc,
        .bits = c.bits,
        .len = c.len,
        .nwrites = c.nwrites,
        .load = c.load,
        .store = c.store,
        .load_addr = c.load_addr,
        .store_addr = c.store_addr,
        .store_value = c.store_value,
        .store_size = c.store_size,
    };
    for (unsigned i = 0; i < c.nwrites; i++)
        out->writes[i] = (kmrun_trace_write){c.writes[i].file, c.writes[i].num,
                                             c.writes[i].value};
    return KMRUN_OK;
}

size_t kmrun_trace_spike_line(const kmrun_trace_insn *i, unsigned core, char *buf, size_t n)
{
    sim_commit c = {
        .pc = i->pc,
        .bits = i->bits,
        .len = i->len,
        .nwrites = i->nwrites < SIM_COMMIT_MAX_WRITES ? i->nwrites : SIM_COMMIT_MAX_WRITES,
        .load = i->load,
        .load_addr = i->load_addr,
        .store = i->store,
        .store_addr = i->store_addr,
        .store_value = i->store_value,
        .store_size = i->store_size,
        .cycle = i->cycle,
    };
    for (unsigned k = 0; k < c.nwrites; k++)
        c.writes[k] = (sim_commit_write){i->writes[k].file, i->writes[k].num, i->writes[k].value};
    char text[SIM_COMMIT_TEXT_MAX];
    unsigned len = sim_commit_text(&c, core, text, sizeof text);
    if (n)
        snprintf(buf, n, "%s", text);
    return len;
}

void kmrun_source_lines(const char *image, const uint64_t *addresses, size_t n,
                        kmrun_source *out)
{
    km_source *src = calloc(n ? n : 1, sizeof *src);
    if (src && image && *image)
        km_source_lookup_many(image, NULL, addresses, n, src);
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        if (!src || !src[i].known)
            continue;
        out[i].known = true;
        snprintf(out[i].file, sizeof out[i].file, "%s", src[i].file);
        out[i].line = src[i].line;
        if (src[i].has_function)
            snprintf(out[i].function, sizeof out[i].function, "%s", src[i].function);
    }
    free(src);
}

/* ---- disassembly ------------------------------------------------------------------- */

typedef struct insn_text {
    uint64_t pc;
    char *text;
} insn_text;

struct kmrun_disassembly {
    insn_text *at;
    size_t n;
    char *output; /* objdump's, which the texts point into */
};

static int by_pc(const void *a, const void *b)
{
    uint64_t x = ((const insn_text *)a)->pc, y = ((const insn_text *)b)->pc;
    return x < y ? -1 : x > y;
}

/* The toolchain's objdump: addr2line's name with objdump for addr2line. */
static char *objdump_tool(void)
{
    char *a2l = km_symbols_tool();
    size_t n = a2l ? strlen(a2l) : 0;
    char *tool = NULL;
    if (n >= 9 && strcmp(a2l + n - 9, "addr2line") == 0 &&
        (tool = malloc(n - 9 + sizeof "objdump"))) {
        memcpy(tool, a2l, n - 9);
        strcpy(tool + n - 9, "objdump");
    }
    free(a2l);
    return tool;
}

/* "   10abc:\tadd\ta0,a0,a1" lines: the pc and the text, tabs as spaces;
 * false when memory ran out (then none: not a disassembly with holes). */
static bool parse_objdump(kmrun_disassembly *d, char *out)
{
    size_t cap = 0;
    for (char *line = out, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        char *end;
        uint64_t pc = strtoull(line, &end, 16);
        if (end == line || *end != ':' || end[1] != '\t')
            continue;
        char *text = end + 2;
        for (char *t = text; *t; t++)
            if (*t == '\t')
                *t = ' ';
        if (!KS_GROW(d->at, cap, d->n + 1)) {
            d->n = 0;
            return false;
        }
        d->at[d->n++] = (insn_text){pc, text};
    }
    return true;
}

kmrun_disassembly *kmrun_disassemble(const char *image)
{
    char *tool = objdump_tool();
    kmrun_disassembly *d = tool && image && *image ? calloc(1, sizeof *d) : NULL;
    if (d) {
        char *argv[] = {tool, "-d", "--no-show-raw-insn", (char *)image, NULL};
        int status = 0;
        km_error e = {0};
        if (km_proc_run(argv, NULL, &d->output, &status, NULL, NULL, &e) == KM_OK &&
            status == 0 && d->output)
            (void)parse_objdump(d, d->output); /* none when it ran out */
        if (!d->n) {
            kmrun_disassembly_free(d);
            d = NULL;
        } else {
            qsort(d->at, d->n, sizeof *d->at, by_pc);
        }
    }
    free(tool);
    return d;
}

const char *kmrun_disassembly_at(const kmrun_disassembly *d, uint64_t pc)
{
    if (!d)
        return NULL;
    insn_text key = {pc, NULL};
    const insn_text *hit = bsearch(&key, d->at, d->n, sizeof *d->at, by_pc);
    return hit ? hit->text : NULL;
}

void kmrun_disassembly_free(kmrun_disassembly *d)
{
    if (!d)
        return;
    free(d->at);
    free(d->output);
    free(d);
}
