/* km_expect: a finished run held to its program's `expect:` (km_program.h),
 * the comparison `kmrun test` makes.
 *
 * The promise: given the program, the run's JSON (as `kmrun run` printed
 * it, schemas/run.schema.json) and a way to read its region copies (the
 * run folder, or the run in memory), km_expect_check lists every
 * expectation the run breaks, each with the manifest's file:line:col of
 * the value it came from, what was expected and what came, in the
 * manifest's order; it never runs anything and never prints.  Items with
 * a `backend:` other than the run's are left out.  Beyond the items, a
 * run must have gone well: every thread `returned` and every command
 * `done` unless an item names its state or event, and no hand-over
 * finding, wild write or Tensix handler taken out (those differences are
 * placed at the `expect:` key, or at the thread's or command's item).
 * Times are never compared.
 *
 * Each difference says whether it is only a value (km_fix): one that the
 * run's own value could replace in the manifest (`kmrun test --bless`,
 * km_bless.h) — a thread's words, prints and code, a state or event
 * other than the normal end the item names, a region's SHA-256 or first
 * bytes, a command's result word — or a failure no rewrite makes right:
 * a thread that did not return when the item says it must (or gave no
 * code), a command not done that should be, a thread or command missing
 * from the run, a region that cannot be read, anything the card found. */
#ifndef KM_EXPECT_H
#define KM_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include "km_error.h"
#include "km_program.h"
#include "yaml_edit.h"

/* What the manifest's value would become for the run to hold to it. */
typedef struct km_fix {
    bool ok;            /* only a value: the run's can replace it */
    unsigned on;        /* the item's backends (KM_EXPECT_ON_*; 0: all it runs on) */
    bool list;          /* words, prints: a list; else a scalar */
    km_yaml_value_kind old_kind, kind;
    char **old, **now;  /* the manifest's items, the run's */
    size_t nold, nnow;
} km_fix;

typedef struct km_mismatch {
    km_pos pos;     /* the expectation's value in the manifest */
    char *subject;  /* "thread on cluster 1", "region 'out' of cluster 1",
                     * "command 2 (sum)", "the run" */
    char *expected; /* "words [42, 7]" */
    char *got;      /* "[42]" */
    char *text;     /* "file:line:col: subject: expected ..., got ..." */
    km_fix fix;     /* fix.ok false: a failure, not a value */
} km_mismatch;

typedef struct km_verdict {
    char *file;     /* the manifest, as the program names it */
    char *backend;  /* the run's ("sim", "host") */
    size_t checked; /* the expectations compared (state, code, words, a
                     * region's sha256, ...): those that applied */
    km_mismatch *items;
    size_t n, cap;
} km_verdict;

/* Reads region `name` of `cluster`'s copy: *data its bytes, *owned what
 * the verdict frees after use (NULL: the reader keeps them).  *map (set to
 * NULL before the call: every byte may be data), when the reader knows
 * where nobody wrote: bit k set when bytes [k, k + 1) * KM_EXPECT_UNIT may
 * hold a byte other than zero; the others are hashed as zeros, unread (a
 * page of a large copy never written costs nothing until it is read);
 * *owned_map what the verdict frees of it.  KM_OK, or a status and err
 * (the difference then says err's message). */
#define KM_EXPECT_UNIT 4096u
typedef int (*km_expect_reader)(void *ctx, const char *name, int cluster, const void **data,
                                size_t *bytes, void **owned, const uint64_t **map,
                                void **owned_map, km_error *err);

/* Compares the run whose JSON is run_json with p's expectations, its
 * regions read through `read`; *out (filled whatever the outcome, freed
 * by km_verdict_free) lists the differences.  KM_OK when the comparison
 * was made, whatever it found; KM_EXIT_USAGE when run_json is not a
 * run's JSON (the message says why); KM_EXIT_SYSTEM when memory runs
 * out. */
int km_expect_check(const km_program *p, const char *run_json, km_expect_reader read, void *ctx,
                    km_verdict *out, km_error *err);

void km_verdict_free(km_verdict *v);

/* The run folder a run's JSON names (its run_dir), allocated; NULL when
 * it names none or is not JSON, or (*oom true) when memory ran out. */
char *km_expect_run_dir(const char *run_json, bool *oom);

#endif
