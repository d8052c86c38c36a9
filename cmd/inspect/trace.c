/* kmrun trace: a stopped run's instruction traces (its trace-cC.K.kmt
 * files) printed — as grep-friendly text, a line per instruction with its
 * core, cycle, pc, bits, disassembly, what it wrote, the memory it
 * touched and its source line; or as Spike's commit log, exactly what
 * `kmrun exec --trace-instructions` writes and co-simulation scripts
 * read.  A trace that was cut by its size bound says so on stderr. */
#include <glob.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_opts.h"

/* The order of --format's choices in the table (cmd/cmd.c). */
enum format { FORMAT_TEXT, FORMAT_SPIKE };

typedef struct trace_wants {
    enum format format;
    bool has_core;
    unsigned cluster, core;
    bool has_grep;
    regex_t grep;
    uint64_t from, to; /* cycles, both included */
} trace_wants;

static int parse_cycle(const char *option, const char *text, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 0);
    if (text[0] < '0' || text[0] > '9' || *end)
        return cmd_usage_error("trace", "invalid --%s %s (expected a cycle, such as 12000)",
                               option, CMD_QUOTED(text));
    *out = v;
    return KMRUN_OK;
}

/* A distinct pc's source line and disassembly. */
typedef struct pc_info {
    uint64_t pc;
    kmrun_source src;
} pc_info;

static int by_pc(const void *a, const void *b)
{
    uint64_t x = ((const pc_info *)a)->pc, y = ((const pc_info *)b)->pc;
    return x < y ? -1 : x > y;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every distinct pc of the trace at `path` in [from, to], with its source
 * line: one addr2line over them all. */
static int sources_of(const char *path, const trace_wants *w, const char *image, pc_info **out,
                      size_t *nout)
{
    kmrun_trace *t = NULL;
    kmrun_error *e = NULL;
    uint64_t *pcs = NULL;
    size_t n = 0, cap = 0;
    int rc = kmrun_trace_open(path, &t, &e);
    for (bool done = false; rc == KMRUN_OK;) {
        kmrun_trace_insn i;
        rc = kmrun_trace_next(t, &i, &done, &e);
        if (rc != KMRUN_OK || done)
            break;
        if (i.cycle < w->from || i.cycle > w->to)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            uint64_t *more = realloc(pcs, cap * sizeof *more);
            if (!more)
                break;
            pcs = more;
        }
        pcs[n++] = i.pc;
        if (n == cap) { /* keep them few: distinct ones */
            qsort(pcs, n, sizeof *pcs, by_u64);
            size_t k = 0;
            for (size_t j = 0; j < n; j++)
                if (!k || pcs[k - 1] != pcs[j])
                    pcs[k++] = pcs[j];
            n = k;
        }
    }
    kmrun_trace_free(t);
    if (rc != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(e));
        kmrun_error_free(e);
        free(pcs);
        return rc;
    }
    qsort(pcs, n, sizeof *pcs, by_u64);
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (!k || pcs[k - 1] != pcs[j])
            pcs[k++] = pcs[j];
    n = k;
    kmrun_source *src = calloc(n ? n : 1, sizeof *src);
    pc_info *info = calloc(n ? n : 1, sizeof *info);
    if (src && info) {
        kmrun_source_lines(image, pcs, n, src);
        for (size_t j = 0; j < n; j++)
            info[j] = (pc_info){pcs[j], src[j]};
    }
    free(src);
    free(pcs);
    *out = info;
    *nout = info ? n : 0;
    return KMRUN_OK;
}

/* The file's last part: "parallel.c" of "/a/b/parallel.c". */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static const char *csr_name(unsigned csr)
{
    switch (csr) {
    case 0x001: return "fflags";
    case 0x002: return "frm";
    case 0x003: return "fcsr";
    case 0x008: return "vstart";
    case 0x009: return "vxsat";
    case 0x00a: return "vxrm";
    case 0x00f: return "vcsr";
    case 0x300: return "mstatus";
    case 0x301: return "misa";
    case 0x304: return "mie";
    case 0x305: return "mtvec";
    case 0x344: return "mip";
    case 0xb00: return "mcycle";
    case 0xb02: return "minstret";
    case 0xc20: return "vl";
    case 0xc21: return "vtype";
    case 0xc22: return "vlenb";
    case 0x340: return "mscratch";
    case 0x341: return "mepc";
    case 0x342: return "mcause";
    case 0x343: return "mtval";
    default: return NULL;
    }
}

