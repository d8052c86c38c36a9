/* ks_grow: the one rule by which a growing array makes room.  Its
 * capacity doubles from a small start (or jumps to what is needed), the
 * byte count is checked for overflow, and when memory runs out the array
 * and its capacity are left as they were, for the caller to report the
 * failure in its own terms.  Nothing here prints or exits. */
#ifndef KS_GROW_H
#define KS_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* The capacity a growing array starts at. */
#define KS_GROW_START 8

/* Room for at least `need` items of `size` bytes in *items, which holds
 * *cap of them (*items NULL and *cap 0: none yet).  True with room made
 * (*items and *cap updated only when it grew); false, *items and *cap
 * untouched, when need * size passes PTRDIFF_MAX (the largest object C
 * allows), size is 0 or memory ran out.  Room already there costs one comparison, inline (it is
 * asked for at every item, in the simulator's loops too); ks_grow_more
 * is the rest. */
bool ks_grow_more(void **items, size_t *cap, size_t need, size_t size);
static inline bool ks_grow(void **items, size_t *cap, size_t need, size_t size)
{
    return need <= *cap || ks_grow_more(items, cap, need, size);
}

/* ks_grow, and the items it adds (from *cap to the new *cap) zeroed: an
 * array indexed by a number that arrives, its unused slots empty. */
bool ks_grow_zeroed(void **items, size_t *cap, size_t need, size_t size);

/* The same for an array named by its pointer `items` (an lvalue of an
 * object pointer type; cap a size_t lvalue): its item size is its own. */
#define KS_GROW(items, cap, need) ks_grow((void **)&(items), &(cap), (need), sizeof *(items))
#define KS_GROW_ZEROED(items, cap, need) \
    ks_grow_zeroed((void **)&(items), &(cap), (need), sizeof *(items))

#endif
