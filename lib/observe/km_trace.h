/* km_trace: an X280 core's instruction trace as a run folder keeps it,
 * trace-cC.K.kmt (kmrun(1), FILES, says the format): a writer that
 * records a core's retired instructions (sim_trace.h's records) as they
 * come, only those inside its pc ranges when it has any, and stops at a
 * size bound and says so; and a reader that gives them back exactly —
 * every record round-trips, so the text `kmrun trace` prints, Spike's
 * commit log included, is what the core did.  A file that was cut short
 * (no end record, a record past the end) or is not a trace is refused
 * with a message that says which, never read as fewer instructions.
 *
 * The writer never prints; its failures (the disk) come back from
 * km_trace_close. */
#ifndef KM_TRACE_H
#define KM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_error.h"
#include "sim_trace.h"

#define KM_TRACE_VERSION 1
/* A core's trace file at most this big unless asked otherwise. */
#define KM_TRACE_LIMIT_DEFAULT (64ull << 20)
/* The smallest bound: a header, an end record and a few instructions. */
#define KM_TRACE_LIMIT_MIN 4096ull
/* The most pc ranges a trace keeps (its filter). */
#define KM_TRACE_MAX_RANGES 64

/* An address range [lo, hi). */
typedef struct km_trace_range {
    uint64_t lo, hi;
} km_trace_range;

/* What a trace is of, in its header. */
typedef struct km_trace_meta {
    unsigned cluster, core; /* 1..3, 0..3; the core is its mhartid */
    uint64_t limit;         /* the file's size bound, bytes */
    char image[1024];       /* the image it ran, as a path ("" unknown) */
    char image_sha256[65];  /* its SHA-256 in hex ("" unknown) */
    /* The filter: only instructions whose pc is in one of these are
     * recorded; none: every one. */
    km_trace_range ranges[KM_TRACE_MAX_RANGES];
    unsigned nranges;
} km_trace_meta;

/* How it ended, in its end record. */
typedef struct km_trace_end {
    uint64_t recorded; /* instructions in the file */
    uint64_t seen;     /* retired while it recorded (filtered out ones too) */
    bool cut;          /* the size bound stopped it */
    uint64_t cut_cycle; /* then: the cycle of the first one left out */
} km_trace_end;

typedef struct km_trace_writer km_trace_writer;

/* A new trace at `path` (created or emptied), its header written.
 * KM_EXIT_SYSTEM when it cannot be; KM_EXIT_USAGE for a limit below
 * KM_TRACE_LIMIT_MIN or too many ranges. */
int km_trace_create(km_trace_writer **out, const char *path, const km_trace_meta *m,
                    km_error *err);
/* Records c if its pc is in the filter.  False when the trace will take
 * no more: the size bound reached (it is cut) or a write failed. */
bool km_trace_add(km_trace_writer *w, const sim_commit *c);
/* How it stands (so far). */
const km_trace_end *km_trace_status(const km_trace_writer *w);
/* Writes the end record and closes; *end (may be NULL) gets how it ended.
 * KM_EXIT_SYSTEM when anything of it could not be written.  Frees w. */
int km_trace_close(km_trace_writer *w, km_trace_end *end, km_error *err);

typedef struct km_trace_reader km_trace_reader;

/* Reads the trace at `path` whole and checks its header and end record:
 * KM_EXIT_USAGE for a file that is not a trace (or of another version),
 * KM_EXIT_SYSTEM when it cannot be read or was cut short (truncated). */
int km_trace_open(km_trace_reader **out, const char *path, km_error *err);
void km_trace_free(km_trace_reader *r);
const km_trace_meta *km_trace_meta_of(const km_trace_reader *r);
const km_trace_end *km_trace_end_of(const km_trace_reader *r);
/* The next instruction into *c: KM_OK and *done false; KM_OK and *done
 * true after the last; KM_EXIT_SYSTEM for a damaged record (its offset
 * said). */
int km_trace_next(km_trace_reader *r, sim_commit *c, bool *done, km_error *err);

/* The address ranges of every function called `name` in the ELF image at
 * `path` (its symbol table: a static function of that name in several
 * files gives several), appended to m's ranges.  KM_EXIT_USAGE when the
 * image has no such function (or too many ranges), KM_EXIT_SYSTEM /
 * KM_EXIT_BUILD when it cannot be read. */
int km_trace_function_ranges(const char *image, const char *name, km_trace_meta *m,
                             km_error *err);

#endif
