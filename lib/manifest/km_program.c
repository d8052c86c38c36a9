/* km_program: freeing the program model and looking things up in it
 * (km_program.h).  km_manifest_load() lives in manifest.c. */
#include "km_program.h"

#include "kmx_layout.h"

#include <stdlib.h>
#include <string.h>

km_blob *km_blob_new(const void *bytes, size_t n)
{
    km_blob *b = malloc(sizeof *b + (n ? n : 1));
    if (!b)
        return NULL;
    b->refs = 1;
    b->n = n;
    if (n)
        memcpy(b->data, bytes, n);
    return b;
}

km_blob *km_blob_ref(km_blob *b)
{
    if (b)
        b->refs++;
    return b;
}

void km_blob_unref(km_blob *b)
{
    if (b && --b->refs == 0)
        free(b);
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void free_regions(km_region *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i].name);
        free(r[i].file);
        free(r[i].words);
        km_blob_unref(r[i].bytes);
    }
    free(r);
}

void km_expect_free(km_expect *e)
{
    for (size_t i = 0; i < e->nthreads; i++) {
        free(e->threads[i].state);
        free(e->threads[i].words);
        free_strings(e->threads[i].prints, e->threads[i].nprints);
    }
    free(e->threads);
    for (size_t i = 0; i < e->nregions; i++) {
        free(e->regions[i].name);
        free(e->regions[i].sha256);
        free(e->regions[i].first);
    }
    free(e->regions);
    for (size_t i = 0; i < e->ncommands; i++)
        free(e->commands[i].event);
    free(e->commands);
    *e = (km_expect){0};
}

void km_program_free(km_program *p)
{
    if (!p)
        return;
    free(p->manifest);
    free(p->root);
    free(p->name);
    free_strings(p->kernels.sources, p->kernels.nsources);
    free_strings(p->kernels.handlers, p->kernels.nhandlers);
    free_strings(p->kernels.cflags, p->kernels.ncflags);
    free_regions(p->regions, p->nregions);
    for (size_t i = 0; i < p->nthreads; i++) {
        km_thread *t = &p->threads[i];
        free_strings(t->sources, t->nsources);
        free_regions(t->regions, t->nregions);
        free_strings(t->shared, t->nshared);
        free(t->words);
        free_strings(t->cflags, t->ncflags);
    }
    free(p->threads);
    free(p->ports.serve);
    free(p->pull.log);
    for (size_t i = 0; i < p->ncommands; i++)
        free(p->commands[i].handler);
    free(p->commands);
    km_expect_free(&p->expect);
    free(p);
}

const km_thread *km_program_thread_on(const km_program *p, int cluster)
{
    for (size_t i = 0; i < p->nthreads; i++)
        for (size_t c = 0; c < p->threads[i].nclusters; c++)
            if (p->threads[i].clusters[c] == cluster)
                return &p->threads[i];
    return NULL;
}

const km_region *km_program_region(const km_program *p, const char *name)
{
    for (size_t i = 0; i < p->nregions; i++)
        if (strcmp(p->regions[i].name, name) == 0)
            return &p->regions[i];
    return NULL;
}

int km_cluster_bank(int cluster)
{
    /* Work clusters only: cluster 0 runs the dispatcher, not a thread. */
    return cluster >= 1 && cluster <= (int)BH_WORK_CLUSTERS ? (int)BH_CLUSTER_BANK((unsigned)cluster)
                                                               : -1;
}
