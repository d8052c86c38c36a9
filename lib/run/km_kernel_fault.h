/* km_kernel_fault: a Tensix handler the card took out (sim_card.h,
 * sim_card_handler_faults) as a user reads it — the kernel's failure:
 * which core, which handler, which command, the signal and the faulting
 * address or the endless loop, the handler's source line from the
 * kernels' shared object's debug information (the host's addr2line on
 * the cached object, as hand-over sites are named), and one sentence.
 *
 * A handler runs natively in kmrun's process; one that faults or never
 * gives way would kill or hang kmrun.  The card takes its core out (it
 * halts for good and its command never ends: on a card such a core hangs
 * the dispatcher's wait for it), the run driver stops the run
 * (km_driver.h), and the run JSON lists it in `kernel_faults`; any fails
 * the run. */
#ifndef KM_KERNEL_FAULT_H
#define KM_KERNEL_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "km_program.h"
#include "km_session.h"
#include "sim_card.h"

typedef struct km_kernel_fault {
    bool stuck;          /* it never gave way; else its code faulted */
    unsigned core;       /* the Tensix core, grid order */
    uint32_t handler_id;
    const char *handler; /* its name (the program's or a built-in's); NULL unknown */
    int cluster;         /* the command's: the cluster whose thread submitted it, 0 host-fed */
    uint32_t handle;     /* its handle in that ring (0: unknown) */
    int signal;          /* a fault's signal */
    bool has_address;    /* a fault's address (none for SIGABRT) */
    uint64_t address;
    bool stack_overflow; /* the address is the guard below the core's stack */
    bool in_kernels;     /* pc is in the kernels' object (an offset), else in kmrun or a library */
    uint64_t pc;
    char symbol[64];     /* !in_kernels: the function pc is in ("" unknown) */
    uint64_t call;       /* !in_kernels: the handler's call it faulted inside (an offset), 0 none */
    km_source source;    /* the handler's line: of pc, or of its call */
    uint64_t ps;         /* the core's modeled time */
    char detail[900];    /* the sentence (km_kernel_fault_name writes it) */
} km_kernel_fault;

/* Names a record after the program, with the source line from the kernels'
 * object (kernels_so: NULL, none) and its sentence. */
void km_kernel_fault_name(const km_program *p, const sim_handler_fault *rec,
                          const char *kernels_so, km_kernel_fault *out);

/* "SIGSEGV", or "signal 7" for one without a name here. */
const char *km_signal_name(int sig, char *buf, size_t n);

/* The diagnostic, one line, no newline: the line first ("?: " when
 * unknown), then the detail.  Returns what snprintf does. */
int km_kernel_fault_line(const km_kernel_fault *k, char *out, size_t n);

/* For the thread whose command it was: "its command (handle 1, handler
 * 'wild') ... see kernel_faults". */
int km_kernel_fault_note(const km_kernel_fault *k, char *out, size_t n);

#endif
