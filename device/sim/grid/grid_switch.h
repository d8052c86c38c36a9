/* grid_switch.h: the grid's stack switches (grid_switch.c), for grid.c. */
#ifndef GRID_SWITCH_H
#define GRID_SWITCH_H

#include <setjmp.h>
#include <stdbool.h>
#include <ucontext.h>

/* Saves the caller's place in `here` and goes to `there`, a place saved by
 * another call of these; returns when something goes back to `here`. */
void grid_switch(jmp_buf here, jmp_buf there);

/* Goes to `there`, a place saved by grid_switch, for good: from a signal
 * handler that takes a core off its stack (grid_trap.c). */
void grid_switch_leave(jmp_buf there) __attribute__((noreturn));

/* Saves the caller's place in `here` and enters `first`, a makecontext'd
 * context that has not run yet; true when something goes back to `here`,
 * false at once when setcontext fails (the context is not entered). */
bool grid_switch_enter(jmp_buf here, const ucontext_t *first);

#endif
