/* kmrun_tools.h: the kmrun library's API for tools built like kmrun(1) —
 * what the command line does beyond a program's host side (kmrun.h): run
 * folders after a run, the build cache and builds, a bare ELF on one hart, a new
 * program from a template, and text shown as kmrun shows it.
 *
 * The promise is kmrun.h's (every name kmrun_ or KMRUN_, opaque handles
 * freed by their _free or _close, a kmrun_status and an error object on
 * failure, never a print or an exit); libkmrun exports these functions
 * beside kmrun.h's, and man 3 kmrun documents both headers. */
#ifndef KMRUN_TOOLS_H
#define KMRUN_TOOLS_H

#include "kmrun.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Run folders -----------------------------------------------------------
 * What a run leaves after its stop (kmrun(1), FILES): its JSON and
 * every region copy's bytes, in a folder named by its run id under the
 * runs folder, `latest` naming the last one written. */

/* The runs folder as kmrun(1) chooses it: `runs_dir` when not NULL (the
 * --run-dir option), else $KMRUN_RUNS, else .kmrun/runs.  Allocated: free
 * it with free(); NULL when memory runs out. */
char *kmrun_runs_folder(const char *runs_dir);

/* The folder of a run (allocated, free()): `run` a run id under the runs
 * folder, a path to a run folder, or NULL for the latest.  KMRUN_USAGE for
 * a run that is not there; KMRUN_SYSTEM for a damaged one, or when the
 * latest cannot be trusted (a run interrupted since it was written). */
kmrun_status kmrun_run_folder_find(const char *runs_dir, const char *run, char **folder,
                                   kmrun_error **err);

/* The bytes of region `name` in the run folder `folder`: the copy of the
 * thread on `cluster` (0: the only cluster that has one; KMRUN_USAGE when
 * several do, or for a region or cluster the run has not).  *data is
 * allocated (free()); *got_cluster (may be NULL) says whose copy it is. */
kmrun_status kmrun_run_folder_read(const char *folder, const char *name, int cluster, void **data,
                                   size_t *bytes, int *got_cluster, kmrun_error **err);

/* Removes what killed runs left in the runs folder (their half-written
 * folders); `latest` is left naming the last run written whole. */
void kmrun_runs_sweep(const char *runs_dir);

/* ---- Profiles ----------------------------------------------------------------
 * A profiled run's profile (kmrun.h's kmrun_session_profile, `kmrun run
 * --profile`): its folder's profile.json (else profile.folded, cycles
 * only), shown as `kmrun profile` shows it.  A core is "C.K" (cluster C,
 * core K); NULL: every core; KMRUN_USAGE for one the profile has not.
 * Texts are allocated (free()). */
typedef struct kmrun_profile kmrun_profile;

/* The profile of the run in `folder` (kmrun_run_folder_find's).
 * KMRUN_USAGE when the run has none, KMRUN_SYSTEM when it is damaged. */
kmrun_status kmrun_profile_open(const char *folder, kmrun_profile **out, kmrun_error **err);
void kmrun_profile_free(kmrun_profile *p); /* NULL is fine */

/* The top table: each instruction's frame ("function (file:line)") by the
 * cycles spent there, most first, `limit` rows (0: all), with share,
 * memory stall cycles, instructions and traps; as JSON with `json`. */
kmrun_status kmrun_profile_top(const kmrun_profile *p, const char *core, unsigned limit,
                               bool json, char **text, kmrun_error **err);
/* Source file `source`, each line with the cycles spent on it (self: its
 * own instructions; total: also what it called) and its share.
 * KMRUN_USAGE when it cannot be read or no frame names it. */
kmrun_status kmrun_profile_annotate(const kmrun_profile *p, const char *core, const char *source,
                                    char **text, kmrun_error **err);
/* A self-contained interactive flame graph (an SVG with its script:
 * hover, click to zoom, search), titled `title` (NULL: a default). */
