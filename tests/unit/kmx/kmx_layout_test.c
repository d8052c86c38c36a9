/* Tests for kmx/include/kmx_layout.h and kmx.h on the host side: the
 * binary contract must mean the same bytes here (x86-64) as in the RV64
 * runtime, where the same _Static_asserts hold.  These tests restate the
 * numbers a host loader relies on, so that a change to the layout is a
 * deliberate one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kmx.h"

static void device_facts(void **state)
{
    (void)state;
    assert_int_equal(BH_LIM_BASE, 0x08000000u);
    assert_int_equal(BH_LIM_BYTES, 1966080u);
    assert_int_equal(BH_LIM_END, 0x081E0000u);
    assert_int_equal(BH_IMAGE_MAX_BYTES, 126976u);
    assert_int_equal(BH_TICKS_PER_SECOND, 50000000u);
    assert_true(BH_DRAM_CACHED(0x1000) == 0x400030001000ull);
    assert_true(BH_DRAM_UNCACHED(0x1000) == 0x000030001000ull);
    assert_true(BH_BANK_BYTES == 4ull << 30);
    assert_int_equal(BH_FLUSH64, 0x02010200u);
    assert_int_equal(BH_MTIME, 0x0200BFF8u);
    assert_true(BH_NOC_WINDOW(0) == 0x000430000000ull);
    assert_true(BH_NOC_WINDOW(223) == 0x000430000000ull + 223ull * 2 * 1024 * 1024);
    assert_int_equal(BH_NOC_WINDOW_REG(0), 0x2FF00000u);
    assert_int_equal(BH_NOC_WINDOW_REG(223), 0x2FF00000u + 223u * 16u);
    assert_int_equal(sizeof(bh_noc_window_reg), 16);
    assert_int_equal(offsetof(bh_noc_window_reg, mode), 12);
}

static void constants_other_engineers_use(void **state)
{
    (void)state;
    assert_int_equal(BH_GRID_CORES, 120);
    assert_int_equal(BH_CLUSTER_CORES, 4);
    assert_int_equal(BH_WORK_CLUSTERS, 3);
    assert_int_equal(KMX_MAX_REGIONS, 16);
    assert_int_equal(KMX_MAX_WORDS, 64);
    assert_int_equal(KMX_MAX_RESULT_WORDS, 48);
    assert_int_equal(KM_HANDLER_FIRST_PROGRAM, 16);
    assert_int_equal(KM_HANDLER_MAX, 255);
    assert_int_equal(KM_HANDLER_NOP, 1);
    assert_int_equal(KM_HANDLER_FILL, 2);
    assert_int_equal(KM_HANDLER_COPY, 3);
    assert_int_equal(KM_HANDLER_SUM, 4);
    assert_int_equal(KM_HANDLER_SPEND, 5);
}

/* Each area in order, inside LIM, not overlapping the next. */
static void lim_map(void **state)
{
    (void)state;
    struct {
        const char *name;
        uint32_t at, bytes;
    } areas[] = {
        {"image", KMX_LIM_IMAGE, BH_IMAGE_MAX_BYTES},
        {"args", KMX_LIM_ARGS, KMX_LIM_ARGS_BYTES},
        {"result", KMX_LIM_RESULT, KMX_LIM_RESULT_BYTES},
        {"ring counts", KMX_LIM_RING_COUNTS, 64},
        {"stop", KMX_LIM_STOP, 64},
        {"spawn", KMX_LIM_SPAWN, KMX_LIM_SPAWN_BYTES},
        {"cluster lines", KMX_LIM_CLUSTER_LINES, KMX_LIM_CLUSTER_LINES_BYTES},
        {"ring events", KMX_LIM_RING_EVENTS, KMX_LIM_RING_EVENTS_BYTES},
        {"ports", KMX_LIM_PORTS, KMX_LIM_PORTS_BYTES},
        {"pull", KMX_LIM_PULL, KMX_LIM_PULL_BYTES},
        {"private", KMX_LIM_PRIVATE, KMX_LIM_PRIVATE_BYTES},
        {"stack 0", KMX_STACK_BASE(0), KMX_STACK_BYTES},
        {"stack 1", KMX_STACK_BASE(1), KMX_STACK_BYTES},
        {"stack 2", KMX_STACK_BASE(2), KMX_STACK_BYTES},
        {"stack 3", KMX_STACK_BASE(3), KMX_STACK_BYTES},
    };
    size_t n = sizeof areas / sizeof areas[0];
    assert_int_equal(areas[0].at, BH_LIM_BASE);
    for (size_t i = 0; i < n; i++) {
        assert_true(areas[i].at >= BH_LIM_BASE);
        assert_true(areas[i].at + areas[i].bytes <= BH_LIM_END);
        assert_int_equal(areas[i].at % 64u, 0);
        if (i + 1 < n && areas[i].at + areas[i].bytes > areas[i + 1].at)
            fail_msg("%s overlaps %s", areas[i].name, areas[i + 1].name);
    }
    assert_int_equal(KMX_STACK_TOP(BH_CLUSTER_CORES - 1), BH_LIM_END);
    assert_int_equal(KMX_STACK_BYTES, 384u * 1024u);
    assert_int_equal(KMX_LIM_RING_LINE, KMX_LIM_ARGS + offsetof(kmx_args, ring));
    assert_int_equal(KMX_LIM_PORTS_BYTES, 8832); /* spec: 8.6 KiB */
    assert_int_equal(KMX_RING_EVENTS_MAX, 256);
    /* What the host zeroes: from the counts line through the pull counters. */
    assert_int_equal(KMX_LIM_HOST_ZERO, KMX_LIM_RING_COUNTS);
    assert_int_equal(KMX_LIM_HOST_ZERO + KMX_LIM_HOST_ZERO_BYTES, KMX_LIM_PULL + KMX_LIM_PULL_BYTES);
    /* The absolute addresses, as a memory dump shows them. */
    assert_int_equal(KMX_LIM_ARGS, 0x0801F000u);
    assert_int_equal(KMX_LIM_RESULT, 0x0801F800u);
    assert_int_equal(KMX_LIM_RING_COUNTS, 0x0801FA00u);
    assert_int_equal(KMX_LIM_STOP, 0x0801FA40u);
    assert_int_equal(KMX_LIM_SPAWN, 0x0801FA80u);
    assert_int_equal(KMX_LIM_CLUSTER_LINES, 0x0801FB80u);
    assert_int_equal(KMX_LIM_RING_EVENTS, 0x08020000u);
    assert_int_equal(KMX_LIM_PORTS, 0x08021000u);
    assert_int_equal(KMX_LIM_PULL, 0x08023280u);
    assert_int_equal(KMX_LIM_PRIVATE, 0x08024000u);
    assert_int_equal(KMX_LIM_STACKS, 0x08060000u);
}

