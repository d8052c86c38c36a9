/* manifest_expect: `expect:`, what a run of the program must give for
 * `kmrun test` (manifest_internal.h; the model in km_program.h).  Read
 * after the threads and commands it names: a thread's cluster must run a
 * thread, a region must be a thread's (and its cluster one that holds a
 * copy), a command's handle one of the manifest's commands.  Every value
 * keeps its position, so that a difference found later names its line. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmx_layout.h"
#include "manifest_internal.h"

#define EXPECT_EXPECTED "a mapping with backends, threads, regions and commands"

static const char *const expect_keys[] = {"backends", "threads", "regions", "commands"};
static const char *const thread_keys[] = {"cluster", "state", "code", "words", "prints",
                                          "backend"};
static const char *const region_keys[] = {"name", "cluster", "sha256", "first", "backend"};
static const char *const command_keys[] = {"handle", "event", "result", "backend"};

/* The run JSON's names (schemas/run.schema.json). */
static const char *const states[] = {"returned", "late",   "stopped", "stuck", "trapped",
                                     "args",     "bank",   "region",  "failed"};
static const char *const states_expected =
    "returned, late, stopped, stuck, trapped, args, bank, region or failed";
static const char *const events[] = {"done", "timeout", "rejected"};
static const char *const backend_names[] = {"sim", "host"};

#define N(a) (sizeof a / sizeof *a)

static km_pos pos_of(const km_yaml_node *n)
{
    return (km_pos){n->line, n->col};
}

/* A backend's name into its KM_EXPECT_ON_* bit; 0 after an error. */
static unsigned read_backend(km_mctx *c, const km_yaml_node *n, const char *what)
{
    int i;
    if (!km_menum(c, n, what, backend_names, N(backend_names), "sim or host", &i))
        return 0;
    return i == 0 ? KM_EXPECT_ON_SIM : KM_EXPECT_ON_HOST;
}

static void read_backends(km_mctx *c, const km_yaml_node *n)
{
    km_expect *e = &c->p->expect;
    if (!km_mis_list(c, n, "backends", "a list of backends: sim, host"))
        return;
    if (n->n == 0) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad backends: an empty list (expected sim, host or both)");
        return;
    }
    unsigned all = 0;
    for (size_t i = 0; i < n->n; i++) {
        unsigned b = read_backend(c, n->items[i], "backend");
        if (b & all) {
            km_mdiag_code(c, "manifest.duplicate", n->items[i], "backend '%s' is listed twice (expected each once)",
                     n->items[i]->text);
            continue;
        }
        all |= b;
    }
    if (all)
        e->backends = all;
}

/* A scalar that is not null or a boolean, whatever it looks like to the
 * YAML schema: hex digits such as 0123 are a plain integer to YAML. */
static bool read_text(km_mctx *c, const km_yaml_node *n, const char *what,
                      const char *expected)
{
    if (n->kind == KM_YAML_SCALAR && !n->reported &&
        (n->quoted || (km_yaml_scalar_type(n) != KM_YAML_NULL &&
                       km_yaml_scalar_type(n) != KM_YAML_BOOL)))
        return true;
    if (!n->reported)
        km_mdiag_code(c, "manifest.wrong-type", n, "bad %s: got %s (expected %s)", what, km_yaml_describe(n), expected);
    return false;
}

static bool read_code(km_mctx *c, const km_yaml_node *n, int32_t *out)
{
    static const char expected[] = "a signed 32-bit integer, kmx_main's return";
    if (n->kind != KM_YAML_SCALAR || n->quoted || n->reported ||
        km_yaml_scalar_type(n) != KM_YAML_INT) {
        if (!n->reported)
            km_mdiag_code(c, "manifest.wrong-type", n, "bad code: got %s (expected %s)", km_yaml_describe(n), expected);
        return false;
    }
    char *end;
    errno = 0;
    long long v = strtoll(n->text, &end, 0);
    if (*end || errno || v < INT32_MIN || v > INT32_MAX) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad code '%s' (expected %s)", n->text, expected);
        return false;
    }
    *out = (int32_t)v;
    return true;
}