kmrun_status kmrun_profile_svg(const kmrun_profile *p, const char *core, const char *title,
                               char **svg, kmrun_error **err);

/* ---- The build cache ---------------------------------------------------------
 * The content-addressed cache thread images and kernels are built into
 * (kmrun(1), `kmrun cache`): written whole and renamed into place, so
 * that builds and runs at the same time never see a torn entry. */

typedef struct kmrun_cache kmrun_cache;

/* Opens (creating its folders) the cache at `folder`; NULL: $KMRUN_CACHE,
 * else $XDG_CACHE_HOME/kmrun, else ~/.cache/kmrun.  KMRUN_SYSTEM when it
 * cannot be used. */
kmrun_status kmrun_cache_open(const char *folder, kmrun_cache **out, kmrun_error **err);
/* Frees the handle; the entries it found or stored stay pinned (kept by
 * gc and clear) until then. */
void kmrun_cache_close(kmrun_cache *c);
/* Where a damaged entry, found and removed (it is rebuilt), is told:
 * `warn` gets a message (NULL: nobody is told). */
void kmrun_cache_set_warning(kmrun_cache *c, void (*warn)(const char *message, void *ctx),
                             void *ctx);
const char *kmrun_cache_folder(const kmrun_cache *c);

typedef struct kmrun_cache_stats {
    uint64_t entries, entry_bytes; /* the entries and the bytes of their files */
    uint64_t records;              /* what compiles included, for the direct mode */
    uint64_t work_bytes;           /* the build folders */
    uint64_t hits, misses;         /* lookups counted since the cache was made */
    /* The remote storage's (kmrun_cache_set_remote), counted here: entries
     * it gave that were used, lookups it had nothing for, its failures and
     * the values refused, the entries given to it; and kmrun test's runs
     * not run again (kmrun_cache_result_get). */
    uint64_t remote_hits, remote_misses, remote_errors, remote_stored;
    uint64_t results_reused;
} kmrun_cache_stats;
kmrun_status kmrun_cache_stats_get(kmrun_cache *c, kmrun_cache_stats *out, kmrun_error **err);

/* The remote storage the cache shares its entries through (kmrun(1),
 * "Sharing a cache across machines"): `url` is redis://[[USER:]PASSWORD@]
 * HOST[:PORT][/DB] or redis+unix:///PATH, then ccache's attributes
 * (|read-only, |connect-timeout=MS, |operation-timeout=MS); "" none; NULL
 * the configured one ($KMRUN_REMOTE_STORAGE, else a "remote_storage = URL"
 * line of .kmrun/config, else of ~/.config/kmrun/config), which is also
 * what a cache uses when this is never called.  After a local miss a
 * build asks it before compiling and gives it what it built; what it
 * returns is checked (the key it claims, its lengths and digests, the
 * image checks) before it is used, and a remote that fails or is slow
 * past its timeouts costs those and a counter, never a failed build.
 * KMRUN_USAGE for a URL of another form. */
kmrun_status kmrun_cache_set_remote(kmrun_cache *c, const char *url, kmrun_error **err);
/* Where each remote lookup's story goes (a hit, a miss, why a value was
 * refused, a failure), a line each (NULL: nowhere). */
void kmrun_cache_set_note(kmrun_cache *c, void (*note)(const char *line, void *ctx), void *ctx);

/* Removes entries, least recently used first, until they take at most
 * max_bytes (and what killed builds left); *removed counts them, *kept the
 * entries in use by a build or run, which stay (both may be NULL). */
kmrun_status kmrun_cache_gc(kmrun_cache *c, uint64_t max_bytes, uint64_t *removed,
                            uint64_t *kept, kmrun_error **err);
/* Removes every entry but those in use (*kept counts them; may be NULL). */
kmrun_status kmrun_cache_clear(kmrun_cache *c, uint64_t *kept, kmrun_error **err);

/* ---- Builds ---------------------------------------------------------------------
 * A program's thread images and Tensix handlers built through the cache,
 * as `kmrun build` builds them (kmrun_session_load does the same before a
 * run). */

