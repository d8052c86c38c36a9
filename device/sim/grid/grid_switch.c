/* grid_switch: the grid's coroutine switches (grid_switch.h), on their own
 * so that _FORTIFY_SOURCE can be off for them alone.
 *
 * With _FORTIFY_SOURCE (Debian's and Ubuntu's packages build with =2, and
 * Ubuntu's compiler turns it on by default) glibc's <setjmp.h> sends
 * longjmp, _longjmp and siglongjmp to __longjmp_chk, which aborts a jump
 * to a stack pointer below the current one unless it comes from the
 * signal stack ("longjmp causes uninitialized stack frame"): it takes a
 * jump onto another stack for a jump into frames that have returned.
 * Here every jump is onto another stack on purpose, a core's coroutine or
 * the grid's own (also from a signal handler on the alternate stack, which
 * takes a core out: grid_trap.c), so the check is wrong for these
 * functions and only for them; the rest of the grid keeps the fortified library.  The #undef
 * is in the source, before the first header, rather than a -U in the
 * Makefile: it holds however the file is compiled, whichever way the flag
 * arrived (-D, -Wp,-D, the compiler's own default).
 *
 * Why not swapcontext for every switch: it saves and restores the signal
 * mask with a system call each time, about 1.6 us a switch, and a handler
 * that gives way every modeled microsecond made a 120-core command of
 * 10 ms take 3.8 s instead of 0.46 s.  Why not a hand-written switch: it
 * would be assembly for each host architecture, and glibc's _setjmp and
 * _longjmp already save exactly the callee-saved state, with its pointer
 * mangling, and nothing else. */
#undef _FORTIFY_SOURCE

#include "grid_switch.h"

void grid_switch(jmp_buf here, jmp_buf there)
{
    if (_setjmp(here) == 0)
        _longjmp(there, 1);
}

void grid_switch_leave(jmp_buf there)
{
    _longjmp(there, 1);
}

bool grid_switch_enter(jmp_buf here, const ucontext_t *first)
{
    /* volatile: read after the _longjmp back, on this frame */
    volatile bool entered = true;
    if (_setjmp(here) == 0) {
        setcontext(first); /* returns only on failure */
        entered = false;
    }
    return entered;
}
