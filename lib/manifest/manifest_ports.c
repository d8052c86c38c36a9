/* manifest_ports: `ports:` and `pull:` (manifest_internal.h), the spec's
 * "X280 ports" and "The pull".  A pull needs ports, so `pull:` alone
 * implies `ports: default` (set by manifest.c once both are read). */
#include <stdio.h>
#include <string.h>

#include "kmx_layout.h"
#include "manifest_internal.h"
#include "units.h"

#define PORTS_EXPECTED "default, or a mapping with serve"
#define SERVE_EXPECTED "a mapping of Tensix cores to [cluster, x280_core]"

static void read_server(km_mctx *c, const km_yaml_node *key,
                        const km_yaml_node *value, bool threads,
                        km_port_serve *s)
{
    uint64_t core;
    if (km_parse_uint(key->text, UINT32_MAX, &core) != KM_UNITS_OK ||
        core >= BH_GRID_CORES) {
        km_mdiag_code(c, "manifest.bad-value", key, "bad core '%s' (expected a Tensix core 0 to %u)",
                 key->text, BH_GRID_CORES - 1);
        return;
    }
    s->core = (int)core;
    s->pos = (km_pos){key->line, key->col};
    char what[48];
    snprintf(what, sizeof what, "server of core %d", s->core);
    if (!km_mis_list(c, value, what, "[cluster, x280_core]"))
        return;
    if (value->n != 2) {
        km_mdiag_code(c, "manifest.bad-value", value, "bad %s: %zu value%s (expected two, [cluster, "
                           "x280_core])",
                 what, value->n, value->n == 1 ? "" : "s");
        return;
    }
    long cluster, x280_core;
    bool ok = km_mint(c, value->items[0], "cluster", 1, 3, "1, 2 or 3",
                      &cluster);
    if (ok && threads)
        ok = km_check_thread_cluster(c, cluster, value->items[0]);
    ok &= km_mint(c, value->items[1], "x280_core", 0, BH_CLUSTER_CORES - 1, "0 to 3",
                  &x280_core);
    if (ok) {
        s->cluster = (int)cluster;
        s->x280_core = (int)x280_core;
    }
}

static void read_serve(km_mctx *c, const km_yaml_node *serve, bool threads)
{
    km_ports *ports = &c->p->ports;
    if (!km_mis_map(c, serve, "serve", SERVE_EXPECTED))
        return;
    if (serve->n == 0) {
        km_mdiag(c, serve, "empty serve (expected at least one Tensix core)");
        return;
    }
    ports->serve = km_mcalloc(c, serve->n, sizeof *ports->serve);
    if (!ports->serve)
        return;
    for (size_t i = 0; i < serve->n; i++) {
        km_port_serve s = {.core = -1};
        read_server(c, serve->pairs[i].key, serve->pairs[i].value, threads, &s);
        if (s.core < 0)
            continue;
        bool twice = false;
        for (size_t j = 0; j < ports->nserve && !twice; j++) {
            if (ports->serve[j].core == s.core && c->code) {
                km_mdiag(c, serve->pairs[i].key, "core %d is served twice "
                                                 "(expected each core once)",
                         s.core);
                twice = true;
            } else if (ports->serve[j].core == s.core) {
                km_mdiag(c, serve->pairs[i].key, "core %d is served twice "
                                                 "(first at line %d)",
                         s.core, ports->serve[j].pos.line);
                twice = true;
            }
        }
        if (!twice)
            ports->serve[ports->nserve++] = s;
    }
}

void km_read_ports(km_mctx *c, const km_yaml_node *n)
{
    km_ports *ports = &c->p->ports;
    ports->pos = (km_pos){n->line, n->col};
    bool threads = km_check_needs_thread(c, "ports", n);
    if (n->kind == KM_YAML_SCALAR) {
        static const char *const forms[] = {"default"};
        int form;
        if (km_menum(c, n, "ports", forms, 1, PORTS_EXPECTED, &form))
            ports->kind = KM_PORTS_DEFAULT;
        return;
    }
    if (!km_mis_map(c, n, "ports", PORTS_EXPECTED))
        return;
    static const char *const keys[] = {"serve"};
    km_mkeys(c, n, keys, 1, "in ports");
    ports->kind = KM_PORTS_SERVE;
    const km_yaml_node *serve = km_yaml_get(n, "serve");
    if (!serve)
        km_mmissing(c, n, "serve", "in ports", SERVE_EXPECTED);
    else
        read_serve(c, serve, threads);
}

static void read_count(km_mctx *c, const km_yaml_node *map, const char *key,
                       uint32_t *out)
{
    const km_yaml_node *n = km_yaml_get(map, key);
    if (!n) {
        km_mmissing(c, map, key, "in pull", "a number of at least 1");
        return;
    }
    uint32_t v;
    if (!km_mu32(c, n, key, &v))
        return;
    if (v == 0)
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s' (expected at least 1)", key, n->text);
    else
        *out = v;
}

void km_read_pull(km_mctx *c, const km_yaml_node *n)
{
    km_pull *pull = &c->p->pull;
    pull->pos = (km_pos){n->line, n->col};
    km_check_needs_thread(c, "pull", n);
    if (!km_mis_map(c, n, "pull", "a mapping with units, per, mode and log"))
        return;
    pull->present = true;
    static const char *const keys[] = {"units", "per", "mode", "log"};
    km_mkeys(c, n, keys, 4, "in pull");
    read_count(c, n, "units", &pull->units);
    read_count(c, n, "per", &pull->per);

    const km_yaml_node *mode = km_yaml_get(n, "mode");
    if (mode) {
        static const char *const modes[] = {"count", "log", "replay"};
        int m;
        if (!km_menum(c, mode, "mode", modes, 3, "count, log or replay", &m))
            return;
        pull->mode = (km_pull_mode)m;
    }
    const km_yaml_node *log = km_yaml_get(n, "log");
    if (pull->mode == KM_PULL_MODE_COUNT) {
        if (log)
            km_mdiag(c, km_yaml_key(n, "log"), "unexpected 'log' in pull "
                                               "(expected it only with mode "
                                               "log or replay)");
        return;
    }
    if (!log) {
        km_mmissing(c, n, "log", "in pull", pull->mode == KM_PULL_MODE_LOG
                                                ? "the region to log into"
                                                : "the region to replay");
        return;
    }
    if (!km_mis_string(c, log, "log", "a region name"))
        return;
    pull->log = km_mstrdup(c, log->text);
    if (c->thread_entries)
        km_check_pull_log(c, log->text, log);
}
