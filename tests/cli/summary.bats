#!/usr/bin/env bats
# The summary a person reads after kmrun run and kmrun check on a terminal
# (cmd/run_backend.c, cmd_summary_outcome): on stderr under a
# pseudo-terminal (util-linux's script), none when stderr is a file;
# stdout stays the one JSON document;
# colours only on a terminal and never with NO_COLOR.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    command -v script >/dev/null || { echo "no script(1) (util-linux, in every Debian) to make a terminal"; false; }
}

# on_tty COMMAND...: runs COMMAND with its stdout in $BATS_TEST_TMPDIR/out
# and its stderr on a pseudo-terminal, whose text is the output.
on_tty() {
    local cmd
    printf -v cmd '%q ' "$@"
    run script -qec "$cmd >$BATS_TEST_TMPDIR/out" /dev/null
}

@test "summary: kmrun run on a terminal says what ran; stdout stays the JSON" {
    on_tty env NO_COLOR=1 kmrun run --run-dir "$runs" "$KMRUN_TOP/programs/03_ring/program.yaml"
    [ "$status" -eq 0 ]
    out=$(tr -d '\r' <<<"$output" | grep -v "ASan doesn't fully support" || true)
    [[ "$out" == "ring: "*" µs modeled, 459,680 instructions, "*" s of this machine"* ]]
    [[ "$out" == *"  cluster 1: returned, code 0, words 23 59542 137 23 0 0 983 907 ... (29), "*", last marker 1000"* ]]
    [[ "$out" == *"  counters: cache 14,640 hits, 698 misses, 505 write-backs; NoC 78,228 bytes; Tensix busy "*" on 16 cores; 138 dispatcher passes (stats)"* ]]
    [[ "$out" == *"  run "*": $runs/"* ]]
    [[ "$out" != *$'\033'* ]] # NO_COLOR
    jq -e '.program == "ring"' "$BATS_TEST_TMPDIR/out"
}

@test "summary: colours on a terminal, a line per host-fed command" {
    on_tty env -u NO_COLOR TERM=xterm kmrun run --run-dir "$runs" "$KMRUN_TOP/programs/04_host_fed/program.yaml"
    [ "$status" -eq 0 ]
    [[ "$output" == *$'\033[32m'done$'\033[0m'* ]]
    [[ "$output" == *"  command 0 fill: "* ]]
    [[ "$output" == *"  command 5 weigh: "* ]]
}

@test "summary: nothing extra when stderr is not a terminal" {
    run_json "$KMRUN_TOP/programs/03_ring/program.yaml"
    [ "$status" -eq 0 ]
    [ -z "$(grep -v "ASan doesn't fully support" <<<"$stderr" || true)" ]
}

@test "summary: kmrun check on a terminal summarises both runs" {
    on_tty env NO_COLOR=1 kmrun check --run-dir "$runs" "$KMRUN_TOP/programs/01_hello/program.yaml"
    [ "$status" -eq 0 ]
    [[ "$output" == *"the simulated card:"*"hello: "*"the host fallback:"*"(host)"* ]]
    grep -q "agrees on the simulated card and the host" "$BATS_TEST_TMPDIR/out"
}

@test "summary: the prints' totals, shown and dropped; no prints line when nothing printed" {
    on_tty env NO_COLOR=1 kmrun run --run-dir "$runs" "$KMRUN_TOP/tests/fixtures/print/full.yaml"
    out=$(tr -d '\r' <<<"$output")
    [[ "$out" == *"  prints: 17 shown, 3 dropped (prints.txt)"* ]]
    on_tty env NO_COLOR=1 kmrun run --run-dir "$runs" "$KMRUN_TOP/programs/01_hello/program.yaml"
    [[ "$output" != *"prints:"* ]]
}

@test "summary: a trapped thread's line says the trap, its mtval and its source line" {
    on_tty env NO_COLOR=1 kmrun run --run-dir "$runs" "$KMRUN_TOP/tests/fixtures/run/trap_worker.yaml"
    out=$(tr -d '\r' <<<"$output")
    [[ "$out" == *"  cluster 1: trapped (error trap), code 3, "* ]]
    [[ "$out" == *$'\n'"    core 1.1: load access fault (mcause 5, mtval 0x10000000, mepc 0x"*") at thread/trap_worker.c:12 (in bad)"$'\n'* ]]
    # the same facts as the JSON's
    jq -e '.threads[0].trap | .mtval == 268435456 and .source.line == 12 and .core == 1' "$BATS_TEST_TMPDIR/out"
}

@test "summary: a stuck thread's line says which core, where, and why" {
    on_tty env NO_COLOR=1 kmrun run --timeout 0.1 --run-dir "$runs" "$KMRUN_TOP/tests/fixtures/hazards/stuck_parallel.yaml"
    out=$(tr -d '\r' <<<"$output")
    [[ "$out" == *"  cluster 1: stuck"* ]]
    [[ "$out" == *$'\n'"    core 1 did not return within 1 s of the stop flag: it still runs at pc 0x"*" (thread/stuck_parallel.c:14 in spin), in a loop that never polls the stop"* ]]
}

@test "summary: the prints line without drops reads 'N shown (prints.txt)'" {
    on_tty env NO_COLOR=1 kmrun run --run-dir "$runs" "$KMRUN_TOP/tests/fixtures/print/four.yaml"
    out=$(tr -d '\r' <<<"$output")
    grep -qx "  prints: 8 shown (prints.txt)" <<<"$out" || { echo "$out"; false; }
}
