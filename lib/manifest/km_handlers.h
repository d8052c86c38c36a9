/* km_handlers: the names and ids of the handlers a command can name.
 *
 * The built-ins (nop, fill, copy, sum, spend) have the fixed ids of
 * kmx_layout.h; a program's own handlers (`kernels.handlers`) follow from
 * KM_HANDLER_FIRST_PROGRAM in manifest order.  The build generates a
 * header with one `HANDLER_<NAME>` (the name in upper case) per handler
 * from this list, and the manifest resolves commands with it, so the two
 * cannot disagree. */
#ifndef KM_HANDLERS_H
#define KM_HANDLERS_H

#include <stddef.h>

#include "km_program.h"

#define KM_HANDLER_BUILTINS 5
/* Ids KM_HANDLER_FIRST_PROGRAM..KM_HANDLER_MAX: 240 program handlers. */
#define KM_HANDLER_PROGRAM_MAX 240

typedef struct km_handler {
    const char *name; /* owned by the program or static */
    int id;
} km_handler;

/* The id of `name` (a built-in, or a handler of `p`, which may be NULL),
 * or -1.  Names are compared exactly. */
int km_handler_id(const km_program *p, const char *name);

/* The name of handler `id` (a built-in's, or one of `p`'s, which may be
 * NULL) as the manifest names it, or NULL for an id that names none. */
const char *km_handler_name(const km_program *p, int id);

/* How many handlers there are: the built-ins, then the program's. */
size_t km_handler_count(const km_program *p);

/* The i-th handler, i < km_handler_count(p): built-ins first, in id order. */
km_handler km_handler_at(const km_program *p, size_t i);

/* Fills names[0..] with every handler name (for suggestions); returns how
 * many there are, writing at most `cap`. */
size_t km_handler_names(const km_program *p, const char **names, size_t cap);

/* True when `name` is a built-in's name, ignoring case: HANDLER_<NAME> of
 * a program handler must not collide with a built-in's. */
int km_handler_is_builtin(const char *name);

/* The command line a host-fed command goes into a ring as (its handler
 * resolved): header, group, a0..a9. */
km_command_t km_host_command_line(const km_host_command *hc);

/* Writes "HANDLER_<NAME>" for `name` into buf; returns buf, or NULL when
 * it does not fit. */
char *km_handler_macro(const char *name, char *buf, size_t n);

#endif
