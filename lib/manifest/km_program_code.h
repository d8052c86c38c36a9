/* km_program_code: a program built in code (the spec's `Program(...)`,
 * `Program.region`, `Program.thread`; include/kmrun.h's kmrun_program_new)
 * as the document a manifest would be: the caller makes its parts of the
 * manifest's own nodes (yaml_tree.h, without positions), and each part
 * added is walked with the whole document by the manifest's readers and
 * checks (manifest_internal.h), so that a program built in code meets
 * every rule a manifest meets, each written once.  One form a manifest
 * does not have: a region's initial bytes given in memory
 * (`{bytes: B[, size: S]}`, B a node made by km_code_blob).
 *
 * The promise: a part is added whole or not at all (a refused one leaves
 * the document and its model as they were), and its errors name it by the
 * label the caller gives ("thread 2: ..."), not by a line; c->p is always
 * the model of the document so far, checked as far as it goes; the rules
 * of a whole program (something to run, the banks' room) are
 * km_code_check's.  Relative paths are taken from the root folder given
 * at km_code_new. */
#ifndef KM_PROGRAM_CODE_H
#define KM_PROGRAM_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_error.h"
#include "km_program.h"
#include "yaml_tree.h"

typedef struct km_code {
    km_yaml_node *doc; /* the document so far: a mapping */
    char *root;        /* absolute: relative paths are taken from it */
    km_program *p;     /* the model of the document so far */
} km_code;

/* Nodes, each NULL when memory runs out.  A string is a quoted scalar; a
 * plain one is read as the manifest reads an unquoted value (a number, a
 * size such as 4096, a duration such as 1.5s). */
km_yaml_node *km_code_string(const char *s);
km_yaml_node *km_code_plain(const char *s);
km_yaml_node *km_code_uint(uint64_t v);
km_yaml_node *km_code_bool(bool v);
km_yaml_node *km_code_list(void);
km_yaml_node *km_code_map(void);
/* Region bytes given in memory: a copy of bytes[0..n). */
km_yaml_node *km_code_blob(const void *bytes, size_t n);
/* Appends `item` to a list, or `key: value` to a mapping; the node given
 * is taken (freed when memory runs out: false). */
bool km_code_push(km_yaml_node *list, km_yaml_node *item);
bool km_code_put(km_yaml_node *map, const char *key, km_yaml_node *value);

/* A program named `name` whose relative paths are taken from `root` (a
 * folder, made absolute here).  KM_EXIT_USAGE with the name's error in
 * diags (labelled "program"), KM_EXIT_SYSTEM (a root that is no folder,
 * no memory) in err. */
int km_code_new(km_code *c, const char *name, const char *root, km_diags *diags, km_error *err);

typedef enum km_code_how {
    KM_CODE_SET,    /* `key: value` at the top, replacing what was there */
    KM_CODE_APPEND, /* `value` appended to the list at `key` */
    KM_CODE_ENTRY,  /* `entry: value` added to the mapping at `key` */
} km_code_how;

/* Adds `value` (taken, whatever the outcome) to the document and walks it
 * again, its errors labelled `label`: KM_OK with c->p the new model;
 * KM_EXIT_USAGE with the errors in diags, or KM_EXIT_SYSTEM in err, and
 * the document and c->p as they were. */
int km_code_add(km_code *c, km_code_how how, const char *key, const char *entry,
                km_yaml_node *value, const char *label, km_diags *diags, km_error *err);

/* The document walked as a whole program (every rule a manifest meets),
 * errors labelled `label`: KM_OK with c->p the checked model. */
int km_code_check(km_code *c, const char *label, km_diags *diags, km_error *err);

void km_code_free(km_code *c);

#endif
