/* manifest_check: the spec's rules that tie a manifest's entries together
 * ("Clusters and banks", "Limits"): one thread per cluster, at most 16
 * regions a thread, shared regions that exist and stay on one bank, 4 GiB
 * a bank, ports and pulls that have threads to serve them.  Each check
 * runs when the walk reaches the second party of a rule and reports there
 * (manifest_internal.h), whether the document was read from a manifest or
 * built in code (km_program_code.h): the rules are written once, here. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "km_plan.h"
#include "km_suggest.h"
#include "manifest_internal.h"

/* Banks 6 and 7, the only ones work clusters use, as 0 and 1. */
static int bank_slot(int bank)
{
    return bank == 6 ? 0 : bank == 7 ? 1 : -1;
}

bool km_check_init(km_mctx *c)
{
    size_t n = c->p->nregions;
    c->shared_bank = km_mcalloc(c, n, sizeof *c->shared_bank);
    c->shared_line = km_mcalloc(c, n, sizeof *c->shared_line);
    return !c->oom;
}

void km_check_fini(km_mctx *c)
{
    free(c->shared_bank);
    free(c->shared_line);
}

bool km_check_cluster_free(km_mctx *c, const km_thread *t, long cluster,
                           const km_yaml_node *at)
{
    for (size_t i = 0; i < c->p->nthreads; i++) {
        const km_thread *o = &c->p->threads[i];
        if (o == t)
            continue;
        for (size_t k = 0; k < o->nclusters; k++) {
            if (o->clusters[k] == cluster) {
                char other[48];
                km_mdiag_code(c, "manifest.rule", at, "cluster %ld already runs %s (expected one "
                                "thread per cluster)",
                         cluster, km_mthread_name(c, o, other, sizeof other));
                return false;
            }
        }
    }
    return true;
}

/* The other region of `t` whose name matches `name` ignoring case, or
 * NULL; shared names before index `nshared` only. */
static const char *clash(const km_thread *t, const char *name)
{
    for (size_t i = 0; i < t->nregions; i++)
        if (t->regions[i].name && strcasecmp(t->regions[i].name, name) == 0)
            return t->regions[i].name;
    for (size_t i = 0; i < t->nshared; i++)
        if (strcasecmp(t->shared[i], name) == 0)
            return t->shared[i];
    return NULL;
}

static bool is_own(const km_thread *t, const char *name)
{
    for (size_t i = 0; i < t->nregions; i++)
        if (t->regions[i].name && strcmp(t->regions[i].name, name) == 0)
            return true;
    return false;
}

