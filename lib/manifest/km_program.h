/* km_program: the program model, the one tree every stage after the
 * manifest uses (build, load, run, check).  Nothing re-reads YAML.
 *
 * It is the spec's host API (`Program`, `Program.region`, `Program.thread`,
 * `Program.ports`, the pull settings) plus kmrun's own additions: host-fed
 * commands, the X280 clock and what a run must give (`expect:`, which
 * `kmrun test` holds runs to; lib/expect/ compares).  km_manifest_load() fills it and checks the
 * spec's rules; so does km_code (km_program_code.h) for a program built in
 * code, through the same walk and the same checks.  Every string and array
 * here is owned by the model and freed by km_program_free().  Paths are
 * already resolved against the manifest's folder (a program built in code:
 * its root).  Each element keeps its manifest position for later errors
 * (built in code: line 0). */
#ifndef KM_PROGRAM_H
#define KM_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_error.h"
#include "kmx_host.h"

typedef struct km_pos {
    int line, col; /* 1-based position in the manifest */
} km_pos;

/* How a region's initial bytes are given. */
typedef enum km_init_kind {
    KM_INIT_ZERO,  /* a size: zeros */
    KM_INIT_FILE,  /* a file's bytes, then zeros up to `size` */
    KM_INIT_WORDS, /* a list of 32-bit little-endian words, then zeros */
    KM_INIT_FILL,  /* a 32-bit pattern repeated over `size` */
    KM_INIT_BYTES, /* bytes given in memory (a program built in code), then zeros */
} km_init_kind;

/* Bytes given in memory, shared by reference between the document built
 * in code and each model walked from it (never changed once made). */
typedef struct km_blob {
    size_t refs;
    size_t n;
    unsigned char data[];
} km_blob;

/* A blob holding a copy of bytes[0..n) with one reference; NULL when
 * memory runs out. */
km_blob *km_blob_new(const void *bytes, size_t n);
km_blob *km_blob_ref(km_blob *b);
void km_blob_unref(km_blob *b);

typedef struct km_region {
    char *name;
    uint64_t size;      /* bytes, a multiple of 4, > 0 */
    km_init_kind init;
    char *file;         /* KM_INIT_FILE: the resolved path */
    uint32_t *words;    /* KM_INIT_WORDS */
    size_t nwords;
    uint32_t fill;      /* KM_INIT_FILL */
    km_blob *bytes;     /* KM_INIT_BYTES: at most `size` of them (a reference) */
    km_pos pos;
    /* `placement: interleaved` (program regions only): an interleaved
     * tensor, its pages of page_size bytes dealt over the eight banks
     * (km_card_io.h, km_interleaved_page); Tensix cores only reach it
     * (km_tensor_of), no thread names it.  false: pages of a bank. */
    bool interleaved;
    uint32_t page_size; /* interleaved: bytes a page (KM_PAGE_SIZE_DEFAULT unless given) */
    km_pos placement_pos;
} km_region;

/* An interleaved region's page size unless `page_size` says: one
 * bfloat16 32 x 32 tile, tt-metal's usual DRAM page. */
#define KM_PAGE_SIZE_DEFAULT 2048u

/* Which compiler builds a thread's sources for the card (the image is
 * linked with the same runtime and checked by the same rules either way). */
typedef enum km_compiler {
    KM_COMPILER_GCC,   /* Debian's riscv64-unknown-elf-gcc (12): the default */
    KM_COMPILER_CLANG, /* Debian's clang-19: the RVV intrinsics and auto-vectoriser */
} km_compiler;

typedef enum km_prefetch {
    KM_PREFETCH_DEFAULT, /* the values the chip's documentation recommends */
    KM_PREFETCH_KEEP,    /* leave the prefetcher registers as they are */
} km_prefetch;

/* Where the thread's command ring lives (spec "The command ring"). */
typedef enum km_ring_place {
    KM_RING_REMOTE, /* command lines in the dispatcher's LIM, events in the thread's */
    KM_RING_CACHED, /* both halves in cached lines of the thread's bank (sweeps) */
} km_ring_place;

/* One `threads:` entry.  `clusters: [2, 3]` declares the same thread (one
 * image) on each cluster; each has its own copy of its regions. */
typedef struct km_thread {
    int clusters[3];
    size_t nclusters;
    char **sources;     /* resolved paths, in order */
    size_t nsources;
    km_region *regions; /* own regions; ids 0.. in this order */
    size_t nregions;
    char **shared;      /* names of program regions; ids follow own ones */
    size_t nshared;
    uint32_t *words;    /* the program's own words, KMX_MAX_WORDS at most */
    size_t nwords;
    uint64_t deadline_us; /* 0: no deadline */
    km_prefetch prefetch;
    km_ring_place ring;
    char **cflags;      /* extra compiler flags for this thread's sources */
    size_t ncflags;
    km_compiler compiler;
    /* The host fallback given as a function (no manifest gives one: the
     * program's host sets it, kmrun.h's kmrun_program_host_fallback):
     * call NULL, none; the fallback is then built from `sources`. */
    kmx_host_fallback fallback;
    km_pos pos;
} km_thread;

typedef struct km_kernels {
    char **sources;  /* resolved paths of the Tensix handlers' C sources */
    size_t nsources;
    char **handlers; /* names; HANDLER_<NAME> = KM_HANDLER_FIRST_PROGRAM + i */
    size_t nhandlers;
    char **cflags;
    size_t ncflags;
    km_pos pos;
} km_kernels;

typedef enum km_ports_kind {
    KM_PORTS_NONE,    /* no `ports:` and no `pull:` */
    KM_PORTS_DEFAULT, /* Tensix cores dealt over the threads' X280 cores */
    KM_PORTS_SERVE,   /* an explicit map */
} km_ports_kind;

