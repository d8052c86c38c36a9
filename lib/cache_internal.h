/* cache_internal: what km_cache.c shares with cache_admin.c only. */
#ifndef KM_CACHE_INTERNAL_H
#define KM_CACHE_INTERNAL_H

#include <stdint.h>

#include "km_cache.h"

int km_cache_read_counters(km_cache *c, uint64_t *hits, uint64_t *misses);

/* Removes an entry folder: renamed away first, so readers never see a part.
 * 0, or -1 with errno when it cannot be moved (read-only, another user's). */
int km_cache_discard(km_cache *c, const char *dir);

#endif