/* The instruction as a text line (no newline) into buf. */
static void text_line(const kmrun_trace_insn *i, unsigned cluster, unsigned core,
                      const kmrun_disassembly *dis, const pc_info *info, size_t ninfo, char *buf,
                      size_t n)
{
    size_t at = 0;
#define PUT(...)                                                                               \
    do {                                                                                       \
        int k_ = snprintf(buf + at, at < n ? n - at : 0, __VA_ARGS__);                         \
        if (k_ > 0)                                                                            \
            at += (size_t)k_;                                                                  \
    } while (0)
    PUT("%u.%u cycle=%" PRIu64 " pc=0x%" PRIx64 " bits=0x%0*" PRIx32, cluster, core, i->cycle,
        i->pc, i->len == 2 ? 4 : 8, i->bits);
    const char *text = kmrun_disassembly_at(dis, i->pc);
    if (text)
        PUT(" \"%s\"", text);
    for (unsigned k = 0; k < i->nwrites; k++) {
        const kmrun_trace_write *w = &i->writes[k];
        const char *name = w->file == 'c' ? csr_name(w->num) : NULL;
        if (name)
            PUT(" %s=0x%" PRIx64, name, w->value);
        else if (w->file == 'c')
            PUT(" csr%#x=0x%" PRIx64, w->num, w->value);
        else
            PUT(" %c%u=0x%" PRIx64, w->file, w->num, w->value);
    }
    if (i->load)
        PUT(" load=0x%" PRIx64, i->load_addr);
    if (i->store)
        PUT(" store=0x%" PRIx64 ":0x%0*" PRIx64, i->store_addr, (int)i->store_size * 2,
            i->store_value);
    pc_info key = {.pc = i->pc};
    const pc_info *p = ninfo ? bsearch(&key, info, ninfo, sizeof *info, by_pc) : NULL;
    if (p && p->src.known) {
        PUT(" at=%s:%u", base_name(p->src.file), p->src.line);
        if (p->src.function[0])
            PUT(" fn=%s", p->src.function);
    }
#undef PUT
}

/* One trace file printed as w asks. */
static int print_trace(const char *path, const trace_wants *w)
{
    kmrun_trace *t = NULL;
    kmrun_error *e = NULL;
    if (kmrun_trace_open(path, &t, &e) != KMRUN_OK) {
        int rc = kmrun_error_status(e);
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(e));
        kmrun_error_free(e);
        return rc;
    }
    kmrun_trace_header h;
    kmrun_trace_header_get(t, &h);
    if (w->has_core && (h.cluster != w->cluster || h.core != w->core)) {
        kmrun_trace_free(t);
        return KMRUN_OK;
    }
    pc_info *info = NULL;
    size_t ninfo = 0;
    kmrun_disassembly *dis = NULL;
    int rc = KMRUN_OK;
    if (w->format == FORMAT_TEXT) {
        char n1[32], n2[32];
        printf("# core %u.%u: %s of %s instructions retired recorded, image %s", h.cluster,
               h.core, kmrun_thousands(h.recorded, n1, sizeof n1),
               kmrun_thousands(h.seen, n2, sizeof n2), CMD_QUOTED(h.image));
        for (size_t k = 0; k < h.nranges; k++)
            printf("%s0x%" PRIx64 "-0x%" PRIx64, k ? "," : ", pc in ", h.ranges[2 * k],
                   h.ranges[2 * k + 1]);
        printf("\n");
        rc = sources_of(path, w, h.image, &info, &ninfo);
        dis = kmrun_disassemble(h.image);
    }
    char line[1024];
    for (bool done = false; rc == KMRUN_OK;) {
        kmrun_trace_insn i;
        if (kmrun_trace_next(t, &i, &done, &e) != KMRUN_OK) {
            rc = kmrun_error_status(e);
            fprintf(stderr, "kmrun: %s\n", kmrun_error_message(e));
            kmrun_error_free(e);
            break;
        }
        if (done)
            break;
        if (i.cycle < w->from || i.cycle > w->to)
            continue;
        if (w->format == FORMAT_SPIKE)
            kmrun_trace_spike_line(&i, h.core, line, sizeof line);
        else
            text_line(&i, h.cluster, h.core, dis, info, ninfo, line, sizeof line);
        if (!w->has_grep || regexec(&w->grep, line, 0, NULL, 0) == 0)
            puts(line);
    }
    if (rc == KMRUN_OK && h.cut) {
        char limit[32];
        fprintf(stderr, "kmrun: warning: trace of %u.%u cut at %llu instructions (limit %s)\n",
                h.cluster, h.core, (unsigned long long)h.recorded,
                kmrun_format_size(h.limit, limit, sizeof limit));
    }
    kmrun_disassembly_free(dis);
    free(info);
    kmrun_trace_free(t);
    return rc;
}