typedef struct km_port_serve {
    int core;      /* Tensix core, 0..BH_GRID_CORES-1 */
    int cluster;   /* one of the program's threads' clusters */
    int x280_core; /* 0..3 */
    km_pos pos;
} km_port_serve;

typedef struct km_ports {
    km_ports_kind kind;
    km_port_serve *serve;
    size_t nserve;
    km_pos pos;
} km_ports;

typedef enum km_pull_mode {
    KM_PULL_MODE_COUNT,
    KM_PULL_MODE_LOG,
    KM_PULL_MODE_REPLAY,
} km_pull_mode;

typedef struct km_pull {
    bool present;
    uint32_t units;
    uint32_t per;
    km_pull_mode mode;
    char *log; /* region name, for log and replay */
    km_pos pos;
} km_pull;

/* A command the host feeds through the host ring. */
typedef struct km_host_command {
    char *handler;    /* a program handler or a built-in name */
    int handler_id;   /* resolved id */
    uint32_t first;   /* group: first Tensix core */
    uint32_t count;   /* group: number of cores */
    uint32_t args[10]; /* a0..a9 of the command line */
    size_t nargs;
    bool result;      /* KM_FLAG_RESULT */
    bool exclusive;   /* KM_FLAG_EXCLUSIVE */
    bool wait;        /* wait for its event before the next one (default) */
    km_pos pos;
} km_host_command;

/* `expect:` — what a run of the program must give, for `kmrun test`
 * (kmrun-program(5), "Expect").  Each expectation keeps the position of
 * its value in the manifest, so that a difference names the line it
 * breaks.  `on` says on which backends an item is checked: 0 on every
 * one, else KM_EXPECT_ON_* bits (its `backend:`). */
#define KM_EXPECT_ON_SIM 1u
#define KM_EXPECT_ON_HOST 2u
#define KM_EXPECT_PRINTS_MAX 256
#define KM_EXPECT_FIRST_MAX 4096 /* bytes of `first:` */

typedef struct km_expect_thread {
    int cluster;        /* the result on this cluster (the run JSON's `threads`) */
    unsigned on;
    char *state;        /* a run JSON state name; NULL: not checked */
    bool has_code;
    int32_t code;
    bool has_words;
    uint32_t *words;    /* exactly these result words */
    size_t nwords;
    bool has_prints;
    char **prints;      /* the texts of the cluster's prints, in order */
    size_t nprints;
    km_pos pos, state_pos, code_pos, words_pos, prints_pos;
} km_expect_thread;

typedef struct km_expect_region {
    char *name;
    int cluster;        /* whose copy; 0: the only thread's that has one */
    unsigned on;
    char *sha256;       /* 64 lowercase hex digits; NULL: not checked */
    uint8_t *first;     /* the region's first bytes; NULL: not checked */
    size_t nfirst;
    km_pos pos, sha256_pos, first_pos;
} km_expect_region;

typedef struct km_expect_command {
    uint32_t handle;    /* the manifest's command number, from 1 */
    unsigned on;
    char *event;        /* "done", "timeout" or "rejected"; NULL: not checked */
    bool has_result;    /* `result:` given: a word, or none (null) */
    bool result_none;
    uint32_t result;
    km_pos pos, event_pos, result_pos;
} km_expect_command;

typedef struct km_expect {
    bool present;       /* the manifest has `expect:` */
    unsigned backends;  /* KM_EXPECT_ON_* `kmrun test` runs it on (default sim) */
    km_expect_thread *threads;
    size_t nthreads;
    km_expect_region *regions;
    size_t nregions;
    km_expect_command *commands;
    size_t ncommands;
    km_pos pos;         /* the `expect:` key */
} km_expect;

typedef struct km_program {
    char *manifest;   /* the manifest's path as given; NULL: built in code */
    char *root;       /* the manifest's folder, absolute (built in code: its root) */
    char *name;
    km_kernels kernels;
    km_region *regions; /* program-level regions (`Program.region`) */
    size_t nregions;
    km_thread *threads;
    size_t nthreads;
    km_ports ports;
    km_pull pull;
    km_host_command *commands;
    size_t ncommands;
    uint32_t x280_mhz; /* 1000 (default) or 1750 */
    /* `check_handover: true`: runs on the simulated card keep and report
     * the hand-overs a missing kmx_invalidate or kmx_flush makes wrong
     * (as `--check-handover` does; either turns it on). */
    bool check_handover;
    km_expect expect;
    /* `build: debug`: every compile -Og -g3 instead of the release
     * profile's -O2 -g (the default), for stepping that follows the
     * source; the profile is in the flags, so in every cache key. */
    bool debug_build;
} km_program;

/* Parses and checks a manifest.  Returns KM_OK, KM_EXIT_USAGE with every
 * positioned error in diags, or KM_EXIT_SYSTEM (unreadable file) in err.
 * On failure *out is NULL: nothing is half-loaded. */
int km_manifest_load(const char *path, km_program **out, km_diags *diags,
                     km_error *err);

void km_program_free(km_program *p);
/* Frees what e holds and leaves it empty (km_program_free does it). */
void km_expect_free(km_expect *e);

/* Whether s is a program's name: letters, digits, '_', '.' and '-', at
 * most 64 characters, not "." or "..". */
bool km_program_name_valid(const char *s);

/* The thread running on `cluster`, or NULL. */
const km_thread *km_program_thread_on(const km_program *p, int cluster);

/* A program-level region by name, or NULL. */
const km_region *km_program_region(const km_program *p, const char *name);

/* The DRAM bank of a work cluster (1 -> 6, 2 and 3 -> 7), or -1. */
int km_cluster_bank(int cluster);

#endif