static void windows(void **state)
{
    (void)state;
    assert_int_equal(KMX_WINDOW_RING, 0);
    assert_int_equal(KMX_WINDOW_CLUSTER(1), 1);
    assert_int_equal(KMX_WINDOW_CLUSTER(3), 3);
    assert_int_equal(KMX_WINDOW_PUSH(0), 4);
    assert_int_equal(KMX_WINDOW_PUSH(3), 7);
    assert_int_equal(KMX_WINDOW_PUSH_ACK(0), 8);
    assert_int_equal(KMX_WINDOW_PUSH_ACK(3), 11);
    assert_true(KMX_WINDOW_PUSH_ACK(3) < KMX_WINDOW_PORTS_FIRST);
    assert_int_equal(KMX_WINDOW_PORTS_COUNT, 168); /* spec: a cluster holds up to 168 */
    assert_int_equal(KMX_WINDOW_PORTS_FIRST + KMX_WINDOW_PORTS_COUNT, BH_NOC_WINDOWS);
}

static void command_and_event(void **state)
{
    (void)state;
    assert_int_equal(sizeof(km_command_t), 48);
    assert_int_equal(offsetof(km_command_t, a0), 8);
    assert_int_equal(offsetof(km_command_t, a9), 44);
    assert_int_equal(sizeof(km_command_line), 64);
    assert_int_equal(offsetof(km_command_line, sequence), 48);
    assert_int_equal(offsetof(km_command_line, land), 52);
    assert_int_equal(sizeof(km_event_t), 16);
    assert_int_equal(offsetof(km_event_t, index), 0);
    assert_int_equal(offsetof(km_event_t, kind), 4);
    assert_int_equal(offsetof(km_event_t, reason), 6);
    assert_int_equal(offsetof(km_event_t, handle), 8);
    assert_int_equal(offsetof(km_event_t, ticks), 12);
    assert_int_equal(sizeof(kmx_ring_descriptor), 64);
    assert_int_equal(offsetof(kmx_ring_descriptor, commands), 16);
    assert_int_equal(offsetof(kmx_ring_descriptor, events), 40);
    assert_int_equal(sizeof(kmx_ring_counts), 64);
    assert_int_equal(sizeof(kmx_ring_read_line), 64);

    /* The spec's way of building a command. */
    km_command_t command;
    memset(&command, 0, sizeof command);
    command.hdr = 17u | KM_FLAG_RESULT << 8;
    command.group = 8u | 12u << 16;
    assert_int_equal(command.hdr, KM_HDR(17, KM_FLAG_RESULT));
    assert_int_equal(KM_HDR_HANDLER(command.hdr), 17);
    assert_int_equal(KM_HDR_FLAGS(command.hdr), KM_FLAG_RESULT);
    assert_int_equal(command.group, KM_GROUP(8, 12));
    assert_int_equal(KM_GROUP_FIRST(command.group), 8);
    assert_int_equal(KM_GROUP_COUNT(command.group), 12);
    assert_int_equal(KM_HDR_FLAGS(KM_HDR(1, KM_FLAGS_ALL)), KM_FLAG_RESULT | KM_FLAG_EXCLUSIVE);

    assert_int_equal(KM_REASON_BUSY, 11);
    assert_int_equal(KM_EVENT_DONE, 1);
    assert_int_equal(KM_EVENT_TIMEOUT, 2);
    assert_int_equal(KM_EVENT_REJECTED, 3);
    assert_int_equal(KMX_EVENT_WAKE, 4);
}

