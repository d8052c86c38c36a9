/* build_internal: what the parts of `kmrun build` share — km_build.c (the
 * flow), build_keys.c (cache keys, direct mode), build_search.c (the
 * include search order), build_cpp.c (preprocessor mode), build_ninja.c
 * (the generated build.ninja) and build_log.c (a failed tool's output).
 * One target is one thread image or the kernels' shared object. */
#ifndef KM_BUILD_INTERNAL_H
#define KM_BUILD_INTERNAL_H

#include "km_build.h"
#include "km_toolchain.h"

typedef enum km_target_kind {
    KM_TARGET_IMAGE,   /* a thread's image for the card */
    KM_TARGET_KERNELS, /* the kernels' shared object for the grid */
    KM_TARGET_HOST,    /* a thread's host fallback: a shared object (kmx_host.h) */
} km_target_kind;

/* The file a target makes, in its work folder and in its cache entry. */
const char *km_target_file(km_target_kind kind);

typedef struct km_target {
    km_target_kind kind;
    const km_thread *thread; /* images */
    char *name;              /* "t0", "kernels": its folder in the work dir */
    char *display;           /* "thread on cluster 1", for messages */
    char **sources;          /* as the compiler sees them: relative to root */
    size_t nsources;
    char **objs;             /* absolute, in the work dir */
    char *out;               /* absolute: .../t0/image.elf */
    const km_tool *cc;       /* what compiles its sources (an image links with gcc) */
    char **flags;            /* compile flags, the same in key and command */
    size_t nflags;
    km_digest dkey;          /* direct key: known before compiling */
    int cpp_rc;              /* 0: not yet; else km_cpp_key's, once a lookup */
    km_digest cpp_key;       /* (every alternative in preprocessor mode is one) */
    bool failed;             /* Ninja could not build it */
    bool remote_asked;       /* the remote storage was asked (once a build) */
    km_built *built;         /* where the result goes */
} km_target;

typedef struct km_build_ctx {
    const km_program *p;
    km_cache *c;
    km_data data;
    km_tool rv, host;
    km_tool clang; /* identified when a thread asks for it (has_clang) */
    bool has_clang;
    char *root;        /* the manifest's folder, real path */
    char *work;        /* the program's work folder */
    char *work_rel;    /* the same, under the cache's root (work/<hex>) */
    char *gen;         /* work/gen, holding km_handlers.h */
    char *header;      /* the generated header's text */
    km_target *targets;
    size_t ntargets;
    char *cwd;         /* the working folder, messages' paths are shown from */
    bool structured;   /* the compilers report structured (km_build_opts) */
    int color;         /* KM_COLOR_* */
    bool debug;        /* the debug profile: opts' debug or the manifest's build: debug */
} km_build_ctx;

/* build_keys.c */
/* The direct key; KM_EXIT_BUILD when a source is not text (a NUL byte,
 * unless the flags name another -finput-charset). */
int km_target_direct_key(km_build_ctx *b, km_target *t, km_error *err);
/* KM_OK: a hit; KM_CACHE_MISS; else an error in err (an entry that could
 * not be checked: memory, I/O). */
int km_target_lookup(km_build_ctx *b, km_target *t, km_error *err);
int km_target_store(km_build_ctx *b, km_target *t, km_error *err);

/* build_ninja.c */
int km_ninja_write(km_build_ctx *b, km_error *err);
/* A compile of t's as Ninja runs it, the one place its words come from
 * (build.ninja's, compile_commands.json's): the compiler, then the flags
 * expanded; allocated, *n words; NULL when memory ran out.  The rule
 * adds how it reports ($diag), the depfile, -c, the source and -o the
 * object. */
char **km_compile_words(const km_build_ctx *b, const km_target *t, size_t *n);
void km_words_free(char **w, size_t n);

/* build_commands.c: compile_commands.json beside the manifest (in b->root),
 * written atomically, of every compile of every target; its path into
 * *path (allocated). */
int km_compile_commands_write(km_build_ctx *b, char **path, km_error *err);
/* A flag template with ${root}, ${data} and ${gen} filled in; allocated;
 * NULL when memory ran out. */
char *km_flag_expand(const km_build_ctx *b, const char *flag);

/* build_cpp.c: whether direct mode cannot vouch for a compile that read
 * these files (one asks __has_include), and the preprocessor-mode key
 * (KM_OK, KM_CACHE_MISS when the preprocessor fails, KM_EXIT_SYSTEM when
 * memory ran out: the caller says so). */
bool km_cpp_needed(char *const *paths, size_t n);
int km_cpp_key(km_build_ctx *b, const km_target *t, km_digest *key);

