/* km_suggest: "did you mean ...?" for mistyped keys, commands and names. */
#ifndef KM_SUGGEST_H
#define KM_SUGGEST_H

#include <stddef.h>

/* The candidate closest to `word` by edit distance (insertions, deletions,
 * substitutions and swaps of neighbours, case-insensitive), or NULL when
 * none is close enough to be a plausible typo (more than a third of the
 * word's letters, at least 1 and at most 3, would have to change). */
const char *km_suggest(const char *word, const char *const *candidates, size_t n);

#endif
