/* km_depfile: the prerequisites of a Make-syntax dependency file, as
 * `gcc -MD` writes it (escaped spaces, `$$`, backslash-newline). */
#ifndef KM_DEPFILE_H
#define KM_DEPFILE_H

#include <stddef.h>

/* Fills *paths (allocated array of allocated strings) with every
 * prerequisite of every rule, in order, the targets left out.  Returns 0,
 * or -1 when the text is not a dependency file. */
int km_depfile_parse(const char *text, char ***paths, size_t *n);
void km_depfile_free(char **paths, size_t n);

#endif
