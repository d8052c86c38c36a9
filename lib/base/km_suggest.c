/* km_suggest: the closest candidate by restricted Damerau-Levenshtein
 * distance (km_suggest.h). */
#include "km_suggest.h"

#include <ctype.h>
#include <string.h>

enum { MAX_LEN = 64 };

static size_t distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n >= MAX_LEN || m >= MAX_LEN)
        return (size_t)-1;
    size_t d[MAX_LEN + 1][MAX_LEN + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            int ca = tolower((unsigned char)a[i - 1]);
            int cb = tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[n][m];
}

const char *km_suggest(const char *word, const char *const *candidates, size_t n)
{
    size_t limit = strlen(word) / 3;
    if (limit < 1)
        limit = 1;
    if (limit > 3)
        limit = 3;
    const char *best = NULL;
    size_t best_d = limit + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}
