#!/usr/bin/env bats
# kmrun run --thread host: a host fallback that overflows its stack, stores
# outside a region, or calls abort() or exit() ends its own thread, never
# kmrun: the thread's result reads like a card's, kmrun exits 1 (a thread
# failed), prints the JSON and keeps the run folder.  The threads are in
# tests/fixtures/contained/ (its README says what each does).  `kmrun
# check` on the overflow is long (the simulated card's side spins to its
# limit): tests/long/host_contained.bats (`make test-long`).

# shellcheck disable=SC2154 # output, stderr, status, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fixtures=$KMRUN_TOP/tests/fixtures/contained
}

# The line of thread/FILE that holds MARK.
line_of() {
    grep -n "$2" "$fixtures/thread/$1" | head -1 | cut -d: -f1
}

# The run ended as a failed thread's does: exit 1, the JSON, the run folder
# with its result.
reported() {
    [ "$status" -eq 1 ] || { echo "status $status: $output $stderr"; false; }
    [ "$(field '.backend')" = host ]
    local dir
    dir=$(field '.run_dir')
    [ -f "$dir/result.json" ] || { echo "no run folder '$dir'"; ls "$runs"; false; }
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/run.json"
}

@test "host contained: a stack overflow traps the thread (an alternate signal stack), kmrun lives" {
    run_json --thread host "$fixtures/overflow.yaml"
    reported
    [ "$(field '.threads[0].state')" = trapped ]
    [ "$(field '.threads[0].error')" = trap ]
    [ "$(field '.threads[0].trap.name')" = "Segmentation fault (host fallback, SEGV)" ]
    [ "$(field '.threads[0].trap.source.file')" = thread/overflow.c ]
}

@test "host contained: a store 16 bytes past a region faults on its guard page, with its line" {
    run_json --thread host "$fixtures/past.yaml"
    reported
    [ "$(field '.threads[0].state')" = trapped ]
    [ "$(field '.threads[0].trap.name')" = "Segmentation fault (host fallback, SEGV)" ]
    [ "$(field '.threads[0].trap.source | "\(.file):\(.line)"')" = "thread/past.c:$(line_of past.c 'the store past')" ]
}

@test "host contained: a store 4 bytes before a region faults on its guard page, with its line" {
    run_json --thread host "$fixtures/before.yaml"
    reported
    [ "$(field '.threads[0].state')" = trapped ]
    [ "$(field '.threads[0].trap.name')" = "Segmentation fault (host fallback, SEGV)" ]
    [ "$(field '.threads[0].trap.source | "\(.file):\(.line)"')" = "thread/before.c:$(line_of before.c 'the store before')" ]
}

@test "host contained: abort() traps its thread (SIGABRT, the line of the call); the other is reported" {
    run_json --thread host "$fixtures/abort.yaml"
    reported
    [ "$(field '.threads[0].state')" = trapped ]
    [ "$(field '.threads[0].error')" = trap ]
    [ "$(field '.threads[0].trap.name')" = "Aborted (host fallback, ABRT)" ]
    [ "$(field '.threads[0].trap.mtval')" = 0 ]
    [ "$(field '.threads[0].trap.source | "\(.file):\(.line)"')" = "thread/abort.c:$(line_of abort.c 'the abort')" ]
    [[ $(field '.threads[0].message') == "the thread called abort()"* ]]
    [ "$(field '.threads[1].cluster')" = 2 ]
    # the failure asks it to stop: it returned first, or stopped
    [[ $(field '.threads[1].state') =~ ^(returned|stopped)$ ]]
    [ "$(field '.threads[1].words | @csv')" = 2 ]
}

@test "host contained: exit() fails its thread with a message naming it; the other is reported" {
    run_json --thread host "$fixtures/exit.yaml"
    reported
    [ "$(field '.threads[0].state')" = failed ]
    [ "$(field '.threads[0].error')" = host ]
    [[ $(field '.threads[0].message') == "the thread called exit(3)"* ]]
    [ "$(field '.threads[1].cluster')" = 2 ]
    # the failure asks it to stop: it returned first, or stopped
    [[ $(field '.threads[1].state') =~ ^(returned|stopped)$ ]]
    [ "$(field '.threads[1].words | @csv')" = 2 ]
}
