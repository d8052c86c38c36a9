/* km_prints: a run's prints (kmx_print, km_print) as a person reads them —
 * the line `[c1.2 104.22µs] text` that kmrun shows on stderr as each print
 * is drained and writes, one a line, to the run folder's prints.txt.
 * c1.2 is cluster 1's core 2; t17 is Tensix core 17 in grid order (as the
 * run JSON's `ports` and `stats` number them).  The time is the print's,
 * in microseconds from the card's start, cut to hundredths (the JSON has
 * it exact); on the host fallback, the host's time from the run's start. */
#ifndef KM_PRINTS_H
#define KM_PRINTS_H

#include <stddef.h>

#include "km_session.h"

/* One print's line, without a newline. */
void km_print_line_text(const km_print_line *p, char *out, size_t n);

/* Every print's line, each ending in a newline ("" when none): the run
 * folder's prints.txt.  Allocated (free()); NULL when memory runs out. */
char *km_prints_text(const km_print_line *prints, size_t n);

#endif
