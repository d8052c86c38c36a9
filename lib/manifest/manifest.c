/* manifest: km_manifest_load(), program.yaml into the program model
 * (km_program.h).  This file reads the file and the top level; the parts
 * have their own files (manifest_internal.h).  The format is documented
 * in man/kmrun-program.5 and schemas/program.schema.json; `expect:`, what
 * `kmrun test` holds a run to, in manifest_expect.c. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_handlers.h"
#include "ks_file.h"
#include "ks_text.h"
#include "manifest_internal.h"
#include "yaml_tree.h"

/* Far beyond any manifest; keeps a wrong path (an image, a log) from
 * being read whole. */
#define MANIFEST_MAX_BYTES (16u << 20)

#define TOP_EXPECTED "a mapping with name, and threads or commands"

static const char *const top_keys[] = {
    "name", "x280_mhz", "build", "check_handover", "kernels", "regions",
    "threads", "ports", "pull", "commands", "expect",
};

/* KM_OK with the text; KM_EXIT_SYSTEM in err when it cannot be read;
 * KM_EXIT_USAGE with a diagnostic when it is far too large. */
static int read_text(const char *path, char **text, size_t *len,
                     km_diags *diags, km_error *err)
{
    struct stat st;
    const char *kind;
    int fd = ks_open_regular(path, &st, &kind);
    if (fd < 0 && kind)
        return km_fail(err, KM_EXIT_SYSTEM, "cannot read manifest '%s': it is "
                       "%s (expected a regular file)", path, kind);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        if (fd >= 0)
            close(fd);
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read manifest '%s'",
                             path);
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap > MANIFEST_MAX_BYTES)
                break;
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading manifest "
                                            "'%s'",
                       path);
    if (failed) {
        free(buf);
        errno = EIO;
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot read manifest '%s'",
                             path);
    }
    if (n > MANIFEST_MAX_BYTES) {
        /* Positioned where it goes past the limit, as every error is. */
        int line, col;
        ks_text_position(buf, n, MANIFEST_MAX_BYTES, &line, &col);
        free(buf);
        km_diags_add_code(diags, "manifest.too-large", path, line, col, "manifest larger than 16 MiB "
                                             "from here on (expected a "
                                             "program.yaml)");
        return KM_EXIT_USAGE;
    }
    *text = buf;
    *len = n;
    return KM_OK;
}

static char *folder_of(const char *path, km_error *err)
{
    char *copy = strdup(path);
    if (!copy) {
        km_fail(err, KM_EXIT_SYSTEM, "out of memory reading manifest '%s'",
                path);
        return NULL;
    }
    char *folder = realpath(dirname(copy), NULL);
    if (!folder)
        km_fail_errno(err, KM_EXIT_SYSTEM, "cannot find the folder of "
                                           "manifest '%s'",
                      path);
    free(copy);
    return folder;
}

bool km_program_name_valid(const char *s)
{
    size_t len = strlen(s);
    return len > 0 && len <= KM_NAME_MAX &&
           !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789_.-")] &&
           strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

static void read_name(km_mctx *c, const km_yaml_node *root)
{
    static const char expected[] =
        "letters, digits, '_', '.' and '-', at most 64 characters";
    const km_yaml_node *n = km_yaml_get(root, "name");
    if (!n) {
        km_mmissing(c, root, "name", "at the top level", "the program's name");
        return;
    }
    if (!km_mis_string(c, n, "name", expected))
        return;
    const char *s = n->text;
    if (!km_program_name_valid(s) && strcmp(s, ".") != 0 && strcmp(s, "..") != 0) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad name '%s' (expected %s)", s, expected);
        return;
    }
    if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
        km_mdiag_code(c, "manifest.bad-value", n, "bad name '%s' (expected a name other than '.' and "
                       "'..')",
                 s);
        return;
    }
    c->p->name = km_mstrdup(c, s);
}

static void read_mhz(km_mctx *c, const km_yaml_node *root)
{
    c->p->x280_mhz = 1000;
    const km_yaml_node *n = km_yaml_get(root, "x280_mhz");
    uint32_t mhz;
    if (!n || !km_mu32(c, n, "x280_mhz", &mhz))
        return;
    if (mhz != 1000 && mhz != 1750)
        km_mdiag_code(c, "manifest.bad-value", n, "bad x280_mhz '%s' (expected 1000 or 1750)", n->text);
    else
        c->p->x280_mhz = mhz;
}

