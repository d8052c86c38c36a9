/* kmx_host_exit.c: exit, _exit, _Exit, quick_exit and abort called by
 * thread code.  On the card there is no libc and a thread ends by
 * returning from kmx_main; on the host these would end kmrun's process —
 * every other thread's result and the run folder with it.  The fallback's
 * link (lib/build/build_ninja.c, link_host) wraps them with -Wl,--wrap, so the
 * thread's references resolve here; this file is linked in only then (the
 * __real_ ones exist only under --wrap).
 *
 * Why wrap and not a child process per run: the fallback shares the
 * simulated card's kernel side, its rings and DRAM, with kmrun through
 * callbacks and one lock; a child would need all of that across a process
 * boundary.  A wrapper costs nothing and keeps one process; calls from
 * inside libc (assert, the fortified and stack-protector checks) end in
 * libc's abort, whose SIGABRT kmrun's trap handler catches as it catches a
 * fault.
 *
 * On an armed thread (thread code on core 0-3) the call is told to kmrun
 * (ctx->quit), then: abort raises SIGABRT, which traps; an exit records the
 * error `host` (the run stops) and leaves the core's code through its
 * armed buffer, as a trap would.  Anywhere else — a thread that thread
 * code started itself — the real call runs, as before. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "kmx_host_internal.h"

_Noreturn void __real_exit(int code);
_Noreturn void __real__exit(int code);
_Noreturn void __real__Exit(int code);
_Noreturn void __real_quick_exit(int code);
_Noreturn void __real_abort(void);

_Noreturn void __wrap_exit(int code) KMX_HOST_HIDDEN;
_Noreturn void __wrap__exit(int code) KMX_HOST_HIDDEN;
_Noreturn void __wrap__Exit(int code) KMX_HOST_HIDDEN;
_Noreturn void __wrap_quick_exit(int code) KMX_HOST_HIDDEN;
_Noreturn void __wrap_abort(void) KMX_HOST_HIDDEN;

/* The caller's pc inside its call instruction (a return address minus
 * one: a noreturn call may be a function's last instruction, and its
 * return address the next function's first). */
#define CALL_PC() ((uint64_t)(uintptr_t)__builtin_return_address(0) - 1u)

static int armed(void) {
    return kmx_host.ctx != NULL && kmx_host_armed != NULL && kmx_host_core >= 0;
}

/* An exit on an armed thread: does not return. */
static void leave(const char *call, int code, uint64_t pc) {
    if (!armed()) {
        return;
    }
    kmx_host_ctx *ctx = kmx_host.ctx;
    sigjmp_buf *jmp = kmx_host_armed;
    ctx->quit(ctx->ops, call, code, pc);
    kmx_host_error(KMX_ERROR_HOST, 0);
    kmx_host_arm((uint32_t)kmx_host_core, NULL);
    siglongjmp(*jmp, KMX_HOST_QUIT);
}

_Noreturn void __wrap_exit(int code) {
    leave("exit", code, CALL_PC());
    __real_exit(code);
}

_Noreturn void __wrap__exit(int code) {
    leave("_exit", code, CALL_PC());
    __real__exit(code);
}

_Noreturn void __wrap__Exit(int code) {
    leave("_Exit", code, CALL_PC());
    __real__Exit(code);
}

_Noreturn void __wrap_quick_exit(int code) {
    leave("quick_exit", code, CALL_PC());
    __real_quick_exit(code);
}

_Noreturn void __wrap_abort(void) {
    if (armed()) {
        kmx_host.ctx->quit(kmx_host.ctx->ops, "abort", 0, CALL_PC());
        raise(SIGABRT); /* kmrun's trap handler jumps back into the runtime */
    }
    __real_abort();
}
