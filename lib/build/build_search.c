/* build_search: where the compiler looked for a target's headers, so that a
 * direct-mode hit can prove that no header now shadows a recorded one, as
 * ccache's direct mode must.  A header is recorded by the path the compiler
 * found it at (the dependency file's); the order it searched is the
 * -iquote, -I, -isystem folders of the flags, CPATH and C_INCLUDE_PATH, the
 * compiler's own folders and -idirafter's, and for "..." includes the
 * including file's folder first.  A file that appears in any folder searched
 * before the one a header was found in would be included instead. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"
#include "km_fs.h"
#include "km_proc.h"
#include "ks_grow.h"
#include "ks_text.h"

static void add(km_search *s, const char *dir, size_t len)
{
    while (len > 1 && dir[len - 1] == '/')
        len--;
    if (!len)
        dir = ".", len = 1;
    for (size_t i = 0; i < s->dirs.n; i++)
        if (strlen(s->dirs.items[i]) == len && strncmp(s->dirs.items[i], dir, len) == 0)
            return; /* the compiler ignores a repeated folder too */
    if (!km_paths_add(&s->dirs, strndup(dir, len)))
        s->oom = true; /* km_search_order reports it */
}

/* The folders of one option (-Idir, -I dir, ...) in the expanded flags. */
static void add_option(km_search *s, char **flags, size_t n, const char *opt)
{
    size_t olen = strlen(opt);
    for (size_t i = 0; i < n; i++) {
        if (strncmp(flags[i], opt, olen) != 0)
            continue;
        const char *dir = flags[i][olen] ? flags[i] + olen : i + 1 < n ? flags[++i] : NULL;
        if (dir && strcmp(dir, "-") != 0)
            add(s, dir, strlen(dir));
    }
}

static void add_env(km_search *s, const char *var)
{
    const char *v = getenv(var);
    while (v && *v) {
        const char *colon = strchr(v, ':');
        size_t len = colon ? (size_t)(colon - v) : strlen(v);
        add(s, v, len); /* an empty element is the current folder */
        v = colon ? colon + 1 : NULL;
    }
}

/* The compiler's own folders, from `cc -E -v`: the lines between "search
 * starts here:" and "End of search list.", each one space in. */
static int add_system(km_search *s, const km_tool *tool, char **flags, size_t n,
                      const char *root, km_error *err)
{
    /* The tool, the flags, eight arguments of our own and the NULL. */
    char **argv = calloc(n + 9, sizeof *argv);
    if (!argv) {
        s->oom = true;
        return KM_OK;
    }
    size_t a = 0;
    argv[a++] = tool->path;
    for (size_t i = 0; i < n; i++)
        argv[a++] = flags[i];
    argv[a++] = "-E";
    argv[a++] = "-v";
    argv[a++] = "-x";
    argv[a++] = "c";
    argv[a++] = "/dev/null";
    argv[a++] = "-o";
    argv[a++] = "/dev/null";
    char *log = NULL;
    int status = 0;
    int rc = km_proc_run(argv, root, &log, &status, NULL, NULL, err);
    if (rc == KM_OK && status != 0)
        rc = km_fail(err, KM_EXIT_BUILD,
                     "cannot ask '%s' for its include folders (it exited with %d): the cache "
                     "could not prove which header a compile would find",
                     tool->path, status);
    if (rc == KM_OK) {
        bool in_list = false;
        char *save = NULL;
        for (char *l = strtok_r(log, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            if (strstr(l, "search starts here:"))
                in_list = true;
            else if (strncmp(l, "End of search list.", 19) == 0)
                in_list = false;
            else if (in_list && l[0] == ' ')
                add(s, l + 1, strlen(l + 1));
        }
    }
    free(log);
    free(argv);
    return rc;
}

int km_search_order(km_build_ctx *b, const km_target *t, km_search *s, km_error *err)
{
    memset(s, 0, sizeof *s);
    char **flags = calloc(t->nflags ? t->nflags : 1, sizeof *flags);
    s->oom = !flags;
    for (size_t i = 0; flags && i < t->nflags; i++)
        s->oom |= !(flags[i] = km_flag_expand(b, t->flags[i]));
    int rc = KM_OK;
    if (!s->oom) {
        add_option(s, flags, t->nflags, "-iquote");
        add_option(s, flags, t->nflags, "-I");
        add_option(s, flags, t->nflags, "-isystem");
        add_env(s, "CPATH");
        add_env(s, "C_INCLUDE_PATH");
        rc = add_system(s, t->cc, flags, t->nflags, b->root, err);
        add_option(s, flags, t->nflags, "-idirafter");
    }
    for (size_t i = 0; flags && i < t->nflags; i++)
        free(flags[i]);
    free(flags);
    if (rc == KM_OK && s->oom)
        rc = km_fail(err, KM_EXIT_SYSTEM, "out of memory for the include folders of the %s",
                     t->display);
    return rc;
}

void km_search_free(km_search *s)
{
    km_paths_free(&s->dirs);
    memset(s, 0, sizeof *s);
}

static bool push(km_paths *out, const char *dir, const char *name)
{
    return km_paths_add(out, ks_strf("%s/%s", dir, name));
}

bool km_search_candidates(const km_search *s, char *const *filedirs, size_t nfiledirs,
                          const char *dep, km_paths *out)
{
    for (size_t i = 0; i < s->dirs.n; i++) {
        const char *name = km_path_under(dep, s->dirs.items[i]);
        if (!name && strcmp(s->dirs.items[i], ".") == 0 && dep[0] != '/')
            name = dep;
        if (!name)
            continue;
        /* Found in folder i as `name`: any earlier folder, and any
         * including file's folder, could now hold it first. */
        for (size_t k = 0; k < i; k++)
            if (!push(out, s->dirs.items[k], name))
                return false;
        for (size_t k = 0; k < nfiledirs; k++)
            if (!push(out, filedirs[k], name))
                return false;
    }
    return true;
}

bool km_paths_add(km_paths *p, char *path)
{
    if (!path || !KS_GROW(p->items, p->cap, p->n + 1)) {
        free(path);
        return false;
    }
    p->items[p->n++] = path;
    return true;
}

void km_paths_free(km_paths *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->items[i]);
    free(p->items);
    memset(p, 0, sizeof *p);
}
