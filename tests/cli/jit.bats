#!/usr/bin/env bats
# Translated and interpreted harts (device/sim/README.md, "The translated
# code"): KMRUN_JIT=off makes the harts interpret every instruction, the
# reference the translation must equal.  Each run here is made both ways
# and compared whole: results, instruction counts, modeled cycles.

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
}

# both_exec NAME: tests/isa/NAME.S under kmrun exec, interpreted and
# translated: the same JSON, and the test's own pass (exit 0).
both_exec() {
    "$KMRUN_TOP/tests/isa/assemble" "$BATS_TEST_TMPDIR" "$KMRUN_TOP/tests/isa/$1.S"
    KMRUN_JIT=off kmrun exec --json "$BATS_TEST_TMPDIR/$1.elf" >"$BATS_TEST_TMPDIR/off.json" || true
    kmrun exec --json "$BATS_TEST_TMPDIR/$1.elf" >"$BATS_TEST_TMPDIR/on.json" || true
    diff -u "$BATS_TEST_TMPDIR/off.json" "$BATS_TEST_TMPDIR/on.json"
    grep -q '"exit_code": 0,' "$BATS_TEST_TMPDIR/on.json"
}

# both_run DIR NAME: programs/DIR/NAME.yaml, interpreted and translated:
# the same run JSON but for its id, folder and wall time.
both_run() {
    local m=$KMRUN_TOP/programs/$1/$2.yaml mode
    KMRUN_JIT=off kmrun run --run-dir "$runs/off" "$m" >"$BATS_TEST_TMPDIR/off.raw"
    kmrun run --run-dir "$runs/on" "$m" >"$BATS_TEST_TMPDIR/on.raw"
    for mode in off on; do
        "$KMRUN_TOP/tests/golden/normalize" <"$BATS_TEST_TMPDIR/$mode.raw" >"$BATS_TEST_TMPDIR/$mode.json"
    done
    diff -u "$BATS_TEST_TMPDIR/off.json" "$BATS_TEST_TMPDIR/on.json"
    # a run that did something: its cores retired instructions
    [ "$(jq '.instructions' "$BATS_TEST_TMPDIR/on.json")" -gt 1000 ]
}

@test "jit: the integer, multiply, compressed and bit-manipulation tests alike both ways" {
    local t
    for t in rv64i rv64m rvc zba zbb; do both_exec "$t"; done
}

@test "jit: floating point, traps and code written at run time (fence.i) alike both ways" {
    local t
    for t in rv64f rv64d traps fencei; do both_exec "$t"; done
}

@test "jit: a cluster's four cores with shared code alike both ways (07_work_cluster)" {
    both_run 07_work_cluster program
}

@test "jit: twelve cores, ports and DRAM alike both ways (10_x280_ports)" {
    both_run 10_x280_ports program
}
