/* cmd/cmd.c: kmrun's entry point and the table of its commands and their
 * options (cmd.h): the one place a command or an option is declared;
 * `kmrun COMMAND ...` dispatched through it, `--help` for any command,
 * what the usage errors print, stdout's errors. */
#include "cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_diag.h"
#include "cmd_opts.h"
#include "cmd_stderr.h"

/* The manifest every program command takes. */
static const cmd_operand manifest[] = {
    {.name = "program.yaml", .value = CMD_VALUE_FILE, .pattern = "*.yaml"},
    {0},
};

/* The remote storage's options, which build and test take alike. */
#define REMOTE_OPTIONS                                                                     \
    {.name = "remote-storage", .key = 'S', .arg = CMD_ARG_REQUIRED, .arg_name = "URL",     \
     .help = "share the cache through this Redis server, redis://[[USER:]PASSWORD@]HOST"   \
             "[:PORT][/DB] or redis+unix:///PATH, with ccache's attributes (|read-only, "  \
             "|connect-timeout=MS, |operation-timeout=MS); \"\" none (default: "            \
             "$KMRUN_REMOTE_STORAGE, else remote_storage in .kmrun/config, else in "       \
             "~/.config/kmrun/config)"},                                                   \
    {.name = "verbose", .key = 'v', .letter = 'v',                                         \
     .help = "say on stderr why each remote lookup went the way it did (a hit, a miss, a " \
             "refused value, a failure)"}

/* --- build ----------------------------------------------------------------- */

static const cmd_option build_options[] = {
    {.name = "jobs", .key = 'j', .letter = 'j', .arg = CMD_ARG_REQUIRED, .arg_name = "N",
     .help = "run at most N compiles at once (default: Ninja's)"},
    {.name = "quiet", .key = 'q', .letter = 'q',
     .help = "no summary and no progress on stderr"},
    {.name = "host", .key = 'H',
     .help = "also each thread's host fallback: its sources built with the host compiler "
             "against kmx/host (KMX_HOST_FALLBACK defined), the object 'kmrun run --thread "
             "host' loads; in the JSON as each thread's \"host\""},
    {.name = "compile-commands", .key = 'C',
     .help = "also write compile_commands.json beside the manifest (for clangd, clang-tidy, "
             "editors): each thread, kernel and (with --host) fallback source's compile as the "
             "build runs it, the real compiler, flags and include folders; in the JSON as "
             "\"compile_commands\""},
    {.name = "debug", .key = 'D',
     .help = "the debug profile, whatever the manifest's build: says: every compile -Og -g3 "
             "instead of -O2 -g, so that gdb's stepping follows the source; its images have "
             "their own cache keys (in the JSON as \"profile\": \"debug\")"},
    REMOTE_OPTIONS,
    {0},
};

/* --- run -------------------------------------------------------------------- */