static void read_build(km_mctx *c, const km_yaml_node *root)
{
    const km_yaml_node *n = km_yaml_get(root, "build");
    if (!n || !km_mis_string(c, n, "build", "release or debug"))
        return;
    if (strcmp(n->text, "debug") == 0)
        c->p->debug_build = true;
    else if (strcmp(n->text, "release") != 0)
        km_mdiag_code(c, "manifest.bad-value", n, "bad build '%s' (expected release or debug)",
                      n->text);
}

static void read_handler_names(km_mctx *c, const km_yaml_node *n)
{
    km_kernels *k = &c->p->kernels;
    if (!km_mis_list(c, n, "handlers", "a list of handler names"))
        return;
    k->handlers = km_mcalloc(c, n->n, sizeof *k->handlers);
    if (!k->handlers)
        return;
    for (size_t i = 0; i < n->n; i++) {
        const km_yaml_node *item = n->items[i];
        if (i == KM_HANDLER_PROGRAM_MAX) {
            km_mdiag_code(c, "manifest.too-many", item, "too many handlers (expected at most %d)",
                     KM_HANDLER_PROGRAM_MAX);
            return;
        }
        if (!km_mis_string(c, item, "handler name", "a C identifier"))
            continue;
        const char *name = item->text;
        if (!km_is_identifier(name) || strlen(name) > KM_NAME_MAX) {
            km_mdiag_code(c, "manifest.bad-value", item, "bad handler name '%s' (expected a C identifier "
                              "of at most %d characters)",
                     name, KM_NAME_MAX);
            continue;
        }
        if (km_handler_is_builtin(name)) {
            km_mdiag(c, item, "handler name '%s' is a built-in's (expected a "
                              "name other than nop, fill, copy, sum and "
                              "spend)",
                     name);
            continue;
        }
        /* HANDLER_<NAME> is upper case: names equal but for case clash. */
        const char *other = NULL;
        for (size_t j = 0; j < k->nhandlers && !other; j++)
            if (strcasecmp(k->handlers[j], name) == 0)
                other = k->handlers[j];
        if (other && strcmp(other, name) == 0) {
            km_mdiag(c, item, "handler '%s' is listed twice (expected each "
                              "handler once)",
                     name);
            continue;
        }
        if (other) {
            km_mdiag(c, item, "handler name '%s' clashes with '%s' (expected "
                              "names that differ in more than case)",
                     name, other);
            continue;
        }
        if ((k->handlers[k->nhandlers] = km_mstrdup(c, name)))
            k->nhandlers++;
    }
}

static void read_kernels(km_mctx *c, const km_yaml_node *n)
{
    km_kernels *k = &c->p->kernels;
    k->pos = (km_pos){n->line, n->col};
    if (!km_mis_map(c, n, "kernels", "a mapping with sources, handlers and "
                                     "cflags"))
        return;
    static const char *const keys[] = {"sources", "handlers", "cflags"};
    km_mkeys(c, n, keys, 3, "in kernels");
    const km_yaml_node *handlers = km_yaml_get(n, "handlers");
    if (handlers)
        read_handler_names(c, handlers);
    const km_yaml_node *sources = km_yaml_get(n, "sources");
    if (sources)
        k->sources = km_mfiles(c, sources, "sources", "kernel source",
                               "a list of the handlers' source files",
                               &k->nsources);
    else if (handlers && handlers->kind == KM_YAML_LIST && handlers->n)
        km_mmissing(c, n, "sources", "in kernels",
                    "the handlers' source files");
    const km_yaml_node *cflags = km_yaml_get(n, "cflags");
    if (cflags)
        k->cflags = km_mflags(c, cflags, "cflags", &k->ncflags);
}

