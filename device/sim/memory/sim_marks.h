/* sim_marks: byte ranges of one DRAM bank, each with a mask of clusters
 * and the last site that wrote it — for the hand-over checker's latent
 * reads (sim_checker.h): bit c set over a byte when someone other than
 * cluster c wrote it since c last swept its line.  Ranges are kept sorted,
 * disjoint, non-empty and with a mask that is not 0; neighbours with the
 * same mask are one range (the later writer kept), so a region written
 * whole is one range however it was written.  Lookups are a binary
 * search; a change splices the ranges it overlaps. */
#ifndef SIM_MARKS_H
#define SIM_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_card.h"

typedef struct sim_mark {
    uint64_t from, to; /* [from, to) */
    uint8_t mask;
    sim_site writer;
} sim_mark;

typedef struct sim_marks {
    sim_mark *v;
    size_t n, cap;
} sim_marks;

void sim_marks_free(sim_marks *m);

/* Over [from, to): the bits of `set` set, the bits of `clear` cleared;
 * where a bit is set, `writer` becomes the range's writer.  -1 when
 * memory runs out (the marks then stay as they were). */
int sim_marks_change(sim_marks *m, uint64_t from, uint64_t to, uint8_t set, uint8_t clear,
                     const sim_site *writer);

/* The first range that overlaps [from, to) with one of `bits`, or NULL. */
const sim_mark *sim_marks_find(const sim_marks *m, uint64_t from, uint64_t to, uint8_t bits);

#endif
