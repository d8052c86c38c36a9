/* manifest_threads: the `threads:` entries (manifest_internal.h).  Each
 * entry is one image on one or more clusters; the rules that tie entries
 * together (a cluster once, shared regions on one bank, a bank's 4 GiB)
 * are asked of manifest_check.c as each part is read. */
#include <string.h>

#include "kmx_layout.h"
#include "manifest_internal.h"

static const char *const thread_keys[] = {
    "cluster", "clusters", "sources", "regions", "shared",
    "words",   "deadline", "prefetch", "ring", "cflags", "compiler",
};
#define NKEYS (sizeof thread_keys / sizeof thread_keys[0])
#define CLUSTER_EXPECTED "1, 2 or 3"

static void add_cluster(km_mctx *c, km_thread *t, const km_yaml_node *n)
{
    long cluster;
    if (!km_mint(c, n, "cluster", 1, 3, CLUSTER_EXPECTED, &cluster))
        return;
    for (size_t i = 0; i < t->nclusters; i++) {
        if (t->clusters[i] == cluster) {
            km_mdiag(c, n, "cluster %ld is listed twice (expected each "
                           "cluster once)",
                     cluster);
            return;
        }
    }
    if (km_check_cluster_free(c, t, cluster, n))
        t->clusters[t->nclusters++] = (int)cluster;
}

static void read_clusters(km_mctx *c, const km_yaml_node *map, km_thread *t)
{
    const km_yaml_node *one = km_yaml_get(map, "cluster");
    const km_yaml_node *many = km_yaml_get(map, "clusters");
    if (one && many) {
        const km_yaml_node *k1 = km_yaml_key(map, "cluster");
        const km_yaml_node *k2 = km_yaml_key(map, "clusters");
        bool second_is_many = k2->line > k1->line ||
                              (k2->line == k1->line && k2->col > k1->col);
        km_mdiag(c, second_is_many ? k2 : k1,
                 "both 'cluster' and 'clusters' in a thread (expected one of "
                 "them)");
        return;
    }
    if (!one && !many) {
        km_mmissing(c, map, "cluster", "in a thread",
                    "cluster: N, or clusters: [N, ...]");
        return;
    }
    if (one) {
        add_cluster(c, t, one);
        return;
    }
    if (!km_mis_list(c, many, "clusters", "a list of clusters 1, 2 or 3"))
        return;
    if (many->n == 0) {
        km_mdiag(c, many, "empty clusters (expected a list of clusters 1, 2 "
                          "or 3)");
        return;
    }
    for (size_t i = 0; i < many->n; i++) {
        if (i == BH_WORK_CLUSTERS) {
            km_mdiag_code(c, "manifest.too-many", many->items[i], "too many clusters (expected at most "
                                        "3)");
            return;
        }
        add_cluster(c, t, many->items[i]);
    }
}

/* Checks a region's place: the 16 a thread may have, own and shared. */
static bool region_slot(km_mctx *c, size_t index, const km_yaml_node *at)
{
    if (index == KMX_MAX_REGIONS)
        km_mdiag_code(c, "manifest.too-many", at, "too many regions in a thread (expected at most %u, "
                        "own and shared)",
                 KMX_MAX_REGIONS);
    return index < KMX_MAX_REGIONS;
}

static void read_own_regions(km_mctx *c, const km_yaml_node *n, km_thread *t)
{
    t->regions = km_read_regions(c, n, "regions", &t->nregions);
    if (!t->regions)
        return;
    for (size_t i = 0; i < t->nregions && i < n->n; i++)
        if (t->regions[i].interleaved)
            km_mdiag_code(c, "manifest.rule", km_yaml_get(n->pairs[i].value, "placement"),
                          "region '%s' of a thread cannot be interleaved (expected placement: "
                          "interleaved only in the top-level regions: a thread's regions are "
                          "pages of its cluster's bank)",
                          t->regions[i].name);
    for (size_t i = 0; i < n->n; i++)
        if (!region_slot(c, i, n->pairs[i].key))
            break;
}

