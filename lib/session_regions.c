/* session_regions: a region's initial contents into the simulated card's
 * DRAM, shared by the backends that run against it (sim, host). */
#include "session_internal.h"

#include <stdlib.h>

#include "km_fs.h"
#include "sim_dram.h"

/* Step e's other half: a region's initial bytes.  The card is fresh (every
 * byte zero), so zeros are never written: a size-only region costs no
 * host memory, and a file or word list stops at its last byte. */
int km_dram_write_region(sim_dram *d, const km_placed *pl, km_error *err)
{
    const km_region *r = pl->region;
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
        int rc = sim_dram_write(d, pl->bank, pl->bank_address, bytes, n < r->size ? n : r->size,
                                err);
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
            rc = sim_dram_write(d, pl->bank, pl->bank_address + at, chunk, n, err);
        }
        free(chunk);
        return rc;
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
            rc = sim_dram_write(d, pl->bank, pl->bank_address, data, n, err);
        free(data);
        return rc;
    }
    }
    return km_fail(err, KM_EXIT_INTERNAL, "region '%s' has no known initial contents", r->name);
}

/* Whether an earlier cluster on the same bank already wrote this shared
 * region (clusters 2 and 3 share one copy). */
bool km_region_written_before(const km_plan *plan, unsigned upto, const km_placed *pl)
{
    for (unsigned i = 0; i < upto; i++) {
        const km_cluster_plan *o = &plan->clusters[i];
        for (uint32_t k = 0; k < o->nregions; k++)
            if (o->regions[k].bank == pl->bank && o->regions[k].bank_address == pl->bank_address)
                return true;
    }
    return false;
}
