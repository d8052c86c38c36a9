/* kmx_host_unsupported.c: the calls the host fallback cannot honour —
 * X280 ports (kmx_port_*) and the pull (kmx_pull_run): the spec has such
 * threads run on the card.
 *
 * Each one tells kmrun its name through ctx->unsupported (the first such
 * call of the run only: kmrun's message names the call that failed the
 * run), records the library error `host` (KMX_ERROR_HOST; the first error
 * wins, as always), which stops the run (state failed), and returns what
 * ends the caller's loop: KMX_STOPPED from the calls that return a status
 * (as a library error's `parallel` does), and the card's neutral values
 * from the others (kmx_port_cores 0, kmx_port_owner -1, kmx_port_open 0).
 * The core-0-only ones (kmx_port_run, kmx_pull_run) check their caller
 * first, as the card does: from cores 1-3 or inside kmx_parallel's
 * function they are the error `parallel`. */
#include "kmx_host_internal.h"

static int unsupported(const char *call) {
    if (__atomic_exchange_n(&kmx_host.unsupported_claim, 1u, __ATOMIC_SEQ_CST) == 0) {
        const kmx_host_ctx *ctx = kmx_host.ctx;
        ctx->unsupported(ctx->ops, call);
    }
    kmx_host_error(KMX_ERROR_HOST, 0);
    return KMX_STOPPED;
}

/* A core-0-only call: the caller's check first. */
static int unsupported_core0(const char *call) {
    int status = kmx_host_core0_only();
    if (status != KMX_OK) {
        return status;
    }
    return unsupported(call);
}

int kmx_port_cores(void) {
    (void)unsupported("kmx_port_cores");
    return 0;
}

int kmx_port_owner(int core) {
    (void)core;
    (void)unsupported("kmx_port_owner");
    return -1;
}

int kmx_port_open(void) {
    (void)unsupported("kmx_port_open");
    return 0;
}

int kmx_port_tell(int core, uint32_t w0, uint32_t w1, uint32_t w2) {
    (void)core;
    (void)w0;
    (void)w1;
    (void)w2;
    return unsupported("kmx_port_tell");
}

int kmx_port_asked(int core, kmx_message *message) {
    (void)core;
    (void)message;
    return unsupported("kmx_port_asked");
}

int kmx_port_answer(int core, uint32_t sequence, uint32_t w0, uint32_t w1, uint32_t w2) {
    (void)core;
    (void)sequence;
    (void)w0;
    (void)w1;
    (void)w2;
    return unsupported("kmx_port_answer");
}

int kmx_port_told(int core, kmx_message *message, uint64_t deadline) {
    (void)core;
    (void)message;
    (void)deadline;
    return unsupported("kmx_port_told");
}

int kmx_port_run(const km_command_t *command, kmx_cluster_function function, uint64_t arg,
                 kmx_event *event) {
    (void)command;
    (void)function;
    (void)arg;
    (void)event;
    return unsupported_core0("kmx_port_run");
}

int kmx_pull_run(const km_command_t *command, const kmx_pull *settings, kmx_event *event) {
    (void)command;
    (void)settings;
    (void)event;
    return unsupported_core0("kmx_pull_run");
}
