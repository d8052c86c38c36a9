/* km_profile: a run's exact profile as files and as a person reads it —
 * the simulator's per-core profiles (sim_profile.h) named by source
 * (km_symbols), folded into call stacks, written into the run folder
 * (profile.folded, profile.json), read back, and shown: the top table,
 * annotated source, a flame graph SVG (km_profile_show.c).
 *
 * A stack is its frames joined by ';' (the flame-graph folded format):
 * the core as "C.K" first, then each call site as "function (file:line)"
 * outermost first, the instruction's own frame last; a frame the image's
 * DWARF cannot name is its address ("0x80001234"); a trap frame (the
 * trapping instruction, the handler's frames above it) ends in " [trap]".
 * The same stack is one row (instructions of one line merged).  Counts
 * are the core's: cycles, retired instructions, memory stall cycles (of
 * the cycles, what memory accesses added), traps; their sums per core are
 * the run JSON's stats.  Nothing here prints. */
#ifndef KM_PROFILE_H
#define KM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "km_error.h"

struct sim_profile;

typedef struct km_profile_row {
    char *stack;
    uint64_t cycles, instructions, memory_stall_cycles, traps;
} km_profile_row;

typedef struct km_profile {
    km_profile_row *rows;
    size_t n, cap;
} km_profile;

void km_profile_free(km_profile *p); /* the rows; p itself is the caller's */

/* Adds the profiles of the cores of clusters[0 .. n) (sp[k][c] core c's
 * of clusters[k], NULL: none), which all run `image` (the thread's image:
 * their frames named with one addr2line; NULL: addresses only; memo: the
 * file that keeps addr2line's answers for it, km_source_lookup_many's,
 * NULL: none).  KM_OK or
 * KM_EXIT_SYSTEM. */
int km_profile_add_clusters(km_profile *p, unsigned n, const unsigned *clusters,
                            const struct sim_profile *const (*sp)[4], const char *image,
                            const char *memo, km_error *err);

/* Adds one row (its stack copied), merged into a row of the same stack. */
int km_profile_add(km_profile *p, const char *stack, uint64_t cycles, uint64_t instructions,
                   uint64_t memory_stall_cycles, uint64_t traps, km_error *err);

/* Sorts the rows by stack and merges equal ones: the files' order. */
void km_profile_sort(km_profile *p);

/* The folded file (one "STACK CYCLES" line a row with cycles) and the JSON
 * (every counter a row: {"stacks": [{"stack", "cycles", "instructions",
 * "memory_stall_cycles", "traps"}]}). */
int km_profile_write_folded(const km_profile *p, FILE *f);
char *km_profile_json(const km_profile *p); /* allocated; NULL: out of memory */
/* p sorted, then both files into `folder` as profile.folded and
 * profile.json, each written whole (km_write_file_atomic). */
int km_profile_save(km_profile *p, const char *folder, km_error *err);

/* Reads profile.json, else profile.folded (cycles only), of run folder
 * `folder` into an empty *p.  KM_EXIT_USAGE when the run has no profile,
 * KM_EXIT_SYSTEM when it cannot be read. */
int km_profile_read(km_profile *p, const char *folder, km_error *err);
/* Parses a folded text (for km_profile_read and tests). */
int km_profile_parse_folded(km_profile *p, const char *text, km_error *err);

/* A stack's first frame, the core ("1.0"), as [*start, *start + *len). */
void km_profile_core_of(const char *stack, const char **start, size_t *len);
/* Its last frame, the instruction's, likewise. */
void km_profile_leaf_of(const char *stack, const char **start, size_t *len);
/* Whether the row belongs to core `core` ("C.K"; NULL: every core). */
bool km_profile_on_core(const km_profile_row *r, const char *core);

/* ---- km_profile_show.c: what `kmrun profile` shows ------------------------- */

/* The top table: the instructions' frames (function and file:line) by
 * cycles spent there, `limit` rows at most (0: all), with share, stalls,
 * instructions, traps; per core filter `core` (NULL: every core).
 * Allocated text; NULL: out of memory. */
char *km_profile_top_text(const km_profile *p, const char *core, unsigned limit);
/* The same as JSON: {"core", "cycles", "rows": [{"frame", "function", "file", "line",
 * "cycles", "share", "instructions", "memory_stall_cycles", "traps"}]}. */
char *km_profile_top_json(const km_profile *p, const char *core, unsigned limit);
/* Source file `source` (read from disk), each line with the cycles spent
 * on it (its instructions, any frame whose file is `source`'s path or ends
 * in it) and their share of the profile's cycles.  KM_EXIT_USAGE when it
 * cannot be read or the profile names no line of it. */
int km_profile_annotate(const km_profile *p, const char *core, const char *source, char **text,
                        km_error *err);
/* A self-contained interactive flame graph (SVG with its script). */
char *km_profile_svg(const km_profile *p, const char *core, const char *title);

#endif
