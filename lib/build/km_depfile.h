/* km_depfile: the prerequisites of a Make-syntax dependency file, as
 * `gcc -MD` writes it (escaped spaces, `$$`, backslash-newline). */
#ifndef KM_DEPFILE_H
#define KM_DEPFILE_H

#include <stddef.h>

/* What km_depfile_parse returns when memory ran out. */
#define KM_DEPFILE_NO_MEMORY (-2)

/* Fills *paths (allocated array of allocated strings) with every
 * prerequisite of every rule, in order, the targets left out.  Returns 0,
 * -1 when the text is not a dependency file, or KM_DEPFILE_NO_MEMORY
 * (then, as for -1, *paths is NULL and *n 0). */
int km_depfile_parse(const char *text, char ***paths, size_t *n);
void km_depfile_free(char **paths, size_t n);

#endif