bool km_check_shared(km_mctx *c, const km_thread *t, const char *name,
                     const km_yaml_node *at)
{
    const km_program *p = c->p;
    size_t index = 0;
    while (index < p->nregions && strcmp(p->regions[index].name, name) != 0)
        index++;
    if (index == p->nregions) {
        const char **names = km_mcalloc(c, p->nregions, sizeof *names);
        if (!names)
            return false;
        for (size_t i = 0; i < p->nregions; i++)
            names[i] = p->regions[i].name;
        const char *close = km_suggest(name, names, p->nregions);
        if (close)
            km_mdiag_code(c, "manifest.rule", at, "unknown shared region '%s' (did you mean '%s'?)",
                     name, close);
        else
            km_mdiag_code(c, "manifest.rule", at, "unknown shared region '%s' (expected a region "
                            "of the top-level regions)",
                     name);
        free(names);
        return false;
    }
    if (p->regions[index].interleaved) {
        km_mdiag_code(c, "manifest.rule", at, "shared region '%s' is interleaved (expected a "
                      "region of the thread's bank: an interleaved tensor's pages are in every "
                      "bank, and only Tensix cores reach them, with km_tensor_of)",
                      name);
        return false;
    }
    const char *other = clash(t, name);
    if (other && strcmp(other, name) == 0) {
        if (is_own(t, name))
            km_mdiag_code(c, "manifest.rule", at, "region '%s' is both own and shared in this "
                            "thread (expected distinct names)",
                     name);
        else
            km_mdiag_code(c, "manifest.rule", at, "shared region '%s' is listed twice (expected "
                            "each region once)",
                     name);
        return false;
    }
    if (other) {
        km_mdiag_code(c, "manifest.rule", at, "region name '%s' clashes with '%s' (expected names "
                        "that differ in more than case)",
                 name, other);
        return false;
    }
    /* The banks this naming puts the region on. */
    int banks[2] = {0, 0};
    for (size_t k = 0; k < t->nclusters; k++)
        banks[bank_slot(km_cluster_bank(t->clusters[k]))] = 1;
    if (banks[0] && banks[1]) {
        km_mdiag_code(c, "manifest.rule", at, "shared region '%s' is named by threads on banks 6 "
                        "and 7 (expected threads of one bank; other banks "
                        "get data by kmx_push)",
                 name);
        return false;
    }
    int bank = banks[0] ? 6 : banks[1] ? 7 : 0;
    if (bank == 0)
        return true; /* the thread's clusters were wrong: said already */
    if (c->shared_bank[index] && c->shared_bank[index] != bank) {
        /* The first naming: its line, or built in code its thread. */
        km_mdiag_code(c, "manifest.rule", at, "shared region '%s' is named by threads on banks %d "
                        "(%s %d) and %d (expected threads of one bank; "
                        "other banks get data by kmx_push)",
                 name, c->shared_bank[index], c->code ? "thread" : "line",
                 c->shared_line[index], bank);
        return false;
    }
    if (!c->shared_bank[index]) {
        c->shared_bank[index] = bank;
        c->shared_line[index] =
            c->code ? (int)(t - p->threads) + 1 : at ? at->line : 0;
    }
    return true;
}

static size_t hash_folded(const char *s)
{
    size_t h = 14695981039346656037u; /* FNV-1a over the lower case */
    for (; *s; s++)
        h = (h ^ (unsigned char)tolower((unsigned char)*s)) * 1099511628211u;
    return h;
}

/* Each name against the first earlier one equal but for case, through a
 * hash of the names seen (index + 1; 0 empty): comparing every pair took
 * the square of the count (100,000 regions, 54 s).  Without the memory
 * for it the manifest is not read (c->oom): not one let through unchecked. */
void km_check_region_names(km_mctx *c, const km_region *r, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    size_t *slots = km_mcalloc(c, cap, sizeof *slots);
    if (!slots)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!r[i].name)
            continue;
        size_t k = hash_folded(r[i].name) & (cap - 1);
        while (slots[k] && strcasecmp(r[slots[k] - 1].name, r[i].name) != 0)
            k = (k + 1) & (cap - 1);
        if (!slots[k]) {
            slots[k] = i + 1;
            continue;
        }
        km_diags_add_code(c->diags, "manifest.rule", c->file, r[i].pos.line, r[i].pos.col,
                     "region name '%s' clashes with '%s' (expected "
                     "names that differ in more than case)",
                     r[i].name, r[slots[k] - 1].name);
    }
    free(slots);
}

void km_check_banks(km_mctx *c)
{
    unsigned tensors = 0;
    for (size_t i = 0; i < c->p->nregions; i++) {
        const km_region *r = &c->p->regions[i];
        if (r->interleaved && ++tensors == KM_MAX_TENSORS + 1) {
            km_diags_add_code(c->diags, "manifest.too-many", c->file, r->pos.line, r->pos.col,
                              "too many interleaved regions (region '%s': expected at most %u)",
                              r->name ? r->name : "", KM_MAX_TENSORS);
            return;
        }
    }
    km_plan plan;
    if (km_plan_make(c->p, &plan, NULL) == KM_OK || !plan.over)
        return;
    const km_region *r = plan.over;
    km_diags_add_code(c->diags, "manifest.rule", c->file, r->pos.line, r->pos.col,
                 "bank %u is over 4 GiB with region '%s' (expected at most 4 "
                 "GiB a bank, its first %llu MiB and each thread's check line "
                 "and ring included)",
                 plan.over_bank, r->name ? r->name : "",
                 (unsigned long long)(KM_TENSOR_BASE >> 20));
}