static void read_shared(km_mctx *c, const km_yaml_node *n, km_thread *t)
{
    if (!km_mis_list(c, n, "shared", "a list of program region names"))
        return;
    t->shared = km_mcalloc(c, n->n, sizeof *t->shared);
    if (!t->shared)
        return;
    for (size_t i = 0; i < n->n; i++) {
        const km_yaml_node *item = n->items[i];
        if (!km_mis_string(c, item, "shared region", "a program region name"))
            continue;
        region_slot(c, t->nregions + i, item);
        if (!km_check_shared(c, t, item->text, item))
            continue;
        if ((t->shared[t->nshared] = km_mstrdup(c, item->text)))
            t->nshared++;
    }
}

static void read_words(km_mctx *c, const km_yaml_node *n, km_thread *t)
{
    if (!km_mis_list(c, n, "words", "a list of unsigned 32-bit integers"))
        return;
    t->words = km_mcalloc(c, n->n, sizeof *t->words);
    if (!t->words)
        return;
    for (size_t i = 0; i < n->n; i++) {
        if (i == KMX_MAX_WORDS) {
            km_mdiag_code(c, "manifest.too-many", n->items[i], "too many words (expected at most %u)",
                     KMX_MAX_WORDS);
            break;
        }
        if (km_mu32(c, n->items[i], "word", &t->words[t->nwords]))
            t->nwords++;
    }
}

static void read_thread(km_mctx *c, const km_yaml_node *map, km_thread *t)
{
    t->pos = (km_pos){map->line, map->col};
    km_mkeys(c, map, thread_keys, NKEYS, "in a thread");
    read_clusters(c, map, t);

    const km_yaml_node *n = km_yaml_get(map, "sources");
    if (!n)
        km_mmissing(c, map, "sources", "in a thread",
                    "a list of source files");
    else if ((t->sources = km_mfiles(c, n, "sources", "source file",
                                     "a list of source files", &t->nsources)) &&
             n->n == 0)
        km_mdiag(c, n, "empty sources (expected at least one source file)");

    if ((n = km_yaml_get(map, "regions")))
        read_own_regions(c, n, t);
    if ((n = km_yaml_get(map, "shared")))
        read_shared(c, n, t);
    if ((n = km_yaml_get(map, "words")))
        read_words(c, n, t);
    if ((n = km_yaml_get(map, "deadline")))
        km_mdeadline(c, n, &t->deadline_us);
    if ((n = km_yaml_get(map, "prefetch"))) {
        static const char *const modes[] = {"default", "keep"};
        int mode;
        if (km_menum(c, n, "prefetch", modes, 2, "default or keep", &mode))
            t->prefetch = mode == 1 ? KM_PREFETCH_KEEP : KM_PREFETCH_DEFAULT;
    }
    if ((n = km_yaml_get(map, "ring"))) {
        static const char *const places[] = {"remote", "cached"};
        int place;
        if (km_menum(c, n, "ring", places, 2, "remote or cached", &place))
            t->ring = place == 1 ? KM_RING_CACHED : KM_RING_REMOTE;
    }
    if ((n = km_yaml_get(map, "cflags")))
        t->cflags = km_mflags(c, n, "cflags", &t->ncflags);
    if ((n = km_yaml_get(map, "compiler"))) {
        static const char *const compilers[] = {"gcc", "clang"};
        int which;
        if (km_menum(c, n, "compiler", compilers, 2, "gcc or clang", &which))
            t->compiler = which == 1 ? KM_COMPILER_CLANG : KM_COMPILER_GCC;
    }
}

void km_read_threads(km_mctx *c, const km_yaml_node *list)
{
    /* A wrong `threads:` still counts as some, not to cascade. */
    c->thread_entries = list->kind == KM_YAML_LIST ? list->n : 1;
    if (!km_mis_list(c, list, "threads", "a list of threads"))
        return;
    c->p->threads = km_mcalloc(c, list->n, sizeof *c->p->threads);
    if (!c->p->threads)
        return;
    for (size_t i = 0; i < list->n; i++) {
        const km_yaml_node *entry = list->items[i];
        if (!km_mis_map(c, entry, "thread",
                        "a mapping with cluster, sources, regions..."))
            continue;
        /* In the model before it is read, so that the checks see it. */
        km_thread *t = &c->p->threads[c->p->nthreads++];
        read_thread(c, entry, t);
    }
}
