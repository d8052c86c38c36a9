#!/usr/bin/env bats
# programs/03_ring: a thread's control loop on result words through its
# command ring, with the program's own handler (programs/03_ring/README.md):
# the words the README predicts, the regions after the run, and what
# happens without the flush and the invalidate it explains.

# shellcheck disable=SC2154 # output, stderr, lines: set by run
load helpers

setup() {
    runs=$BATS_TEST_TMPDIR/runs
    example=$KMRUN_TOP/programs/03_ring
    program=$example/program.yaml
    # rounds, steps, cores, last handle, busy, full, then each round's count
    words='23,59542,137,23,0,0,983,907,780,649,543,450,384,357,331,319,296,266,227,178,114,62,25,10,3,3,3,1,0'
}

# A copy of the program whose thread has `$1` (a whole line of ring.c)
# removed; its manifest is $BATS_TEST_TMPDIR/copy/program.yaml.
copy_without() {
    rm -rf "$BATS_TEST_TMPDIR/copy"
    cp -r "$example" "$BATS_TEST_TMPDIR/copy"
    local c=$BATS_TEST_TMPDIR/copy/thread/ring.c
    [ "$(grep -cxF -- "$1" "$c")" = 1 ] || { echo "not one line: $1"; return 1; }
    grep -vxF -- "$1" "$c" >"$c.new"
    mv "$c.new" "$c"
}

@test "03_ring: returns the words its README predicts, state returned" {
    run_json "$program"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    # (but for the one line ASan prints at the grid's first stack switch
    # in a MODE=asan build: device/sim/README.md, "ASan")
    rest=$(grep -v "ASan doesn't fully support makecontext/swapcontext" <<<"$stderr" || true)
    [ -z "$rest" ]
    [ "$(field '.threads | length')" = 1 ]
    [ "$(field '.threads[0] | [.cluster, .ran, .state, .error, .code, .where] | @csv')" = \
        '1,true,"returned","none",0,1000' ]
    [ "$(field '.threads[0].words | @csv')" = "$words" ] || { field '.threads[0].words'; false; }
    [ "$(field '.commands | length')" = 0 ]
    [ "$(field '.threads[0].microseconds > 0 and .device_microseconds > 0')" = true ]
}

@test "03_ring: the words are what the Collatz stopping times of 1..1000 give" {
    run_json "$program"
    [ "$status" -eq 0 ]
    expected=$(python3 - <<'PY'
from math import ceil
N, K = 1000, 8
def steps(v):
    s = 0
    while v != 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        s += 1
    return s
S = [steps(v) for v in range(1, N + 1)]
counts, n, cores = [], N, 0
while n:
    cores += ceil(n / 64)
    n = sum(s > K * (len(counts) + 1) for s in S)
    counts.append(n)
print(",".join(map(str, [len(counts), sum(S), cores, len(counts), 0, 0] + counts)))
PY
)
    [ "$(field '.threads[0].words | @csv')" = "$expected" ]
    [ "$expected" = "$words" ]
}

@test "03_ring: the regions hold the last round's slot and the last value gathered" {
    run_json "$program"
    [ "$status" -eq 0 ]
    # counts, slot 0: round 23, nothing kept, 2 steps (871's last two)
    run kmrun read-region --run-dir "$runs" --format u32 --length 16 counts
    [ "$status" -eq 0 ]
    [ "$(tr '\n' ' ' <<<"$output")" = "23 0 2 0 " ]
    # live: 871 after 22 rounds of 8 steps is 4
    run kmrun read-region --run-dir "$runs" --format u32 --length 4 live
    [ "$output" = 4 ]
}

@test "03_ring: the README's JSON has the words, state and code the run gives" {
    run_json "$program"
    [ "$status" -eq 0 ]
    readme=$example/README.md
    want=$(awk '/^```json/ { on = 1; next } /^```/ { on = 0 } on' "$readme")
    filter='[.state, .code, .where, (.words | @csv)] | @csv'
    [ "$(jq -r "$filter" <<<"$want")" = "$(field ".threads[0] | $filter")" ]
}

@test "03_ring: the JSON follows schemas/run.schema.json and is the same twice" {
    run_json "$program"
    [ "$status" -eq 0 ]
    first=$output
    printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/run.json"
    python3 "$KMRUN_TOP/tests/cli/schema_check.py" "$KMRUN_TOP/schemas/run.schema.json" \
        "$BATS_TEST_TMPDIR/run.json"
    run_json "$program"
    [ "$status" -eq 0 ]
    diff -u <(stable "$first") <(stable "$output")
}

@test "03_ring: without the invalidate of counts the gather sees round 1's slots (code 7)" {
    copy_without '        kmx_invalidate_at(COUNTS, 0, 64u * (uint64_t)group);'
    run_json "$BATS_TEST_TMPDIR/copy/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.threads[0] | [.state, .code, .where] | @csv')" = '"returned",7,22' ]
}

@test "03_ring: without the flushes the grid reads stale DRAM and the words are wrong" {
    # After the fill: the grid reads the card's zeros and drops them all.
    copy_without '    kmx_flush(LIVE);'
    run_json "$BATS_TEST_TMPDIR/copy/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.threads[0] | [.state, .code] | @csv')" = '"returned",0' ]
    [ "$(field '.threads[0].words | @csv')" = 1,0,16,1,0,0,0 ]
    # After each gather: code 0, but not the words of a right run.
    copy_without '        kmx_flush_at(LIVE, 0, 4u * (uint64_t)alive);'
    run_json "$BATS_TEST_TMPDIR/copy/program.yaml"
    [ "$status" -eq 0 ] || { echo "$stderr"; false; }
    [ "$(field '.threads[0] | [.state, .code] | @csv')" = '"returned",0' ]
    [ "$(field '.threads[0].words | @csv')" != "$words" ]
    [ "$(field '.threads[0].words[1]')" != 59542 ]
}
