/* manifest_internal: what the manifest's readers share (manifest*.c).
 * Not part of the library's interface.
 *
 * The walk fills the program model from the YAML tree and reports every
 * error it finds at its node, then goes on: a value that is wrong is left
 * out (or left at its default) and the walk continues, so one run shows
 * every error of the file.  The model is thrown away when any was found.
 * The spec's rules between entries (manifest_check.c) are checked as the
 * walk reaches the second party of each, so that an error points at it.
 *
 * A program built in code (km_program_code.h) is a document of the same
 * nodes, made by the caller instead of read from YAML, walked by the same
 * readers and checks: its nodes have no position (line 0), `file` is then
 * the label of what is being added ("thread 2"), so that each error names
 * it, and `code` is set, so that a message names an earlier entry by its
 * number rather than its line. */
#ifndef KM_MANIFEST_INTERNAL_H
#define KM_MANIFEST_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_error.h"
#include "km_program.h"
#include "yaml_tree.h"

#define KM_NAME_MAX 64           /* program, region and handler names */
#define KM_REGION_MAX_BYTES (4ull << 30)
#define KM_DEADLINE_MAX_US (86400ull * 1000000ull) /* a day */
#define KM_COMMAND_ARGS 10

typedef struct km_mctx {
    const char *file; /* the manifest as named, for diagnostics (built in
                       * code: the label of what is added) */
    bool code;        /* the document was built in code */
    km_diags *diags;
    km_program *p;
    bool oom;
    size_t thread_entries;    /* entries in `threads`, valid or not */
    size_t command_entries;   /* entries in `commands`, valid or not */
    /* Per program region: the bank its first naming put it on, and the
     * line of that naming (shared regions follow one bank). */
    int *shared_bank;
    int *shared_line; /* built in code: the naming thread's number */
} km_mctx;

/* --- manifest.c: the walk ------------------------------------------- */

/* Walks document `root` into a new model: p->manifest is `manifest`
 * (NULL: built in code), p->root `root_dir`.  With `whole`, also the
 * rules of a whole program (something to run, the banks' room), which a
 * program built in code meets only once it is complete.  KM_OK with
 * *out; KM_EXIT_USAGE with every error in diags (as c.file and c.code
 * say), where the errors from `since` on (diags' count and dropped before
 * the document was read) count; KM_EXIT_SYSTEM when memory runs out.
 * Nothing is half-made. */
int km_manifest_walk(const km_yaml_node *root, const char *file, bool code,
                     const char *manifest, const char *root_dir, bool whole,
                     size_t since, km_program **out, km_diags *diags,
                     km_error *err);

/* "the thread at line N", or built in code "thread N" (its number), for
 * messages that name an earlier thread. */
const char *km_mthread_name(const km_mctx *c, const km_thread *t, char *buf,
                            size_t size);

/* --- manifest_values.c: typed values with their errors ------------- */

/* An error at node `at` (NULL: no position).  km_mdiag's code is
 * KM_MANIFEST_INVALID, km_mdiag_code's `code` (a static string, one of
 * the codes kmrun(3) lists). */
