/* km_wild: the card's wild writes (sim_card_wild_writes, sim_card.h) as a
 * user reads them — an X280 core's store through a NoC window into
 * another cluster's local memory, or the dispatcher's, where the contract
 * gives it nothing to write.  On a card the write silently corrupts its
 * target; kmrun always watches for it (no flag: it is always a bug), lists
 * it in the run JSON's `wild_writes`, says it on stderr and fails the run.
 *
 *   km_wild_name(&record, &w)        the record, its writer a km_site
 *   km_site_source(&w.writer, ...)    its source line (km_handover.h)
 *   km_wild_line(&w, buf, n)          the stderr diagnostic
 *   km_wild_note(&w, buf, n)          what the target thread's message says */
#ifndef KM_WILD_H
#define KM_WILD_H

#include <stddef.h>
#include <stdint.h>

#include "km_handover.h"
#include "sim_card.h"

typedef struct km_wild_write {
    km_site writer;   /* KM_SITE_X280: cluster, core, pc, caller, ps of its first
                         store; its source (unknown until named) */
    int target;       /* whose memory: 0 the dispatcher's, else that work cluster */
    unsigned x, y;    /* the target's tile */
    uint64_t first, end; /* local-memory addresses its stores covered: [first, end) */
    uint64_t bytes;   /* bytes stored (several stores to one place count each time) */
    uint32_t stores;
    uint64_t last_ps;
} km_wild_write;

void km_wild_name(const sim_wild_write *rec, km_wild_write *out);

/* The diagnostic, one line, no newline:
 *   thread/wild.c:31: wild write: cluster 1 core 0 wrote 4,096 bytes into
 *   cluster 2's local memory (tile (8, 5), 0x8000000..0x8000fff, 512 stores
 *   from 20.2 µs) through a NoC window; on a card this overwrites that
 *   cluster's image, stacks or runtime lines: ...
 * Returns what snprintf does. */
int km_wild_line(const km_wild_write *w, char *out, size_t n);

/* For the target thread's message: "its local memory was written by
 * cluster 1 core 0 at thread/wild.c:31 (0x8000000..0x8000fff): a wild
 * write, see wild_writes". */
int km_wild_note(const km_wild_write *w, char *out, size_t n);

#endif