typedef struct kmrun_build_opts {
    /* sizeof(kmrun_build_opts): set it (kmrun_build_opts_init does). */
    size_t size;
    int jobs;  /* compiles at once, 1 to 1024; 0: Ninja's default */
    bool host; /* also each thread's host fallback (the host backend's object) */
    /* A line a compiler wrote (a warning, an error), its files shown from
     * the working folder */
    void (*output)(const char *line, void *ctx);
    /* Ninja's status line ("[2/5] ..."), each to stand in for the last
     * (NULL: none is made) */
    void (*progress)(const char *line, void *ctx);
    void *ctx;
    /* Set: the compilers report structured (gcc's
     * -fdiagnostics-format=json; clang's text is read), and each finding
     * of a build that succeeds comes here instead of `output` (a failed
     * build's are its error's: kmrun_error_diagnostics). */
    void (*diagnostic)(const kmrun_diagnostic *d, void *ctx);
    /* The compilers' colours in `output` and in a failure's message. */
    kmrun_color color;
    /* Also write compile_commands.json beside the manifest (beside the
     * root of a program built in code), the compilation database clangd
     * and clang-tidy read: every source's compile as the build runs it,
     * whether or not it is built (kmrun_build_compile_commands). */
    bool compile_commands;
    /* The debug profile whatever the manifest's `build:` says: every
     * compile -Og -g3 instead of -O2 -g, for stepping that follows the
     * source; its images have their own cache keys. */
    bool debug;
} kmrun_build_opts;

/* No callbacks, Ninja's job count, no host fallbacks, its size set. */
void kmrun_build_opts_init(kmrun_build_opts *o);

typedef struct kmrun_build kmrun_build;

/* Builds p's threads and kernels into the cache c (o NULL: the defaults):
 * what has not changed comes from the cache.  KMRUN_BUILD with the
 * compiler's message or the image's violation, KMRUN_SYSTEM for a
 * missing tool or an unusable cache; a program built in code is checked
 * whole first (KMRUN_USAGE), as at its first load. */
kmrun_status kmrun_build_program(kmrun_cache *c, kmrun_program *p, const kmrun_build_opts *o,
                                 kmrun_build **out, kmrun_error **err);
void kmrun_build_free(kmrun_build *b);

/* One thing built: an image, a host fallback's object or the kernels'. */
typedef struct kmrun_built {
    bool hit;           /* it came from the cache */
    const char *sha256; /* of the file, in hex */
    const char *key;    /* the cache entry's key, in hex */
    const char *path;   /* the file in the cache */
    uint64_t bytes;     /* an image's: what must fit in the image area */
    uint64_t text, rodata, data;
} kmrun_built;

/* The image of the program's i-th thread entry (the manifest's order);
 * with host, its host fallback's object; false for an i past the last
 * (or no host objects built).  Valid until kmrun_build_free. */
bool kmrun_build_image(const kmrun_build *b, size_t i, bool host, kmrun_built *out);
/* The kernels' object; false when the program has none. */
bool kmrun_build_kernels(const kmrun_build *b, kmrun_built *out);
/* The build as one JSON document, as `kmrun build` prints it: the
 * program, the cache, per thread its clusters and image (and host
 * object), the kernels, the cache's hits and misses.  The build's own. */
const char *kmrun_build_json(const kmrun_build *b);
/* The most bytes an image may hold (126,976). */
uint64_t kmrun_image_limit(void);
/* The compile_commands.json the build wrote (its opts' compile_commands),
 * shown from the working folder; NULL: none.  The build's own. */
const char *kmrun_build_compile_commands(const kmrun_build *b);

/* ---- Results reused -------------------------------------------------------------
 * A run is a function of its images, its manifest and input files, its
 * backend and kmrun itself (the simulator's model is in kmrun's code): a
 * result stored under a key of those all (locally, and remotely when the
 * cache has a remote) stands for a run of the same. */

