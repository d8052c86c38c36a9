/* yaml_tree: one YAML document as a small tree of mappings, lists and
 * scalars, each node with the 1-based line and column where it starts.
 *
 * It is the manifest's reader, so it takes only what a manifest needs and
 * says so at the spot: one document, keys that are scalars and unique,
 * no aliases, no tags, nesting at most KM_YAML_MAX_DEPTH (deeper ends the
 * reading there, as a syntax error does).  libyaml's own
 * syntax errors become diagnostics at libyaml's problem mark.  Every error
 * of the text that libyaml lets it reach is reported, not just the first;
 * a syntax error ends the reading.  Scalars keep their text and whether
 * they were quoted; what a plain scalar means (YAML 1.2 core schema:
 * null, boolean, integer, float or string) is km_yaml_scalar_type(). */
#ifndef KM_YAML_TREE_H
#define KM_YAML_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "km_error.h"

#define KM_YAML_MAX_DEPTH 64

typedef enum km_yaml_kind {
    KM_YAML_SCALAR,
    KM_YAML_LIST,
    KM_YAML_MAP,
} km_yaml_kind;

/* What a scalar means: quoted scalars are strings; a plain one is read by
 * the YAML 1.2 core schema. */
typedef enum km_yaml_type {
    KM_YAML_STR,
    KM_YAML_NULL,
    KM_YAML_BOOL,
    KM_YAML_INT,
    KM_YAML_FLOAT,
} km_yaml_type;

typedef struct km_yaml_node km_yaml_node;

typedef struct km_yaml_pair {
    km_yaml_node *key; /* always a scalar */
    km_yaml_node *value;
} km_yaml_pair;

struct km_yaml_node {
    km_yaml_kind kind;
    int line, col;
    int end_line, end_col; /* just past its last character (libyaml's end mark;
                            * columns count characters, not bytes) */
    char style;          /* a scalar's: 0 plain, '\'', '"', '|' or '>'; a list's or a
                          * mapping's: 0 block, '[' or '{' flow */
    char *text;          /* KM_YAML_SCALAR: NUL-terminated, never NULL */
    bool quoted;         /* KM_YAML_SCALAR: single, double, literal or folded */
    bool reported;       /* stands for a value already reported (an alias):
                          * say nothing more about it */
    km_yaml_node **items; /* KM_YAML_LIST */
    km_yaml_pair *pairs;  /* KM_YAML_MAP, in document order */
    size_t n;             /* items or pairs */
    struct km_blob *blob; /* only in a document built in code (km_program_code.h):
                           * a region's initial bytes, a reference */
};

/* Reads `text` (`len` bytes; `file` names it in diagnostics).  KM_OK with
 * *root the document (NULL for a text with no document); KM_EXIT_USAGE
 * with the errors in diags, and *root the document without the refused
 * parts when it is still whole (duplicate keys, aliases, tags, a second
 * document), so that the caller can report its own errors too, or NULL
 * after a syntax error or too deep a nesting; KM_EXIT_SYSTEM in err when memory runs out.  The
 * caller frees *root in every case. */
int km_yaml_load(const char *file, const char *text, size_t len,
                 km_yaml_node **root, km_diags *diags, km_error *err);

void km_yaml_free(km_yaml_node *node);

/* The value of `key` in a mapping, or NULL (also when `map` is not one). */
const km_yaml_node *km_yaml_get(const km_yaml_node *map, const char *key);

/* The key node of `key`, for errors about the key itself. */
const km_yaml_node *km_yaml_key(const km_yaml_node *map, const char *key);

km_yaml_type km_yaml_scalar_type(const km_yaml_node *scalar);

/* "a mapping", "a list", "a string", "a number", "a boolean" or "null",
 * for "got ..." in messages. */
const char *km_yaml_describe(const km_yaml_node *node);

#endif
