/* cmd/exec.c: `kmrun exec [--max-instructions N] [--json]
 * [--trace-instructions[=FILE]] [--gdb PORT] FILE.elf` — a bare-metal RV64
 * ELF on one simulated hart (kmrun_exec_open): how instruction tests and
 * speed measurements run, with a commit log of every instruction in
 * Spike's format (to stderr, as Spike writes it, or to FILE) for
 * co-simulation, or under gdb-multiarch (kmrun_exec_debug).  The JSON is
 * written by hand so that 64-bit values (an exit code, an mtval) stay
 * exact. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_opts.h"

#define DEFAULT_MAX_INSTRUCTIONS 1000000000ull

/* A count: decimal digits, optionally with an exponent (1e9, 2E8). */
static bool parse_count(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return false;
    if (*end == 'e' || *end == 'E') {
        const char *p = end + 1;
        if (*p < '0' || *p > '9')
            return false;
        unsigned long long exp = strtoull(p, &end, 10);
        if (errno)
            return false;
        for (unsigned long long i = 0; i < exp && v != 0; i++) {
            if (v > UINT64_MAX / 10)
                return false;
            v *= 10;
        }
    }
    if (*end)
        return false;
    *out = v;
    return true;
}

static void print_json(const kmrun_exec_result *r)
{
    printf("{\n  \"exit_code\": ");
    if (r->end == KMRUN_EXEC_EXIT)
        printf("%" PRIu64, r->exit_code);
    else
        printf("null");
    printf(",\n  \"instructions\": %" PRIu64 ",\n  \"cycles\": %" PRIu64
           ",\n  \"end\": \"%s\",\n  \"trap\": ",
           r->instructions, r->cycles, r->end_name);
    if (r->end == KMRUN_EXEC_TRAP)
        printf("{\"mcause\": %" PRIu64 ", \"mepc\": %" PRIu64
               ", \"mtval\": %" PRIu64 ", \"name\": \"%s\"}",
               r->mcause, r->mepc, r->mtval, r->cause);
    else
        printf("null");
    printf("\n}\n");
}

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

static void print_text(const kmrun_exec_result *r, uint64_t limit)
{
    char a[48], b[48], c[32];
    kmrun_thousands(r->instructions, a, 28);
    strcat(a, " instruction");
    strcat(a, plural(r->instructions));
    kmrun_thousands(r->cycles, b, 28);
    strcat(b, " cycle");
    strcat(b, plural(r->cycles));
    switch (r->end) {
    case KMRUN_EXEC_EXIT:
        printf("exit %" PRIu64 " after %s, %s\n",
               r->exit_code, a, b);
        break;
    case KMRUN_EXEC_LIMIT:
        if (r->traps == 0) {
            printf("limit: stopped after %s (--max-instructions %s), %s\n", a,
                   kmrun_thousands(limit, c, sizeof c), b);
            break;
        }
        /* The bound counts traps too: a trap loop retires nothing. */
        char t[40];
        kmrun_thousands(r->traps, t, 28);
        strcat(t, " trap");
        strcat(t, plural(r->traps));
        printf("limit: stopped after %s and %s (--max-instructions %s counts "
               "both), %s\n", a, t, kmrun_thousands(limit, c, sizeof c), b);
        break;
    case KMRUN_EXEC_TRAP:
        printf("trap: %s (mcause %" PRIu64 ") at mepc 0x%" PRIx64
               ", mtval 0x%" PRIx64 ", with no handler installed, after %s, "
               "%s\n",
               r->cause, r->mcause,
               r->mepc, r->mtval, a, b);
        break;
    case KMRUN_EXEC_WFI:
        printf("wfi: waiting for an interrupt that cannot come, after %s, %s\n",
               a, b);
        break;
    }
}

/* kmrun_exec_trace's receiver: a line of the commit log to the trace file. */
static void trace_line(const char *text, void *ctx)
{
    FILE *f = ctx;
    fputs(text, f);
    putc('\n', f);
}

static void on_gdb_waiting(int port, const char *command, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "kmrun: waiting for GDB on port %d: %s\n", port, command);
    fflush(stderr);
}