/* build_log.c: whether a failed tool's output says the host ran out of a
 * resource — disk space, quota, a file size limit, memory — and which file
 * it names (into file, n bytes; "" when none). */
typedef enum km_log_resource {
    KM_LOG_NONE = 0,
    KM_LOG_NO_SPACE,  /* "No space left on device" (ENOSPC) */
    KM_LOG_QUOTA,     /* "Disk quota exceeded" (EDQUOT) */
    KM_LOG_FILE_SIZE, /* "File too large" (EFBIG), "File size limit exceeded" (SIGXFSZ) */
    KM_LOG_MEMORY,    /* "Cannot allocate memory" (ENOMEM), cc1's "out of memory" */
} km_log_resource;
km_log_resource km_log_resource_of(const char *output, char *file, size_t n);
/* When it does: KM_EXIT_SYSTEM and err's message "<what>: <the resource>
 * writing '<the file named>' (<what to do>)", or "making '<made>'" (what
 * the step makes) when the output names none; else KM_OK, err untouched. */
int km_log_resource_failure(const char *output, const char *what, const char *made,
                            km_error *err);

/* build_diag.c: what the compilers say, shown from the working folder
 * and read as findings (km_diag).  The codes of a build's findings
 * (kmrun(3) lists them). */
#define KM_CODE_COMPILE "build.compile" /* a compiler's finding */
#define KM_CODE_OUTPUT "build.output"   /* a line of a tool's that is no finding */
#define KM_CODE_FAILED "build.failed"   /* kmrun's word on a step that failed */
#define KM_CODE_LINK "build.link"       /* a link that failed */
#define KM_CODE_RESOURCE "build.resource" /* the host ran out of disk, quota, memory */
/* A compiler's text (run in `base`) with the location that begins each
 * line (after colour sequences, "In file included from", "from") shown
 * by km_diag_path, when it names a file; allocated. */
char *km_diag_rewrite(const char *text, const char *base, const char *cwd);
/* The findings of a compiler's output (run in `base`): gcc's JSON lines
 * (-fdiagnostics-format=json) and the text both compilers write ("file:
 * line:col: severity: message [-Woption]"), notes as children of the
 * finding before them, files shown by km_diag_path; a line that is
 * neither a finding nor part of one (a source excerpt, a caret, an
 * include chain, a count) becomes a note coded KM_CODE_OUTPUT, so that
 * nothing is lost.  Colour sequences are ignored.  Appended to out. */
void km_diag_parse(const char *text, const char *base, const char *cwd, km_diags *out);
/* Text without its colour sequences; allocated. */
char *km_diag_plain(const char *text);
/* Text as kmrun shows it (ks_escape, newlines and tabs kept) but its
 * colour sequences (ESC [ digits m or K), kept as they are; allocated. */
char *km_diag_safe(const char *text);
/* Whether the tool is clang (its --version says so), which has no JSON. */
bool km_tool_is_clang(const km_tool *t);
/* The flags a compile by t gets for how it reports: gcc's JSON when
 * structured (then never colour), else -fdiagnostics-color as `color`
 * (KM_COLOR_*) says; "" for the compiler's own choice. */
const char *km_diag_flags(const km_tool *t, bool structured, int color);

/* build_search.c: a growing list of allocated paths. */
typedef struct km_paths {
    char **items;
    size_t n, cap;
} km_paths;
/* Appends `path` (allocated; the list owns it now).  False when it is NULL
 * (its allocation failed) or memory ran out, `path` freed. */
bool km_paths_add(km_paths *p, char *path);
/* Frees every path and the list; *p is left empty. */
void km_paths_free(km_paths *p);

/* build_search.c: the folders a target's compiles search for headers, in
 * the compiler's order (as the flags name them: relative to the manifest's
 * folder or absolute). */
typedef struct km_search {
    km_paths dirs;
    bool oom; /* a folder was not kept: memory ran out */
} km_search;
/* KM_OK, or KM_EXIT_BUILD / KM_EXIT_SYSTEM when the compiler cannot say
 * where it looks (no proof, so no key). */
int km_search_order(km_build_ctx *b, const km_target *t, km_search *s, km_error *err);
void km_search_free(km_search *s);
/* Appends to *out where a file would shadow the header the compiler found
 * at `dep`: the same name in each folder searched before the one it was
 * found in, and in each including file's folder.  False when memory ran
 * out (*out holds what was appended before). */
bool km_search_candidates(const km_search *s, char *const *filedirs, size_t nfiledirs,
                          const char *dep, km_paths *out);

#endif
