/* manifest_commands: `commands:`, the host-fed commands, in order
 * (manifest_internal.h).  Handlers resolve against km_handlers, the same
 * list the build turns into HANDLER_<NAME>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "km_handlers.h"
#include "km_suggest.h"
#include "kmx_layout.h"
#include "manifest_internal.h"

#define GROUP_EXPECTED "{first: F, count: N} or [F, N]"

static const char *const command_keys[] = {"handler", "args",      "group",
                                           "result",  "exclusive", "wait"};

static void read_handler(km_mctx *c, const km_yaml_node *n,
                         km_host_command *cmd)
{
    if (!km_mis_string(c, n, "handler", "a handler name"))
        return;
    cmd->handler = km_mstrdup(c, n->text);
    cmd->handler_id = km_handler_id(c->p, n->text);
    if (cmd->handler_id >= 0)
        return;
    size_t count = km_handler_count(c->p);
    const char **names = km_mcalloc(c, count, sizeof *names);
    if (!names)
        return;
    km_handler_names(c->p, names, count);
    const char *close = km_suggest(n->text, names, count);
    if (close)
        km_mdiag_code(c, "manifest.unknown-name", n, "unknown handler '%s' (did you mean '%s'?)", n->text,
                 close);
    else
        km_mdiag_code(c, "manifest.unknown-name", n, "unknown handler '%s' (expected a handler of kernels "
                       "or a built-in: nop, fill, copy, sum, spend)",
                 n->text);
    free(names);
}

static void read_group(km_mctx *c, const km_yaml_node *n,
                       km_host_command *cmd)
{
    const km_yaml_node *first, *count;
    if (n->kind == KM_YAML_MAP) {
        static const char *const keys[] = {"first", "count"};
        km_mkeys(c, n, keys, 2, "in group");
        first = km_yaml_get(n, "first");
        count = km_yaml_get(n, "count");
        if (!first)
            km_mmissing(c, n, "first", "in group", "the group's first core");
        if (!count)
            km_mmissing(c, n, "count", "in group", "the group's core count");
        if (!first || !count)
            return;
    } else if (n->kind == KM_YAML_LIST && n->n == 2) {
        first = n->items[0];
        count = n->items[1];
    } else if (n->kind == KM_YAML_LIST) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad group: %zu value%s (expected %s)", n->n,
                 n->n == 1 ? "" : "s", GROUP_EXPECTED);
        return;
    } else {
        km_mis_map(c, n, "group", GROUP_EXPECTED);
        return;
    }
    long f, k;
    char first_range[32];
    snprintf(first_range, sizeof first_range, "a Tensix core 0 to %u",
             BH_GRID_CORES - 1);
    bool ok = km_mint(c, first, "first", 0, BH_GRID_CORES - 1, first_range, &f);
    ok &= km_mint(c, count, "count", 1, BH_GRID_CORES, "1 to 120", &k);
    if (!ok)
        return;
    if (f + k > (long)BH_GRID_CORES) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad group: cores %ld to %ld (expected first + count at "
                       "most %u)",
                 f, f + k - 1, BH_GRID_CORES);
        return;
    }
    cmd->first = (uint32_t)f;
    cmd->count = (uint32_t)k;
}

static void read_args(km_mctx *c, const km_yaml_node *n, km_host_command *cmd)
{
    if (!km_mis_list(c, n, "args", "a list of unsigned 32-bit integers"))
        return;
    for (size_t i = 0; i < n->n; i++) {
        if (i == KM_COMMAND_ARGS) {
            km_mdiag_code(c, "manifest.too-many", n->items[i], "too many args (expected at most %d, a0 "
                                     "to a9)",
                     KM_COMMAND_ARGS);
            return;
        }
        if (km_mu32(c, n->items[i], "arg", &cmd->args[cmd->nargs]))
            cmd->nargs++;
    }
}

static void read_command(km_mctx *c, const km_yaml_node *map,
                         km_host_command *cmd)
{
    cmd->pos = (km_pos){map->line, map->col};
    cmd->handler_id = -1;
    cmd->first = 0;
    cmd->count = BH_GRID_CORES;
    cmd->wait = true;
    km_mkeys(c, map, command_keys, sizeof command_keys / sizeof *command_keys,
             "in a command");
    const km_yaml_node *n = km_yaml_get(map, "handler");
    if (n)
        read_handler(c, n, cmd);
    else
        km_mmissing(c, map, "handler", "in a command", "a handler name");
    if ((n = km_yaml_get(map, "group")))
        read_group(c, n, cmd);
    if ((n = km_yaml_get(map, "args")))
        read_args(c, n, cmd);
    if ((n = km_yaml_get(map, "result")))
        km_mbool(c, n, "result", &cmd->result);
    if ((n = km_yaml_get(map, "exclusive")))
        km_mbool(c, n, "exclusive", &cmd->exclusive);
    if ((n = km_yaml_get(map, "wait")))
        km_mbool(c, n, "wait", &cmd->wait);
}

void km_read_commands(km_mctx *c, const km_yaml_node *list)
{
    /* A wrong `commands:` still counts as some, not to cascade. */
    c->command_entries = list->kind == KM_YAML_LIST ? list->n : 1;
    if (!km_mis_list(c, list, "commands", "a list of commands"))
        return;
    c->p->commands = km_mcalloc(c, list->n, sizeof *c->p->commands);
    if (!c->p->commands)
        return;
    for (size_t i = 0; i < list->n; i++) {
        const km_yaml_node *entry = list->items[i];
        if (!km_mis_map(c, entry, "command", "a mapping with handler, group, "
                                             "args..."))
            continue;
        read_command(c, entry, &c->p->commands[c->p->ncommands++]);
    }
}
