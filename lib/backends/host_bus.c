/* host_bus: the cluster bus of a host fallback's twelve cores
 * (host_internal.h): who serves, the lead's call lines, the done lines —
 * what the clusters' LIM lines hold on the card — under bus_lock.  The
 * runtime keeps the card's rules (kmx/host/kmx_host_twelve.c); kmrun keeps
 * the lines.  A function crosses the bus as an offset from its copy's
 * base.  A wait is one timed wait of at most BUS_WAIT_NS: the runtime
 * looks at the stop and its deadline between them.  Each line keeps the
 * kmx_time its writer gave, which a reader gets with it. */
#include "host_internal.h"

#include <time.h>

#define BUS_WAIT_NS 1000000L

static bool bus_cluster_ok(uint32_t cluster)
{
    return cluster >= 1 && cluster <= BH_WORK_CLUSTERS;
}

static void bus_wait(host_backend *b)
{
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    at.tv_nsec += BUS_WAIT_NS;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&b->bus_cond, &b->bus_lock, &at);
}

static host_bus *own_bus(host_thread *t)
{
    return &t->b->bus[t->cp->cluster];
}

static void cb_serve_begin(void *ops, uint64_t ticks)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    pthread_mutex_lock(&b->bus_lock);
    if (!own_bus(t)->serving)
        own_bus(t)->serving_ticks = ticks;
    own_bus(t)->serving = true;
    pthread_cond_broadcast(&b->bus_cond);
    pthread_mutex_unlock(&b->bus_lock);
}

static int cb_serve_next(void *ops, uint32_t seen, kmx_host_call *call)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    host_bus *bus = own_bus(t);
    pthread_mutex_lock(&b->bus_lock);
    if (bus->call.sequence == seen)
        bus_wait(b);
    int found = bus->call.sequence != seen;
    if (found)
        *call = bus->call;
    pthread_mutex_unlock(&b->bus_lock);
    return found;
}

static void cb_serve_done(void *ops, uint32_t sequence, int status, uint64_t ticks)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    pthread_mutex_lock(&b->bus_lock);
    own_bus(t)->status = status;
    own_bus(t)->done_ticks = ticks;
    own_bus(t)->done = sequence;
    pthread_cond_broadcast(&b->bus_cond);
    pthread_mutex_unlock(&b->bus_lock);
}

static int cb_serving(void *ops, uint32_t cluster, uint64_t *ticks)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    if (!bus_cluster_ok(cluster))
        return 0;
    pthread_mutex_lock(&b->bus_lock);
    if (!b->bus[cluster].serving)
        bus_wait(b);
    int serving = b->bus[cluster].serving;
    if (serving)
        *ticks = b->bus[cluster].serving_ticks;
    pthread_mutex_unlock(&b->bus_lock);
    return serving;
}

static void cb_post(void *ops, uint32_t cluster, const kmx_host_call *call)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    if (!bus_cluster_ok(cluster))
        return;
    pthread_mutex_lock(&b->bus_lock);
    b->bus[cluster].call = *call;
    pthread_cond_broadcast(&b->bus_cond);
    pthread_mutex_unlock(&b->bus_lock);
}

static int cb_done(void *ops, uint32_t cluster, uint32_t sequence, int *status,
                   uint64_t *ticks)
{
    host_thread *t = ops;
    host_backend *b = t->b;
    if (!bus_cluster_ok(cluster))
        return 0;
    host_bus *bus = &b->bus[cluster];
    pthread_mutex_lock(&b->bus_lock);
    if (bus->done != sequence)
        bus_wait(b);
    int done = bus->done == sequence;
    if (done) {
        *status = bus->status;
        *ticks = bus->done_ticks;
    }
    pthread_mutex_unlock(&b->bus_lock);
    return done;
}

void host_bus_init(host_backend *b)
{
    pthread_mutex_init(&b->bus_lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&b->bus_cond, &attr);
    pthread_condattr_destroy(&attr);
}

void host_bus_destroy(host_backend *b)
{
    pthread_cond_destroy(&b->bus_cond);
    pthread_mutex_destroy(&b->bus_lock);
}

void host_bus_fill(kmx_host_ctx *c)
{
    c->serve_begin = cb_serve_begin;
    c->serve_next = cb_serve_next;
    c->serve_done = cb_serve_done;
    c->serving = cb_serving;
    c->post = cb_post;
    c->done = cb_done;
}

bool host_bus_told_to_end(host_thread *t)
{
    host_backend *b = t->b;
    pthread_mutex_lock(&b->bus_lock);
    bool end = own_bus(t)->call.op == KMX_CLUSTER_END;
    pthread_mutex_unlock(&b->bus_lock);
    return end;
}
