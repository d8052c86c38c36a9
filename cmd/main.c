/* cmd/main.c: kmrun's entry point, the command table and the helpers every
 * command uses to report a bad command line (cmd.h). */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_diag.h"
#include "cmd_stderr.h"

const cmd_command_entry cmd_commands[] = {
    {
        "build", cmd_build,
        "kmrun build [options] program.yaml",
        "Build a program's threads and handlers into the cache",
        "Builds every thread of the program into an X280 image with\n"
        "riscv64-unknown-elf-gcc and the kmx runtime, and the program's Tensix\n"
        "handlers into host shared objects for the simulated grid.  The results\n"
        "go to the content-addressed cache (see 'kmrun help cache'); a program\n"
        "that has not changed builds nothing.  An image is checked before it is\n"
        "cached: at most 126976 bytes of loadable content, no .bss or COMMON,\n"
        "no libc.\n"
        "\n"
        "Prints one JSON document on stdout: per thread its image's SHA-256,\n"
        "size (of 126976 bytes), sections, cache hit or miss and cached path;\n"
        "then the kernels'.  A summary goes to stderr, and Ninja's progress too\n"
        "when stderr is a terminal.  KMRUN_CC and KMRUN_HOST_CC pick the\n"
        "compilers.\n"
        "\n"
        "  -j, --jobs N   run at most N compiles at once (default: Ninja's)\n"
        "  -q, --quiet    no summary and no progress on stderr\n"
        "      --host     also each thread's host fallback: its sources built with\n"
        "                 the host compiler against kmx/host (KMX_HOST_FALLBACK\n"
        "                 defined), the object 'kmrun run --thread host' loads;\n"
        "                 in the JSON as each thread's \"host\"\n"
        "      --compile-commands\n"
        "                 also write compile_commands.json beside the manifest (for\n"
        "                 clangd, clang-tidy, editors): each thread, kernel and (with\n"
        "                 --host) fallback source's compile as the build runs it, the\n"
        "                 real compiler, flags and include folders; in the JSON as\n"
        "                 \"compile_commands\"\n"
        "\n"
        "Exit status: 0 built, 2 usage or manifest error, 3 a compile error or\n"
        "a rejected image, 4 a missing tool, an unusable cache, or a full disk,\n"
        "a quota, a file size or memory limit that stopped a compile or link.\n",
    },
    {
        "run", cmd_run,
        "kmrun run [--thread sim|host] [--check-handover] [--trace-instructions C.K] [--gdb PORT] [--timeline FILE] [--timeout S] [--wall-timeout S] [--progress] [--run-dir DIR] [-j N] program.yaml",
        "Build a program and run its threads on the simulated card",
        "Builds the program through the cache (quietly: only the compilers'\n"
        "messages), loads it onto the simulated Blackhole (regions, images,\n"
        "argument blocks), runs every thread until it ends, and prints one JSON\n"
        "document on stdout: per thread ran, state, error, code, words, where,\n"
        "where_microseconds, microseconds and, for a trap or a stuck core, the\n"
        "core, its pc or mepc and the source line; the modeled device time, the\n"
        "instructions executed and where every region is.  States: returned,\n"
        "late, stopped, stuck, trapped, args, bank, region, failed.  Times are\n"
        "modeled device time, so the same program prints the same JSON every\n"
        "run, but for run, run_dir and wall_seconds.\n"
        "\n"
        "After the stop the run folder holds result.json (the same JSON) and\n"
        "every region's bytes as DRAM holds them; 'kmrun read-region' reads\n"
        "them.\n"
        "\n"
        "      --timeout S        modeled seconds before threads still running are\n"
        "                         asked to stop (default: the largest deadline\n"
        "                         + 1 s, or 10 s); one that has not ended 1 s\n"
        "                         after the stop is stuck\n"
        "      --wall-timeout S   give up after S seconds of real time (exit 4)\n"
        "      --progress         each new progress marker as a JSON line on\n"
        "                         stderr: {\"cluster\":1,\"where\":2,\"microseconds\":12.5}\n"
        "      --run-dir DIR      where run folders go (default: $KMRUN_RUNS, else\n"
        "                         .kmrun/runs)\n"
        "  -j, --jobs N           run at most N compiles at once\n"
        "      --thread host      run each thread's host fallback (its sources\n"
        "                         built for the host with kmx/host) beside the\n"
        "                         simulated grid and dispatcher, instead of the\n"
        "                         simulated X280 clusters; times are the host's\n"
        "                         (\"times\": \"host\"), timeouts real seconds\n"
        "      --check-handover   the hand-over checker (as the manifest's\n"
        "                         check_handover: true): each read of stale bytes\n"
        "                         and write-back over newer ones that a missing\n"
        "                         kmx_invalidate or kmx_flush causes, on stderr\n"
        "                         as file:line: diagnostics and in the JSON's\n"
        "                         handover list; any makes the exit status 1.\n"
        "                         The host fallback does not check (a note says\n"
        "                         so)\n"
        "      --trace-instructions C.K\n"
        "                         core K of cluster C's instructions into the run\n"
        "                         folder as trace-cC.K.log, in Spike's commit-log\n"
        "                         format (the same results, slower)\n"
        "      --gdb PORT         wait, halted, for gdb-multiarch on 127.0.0.1:PORT\n"
        "                         (0: any free one; stderr gives the command\n"
        "                         line): every X280 core a thread, modeled time\n"
        "                         still while halted, the same JSON as without\n"
        "      --timeline FILE    the run's timeline in FILE, in the Chrome Trace\n"
        "                         Event format (ui.perfetto.dev, chrome://tracing):\n"
        "                         each X280 core's functions and waits, each\n"
        "                         Tensix core's handlers, the dispatcher's passes,\n"
        "                         each command's arrows, in modeled microseconds;\n"
        "                         the run is the same as without.  Not with\n"
        "                         --thread host (exit 2)\n"
        "\n"
        "Exit status: 0 every thread returned, 1 a thread did not or the\n"
        "hand-over checker found something, 2 usage or\n"
        "manifest error, 3 a compile error or a rejected image, 4 a system error\n"
        "(including the wall timeout).\n",
    },
    {
        "check", cmd_check,
        "kmrun check [--json] [--check-handover] [--timeout S] [--run-dir DIR] program.yaml",
        "Run a program on the simulated card and on the host, and compare",
        "Runs the program as 'kmrun run' does, then again with each thread's\n"
        "host fallback ('kmrun run --thread host'), keeping both run folders,\n"
        "and compares what they left: per thread the state, the library error,\n"
        "the code and every result word; per host-fed command its event and\n"
        "result word; and every region copy byte for byte.\n"
        "Times are not compared.  Agreement prints one line; a difference\n"
        "prints each one: a result field with both values, a region with its\n"
        "first differing offset, how many bytes differ and the 16 bytes there\n"
        "on each side.  --json prints one JSON document instead\n"
        "(schemas/check.schema.json).  --check-handover runs the simulated\n"
        "card's run with the hand-over checker (kmrun run --check-handover):\n"
        "its findings go to stderr, and any makes the exit status 1.\n"
        "\n"
        "Exit status: 0 they agree, 1 they differ or the checker found\n"
        "something, 2 usage or manifest error\n"
        "(or a program with no thread), 3 a compile error, 4 a system error.\n",
    },
    {
        "test", cmd_test,
        "kmrun test [--backend sim|host] [--junit FILE] [--tap] [--shard I/N] [-j N] [--wall-timeout S] [--run-dir DIR] [PATH...]",
        "Run programs and hold each run to its manifest's expect:",
        "Finds the programs under each PATH (default: the current folder): a\n"
        "PATH that is a file is a manifest; in a folder, at any depth, every\n"
        "file named program.yaml and every other *.yaml with a line that begins\n"
        "'expect:', leaving out names that begin with a dot; in the order of\n"
        "the PATHs, each one's sorted bytewise.  Each program runs on each\n"
        "backend its expect: names (backends:, default sim), as\n"
        "'kmrun run --run-dir DIR --thread B' in a process of its own, and the\n"
        "run is compared with its expect: (see 'man kmrun-program', Expect):\n"
        "each thread's state, code, result words and prints, each region's\n"
        "SHA-256 or first bytes, each command's event and result word; every\n"
        "thread must return and every command be done unless expect: names\n"
        "another state or event, and the card must find nothing.  A program\n"
        "without expect: is skipped.  Times are never compared.\n"
        "\n"
        "A line per program and backend as each ends:\n"
        "\n"
        "    ok   programs/01_hello/program.yaml [sim] 0.41 s\n"
        "    FAIL programs/03_ring/program.yaml [host] 0.88 s\n"
        "         programs/03_ring/program.yaml:30:14: thread on cluster 1: expected ...\n"
        "\n"
        "a failure's first difference (file:line:col of the expectation, what\n"
        "was expected, what came) and its run folder under it; then\n"
        "'N passed, N failed' (and ', N skipped').\n"
        "\n"
        "      --backend B        run every program on B (sim or host) alone,\n"
        "                         whatever its backends\n"
        "      --junit FILE       also a JUnit XML report in FILE, written whole:\n"
        "                         a testcase per program and backend, each\n"
        "                         failure's differences and run folder\n"
        "      --tap              TAP version 13 on stdout instead of the lines\n"
        "      --shard I/N        only the programs i (from 0, in the order above)\n"
        "                         with i mod N = I - 1: the N shards are disjoint\n"
        "                         and together run every program\n"
        "  -j, --jobs N           N runs at once (default 1); the lines come as\n"
        "                         the runs end\n"
        "      --wall-timeout S   kill a run (its build included) after S seconds\n"
        "                         of real time (default 300)\n"
        "      --run-dir DIR      where the runs' folders go (default: $KMRUN_RUNS,\n"
        "                         else .kmrun/runs)\n"
        "\n"
        "Exit status: 0 every run held to its expect: (skips aside), 1 one did\n"
        "not (a difference, a manifest error, a failed build, a crash or a\n"
        "timeout of its run), 2 usage error (or no program under the PATHs),\n"
        "4 a run could not be started or the JUnit report not written.\n",
    },
    {
        "new", cmd_new,
        "kmrun new [--template thread|host-fed|ports] NAME",
        "Make a folder with a program to start from",
        "Makes the folder NAME holding a program made from a template of\n"
        "kmrun's: program.yaml (named after NAME's last part, with its\n"
        "expect:), its sources and a README.md that says what they do.\n"
        "'kmrun run NAME/program.yaml' and 'kmrun test NAME' pass as it is.\n"
        "The folder is made whole or not at all (under a temporary name beside\n"
        "it, then renamed); a NAME that exists is refused and left as it is.\n"
        "\n"
        "      --template T   thread (the default): one thread on cluster 1\n"
        "                     that fills a region on its four cores, prints and\n"
        "                     returns a result word, on the simulated card and\n"
        "                     the host; host-fed: no thread, commands fed to the\n"
        "                     Tensix grid and a handler of its own; ports: a\n"
        "                     thread serving Tensix cores through X280 ports\n"
        "\n"
        "Exit status: 0 made, 2 usage error, a NAME that exists, a name that is\n"
        "not a program's or an unknown template, 4 the folder cannot be made.\n",
    },
    {
        "validate", cmd_validate,
        "kmrun validate [--quiet] [--json] program.yaml...",
        "Check program manifests without building them",
        "Loads each manifest and checks it as 'kmrun build' would, without\n"
        "compiling anything.  Every error is printed on stderr as\n"
        "file:line:col: with the manifest's line and a caret under the column;\n"
        "every file given is checked.  For a valid manifest it prints a line\n"
        "such as\n"
        "\n"
        "    program.yaml: ok (program 'hello': 1 thread on cluster 1, 2 regions, 0 commands)\n"
        "\n"
        "  -q, --quiet   print nothing for a valid manifest\n"
        "      --json    print the program model as JSON instead: one object, or an\n"
        "                array of them for several manifests; printed only when\n"
        "                every manifest is valid\n"
        "\n"
        "Exit status: 0 all valid, 2 a manifest has errors or a usage error,\n"
        "4 a manifest could not be read.\n",
    },
    {
        "cache", cmd_cache,
        "kmrun cache (stats [--json] | path | gc --max-size SIZE | clear)",
        "Show, trim or empty the build cache",
        "  stats [--json]       print the entries, their total size, and the\n"
        "                       cache's hit and miss counts\n"
        "  path                 print the cache's folder\n"
        "  gc --max-size SIZE   remove entries, least recently used first, until\n"
        "                       the cache holds at most SIZE (such as 512MiB, 2GiB)\n"
        "  clear                remove every entry\n"
        "\n"
        "The cache is $KMRUN_CACHE if set, else $XDG_CACHE_HOME/kmrun, else\n"
        "~/.cache/kmrun.  Entries are written whole and renamed into place, so\n"
        "a build running at the same time never sees a torn one.\n"
        "\n"
        "Exit status: 0 done, 2 usage error, 4 an unusable cache.\n",
    },
    {
        "read-region", cmd_read_region,
        "kmrun read-region [--run RUN] [--run-dir DIR] [--cluster N] [--format raw|hex|u32|json]\n"
        "                  [--offset N] [--length N] NAME",
        "Print a region's bytes from a run that has stopped",
        "Reads region NAME as the run left it after its stop: the bytes each\n"
        "thread's cluster held in its bank, from the run folder that 'kmrun run'\n"
        "wrote.\n"
        "\n"
        "  --run RUN         a run id, or a run folder (default: the latest run)\n"
        "  --run-dir DIR     where runs are (default: $KMRUN_RUNS, else .kmrun/runs)\n"
        "  --cluster N       whose copy, 1 to 3 (needed when several clusters have one)\n"
        "  --format F        raw bytes, a hex dump (the default), u32 (one unsigned\n"
        "                    word a line) or json\n"
        "  --offset N        start N bytes in (KiB, MiB allowed)\n"
        "  --length N        read N bytes (default: to the end)\n"
        "\n"
        "Exit status: 0 printed, 2 usage error or an unknown run, region or\n"
        "cluster, 4 a damaged or unreadable run.\n",
    },
    {
        "exec", cmd_exec,
        "kmrun exec [--max-instructions N] [--json] [--trace-instructions[=FILE]]\n"
        "                  [--gdb PORT] FILE.elf",
        "Run a bare-metal RV64 ELF on one simulated hart",
        "Runs a linked RV64 ELF (such as an instruction test) on one simulated\n"
        "X280 hart in machine mode, with no cluster and no kmx runtime.  Each\n"
        "loadable segment is RAM where it asks, bytes past the file's zeroed,\n"
        "whatever its flags (as Spike and QEMU load it: the riscv-tests have a\n"
        "segment with none); a 64 KiB stack sits just below the lowest\n"
        "segment, with sp at its top; the run starts at the entry point with\n"
        "every other register zero and the FPU off (mstatus.FS: turn it on to\n"
        "use F and D).\n"
        "\n"
        "The program ends by storing to its 64-bit 'tohost' symbol, as under\n"
        "Spike: a value v with bit 0 set exits with code v >> 1 (riscv-tests\n"
        "write 1 to pass and (n << 1) | 1 when test n fails).  A run also ends\n"
        "at the instruction limit, in wfi, or at a trap taken before the\n"
        "program installed a handler (until it sets mtvec, mtvec points at a\n"
        "catch point just past the code): that trap is reported.  With a\n"
        "handler installed, traps go to it.  Loads and stores that nothing\n"
        "answers are access faults.\n"
        "\n"
        "Prints how it ended; with --json, one JSON object on stdout:\n"
        "\n"
        "    {\"exit_code\": 0, \"instructions\": N, \"cycles\": N,\n"
        "     \"end\": \"exit\", \"trap\": null}\n"
        "\n"
        "end is exit, limit, trap or wfi; exit_code is null unless it is exit;\n"
        "trap is null or {\"mcause\", \"mepc\", \"mtval\", \"name\"}.\n"
        "\n"
        "      --max-instructions N   stop after N instructions (default 1e9);\n"
        "                             N may be written 200000000 or 2e8\n"
        "      --json                 print the JSON object\n"
        "      --trace-instructions[=FILE]\n"
        "                             write every instruction retired, a line\n"
        "                             each in Spike's commit-log format, to\n"
        "                             stderr or FILE\n"
        "      --gdb PORT             wait halted for gdb-multiarch on\n"
        "                             127.0.0.1:PORT (0: any free port)\n"
        "\n"
        "Exit status: 0 the program exited with code 0, 1 it exited with\n"
        "another code, trapped, waited in wfi or reached the limit, 2 usage\n"
        "error, 3 not a linked RV64 (RISC-V ELFCLASS64) executable, 4 the file\n"
        "cannot be read.\n",
    },
    {
        "help", cmd_help,
        "kmrun help [COMMAND]",
        "Show the overview or one command's help",
        "Without COMMAND, prints what 'kmrun --help' prints: the commands and\n"
        "the exit codes.  With COMMAND, prints its help, as 'kmrun COMMAND\n"
        "--help' does.  The manual is 'man kmrun'; the manifest's format is\n"
        "'man kmrun-program'.\n",
    },
    {
        "version", cmd_version,
        "kmrun version",
        "Show kmrun's version and the toolchain it targets",
        "Prints 'kmrun VERSION', then the toolchain thread images are built\n"
        "with: the target and the architecture flags.  'kmrun --version' is the\n"
        "same.\n",
    },
};
const unsigned cmd_ncommands = sizeof cmd_commands / sizeof cmd_commands[0];