static void read_words(km_mctx *c, const km_yaml_node *n, km_expect_thread *t)
{
    if (!km_mis_list(c, n, "words", "a list of unsigned 32-bit integers, the result words"))
        return;
    if (n->n > KMX_MAX_RESULT_WORDS) {
        km_mdiag_code(c, "manifest.too-many", n, "too many words: %zu (expected at most %u, the result words)", n->n,
                 KMX_MAX_RESULT_WORDS);
        return;
    }
    t->words = km_mcalloc(c, n->n, sizeof *t->words);
    if (!t->words)
        return;
    bool ok = true;
    for (size_t i = 0; i < n->n; i++)
        ok &= km_mu32(c, n->items[i], "word", &t->words[i]);
    t->nwords = n->n;
    t->has_words = ok;
}

static void read_prints(km_mctx *c, const km_yaml_node *n, km_expect_thread *t)
{
    if (!km_mis_list(c, n, "prints", "a list of the thread's print lines"))
        return;
    if (n->n > KM_EXPECT_PRINTS_MAX) {
        km_mdiag_code(c, "manifest.too-many", n, "too many prints: %zu (expected at most %d)", n->n,
                 KM_EXPECT_PRINTS_MAX);
        return;
    }
    t->prints = km_mcalloc(c, n->n, sizeof *t->prints);
    if (!t->prints)
        return;
    bool ok = true;
    for (size_t i = 0; i < n->n; i++) {
        if (!read_text(c, n->items[i], "print", "the text of a print line")) {
            ok = false;
            continue;
        }
        if (strchr(n->items[i]->text, '\n')) {
            km_mdiag_code(c, "manifest.bad-value", n->items[i], "bad print: it holds a newline (expected one line)");
            ok = false;
            continue;
        }
        if ((t->prints[t->nprints] = km_mstrdup(c, n->items[i]->text)))
            t->nprints++;
    }
    t->has_prints = ok;
}

static void read_thread(km_mctx *c, const km_yaml_node *map, km_expect_thread *t)
{
    t->pos = pos_of(map);
    km_mkeys(c, map, thread_keys, N(thread_keys), "in an expected thread");
    const km_yaml_node *n = km_yaml_get(map, "cluster");
    long cluster;
    if (!n)
        km_mmissing(c, map, "cluster", "in an expected thread",
                    "the cluster of the thread's result");
    else if (c->p->nthreads == 0)
        km_mdiag_code(c, "manifest.rule", map, "an expected thread, but the program has none (expected no "
                         "threads in expect)");
    else if (km_mint(c, n, "cluster", 1, 3, "1, 2 or 3", &cluster) &&
             km_check_thread_cluster(c, cluster, n))
        t->cluster = (int)cluster;
    if ((n = km_yaml_get(map, "backend")))
        t->on = read_backend(c, n, "backend");
    int i;
    if ((n = km_yaml_get(map, "state")) &&
        km_menum(c, n, "state", states, N(states), states_expected, &i)) {
        t->state = km_mstrdup(c, states[i]);
        t->state_pos = pos_of(n);
    }
    if ((n = km_yaml_get(map, "code")) && read_code(c, n, &t->code)) {
        t->has_code = true;
        t->code_pos = pos_of(n);
    }
    if ((n = km_yaml_get(map, "words"))) {
        read_words(c, n, t);
        t->words_pos = pos_of(n);
    }
    if ((n = km_yaml_get(map, "prints"))) {
        read_prints(c, n, t);
        t->prints_pos = pos_of(n);
    }
}

/* Whether thread t has region `name`, its own or shared. */
static bool thread_has(const km_thread *t, const char *name)
{
    for (size_t i = 0; i < t->nregions; i++)
        if (strcmp(t->regions[i].name, name) == 0)
            return true;
    for (size_t i = 0; i < t->nshared; i++)
        if (strcmp(t->shared[i], name) == 0)
            return true;
    return false;
}

/* The clusters holding a copy of region `name`, ascending, into list
 * ("1, 2 and 3"); their count. */
static size_t holders(const km_program *p, const char *name, int *first, char *list,
                      size_t size)
{
    size_t n = 0, used = 0;
    list[0] = 0;
    for (int cluster = 1; cluster <= 3; cluster++) {
        const km_thread *t = km_program_thread_on(p, cluster);
        if (!t || !thread_has(t, name))
            continue;
        if (n++ == 0)
            *first = cluster;
        int k = snprintf(list + used, size - used, "%s%d", used ? ", " : "", cluster);
        if (k > 0 && (size_t)k < size - used)
            used += (size_t)k;
    }
    return n;
}