static const cmd_option run_options[] = {
    {.name = "thread", .key = 'T', .arg = CMD_ARG_REQUIRED, .choices = "sim|host",
     .help = "sim (the default) runs the threads on the simulated X280 clusters; host runs "
             "each thread's host fallback (its sources built for the host with kmx/host) "
             "beside the simulated grid and dispatcher instead; times are the host's "
             "(\"times\": \"host\"), timeouts real seconds"},
    {.name = "check-handover", .key = 'H',
     .help = "the hand-over checker (as the manifest's check_handover: true): each read of "
             "stale bytes and write-back over newer ones that a missing kmx_invalidate or "
             "kmx_flush causes, on stderr as file:line: diagnostics and in the JSON's "
             "handover list; any makes the exit status 1.  The host fallback does not check "
             "(a note says so)"},
    {.name = "trace-instructions", .key = 'I', .arg = CMD_ARG_REQUIRED, .arg_name = "C.K",
     .help = "trace core K of cluster C: the same as --trace-cores C.K"},
    {.name = "trace-cores", .key = 'C', .arg = CMD_ARG_REQUIRED, .arg_name = "LIST",
     .help = "trace these cores, C.K,C.K,... or all (every core of every cluster a thread runs "
             "on): each instruction a traced core retires into the run folder as "
             "trace-cC.K.kmt, a compact binary record that 'kmrun trace' prints (the same "
             "results and modeled times, slower)"},
    {.name = "trace-pc", .key = 'P', .arg = CMD_ARG_REQUIRED, .arg_name = "START-END",
     .help = "record only the instructions whose pc is in [START, END) (such as "
             "0x10000-0x10400; repeatable, with --trace-function: inside any); the others run "
             "unrecorded"},
    {.name = "trace-function", .key = 'F', .arg = CMD_ARG_REQUIRED, .arg_name = "NAME",
     .help = "record only the instructions of function NAME, from the image's symbols "
             "(repeatable)"},
    {.name = "trace-limit", .key = 'Z', .arg = CMD_ARG_REQUIRED, .arg_name = "BYTES",
     .help = "the most a traced core's file takes (default 64MiB, at least 4096): there its "
             "trace stops, the file and stderr say where it was cut, the run goes on"},
    {.name = "gdb", .key = 'G', .arg = CMD_ARG_REQUIRED, .arg_name = "PORT",
     .help = "wait, halted, for gdb-multiarch on 127.0.0.1:PORT (0: any free one; stderr "
             "gives the command line): every X280 core a thread, modeled time still while "
             "halted, the same JSON as without"},
    {.name = "profile", .key = 'f',
     .help = "profile every X280 core exactly: its cycles, instructions, memory stall cycles "
             "and traps by function, source line and call stack, into the run folder as "
             "profile.folded (flame-graph folded stacks, in cycles) and profile.json ('kmrun "
             "profile' shows them); with --timeline, each core's busy and memory-stall "
             "shares as counter tracks.  The same results and modeled times, slower.  Not "
             "with --thread host (exit 2)"},
    {.name = "timeline", .key = 'L', .arg = CMD_ARG_REQUIRED, .arg_name = "FILE",
     .value = CMD_VALUE_FILE,
     .help = "the run's timeline in FILE, in the Chrome Trace Event format "
             "(ui.perfetto.dev, chrome://tracing): each X280 core's functions and waits, "
             "each Tensix core's handlers, the dispatcher's passes, each command's arrows, in "
             "modeled microseconds; the run is the same as without.  Not with --thread host "
             "(exit 2)"},
    {.name = "timeout", .key = 't', .arg = CMD_ARG_REQUIRED, .arg_name = "S",
     .help = "modeled seconds before threads still running are asked to stop (default: the "
             "largest deadline + 1 s, or 10 s); one that has not ended 1 s after the stop is "
             "stuck"},
    {.name = "wall-timeout", .key = 'w', .arg = CMD_ARG_REQUIRED, .arg_name = "S",
     .help = "give up after S seconds of real time (exit 4)"},
    {.name = "progress", .key = 'p',
     .help = "each new progress marker as a JSON line on stderr: "
             "{\"cluster\":1,\"where\":2,\"microseconds\":12.5}"},
    {.name = "run-dir", .key = 'R', .arg = CMD_ARG_REQUIRED, .arg_name = "DIR",
     .value = CMD_VALUE_DIR,
     .help = "where run folders go (default: $KMRUN_RUNS, else .kmrun/runs)"},
    {.name = "jobs", .key = 'j', .letter = 'j', .arg = CMD_ARG_REQUIRED, .arg_name = "N",
     .help = "run at most N compiles at once"},
    {.name = "debug", .key = 'D',
     .help = "build in the debug profile (as 'kmrun build --debug'): -Og -g3, for --gdb's "
             "stepping"},
    {0},
};

/* --- check ------------------------------------------------------------------ */

static const cmd_option check_options[] = {
    {.name = "json", .key = 'J',
     .help = "one JSON document on stdout instead (schemas/check.schema.json)"},
    {.name = "check-handover", .key = 'H',
     .help = "the simulated card's run with the hand-over checker (kmrun run "
             "--check-handover): its findings on stderr, and any makes the exit status 1"},
    {.name = "timeout", .key = 't', .arg = CMD_ARG_REQUIRED, .arg_name = "S",
     .help = "as 'kmrun run --timeout', for both runs"},
    {.name = "run-dir", .key = 'R', .arg = CMD_ARG_REQUIRED, .arg_name = "DIR",
     .value = CMD_VALUE_DIR,
     .help = "where both run folders go (default: $KMRUN_RUNS, else .kmrun/runs)"},
    {0},
};

/* --- test ------------------------------------------------------------------- */

