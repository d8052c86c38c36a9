#!/usr/bin/env bats
# tests/cli/host_contained.bats's long test: `kmrun check` on the thread
# that overflows its stack (tests/fixtures/contained/overflow.yaml).  The
# host fallback's side traps at once; the simulated card's side spins in
# its trap handler until the run's limit, about 17 s, so it runs in `make
# test-long`, not `make test`.

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load ../cli/helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fixtures=$KMRUN_TOP/tests/fixtures/contained
}

@test "host contained: kmrun check on a stack overflow compares, it does not crash" {
    run --separate-stderr kmrun check --run-dir "$runs" "$fixtures/overflow.yaml"
    [ "$status" -le 1 ] || { echo "status $status: $output $stderr"; false; }
    [[ ${lines[0]} == "kmrun: check: 'overflow' "* ]]
}
