/* km_symbols: addresses to source lines with the toolchain's addr2line
 * (km_symbols.h). */
#include "km_symbols.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_error.h"
#include "km_proc.h"
#include "ks_text.h"

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
        }
        return tool; /* NULL short of memory: not another toolchain's */
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

/* ---- the memo ------------------------------------------------------------------ */

/* A memo of what addr2line said about an image's addresses, kept beside
 * an image that never changes (one in the build cache): a line a header
 * naming the tool, then one line an address, "hex \t line \t function
 * \t file" (line 0: unknown), sorted by address.  Best effort: a memo
 * that cannot be read is not used, one that cannot be written is not
 * kept.  Read as one text, its rows pointing into it. */
typedef struct memo_row {
    uint64_t address;
    unsigned line;
    const char *function, *file;
} memo_row;

typedef struct memo {
    char *text;
    memo_row *rows;
    size_t n;
} memo;

static int by_address(const void *a, const void *b)
{
    uint64_t x = ((const memo_row *)a)->address, y = ((const memo_row *)b)->address;
    return (x > y) - (x < y);
}

static char *memo_header(const char *tool)
{
    return ks_strf("kmrun addr2line memo 1\t%s\n", tool);
}

/* The rows of the memo's text (split in place), or false. */
static bool memo_parse(memo *m, const char *header)
{
    size_t hl = strlen(header), lines = 0;
    if (strncmp(m->text, header, hl) != 0)
        return false;
    for (const char *c = m->text + hl; *c; c++)
        lines += *c == '\n';
    m->rows = malloc((lines ? lines : 1) * sizeof *m->rows);
    char *at = m->text + hl;
    while (m->rows && *at) {
        char *f[4];
        for (int i = 0; i < 4; i++) {
            f[i] = at;
            at += strcspn(at, i < 3 ? "\t\n" : "\n");
            if (*at != (i < 3 ? '\t' : '\n'))
                return false; /* cut short */
            *at++ = 0;
        }
        memo_row *r = &m->rows[m->n++];
        r->address = strtoull(f[0], NULL, 16);
        r->line = (unsigned)strtoul(f[1], NULL, 10);
        r->function = f[2];
        r->file = f[3];
        if (m->n > 1 && r[-1].address >= r->address)
            return false; /* not sorted: not the memo this writes */
    }
    return m->rows != NULL;
}

static void memo_read(memo *m, const char *path, const char *header)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    size_t n = 0;
    char buf[65536];
    bool ok = true;
    for (size_t r; ok && (r = fread(buf, 1, sizeof buf, f)) > 0; n += r) {
        char *more = realloc(m->text, n + r + 1);
        ok = more != NULL;
        if (ok) {
            m->text = more;
            memcpy(m->text + n, buf, r);
        }
    }
    fclose(f);
    if (m->text)
        m->text[n] = 0;
    if (!ok || !m->text || !memo_parse(m, header)) {
        free(m->text);
        free(m->rows);
        *m = (memo){0}; /* damaged, or another tool's: not used, written anew */
    }
}

static void memo_answer(const memo_row *r, km_source *src)
{
    memset(src, 0, sizeof *src);
    src->known = r->line != 0;
    src->line = r->line;
    snprintf(src->file, sizeof src->file, "%s", r->file);
    snprintf(src->function, sizeof src->function, "%s", r->function);
    src->has_function = src->function[0] != 0;
}

static bool memo_writable(const km_source *s)
{
    return !strpbrk(s->function, "\t\n") && !strpbrk(s->file, "\t\n");
}

static int put_row(FILE *f, uint64_t address, unsigned line, const char *function,
                   const char *file)
{
    return fprintf(f, "%" PRIx64 "\t%u\t%s\t%s\n", address, line, function, file);
}

/* The memo's rows and the new answers (fresh[i] for ask[i], ask sorted),
 * in address order, written beside the memo and renamed over it. */
