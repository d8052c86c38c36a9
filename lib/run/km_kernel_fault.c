/* km_kernel_fault: a handler the card took out, named (km_kernel_fault.h). */
#include "km_kernel_fault.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "km_driver.h"
#include "km_handlers.h"
#include "session_internal.h"
#include "km_run_json.h"
#include "ks_text.h"

const char *km_signal_name(int sig, char *buf, size_t n)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, n, "SIG%s", abbrev);
    else
        snprintf(buf, n, "signal %d", sig);
    return buf;
}

/* "kernels/bad.c:10", or where pc is without a line. */
static void where(const km_kernel_fault *k, char *out, size_t n)
{
    if (k->source.known)
        snprintf(out, n, "%s:%u", k->source.file, k->source.line);
    else if (k->in_kernels)
        snprintf(out, n, "offset 0x%" PRIx64 " of the kernels' object", k->pc);
    else
        snprintf(out, n, "pc 0x%" PRIx64, k->pc);
}

/* The handler's name, quoted, or its id. */
static void handler_text(const km_kernel_fault *k, char *out, size_t n)
{
    if (k->handler)
        snprintf(out, n, "'%s'", k->handler);
    else
        snprintf(out, n, "%" PRIu32, k->handler_id);
}

static void sentence(km_kernel_fault *k)
{
    ks_text t = {{0}, 0};
    char h[300], at[600], us[40], sig[32];
    handler_text(k, h, sizeof h);
    where(k, at, sizeof at);
    km_ps_us_text(k->ps, us, sizeof us);
    if (k->stuck) {
        ks_text_add(&t,
                    "Tensix core %u never returned from handler %s: at %s it ran %g s of real "
                    "time without a call that spends modeled time (km_compute, km_spend_ns, a "
                    "NoC or port call), so modeled time stood still at %s \xc2\xb5s and no "
                    "deadline could come; ",
                    k->core, h, at, (double)KM_HANDLER_SPIN_MS / 1000.0, us);
    } else {
        ks_text_add(&t, "Tensix core %u faulted in handler %s at %s, %s \xc2\xb5s: %s", k->core, h,
                    at, us, km_signal_name(k->signal, sig, sizeof sig));
        if (k->stack_overflow)
            ks_text_add(&t, ", its stack overflowed (the core's %u KiB, at 0x%" PRIx64 ")",
                        SIM_HANDLER_STACK_BYTES / 1024u, k->address);
        else if (k->signal == SIGABRT)
            ks_text_add(&t, ", the handler called abort() (or a check of libc's did)");
        else if (k->has_address)
            ks_text_add(&t, " at address 0x%" PRIx64, k->address);
        if (!k->in_kernels)
            ks_text_add(&t, ", inside %s, %s", k->symbol[0] ? k->symbol : "kmrun or a library",
                        k->call ? "which the handler called there"
                                : "outside the kernels' object");
        ks_text_add(&t, "; ");
    }
    ks_text_add(&t, "the core is halted and its command never ends (on a card the dispatcher "
                    "waits for it: the grid needs a reset), so the run was stopped");
    snprintf(k->detail, sizeof k->detail, "%.*s", (int)sizeof k->detail - 1, t.buf);
}

void km_kernel_fault_name(const km_program *p, const sim_handler_fault *rec,
                          const char *kernels_so, km_kernel_fault *out)
{
    memset(out, 0, sizeof *out);
    out->stuck = rec->kind == SIM_HANDLER_SPIN;
    out->core = rec->core;
    out->handler_id = rec->handler;
    out->handler = rec->handler <= INT32_MAX ? km_handler_name(p, (int)rec->handler) : NULL;
    out->cluster = (int)rec->ring;
    out->handle = rec->handle;
    out->signal = rec->signal;
    out->has_address = !out->stuck && rec->signal != SIGABRT;
    out->address = rec->address;
    out->stack_overflow = rec->stack_overflow;
    out->in_kernels = rec->in_kernels;
    out->pc = rec->pc;
    snprintf(out->symbol, sizeof out->symbol, "%s", rec->symbol);
    out->call = rec->call;
    out->ps = rec->ps;
    /* The faulting or spinning instruction's own line; inside a call into
     * kmrun, the call's (its return address - 1). */
    if (rec->in_kernels)
        km_host_source_lookup(kernels_so, rec->pc, &out->source);
    else if (rec->call > 0)
        km_host_source_lookup(kernels_so, rec->call - 1, &out->source);
    sentence(out);
}

int km_kernel_fault_line(const km_kernel_fault *k, char *out, size_t n)
{
    if (k->source.known)
        return snprintf(out, n, "%s:%u: %s", k->source.file, k->source.line, k->detail);
    return snprintf(out, n, "?: %s", k->detail);
}

int km_kernel_fault_note(const km_kernel_fault *k, char *out, size_t n)
{
    char h[300], at[600];
    handler_text(k, h, sizeof h);
    where(k, at, sizeof at);
    return snprintf(out, n,
                    "its command (handle %" PRIu32 ", handler %s) %s on Tensix core %u at %s and "
                    "never ends: the run was stopped (kernel_faults)",
                    k->handle, h, k->stuck ? "never returned" : "faulted", k->core, at);
}