static bool read_hex(km_mctx *c, const km_yaml_node *n, const char *what, uint8_t **bytes,
                     size_t *count)
{
    const char *s = n->text;
    size_t len = strlen(s);
    for (size_t i = 0; i < len; i++) {
        if (!isxdigit((unsigned char)s[i])) {
            km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s': '%c' is no hex digit (expected the bytes in hex, "
                           "such as 0a0b0c0d)",
                     what, s, s[i]);
            return false;
        }
    }
    if (len == 0 || len % 2) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad %s '%s': %zu hex digits (expected two a byte, at least one byte)",
                 what, s, len);
        return false;
    }
    if (len / 2 > KM_EXPECT_FIRST_MAX) {
        km_mdiag_code(c, "manifest.too-many", n, "bad %s: %zu bytes (expected at most %d)", what, len / 2,
                 KM_EXPECT_FIRST_MAX);
        return false;
    }
    *bytes = km_mcalloc(c, len / 2, 1);
    if (!*bytes)
        return false;
    for (size_t i = 0; i < len / 2; i++) {
        char pair[3] = {s[2 * i], s[2 * i + 1], 0};
        (*bytes)[i] = (uint8_t)strtoul(pair, NULL, 16);
    }
    *count = len / 2;
    return true;
}

/* The size of region `name` as thread `t` has it (a program region's
 * size for a shared one). */
static uint64_t region_size(const km_program *p, const km_thread *t, const char *name)
{
    for (size_t i = 0; i < t->nregions; i++)
        if (strcmp(t->regions[i].name, name) == 0)
            return t->regions[i].size;
    const km_region *r = km_program_region(p, name);
    return r ? r->size : 0;
}

static void read_region(km_mctx *c, const km_yaml_node *map, km_expect_region *r)
{
    r->pos = pos_of(map);
    km_mkeys(c, map, region_keys, N(region_keys), "in an expected region");
    const km_yaml_node *n = km_yaml_get(map, "backend");
    if (n)
        r->on = read_backend(c, n, "backend");
    const km_yaml_node *name = km_yaml_get(map, "name");
    if (!name)
        km_mmissing(c, map, "name", "in an expected region", "the region's name");
    else if (km_mis_string(c, name, "region name", "a region of a thread"))
        r->name = km_mstrdup(c, name->text);
    long cluster = 0;
    const km_yaml_node *cn = km_yaml_get(map, "cluster");
    if (cn && !km_mint(c, cn, "cluster", 1, 3, "1, 2 or 3", &cluster))
        cluster = -1;
    if (r->name && cluster >= 0) {
        char list[32];
        int first = 0;
        size_t n_holders = holders(c->p, r->name, &first, list, sizeof list);
        const km_thread *t = cluster ? km_program_thread_on(c->p, (int)cluster) : NULL;
        if (n_holders == 0) {
            km_mdiag_code(c, "manifest.unknown-name", name, "region '%s' is no thread's (expected a region a thread has, "
                              "its own or shared)",
                     r->name);
        } else if (cluster && (!t || !thread_has(t, r->name))) {
            km_mdiag_code(c, "manifest.rule", cn, "cluster %ld has no copy of region '%s' (expected %s %s)", cluster,
                     r->name, n_holders == 1 ? "cluster" : "one of clusters", list);
        } else if (!cluster && n_holders > 1) {
            km_mdiag_code(c, "manifest.rule", map, "region '%s' has a copy on clusters %s (expected cluster: one "
                             "of them)",
                     r->name, list);
        } else {
            r->cluster = cluster ? (int)cluster : first;
        }
    }
    if ((n = km_yaml_get(map, "sha256")) &&
        read_text(c, n, "sha256", "the SHA-256 of the region's bytes, 64 hex digits")) {
        uint8_t *bytes = NULL;
        size_t count = 0;
        if (strlen(n->text) != 64)
            km_mdiag_code(c, "manifest.bad-value", n, "bad sha256 '%s': %zu characters (expected 64 hex digits)",
                     n->text, strlen(n->text));
        else if (read_hex(c, n, "sha256", &bytes, &count) && (r->sha256 = km_mstrdup(c, n->text)))
            for (char *s = r->sha256; *s; s++)
                *s = (char)tolower((unsigned char)*s);
        free(bytes);
        r->sha256_pos = pos_of(n);
    }
    if ((n = km_yaml_get(map, "first")) &&
        read_text(c, n, "first", "the region's first bytes in hex, such as 0a0b0c0d") &&
        read_hex(c, n, "first", &r->first, &r->nfirst)) {
        r->first_pos = pos_of(n);
        const km_thread *t = r->cluster ? km_program_thread_on(c->p, r->cluster) : NULL;
        uint64_t size = t ? region_size(c->p, t, r->name) : 0;
        if (size && r->nfirst > size) {
            km_mdiag_code(c, "manifest.bad-value", n, "bad first: %zu bytes (expected at most the region's %llu)",
                     r->nfirst, (unsigned long long)size);
            free(r->first);
            r->first = NULL;
            r->nfirst = 0;
        }
    }
}