static void read_program(km_mctx *c, const km_yaml_node *root, bool whole)
{
    km_program *p = c->p;
    km_mkeys(c, root, top_keys, sizeof top_keys / sizeof *top_keys,
             "at the top level");
    read_name(c, root);
    read_mhz(c, root);
    read_build(c, root);
    const km_yaml_node *n;
    if ((n = km_yaml_get(root, "check_handover")))
        km_mbool(c, n, "check_handover", &p->check_handover);
    if ((n = km_yaml_get(root, "kernels")))
        read_kernels(c, n);
    if ((n = km_yaml_get(root, "regions")))
        p->regions = km_read_regions(c, n, "regions", &p->nregions);
    if (!km_check_init(c))
        return;
    /* Threads before ports and pull, which name their clusters and
     * regions; kernels before commands, which name their handlers. */
    if ((n = km_yaml_get(root, "threads")))
        km_read_threads(c, n);
    if ((n = km_yaml_get(root, "ports")))
        km_read_ports(c, n);
    if ((n = km_yaml_get(root, "pull")))
        km_read_pull(c, n);
    if (n && p->ports.kind == KM_PORTS_NONE && !km_yaml_get(root, "ports")) {
        p->ports.kind = KM_PORTS_DEFAULT;
        p->ports.pos = p->pull.pos;
    }
    if ((n = km_yaml_get(root, "commands")))
        km_read_commands(c, n);
    if ((n = km_yaml_get(root, "expect")))
        km_read_expect(c, km_yaml_key(root, "expect"), n);
    if (whole)
        km_check_something_to_run(c, root);
}

const char *km_mthread_name(const km_mctx *c, const km_thread *t, char *buf,
                            size_t size)
{
    if (c->code)
        snprintf(buf, size, "thread %zu", (size_t)(t - c->p->threads) + 1);
    else
        snprintf(buf, size, "the thread at line %d", t->pos.line);
    return buf;
}

int km_manifest_walk(const km_yaml_node *root, const char *file, bool code,
                     const char *manifest, const char *root_dir, bool whole,
                     size_t since, km_program **out, km_diags *diags,
                     km_error *err)
{
    *out = NULL;
    km_program *p = calloc(1, sizeof *p);
    if (!p || (manifest && !(p->manifest = strdup(manifest))) ||
        !(p->root = strdup(root_dir))) {
        km_program_free(p);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory reading '%s'",
                       file);
    }
    size_t before = since;
    km_mctx c = {.file = file, .code = code, .diags = diags, .p = p};
    if (!root || (root->kind == KM_YAML_SCALAR &&
                  km_yaml_scalar_type(root) == KM_YAML_NULL))
        km_diags_add_code(diags, "manifest.empty", file, 1, 1, "empty manifest (expected %s)",
                     TOP_EXPECTED);
    else if (km_mis_map(&c, root, "manifest", TOP_EXPECTED))
        read_program(&c, root, whole);
    /* Placing needs the whole program, so only one without errors. */
    if (whole && !c.oom && diags->count + diags->dropped == before)
        km_check_banks(&c);
    km_check_fini(&c);
    int status = KM_OK;
    if (c.oom && code)
        status = km_fail(err, KM_EXIT_SYSTEM, "out of memory for %s", file);
    else if (c.oom)
        status = km_fail(err, KM_EXIT_SYSTEM, "out of memory reading manifest "
                                              "'%s'",
                         file);
    else if (diags->count + diags->dropped != before)
        status = KM_EXIT_USAGE;
    if (status != KM_OK) {
        km_program_free(p);
        return status;
    }
    *out = p;
    return KM_OK;
}

/* Diagnostics in file order, whatever order the walk found them in. */
static void sort_diags(km_diags *d, size_t from)
{
    for (size_t i = from + 1; i < d->count; i++) {
        km_diag g = d->items[i];
        size_t j = i;
        while (j > from && (d->items[j - 1].line > g.line ||
                            (d->items[j - 1].line == g.line &&
                             d->items[j - 1].col > g.col))) {
            d->items[j] = d->items[j - 1];
            j--;
        }
        d->items[j] = g;
    }
}

int km_manifest_load(const char *path, km_program **out, km_diags *diags,
                     km_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    int status = read_text(path, &text, &len, diags, err);
    if (status)
        return status;
    char *root_dir = folder_of(path, err);
    if (!root_dir) {
        free(text);
        return err ? err->status : KM_EXIT_SYSTEM;
    }
    size_t first = diags->count;
    /* The YAML reader's own errors (a duplicate key...) count too. */
    size_t before = diags->count + diags->dropped;
    km_yaml_node *root = NULL;
    status = km_yaml_load(path, text, len, &root, diags, err);
    free(text);
    if (status == KM_EXIT_USAGE && root) /* whole: its other errors too */
        status = KM_OK;
    if (status == KM_OK)
        status = km_manifest_walk(root, path, false, path, root_dir, true,
                                  before, out, diags, err);
    km_yaml_free(root);
    free(root_dir);
    sort_diags(diags, first);
    return status;
}