/* The key (64 hex digits and a NUL) of a run of p on backend ("sim",
 * "host") with what b built (for "host", b built the host fallbacks too):
 * its images', host objects' and kernels' SHA-256s, the program as
 * kmrun_program_json gives it, its manifest's bytes and every region
 * file's, the backend, kmrun's version and the SHA-256 of the file that
 * holds kmrun's code (the kmrun executable, or libkmrun.so).  KMRUN_SYSTEM
 * when a file cannot be read. */
kmrun_status kmrun_result_key(const kmrun_build *b, const kmrun_program *p, const char *backend,
                              char key[65], kmrun_error **err);
/* The run JSON stored for key (allocated, free()): KMRUN_OK (and counted
 * in results_reused) or KMRUN_FAILED when there is none here or remotely
 * (or none intact). */
kmrun_status kmrun_cache_result_get(kmrun_cache *c, const char *key, char **run_json,
                                    kmrun_error **err);
/* Stores a run's JSON for key with the SHA-256 of each file of its run
 * folder (NULL: none), locally and remotely. */
kmrun_status kmrun_cache_result_put(kmrun_cache *c, const char *key, const char *run_json,
                                    const char *run_folder, kmrun_error **err);

/* ---- A bare ELF on one hart -----------------------------------------------------
 * A linked RV64 ELF (an instruction test, a measurement) on one simulated
 * X280 hart in machine mode, with no cluster and no kmx runtime, as
 * `kmrun exec` runs it (kmrun(1) says how it is loaded and how it ends). */

typedef struct kmrun_exec kmrun_exec;

/* Loads the ELF at `path`.  KMRUN_BUILD when it is not a linked RV64
 * executable, KMRUN_SYSTEM when it cannot be read.  *has_tohost (may be
 * NULL): whether it has a 'tohost' symbol (without one it can end only in
 * a trap, in wfi or at the limit). */
kmrun_status kmrun_exec_open(const char *path, kmrun_exec **out, bool *has_tohost,
                             kmrun_error **err);
void kmrun_exec_free(kmrun_exec *x);
/* Each instruction the hart executes from now on, a line of Spike's
 * commit log, to `line` (NULL: none). */
void kmrun_exec_trace(kmrun_exec *x, void (*line)(const char *text, void *ctx), void *ctx);

typedef enum kmrun_exec_end {
    KMRUN_EXEC_EXIT = 0,  /* the program wrote tohost */
    KMRUN_EXEC_LIMIT = 1, /* max_instructions retired or trapped */
    KMRUN_EXEC_TRAP = 2,  /* a trap taken with no handler installed */
    KMRUN_EXEC_WFI = 3,   /* wfi, which nothing can wake */
} kmrun_exec_end;

typedef struct kmrun_exec_result {
    kmrun_exec_end end;
    const char *end_name;     /* "exit", "limit", "trap" or "wfi" */
    uint64_t exit_code;       /* KMRUN_EXEC_EXIT only */
    uint64_t instructions, cycles;
    uint64_t traps;           /* taken: with instructions, what the limit counts */
    uint64_t mcause, mepc, mtval; /* KMRUN_EXEC_TRAP only */
    char cause[48];           /* mcause's name ("illegal_instruction") */
} kmrun_exec_result;

/* Runs it to its end, at most max_instructions (more than 0). */
/* Profiles the hart exactly (kmrun.h's kmrun_session_profile, for one
 * hart: the same run, slower), before kmrun_exec_run (not under
 * kmrun_exec_debug); kmrun_exec_profile_write then writes profile.folded
 * and profile.json into `folder` (which must exist), the hart as core
 * "0.0", for kmrun_profile_open.  KMRUN_USAGE when it was not profiled. */
kmrun_status kmrun_exec_profile(kmrun_exec *x, kmrun_error **err);
kmrun_status kmrun_exec_profile_write(const kmrun_exec *x, const char *folder, kmrun_error **err);