static void read_command(km_mctx *c, const km_yaml_node *map, km_expect_command *x)
{
    x->pos = pos_of(map);
    km_mkeys(c, map, command_keys, N(command_keys), "in an expected command");
    const km_yaml_node *n = km_yaml_get(map, "handle");
    if (!n) {
        km_mmissing(c, map, "handle", "in an expected command",
                    "the command's number in commands, from 1");
    } else {
        char range[64];
        size_t count = c->p->ncommands;
        if (count == 0)
            snprintf(range, sizeof range, "a command of commands: the program has none");
        else if (count == 1)
            snprintf(range, sizeof range, "1, the program's only command");
        else
            snprintf(range, sizeof range, "1 to %zu, a command of commands", count);
        long handle;
        if (km_mint(c, n, "handle", 1, count ? (long)count : 0, range, &handle))
            x->handle = (uint32_t)handle;
    }
    if ((n = km_yaml_get(map, "backend")))
        x->on = read_backend(c, n, "backend");
    int i;
    if ((n = km_yaml_get(map, "event")) &&
        km_menum(c, n, "event", events, N(events), "done, timeout or rejected", &i)) {
        x->event = km_mstrdup(c, events[i]);
        x->event_pos = pos_of(n);
    }
    if ((n = km_yaml_get(map, "result"))) {
        x->result_pos = pos_of(n);
        if (n->kind == KM_YAML_SCALAR && !n->quoted && !n->reported &&
            km_yaml_scalar_type(n) == KM_YAML_NULL)
            x->has_result = x->result_none = true;
        else if (km_mu32(c, n, "result", &x->result))
            x->has_result = true;
    }
}

/* A list of mappings, each read by `read` into an item of `size` bytes. */
static void *read_list(km_mctx *c, const km_yaml_node *n, const char *what,
                       const char *item, const char *expected, size_t size, size_t *count,
                       void (*read)(km_mctx *, const km_yaml_node *, void *))
{
    *count = 0;
    if (!km_mis_list(c, n, what, expected))
        return NULL;
    char *items = km_mcalloc(c, n->n, size);
    if (!items)
        return NULL;
    for (size_t i = 0; i < n->n; i++) {
        if (!km_mis_map(c, n->items[i], item, expected))
            continue;
        read(c, n->items[i], items + size * (*count)++);
    }
    return items;
}

static void read_thread_v(km_mctx *c, const km_yaml_node *n, void *t)
{
    read_thread(c, n, t);
}
static void read_region_v(km_mctx *c, const km_yaml_node *n, void *r)
{
    read_region(c, n, r);
}
static void read_command_v(km_mctx *c, const km_yaml_node *n, void *x)
{
    read_command(c, n, x);
}

void km_read_expect(km_mctx *c, const km_yaml_node *key, const km_yaml_node *n)
{
    km_expect *e = &c->p->expect;
    e->present = true;
    e->backends = KM_EXPECT_ON_SIM;
    e->pos = pos_of(key);
    /* `expect:` alone (null): nothing more than a run that goes well. */
    if (n->kind == KM_YAML_SCALAR && !n->quoted && km_yaml_scalar_type(n) == KM_YAML_NULL)
        return;
    if (!km_mis_map(c, n, "expect", EXPECT_EXPECTED))
        return;
    km_mkeys(c, n, expect_keys, N(expect_keys), "in expect");
    const km_yaml_node *v;
    if ((v = km_yaml_get(n, "backends")))
        read_backends(c, v);
    if ((v = km_yaml_get(n, "threads")))
        e->threads = read_list(c, v, "threads", "expected thread",
                               "a list of mappings with cluster, state, code, words, prints",
                               sizeof *e->threads, &e->nthreads, read_thread_v);
    if ((v = km_yaml_get(n, "regions")))
        e->regions = read_list(c, v, "regions", "expected region",
                               "a list of mappings with name, cluster, sha256, first",
                               sizeof *e->regions, &e->nregions, read_region_v);
    if ((v = km_yaml_get(n, "commands")))
        e->commands = read_list(c, v, "commands", "expected command",
                                "a list of mappings with handle, event, result",
                                sizeof *e->commands, &e->ncommands, read_command_v);
}