static void argument_block(void **state)
{
    (void)state;
    assert_int_equal(sizeof(kmx_args), KMX_LIM_ARGS_BYTES);
    assert_int_equal(offsetof(kmx_args, nonce), 8);
    assert_int_equal(offsetof(kmx_args, cluster), 16);
    assert_int_equal(offsetof(kmx_args, deadline), 32);
    assert_int_equal(offsetof(kmx_args, check), 64);
    assert_int_equal(offsetof(kmx_args, ring), 128);
    assert_int_equal(offsetof(kmx_args, ports), 192);
    assert_int_equal(offsetof(kmx_args, pull), 256);
    assert_int_equal(offsetof(kmx_args, regions), 320);
    assert_int_equal(offsetof(kmx_args, words), 832);
    assert_int_equal(offsetof(kmx_args, peers), 1088);
    assert_int_equal(offsetof(kmx_args, seal), 2048 - 64);
    assert_int_equal(sizeof(kmx_region_entry), 32);
    assert_int_equal(sizeof(kmx_bank_check), 64);
    assert_int_equal(sizeof(kmx_peer), 192);
    assert_int_equal(sizeof(((kmx_args *)0)->regions) / sizeof(kmx_region_entry), KMX_MAX_REGIONS);
    assert_int_equal(sizeof(((kmx_args *)0)->words) / sizeof(uint32_t), KMX_MAX_WORDS);
    assert_int_equal(KMX_ARGS_SEAL, ~KMX_ARGS_MAGIC);
    /* Every line-sized member starts on a line: a 64-byte store lands whole. */
    assert_int_equal(offsetof(kmx_args, check) % 64, 0);
    assert_int_equal(offsetof(kmx_args, ring) % 64, 0);
    assert_int_equal(offsetof(kmx_args, seal) % 64, 0);
}

static void result_block(void **state)
{
    (void)state;
    assert_int_equal(sizeof(kmx_result_block), KMX_LIM_RESULT_BYTES);
    assert_int_equal(offsetof(kmx_result_block, nonce), 0);
    assert_int_equal(offsetof(kmx_result_block, state), 8);
    assert_int_equal(offsetof(kmx_result_block, error), 12);
    assert_int_equal(offsetof(kmx_result_block, code), 16);
    assert_int_equal(offsetof(kmx_result_block, nwords), 20);
    assert_int_equal(offsetof(kmx_result_block, where), 24);
    assert_int_equal(offsetof(kmx_result_block, where_ticks), 32);
    assert_int_equal(offsetof(kmx_result_block, trap_mcause), 64);
    assert_int_equal(offsetof(kmx_result_block, trap_mepc), 72);
    assert_int_equal(offsetof(kmx_result_block, trap_mtval), 80);
    assert_int_equal(offsetof(kmx_result_block, trap_core), 88);
    assert_int_equal(offsetof(kmx_result_block, words), 128);
    assert_int_equal(sizeof(((kmx_result_block *)0)->words) / 4, 48);

    static const char *const states[] = KMX_STATE_NAMES;
    static const char *const errors[] = KMX_ERROR_NAMES;
    assert_int_equal(sizeof states / sizeof states[0], KMX_STATE_FAILED + 1);
    assert_string_equal(states[KMX_STATE_DONE], "done");
    assert_string_equal(states[KMX_STATE_TRAPPED], "trapped");
    assert_int_equal(sizeof errors / sizeof errors[0], KMX_ERROR_COUNT);
    assert_string_equal(errors[KMX_ERROR_PARALLEL], "parallel");
    assert_string_equal(errors[KMX_ERROR_BANK], "bank");
    assert_string_equal(errors[KMX_ERROR_ARGS], "args");
    assert_string_equal(errors[KMX_ERROR_REGION], "region");
    assert_string_equal(errors[KMX_ERROR_TRAP], "trap");
    assert_false(KMX_STATE_FINAL(KMX_STATE_NONE));
    assert_false(KMX_STATE_FINAL(KMX_STATE_RUNNING));
    assert_true(KMX_STATE_FINAL(KMX_STATE_DONE));
    assert_true(KMX_STATE_FINAL(KMX_STATE_FAILED));
}

