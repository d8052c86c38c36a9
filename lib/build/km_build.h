/* km_build: `kmrun build` — a program's thread images and its kernels'
 * shared object, out of the content-addressed cache or built through Ninja.
 *
 * The flow: compute each target's direct key from what is known before
 * compiling (lib/build/build_keys.c); a target whose key leads through its
 * direct-mode record to an intact entry is a hit, with no compiler run.
 * Misses are built by Ninja in the program's work folder under the cache
 * (one build at a time per manifest, under a lock; concurrent builds of the
 * same program wait and then find the entries the first one stored), each
 * image checked (lib/build/km_image.h), then stored. */
#ifndef KM_BUILD_H
#define KM_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "km_cache.h"
#include "km_error.h"
#include "km_hash.h"
#include "km_proc.h"
#include "km_program.h"

/* The compilers' colours (-fdiagnostics-color). */
enum {
    KM_COLOR_DEFAULT = 0, /* no flag: the compiler's choice (none: Ninja pipes it) */
    KM_COLOR_ALWAYS = 1,
    KM_COLOR_NEVER = 2,
};

typedef void (*km_diag_fn)(const km_diag *d, void *ctx);

/* `path`, named relative to folder `base` (NULL: the working folder) or
 * absolute, as a person in folder `cwd` reads it, as gcc and cargo show
 * one: relative to cwd when it is under cwd, or under base with cwd near
 * (the two share their first folder: "../x/a.c"), else absolute (a system
 * header, a program far away).  Allocated (lib/build/build_diag.c). */
char *km_diag_path(const char *path, const char *base, const char *cwd);

typedef struct km_build_opts {
    int jobs;              /* ninja -j; 0: Ninja's default */
    bool host;             /* also each thread's host fallback (kmx/host/kmx_host.h) */
    km_line_fn progress;   /* Ninja's "[n/m] ..." lines, when set */
    km_line_fn output;     /* the compilers' messages (warnings), when set: their
                            * text, each file shown from the working folder */
    /* Set: the compilers report structured (gcc's JSON; clang's text is
     * read), and each finding of a build that succeeds comes here instead
     * of `output` (build_diag.c). */
    km_diag_fn diagnostic;
    int color;             /* KM_COLOR_*: the compilers' colours in `output` */
    /* Not NULL: a failed build's findings are appended here — the
     * compilers', then kmrun's word on each step that failed, coded
     * (build.compile, build.failed, build.link, image.*) — as its message
     * tells them. */
    km_diags *failure;
    /* Not NULL, with color KM_COLOR_ALWAYS: a failed build's message
     * with the compilers' colours in it (allocated), as a person reads it;
     * every other control byte shown escaped (km_diag_safe). */
    char **painted;
    /* Write compile_commands.json beside the manifest (km_build_result's
     * compile_commands): every source's compile, as Ninja runs it. */
    bool compile_commands;
    /* The debug profile whatever the manifest's `build:` says (kmrun
     * build --debug): -Og -g3 for -O2 -g in every compile, and so other
     * cache keys. */
    bool debug;
    void *ctx;
} km_build_opts;

typedef struct km_built {
    bool hit;
    char key[KM_HEX_LEN];    /* the entry's key */
    char sha256[KM_HEX_LEN]; /* of the file itself */
    char *path;              /* the cached image.elf, kernels.so or thread_host.so */
    uint64_t bytes;          /* images: what must fit in the image area */
    uint64_t text, rodata, data;
} km_built;

typedef struct km_build_result {
    km_built *threads;     /* one per program thread entry, in order */
    size_t nthreads;
    km_built *hosts;       /* with opts->host: each thread's fallback, in order */
    bool has_hosts;
    km_built kernels;      /* valid when has_kernels */
    bool has_kernels;
    char *handlers_header; /* the generated KM_HANDLERS_HEADER */
    char *work_dir;
    unsigned hits, misses;
    char *compile_commands; /* the file written (opts' compile_commands), or NULL */
    bool debug;             /* built in the debug profile (opts' debug, `build: debug`) */
} km_build_result;

int km_build(const km_program *p, km_cache *c, const km_build_opts *opts,
             km_build_result *out, km_error *err);
void km_build_result_free(km_build_result *r);

/* The generated header with the HANDLER_<NAME> ids, which thread and
 * kernel sources include as "kmrun_handlers.h", and its text. */
#define KM_HANDLERS_HEADER "kmrun_handlers.h"

/* What kmrun's own sources (the kmx runtime, the generated headers) are
 * called in an image's and a kernels' object's debug information
 * (-ffile-prefix-map): a source line under it is the runtime's. */
#define KM_RUNTIME_SOURCE "/kmrun"

/* The ISA an image is compiled and linked for: the X280's (RV64GC, the
 * B extension's Zba and Zbb, V 1.0 and Zfh; its Zvfh adds no encodings,
 * and Debian 12's binutils do not know the name). */
#define KM_IMAGE_MARCH "rv64gcv_zba_zbb_zfh"
/* km_handlers.h's text for p (its handlers' ids); allocated; NULL when
 * memory ran out. */
char *km_handlers_header(const km_program *p);

#endif
