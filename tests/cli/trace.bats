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