static void lines(void **state)
{
    (void)state;
    assert_int_equal(sizeof(kmx_stop_line), 64);
    assert_int_equal(sizeof(kmx_spawn_mailbox), 64);
    assert_int_equal(KMX_LIM_SPAWN_BYTES, BH_CLUSTER_CORES * sizeof(kmx_spawn_mailbox));
    assert_int_equal(offsetof(kmx_spawn_mailbox, posted), 20);
    assert_int_equal(offsetof(kmx_spawn_mailbox, done), 24);
    assert_int_equal(sizeof(kmx_cluster_call), 64);
    assert_int_equal(sizeof(kmx_cluster_done), 64);
    assert_int_equal(sizeof(kmx_cluster_lines), KMX_LIM_CLUSTER_LINES_BYTES);
}

static void ports_and_pull(void **state)
{
    (void)state;
    assert_int_equal(sizeof(km_x280_msg_t), 16);
    assert_int_equal(sizeof(kmx_message), 16);
    assert_int_equal(sizeof(kmx_ports_area), KMX_LIM_PORTS_BYTES);
    assert_int_equal(offsetof(kmx_ports_area, table), 64);
    assert_int_equal(offsetof(kmx_ports_area, mailbox), 1024);
    assert_int_equal(sizeof(kmx_port_mailbox), 64);
    assert_int_equal(offsetof(kmx_port_mailbox, ask), 16);
    assert_int_equal(sizeof(kmx_port_entry), 8);
    assert_int_equal(sizeof(kmx_pull_counters), KMX_LIM_PULL_BYTES);
    assert_int_equal(sizeof(kmx_ports_settings), 64);
    assert_int_equal(sizeof(kmx_pull_settings), 64);

    /* A count per Tensix core, then per_core range numbers per core. */
    assert_true(KMX_PULL_LOG_BYTES(0) == 480u);
    assert_true(KMX_PULL_LOG_BYTES(16) == 120u * 4u * 17u);
    assert_true(KMX_PULL_LOG_BYTES(0xFFFFFFFFu) == 120ull * 4ull * 0x100000000ull);
    assert_true(KMX_PULL_LOG_COUNT_OFFSET(119) == 476u);
    assert_true(KMX_PULL_LOG_RANGE_OFFSET(16, 0, 0) == 480u);
    assert_true(KMX_PULL_LOG_RANGE_OFFSET(16, 1, 2) == 480u + (16u + 2u) * 4u);
    assert_true(KMX_PULL_LOG_RANGE_OFFSET(16, 119, 15) + 4u == KMX_PULL_LOG_BYTES(16));
    assert_int_equal(KMX_PULL_NONE, 0xFFFFFFFFu);

    /* The spec's initialiser. */
    kmx_pull settings = {.units = 31000, .per = 16, .mode = KMX_PULL_COUNT};
    assert_int_equal(settings.units, 31000);
    assert_int_equal(settings.per, 16);
    assert_int_equal(settings.mode, KMX_PULL_COUNT);
    assert_null(settings.pick);
    assert_int_not_equal(KMX_PULL_LOG, KMX_PULL_REPLAY);
}

static void api_types(void **state)
{
    (void)state;
    assert_int_equal(KMX_OK, 0);
    int codes[] = {KMX_BAD, KMX_FULL, KMX_STOPPED, KMX_LATE, KMX_EMPTY};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_int_not_equal(codes[i], KMX_OK);
        for (size_t j = 0; j < i; j++)
            assert_int_not_equal(codes[i], codes[j]);
    }
    assert_int_equal(sizeof(kmx_event), 16);
    kmx_event event = {.kind = KM_EVENT_DONE, .ticks = 42};
    assert_int_equal(event.ticks, 42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_facts),
        cmocka_unit_test(constants_other_engineers_use),
        cmocka_unit_test(lim_map),
        cmocka_unit_test(windows),
        cmocka_unit_test(command_and_event),
        cmocka_unit_test(argument_block),
        cmocka_unit_test(result_block),
        cmocka_unit_test(lines),
        cmocka_unit_test(ports_and_pull),
        cmocka_unit_test(api_types),
    };
    return cmocka_run_group_tests_name("kmx_layout", tests, NULL, NULL);
}
