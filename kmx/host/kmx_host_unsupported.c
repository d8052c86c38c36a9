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
 * function they are the error `parallel`.  Which calls, and what each
 * returns, is kmx_ports_absent.h, the card's too. */
#include "kmx_host_internal.h"
#include "kmx_ports_absent.h"

static int unsupported(const char *call) {
    if (__atomic_exchange_n(&kmx_host.unsupported_claim, 1u, __ATOMIC_SEQ_CST) == 0) {
        const kmx_host_ctx *ctx = kmx_host.ctx;
        ctx->unsupported(ctx->ops, call);
    }
    kmx_host_error(KMX_ERROR_HOST, 0);
    return KMX_STOPPED;
}

KMX_PORTS_ABSENT(unsupported, kmx_host_core0_only)
KMX_PULL_ABSENT(unsupported, kmx_host_core0_only)
