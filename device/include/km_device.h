/* km_device.h: the API of Tensix handlers, the C form of the spec's
 * km::Reader, for the program's kernels that `kmrun build` compiles into a
 * shared object for the simulated grid.
 *
 * A handler is defined with KM_HANDLER(name) { ... } for every name in the
 * manifest's `kernels.handlers`; `kmrun build` checks that each one is
 * there.  What a handler can call on its core (the command's arguments, the
 * core's id and group, the leader's result word, NoC reads and writes of a
 * bank, modeled compute time, the stop flag, the X280 port) arrives with
 * the simulated grid; until then km_core is opaque. */
#ifndef KM_DEVICE_H
#define KM_DEVICE_H

#include "kmx_layout.h"

typedef struct km_core km_core; /* one Tensix core running a command */

#define KM_HANDLER(name) \
    void km_handler_##name(km_core *core, const km_command_t *command)

#endif
