/* kmrun_program: the public C API's programs (include/kmrun.h) — read
 * from a manifest (km_manifest_load), or built in code part by part as
 * the document a manifest would be (km_program_code.h), so that both meet
 * the same rules through the same walk.  Here each part of a kmrun_*_spec
 * becomes the nodes of its manifest entry; what the values mean is the
 * walk's to say. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api_internal.h"
#include "km_fs.h"
#include "ks_text.h"

/* *err NULL from the start: a success leaves it so. */
static void clear(kmrun_error **err)
{
    if (err)
        *err = NULL;
}

static int by_number(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The clusters of the model's threads, ascending. */
static void count_clusters(kmrun_program *h)
{
    h->nclusters = 0;
    for (size_t i = 0; i < h->p->nthreads; i++)
        for (size_t k = 0; k < h->p->threads[i].nclusters && h->nclusters < BH_WORK_CLUSTERS; k++)
            h->clusters[h->nclusters++] = h->p->threads[i].clusters[k];
    qsort(h->clusters, h->nclusters, sizeof h->clusters[0], by_number);
}

/* A failure with its positioned errors (a manifest's `file:line:col:
 * message`, a program built in code's `part: message`), one a line. */
static kmrun_status fail_diags(kmrun_error **err, int rc, km_diags *diags, const km_error *e,
                               const char *otherwise)
{
    char *text = rc == KM_EXIT_USAGE && diags->count ? km_diags_text(diags) : NULL;
    /* kmrun_error_detail's: the same lines with their source lines and
     * carets, as kmrun(1) prints them (km_diags_print). */
    char *detail = NULL;
    size_t len = 0;
    FILE *f = text ? open_memstream(&detail, &len) : NULL;
    if (f) {
        km_diags_print(diags, f);
        if (fclose(f) != 0) {
            free(detail);
            detail = NULL;
        }
    }
    if ((rc == KM_EXIT_USAGE && diags->count && !text) || (text && !detail)) {
        free(text); /* not the errors' place in a message that lost them */
        km_diags_free(diags);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory describing the program's errors");
    }
    if (text) {
        /* each error a diagnostic (kmrun_error_diagnostics) */
        rc = km_api_error_found(err, rc, text, detail, diags, "manifest.invalid");
        free(text);
        free(detail);
        return (kmrun_status)rc;
    }
    km_diags_free(diags);
    return km_api_error_found(err, rc, e->message[0] ? e->message : otherwise, NULL, NULL,
                              e->code);
}

kmrun_status kmrun_program_load(const char *path, kmrun_program **out, kmrun_error **err)
{
    clear(err);
    if (out)
        *out = NULL;
    if (!path || !out)
        return km_api_usage(err, "kmrun_program_load: %s is NULL", !path ? "the path" : "out");
    kmrun_program *h = calloc(1, sizeof *h);
    if (!h)
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a program");
    km_diags diags = {0};
    km_error e = {0};
    int rc = km_manifest_load(path, &h->p, &diags, &e);
    if (rc != KM_OK) {
        free(h);
        return fail_diags(err, rc, &diags, &e, "the manifest has errors");
    }
    km_diags_free(&diags);
    count_clusters(h);
    *out = h;
    return KMRUN_OK;
}

void kmrun_program_free(kmrun_program *p)
{
    if (!p)
        return;
    if (p->code.doc)
        km_code_free(&p->code); /* its model is p->p */
    else
        km_program_free(p->p);
    free(p);
}

const char *kmrun_program_name(const kmrun_program *p)
{
    return p ? p->p->name : NULL;
}

size_t kmrun_program_clusters(const kmrun_program *p)
{
    return p ? p->nclusters : 0;
}

int kmrun_program_cluster(const kmrun_program *p, size_t i)
{
    return p && i < p->nclusters ? p->clusters[i] : -1;
}

/* ---- Built in code -------------------------------------------------------- */

kmrun_status kmrun_program_new(const char *name, kmrun_program **out, kmrun_error **err)
{
    clear(err);
    if (out)
        *out = NULL;
    if (!name || !out)
        return km_api_usage(err, "kmrun_program_new: %s is NULL", !name ? "the name" : "out");
    char *cwd = getcwd(NULL, 0);
    if (!cwd)
        return km_api_error(err, KMRUN_SYSTEM, "cannot find the current folder (the program's "
                                               "root)");
    kmrun_program *h = calloc(1, sizeof *h);
    if (!h) {
        free(cwd);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a program");
    }
    km_diags diags = {0};
    km_error e = {0};
    int rc = km_code_new(&h->code, name, cwd, &diags, &e);
    free(cwd);
    if (rc != KM_OK) {
        free(h);
        return fail_diags(err, rc, &diags, &e, "the program is refused");
    }
    km_diags_free(&diags);
    h->p = h->code.p;
    *out = h;
    return KMRUN_OK;
}

/* A part may be added: p is built in code and not in use yet. */
static kmrun_status changeable(kmrun_program *p, const char *fn, kmrun_error **err)
{
    if (!p)
        return km_api_usage(err, "%s: the program is NULL", fn);
    if (!p->code.doc)
        return km_api_usage(err, "program %s was read from manifest %s: it cannot change "
                                 "(expected a program made by kmrun_program_new)",
                            KS_QUOTED(p->p->name), KS_QUOTED(p->p->manifest));
    if (p->in_use)
        return km_api_usage(err, "program %s has been loaded: it cannot change any more "
                                 "(expected its parts added before its first load)",
                            KS_QUOTED(p->p->name));
    return KMRUN_OK;
}

/* Adds one part (km_code_add), its errors labelled `label`. */
static kmrun_status add(kmrun_program *p, km_code_how how, const char *key, const char *entry,
                        km_yaml_node *value, const char *label, kmrun_error **err)
{
    km_diags diags = {0};
    km_error e = {0};
    int rc = km_code_add(&p->code, how, key, entry, value, label, &diags, &e);
    if (rc != KM_OK)
        return fail_diags(err, rc, &diags, &e, "the part is refused");
    km_diags_free(&diags);
    p->p = p->code.p;
    count_clusters(p);
    return KMRUN_OK;
}

kmrun_status kmrun_program_set_root(kmrun_program *p, const char *folder, kmrun_error **err)
{
    clear(err);
    kmrun_status st = changeable(p, "kmrun_program_set_root", err);
    if (st != KMRUN_OK)
        return st;
    if (!folder)
        return km_api_usage(err, "kmrun_program_set_root: the folder is NULL");
    struct stat sb;
    char *real = realpath(folder, NULL);
    int error = errno;
    bool is_folder = real && stat(real, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (!is_folder) {
        const char *why = real ? "it is not a folder" : strerror(error);
        free(real);
        return km_api_usage(err, "bad root %s: %s (expected a folder)", KS_QUOTED(folder), why);
    }
    free(p->code.root);
    p->code.root = real;
    return KMRUN_OK;
}

/* A list of strings; NULL entries as empty ones (which the walk refuses). */
static km_yaml_node *strings(const char *const *v, size_t n)
{
    km_yaml_node *list = km_code_list();
    for (size_t i = 0; list && i < n; i++)
        if (!km_code_push(list, km_code_string(v[i] ? v[i] : "")))
            return km_yaml_free(list), NULL;
    return list;
}

/* Whether an array given with a count is there. */
static bool missing(const void *v, size_t n)
{
    return n && !v;
}

/* A source of the kernels: a folder stands for its *.c files, in name
 * order, each named as the folder is (relative stays relative). */
static int only_c(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 2 && strcmp(d->d_name + n - 2, ".c") == 0;
}

static kmrun_status add_kernel_source(km_yaml_node *list, const char *root, const char *source,
                                      kmrun_error **err)
{
    char *path = source[0] == '/' ? strdup(source) : km_path_join(root, source);
    struct stat sb;
    bool folder = path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (!folder) {
        free(path);
        return km_code_push(list, km_code_string(source))
                   ? KMRUN_OK
                   : km_api_error(err, KMRUN_SYSTEM, "out of memory for the kernels");
    }
    struct dirent **names = NULL;
    int n = scandir(path, &names, only_c, alphasort);
    free(path);
    if (n < 0)
        return km_api_usage(err, "kernels: cannot read folder %s: %s", KS_QUOTED(source),
                            strerror(errno));
    kmrun_status st = n ? KMRUN_OK
                        : km_api_usage(err, "kernels: folder %s has no C source (expected "
                                            "the handlers' *.c files)",
                                       KS_QUOTED(source));
    size_t len = strlen(source);
    while (len > 1 && source[len - 1] == '/')
        len--;
    for (int i = 0; i < n; i++) {
        char *file = NULL;
        if (st == KMRUN_OK &&
            (!(file = ks_strf("%.*s/%s", (int)len, source, names[i]->d_name)) ||
             !km_code_push(list, km_code_string(file))))
            st = km_api_error(err, KMRUN_SYSTEM, "out of memory for the kernels");
        free(file);
        free(names[i]);
    }
    free(names);
    return st;
}

kmrun_status kmrun_program_kernels(kmrun_program *p, const char *const *sources, size_t nsources,
                                   const char *const *handlers, size_t nhandlers,
                                   const char *const *cflags, size_t ncflags, kmrun_error **err)
{
    clear(err);
    kmrun_status st = changeable(p, "kmrun_program_kernels", err);
    if (st != KMRUN_OK)
        return st;
    if (missing(sources, nsources) || missing(handlers, nhandlers) || missing(cflags, ncflags))
        return km_api_usage(err, "kmrun_program_kernels: %s is NULL with a count of %zu",
                            missing(sources, nsources)    ? "sources"
                            : missing(handlers, nhandlers) ? "handlers"
                                                          : "cflags",
                            missing(sources, nsources)    ? nsources
                            : missing(handlers, nhandlers) ? nhandlers
                                                          : ncflags);
    km_yaml_node *k = km_code_map(), *list = nsources ? km_code_list() : NULL;
    for (size_t i = 0; st == KMRUN_OK && list && i < nsources; i++)
        st = sources[i] ? add_kernel_source(list, p->code.root, sources[i], err)
                        : (km_code_push(list, km_code_string("")) ? KMRUN_OK
                                                                    : KMRUN_SYSTEM);
    if (st != KMRUN_OK) {
        km_yaml_free(k);
        km_yaml_free(list);
        return st == KMRUN_SYSTEM ? km_api_error(err, st, "out of memory for the kernels") : st;
    }
    bool ok = k && (!nsources || km_code_put(k, "sources", list)) &&
              (!nhandlers || km_code_put(k, "handlers", strings(handlers, nhandlers))) &&
              (!ncflags || km_code_put(k, "cflags", strings(cflags, ncflags)));
    if (!ok) {
        km_yaml_free(k);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the kernels");
    }
    return add(p, KM_CODE_SET, "kernels", NULL, k, "kernels", err);
}

/* A region's value: a size, or {bytes: B[, size: S]}. */
static km_yaml_node *region_value(uint64_t size, const void *bytes, size_t nbytes)
{
    if (!bytes)
        return km_code_uint(size);
    km_yaml_node *m = km_code_map();
    if (m && !km_code_put(m, "bytes", km_code_blob(bytes, nbytes)))
        return km_yaml_free(m), NULL;
    if (m && size && !km_code_put(m, "size", km_code_uint(size)))
        return km_yaml_free(m), NULL;
    return m;
}

kmrun_status kmrun_program_region(kmrun_program *p, const char *name, uint64_t size,
                                  const void *bytes, size_t nbytes, kmrun_error **err)
{
    clear(err);
    kmrun_status st = changeable(p, "kmrun_program_region", err);
    if (st != KMRUN_OK)
        return st;
    if (!name)
        return km_api_usage(err, "kmrun_program_region: the name is NULL");
    if (missing(bytes, nbytes))
        return km_api_usage(err, "region %s: bytes is NULL with a count of %zu", KS_QUOTED(name),
                            nbytes);
    char label[96];
    snprintf(label, sizeof label, "region '%.64s'", name);
    return add(p, KM_CODE_ENTRY, "regions", name, region_value(size, bytes, nbytes), label, err);
}

void kmrun_thread_spec_init(kmrun_thread_spec *t)
{
    if (!t)
        return;
    memset(t, 0, sizeof *t);
    t->size = sizeof *t;
}

/* An enum's name, or its number for the walk to refuse. */
static km_yaml_node *enum_node(int v, const char *const *names, int count)
{
    if (v >= 0 && v < count)
        return km_code_string(names[v]);
    char text[16];
    snprintf(text, sizeof text, "%d", v);
    return km_code_string(text);
}

/* Seconds as the manifest writes them: to the microsecond, with no
 * trailing zeros; what is not a positive number as printf has it. */
static km_yaml_node *seconds_node(double s)
{
    char text[64];
    if (isfinite(s) && s > 0 && s < 1e12) {
        snprintf(text, sizeof text, "%.6f", s);
        char *end = text + strlen(text);
        while (end[-1] == '0')
            *--end = 0;
        if (end[-1] == '.')
            *--end = 0;
        if (strcmp(text, "0") == 0)
            snprintf(text, sizeof text, "%.17g", s); /* under a microsecond: refused */
    } else {
        snprintf(text, sizeof text, "%g", s);
    }
    return km_code_plain(text);
}

static const char *thread_arrays(const kmrun_thread_spec *t)
{
    return missing(t->clusters, t->nclusters) ? "clusters"
           : missing(t->sources, t->nsources) ? "sources"
           : missing(t->regions, t->nregions) ? "regions"
           : missing(t->shared, t->nshared)   ? "shared"
           : missing(t->words, t->nwords)     ? "words"
           : missing(t->cflags, t->ncflags)   ? "cflags"
                                              : NULL;
}

static km_yaml_node *thread_node(const kmrun_thread_spec *t, const char *label, kmrun_error **err,
                                 kmrun_status *st)
{
    km_yaml_node *m = km_code_map();
    bool ok = m != NULL;
    if (ok && t->nclusters == 1) {
        /* A number, a negative one too: the walk says what is wrong. */
        char text[16];
        snprintf(text, sizeof text, "%d", t->clusters[0]);
        ok = km_code_put(m, "cluster", km_code_plain(text));
    } else if (ok && t->nclusters > 1) {
        km_yaml_node *list = km_code_list();
        for (size_t i = 0; list && i < t->nclusters; i++) {
            char text[16];
            snprintf(text, sizeof text, "%d", t->clusters[i]);
            if (!km_code_push(list, km_code_plain(text)))
                list = NULL;
        }
        ok = km_code_put(m, "clusters", list);
    }
    ok = ok && km_code_put(m, "sources", strings(t->sources, t->nsources));
    if (ok && t->nregions) {
        km_yaml_node *regions = km_code_map();
        for (size_t i = 0; regions && i < t->nregions; i++) {
            const kmrun_region_spec *r = &t->regions[i];
            if (!r->name || missing(r->bytes, r->nbytes)) {
                km_yaml_free(regions);
                km_yaml_free(m);
                *st = km_api_usage(err, "%s: region %zu %s", label, i + 1,
                                   !r->name ? "has no name (NULL)"
                                            : "has bytes NULL with a count of more than 0");
                return NULL;
            }
            if (!km_code_put(regions, r->name, region_value(r->size, r->bytes, r->nbytes)))
                regions = NULL;
        }
        ok = km_code_put(m, "regions", regions);
    }
    if (ok && t->nshared)
        ok = km_code_put(m, "shared", strings(t->shared, t->nshared));
    if (ok && t->nwords) {
        km_yaml_node *words = km_code_list();
        for (size_t i = 0; words && i < t->nwords; i++)
            if (!km_code_push(words, km_code_uint(t->words[i])))
                words = NULL;
        ok = km_code_put(m, "words", words);
    }
    if (ok && t->deadline_seconds != 0)
        ok = km_code_put(m, "deadline", seconds_node(t->deadline_seconds));
    static const char *const prefetch[] = {"default", "keep"};
    static const char *const ring[] = {"remote", "cached"};
    static const char *const compiler[] = {"gcc", "clang"};
    if (ok && t->prefetch != KMRUN_PREFETCH_DEFAULT)
        ok = km_code_put(m, "prefetch", enum_node((int)t->prefetch, prefetch, 2));
    if (ok && t->ring != KMRUN_RING_REMOTE)
        ok = km_code_put(m, "ring", enum_node((int)t->ring, ring, 2));
    if (ok && t->compiler != KMRUN_COMPILER_GCC)
        ok = km_code_put(m, "compiler", enum_node((int)t->compiler, compiler, 2));
    if (ok && t->ncflags)
        ok = km_code_put(m, "cflags", strings(t->cflags, t->ncflags));
    if (!ok) {
        km_yaml_free(m);
        *st = km_api_error(err, KMRUN_SYSTEM, "out of memory for a thread");
        return NULL;
    }
    return m;
}

/* The number of entries in the document's list at `key`. */
static size_t entries(const kmrun_program *p, const char *key)
{
    const km_yaml_node *list = km_yaml_get(p->code.doc, key);
    return list ? list->n : 0;
}

kmrun_status kmrun_program_thread(kmrun_program *p, const kmrun_thread_spec *t,
                                  kmrun_error **err)
{
    clear(err);
    kmrun_status st = changeable(p, "kmrun_program_thread", err);
    if (st != KMRUN_OK)
        return st;
    if (!t)
        return km_api_usage(err, "kmrun_program_thread: the thread spec is NULL");
    if (t->size != sizeof *t)
        return km_api_usage(err,
                            "invalid kmrun_thread_spec size %zu (expected %zu: set it with "
                            "kmrun_thread_spec_init)",
                            t->size, sizeof *t);
    char label[32];
    snprintf(label, sizeof label, "thread %zu", entries(p, "threads") + 1);
    const char *array = thread_arrays(t);
    if (array)
        return km_api_usage(err, "%s: %s is NULL with a count of more than 0", label, array);
    km_yaml_node *node = thread_node(t, label, err, &st);
    if (!node)
        return st;
    return add(p, KM_CODE_APPEND, "threads", NULL, node, label, err);
}

kmrun_status kmrun_program_ports(kmrun_program *p, const kmrun_serve *serve, size_t nserve,
                                 kmrun_error **err)
{
    clear(err);
    kmrun_status st = changeable(p, "kmrun_program_ports", err);
    if (st != KMRUN_OK)
        return st;
    if (missing(serve, nserve))
        return km_api_usage(err, "ports: serve is NULL with a count of %zu", nserve);
    if (!nserve)
        return add(p, KM_CODE_SET, "ports", NULL, km_code_string("default"), "ports", err);
    km_yaml_node *ports = km_code_map(), *map = km_code_map();
    for (size_t i = 0; map && i < nserve; i++) {
        km_yaml_node *pair = km_code_list();
        char core[16], cluster[16], x280[16];
        snprintf(core, sizeof core, "%d", serve[i].core);
        snprintf(cluster, sizeof cluster, "%d", serve[i].cluster);
        snprintf(x280, sizeof x280, "%d", serve[i].x280_core);
        if (!pair || !km_code_push(pair, km_code_plain(cluster)) ||
            !km_code_push(pair, km_code_plain(x280)) || !km_code_put(map, core, pair)) {
            km_yaml_free(map);
            map = NULL;
        }
    }
    if (!ports || !km_code_put(ports, "serve", map)) {
        km_yaml_free(ports);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the ports");
    }
    return add(p, KM_CODE_SET, "ports", NULL, ports, "ports", err);
}

kmrun_status kmrun_program_pull(kmrun_program *p, uint32_t units, uint32_t per,
                                kmrun_pull_mode mode, const char *log, kmrun_error **err)
{
    clear(err);
    kmrun_status st = changeable(p, "kmrun_program_pull", err);
    if (st != KMRUN_OK)
        return st;
    static const char *const modes[] = {"count", "log", "replay"};
    km_yaml_node *m = km_code_map();
    bool ok = m && km_code_put(m, "units", km_code_uint(units)) &&
              km_code_put(m, "per", km_code_uint(per)) &&
              km_code_put(m, "mode", enum_node((int)mode, modes, 3)) &&
              (!log || km_code_put(m, "log", km_code_string(log)));
    if (!ok) {
        km_yaml_free(m);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for the pull");
    }
    return add(p, KM_CODE_SET, "pull", NULL, m, "pull", err);
}

void kmrun_command_spec_init(kmrun_command_spec *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
    c->count = BH_GRID_CORES;
    c->wait = true;
}

kmrun_status kmrun_program_command(kmrun_program *p, const kmrun_command_spec *c,
                                   kmrun_error **err)
{
    clear(err);
    kmrun_status st = changeable(p, "kmrun_program_command", err);
    if (st != KMRUN_OK)
        return st;
    if (!c)
        return km_api_usage(err, "kmrun_program_command: the command spec is NULL");
    if (c->size != sizeof *c)
        return km_api_usage(err,
                            "invalid kmrun_command_spec size %zu (expected %zu: set it with "
                            "kmrun_command_spec_init)",
                            c->size, sizeof *c);
    char label[32];
    snprintf(label, sizeof label, "command %zu", entries(p, "commands") + 1);
    if (missing(c->args, c->nargs))
        return km_api_usage(err, "%s: args is NULL with a count of %zu", label, c->nargs);
    km_yaml_node *m = km_code_map(), *group = km_code_list();
    bool ok = m && group && km_code_push(group, km_code_uint(c->first)) &&
              km_code_push(group, km_code_uint(c->count));
    if (!ok)
        km_yaml_free(group);
    ok = ok && km_code_put(m, "group", group) && /* taken, whatever the outcome */
         km_code_put(m, "handler", km_code_string(c->handler ? c->handler : ""));
    if (ok && c->nargs) {
        km_yaml_node *args = km_code_list();
        for (size_t i = 0; args && i < c->nargs; i++)
            if (!km_code_push(args, km_code_uint(c->args[i])))
                args = NULL;
        ok = km_code_put(m, "args", args);
    }
    ok = ok && km_code_put(m, "result", km_code_bool(c->result)) &&
         km_code_put(m, "exclusive", km_code_bool(c->exclusive)) &&
         km_code_put(m, "wait", km_code_bool(c->wait));
    if (!ok) {
        km_yaml_free(m);
        return km_api_error(err, KMRUN_SYSTEM, "out of memory for a command");
    }
    return add(p, KM_CODE_APPEND, "commands", NULL, m, label, err);
}

kmrun_status kmrun_program_set_x280_mhz(kmrun_program *p, unsigned mhz, kmrun_error **err)
{
    clear(err);
    kmrun_status st = changeable(p, "kmrun_program_set_x280_mhz", err);
    return st != KMRUN_OK ? st : add(p, KM_CODE_SET, "x280_mhz", NULL, km_code_uint(mhz),
                                     "x280_mhz", err);
}

kmrun_status kmrun_program_set_check_handover(kmrun_program *p, bool on, kmrun_error **err)
{
    clear(err);
    kmrun_status st = changeable(p, "kmrun_program_set_check_handover", err);
    return st != KMRUN_OK ? st : add(p, KM_CODE_SET, "check_handover", NULL, km_code_bool(on),
                                     "check_handover", err);
}

kmrun_status kmrun_program_check(kmrun_program *p, kmrun_error **err)
{
    clear(err);
    if (!p)
        return km_api_usage(err, "kmrun_program_check: the program is NULL");
    if (!p->code.doc || p->in_use)
        return KMRUN_OK; /* a manifest's, or checked at its load */
    char label[96];
    snprintf(label, sizeof label, "program '%.64s'", p->p->name);
    km_diags diags = {0};
    km_error e = {0};
    int rc = km_code_check(&p->code, label, &diags, &e);
    if (rc != KM_OK)
        return fail_diags(err, rc, &diags, &e, "the program has errors");
    km_diags_free(&diags);
    p->p = p->code.p;
    count_clusters(p);
    return KMRUN_OK;
}

kmrun_status km_api_program_ready(kmrun_program *p, kmrun_error **err)
{
    kmrun_status st = KMRUN_OK;
    if (!p->in_use && p->code.doc) {
        st = kmrun_program_check(p, err);
        if (st == KMRUN_OK)
            p->in_use = true;
    }
    /* A check walks the document again into a new model: the host
     * fallbacks given as functions go onto the model that loads. */
    if (st == KMRUN_OK)
        km_api_fallbacks_apply(p);
    return st;
}