static void memo_write(const memo *m, const char *path, const char *header, const uint64_t *ask,
                       const km_source *fresh, size_t nask)
{
    char *tmp = ks_strf("%s.tmp.XXXXXX", path);
    if (!tmp)
        return; /* (the cache's name for a temporary it may sweep) */
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    if (fd >= 0)
        fchmod(fd, 0644);
    bool ok = f && fputs(header, f) >= 0;
    size_t i = 0, j = 0;
    while (ok && (i < m->n || j < nask)) {
        if (j == nask || (i < m->n && m->rows[i].address < ask[j])) {
            const memo_row *r = &m->rows[i++];
            ok = put_row(f, r->address, r->line, r->function, r->file) >= 0;
        } else {
            const km_source *s = &fresh[j];
            if (memo_writable(s))
                ok = put_row(f, ask[j], s->known ? s->line : 0, s->has_function ? s->function : "",
                             s->known ? s->file : "") >= 0;
            j++;
        }
    }
    if (f && fclose(f) != 0)
        ok = false;
    if (fd >= 0 && (!ok || rename(tmp, path) != 0))
        unlink(tmp);
    free(tmp);
}

/* addr2line over the n addresses, into out. */
static void lookup_tool(const char *tool, const char *image, const uint64_t *addresses, size_t n,
                        km_source *out)
{
    /* One addr2line for them all, the addresses on its stdin: it reads
     * the image's DWARF once (most of its time). */
    char *input = malloc(n * 20);
    size_t len = 0;
    for (size_t i = 0; input && i < n; i++)
        len += (size_t)snprintf(input + len, 20, "0x%" PRIx64 "\n", addresses[i]);
    char *argv[] = {(char *)tool, "-a", "-f", "-i", "-e", (char *)image, NULL};
    char *text = NULL;
    int status = 0;
    km_error err = {0};
    if (input && km_proc_run_input(argv, input, len, &text, &status, &err) == KM_OK &&
        status == 0)
        parse_many(text, addresses, n, out);
    free(text);
    free(input);
}

int km_address_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

size_t km_addresses_unique(uint64_t *a, size_t n)
{
    if (n == 0)
        return 0;
    qsort(a, n, sizeof *a, km_address_cmp);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || a[u - 1] != a[i])
            a[u++] = a[i];
    return u;
}

void km_source_lookup_many(const char *image, const char *memo_path, const uint64_t *addresses,
                           size_t n, km_source *out)
{
    memset(out, 0, n * sizeof *out);
    if (!image || n == 0)
        return;
    char *tool = km_symbols_tool();
    char *header = tool && memo_path ? memo_header(tool) : NULL;
    memo m = {0};
    if (header)
        memo_read(&m, memo_path, header);
    /* what the memo does not hold, asked of addr2line (once each) */
    uint64_t *ask = malloc(n * sizeof *ask);
    size_t nask = 0;
    for (size_t i = 0; ask && i < n; i++) {
        memo_row key = {.address = addresses[i]};
        const memo_row *hit =
            m.n ? bsearch(&key, m.rows, m.n, sizeof *m.rows, by_address) : NULL;
        if (hit)
            memo_answer(hit, &out[i]);
        else
            ask[nask++] = addresses[i];
    }
    if (ask)
        nask = km_addresses_unique(ask, nask);
    km_source *got = nask ? calloc(nask, sizeof *got) : NULL;
    if (tool && got) {
        lookup_tool(tool, image, ask, nask, got);
        for (size_t i = 0; i < n; i++) {
            const uint64_t *at = bsearch(&addresses[i], ask, nask, sizeof *ask, km_address_cmp);
            if (at)
                out[i] = got[at - ask];
        }
        if (header)
            memo_write(&m, memo_path, header, ask, got, nask);
    }
    free(got);
    free(ask);
    free(m.rows);
    free(m.text);
    free(header);
    free(tool);
}