static const cmd_option test_options[] = {
    {.name = "backend", .key = 'b', .arg = CMD_ARG_REQUIRED, .choices = "sim|host",
     .help = "run every program on sim or host alone, whatever its backends"},
    {.name = "junit", .key = 'x', .arg = CMD_ARG_REQUIRED, .arg_name = "FILE",
     .value = CMD_VALUE_FILE,
     .help = "also a JUnit XML report in FILE, written whole: a testcase per program and "
             "backend, each failure's differences and run folder"},
    {.name = "tap", .key = 'T', .help = "TAP version 13 on stdout instead of the lines"},
    {.name = "shard", .key = 's', .arg = CMD_ARG_REQUIRED, .arg_name = "I/N",
     .help = "only the programs i (from 0, in the order above) with i mod N = I - 1: the N "
             "shards are disjoint and together run every program"},
    {.name = "jobs", .key = 'j', .letter = 'j', .arg = CMD_ARG_REQUIRED, .arg_name = "N",
     .help = "N runs at once (default 1); the lines come as the runs end"},
    {.name = "wall-timeout", .key = 'w', .arg = CMD_ARG_REQUIRED, .arg_name = "S",
     .help = "kill a run (its build included) after S seconds of real time (default 300)"},
    {.name = "run-dir", .key = 'R', .arg = CMD_ARG_REQUIRED, .arg_name = "DIR",
     .value = CMD_VALUE_DIR,
     .help = "where the runs' folders go (default: $KMRUN_RUNS, else .kmrun/runs)"},
    {.name = "rerun", .key = 'r',
     .help = "run every program, even one whose stored result stands for this run (the "
             "same images, manifest, inputs, backend and kmrun)"},
    {.name = "bless", .key = 'B',
     .help = "a program whose runs differ from its expect: only in values (words, prints, "
             "code, a state or event other than the normal end, a region's sha256 or first "
             "bytes, a result word) has those values rewritten in its manifest, in place "
             "(every other byte kept) and at once, its lines marked '(blessed)'; a failure "
             "of another kind is never blessed, nor an item that its backends give "
             "differently or that applies to a backend that did not run"},
    REMOTE_OPTIONS,
    {0},
};

static const cmd_operand test_paths[] = {
    {.name = "PATH", .value = CMD_VALUE_FILE, .pattern = "*.yaml", .optional = true,
     .repeats = true},
    {0},
};

/* --- new -------------------------------------------------------------------- */

static const cmd_option new_options[] = {
    {.name = "template", .key = 't', .arg = CMD_ARG_REQUIRED, .arg_name = "T",
     .choices = "thread|host-fed|ports", .unchecked = true,
     .help = "thread (the default): one thread on cluster 1 that fills a region on its four "
             "cores, prints and returns a result word, on the simulated card and the host; "
             "host-fed: no thread, commands fed to the Tensix grid and a handler of its own; "
             "ports: a thread serving Tensix cores through X280 ports"},
    {0},
};

static const cmd_operand new_folder[] = {
    {.name = "NAME", .value = CMD_VALUE_DIR},
    {0},
};

/* --- validate --------------------------------------------------------------- */

static const cmd_option validate_options[] = {
    {.name = "quiet", .key = 'q', .letter = 'q', .help = "print nothing for a valid manifest"},
    {.name = "json", .key = 'J',
     .help = "print the program model as JSON instead: one object, or an array of them for "
             "several manifests; printed only when every manifest is valid"},
    {0},
};

static const cmd_operand manifests[] = {
    {.name = "program.yaml", .value = CMD_VALUE_FILE, .pattern = "*.yaml", .repeats = true},
    {0},
};

/* --- cache ------------------------------------------------------------------ */

static const cmd_option cache_options[] = {
    {.name = "json", .key = 'J', .help = "stats as one JSON object"},
    {.name = "max-size", .key = 'm', .arg = CMD_ARG_REQUIRED, .arg_name = "SIZE",
     .help = "gc's bound on what the cache keeps, such as 512MiB or 2GiB"},
    {0},
};

static const cmd_operand cache_actions[] = {
    {.name = "ACTION", .value = CMD_VALUE_CHOICE, .choices = "stats|path|gc|clear"},
    {0},
};

/* --- read-region ------------------------------------------------------------ */

