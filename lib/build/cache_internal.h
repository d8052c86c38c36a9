/* cache_internal: what km_cache.c shares with cache_admin.c only. */
#ifndef KM_CACHE_INTERNAL_H
#define KM_CACHE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "km_cache.h"

int km_cache_read_counters(km_cache *c, uint64_t counters[KM_COUNTERS]);

/* The folder kind/ab of a key's hex (objects/ab, direct/ab), opened below
 * the root without following links; made with create.  -1 with errno and
 * err (ENOENT: not there). */
int km_cache_shard(km_cache *c, const char *kind, const char *hex, bool create, km_error *err);

/* Takes the entry folder dir/name exclusively, without waiting: the lock's
 * descriptor; -1 with errno EBUSY when it is pinned (in use), ENOENT when
 * it is gone; -2 when name is not a folder (a file or a link: nothing to
 * lock, nothing of anyone's to keep). */
int km_cache_take(int dir, const char *name);

/* Removes the entry folder dir/name: taken (km_cache_take), moved under
 * tmp/ in one step so readers never see a part, then deleted.  This
 * handle's own pin on it is dropped first.  0, or -1 with errno: EBUSY when
 * another handle uses it, or why it cannot be moved (another user's). */
int km_cache_discard(km_cache *c, int dir, const char *name);

#endif
