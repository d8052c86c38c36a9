/* km_bless: a program's `expect:` rewritten to what its runs gave
 * (`kmrun test --bless`), in its manifest file, in place.
 *
 * The promise: the runs of one program (a verdict each, km_expect.h, or
 * a backend known to have passed without one) are blessed together or
 * not at all.  They are blessed only when every difference is a value
 * (km_fix.ok), and every item that changes applies only to backends that
 * ran and all gave the same new value: an item without `backend:` that
 * sim and host would rewrite differently, or that one of them keeps, or
 * that applies to a backend that did not run (--backend), is refused,
 * never blessed to one of them.  Then the manifest is rewritten with
 * yaml_edit (only the changed values' bytes; comments, order, style and
 * every other byte kept), atomically: a temporary file in its folder,
 * with its mode, renamed over it (a link is followed, the file it names
 * rewritten); nothing is written when no byte changes.  A refusal or an
 * error leaves the file as it was.  It never prints. */
#ifndef KM_BLESS_H
#define KM_BLESS_H

#include <stdbool.h>
#include <stddef.h>

#include "km_error.h"
#include "km_expect.h"
#include "km_program.h"

typedef struct km_bless_item {
    km_pos pos;
    const km_fix *fix;   /* the first run's (the verdict's: it must outlive the blessing) */
    const char *subject; /* the verdict's */
    unsigned from;       /* the backends whose runs gave this value (KM_EXPECT_ON_*) */
    unsigned differ;     /* the backends whose runs gave another */
    const km_fix *other; /* the first other value given */
} km_bless_item;

typedef struct km_bless {
    const km_program *p;
    unsigned ran;        /* the backends whose runs are known */
    unsigned failed;     /* the backends with a difference that is no value */
    char *failure;       /* the first such difference's text */
    km_bless_item *items;
    size_t n, cap;
    size_t written;      /* values the write changed */
} km_bless;

void km_bless_init(km_bless *b, const km_program *p);
/* A run's verdict (it must outlive b).  KM_OK; KM_EXIT_USAGE for a
 * verdict of another program or a backend added twice; KM_EXIT_SYSTEM
 * when memory runs out. */
int km_bless_add(km_bless *b, const km_verdict *v, km_error *err);
/* A backend's run known to hold to expect: with no verdict (a reused
 * result): every value it compares stays. */
int km_bless_passed(km_bless *b, unsigned backend, km_error *err);
/* Rewrites the manifest: KM_OK when it now holds what the runs gave
 * (b->written the values changed; 0: no write); KM_EXIT_FAILED when the
 * runs are refused (err says why, at the item's file:line:col);
 * KM_EXIT_USAGE when the manifest cannot be rewritten in place (it
 * changed since it was read, a block scalar); KM_EXIT_SYSTEM when it
 * cannot be read or written. */
int km_bless_write(km_bless *b, km_error *err);
void km_bless_free(km_bless *b);

/* The backends' names, "sim and host", for messages. */
const char *km_bless_backends(unsigned on);

#endif