static const cmd_option read_region_options[] = {
    {.name = "run", .key = 'r', .arg = CMD_ARG_REQUIRED, .arg_name = "RUN",
     .value = CMD_VALUE_RUN,
     .help = "a run id, or a run folder (default: the latest run)"},
    {.name = "run-dir", .key = 'R', .arg = CMD_ARG_REQUIRED, .arg_name = "DIR",
     .value = CMD_VALUE_DIR,
     .help = "where runs are (default: $KMRUN_RUNS, else .kmrun/runs)"},
    {.name = "cluster", .key = 'c', .arg = CMD_ARG_REQUIRED, .arg_name = "N",
     .choices = "1|2|3", .bad_choice = "invalid cluster %s (expected %s)",
     .help = "whose copy, 1 to 3 (needed when several clusters have one)"},
    {.name = "format", .key = 'f', .arg = CMD_ARG_REQUIRED, .arg_name = "F",
     .choices = "raw|hex|u32|json", .bad_choice = "unknown format %s (expected %s)",
     .help = "raw bytes, a hex dump (the default), u32 (one unsigned word a line) or json"},
    {.name = "offset", .key = 'o', .arg = CMD_ARG_REQUIRED, .arg_name = "N",
     .help = "start N bytes in (KiB, MiB allowed)"},
    {.name = "length", .key = 'l', .arg = CMD_ARG_REQUIRED, .arg_name = "N",
     .help = "read N bytes (default: to the end)"},
    {0},
};

static const cmd_operand region_name[] = {
    {.name = "NAME", .value = CMD_VALUE_REGION},
    {0},
};

/* --- profile ---------------------------------------------------------------- */

static const cmd_option profile_options[] = {
    {.name = "run-dir", .key = 'R', .arg = CMD_ARG_REQUIRED, .arg_name = "DIR",
     .value = CMD_VALUE_DIR,
     .help = "where runs are (default: $KMRUN_RUNS, else .kmrun/runs)"},
    {.name = "core", .key = 'c', .arg = CMD_ARG_REQUIRED, .arg_name = "C.K",
     .help = "core K of cluster C only (default: every core)"},
    {.name = "limit", .key = 'n', .arg = CMD_ARG_REQUIRED, .arg_name = "N",
     .help = "the top table's first N lines (default 20; 0: all)"},
    {.name = "annotate", .key = 'a', .arg = CMD_ARG_REQUIRED, .arg_name = "FILE",
     .value = CMD_VALUE_FILE,
     .help = "print source FILE instead, each line with the cycles its own instructions "
             "spent (self), their share, and the cycles of the calls it made too (total)"},
    {.name = "svg", .key = 's', .arg = CMD_ARG_REQUIRED, .arg_name = "FILE",
     .value = CMD_VALUE_FILE,
     .help = "also write a flame graph to FILE: one self-contained SVG a browser opens as "
             "it is (each box a function and line, hover for its cycles, click to zoom, "
             "Search to mark frames)"},
    {.name = "json", .key = 'j', .help = "the top table as JSON"},
    {0},
};

static const cmd_operand run_id[] = {
    {.name = "RUN", .value = CMD_VALUE_RUN, .optional = true},
    {0},
};

/* --- trace ------------------------------------------------------------------ */

static const cmd_option trace_options[] = {
    {.name = "run-dir", .key = 'R', .arg = CMD_ARG_REQUIRED, .arg_name = "DIR",
     .value = CMD_VALUE_DIR,
     .help = "where runs are (default: $KMRUN_RUNS, else .kmrun/runs)"},
    {.name = "core", .key = 'c', .arg = CMD_ARG_REQUIRED, .arg_name = "C.K",
     .help = "only core K of cluster C's trace (default: every traced core's, in turn)"},
    {.name = "grep", .key = 'g', .arg = CMD_ARG_REQUIRED, .arg_name = "REGEX",
     .help = "only the lines that match REGEX (POSIX extended), as printed"},
    {.name = "from", .key = 'f', .arg = CMD_ARG_REQUIRED, .arg_name = "CYCLE",
     .help = "only instructions that start at CYCLE or later (the cluster's clock)"},
    {.name = "to", .key = 't', .arg = CMD_ARG_REQUIRED, .arg_name = "CYCLE",
     .help = "only instructions that start at CYCLE or before"},
    {.name = "format", .key = 'F', .arg = CMD_ARG_REQUIRED, .choices = "text|spike",
     .bad_choice = "unknown format %s (expected %s)",
     .help = "text (the default): a line per instruction, key=value; spike: Spike's commit log "
             "(--log-commits), as 'kmrun exec --trace-instructions' writes it"},
    {0},
};

