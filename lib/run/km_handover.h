/* km_handover: the hand-over checker's findings as a user reads them —
 * the card's records (sim_card_handovers, sim_card.h) named after the
 * program: the region copy and offset, the kind, both sides' sites with
 * their source lines, and the kmx call that was missing.
 *
 *   km_handover_name(p, plan, &record, &h)     region, kind, missing call
 *                                              (pure: no tool runs)
 *   km_site_source(&h.at, images, kernels)     a site's file:line, with
 *                                              addr2line (km_symbols.h)
 *   km_handover_line(&h, buf, n)               the stderr diagnostic
 *
 * The region: the plan's copy in the record's bank whose bytes hold its
 * bank address; clusters 2 and 3 share bank 7's shared regions, so the
 * copy is the one of the cluster that must make the missing call (the
 * reader for a stale read, the cluster whose line was written back for a
 * lost write, the cluster that held the line dirty for an unflushed read),
 * else the first.  An address no region holds (a ring, a check line) has
 * no region: the finding still says bank and address. */
#ifndef KM_HANDOVER_H
#define KM_HANDOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_plan.h"
#include "km_program.h"
#include "km_session.h"
#include "sim_card.h"

typedef enum km_handover_kind {
    KM_HANDOVER_STALE_READ,        /* "stale_read" */
    KM_HANDOVER_STALE_SHARED_READ, /* "stale_shared_read": bank 7's shared region,
                                      written by the other cluster's X280 */
    KM_HANDOVER_LOST_WRITE,        /* "lost_write" */
    KM_HANDOVER_UNFLUSHED_READ,    /* "unflushed_read" */
    KM_HANDOVER_LATENT_READ,       /* "latent_read": read right this time, only
                                      because the cache did not hold the old line */
    KM_HANDOVER_UNKNOWN,           /* a record kind this kmrun does not know */
} km_handover_kind;

/* "stale_read", ... (the run JSON's `kind`); "unknown" past them. */
const char *km_handover_kind_name(km_handover_kind k);

typedef enum km_site_kind {
    KM_SITE_NONE,    /* no such site (a finding without a fill) */
    KM_SITE_X280,    /* an X280 core: cluster, core, pc in the cluster's image */
    KM_SITE_HANDLER, /* a Tensix handler: core, handler, pc in the kernels' object */
    KM_SITE_HOST,    /* the host: the initial contents (or the reads after the end) */
} km_site_kind;

typedef struct km_site {
    km_site_kind kind;
    int cluster;          /* X280: 1..3 */
    unsigned core;        /* X280: 0..3; handler: the Tensix core */
    uint32_t handler_id;  /* handler */
    const char *handler;  /* its name (the program's or a built-in's); NULL unknown */
    uint64_t pc;
    uint64_t caller;      /* X280: its return address at the access */
    uint64_t ps;          /* modeled time */
    km_source source;     /* of pc — of the thread's call when pc is inside the
                             runtime (a push's stores); unknown until
                             km_handover_sources */
} km_site;

typedef struct km_handover {
    km_handover_kind kind;
    uint32_t record_kind;  /* SIM_HANDOVER_* as the card said it */
    unsigned bank;
    uint64_t bank_address; /* the first byte wrongly read or overwritten */
    unsigned bytes;        /* the first access's bytes within its line */
    uint64_t end_address;  /* one past the last such byte, on the last line */
    uint32_t lines;        /* the contiguous lines of the one hazard (1 or more) */
    /* The region copy that holds it (has_region false: none does). */
    bool has_region;
    const char *region;    /* the plan's (the program's) */
    uint32_t id;           /* its id in that cluster's thread */
    int cluster;           /* the copy's cluster */
    bool shared;
    uint64_t offset;       /* from the region's start */
    uint64_t end_offset;   /* end_address from the region's start */
    km_site at;     /* the read (stale, unflushed) or the write-back (lost) */
    km_site writer; /* stale, lost: who wrote DRAM after the fill;
                       unflushed: the store that dirtied the line */
    km_site fill;   /* stale, lost: the load that filled the line; else KM_SITE_NONE */
    /* A lost write under a push (the writer an X280 of another cluster):
     * the receiver's kmx_flush before the push is missing. */
    bool push;
    char missing[48]; /* "kmx_invalidate(0)", "kmx_flush(2)"; without a
                         region "kmx_invalidate" / "kmx_flush"; "" for
                         an unknown kind */
} km_handover;

/* Names one record after the program and its plan. */
void km_handover_name(const km_program *p, const km_plan *plan, const sim_handover *rec,
                      km_handover *out);

/* A site's source line: an X280 site's pc through image_of[cluster] (the
 * thread image that ran there; NULL: unknown) with the toolchain's
 * addr2line (km_source_lookup), a handler's through the kernels' shared
 * object (NULL: no kernels) with the host's (km_host_source_lookup): its
 * pc is a return address, so the line of pc - 1, the call's.  The host's
 * has none. */
void km_site_source(km_site *s, const char *const image_of[BH_WORK_CLUSTERS + 1],
                    const char *kernels_so);

/* The diagnostic, one line, no newline (a finding over several lines
 * names its byte range and count: "+0x0..+0x400 (16 lines)"):
 *   thread/sum.c:42: stale read of region 'data' +0x1040 (cluster 1 core 2):
 *   handler 'fill' wrote it at kernels/fill.c:17, 1,204.5 µs; the cache
 *   filled it at thread/sum.c:30, 980.1 µs; kmx_invalidate(0) is missing
 *   between them
 * Returns what snprintf does. */
int km_handover_line(const km_handover *h, char *out, size_t n);

#endif
