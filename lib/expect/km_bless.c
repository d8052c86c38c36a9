/* km_bless: a program's expect: rewritten to what its runs gave
 * (km_bless.h).  The runs' fixes are gathered by place, checked against
 * the backends each item applies to, made into yaml_edit's edits of the
 * manifest's text, and the new text written over the file at once. */
#include "km_bless.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "km_fs.h"
#include "ks_grow.h"
#include "ks_text.h"

void km_bless_init(km_bless *b, const km_program *p)
{
    *b = (km_bless){.p = p};
}

void km_bless_free(km_bless *b)
{
    free(b->items);
    free(b->failure);
    *b = (km_bless){0};
}

const char *km_bless_backends(unsigned on)
{
    switch (on) {
    case KM_EXPECT_ON_SIM: return "sim";
    case KM_EXPECT_ON_HOST: return "host";
    default: return "sim and host";
    }
}

static unsigned backend_bit(const char *name)
{
    if (name && strcmp(name, "sim") == 0)
        return KM_EXPECT_ON_SIM;
    if (name && strcmp(name, "host") == 0)
        return KM_EXPECT_ON_HOST;
    return 0;
}

static bool same_value(const km_fix *a, const km_fix *b)
{
    if (a->kind != b->kind || a->list != b->list || a->nnow != b->nnow)
        return false;
    for (size_t i = 0; i < a->nnow; i++)
        if (strcmp(a->now[i], b->now[i]) != 0)
            return false;
    return true;
}

int km_bless_passed(km_bless *b, unsigned backend, km_error *err)
{
    if (!backend || (b->ran & backend))
        return km_fail(err, KM_EXIT_USAGE, "a backend's run blessed twice (expected each once)");
    b->ran |= backend;
    return KM_OK;
}

int km_bless_add(km_bless *b, const km_verdict *v, km_error *err)
{
    unsigned bit = backend_bit(v->backend);
    const char *manifest = b->p->manifest;
    if (!manifest || !v->file || strcmp(v->file, manifest) != 0)
        return km_fail(err, KM_EXIT_USAGE, "the verdict of another program (expected one of %s)",
                       manifest ? manifest : "a manifest file");
    int rc = km_bless_passed(b, bit, err);
    if (rc != KM_OK)
        return rc;
    for (size_t i = 0; i < v->n; i++) {
        const km_mismatch *m = &v->items[i];
        if (!m->fix.ok) {
            if (!b->failed && !(b->failure = strdup(m->text)))
                return km_fail(err, KM_EXIT_SYSTEM, "out of memory");
            b->failed |= bit;
            continue;
        }
        km_bless_item *it = NULL;
        for (size_t k = 0; k < b->n && !it; k++)
            if (b->items[k].pos.line == m->pos.line && b->items[k].pos.col == m->pos.col)
                it = &b->items[k];
        if (it) {
            if (same_value(it->fix, &m->fix)) {
                it->from |= bit;
                continue;
            }
            if (!it->differ)
                it->other = &m->fix;
            it->differ |= bit;
            continue;
        }
        if (!KS_GROW(b->items, b->cap, b->n + 1))
            return km_fail(err, KM_EXIT_SYSTEM, "out of memory");
        b->items[b->n++] = (km_bless_item){m->pos, &m->fix, m->subject, bit, 0, NULL};
    }
    return KM_OK;
}