/* --- exec ------------------------------------------------------------------- */

static const cmd_option exec_options[] = {
    {.name = "max-instructions", .key = 'm', .arg = CMD_ARG_REQUIRED, .arg_name = "N",
     .help = "stop after N instructions (default 1e9); N may be written 200000000 or 2e8"},
    {.name = "json", .key = 'J', .help = "print the JSON object"},
    {.name = "trace-instructions", .key = 'I', .arg = CMD_ARG_OPTIONAL, .arg_name = "FILE",
     .value = CMD_VALUE_FILE,
     .help = "write every instruction retired, a line each in Spike's commit-log format, to "
             "stderr or FILE"},
    {.name = "profile", .key = 'P', .arg = CMD_ARG_REQUIRED, .arg_name = "DIR",
     .value = CMD_VALUE_DIR,
     .help = "profile the hart exactly (as 'kmrun run --profile'; core 0.0) into DIR's "
             "profile.folded and profile.json, made if need be; 'kmrun profile DIR' shows "
             "them.  Not with --trace-instructions or --gdb"},
    {.name = "gdb", .key = 'G', .arg = CMD_ARG_REQUIRED, .arg_name = "PORT",
     .help = "wait halted for gdb-multiarch on 127.0.0.1:PORT (0: any free port)"},
    {0},
};

static const cmd_operand elf_file[] = {
    {.name = "FILE.elf", .value = CMD_VALUE_ELF},
    {0},
};

/* --- completion ------------------------------------------------------------- */

static const cmd_option completion_options[] = {
    {.name = "commands", .key = 'C', .help = "list the commands, one a line"},
    {.name = "options", .key = 'O', .arg = CMD_ARG_REQUIRED, .arg_name = "COMMAND",
     .value = CMD_VALUE_COMMAND,
     .help = "list COMMAND's options, one a line: --name, and -l for one with a short form"},
    {.name = "regions", .key = 'g',
     .help = "list the regions of the latest run (or of --run), one a line"},
    {.name = "runs", .key = 'u', .help = "list the run ids of the runs folder, newest first"},
    {.name = "run", .key = 'r', .arg = CMD_ARG_REQUIRED, .arg_name = "RUN",
     .value = CMD_VALUE_RUN, .help = "--regions of this run id or run folder"},
    {.name = "run-dir", .key = 'R', .arg = CMD_ARG_REQUIRED, .arg_name = "DIR",
     .value = CMD_VALUE_DIR,
     .help = "the runs folder of --regions and --runs (default: $KMRUN_RUNS, else "
             ".kmrun/runs)"},
    {0},
};

static const cmd_operand shell_name[] = {
    {.name = "SHELL", .value = CMD_VALUE_CHOICE, .choices = "bash|zsh", .optional = true},
    {0},
};

/* --- help ------------------------------------------------------------------- */

static const cmd_operand command_name[] = {
    {.name = "COMMAND", .value = CMD_VALUE_COMMAND, .optional = true},
    {0},
};

const cmd_option cmd_global_options[] = {
    {.name = "help", .key = 'h', .letter = 'h', .help = "the overview, or a command's help"},
    {.name = "version", .key = 'V', .help = "the version and the target toolchain"},
    {0},
};

