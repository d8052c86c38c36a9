/* km_symbols: addresses to source lines with the toolchain's addr2line
 * (km_symbols.h). */
#include "km_symbols.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km_error.h"
#include "km_proc.h"

#define ADDR2LINE_DEFAULT "riscv64-unknown-elf-addr2line"

char *km_symbols_tool(void)
{
    const char *cc = getenv("KMRUN_CC");
    size_t n = cc ? strlen(cc) : 0;
    if (n >= 3 && strcmp(cc + n - 3, "gcc") == 0) {
        char *tool = malloc(n - 3 + sizeof "addr2line");
        if (tool) {
            memcpy(tool, cc, n - 3);
            strcpy(tool + n - 3, "addr2line");
            return tool;
        }
    }
    return strdup(ADDR2LINE_DEFAULT);
}

/* "file:line" or "file:line (discriminator N)"; "??:0" or "??:?" when
 * unknown. */
static void parse_location(const char *text, km_source *src)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    buf[strcspn(buf, " \n")] = 0;
    char *colon = strrchr(buf, ':');
    if (!colon || colon == buf)
        return;
    *colon = 0;
    char *end;
    unsigned long line = strtoul(colon + 1, &end, 10);
    if (end == colon + 1 || *end || strcmp(buf, "??") == 0)
        return;
    const char *file = strncmp(buf, "./", 2) == 0 ? buf + 2 : buf;
    snprintf(src->file, sizeof src->file, "%.*s", (int)sizeof src->file - 1, file);
    src->line = (unsigned)line;
    src->known = true;
}

/* A function line ("??" when unknown) and a place line: one frame. */
static void parse_frame(const char *function, const char *place, km_source *src)
{
    parse_location(place, src);
    if (src->known && strncmp(function, "??", 2) != 0) {
        size_t n = strcspn(function, "\n");
        if (n >= sizeof src->function)
            n = sizeof src->function - 1;
        memcpy(src->function, function, n);
        src->function[n] = 0;
        src->has_function = true;
    }
}

/* Runs addr2line -f (and -a -i for many) on argv's addresses; its
 * output, or NULL. */
static char *run_tool(char **argv)
{
    char *out = NULL;
    int status = 0;
    km_error err = {0};
    if (!argv[0] || km_proc_run(argv, NULL, &out, &status, NULL, NULL, &err) != KM_OK ||
        status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static void lookup_with(char *tool, const char *image, uint64_t address, km_source *src)
{
    char at[32];
    snprintf(at, sizeof at, "0x%" PRIx64, address);
    char *argv[] = {tool, "-f", "-e", (char *)image, at, NULL};
    char *out = run_tool(argv);
    char *nl = out ? strchr(out, '\n') : NULL;
    if (nl)
        parse_frame(out, nl + 1, src);
    free(out);
    free(tool);
}

void km_source_lookup(const char *image, uint64_t address, km_source *src)
{
    memset(src, 0, sizeof *src);
    if (image)
        lookup_with(km_symbols_tool(), image, address, src);
}

void km_host_source_lookup(const char *object, uint64_t offset, km_source *src)
{
    memset(src, 0, sizeof *src);
    /* The host's binutils: the fallback is built by the host compiler. */
    if (object)
        lookup_with(strdup("addr2line"), object, offset, src);
}

/* With -a each address's frames follow a line "0x...": the first frame
 * after it is the innermost (-i adds the frames it was inlined into). */
static void parse_many(char *out, const uint64_t *addresses, size_t n, km_source *dst)
{
    size_t i = (size_t)-1;
    bool first = false;
    char *line = out;
    while (line && *line) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (strncmp(line, "0x", 2) == 0) {
            uint64_t a = strtoull(line, NULL, 16);
            i++;
            while (i < n && addresses[i] != a)
                i++; /* never: addr2line answers each address in order */
            first = true;
        } else if (first && i < n && next) {
            char *place = next;
            next = strchr(place, '\n');
            if (next)
                *next++ = 0;
            parse_frame(line, place, &dst[i]);
            first = false;
        }
        line = next;
    }
}

#define MANY_CHUNK 512 /* addresses per addr2line: within any argv limit */

void km_source_lookup_many(const char *image, const uint64_t *addresses, size_t n,
                           km_source *out)
{
    memset(out, 0, n * sizeof *out);
    if (!image || n == 0)
        return;
    char *tool = km_symbols_tool();
    char (*at)[24] = malloc(MANY_CHUNK * sizeof *at);
    char **argv = malloc((MANY_CHUNK + 7) * sizeof *argv);
    for (size_t base = 0; tool && at && argv && base < n; base += MANY_CHUNK) {
        size_t k = n - base < MANY_CHUNK ? n - base : MANY_CHUNK, a = 0;
        argv[a++] = tool;
        argv[a++] = "-a";
        argv[a++] = "-f";
        argv[a++] = "-i";
        argv[a++] = "-e";
        argv[a++] = (char *)image;
        for (size_t j = 0; j < k; j++) {
            snprintf(at[j], sizeof at[j], "0x%" PRIx64, addresses[base + j]);
            argv[a++] = at[j];
        }
        argv[a] = NULL;
        char *text = run_tool(argv);
        if (text)
            parse_many(text, addresses + base, k, out + base);
        free(text);
    }
    free(argv);
    free(at);
    free(tool);
}
