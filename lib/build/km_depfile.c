/* km_depfile: Make dependency files, as gcc writes them (km_depfile.h). */
#include "km_depfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ks_grow.h"

static bool push(char ***paths, size_t *n, size_t *cap, const char *s, size_t len)
{
    char *path = strndup(s, len);
    if (!path || !ks_grow((void **)paths, cap, *n + 1, sizeof **paths)) {
        free(path);
        return false;
    }
    (*paths)[(*n)++] = path;
    return true;
}

int km_depfile_parse(const char *text, char ***paths, size_t *n)
{
    *paths = NULL;
    *n = 0;
    char *word = malloc(strlen(text) + 1);
    size_t len = 0, cap = 0;
    int in_prereqs = 0, saw_colon = 0, rc = word ? 0 : KM_DEPFILE_NO_MEMORY;
    for (const char *p = text; rc == 0; p++) {
        char c = *p;
        if (c == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
            p += p[1] == '\r' ? 2 : 1; /* a continued line is a space */
            c = ' ';
        } else if (c == '\\' && (p[1] == ' ' || p[1] == '#' || p[1] == '\\')) {
            word[len++] = *++p;
            continue;
        } else if (c == '$' && p[1] == '$') {
            word[len++] = '$';
            p++;
            continue;
        }
        int end_of_line = c == '\n' || c == 0;
        if (c == ' ' || c == '\t' || c == '\r' || end_of_line) {
            if (len) {
                /* "target:" may end a word when no space precedes the colon */
                if (!in_prereqs && word[len - 1] == ':') {
                    in_prereqs = saw_colon = 1;
                } else if (in_prereqs && !push(paths, n, &cap, word, len)) {
                    rc = KM_DEPFILE_NO_MEMORY;
                }
                len = 0;
            }
            if (end_of_line)
                in_prereqs = 0;
            if (c == 0)
                break;
            continue;
        }
        if (c == ':' && !in_prereqs && (p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == 0)) {
            len = 0; /* the target's name ends here */
            in_prereqs = saw_colon = 1;
            continue;
        }
        word[len++] = c;
    }
    free(word);
    if (rc == 0 && !saw_colon)
        rc = -1;
    if (rc != 0) {
        km_depfile_free(*paths, *n);
        *paths = NULL;
        *n = 0;
    }
    return rc;
}

void km_depfile_free(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}
