/* fuzz_file: both readers take a path (they refuse what is not a regular
 * file), so each input is written to one file of a private folder first. */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The path of a file holding data[0..size), made in a folder of its own
 * the first time; NULL when it cannot be written. */
static const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[4096];
    if (!path[0]) {
        char dir[] = "/tmp/kmrun-fuzz.XXXXXX";
        if (!mkdtemp(dir))
            return NULL;
        snprintf(path, sizeof path, "%s/%s", dir, name);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    size_t put = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || put != size)
        return NULL;
    return path;
}

#endif
