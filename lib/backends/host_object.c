/* host_object: a host fallback's shared object (host_internal.h) — each
 * cluster loads a copy of its own (dlopen of one path gives one set of
 * globals; the copy is removed once loaded), and a pc in it becomes an
 * offset in the cached object and a source line. */
#include "host_internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "km_fs.h"

const char *host_object_path(const km_session *s, const km_cluster_plan *cp)
{
    size_t i = (size_t)(cp->thread - s->p->threads);
    return s->build.has_hosts && i < s->build.nthreads ? s->build.hosts[i].path : NULL;
}

int host_object_load(host_thread *t, const char *path, km_error *err)
{
    char *data = NULL;
    size_t n = 0;
    int rc = km_read_file(path, &data, &n, err);
    if (rc != KM_OK)
        return rc;
    char tmpl[] = "/tmp/kmrun-host-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0 || write(fd, data, n) != (ssize_t)n)
        rc = km_fail_errno(err, KM_EXIT_SYSTEM, "cannot make a copy of '%s' in /tmp", path);
    if (fd >= 0)
        close(fd);
    free(data);
    if (rc == KM_OK) {
        t->so = dlopen(tmpl, RTLD_NOW | RTLD_LOCAL);
        if (!t->so)
            rc = km_fail(err, KM_EXIT_BUILD, "cannot load the host fallback '%s': %s", path,
                         dlerror());
    }
    unlink(tmpl);
    if (rc == KM_OK) {
        t->run = (host_run_fn)(uintptr_t)dlsym(t->so, "kmx_host_run");
        if (!t->run)
            rc = km_fail(err, KM_EXIT_BUILD,
                         "the host fallback '%s' has no kmx_host_run (not linked with kmx/host)",
                         path);
    }
    /* A fallback given as a function: this copy's hook calls it. */
    const kmx_host_fallback *fallback = &t->cp->thread->fallback;
    if (rc == KM_OK && fallback->call) {
        kmx_host_fallback *hook = dlsym(t->so, KMX_HOST_FALLBACK_HOOK);
        if (!hook)
            rc = km_fail(err, KM_EXIT_BUILD, "the host fallback '%s' has no %s (not built from "
                         "kmx_fallback.c)", path, KMX_HOST_FALLBACK_HOOK);
        else
            *hook = *fallback;
    }
    return rc;
}

/* The source line of a trap's pc, and the pc as an offset in the
 * fallback's object (the pc itself when it is outside the object, e.g. in
 * libc). */
uint64_t host_object_source(const host_thread *t, uint64_t pc, km_source *src)
{
    memset(src, 0, sizeof *src);
    Dl_info info;
    const char *object = host_object_path(t->b->s, t->cp);
    if (!object || !dladdr((void *)(uintptr_t)pc, &info) || !info.dli_fbase)
        return pc;
    /* Only a pc inside this thread's own copy has a line in its object. */
    void *probe = dlsym(t->so, "kmx_host_run");
    Dl_info own;
    if (!probe || !dladdr(probe, &own) || own.dli_fbase != info.dli_fbase)
        return pc;
    uint64_t offset = pc - (uint64_t)(uintptr_t)info.dli_fbase;
    km_host_source_lookup(object, offset, src);
    return offset;
}

