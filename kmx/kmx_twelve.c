/* kmx_twelve.c: twelve cores across clusters (spec "Twelve cores"):
 * kmx_parallel_all, kmx_serve, kmx_push.
 *
 * Not live yet: they need the NoC windows of the simulated card.  The
 * core-0-only calls already enforce who may call them (the library error
 * `parallel` otherwise); all return KMX_BAD.  Their layout is in
 * kmx_layout.h: kmx_cluster_lines (call and done lines), kmx_peer (the
 * other clusters), the windows KMX_WINDOW_CLUSTER and KMX_WINDOW_PUSH. */
#include "kmx_internal.h"

int kmx_parallel_all(kmx_cluster_function function, uint64_t arg) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    (void)function;
    (void)arg;
    return KMX_BAD;
}

int kmx_serve(void) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    return KMX_BAD;
}

int kmx_push(int cluster, uint32_t id, uint64_t offset, const void *source,
             uint64_t bytes) {
    (void)cluster;
    (void)id;
    (void)offset;
    (void)source;
    (void)bytes;
    return KMX_BAD;
}
