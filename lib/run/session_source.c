/* session_source: the source line of an address in a thread image, for a
 * trap's mepc and a stuck core's pc.  The cached image keeps its DWARF
 * (built with -g), so the toolchain's own addr2line answers; kmrun does
 * not read DWARF itself.  The tool is the one beside the compiler
 * ($KMRUN_CC with "gcc" replaced by "addr2line"), else
 * riscv64-unknown-elf-addr2line.  When it cannot say (no tool, no line
 * information) the source is unknown, which the JSON shows as null: a
 * missing line never fails a run. */
#include "session_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km_proc.h"

#define ADDR2LINE_DEFAULT "riscv64-unknown-elf-addr2line"

static char *addr2line_tool(void)
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

static void lookup_with(char *tool, const char *image, uint64_t address, km_source *src);

void km_source_lookup(const char *image, uint64_t address, km_source *src)
{
    memset(src, 0, sizeof *src);
    if (!image)
        return;
    lookup_with(addr2line_tool(), image, address, src);
}

void km_host_source_lookup(const char *object, uint64_t offset, km_source *src)
{
    memset(src, 0, sizeof *src);
    if (!object)
        return;
    /* The host's binutils: the fallback is built by the host compiler. */
    lookup_with(strdup("addr2line"), object, offset, src);
}

static void lookup_with(char *tool, const char *image, uint64_t address, km_source *src)
{
    char at[32];
    snprintf(at, sizeof at, "0x%" PRIx64, address);
    char *argv[] = {tool, "-f", "-e", (char *)image, at, NULL};
    char *out = NULL;
    int status = 0;
    km_error err = {0};
    if (tool && km_proc_run(argv, NULL, &out, &status, NULL, NULL, &err) == KM_OK &&
        status == 0 && out) {
        /* Two lines: the function ("??" when unknown), then the place. */
        char *nl = strchr(out, '\n');
        if (nl) {
            *nl = 0;
            parse_location(nl + 1, src);
            if (src->known && strcmp(out, "??") != 0) {
                src->has_function = true;
                snprintf(src->function, sizeof src->function, "%.*s", (int)sizeof src->function - 1, out);
            }
        }
    }
    free(out);
    free(tool);
}