kmrun_status kmrun_exec_run(kmrun_exec *x, uint64_t max_instructions, kmrun_exec_result *out,
                            kmrun_error **err);
/* The same under gdb-multiarch on 127.0.0.1:port (0: any free one), as
 * kmrun_run_debug: `waiting` gets the port and the debugger's command
 * line, the hart waits at its entry.  KMRUN_SYSTEM when the port cannot
 * be had or nobody connects; KMRUN_FAILED when the debugger killed the
 * program before its end. */
kmrun_status kmrun_exec_debug(kmrun_exec *x, uint64_t max_instructions, int port,
                              void (*waiting)(int port, const char *command, void *ctx),
                              void *ctx, kmrun_exec_result *out, kmrun_error **err);

/* ---- Instruction traces ---------------------------------------------------------
 * A traced core's trace-cC.K.kmt from a run folder (kmrun(1), FILES),
 * read back instruction by instruction as the core retired them, as
 * `kmrun trace` prints it. */

typedef struct kmrun_trace kmrun_trace;

/* A register or CSR an instruction wrote. */
typedef struct kmrun_trace_write {
    char file; /* 'x', 'f' or 'c' (a CSR) */
    unsigned num;
    uint64_t value;
} kmrun_trace_write;

/* One retired instruction: what Spike's commit log says of it, and the
 * cycle (the cluster's clock, cycles of the X280 clock) it started at. */
typedef struct kmrun_trace_insn {
    uint64_t cycle, pc;
    uint32_t bits;
    unsigned len; /* 2 (compressed) or 4 */
    unsigned nwrites;
    kmrun_trace_write writes[4];
    bool load, store;
    uint64_t load_addr, store_addr, store_value;
    unsigned store_size;
} kmrun_trace_insn;

/* What a trace is of and how it ended; the trace's own. */
typedef struct kmrun_trace_header {
    unsigned cluster, core;
    const char *image;        /* the image the core ran ("" unknown) */
    const char *image_sha256; /* its SHA-256 in hex ("" unknown) */
    const uint64_t *ranges;   /* its filter: nranges pc ranges [lo, hi), pairs */
    size_t nranges;           /* 0: every instruction was recorded */
    uint64_t limit;           /* its size bound, bytes */
    uint64_t recorded, seen;  /* in the file; retired while it recorded */
    bool cut;                 /* the bound stopped it */
    uint64_t cut_cycle;       /* then: the cycle of the first one left out */
} kmrun_trace_header;

/* Opens the trace at `path`: KMRUN_USAGE when it is not one, KMRUN_SYSTEM
 * when it cannot be read or is truncated (no end record: its run was cut
 * off) — said, never read as a shorter trace. */
kmrun_status kmrun_trace_open(const char *path, kmrun_trace **out, kmrun_error **err);
void kmrun_trace_free(kmrun_trace *t);
void kmrun_trace_header_get(const kmrun_trace *t, kmrun_trace_header *out);
/* The next instruction: *done true after the last; KMRUN_SYSTEM for a
 * damaged record. */
kmrun_status kmrun_trace_next(kmrun_trace *t, kmrun_trace_insn *out, bool *done,
                              kmrun_error **err);
/* The instruction as a line of Spike's commit log (--log-commits) for
 * core `core` (its mhartid), without the newline, into buf (n bytes; 256
 * is always enough); returns its length. */
size_t kmrun_trace_spike_line(const kmrun_trace_insn *i, unsigned core, char *buf, size_t n);

/* Where addresses of an X280 image are in its sources (its DWARF, with
 * the toolchain's addr2line, all at once): out[i] for addresses[i],
 * known false where it cannot say. */
typedef struct kmrun_source {
    bool known;
    char file[512];
    unsigned line;
    char function[256]; /* "" unknown */
} kmrun_source;
void kmrun_source_lines(const char *image, const uint64_t *addresses, size_t n,
                        kmrun_source *out);

