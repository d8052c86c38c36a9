#!/usr/bin/env bats
# DRAM banks serve requests from a queue, and interleaved tensors spread
# the load over the eight banks (issue 32, part 3).  The spec's experiment:
# the Tensix cores' counters, in the thread's bank (6) or interleaved
# (tests/fixtures/banks/, whose README lists the result words).

# shellcheck disable=SC2154 # output, stderr, status: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    fixtures=$KMRUN_TOP/tests/fixtures/banks
}

# counted MANIFEST [OPTIONS]: runs it; the count went through (result 0).
counted() {
    local name=$1
    shift
    run_json "$@" "$fixtures/$name.yaml"
    [ "$status" -eq 0 ] || { echo "$output"; echo "$stderr"; false; }
    [ "$(field '.threads[0].state')" = returned ]
    [ "$(field '.threads[0].words[0]')" = 0 ]
}

@test "banks: 119 cores' counters take several times longer in bank 6 than interleaved, same counters" {
    counted bank6
    local bank_ticks bank_sum
    bank_ticks=$(field '.threads[0].words[1]')
    bank_sum=$(field '.threads[0].words[2]')
    counted interleaved
    local spread_ticks spread_sum
    spread_ticks=$(field '.threads[0].words[1]')
    spread_sum=$(field '.threads[0].words[2]')
    echo "bank 6: $bank_ticks ticks, interleaved: $spread_ticks ticks"
    # The same counters either way (and not a zero sum).
    [ "$bank_sum" = "$spread_sum" ]
    [ "$bank_sum" != 0 ]
    # The spec: 247 us against 59 us, 4.2 x.  Here at least 3 x.
    [ "$((bank_ticks))" -ge "$((3 * spread_ticks))" ]
}

@test "banks: the run's JSON lists the tensor, and follows schemas/run.schema.json" {
    counted interleaved
    [ "$(field '.tensors[0] | [.name, .page_size, .bytes] | @csv')" = '"counters",4096,487424' ]
    # past the thread's bank: its check line and nothing else of it in bank 6
    [ "$(field '.tensors[0].base')" -gt 16777216 ]
    [ "$(field '.regions | length')" = 0 ]
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    /usr/bin/python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/run.json"
    counted bank6
    [ "$(field '.tensors')" = null ]
}

@test "banks: the same times and counters every run" {
    counted interleaved
    local first
    first=$(field '.threads[0].words | @csv')
    counted interleaved
    [ "$(field '.threads[0].words | @csv')" = "$first" ]
}

@test "banks: the host fallback gives the sim backend's counters" {
    counted interleaved
    local sim
    sim=$(field '.threads[0].words[2]')
    counted interleaved --thread host
    [ "$(field '.threads[0].words[2]')" = "$sim" ]
}

@test "banks: a thread that names an interleaved region is refused at its name" {
    local m=$BATS_TEST_TMPDIR/p.yaml
    mkdir -p "$BATS_TEST_TMPDIR/thread"
    cp "$fixtures/thread/counters.c" "$BATS_TEST_TMPDIR/thread/"
    cat >"$m" <<'YAML'
name: t
regions:
  counters: {size: 4KiB, placement: interleaved}
threads:
  - cluster: 1
    sources: [thread/counters.c]
    shared: [counters]
YAML
    run --separate-stderr kmrun validate "$m"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"p.yaml:7:14: shared region 'counters' is interleaved"* ]]
}