int cmd_exec(int argc, char **argv)
{
    int gdb_port = -1;
    uint64_t max = DEFAULT_MAX_INSTRUCTIONS;
    bool json = false, trace = false;
    const char *profile = NULL; /* --profile DIR */
    const char *trace_path = NULL; /* NULL: stderr */
    cmd_opts o;
    cmd_opts_start(&o, "exec", argc, argv);
    int c;
    while ((c = cmd_opts_next(&o)) != CMD_OPTS_END) {
        switch (c) {
        case 'm':
            if (!parse_count(optarg, &max) || max == 0)
                return cmd_usage_error("exec",
                                      "--max-instructions needs a positive "
                                      "count such as 1000000 or 1e9, not %s",
                                      CMD_QUOTED(optarg));
            break;
        case 'J':
            json = true;
            break;
        case 'P':
            if (!*optarg)
                return cmd_usage_error("exec", "an empty --profile folder name");
            profile = optarg;
            break;
        case 'I':
            trace = true;
            trace_path = optarg && strcmp(optarg, "-") != 0 ? optarg : NULL;
            if (optarg && !*optarg)
                return cmd_usage_error("exec", "--trace-instructions= needs a file name");
            break;
        case 'G': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 0 || v > 65535)
                return cmd_usage_error("exec", "invalid --gdb port %s (expected 0 to 65535; 0: "
                                       "any free one)", CMD_QUOTED(optarg));
            gdb_port = (int)v;
            break;
        }
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    if (optind == argc)
        return cmd_usage_error("exec", "no ELF file given");
    if (optind + 1 < argc)
        return cmd_usage_error("exec", "unexpected argument %s", CMD_QUOTED(argv[optind + 1]));
    const char *path = argv[optind];
    if (profile && (trace || gdb_port >= 0))
        return cmd_usage_error("exec", "--profile runs the hart alone: not with %s",
                               trace ? "--trace-instructions" : "--gdb");
    if (profile && mkdir(profile, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kmrun: cannot make the profile's folder %s: %s\n", CMD_QUOTED(profile),
                strerror(errno));
        return KMRUN_SYSTEM;
    }

    kmrun_exec *x;
    kmrun_error *err = NULL;
    bool has_tohost = true;
    if (kmrun_exec_open(path, &x, &has_tohost, &err) != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        int rc = kmrun_error_status(err);
        kmrun_error_free(err);
        return rc;
    }
    if (!has_tohost)
        fprintf(stderr, "kmrun: warning: %s has no 'tohost' symbol: it can "
                "end only in a trap, in wfi or at the instruction limit\n", CMD_QUOTED(path));

    FILE *trace_file = NULL;
    if (trace) {
        trace_file = trace_path ? fopen(trace_path, "w") : stderr;
        if (!trace_file) {
            fprintf(stderr, "kmrun: cannot write the trace %s: %s\n", CMD_QUOTED(trace_path),
                    strerror(errno));
            kmrun_exec_free(x);
            return KMRUN_SYSTEM;
        }
        kmrun_exec_trace(x, trace_line, trace_file);
    }

    if (profile && kmrun_exec_profile(x, &err) != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        int rc = kmrun_error_status(err);
        kmrun_error_free(err);
        kmrun_exec_free(x);
        return rc;
    }

    kmrun_exec_result r;
    int rc = gdb_port >= 0 ? kmrun_exec_debug(x, max, gdb_port, on_gdb_waiting, NULL, &r, &err)
                           : kmrun_exec_run(x, max, &r, &err);
    if (rc == KMRUN_OK && profile)
        rc = kmrun_exec_profile_write(x, profile, &err);
    kmrun_exec_free(x);
    if (rc != KMRUN_OK) {
        fprintf(stderr, "kmrun: %s\n", kmrun_error_message(err));
        kmrun_error_free(err);
        if (trace_file && trace_file != stderr)
            fclose(trace_file);
        return rc;
    }
    if (trace_file && trace_file != stderr && fclose(trace_file) != 0) {
        fprintf(stderr, "kmrun: cannot write the trace %s: %s\n", CMD_QUOTED(trace_path),
                strerror(errno));
        return KMRUN_SYSTEM;
    }

    if (json)
        print_json(&r);
    else
        print_text(&r, max);
    return r.end == KMRUN_EXEC_EXIT && r.exit_code == 0 ? KMRUN_OK : KMRUN_FAILED;
}