/* An image's instructions as text, from one run of the toolchain's
 * objdump -d over it (the one beside $KMRUN_CC's compiler, else
 * riscv64-unknown-elf-objdump): NULL when there is no such tool or image
 * (nothing fails for want of it). */
typedef struct kmrun_disassembly kmrun_disassembly;
kmrun_disassembly *kmrun_disassemble(const char *image);
/* The instruction at pc ("addi a0,a0,1"), or NULL when the image has
 * none there.  The disassembly's own. */
const char *kmrun_disassembly_at(const kmrun_disassembly *d, uint64_t pc);
void kmrun_disassembly_free(kmrun_disassembly *d);

/* ---- A new program -------------------------------------------------------------
 * `kmrun new`: a folder with a program to start from, made from one of
 * kmrun's templates (its data folder's templates/: "thread", "host-fed",
 * "ports"). */

/* Makes the folder `folder` (which must not exist) holding the template's
 * program.yaml (named after the folder's last part, with its `expect:`),
 * its sources and README.md, written whole or not at all: made beside it
 * under a temporary name and renamed.  The program runs and passes
 * `kmrun test` as it is.  KMRUN_USAGE for a folder that exists, a name
 * that is not a program's or an unknown template (the message names
 * those there are); KMRUN_SYSTEM when it cannot be written or the
 * templates are missing. */
kmrun_status kmrun_new_program(const char *folder, const char *template_name, kmrun_error **err);

/* ---- Text as kmrun shows it ----------------------------------------------------
 * What kmrun shows of a name, a path or a message is printable: a byte
 * that is not (a control byte, DEL, either byte of a C1 control, a byte
 * that is not part of well-formed UTF-8) is written as a backslash and
 * three octal digits ("\033", "\377"), as C and bash's $'...' read them.
 * A tool built on the library shows what it reads from manifests and run
 * folders the same way. */

/* Keep newlines and tabs. */
#define KMRUN_SHOW_LINES 1u
/* Escape the backslash and the single quote too: inside kmrun_quote's quotes. */
#define KMRUN_SHOW_QUOTED 2u
/* The most one character is shown as, with its NUL. */
#define KMRUN_SHOWN_MAX 12

/* The next character of s[0..len) as it is shown, into out (NUL-ended),
 * its length into *outlen; returns the bytes of s it covers (1 to 4; 0
 * only when len is 0). */
size_t kmrun_show_next(const char *s, size_t len, unsigned how, char out[KMRUN_SHOWN_MAX],
                       size_t *outlen);
/* s[0..len) as it is shown, into buf (n bytes, NUL-ended; a text too long
 * ends in "..."); returns buf. */
char *kmrun_escape(char *buf, size_t n, const char *s, size_t len, unsigned how);
/* `name` as every message of kmrun shows a name or a path: between single
 * quotes, escaped with KMRUN_SHOW_QUOTED; NULL is "(none)".  Into buf
 * (n bytes; KMRUN_QUOTE_BYTES is always enough); returns buf. */
#define KMRUN_QUOTE_BYTES 1024
char *kmrun_quote(char *buf, size_t n, const char *name);
/* v with thousands separators ("126,976"), into buf; returns buf. */
char *kmrun_thousands(uint64_t v, char *buf, size_t n);
/* A size as the manifest takes one: bytes ("4096", "0x1000") or a number
 * and B, KiB, MiB or GiB ("512MiB", "4 KiB").  False when it is not one;
 * then *hint (may be NULL) is the unit probably meant ("MiB" for "MB"),
 * or NULL. */
bool kmrun_parse_size(const char *text, uint64_t *bytes, const char **hint);
/* "4 GiB", "64 KiB" when exact, else "4100 bytes", into buf; returns buf. */
const char *kmrun_format_size(uint64_t bytes, char *buf, size_t n);
/* The one of names[0..n) nearest to `word` (a misspelling of it), or NULL. */
const char *kmrun_suggest(const char *word, const char *const *names, size_t n);

#ifdef __cplusplus
}
#endif

#endif