static const char kmrun_usage[] = "kmrun [--version] [--help] <command> [<args>]";

const cmd_command_entry *cmd_command_find(const char *name)
{
    for (unsigned i = 0; i < cmd_ncommands; i++)
        if (strcmp(cmd_commands[i].name, name) == 0)
            return &cmd_commands[i];
    return NULL;
}

static void print_usage_line(const char *command)
{
    const cmd_command_entry *c = command ? cmd_command_find(command) : NULL;
    fprintf(stderr, "usage: %s\n", c ? c->usage : kmrun_usage);
}

int cmd_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    if (cmd_diag_json()) { /* --message-format=json: one line (cmd_diag.h) */
        char message[1024], usage[1024];
        va_start(ap, fmt);
        vsnprintf(message, sizeof message, fmt, ap);
        va_end(ap);
        const cmd_command_entry *c = command ? cmd_command_find(command) : NULL;
        snprintf(usage, sizeof usage, "usage: %s", c ? c->usage : kmrun_usage);
        cmd_diag_usage(message, usage);
        return KMRUN_USAGE;
    }
    va_start(ap, fmt);
    fputs("kmrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    print_usage_line(command);
    return KMRUN_USAGE;
}

/* The long option whose getopt value is `val`, or NULL. */
static const struct option *long_by_val(const struct option *longopts, int val)
{
    for (const struct option *o = longopts; o && o->name; o++)
        if (!o->flag && o->val == val)
            return o;
    return NULL;
}

