#!/usr/bin/env bats
# The run JSON's `stats` (sim_card.h, "counters"; kmrun(1)): on every
# example program the figures follow schemas/run.schema.json and add up —
# the X280 cores' instructions sum to the run's `instructions`, every core
# ran at least one cycle an instruction plus its memory stalls, the
# dispatcher took at least the program's host-fed commands, a program that
# reaches DRAM through its cache hit or missed, a program with handlers
# kept Tensix cores busy; and `stats` is null on the host fallback.

# shellcheck disable=SC2154 # output, status: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
}

# check_stats: the sums and bounds on the JSON in $output.
check_stats() {
    jq -e '
        .stats as $s
        | ([$s.x280[].instructions] | add // 0) == .instructions
        and all($s.x280[]; .cycles >= .instructions + .memory_stall_cycles)
        and ([$s.x280[] | .cluster] | unique) == [.threads[].cluster]
        and ([$s.clusters[] | .cluster]) == [.threads[].cluster]
        and all($s.clusters[];
                (.bank_bytes_read | add) >= 64 * .cache_misses
                and (.bank_bytes_written | add) >= 64 * .write_backs)
        and $s.dispatcher.commands >= (.commands | length)
        and $s.dispatcher.passes > 0
        and all($s.tensix[]; .handlers > 0 and .busy_microseconds > 0)
    ' <<<"$output" >/dev/null
}

@test "stats: on every example, the schema's and the figures add up" {
    shopt -s nullglob
    files=("$KMRUN_TOP"/programs/*/*.yaml)
    [ ${#files[@]} -ge 10 ]
    for f in "${files[@]}"; do
        run_json "$f"
        [ "$status" -eq 0 ] || { echo "${f#"$KMRUN_TOP"/}: status $status"; echo "$stderr"; false; }
        printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
        python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
            "$BATS_TEST_TMPDIR/run.json" || { echo "${f#"$KMRUN_TOP"/}: schema"; false; }
        check_stats || {
            echo "${f#"$KMRUN_TOP"/}: the figures do not add up"
            jq '{instructions, stats}' <<<"$output"
            false
        }
    done
}

@test "stats: a program on DRAM through its cache counts hits, misses and its bank's bytes" {
    run_json "$KMRUN_TOP/programs/02_parallel_sum/program.yaml"
    [ "$status" -eq 0 ]
    jq -e '.stats.clusters[0] | .cache_hits + .cache_misses > 0
           and .cache_misses > 0 and (.bank_bytes_read | add) > 0' <<<"$output"
    jq -e 'all(.stats.x280[]; .memory_stall_cycles > 0)' <<<"$output"
}

@test "stats: handlers keep Tensix cores busy, and their NoC bytes are counted" {
    run_json "$KMRUN_TOP/programs/03_ring/program.yaml"
    [ "$status" -eq 0 ]
    jq -e '(.stats.tensix | length) > 0 and .stats.noc_bytes.tensix_to_bank > 0
           and .stats.dispatcher.commands > 0' <<<"$output"
    run_json "$KMRUN_TOP/programs/10_x280_ports/latency.yaml"
    [ "$status" -eq 0 ]
    jq -e '.stats.noc_bytes | .x280_to_tensix > 0 and .tensix_to_x280 > 0
           and .tensix_to_x280 % 16 == 0' <<<"$output"
    run_json "$KMRUN_TOP/programs/08_parallel_thread/twelve.yaml"
    [ "$status" -eq 0 ]
    jq -e '.stats.noc_bytes.x280_to_bank > 0 and (.stats.clusters | length) == 3' <<<"$output"
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
