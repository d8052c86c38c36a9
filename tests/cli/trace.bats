#!/usr/bin/env bats
# kmrun exec --trace-instructions: every retired instruction as a line of
# Spike's commit log.  tests/isa/commitlog.log is the sample: written to
# the format of Spike's commit_log_print_insn (riscv-isa-sim,
# riscv/execute.cc) and checked by hand line by line against the program
# (Spike itself is not packaged for Debian 12).

load helpers

setup() {
    isa=$KMRUN_TOP/tests/isa
    "$isa/assemble" "$BATS_TEST_TMPDIR" "$isa/commitlog.S" "$isa/rv64i.S"
}

@test "trace: the sample program's log is the checked-in sample, line for line" {
    run --separate-stderr kmrun exec --trace-instructions "$BATS_TEST_TMPDIR/commitlog.elf"
    [ "$status" -eq 0 ]
    printf '%s\n' "$stderr" >"$BATS_TEST_TMPDIR/got.log"
    diff -u "$isa/commitlog.log" "$BATS_TEST_TMPDIR/got.log"
}

@test "trace: =FILE writes the log there, and stderr stays quiet" {
    run --separate-stderr kmrun exec --trace-instructions="$BATS_TEST_TMPDIR/t.log" \
        "$BATS_TEST_TMPDIR/commitlog.elf"
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    diff -u "$isa/commitlog.log" "$BATS_TEST_TMPDIR/t.log"
}

@test "trace: one line per retired instruction, and the run is the same as without" {
    run --separate-stderr kmrun exec --json "$BATS_TEST_TMPDIR/rv64i.elf"
    [ "$status" -eq 0 ]
    local plain=$output
    run --separate-stderr kmrun exec --json --trace-instructions="$BATS_TEST_TMPDIR/t.log" \
        "$BATS_TEST_TMPDIR/rv64i.elf"
    [ "$status" -eq 0 ]
    [ "$output" = "$plain" ]
    [ "$(wc -l <"$BATS_TEST_TMPDIR/t.log")" -eq "$(jq .instructions <<<"$output")" ]
    # every line is a commit record: core, privilege, pc, bits
    ! grep -Ev '^core   0: 3 0x[0-9a-f]{16} \(0x([0-9a-f]{4}|[0-9a-f]{8})\)( |$)' "$BATS_TEST_TMPDIR/t.log"
}

@test "trace: a file that cannot be written is an error (exit 4) that names it" {
    run --separate-stderr kmrun exec --trace-instructions=/nonexistent/dir/t.log \
        "$BATS_TEST_TMPDIR/commitlog.elf"
    [ "$status" -eq 4 ]
    [[ "$stderr" == *"cannot write the trace '/nonexistent/dir/t.log'"* ]]
}

# ---- kmrun run --trace-instructions CLUSTER.CORE --------------------------

@test "trace: a core of a run, into the run folder: one line per instruction, the run as recorded" {
    runs=$BATS_TEST_TMPDIR/runs
    run_json --trace-instructions 1.2 "$KMRUN_TOP/programs/02_parallel_sum/program.yaml"
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"kmrun: core 1.2's instruction trace: $runs/"*"/trace-c1.2.log"* ]]
    local log=$runs/latest/trace-c1.2.log
    [ -f "$log" ]
    # what the core retired, line for line, and nothing else about the run moved
    [ "$(wc -l <"$log")" -eq "$(field '.stats.x280[] | select(.cluster == 1 and .core == 2) | .instructions')" ]
    printf '%s\n' "$output" | "$KMRUN_TOP/tests/golden/normalize" |
        diff -u "$KMRUN_TOP/tests/golden/02_parallel_sum_program.json" -
    ! grep -Ev '^core   2: 3 0x[0-9a-f]{16} \(0x([0-9a-f]{4}|[0-9a-f]{8})\)( |$)' "$log"
}

@test "trace: --trace-instructions wants CLUSTER.CORE of a core a thread runs on" {
    runs=$BATS_TEST_TMPDIR/runs
    local m=$KMRUN_TOP/programs/01_hello/program.yaml bad
    for bad in 1 x.0 1.0x -1.0 1. ''; do
        run_json --trace-instructions "$bad" "$m"
        [ "$status" -eq 2 ]
        [[ "$stderr" == *"invalid --trace-instructions '$bad' (expected CLUSTER.CORE, such as 1.0)"* ]]
    done
    run_json --trace-instructions 1.4 "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"no X280 core 1.4 to trace (clusters 1 to 3, cores 0 to 3)"* ]]
    run_json --trace-instructions 2.0 "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"cannot trace core 2.0: no thread of 'hello' runs on X280 cluster 2 (its threads run on cluster 1)"* ]]
    run_json --thread host --trace-instructions 1.0 "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"the host fallback runs X280 threads on the host"* ]]
    [ ! -e "$runs/latest" ]
}
