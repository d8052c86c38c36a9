/* kmx_ports.c: X280 ports and the pull (spec "X280 ports", "The pull").
 *
 * Not live yet: they need the simulated grid.  Until then the loop calls
 * return values that end a serve loop at once (kmx_port_cores 0,
 * kmx_port_owner -1, kmx_port_open 0) and the others KMX_BAD; the
 * core-0-only ones (kmx_port_run, kmx_pull_run) already enforce who may
 * call them.  Their layout is in kmx_layout.h: kmx_ports_area,
 * kmx_ports_settings, km_x280_msg_t, kmx_pull_counters, KMX_PULL_LOG_*. */
#include "kmx_internal.h"

int kmx_port_cores(void) {
    return 0;
}

int kmx_port_owner(int core) {
    (void)core;
    return -1;
}

int kmx_port_open(void) {
    return 0;
}

int kmx_port_tell(int core, uint32_t w0, uint32_t w1, uint32_t w2) {
    (void)core;
    (void)w0;
    (void)w1;
    (void)w2;
    return KMX_BAD;
}

int kmx_port_asked(int core, kmx_message *message) {
    (void)core;
    (void)message;
    return KMX_BAD;
}

int kmx_port_answer(int core, uint32_t sequence, uint32_t w0, uint32_t w1,
                    uint32_t w2) {
    (void)core;
    (void)sequence;
    (void)w0;
    (void)w1;
    (void)w2;
    return KMX_BAD;
}

int kmx_port_told(int core, kmx_message *message, uint64_t deadline) {
    (void)core;
    (void)message;
    (void)deadline;
    return KMX_BAD;
}

int kmx_port_run(const km_command_t *command, kmx_cluster_function function,
                 uint64_t arg, kmx_event *event) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    (void)command;
    (void)function;
    (void)arg;
    (void)event;
    return KMX_BAD;
}

int kmx_pull_run(const km_command_t *command, const kmx_pull *settings,
                 kmx_event *event) {
    int status = kmx__core0_only();
    if (status != KMX_OK) {
        return status;
    }
    (void)command;
    (void)settings;
    (void)event;
    return KMX_BAD;
}
