/* yaml_edit: values of a YAML text replaced in place, the rest of the text
 * kept byte for byte (`kmrun test --bless` rewriting a manifest's
 * expect:).
 *
 * The promise: each edit names a value by the line and column where it
 * starts (as yaml_tree gives them, so as a manifest's km_pos) and says
 * what it held and what it must hold; only the bytes of the values that
 * differ change.  A scalar keeps its quoting (plain, single or double
 * quoted) when the new value can be written so, else it is double
 * quoted; a list keeps its flow or block style: items that differ are
 * replaced one by one, items past the old end are added in the style
 * and indentation of the last one (a block list's after the end of its
 * line, so that a comment there stays with its item), items past the new
 * end are taken away (a block list's whole lines).  Comments, key order,
 * indentation and blank lines never move.  An edit whose value is not
 * there, not of the kind it says or no longer holds what it says is
 * refused, and then nothing is edited: the text is all or nothing.  It
 * never reads or writes a file. */
#ifndef KM_YAML_EDIT_H
#define KM_YAML_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "km_error.h"

/* How a value's items are compared and written. */
typedef enum km_yaml_value_kind {
    KM_YAML_VALUE_INT,  /* integers: the same number however written (0x10 is 16);
                         * new ones in decimal */
    KM_YAML_VALUE_HEX,  /* hex digits: the same whatever their case; new ones as given */
    KM_YAML_VALUE_TEXT, /* text: the same string; new ones quoted when a plain
                         * scalar would not read back as that string */
    KM_YAML_VALUE_NULL, /* a scalar that is null (`null`, `~`); new: `null` */
} km_yaml_value_kind;

typedef struct km_yaml_value {
    km_yaml_value_kind kind; /* of the items; a scalar may be NULL-kind too */
    bool list;               /* a list of items; else one scalar, items[0] */
    const char *const *items;
    size_t n;
} km_yaml_value;

typedef struct km_yaml_edit {
    int line, col;    /* where the value starts, 1-based (columns in characters) */
    km_yaml_value old, now;
} km_yaml_edit;

/* The text with the edits made, into *out (allocated, NUL-terminated, its
 * length *out_len).  KM_OK; KM_EXIT_USAGE when the text does not read as
 * YAML, an edit's value is not at its place or does not hold `old`, two
 * edits overlap, or a value cannot be rewritten in place (a block scalar,
 * an empty scalar, a block list's item that shares its line with another
 * value): err says which (file names the text), and *out is NULL;
 * KM_EXIT_SYSTEM when memory runs out. */
int km_yaml_edit_text(const char *file, const char *text, size_t len, const km_yaml_edit *edits,
                      size_t n, char **out, size_t *out_len, km_error *err);

/* Whether text written as a plain scalar reads back as that string. */
bool km_yaml_plain_ok(const char *text);

#endif