#define KM_MANIFEST_INVALID "manifest.invalid"
void km_mdiag(km_mctx *c, const km_yaml_node *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void km_mdiag_code(km_mctx *c, const char *code, const km_yaml_node *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void *km_mcalloc(km_mctx *c, size_t n, size_t size);
char *km_mstrdup(km_mctx *c, const char *s);

/* Reports every key of `map` not in keys[] as unknown `where` ("in a
 * thread"), with the closest known key when one is close. */
void km_mkeys(km_mctx *c, const km_yaml_node *map, const char *const *keys,
              size_t n, const char *where);
/* "missing 'key' where (expected ...)" at the mapping. */
void km_mmissing(km_mctx *c, const km_yaml_node *map, const char *key,
                 const char *where, const char *expected);

/* The checks below report a wrong value as "bad <what>: got <type>
 * (expected <expected>)" or "bad <what> '<text>' (expected ...)" and
 * return false; a node already reported by the YAML reader is refused
 * silently. */
bool km_mis_map(km_mctx *c, const km_yaml_node *n, const char *what,
                const char *expected);
bool km_mis_list(km_mctx *c, const km_yaml_node *n, const char *what,
                 const char *expected);
bool km_mis_string(km_mctx *c, const km_yaml_node *n, const char *what,
                   const char *expected);
bool km_mu32(km_mctx *c, const km_yaml_node *n, const char *what,
             uint32_t *out);
/* An integer lo..hi; `expected` words the range ("1, 2 or 3"). */
bool km_mint(km_mctx *c, const km_yaml_node *n, const char *what, long lo,
             long hi, const char *expected, long *out);
bool km_mbool(km_mctx *c, const km_yaml_node *n, const char *what, bool *out);
/* One of names[]; the index in *out.  A typo gets "did you mean". */
bool km_menum(km_mctx *c, const km_yaml_node *n, const char *what,
              const char *const *names, size_t count, const char *expected,
              int *out);
/* > 0, a multiple of 4, at most 4 GiB. */
bool km_msize(km_mctx *c, const km_yaml_node *n, const char *what,
              uint64_t *out);
bool km_mdeadline(km_mctx *c, const km_yaml_node *n, uint64_t *out_us);

/* A list of non-empty strings (compiler flags). */
char **km_mflags(km_mctx *c, const km_yaml_node *n, const char *what,
                 size_t *count);
/* A list of readable files, resolved against the manifest's folder, each
 * once; `list_what` names the list ("sources"), `what` one ("source
 * file").  NULL with *count 0 when the node is not a list. */
char **km_mfiles(km_mctx *c, const km_yaml_node *n, const char *list_what,
                 const char *what, const char *expected, size_t *count);
/* One readable regular file; its resolved path, and its size in *bytes. */
char *km_mfile(km_mctx *c, const km_yaml_node *n, const char *what,
               uint64_t *bytes);

bool km_is_identifier(const char *s);

/* --- manifest_regions.c ------------------------------------------ */

/* Reads `name: value` into *r (always fills the name, so that later
 * references do not cascade into more errors). */
void km_read_region(km_mctx *c, const km_yaml_node *key,
                    const km_yaml_node *value, km_region *r);
/* A mapping of regions (`what` names it in errors: "regions"), names
 * unique whatever their case. */
km_region *km_read_regions(km_mctx *c, const km_yaml_node *map,
                           const char *what, size_t *count);

/* --- manifest_threads.c, manifest_ports.c, manifest_commands.c ------ */

void km_read_threads(km_mctx *c, const km_yaml_node *list);
void km_read_ports(km_mctx *c, const km_yaml_node *n);
void km_read_pull(km_mctx *c, const km_yaml_node *n);
void km_read_commands(km_mctx *c, const km_yaml_node *list);
/* manifest_expect.c: `expect:` (`key` its key, `n` its value), after the
 * threads and commands it names. */
void km_read_expect(km_mctx *c, const km_yaml_node *key, const km_yaml_node *n);

/* --- manifest_check.c: the spec's rules between entries ------------ */

bool km_check_init(km_mctx *c);
void km_check_fini(km_mctx *c);
/* A cluster of thread `t` (not yet in the model): free, not taken by an
 * earlier entry. */
bool km_check_cluster_free(km_mctx *c, const km_thread *t, long cluster,
                           const km_yaml_node *at);
/* A shared name of thread `t`: a program region, not one of t's own
 * regions or earlier shared names (whatever the case), on one bank with
 * its other namings; counted in that bank. */
bool km_check_shared(km_mctx *c, const km_thread *t, const char *name,
                     const km_yaml_node *at);
/* Region names unique in one set, whatever their case. */
void km_check_region_names(km_mctx *c, const km_region *r, size_t n);
/* A whole program's regions fit their banks, by the placement's rule
 * (km_plan_make); else the first region past its bank is reported. */
void km_check_banks(km_mctx *c);
/* A cluster that runs a thread; else reports the ones that do. */
bool km_check_thread_cluster(km_mctx *c, long cluster, const km_yaml_node *at);
/* The pull log: a region of every thread, own or shared. */
void km_check_pull_log(km_mctx *c, const char *log, const km_yaml_node *at);
/* Ports and pull need threads; a program needs threads or commands. */
bool km_check_needs_thread(km_mctx *c, const char *what,
                           const km_yaml_node *at);
void km_check_something_to_run(km_mctx *c, const km_yaml_node *root);

#endif