const cmd_command_entry cmd_commands[] = {
    {
        .name = "build",
        .run = cmd_build,
        .summary = "Build a program's threads and handlers into the cache",
        .options = build_options,
        .operands = manifest,
        .help =
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
            "compilers.\n",
        .after =
            "Exit status: 0 built, 2 usage or manifest error, 3 a compile error or\n"
            "a rejected image, 4 a missing tool, an unusable cache, or a full disk,\n"
            "a quota, a file size or memory limit that stopped a compile or link.\n",
    },
    {
        .name = "run",
        .run = cmd_run,
        .summary = "Build a program and run its threads on the simulated card",
        .options = run_options,
        .operands = manifest,
        .help =
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
            "them.\n",
        .after =
            "Exit status: 0 every thread returned, 1 a thread did not or the\n"
            "hand-over checker found something, 2 usage or\n"
            "manifest error, 3 a compile error or a rejected image, 4 a system error\n"
            "(including the wall timeout).\n",
    },
    {
        .name = "check",
        .run = cmd_check,
        .summary = "Run a program on the simulated card and on the host, and compare",
        .options = check_options,
        .operands = manifest,
        .help =
            "Runs the program as 'kmrun run' does, then again with each thread's\n"
            "host fallback ('kmrun run --thread host'), keeping both run folders,\n"
            "and compares what they left: per thread the state, the library error,\n"
            "the code and every result word; per host-fed command its event and\n"
            "result word; and every region copy byte for byte.\n"
            "Times are not compared.  Agreement prints one line; a difference\n"
            "prints each one: a result field with both values, a region with its\n"
            "first differing offset, how many bytes differ and the 16 bytes there\n"
            "on each side.\n",
        .after =
            "Exit status: 0 they agree, 1 they differ or the checker found\n"
            "something, 2 usage or manifest error\n"
            "(or a program with no thread), 3 a compile error, 4 a system error.\n",
    },
    {
        .name = "test",
        .run = cmd_test,
        .summary = "Run programs and hold each run to its manifest's expect:",
        .options = test_options,
        .operands = test_paths,
        .help =
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
            "A pass is stored in the build cache (and its remote storage) under a\n"
            "key of the run's images, manifest, inputs, backend and kmrun; a later\n"
            "case with the same key passes without running, its line marked\n"
            "'(reused)' (--rerun runs every case).\n"
            "\n"
            "With --bless, a program whose runs differ from its expect: only in\n"
            "values is blessed: once all its backends' runs have ended, each value\n"
            "that differs (a thread's words, prints, code or state, a region's\n"
            "sha256 or first bytes, a command's event or result word) is rewritten\n"
            "in its manifest to what the run gave, in place: only those bytes\n"
            "change, comments, key order, indentation and flow or block style stay,\n"
            "and the file is replaced at once (a temporary beside it, with its\n"
            "mode, renamed over it).  Its lines read\n"
            "\n"
            "    ok   programs/01_hello/program.yaml [sim] (blessed) 0.41 s\n"
            "         programs/01_hello/program.yaml:25:14: thread on cluster 1: expected ...\n"
            "\n"
            "with every value rewritten under them, and the last line\n"
            "'N passed, N blessed, N failed'.  Never blessed, a failure: a build\n"
            "that fails, a run that crashes or times out, a thread that does not\n"
            "return (or a command that is not done) when expect: says it must, a\n"
            "card finding; and an item without backend: that sim and host give\n"
            "differently, that one of them keeps, or that applies to a backend\n"
            "that did not run (--backend): then no value of the program changes,\n"
            "and the line says why.  A reused pass has nothing to bless; a blessed\n"
            "run is not stored (the manifest, part of its key, changed).  --tap\n"
            "marks a blessed case 'ok N - FILE [B] (blessed)' with a YAML block of\n"
            "severity comment; --junit reports it passed, with a property\n"
            "blessed and the values in its system-out.\n",
        .after =
            "Exit status: 0 every run held to its expect: or was blessed (skips\n"
            "aside), 1 one did not (a difference not blessed, a manifest error, a\n"
            "failed build, a crash or a timeout of its run), 2 usage error (or no\n"
            "program under the PATHs), 4 a run could not be started or the JUnit\n"
            "report not written.\n",
    },
    {
        .name = "new",
        .run = cmd_new,
        .summary = "Make a folder with a program to start from",
        .options = new_options,
        .operands = new_folder,
        .help =
            "Makes the folder NAME holding a program made from a template of\n"
            "kmrun's: program.yaml (named after NAME's last part, with its\n"
            "expect:), its sources and a README.md that says what they do.\n"
            "'kmrun run NAME/program.yaml' and 'kmrun test NAME' pass as it is.\n"
            "The folder is made whole or not at all (under a temporary name beside\n"
            "it, then renamed); a NAME that exists is refused and left as it is.\n",
        .after =
            "Exit status: 0 made, 2 usage error, a NAME that exists, a name that is\n"
            "not a program's or an unknown template, 4 the folder cannot be made.\n",
    },
    {
        .name = "validate",
        .run = cmd_validate,
        .summary = "Check program manifests without building them",
        .options = validate_options,
        .operands = manifests,
        .help =
            "Loads each manifest and checks it as 'kmrun build' would, without\n"
            "compiling anything.  Every error is printed on stderr as\n"
            "file:line:col: with the manifest's line and a caret under the column;\n"
            "every file given is checked.  For a valid manifest it prints a line\n"
            "such as\n"
            "\n"
            "    program.yaml: ok (program 'hello': 1 thread on cluster 1, 2 regions, 0 commands)\n",
        .after =
            "Exit status: 0 all valid, 2 a manifest has errors or a usage error,\n"
            "4 a manifest could not be read.\n",
    },
    {
        .name = "cache",
        .run = cmd_cache,
        .summary = "Show, trim or empty the build cache",
        .options = cache_options,
        .operands = cache_actions,
        .synopsis = "kmrun cache (stats [--json] | path | gc --max-size SIZE | clear)",
        .help =
            "  stats [--json]       print the entries, their total size, and the\n"
            "                       cache's hit and miss counts\n"
            "  path                 print the cache's folder\n"
            "  gc --max-size SIZE   remove entries, least recently used first, until\n"
            "                       the cache holds at most SIZE (such as 512MiB, 2GiB)\n"
            "  clear                remove every entry\n"
            "\n"
            "The cache is $KMRUN_CACHE if set, else $XDG_CACHE_HOME/kmrun, else\n"
            "~/.cache/kmrun.  Entries are written whole and renamed into place, so\n"
            "a build running at the same time never sees a torn one.\n",
        .after = "Exit status: 0 done, 2 usage error, 4 an unusable cache.\n",
    },
    {
        .name = "read-region",
        .run = cmd_read_region,
        .summary = "Print a region's bytes from a run that has stopped",
        .options = read_region_options,
        .operands = region_name,
        .help =
            "Reads region NAME as the run left it after its stop: the bytes each\n"
            "thread's cluster held in its bank, from the run folder that 'kmrun run'\n"
            "wrote.\n",
        .after =
            "Exit status: 0 printed, 2 usage error or an unknown run, region or\n"
            "cluster, 4 a damaged or unreadable run.\n",
    },
    {
        .name = "profile",
        .run = cmd_profile,
        .summary = "Show where a profiled run's cycles went",
        .options = profile_options,
        .operands = run_id,
        .help =
            "Reads the profile a run made with 'kmrun run --profile' (RUN: a run id\n"
            "or a run folder; default the latest) and prints its top table: each\n"
            "instruction's function and file:line by the cycles spent there, with\n"
            "their share, memory stall cycles, instructions and traps.  The counts\n"
            "are exact, from the simulator: each core's add up to its cycles in the\n"
            "run's JSON (stats.x280).  --annotate prints a source file with its\n"
            "lines' cycles instead; --svg writes a flame graph of the call stacks.\n",
        .after = "Exit status: 0 printed, 2 usage error, a run without a profile, an\n"
                 "unknown core or an unreadable source, 4 a damaged or unreadable run.\n",
    },
    {
        .name = "trace",
        .run = cmd_trace,
        .summary = "Print a run's instruction traces",
        .options = trace_options,
        .operands = run_id,
        .help =
            "Prints the instruction traces of RUN (a run id or a run folder; default:\n"
            "the latest run) that 'kmrun run --trace-cores' or --trace-instructions\n"
            "recorded, one traced core after another.  A line per instruction:\n"
            "\n"
            "    1.0 cycle=5301 pc=0x10124 bits=0x00b50533 \"add a0,a0,a1\" x10=0x7 at=sum.c:12 fn=sum\n"
            "\n"
            "the core, the cycle it started at (the cluster's clock), its pc and\n"
            "bits, its disassembly (from one objdump -d of the image), each register\n"
            "or CSR it wrote, load=ADDR and store=ADDR:VALUE, and its source line and\n"
            "function (the image's DWARF, through addr2line); a '#' line heads each\n"
            "core.  A trace cut by its --trace-limit says so on stderr.\n",
        .after =
            "Exit status: 0 printed, 2 usage error, an unknown run or a run without\n"
            "traces, 4 a damaged, truncated or unreadable trace.\n",
    },
    {
        .name = "exec",
        .run = cmd_exec,
        .summary = "Run a bare-metal RV64 ELF on one simulated hart",
        .options = exec_options,
        .operands = elf_file,
        .help =
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
            "trap is null or {\"mcause\", \"mepc\", \"mtval\", \"name\"}.\n",
        .after =
            "Exit status: 0 the program exited with code 0, 1 it exited with\n"
            "another code, trapped, waited in wfi or reached the limit, 2 usage\n"
            "error, 3 not a linked RV64 (RISC-V ELFCLASS64) executable, 4 the file\n"
            "cannot be read.\n",
    },
    {
        .name = "completion",
        .run = cmd_completion,
        .summary = "Print a bash or zsh completion script for kmrun",
        .options = completion_options,
        .operands = shell_name,
        .synopsis = "kmrun completion bash|zsh\n"
                    "kmrun completion --commands | --options COMMAND | --runs [--run-dir DIR]\n"
                    "kmrun completion --regions [--run RUN] [--run-dir DIR]",
        .help =
            "Prints the completion script of a shell, made from the table kmrun's\n"
            "own command line is parsed with: the commands, each command's options\n"
            "and the values they take (sim|host, files, folders), manifests\n"
            "(*.yaml) for the program commands, ELF files for exec, and the region\n"
            "names of the latest run for read-region (which the script asks\n"
            "'kmrun completion --regions' for).  'make install' installs both\n"
            "where the shells look; to try one at once:\n"
            "\n"
            "    source <(kmrun completion bash)\n"
            "    source <(kmrun completion zsh)       (after compinit)\n"
            "\n"
            "With an option instead of a shell, prints what the scripts ask for.\n",
        .after = "Exit status: 0 printed, 2 usage error, 4 an unreadable run.\n",
    },
    {
        .name = "help",
        .run = cmd_help,
        .summary = "Show the overview or one command's help",
        .operands = command_name,
        .help =
            "Without COMMAND, prints what 'kmrun --help' prints: the commands and\n"
            "the exit codes.  With COMMAND, prints its help, as 'kmrun COMMAND\n"
            "--help' does.  The manual is 'man kmrun'; the manifest's format is\n"
            "'man kmrun-program'.\n",
    },
    {
        .name = "version",
        .run = cmd_version,
        .summary = "Show kmrun's version and the toolchain it targets",
        .help =
            "Prints 'kmrun VERSION', then the toolchain thread images are built\n"
            "with: the target and the architecture flags.  'kmrun --version' is the\n"
            "same.\n",
    },
};
const unsigned cmd_ncommands = sizeof cmd_commands / sizeof cmd_commands[0];