int cmd_option_error(const char *command, int c, char **argv,
                    const struct option *longopts)
{
    /* After an error getopt_long() has usually stepped past the word;
     * a long option's word is the one before optind. */
    const char *word = optind > 0 ? argv[optind - 1] : "";
    int is_long = strncmp(word, "--", 2) == 0 && word[2];
    char name[128] = "";
    if (is_long) {
        snprintf(name, sizeof name, "%s", word);
        name[strcspn(name, "=")] = 0;
    }
    if (c == ':') {
        const struct option *o = long_by_val(longopts, optopt);
        if (is_long && o && strncmp(o->name, name + 2, strlen(name + 2)) == 0)
            return cmd_usage_error(command, "option '--%s' requires a value",
                                  o->name);
        if (is_long)
            return cmd_usage_error(command, "option %s requires a value", CMD_QUOTED(name));
        return cmd_usage_error(command, "switch '-%c' requires a value", optopt);
    }
    if (optopt == 0 && is_long)
        return cmd_usage_error(command, "unknown option %s", CMD_QUOTED(name));
    if (is_long && strchr(word, '=')) {
        const struct option *o = long_by_val(longopts, optopt);
        if (o && strncmp(o->name, name + 2, strlen(name + 2)) == 0)
            return cmd_usage_error(command, "option '--%s' takes no value",
                                  o->name);
    }
    if (optopt > 0 && optopt < 256)
        return cmd_usage_error(command, "unknown switch '-%c'", optopt);
    return cmd_usage_error(command, "unknown option %s", CMD_QUOTED(word));
}