/* "1, 3" for the clusters that run a thread, in order. */
static void thread_clusters(const km_program *p, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (int cluster = 1; cluster <= 3; cluster++) {
        if (!km_program_thread_on(p, cluster))
            continue;
        int k = snprintf(buf + used, size - used, "%s%d", used ? ", " : "",
                         cluster);
        if (k < 0 || (size_t)k >= size - used)
            return;
        used += (size_t)k;
    }
}

bool km_check_thread_cluster(km_mctx *c, long cluster, const km_yaml_node *at)
{
    if (km_program_thread_on(c->p, (int)cluster))
        return true;
    char list[32];
    thread_clusters(c->p, list, sizeof list);
    if (list[0])
        km_mdiag_code(c, "manifest.rule", at, "cluster %ld runs no thread (expected one of %s)",
                 cluster, list);
    return false;
}

static bool has_region(const km_thread *t, const char *name)
{
    if (is_own(t, name))
        return true;
    for (size_t i = 0; i < t->nshared; i++)
        if (strcmp(t->shared[i], name) == 0)
            return true;
    return false;
}

void km_check_pull_log(km_mctx *c, const char *log, const km_yaml_node *at)
{
    char lacking[32] = "";
    size_t used = 0, count = 0;
    for (size_t i = 0; i < c->p->nthreads; i++) {
        const km_thread *t = &c->p->threads[i];
        if (has_region(t, log))
            continue;
        for (size_t k = 0; k < t->nclusters; k++, count++) {
            int n = snprintf(lacking + used, sizeof lacking - used, "%s%d",
                             used ? ", " : "", t->clusters[k]);
            if (n > 0 && (size_t)n < sizeof lacking - used)
                used += (size_t)n;
        }
    }
    if (count) {
        km_mdiag_code(c, "manifest.rule", at, "pull log '%s' is not a region of the thread%s on "
                        "cluster%s %s (expected a region every thread has, "
                        "own or shared)",
                 log, count > 1 ? "s" : "", count > 1 ? "s" : "", lacking);
        return;
    }
    /* As kmx_pull_run has it: a log holds at least one range a core. */
    for (size_t i = 0; i < c->p->nthreads; i++) {
        const km_thread *t = &c->p->threads[i];
        const km_region *r = NULL;
        for (size_t k = 0; k < t->nregions && !r; k++)
            if (t->regions[k].name && strcmp(t->regions[k].name, log) == 0)
                r = &t->regions[k];
        if (!r)
            r = km_program_region(c->p, log);
        if (r && r->size < KMX_PULL_LOG_BYTES(1)) {
            km_mdiag_code(c, "manifest.rule", at, "pull log '%s' is too small: %llu bytes (expected at least %llu, "
                            "KMX_PULL_LOG_BYTES(1): a count and one range for each of the %u "
                            "Tensix cores)",
                     log, (unsigned long long)r->size,
                     (unsigned long long)KMX_PULL_LOG_BYTES(1), BH_GRID_CORES);
            return;
        }
    }
}

bool km_check_needs_thread(km_mctx *c, const char *what,
                           const km_yaml_node *at)
{
    if (c->thread_entries)
        return true;
    km_mdiag_code(c, "manifest.rule", at, "%s without threads (expected at least one thread to "
                    "serve them)",
             what);
    return false;
}

void km_check_something_to_run(km_mctx *c, const km_yaml_node *root)
{
    if (c->thread_entries == 0 && c->command_entries == 0)
        km_mdiag_code(c, "manifest.rule", root, "nothing to run (expected at least one thread or "
                          "one command)");
}