static const char kmrun_usage[] = "usage: kmrun [--version] [--help] <command> [<args>]\n";

const cmd_command_entry *cmd_command_find(const char *name)
{
    for (unsigned i = 0; i < cmd_ncommands; i++)
        if (strcmp(cmd_commands[i].name, name) == 0)
            return &cmd_commands[i];
    return NULL;
}

int cmd_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    const cmd_command_entry *c = command ? cmd_command_find(command) : NULL;
    if (cmd_diag_json()) { /* --message-format=json: one line (cmd_diag.h) */
        char message[1024], *usage = NULL;
        size_t n = 0;
        va_start(ap, fmt);
        vsnprintf(message, sizeof message, fmt, ap);
        va_end(ap);
        FILE *f = open_memstream(&usage, &n);
        if (f) {
            if (c)
                cmd_print_usage(c, f);
            else
                fputs(kmrun_usage, f);
            fclose(f);
        }
        if (usage && n && usage[n - 1] == '\n')
            usage[n - 1] = 0;
        cmd_diag_usage(message, usage ? usage : "");
        free(usage);
        return KMRUN_USAGE;
    }
    va_start(ap, fmt);
    fputs("kmrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (c)
        cmd_print_usage(c, stderr);
    else
        fputs(kmrun_usage, stderr);
    return KMRUN_USAGE;
}

/* ---- main ---------------------------------------------------------------- */

/* `kmrun --help` style aliases for commands. */
static const char *alias(const char *word)
{
    if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0)
        return "help";
    if (strcmp(word, "--version") == 0)
        return "version";
    return word;
}

/* kmrun's own option that is none of --help, -h, --version. */
static int unknown_option(const char *word)
{
    const char *names[8];
    size_t n = 0;
    for (const cmd_option *o = cmd_global_options; o->name && n < 8; o++)
        names[n++] = o->name;
    const char *near = strncmp(word, "--", 2) == 0 ? kmrun_suggest(word + 2, names, n) : NULL;
    if (near)
        return cmd_usage_error(NULL, "unknown option %s (did you mean '--%s'?)",
                               CMD_QUOTED(word), near);
    return cmd_usage_error(NULL, "unknown option %s", CMD_QUOTED(word));
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
        return unknown_option(name);

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
