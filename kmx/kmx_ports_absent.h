/* kmx_ports_absent.h: X280 ports and the pull where a runtime has none
 * (not installed) — the host fallback's always, and the card runtime's
 * pull until it is live.  Written once: which calls there are, what the loop
 * calls return so that a serve loop ends at once (kmx_port_cores 0,
 * kmx_port_owner -1, kmx_port_open 0), and that the core-0-only ones
 * (kmx_port_run, kmx_pull_run) check their caller first.
 *
 * KMX_PORTS_ABSENT(refuse, core0_only) defines the eight port calls and
 * KMX_PULL_ABSENT(refuse, core0_only) kmx_pull_run: each calls
 * refuse("its name") (int refuse(const char *call): the status a call
 * that returns one returns), after core0_only(call, pc) (KMX_OK, or the
 * status to return: kmx__core0_only's arguments) for the core-0-only
 * ones. */
#ifndef KMX_PORTS_ABSENT_H
#define KMX_PORTS_ABSENT_H

#include "kmx.h"
#include "kmx_rules.h"

#define KMX_PORTS_ABSENT(refuse, core0_only)                                                   \
    int kmx_port_cores(void) {                                                                 \
        (void)refuse("kmx_port_cores");                                                        \
        return 0;                                                                              \
    }                                                                                          \
    int kmx_port_owner(int core) {                                                             \
        (void)core;                                                                            \
        (void)refuse("kmx_port_owner");                                                        \
        return -1;                                                                             \
    }                                                                                          \
    int kmx_port_open(void) {                                                                  \
        (void)refuse("kmx_port_open");                                                         \
        return 0;                                                                              \
    }                                                                                          \
    int kmx_port_tell(int core, uint32_t w0, uint32_t w1, uint32_t w2) {                       \
        (void)core, (void)w0, (void)w1, (void)w2;                                              \
        return refuse("kmx_port_tell");                                                        \
    }                                                                                          \
    int kmx_port_asked(int core, kmx_message *message) {                                       \
        (void)core, (void)message;                                                             \
        return refuse("kmx_port_asked");                                                       \
    }                                                                                          \
    int kmx_port_answer(int core, uint32_t sequence, uint32_t w0, uint32_t w1, uint32_t w2) {  \
        (void)core, (void)sequence, (void)w0, (void)w1, (void)w2;                              \
        return refuse("kmx_port_answer");                                                      \
    }                                                                                          \
    int kmx_port_told(int core, kmx_message *message, uint64_t deadline) {                     \
        (void)core, (void)message, (void)deadline;                                             \
        return refuse("kmx_port_told");                                                        \
    }                                                                                          \
    int kmx_port_run(const km_command_t *command, kmx_cluster_function function, uint64_t arg, \
                     kmx_event *event) {                                                       \
        int status = core0_only(KMX_API_PORT_RUN, KMX_CALLER());                               \
        if (status != KMX_OK) {                                                                \
            return status;                                                                     \
        }                                                                                      \
        (void)command, (void)function, (void)arg, (void)event;                                 \
        return refuse("kmx_port_run");                                                         \
    }

#define KMX_PULL_ABSENT(refuse, core0_only)                                                    \
    int kmx_pull_run(const km_command_t *command, const kmx_pull *settings, kmx_event *event) { \
        int status = core0_only(KMX_API_PULL_RUN, KMX_CALLER());                               \
        if (status != KMX_OK) {                                                                \
            return status;                                                                     \
        }                                                                                      \
        (void)command, (void)settings, (void)event;                                            \
        return refuse("kmx_pull_run");                                                         \
    }

#endif