/* `kmrun --help` style aliases for commands. */
static const char *alias(const char *word)
{
    if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0)
        return "help";
    if (strcmp(word, "--version") == 0)
        return "version";
    return word;
}

/* Writing stdout failed (a full disk, a closed pipe): say so. */
static int check_stdout(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "kmrun: cannot write to standard output: %s\n",
                strerror(errno));
        return status > KMRUN_SYSTEM ? status : KMRUN_SYSTEM;
    }
    return status;
}

int main(int argc, char **argv)
{
    cmd_stderr_guard();
    if (argc < 2) {
        cmd_print_overview(stderr);
        return KMRUN_USAGE;
    }
    const char *name = alias(argv[1]);
    if (name[0] == '-')
        return cmd_usage_error(NULL, "unknown option %s", CMD_QUOTED(name));

    const cmd_command_entry *c = cmd_command_find(name);
    if (!c)
        return cmd_unknown_command(name);

    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cmd_print_command_help(c, stdout);
            return check_stdout(KMRUN_OK);
        }
    }

    /* --message-format and --color, every command's that takes them,
     * read here and taken out (cmd_diag.h) */
    int rc = cmd_diag_options(c->name, &argc, argv, 2);
    if (rc != KMRUN_OK)
        return rc;
    argv[1] = (char *)c->name;
    return check_stdout(c->run(argc - 1, argv + 1));
}
