#!/usr/bin/env bats
# The run JSON's `stats` (sim_card.h, "counters"; kmrun(1)): on every
# example program the figures follow schemas/run.schema.json and add up —
# the X280 cores' instructions sum to the run's `instructions`, every core
# ran at least one cycle an instruction plus its memory stalls, the
# dispatcher took at least the program's host-fed commands, a program that
# reaches DRAM through its cache hit or missed, a program with handlers
# kept Tensix cores busy; and `stats` is null on the host fallback.
# Here the sums are checked on the runs these tests make (four examples);
# the check on every example, one run each, is long: tests/long/stats.bats
# (`make test-long`).

# shellcheck disable=SC2154 # output, status: set by run
load helpers
load stats_helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
}

@test "stats: a program on DRAM through its cache counts hits, misses and its bank's bytes" {
    run_json "$KMRUN_TOP/programs/02_parallel_sum/program.yaml"
    [ "$status" -eq 0 ]
    jq -e '.stats.clusters[0] | .cache_hits + .cache_misses > 0
           and .cache_misses > 0 and (.bank_bytes_read | add) > 0' <<<"$output"
    jq -e 'all(.stats.x280[]; .memory_stall_cycles > 0)' <<<"$output"
    check_stats
}

@test "stats: handlers keep Tensix cores busy, and their NoC bytes are counted" {
    run_json "$KMRUN_TOP/programs/03_ring/program.yaml"
    [ "$status" -eq 0 ]
    jq -e '(.stats.tensix | length) > 0 and .stats.noc_bytes.tensix_to_bank > 0
           and .stats.dispatcher.commands > 0' <<<"$output"
    check_stats
    run_json "$KMRUN_TOP/programs/10_x280_ports/latency.yaml"
    [ "$status" -eq 0 ]
    jq -e '.stats.noc_bytes | .x280_to_tensix > 0 and .tensix_to_x280 > 0
           and .tensix_to_x280 % 16 == 0' <<<"$output"
    check_stats
    run_json "$KMRUN_TOP/programs/08_parallel_thread/twelve.yaml"
    [ "$status" -eq 0 ]
    jq -e '.stats.noc_bytes.x280_to_bank > 0 and (.stats.clusters | length) == 3' <<<"$output"
    check_stats
}

@test "stats: the same run gives the same figures" {
    run_json "$KMRUN_TOP/programs/03_ring/program.yaml"
    first=$(jq -S .stats <<<"$output")
    run_json "$KMRUN_TOP/programs/03_ring/program.yaml"
    [ "$(jq -S .stats <<<"$output")" = "$first" ]
}

@test "stats: null on the host fallback" {
    run_json --thread host "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field .backend)" = host ]
    [ "$(field .stats)" = null ]
}