int cmd_trace(int argc, char **argv)
{
    const char *run_dir = NULL;
    trace_wants w = {.format = FORMAT_TEXT, .to = UINT64_MAX};
    int c, rc = KMRUN_OK;
    cmd_opts opts;
    cmd_opts_start(&opts, "trace", argc, argv);
    while (rc == KMRUN_OK && (c = cmd_opts_next(&opts)) != CMD_OPTS_END) {
        switch (c) {
        case 'R':
            run_dir = optarg;
            break;
        case 'c': {
            char tail;
            if (optarg[0] < '0' || optarg[0] > '9' ||
                sscanf(optarg, "%u.%u%c", &w.cluster, &w.core, &tail) != 2)
                rc = cmd_usage_error("trace", "invalid --core %s (expected CLUSTER.CORE, such as "
                                              "1.0)",
                                     CMD_QUOTED(optarg));
            w.has_core = true;
            break;
        }
        case 'g': {
            if (w.has_grep)
                regfree(&w.grep);
            int bad = regcomp(&w.grep, optarg, REG_EXTENDED | REG_NOSUB);
            if (bad) {
                char why[256];
                regerror(bad, &w.grep, why, sizeof why);
                rc = cmd_usage_error("trace", "invalid --grep %s: %s", CMD_QUOTED(optarg), why);
            } else {
                w.has_grep = true;
            }
            break;
        }
        case 'f':
            rc = parse_cycle("from", optarg, &w.from);
            break;
        case 't':
            rc = parse_cycle("to", optarg, &w.to);
            break;
        case 'F': /* the table's order: text|spike */
            w.format = (enum format)opts.choice;
            break;
        default:
            rc = KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    if (rc == KMRUN_OK && optind + 1 < argc)
        rc = cmd_usage_error("trace", "expected at most one run");
    char *dir = NULL;
    kmrun_error *err = NULL;
    if (rc == KMRUN_OK &&
        kmrun_run_folder_find(run_dir, optind < argc ? argv[optind] : NULL, &dir, &err) !=
            KMRUN_OK) {
        rc = kmrun_error_status(err);
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        kmrun_error_free(err);
    }
    glob_t g = {0};
    if (rc == KMRUN_OK) {
        char pattern[4096];
        snprintf(pattern, sizeof pattern, "%s/trace-c*.kmt", dir);
        if (glob(pattern, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
            fprintf(stderr, "kmrun: the run %s has no instruction trace (run it with "
                            "--trace-cores or --trace-instructions)\n",
                    CMD_QUOTED(dir));
            rc = KMRUN_USAGE;
        }
    }
    if (rc == KMRUN_OK && w.has_core) {
        char want[4096];
        snprintf(want, sizeof want, "%s/trace-c%u.%u.kmt", dir, w.cluster, w.core);
        bool there = false;
        for (size_t i = 0; i < g.gl_pathc; i++)
            there |= strcmp(g.gl_pathv[i], want) == 0;
        if (!there) {
            fprintf(stderr, "kmrun: the run %s has no trace of core %u.%u\n", CMD_QUOTED(dir),
                    w.cluster, w.core);
            rc = KMRUN_USAGE;
        }
    }
    for (size_t i = 0; rc == KMRUN_OK && i < g.gl_pathc; i++)
        rc = print_trace(g.gl_pathv[i], &w);
    globfree(&g);
    if (w.has_grep)
        regfree(&w.grep);
    free(dir);
    return rc;
}