/* The value a fix gives, "[42, 1]" or "7", into buf. */
static const char *shown(const km_fix *f, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "%s", f->list ? "[" : "");
    for (size_t i = 0; i < f->nnow && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", f->now[i]);
    if (f->list && used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

/* KM_OK when the item can be blessed, else KM_EXIT_FAILED and why. */
static int refuse(const km_bless *b, const km_bless_item *it, km_error *err)
{
    const char *file = b->p->manifest;
    unsigned applies = it->fix->on ? it->fix->on : b->p->expect.backends | b->ran;
    char a[160], b2[160];
    if (it->differ)
        return km_fail(err, KM_EXIT_FAILED,
                       "%s:%d:%d: %s: sim and host give different values, %s %s and %s %s "
                       "(bless each backend's in an item of its own, with backend:)",
                       file, it->pos.line, it->pos.col, it->subject,
                       km_bless_backends(it->from), shown(it->fix, a, sizeof a),
                       km_bless_backends(it->differ & ~it->from), shown(it->other, b2, sizeof b2));
    if (applies & ~b->ran)
        return km_fail(err, KM_EXIT_FAILED,
                       "%s:%d:%d: %s: the item applies to %s too, which did not run (bless "
                       "it on every backend it applies to, or give it a backend:)",
                       file, it->pos.line, it->pos.col, it->subject,
                       km_bless_backends(applies & ~b->ran));
    if (applies & ~it->from)
        return km_fail(err, KM_EXIT_FAILED,
                       "%s:%d:%d: %s: %s gives a new value, %s the manifest's (bless each "
                       "backend's in an item of its own, with backend:)",
                       file, it->pos.line, it->pos.col, it->subject,
                       km_bless_backends(it->from), km_bless_backends(applies & ~it->from));
    return KM_OK;
}

static int write_all(int fd, const char *data, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, data, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        data += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The file at path (a link: the file it names) replaced by data whole:
 * a hidden temporary beside it with its mode, fsync, rename. */
static int replace_file(const char *path, const char *data, size_t n, km_error *err)
{
    char *real = realpath(path, NULL), *tmp = NULL;
    struct stat st;
    if (!real || stat(real, &st) != 0) {
        free(real);
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot rewrite '%s'", path);
    }
    char *slash = strrchr(real, '/');
    if (!(tmp = ks_strf("%.*s/.%s.bless.XXXXXX", (int)(slash - real), real, slash + 1))) {
        free(real);
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory");
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    int rc = KM_OK;
    if (fd < 0 || write_all(fd, data, n) != 0 || fchmod(fd, st.st_mode & 07777) != 0 ||
        fsync(fd) != 0 || close(fd) != 0 || (fd = -1, rename(tmp, real) != 0)) {
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot rewrite '%s'", path);
        if (fd >= 0)
            close(fd);
        unlink(tmp);
    }
    free(tmp);
    free(real);
    return rc;
}

int km_bless_write(km_bless *b, km_error *err)
{
    b->written = 0;
    const char *file = b->p->manifest;
    if (b->failed)
        return km_fail(err, KM_EXIT_FAILED, "%s (a failure, not a value to bless)", b->failure);
    if (!file)
        return km_fail(err, KM_EXIT_USAGE, "the program has no manifest file to bless");
    for (size_t i = 0; i < b->n; i++) {
        int rc = refuse(b, &b->items[i], err);
        if (rc != KM_OK)
            return rc;
    }
    if (b->n == 0)
        return KM_OK;
    km_yaml_edit *edits = calloc(b->n, sizeof *edits);
    if (!edits)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory");
    for (size_t i = 0; i < b->n; i++) {
        const km_fix *f = b->items[i].fix;
        edits[i] = (km_yaml_edit){
            .line = b->items[i].pos.line,
            .col = b->items[i].pos.col,
            .old = {f->old_kind, f->list, (const char *const *)f->old, f->nold},
            .now = {f->kind, f->list, (const char *const *)f->now, f->nnow},
        };
    }
    char *text = NULL, *out = NULL;
    size_t len = 0, out_len = 0;
    int rc = km_read_file(file, &text, &len, err);
    if (rc == KM_OK)
        rc = km_yaml_edit_text(file, text, len, edits, b->n, &out, &out_len, err);
    if (rc == KM_OK && (out_len != len || memcmp(out, text, len) != 0)) {
        rc = replace_file(file, out, out_len, err);
        if (rc == KM_OK)
            b->written = b->n;
    }
    free(edits);
    free(text);
    free(out);
    return rc;
}
